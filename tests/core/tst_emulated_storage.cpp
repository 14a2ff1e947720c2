// Emulated storage (docs/emulated-storage.md): the bandwidth, IOPS and concurrency caps, the latency
// distributions, live changes and their log, and the storage profile files. Caps are upper bounds: a
// loaded machine may be slower than a cap, never faster, so the tests assert "not above the cap" strictly
// and "close to the cap" only when an unshaped run shows the machine can go well beyond it.
#include "util/units.h"
#include "testsupport.h"

#include "config/config_loader.h"
#include "dataset/dataset_generator.h"
#include "io/emulated_storage.h"
#include "io/storage_profile.h"
#include "session/benchmark_runner.h"
#include "session/storage_session.h"
#include "util/errors.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fcntl.h>
#include <fstream>
#include <limits>
#include <thread>
#include <unistd.h>

using namespace trainio;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {


double secondsSince(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

// A device that answers every read in `hold` (0: at once, touching no byte) and counts the requests it
// is serving at the same time, independently of the emulator's own bookkeeping.
class FakeDevice final : public IoBackend {
  public:
    std::chrono::microseconds hold{0};
    std::atomic<int> inflight{0};
    std::atomic<int> maxSeen{0};
    std::atomic<std::uint64_t> calls{0};

    const char* name() const override { return "fake"; }
    int open(const std::string&, const OpenOptions&) override { return 3; }
    ssize_t pread(int, void*, std::size_t len, std::uint64_t) override {
        const int now = ++inflight;
        int seen = maxSeen.load();
        while (now > seen && !maxSeen.compare_exchange_weak(seen, now)) {
        }
        if (hold.count() > 0) std::this_thread::sleep_for(hold); // the device's service time
        --inflight;
        ++calls;
        return static_cast<ssize_t>(len);
    }
    ssize_t pwrite(int, const void*, std::size_t len, std::uint64_t) override {
        ++calls;
        return static_cast<ssize_t>(len);
    }
    std::int64_t size(int) override { return std::int64_t(1) << 40; }
    int fsync(int) override { return 0; }
    int close(int) override { return 0; }
};

// Runs `threads` threads calling body(threadIndex) and joins them.
template <class Body> void runThreads(int threads, Body body) {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] { body(t); });
    for (auto& th : pool)
        th.join();
}

// Per-request latencies (seconds) of `count` sequential 4 KiB reads.
std::vector<double> requestLatencies(IoBackend& io, int count) {
    std::vector<double> out;
    std::vector<char> buf(4096);
    for (int i = 0; i < count; ++i) {
        const Clock::time_point t = Clock::now();
        io.pread(3, buf.data(), buf.size(), 0);
        out.push_back(secondsSince(t));
    }
    return out;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// How late this machine wakes a thread from a 1 ms sleep right now (median of 40, seconds): on a loaded
// 2-core machine (CI running the sanitizer builds beside the tests) it reaches milliseconds. Latency can
// only grow by it, so the upper bounds below allow twice this lateness on top of their sampling
// tolerance; the lower bounds (emulation never makes a request faster) stay exact.
double wakeLateness() {
    std::vector<double> late;
    for (int i = 0; i < 40; ++i) {
        const Clock::time_point t = Clock::now();
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        late.push_back(secondsSince(t) - 1e-3);
    }
    return std::max(0.0, median(late));
}

// Reads `total` bytes of `path` in 1 MiB chunks with `threads` threads (wrapping around the file);
// returns the elapsed seconds.
double readBytes(IoBackend& io, const std::string& path, std::uint64_t total, int threads) {
    const int h = io.open(path, {});
    const auto fileSize = static_cast<std::uint64_t>(io.size(h));
    const std::uint64_t chunk = 1 << 20;
    std::atomic<std::uint64_t> next{0};
    std::atomic<int> shortReads{0};
    const Clock::time_point start = Clock::now();
    runThreads(threads, [&](int) {
        std::vector<char> buf(chunk);
        for (std::uint64_t i; (i = next.fetch_add(chunk)) < total;)
            if (io.pread(h, buf.data(), chunk, i % fileSize) != static_cast<ssize_t>(chunk)) ++shortReads;
    });
    const double elapsed = secondsSince(start);
    io.close(h);
    if (shortReads) qWarning("%d short reads of %s", shortReads.load(), path.c_str());
    return shortReads ? -1 : elapsed;
}

} // namespace

class TestEmulatedStorage : public QObject {
    Q_OBJECT

