// Aggregation against the published MLPerf Storage v1.0 reports (every one of them, read from disk and
// compared with what TrainIO computes from the runs beside it), the rule checks, the report writers
// the benchmark runner calls, the results library tree, and `trainio-cli aggregate`.
#include "testsupport.h"

#include "aggregate/group_aggregate.h"
#include "aggregate/results_import.h"
#include "aggregate/results_library.h"
#include "util/errors.h"

#include <QJsonDocument>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

namespace fs = std::filesystem;
using namespace trainio::aggregate;
using nlohmann::json;

namespace {

fs::path mlperfFixtures() { return testsupport::fixtures() / "mlperf-storage-v1.0"; }

std::vector<fs::path> reportFiles() {
    std::vector<fs::path> out;
    for (const auto& e : fs::recursive_directory_iterator(mlperfFixtures()))
        if (e.path().filename() == "mlperf_storage_report.json") out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

bool close(double a, double b, double rel = 1e-9) { return a == b || std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b)); }

const char* kFloatKeys[] = {"train_throughput_mean_samples_per_second", "train_throughput_stdev_samples_per_second",
                            "train_throughput_mean_MB_per_second", "train_throughput_stdev_MB_per_second"};

json summary(double sps, double au, std::int64_t acc = 2, std::int64_t files = 1000, double memGiB = 1.0) {
    return json{{"start", "2024-01-01T00:00:00"},
                {"num_accelerators", acc},
                {"num_hosts", 1},
                {"hostname", "h"},
                {"metric",
                 {{"train_au_percentage", {au, au}},
                  {"train_au_mean_percentage", au},
                  {"train_au_meet_expectation", "success"},
                  {"train_au_stdev_percentage", 0.0},
                  {"train_throughput_samples_per_second", {sps * 0.9, sps * 1.1}},
                  {"train_throughput_mean_samples_per_second", sps},
                  {"train_throughput_stdev_samples_per_second", sps * 0.1},
                  {"train_io_mean_MB_per_second", sps * 2.0},
                  {"train_io_stdev_MB_per_second", sps * 0.2}}},
                {"num_files_train", files},
                {"num_files_eval", 0},
                {"num_samples_per_file", 1},
                {"host_memory_GB", {memGiB}},
                {"epochs", 2},
                {"end", "2024-01-01T01:00:00"}};
}

// record_length 2 MiB: 1000 files = ~1.95 GiB of data, enough for 5 × 0.25 GiB of memory.
void writeRun(const fs::path& dir, const json& s) {
    testsupport::writeText(dir / "summary.json", s.dump(4));
    testsupport::writeText(dir / "configs" / "overrides.yaml", "- workload=unet3d_a100\n");
    testsupport::writeText(dir / "configs" / "config.yaml",
                           "workload:\n  model: unet3d\n  dataset:\n    record_length: 2097152\n  metric:\n    au: 0.9\n");
}

void copyTree(const fs::path& from, const fs::path& to) {
    fs::create_directories(to);
    fs::copy(from, to, fs::copy_options::recursive);
    for (const auto& e : fs::recursive_directory_iterator(to)) // fixtures are read-only
        fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
}

bool anyContains(const std::vector<std::string>& v, const std::string& part) {
    return std::any_of(v.begin(), v.end(), [&](const std::string& s) { return s.find(part) != std::string::npos; });
}

} // namespace

