// The results library's hierarchy: numbers only where an aggregate means something (benchmarks over
// their complete runs, invocations over their epochs; never at system or workload level), run-once
// invocations as single items under their workload, excluded (failed/cancelled) invocations shown with
// their reason and counted in no statistic, the best passing benchmark per workload, worst-status
// badges, item names, path lookup and the tree JSON. First on a hand-built import (every expectation
// computed here), then on the published MLPerf Storage v1.0 tree.
#include "testsupport.h"

#include "aggregate/results_import.h"
#include "aggregate/results_library.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <functional>
#include <set>

namespace fs = std::filesystem;
using namespace trainio::aggregate;

namespace {

constexpr double kThreshold = 90.0;

struct Built {
    ImportResult imp;
    fs::path root;
};

// One invocation: two epochs at au ± 1 and sps ± 1, MiB/s = samples/s × 140 (140 MiB per sample).
std::size_t addRun(ImportResult& imp, const fs::path& dir, const std::string& workload, std::int64_t accelerators,
                   double au, double sps, InvocationStatus status = InvocationStatus::Complete, bool warmup = false) {
    fs::create_directories(dir);
    InvocationRecord r;
    r.path = dir;
    r.canonicalPath = dir;
    r.runName = dir.filename().string();
    r.model = workload.substr(0, workload.find('_'));
    r.accelerator = workload.substr(workload.find('_') + 1);
    r.accelerators = accelerators;
    r.numHosts = 1;
    r.filesTrain = 1000;
    r.samplesPerFile = 1;
    r.epochs = 2;
    r.epochAuPercent = {au - 1.0, au + 1.0};
    r.epochSamplesPerSecond = {sps - 1.0, sps + 1.0};
    r.auMeanPercent = au;
    r.samplesPerSecond = sps;
    r.mbPerSecond = sps * 140.0;
    r.auMeetExpectation = au >= kThreshold ? "success" : "fail";
    r.auThresholdPercent = kThreshold;
    r.auThresholdSource = "test";
    r.warmup = warmup;
    r.status = status;
    if (status == InvocationStatus::Failed) r.statusReason = "write error: No space left on device";
    if (status == InvocationStatus::Cancelled) r.statusReason = "stopped by the user";
    r.workloadKey = "workload:" + workload;
    r.benchmarkKey = r.workloadKey + "|" + std::to_string(accelerators);
    r.workloadTitle = workload + " · npz · 140 MiB/sample";
    imp.runs.push_back(std::move(r));
    return imp.runs.size() - 1;
}

RunGroup group(const ImportResult& imp, const fs::path& path, std::size_t firstRun, GroupKind kind) {
    const InvocationRecord& r = imp.runs[firstRun];
    RunGroup g;
    g.path = path;
    g.identity = WorkloadIdentity{r.model, r.accelerator, r.accelerators, r.filesTrain, r.samplesPerFile, r.workloadKey, r.benchmarkKey};
    g.system = "lab-nvme-01";
    g.systemDescription = "ext4 on 1x NVMe, noatime; 1 client";
    g.kind = kind;
    return g;
}

// A benchmark of five complete runs (AU au+{0,1,2,0,1}, samples/s sps+{0,1,2,0,1}) in dir/runs/run-N.
RunGroup benchmark(ImportResult& imp, const fs::path& dir, const std::string& workload, std::int64_t acc, double au, double sps) {
    const double step[] = {0, 1, 2, 0, 1};
    std::vector<std::size_t> runs;
    for (int i = 0; i < 5; ++i)
        runs.push_back(addRun(imp, dir / "runs" / ("run-" + std::to_string(i + 1)), workload, acc, au + step[i], sps + step[i]));
    RunGroup g = group(imp, dir / "runs", runs.front(), GroupKind::Folder);
    g.runs = runs;
    g.plannedRuns = 5;
    return g;
}

Built build(const fs::path& root) {
    Built b;
    b.root = root;
    ImportResult& imp = b.imp;
    // 0: unet3d, 2 accelerators, passes.
    imp.groups.push_back(benchmark(imp, root / "u2", "unet3d_h100", 2, 95, 10));
    // 1: unet3d, 4 accelerators, passes, with a warm-up (not counted).
    RunGroup g1 = benchmark(imp, root / "u4", "unet3d_h100", 4, 92, 20);
    g1.warmups.push_back(addRun(imp, root / "u4" / "warmup", "unet3d_h100", 4, 10, 1, InvocationStatus::Complete, true));
    imp.groups.push_back(g1);
    // 2: unet3d, 8 accelerators, a TrainIO benchmark with a failed and a cancelled run: incomplete.
    RunGroup g2 = benchmark(imp, root / "u8", "unet3d_h100", 8, 91, 40);
    g2.kind = GroupKind::Manifest;
    g2.path = root / "u8";
    g2.excluded.push_back(addRun(imp, root / "u8" / "runs" / "run-6", "unet3d_h100", 8, 0, 0, InvocationStatus::Failed));
    g2.excluded.push_back(addRun(imp, root / "u8" / "runs" / "run-7", "unet3d_h100", 8, 20, 5, InvocationStatus::Cancelled));
    g2.plannedRuns = 7;
    g2.status = InvocationStatus::Incomplete;
    g2.statusReason = "5 of 7 planned runs complete";
    imp.groups.push_back(g2);
    // 3: a run-once invocation (complete).
    const std::size_t once = addRun(imp, root / "once", "unet3d_h100", 4, 96, 22);
    RunGroup g3 = group(imp, root / "once", once, GroupKind::Single);
    g3.runs = {once};
    imp.groups.push_back(g3);
    // 4: another 4-accelerator unet3d benchmark, faster than 1: the tie goes to the higher GiB/s.
    RunGroup g4 = benchmark(imp, root / "u4b", "unet3d_h100", 4, 93, 21);
    g4.labels.name = "tuned readers";
    imp.groups.push_back(g4);
    // 5: a run-once invocation that failed.
    const std::size_t onceFailed = addRun(imp, root / "once-failed", "unet3d_h100", 4, 0, 0, InvocationStatus::Failed);
    RunGroup g5 = group(imp, root / "once-failed", onceFailed, GroupKind::Single);
    g5.excluded = {onceFailed};
    g5.status = InvocationStatus::Failed;
    imp.groups.push_back(g5);
    // 6: resnet50, below the AU threshold: fails, so its workload has no best passing benchmark.
    imp.groups.push_back(benchmark(imp, root / "r4", "resnet50_h100", 4, 80, 3000));
    return b;
}

const LibraryNode* childLabelled(const LibraryNode& n, const std::string& label) {
    for (const auto& c : n.children)
        if (c->label == label) return c.get();
    return nullptr;
}

bool near(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b)); }

} // namespace

