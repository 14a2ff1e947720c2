// trainio-cli end to end, as a user runs it: real processes, real files in temporary folders.
// datagen → run (2 accelerators) → metrics → benchmark → aggregate, the bad-config corpus (exit 2,
// message naming the key), option forms, live JSON, and an interrupt that keeps what was measured.
#include "testsupport.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <csignal>

using nlohmann::ordered_json;

namespace {

QString writeTinyWorkload(const QTemporaryDir& tmp, const QString& format = QStringLiteral("npz"), int epochs = 3,
                          double compute = 0.003) {
    const QString path = tmp.filePath(QStringLiteral("tiny.yaml"));
    const std::string yaml = "model:\n  name: tiny\n  type: cnn\nframework: pytorch\nworkflow:\n  generate_data: False\n"
                             "  train: True\ndataset:\n  data_folder: " + tmp.filePath(QStringLiteral("data")).toStdString() +
                             "\n  format: " + format.toStdString() +
                             "\n  num_files_train: 32\n  num_samples_per_file: 1\n  record_length_bytes: 131072\n"
                             "  record_length_bytes_stdev: 16384\nreader:\n  data_loader: pytorch\n  batch_size: 2\n"
                             "  read_threads: 2\n  file_shuffle: seed\n  sample_shuffle: seed\ntrain:\n  epochs: " +
                             std::to_string(epochs) + "\n  computation_time: " + std::to_string(compute) +
                             "\nmetric:\n  au: 0.5\n";
    testsupport::writeText(path.toStdString(), yaml);
    return path;
}

ordered_json readJson(const std::filesystem::path& p) { return ordered_json::parse(testsupport::readText(p)); }

bool relClose(double a, double b, double tol) { return std::abs(a - b) <= tol * std::max(1e-12, std::abs(b)); }

} // namespace