class TestAggregate : public QObject {
    Q_OBJECT
private slots:
    void everyPublishedReportIsReproduced() {
        const auto reports = reportFiles();
        QCOMPARE(reports.size(), std::size_t(39));
        for (const auto& file : reports) {
            const json published = json::parse(testsupport::readText(file));
            const ImportResult imp = importResults({file.parent_path()});
            QVERIFY2(imp.skipped.empty(), file.c_str());
            QCOMPARE(imp.groups.size(), std::size_t(1));
            const RunGroup& g = imp.groups[0];
            const auto mine = mlperfReport(imp, g);
            const auto& po = published["overall"];
            const auto& mo = mine["overall"];
            for (const char* key : kFloatKeys) {
                QVERIFY2(close(mo[key].get<double>(), po[key].get<double>()),
                         qPrintable(QString("%1 %2: %3 vs %4").arg(file.c_str(), key).arg(mo[key].get<double>(), 0, 'g', 17).arg(po[key].get<double>(), 0, 'g', 17)));
            }
            QCOMPARE(mo["model"].dump(), po["model"].dump());
            QCOMPARE(mo["accelerator"].dump(), po["accelerator"].dump());
            QCOMPARE(mo["num_benchmark_runs"].dump(), po["num_benchmark_runs"].dump());
            QCOMPARE(mo["train_num_accelerators"].dump(), po["train_num_accelerators"].dump()); // a string in both
            QCOMPARE(mo["num_files_train"].dump(), po["num_files_train"].dump());
            QCOMPARE(mo["num_samples_per_file"].dump(), po["num_samples_per_file"].dump());
            // Same keys in the same order as the generator writes them.
            std::vector<std::string> myKeys, theirKeys;
            for (const auto& [k, v] : mo.items()) myKeys.push_back(k);
            for (const auto& [k, v] : po.items()) theirKeys.push_back(k);
            // nlohmann::json sorts keys, so compare the file's own key order by scanning the text.
            const std::string text = testsupport::readText(file);
            std::vector<std::pair<std::size_t, std::string>> pos;
            for (const auto& k : myKeys) pos.emplace_back(text.find("\"" + k + "\""), k);
            QVERIFY(std::is_sorted(pos.begin(), pos.end()));
            std::sort(myKeys.begin(), myKeys.end());
            QCOMPARE(myKeys, theirKeys);
            // Per-run values too, keyed by run folder name.
            for (const auto& [run, values] : published["runs"].items()) {
                QVERIFY2(mine["runs"].contains(run), run.c_str());
                QVERIFY(close(mine["runs"][run]["train_throughput_samples_per_second"].get<double>(),
                              values["train_throughput_samples_per_second"].get<double>()));
                QVERIFY(close(mine["runs"][run]["train_throughput_MB_per_second"].get<double>(),
                              values["train_throughput_MB_per_second"].get<double>()));
            }
            // The aggregate sees the report and finds it consistent.
            QVERIFY(g.existingReport);
            const GroupAggregate a = aggregateGroup(imp, g);
            QVERIFY(a.reportAgrees.has_value() && *a.reportAgrees);
            QVERIFY(!anyContains(a.checks, "mlperf_storage_report.json"));
            QVERIFY(close(a.samplesPerSecond.mean.value, po["train_throughput_mean_samples_per_second"].get<double>()));
            QVERIFY(close(a.mibPerSecond.populationStdev.value, po["train_throughput_stdev_MB_per_second"].get<double>()));
        }
    }

    void wholeTreeInOneCallMatchesEveryReport() {
        const ImportResult imp = importResults({mlperfFixtures()});
        QCOMPARE(imp.groups.size(), std::size_t(39));
        std::set<fs::path> matched;
        for (const auto& g : imp.groups) {
            QVERIFY(g.existingReport);
            const json published = json::parse(testsupport::readText(*g.existingReport));
            const GroupAggregate a = aggregateGroup(imp, g);
            QVERIFY(close(a.samplesPerSecond.mean.value, published["overall"]["train_throughput_mean_samples_per_second"].get<double>()));
            QVERIFY(close(a.mibPerSecond.mean.value, published["overall"]["train_throughput_mean_MB_per_second"].get<double>()));
            QVERIFY(*a.reportAgrees);
            matched.insert(*g.existingReport);
        }
        QCOMPARE(matched.size(), std::size_t(39));
    }

    void disagreeingReportIsFlagged() {
        QTemporaryDir tmp;
        const fs::path dir = fs::path(tmp.path().toStdString()) / "unet3d_h100";
        copyTree(mlperfFixtures() / "Closed/HPE/results/Cray_C500_4xHDR200_3hosts/unet3d_h100", dir);
        json report = json::parse(testsupport::readText(dir / "mlperf_storage_report.json"));
        report["overall"]["train_throughput_mean_samples_per_second"] = 60.0;
        report["overall"]["train_num_accelerators"] = "4";
        testsupport::writeText(dir / "mlperf_storage_report.json", report.dump(4));
        const ImportResult imp = importResults({dir});
        const GroupAggregate a = aggregateGroup(imp, imp.groups[0]);
        QVERIFY(a.reportAgrees && !*a.reportAgrees);
        QVERIFY(anyContains(a.checks, "train_throughput_mean_samples_per_second = 60"));
        QVERIFY(anyContains(a.checks, "train_num_accelerators"));
        // Unreadable report: said so, not a crash.
        testsupport::writeText(dir / "mlperf_storage_report.json", "{\"overall\": ");
        const ImportResult imp2 = importResults({dir});
        QVERIFY(anyContains(checkRules(imp2, imp2.groups[0]), "could not be read"));
    }

