// The max-accelerators sweep (issue 12, item 4; docs/sweep.md): the search order on a fake trial, the
// pieces it is built from, and `trainio-cli sweep` end to end on a workload whose limit is known from the
// emulated storage — a bandwidth cap B (trainio.storage.bandwidth_mib_s) and a per-accelerator demand
// D = batch × record size / compute time, so that n accelerators keep an AU of about min(1, B / (n·D))
// and the largest passing count is about floor(B / (AU threshold · D)), computed here from B and D.
#include "testsupport.h"

#include "session/sweep.h"
#include "util/errors.h"

#include <nlohmann/json.hpp>

#include <QElapsedTimer>
#include <QProcess>
#include <QStandardPaths>

#include <csignal>

#include <cmath>
#include <filesystem>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;
using trainio::RunStatus;
using trainio::SweepOutcome;
using trainio::SweepRange;
using trainio::SweepTrial;

namespace {

// The storage side of the end-to-end sweep. 128 KiB records, batch 1, 50 ms compute: D = 2.5 MiB/s per
// accelerator; a cap of 16.875 MiB/s puts B / (0.9 · D) at 7.5, half-way between two counts. (50 ms, not
// less: with 10 ms steps a loaded 2-core machine loses 10-20 % AU to thread wake-ups alone.)
constexpr double kRecordBytes = 131072;
constexpr double kBatch = 1;
constexpr double kComputeSeconds = 0.050;
constexpr double kBandwidthMiBs = 16.875;
constexpr double kAuThreshold = 0.90;
constexpr int kSteps = 16;      // train.total_training_steps: the same steps per trial, whatever the count
constexpr int kMaxCount = 10;   // the sweep's MAX: the dataset feeds kMaxCount accelerators kSteps steps each (20 MiB)

double demandMiBs() { return kBatch * kRecordBytes / 1048576.0 / kComputeSeconds; }

QString writeWorkload(const QTemporaryDir& tmp) {
    const QString path = tmp.filePath(QStringLiteral("w.yaml"));
    const int files = kMaxCount * kSteps * static_cast<int>(kBatch);
    testsupport::writeText(
        path.toStdString(),
        "model: {name: sweep}\nframework: pytorch\nworkflow: {generate_data: false, train: true}\n"
        "dataset: {data_folder: " + tmp.filePath(QStringLiteral("data")).toStdString() + ", format: npy, num_files_train: " +
            std::to_string(files) + ", num_samples_per_file: 1, record_length_bytes: " +
            std::to_string(static_cast<long>(kRecordBytes)) +
            "}\nreader: {batch_size: " + std::to_string(static_cast<int>(kBatch)) +
            ", read_threads: 1, data_loader: pytorch}\n"
            "train: {epochs: 1, total_training_steps: " + std::to_string(kSteps) + ", computation_time: " +
            std::to_string(kComputeSeconds) + "}\nmetric: {au: " + std::to_string(kAuThreshold) +
            "}\ntrainio: {storage: {bandwidth_mib_s: " + std::to_string(kBandwidthMiBs) + "}}\n");
    return path;
}

json readJson(const fs::path& p) { return json::parse(testsupport::readText(p)); }

fs::path sweepTrialFolderOf(const fs::path& dir, int n) { return dir / ("trial-" + std::to_string(n) + "-accelerators"); }

// A fake trial: passes up to `limit` accelerators, records the order.
struct FakeStorage {
    explicit FakeStorage(std::uint64_t passesUpTo) : limit(passesUpTo) {}
    std::uint64_t limit = 0;
    std::vector<std::uint64_t> order;
    std::uint64_t failAt = 0; // a count whose trial fails at run time (0: none)
    SweepTrial operator()(std::uint64_t n) {
        order.push_back(n);
        SweepTrial t;
        t.accelerators = n;
        t.passed = n <= limit;
        t.auMeanPercent = t.passed ? 95.0 : 50.0;
        if (n == failAt) {
            t.status = RunStatus::Failed;
            t.error = "disk on fire";
        }
        return t;
    }
};

std::vector<std::uint64_t> counts(const SweepOutcome& o) {
    std::vector<std::uint64_t> v;
    for (const auto& t : o.trials) v.push_back(t.accelerators);
    return v;
}

QString joined(const std::vector<std::uint64_t>& v) {
    QStringList s;
    for (auto n : v) s << QString::number(n);
    return s.join(QLatin1Char(' '));
}

bool mpiBenchmarkAvailable() {
    if (QStandardPaths::findExecutable(QStringLiteral("mpirun")).isEmpty()) return false;
    const auto r = testsupport::runCli({QStringLiteral("benchmark"), QStringLiteral("--help")});
    return r.exitCode == 0 && r.out.contains(QStringLiteral("--accelerators-per-process"));
}

} // namespace

