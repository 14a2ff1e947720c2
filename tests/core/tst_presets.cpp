// The shipped MLPerf Storage presets: every one loads without warnings, validates, and carries the
// published numbers of its round. The expected values are typed in from the named sources, not read
// from the presets; the v3.0 unet3d_b200 preset is also compared with the round's real config
// (a SAMSUNG run folder of storage_results_v3.0, copied into tests/data/mlperf-storage-v3.0).
#include "testsupport.h"

#include "config/config_loader.h"

#include <algorithm>
#include <sstream>

using namespace trainio;

namespace {

// The first diagnostic says what is wrong; a QVERIFY message needs no more.
const char* firstMessage(const std::vector<ConfigDiagnostic>& d) { return d.empty() ? "" : d.front().message.c_str(); }

} // namespace

class TestPresets : public QObject {
    Q_OBJECT
private slots:
    void publishedNumbers_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("format");
        QTest::addColumn<double>("record");
        QTest::addColumn<double>("stdev");
        QTest::addColumn<qulonglong>("files");
        QTest::addColumn<qulonglong>("samplesPerFile");
        QTest::addColumn<qulonglong>("batch");
        QTest::addColumn<double>("compute");
        QTest::addColumn<qulonglong>("epochs");
        QTest::addColumn<qulonglong>("readThreads");
        QTest::addColumn<double>("au");
        QTest::addColumn<QString>("round");
        // mlcommons/storage configs/dlio/workload/retinanet_a100.yaml @ c8d70b66
        QTest::newRow("retinanet_a100") << "retinanet_a100" << "jpeg" << 153600.0 << 51200.0 << 1743042ull << 1ull << 16ull
                                        << 0.210 << 5ull << 8ull << 0.85 << "v3.0";
        // … retinanet_h100.yaml @ fa240126
        QTest::newRow("retinanet_h100") << "retinanet_h100" << "jpeg" << 153600.0 << 51200.0 << 1743042ull << 1ull << 16ull
                                        << 0.180 << 5ull << 8ull << 0.85 << "v3.0";
        // … retinanet_b200.yaml @ 11460d00 (= the round's Alluxio retinanet dlio_config/config.yaml
        // except the CLOSED tunables num_files_train and read_threads)
        QTest::newRow("retinanet_b200") << "retinanet_b200" << "jpeg" << 322957.0 << 0.0 << 1170301ull << 1ull << 24ull
                                        << 0.04755 << 8ull << 8ull << 0.85 << "v3.0";
        // … retinanet_mi355.yaml @ 76f45459
        QTest::newRow("retinanet_mi355") << "retinanet_mi355" << "jpeg" << 322957.0 << 0.0 << 1170301ull << 1ull << 32ull
                                         << 0.0634 << 8ull << 8ull << 0.85 << "v3.0";
        // … flux_h100.yaml @ 7e73663b
        QTest::newRow("flux_h100") << "flux_h100" << "jpeg" << 307200.0 << 102400.0 << 1099776ull << 1ull << 8ull << 0.850
                                   << 5ull << 8ull << 0.80 << "v3.0";
        // … dlrm_h100.yaml @ a65ba8c3
        QTest::newRow("dlrm_h100") << "dlrm_h100" << "npz" << 512.0 << 0.0 << 65536ull << 1ull << 8192ull << 0.005 << 1ull
                                   << 8ull << 0.70 << "v3.0";
        // storage_results_v3.0 SAMSUNG/Alluxio unet3d dlio_config/config.yaml and unet3d_b200.yaml @
        // 0d75b417; 168 files instead of the template's 7,200 (num_files_train is a CLOSED tunable).
        QTest::newRow("unet3d_b200") << "unet3d_b200" << "npz" << 146600628.0 << 68341808.0 << 168ull << 1ull << 7ull << 0.162
                                     << 5ull << 4ull << 0.90 << "v3.0";
        // MLPerf Storage v1.0 workloads (mlcommons/storage tag v1.0, SPEC §2), as shipped before.
        QTest::newRow("unet3d_a100") << "unet3d_a100" << "npz" << 146600628.0 << 68341808.0 << 168ull << 1ull << 7ull << 0.636
                                     << 5ull << 4ull << 0.90 << "v1.0";
        QTest::newRow("unet3d_h100") << "unet3d_h100" << "npz" << 146600628.0 << 68341808.0 << 168ull << 1ull << 7ull << 0.323
                                     << 5ull << 4ull << 0.90 << "v1.0";
        QTest::newRow("resnet50_h100") << "resnet50_h100" << "tfrecord" << 114660.07 << 0.0 << 1024ull << 1251ull << 400ull
                                       << 0.224 << 5ull << 8ull << 0.90 << "v1.0";
    }
    void publishedNumbers() {
        QFETCH(QString, name);
        QFETCH(QString, format);
        QFETCH(double, record);
        QFETCH(double, stdev);
        QFETCH(qulonglong, files);
        QFETCH(qulonglong, samplesPerFile);
        QFETCH(qulonglong, batch);
        QFETCH(double, compute);
        QFETCH(qulonglong, epochs);
        QFETCH(qulonglong, readThreads);
        QFETCH(double, au);
        QFETCH(QString, round);
        const auto names = presetNames();
        QVERIFY2(std::find(names.begin(), names.end(), name.toStdString()) != names.end(), qPrintable(name));
        const LoadedConfig l = loadPreset(name.toStdString());
        QVERIFY2(l.warnings.empty(), firstMessage(l.warnings));
        const auto problems = validateConfig(l.config);
        QVERIFY2(problems.empty(), firstMessage(problems));
        const WorkloadConfig& c = l.config;
        QCOMPARE(QString(toString(c.dataset.format)), format);
        QCOMPARE(c.dataset.recordLength, record);
        QCOMPARE(c.dataset.recordLengthStdev, stdev);
        QCOMPARE(c.dataset.numFilesTrain, std::uint64_t(files));
        QCOMPARE(c.dataset.numSamplesPerFile, std::uint64_t(samplesPerFile));
        QCOMPARE(c.reader.batchSize, std::uint64_t(batch));
        QCOMPARE(c.train.computationTime.mean, compute);
        QCOMPARE(c.train.epochs, std::uint64_t(epochs));
        QCOMPARE(c.reader.readThreads, std::uint64_t(readThreads));
        QCOMPARE(c.metric.au, au);
        QCOMPARE(QString::fromStdString(c.trainio.mlperfRound), round);
        // The preset's accelerator is the part of its name after the model (what overrides.yaml's
        // "workload=<model>_<accelerator>" label carries).
        QCOMPARE(QString::fromStdString(c.accelerator), name.section('_', -1));
    }

    // Every shipped MLPerf preset says which round it belongs to; only the demo workload does not.
    void everyMlperfPresetNamesItsRound() {
        for (const auto& n : presetNames()) {
            if (n == "demo" || n.rfind("llama3", 0) == 0) continue; // llama3: the checkpoint presets' own test
            const LoadedConfig l = loadPreset(n);
            const std::string& r = l.config.trainio.mlperfRound;
            QVERIFY2(r == "v1.0" || r == "v3.0", qPrintable(QString::fromStdString(n + ": '" + r + "'")));
        }
    }

    // unet3d_b200 against the round's real config: everything but the CLOSED tunables (num_files_train,
    // num_subfolders_train, data_folder, read_threads, odirect) must be the same.
    void unet3dB200MatchesTheRound() {
        const auto real = loadWorkloadConfig((testsupport::fixtures() / "mlperf-storage-v3.0/closed/SAMSUNG/results/MEMORY_AE/"
                                                                       "training/unet3d/run/20260720_153950/dlio_config/config.yaml")
                                                 .string())
                              .config;
        const auto preset = loadPreset("unet3d_b200").config;
        QCOMPARE(preset.model.name, real.model.name);
        QCOMPARE(toString(preset.dataset.format), toString(real.dataset.format));
        QCOMPARE(preset.dataset.recordLength, real.dataset.recordLength);
        QCOMPARE(preset.dataset.recordLengthStdev, real.dataset.recordLengthStdev);
        QCOMPARE(preset.dataset.recordLengthResize, real.dataset.recordLengthResize);
        QCOMPARE(preset.dataset.numSamplesPerFile, real.dataset.numSamplesPerFile);
        QCOMPARE(preset.reader.batchSize, real.reader.batchSize);
        QCOMPARE(preset.train.epochs, real.train.epochs);
        QCOMPARE(preset.train.computationTime.mean, real.train.computationTime.mean);
        QCOMPARE(preset.metric.au, real.metric.au);
        QCOMPARE(preset.workflow.checkpoint, real.workflow.checkpoint);
        QCOMPARE(preset.workflow.train, real.workflow.train);
        QCOMPARE(preset.framework, real.framework);
    }

    // docs/configuration.md's preset tables (written by hand: no code generates them) have a row for every
    // shipped preset; the checkpointing table's numbers are the presets' own, and its round is theirs.
    void docsListEveryPreset() {
        const std::string doc = testsupport::readText(testsupport::fixtures().parent_path().parent_path() / "docs" /
                                                      "configuration.md");
        const auto section = doc.find("\n## Presets\n");
        QVERIFY(section != std::string::npos);
        const std::string presets = doc.substr(section, doc.find("\n## ", section + 1) - section);
        auto rowOf = [&](const std::string& name) -> std::vector<std::string> {
            const auto at = presets.find("\n| " + name + " |");
            if (at == std::string::npos) return {};
            std::vector<std::string> cells;
            std::stringstream line(presets.substr(at + 3, presets.find('\n', at + 1) - at - 3));
            for (std::string cell; std::getline(line, cell, '|');) {
                cell.erase(0, cell.find_first_not_of(' '));
                cell.erase(cell.find_last_not_of(' ') + 1);
                cells.push_back(cell);
            }
            return cells;
        };
        const auto roundsAt = presets.find("Each MLPerf preset names its round");
        QVERIFY(roundsAt != std::string::npos);
        const std::string rounds = presets.substr(roundsAt, presets.find("\n\n", roundsAt) - roundsAt);
        auto number = [](std::string text) {
            text.erase(std::remove(text.begin(), text.end(), ','), text.end());
            return std::stoll(text);
        };
        for (const auto& n : presetNames()) {
            if (n == "demo") continue;
            const std::vector<std::string> row = rowOf(n);
            QVERIFY2(!row.empty(), ("docs/configuration.md has no preset row for " + n).c_str());
            if (n.rfind("llama3", 0) != 0) continue;
            // | Preset | layers | hidden | FFN | heads | KV heads | tensor × pipeline | ZeRO | CLOSED accelerators | round |
            QCOMPARE(row.size(), std::size_t(10));
            const WorkloadConfig c = loadPreset(n).config;
            QCOMPARE(number(row[1]), static_cast<long long>(c.model.numLayers));
            QCOMPARE(number(row[2]), static_cast<long long>(c.model.transformer.hiddenSize));
            QCOMPARE(number(row[3]), static_cast<long long>(c.model.transformer.ffnHiddenSize));
            QCOMPARE(number(row[4]), static_cast<long long>(c.model.transformer.numAttentionHeads));
            QCOMPARE(number(row[5]), static_cast<long long>(c.model.transformer.numKvHeads));
            QCOMPARE(row[6], std::to_string(c.model.parallelism.tensor) + " × " + std::to_string(c.model.parallelism.pipeline));
            QCOMPARE(number(row[7]), static_cast<long long>(c.model.parallelism.zeroStage));
            QCOMPARE(row[9], c.trainio.mlperfRound);
            // The rounds paragraph names it too.
            QVERIFY2(rounds.find(n) != std::string::npos, n.c_str());
        }
        // CLOSED accelerator counts: Rules.md 4.6.1 (8, 64, 512, 1024).
        QCOMPARE(rowOf("llama3_8b").at(8), std::string("8"));
        QCOMPARE(rowOf("llama3_70b").at(8), std::string("64"));
        QCOMPARE(rowOf("llama3_405b").at(8), std::string("512"));
        QCOMPARE(rowOf("llama3_1t").at(8), std::string("1024"));
    }

    // unet3d on mi355 has no published numbers (no workload file, no computation time in the rules code;
    // mlcommons/storage#691 dropped the pair from v3.0): nothing is made up, and the docs say where we looked.
    void unet3dMi355IsNotMadeUp() {
        const auto names = presetNames();
        QVERIFY(std::find(names.begin(), names.end(), "unet3d_mi355") == names.end());
        const std::string doc = testsupport::readText(testsupport::fixtures().parent_path().parent_path() / "docs" /
                                                      "configuration.md");
        QVERIFY(doc.find("**unet3d_mi355**, for which no source gives numbers") != std::string::npos);
        QVERIFY(doc.find("mlcommons/storage#691") != std::string::npos);
    }

    // Parquet variants are out of scope: none is shipped (a config that asks for parquet is refused by
    // the loader, tested with the formats).
    void noParquetPresets() {
        for (const auto& n : presetNames())
            QVERIFY2(n.find("parquet") == std::string::npos && n != "flux_b200" && n != "flux_mi355" &&
                         n != "dlrm_b200" && n != "dlrm_mi355",
                     n.c_str());
    }
};

QTEST_GUILESS_MAIN(TestPresets)
#include "tst_presets.moc"
