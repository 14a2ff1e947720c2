// SIGINT / SIGTERM on the real trainio-cli (docs/reliability.md): during a run and during generation
// the process stops within one step, writes what was measured, exits 1 (never dies of the signal);
// a second signal exits at once (128 + signal). The test knows a run has started by polling its
// --live-json stream, and stalls the result writer with the TRAINIO_FAULTS hook to catch it there.
#include "testsupport.h"

#include "config/config_loader.h"
#include "dataset/dataset_generator.h"

#include <nlohmann/json.hpp>

#include <QElapsedTimer>
#include <QFile>
#include <QProcessEnvironment>

#include <csignal>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string yamlFor(const fs::path& data, int files, int recordBytes, double compute, int epochs) {
    return "model:\n  name: sig\nframework: pytorch\nworkflow:\n  generate_data: False\n  train: True\n"
           "dataset:\n  data_folder: " + data.string() + "\n  format: npz\n  num_files_train: " + std::to_string(files) +
           "\n  num_samples_per_file: 1\n  record_length_bytes: " + std::to_string(recordBytes) +
           "\nreader:\n  data_loader: pytorch\n  batch_size: 2\n  read_threads: 2\n  file_shuffle: seed\n"
           "  sample_shuffle: seed\ntrain:\n  epochs: " + std::to_string(epochs) + "\n  computation_time: " +
           std::to_string(compute) + "\nmetric:\n  au: 0.5\n";
}

QString q(const fs::path& p) { return QString::fromStdString(p.string()); }

int countIn(const fs::path& file, const QString& needle) {
    QFile f(q(file));
    if (!f.open(QIODevice::ReadOnly)) return 0;
    return static_cast<int>(QString::fromUtf8(f.readAll()).count(needle));
}

void startCli(QProcess& p, const QStringList& args, const QString& faults = {}) {
    if (!faults.isEmpty()) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TRAINIO_FAULTS"), faults);
        p.setProcessEnvironment(env);
    }
    p.start(QStringLiteral(TRAINIO_CLI), args);
    QVERIFY(p.waitForStarted());
}

json readJson(const fs::path& p) { return json::parse(testsupport::readText(p)); }

const QString kStep = QStringLiteral("\"event\":\"step\"");
const QString kEpoch = QStringLiteral("\"event\":\"epoch\"");

} // namespace

class TestSignal : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    fs::path base_;
    QString cfg_;

