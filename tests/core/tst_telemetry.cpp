// The telemetry sampler (docs/telemetry.md): the /proc parsers on captured text with rates computed by
// hand, the live sampler on this machine (rows cover the interval it ran), the CSV/JSON files round
// trip, the client-bound rule on synthetic rows, and nvidia-smi absent, hung, failing or present (a
// stand-in script).
#include "store/run_files.h"
#include "testsupport.h"

#include "telemetry/client_bound.h"
#include "telemetry/gpu_query.h"
#include "telemetry/proc_parsers.h"
#include "telemetry/telemetry_sampler.h"
#include "telemetry/telemetry_table.h"
#include "util/clock.h"
#include "util/errors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <set>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <thread>
#include <unistd.h>

using namespace trainio;
using namespace trainio::telemetry;
namespace fs = std::filesystem;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Runs fn and returns the InputError's text, or fails the test when fn does not throw one.
template <typename Fn> std::string inputErrorOf(Fn&& fn) {
    try {
        fn();
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no InputError thrown)";
}

// Compares every rate with the hand-computed one, in the order of DiskRates' fields.
void checkDiskRates(const DiskRates& r, const std::array<double, 6>& expected) {
    const std::array<double, 6> got{r.readMiBs,  r.writeMiBs, r.readIops,
                                    r.writeIops, r.utilPct,   r.queueDepth};
    for (std::size_t i = 0; i < got.size(); ++i)
        QVERIFY2(std::abs(got[i] - expected[i]) < 1e-12,
                 qPrintable(QString("field %1: %2, expected %3").arg(i).arg(got[i]).arg(expected[i])));
}

void writeScript(const fs::path& p, const std::string& body) {
    testsupport::writeText(p, "#!/bin/sh\n" + body);
    ::chmod(p.c_str(), 0755);
}

TelemetryOptions quietOptions(double intervalS) {
    TelemetryOptions o;
    o.intervalS = intervalS;
    o.nvidiaSmi.clear(); // GPU behaviour has its own tests
    return o;
}

bool sameValues(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) return false;
    return true;
}

// VmRSS from /proc/self/status, read apart from the sampler's /proc/self/statm.
double vmRssMiB() {
    std::istringstream in(testsupport::readText("/proc/self/status"));
    std::string key;
    while (in >> key) {
        if (key == "VmRSS:") {
            double kib = 0;
            in >> kib;
            return kib / 1024.0;
        }
    }
    return -1;
}

} // namespace

class TestTelemetry : public QObject {
    Q_OBJECT
private slots:
    void procStatRates();
    void procStatOldKernelAndErrors();
    void diskstatsTwentyFields();
    void diskstatsFourteenFieldsAndOldPartitions();
    void diskstatsErrors();
    void counterWrap();
    void netDevRates();
    void meminfoAndStatm();
    void defaultDiskRule();
    void nvidiaSmiParsing();
    void csvJsonRoundTrip();
    void csvJsonErrors();
    void clientBoundRule();
    void liveSamplerCoversInterval();
    void liveColumnsFollowTheRules();
    void liveDiskSeesRealIo();
    void badOptions();
    void nvidiaSmiAbsent();
    void nvidiaSmiStandIn();
    void nvidiaSmiHungOrFailing();
};

void TestTelemetry::procStatRates() {
    CpuStat a, b;
    parseProcStat("cpu  100 0 50 800 20 5 5 0 0 0\n"
                  "cpu0 60 0 20 400 10 5 5 0 0 0\n"
                  "cpu1 40 0 30 400 10 0 0 0 0 0\n"
                  "intr 12345 1 2 3\nctxt 99\nbtime 1700000000\n",
                  a);
    // Over the interval: user +150, nice +10, system +40, idle +100, iowait +20, softirq +10, guest +30.
    // busy = 150 + 10 + 40 + 10 = 210 (guest is inside user already), all = 210 + 100 + 20 = 330.
    parseProcStat("cpu  250 10 90 900 40 5 15 0 30 0\n"
                  "cpu0 100 0 20 450 10 5 5 0 0 0\n"
                  "cpu1 40 0 30 400 10 0 0 0 0 0\n",
                  b);
    QCOMPARE(a.coreIds, (std::vector<int>{0, 1}));
    const CpuPercent total = cpuPercent(a.total, b.total);
    QVERIFY(std::abs(total.busyPct - 210.0 / 330.0 * 100.0) < 1e-9);
    QVERIFY(std::abs(total.iowaitPct - 20.0 / 330.0 * 100.0) < 1e-9);
    // cpu0: +40 user, +50 idle → 40 / 90; cpu1 unchanged → no jiffy elapsed → NaN, never 0 or 100.
    QVERIFY(std::abs(cpuPercent(a.cores[0], b.cores[0]).busyPct - 40.0 / 90.0 * 100.0) < 1e-9);
    QVERIFY(std::isnan(cpuPercent(a.cores[1], b.cores[1]).busyPct));
}