class TestCli : public QObject {
    Q_OBJECT
private slots:
    void versionAndHelp() {
        auto r = testsupport::runCli({QStringLiteral("--version")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.startsWith(QStringLiteral("trainio-cli ")));
        r = testsupport::runCli({QStringLiteral("--help")});
        QCOMPARE(r.exitCode, 0);
        for (const char* cmd : {"validate", "datagen", "run", "benchmark", "metrics", "aggregate"}) {
            QVERIFY(r.out.contains(QLatin1String(cmd)));
            const auto h = testsupport::runCli({QLatin1String(cmd), QStringLiteral("--help")});
            QCOMPARE(h.exitCode, 0);
            QVERIFY2(h.out.contains(QStringLiteral("Usage")), qPrintable(h.out));
        }
        QCOMPARE(testsupport::runCli({QStringLiteral("frobnicate")}).exitCode, 2);
        QCOMPARE(testsupport::runCli({}).exitCode, 2);
    }
    void validatesEveryFixtureYamlBothOptionForms() {
        const QDir dir(QString::fromStdString((testsupport::fixtures() / "dlio-workloads-v1.0").string()));
        const auto files = dir.entryList({QStringLiteral("*.yaml")});
        QCOMPARE(files.size(), 6);
        for (const auto& f : files) {
            auto r = testsupport::runCli({QStringLiteral("validate"), QStringLiteral("--config"), dir.filePath(f)});
            QVERIFY2(r.exitCode == 0, qPrintable(f + r.err));
            r = testsupport::runCli({QStringLiteral("validate"), QStringLiteral("--config=") + dir.filePath(f),
                                     QStringLiteral("++workload.reader.read_threads=8")});
            QVERIFY2(r.exitCode == 0, qPrintable(f + r.err));
        }
    }
    void badConfigCorpusExitsTwoNamingTheKey() {
        const QDir dir(QStringLiteral(TRAINIO_TEST_DATA "/configs/bad"));
        const auto files = dir.entryList({QStringLiteral("*.yaml")});
        QVERIFY(files.size() >= 15);
        for (const auto& f : files) {
            const std::string text = testsupport::readText(dir.filePath(f).toStdString());
            const auto first = QString::fromStdString(text.substr(0, text.find('\n')));
            QVERIFY2(first.startsWith(QStringLiteral("# expect: ")), qPrintable(f));
            const QString key = first.mid(10).trimmed();
            const auto r = testsupport::runCli({QStringLiteral("validate"), QStringLiteral("--config"), dir.filePath(f)});
            QVERIFY2(r.exitCode == 2, qPrintable(f + QStringLiteral(": exit ") + QString::number(r.exitCode)));
            QVERIFY2(r.err.contains(key), qPrintable(f + QStringLiteral(": ") + r.err));
        }
    }
    void badArgumentsExitTwo() {
        QTemporaryDir tmp;
        const QString cfg = writeTinyWorkload(tmp);
        const QList<QStringList> cases = {
            {QStringLiteral("run"), QStringLiteral("--config"), cfg},                                    // no --output
            {QStringLiteral("run"), QStringLiteral("--config"), cfg, QStringLiteral("--output"), tmp.path(),
             QStringLiteral("--semantics"), QStringLiteral("v3")},
            {QStringLiteral("run"), QStringLiteral("--config"), cfg, QStringLiteral("--bogus")},
            {QStringLiteral("validate"), QStringLiteral("--config"), QStringLiteral("/nonexistent.yaml")},
            {QStringLiteral("validate"), QStringLiteral("--config"), cfg, QStringLiteral("++workload.reader.batch_size=0")},
            {QStringLiteral("run"), QStringLiteral("--config"), cfg, QStringLiteral("--output"), tmp.filePath("o"),
             QStringLiteral("--accelerators"), QStringLiteral("two")},
        };
        for (const auto& c : cases) {
            const auto r = testsupport::runCli(c);
            QVERIFY2(r.exitCode == 2, qPrintable(c.join(' ') + QStringLiteral(" → ") + QString::number(r.exitCode)));
            QVERIFY2(r.err.startsWith(QStringLiteral("error: ")), qPrintable(r.err));
        }
        // No dataset yet: bad input naming the data folder.
        const auto r = testsupport::runCli({QStringLiteral("run"), QStringLiteral("--config"), cfg,
                                            QStringLiteral("--output"), tmp.filePath("o")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("data_folder")), qPrintable(r.err));
    }

    void datagenRunMetricsEndToEnd() {
        QTemporaryDir tmp;
        const QString cfg = writeTinyWorkload(tmp);
        auto r = testsupport::runCli({QStringLiteral("datagen"), QStringLiteral("--config"), cfg, QStringLiteral("--quiet")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString out = tmp.filePath(QStringLiteral("run1"));
        const QString live = tmp.filePath(QStringLiteral("live.jsonl"));
        r = testsupport::runCli({QStringLiteral("run"), QStringLiteral("--config"), cfg, QStringLiteral("--output"), out,
                                 QStringLiteral("--accelerators"), QStringLiteral("2"), QStringLiteral("--live-json"), live,
                                 QStringLiteral("--quiet")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const std::filesystem::path dir = out.toStdString();
        for (const char* f : {"summary.json", "0_output.json", "1_output.json", "0_per_epoch_stats.json",
                              "1_per_epoch_stats.json", "configs/config.yaml", "configs/overrides.yaml",
                              "trainio_run.json", "trainio.log"})
            QVERIFY2(std::filesystem::exists(dir / f), f);
        // summary.json: DLIO's keys in DLIO's order (compared with a summary DLIO wrote).
        const ordered_json mine = readJson(dir / "summary.json");
        const ordered_json dlio = readJson(testsupport::fixtures() / "dlio-runs" / "unet3d_small_np2" / "summary.json");
        std::vector<std::string> mk, dk, mmk, dmk;
        for (auto it = mine.begin(); it != mine.end(); ++it) mk.push_back(it.key());
        for (auto it = dlio.begin(); it != dlio.end(); ++it) dk.push_back(it.key());
        for (auto it = mine["metric"].begin(); it != mine["metric"].end(); ++it) mmk.push_back(it.key());
        for (auto it = dlio["metric"].begin(); it != dlio["metric"].end(); ++it) dmk.push_back(it.key());
        QCOMPARE(mk, dk);
        QCOMPARE(mmk, dmk);
        QCOMPARE(mine["num_accelerators"].get<int>(), 2);
        QCOMPARE(mine["epochs"].get<int>(), 3);
        QCOMPARE(mine["metric"]["train_au_percentage"].size(), std::size_t(3));
        // model "tiny" with no accelerator named: the documented default accelerator label.
        QCOMPARE(testsupport::readText(dir / "configs" / "overrides.yaml").substr(0, 24),
                 std::string("- workload=tiny_generic\n"));
        // 32 files / batch 2 / 2 ranks = 8 steps per epoch per rank, 3 epochs.
        const ordered_json o1 = readJson(dir / "1_output.json");
        QCOMPARE(o1["2"]["proc"]["block1"].size(), std::size_t(8));
        QCOMPARE(readJson(dir / "trainio_run.json")["status"].get<std::string>(), std::string("complete"));

        // `metrics` recomputes the summary from the step records (µs timestamps: 1e-4 relative).
        r = testsupport::runCli({QStringLiteral("metrics"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const auto re = nlohmann::json::parse(r.out.toStdString());
        for (const char* k : {"train_au_mean_percentage", "train_throughput_mean_samples_per_second",
                              "train_io_mean_MB_per_second"})
            QVERIFY2(relClose(re[k].get<double>(), mine["metric"][k].get<double>(), 1e-4), k);
        // v1 semantics give different (DLIO 1.0) numbers from the same records.
        r = testsupport::runCli({QStringLiteral("metrics"), out, QStringLiteral("--semantics"), QStringLiteral("v1")});
        QCOMPARE(r.exitCode, 0);
        const auto v1 = nlohmann::json::parse(r.out.toStdString());
        QVERIFY(v1["train_throughput_mean_samples_per_second"].get<double>() !=
                re["train_throughput_mean_samples_per_second"].get<double>());

        // Live JSON: a line per step per rank (2 × 3 × 8) plus epochs.
        QFile lf(live);
        QVERIFY(lf.open(QIODevice::ReadOnly));
        int steps = 0, epochs = 0;
        for (const auto& line : QString::fromUtf8(lf.readAll()).split('\n', Qt::SkipEmptyParts)) {
            const auto j = nlohmann::json::parse(line.toStdString());
            steps += j["event"] == "step";
            epochs += j["event"] == "epoch";
        }
        QCOMPARE(steps, 48);
        QCOMPARE(epochs, 3);
    }

    void benchmarkThenAggregateAgree() {
        QTemporaryDir tmp;
        const QString cfg = writeTinyWorkload(tmp, QStringLiteral("tfrecord"), 2);
        const QString out = tmp.filePath(QStringLiteral("bench"));
        auto r = testsupport::runCli({QStringLiteral("benchmark"), QStringLiteral("--config"), cfg,
                                      QStringLiteral("++workload.workflow.generate_data=True"), QStringLiteral("--output"),
                                      out, QStringLiteral("--runs"), QStringLiteral("5"), QStringLiteral("--quiet")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const std::filesystem::path dir = out.toStdString();
        QVERIFY(std::filesystem::exists(dir / "warmup" / "summary.json"));
        for (int i = 1; i <= 5; ++i)
            QVERIFY(std::filesystem::exists(dir / "runs" / ("run-" + std::to_string(i)) / "summary.json"));
        QVERIFY(!std::filesystem::exists(dir / "runs" / "warmup"));
        QVERIFY(std::filesystem::exists(dir / "aggregate.json"));
        const ordered_json report = readJson(dir / "runs" / "mlperf_storage_report.json");
        r = testsupport::runCli({QStringLiteral("aggregate"), out + QStringLiteral("/runs"), QStringLiteral("--format"),
                                 QStringLiteral("json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const auto agg = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(agg["groups"].size(), std::size_t(1));
        const auto& g = agg["groups"][0];
        QCOMPARE(g["num_runs"].get<int>(), 5);
        for (const char* k : {"train_throughput_mean_samples_per_second", "train_throughput_stdev_samples_per_second",
                              "train_throughput_mean_MB_per_second", "train_throughput_stdev_MB_per_second"})
            QVERIFY2(relClose(g[k].get<double>(), report["overall"][k].get<double>(), 1e-9), k);
    }

    void interruptKeepsWhatWasMeasured() {
        QTemporaryDir tmp;
        const QString cfg = writeTinyWorkload(tmp, QStringLiteral("npz"), 50, 0.02);
        QCOMPARE(testsupport::runCli({QStringLiteral("datagen"), QStringLiteral("--config"), cfg, QStringLiteral("--quiet")})
                     .exitCode,
                 0);
        const QString out = tmp.filePath(QStringLiteral("run"));
        const QString live = tmp.filePath(QStringLiteral("live.jsonl"));
        QProcess p;
        p.start(QStringLiteral(TRAINIO_CLI), {QStringLiteral("run"), QStringLiteral("--config"), cfg,
                                              QStringLiteral("--output"), out, QStringLiteral("--live-json"), live,
                                              QStringLiteral("--quiet")});
        QVERIFY(p.waitForStarted());
        // Wait (by polling the live stream, bounded) until the second epoch has finished.
        QElapsedTimer t;
        t.start();
        int epochsSeen = 0;
        while (epochsSeen < 2 && t.elapsed() < 60000) {
            p.waitForFinished(20);
            QFile lf(live);
            if (lf.open(QIODevice::ReadOnly)) epochsSeen = QString::fromUtf8(lf.readAll()).count(QStringLiteral("\"epoch\",\"epochs\""));
            if (epochsSeen == 0) {
                QFile lf2(live);
                if (lf2.open(QIODevice::ReadOnly)) epochsSeen = QString::fromUtf8(lf2.readAll()).count(QStringLiteral("\"event\":\"epoch\""));
            }
        }
        QVERIFY(epochsSeen >= 2);
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 1);
        const std::filesystem::path dir = out.toStdString();
        const ordered_json s = readJson(dir / "summary.json");
        QCOMPARE(s["trainio_status"].get<std::string>(), std::string("cancelled"));
        QVERIFY(s["metric"]["train_au_percentage"].size() >= 2);
        QVERIFY(s["metric"]["train_au_percentage"].size() < 50);
        QCOMPARE(readJson(dir / "trainio_run.json")["status"].get<std::string>(), std::string("cancelled"));
        // Every completed epoch's step records are kept.
        const ordered_json o = readJson(dir / "0_output.json");
        QVERIFY(o.contains("2"));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
