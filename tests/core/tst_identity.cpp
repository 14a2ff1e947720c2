// Issue 9, items 1 and 3: what is one workload, what is one benchmark, and what each invocation is worth.
// Real TrainIO folders made by the CLI (run once, a benchmark with its manifest, a failed run through
// fault injection) and the published MLPerf Storage v1.0 / v3.0 results.
#include "testsupport.h"

#include "aggregate/identity.h"
#include "aggregate/labels.h"
#include "aggregate/results_import.h"
#include "aggregate/results_library.h"
#include "results/benchmark_manifest.h"
#include "util/errors.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

using namespace trainio::aggregate;
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
        const auto m = trainio::readBenchmarkManifest(bench);
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
        trainio::writeBenchmarkManifest(cut, m2);
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

    // MLPerf Storage v3.0: configs in dlio_config/, the system described by systems/<system>.yaml.
    void v3LayoutAndSystemYaml() {
        // SAMSUNG's training benchmark only (the tree also holds Alluxio's and the checkpointing sets: tst_import_v3).
        const fs::path tree = testsupport::fixtures() / "mlperf-storage-v3.0" / "closed" / "SAMSUNG" / "results" / "MEMORY_AE" / "training";
        const ImportResult r = importResults({tree});
        QCOMPARE(r.groups.size(), std::size_t(1));
        const RunGroup& g = r.groups[0];
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
        writeLabelsFile(base, Labels{"sys-A", "Lustre, 4 OSS, HDR200", "", "top", std::nullopt});
        writeLabelsFile(base / "bench", Labels{"", "", "after tuning", "tuned", std::nullopt});
        Labels l = labelsFor(base / "bench" / "run-1", base);
        QCOMPARE(l.system, std::string("sys-A"));
        QCOMPARE(l.description, std::string("Lustre, 4 OSS, HDR200"));
        QCOMPARE(l.notes, std::string("after tuning"));
        QCOMPARE(l.name, std::string());
        QCOMPARE(labelsFor(base / "bench", base).name, std::string("tuned"));
        // Keys left empty keep what the file had.
        writeLabelsFile(base / "bench", Labels{"sys-B", "", "", "", std::nullopt});
        QCOMPARE(readLabelsFile(base / "bench")->name, std::string("tuned"));
        QCOMPARE(readLabelsFile(base / "bench")->system, std::string("sys-B"));
        testsupport::writeText(base / "bench" / kLabelsFileName, "{\"system\": 3}");
        std::string why;
        l = labelsFor(base / "bench" / "run-1", base, &why);
        QVERIFY2(why.find("system must be a string") != std::string::npos, why.c_str());
        QCOMPARE(l.system, std::string("sys-A"));
        testsupport::writeText(base / "bench" / kLabelsFileName, "{\"sytem\": \"x\"}");
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
