// A run never measures a dataset its config does not describe (issue 19, item 3): pre-flight compares a
// TrainIO dataset's marker with the config exactly, and a foreign dataset's sampled sizes with the
// configured distribution; `trainio-cli run` exits 2 before measuring, naming the key and both values.
// Every expected value is what the test itself configured or changed.
#include "testsupport.h"

#include "dataset/dataset_generator.h"
#include "preflight/preflight.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace trainio;
namespace fs = std::filesystem;

namespace {

constexpr double kMean = 128 * 1024;  // bytes per sample, as generated
constexpr double kStdev = 32 * 1024;  // … and its stdev
constexpr std::uint64_t kSeed = 7;

WorkloadConfig tinyWorkload(const fs::path& folder, DataFormat format = DataFormat::Npz) {
    WorkloadConfig cfg;
    cfg.dataset.dataFolder = folder.string();
    cfg.dataset.format = format;
    cfg.dataset.numFilesTrain = 24;
    cfg.dataset.numSamplesPerFile = 1;
    cfg.dataset.recordLength = kMean;
    cfg.dataset.recordLengthStdev = kStdev;
    cfg.reader.batchSize = 2;
    cfg.train.seed = kSeed;
    return cfg;
}

PreflightResult check(const WorkloadConfig& cfg) {
    PreflightRequest req;
    req.action = PreflightAction::Run;
    req.headerSampleFiles = 24; // every file of tinyWorkload
    return preflight(cfg, req);
}

const PreflightProblem* problemFor(const PreflightResult& r, const std::string& key) {
    for (const auto& p : r.problems)
        if (p.subject == key) return &p;
    return nullptr;
}

void generate(const WorkloadConfig& cfg) {
    GenerateOptions o;
    o.threads = 1;
    generateDataset(cfg, o);
}

} // namespace