class TestLibraryTree : public QObject {
    Q_OBJECT
private slots:
    void hierarchyOnHandBuiltImport() {
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString());
        const ResultsLibrary lib(build(root).imp);
        const LibraryNode& top = lib.root();
        QVERIFY(!top.hasMetrics);
        QCOMPARE(top.children.size(), std::size_t(1));
        const LibraryNode& sys = *top.children[0];
        QCOMPARE(sys.kind, NodeKind::System);
        QCOMPARE(sys.label, std::string("lab-nvme-01"));
        QCOMPARE(sys.description, std::string("ext4 on 1x NVMe, noatime; 1 client"));
        QVERIFY(!sys.hasMetrics);
        QCOMPARE(sys.au.n, std::size_t(0)); // nothing averaged across workloads
        QCOMPARE(sys.children.size(), std::size_t(2));

        const LibraryNode* unet = childLabelled(sys, "unet3d_h100 · npz · 140 MiB/sample");
        const LibraryNode* resnet = childLabelled(sys, "resnet50_h100 · npz · 140 MiB/sample");
        QVERIFY(unet && resnet);
        QVERIFY(!unet->hasMetrics);
        QCOMPARE(unet->samplesPerSecond.n, std::size_t(0)); // nothing averaged across accelerator counts
        QCOMPARE(unet->workloadKey, std::string("workload:unet3d_h100"));
        QCOMPARE(unet->children.size(), std::size_t(6)); // 4 benchmarks + 2 run-once invocations

        // Benchmark 0: the mean of its runs, by hand: AU (95+96+97+95+96)/5 = 95.8; samples/s 10.8;
        // GiB/s = 10.8 × 140 / 1024.
        const LibraryNode& b0 = *unet->children[0];
        QCOMPARE(b0.kind, NodeKind::Benchmark);
        QVERIFY(b0.hasMetrics);
        QVERIFY(near(b0.au.mean, 95.8));
        QVERIFY(near(b0.samplesPerSecond.mean, 10.8));
        QVERIFY(near(b0.readGibPerSecond.mean, 10.8 * 140.0 / 1024.0));
        QCOMPARE(b0.readGibPerSecond.values.size(), std::size_t(5));
        QVERIFY(near(b0.readGibPerSecond.values[2], 12.0 * 140.0 / 1024.0));
        QCOMPARE(b0.au.values, (std::vector<double>{95, 96, 97, 95, 96}));
        QCOMPARE(b0.accelerators, std::int64_t(2));
        QCOMPARE(b0.itemName, std::string("lab-nvme-01 · unet3d_h100 · 2 accelerators"));
        QCOMPARE(b0.status, InvocationStatus::Complete);