  private slots:
    void bandwidthCapHoldsOnRealFiles();
    void iopsCapHolds();
    void concurrencyLimitIsNeverExceeded();
    void constantLatencyIsAFloorAndItsMedian();
    void latencyDistributionsMatchTheirParameters();
    void liveBandwidthChangeTakesEffectAndIsLogged();
    void slowQueueIsRetimedWhenTheRateRises();
    void writesPassThroughUnlessShaped();
    void everyParameterChangesUnderLoad();
    void invalidLiveValuesAreRejected();
    void shippedProfilesLoad();
    void badProfilesGiveClearErrors_data();
    void badProfilesGiveClearErrors();
    void unknownProfileNameListsTheKnownOnes();
    void workloadSectionOverridesAProfile();
    void shapeAndChangesAsJson();
    void normalLatencyKeyIsStdevEverywhere();
    void slowStorageStarvesTheAccelerator();
    void theBindingLimitIsTheOneWaitedForMost();
    void computeLimitsWhileNoAuIsLost();
    void aCapThatBindsIsNamedOnARealDevice();

  private:
    QTemporaryDir tmp_;
};

void TestEmulatedStorage::bandwidthCapHoldsOnRealFiles() {
    // A real 32 MiB file, read once to put it in the page cache.
    const std::string path = (fs::path(tmp_.path().toStdString()) / "data.bin").string();
    testsupport::writeText(path, std::string(32u << 20, 'x'));
    auto posix = makePosixBackend();
    const double unshaped = readBytes(*posix, path, 64u << 20, 2);
    QVERIFY(unshaped > 0);
    const double unshapedRate = 64 * kMiB / unshaped;

    const double cap = 200 * kMiB;
    StorageShape shape;
    shape.bandwidthBytesPerSecond = cap;
    EmulatedStorageBackend io(posix, shape, 1);
    const std::uint64_t total = 200u << 20; // one second at the cap
    const double elapsed = readBytes(io, path, total, 2);
    QVERIFY(elapsed > 0);
    const double rate = static_cast<double>(total) / elapsed;
    qInfo("200 MiB/s cap: %.1f MiB/s measured over %.2f s (unshaped %.0f MiB/s)", rate / kMiB, elapsed,
          unshapedRate / kMiB);
    // Never above the cap, however fast the machine (a slow one only lowers the rate). How close to the cap
    // it comes is a speed figure: bench_emulated_storage's (issue 29), not this test's.
    QVERIFY2(rate <= cap * 1.05, qPrintable(QString("%1 MiB/s is above the cap").arg(rate / kMiB)));
    QCOMPARE(io.stats().bytes, total);
}

void TestEmulatedStorage::iopsCapHolds() {
    auto dev = std::make_shared<FakeDevice>();
    StorageShape shape;
    shape.iops = 1000;
    EmulatedStorageBackend io(dev, shape, 1);
    const int requests = 600;
    std::atomic<int> next{0};
    const Clock::time_point start = Clock::now();
    runThreads(3, [&](int) {
        char b[512];
        while (next.fetch_add(1) < requests)
            io.pread(3, b, sizeof b, 0);
    });
    const double rate = requests / secondsSince(start);
    qInfo("1000 IOPS cap: %.0f IOPS measured", rate);
    QCOMPARE(dev->calls.load(), std::uint64_t(requests));
    // Never above the cap; how close to it a loaded machine comes is bench_emulated_storage's figure.
    QVERIFY2(rate <= 1000 * 1.05, qPrintable(QString("%1 IOPS is above the cap").arg(rate)));
}

void TestEmulatedStorage::concurrencyLimitIsNeverExceeded() {
    for (const unsigned limit : {3u, 0u}) {
        auto dev = std::make_shared<FakeDevice>();
        dev->hold = std::chrono::microseconds(2000);
        StorageShape shape;
        shape.maxInflight = limit;
        EmulatedStorageBackend io(dev, shape, 1);
        runThreads(8, [&](int) {
            char b[64];
            for (int i = 0; i < 15; ++i)
                io.pread(3, b, sizeof b, 0);
        });
        QCOMPARE(dev->calls.load(), std::uint64_t(8 * 15));
        if (limit) {
            QVERIFY2(dev->maxSeen.load() <= 3,
                     qPrintable(QString("%1 requests in flight").arg(dev->maxSeen.load())));
            QVERIFY(io.stats().maxInflightSeen <= 3);
        } else {
            // The control: without a limit, 8 threads holding a request 2 ms each overlap beyond 3, so
            // the assertion above can fail.
            QVERIFY2(dev->maxSeen.load() > 3,
                     qPrintable(QString("only %1 in flight unlimited").arg(dev->maxSeen.load())));
        }
    }
}