void TestTelemetry::procStatOldKernelAndErrors() {
    CpuStat s;
    parseProcStat("cpu 10 2 8 80\ncpu0 10 2 8 80\n", s); // 2.4: four counters
    QCOMPARE(s.total.busy, std::uint64_t(20));
    QCOMPARE(s.total.idle, std::uint64_t(80));
    QCOMPARE(s.cores.size(), std::size_t(1));
    const std::string e1 = inputErrorOf([] {
        CpuStat x;
        parseProcStat("cpu 1 2 x 4\n", x, "fixture-stat");
    });
    QVERIFY2(e1.find("fixture-stat line 1") != std::string::npos && e1.find("\"x\"") != std::string::npos,
             e1.c_str());
    const std::string e2 = inputErrorOf([] {
        CpuStat x;
        parseProcStat("intr 1\n", x, "fixture-stat");
    });
    QVERIFY2(e2.find("no \"cpu\" line") != std::string::npos, e2.c_str());
}

void TestTelemetry::diskstatsTwentyFields() {
    // Kernel 5.5+ lines: major minor name and 17 counters.
    std::vector<DiskCounters> a, b;
    parseDiskstats("   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
                   " 259       0 nvme0n1 1000 10 204800 500 2000 20 409600 900 0 3000 5000 0 0 0 0 50 10\n"
                   " 259       1 nvme0n1p1 900 10 184320 450 1900 20 389120 850 0 2800 4700 0 0 0 0 0 0\n",
                   a);
    parseDiskstats("   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
                   " 259       0 nvme0n1 1400 10 409600 700 2100 20 614400 950 2 3500 6500 0 0 0 0 55 12\n"
                   " 259       1 nvme0n1p1 900 10 184320 450 1900 20 389120 850 0 2800 4700 0 0 0 0 0 0\n",
                   b);
    QCOMPARE(a.size(), std::size_t(3));
    QCOMPARE(a[1].name, std::string("nvme0n1"));
    QCOMPARE(a[1].major, 259u);
    // Over 2 s: 204800 sectors × 512 B = 100 MiB read and 100 MiB written → 50 MiB/s each; 400 reads
    // → 200/s; 100 writes → 50/s; io_ticks +500 ms of 2000 ms → 25 %; time_in_queue +1500 ms → 0.75.
    checkDiskRates(diskRates(a[1], b[1], 2.0), {50.0, 50.0, 200.0, 50.0, 25.0, 0.75});
}

void TestTelemetry::diskstatsFourteenFieldsAndOldPartitions() {
    // Kernels before 4.18: 11 counters; 2.6 printed partitions with 4 counters (skipped).
    std::vector<DiskCounters> a, b;
    parseDiskstats("   8       0 sda 100 0 2048 10 50 0 1024 5 0 20 30\n   8       1 sda1 100 200 300 400\n",
                   a);
    parseDiskstats(
        "   8       0 sda 300 0 10240 30 150 0 3072 15 1 220 430\n   8       1 sda1 100 200 300 400\n", b);
    QCOMPARE(a.size(), std::size_t(1));
    // Over 1 s: 8192 sectors = 4 MiB read, 2048 sectors = 1 MiB written, 200 reads, 100 writes,
    // io_ticks +200 ms → 20 %, time_in_queue +400 ms → 0.4 in flight on average.
    checkDiskRates(diskRates(a[0], b[0], 1.0), {4.0, 1.0, 200.0, 100.0, 20.0, 0.4});
    // A device busy for longer than the interval (jiffy rounding) is shown as 100 %, not more.
    DiskCounters busy = b[0];
    busy.ioTicksMs = a[0].ioTicksMs + 1010;
    QCOMPARE(diskRates(a[0], busy, 1.0).utilPct, 100.0);
}

void TestTelemetry::diskstatsErrors() {
    std::vector<DiskCounters> d;
    const std::string e = inputErrorOf(
        [&] { parseDiskstats("8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n8 0 sdb 1 2 3\n", d, "ds-fixture"); });
    QVERIFY2(e.find("ds-fixture line 2") != std::string::npos &&
                 e.find("14, 18 or 20 fields") != std::string::npos,
             e.c_str());
    const std::string e2 =
        inputErrorOf([&] { parseDiskstats("8 0 sda 1 2 3 4 5 6 7 8 9 -10 11\n", d, "ds-fixture"); });
    QVERIFY2(e2.find("\"-10\"") != std::string::npos, e2.c_str());
}

void TestTelemetry::counterWrap() {
    // io_ticks is a 32-bit counter on some kernels: 4294967290 → 10 is 6 + 10 = 16 ms, not a huge negative.
    QCOMPARE(counterDelta(4294967290ull, 10), 16.0);
    QCOMPARE(counterDelta(5, 12), 7.0);
    // A 64-bit counter going backwards is a reset: no rate.
    QCOMPARE(counterDelta(10000000000ull, 5), -1.0);
    DiskCounters a, b;
    a.sectorsRead = 10000000000ull;
    b.sectorsRead = 5;
    QVERIFY(std::isnan(diskRates(a, b, 1.0).readMiBs));
}