class TestDatasetMatch : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    fs::path ours_, foreign_;

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        ours_ = fs::path(tmp_.path().toStdString()) / "ours";
        foreign_ = fs::path(tmp_.path().toStdString()) / "foreign";
        generate(tinyWorkload(ours_));
        // A foreign dataset: TrainIO's files (DLIO's layout and framing) without TrainIO's marker.
        generate(tinyWorkload(foreign_));
        QVERIFY(fs::remove(foreign_ / kDatasetMarkerName));
    }

    void unchangedConfigPasses() {
        const PreflightResult r = check(tinyWorkload(ours_));
        QVERIFY2(r.ok(), r.text().c_str());
    }

    // The same problems in the GUI's words (issue 21): no "datagen", "trainio-cli" or "--output" in what
    // the GUI shows; the command line keeps its own words. Three problems: no dataset folder, a dataset
    // generated with other parameters, an output folder that already holds a result.
    void guiAudienceSpeaksGui() {
        const fs::path out = fs::path(tmp_.path().toStdString()) / "out-with-result";
        fs::create_directories(out);
        { std::ofstream(out / "summary.json") << "{}"; }
        WorkloadConfig missing = tinyWorkload(fs::path(tmp_.path().toStdString()) / "no-such-data");
        WorkloadConfig changed = tinyWorkload(ours_);
        changed.dataset.recordLength = 65536;
        for (const WorkloadConfig& cfg : {missing, changed}) {
            PreflightRequest req;
            req.action = PreflightAction::Run;
            req.output = out;
            const PreflightResult cli = preflight(cfg, req);
            req.audience = PreflightAudience::Gui;
            const PreflightResult gui = preflight(cfg, req);
            QCOMPARE(gui.problems.size(), cli.problems.size()); // the same checks
            QVERIFY2(cli.problems.size() >= 2, cli.text().c_str());
            const std::string cliText = cli.text(), guiText = gui.text();
            QVERIFY2(cliText.find("datagen") != std::string::npos && cliText.find("--output") != std::string::npos, cliText.c_str());
            for (const char* word : {"datagen", "trainio-cli", "--output"})
                QVERIFY2(guiText.find(word) == std::string::npos, (std::string(word) + " in: " + guiText).c_str());
            QVERIFY2(guiText.find("Data page") != std::string::npos, guiText.c_str());
            QVERIFY2(guiText.find("Output folder: ") != std::string::npos, guiText.c_str());
        }
        PreflightRequest req;
        req.audience = PreflightAudience::Gui;
        const PreflightResult gui = preflight(missing, req);
        QVERIFY2(gui.text().find("generate it on the Data page first") != std::string::npos, gui.text().c_str());
    }

    // One generation parameter changed after generation: refused, naming the key, the configured value
    // and the generated one.
    void changedParameterIsRefused_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("configured");
        QTest::addColumn<QString>("generated");
        QTest::newRow("mean 128 KiB -> 64 KiB") << QStringLiteral("dataset.record_length_bytes") << QStringLiteral("65536") << QStringLiteral("131072");
        QTest::newRow("only the stdev 32 KiB -> 4 KiB") << QStringLiteral("dataset.record_length_bytes_stdev") << QStringLiteral("4096") << QStringLiteral("32768");
        QTest::newRow("stdev 32 KiB -> 0") << QStringLiteral("dataset.record_length_bytes_stdev") << QStringLiteral("0") << QStringLiteral("32768");
        QTest::newRow("samples per file 1 -> 2") << QStringLiteral("dataset.num_samples_per_file") << QStringLiteral("2") << QStringLiteral("1");
        QTest::newRow("seed (sizes drawn with it)") << QStringLiteral("train.seed") << QStringLiteral("8") << QStringLiteral("7");
        QTest::newRow("eval files 0 -> 2") << QStringLiteral("dataset.num_files_eval") << QStringLiteral("2") << QStringLiteral("0");
    }
    void changedParameterIsRefused() {
        QFETCH(QString, key);
        QFETCH(QString, configured);
        QFETCH(QString, generated);
        WorkloadConfig cfg = tinyWorkload(ours_);
        const double v = configured.toDouble();
        if (key == "dataset.record_length_bytes") cfg.dataset.recordLength = v;
        else if (key == "dataset.record_length_bytes_stdev") cfg.dataset.recordLengthStdev = v;
        else if (key == "dataset.num_samples_per_file") cfg.dataset.numSamplesPerFile = static_cast<std::uint64_t>(v);
        else if (key == "train.seed") cfg.train.seed = static_cast<std::uint64_t>(v);
        else if (key == "dataset.num_files_eval") cfg.dataset.numFilesEval = static_cast<std::uint64_t>(v);
        const PreflightResult r = check(cfg);
        QVERIFY2(!r.ok(), "a mismatched dataset passed pre-flight");
        const PreflightProblem* p = problemFor(r, key.toStdString());
        QVERIFY2(p, r.text().c_str());
        const QString text = QString::fromStdString(p->text());
        QVERIFY2(text.contains(configured) && text.contains(generated), qPrintable(text));
        QVERIFY2(text.contains(QString::fromLatin1(kDatasetMarkerName)), qPrintable(text));
        QCOMPARE(r.problems.size(), std::size_t(1)); // only what differs
    }

    // Without stdev the seed shapes only the random payload, not what is measured: not refused.
    void seedWithoutDrawnSizesIsNotAMismatch() {
        const fs::path folder = fs::path(tmp_.path().toStdString()) / "fixed";
        WorkloadConfig cfg = tinyWorkload(folder);
        cfg.dataset.recordLengthStdev = 0;
        generate(cfg);
        cfg.train.seed = kSeed + 1;
        const PreflightResult r = check(cfg);
        QVERIFY2(r.ok(), r.text().c_str());
    }

    // A foreign dataset of the configured distribution passes whatever stream drew its sizes (DLIO's
    // generator draws from one numpy stream, not TrainIO's per-file ones): another seed stands for it.
    void foreignDatasetOfTheConfiguredSizesPasses_data() {
        QTest::addColumn<quint64>("seed");
        QTest::newRow("the same draws") << quint64(kSeed);
        QTest::newRow("other draws") << quint64(12345);
    }
    void foreignDatasetOfTheConfiguredSizesPasses() {
        QFETCH(quint64, seed);
        WorkloadConfig cfg = tinyWorkload(foreign_);
        cfg.train.seed = seed;
        const PreflightResult r = check(cfg);
        QVERIFY2(r.ok(), r.text().c_str());
    }

    void foreignDatasetOfOtherSizesIsRefused_data() {
        QTest::addColumn<double>("mean");
        QTest::addColumn<double>("stdev");
        QTest::addColumn<QString>("key");
        QTest::newRow("mean halved") << kMean / 2 << kStdev << QStringLiteral("dataset.record_length_bytes");
        QTest::newRow("mean doubled") << kMean * 2 << kStdev << QStringLiteral("dataset.record_length_bytes");
        QTest::newRow("stdev 32 KiB -> 4 KiB") << kMean << 4096.0 << QStringLiteral("dataset.record_length_bytes_stdev");
        QTest::newRow("stdev 32 KiB -> 0") << kMean << 0.0 << QStringLiteral("dataset.record_length_bytes_stdev");
        QTest::newRow("stdev 32 KiB -> 256 KiB") << kMean << 262144.0 << QStringLiteral("dataset.record_length_bytes_stdev");
    }
    void foreignDatasetOfOtherSizesIsRefused() {
        QFETCH(double, mean);
        QFETCH(double, stdev);
        QFETCH(QString, key);
        WorkloadConfig cfg = tinyWorkload(foreign_);
        cfg.dataset.recordLength = mean;
        cfg.dataset.recordLengthStdev = stdev;
        const PreflightResult r = check(cfg);
        const PreflightProblem* p = problemFor(r, key.toStdString());
        QVERIFY2(p, r.text().c_str());
        // It says what it found (no marker, the sampled files) and what the config says.
        const QString text = QString::fromStdString(p->text());
        QVERIFY2(text.contains(QString::fromLatin1(kDatasetMarkerName)) && text.contains(QStringLiteral("24 sampled files")),
                 qPrintable(text));
        QVERIFY2(text.contains(QString::number(key == "dataset.record_length_bytes" ? mean : stdev, 'f', 0)), qPrintable(text));
    }

    // Other formats' framing (tfrecord's per-record framing, HDF5's metadata, npy's header) with two
    // samples per file: matching sizes pass, half the mean is refused.
    void foreignFormats_data() {
        QTest::addColumn<int>("format");
        QTest::newRow("tfrecord") << int(DataFormat::Tfrecord);
        QTest::newRow("hdf5") << int(DataFormat::Hdf5);
        QTest::newRow("npy") << int(DataFormat::Npy);
    }
    void foreignFormats() {
        QFETCH(int, format);
        const fs::path folder = fs::path(tmp_.path().toStdString()) / ("foreign-" + std::to_string(format));
        WorkloadConfig cfg = tinyWorkload(folder, static_cast<DataFormat>(format));
        cfg.dataset.numSamplesPerFile = 2;
        generate(cfg);
        QVERIFY(fs::remove(folder / kDatasetMarkerName));
        cfg.train.seed = 999; // other draws of the same distribution
        const PreflightResult same = check(cfg);
        QVERIFY2(same.ok(), same.text().c_str());
        cfg.dataset.recordLength = kMean / 2;
        const PreflightResult halved = check(cfg);
        QVERIFY2(problemFor(halved, "dataset.record_length_bytes"), halved.text().c_str());
    }

    // The CLI: `run` on a dataset generated for another stdev exits 2 before measuring, naming the key and
    // both values; the unchanged config runs.
    void cliRunOnAMismatchedDatasetExits2() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString config = dir.filePath(QStringLiteral("w.yaml"));
        testsupport::writeText(config.toStdString(),
                               "model:\n  name: tiny\nworkflow:\n  generate_data: False\n  train: True\ndataset:\n"
                               "  data_folder: " + dir.filePath(QStringLiteral("data")).toStdString() +
                                   "\n  format: npz\n  num_files_train: 8\n  num_samples_per_file: 1\n"
                                   "  record_length: 65536\n  record_length_stdev: 16384\nreader:\n  batch_size: 2\n"
                                   "train:\n  epochs: 1\n  computation_time: 0.001\n");
        const auto gen = testsupport::datagen(config);
        QVERIFY2(gen.exitCode == 0, qPrintable(gen.err));

        const QString out = dir.filePath(QStringLiteral("mismatch"));
        const auto r = testsupport::runCli({QStringLiteral("run"), QStringLiteral("--config"), config,
                                            QStringLiteral("++workload.dataset.record_length_stdev=2048"),
                                            QStringLiteral("--output"), out});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("dataset.record_length_bytes_stdev")), qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("2048")) && r.err.contains(QStringLiteral("16384")), qPrintable(r.err));
        QVERIFY2(!QFileInfo::exists(out + QStringLiteral("/summary.json")), "measured anyway");

        const QString ok = dir.filePath(QStringLiteral("matching"));
        const auto good = testsupport::runCli({QStringLiteral("run"), QStringLiteral("--config"), config,
                                               QStringLiteral("--output"), ok, QStringLiteral("--quiet")});
        QVERIFY2(good.exitCode == 0, qPrintable(good.err));
        QVERIFY(QFileInfo::exists(ok + QStringLiteral("/summary.json")));
    }
};

QTEST_GUILESS_MAIN(TestDatasetMatch)
#include "tst_dataset_match.moc"