void TestEmulatedStorage::constantLatencyIsAFloorAndItsMedian() {
    auto dev = std::make_shared<FakeDevice>();
    StorageShape shape;
    shape.latency = {LatencyKind::Constant, 1.0, 0};
    EmulatedStorageBackend io(dev, shape, 1);
    const std::vector<double> lat = requestLatencies(io, 150);
    const double floor = *std::min_element(lat.begin(), lat.end());
    qInfo("constant 1 ms: median %.4f ms, minimum %.4f ms", median(lat) * 1e3, floor * 1e3);
    QVERIFY2(floor >= 1e-3, qPrintable(QString("a request took %1 ms").arg(floor * 1e3)));
    const double late = wakeLateness();
    QVERIFY2(median(lat) <= 1.05e-3 + 2 * late,
             qPrintable(QString("median %1 ms (machine wakes %2 ms late)").arg(median(lat) * 1e3).arg(late * 1e3)));
}

void TestEmulatedStorage::latencyDistributionsMatchTheirParameters() {
    // Medians, not means: a preempted request on a loaded machine moves a mean, hardly a median.
    // Sampling error decides the tolerances (n draws, se of the sample median relative to the median):
    // lognormal 1.2533·sigma/sqrt(n); exponential 1/(ln 2·sqrt(n)); normal 1.2533·(stddev/mean)/sqrt(n).
    // The bounds are ~3.5 se, plus some wake-up overhead above (latency can only grow).
    struct Case {
        LatencyDistribution d;
        int n;
        double expectedMedianMs;
        double below, above; // relative tolerances
    };
    const Case cases[] = {
        {{LatencyKind::Lognormal, 2.0, 0.5}, 300, 2.0, 0.12, 0.15},
        {{LatencyKind::Exponential, 2.0, 0}, 400, 2.0 * std::log(2.0), 0.25, 0.28},
        {{LatencyKind::Normal, 1.5, 0.3}, 200, 1.5, 0.07, 0.10},
    };
    for (const Case& c : cases) {
        auto dev = std::make_shared<FakeDevice>();
        StorageShape shape;
        shape.latency = c.d;
        EmulatedStorageBackend io(dev, shape, 42);
        const std::vector<double> lat = requestLatencies(io, c.n);
        const double got = median(lat) * 1e3;
        const double lateMs = wakeLateness() * 1e3;
        qInfo("%s: median %.4f ms (expected %.3f; machine wakes %.3f ms late)", describeLatency(c.d).c_str(), got,
              c.expectedMedianMs, lateMs);
        QVERIFY2(got >= c.expectedMedianMs * (1 - c.below) && got <= c.expectedMedianMs * (1 + c.above) + 2 * lateMs,
                 qPrintable(QString::fromStdString(describeLatency(c.d)) + QString(": measured %1 ms").arg(got)));
    }
}

void TestEmulatedStorage::liveBandwidthChangeTakesEffectAndIsLogged() {
    auto dev = std::make_shared<FakeDevice>();
    StorageShape shape;
    shape.bandwidthBytesPerSecond = 400 * kMiB;
    const WallClock clock;
    EmulatedStorageBackend io(dev, shape, 1, clock);
    // Completion times of 1 MiB requests from 2 threads for 1.6 s; the rate drops to 100 MiB/s at 0.6 s.
    std::mutex m;
    std::vector<double> done; // clock seconds since origin
    std::atomic<bool> stop{false};
    double changedAt = 0, changedBy = 0; // the clock read before and after the change
    std::thread presenter([&] {
        while (clock.now() - clock.origin() < 0.6)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        changedAt = clock.now() - clock.origin();
        io.setBandwidth(100 * kMiB);
        changedBy = clock.now() - clock.origin();
        while (clock.now() - clock.origin() < 1.6)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        stop = true;
    });
    runThreads(2, [&](int) {
        std::vector<char> b(1 << 20);
        while (!stop) {
            io.pread(3, b.data(), b.size(), 0);
            std::lock_guard lock(m);
            done.push_back(clock.now() - clock.origin());
        }
    });
    presenter.join();
    auto mibIn = [&](double from, double to) {
        return static_cast<double>(
                   std::count_if(done.begin(), done.end(), [&](double t) { return t >= from && t < to; })) /
               (to - from);
    };
    const double before = mibIn(0.1, changedAt), after = mibIn(changedAt + 0.2, 1.6);
    qInfo("live change 400 -> 100 MiB/s at %.3f s: %.0f MiB/s before, %.0f MiB/s from 0.2 s after", changedAt,
          before, after);
    // Each cap holds while it is set (upper bounds: a loaded machine only lowers a rate; how close to the
    // cap it comes is bench_emulated_storage's figure, issue 29). The drop shows: after is under 100 MiB/s.
    QVERIFY2(before <= 400 * 1.05, qPrintable(QString("before: %1 MiB/s").arg(before)));
    QVERIFY2(after <= 100 * 1.08, qPrintable(QString("after: %1 MiB/s").arg(after)));

    const std::vector<StorageChange> log = io.changes();
    QCOMPARE(log.size(), std::size_t(1));
    QCOMPARE(log[0].parameter, std::string("bandwidth_mib_s"));
    QCOMPARE(log[0].oldValue, 400.0);
    QCOMPARE(log[0].newValue, 100.0);
    QCOMPARE(log[0].oldText, std::string("400 MiB/s"));
    // Logged with the time of the change: between the clock reads around the call (ordered, not timed).
    QVERIFY2(log[0].secondsSinceStart >= changedAt - 1e-6 && log[0].secondsSinceStart <= changedBy + 1e-6,
             qPrintable(QString("logged at %1 s, changed between %2 and %3 s")
                            .arg(log[0].secondsSinceStart)
                            .arg(changedAt)
                            .arg(changedBy)));
    QVERIFY(log[0].unixTime >= clock.origin() + changedAt - 1e-3 && log[0].unixTime <= clock.origin() + changedBy + 1e-3);
    // Setting the same value again is no change.
    io.setBandwidth(100 * kMiB);
    QCOMPARE(io.changes().size(), std::size_t(1));
}