    void ruleViolationsAreSentences() {
        QTemporaryDir tmp;
        const fs::path dir = fs::path(tmp.path().toStdString()) / "bench";
        writeRun(dir / "run1", summary(100, 95));
        writeRun(dir / "run2", summary(100, 85.5)); // below 90 %
        writeRun(dir / "run3", summary(100, 95, 2, 1000, 64.0)); // 64 GiB clients, ~2 GiB dataset
        writeRun(dir / "run4", summary(100, 95));
        writeRun(dir / "run5", summary(100, 95, 4)); // different accelerators
        const ImportResult imp = importResults({dir});
        QCOMPARE(imp.groups.size(), std::size_t(2));
        const RunGroup& main = imp.groups[0].runs.size() == 4 ? imp.groups[0] : imp.groups[1];
        const auto checks = checkRules(imp, main);
        QVERIFY(anyContains(checks, "4 measured runs; MLPerf Storage requires exactly 5"));
        QVERIFY(anyContains(checks, "Run run2: accelerator utilization 85.50 % is below the 90 % threshold"));
        QVERIFY(anyContains(checks, "In run run3 the dataset"));
        QVERIFY(anyContains(checks, "5 × the clients' total memory (64.0 GiB"));
        QVERIFY(anyContains(checks, "4 accelerators"));
        for (const auto& c : checks) QVERIFY2(c.back() == '.', c.c_str());
        // A clean benchmark has none.
        QTemporaryDir tmp2;
        const fs::path ok = fs::path(tmp2.path().toStdString()) / "ok";
        for (int i = 1; i <= 5; ++i) writeRun(ok / ("run" + std::to_string(i)), summary(100 + i, 95, 2, 1000, 0.25));
        const ImportResult imp2 = importResults({ok});
        QVERIFY(checkRules(imp2, imp2.groups[0]).empty());
    }

    void statisticsOfAGroup() {
        QTemporaryDir tmp;
        const fs::path dir = fs::path(tmp.path().toStdString()) / "b";
        const std::vector<double> sps{100, 102, 98, 101, 99};
        for (std::size_t i = 0; i < sps.size(); ++i) writeRun(dir / ("run" + std::to_string(i + 1)), summary(sps[i], 95));
        const ImportResult imp = importResults({dir});
        const GroupAggregate a = aggregateGroup(imp, imp.groups[0], Reduction::Median);
        QCOMPARE(a.samplesPerSecond.values, sps);
        QCOMPARE(a.samplesPerSecond.mean.value, 100.0);
        QCOMPARE(a.samplesPerSecond.populationStdev.value, std::sqrt(2.0));
        QCOMPARE(a.samplesPerSecond.reduced.value, 100.0);
        QVERIFY(a.samplesPerSecond.reduced.rule.find("median") != std::string::npos);
        QCOMPARE(a.mibPerSecond.mean.value, 200.0);
        const double half = studentTQuantile(0.975, 4) * std::sqrt(2.5) / std::sqrt(5.0);
        QVERIFY(std::fabs(a.samplesPerSecond.ci95.high - (100.0 + half)) < 1e-9);
        // Per epoch: epoch 1 ran at 0.9 × and epoch 2 at 1.1 × each run's mean.
        QCOMPARE(a.perEpoch.size(), std::size_t(2));
        QVERIFY(std::fabs(a.perEpoch[0].samplesPerSecond.mean.value - 90.0) < 1e-9);
        QVERIFY(std::fabs(a.perEpoch[1].mibPerSecond.mean.value - 220.0) < 1e-9);
    }