void TestTelemetry::netDevRates() {
    const char* header =
        "Inter-|   Receive                                                |  Transmit\n"
        " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop "
        "fifo colls carrier compressed\n";
    std::vector<NetCounters> a, b;
    parseNetDev(std::string(header) + "    lo: 1000 10 0 0 0 0 0 0 1000 10 0 0 0 0 0 0\n"
                                      "  eth0: 1048576 100 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
                                      "eth1:123 1 0 0 0 0 0 0 456 2 0 0 0 0 0 0\n",
                a);
    parseNetDev(std::string(header) + "    lo: 1000 10 0 0 0 0 0 0 1000 10 0 0 0 0 0 0\n"
                                      "  eth0: 4194304 400 0 0 0 0 0 0 524288 50 0 0 0 0 0 0\n"
                                      "eth1:123 1 0 0 0 0 0 0 456 2 0 0 0 0 0 0\n",
                b);
    QCOMPARE(a.size(), std::size_t(3));
    QCOMPARE(a[2].name, std::string("eth1"));
    QCOMPARE(a[2].rxBytes, std::uint64_t(123));
    QCOMPARE(a[2].txBytes, std::uint64_t(456));
    // Over 0.5 s: 3 MiB received → 6 MiB/s; 0.5 MiB sent → 1 MiB/s.
    const NetRates r = netRates(a[1], b[1], 0.5);
    QCOMPARE(r.rxMiBs, 6.0);
    QCOMPARE(r.txMiBs, 1.0);
    const std::string e =
        inputErrorOf([&] { parseNetDev(std::string(header) + "eth0: 1 2 3\n", a, "nd-fixture"); });
    QVERIFY2(e.find("nd-fixture line 3") != std::string::npos && e.find("16 counters") != std::string::npos,
             e.c_str());
}

void TestTelemetry::meminfoAndStatm() {
    MemInfo m;
    parseMeminfo("MemTotal:       24684084 kB\nMemFree:        21404168 kB\nMemAvailable:   23188704 kB\n"
                 "Buffers:           35884 kB\nSwapCached:          77 kB\nCached:          1956652 kB\n",
                 m);
    QCOMPARE(m.totalKiB, std::uint64_t(24684084));
    QCOMPARE(m.availableKiB, std::uint64_t(23188704));
    QCOMPARE(m.cachedKiB, std::uint64_t(1956652)); // Cached, not SwapCached
    const std::string e =
        inputErrorOf([&] { parseMeminfo("MemTotal: 1 kB\nMemAvailable: 1 kB\n", m, "mi-fixture"); });
    QVERIFY2(e.find("mi-fixture") != std::string::npos && e.find("missing Cached") != std::string::npos,
             e.c_str());
    QCOMPARE(parseStatmResidentPages("765 422 394 5 0 123 0\n"), std::uint64_t(422));
}

void TestTelemetry::defaultDiskRule() {
    QTemporaryDir tmp;
    const fs::path sys = tmp.path().toStdString();
    for (const char* d : {"nvme0n1", "sda", "loop0", "ram0", "zram0", "dm-0", "md127"})
        fs::create_directories(sys / d);
    const std::set<std::string> expected{"nvme0n1", "sda", "dm-0", "md127"};
    for (const char* d : {"nvme0n1", "sda", "loop0", "ram0", "zram0", "dm-0", "md127", "nvme0n1p1", "sda2"})
        QVERIFY2(isDefaultDisk(d, sys.string()) == (expected.count(d) == 1), d);
}

void TestTelemetry::nvidiaSmiParsing() {
    const auto g = parseNvidiaSmi("45, 1234, 16384\n[N/A], 10, 8192\n");
    QCOMPARE(g.size(), std::size_t(2));
    QCOMPARE(g[0].utilPct, 45.0);
    QCOMPARE(g[0].memUsedMiB, 1234.0);
    QCOMPARE(g[0].memTotalMiB, 16384.0);
    QVERIFY(std::isnan(g[1].utilPct));
    QCOMPARE(g[1].memTotalMiB, 8192.0);
    const std::string e = inputErrorOf([] { parseNvidiaSmi("45, 1234\n", "smi"); });
    QVERIFY2(e.find("smi line 1") != std::string::npos, e.c_str());
    const std::string e2 = inputErrorOf([] { parseNvidiaSmi("45, 12x4, 3\n", "smi"); });
    QVERIFY2(e2.find("\"12x4\"") != std::string::npos, e2.c_str());
}

