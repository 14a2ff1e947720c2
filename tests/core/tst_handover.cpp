// Nothing read back (issue 20, "no re-import after a run"): what a run measured reaches its reports, the
// sweep's numbers and the library in memory (store/written_files.h, results_import.h importWritten). The
// reads are counted two ways: inside this process by the store's ReadLog (every file the store opens),
// and for trainio-cli itself by strace (every file the process opens for reading, whoever opens it). A
// session, `trainio-cli benchmark` and `trainio-cli sweep` open none of the files they wrote; what they
// hand over is what a fresh import of the folder (importResults, reading it) makes, and aggregate.json and
// the MLPerf report are byte for byte what writing them from that import gives. The GUI's run and library
// are tests/ui/tst_library_handover.cpp.
#include "import_compare.h"
#include "testsupport.h"

#include "aggregate/results_import.h"
#include "config/config_loader.h"
#include "session/session.h"
#include "store/run_folder.h"
#include "store/written_files.h"
#include "util/errors.h"

#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QStandardPaths>

namespace fs = std::filesystem;
using namespace trainio;

namespace {

// A tiny workload on emulated storage (so that the model's prediction is written too), generated on first use.
std::string yamlFor(const fs::path& data, bool generate) {
    return "model:\n  name: handover\nframework: pytorch\nworkflow:\n  generate_data: " + std::string(generate ? "True" : "False") +
           "\n  train: True\ndataset:\n  data_folder: " + data.string() +
           "\n  format: npz\n  num_files_train: 8\n  num_samples_per_file: 1\n  record_length_bytes: 16384\n"
           "reader:\n  data_loader: pytorch\n  batch_size: 2\n  read_threads: 1\ntrain:\n  epochs: 2\n  computation_time: 0.002\n"
           "metric:\n  au: 0.5\ntrainio:\n  storage:\n    bandwidth_mib_s: 400\n";
}

struct Quiet final : session::SessionObserver {};

std::string listed(const std::vector<fs::path>& files) {
    std::string out;
    for (const auto& f : files) out += "\n  " + f.string();
    return out;
}

aggregate::ImportOptions withSteps(bool steps) {
    aggregate::ImportOptions o;
    o.stepDigests = steps;
    return o;
}

// The text of `file` as written, then as writing it from a fresh import of the folder gives it (`rewrite`
// writes it again in place): the two must be equal byte for byte.
template <class Rewrite>
std::pair<std::string, std::string> writtenAndReimported(const fs::path& file, Rewrite rewrite) {
    std::string written = testsupport::readText(file);
    rewrite();
    return {std::move(written), testsupport::readText(file)};
}

// trainio-cli under strace: the files below `dir` it opened for reading (not for writing, not folders).
struct Traced {
    int exitCode = -1;
    QString err;
    QStringList readBack;
};

// Why strace cannot count here ("" when it can).
QString straceMissing() {
    const QString strace = QStandardPaths::findExecutable(QStringLiteral("strace"));
    if (strace.isEmpty()) return QStringLiteral("strace not found (packaging/setup-debian.sh --tests installs it)");
    QProcess p;
    p.start(strace, {QStringLiteral("-f"), QStringLiteral("--seccomp-bpf"), QStringLiteral("-o"), QStringLiteral("/dev/null"),
                     QStringLiteral("true")});
    if (!p.waitForFinished(testsupport::kHangMs) || p.exitCode() != 0)
        return QStringLiteral("strace cannot trace a process here (ptrace not permitted?): ") + QString::fromUtf8(p.readAllStandardError());
    return {};
}

Traced tracedCli(const QStringList& args, const fs::path& dir, const fs::path& log) {
    QProcess p;
    // LeakSanitizer cannot run under ptrace (it stops the process's threads itself, and fails with a fatal error
    // at exit): a sanitizer build counts reads with leak detection off; the other stages still detect leaks.
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    const QString asan = env.value(QStringLiteral("ASAN_OPTIONS"));
    env.insert(QStringLiteral("ASAN_OPTIONS"), (asan.isEmpty() ? QString() : asan + QLatin1Char(':')) + QStringLiteral("detect_leaks=0"));
    p.setProcessEnvironment(env);
    p.start(QStandardPaths::findExecutable(QStringLiteral("strace")),
            // --seccomp-bpf: only the traced calls stop the process (the run's timing is left alone).
            QStringList{QStringLiteral("-f"), QStringLiteral("--seccomp-bpf"), QStringLiteral("-qq"), QStringLiteral("-e"),
                        QStringLiteral("trace=open,openat,openat2"),
                        QStringLiteral("-o"), QString::fromStdString(log.string()), QStringLiteral(TRAINIO_CLI)} +
                args);
    Traced t;
    if (!p.waitForFinished(300000)) {
        p.kill();
        p.waitForFinished();
        t.err = QStringLiteral("timeout");
        return t;
    }
    t.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    t.err = QString::fromUtf8(p.readAllStandardError());
    // 1234  openat(AT_FDCWD, "/tmp/x/runs/run-1/summary.json", O_RDONLY|O_CLOEXEC) = 3
    static const QRegularExpression call(QStringLiteral("open(?:at2?)?\\((?:[A-Z_0-9]+, )?\"([^\"]*)\", ([A-Z_|0-9]+)"));
    const QString root = QString::fromStdString(store::treeOf(dir).string()) + QLatin1Char('/');
    const QString spelt = QString::fromStdString(fs::absolute(dir).lexically_normal().string()) + QLatin1Char('/');
    for (const QString& line : QString::fromStdString(testsupport::readText(log)).split(QLatin1Char('\n'))) {
        const auto m = call.match(line);
        if (!m.hasMatch()) continue;
        const QString flags = m.captured(2);
        if (flags.contains(QStringLiteral("O_WRONLY")) || flags.contains(QStringLiteral("O_RDWR")) ||
            flags.contains(QStringLiteral("O_DIRECTORY")) || flags.contains(QStringLiteral("O_PATH")))
            continue;
        const QString path = m.captured(1);
        if (path.startsWith(root) || path.startsWith(spelt)) t.readBack << line.trimmed();
    }
    return t;
}

} // namespace