        // Benchmark 1: the warm-up is shown, marked, and not counted (n = 5, mean without its AU 10).
        const LibraryNode& b1 = *unet->children[1];
        QCOMPARE(b1.children.size(), std::size_t(6));
        QVERIFY(b1.children[0]->warmup);
        QCOMPARE(b1.au.n, std::size_t(5));
        QVERIFY(near(b1.au.mean, 92.8));

        // Benchmark 2: failed and cancelled runs are children, excluded, with their reason; the
        // statistics are over the 5 complete runs only (AU 91.8, not (459 + 0 + 20) / 7).
        const LibraryNode& b2 = *unet->children[2];
        QCOMPARE(b2.status, InvocationStatus::Incomplete);
        QCOMPARE(b2.statusReason, std::string("5 of 7 planned runs complete"));
        QCOMPARE(b2.children.size(), std::size_t(7));
        QCOMPARE(b2.au.n, std::size_t(5));
        QVERIFY(near(b2.au.mean, 91.8));
        QVERIFY(near(b2.samplesPerSecond.mean, 40.8));
        const LibraryNode* failed = childLabelled(b2, "run-6");
        const LibraryNode* cancelled = childLabelled(b2, "run-7");
        QVERIFY(failed && cancelled);
        QVERIFY(failed->excluded && cancelled->excluded);
        QVERIFY(!failed->hasMetrics && !cancelled->hasMetrics);
        QCOMPARE(failed->status, InvocationStatus::Failed);
        QCOMPARE(failed->statusReason, std::string("write error: No space left on device"));
        QCOMPARE(cancelled->status, InvocationStatus::Cancelled);
        QVERIFY(!b2.badge.passed); // an incomplete benchmark never passes

        // The run-once invocation is an item directly under its workload.
        const LibraryNode& once = *unet->children[3];
        QCOMPARE(once.kind, NodeKind::Invocation);
        QCOMPARE(once.parent, unet);
        QVERIFY(once.hasMetrics);
        QCOMPARE(once.au.mean, 96.0);                      // DLIO's headline
        QCOMPARE(once.au.values, (std::vector<double>{95, 97})); // the sample: its epochs
        QCOMPARE(once.itemName, std::string("lab-nvme-01 · unet3d_h100 · 4 accelerators · once"));
        QCOMPARE(once.children.size(), std::size_t(2)); // its epochs

        // A label's name replaces the default item name.
        QCOMPARE(unet->children[4]->itemName, std::string("tuned readers"));

        // The failed run-once invocation: excluded, and the workload's status is the worst below it.
        const LibraryNode& onceFailed = *unet->children[5];
        QVERIFY(onceFailed.excluded && !onceFailed.hasMetrics);
        QCOMPARE(unet->status, InvocationStatus::Failed);
        QCOMPARE(sys.status, InvocationStatus::Failed);
        QCOMPARE(top.status, InvocationStatus::Failed);
        QCOMPARE(resnet->status, InvocationStatus::Complete);

        // Best passing: the most accelerators among passing benchmarks (8 is incomplete, so 4), and of
        // the two with 4 the higher Read GiB/s (93/21 beats 92/20).
        QVERIFY(unet->bestPassing.has_value());
        QCOMPARE(*unet->bestPassing, std::size_t(4));
        QVERIFY(!resnet->bestPassing.has_value());
        QCOMPARE(unet->summary.size(), std::size_t(6));
        QVERIFY2(unet->summary[0].find("2 accelerators: AU 95.80 %") == 0, unet->summary[0].c_str());
        // Two benchmarks with 4 accelerators: their lines name them.
        QVERIFY2(unet->summary[1].find("4 accelerators (u4/runs): AU 92.80 %") == 0, unet->summary[1].c_str());
        QVERIFY2(unet->summary[4].find("4 accelerators (tuned readers): AU 93.80 %") == 0, unet->summary[4].c_str());
        QCOMPARE(sys.summary.size(), std::size_t(2));
        bool nonePasses = false;
        for (const auto& line : sys.summary) nonePasses = nonePasses || line.find("resnet50_h100 · npz · 140 MiB/sample — none passes") == 0;
        QVERIFY(nonePasses);

