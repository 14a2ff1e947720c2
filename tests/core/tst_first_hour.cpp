// The defects a new user met in the first hour (issue "The first hour with TrainIO"), each checked on the
// real trainio-cli with real files: DLIO's train/ + valid/ layout, workload=<model>_<accelerator> that
// MLPerf's report.py can split, absurd numbers refused with the key and range, clean with a trailing
// slash, and pre-flight checks that stop a run before anything is measured.
#include "testsupport.h"

#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace {

struct Tiny {
    std::string model = "tiny_tf";
    std::string folder;          // data_folder as written in the YAML
    std::uint64_t files = 8;
    std::uint64_t batch = 2;
    std::string extra;           // appended YAML
};

QString writeWorkload(const QTemporaryDir& tmp, const Tiny& t, const QString& name = QStringLiteral("tiny.yaml")) {
    const QString path = tmp.filePath(name);
    testsupport::writeText(path.toStdString(),
                           "model:\n  name: " + t.model + "\nframework: pytorch\nworkflow:\n  generate_data: False\n"
                           "  train: True\ndataset:\n  data_folder: " + t.folder + "\n  format: npz\n"
                           "  num_files_train: " + std::to_string(t.files) + "\n  num_samples_per_file: 1\n"
                           "  record_length_bytes: 8192\nreader:\n  data_loader: pytorch\n  batch_size: " +
                           std::to_string(t.batch) + "\n  read_threads: 1\ntrain:\n  epochs: 1\n"
                           "  computation_time: 0.001\n" + t.extra);
    return path;
}

std::uint64_t bytesBelow(const fs::path& dir) {
    std::uint64_t n = 0;
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(dir, ec))
        if (e.is_regular_file(ec)) n += e.file_size(ec);
    return n;
}

} // namespace

