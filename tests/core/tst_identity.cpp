// Issue 9, items 1 and 3: what is one workload, what is one benchmark, and what each invocation is worth.
// Real TrainIO folders made by the CLI (run once, a benchmark with its manifest, a failed run through
// fault injection) and the published MLPerf Storage v1.0 / v3.0 results.
#include "testsupport.h"

#include "aggregate/identity.h"
#include "config/config_keys.h"
#include "store/labels.h"
#include "aggregate/results_import.h"
#include "aggregate/results_library.h"
#include "store/benchmark_manifest.h"
#include "util/errors.h"

#include <nlohmann/json.hpp>

#include <QElapsedTimer>
#include <QFile>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <csignal>
#include <functional>

using namespace trainio::aggregate;
using namespace trainio::store;
namespace fs = std::filesystem;

namespace {

std::string workload(const fs::path& data, std::uint64_t recordBytes) {
    return "model:\n  name: tiny\nframework: pytorch\nworkflow: {generate_data: false, train: true}\n"
           "dataset: {data_folder: " + data.string() + ", format: npz, num_files_train: 8, num_samples_per_file: 2, "
           "record_length_bytes: " + std::to_string(recordBytes) + "}\n"
           "reader: {data_loader: pytorch, batch_size: 2, read_threads: 1}\ntrain: {epochs: 2, computation_time: 0.001}\n";
}

QString q(const fs::path& p) { return QString::fromStdString(p.string()); }

void cli(const QStringList& args, int expected = 0, const QList<QPair<QString, QString>>& env = {}) {
    const auto r = testsupport::runCli(args, 300000, env);
    if (r.exitCode != expected) QFAIL(qPrintable(args.join(' ') + " -> " + QString::number(r.exitCode) + "\n" + r.err));
}

const RunGroup* groupAt(const ImportResult& r, const fs::path& path) {
    for (const auto& g : r.groups)
        if (g.path == path) return &g;
    return nullptr;
}

nlohmann::json readJson(const fs::path& p) { return nlohmann::json::parse(testsupport::readText(p)); }

// metric.<key> of a summary.json, read here rather than by the importer.
double summaryMetric(const fs::path& run, const char* key) { return readJson(run / "summary.json")["metric"][key].get<double>(); }

std::string runNames(const ImportResult& r, const std::vector<std::size_t>& runs) {
    std::vector<std::string> names;
    for (std::size_t i : runs) names.push_back(r.runs[i].runName);
    std::sort(names.begin(), names.end());
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
    return out;
}

// "run1,run2 / run3": every group's complete runs, then its excluded runs, groups joined by " | ".
std::string groupsOf(const ImportResult& r) {
    std::string out;
    for (const auto& g : r.groups) out += (out.empty() ? "" : " | ") + runNames(r, g.runs) + " / " + runNames(r, g.excluded);
    return out;
}

InvocationRecord record(std::vector<std::pair<std::string, std::string>> resolved) {
    InvocationRecord r;
    r.model = "unet3d";
    r.accelerator = "h100";
    r.accelerators = 4;
    r.samplesPerFile = 1;
    r.filesTrain = 100;
    r.recordLengthBytes = 146600628.0;
    r.auThresholdPercent = 90.0;
    std::sort(resolved.begin(), resolved.end());
    r.resolved = std::move(resolved);
    return r;
}

} // namespace