void TestTelemetry::csvJsonRoundTrip() {
    TelemetryTable t;
    for (const char* c :
         {"time_s", "cpu_busy_pct", "disk_nvme0n1_read_mib_s", "net_eth0_rx_mib_s", "gpu0_util_pct"})
        t.columns.push_back(describeColumn(c));
    t.intervalS = 0.25;
    t.notes = {"a note, with a comma"};
    t.rows = {{0.25, 12.5, 0.1, kNaN, 1e-7}, {0.5000001, 100, 123456.789, 3.0, kNaN}};
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    store::writeTelemetryFiles(dir / "inv", t);
    const std::string csv = testsupport::readText(dir / "inv" / "telemetry.csv");
    QCOMPARE(csv, std::string("time_s,cpu_busy_pct,disk_nvme0n1_read_mib_s,net_eth0_rx_mib_s,gpu0_util_pct\n"
                              "0.25,12.5,0.1,,1e-07\n0.5000001,100,123456.789,3,\n"));
    const TelemetryTable fromCsv = parseTelemetryCsv(csv, "telemetry.csv");
    const TelemetryTable fromJson =
        parseTelemetryJson(testsupport::readText(dir / "inv" / "telemetry.json"), "telemetry.json");
    for (const TelemetryTable* back : {&fromCsv, &fromJson}) {
        QCOMPARE(back->rows.size(), t.rows.size());
        for (std::size_t r = 0; r < t.rows.size(); ++r)
            QVERIFY(sameValues(back->rows[r], t.rows[r]));
        QCOMPARE(back->columns.size(), t.columns.size());
        QCOMPARE(back->columns[2].unit, std::string("MiB/s"));
        QVERIFY(back->columns[2].meaning.find("nvme0n1") != std::string::npos);
    }
    QCOMPARE(fromJson.intervalS, 0.25);
    QCOMPARE(fromJson.notes, t.notes);
    // The JSON is for other programs too: check its shape with a plain JSON reader.
    const auto j = nlohmann::json::parse(testsupport::readText(dir / "inv" / "telemetry.json"));
    QCOMPARE(j["columns"][3]["name"].get<std::string>(), std::string("net_eth0_rx_mib_s"));
    QVERIFY(j["rows"][0][3].is_null());
    QCOMPARE(j["rows"][1][2].get<double>(), 123456.789);
    // No temporary file left beside the results.
    for (const auto& e : fs::directory_iterator(dir / "inv"))
        QVERIFY2(e.path().filename().string().rfind('.', 0) != 0, e.path().c_str());
}

void TestTelemetry::csvJsonErrors() {
    const std::string e1 =
        inputErrorOf([] { parseTelemetryCsv("time_s,cpu_busy_pct\n1,2\n3,abc\n", "t.csv"); });
    QVERIFY2(e1.find("t.csv line 3") != std::string::npos && e1.find("cpu_busy_pct") != std::string::npos &&
                 e1.find("\"abc\"") != std::string::npos,
             e1.c_str());
    const std::string e2 = inputErrorOf([] { parseTelemetryCsv("time_s,cpu_bogus\n", "t.csv"); });
    QVERIFY2(e2.find("cpu_bogus") != std::string::npos, e2.c_str());
    const std::string e3 = inputErrorOf([] { parseTelemetryCsv("time_s,cpu_busy_pct\n1\n", "t.csv"); });
    QVERIFY2(e3.find("line 2") != std::string::npos && e3.find("expected 2") != std::string::npos,
             e3.c_str());
    const std::string e4 = inputErrorOf([] { parseTelemetryCsv("cpu_busy_pct,time_s\n", "t.csv"); });
    QVERIFY2(e4.find("expected time_s") != std::string::npos, e4.c_str());
    const std::string e5 = inputErrorOf([] {
        parseTelemetryJson(R"({"format":"trainio-telemetry","version":1,"interval_s":1,"notes":[],)"
                           R"("columns":[{"name":"time_s"}],"rows":[[1],["x"]]})",
                           "t.json");
    });
    QVERIFY2(e5.find("t.json") != std::string::npos && e5.find("rows[1]") != std::string::npos, e5.c_str());
    const std::string e6 = inputErrorOf([] { parseTelemetryJson("{", "t.json"); });
    QVERIFY2(e6.find("t.json: not JSON") != std::string::npos, e6.c_str());
}

void TestTelemetry::clientBoundRule() {
    TelemetryTable t;
    for (const char* c : {"time_s", "cpu_busy_pct", "proc_cpu_pct", "allowed_cores"})
        t.columns.push_back(describeColumn(c));
    t.rows = {
        {1, 95.0, 50.0, 2},  // machine saturated
        {2, 50.0, 185.0, 2}, // the process fills its 2 cores (>= 180 % of one core)
        {3, 50.0, 170.0, 2}, // neither
        {4, 89.9, 10.0, 2},  // just under the threshold
        {5, kNaN, kNaN, 2},  // unmeasured: never saturated
    };
    auto bound = [&](double from, double to) { return clientBound(t, from, to); };
    QCOMPARE(bound(0, 4).rowsInWindow, std::size_t(4));
    QCOMPARE(bound(0, 4).saturatedRows, std::size_t(2));
    QVERIFY(bound(0, 4).clientBound); // 2 of 4: half is enough
    QVERIFY(bound(0, 2).clientBound);
    QVERIFY(!bound(1, 4).clientBound); // 1 of 3
    QVERIFY(!bound(2, 4).clientBound);
    QVERIFY(!bound(0, 5).clientBound); // 2 of 5
    const auto empty = bound(10, 20);
    QVERIFY(!empty.clientBound);
    QVERIFY2(empty.reason.find("no telemetry samples") != std::string::npos, empty.reason.c_str());
    QVERIFY2(bound(0, 4).reason.find("2 of 4") != std::string::npos, bound(0, 4).reason.c_str());
    ClientBoundRule strict;
    strict.minSaturatedFraction = 0.75;
    QVERIFY(!clientBound(t, 0, 4, strict).clientBound);
    TelemetryTable noProc;
    noProc.columns = {describeColumn("time_s"), describeColumn("cpu_busy_pct")};
    const std::string e = inputErrorOf([&] { clientBound(noProc, 0, 1); });
    QVERIFY2(e.find("proc_cpu_pct") != std::string::npos, e.c_str());
}