class TestFirstHour : public QObject {
    Q_OBJECT
private slots:
    // Defect 1: DLIO's loader lists <data_folder>/valid/ even with num_files_eval 0.
    void datagenCreatesTrainAndValid() {
        QTemporaryDir tmp;
        Tiny t;
        t.folder = tmp.filePath(QStringLiteral("data")).toStdString();
        const QString cfg = writeWorkload(tmp, t);
        const auto r = testsupport::runCli({QStringLiteral("datagen"), QStringLiteral("--config"), cfg, QStringLiteral("--quiet")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(fs::is_directory(fs::path(t.folder) / "train"));
        QVERIFY2(fs::is_directory(fs::path(t.folder) / "valid"), "valid/ must exist even with num_files_eval 0");
        QVERIFY(fs::is_empty(fs::path(t.folder) / "valid"));
        // clean removes the empty valid/ with the rest: nothing of ours is left.
        const auto c = testsupport::runCli({QStringLiteral("clean"), QStringLiteral("--config"), cfg});
        QVERIFY2(c.exitCode == 0, qPrintable(c.err));
        QVERIFY(!fs::exists(t.folder));
    }

    // Defect 2: report.py splits "workload=<model>_<accelerator>" at '_'.
    void overridesNameModelAndAccelerator() {
        QTemporaryDir tmp;
        Tiny t;
        t.folder = tmp.filePath(QStringLiteral("data")).toStdString();
        t.extra = "workflow:\n  generate_data: True\n";
        const QString cfg = writeWorkload(tmp, t);
        const QString out = tmp.filePath(QStringLiteral("out"));
        auto r = testsupport::runCli({QStringLiteral("run"), QStringLiteral("--config"), cfg, QStringLiteral("--output"), out,
                                      QStringLiteral("--quiet"), QStringLiteral("++workload.workflow.generate_data=True")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        std::string first = testsupport::readText(out.toStdString() + "/configs/overrides.yaml");
        first = first.substr(0, first.find('\n'));
        QCOMPARE(first, std::string("- workload=tiny-tf_generic"));
        // The real name is kept in config.yaml.
        QVERIFY(testsupport::readText(out.toStdString() + "/configs/config.yaml").find("name: tiny_tf") != std::string::npos);

        const QString out2 = tmp.filePath(QStringLiteral("out2"));
        r = testsupport::runCli({QStringLiteral("run"), QStringLiteral("--config"), cfg, QStringLiteral("--output"), out2,
                                 QStringLiteral("--quiet"), QStringLiteral("--accelerator-type"), QStringLiteral("h100")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        first = testsupport::readText(out2.toStdString() + "/configs/overrides.yaml");
        QCOMPARE(first.substr(0, first.find('\n')), std::string("- workload=tiny-tf_h100"));

        // A name that cannot be written that way is refused before anything runs.
        const QString out3 = tmp.filePath(QStringLiteral("out3"));
        r = testsupport::runCli({QStringLiteral("run"), QStringLiteral("--config"), cfg, QStringLiteral("--output"), out3,
                                 QStringLiteral("--accelerator-type"), QStringLiteral("h_100")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("accelerator = 'h_100'")), qPrintable(r.err));
        QVERIFY(!fs::exists(out3.toStdString()));
        Tiny bad = t;
        bad.model = "\"my model\"";
        const QString badCfg = writeWorkload(tmp, bad, QStringLiteral("bad.yaml"));
        r = testsupport::runCli({QStringLiteral("run"), QStringLiteral("--config"), badCfg, QStringLiteral("--output"), out3});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("model.name = 'my model'")), qPrintable(r.err));
        QVERIFY(!fs::exists(out3.toStdString()));
    }

    // Defect 3: out-of-range, non-integer and non-numeric values name the key and the accepted range.
    void absurdNumbersAreRefused_data() {
        QTest::addColumn<QString>("override");
        QTest::addColumn<QString>("message");
        QTest::newRow("huge record") << "++workload.dataset.record_length_bytes=99999999999999999999999"
                                     << "dataset.record_length_bytes = 1e+23: expected a number of bytes > 0 and <= 1099511627776";
        QTest::newRow("huge integer") << "++workload.dataset.num_files_train=99999999999999999999999"
                                      << "dataset.num_files_train = 99999999999999999999999: expected a whole number 1 … 1000000000";
        QTest::newRow("1e99 epochs") << "++workload.train.epochs=1e99"
                                     << "train.epochs = 1e99: expected a whole number 1 … 1000000";
        QTest::newRow("negative epochs") << "++workload.train.epochs=-3" << "train.epochs = -3: expected a whole number 1 … 1000000";
        QTest::newRow("not a number") << "++workload.reader.read_threads=abc-12x"
                                      << "reader.read_threads = 'abc-12x': expected a whole number 0 … 1024";
        QTest::newRow("fraction batch") << "++workload.reader.batch_size=1.5"
                                        << "reader.batch_size = 1.5: expected a whole number 1 … 10000000";
        QTest::newRow("too many threads") << "++workload.reader.read_threads=5000"
                                          << "reader.read_threads = 5000: expected a whole number 0 … 1024";
        QTest::newRow("week of compute") << "++workload.train.computation_time=604800"
                                         << "train.computation_time = 604800: expected a number of seconds 0 … 86400";
        QTest::newRow("au over 1") << "++workload.metric.au=90" << "metric.au = 90: expected a fraction > 0 and <= 1";
    }
    void absurdNumbersAreRefused() {
        QFETCH(QString, override);
        QFETCH(QString, message);
        QTemporaryDir tmp;
        Tiny t;
        t.folder = tmp.filePath(QStringLiteral("data")).toStdString();
        const QString cfg = writeWorkload(tmp, t);
        const auto r = testsupport::runCli({QStringLiteral("validate"), QStringLiteral("--config"), cfg, override});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
    }

    // Defect 5: a data folder written with a trailing slash (as the presets write it) is cleaned too, and a
    // clean that leaves dataset files behind is not reported as a success.
    void cleanWithTrailingSlash() {
        QTemporaryDir tmp;
        Tiny t;
        t.folder = tmp.filePath(QStringLiteral("data")).toStdString() + "/";
        const QString cfg = writeWorkload(tmp, t);
        auto r = testsupport::runCli({QStringLiteral("datagen"), QStringLiteral("--config"), cfg, QStringLiteral("--quiet")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(bytesBelow(t.folder) >= 8 * 8192);
        r = testsupport::runCli({QStringLiteral("clean"), QStringLiteral("--config"), cfg});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        QVERIFY2(r.out.contains(QStringLiteral("removed 9 files")), qPrintable(r.out)); // 8 files + marker
        QVERIFY2(!fs::exists(tmp.filePath(QStringLiteral("data")).toStdString()), qPrintable(r.out));

        // Generate again, then make one dataset file something clean must not delete (a folder in its
        // place): clean keeps it and says so with exit 1 instead of "removed … " alone.
        r = testsupport::runCli({QStringLiteral("datagen"), QStringLiteral("--config"), cfg, QStringLiteral("--quiet")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const fs::path victim = fs::path(t.folder) / "train" / "img_0_of_8.npz";
        QVERIFY(fs::remove(victim));
        fs::create_directory(victim);
        r = testsupport::runCli({QStringLiteral("clean"), QStringLiteral("--config"), cfg});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("1 dataset file(s) are still there")), qPrintable(r.err));
        QVERIFY(fs::exists(victim));
    }

    // Defect 6: a config that forms no step is not "valid".
    void configWithoutAStepIsRefused() {
        QTemporaryDir tmp;
        Tiny t;
        t.folder = tmp.filePath(QStringLiteral("data")).toStdString();
        t.batch = 7;
        const QString cfg = writeWorkload(tmp, t);
        auto r = testsupport::runCli({QStringLiteral("validate"), QStringLiteral("--config"), cfg, QStringLiteral("--accelerators"),
                                      QStringLiteral("4"), QStringLiteral("++workload.workflow.generate_data=True")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("8 samples cannot feed one step of 7 samples on each of 4 accelerators")),
                 qPrintable(r.err));
        // One accelerator can take one step of 7: valid (the dataset is generated first).
        r = testsupport::runCli({QStringLiteral("validate"), QStringLiteral("--config"), cfg, QStringLiteral("--accelerators"),
                                 QStringLiteral("1"), QStringLiteral("++workload.workflow.generate_data=True")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        // validate calls a dataset that is not generated yet fine (it checks the room datagen needs); a run
        // without generate_data needs the dataset and says so before it measures.
        r = testsupport::runCli({QStringLiteral("validate"), QStringLiteral("--config"), cfg});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = testsupport::runCli({QStringLiteral("run"), QStringLiteral("--config"), cfg, QStringLiteral("--output"),
                                 tmp.filePath(QStringLiteral("out"))});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("dataset.data_folder: ")) && r.err.contains(QStringLiteral("does not exist")),
                 qPrintable(r.err));
    }

    // Defect 6: a dataset that does not match the config is found before the run, not mid-run. A dataset
    // TrainIO generated (8 npz files "img" of 8 KiB) is named by the marker's key with both values; the
    // same files without the marker (a foreign dataset) by what the files show.
    void mismatchedDatasetIsRefusedBeforeMeasuring_data() {
        QTest::addColumn<QString>("override");
        QTest::addColumn<bool>("foreign");
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("generated"); // what the run must say the dataset holds
        QTest::newRow("file count") << "++workload.dataset.num_files_train=16" << false
                                    << "dataset.num_files_train: the config says 16," << "generated with 8 (";
        QTest::newRow("sample size") << "++workload.dataset.record_length_bytes=262144" << false
                                     << "dataset.record_length_bytes: the config says 262144" << "generated with 8192 (";
        QTest::newRow("format") << "++workload.dataset.format=npy" << false << "dataset.format: the config says npy,"
                                << "generated with npz (";
        QTest::newRow("prefix") << "++workload.dataset.file_prefix=sample" << false
                                << "dataset.file_prefix: the config says sample," << "generated with img (";
        QTest::newRow("foreign, file count") << "++workload.dataset.num_files_train=16" << true
                                             << "16 of 16 configured files are missing (first: " << "img_0_of_8.npz";
        QTest::newRow("foreign, sample size") << "++workload.dataset.record_length_bytes=262144" << true
                                              // 8192 bytes are a 90 × 90 record (int(sqrt(8192)), SPEC Appendix A): 7.9 KiB
                                              << "dataset.record_length_bytes: " << "hold 7.9 KiB per sample";
        QTest::newRow("foreign, format") << "++workload.dataset.format=npy" << true << "8 of 8 configured files are missing"
                                         << "img_0_of_8.npz";
        QTest::newRow("foreign, prefix") << "++workload.dataset.file_prefix=sample" << true
                                         << "holds 8 file(s), e.g. img_0_of_8.npz" << "sample_0_of_8.npz";
    }
    void mismatchedDatasetIsRefusedBeforeMeasuring() {
        QFETCH(QString, override);
        QFETCH(bool, foreign);
        QFETCH(QString, message);
        QFETCH(QString, generated);
        QTemporaryDir tmp;
        Tiny t;
        t.folder = tmp.filePath(QStringLiteral("data")).toStdString();
        const QString cfg = writeWorkload(tmp, t);
        auto r = testsupport::runCli({QStringLiteral("datagen"), QStringLiteral("--config"), cfg, QStringLiteral("--quiet")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        if (foreign) QVERIFY(fs::remove(fs::path(t.folder) / ".trainio-dataset.json"));
        const QString out = tmp.filePath(QStringLiteral("out"));
        r = testsupport::runCli({QStringLiteral("run"), QStringLiteral("--config"), cfg, QStringLiteral("--output"), out,
                                 QStringLiteral("--quiet"), override});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("pre-flight check failed, nothing was measured")), qPrintable(r.err));
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY2(r.err.contains(generated), qPrintable(r.err));
        QVERIFY2(!fs::exists(out.toStdString()), "no result folder for a run that did not start");
    }

    // A file that is not what the format says (here: a tfrecord config over files that are not tfrecords)
    // is found by its header, for the same file names.
    void wrongFormatHeaderIsFound() {
        QTemporaryDir tmp;
        Tiny t;
        t.folder = tmp.filePath(QStringLiteral("data")).toStdString();
        const QString cfg = writeWorkload(tmp, t);
        QVERIFY(testsupport::runCli({QStringLiteral("datagen"), QStringLiteral("--config"), cfg, QStringLiteral("--quiet")}).exitCode == 0);
        // Overwrite one file in the middle of the sample with same-sized bytes that are no zip archive.
        const fs::path f = fs::path(t.folder) / "train" / "img_7_of_8.npz";
        const auto size = fs::file_size(f);
        testsupport::writeText(f, std::string(size, 'x'));
        const auto r = testsupport::runCli({QStringLiteral("run"), QStringLiteral("--config"), cfg, QStringLiteral("--output"),
                                            tmp.filePath(QStringLiteral("out")), QStringLiteral("--quiet")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("img_7_of_8.npz: does not start like a zip archive (npz)")), qPrintable(r.err));
    }

    // Defect 4: an output folder that cannot be written stops the run before it measures (even as root:
    // a path below a regular file, and a folder of /proc, cannot be created by anyone).
    void unwritableOutputStopsBeforeMeasuring() {
        QTemporaryDir tmp;
        Tiny t;
        t.folder = tmp.filePath(QStringLiteral("data")).toStdString();
        const QString cfg = writeWorkload(tmp, t);
        QVERIFY(testsupport::runCli({QStringLiteral("datagen"), QStringLiteral("--config"), cfg, QStringLiteral("--quiet")}).exitCode == 0);
        testsupport::writeText(tmp.filePath(QStringLiteral("plainfile")).toStdString(), "x");
        for (const QString& out : {tmp.filePath(QStringLiteral("plainfile/out")), QStringLiteral("/proc/trainio-out")}) {
            for (const char* cmd : {"run", "benchmark"}) {
                const auto r = testsupport::runCli({QLatin1String(cmd), QStringLiteral("--config"), cfg, QStringLiteral("--output"),
                                                    out, QStringLiteral("--quiet"), QStringLiteral("--runs"), QStringLiteral("1")});
                QCOMPARE(r.exitCode, 2);
                QVERIFY2(r.err.contains(QStringLiteral("--output: ")), qPrintable(r.err));
                QVERIFY2(r.err.contains(QStringLiteral("nothing was measured")), qPrintable(r.err));
                QVERIFY2(!r.err.contains(QStringLiteral("samples/s")), qPrintable(r.err)); // no headline: no run happened
            }
        }
        // An output folder that already holds a result is not overwritten.
        const QString out = tmp.filePath(QStringLiteral("out"));
        QVERIFY(testsupport::runCli({QStringLiteral("run"), QStringLiteral("--config"), cfg, QStringLiteral("--output"), out,
                                     QStringLiteral("--quiet")}).exitCode == 0);
        const std::string before = testsupport::readText(out.toStdString() + "/summary.json");
        const auto r = testsupport::runCli({QStringLiteral("run"), QStringLiteral("--config"), cfg, QStringLiteral("--output"), out,
                                            QStringLiteral("--quiet")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("already holds a result")), qPrintable(r.err));
        QCOMPARE(testsupport::readText(out.toStdString() + "/summary.json"), before);
    }

    // Defect 6, last part: a failed run keeps what it measured, but its AU-0 summary is not imported as a
    // result: aggregate lists it as skipped with the reason.
    void failedRunIsNotImportedAsAResult() {
        QTemporaryDir tmp;
        Tiny t;
        t.folder = tmp.filePath(QStringLiteral("data")).toStdString();
        t.files = 16;
        t.extra = "";
        const QString cfg = writeWorkload(tmp, t);
        QVERIFY(testsupport::runCli({QStringLiteral("datagen"), QStringLiteral("--config"), cfg, QStringLiteral("--quiet")}).exitCode == 0);
        const QString root = tmp.filePath(QStringLiteral("results"));
        const QString good = root + QStringLiteral("/good"), bad = root + QStringLiteral("/bad");
        QVERIFY(testsupport::runCli({QStringLiteral("run"), QStringLiteral("--config"), cfg, QStringLiteral("--output"), good,
                                     QStringLiteral("--quiet")}).exitCode == 0);
        // The disk fails under the readers after a few files: the run fails mid-way (fault injection hook).
        const auto r = testsupport::runCli({QStringLiteral("run"), QStringLiteral("--config"), cfg, QStringLiteral("--output"), bad,
                                            QStringLiteral("--quiet")},
                                           300000, {{QStringLiteral("TRAINIO_FAULTS"), QStringLiteral("read:EIO:img_09_of_16")}});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(fs::exists(bad.toStdString() + "/summary.json"));
        QVERIFY(testsupport::readText(bad.toStdString() + "/trainio_run.json").find("\"failed\"") != std::string::npos);
        const auto a = testsupport::runCli({QStringLiteral("aggregate"), root, QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(a.exitCode == 0, qPrintable(a.err));
        const auto j = nlohmann::json::parse(a.out.toStdString());
        std::size_t runs = 0;
        for (const auto& g : j.at("groups")) runs += g.at("runs").size();
        QCOMPARE(runs, std::size_t(1));
        // Shown, marked failed with its reason, in no statistic.
        bool shown = false;
        for (const auto& g : j.at("groups"))
            for (const auto& x : g.at("excluded"))
                shown = shown || (x.at("status") == "failed" && x.at("status_reason").get<std::string>().find("img_09_of_16") != std::string::npos);
        QVERIFY2(shown, qPrintable(a.out));
    }

    // The same class of defect in the command line's own numbers.
    void optionNumbersAreStrict_data() {
        QTest::addColumn<QString>("option");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("message");
        QTest::newRow("text") << "--accelerators" << "abc-12x" << "--accelerators = 'abc-12x': expected a whole number 1 … 4096";
        QTest::newRow("negative") << "--accelerators" << "-3" << "--accelerators = '-3': expected a whole number 1 … 4096";
        QTest::newRow("1e99") << "--accelerators" << "1e99" << "--accelerators = '1e99': expected a whole number 1 … 4096";
        QTest::newRow("huge") << "--accelerators" << "99999999999999999999"
                              << "--accelerators = '99999999999999999999': expected a whole number 1 … 4096";
        QTest::newRow("zero") << "--accelerators" << "0" << "--accelerators = 0: expected a whole number 1 … 4096";
        QTest::newRow("trailing space") << "--accelerators" << "4 " << "--accelerators = '4 ': expected a whole number 1 … 4096";
        QTest::newRow("runs") << "--runs" << "0" << "--runs = 0: expected a whole number 1 … 1000";
        QTest::newRow("warmup") << "--warmup" << "11" << "--warmup = 11: expected a whole number 0 … 10";
    }
    void optionNumbersAreStrict() {
        QFETCH(QString, option);
        QFETCH(QString, value);
        QFETCH(QString, message);
        QTemporaryDir tmp;
        Tiny t;
        t.folder = tmp.filePath(QStringLiteral("data")).toStdString();
        const QString cfg = writeWorkload(tmp, t);
        const auto r = testsupport::runCli({QStringLiteral("benchmark"), QStringLiteral("--config"), cfg, QStringLiteral("--output"),
                                            tmp.filePath(QStringLiteral("out")), option, value});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestFirstHour)
#include "tst_first_hour.moc"