class TestHandover : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    fs::path dir(const std::string& name) const { return fs::path(tmp_.path().toStdString()) / name; }
    // The workload file (its dataset generated once, by the first session that asks).
    fs::path workload(bool generate) {
        const fs::path yaml = dir("w.yaml");
        testsupport::writeText(yaml, yamlFor(dir("data"), generate));
        return yaml;
    }
    session::SessionRequest request(session::SessionMode mode, const fs::path& out) {
        session::SessionRequest req;
        req.config = loadWorkloadConfig(workload(true).string()).config;
        req.mode = mode;
        req.output = out;
        req.accelerators = 2;
        req.runs = 2;
        req.warmups = 1;
        req.invocation.labels.system = "lab-01";
        return req;
    }

    // The workload with its dataset generated (datagen is not what is counted).
    fs::path datasetAndWorkload() {
        Quiet quiet;
        (void)session::Session(request(session::SessionMode::Run, dir("dataset-" + std::to_string(++datasets_))), quiet).run();
        return workload(false);
    }
    int datasets_ = 0;

private slots:
    void initTestCase() { QVERIFY(tmp_.isValid()); }

    // A held file is read as the disk's would be: the same bound, the same link rule, the same words.
    void heldFilesFollowTheStoresRules() {
        const fs::path run = dir("held") / "run";
        const fs::path summary = run / store::kSummaryFile;
        store::WrittenFiles written;
        store::writeFileAtomic(summary, std::string(100, ' ') + "{}", nullptr, &written);
        QVERIFY(written.holds(summary));
        std::string heldWhy, diskWhy;
        QVERIFY(!written.text(summary, store::treeOf(run), 64, heldWhy));
        QVERIFY(!store::diskFiles().text(summary, store::treeOf(run), 64, diskWhy));
        QCOMPARE(heldWhy, diskWhy);
        QVERIFY2(heldWhy.find("larger than the 64 bytes read limit") != std::string::npos, heldWhy.c_str());
        // Reached through a link from another tree: refused, as the disk refuses it.
        const fs::path other = dir("held-other");
        fs::create_directories(other);
        fs::create_directory_symlink(run, other / "linked");
        QVERIFY(!written.text(other / "linked" / store::kSummaryFile, store::treeOf(other), 1 << 20, heldWhy));
        QVERIFY2(heldWhy.find("outside the imported tree") != std::string::npos, heldWhy.c_str());
        // Not held: the disk's, and the ReadLog lists the read.
        store::writeFileAtomic(run / store::kLogFile, "log", nullptr, &written);
        QVERIFY(!written.holds(run / store::kLogFile)); // a file no reader reads is not kept
        store::ReadLog log;
        QVERIFY(written.text(summary, store::treeOf(run), 1 << 20, heldWhy));
        QCOMPARE(log.files().size(), std::size_t(0));
        QVERIFY(written.text(run / store::kLogFile, store::treeOf(run), 1 << 20, heldWhy));
        QCOMPARE(log.filesIn(run).size(), std::size_t(1));
    }

    // A session's invocation and benchmarks (both layouts): none of the files they wrote is opened again,
    // and the records handed over are a fresh import's.
    void aSessionReadsBackNothingItWrote_data() {
        QTest::addColumn<int>("mode");
        QTest::addColumn<int>("layout");
        QTest::addColumn<bool>("steps");
        QTest::newRow("run") << int(session::SessionMode::Run) << int(BenchmarkLayout::TrainIO) << true;
        QTest::newRow("benchmark") << int(session::SessionMode::Benchmark) << int(BenchmarkLayout::TrainIO) << false;
        QTest::newRow("benchmark, step digests") << int(session::SessionMode::Benchmark) << int(BenchmarkLayout::TrainIO) << true;
        QTest::newRow("benchmark, MLPerf v3.0 layout") << int(session::SessionMode::Benchmark) << int(BenchmarkLayout::MlperfV3) << false;
    }
    void aSessionReadsBackNothingItWrote() {
        QFETCH(int, mode);
        QFETCH(int, layout);
        QFETCH(bool, steps);
        const fs::path out = dir(std::string("session-") + QTest::currentDataTag()).lexically_normal();
        session::SessionRequest req = request(static_cast<session::SessionMode>(mode), out);
        req.layout = static_cast<BenchmarkLayout>(layout);
        req.holdStepRecords = steps;
        Quiet quiet;
        session::SessionResult r;
        aggregate::ImportResult handed;
        {
            store::ReadLog log;
            r = session::Session(req, quiet).run();
            QVERIFY2(r.complete, r.error.c_str());
            handed = r.records(withSteps(steps));
            const auto readBack = log.filesIn(out);
            QVERIFY2(readBack.empty(), ("read back what it wrote:" + listed(readBack)).c_str());
        }
        QCOMPARE(handed.runs.size(), r.outcomes.size());
        // The records handed over are those a fresh import of the folder makes, whole.
        const aggregate::ImportResult fresh = aggregate::importResults({r.resultFolder}, withSteps(steps));
        QCOMPARE(QString::fromStdString(importcompare::describe(handed).dump(1)),
                 QString::fromStdString(importcompare::describe(fresh).dump(1)));
        if (steps) {
            // The digests were made (from the records held), each as its invocation ended; the records
            // themselves, the largest files of a run, are not held any more.
            QVERIFY(handed.runs.front().steps);
            for (const auto& run : handed.runs) {
                QVERIFY(r.written->stepDigest(run.path));
                QVERIFY(!r.written->holds(run.path / store::rankOutputFile(0)));
                QVERIFY(r.written->holds(run.path / store::kSummaryFile));
            }
        }
        if (mode != int(session::SessionMode::Benchmark)) return;
        // aggregate.json and the MLPerf report: what writing them from a fresh import gives, byte for byte.
        const auto agg = writtenAndReimported(r.resultFolder / store::kAggregateFile,
                                              [&] { aggregate::writeAggregateJson(r.resultFolder); });
        QVERIFY(!agg.first.empty());
        QCOMPARE(QString::fromStdString(agg.first), QString::fromStdString(agg.second));
        if (layout == int(BenchmarkLayout::MlperfV3)) return;
        const fs::path runs = r.resultFolder / "runs";
        const auto report = writtenAndReimported(runs / store::kMlperfReportFile, [&] { aggregate::writeMlperfReport(runs); });
        QVERIFY(!report.first.empty());
        QCOMPARE(QString::fromStdString(report.first), QString::fromStdString(report.second));
        // aggregate.json compared the runs with that report (read from memory) and found they agree.
        const auto aggJson = nlohmann::json::parse(agg.first);
        QCOMPARE(aggJson["groups"][0]["mlperf_storage_report"]["agrees"].get<bool>(), true);
    }

    // trainio-cli benchmark, traced: no file below its output folder is opened for reading.
    void theCliBenchmarkReadsBackNothingItWrote() {
        if (const QString why = straceMissing(); !why.isEmpty()) QSKIP(qPrintable(why));
        const fs::path yaml = datasetAndWorkload();
        const fs::path bench = dir("cli-benchmark");
        const Traced b = tracedCli({QStringLiteral("benchmark"), QStringLiteral("--config"), QString::fromStdString(yaml.string()),
                                    QStringLiteral("--output"), QString::fromStdString(bench.string()), QStringLiteral("--runs"),
                                    QStringLiteral("2"), QStringLiteral("--warmup"), QStringLiteral("1"), QStringLiteral("--accelerators"),
                                    QStringLiteral("2"), QStringLiteral("--system"), QStringLiteral("lab-01"), QStringLiteral("--quiet")},
                                   bench, dir("cli-benchmark.strace"));
        QVERIFY2(b.exitCode == 0, qPrintable(b.err));
        QVERIFY2(b.readBack.isEmpty(), qPrintable(QStringLiteral("read back what it wrote:\n") + b.readBack.join(QLatin1Char('\n'))));
        const auto agg = writtenAndReimported(bench / store::kAggregateFile, [&] { aggregate::writeAggregateJson(bench); });
        QCOMPARE(QString::fromStdString(agg.first), QString::fromStdString(agg.second));
        const auto report = writtenAndReimported(bench / "runs" / store::kMlperfReportFile,
                                                 [&] { aggregate::writeMlperfReport(bench / "runs"); });
        QCOMPARE(QString::fromStdString(report.first), QString::fromStdString(report.second));

    }

    // trainio-cli sweep, traced: two trials of a benchmark each, none of their files opened for reading.
    void theCliSweepReadsBackNothingItWrote() {
        if (const QString why = straceMissing(); !why.isEmpty()) QSKIP(qPrintable(why));
        const fs::path yaml = datasetAndWorkload();
        const fs::path sweep = dir("cli-sweep");
        const Traced s = tracedCli({QStringLiteral("sweep"), QStringLiteral("--config"), QString::fromStdString(yaml.string()),
                                    QStringLiteral("--output"), QString::fromStdString(sweep.string()), QStringLiteral("--accelerators"),
                                    QStringLiteral("1:2"), QStringLiteral("--runs"), QStringLiteral("1"), QStringLiteral("--quiet"),
                                    // Both counts pass whatever the machine's load: two trials, each read by nothing.
                                    QStringLiteral("++workload.metric.au=0.01")},
                                   sweep, dir("cli-sweep.strace"));
        QVERIFY2(s.exitCode == 0, qPrintable(s.err));
        QVERIFY2(s.readBack.isEmpty(), qPrintable(QStringLiteral("read back what it wrote:\n") + s.readBack.join(QLatin1Char('\n'))));
        // Each trial's numbers are those of a fresh import of its folder: the mean over its complete runs
        // (computed here).
        const auto sweepJson = nlohmann::json::parse(testsupport::readText(sweep / store::kSweepFile));
        QVERIFY2(sweepJson["trials"].size() == 2, sweepJson.dump(1).c_str());
        for (const auto& t : sweepJson["trials"]) {
            const fs::path trial = sweep / t["path"].get<std::string>();
            const aggregate::ImportResult imp = aggregate::importResults({trial});
            std::vector<double> au, sps;
            for (const auto& g : imp.groups)
                for (std::size_t i : g.runs) {
                    au.push_back(imp.runs[i].auMeanPercent);
                    sps.push_back(imp.runs[i].samplesPerSecond);
                }
            QCOMPARE(au.size(), std::size_t(1));
            QCOMPARE(t["au_mean_percentage"].get<double>(), testsupport::meanOf(au));
            QCOMPARE(t["samples_per_second"].get<double>(), testsupport::meanOf(sps));
            const auto trialAgg = writtenAndReimported(trial / store::kAggregateFile, [&] { aggregate::writeAggregateJson(trial); });
            QCOMPARE(QString::fromStdString(trialAgg.first), QString::fromStdString(trialAgg.second));
        }
    }
};

QTEST_GUILESS_MAIN(TestHandover)
#include "tst_handover.moc"