void TestEmulatedStorage::slowQueueIsRetimedWhenTheRateRises() {
    // A 4 MiB request at 0.05 MiB/s is due after 80 s; at 0.2 s the rate rises to 400 MiB/s. The request
    // must not wait out its old due time (80 s: a bound no slow machine comes near, issue 29).
    auto dev = std::make_shared<FakeDevice>();
    StorageShape shape;
    shape.bandwidthBytesPerSecond = 0.05 * kMiB;
    EmulatedStorageBackend io(dev, shape, 1);
    const Clock::time_point start = Clock::now();
    std::thread presenter([&] {
        std::this_thread::sleep_until(start + std::chrono::milliseconds(200));
        io.setBandwidth(400 * kMiB);
    });
    std::vector<char> b(4 << 20);
    io.pread(3, b.data(), b.size(), 0);
    const double elapsed = secondsSince(start);
    presenter.join();
    qInfo("4 MiB at 0.05 MiB/s, raised to 400 MiB/s at 0.2 s: done after %.3f s", elapsed);
    QVERIFY2(elapsed >= 0.2 && elapsed < 80, qPrintable(QString("done after %1 s").arg(elapsed)));
    QCOMPARE(io.changes().size(), std::size_t(1));
}

void TestEmulatedStorage::writesPassThroughUnlessShaped() {
    auto dev = std::make_shared<FakeDevice>();
    StorageShape shape;
    shape.latency = {LatencyKind::Constant, 20.0, 0};
    EmulatedStorageBackend io(dev, shape, 1);
    char b[16] = {};
    QCOMPARE(io.pwrite(3, b, sizeof b, 0), ssize_t(sizeof b));
    // Not shaped: the emulator neither counted it nor waited for it (counted, not timed: issue 29).
    QCOMPARE(io.stats().requests, std::uint64_t(0));
    QCOMPARE(io.stats().latencyWaitSeconds, 0.0);
    io.setShapeWrites(true);
    const Clock::time_point t = Clock::now();
    QCOMPARE(io.pwrite(3, b, sizeof b, 0), ssize_t(sizeof b));
    QCOMPARE(io.stats().requests, std::uint64_t(1));
    QVERIFY(secondsSince(t) >= 0.020); // the latency is a floor: a slow machine only adds to it
    QCOMPARE(io.changes().back().parameter, std::string("shape_writes"));
}