void TestTelemetry::liveSamplerCoversInterval() {
    // Nothing here depends on how promptly a loaded machine wakes the sampler: what is checked is
    // what the sampler promises whatever the scheduling (rows tile the run from its baseline, none is
    // shorter than the interval but the last, the last reaches the stop request) and values against
    // independent measurements of the same span. How close to the grid samples land is a speed
    // figure, not a pass/fail one.
    const double interval = 0.05;
    WallClock clock;
    // Work the process can see: 64 MiB touched, and a thread that spins for a fixed amount of its
    // own CPU time (not wall time: on a busy machine it may get little of it), all of it while the
    // sampler runs so getrusage around the sampler sees the same CPU the rows do.
    std::vector<char> ballast(64u << 20, 1);
    const double runStart = clock.now();
    const double cpuBefore = processCpuSeconds();
    TelemetrySampler sampler(quietOptions(interval), clock, runStart);
    sampler.start();
    const double started = clock.now() - runStart;
    constexpr double kBurnCpuS = 0.3;
    std::thread burner([] {
        volatile unsigned x = 0;
        while (threadCpuSeconds() < kBurnCpuS)
            for (int i = 0; i < 100000; ++i)
                x = x + 1;
    });
    burner.join();
    QVERIFY(sampler.waitForRows(12, std::chrono::milliseconds(testsupport::kHangMs)));
    const double rssSeen = vmRssMiB();
    const double stopping = clock.now() - runStart;
    TelemetryTable t = sampler.stop();
    const double stopped = clock.now() - runStart;
    const double cpuAfter = processCpuSeconds();
    QVERIFY2(sampler.error().empty(), sampler.error().c_str());

    const int iTime = t.columnIndex("time_s"), iDt = t.columnIndex("interval_s");
    QVERIFY(t.rows.size() >= 12);
    // The first row's interval begins at the baseline reading, taken inside start().
    const double baseline = t.rows.front()[iTime] - t.rows.front()[iDt];
    QVERIFY2(baseline >= -1e-6 && baseline <= started + 1e-6,
             qPrintable(QString("baseline at %1 s, start() returned at %2 s").arg(baseline).arg(started)));
    double covered = 0;
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
        covered += t.rows[r][iDt];
        // Each row's time is the instant its counters were read, its interval measured between those
        // instants: no gap, no overlap.
        if (r > 0) QVERIFY(std::abs(t.rows[r][iTime] - t.rows[r - 1][iTime] - t.rows[r][iDt]) < 1e-6);
        // Samples keep to a grid of the interval from the baseline, which a late wake may push later
        // but nothing pulls earlier: regular row r is never before baseline + (r + 1) intervals. The
        // last row may instead be the partial interval up to the stop, of at least a quarter interval.
        const bool onGrid = t.rows[r][iTime] - baseline >= static_cast<double>(r + 1) * interval - 1e-6;
        const bool partialLast = r + 1 == t.rows.size() && t.rows[r][iDt] >= interval / 4 - 1e-6;
        QVERIFY2(onGrid || partialLast, qPrintable(QString("row %1 at %2 s (%3 s rated), baseline %4 s")
                                                       .arg(r)
                                                       .arg(t.rows[r][iTime])
                                                       .arg(t.rows[r][iDt])
                                                       .arg(baseline)));
    }
    QVERIFY(std::abs(covered - (t.rows.back()[iTime] - baseline)) < 1e-6);
    // The last row ends between the stop request and stop()'s return, or, when the request came less
    // than a quarter interval after a regular sample, that sample is the last.
    QVERIFY2(t.rows.back()[iTime] >= stopping - interval / 4 - 0.002 && t.rows.back()[iTime] <= stopped,
             qPrintable(QString("last row at %1 s, stop asked at %2 s, returned at %3 s")
                            .arg(t.rows.back()[iTime])
                            .arg(stopping)
                            .arg(stopped)));

    // Values against independent measurements of the same process.
    const int iProc = t.columnIndex("proc_cpu_pct"), iRss = t.columnIndex("proc_rss_mib");
    double cpuSeconds = 0;
    for (const auto& row : t.rows)
        cpuSeconds += row[iProc] / 100.0 * row[iDt];
    const double cpuMeasured = cpuAfter - cpuBefore;
    QVERIFY2(std::abs(cpuSeconds - cpuMeasured) <= 0.05 * cpuMeasured + 0.02,
             qPrintable(QString("sampler %1 CPU s, getrusage %2 CPU s").arg(cpuSeconds).arg(cpuMeasured)));
    QVERIFY2(cpuMeasured >= kBurnCpuS, "the spinning thread's CPU is missing: the check above proves nothing");
    QVERIFY2(std::abs(t.rows.back()[iRss] - rssSeen) < 16.0,
             qPrintable(QString("sampler RSS %1 MiB, VmRSS %2 MiB").arg(t.rows.back()[iRss]).arg(rssSeen)));
    QVERIFY(t.rows.back()[iRss] > 64.0);
    for (const auto& row : t.rows) {
        const double busy = row[t.columnIndex("cpu_busy_pct")];
        QVERIFY(busy >= 0 && busy <= 100);
        QVERIFY(row[t.columnIndex("page_cache_mib")] > 0);
    }

    // The live table survives its files unchanged.
    QTemporaryDir tmp;
    store::writeTelemetryFiles(tmp.path().toStdString(), t);
    const auto back =
        parseTelemetryCsv(testsupport::readText(fs::path(tmp.path().toStdString()) / "telemetry.csv"), "csv");
    QCOMPARE(back.rows.size(), t.rows.size());
    for (std::size_t r = 0; r < t.rows.size(); ++r)
        QVERIFY(sameValues(back.rows[r], t.rows[r]));
}

