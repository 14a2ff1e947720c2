// Discovery and import: the published MLPerf Storage v1.0 fixture tree, the layout quirks seen in the
// wild, TrainIO's own benchmark layout, and hostile files that must be skipped with a reason.
#include "testsupport.h"

#include "aggregate/results_import.h"
#include "config/config_loader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <set>

namespace fs = std::filesystem;
using namespace trainio::aggregate;
using nlohmann::json;

namespace {

fs::path mlperfFixtures() { return testsupport::fixtures() / "mlperf-storage-v1.0"; }

json summary(double sps, double au = 95.0, json accelerators = 2, std::int64_t files = 1000, std::int64_t spf = 1) {
    return json{{"start", "2024-08-21T04:23:00.990348"},
                {"num_accelerators", accelerators},
                {"num_hosts", 1},
                {"hostname", "h"},
                {"metric",
                 {{"train_au_percentage", {au, au}},
                  {"train_au_mean_percentage", au},
                  {"train_au_meet_expectation", au >= 90 ? "success" : "fail"},
                  {"train_au_stdev_percentage", 0.0},
                  {"train_throughput_samples_per_second", {sps, sps}},
                  {"train_throughput_mean_samples_per_second", sps},
                  {"train_throughput_stdev_samples_per_second", 0.0},
                  {"train_io_mean_MB_per_second", sps * 2.0},
                  {"train_io_stdev_MB_per_second", 0.0}}},
                {"num_files_train", files},
                {"num_files_eval", 0},
                {"num_samples_per_file", spf},
                {"host_memory_GB", {16.0}},
                {"epochs", 2},
                {"end", "2024-08-21T05:02:59.449583"}};
}

void writeRun(const fs::path& dir, const json& s, const std::string& workload = "unet3d_h100",
              const std::string& config = "workload:\n  model: unet3d\n  dataset:\n    record_length: 2097152\n  metric:\n    au: 0.9\n") {
    testsupport::writeText(dir / "summary.json", s.dump(4));
    if (!workload.empty()) testsupport::writeText(dir / "configs" / "overrides.yaml", "- workload=" + workload + "\n- ++workload.workflow.train=True\n");
    if (!config.empty()) testsupport::writeText(dir / "configs" / "config.yaml", config);
}

const SkippedFile* skippedFor(const ImportResult& r, const fs::path& p) {
    for (const auto& s : r.skipped)
        if (s.path.lexically_normal() == p.lexically_normal()) return &s;
    return nullptr;
}

} // namespace

class TestImport : public QObject {
    Q_OBJECT
private slots:
    void fixtureTreeImportsIntoItsGroups() {
        const ImportResult r = importResults({mlperfFixtures()});
        QCOMPARE(r.skipped.size(), std::size_t(0));
        // One group per published report, each holding the runs found beside it.
        std::set<fs::path> reportDirs;
        for (const auto& e : fs::recursive_directory_iterator(mlperfFixtures()))
            if (e.path().filename() == "mlperf_storage_report.json") reportDirs.insert(e.path().parent_path());
        QCOMPARE(reportDirs.size(), std::size_t(39));
        QCOMPARE(r.groups.size(), reportDirs.size());
        QCOMPARE(r.summariesFound, std::size_t(195));
        QCOMPARE(r.runs.size(), std::size_t(195));
        for (const auto& g : r.groups) {
            QVERIFY2(g.existingReport.has_value(), qPrintable(QString::fromStdString(g.path.string())));
            QVERIFY(reportDirs.count(g.existingReport->parent_path()));
            QVERIFY(g.warmups.empty());
            QVERIFY(!g.identity.model.empty() && !g.identity.accelerator.empty());
            QVERIFY(g.identity.accelerators > 0);
            QVERIFY(!g.system.empty());
        }
    }