class TestSweep : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    QString cfg_;

    testsupport::CliResult sweep(const QStringList& extra) {
        QStringList args{QStringLiteral("sweep"), QStringLiteral("--config"), cfg_, QStringLiteral("--quiet")};
        // (the MPI case's trials run trainio-cli under mpirun: testsupport::mpiEnvironment)
        return testsupport::runCli(args + extra, 240000,
                                   extra.contains(QStringLiteral("--hostfile")) ? testsupport::mpiEnvironment()
                                                                                : QList<QPair<QString, QString>>{});
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        cfg_ = writeWorkload(tmp_);
        const auto r = testsupport::datagen(cfg_);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }

    // The documented order: doubling from MIN until a count fails, then bisection (docs/sweep.md).
    void searchOrder_data() {
        QTest::addColumn<quint64>("min");
        QTest::addColumn<quint64>("max");
        QTest::addColumn<quint64>("step");
        QTest::addColumn<quint64>("limit");
        QTest::addColumn<QString>("order");
        QTest::addColumn<quint64>("answer"); // 0: none passes
        QTest::newRow("limit 13 in 1:64") << 1ull << 64ull << 1ull << 13ull << "1 2 4 8 16 12 14 13" << 13ull;
        QTest::newRow("all pass: ends at MAX") << 1ull << 64ull << 1ull << 1000ull << "1 2 4 8 16 32 64" << 64ull;
        QTest::newRow("MAX clips the doubling") << 3ull << 20ull << 1ull << 1000ull << "3 6 12 20" << 20ull;
        QTest::newRow("fails at the clipped MAX") << 3ull << 20ull << 1ull << 17ull << "3 6 12 20 16 18 17" << 17ull;
        QTest::newRow("MIN fails: none") << 4ull << 64ull << 1ull << 2ull << "4" << 0ull;
        QTest::newRow("MIN = MAX") << 5ull << 5ull << 1ull << 9ull << "5" << 5ull;
        QTest::newRow("limit 1") << 1ull << 64ull << 1ull << 1ull << "1 2" << 1ull;
        // Over MPI every count is a multiple of hosts × processes (here 4): 1:64 tries 4, 8, … only.
        QTest::newRow("multiples of 4") << 1ull << 64ull << 4ull << 13ull << "4 8 16 12" << 12ull;
        QTest::newRow("multiples of 3 in 5:40") << 5ull << 40ull << 3ull << 30ull << "6 12 24 39 30 33" << 30ull;
    }
    void searchOrder() {
        QFETCH(quint64, min);
        QFETCH(quint64, max);
        QFETCH(quint64, step);
        QFETCH(quint64, limit);
        QFETCH(QString, order);
        QFETCH(quint64, answer);
        FakeStorage fake{limit};
        std::size_t reports = 0;
        const SweepOutcome o = trainio::searchMaxPassing(SweepRange{min, max, step}, std::ref(fake),
                                                         [&](const SweepOutcome& sofar) { QCOMPARE(sofar.trials.size(), ++reports); });
        QCOMPARE(joined(counts(o)), order);
        QCOMPARE(joined(fake.order), order);
        QCOMPARE(reports, o.trials.size()); // sweep.json is rewritten after every trial
        QVERIFY(o.complete);
        QCOMPARE(quint64(o.maxPassing.value_or(0)), answer);
        QVERIFY(o.trials.size() <= trainio::maxSweepTrials(SweepRange{min, max, step}));
    }

    // Every limit in 1:64: the answer is the limit (clipped to the range), no count is tried twice, and
    // the bound the room check uses holds.
    void searchFindsEveryLimit() {
        for (std::uint64_t limit = 0; limit <= 70; ++limit) {
            FakeStorage fake{limit};
            const SweepOutcome o = trainio::searchMaxPassing(SweepRange{1, 64, 1}, std::ref(fake));
            QCOMPARE(quint64(o.maxPassing.value_or(0)), quint64(std::min<std::uint64_t>(limit, 64)));
            auto sorted = fake.order;
            std::sort(sorted.begin(), sorted.end());
            QVERIFY(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
            QVERIFY2(o.trials.size() <= trainio::maxSweepTrials(SweepRange{1, 64, 1}), qPrintable(joined(fake.order)));
        }
    }

    // A trial that fails stops the sweep, is kept with its status and never counts as passing.
    void failedTrialStopsTheSweep() {
        FakeStorage fake{13};
        fake.failAt = 12;
        const SweepOutcome o = trainio::searchMaxPassing(SweepRange{1, 64, 1}, std::ref(fake));
        QCOMPARE(joined(counts(o)), QStringLiteral("1 2 4 8 16 12"));
        QVERIFY(!o.complete);
        QCOMPARE(o.trials.back().status, RunStatus::Failed);
        QVERIFY(!o.trials.back().passed); // the fake said passed; a failed trial never passes
        QCOMPARE(quint64(o.maxPassing.value_or(0)), quint64(8));
        const json j = trainio::store::sweepJson(o, {}, "/x");
        QCOMPARE(j["complete"].get<bool>(), false);
        QCOMPARE(j["trials"].back()["status"].get<std::string>(), std::string("failed"));
        QCOMPARE(j["trials"].back()["error"].get<std::string>(), std::string("disk on fire"));
    }

    void rangeParsing() {
        const SweepRange r = trainio::parseSweepRange("2:48", "--accelerators");
        QCOMPARE(quint64(r.min), quint64(2));
        QCOMPARE(quint64(r.max), quint64(48));
        for (const char* bad : {"4:2", "0:4", "abc", "1:", ":4", "1:4:8", "-1:4", "1.5:4", " 1:4", "1:99999999999999999999"}) {
            try {
                trainio::parseSweepRange(bad, "--accelerators");
                QFAIL(qPrintable(QStringLiteral("accepted ") + QLatin1String(bad)));
            } catch (const trainio::InputError& e) {
                QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("--accelerators = '") + QLatin1String(bad) + "'"), e.what());
            }
        }
        QVERIFY_EXCEPTION_THROWN(trainio::sweepUnits(SweepRange{5, 7, 4}, "--accelerators"), trainio::InputError);
    }

    void mpiPieces() {
        QTemporaryDir tmp;
        const fs::path hostfile = tmp.filePath(QStringLiteral("hosts")).toStdString();
        testsupport::writeText(hostfile, "# two hosts\nnode1 slots=4\n\n  node2 slots=4 # second\nnode1\n");
        QVERIFY(trainio::hostfileHosts(hostfile, "--hostfile") == (std::vector<std::string>{"node1", "node2"}));
        testsupport::writeText(hostfile, "# none\n\n");
        QVERIFY_EXCEPTION_THROWN(trainio::hostfileHosts(hostfile, "--hostfile"), trainio::InputError);
        trainio::MpiTrialLaunch l;
        l.mpirun = "/usr/bin/mpirun";
        l.hostfile = "/h";
        l.hosts = 2;
        l.processesPerHost = 3;
        l.asRoot = true;
        l.executable = "/bin/trainio-cli";
        l.benchmarkArgs = {"--config", "w.yaml", "--output", "o"};
        QVERIFY(trainio::mpiTrialArguments(l, 12) ==
                 (std::vector<std::string>{"/usr/bin/mpirun", "--allow-run-as-root", "--mca", "odls_base_sigkill_timeout", "10",
                                           "--hostfile", "/h", "--npernode", "3", "-np", "6", "/bin/trainio-cli", "benchmark", "--config", "w.yaml",
                                           "--output", "o", "--accelerators-per-process", "2"}));
        QVERIFY_EXCEPTION_THROWN(trainio::mpiTrialArguments(l, 10), trainio::InputError);
    }

    // The sweep on the emulated storage: its answer within one count (the last bisection step) of
    // floor(B / (threshold · D)); sweep.json's contract keys; every trial a folder `aggregate` reads, with
    // the numbers sweep.json gives.
    void sweepFindsTheStorageLimit() {
        const QString out = tmp_.filePath(QStringLiteral("quick"));
        QElapsedTimer timer;
        timer.start();
        const auto r = sweep({QStringLiteral("--accelerators"), QStringLiteral("1:%1").arg(kMaxCount), QStringLiteral("--quick"),
                              QStringLiteral("--output"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const double expected = std::floor(kBandwidthMiBs / (kAuThreshold * demandMiBs()));
        const fs::path dir = out.toStdString();
        QCOMPARE(r.out.trimmed(), QString::fromStdString((dir / "sweep.json").string()));
        const json j = readJson(dir / "sweep.json");
        qInfo("B = %.1f MiB/s, D = %.2f MiB/s per accelerator, B/D = %.2f, B/(0.9 D) = %.2f; sweep: %s in %.1f s",
              kBandwidthMiBs, demandMiBs(), kBandwidthMiBs / demandMiBs(), kBandwidthMiBs / (kAuThreshold * demandMiBs()),
              j.dump().c_str(), timer.elapsed() / 1000.0);
        QVERIFY(j["max_passing_accelerators"].is_number_unsigned());
        const auto answer = j["max_passing_accelerators"].get<double>();
        QVERIFY2(std::abs(answer - expected) <= 1.0,
                 qPrintable(QStringLiteral("sweep: %1, expected %2 ± 1 (B/(a·D))").arg(answer).arg(expected)));
        QCOMPARE(j["complete"].get<bool>(), true);
        QCOMPARE(j["au_threshold_percentage"].get<double>(), kAuThreshold * 100);

        // The search order on the real thing: doubling, then bisection, each count once.
        std::vector<std::uint64_t> order;
        for (const auto& t : j["trials"]) order.push_back(t["accelerators"].get<std::uint64_t>());
        QCOMPARE(quint64(order.front()), quint64(1));
        QVERIFY(order.size() >= 4 && order.size() <= 8);

        bool anyFailed = false;
        for (const auto& t : j["trials"]) {
            for (const char* key : {"accelerators", "au_mean_percentage", "samples_per_second", "read_gib_per_second", "passed", "path"})
                QVERIFY2(t.contains(key), key);
            const auto n = t["accelerators"].get<std::uint64_t>();
            const double au = t["au_mean_percentage"].get<double>();
            QCOMPARE(t["passed"].get<bool>(), au >= kAuThreshold * 100);
            QCOMPARE(t["status"].get<std::string>(), std::string("complete"));
            if (t["passed"].get<bool>()) {
                QVERIFY(n <= answer);
            } else {
                anyFailed = true;
                QVERIFY(n > answer);
            }
            // Throughput and bandwidth agree with the cap: never (much) above B.
            const double mibs = t["read_gib_per_second"].get<double>() * 1024;
            QVERIFY2(mibs <= kBandwidthMiBs * 1.10, qPrintable(QString::number(mibs)));
            // A normal result folder: `aggregate` reads it and gives the same numbers.
            const fs::path trial = dir / t["path"].get<std::string>();
            QCOMPARE(QString::fromStdString(trial.string()), QString::fromStdString((dir / ("trial-" + std::to_string(n) + "-accelerators")).string()));
            const auto a = testsupport::runCli({QStringLiteral("aggregate"), QString::fromStdString(trial.string()),
                                                QStringLiteral("--format"), QStringLiteral("json")});
            QVERIFY2(a.exitCode == 0, qPrintable(a.err));
            const json agg = json::parse(a.out.toStdString());
            QCOMPARE(agg["groups"].size(), std::size_t(1));
            QVERIFY(agg["skipped"].empty());
            const json& g = agg["groups"][0];
            QCOMPARE(quint64(g["train_num_accelerators"].get<std::uint64_t>()), quint64(n));
            QCOMPARE(g["num_runs"].get<int>(), 1);
            QVERIFY(std::abs(g["train_au_mean_percentage"].get<double>() - au) < 1e-9);
            QVERIFY(std::abs(g["read_gib_per_second"].get<double>() - t["read_gib_per_second"].get<double>()) < 1e-12);
            QVERIFY(std::abs(g["train_throughput_mean_samples_per_second"].get<double>() - t["samples_per_second"].get<double>()) < 1e-9);
        }
        QVERIFY(anyFailed); // the storage, not MAX, ended the search
    }

    // Without --quick each trial is a benchmark (warm-up + runs) in the `benchmark` layout.
    void fullTrialsAreBenchmarks() {
        const QString out = tmp_.filePath(QStringLiteral("full"));
        const auto r = sweep({QStringLiteral("--accelerators"), QStringLiteral("1:2"), QStringLiteral("--runs"), QStringLiteral("2"),
                              QStringLiteral("--output"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const fs::path dir = out.toStdString();
        const json j = readJson(dir / "sweep.json");
        QCOMPARE(j["max_passing_accelerators"].get<int>(), 2);
        QCOMPARE(j["trials"].size(), std::size_t(2));
        QCOMPARE(j["mode"].get<std::string>(), std::string("benchmark"));
        for (const auto& t : j["trials"]) {
            const fs::path trial = dir / t["path"].get<std::string>();
            QVERIFY(fs::exists(trial / "warmup" / "summary.json"));
            QVERIFY(fs::exists(trial / "runs" / "run-1" / "summary.json"));
            QVERIFY(fs::exists(trial / "runs" / "run-2" / "summary.json"));
            QVERIFY(fs::exists(trial / "trainio_benchmark.json"));
            const auto a = testsupport::runCli({QStringLiteral("aggregate"), QString::fromStdString(trial.string()),
                                                QStringLiteral("--format"), QStringLiteral("json")});
            QVERIFY2(a.exitCode == 0, qPrintable(a.err));
            const json agg = json::parse(a.out.toStdString());
            QCOMPARE(agg["groups"].size(), std::size_t(1));
            QCOMPARE(agg["groups"][0]["num_runs"].get<int>(), 2);
            // The trial's AU is the benchmark's: the mean over its measured runs (the warm-up left out).
            std::vector<double> au;
            for (const char* run : {"run-1", "run-2"})
                au.push_back(readJson(trial / "runs" / run / "summary.json")["metric"]["train_au_mean_percentage"].get<double>());
            QVERIFY(std::abs(t["au_mean_percentage"].get<double>() - testsupport::meanOf(au)) < 1e-9);
        }
    }

    // Bad input exits 2 before anything is measured, naming the flag and the value.
    void badInput_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("MIN > MAX") << QStringList{QStringLiteral("--accelerators"), QStringLiteral("4:2")}
                                   << QStringLiteral("--accelerators = '4:2'");
        QTest::newRow("MIN < 1") << QStringList{QStringLiteral("--accelerators"), QStringLiteral("0:4")}
                                 << QStringLiteral("--accelerators = '0:4'");
        QTest::newRow("malformed") << QStringList{QStringLiteral("--accelerators"), QStringLiteral("four")}
                                   << QStringLiteral("--accelerators = 'four'");
        QTest::newRow("no range") << QStringList{} << QStringLiteral("--accelerators MIN:MAX is required");
        QTest::newRow("MAX beyond the dataset") << QStringList{QStringLiteral("--accelerators"), QStringLiteral("1:11")}
                                                << QStringLiteral("the dataset cannot feed 11 accelerators");
        QTest::newRow("--runs with --quick") << QStringList{QStringLiteral("--accelerators"), QStringLiteral("1:2"),
                                                            QStringLiteral("--quick"), QStringLiteral("--runs"), QStringLiteral("3")}
                                             << QStringLiteral("--runs with --quick");
        QTest::newRow("hostfile alone") << QStringList{QStringLiteral("--accelerators"), QStringLiteral("1:2"),
                                                       QStringLiteral("--hostfile"), QStringLiteral("/etc/hostname")}
                                        << QStringLiteral("--hostfile without --processes-per-host");
    }
    void badInput() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const QString out = tmp_.filePath(QStringLiteral("bad"));
        const auto r = sweep(args + QStringList{QStringLiteral("--output"), out});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY(!fs::exists(out.toStdString())); // nothing measured, nothing written
    }

    // A folder that already holds a sweep is refused (exit 2), the earlier sweep untouched.
    void existingSweepIsKept() {
        const QString out = tmp_.filePath(QStringLiteral("again"));
        testsupport::writeText((out + QStringLiteral("/sweep.json")).toStdString(), "{}");
        const auto r = sweep({QStringLiteral("--accelerators"), QStringLiteral("1:2"), QStringLiteral("--quick"),
                              QStringLiteral("--output"), out});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("already holds a sweep")), qPrintable(r.err));
        QCOMPARE(testsupport::readText((out + QStringLiteral("/sweep.json")).toStdString()), std::string("{}"));
    }

    // An interrupted sweep keeps its trials: SIGINT during a trial stops it (cancelled, not passing),
    // sweep.json says "complete": false and holds every trial so far; exit 1.
    void interruptKeepsTheTrials() {
        const QString out = tmp_.filePath(QStringLiteral("interrupted"));
        const fs::path dir = out.toStdString();
        QProcess p;
        p.start(QStringLiteral(TRAINIO_CLI), {QStringLiteral("sweep"), QStringLiteral("--config"), cfg_, QStringLiteral("--quiet"),
                                              QStringLiteral("--accelerators"), QStringLiteral("1:%1").arg(kMaxCount),
                                              QStringLiteral("--quick"), QStringLiteral("--output"), out});
        QVERIFY(p.waitForStarted());
        QElapsedTimer timer;
        timer.start();
        while (!fs::exists(sweepTrialFolderOf(dir, 2)) && timer.elapsed() < 60000 && p.state() == QProcess::Running)
            QTest::qWait(20);
        QVERIFY2(fs::exists(sweepTrialFolderOf(dir, 2)), "the second trial never started");
        QTest::qWait(200);
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(testsupport::kHangMs));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 1);
        const json j = readJson(dir / "sweep.json");
        QCOMPARE(j["complete"].get<bool>(), false);
        QVERIFY(j["trials"].size() >= 2);
        const json& last = j["trials"].back();
        QCOMPARE(last["status"].get<std::string>(), std::string("cancelled"));
        QCOMPARE(last["passed"].get<bool>(), false);
        for (std::size_t i = 0; i + 1 < j["trials"].size(); ++i)
            QCOMPARE(j["trials"][i]["status"].get<std::string>(), std::string("complete"));
        QVERIFY(fs::exists(dir / last["path"].get<std::string>() / "summary.json")); // what was measured, marked
    }

    // The MPI path with a stand-in for mpirun (tests/tools/fake_mpirun.py): it checks the argument vector
    // (--hostfile F --npernode P -np H×P, --allow-run-as-root as root, this trainio-cli, benchmark …
    // --accelerators-per-process K) and runs the benchmark with H×P×K threads. Two hosts × 1 process:
    // only even counts.
    void mpiPathWithAStandIn() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const fs::path bin = tmp.filePath(QStringLiteral("bin")).toStdString();
        fs::create_directories(bin);
        testsupport::writeText(bin / "mpirun", "#!/bin/sh\nexec /usr/bin/python3 " TRAINIO_TEST_DATA "/../tools/fake_mpirun.py \"$@\"\n");
        fs::permissions(bin / "mpirun", fs::perms::owner_all);
        const QString hosts = tmp.filePath(QStringLiteral("hosts"));
        testsupport::writeText(hosts.toStdString(), "nodeA slots=2\nnodeB slots=2 # second host\n");
        const QString log = tmp.filePath(QStringLiteral("mpirun.log"));
        const QString out = tmp.filePath(QStringLiteral("mpi"));
        const auto r = testsupport::runCli(
            {QStringLiteral("sweep"), QStringLiteral("--config"), cfg_, QStringLiteral("--quiet"), QStringLiteral("--accelerators"),
             QStringLiteral("1:%1").arg(kMaxCount), QStringLiteral("--quick"), QStringLiteral("--hostfile"), hosts,
             QStringLiteral("--processes-per-host"), QStringLiteral("1"), QStringLiteral("--output"), out},
            240000,
            {{QStringLiteral("PATH"), QString::fromStdString(bin.string()) + QLatin1Char(':') + qEnvironmentVariable("PATH")},
             {QStringLiteral("FAKE_MPIRUN_LOG"), log}});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("only multiples of 2 are tried")), qPrintable(r.err));
        const fs::path dir = out.toStdString();
        const json j = readJson(dir / "sweep.json");
        QCOMPARE(j["launcher"].get<std::string>(), std::string("mpirun"));
        QCOMPARE(j["hosts"].get<int>(), 2);
        QCOMPARE(j["accelerators_step"].get<int>(), 2);
        const QStringList launches = QString::fromStdString(testsupport::readText(log.toStdString())).split(
            QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(launches.size(), static_cast<qsizetype>(j["trials"].size()));
        // Even counts only; the answer is the largest even count at or below the limit, within one step.
        const double expected = 2 * std::floor(kBandwidthMiBs / (kAuThreshold * demandMiBs()) / 2);
        QVERIFY2(std::abs(j["max_passing_accelerators"].get<double>() - expected) <= 2.0, j.dump().c_str());
        for (std::size_t i = 0; i < j["trials"].size(); ++i) {
            const json& t = j["trials"][i];
            const int n = t["accelerators"].get<int>();
            QCOMPARE(n % 2, 0);
            QVERIFY2(launches[static_cast<qsizetype>(i)].contains(QStringLiteral("-np 2 ")), qPrintable(launches[static_cast<qsizetype>(i)]));
            QVERIFY2(launches[static_cast<qsizetype>(i)].endsWith(QStringLiteral("--accelerators-per-process %1").arg(n / 2)),
                     qPrintable(launches[static_cast<qsizetype>(i)]));
            // Each trial a benchmark folder (one run, no warm-up) with n accelerators.
            const fs::path trial = dir / t["path"].get<std::string>();
            QVERIFY(fs::exists(trial / "runs" / "run-1" / "summary.json"));
            QCOMPARE(readJson(trial / "runs" / "run-1" / "summary.json")["num_accelerators"].get<int>(), n);
            QCOMPARE(t["status"].get<std::string>(), std::string("complete"));
        }
    }

    // Over MPI (only where mpirun and an MPI-capable `benchmark` exist): every trial under the real mpirun
    // on localhost, 2 processes, so only even counts. The emulated storage is a bucket per process (per
    // client, docs/mpi.md): each gets B / 2, so that the two together have B and the limit is the same
    // B / (0.9 · D) — the answer the largest even count below it, within one step.
    void mpiSweepOnLocalhost() {
        // Open MPI is part of the set-up (packaging/setup-debian.sh): its absence is a broken machine.
        QVERIFY2(mpiBenchmarkAvailable(), "needs mpirun (openmpi-bin) and a `benchmark` that takes --accelerators-per-process");
        QTemporaryDir tmp;
        const QString hosts = tmp.filePath(QStringLiteral("hosts"));
        testsupport::writeText(hosts.toStdString(), "localhost slots=8\n");
        const QString out = tmp.filePath(QStringLiteral("mpi"));
        const auto r = sweep({QStringLiteral("++workload.trainio.storage.bandwidth_mib_s=%1").arg(kBandwidthMiBs / 2, 0, 'g', 10),
                              QStringLiteral("--accelerators"), QStringLiteral("1:%1").arg(kMaxCount), QStringLiteral("--quick"),
                              QStringLiteral("--hostfile"), hosts, QStringLiteral("--processes-per-host"), QStringLiteral("2"),
                              QStringLiteral("--output"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("only multiples of 2 are tried")), qPrintable(r.err));
        const fs::path dir = out.toStdString();
        const json j = readJson(dir / "sweep.json");
        qInfo("MPI sweep: %s", j.dump().c_str());
        QCOMPARE(j["launcher"].get<std::string>(), std::string("mpirun"));
        for (const auto& t : j["trials"]) {
            const int n = t["accelerators"].get<int>();
            QCOMPARE(n % 2, 0);
            QCOMPARE(t["status"].get<std::string>(), std::string("complete"));
            const json summary = readJson(dir / t["path"].get<std::string>() / "runs" / "run-1" / "summary.json");
            QCOMPARE(summary["num_accelerators"].get<int>(), n);
        }
        const double expected = 2 * std::floor(kBandwidthMiBs / (kAuThreshold * demandMiBs()) / 2);
        QVERIFY2(std::abs(j["max_passing_accelerators"].get<double>() - expected) <= 2.0, j.dump().c_str());
    }
};

QTEST_GUILESS_MAIN(TestSweep)
#include "tst_sweep.moc"