void TestEmulatedStorage::everyParameterChangesUnderLoad() {
    // Six threads read and write while every parameter flips 20 times (for TSan as much as for the
    // log): no request is lost or cut, the limit set last holds, every change is logged in order.
    auto dev = std::make_shared<FakeDevice>();
    StorageShape start;
    start.bandwidthBytesPerSecond = 400 * kMiB;
    EmulatedStorageBackend io(dev, start, 1);
    std::atomic<bool> stop{false};
    std::atomic<int> badReturns{0};
    std::atomic<std::uint64_t> calls{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < 6; ++t)
        pool.emplace_back([&] {
            std::vector<char> b(64 << 10);
            while (!stop) {
                if (io.pread(3, b.data(), b.size(), 0) != ssize_t(b.size())) ++badReturns;
                if (io.pwrite(3, b.data(), 100, 0) != 100) ++badReturns;
                calls += 2;
            }
        });
    for (int k = 0; k < 20; ++k) {
        const bool odd = k % 2;
        io.setBandwidth((odd ? 200 : 300) * kMiB); // never the starting 400: each call is a change
        io.setIops(odd ? 5000 : 0);
        io.setMaxInflight(odd ? 2 : 0);
        io.setLatency(odd ? LatencyDistribution{LatencyKind::Exponential, 0.2, 0} : LatencyDistribution{});
        io.setShapeWrites(!odd);
        std::this_thread::sleep_for(std::chrono::milliseconds(20)); // let requests run under each setting
    }
    stop = true;
    for (auto& th : pool)
        th.join();
    QCOMPARE(badReturns.load(), 0);
    QCOMPARE(dev->calls.load(), calls.load());
    // k = 0 leaves iops, max_inflight and latency as they were (0/none): 2 changes, then 5 per step.
    const std::vector<StorageChange> log = io.changes();
    QCOMPARE(log.size(), std::size_t(2 + 19 * 5));
    for (std::size_t i = 1; i < log.size(); ++i)
        QVERIFY(log[i].secondsSinceStart >= log[i - 1].secondsSinceStart);
    QCOMPARE(io.shape().maxInflight, 2u);
    QCOMPARE(io.shape().bandwidthBytesPerSecond, 200 * kMiB);
}

void TestEmulatedStorage::invalidLiveValuesAreRejected() {
    EmulatedStorageBackend io(std::make_shared<FakeDevice>(), {}, 1);
    auto expectError = [](auto&& call, const char* key) {
        try {
            call();
            QFAIL(qPrintable(QString("no error for a bad %1").arg(key)));
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find(key) != std::string::npos, e.what());
        }
    };
    expectError([&] { io.setBandwidth(-5); }, "bandwidth_mib_s");
    expectError([&] { io.setIops(std::nan("")); }, "iops");
    expectError([&] { io.setBandwidth(0.5); },
                "bandwidth_mib_s"); // half a byte per second: surely a unit slip
    expectError([&] { io.setIops(std::numeric_limits<double>::infinity()); }, "iops");
    expectError([&] { io.setLatency({LatencyKind::Lognormal, 0, 0.5}); }, "latency_ms.median");
    expectError([&] { io.setLatency({LatencyKind::Normal, 1, -1}); }, "latency_ms.stdev");
    QCOMPARE(io.changes().size(), std::size_t(0));
    QVERIFY(io.shape() == StorageShape{});
}

void TestEmulatedStorage::shippedProfilesLoad() {
    const std::vector<std::string> names = storageProfileNames();
    for (const char* expected : {"hdd", "nfs-10gbe", "nvme", "object-store", "sata-ssd"})
        QVERIFY2(std::find(names.begin(), names.end(), expected) != names.end(), expected);
    for (const std::string& name : names) {
        const StorageProfile p = loadStorageProfile(name);
        // Read the file independently: the loader's numbers are the file's numbers.
        const YAML::Node doc = YAML::LoadFile(p.path);
        QCOMPARE(p.name, name);
        QVERIFY2(!p.description.empty(), name.c_str());
        QCOMPARE(p.shape.bandwidthBytesPerSecond, doc["bandwidth_mib_s"].as<double>() * kMiB);
        QCOMPARE(p.shape.latency.centerMs, doc["latency_ms"]["median"].as<double>());
        QCOMPARE(p.shape.latency.kind, LatencyKind::Lognormal);
        // Every profile says where its numbers come from.
        QVERIFY2(testsupport::readText(p.path).find("Source") != std::string::npos, p.path.c_str());
    }
    // A path works as well as a name.
    const StorageProfile byPath = loadStorageProfile(storageProfileDirectory() + "/hdd.yaml");
    QCOMPARE(byPath.shape.iops, 200.0);
}

