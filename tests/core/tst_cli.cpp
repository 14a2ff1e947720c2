// trainio-cli end to end, as a user runs it: real processes, real files in temporary folders.
// datagen → run (2 accelerators) → metrics → benchmark → aggregate, the bad-config corpus (exit 2,
// message naming the key), option forms, live JSON, and an interrupt that keeps what was measured.
#include "testsupport.h"

#include <nlohmann/json.hpp>

#include <QDate>
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

// Seconds from `a` to `b`, two of DLIO's timestamps ("2026-11-23T01:13:42.479596"): whole days and the
// seconds within the day apart, so that microseconds survive in a double.
double secondsBetween(const std::string& a, const std::string& b) {
    auto split = [](const std::string& t, qint64& day, double& sec) {
        const QString q = QString::fromStdString(t);
        const QStringList dt = q.split('T');
        QCOMPARE(dt.size(), 2);
        day = QDate::fromString(dt[0], Qt::ISODate).toJulianDay();
        const QStringList hms = dt[1].split(':');
        QCOMPARE(hms.size(), 3);
        sec = hms[0].toInt() * 3600.0 + hms[1].toInt() * 60.0 + hms[2].toDouble();
    };
    qint64 da = 0, db = 0;
    double sa = 0, sb = 0;
    split(a, da, sa);
    split(b, db, sb);
    return static_cast<double>(db - da) * 86400.0 + (sb - sa);
}

double sumOf(const ordered_json& list, std::size_t from, std::size_t to) {
    double s = 0;
    for (std::size_t i = from; i < std::min(to, list.size()); ++i) s += list[i].get<double>();
    return s;
}

// The invocation metrics of SPEC §5 / docs/metrics.md, computed here from the step records a run
// wrote (<rank>_output.json, <rank>_per_epoch_stats.json) for one block per epoch.
struct HandMetrics {
    std::vector<double> auPerEpoch, samplesPerEpoch;
};

HandMetrics handMetrics(const std::filesystem::path& dir, int ranks, int epochs, bool v1, std::size_t stepsPerEpoch,
                        double batch) {
    HandMetrics m;
    for (int e = 1; e <= epochs; ++e) {
        const std::string ep = std::to_string(e);
        double au = 0, samples = 0;
        for (int r = 0; r < ranks; ++r) {
            const ordered_json out = readJson(dir / (std::to_string(r) + "_output.json"));
            const ordered_json stats = readJson(dir / (std::to_string(r) + "_per_epoch_stats.json"));
            const ordered_json& proc = out[ep]["proc"]["block1"];
            const ordered_json& compute = out[ep]["compute"]["block1"];
            const double T = secondsBetween(stats[ep]["block1"]["start"].get<std::string>(),
                                            stats[ep]["block1"]["end"].get<std::string>());
            if (v1) { // AU = Σ compute[1:] ÷ (T − proc[0]); samples/s = S ÷ T × batch
                au += 100.0 * sumOf(compute, 1, compute.size()) / (T - proc[0].get<double>());
                samples += static_cast<double>(proc.size()) / T * batch;
            } else { // s = 1, e = 0: end = steps − 1; the window excludes proc[0] and proc[steps:]
                const std::size_t end = stepsPerEpoch - 1;
                const double time = T - proc[0].get<double>() - sumOf(proc, end + 1, proc.size());
                au += 100.0 * sumOf(compute, 1, end + 1) / time;
                samples += (static_cast<double>(compute.size()) - 2.0) / time * batch;
            }
        }
        m.auPerEpoch.push_back(au / ranks); // AU: mean over ranks; samples/s: sum over ranks
        m.samplesPerEpoch.push_back(samples);
    }
    return m;
}