class TestIdentity : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    fs::path root_, cfg_, cfgBig_;

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        root_ = tmp_.path().toStdString();
        cfg_ = root_ / "w.yaml";
        cfgBig_ = root_ / "w-big.yaml";
        testsupport::writeText(cfg_, workload(root_ / "data", 65536));
        testsupport::writeText(cfgBig_, workload(root_ / "data-big", 1 << 20));
        cli({"datagen", "--config", q(cfg_), "--quiet"});
        cli({"datagen", "--config", q(cfgBig_), "--quiet"});
    }

    // The scenario: three "run once" invocations with different settings and one failed run in
    // one output folder were one "benchmark" averaged with the failed run as AU 0.
    void runOnceInvocationsStaySingleAndFailedRunsAreExcluded() {
        const fs::path out = root_ / "once";
        cli({"run", "--config", q(cfg_), "--output", q(out / "a"), "--quiet"});
        cli({"run", "--config", q(cfg_), "--output", q(out / "b"), "--quiet", "++workload.reader.read_threads=2"});
        cli({"run", "--config", q(cfg_), "--output", q(out / "c"), "--quiet", "++workload.train.computation_time=0.005"});
        cli({"run", "--config", q(cfg_), "--output", q(out / "d"), "--quiet"}, 1,
            {{"TRAINIO_FAULTS", "read:EIO:img_3_of_8"}});
        const ImportResult r = importResults({out});
        QCOMPARE(r.groups.size(), std::size_t(4));
        for (const auto& g : r.groups) QCOMPARE(int(g.kind), int(GroupKind::Single));
        const RunGroup* failed = groupAt(r, out / "d");
        QVERIFY(failed);
        QVERIFY(failed->runs.empty());
        QCOMPARE(failed->excluded.size(), std::size_t(1));
        QCOMPARE(int(failed->status), int(InvocationStatus::Failed));
        QVERIFY2(failed->statusReason.find("img_3_of_8") != std::string::npos, failed->statusReason.c_str());
        const auto& fr = r.runs[failed->excluded[0]];
        QCOMPARE(statusName(fr.status), std::string("failed"));
        // a, b, c are the same workload (reader threads are not part of it) but c computes longer.
        const auto& a = r.runs[groupAt(r, out / "a")->runs.at(0)];
        const auto& b = r.runs[groupAt(r, out / "b")->runs.at(0)];
        const auto& c = r.runs[groupAt(r, out / "c")->runs.at(0)];
        QCOMPARE(a.workloadKey, b.workloadKey);
        QVERIFY(a.benchmarkKey != b.benchmarkKey);
        QVERIFY(a.workloadKey != c.workloadKey);
        QVERIFY2(whyNotComparable(a.workloadKey, c.workloadKey).find("computation time") != std::string::npos,
                 whyNotComparable(a.workloadKey, c.workloadKey).c_str());
        const auto diff = identityDifferences(a, b);
        QVERIFY(std::any_of(diff.begin(), diff.end(), [](const std::string& d) { return d == "reader.read_threads: 1 vs 2"; }));
    }

    // A benchmark is exactly what its manifest names; labels given to the CLI are read back.
    void benchmarkManifestGroupsItsRunsAndLabelsComeBack() {
        const fs::path bench = root_ / "bench";
        cli({"benchmark", "--config", q(cfg_), "--output", q(bench), "--runs", "3", "--quiet", "--system", "lab-nvme-01",
             "--description", "ext4 on one NVMe SSD, noatime; 1 client"});
        const auto m = trainio::store::readBenchmarkManifest(bench);
        QVERIFY(m);
        QCOMPARE(m->status, std::string("complete"));
        QCOMPARE(m->plannedRuns, std::uint64_t(3));
        QCOMPARE(m->runs.size(), std::size_t(3));
        QCOMPARE(m->warmups, std::vector<std::string>{"warmup"});
        // A run once beside it in the same folder tree does not join it.
        cli({"run", "--config", q(cfg_), "--output", q(bench / "runs" / "extra"), "--quiet"});
        const ImportResult r = importResults({bench});
        const RunGroup* g = groupAt(r, bench / "runs");
        QVERIFY(g);
        QCOMPARE(int(g->kind), int(GroupKind::Manifest));
        QCOMPARE(g->runs.size(), std::size_t(3));
        QCOMPARE(g->warmups.size(), std::size_t(1));
        QCOMPARE(g->plannedRuns, std::size_t(3));
        QCOMPARE(int(g->status), int(InvocationStatus::Complete));
        QCOMPARE(g->system, std::string("lab-nvme-01"));
        QCOMPARE(g->systemDescription, std::string("ext4 on one NVMe SSD, noatime; 1 client"));
        QCOMPARE(r.groups.size(), std::size_t(2)); // the benchmark and the extra run once

        // Fewer complete runs than planned: incomplete, and says so.
        const fs::path cut = root_ / "bench-cut";
        fs::copy(bench, cut, fs::copy_options::recursive);
        fs::remove_all(cut / "runs" / "extra");
        auto m2 = *m;
        m2.plannedRuns = 5;
        m2.status = "running";
        trainio::store::writeBenchmarkManifest(cut, m2);
        const ImportResult r2 = importResults({cut});
        QCOMPARE(r2.groups.size(), std::size_t(1));
        QCOMPARE(int(r2.groups[0].status), int(InvocationStatus::Incomplete));
        QVERIFY2(r2.groups[0].statusReason.find("3 of 5 planned runs") != std::string::npos, r2.groups[0].statusReason.c_str());
    }

    // Same model name, different sample sizes: two workloads, and compare can say why.
    void sameNameDifferentRecordSizeIsAnotherWorkload() {
        const fs::path out = root_ / "sizes";
        cli({"run", "--config", q(cfg_), "--output", q(out / "small"), "--quiet"});
        cli({"run", "--config", q(cfgBig_), "--output", q(out / "big"), "--quiet"});
        const ImportResult r = importResults({out});
        QCOMPARE(r.runs.size(), std::size_t(2));
        QCOMPARE(r.runs[0].model, r.runs[1].model);
        QVERIFY(r.runs[0].workloadKey != r.runs[1].workloadKey);
        const std::string why = whyNotComparable(r.runs[0].workloadKey, r.runs[1].workloadKey);
        QVERIFY2(why.find("record length") != std::string::npos && why.find("1.0 MiB") != std::string::npos &&
                     why.find("64.0 KiB") != std::string::npos,
                 why.c_str());
    }

    // Issue 9, item 1: O_DIRECT is part of the benchmark identity. Runs TrainIO wrote into one runs/
    // folder (the layout of an imported tree), alike but for reader.odirect (resp. trainio.io_engine),
    // are two benchmarks, each saying what differs — never one averaged over page-cache and direct reads.
    void odirectRunsInOneFolderAreTwoBenchmarks() {
        const fs::path runs = root_ / "odirect" / "runs";
        cli({"run", "--config", q(cfg_), "--output", q(runs / "run-1"), "--quiet"});
        cli({"run", "--config", q(cfg_), "--output", q(runs / "run-2"), "--quiet"});
        cli({"run", "--config", q(cfg_), "--output", q(runs / "run-3"), "--quiet", "++workload.reader.odirect=True"});
        cli({"run", "--config", q(cfg_), "--output", q(runs / "run-4"), "--quiet", "++workload.trainio.io_engine=odirect"});
        const ImportResult r = importResults({root_ / "odirect"});
        QCOMPARE(r.runs.size(), std::size_t(4));
        std::vector<std::string> groups;
        for (const auto& g : r.groups) {
            QCOMPARE(g.path, runs);
            QCOMPARE(int(g.kind), int(GroupKind::Folder));
            groups.push_back(runNames(r, g.runs));
        }
        std::sort(groups.begin(), groups.end());
        // The page-cache runs together, each O_DIRECT run apart from them (run-3 and run-4 also differ
        // from each other: reader.odirect is set in one only).
        QCOMPARE(groups, (std::vector<std::string>{"run-1,run-2", "run-3", "run-4"}));
        for (const auto& g : r.groups) {
            if (runNames(r, g.runs) != "run-3") continue;
            const bool named = std::any_of(g.differences.begin(), g.differences.end(), [](const std::string& d) {
                return d.find("odirect") != std::string::npos;
            });
            QVERIFY2(named, g.differences.empty() ? "no differences listed" : g.differences.front().c_str());
        }
        // The library shows them as three benchmarks of one workload (the workload identity does not
        // hold how the bytes are read).
        const ResultsLibrary lib(importResults({root_ / "odirect"}));
        QCOMPARE(lib.nodes(NodeKind::Benchmark).size(), std::size_t(3));
        QCOMPARE(lib.nodes(NodeKind::Workload).size(), std::size_t(1));
    }

    // Issue 9, item 3: an invocation that measured fewer epochs than train.epochs asked for is
    // incomplete, shown with its reason and in no statistic. DLIO's own folders (no trainio_run.json):
    // the fixture run (3 epochs configured) three times in one runs/ folder, the third cut to 2 epochs.
    void fewerEpochsThanConfiguredIsIncompleteAndExcluded() {
        const fs::path runs = root_ / "epochs" / "runs";
        const fs::path src = testsupport::fixtures() / "dlio-runs" / "unet3d_256_np1";
        fs::create_directories(runs);
        for (const char* run : {"run1", "run2", "run3"}) {
            fs::copy(src, runs / run, fs::copy_options::recursive);
            for (const auto& e : fs::recursive_directory_iterator(runs / run)) // fixtures are read-only
                fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
        }
        // run2 measured a little faster, so that the mean is not any one run's value.
        nlohmann::json s2 = readJson(runs / "run2" / "summary.json");
        s2["metric"]["train_au_mean_percentage"] = 93.5;
        s2["metric"]["train_throughput_mean_samples_per_second"] = 80.25;
        s2["metric"]["train_io_mean_MB_per_second"] = 802.5;
        testsupport::writeText(runs / "run2" / "summary.json", s2.dump(4));
        nlohmann::json s3 = readJson(runs / "run3" / "summary.json");
        QCOMPARE(s3["metric"]["train_au_percentage"].size(), std::size_t(3)); // what the config asks for
        for (const char* key : {"train_au_percentage", "train_throughput_samples_per_second"}) s3["metric"][key].erase(2);
        s3["epochs"] = 2;
        testsupport::writeText(runs / "run3" / "summary.json", s3.dump(4));

        const ImportResult r = importResults({root_ / "epochs"});
        QCOMPARE(groupsOf(r), std::string("run1,run2 / run3"));
        const RunGroup& g = r.groups[0];
        const InvocationRecord& cut = r.runs[g.excluded[0]];
        QCOMPARE(int(cut.status), int(InvocationStatus::Incomplete));
        QVERIFY2(cut.statusReason.find("2 of 3") != std::string::npos, cut.statusReason.c_str());
        QCOMPARE(int(g.status), int(InvocationStatus::Incomplete));

        const ResultsLibrary lib(importResults({root_ / "epochs"}));
        const auto benches = lib.nodes(NodeKind::Benchmark);
        QCOMPARE(benches.size(), std::size_t(1));
        const LibraryNode& b = *benches[0];
        QCOMPARE(b.au.n, std::size_t(2));
        const double au = (summaryMetric(runs / "run1", "train_au_mean_percentage") + 93.5) / 2;
        QVERIFY2(std::fabs(b.au.mean - au) < 1e-9, std::to_string(b.au.mean).c_str());
        const double mib = (summaryMetric(runs / "run1", "train_io_mean_MB_per_second") + 802.5) / 2;
        QVERIFY(std::fabs(b.mibPerSecond.mean - mib) < 1e-9 * mib);
        const auto excluded = std::count_if(b.children.begin(), b.children.end(), [](const auto& c) {
            return c->excluded && c->status == InvocationStatus::Incomplete && !c->hasMetrics && c->label == "run3";
        });
        QCOMPARE(excluded, 1);
    }

    // Issue 9, item 3: a run TrainIO itself wrote and the user cancelled (the real CLI, SIGINT after its
    // first epoch) imports as cancelled, is shown with its reason and enters no statistic of the runs
    // folder it shares with two complete runs.
    void runCancelledBySigintIsShownAndExcluded() {
        const fs::path runs = root_ / "cancel" / "runs";
        // 8 steps of 0.05 s per epoch, 5 epochs: the signal after the first epoch lands mid-run.
        const fs::path yaml = root_ / "slow.yaml";
        std::string text = workload(root_ / "data", 65536);
        const std::string fast = "epochs: 2, computation_time: 0.001";
        QVERIFY(text.find(fast) != std::string::npos);
        text.replace(text.find(fast), fast.size(), "epochs: 5, computation_time: 0.05");
        testsupport::writeText(yaml, text);
        cli({"run", "--config", q(yaml), "--output", q(runs / "run-1"), "--quiet"});
        cli({"run", "--config", q(yaml), "--output", q(runs / "run-2"), "--quiet"});
        const fs::path live = root_ / "cancel-live.jsonl";
        QProcess p;
        p.start(QStringLiteral(TRAINIO_CLI), {"run", "--config", q(yaml), "--output", q(runs / "run-3"), "--live-json", q(live), "--quiet"});
        QVERIFY(p.waitForStarted());
        auto epochs = [&] {
            QFile f(q(live));
            return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()).count(QStringLiteral("\"event\":\"epoch\"")) : 0;
        };
        QElapsedTimer t;
        t.start();
        while (epochs() < 1 && p.state() != QProcess::NotRunning && t.elapsed() < 60000) p.waitForFinished(10);
        QVERIFY2(p.state() != QProcess::NotRunning, "the run ended before it could be interrupted");
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(testsupport::kHangMs));
        QCOMPARE(p.exitCode(), 1);
        QCOMPARE(readJson(runs / "run-3" / "trainio_run.json")["status"].get<std::string>(), std::string("cancelled"));

        const ImportResult r = importResults({root_ / "cancel"});
        QCOMPARE(groupsOf(r), std::string("run-1,run-2 / run-3"));
        const InvocationRecord& cancelled = r.runs[r.groups[0].excluded[0]];
        QCOMPARE(statusName(cancelled.status), std::string("cancelled"));
        QVERIFY2(cancelled.statusReason.find("cancelled by the user") != std::string::npos, cancelled.statusReason.c_str());

        const ResultsLibrary lib(importResults({root_ / "cancel"}));
        const auto benches = lib.nodes(NodeKind::Benchmark);
        QCOMPARE(benches.size(), std::size_t(1));
        const LibraryNode& b = *benches[0];
        QCOMPARE(b.au.n, std::size_t(2));
        QCOMPARE(b.samplesPerSecond.values.size(), std::size_t(2));
        const double sps = (summaryMetric(runs / "run-1", "train_throughput_mean_samples_per_second") +
                            summaryMetric(runs / "run-2", "train_throughput_mean_samples_per_second")) / 2;
        QVERIFY2(std::fabs(b.samplesPerSecond.mean - sps) < 1e-9 * sps, std::to_string(b.samplesPerSecond.mean).c_str());
        const LibraryNode* shown = nullptr;
        for (const auto& c : b.children)
            if (c->label == "run-3") shown = c.get();
        QVERIFY(shown);
        QVERIFY(shown->excluded && !shown->hasMetrics);
        QCOMPARE(shown->status, InvocationStatus::Cancelled);
        // The benchmark the user stopped is "cancelled" in the library, as its run is (issue 21: one word for
        // one thing); the import's reason still counts the runs.
        QCOMPARE(r.groups[0].status, InvocationStatus::Incomplete);
        QCOMPARE(b.status, InvocationStatus::Cancelled);
        QVERIFY2(b.statusReason.find("run-3 cancelled") != std::string::npos, b.statusReason.c_str());
    }

    // One invocation reached twice (the same tree twice, under another spelling, through a symlink) counts once.
    void aTreeImportedTwiceCountsOnce() {
        const fs::path tree = testsupport::fixtures() / "mlperf-storage-v1.0" / "Closed" / "HPE";
        const ImportResult once = importResults({tree});
        const fs::path link = root_ / "hpe-link";
        fs::create_directory_symlink(tree, link);
        const ImportResult twice = importResults({tree, tree.string() + "/", link, tree / "results"});
        QCOMPARE(twice.runs.size(), once.runs.size());
        QCOMPARE(twice.groups.size(), once.groups.size());
        for (std::size_t i = 0; i < once.groups.size(); ++i) QCOMPARE(twice.groups[i].runs.size(), once.groups[i].runs.size());
        QVERIFY(!twice.duplicates.empty());
    }

    // Published results: every run of a published benchmark is one identity; resnet50 and unet3d of one
    // system are different workloads; the v1.0 (record_length) and 2.x (record_length_bytes) spellings agree.
    void publishedResultsAndKeySpellings() {
        const fs::path sys = testsupport::fixtures() / "mlperf-storage-v1.0" / "Closed" / "HPE" / "results" / "Cray_C500_4xHDR200_1host";
        const ImportResult r = importResults({sys});
        QCOMPARE(r.groups.size(), std::size_t(2));
        for (const auto& g : r.groups) {
            QCOMPARE(g.runs.size(), std::size_t(5));
            for (std::size_t i : g.runs) QCOMPARE(r.runs[i].benchmarkKey, r.runs[g.runs[0]].benchmarkKey);
            QCOMPARE(int(g.status), int(InvocationStatus::Complete));
        }
        QVERIFY(r.groups[0].identity.workloadKey != r.groups[1].identity.workloadKey);
        QVERIFY(whyNotComparable(r.groups[0].identity.workloadKey, r.groups[1].identity.workloadKey).find("different model") !=
                std::string::npos);

        const auto v1 = record({{"dataset.record_length", "146600628"}, {"dataset.format", "npz"}, {"reader.batch_size", "7"},
                                {"train.computation_time", "0.323"}, {"model", "unet3d"}});
        const auto v2 = record({{"dataset.record_length_bytes", "146600628.0"}, {"dataset.record_length_bytes_stdev", "0"},
                                {"dataset.format", "npz"}, {"reader.batch_size", "7"}, {"train.computation_time", "0.3230"},
                                {"model.name", "unet3d"}});
        QCOMPARE(identityOf(v1).workloadKey, identityOf(v2).workloadKey);
        auto v3 = v2;
        v3.resolved.emplace_back("train.computation_time_stdev", "0.05");
        QVERIFY(identityOf(v3).workloadKey != identityOf(v2).workloadKey);
        QCOMPARE(identityOf(v1).workloadTitle, std::string("unet3d_h100 · npz · 139.8 MiB/sample"));
    }

    // Issue 24: reader.preprocess_time (the readers' per-sample work, what a captured job's decode becomes)
    // changes what is measured: a different time is a different workload, said in words; zero or absent
    // (DLIO's default) adds nothing, so a published config and a TrainIO one that writes 0 stay equal.
    void preprocessTimeIsPartOfTheWorkload() {
        const std::vector<std::pair<std::string, std::string>> base = {
            {"dataset.format", "npz"}, {"reader.batch_size", "4"}, {"train.computation_time", "0.016"}, {"model", "captured"}};
        auto with = [&](std::vector<std::pair<std::string, std::string>> extra) {
            auto keys = base;
            keys.insert(keys.end(), extra.begin(), extra.end());
            return identityOf(record(keys));
        };
        const Identity none = with({});
        QCOMPARE(with({{"reader.preprocess_time", "0"}}).workloadKey, none.workloadKey);
        QCOMPARE(with({{"reader.preprocess_time", "0.0"}, {"reader.preprocess_time_stdev", "0"}}).benchmarkKey, none.benchmarkKey);
        const Identity tenMs = with({{"reader.preprocess_time", "0.010"}});
        QVERIFY(tenMs.workloadKey != none.workloadKey);
        QCOMPARE(with({{"reader.preprocess_time", "0.01"}}).workloadKey, tenMs.workloadKey); // 0.010 = 0.01
        const Identity spread = with({{"reader.preprocess_time.type", "normal"}, {"reader.preprocess_time.mean", "0.010"},
                                      {"reader.preprocess_time.stdev", "0.002"}});
        QVERIFY(spread.workloadKey != tenMs.workloadKey && spread.workloadKey != none.workloadKey);
        QCOMPARE(whyNotComparable(tenMs.workloadKey, none.workloadKey), std::string("different preprocess time: 0.01 vs 0"));
        QCOMPARE(workloadDistinction(tenMs.workloadKey, {tenMs.workloadKey, none.workloadKey}), std::string("preprocess 0.01"));
        QCOMPARE(workloadDistinction(none.workloadKey, {tenMs.workloadKey, none.workloadKey}), std::string("preprocess 0"));
        // The captured job's figures are bookkeeping: two replays of one workload from two traces are one benchmark.
        QCOMPARE(with({{"trainio.captured_job.trace", "/a"}, {"trainio.captured_job.au_percent", "70"}}).benchmarkKey,
                 with({{"trainio.captured_job.trace", "/b"}, {"trainio.captured_job.au_percent", "60"}}).benchmarkKey);
    }

    // Issue 19, item 4: a published benchmark (Hammerspace's resnet50, 1 client, H100: five runs, no
    // workflow.checkpoint, so checkpointing is off by DLIO's default; profiling false; no evaluation) whose
    // runs differ only in keys that cannot change what is measured stays one benchmark of five runs, and
    // the differences are listed; a key that does matter still splits.
    void settingsOfADisabledFeatureAndBookkeepingDoNotSplit() {
        const fs::path src = testsupport::fixtures() / "mlperf-storage-v1.0" / "Closed" / "Hammerspace" / "results" /
                             "Hammerspace_resnet50_1Client_H100";
        const std::string config = testsupport::readText(src / "run1" / "configs" / "config.yaml");
        QVERIFY(config.find("checkpoint_folder: /mnt/mlperf/checkpoints") != std::string::npos); // and no workflow.checkpoint:
        QVERIFY(config.find("    checkpoint:") == std::string::npos);
        QVERIFY(config.find("read_threads: 6") != std::string::npos);
        // Appends per-run override lines to a fresh copy of the submission under `name`.
        auto copyWith = [&](const std::string& name, const std::function<std::string(int)>& extra) {
            const fs::path dst = root_ / name / "results" / "Hammerspace_resnet50_1Client_H100";
            fs::create_directories(dst.parent_path());
            fs::copy(src, dst, fs::copy_options::recursive);
            for (const auto& e : fs::recursive_directory_iterator(dst)) // fixtures are read-only
                fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
            for (int i = 1; i <= 5; ++i) {
                const fs::path o = dst / ("run" + std::to_string(i)) / "configs" / "overrides.yaml";
                std::string text = testsupport::readText(o);
                if (!text.empty() && text.back() != '\n') text += '\n';
                testsupport::writeText(o, text + extra(i));
            }
            return dst;
        };
        auto perRun = [](int i) {
            const std::string n = std::to_string(i);
            return "- ++workload.checkpoint.checkpoint_folder=/mnt/ckpt/run" + n + "\n"   // (a) checkpointing off
                   "- ++workload.output.folder=/results/out" + n + "\n"                    // (b) output folder
                   "- ++workload.evaluation.eval_time=0." + n + "\n"                        // (c) evaluation off
                   "- ++workload.profiling.iostat_devices=sd" + n + "\n";                   // (c) profiling off
        };
        {
            const fs::path dst = copyWith("quiet-keys", perRun);
            const ImportResult r = importResults({root_ / "quiet-keys"});
            QCOMPARE(groupsOf(r), std::string("run1,run2,run3,run4,run5 / "));
            const RunGroup& g = r.groups.at(0);
            QCOMPARE(g.path, dst);
            QVERIFY(g.differences.empty());
            // Each key named once per run compared with run1, with why it does not split.
            for (const std::string key : {"checkpoint.checkpoint_folder: /mnt/ckpt/run1 vs /mnt/ckpt/run",
                                          "output.folder: /results/out1 vs /results/out", "evaluation.eval_time: 0.1 vs 0.",
                                          "profiling.iostat_devices: sd1 vs sd"}) {
                const auto n = std::count_if(g.settingDifferences.begin(), g.settingDifferences.end(),
                                             [&](const std::string& d) { return d.rfind(key, 0) == 0; });
                QVERIFY2(n == 4, (key + " listed " + std::to_string(n) + " times").c_str());
            }
            const bool why = std::any_of(g.settingDifferences.begin(), g.settingDifferences.end(), [](const std::string& d) {
                return d.find("checkpoint_folder") != std::string::npos && d.find("workflow.checkpoint false") != std::string::npos &&
                       d.find("(run1 vs run3)") != std::string::npos;
            });
            QVERIFY2(why, g.settingDifferences.front().c_str());
            const ResultsLibrary lib(importResults({root_ / "quiet-keys"}));
            QCOMPARE(lib.nodes(NodeKind::Benchmark).size(), std::size_t(1));
        }
        {   // A reader setting matters: run5 with 4 read threads instead of the submission's 6 is apart.
            copyWith("threads", [&](int i) { return perRun(i) + (i == 5 ? "- ++workload.reader.read_threads=4\n" : ""); });
            const ImportResult r = importResults({root_ / "threads"});
            std::vector<std::string> groups;
            for (const auto& g : r.groups) groups.push_back(runNames(r, g.runs));
            std::sort(groups.begin(), groups.end());
            QCOMPARE(groups, (std::vector<std::string>{"run1,run2,run3,run4", "run5"}));
        }
        {   // Issue 30: with checkpointing on, where the checkpoints go is still a location, not what the
            // workload does (it was five 1-run items before): one benchmark, the folders listed as locations.
            copyWith("ckpt-on", [&](int i) { return perRun(i) + "- ++workload.workflow.checkpoint=True\n"; });
            const ImportResult r = importResults({root_ / "ckpt-on"});
            QCOMPARE(groupsOf(r), std::string("run1,run2,run3,run4,run5 / "));
            const auto& d = r.groups.at(0).settingDifferences;
            QCOMPARE(std::count_if(d.begin(), d.end(), [](const std::string& x) {
                         return x.rfind("checkpoint.checkpoint_folder: /mnt/ckpt/run1 vs /mnt/ckpt/run", 0) == 0 &&
                                x.find("a location") != std::string::npos;
                     }),
                     std::ptrdiff_t(4));
        }
    }

    // Issue 30: the key table's role of every key is what the identities do with it. Two hand-made records
    // that differ in one key only (its feature switched on in both): a workload key changes the workload
    // identity; a setting changes the benchmark identity only (a bookkeeping one, or one of
    // benchmarkIdentityExclusions(), neither, and is listed); a location changes neither and is listed.
    void everyKeyActsAsItsRoleSays() {
        using trainio::config_keys::Role;
        int checked = 0;
        for (const auto& k : trainio::config_keys::all()) {
            std::vector<std::pair<std::string, std::string>> base;
            const std::string gate = trainio::config_keys::featureGate(k.path);
            if (!gate.empty() && gate != k.path) base.emplace_back(gate, "true");
            std::string va = "1", vb = "2";
            if (k.type == trainio::config_keys::Type::Bool) va = "true", vb = "false";
            else if (k.choices.size() >= 2) va = k.choices[0], vb = k.choices[1];
            else if (k.type == trainio::config_keys::Type::Text) va = "a", vb = "b";
            auto make = [&](const std::string& v) {
                auto keys = base;
                keys.emplace_back(k.path, v);
                InvocationRecord r;
                std::sort(keys.begin(), keys.end());
                r.resolved = keys;
                return r;
            };
            const InvocationRecord a = make(va), b = make(vb);
            const Identity ia = identityOf(a), ib = identityOf(b);
            const auto listed = settingDifferences(a, b);
            const bool quiet = trainio::config_keys::isBookkeeping(k.path) ||
                               std::any_of(benchmarkIdentityExclusions().begin(), benchmarkIdentityExclusions().end(),
                                           [&](const ExcludedKey& e) { return e.key == k.path; });
            const std::string what = k.path + " (" + trainio::config_keys::roleName(k) + "): " + va + " vs " + vb;
            switch (k.role) {
            case Role::Workload:
                QVERIFY2(ia.workloadKey != ib.workloadKey, what.c_str());
                break;
            case Role::Setting:
                QVERIFY2(ia.workloadKey == ib.workloadKey, what.c_str());
                QVERIFY2((ia.benchmarkKey == ib.benchmarkKey) == quiet, what.c_str());
                QVERIFY2(listed.size() == (quiet ? 1u : 0u), what.c_str());
                break;
            case Role::Location:
                QVERIFY2(ia.workloadKey == ib.workloadKey && ia.benchmarkKey == ib.benchmarkKey, what.c_str());
                QVERIFY2(listed.size() == 1 && listed[0].rfind(k.path + ": ", 0) == 0, what.c_str());
                break;
            case Role::Unclassified:
                QFAIL(("no identity role: " + k.path).c_str());
            }
            ++checked;
        }
        QVERIFY(checked > 150);
    }

    // MLPerf Storage v3.0: configs in dlio_config/, the system described by systems/<system>.yaml — read
    // only when the imported tree holds systems/ (the submission folder or above): nothing above the
    // imported root is read (docs/formats.md, "The run folder").
    void v3LayoutAndSystemYaml() {
        // SAMSUNG's training benchmark only (the tree also holds Alluxio's and the checkpointing sets: tst_import_v3).
        const fs::path org = testsupport::fixtures() / "mlperf-storage-v3.0" / "closed" / "SAMSUNG";
        const fs::path tree = org / "results" / "MEMORY_AE" / "training";
        {
            const ImportResult below = importResults({tree});
            QCOMPARE(below.groups.size(), std::size_t(1));
            QCOMPARE(below.groups[0].system, std::string("MEMORY_AE")); // the name comes from the path, nothing read
            QVERIFY(!below.groups[0].systemFile);
            QVERIFY(below.groups[0].systemDescription.find("Samsung") == std::string::npos);
        }
        const ImportResult whole = importResults({org});
        const auto it = std::find_if(whole.groups.begin(), whole.groups.end(),
                                     [](const RunGroup& x) { return x.type == BenchmarkType::Training; });
        QVERIFY(it != whole.groups.end());
        const RunGroup& g = *it;
        QCOMPARE(g.system, std::string("MEMORY_AE"));
        QVERIFY(g.systemFile && g.systemFile->filename() == "MEMORY_AE.yaml");
        QVERIFY2(g.systemDescription.find("Samsung MEMORY AE Storage System") != std::string::npos, g.systemDescription.c_str());
        QCOMPARE(g.identity.model, std::string("unet3d"));
        QCOMPARE(g.identity.accelerator, std::string("b200"));
        QVERIFY(g.identity.workloadKey.find("format=npz") != std::string::npos);
    }

    // Where the bytes came from travels with the result: trainio_io.json per epoch and the run's warnings.
    void cacheProvenanceIsImported() {
        const fs::path out = root_ / "cache";
        cli({"run", "--config", q(cfg_), "--output", q(out / "keep"), "--quiet"});
        const ImportResult r = importResults({out});
        QCOMPARE(r.runs.size(), std::size_t(1));
        const auto& run = r.runs[0];
        QCOMPARE(run.ioEngine, std::string("posix"));
        QCOMPARE(run.cacheControl, std::string("keep"));
        QCOMPARE(run.epochPercentFromCache.size(), std::size_t(2));
        // The 1 MiB dataset was just generated and read once: epoch 2 is served by the page cache.
        QVERIFY2(run.epochPercentFromCache[1] >= 95.0, std::to_string(run.epochPercentFromCache[1]).c_str());
        QVERIFY(std::any_of(run.warnings.begin(), run.warnings.end(),
                            [](const std::string& w) { return w.find("page cache") != std::string::npos; }));
        // The library says it where the numbers are shown (Results details, report, tree JSON).
        const ResultsLibrary lib(r);
        const auto items = lib.nodes(NodeKind::Invocation);
        QCOMPARE(items.size(), std::size_t(1));
        QVERIFY(items[0]->maxPercentFromCache && *items[0]->maxPercentFromCache >= 95.0);
        QVERIFY2(items[0]->bytesSource.find("describe memory, not the storage") != std::string::npos &&
                     items[0]->bytesSource.find("cache: keep, engine: posix") != std::string::npos,
                 items[0]->bytesSource.c_str());
        // A published DLIO/MLPerf folder has no such record: nothing is claimed.
        const ResultsLibrary published(importResults({testsupport::fixtures() / "mlperf-storage-v3.0"}));
        for (const auto* b : published.nodes(NodeKind::Benchmark)) QVERIFY(b->bytesSource.empty());
    }

    // Labels: nearest wins, a name belongs to its own folder only, a bad file is reported and ignored.
    void labelsFilesNearestWins() {
        const fs::path base = root_ / "labels";
        fs::create_directories(base / "bench" / "run-1");
        writeLabelsFile(base, Labels{"sys-A", "Lustre, 4 OSS, HDR200", "", "top", std::nullopt, {}});
        writeLabelsFile(base / "bench", Labels{"", "", "after tuning", "tuned", std::nullopt, {}});
        Labels l = labelsFor(base / "bench" / "run-1", base);
        QCOMPARE(l.system, std::string("sys-A"));
        QCOMPARE(l.description, std::string("Lustre, 4 OSS, HDR200"));
        QCOMPARE(l.notes, std::string("after tuning"));
        QCOMPARE(l.name, std::string());
        QCOMPARE(labelsFor(base / "bench", base).name, std::string("tuned"));
        // Keys left empty keep what the file had.
        writeLabelsFile(base / "bench", Labels{"sys-B", "", "", "", std::nullopt, {}});
        QCOMPARE(readLabelsFile(base / "bench")->name, std::string("tuned"));
        QCOMPARE(readLabelsFile(base / "bench")->system, std::string("sys-B"));
        testsupport::writeText(base / "bench" / kLabelsFile, "{\"system\": 3}");
        std::string why;
        l = labelsFor(base / "bench" / "run-1", base, &why);
        QVERIFY2(why.find("system must be a string") != std::string::npos, why.c_str());
        QCOMPARE(l.system, std::string("sys-A"));
        testsupport::writeText(base / "bench" / kLabelsFile, "{\"sytem\": \"x\"}");
        bool refused = false;
        try {
            readLabelsFile(base / "bench");
        } catch (const trainio::InputError& e) {
            refused = std::string(e.what()).find("unknown key \"sytem\"") != std::string::npos;
        }
        QVERIFY(refused);
    }
};

QTEST_GUILESS_MAIN(TestIdentity)
#include "tst_identity.moc"