void TestEmulatedStorage::badProfilesGiveClearErrors_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("mentions"); // '|'-separated parts the message must contain
    QTest::newRow("misspelt key") << "bandwith_mib_s: 500\n"
                                  << "bandwith_mib_s|did you mean bandwidth_mib_s";
    QTest::newRow("negative") << "bandwidth_mib_s: -3\n"
                              << "bandwidth_mib_s|-3|MiB/s";
    QTest::newRow("units in a number") << "bandwidth_mib_s: 500 MB/s\n"
                                       << "bandwidth_mib_s|500 MB/s";
    QTest::newRow("trailing text") << "iops: 12x\n"
                                   << "iops|12x";
    QTest::newRow("list for a number") << "iops: [1, 2]\n"
                                       << "iops|(a list)";
    QTest::newRow("unknown latency type") << "latency_ms: {type: gaussian, mean: 2}\n"
                                          << "latency_ms.type|gaussian|lognormal";
    QTest::newRow("missing sigma") << "latency_ms: {type: lognormal, median: 2}\n"
                                   << "latency_ms.sigma|missing";
    QTest::newRow("old stddev spelling") << "latency_ms: {type: normal, mean: 2, stddev: 0.5}\n"
                                         << "latency_ms.stddev|expected latency_ms.stdev";
    QTest::newRow("key of another type") << "latency_ms: {type: exponential, median: 2}\n"
                                         << "latency_ms.median|exponential";
    QTest::newRow("zero median") << "latency_ms: {type: lognormal, median: 0, sigma: 1}\n"
                                 << "latency_ms.median|> 0";
    QTest::newRow("fractional inflight") << "max_inflight: 2.5\n"
                                         << "max_inflight|2.5|whole";
    QTest::newRow("bad bool") << "shape_writes: maybe\n"
                              << "shape_writes|maybe|true or false";
    QTest::newRow("syntax") << "bandwidth_mib_s: [1,\n"
                            << "YAML syntax error at line";
    QTest::newRow("empty") << ""
                           << "empty";
    QTest::newRow("not a map") << "- 1\n- 2\n"
                               << "(a list)";
}

void TestEmulatedStorage::badProfilesGiveClearErrors() {
    QFETCH(QString, text);
    QFETCH(QString, mentions);
    const std::string path = (fs::path(tmp_.path().toStdString()) / "bad.yaml").string();
    testsupport::writeText(path, text.toStdString());
    try {
        loadStorageProfile(path);
        QFAIL("no error");
    } catch (const InputError& e) {
        const std::string msg = e.what();
        QVERIFY2(msg.find(path) != std::string::npos, msg.c_str());
        for (const QString& part : mentions.split('|'))
            QVERIFY2(msg.find(part.toStdString()) != std::string::npos,
                     qPrintable(QString::fromStdString(msg) + " (expected to mention " + part + ")"));
    }
}

void TestEmulatedStorage::unknownProfileNameListsTheKnownOnes() {
    try {
        loadStorageProfile("nvm");
        QFAIL("no error");
    } catch (const InputError& e) {
        const std::string msg = e.what();
        for (const char* part : {"nvm:", "no such storage profile", "sata-ssd", "did you mean nvme"})
            QVERIFY2(msg.find(part) != std::string::npos, msg.c_str());
    }
    try {
        loadStorageProfile("/nonexistent/dir/fast.yaml");
        QFAIL("no error");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("/nonexistent/dir/fast.yaml") != std::string::npos, e.what());
    }
}

void TestEmulatedStorage::workloadSectionOverridesAProfile() {
    const StorageProfile base = loadStorageProfile("hdd");
    const YAML::Node section = YAML::Load("{profile: hdd, bandwidth_mib_s: 100, latency_ms: 3}");
    const StorageShape s = parseStorageShape(section, "trainio.storage", base.shape);
    QCOMPARE(s.bandwidthBytesPerSecond, 100 * kMiB);
    QCOMPARE(s.latency.kind, LatencyKind::Constant);
    QCOMPARE(s.latency.centerMs, 3.0);
    QCOMPARE(s.iops, 200.0);      // from the profile
    QCOMPARE(s.maxInflight, 32u); // from the profile
    try {
        parseStorageShape(YAML::Load("{description: x}"), "trainio.storage");
        QFAIL("description is not a key of trainio.storage");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("trainio.storage") != std::string::npos, e.what());
    }
}

void TestEmulatedStorage::shapeAndChangesAsJson() {
    // Every shipped profile, written as JSON (which is YAML) and read back, is the same shape.
    for (const std::string& name : storageProfileNames()) {
        const StorageShape s = loadStorageProfile(name).shape;
        const std::string text = storageShapeJson(s).dump();
        QVERIFY2(parseStorageShape(YAML::Load(text), name) == s, text.c_str());
    }
    const StorageShape normal{0, {LatencyKind::Normal, 2, 0.5}, 0, 0, true};
    QVERIFY(parseStorageShape(YAML::Load(storageShapeJson(normal).dump()), "normal") == normal);
    const nlohmann::json j = storageShapeJson({100 * kMiB, {LatencyKind::Constant, 3, 0}, 0, 4, false});
    QCOMPARE(j["bandwidth_mib_s"].get<double>(), 100.0);
    QCOMPARE(j["latency_ms"]["type"].get<std::string>(), std::string("constant"));
    QCOMPARE(j["latency_ms"]["value"].get<double>(), 3.0);
    QCOMPARE(j["max_inflight"].get<unsigned>(), 4u);

    EmulatedStorageBackend io(std::make_shared<FakeDevice>(), {}, 1);
    io.setLatency({LatencyKind::Lognormal, 2, 0.5});
    const nlohmann::json log = storageChangesJson(io.changes());
    QCOMPARE(log.size(), std::size_t(1));
    QCOMPARE(log[0]["parameter"].get<std::string>(), std::string("latency_ms"));
    QCOMPARE(log[0]["old"].get<double>(), 0.0);
    QCOMPARE(log[0]["new"].get<double>(), 2.0);
    QCOMPARE(log[0]["old_text"].get<std::string>(), std::string("none"));
    QCOMPARE(log[0]["new_text"].get<std::string>(), std::string("lognormal(median 2 ms, sigma 0.5)"));
    QVERIFY(log[0]["seconds_since_start"].get<double>() >= 0);
}

