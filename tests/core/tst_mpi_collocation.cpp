// Collocated workloads under Open MPI's mpirun (docs/collocation.md, "Under mpirun"; issue 31), on the real
// trainio-cli with `mpirun -np 2`: every process runs every workload with accelerators / 2 of its
// accelerators, process 0 writes the same folders and trainio_collocation.json as one process does. The
// collocation suite's core cases again — one emulated device shared by two workloads (device_scope split:
// one budget for the job; per_client: each process its own device), rounds started together, each workload
// against itself alone — plus a rank killed mid-collocation: the job stops, nothing hangs, and what was
// measured survives. Expected figures come from the plan and the device, not from the code under test.
#include "collocation_support.h"
#include "mpi_support.h"
#include "testsupport.h"

#include <nlohmann/json.hpp>

#include <QElapsedTimer>

#include <csignal>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using collocationtest::mibPerSecond;
using collocationtest::workloadYaml;

QString q(const fs::path& p) { return QString::fromStdString(p.string()); }
json readJson(const fs::path& p) { return json::parse(testsupport::readText(p), nullptr, false); }

} // namespace

class TstMpiCollocation : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;
    fs::path base_;
    QString mpirun_;

    std::string workload(const std::string& name, int files = 32, int recordKiB = 1024, int epochs = 3, double compute = 0.002) {
        testsupport::writeText(base_ / (name + ".yaml"), workloadYaml(base_ / ("data_" + name), files, recordKiB, epochs, compute));
        return name + ".yaml";
    }
    fs::path plan(const std::string& file, const std::string& text) {
        testsupport::writeText(base_ / file, text);
        return base_ / file;
    }
    static QStringList mpiOptions() { return mpisupport::mpiOptions(2); }
    testsupport::CliResult collocate(const fs::path& planFile, const fs::path& out, const QStringList& extra = {}) {
        return testsupport::runProgram(mpirun_,
                                       mpiOptions() + QStringList{QStringLiteral(TRAINIO_CLI), QStringLiteral("collocate"),
                                                                  QStringLiteral("--plan"), q(planFile), QStringLiteral("--output"),
                                                                  q(out), QStringLiteral("--quiet")} +
                                           extra,
                                       300000, testsupport::mpiEnvironment());
    }
    // Two "hosts" of this machine (mpisupport::remoteHostsOptions): process 0 on host ha, process 1 on hb, so
    // that a plan's `hosts` places workloads as it would on two client hosts.
    testsupport::CliResult collocateOnTwoHosts(const fs::path& planFile, const fs::path& out, const QStringList& extra = {}) {
        return testsupport::runProgram(mpirun_,
                                       mpisupport::remoteHostsOptions(base_, {QStringLiteral("ha"), QStringLiteral("hb")}, 1) +
                                           QStringList{QStringLiteral("-np"), QStringLiteral("2"), QStringLiteral(TRAINIO_CLI),
                                                       QStringLiteral("collocate"), QStringLiteral("--plan"), q(planFile),
                                                       QStringLiteral("--output"), q(out), QStringLiteral("--quiet")} +
                                           extra,
                                       300000, testsupport::mpiEnvironment());
    }
    // What every workload folder of a collocation under mpirun -np 2 holds: the job's ranks (`ranks` in all,
    // each process's share), every rank's files, written once by process 0.
    void checkWorkloadFolder(const fs::path& dir, int ranks) {
        const json s = readJson(dir / "summary.json");
        QVERIFY2(s.is_object(), dir.string().c_str());
        QCOMPARE(s["num_accelerators"].get<int>(), ranks);
        for (int r = 0; r < ranks; ++r) QVERIFY2(fs::exists(dir / (std::to_string(r) + "_output.json")), dir.string().c_str());
        QCOMPARE(readJson(dir / "trainio_run.json")["processes"].get<int>(), 2);
    }

