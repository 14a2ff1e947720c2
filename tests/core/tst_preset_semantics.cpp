// A preset carries its round's metric semantics (issue 19, item 8): without --semantics, a run of an MLPerf
// Storage v3.0 preset computes v3's metrics and a v1.0 preset v1's (docs/metrics.md: "every MLPerf Storage
// v1.0 result"), a workload of one's own v2; an explicit --semantics wins. The round of each preset is
// read from its YAML with yaml-cpp, and the round → semantics table is the test's own.
#include "testsupport.h"

#include "config/config_loader.h"
#include "metrics/dlio_metrics.h"

#include <QTemporaryDir>
#include <QtTest>

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <nlohmann/json.hpp>

using namespace trainio;
namespace fs = std::filesystem;

namespace {

// What each MLPerf Storage round's results were computed with (docs/metrics.md, docs/cli.md).
std::string expectedSemantics(const std::string& round) {
    if (round == "v1.0") return "v1";
    if (round == "v3.0") return "v3";
    return "v2";
}

std::string roundInYaml(const std::string& preset) {
    const YAML::Node y = YAML::LoadFile(std::string(TRAINIO_PRESET_DIR) + "/" + preset + ".yaml");
    return y["trainio"] && y["trainio"]["mlperf_round"] ? y["trainio"]["mlperf_round"].as<std::string>() : std::string();
}

// The preset shrunk to a few KiB-sized files in `dir`, generated first by the run itself.
QStringList tinyRun(const QString& preset, const QTemporaryDir& dir, const QString& name) {
    const QString w = QStringLiteral("++workload.");
    return {QStringLiteral("run"), QStringLiteral("--config"), preset,
            w + QStringLiteral("dataset.data_folder=") + dir.filePath(name + QStringLiteral("-data")),
            w + QStringLiteral("dataset.num_files_train=8"), w + QStringLiteral("dataset.num_samples_per_file=1"),
            w + QStringLiteral("dataset.record_length_bytes=4096"), w + QStringLiteral("dataset.record_length_bytes_stdev=0"),
            w + QStringLiteral("dataset.record_length_bytes_resize=0"),
            w + QStringLiteral("reader.batch_size=2"), w + QStringLiteral("reader.read_threads=1"),
            w + QStringLiteral("reader.computation_threads=1"), w + QStringLiteral("train.epochs=1"),
            w + QStringLiteral("train.computation_time=0.001"), w + QStringLiteral("workflow.generate_data=True"),
            QStringLiteral("--output"), dir.filePath(name), QStringLiteral("--quiet")};
}

std::string recordedSemantics(const QString& runDir) {
    const auto j = nlohmann::json::parse(testsupport::readText(fs::path(runDir.toStdString()) / "trainio_run.json"));
    return j.at("semantics").get<std::string>();
}

} // namespace

class TestPresetSemantics : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { qputenv("TRAINIO_PRESET_DIR", TRAINIO_PRESET_DIR); }

    // Every shipped preset resolves to its round's semantics without a choice; a choice wins.
    void everyPresetResolvesToItsRound() {
        const auto names = presetNames();
        QVERIFY(names.size() >= 10);
        int v1 = 0, v3 = 0;
        for (const auto& name : names) {
            const std::string round = roundInYaml(name);
            const WorkloadConfig cfg = loadPreset(name).config;
            QCOMPARE(std::string(semanticsName(resolveSemantics(std::nullopt, cfg))), expectedSemantics(round));
            QCOMPARE(std::string(semanticsName(resolveSemantics(std::string("v2"), cfg))), std::string("v2"));
            v1 += round == "v1.0";
            v3 += round == "v3.0";
        }
        QVERIFY(v1 > 0 && v3 > 0); // both rounds are shipped, so both mappings were exercised
        QVERIFY_THROWS_EXCEPTION(std::exception, resolveSemantics(std::string("v4"), WorkloadConfig{}));
    }

    // The CLI records what it used in trainio_run.json.
    void cliRunUsesThePresetsSemantics_data() {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("flag"); // empty: no --semantics
        QTest::addColumn<QString>("expected");
        QTest::newRow("v3.0 preset") << QStringLiteral("retinanet_b200") << QString() << QStringLiteral("v3");
        QTest::newRow("v1.0 preset") << QStringLiteral("resnet50_h100") << QString() << QStringLiteral("v1");
        QTest::newRow("not an MLPerf preset") << QStringLiteral("demo") << QString() << QStringLiteral("v2");
        QTest::newRow("v3.0 preset, --semantics v2 wins") << QStringLiteral("retinanet_b200") << QStringLiteral("v2")
                                                          << QStringLiteral("v2");
        QTest::newRow("v1.0 preset, --semantics v3 wins") << QStringLiteral("unet3d_h100") << QStringLiteral("v3")
                                                          << QStringLiteral("v3");
    }
    void cliRunUsesThePresetsSemantics() {
        QFETCH(QString, preset);
        QFETCH(QString, flag);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QStringList args = tinyRun(preset, dir, QStringLiteral("run"));
        if (!flag.isEmpty()) args << QStringLiteral("--semantics") << flag;
        const auto r = testsupport::runCli(args);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(QString::fromStdString(recordedSemantics(dir.filePath(QStringLiteral("run")))), expected);
    }
};

QTEST_GUILESS_MAIN(TestPresetSemantics)
#include "tst_preset_semantics.moc"