// The spread of a normal latency has one key, `stdev`: in the configuration (trainio.storage.latency_ms.stdev),
// in a profile file, in what a run writes (storageShapeJson, the change log's words) and in the errors.
void TestEmulatedStorage::normalLatencyKeyIsStdevEverywhere() {
    const std::string path = (fs::path(tmp_.path().toStdString()) / "normal.yaml").string();
    testsupport::writeText(path, "description: normal latency\nlatency_ms: {type: normal, mean: 2, stdev: 0.5}\n");
    const StorageShape fromFile = loadStorageProfile(path).shape;
    QCOMPARE(fromFile.latency.kind, LatencyKind::Normal);
    QCOMPARE(fromFile.latency.centerMs, 2.0);
    QCOMPARE(fromFile.latency.spread, 0.5);
    // The same numbers through the workload's keys give the same device.
    const std::string yaml = "model:\n  name: n\nframework: pytorch\ndataset:\n  data_folder: /tmp/x\n  format: npz\n"
                             "  num_files_train: 8\n  num_samples_per_file: 1\n  record_length_bytes: 4096\n"
                             "reader:\n  batch_size: 1\n  read_threads: 1\ntrain:\n  epochs: 1\n  computation_time: 0.01\n"
                             "trainio:\n  storage:\n    latency_ms: {type: normal, mean: 2, stdev: 0.5}\n";
    const WorkloadConfig cfg = loadWorkloadConfigFromString(yaml, "n.yaml").config;
    QVERIFY(storageShapeFor(cfg.trainio.storage) == fromFile);
    const nlohmann::json j = storageShapeJson(fromFile);
    QCOMPARE(j["latency_ms"]["stdev"].get<double>(), 0.5);
    QVERIFY2(!j["latency_ms"].contains("stddev"), j.dump().c_str());
    QCOMPARE(describeLatency(fromFile.latency), std::string("normal(mean 2 ms, stdev 0.5 ms)"));
    try {
        validateStorageShape({0, {LatencyKind::Normal, 2, -1}, 0, 0, false}, "x");
        QFAIL("no error");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("latency_ms.stdev") != std::string::npos, e.what());
    }
}

void TestEmulatedStorage::slowStorageStarvesTheAccelerator() {
    // The demo the issue asks for, through the real engine: the same workload on page-cached files,
    // unshaped and at 20 MiB/s. 16 steps of 1 MiB and 10 ms each: at 20 MiB/s a step's data takes
    // 50 ms, so AU is about 10/50 = 20 %. The bound allows 25 %: AU leaves out the wait for the first
    // batch, during which the readers already fetch one or two of the next samples (the emulator's
    // bucket starts empty, so that head start is itself at 20 MiB/s). A busy machine only lowers AU.
    const fs::path base = fs::path(tmp_.path().toStdString()) / "demo";
    const std::string yaml =
        "model:\n  name: demo\nframework: pytorch\nworkflow:\n  generate_data: False\n  train: True\n"
        "dataset:\n  data_folder: " +
        (base / "data").string() +
        "\n  format: npz\n  num_files_train: 16\n  num_samples_per_file: 1\n  record_length_bytes: 1048576\n"
        "reader:\n  data_loader: pytorch\n  batch_size: 1\n  read_threads: 2\n  transfer_size: 1048576\n"
        "train:\n  epochs: 1\n  computation_time: 0.01\nmetric:\n  au: 0.5\n";
    const WorkloadConfig cfg = loadWorkloadConfigFromString(yaml, "demo.yaml").config;
    GenerateOptions g;
    g.threads = 2;
    generateDataset(cfg, g);
    auto run = [&](const char* name, std::shared_ptr<IoBackend> io) {
        InvocationOptions o;
        o.io = std::move(io);
        const RunOutcome out = runInvocation(cfg, base / name, o);
        return out.metrics.auMean;
    };
    const double fast = run("unshaped", makePosixBackend());
    StorageShape slow;
    slow.bandwidthBytesPerSecond = 20 * kMiB;
    auto shaped = std::make_shared<EmulatedStorageBackend>(makePosixBackend(), slow, 1);
    const double starved = run("shaped", shaped);
    qInfo("AU unshaped %.1f %%, at 20 MiB/s %.1f %% (%llu MiB through the emulator)", fast, starved,
          static_cast<unsigned long long>(shaped->stats().bytes >> 20));
    QVERIFY2(shaped->stats().bytes >= 16u << 20, "the engine's reads did not go through the emulator");
    QVERIFY2(starved <= 25, qPrintable(QString("AU %1 % at 20 MiB/s").arg(starved)));
    QVERIFY2(fast >= starved + 30,
             qPrintable(QString("AU %1 % unshaped vs %2 % shaped").arg(fast).arg(starved)));
}