void TestTelemetry::liveColumnsFollowTheRules() {
    WallClock clock;
    TelemetrySampler sampler(quietOptions(0.05), clock, clock.now());
    sampler.start();
    QVERIFY(sampler.waitForRows(1, std::chrono::milliseconds(testsupport::kHangMs)));
    const TelemetryTable t = sampler.stop();
    std::set<std::string> names;
    for (const auto& c : t.columns)
        names.insert(c.name);
    QCOMPARE(names.size(), t.columns.size());
    for (const auto& row : t.rows)
        QCOMPARE(row.size(), t.columns.size());
    // One column per online core.
    const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
    long coreColumns = 0;
    for (const auto& n : names)
        if (n.size() > 3 && n.rfind("cpu", 0) == 0 && std::isdigit(static_cast<unsigned char>(n[3])))
            ++coreColumns;
    QCOMPARE(coreColumns, online);
    // Disks: the whole disks listed in /sys/block, minus loop, ram and zram.
    std::set<std::string> expectedDisks;
    for (const auto& e : fs::directory_iterator("/sys/block")) {
        const std::string n = e.path().filename().string();
        if (n.rfind("loop", 0) != 0 && n.rfind("ram", 0) != 0 && n.rfind("zram", 0) != 0)
            expectedDisks.insert(n);
    }
    std::set<std::string> disks;
    for (const auto& n : names)
        if (n.rfind("disk_", 0) == 0 && n.size() > 16 && n.compare(n.size() - 11, 11, "_read_mib_s") == 0)
            disks.insert(n.substr(5, n.size() - 16));
    QCOMPARE(disks, expectedDisks);
    // Interfaces: every one in /proc/net/dev but lo.
    std::istringstream net(testsupport::readText("/proc/net/dev"));
    std::string line;
    std::size_t interfaces = 0;
    while (std::getline(net, line)) {
        const auto colon = line.find(':');
        if (colon == std::string::npos || line.find('|') != std::string::npos) continue;
        std::string n = line.substr(0, colon);
        n.erase(0, n.find_first_not_of(' '));
        QCOMPARE(names.count("net_" + n + "_rx_mib_s"), std::size_t(n == "lo" ? 0 : 1));
        interfaces += n == "lo" ? 0 : 1;
    }
    QCOMPARE(static_cast<std::size_t>(std::count_if(
                 names.begin(), names.end(), [](const std::string& n) { return n.rfind("net_", 0) == 0; })),
             2 * interfaces);
}