    void systemsComeFromSystemsFolder() {
        const ImportResult r = importResults({mlperfFixtures()});
        std::size_t withFile = 0;
        for (const auto& g : r.groups) {
            // <org>/results/<system>/… : the system is the folder under results/.
            const std::string p = g.path.generic_string();
            QVERIFY(p.find("/results/" + g.system) != std::string::npos);
            if (g.systemFile) {
                ++withFile;
                QCOMPARE(g.systemFile->stem().string(), g.system);
                QCOMPARE(g.systemFile->parent_path().filename().string(), std::string("systems"));
            }
        }
        QVERIFY(withFile > 0);
    }

    void runsCarryConfigAndMemory() {
        const fs::path dir = mlperfFixtures() / "Closed/HPE/results/Cray_C500_4xHDR200_3hosts/unet3d_h100";
        const ImportResult r = importResults({dir});
        QCOMPARE(r.groups.size(), std::size_t(1));
        QCOMPARE(r.groups[0].runs.size(), std::size_t(5));
        const InvocationRecord& run = r.runs[r.groups[0].runs[0]];
        QCOMPARE(run.runName, std::string("run-1"));
        QCOMPARE(run.model, std::string("unet3d"));
        QCOMPARE(run.accelerator, std::string("h100"));
        QCOMPARE(run.accelerators, std::int64_t(3));
        QVERIFY(run.recordLengthBytes && *run.recordLengthBytes == 146600628.0);
        QVERIFY(run.auThresholdPercent && std::fabs(*run.auThresholdPercent - 90.0) < 1e-9);
        QCOMPARE(run.epochAuPercent.size(), std::size_t(5));
        // host_memory_GB has one slot per host here: three hosts of ~125 GiB.
        QVERIFY(std::fabs(run.hostMemoryGiB - (125.37533187866211 + 125.37532806396484 + 125.37533187866211)) < 1e-9);
    }

    void quirksAreTolerated() {
        QTemporaryDir tmp;
        const fs::path root = tmp.path().toStdString();
        // train accelerators as a string, record_length_bytes, a doubled/zero host_memory_GB, timestamp run folders.
        json s = summary(100.0, 95.0, "4");
        s["host_memory_GB"] = {64.0, 0.0, 0.0};
        writeRun(root / "bench" / "2024-08-29-09-29-27", s, "resnet50_a100",
                 "model: resnet50\ndataset:\n  record_length_bytes: 114660\nmetric:\n  au: 0.9  # pass threshold\n");
        writeRun(root / "bench" / "2024-08-29-10-29-27", summary(110.0, 95.0, 4), "resnet50_a100",
                 "model: resnet50\ndataset:\n  record_length_bytes: 114660\n");
        // model only from config.yaml (no overrides.yaml): accelerator unknown.
        writeRun(root / "other" / "run_1", summary(50.0), "", "workload:\n  model: cosmoflow\n");
        // noise: generation logs, configs without a summary
        testsupport::writeText(root / "bench" / "generation_logs" / "storage-conf" / "config.yaml", "x: 1\n");
        const ImportResult r = importResults({root});
        QCOMPARE(r.skipped.size(), std::size_t(0));
        QCOMPARE(r.groups.size(), std::size_t(2));
        const RunGroup& bench = r.groups[0].path.filename() == "bench" ? r.groups[0] : r.groups[1];
        QCOMPARE(bench.runs.size(), std::size_t(2));
        QCOMPARE(bench.identity.accelerators, std::int64_t(4));
        QCOMPARE(bench.identity.model, std::string("resnet50"));
        QCOMPARE(bench.identity.accelerator, std::string("a100"));
        const InvocationRecord& first = r.runs[bench.runs[0]];
        QCOMPARE(first.runName, std::string("2024-08-29-09-29-27"));
        QVERIFY(first.recordLengthBytes && *first.recordLengthBytes == 114660.0);
        QCOMPARE(first.hostMemoryGiB, 64.0);
        QVERIFY(std::any_of(first.notes.begin(), first.notes.end(), [](const std::string& n) { return n.find("string") != std::string::npos; }));
        const RunGroup& other = &bench == &r.groups[0] ? r.groups[1] : r.groups[0];
        QCOMPARE(other.identity.model, std::string("cosmoflow"));
        QCOMPARE(other.identity.accelerator, std::string());
        // The second run has no metric.au: the workload's published threshold applies, and says so.
        const InvocationRecord& second = r.runs[bench.runs[1]];
        QVERIFY(second.auThresholdPercent && *second.auThresholdPercent == 90.0);
        QVERIFY(second.auThresholdSource.find("MLPerf") != std::string::npos);
    }