    void writesTheBenchmarkFiles() {
        // A TrainIO benchmark folder: warmup/ apart, runs/run-N measured, copied from a published result.
        QTemporaryDir tmp;
        const fs::path bench = fs::path(tmp.path().toStdString()) / "bench";
        const fs::path src = mlperfFixtures() / "Closed/Micron/results/Micron_9550_Gen5_Performance_NVMe/unet3d/h100";
        for (int i = 1; i <= 5; ++i)
            copyTree(src / "runs" / ("run" + std::to_string(i)), bench / "runs" / ("run-" + std::to_string(i)));
        json warm = json::parse(testsupport::readText(src / "runs/run1/summary.json"));
        warm["metric"]["train_throughput_mean_samples_per_second"] = 1.0; // would drag the mean if counted
        copyTree(src / "runs/run1/configs", bench / "warmup" / "configs");
        testsupport::writeText(bench / "warmup" / "summary.json", warm.dump(4));

        const fs::path report = writeMlperfReport(bench / "runs");
        QCOMPARE(report, bench / "runs" / "mlperf_storage_report.json");
        const json mine = json::parse(testsupport::readText(report));
        const json published = json::parse(testsupport::readText(src / "mlperf_storage_report.json"));
        for (const char* key : kFloatKeys)
            QVERIFY2(close(mine["overall"][key].get<double>(), published["overall"][key].get<double>()), key);
        QCOMPARE(mine["overall"]["train_num_accelerators"].dump(), published["overall"]["train_num_accelerators"].dump());
        QVERIFY(mine["runs"].contains("run-3"));
        for (const auto& e : fs::directory_iterator(bench / "runs")) // no temporary left behind
            QVERIFY2(e.path().filename().string().find(".tmp") == std::string::npos, e.path().c_str());

        const fs::path agg = writeAggregateJson(bench);
        QCOMPARE(agg, bench / "aggregate.json");
        const json a = json::parse(testsupport::readText(agg));
        QCOMPARE(a["groups"].size(), std::size_t(1));
        const json& g = a["groups"][0];
        QCOMPARE(g["num_runs"].get<int>(), 5);
        QCOMPARE(g["warmup"].size(), std::size_t(1));
        QCOMPARE(g["warmup"][0]["warmup"].get<bool>(), true);
        QVERIFY(close(g["train_throughput_mean_samples_per_second"].get<double>(),
                      published["overall"]["train_throughput_mean_samples_per_second"].get<double>()));
        // The report just written sits beside the runs and agrees with them.
        QCOMPARE(g["mlperf_storage_report"]["agrees"].get<bool>(), true);
    }

    void reportWriterRefusesWhatTheGeneratorRefuses() {
        QTemporaryDir tmp;
        const fs::path empty = fs::path(tmp.path().toStdString()) / "empty";
        fs::create_directories(empty);
        QVERIFY_THROWS_EXCEPTION(trainio::InputError, writeMlperfReport(empty));
        const fs::path mixed = fs::path(tmp.path().toStdString()) / "mixed";
        writeRun(mixed / "run1", summary(100, 95, 2));
        writeRun(mixed / "run2", summary(100, 95, 3));
        QVERIFY_THROWS_EXCEPTION(trainio::InputError, writeMlperfReport(mixed));
        QVERIFY(!fs::exists(mixed / "mlperf_storage_report.json"));
    }

    void libraryTree() {
        const ImportResult imp = importResults({mlperfFixtures()});
        std::set<std::string> systems;
        for (const auto& g : imp.groups) systems.insert(g.system);
        const ResultsLibrary lib(imp);
        const LibraryNode& root = lib.root();
        QCOMPARE(root.children.size(), systems.size());
        std::size_t benchmarks = 0, invocations = 0, epochs = 0, violations = 0;
        std::function<void(const LibraryNode&)> walk = [&](const LibraryNode& n) {
            for (std::size_t i = 0; i < n.children.size(); ++i) {
                const LibraryNode& c = *n.children[i];
                QCOMPARE(c.parent, &n);
                QCOMPARE(c.row(), static_cast<int>(i));
                QCOMPARE(static_cast<int>(c.kind), static_cast<int>(n.kind) + 1);
                walk(c);
            }
            switch (n.kind) {
            case NodeKind::Benchmark: {
                ++benchmarks;
                const GroupAggregate& a = lib.aggregate(*n.group);
                QCOMPARE(n.samplesPerSecond.mean, a.samplesPerSecond.mean.value);
                QCOMPARE(n.mibPerSecond.stdev, a.mibPerSecond.populationStdev.value);
                QCOMPARE(n.au.n, std::size_t(5));
                QCOMPARE(n.badge.violations, a.checks.size());
                QCOMPARE(n.badge.passed, a.checks.empty());
                violations += a.checks.size();
                break;
            }
            case NodeKind::Invocation: {
                ++invocations;
                const InvocationRecord& r = imp.runs[*n.run];
                QCOMPARE(n.samplesPerSecond.mean, r.samplesPerSecond);
                QCOMPARE(n.children.size(), r.epochAuPercent.size());
                break;
            }
            case NodeKind::Epoch: ++epochs; break;
            case NodeKind::Workload:
            case NodeKind::System:
                // Issue 9: no mean across benchmarks of different accelerator counts or across
                // workloads — these levels carry no numbers (tst_library_tree.cpp has the rest).
                QVERIFY(!n.hasMetrics);
                QCOMPARE(n.samplesPerSecond.n, std::size_t(0));
                break;
            default: break;
            }
        };
        walk(root);
        QCOMPARE(benchmarks, std::size_t(39));
        QCOMPARE(invocations, std::size_t(195));
        std::size_t expectedEpochs = 0;
        for (const auto& r : imp.runs) expectedEpochs += r.epochAuPercent.size();
        QCOMPARE(epochs, expectedEpochs);
        QCOMPARE(root.badge.violations, violations);
    }