void TestTelemetry::liveDiskSeesRealIo() {
    // 32 MiB written with fsync and read back with O_DIRECT on the temporary folder's disk: the sampler's
    // rates integrated over the rows must account for at least those bytes (other processes only add).
    QTemporaryDir tmp;
    const fs::path file = fs::path(tmp.path().toStdString()) / "io.bin";
    struct stat st {};
    QVERIFY(::stat(tmp.path().toLocal8Bit().constData(), &st) == 0);
    const std::string sysDev =
        "/sys/dev/block/" + std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev));
    std::error_code ec;
    const fs::path devDir = fs::canonical(sysDev, ec);
    if (ec)
        QSKIP(qPrintable(
            QString("the temporary folder %1 is on no block device (%2 absent: tmpfs, overlay or NFS)")
                .arg(tmp.path(), QString::fromStdString(sysDev))));
    const std::string dev = devDir.filename().string();
    // The request size limit bounds how few requests can carry the bytes.
    const fs::path disk = fs::exists(devDir / "partition") ? devDir.parent_path() : devDir;
    const double maxRequestBytes =
        std::stod(testsupport::readText(disk / "queue" / "max_sectors_kb")) * 1024.0;

    const std::size_t bytes = 32u << 20, block = 1u << 20;
    WallClock clock;
    TelemetryOptions o = quietOptions(0.05);
    o.disks = {dev}; // named explicitly: it may be a partition
    TelemetrySampler sampler(o, clock, clock.now());
    sampler.start();
    void* buf = nullptr;
    QVERIFY(::posix_memalign(&buf, 4096, block) == 0);
    std::unique_ptr<void, decltype(&std::free)> hold(buf, &std::free);
    std::memset(buf, 0x5a, block);
    int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    QVERIFY(fd >= 0);
    for (std::size_t off = 0; off < bytes; off += block)
        QCOMPARE(::write(fd, buf, block), ssize_t(block));
    QCOMPARE(::fsync(fd), 0);
    ::close(fd);
    fd = ::open(file.c_str(), O_RDONLY | O_DIRECT);
    if (fd < 0) {
        sampler.stop();
        QSKIP(qPrintable(
            QString("O_DIRECT refused on %1 (%2): the read check needs uncached reads")
                .arg(QString::fromStdString(file.string()), QString::fromStdString(errnoText(errno)))));
    }
    for (std::size_t off = 0; off < bytes; off += block)
        QCOMPARE(::read(fd, buf, block), ssize_t(block));
    ::close(fd);
    const std::size_t seen = sampler.rowCount();
    QVERIFY(sampler.waitForRows(seen + 2, std::chrono::milliseconds(testsupport::kHangMs))); // the counters settle after completion
    const TelemetryTable t = sampler.stop();
    const int dt = t.columnIndex("interval_s"), rd = t.columnIndex("disk_" + dev + "_read_mib_s"),
              wr = t.columnIndex("disk_" + dev + "_write_mib_s"),
              rio = t.columnIndex("disk_" + dev + "_read_iops"),
              util = t.columnIndex("disk_" + dev + "_util_pct");
    QVERIFY(rd > 0 && wr > 0 && rio > 0 && util > 0);
    double readMiB = 0, writtenMiB = 0, reads = 0, busyS = 0;
    for (const auto& row : t.rows) {
        readMiB += row[rd] * row[dt];
        writtenMiB += row[wr] * row[dt];
        reads += row[rio] * row[dt];
        busyS += row[util] / 100.0 * row[dt];
    }
    const double mib = static_cast<double>(bytes) / (1 << 20);
    QVERIFY2(writtenMiB >= mib - 1e-6,
             qPrintable(QString("%1 MiB written by the counters, %2 by the test").arg(writtenMiB).arg(mib)));
    QVERIFY2(readMiB >= mib - 1e-6,
             qPrintable(QString("%1 MiB read by the counters, %2 by the test").arg(readMiB).arg(mib)));
    QVERIFY2(reads >= static_cast<double>(bytes) / maxRequestBytes - 1e-6,
             qPrintable(QString("%1 reads").arg(reads)));
    QVERIFY(busyS > 0);
}

void TestTelemetry::badOptions() {
    WallClock clock;
    TelemetryOptions zero = quietOptions(0);
    const std::string e1 = inputErrorOf([&] { TelemetrySampler(zero, clock, 0).start(); });
    QVERIFY2(e1.find("telemetry_interval_s") != std::string::npos, e1.c_str());
    TelemetryOptions disk = quietOptions(1);
    disk.disks = {"no-such-disk9"};
    const std::string e2 = inputErrorOf([&] { TelemetrySampler(disk, clock, 0).start(); });
    QVERIFY2(e2.find("no-such-disk9") != std::string::npos && e2.find("/proc/diskstats") != std::string::npos,
             e2.c_str());
    TelemetryOptions net = quietOptions(1);
    net.interfaces = {"nosuchif0"};
    const std::string e3 = inputErrorOf([&] { TelemetrySampler(net, clock, 0).start(); });
    QVERIFY2(e3.find("nosuchif0") != std::string::npos, e3.c_str());
}

void TestTelemetry::nvidiaSmiAbsent() {
    QTemporaryDir tmp;
    WallClock clock;
    TelemetryOptions o = quietOptions(0.05);
    o.nvidiaSmi = (fs::path(tmp.path().toStdString()) / "no-such-nvidia-smi").string();
    TelemetrySampler sampler(o, clock, clock.now());
    sampler.start();
    QVERIFY(sampler.waitForRows(2, std::chrono::milliseconds(testsupport::kHangMs)));
    const TelemetryTable t = sampler.stop();
    for (const auto& c : t.columns)
        QVERIFY2(c.name.rfind("gpu", 0) != 0, c.name.c_str());
    QCOMPARE(t.notes.size(), std::size_t(1));
    QVERIFY2(t.notes[0].find("no-such-nvidia-smi not found") != std::string::npos &&
                 t.notes[0].find("no GPU columns") != std::string::npos,
             t.notes[0].c_str());
    QVERIFY(findExecutable("sh") != "");
    QCOMPARE(findExecutable("no-such-program-xyz"), std::string());
}