// The limit waited for most since the last reading (hand-made counters), "" when the device was not what the
// readers waited for (under 1 % of the interval).
void TestEmulatedStorage::theBindingLimitIsTheOneWaitedForMost() {
    EmulationStats a, b;
    b.iopsWaitSeconds = 0.4;
    b.bandwidthWaitSeconds = 0.1;
    b.latencyWaitSeconds = 0.2;
    QCOMPARE(bindingLimit(a, b, 0.5), std::string("IOPS"));
    a = b;
    b.bandwidthWaitSeconds += 0.3;
    b.inflightWaitSeconds += 0.05;
    QCOMPARE(bindingLimit(a, b, 0.5), std::string("bandwidth"));
    a = b;
    b.inflightWaitSeconds += 2.0; // several readers waiting at once: more than the interval, still "in flight"
    QCOMPARE(bindingLimit(a, b, 0.5), std::string("in flight"));
    a = b;
    b.latencyWaitSeconds += 0.004; // under 1 % of 0.5 s
    QCOMPARE(bindingLimit(a, b, 0.5), std::string());
    QCOMPARE(bindingLimit(a, a, 0.5), std::string());
    QCOMPARE(bindingLimit(a, b, 0.0), std::string());
}

// Issue 32 item 4: what limits the run is compute — not the device the readers waited on a little — while
// the accelerators lose no AU (98.8 % on a healthy nvme said "latency" beside a model saying "compute"); a
// device limit is named once it costs AU, and without an AU yet the device's counters alone decide.
void TestEmulatedStorage::computeLimitsWhileNoAuIsLost() {
    EmulationStats a, b;
    b.latencyWaitSeconds = 0.02; // summed over the readers: 4 % of the interval, so bindingLimit names it
    QCOMPARE(bindingLimit(a, b, 0.5), std::string("latency"));
    QCOMPARE(runLimit(a, b, 0.5, 98.8), std::string("compute (storage idle)"));
    QCOMPARE(runLimit(a, b, 0.5, 99.9), std::string(kComputeLimit));
    QCOMPARE(runLimit(a, a, 0.5, 100.0), std::string(kComputeLimit)); // no wait at all: the storage is idle
    QCOMPARE(runLimit(a, b, 0.5, 90.0), std::string("latency"));      // the wait now costs AU
    QCOMPARE(runLimit(a, b, 0.5, std::nullopt), std::string("latency"));
    QCOMPARE(runLimit(a, a, 0.5, 60.0), std::string()); // AU lost, but not waiting for the device
}

// On a real device: 4 threads reading small blocks through a 50-IOPS cap with ample bandwidth wait for IOPS.
void TestEmulatedStorage::aCapThatBindsIsNamedOnARealDevice() {
    QTemporaryDir tmp;
    const std::string path = (tmp.path() + "/f.bin").toStdString();
    { std::ofstream(path, std::ios::binary) << std::string(1 << 20, 'x'); }
    StorageShape shape;
    shape.iops = 50;
    shape.bandwidthBytesPerSecond = 1e9;
    auto dev = std::make_shared<EmulatedStorageBackend>(makePosixBackend(), shape, 1);
    const EmulationStats before = dev->stats();
    WallClock clock;
    const double t0 = clock.now();
    std::vector<std::thread> readers;
    for (int t = 0; t < 4; ++t)
        readers.emplace_back([&] {
            const int h = dev->open(path, OpenOptions{});
            char buf[4096];
            for (int i = 0; i < 10; ++i) dev->pread(h, buf, sizeof buf, static_cast<std::uint64_t>(i) * 4096);
            dev->close(h);
        });
    for (auto& t : readers) t.join();
    QCOMPARE(bindingLimit(before, dev->stats(), clock.now() - t0), std::string("IOPS"));
}

QTEST_GUILESS_MAIN(TestEmulatedStorage)
#include "tst_emulated_storage.moc"