    void cliAggregate() {
        const QString dir = QString::fromStdString(mlperfFixtures().string());
        auto r = testsupport::runCli({"aggregate", dir, "--format", "json"});
        QCOMPARE(r.exitCode, 0);
        const json out = json::parse(r.out.toStdString());
        QCOMPARE(out["groups"].size(), std::size_t(39));
        QVERIFY(out["skipped"].empty());
        for (const auto& g : out["groups"]) {
            for (const char* key : {"path", "model", "accelerator", "num_runs", "train_num_accelerators", "num_files_train",
                                    "num_samples_per_file", "train_throughput_mean_samples_per_second",
                                    "train_throughput_stdev_samples_per_second", "train_throughput_mean_MB_per_second",
                                    "train_throughput_stdev_MB_per_second", "train_au_mean_percentage", "ci95", "checks", "runs"})
                QVERIFY2(g.contains(key), key);
            QVERIFY(g["train_num_accelerators"].is_number());
            QVERIFY(g["ci95"]["train_throughput_samples_per_second"]["low"].is_number());
            QCOMPARE(g["runs"].size(), std::size_t(5));
            QVERIFY(g["runs"][0].contains("path"));
            const fs::path report = g["mlperf_storage_report"]["path"].get<std::string>();
            const json published = json::parse(testsupport::readText(report));
            for (const char* key : kFloatKeys)
                QVERIFY(close(g[key].get<double>(), published["overall"][key].get<double>()));
        }
        auto table = testsupport::runCli({"aggregate", dir, "--format", "table", "--reduce", "median"});
        QCOMPARE(table.exitCode, 0);
        QVERIFY(table.out.contains("samples/s (median)"));
        int expectedRows = 0, rows = 0;
        for (const auto& g : out["groups"]) expectedRows += g["model"] == "unet3d" && g["accelerator"] == "h100";
        for (const QString& line : table.out.split('\n')) rows += line.startsWith("unet3d_h100 ");
        QVERIFY(expectedRows > 0);
        QCOMPARE(rows, expectedRows);
        auto csv = testsupport::runCli({"aggregate", dir, "--format", "csv"});
        QCOMPARE(csv.exitCode, 0);
        QCOMPARE(csv.out.trimmed().split('\n').size(), 40);
        // Bad input is exit 2 with a message.
        QCOMPARE(testsupport::runCli({"aggregate", dir, "--format", "xml"}).exitCode, 2);
        QCOMPARE(testsupport::runCli({"aggregate", dir, "--reduce", "avg"}).exitCode, 2);
        QCOMPARE(testsupport::runCli({"aggregate", "/nonexistent/results"}).exitCode, 2);
        QCOMPARE(testsupport::runCli({"aggregate"}).exitCode, 2);
        auto help = testsupport::runCli({"aggregate", "--help"});
        QCOMPARE(help.exitCode, 0);
        QVERIFY(help.out.contains("--reduce"));
    }

    void cliListsSkippedFiles() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        writeRun(dir / "run1", summary(100, 95));
        testsupport::writeText(dir / "run2" / "summary.json", std::string(100000, '['));
        auto r = testsupport::runCli({"aggregate", QString::fromStdString(dir.string())});
        QCOMPARE(r.exitCode, 0);
        const json out = json::parse(r.out.toStdString());
        QCOMPARE(out["groups"].size(), std::size_t(1));
        QCOMPARE(out["skipped"].size(), std::size_t(1));
        QCOMPARE(out["skipped"][0]["path"].get<std::string>(), (dir / "run2" / "summary.json").string());
        QVERIFY(out["skipped"][0]["reason"].get<std::string>().find("nested") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestAggregate)
#include "tst_aggregate.moc"