void TestTelemetry::nvidiaSmiStandIn() {
    // A script standing in for nvidia-smi: it checks the arguments it is given and prints two GPUs.
    QTemporaryDir tmp;
    const fs::path smi = fs::path(tmp.path().toStdString()) / "nvidia-smi";
    writeScript(smi, "[ \"$1\" = --query-gpu=utilization.gpu,memory.used,memory.total ] || exit 7\n"
                     "[ \"$2\" = --format=csv,noheader,nounits ] || exit 8\n"
                     "[ $# -eq 2 ] || exit 9\n"
                     "echo '37, 2048, 16384'\necho '[Not Supported], 512, 8192'\n");
    WallClock clock;
    TelemetryOptions o = quietOptions(0.05);
    o.nvidiaSmi = smi.string();
    TelemetrySampler sampler(o, clock, clock.now());
    sampler.start();
    QVERIFY(sampler.waitForRows(2, std::chrono::milliseconds(testsupport::kHangMs)));
    const TelemetryTable t = sampler.stop();
    QVERIFY2(t.notes.empty(), t.notes.empty() ? "" : t.notes[0].c_str());
    const int u0 = t.columnIndex("gpu0_util_pct"), m0 = t.columnIndex("gpu0_mem_used_mib"),
              u1 = t.columnIndex("gpu1_util_pct"), total1 = t.columnIndex("gpu1_mem_total_mib");
    QVERIFY(u0 > 0 && m0 > 0 && u1 > 0 && total1 > 0);
    QCOMPARE(t.columnIndex("gpu2_util_pct"), -1);
    for (const auto& row : t.rows) {
        QCOMPARE(row[u0], 37.0);
        QCOMPARE(row[m0], 2048.0);
        QVERIFY(std::isnan(row[u1]));
        QCOMPARE(row[total1], 8192.0);
    }
}

void TestTelemetry::nvidiaSmiHungOrFailing() {
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    WallClock clock;
    // Hung: killed after the time limit, no GPU columns, and start() returns.
    const fs::path hung = dir / "hung-smi";
    writeScript(hung, "exec sleep 30\n");
    TelemetryOptions o = quietOptions(0.05);
    o.nvidiaSmi = hung.string();
    o.gpuTimeoutS = 0.3;
    // start() returns (a hang would hold the test to CTest's limit); the note says the limit killed it,
    // not how soon (issue 29).
    TelemetrySampler sampler(o, clock, clock.now());
    sampler.start();
    const TelemetryTable t = sampler.stop();
    QCOMPARE(t.notes.size(), std::size_t(1));
    QVERIFY2(t.notes[0].find("timed out") != std::string::npos, t.notes[0].c_str());
    for (const auto& c : t.columns)
        QVERIFY(c.name.rfind("gpu", 0) != 0);

    // Works at start, then fails: empty GPU cells and a note with the count and the first failure.
    const fs::path flaky = dir / "flaky-smi";
    const fs::path marker = dir / "called-once";
    writeScript(flaky, "if [ -e '" + marker.string() + "' ]; then exit 3; fi\n: > '" + marker.string() +
                           "'\necho '5, 6, 7'\n");
    TelemetryOptions f = quietOptions(0.05);
    f.nvidiaSmi = flaky.string();
    TelemetrySampler second(f, clock, clock.now());
    second.start();
    QVERIFY(second.waitForRows(2, std::chrono::milliseconds(testsupport::kHangMs)));
    const TelemetryTable t2 = second.stop();
    const int u0 = t2.columnIndex("gpu0_util_pct");
    QVERIFY(u0 > 0);
    for (const auto& row : t2.rows)
        QVERIFY(std::isnan(row[u0]));
    QCOMPARE(t2.notes.size(), std::size_t(1));
    const std::string expected = "nvidia-smi failed in " + std::to_string(t2.rows.size()) + " samples";
    QVERIFY2(t2.notes[0].find(expected) != std::string::npos &&
                 t2.notes[0].find("exited with status 3") != std::string::npos,
             t2.notes[0].c_str());

    // Works at start, then hangs: killed once after the time limit and never run again, so the samples
    // keep their interval instead of each waiting for the limit.
    const fs::path hangsLater = dir / "hangs-later-smi";
    const fs::path calls = dir / "calls";
    writeScript(hangsLater, "echo x >> '" + calls.string() + "'\nif [ $(wc -l < '" + calls.string() +
                                "') -gt 1 ]; then exec sleep 30; fi\necho '5, 6, 7'\n");
    TelemetryOptions h = quietOptions(0.05);
    h.nvidiaSmi = hangsLater.string();
    h.gpuTimeoutS = 0.3;
    TelemetrySampler third(h, clock, clock.now());
    third.start();
    QVERIFY(third.waitForRows(5, std::chrono::milliseconds(testsupport::kHangMs)));
    const TelemetryTable t3 = third.stop();
    QCOMPARE(testsupport::readText(calls), std::string("x\nx\n")); // the start probe and one hung call
    QCOMPARE(t3.notes.size(), std::size_t(2));
    QVERIFY2(t3.notes[0].find("failed in 1 samples") != std::string::npos &&
                 t3.notes[0].find("timed out") != std::string::npos,
             t3.notes[0].c_str());
    QVERIFY2(t3.notes[1].find("not run again") != std::string::npos, t3.notes[1].c_str());
    const int g = t3.columnIndex("gpu0_util_pct");
    for (const auto& row : t3.rows)
        QVERIFY(std::isnan(row[g]));
}

QTEST_GUILESS_MAIN(TestTelemetry)
#include "tst_telemetry.moc"