private slots:
    void initTestCase() {
        base_ = tmp_.path().toStdString();
        // 16 files, 8 steps of 0.1 s per epoch, 200 epochs: long enough that only a signal ends it.
        testsupport::writeText(base_ / "sig.yaml", yamlFor(base_ / "data", 16, 65536, 0.1, 200));
        cfg_ = q(base_ / "sig.yaml");
        QCOMPARE(testsupport::runCli({QStringLiteral("datagen"), QStringLiteral("--config"), cfg_, QStringLiteral("--quiet")}).exitCode,
                 0);
    }

    void signalDuringRunStopsWithinAStep_data() {
        QTest::addColumn<int>("sig");
        QTest::newRow("SIGINT") << int(SIGINT);
        QTest::newRow("SIGTERM") << int(SIGTERM);
    }
    void signalDuringRunStopsWithinAStep() {
        QFETCH(int, sig);
        const fs::path out = base_ / ("run-" + std::to_string(sig));
        const fs::path live = base_ / ("live-" + std::to_string(sig) + ".jsonl");
        QProcess p;
        startCli(p, {QStringLiteral("run"), QStringLiteral("--config"), cfg_, QStringLiteral("--output"), q(out),
                     QStringLiteral("--accelerators"), QStringLiteral("2"), QStringLiteral("--live-json"), q(live),
                     QStringLiteral("--quiet")});
        // After the first epoch (2 ranks × 4 steps) and a step of each rank into the second.
        QVERIFY(testsupport::waitUntil(p, [&] { return countIn(live, kEpoch) >= 1 && countIn(live, kStep) >= 2 * 4 + 2; }));
        const int stepsBefore = countIn(live, kStep);
        ::kill(static_cast<pid_t>(p.processId()), sig);
        QVERIFY(p.waitForFinished(testsupport::kHangMs)); // the run alone would last 160 s
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 1);
        // Within one step: a step in flight when the signal lands is not completed (compute is
        // interrupted, a batch wait returns), so at most the steps of both ranks that finished
        // between reading the stream and the kill are added: counted, not timed (issue 29).
        QVERIFY2(countIn(live, kStep) <= stepsBefore + 2, qPrintable(QString::number(countIn(live, kStep) - stepsBefore)));
        const json s = readJson(out / "summary.json");
        QCOMPARE(s["trainio_status"].get<std::string>(), std::string("cancelled"));
        QVERIFY(s["epochs"].get<int>() >= 1);
        QCOMPARE(readJson(out / "trainio_run.json")["status"].get<std::string>(), std::string("cancelled"));
        for (const char* rank : {"0", "1"}) {
            const json o = readJson(out / (std::string(rank) + "_output.json"));
            QCOMPARE(o["1"]["proc"]["block1"].size(), std::size_t(4)); // the completed epoch, whole
        }
        QVERIFY(QString::fromUtf8(p.readAllStandardError()).contains(QStringLiteral("interrupted")));
    }

    void secondSignalExitsAtOnce() {
        const fs::path out = base_ / "run-twice";
        const fs::path live = base_ / "live-twice.jsonl";
        QProcess p;
        // The summary write stalls for a minute: the first signal's orderly stop is still busy when
        // the second arrives.
        startCli(p,
                 {QStringLiteral("run"), QStringLiteral("--config"), cfg_, QStringLiteral("--output"), q(out),
                  QStringLiteral("--live-json"), q(live), QStringLiteral("--quiet")},
                 QStringLiteral("write:delay:summary.json:ms=60000"));
        QVERIFY(testsupport::waitUntil(p, [&] { return countIn(live, kStep) >= 2; }));
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        // trainio.log is written right before summary.json.
        QVERIFY(testsupport::waitUntil(p, [&] { return fs::exists(out / "trainio.log"); }));
        QVERIFY(p.state() != QProcess::NotRunning);
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(testsupport::kHangMs));
        // At once, not after the stalled write: its exit code, and no summary (the stalled write would have
        // ended with 1 and the summary in place a minute later). No duration asserted (issue 29).
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 128 + SIGINT);
        // Nothing that looks like a result: the summary never got its name.
        QVERIFY(!fs::exists(out / "summary.json"));
        QCOMPARE(readJson(out / "trainio_run.json")["status"].get<std::string>(), std::string("cancelled"));
    }

    void signalDuringGenerationStopsAndResumes() {
        const fs::path data = base_ / "gen";
        const fs::path yaml = base_ / "gen.yaml";
        testsupport::writeText(yaml, yamlFor(data, 200, 262144, 0.001, 1));
        const QString cfg = q(yaml);
        QProcess p;
        // Every data write takes 50 ms: 200 files on 2 threads take ~5 s, so the signal lands mid-way.
        startCli(p, {QStringLiteral("datagen"), QStringLiteral("--config"), cfg, QStringLiteral("--quiet")},
                 QStringLiteral("write:delay:img_:ms=50"));
        auto finalFiles = [&] {
            int n = 0;
            std::error_code ec;
            for (const auto& e : fs::directory_iterator(data / "train", ec))
                if (e.path().filename().string().rfind("img_", 0) == 0) ++n;
            return n;
        };
        QVERIFY(testsupport::waitUntil(p, [&] { return finalFiles() >= 4; }));
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(testsupport::kHangMs));
        // Stopped mid-way, not run to its end: the exit code and the files kept say it (not a duration).
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 1);
        QVERIFY(QString::fromUtf8(p.readAllStandardError()).contains(QStringLiteral("cancelled")));
        const int kept = finalFiles();
        QVERIFY(kept >= 4 && kept < 200);
        // No temporaries, and every file under its final name is whole.
        for (const auto& e : fs::recursive_directory_iterator(data))
            QVERIFY2(e.path().filename().string().find(".tmp-") == std::string::npos, e.path().c_str());
        auto v = testsupport::runCli({QStringLiteral("verify"), QStringLiteral("--config"), cfg});
        QCOMPARE(v.exitCode, 1);
        QVERIFY2(!v.err.contains(QStringLiteral("bytes, expected")), qPrintable(v.err));
        QVERIFY(v.out.contains(QStringLiteral("verify: ") + QString::number(kept) + QStringLiteral(" files ok")));
        // Resuming writes only what is missing.
        const auto r = testsupport::runCli({QStringLiteral("datagen"), QStringLiteral("--config"), cfg, QStringLiteral("--quiet")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains(QString::number(200 - kept) + QStringLiteral(" files written, ") + QString::number(kept) +
                                QStringLiteral(" already complete")),
                 qPrintable(r.err));
        QCOMPARE(testsupport::runCli({QStringLiteral("verify"), QStringLiteral("--config"), cfg}).exitCode, 0);
    }
};

QTEST_GUILESS_MAIN(TestSignal)
#include "tst_signal.moc"