    void hostFoldersMergeIntoTheirRun() {
        QTemporaryDir tmp;
        const fs::path root = tmp.path().toStdString();
        for (int run = 1; run <= 2; ++run) {
            writeRun(root / ("run" + std::to_string(run)) / "host-a", summary(100.0, 92.0, 2));
            writeRun(root / ("run" + std::to_string(run)) / "host-b", summary(50.0, 96.0, 3));
        }
        const ImportResult r = importResults({root});
        QCOMPARE(r.runs.size(), std::size_t(2));
        QCOMPARE(r.groups.size(), std::size_t(1));
        const InvocationRecord& run = r.runs[r.groups[0].runs[0]];
        QCOMPARE(run.runName, std::string("run1"));
        QCOMPARE(run.summaryFiles.size(), std::size_t(2));
        QCOMPARE(run.accelerators, std::int64_t(5));
        QCOMPARE(run.samplesPerSecond, 150.0);
        QCOMPARE(run.mbPerSecond, 300.0);
        QCOMPARE(run.auMeanPercent, 94.0);
        QCOMPARE(run.hostMemoryGiB, 32.0);
        QCOMPARE(run.epochSamplesPerSecond, (std::vector<double>{150.0, 150.0}));
    }

    void groupsSplitByIdentityWithinAFolder() {
        QTemporaryDir tmp;
        const fs::path root = tmp.path().toStdString();
        writeRun(root / "run1", summary(100.0, 95.0, 2));
        writeRun(root / "run2", summary(100.0, 95.0, 2));
        writeRun(root / "run3", summary(100.0, 95.0, 4));
        writeRun(root / "run4", summary(100.0, 95.0, 2, 2000));
        const ImportResult r = importResults({root});
        QCOMPARE(r.groups.size(), std::size_t(3));
        std::multiset<std::size_t> sizes;
        for (const auto& g : r.groups) {
            sizes.insert(g.runs.size());
            QCOMPARE(g.path, fs::path(root));
        }
        QCOMPARE(sizes, (std::multiset<std::size_t>{1, 1, 2}));
    }

    void warmupIsAttachedButApart() {
        QTemporaryDir tmp;
        const fs::path bench = fs::path(tmp.path().toStdString()) / "bench";
        writeRun(bench / "warmup", summary(10.0));
        for (int i = 1; i <= 5; ++i) writeRun(bench / "runs" / ("run-" + std::to_string(i)), summary(100.0 + i));
        const ImportResult r = importResults({bench});
        QCOMPARE(r.groups.size(), std::size_t(1));
        const RunGroup& g = r.groups[0];
        QCOMPARE(g.path, bench / "runs");
        QCOMPARE(g.runs.size(), std::size_t(5));
        QCOMPARE(g.warmups.size(), std::size_t(1));
        QVERIFY(r.runs[g.warmups[0]].warmup);
        for (std::size_t i : g.runs) QVERIFY(!r.runs[i].warmup);
        QCOMPARE(r.runs[g.runs[4]].runName, std::string("run-5"));
    }