        QCOMPARE(lib.nodes(NodeKind::Benchmark).size(), std::size_t(5));
        QCOMPARE(lib.nodes(NodeKind::Workload).size(), std::size_t(2));
        QCOMPARE(lib.nodes(NodeKind::Invocation).size(), std::size_t(5 + 6 + 7 + 1 + 5 + 1 + 5));
    }

    // One word for one thing (issue 21): a benchmark the user cancelled is "cancelled", as its cancelled
    // invocation is — the import's "incomplete" (fewer complete runs than planned) says only that it is
    // short; with a failed run as well, or merely cut short, it stays "incomplete".
    void cancelledBenchmarkIsCancelled() {
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString());
        ImportResult imp;
        auto shortBenchmark = [&](const std::string& name, std::vector<InvocationStatus> stopped) {
            const std::size_t first = addRun(imp, root / name / "runs" / "run-1", "unet3d_h100", 2, 95, 10);
            RunGroup g = group(imp, root / name, first, GroupKind::Manifest);
            g.runs = {first};
            int n = 2;
            for (InvocationStatus s : stopped)
                g.excluded.push_back(addRun(imp, root / name / "runs" / ("run-" + std::to_string(n++)), "unet3d_h100", 2, 50, 5, s));
            g.plannedRuns = 5;
            g.status = InvocationStatus::Incomplete;
            g.statusReason = "1 of 5 planned runs complete";
            g.labels.name = name;
            imp.groups.push_back(g);
        };
        shortBenchmark("stopped", {InvocationStatus::Cancelled});
        shortBenchmark("stopped-and-failed", {InvocationStatus::Cancelled, InvocationStatus::Failed});
        shortBenchmark("cut-short", {});
        const ResultsLibrary lib(std::move(imp));
        const LibraryNode& unet = *lib.root().children.at(0)->children.at(0);
        const LibraryNode* stopped = childLabelled(unet, "stopped");
        const LibraryNode* both = childLabelled(unet, "stopped-and-failed");
        const LibraryNode* cut = childLabelled(unet, "cut-short");
        QVERIFY(stopped && both && cut);
        QCOMPARE(stopped->status, InvocationStatus::Cancelled);
        QCOMPARE(statusName(stopped->status), std::string("cancelled"));
        QCOMPARE(stopped->statusReason, std::string("1 of 5 planned runs complete")); // the count still said
        QCOMPARE(both->status, InvocationStatus::Incomplete);
        QCOMPARE(cut->status, InvocationStatus::Incomplete);
    }

    void findByPathAcceptsBenchmarkRunsAndInvocationFolders() {
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString());
        const ResultsLibrary lib(build(root).imp);
        const LibraryNode* viaFolder = lib.findByPath(root / "u2");           // imported tree: group folder is u2/runs
        const LibraryNode* viaRuns = lib.findByPath(root / "u2" / "runs");
        QVERIFY(viaFolder && viaFolder == viaRuns);
        QCOMPARE(viaFolder->kind, NodeKind::Benchmark);
        QCOMPARE(viaFolder->accelerators, std::int64_t(2));
        const LibraryNode* manifest = lib.findByPath(root / "u8" / "runs");   // manifest group: folder is u8
        QVERIFY(manifest && manifest->path == root / "u8");
        const LibraryNode* inv = lib.findByPath(root / "u2" / "runs" / "run-3");
        QVERIFY(inv && inv->kind == NodeKind::Invocation && inv->label == "run-3");
        // Spelled differently (a "." and a symlink), the same folder.
        fs::create_directory_symlink(root / "u4b", root / "link");
        const LibraryNode* viaLink = lib.findByPath(root / "link" / "." / "runs");
        QVERIFY(viaLink && viaLink->itemName == "tuned readers");
        QVERIFY(!lib.findByPath(root / "nowhere"));
        QCOMPARE(lib.itemsBelow(root).size(), std::size_t(7)); // 5 benchmarks + 2 run-once invocations
    }

    void treeJsonShape() {
        QTemporaryDir tmp;
        const ResultsLibrary lib(build(fs::path(tmp.path().toStdString())).imp);
        const auto j = treeJson(lib);
        QVERIFY(j.contains("tree"));
        QCOMPARE(j["tree"].size(), std::size_t(1));
        std::size_t nodes = 0;
        std::function<void(const nlohmann::ordered_json&)> check = [&](const nlohmann::ordered_json& n) {
            ++nodes;
            for (const char* key : {"level", "label", "item_name", "status", "status_reason", "workload_identity", "metrics", "children"})
                QVERIFY2(n.contains(key), key);
            const std::string level = n["level"];
            QVERIFY2(level == "system" || level == "workload" || level == "benchmark" || level == "invocation", level.c_str());
            QVERIFY(n["workload_identity"].is_string());
            if (level == "system" || level == "workload") QVERIFY2(n["metrics"].is_null(), level.c_str());
            if (!n["metrics"].is_null()) {
                for (const char* m : {"au_mean_percentage", "samples_per_second", "read_gib_per_second"})
                    for (const char* f : {"value", "stdev", "ci95", "n"}) QVERIFY2(n["metrics"][m].contains(f), f);
            }
            for (const auto& c : n["children"]) check(c);
        };
        check(j["tree"][0]);
        QCOMPARE(nodes, std::size_t(1 + 2 + 5 + 30)); // no epoch nodes
        const auto& b0 = j["tree"][0]["children"][0]["children"][0];
        QCOMPARE(b0["level"].get<std::string>(), std::string("benchmark"));
        QVERIFY(near(b0["metrics"]["au_mean_percentage"]["value"].get<double>(), 95.8));
        QCOMPARE(b0["metrics"]["samples_per_second"]["n"].get<int>(), 5);
        // The CI half width by hand: sample sd of {10,11,12,10,11} = sqrt(2.8/4); t(0.975, 4) = 2.776445.
        QVERIFY(std::fabs(b0["metrics"]["samples_per_second"]["ci95"].get<double>() - 2.776445 * std::sqrt(0.7 / 5)) < 1e-5);
        const auto& b2 = j["tree"][0]["children"][0]["children"][2];
        QCOMPARE(b2["status"].get<std::string>(), std::string("incomplete"));
        QCOMPARE(b2["children"][5]["status"].get<std::string>(), std::string("failed"));
        QVERIFY(b2["children"][5]["metrics"].is_null());
        QCOMPARE(j["tree"][0]["children"][0]["workload_identity"].get<std::string>(), std::string("workload:unet3d_h100"));
    }

    // The published v1.0 tree: whatever the importer groups, no system or workload node carries a
    // number, and every benchmark below a workload node shares its workload identity.
    void publishedTreeHasNoMixedAggregates() {
        const ImportResult imp = importResults({testsupport::fixtures() / "mlperf-storage-v1.0"});
        const ResultsLibrary lib(imp);
        QCOMPARE(lib.nodes(NodeKind::Benchmark).size(), std::size_t(39));
        for (const LibraryNode* n : lib.nodes(NodeKind::System)) {
            QVERIFY2(!n->hasMetrics && n->au.n == 0 && n->samplesPerSecond.n == 0, n->label.c_str());
            QCOMPARE(n->summary.size(), n->children.size()); // one line per workload
        }
        for (const LibraryNode* w : lib.nodes(NodeKind::Workload)) {
            QVERIFY2(!w->hasMetrics && w->au.n == 0, w->label.c_str());
            for (const auto& c : w->children) QCOMPARE(c->workloadKey, w->workloadKey);
        }
        // Cray_C500_4xHDR200_1host holds ResNet-50 and UNet3D: two workloads, never one number.
        const LibraryNode* cray = nullptr;
        for (const LibraryNode* n : lib.nodes(NodeKind::System))
            if (n->label == "Cray_C500_4xHDR200_1host") cray = n;
        QVERIFY(cray);
        QCOMPARE(cray->children.size(), std::size_t(2));
        // Its UNet3D benchmark: the published report says 5,549.42 MB/s (MiB/s) on average
        // (mlperf_storage_report.json overall.train_throughput_mean_MB_per_second): Read GiB/s = /1024.
        const LibraryNode* unet = lib.findByPath(testsupport::fixtures() / "mlperf-storage-v1.0/Closed/HPE/results/Cray_C500_4xHDR200_1host/unet3d_h100");
        QVERIFY(unet);
        const auto report = nlohmann::json::parse(testsupport::readText(
            testsupport::fixtures() / "mlperf-storage-v1.0/Closed/HPE/results/Cray_C500_4xHDR200_1host/unet3d_h100/mlperf_storage_report.json"));
        const double mib = report["overall"]["train_throughput_mean_MB_per_second"].get<double>();
        QVERIFY(std::fabs(unet->readGibPerSecond.mean - mib / 1024.0) <= 1e-9 * mib);
    }
};

QTEST_GUILESS_MAIN(TestLibraryTree)
#include "tst_library_tree.moc"
