// Telemetry imported with the results (issue 10 item 5): a real trainio-cli run's telemetry.json becomes
// summary figures on its InvocationRecord (mean/max client CPU busy %, this process's CPU, the data
// device's read MiB/s, the client-bound verdict) and a line in the library's details and tree JSON.
// Expectations are computed here from the files themselves, with the documented rules, not through the
// code under test; a hand-written telemetry.json checks the figures and the text against numbers worked
// out by hand; a broken one is a note naming the file, not a crash. trainio_io.json's emulated storage
// (profile, parameters, live changes) is imported and named by the bytes-source text, and an epoch whose
// share from the cache is null keeps its place.
#include "testsupport.h"

#include "aggregate/compare.h"
#include "aggregate/results_import.h"
#include "aggregate/results_library.h"

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <QTemporaryDir>

#include <cmath>
#include <filesystem>

namespace fs = std::filesystem;
using nlohmann::json;
using namespace trainio::aggregate;

namespace {

json readJson(const fs::path& p) { return json::parse(testsupport::readText(p)); }

bool starts(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

// The invocation of a one-run import.
const InvocationRecord& onlyRun(const ImportResult& r) {
    if (r.runs.size() != 1) throw std::runtime_error("expected one imported run, got " + std::to_string(r.runs.size()));
    return r.runs.front();
}

const trainio::aggregate::LibraryNode* firstInvocation(const ResultsLibrary& lib) {
    const auto nodes = lib.nodes(NodeKind::Invocation);
    return nodes.empty() ? nullptr : nodes.front();
}

} // namespace

class TestTelemetryImport : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    fs::path runDir_;

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        const QString cfg = tmp_.filePath(QStringLiteral("w.yaml"));
        testsupport::writeText(cfg.toStdString(),
                               "model: {name: telem}\nframework: pytorch\nworkflow: {generate_data: false, train: true}\n"
                               "dataset: {data_folder: " + tmp_.filePath(QStringLiteral("data")).toStdString() +
                                   ", format: npz, num_files_train: 16, num_samples_per_file: 1, record_length_bytes: 1048576}\n"
                                   "reader: {batch_size: 2, read_threads: 1, data_loader: pytorch}\n"
                                   "train: {epochs: 2, computation_time: 0.05}\n"
                                   "trainio: {telemetry_interval_s: 0.05}\n");
        auto r = testsupport::runCli({QStringLiteral("datagen"), QStringLiteral("--config"), cfg, QStringLiteral("--quiet")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        runDir_ = tmp_.filePath(QStringLiteral("run")).toStdString();
        r = testsupport::runCli({QStringLiteral("run"), QStringLiteral("--config"), cfg, QStringLiteral("--output"),
                                 QString::fromStdString(runDir_.string()), QStringLiteral("--quiet")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(fs::exists(runDir_ / "telemetry.json"));
    }

    // The summary of a real run equals the one computed here from telemetry.json and trainio_io.json.
    void importsTheSummaryOfARealRun() {
        const json t = readJson(runDir_ / "telemetry.json");
        const json io = readJson(runDir_ / "trainio_io.json");
        QVERIFY2(io.contains("data_device"), io.dump().c_str());
        std::vector<std::string> names;
        for (const auto& c : t.at("columns")) names.push_back(c.at("name").get<std::string>());
        const auto col = [&](const std::string& n) {
            return static_cast<int>(std::find(names.begin(), names.end(), n) - names.begin());
        };
        int cpus = 0;
        for (const auto& n : names)
            if (starts(n, "cpu") && n != "cpu_busy_pct" && n != "cpu_iowait_pct") ++cpus;
        QVERIFY(cpus > 0);
        // The read column(s): the data device's, else its disk's, else every disk but dm-*/md* (docs/telemetry.md).
        std::vector<int> read;
        for (const char* key : {"name", "parent_disk"}) {
            const json& d = io.at("data_device");
            if (!read.empty() || !d.contains(key) || !d[key].is_string()) continue;
            const int i = col("disk_" + d[key].get<std::string>() + "_read_mib_s");
            if (i < static_cast<int>(names.size())) read.push_back(i);
        }
        if (read.empty())
            for (std::size_t i = 0; i < names.size(); ++i)
                if (starts(names[i], "disk_") && names[i].size() > 11 && names[i].substr(names[i].size() - 11) == "_read_mib_s" &&
                    !starts(names[i], "disk_dm-") && !starts(names[i], "disk_md"))
                    read.push_back(static_cast<int>(i));
        const auto& rows = t.at("rows");
        QVERIFY(rows.size() >= 3);
        double busySum = 0, busyMax = -1, procSum = 0, readSum = 0;
        int busyN = 0, procN = 0, readN = 0, saturated = 0, window = 0;
        const int busy = col("cpu_busy_pct"), proc = col("proc_cpu_pct"), cores = col("allowed_cores");
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const auto& row = rows[i];
            if (!row[busy].is_null()) {
                busySum += row[busy].get<double>();
                busyMax = std::max(busyMax, row[busy].get<double>());
                ++busyN;
            }
            if (!row[proc].is_null()) {
                procSum += row[proc].get<double>() / cpus;
                ++procN;
            }
            double s = 0;
            bool any = false;
            for (int c : read)
                if (!row[c].is_null()) {
                    s += row[c].get<double>();
                    any = true;
                }
            if (any) {
                readSum += s;
                ++readN;
            }
            if (i == 0) continue; // the verdict's window is (first row, last row], as the run's warning
            ++window;
            const bool sat = (!row[busy].is_null() && row[busy].get<double>() >= 90.0) ||
                             (!row[proc].is_null() && row[proc].get<double>() >= 90.0 * row[cores].get<double>());
            saturated += sat ? 1 : 0;
        }
        const ImportResult imported = importResults({runDir_});
        const InvocationRecord& r = onlyRun(imported);
        const auto& s = r.telemetry;
        QCOMPARE(s.rows, rows.size());
        QVERIFY(std::abs(s.meanCpuBusyPct - busySum / busyN) < 1e-9);
        QVERIFY(std::abs(s.maxCpuBusyPct - busyMax) < 1e-9);
        QVERIFY(std::abs(s.meanProcCpuPct - procSum / procN) < 1e-9);
        if (read.empty() || readN == 0) {
            QVERIFY(std::isnan(s.meanDeviceReadMiBs));
        } else {
            QVERIFY2(std::abs(s.meanDeviceReadMiBs - readSum / readN) < 1e-9, qPrintable(QString::number(s.meanDeviceReadMiBs)));
        }
        QVERIFY(s.hasVerdict);
        QCOMPARE(s.clientBound, saturated * 2 >= window);
        QVERIFY2(s.verdict.find(std::to_string(saturated) + " of " + std::to_string(window) + " samples") != std::string::npos,
                 s.verdict.c_str());
        // The run's own warning and the imported verdict agree.
        const json meta = readJson(runDir_ / "trainio_run.json");
        bool warned = false;
        for (const auto& w : meta.at("warnings")) warned = warned || starts(w.get<std::string>(), "client-bound");
        QCOMPARE(s.clientBound, warned);

        // The library shows it: the details' line and the tree JSON.
        const ResultsLibrary lib(imported);
        const LibraryNode* inv = firstInvocation(lib);
        QVERIFY(inv);
        QVERIFY2(starts(inv->telemetrySummary, "Telemetry: Client CPU busy: mean "), inv->telemetrySummary.c_str());
        QVERIFY2(inv->telemetrySummary.find(s.clientBound ? "Client-bound: " : "Not client-bound: ") != std::string::npos,
                 inv->telemetrySummary.c_str());
        QCOMPARE(inv->clientBound, s.clientBound);
        const std::string tree = treeJson(lib).dump();
        QVERIFY2(tree.find("\"telemetry_summary\":\"Telemetry: Client CPU busy") != std::string::npos, tree.c_str());
    }

    // Hand-made telemetry: 2 CPUs, disks sda and dm-0 (dm-0's reads are sda's too), data on sda1.
    // Rows (time, busy, proc, sda read, dm-0 read):
    //   0.5: 95, 190, 10, 10   1.0: 97, 150, 30, 30   1.5: 40, 20, null, null   2.0: 92, 10, 50, 50
    // busy mean (95+97+40+92)/4 = 81, max 97; process % of all CPUs: 190/2, 150/2, 20/2, 10/2 → mean 46.25,
    // max 95; reads of sda (the data's disk): mean (10+30+50)/3 = 30 (the unmeasured row left out).
    // Window (0.5, 2.0]: rows 1.0, 1.5, 2.0; saturated: 97 ≥ 90, 92 ≥ 90 (2 of 3) ≥ half → client-bound.
    void handWrittenFiguresAndText() {
        const fs::path dir = tmp_.filePath(QStringLiteral("hand/run")).toStdString();
        fs::create_directories(dir.parent_path());
        fs::copy(runDir_, dir, fs::copy_options::recursive);
        json io = readJson(dir / "trainio_io.json");
        io["data_device"] = {{"name", "sda1"}, {"parent_disk", "sda"}};
        testsupport::writeText(dir / "trainio_io.json", io.dump());
        json cols = json::array();
        for (const char* n : {"time_s", "interval_s", "cpu_busy_pct", "cpu0_busy_pct", "cpu1_busy_pct", "allowed_cores",
                              "proc_cpu_pct", "disk_sda_read_mib_s", "disk_dm-0_read_mib_s"})
            cols.push_back({{"name", n}, {"unit", ""}, {"meaning", ""}});
        const json rows = json::parse(R"([[0.5, 0.5, 95, 95, 95, 2, 190, 10, 10],
                                          [1.0, 0.5, 97, 97, 97, 2, 150, 30, 30],
                                          [1.5, 0.5, 40, 40, 40, 2, 20, null, null],
                                          [2.0, 0.5, 92, 92, 92, 2, 10, 50, 50]])");
        testsupport::writeText(dir / "telemetry.json", json{{"format", "trainio-telemetry"}, {"version", 1}, {"interval_s", 0.5},
                                                            {"notes", json::array()}, {"columns", cols}, {"rows", rows}}
                                                           .dump());
        const ImportResult imported = importResults({dir});
        const auto& s = onlyRun(imported).telemetry;
        QCOMPARE(s.rows, std::size_t(4));
        QCOMPARE(s.meanCpuBusyPct, 81.0);
        QCOMPARE(s.maxCpuBusyPct, 97.0);
        QCOMPARE(s.meanProcCpuPct, 46.25);
        QCOMPARE(s.maxProcCpuPct, 95.0);
        QCOMPARE(s.meanDeviceReadMiBs, 30.0);
        QCOMPARE(s.deviceLabel, std::string("sda"));
        QVERIFY(s.clientBound);
        const ResultsLibrary lib(imported);
        const std::string text = firstInvocation(lib)->telemetrySummary;
        QCOMPARE(text, std::string("Telemetry: Client CPU busy: mean 81 %, max 97 % (TrainIO process: mean 46 %, max 95 % of all "
                                   "CPUs); storage reads (sda): mean 30.0 MiB/s over 4 samples, 2 s. Client-bound: 2 of 3 samples "
                                   "had the client CPU at or above 90 % busy (threshold: 50 % of the samples): client-bound, AU "
                                   "says little about the storage"));

        // Without the device: every disk but dm-0, i.e. sda alone, under its own name.
        io.erase("data_device");
        testsupport::writeText(dir / "trainio_io.json", io.dump());
        const ImportResult again = importResults({dir}); // kept alive: s2 refers into it
        const auto& s2 = onlyRun(again).telemetry;
        QCOMPARE(s2.deviceLabel, std::string("sda"));
        QCOMPARE(s2.meanDeviceReadMiBs, 30.0);
    }

    // A run through the nvme profile: the importer reads trainio_io.json's "storage" (the profile as given,
    // its parameters), and the bytes-source text says the bytes came through that emulated device — not,
    // as for the run above on the same cached data, that they describe memory.
    void emulatedStorageIsImported() {
        const fs::path dir = tmp_.filePath(QStringLiteral("nvme")).toStdString();
        const auto run = testsupport::runCli({QStringLiteral("run"), QStringLiteral("--config"), tmp_.filePath(QStringLiteral("w.yaml")),
                                              QStringLiteral("--output"), QString::fromStdString(dir.string()), QStringLiteral("--quiet"),
                                              QStringLiteral("--storage-profile"), QStringLiteral("nvme")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const json io = readJson(dir / "trainio_io.json");
        const ImportResult imported = importResults({dir});
        const InvocationRecord& r = onlyRun(imported);
        QVERIFY(r.storageEmulated);
        QCOMPARE(r.storageProfile, std::string("nvme"));
        QVERIFY(r.storageChanges.empty());
        // The profile's numbers, read here from its file: 6500 MiB/s, lognormal 0.085 ms / 0.25, 1e6 IOPS, 128.
        const YAML::Node p = YAML::LoadFile(std::string(TRAINIO_PRESET_DIR) + "/../storage-profiles/nvme.yaml");
        QCOMPARE(p["bandwidth_mib_s"].as<double>(), 6500.0);
        QCOMPARE(p["latency_ms"]["median"].as<double>(), 0.085);
        QCOMPARE(p["iops"].as<double>(), 1e6);
        QCOMPARE(p["max_inflight"].as<int>(), 128);
        QCOMPARE(r.storageShape, std::string("6500 MiB/s, lognormal(median 0.085 ms, sigma 0.25), 1000000 IOPS, 128 in flight"));
        std::string shares;
        for (const auto& e : io.at("epochs")) {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%.0f %%", e.at("percent_from_cache").get<double>());
            shares += (shares.empty() ? "" : ", ") + std::string(buf);
        }
        const ResultsLibrary lib(imported);
        const LibraryNode* inv = firstInvocation(lib);
        QVERIFY(inv);
        QCOMPARE(inv->bytesSource, "Bytes came through emulated storage nvme (" + r.storageShape +
                                       "): the numbers describe that device, not the page cache beneath it. From the page cache "
                                       "beneath it, per epoch: " + shares + " (cache: keep, engine: posix)");
        QVERIFY(!inv->cacheServed);
        // The unemulated run of the same just-written data: the cache served it, and that is said.
        const ResultsLibrary plain(importResults({runDir_}));
        const LibraryNode* p0 = firstInvocation(plain);
        QVERIFY(p0 && p0->maxPercentFromCache);
        QCOMPARE(p0->cacheServed, *p0->maxPercentFromCache > 50.0);
        QVERIFY2(p0->bytesSource.rfind("Bytes from the page cache, per epoch: ", 0) == 0, p0->bytesSource.c_str());
        QCOMPARE(p0->bytesSource.find("describe memory") != std::string::npos, p0->cacheServed);
    }

    // A hand-edited copy: epoch 1's share unknown (null), a normal latency in the spelling of files written
    // before the key was `stdev` (stddev), one live change and one malformed one.
    void unmeasuredEpochsStayAlignedAndChangesAreImported() {
        const fs::path dir = tmp_.filePath(QStringLiteral("hand-io/run")).toStdString();
        fs::create_directories(dir.parent_path());
        fs::copy(tmp_.filePath(QStringLiteral("nvme")).toStdString(), dir, fs::copy_options::recursive);
        json io = readJson(dir / "trainio_io.json");
        QCOMPARE(io.at("epochs").size(), std::size_t(2));
        io["epochs"][0]["percent_from_cache"] = nullptr;
        const double second = io["epochs"][1]["percent_from_cache"].get<double>();
        io["storage"]["latency_ms"] = {{"type", "normal"}, {"mean", 2}, {"stddev", 0.5}};
        io["storage"]["changes"] = json::parse(R"([
            {"seconds_since_start": 1.25, "unix_time": 1700000001.5, "parameter": "bandwidth_mib_s", "old": 6500, "new": 50,
             "old_text": "6500 MiB/s", "new_text": "50 MiB/s"},
            {"parameter": "iops", "old": 1, "new": 2}])");
        testsupport::writeText(dir / "trainio_io.json", io.dump());
        const ImportResult imported = importResults({dir});
        const InvocationRecord& r = onlyRun(imported);
        QCOMPARE(r.epochPercentFromCache.size(), std::size_t(2));
        QVERIFY(std::isnan(r.epochPercentFromCache[0]));
        QCOMPARE(r.epochPercentFromCache[1], second);
        QCOMPARE(r.storageShape, std::string("6500 MiB/s, normal(mean 2 ms, stdev 0.5 ms), 1000000 IOPS, 128 in flight"));
        QCOMPARE(r.storageChanges.size(), std::size_t(1));
        const auto& c = r.storageChanges[0];
        QCOMPARE(c.secondsSinceStart, 1.25);
        QCOMPARE(c.unixTime, 1700000001.5);
        QCOMPARE(c.parameter, std::string("bandwidth_mib_s"));
        QCOMPARE(c.oldValue, 6500.0);
        QCOMPARE(c.newValue, 50.0);
        QCOMPARE(c.oldText, std::string("6500 MiB/s"));
        QCOMPARE(c.newText, std::string("50 MiB/s"));
        QVERIFY(std::any_of(r.notes.begin(), r.notes.end(),
                            [](const std::string& n) { return n.find("storage change without seconds_since_start") != std::string::npos; }));
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.0f %%", second);
        const ResultsLibrary lib(imported);
        const LibraryNode* inv = firstInvocation(lib);
        QVERIFY(inv);
        const std::string& text = inv->bytesSource;
        QVERIFY2(text.find("changed 1 time(s) during the run: ") != std::string::npos, text.c_str());
        QVERIFY2(text.find("per epoch: not measured, " + std::string(buf) + " (cache") != std::string::npos, text.c_str());
        QCOMPARE(*inv->maxPercentFromCache, second);
    }

    // Issue 19, item 6: the real run, the nvme-emulated run and a copy of it whose device was changed live
    // four times (storage.changes as the GUI's storage strip records them), side by side. Each says what it
    // went through in its name; an emulated item is never compared with a real-storage one.
    void emulatedAndLiveChangedItemsSayItAndRealStorageIsNotComparable() {
        const fs::path mix = tmp_.filePath(QStringLiteral("mix")).toStdString();
        fs::create_directories(mix);
        fs::copy(runDir_, mix / "real", fs::copy_options::recursive);
        fs::copy(tmp_.filePath(QStringLiteral("nvme")).toStdString(), mix / "emulated", fs::copy_options::recursive);
        fs::copy(tmp_.filePath(QStringLiteral("nvme")).toStdString(), mix / "live", fs::copy_options::recursive);
        json io = readJson(mix / "live" / "trainio_io.json");
        QCOMPARE(io.at("storage").at("profile").get<std::string>(), std::string("nvme"));
        io["storage"]["changes"] = json::parse(R"([
            {"seconds_since_start": 0.5, "parameter": "bandwidth_mib_s", "old": 6500, "new": 50},
            {"seconds_since_start": 0.7, "parameter": "bandwidth_mib_s", "old": 50, "new": 6500},
            {"seconds_since_start": 0.9, "parameter": "latency_ms", "old": 0.085, "new": 5},
            {"seconds_since_start": 1.1, "parameter": "latency_ms", "old": 5, "new": 0.085}])");
        testsupport::writeText(mix / "live" / "trainio_io.json", io.dump());

        const ResultsLibrary lib(importResults({mix}));
        const auto items = lib.nodes(NodeKind::Invocation);
        QCOMPARE(items.size(), std::size_t(3));
        auto named = [&](const std::string& run) -> const LibraryNode* {
            for (const LibraryNode* n : items)
                if (n->path.filename() == run) return n;
            return nullptr;
        };
        const LibraryNode *real = named("real"), *emulated = named("emulated"), *live = named("live");
        QVERIFY(real && emulated && live);
        auto endsWith = [](const std::string& s, const std::string& tail) {
            return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
        };
        QVERIFY2(real->itemName.find("emulated") == std::string::npos && real->itemName.find("live") == std::string::npos,
                 real->itemName.c_str());
        QVERIFY2(endsWith(emulated->itemName, " · emulated · emulated nvme"), // run name, then the device
                 emulated->itemName.c_str());
        QVERIFY2(endsWith(live->itemName, " · live · emulated nvme · changed live ×4"), live->itemName.c_str());
        QVERIFY2(endsWith(live->label, " · emulated nvme · changed live ×4"), live->label.c_str()); // the tree's label
        QCOMPARE(live->liveChanges, std::size_t(4));
        QVERIFY(real->storage.empty());

        const CompareResult c = compare({real, emulated, live}, CompareOptions{});
        for (std::size_t i : {1, 2}) {
            QVERIFY(!c.rows[i].comparable);
            QVERIFY2(c.rows[i].reason.rfind("emulated vs real storage", 0) == 0, c.rows[i].reason.c_str());
            for (const auto& m : c.rows[i].metrics) QVERIFY(!m.delta); // no "differs (−10.6 %)"
        }
        QVERIFY2(formatTable(c).find("not comparable: emulated vs real storage") != std::string::npos, formatTable(c).c_str());
        // Predicted vs measured: the live-changed run's prediction was for the device it started with.
        const std::string why = predictionNotComparable(lib.imported().runs.at(*live->run));
        QVERIFY2(why.find("changed live 4 times (first at 0.5 s)") != std::string::npos, why.c_str());
        QVERIFY(predictionNotComparable(lib.imported().runs.at(*emulated->run)).empty());
        // Two emulated items compare with each other (the device is what is being compared).
        const CompareResult e = compare({emulated, live}, CompareOptions{});
        QVERIFY2(e.rows[1].comparable, e.rows[1].reason.c_str());
    }

    // A broken telemetry.json costs the telemetry line only: a note naming the file and the key.
    void brokenTelemetryIsANote() {
        const fs::path dir = tmp_.filePath(QStringLiteral("broken/run")).toStdString();
        fs::create_directories(dir.parent_path());
        fs::copy(runDir_, dir, fs::copy_options::recursive);
        testsupport::writeText(dir / "telemetry.json", R"({"format": "trainio-telemetry", "version": 2})");
        const ImportResult imported = importResults({dir});
        const InvocationRecord& r = onlyRun(imported);
        QCOMPARE(r.telemetry.rows, std::size_t(0));
        QCOMPARE(r.status, InvocationStatus::Complete);
        bool named = false;
        for (const auto& n : r.notes)
            named = named || (n.find((dir / "telemetry.json").string()) != std::string::npos && n.find("version") != std::string::npos &&
                              n.find("telemetry not shown") != std::string::npos);
        QVERIFY(named);
        QVERIFY(firstInvocation(ResultsLibrary(imported))->telemetrySummary.empty());
    }
};

QTEST_GUILESS_MAIN(TestTelemetryImport)
#include "tst_telemetry_import.moc"