    void badFilesAreSkippedWithReasons_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("reasonPart");
        const QByteArray good = QByteArray::fromStdString(summary(100.0).dump(4));
        QTest::newRow("truncated") << good.left(good.size() / 2) << "not valid JSON";
        QTest::newRow("empty") << QByteArray() << "empty";
        QByteArray binary;
        for (int i = 0; i < 4096; ++i) binary.append(static_cast<char>((i * 131 + 7) % 256));
        QTest::newRow("binary") << binary << "not valid JSON";
        QTest::newRow("deeply nested") << QByteArray(100000, '[') << "nested deeper";
        QTest::newRow("deeply nested objects") << QByteArray("{\"a\":").repeated(100000) << "nested deeper";
        QByteArray huge = good;
        huge.replace("\"train_au_mean_percentage\": 95.0", "\"train_au_mean_percentage\": 1e400");
        QVERIFY(huge != good);
        QTest::newRow("huge number") << huge << "number overflow";
        QTest::newRow("top-level array") << QByteArray("[1, 2, 3]") << "expected an object";
        QTest::newRow("metric a string") << QByteArray("{\"metric\": \"fast\"}") << "metric is a string";
        json wrong = summary(100.0);
        wrong["metric"]["train_throughput_mean_samples_per_second"] = "100";
        QTest::newRow("number as string") << QByteArray::fromStdString(wrong.dump())
                                          << "train_throughput_mean_samples_per_second is a string";
        json missing = summary(100.0);
        missing.erase("num_files_train");
        QTest::newRow("missing key") << QByteArray::fromStdString(missing.dump()) << "missing key num_files_train";
        json negative = summary(100.0);
        negative["num_accelerators"] = -3;
        QTest::newRow("negative") << QByteArray::fromStdString(negative.dump()) << "num_accelerators";
        json nanArray = summary(100.0);
        nanArray["metric"]["train_io_mean_MB_per_second"] = nullptr;
        QTest::newRow("null metric") << QByteArray::fromStdString(nanArray.dump()) << "train_io_mean_MB_per_second is null";
    }
    void badFilesAreSkippedWithReasons() {
        QFETCH(QByteArray, content);
        QFETCH(QString, reasonPart);
        QTemporaryDir tmp;
        const fs::path root = tmp.path().toStdString();
        writeRun(root / "run1", summary(100.0));
        const fs::path bad = root / "run2" / "summary.json";
        testsupport::writeText(bad, content.toStdString());
        const ImportResult r = importResults({root});
        QCOMPARE(r.runs.size(), std::size_t(1)); // the good run still imports
        QCOMPARE(r.skipped.size(), std::size_t(1));
        const SkippedFile* s = skippedFor(r, bad);
        QVERIFY(s);
        QVERIFY2(QString::fromStdString(s->reason).contains(reasonPart), s->reason.c_str());
    }

    void randomCorruptionsNeverCrash() {
        // Deterministic mutations of a real summary: every file ends up imported or skipped, none crash.
        const std::string original = testsupport::readText(
            mlperfFixtures() / "Closed/HPE/results/Cray_C500_4xHDR200_3hosts/unet3d_h100/run-1/summary.json");
        QTemporaryDir tmp;
        const fs::path root = tmp.path().toStdString();
        std::uint64_t state = 0x9E3779B97F4A7C15ull;
        auto next = [&]() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            return state;
        };
        const int count = 400;
        for (int i = 0; i < count; ++i) {
            std::string text = original;
            switch (i % 4) {
            case 0: text.resize(next() % text.size()); break;
            case 1:
                for (int k = 0; k < 8; ++k) text[next() % text.size()] = static_cast<char>(next() & 0xFF);
                break;
            case 2: text.insert(next() % text.size(), std::string(1 + next() % 200, "[{\"\\,:"[next() % 6])); break;
            default: {
                const std::size_t at = next() % text.size();
                text.erase(at, next() % 64);
                break;
            }
            }
            testsupport::writeText(root / ("run" + std::to_string(i)) / "summary.json", text);
        }
        const ImportResult r = importResults({root});
        QCOMPARE(r.summariesFound, std::size_t(count));
        std::size_t summaries = 0;
        for (const auto& run : r.runs) summaries += run.summaryFiles.size();
        QCOMPARE(summaries + r.skipped.size(), std::size_t(count));
        QVERIFY(!r.skipped.empty());
        for (const auto& s : r.skipped) QVERIFY(!s.reason.empty());
    }

    void oversizedFilesAreNotRead() {
        QTemporaryDir tmp;
        const fs::path root = tmp.path().toStdString();
        writeRun(root / "run1", summary(100.0));
        const fs::path big = root / "run2" / "summary.json";
        testsupport::writeText(big, "{");
        fs::resize_file(big, (64ull << 20) + 1); // sparse: costs no disk, must be refused unread
        const ImportResult r = importResults({root});
        QCOMPARE(r.runs.size(), std::size_t(1));
        const SkippedFile* s = skippedFor(r, big);
        QVERIFY(s);
        QVERIFY2(s->reason.find("64 MiB") != std::string::npos, s->reason.c_str());
    }

    void symlinksOutOfTheTreeAreNotFollowed() {
        QTemporaryDir tmp;
        const fs::path base = tmp.path().toStdString();
        writeRun(base / "outside" / "run9", summary(999.0));
        const fs::path root = base / "tree";
        writeRun(root / "run1", summary(100.0));
        fs::create_directories(root / "run2");
        fs::create_symlink(base / "outside" / "run9" / "summary.json", root / "run2" / "summary.json");
        fs::create_directory_symlink(base / "outside", root / "linked-dir");
        // A link that stays inside the tree is fine.
        fs::create_directories(root / "run3");
        fs::create_symlink(root / "run1" / "summary.json", root / "run3" / "summary.json");
        const ImportResult r = importResults({root});
        for (const auto& run : r.runs) QVERIFY(run.samplesPerSecond != 999.0);
        // run3's summary is run1's own file: one invocation reached twice counts once.
        QCOMPARE(r.runs.size(), std::size_t(1));
        QCOMPARE(r.duplicates.size(), std::size_t(1));
        QCOMPARE(r.duplicates[0].path, root / "run3");
        const SkippedFile* s = skippedFor(r, root / "run2" / "summary.json");
        QVERIFY(s);
        QVERIFY(s->reason.find("outside") != std::string::npos);
    }

    void missingRootIsReported() {
        const ImportResult r = importResults({fs::path("/nonexistent/trainio/results")});
        QCOMPARE(r.skipped.size(), std::size_t(1));
        QVERIFY(r.groups.empty());
    }

    void flatYamlAndOverrides() {
        // The run folder's config.yaml and overrides.yaml are read by the config loader (yaml-cpp).
        const auto flat = trainio::flattenConfigYaml("workload:\n  model: unet3d\n  dataset:\n    record_length: 146600628\n"
                                                     "    format: 'npz'\n  metric:\n    au: 0.9 # threshold\n", "config.yaml");
        auto get = [&](const std::string& k) {
            for (const auto& [key, v] : flat)
                if (key == k) return v;
            return std::string("<missing>");
        };
        QCOMPARE(get("model"), std::string("unet3d"));
        QCOMPARE(get("dataset.record_length"), std::string("146600628"));
        QCOMPARE(get("dataset.format"), std::string("npz"));
        QCOMPARE(get("metric.au"), std::string("0.9"));
        const auto ov = trainio::readOverrideList("- workload=unet3d_h100\n- ++workload.dataset.num_files_train=28000\n", "overrides.yaml");
        QCOMPARE(ov.size(), std::size_t(2));
        const auto first = trainio::splitOverride(ov[0]), second = trainio::splitOverride(ov[1]);
        QVERIFY(first && second);
        QCOMPARE(first->key, std::string("workload"));
        QCOMPARE(first->value, std::string("unet3d_h100"));
        QCOMPARE(second->key, std::string("dataset.num_files_train"));
        QCOMPARE(second->value, std::string("28000"));
    }

    void runFolderNamesAndOrder() {
        for (const char* n : {"run1", "run-1", "run_12", "Run 3", "2024-08-29-09-29-27", "20240829_092927"})
            QVERIFY2(looksLikeRunFolder(n), n);
        for (const char* n : {"host-a", "runs", "c-lmo1017", "unet3d_h100", "configs"}) QVERIFY2(!looksLikeRunFolder(n), n);
        QVERIFY(naturalLess("run2", "run10"));
        QVERIFY(!naturalLess("run10", "run2"));
        QVERIFY(naturalLess("run-1", "run-2"));
    }
};

QTEST_GUILESS_MAIN(TestImport)
#include "tst_import.moc"