// Checks a metric JSON object (the `metrics` command's output or summary.json's "metric") against
// hand-computed metrics, within a relative tolerance.
void compareWithHand(const ordered_json& metric, const HandMetrics& hand, double recordLength, double tol,
                     const char* what) {
    using testsupport::meanOf;
    using testsupport::populationStdevOf;
    // A stdev is a difference of nearly equal numbers: its error is relative to the mean's size.
    const auto check = [&](const char* key, double expected, double scale = 0) {
        const double got = metric[key].get<double>();
        QVERIFY2(std::abs(got - expected) <= tol * std::max(std::abs(expected), scale),
                 qPrintable(QStringLiteral("%1 %2: %3, by hand %4").arg(QLatin1String(what), QLatin1String(key))
                                .arg(got, 0, 'g', 12).arg(expected, 0, 'g', 12)));
    };
    QCOMPARE(metric["train_au_percentage"].size(), hand.auPerEpoch.size());
    for (std::size_t e = 0; e < hand.auPerEpoch.size(); ++e) {
        const auto at = [&](const char* key, double expected) {
            const double got = metric[key][e].get<double>();
            QVERIFY2(relClose(got, expected, tol), qPrintable(QStringLiteral("%1 %2[%3]: %4, by hand %5")
                                                                  .arg(QLatin1String(what), QLatin1String(key))
                                                                  .arg(e)
                                                                  .arg(got, 0, 'g', 12)
                                                                  .arg(expected, 0, 'g', 12)));
        };
        at("train_au_percentage", hand.auPerEpoch[e]);
        at("train_throughput_samples_per_second", hand.samplesPerEpoch[e]);
    }
    check("train_au_mean_percentage", meanOf(hand.auPerEpoch));
    check("train_au_stdev_percentage", populationStdevOf(hand.auPerEpoch), meanOf(hand.auPerEpoch));
    check("train_throughput_mean_samples_per_second", meanOf(hand.samplesPerEpoch));
    check("train_throughput_stdev_samples_per_second", populationStdevOf(hand.samplesPerEpoch),
          meanOf(hand.samplesPerEpoch));
    check("train_io_mean_MB_per_second", meanOf(hand.samplesPerEpoch) * recordLength / 1048576.0);
}

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
             QStringLiteral("--semantics"), QStringLiteral("v4")},
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

        // The metrics recomputed here from the step records by SPEC §5's formulas. `metrics` reads the
        // same records but holds timestamps as Unix seconds in a double (0.24 µs steps): 1e-4 relative
        // on a 25 ms epoch. summary.json was computed from the run's own clock, which the µs rounding
        // of the written timestamps moves by up to 2 µs: 1e-3. A wrong formula is off by >= 1/8.
        const double recordLength = 131072, batch = 2;
        const HandMetrics v2Hand = handMetrics(dir, 2, 3, false, 8, batch);
        const HandMetrics v1Hand = handMetrics(dir, 2, 3, true, 8, batch);
        compareWithHand(mine["metric"], v2Hand, recordLength, 1e-3, "summary.json");
        if (QTest::currentTestFailed()) return;
        r = testsupport::runCli({QStringLiteral("metrics"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        compareWithHand(ordered_json::parse(r.out.toStdString()), v2Hand, recordLength, 1e-4, "metrics (v2)");
        if (QTest::currentTestFailed()) return;
        r = testsupport::runCli({QStringLiteral("metrics"), out, QStringLiteral("--semantics"), QStringLiteral("v1")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        compareWithHand(ordered_json::parse(r.out.toStdString()), v1Hand, recordLength, 1e-4, "metrics --semantics v1");
        if (QTest::currentTestFailed()) return;
        // The two semantics really differ on these records (v1 counts all 8 steps over the whole block).
        QVERIFY(!relClose(testsupport::meanOf(v1Hand.samplesPerEpoch), testsupport::meanOf(v2Hand.samplesPerEpoch), 1e-3));

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
        // MLPerf Storage's rule (SPEC §7, report.py): per run, the host summaries' headline means; over
        // the runs, their mean and population stdev. Computed here from the five summary.json files.
        std::vector<double> samples, mib;
        for (int i = 1; i <= 5; ++i) {
            const ordered_json m = readJson(dir / "runs" / ("run-" + std::to_string(i)) / "summary.json")["metric"];
            samples.push_back(m["train_throughput_mean_samples_per_second"].get<double>());
            mib.push_back(m["train_io_mean_MB_per_second"].get<double>());
        }
        const std::pair<const char*, double> expected[] = {
            {"train_throughput_mean_samples_per_second", testsupport::meanOf(samples)},
            {"train_throughput_stdev_samples_per_second", testsupport::populationStdevOf(samples)},
            {"train_throughput_mean_MB_per_second", testsupport::meanOf(mib)},
            {"train_throughput_stdev_MB_per_second", testsupport::populationStdevOf(mib)}};
        QVERIFY(testsupport::populationStdevOf(samples) > 0); // five real runs never agree to the last digit
        const ordered_json report = readJson(dir / "runs" / "mlperf_storage_report.json");
        r = testsupport::runCli({QStringLiteral("aggregate"), out + QStringLiteral("/runs"), QStringLiteral("--format"),
                                 QStringLiteral("json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const auto agg = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(agg["groups"].size(), std::size_t(1));
        const auto& g = agg["groups"][0];
        QCOMPARE(g["num_runs"].get<int>(), 5);
        for (const auto& [k, v] : expected) {
            QVERIFY2(relClose(g[k].get<double>(), v, 1e-9),
                     qPrintable(QStringLiteral("aggregate %1: %2, expected %3").arg(QLatin1String(k)).arg(g[k].get<double>()).arg(v)));
            QVERIFY2(relClose(report["overall"][k].get<double>(), v, 1e-9),
                     qPrintable(QStringLiteral("mlperf_storage_report.json %1: %2, expected %3")
                                    .arg(QLatin1String(k)).arg(report["overall"][k].get<double>()).arg(v)));
        }
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
        // Wait (by polling the live stream, bounded) until the second epoch has finished: the stream's
        // complete lines are parsed, and an epoch event must name its epoch and the run's 50 epochs.
        QElapsedTimer t;
        t.start();
        int epochsSeen = 0;
        while (epochsSeen < 2 && t.elapsed() < 60000 && p.state() == QProcess::Running) {
            p.waitForFinished(20);
            QFile lf(live);
            if (!lf.open(QIODevice::ReadOnly)) continue;
            const QString text = QString::fromUtf8(lf.readAll());
            epochsSeen = 0;
            for (const QString& line : text.left(text.lastIndexOf('\n') + 1).split('\n', Qt::SkipEmptyParts)) {
                const auto j = nlohmann::json::parse(line.toStdString());
                if (j["event"] != "epoch") continue;
                ++epochsSeen;
                QCOMPARE(j["epoch"].get<int>(), epochsSeen);
                QCOMPARE(j["epochs"].get<int>(), 50);
            }
        }
        QVERIFY2(epochsSeen >= 2, qPrintable(QStringLiteral("%1 epoch events after %2 ms").arg(epochsSeen).arg(t.elapsed())));
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(testsupport::kHangMs));
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