private slots:
    void initTestCase() {
        const QString missing = mpisupport::prepare(tmp_, base_, mpirun_);
        QVERIFY2(missing.isEmpty(), qPrintable(missing));
    }

    // Two workloads of 2 accelerators each on a 100 MiB/s device, under mpirun -np 2 (each process hosts one
    // accelerator of each). device_scope split: one budget for the job, so that their delivered MiB/s add up to
    // at most 100 (+5 %); per_client: each process its own 100 MiB/s device, so that together they pass one
    // device's bandwidth and stay under two.
    void sharedDeviceAcrossProcesses() {
        const std::string a = workload("sa"), b = workload("sb");
        const double bandwidth = 100;
        double sums[2] = {0, 0};
        int k = 0;
        for (const char* scope : {"split", "per_client"}) {
            const fs::path p = plan(std::string("shared-") + scope + ".yaml",
                                    "workloads:\n  - {name: a, config: " + a + ", accelerators: 2}\n  - {name: b, config: " + b +
                                        ", accelerators: 2}\nstorage: {bandwidth_mib_s: " + std::to_string(bandwidth) +
                                        "}\ndevice_scope: " + scope + "\n");
            const fs::path out = base_ / (std::string("shared-") + scope);
            const auto r = collocate(p, out);
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            QCOMPARE(r.out.trimmed(), q(out / "trainio_collocation.json")); // printed once, by process 0
            const json c = readJson(out / "trainio_collocation.json");
            QCOMPARE(c["status"].get<std::string>(), std::string("complete"));
            QCOMPARE(c["workloads"].size(), std::size_t(2));
            QCOMPARE(c["mpi"]["processes"].get<int>(), 2);
            QCOMPARE(c["mpi"]["hosts"].size(), std::size_t(2));
            QCOMPARE(c["mpi"]["device_scope"].get<std::string>(), std::string(scope));
            QCOMPARE(c["mpi"]["accelerators_per_process"]["a"].get<int>(), 1);
            QCOMPARE(c["shared_storage"]["bandwidth_mib_s"].get<double>(), bandwidth);
            QCOMPARE(c["shared_storage"]["per_process"]["bandwidth_mib_s"].get<double>(),
                     std::string(scope) == "split" ? bandwidth / 2 : bandwidth);
            const json& wa = c["workloads"][0];
            const json& wb = c["workloads"][1];
            QVERIFY(wa["start"].get<double>() < wb["end"].get<double>() && wb["start"].get<double>() < wa["end"].get<double>());
            for (const char* n : {"a", "b"}) checkWorkloadFolder(out / n, 2);
            // Both processes' reads count: 3 epochs of every file of the workload's dataset.
            std::uintmax_t files = 0;
            for (const auto& e : fs::recursive_directory_iterator(base_ / "data_sa" / "train"))
                if (e.is_regular_file()) files += e.file_size();
            QCOMPARE(wa["invocations"][0]["bytes_read"].get<std::uintmax_t>(), 3 * files);
            sums[k++] = mibPerSecond(out / "a") + mibPerSecond(out / "b");
        }
        QVERIFY2(sums[0] <= bandwidth * 1.05, qPrintable(QStringLiteral("split: %1 MiB/s on one %2 MiB/s budget").arg(sums[0]).arg(bandwidth)));
        QVERIFY2(sums[1] > bandwidth * 1.05 && sums[1] <= 2 * bandwidth * 1.05,
                 qPrintable(QStringLiteral("per_client: %1 MiB/s on two %2 MiB/s devices").arg(sums[1]).arg(bandwidth)));
    }

    // --alone under mpirun: each workload alone first (every process), then together; like with like, and
    // sharing one split budget that each fills alone costs both of them read rate.
    void interferenceAgainstAlone() {
        const std::string a = workload("ia"), b = workload("ib");
        const fs::path p = plan("alone.yaml", "workloads:\n  - {name: a, config: " + a + ", accelerators: 2}\n  - {name: b, config: " + b +
                                                  ", accelerators: 2}\nstorage: {bandwidth_mib_s: 100}\ndevice_scope: split\n");
        const fs::path out = base_ / "alone";
        const auto r = collocate(p, out, {QStringLiteral("--alone")});
        json c;
        std::string lost;
        collocationtest::readInterference(r, out, 2, c, lost);
        if (QTest::currentTestFailed()) return;
        for (const auto& x : c["interference"]["workloads"]) {
            const std::string name = x["name"].get<std::string>();
            QCOMPARE(x["n_alone"].get<std::size_t>(), std::size_t(3)); // 3 epochs of one invocation
            QVERIFY2(x["slowdown_percent"].get<double>() > 10, x.dump().c_str());
            // alone and together, each the job's figure (both ranks), recomputed from the folders.
            QVERIFY2(std::abs(x["mib_s_alone"].get<double>() - mibPerSecond(out / "alone" / name)) < 1e-6, x.dump().c_str());
            QVERIFY2(std::abs(x["mib_s_together"].get<double>() - mibPerSecond(out / name)) < 1e-6, x.dump().c_str());
            checkWorkloadFolder(out / "alone" / name, 2);
        }
        QCOMPARE(r.err.count(QStringLiteral("lost most: ")), 1);
    }

    // --runs 2 --warmup 1 under mpirun: three rounds, each started together; every workload's folder a benchmark.
    void roundsStartTogether() {
        const std::string a = workload("ra", 16, 256, 2, 0.005), b = workload("rb", 16, 256, 3, 0.01);
        const fs::path p = plan("rounds.yaml", "workloads:\n  - {name: a, config: " + a + ", accelerators: 2}\n  - {name: b, config: " + b +
                                                   ", accelerators: 2}\n");
        const fs::path out = base_ / "rounds";
        const auto r = collocate(p, out, {QStringLiteral("--runs"), QStringLiteral("2"), QStringLiteral("--warmup"), QStringLiteral("1")});
        collocationtest::checkRoundsStartTogether(r, out, 3); // b is slower (10 ms compute)
        if (QTest::currentTestFailed()) return;
        for (const char* n : {"a", "b"}) {
            checkWorkloadFolder(out / n / "runs" / "run-2", 2);
            checkWorkloadFolder(out / n / "warmup", 2);
        }
    }

    // Bad input under mpirun: refused before anything runs, once, naming the plan, the workload and the key.
    void badInput() {
        const std::string a = workload("ba"), b = workload("bb");
        const fs::path odd = plan("odd.yaml", "workloads:\n  - {name: a, config: " + a + ", accelerators: 3}\n  - {name: b, config: " + b +
                                                  ", accelerators: 2}\n");
        const auto r = collocate(odd, base_ / "odd");
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err.count(QStringLiteral("error:")), 1);
        QVERIFY2(r.err.contains(q(odd)) && r.err.contains(QStringLiteral("workload 'a'")) && r.err.contains(QStringLiteral("accelerators = 3")),
                 qPrintable(r.err));
        QVERIFY(!fs::exists(base_ / "odd"));
        const fs::path scope = plan("scope.yaml", "workloads:\n  - {name: a, config: " + a + ", accelerators: 2}\n  - {name: b, config: " + b +
                                                      ", accelerators: 2}\nstorage: {bandwidth_mib_s: 50}\ndevice_scope: per_host\n");
        const auto s = collocate(scope, base_ / "scope");
        QCOMPARE(s.exitCode, 2);
        QCOMPARE(s.err.count(QStringLiteral("error:")), 1);
        QVERIFY2(s.err.contains(q(scope)) && s.err.contains(QStringLiteral("device_scope = 'per_host'")), qPrintable(s.err));
    }

    // Workloads placed on named hosts (plan key `hosts`): a's 2 accelerators on host ha (process 0), b's 1
    // on host hb (process 1), both reading one dataset folder (generated once, before anything runs). Each
    // workload's folder is written by its own process and holds only its ranks; trainio_collocation.json
    // (process 0) has both, the placement, and with --alone each workload alone one after the other across
    // the hosts, then together.
    void workloadsOnNamedHosts() {
        const std::string a = workload("pa", 16, 256, 3, 0.004);
        testsupport::writeText(base_ / "pb.yaml", testsupport::readText(base_ / a)); // the same dataset folder
        const fs::path p = plan("placed.yaml", "workloads:\n  - {name: a, config: " + a + ", accelerators: 2, hosts: [ha]}\n"
                                               "  - {name: b, config: pb.yaml, accelerators: 1, hosts: [hb]}\n");
        const fs::path out = base_ / "placed";
        const auto r = collocateOnTwoHosts(p, out, {QStringLiteral("--alone")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(r.out.trimmed(), q(out / "trainio_collocation.json"));
        const json c = readJson(out / "trainio_collocation.json");
        QCOMPARE(c["status"].get<std::string>(), std::string("complete"));
        QVERIFY2(c["mpi"]["hosts"] == json::parse(R"(["ha", "hb"])"), c["mpi"].dump().c_str());
        QVERIFY2(c["mpi"]["placement"] == json::parse(R"({"a": [0], "b": [1]})"), c["mpi"].dump().c_str());
        QVERIFY2(c["mpi"]["accelerators_per_process"] == json::parse(R"({"a": 2, "b": 1})"), c["mpi"].dump().c_str());
        QCOMPARE(c["threads"]["training"].get<int>(), 2); // process 0 hosts a's two accelerators only
        const std::pair<const char*, int> expected[] = {{"a", 2}, {"b", 1}};
        for (const auto& [name, ranks] : expected)
            for (const fs::path& dir : {out / name, out / "alone" / name}) {
                const json s = readJson(dir / "summary.json");
                QVERIFY2(s.is_object(), dir.string().c_str());
                QCOMPARE(s["num_accelerators"].get<int>(), ranks);
                QVERIFY(fs::exists(dir / (std::to_string(ranks - 1) + "_output.json")));
                QVERIFY(!fs::exists(dir / (std::to_string(ranks) + "_output.json")));
                const json run = readJson(dir / "trainio_run.json");
                QCOMPARE(run["processes"].get<int>(), 1);
                QVERIFY2(run["hosts"] == json::array({std::string(name) == "a" ? "ha" : "hb"}), run["hosts"].dump().c_str());
            }
        // Together: their invocations overlap. Alone: one after the other, though on different processes.
        const json& wa = c["workloads"][0];
        const json& wb = c["workloads"][1];
        QCOMPARE(wb["invocations"].size(), std::size_t(1));
        QVERIFY(wa["start"].get<double>() < wb["end"].get<double>() && wb["start"].get<double>() < wa["end"].get<double>());
        QVERIFY2(readJson(out / "alone" / "a" / "summary.json")["end"].get<std::string>() <=
                     readJson(out / "alone" / "b" / "summary.json")["start"].get<std::string>(),
                 "the alone runs overlapped");
        QCOMPARE(c["interference"]["workloads"].size(), std::size_t(2));
        for (const auto& x : c["interference"]["workloads"]) {
            const std::string name = x["name"].get<std::string>();
            // b's figures reached process 0 from process 1: the same as b's own folders say.
            QVERIFY2(std::abs(x["mib_s_alone"].get<double>() - mibPerSecond(out / "alone" / name)) < 1e-6, x.dump().c_str());
            QVERIFY2(std::abs(x["mib_s_together"].get<double>() - mibPerSecond(out / name)) < 1e-6, x.dump().c_str());
        }
    }

    // Placed workloads of very different lengths: process 1's (b, about 0.3 s) waits at the end for process
    // 0's (a, about 6 s), and for a's alone run before its own, far longer than a meeting waits for a peer
    // (TRAINIO_MPI_TIMEOUT_S=2 here, 120 s by default): those waits are on other processes' whole work, and
    // never give up on a process that is still working.
    void placedWorkloadsOfDifferentLengths() {
        const std::string a = workload("la", 16, 64, 15, 0.05), b = workload("lb", 8, 64, 1, 0.001);
        const fs::path p = plan("lengths.yaml", "workloads:\n  - {name: a, config: " + a + ", accelerators: 1, hosts: [ha]}\n"
                                                "  - {name: b, config: " + b + ", accelerators: 1, hosts: [hb]}\n");
        const fs::path out = base_ / "lengths";
        const auto r = testsupport::runProgram(
            mpirun_,
            mpisupport::remoteHostsOptions(base_, {QStringLiteral("ha"), QStringLiteral("hb")}, 1) +
                QStringList{QStringLiteral("-x"), QStringLiteral("TRAINIO_MPI_TIMEOUT_S=2"), QStringLiteral("-np"), QStringLiteral("2"),
                            QStringLiteral(TRAINIO_CLI), QStringLiteral("collocate"), QStringLiteral("--plan"), q(p),
                            QStringLiteral("--output"), q(out), QStringLiteral("--quiet"), QStringLiteral("--alone")},
            300000, testsupport::mpiEnvironment());
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const json c = readJson(out / "trainio_collocation.json");
        QCOMPARE(c["status"].get<std::string>(), std::string("complete"));
        const double lengthA = c["workloads"][0]["end"].get<double>() - c["workloads"][0]["start"].get<double>();
        const double lengthB = c["workloads"][1]["end"].get<double>() - c["workloads"][1]["start"].get<double>();
        QVERIFY2(lengthA > 2 * 2 && lengthB < 2, qPrintable(QStringLiteral("a %1 s, b %2 s").arg(lengthA).arg(lengthB)));
        // The timeout itself is checked, and a bad value refused before anything runs.
        const auto bad = testsupport::runProgram(mpirun_,
                                                 mpiOptions() + QStringList{QStringLiteral("-x"), QStringLiteral("TRAINIO_MPI_TIMEOUT_S=soon"),
                                                                            QStringLiteral(TRAINIO_CLI), QStringLiteral("collocate"),
                                                                            QStringLiteral("--plan"), q(p), QStringLiteral("--output"),
                                                                            q(base_ / "lengths-bad")},
                                                 60000, testsupport::mpiEnvironment());
        QVERIFY(bad.exitCode != 0);
        QCOMPARE(bad.err.count(QStringLiteral("error: TRAINIO_MPI_TIMEOUT_S = 'soon': expected a number of seconds > 0")), 1);
    }

    // Placement refused before anything runs, once, in the plan's words: a host no process runs on (the job's
    // hosts named), and a process that would run nothing.
    void badPlacement() {
        const std::string a = workload("qa"), b = workload("qb");
        const fs::path nowhere = plan("nowhere.yaml", "workloads:\n  - {name: a, config: " + a + ", accelerators: 1, hosts: [ha]}\n"
                                                      "  - {name: b, config: " + b + ", accelerators: 1, hosts: [hc]}\n");
        const auto r = collocateOnTwoHosts(nowhere, base_ / "nowhere");
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err.count(QStringLiteral("error:")), 1);
        QVERIFY2(r.err.contains(q(nowhere)) && r.err.contains(QStringLiteral("workload 'b': hosts: hc: no process of the MPI job runs there")) &&
                     r.err.contains(QStringLiteral("run on ha, hb")),
                 qPrintable(r.err));
        QVERIFY(!fs::exists(base_ / "nowhere"));
        const fs::path idle = plan("idle.yaml", "workloads:\n  - {name: a, config: " + a + ", accelerators: 1, hosts: [ha]}\n"
                                                "  - {name: b, config: " + b + ", accelerators: 1, hosts: [ha]}\n");
        const auto s = collocateOnTwoHosts(idle, base_ / "idle");
        QCOMPARE(s.exitCode, 2);
        QCOMPARE(s.err.count(QStringLiteral("error:")), 1);
        QVERIFY2(s.err.contains(QStringLiteral("process 1 (host hb) runs no workload of the plan")), qPrintable(s.err));
    }

    // Rank 1 killed (SIGKILL) while both workloads run: mpirun ends the job within the hang bound, process 0
    // writes each workload's measured epochs marked failed and trainio_collocation.json "failed".
    void aKilledRankStopsTheJobAndWhatWasMeasuredSurvives() {
        const std::string a = workload("ka", 16, 256, 400, 0.01), b = workload("kb", 16, 256, 400, 0.01);
        const fs::path p = plan("kill.yaml", "workloads:\n  - {name: a, config: " + a + ", accelerators: 2}\n  - {name: b, config: " + b +
                                                 ", accelerators: 2}\n");
        const fs::path out = base_ / "killed";
        const QString tag = QStringLiteral("tst_mpi_collocation_%1").arg(QCoreApplication::applicationPid());
        QProcess proc;
        mpisupport::startMpirun(proc, mpirun_,
                                mpiOptions() + QStringList{QStringLiteral("-x"), QStringLiteral("TRAINIO_TEST_TAG=") + tag,
                                                           QStringLiteral(TRAINIO_CLI), QStringLiteral("collocate"), QStringLiteral("--plan"),
                                                           q(p), QStringLiteral("--output"), q(out), QStringLiteral("--quiet")});
        QVERIFY2(proc.waitForStarted(10000), qPrintable(proc.errorString()));
        // Until both workloads have journalled a completed epoch (process 0 journals every rank's).
        auto epochDone = [&](const char* n) {
            const fs::path j = out / n / "trainio_journal.jsonl";
            return fs::exists(j) && testsupport::readText(j).find("\"complete\":true") != std::string::npos;
        };
        QElapsedTimer t;
        t.start();
        while (!(epochDone("a") && epochDone("b")) && t.elapsed() < testsupport::kHangMs && proc.state() == QProcess::Running)
            proc.waitForFinished(20);
        QVERIFY2(proc.state() == QProcess::Running, qPrintable(QString::fromLocal8Bit(proc.readAllStandardError())));
        const pid_t victim = mpisupport::rankProcess(tag, 1);
        QVERIFY2(victim > 0, "the rank's process not found");
        QCOMPARE(::kill(victim, SIGKILL), 0);
        if (!proc.waitForFinished(testsupport::kHangMs)) {
            proc.kill();
            proc.waitForFinished();
            QFAIL("mpirun did not end after the kill");
        }
        QVERIFY(proc.exitStatus() != QProcess::NormalExit || proc.exitCode() != 0);
        const json c = readJson(out / "trainio_collocation.json");
        QCOMPARE(c["status"].get<std::string>(), std::string("failed"));
        for (const char* n : {"a", "b"}) {
            QCOMPARE(readJson(out / n / "trainio_run.json")["status"].get<std::string>(), std::string("failed"));
            const json s = readJson(out / n / "summary.json");
            QVERIFY2(!s["metric"]["train_au_percentage"].empty(), s.dump().c_str());
            // Both ranks' files, rank 1's from the meetings before it died.
            const json e1 = readJson(out / n / "1_per_epoch_stats.json");
            QVERIFY2(e1.contains("1"), e1.dump().c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TstMpiCollocation)
#include "tst_mpi_collocation.moc"
