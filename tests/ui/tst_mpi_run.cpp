// MPI runs launched from the window (docs/mpi.md, "From the GUI"): the Run page's MPI group, mpirun's
// argument vector, and the real trainio-cli under the real mpirun (as root with --allow-run-as-root,
// --oversubscribe on a 2-core machine) driven through RunPage → RunController: every rank's steps and the
// epochs reach the same signals as a local run, the per-host rows fill, cancel ends the run marked
// cancelled, a second cancel kills mpirun, and a machine without mpirun is told so before anything runs.
// Expected values come from the config and from the files the run wrote, never from the GUI's own sums.
#include "run/host_table.h"
#include "plots/live_plots.h"
#include "main_window.h"
#include "run/mpi_controls.h"
#include "run/run_controller.h"
#include "run/run_page.h"
#include "workload/workload_page.h"
#include "gui_test_support.h"
#include "testsupport.h"

#include "config/config_loader.h"
#include "store/run_folder.h"
#include "dist/mpi_launch.h"
#include "engine/live_json.h"
#include "session/host_figures.h"
#include "util/errors.h"

#include <nlohmann/json.hpp>

#include <QElapsedTimer>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>

#include <set>

#include <unistd.h>

using namespace trainio::ui;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

json readJson(const QString& file) { return json::parse(testsupport::readText(file.toStdString()), nullptr, false); }

// An argument vector as a list QCOMPARE can print.
QStringList listed(const std::vector<std::string>& argv) {
    QStringList out;
    for (const auto& a : argv) out << QString::fromStdString(a);
    return out;
}

// One MPI run through the page, with what the controller reported on the way.
struct Observed {
    RunFinish finish;
    bool ended = false;
    std::set<std::uint64_t> stepRanks;
    std::vector<trainio::EpochEvent> epochs;
    QList<QStringList> hosts;
    QStringList invocationLabels, invocationStatuses;
};

} // namespace

class TestMpiRun : public QObject {
    Q_OBJECT
    QTemporaryDir settingsDir_;
    QTemporaryDir work_;
    trainio::WorkloadConfig cfg_;

    // Localhost, 2 processes × 2 accelerators, oversubscribed (CI has 2 cores).
    static void localTwoByTwo(RunPage& page) {
        MpiControls* mpi = page.mpiControls();
        mpi->setChecked(true);
        mpi->setHostList(QStringLiteral("localhost"));
        mpi->setProcessesPerHost(2);
        mpi->setAcceleratorsPerProcess(2);
        mpi->setOversubscribe(true);
    }

    static void follow(RunPage& page, Observed& o) {
        RunController* c = page.controller();
        connect(c, &RunController::steps, &page, [&o](const std::vector<trainio::StepEvent>& batch) {
            for (const auto& e : batch) o.stepRanks.insert(e.rank);
        });
        connect(c, &RunController::epochFinished, &page, [&o](const trainio::EpochEvent& e) { o.epochs.push_back(e); });
        connect(c, &RunController::hosts, &page, [&o](const QStringList& h) { o.hosts.push_back(h); });
        connect(c, &RunController::invocationStarted, &page, [&o](const QString& label, const QString&, int) {
            o.invocationLabels << label;
        });
        connect(c, &RunController::invocationFinished, &page,
                [&o](const QString&, const QString&, const QString& status, double) { o.invocationStatuses << status; });
        connect(c, &RunController::finished, &page, [&o](const RunFinish& f) {
            o.finish = f;
            o.ended = true;
        });
    }

    static bool waitFor(const Observed& o, int ms) {
        QElapsedTimer t;
        t.start();
        while (!o.ended && t.elapsed() < ms) QTest::qWait(50);
        return o.ended;
    }

    // 2 × 2 on localhost, 4 steps × 0.2 s × 50 epochs = 40 s: it cannot end by itself before the cancel
    // that follows once the first epoch has ended.
    void startLongRun(RunPage& page, Observed& o, const QString& out) {
        trainio::WorkloadConfig slow = cfg_;
        slow.train.epochs = 50;
        slow.train.computationTime.mean = 0.2;
        page.setWorkload(slow, 4, trainio::MetricSemantics::DlioV2, true);
        localTwoByTwo(page);
        page.setOutputFolder(out);
        follow(page, o);
        QVERIFY(page.startInvocation());
        QElapsedTimer waited;
        waited.start();
        while (o.epochs.empty() && !o.ended && waited.elapsed() < 120000) QTest::qWait(50);
        QVERIFY2(!o.ended, qPrintable(QStringLiteral("ended before the cancel: ") + o.finish.error));
        QVERIFY2(!o.epochs.empty(), "no epoch within 2 minutes");
    }

    // Processes on this machine whose command line names `out` (mpirun and the job's trainio-cli).
    static int processesWriting(const QString& out) {
        int n = 0;
        for (const auto& e : fs::directory_iterator("/proc")) {
            const std::string cmdline = testsupport::readText(e.path() / "cmdline");
            if (cmdline.find(out.toStdString()) != std::string::npos) ++n;
        }
        return n;
    }

private slots:
    void initTestCase() {
        uitest::isolateSettings(settingsDir_);
        QVERIFY(work_.isValid());
        // The processes the window starts run the trainio-cli of this build.
        qputenv("TRAINIO_CLI", TRAINIO_CLI);
        // Under the ASan stage the ranks' trainio-cli must not run LeakSanitizer (Open MPI's components leak
        // at MPI_Finalize): testsupport::mpiEnvironment; the children inherit this process's environment.
        for (const auto& [k, v] : testsupport::mpiEnvironment()) qputenv(k.toLocal8Bit().constData(), v.toLocal8Bit());
        // Open MPI is part of the set-up (packaging/setup-debian.sh): its absence is a broken machine.
        QVERIFY2(!QStandardPaths::findExecutable(QStringLiteral("mpirun")).isEmpty(),
                 "mpirun not found: install openmpi-bin (packaging/setup-debian.sh)");
        cfg_ = uitest::tinyWorkload(work_.filePath(QStringLiteral("data")), 32, 2, 0.002);
        const QString yaml = work_.filePath(QStringLiteral("tiny.yaml"));
        testsupport::writeText(yaml.toStdString(), trainio::toYaml(cfg_));
        const auto g = testsupport::runCli({"datagen", "--config", yaml, "--quiet"});
        QVERIFY2(g.exitCode == 0, qPrintable(g.err));
    }

    // The per-host rows are a model over core's HostTally: rows come with a placement, figures change in
    // place. Ranks 0, 1 and 3 on host a, 2 on b. Expected values by hand: epoch AU is the mean over the host's
    // ranks ((90 + 80 + 60) / 3 on a), samples/s their sum; the running AU is per rank Σcompute of the steps
    // after the first ÷ the wall time since the first ended (rank 0: 0.6 / 1 s, rank 1: 1.0 / 2 s), then the
    // mean over the ranks that have one.
    void hostRowsAreAModel() {
        HostFiguresModel m;
        QSignalSpy resets(&m, &QAbstractItemModel::modelReset);
        QSignalSpy changes(&m, &QAbstractItemModel::dataChanged);
        QVERIFY(m.setHosts({"a", "a", "b", "a"}));
        QVERIFY(!m.setHosts({"a", "a", "b", "a"})); // a benchmark's next invocation: same rows
        QCOMPARE(resets.count(), 1);
        QCOMPARE(m.rowCount(), 2);
        QCOMPARE(m.index(0, HostFiguresModel::HostColumn).data().toString(), QStringLiteral("a"));
        QCOMPARE(m.index(0, HostFiguresModel::RanksColumn).data().toString(), QStringLiteral("0–1, 3"));
        QCOMPARE(m.index(1, HostFiguresModel::RanksColumn).data().toString(), QStringLiteral("2"));
        QVERIFY(m.index(0, HostFiguresModel::EpochAuColumn).data().toString().isEmpty()); // nothing measured yet
        auto step = [](std::uint64_t rank, std::uint64_t n, double wall, double compute) {
            trainio::StepEvent e;
            e.rank = rank;
            e.step = n;
            e.stepsPerEpoch = 8;
            e.wallTime = wall;
            e.compute = compute;
            return e;
        };
        m.addSteps({step(0, 1, 1.0, 0.5), step(1, 1, 1.0, 0.5), step(0, 2, 2.0, 0.6), step(1, 2, 3.0, 1.0)});
        QCOMPARE(m.index(0, HostFiguresModel::LiveAuColumn).data().toString(), QStringLiteral("55.0 (epoch 1)"));
        trainio::EpochEvent e;
        e.rankAu = {90, 80, 70, 60};
        e.rankThroughput = {10, 20, 30, 40};
        m.addEpoch(e);
        QCOMPARE(m.index(0, HostFiguresModel::EpochAuColumn).data().toString(), QStringLiteral("76.67 (epoch 1)"));
        QCOMPARE(m.index(0, HostFiguresModel::EpochThroughputColumn).data().toString(), QStringLiteral("70.0"));
        QCOMPARE(m.index(1, HostFiguresModel::EpochAuColumn).data().toString(), QStringLiteral("70.00 (epoch 1)"));
        QCOMPARE(resets.count(), 1);
        QCOMPARE(changes.count(), 2);
        QVERIFY(m.setHosts({"a", "b"})); // another placement: new rows, no figures
        QCOMPARE(m.rowCount(), 2);
        QVERIFY(m.index(0, HostFiguresModel::EpochAuColumn).data().toString().isEmpty());
        m.clear();
        QCOMPARE(m.rowCount(), 0);
    }

    // The host list and the hostfile give the argument vector of the contract, one element per argument
    // (a path or a system name with a blank stays one element: nothing is ever parsed by a shell).
    void argumentVectorFromHostList() {
        trainio::dist::MpiLaunch l;
        l.hosts = trainio::dist::parseHostList(" nodeA:4, node-b.lab ");
        l.processesPerHost = 2;
        l.acceleratorsPerProcess = 3;
        l.allowRunAsRoot = true;
        trainio::dist::CliCommand c;
        c.program = "/opt/trainio/bin/trainio-cli";
        c.benchmark = true;
        c.config = "/tmp/my dir/w.yaml";
        c.output = "/results/unet3d 16";
        c.liveJson = "/results/.trainio-mpi-Ab12Cd/live.jsonl";
        c.runs = 5;
        c.warmups = 1;
        c.system = "lab nvme; rm -rf /";
        c.semantics = "v3";
        const std::vector<std::string> expected{
            "--allow-run-as-root", "--mca", "odls_base_sigkill_timeout", "10", "--host", "nodeA:4,node-b.lab:2",
            "--npernode", "2", "-np", "4", "/opt/trainio/bin/trainio-cli", "benchmark", "--config",
            "/tmp/my dir/w.yaml", "--output", "/results/unet3d 16", "--accelerators-per-process", "3", "--quiet",
            "--live-json", "/results/.trainio-mpi-Ab12Cd/live.jsonl", "--runs", "5", "--warmup", "1", "--system", "lab nvme; rm -rf /",
            "--semantics", "v3"};
        QCOMPARE(listed(trainio::dist::mpirunArguments(l, l.hosts.size(), c)), listed(expected));
        QCOMPARE(trainio::dist::totalAccelerators(l, l.hosts.size()), std::uint64_t(12));
    }

    void argumentVectorFromHostfile() {
        const QString file = work_.filePath(QStringLiteral("hosts file"));
        testsupport::writeText(file.toStdString(), "# two client hosts\nclient1 slots=4\n\nclient2 slots=4 max_slots=8 # spare\n");
        trainio::dist::MpiLaunch l;
        l.hostfile = file.toStdString();
        l.processesPerHost = 3;
        l.acceleratorsPerProcess = 1;
        l.oversubscribe = true;
        const auto hosts = trainio::dist::launchHosts(l);
        QCOMPARE(hosts.size(), std::size_t(2));
        QCOMPARE(hosts[1].name, std::string("client2"));
        QCOMPARE(hosts[1].slotCount, std::uint64_t(4));
        trainio::dist::CliCommand c;
        c.program = "/usr/bin/trainio-cli";
        c.config = "/shared/w.yaml";
        c.output = "/shared/out";
        c.liveJson = "/results/.trainio-mpi-Ab12Cd/live.jsonl";
        const std::vector<std::string> expected{
            "--oversubscribe", "--mca", "odls_base_sigkill_timeout", "10", "--hostfile", file.toStdString(),
            "--npernode", "3", "-np", "6", "/usr/bin/trainio-cli", "run", "--config", "/shared/w.yaml", "--output",
            "/shared/out", "--accelerators-per-process", "1", "--quiet", "--live-json", "/results/.trainio-mpi-Ab12Cd/live.jsonl", "--semantics", "v2"};
        QCOMPARE(listed(trainio::dist::mpirunArguments(l, hosts.size(), c)), listed(expected));
    }

    // What process 0 writes is what the window reads back; anything else on mpirun's output is not an event.
    void liveLinesRoundTrip() {
        trainio::StepEvent s;
        s.rank = 3;
        s.epoch = 2;
        s.step = 5;
        s.stepsPerEpoch = 8;
        s.load = 0.25;
        s.compute = 0.5;
        s.proc = 0.75;
        s.wallTime = 12.5;
        s.queueDepth = 4;
        s.bytesRead = 1ull << 40;
        const auto step = trainio::live::parseLine(trainio::live::stepLine("run 2/5", s));
        QVERIFY(step && step->kind == trainio::live::Event::Kind::Step);
        QCOMPARE(step->label, std::string("run 2/5"));
        QCOMPARE(step->step.rank, s.rank);
        QCOMPARE(step->step.bytesRead, s.bytesRead);
        QCOMPARE(step->step.proc, s.proc);
        trainio::EpochEvent e;
        e.epoch = 1;
        e.epochs = 3;
        e.auPercent = 97.5;
        e.rankAu = {95, 100};
        e.rankThroughput = {10, 12};
        const auto epoch = trainio::live::parseLine(trainio::live::epochLine("", e));
        QVERIFY(epoch && epoch->kind == trainio::live::Event::Kind::Epoch);
        QCOMPARE(epoch->epoch.rankAu, e.rankAu);
        QCOMPARE(epoch->epoch.rankThroughput, e.rankThroughput);
        const auto hosts = trainio::live::parseLine(trainio::live::hostsLine("", {"a", "a", "b"}));
        QVERIFY(hosts && hosts->hosts == (std::vector<std::string>{"a", "a", "b"}));
        const auto done = trainio::live::parseLine(trainio::live::invocationFinishedLine("warm-up", "/r/warmup", "cancelled", 42));
        QVERIFY(done && done->kind == trainio::live::Event::Kind::InvocationFinished);
        QCOMPARE(done->text, std::string("cancelled"));
        QCOMPARE(done->dir, std::string("/r/warmup"));
        for (const char* other : {"", "/results/x/summary.json", "{\"event\": \"step\", \"rank\": \"0\"}", "[1,2]",
                                  "{\"event\": \"datagen\"}", "{\"event\": \"hosts\", \"ranks\": [{\"rank\": 5, \"host\": \"a\"}]}"})
            QVERIFY2(!trainio::live::parseLine(other), other);
    }

    // Per host: the mean of its ranks' AU and the sum of their samples/s.
    void hostFiguresFromRanks() {
        trainio::HostTally tally({"a", "a", "b", "b"});
        QCOMPARE(tally.hosts().size(), std::size_t(2));
        trainio::EpochEvent e;
        e.epoch = 1;
        e.rankAu = {10, 20, 30, 40};
        e.rankThroughput = {1, 2, 3, 4};
        tally.addEpoch(e);
        QCOMPARE(tally.hosts()[0].epochAuPercent, 15.0);
        QCOMPARE(tally.hosts()[0].epochSamplesPerSecond, 3.0);
        QCOMPARE(tally.hosts()[1].epochAuPercent, 35.0);
        QCOMPARE(tally.hosts()[1].epochSamplesPerSecond, 7.0);
        trainio::StepEvent s;
        s.rank = 2;
        s.epoch = 2;
        s.step = 1; // the first step starts the window
        s.compute = 1;
        s.wallTime = 10;
        tally.addStep(s);
        s.step = 2;
        s.compute = 0.9;
        s.wallTime = 11; // 0.1 s of it waiting: AU 90 %
        tally.addStep(s);
        s.step = 3;
        s.compute = 0.5;
        s.wallTime = 12; // 0.5 s waiting: (0.9 + 0.5) ÷ 2 = 70 %
        tally.addStep(s);
        QCOMPARE(tally.hosts()[1].liveEpoch, std::uint64_t(2));
        QCOMPARE(tally.hosts()[1].liveAuPercent, 70.0);
        QCOMPARE(tally.hosts()[0].liveEpoch, std::uint64_t(0)); // no step of host a's ranks yet
    }

    // Host names that are not names (a shell's metacharacters, an option, blanks) never reach mpirun.
    void hostListsAreChecked() {
        for (const char* bad : {"", "a,,b", "a;rm", "a b", "-np", "a:0", "a:x", "a:", ".hidden", "a:2:3"}) {
            bool refused = false;
            try {
                trainio::dist::parseHostList(bad);
            } catch (const trainio::InputError&) {
                refused = true;
            }
            QVERIFY2(refused, bad);
        }
        const auto merged = trainio::dist::parseHostList("a:2,b,a:3"); // as Open MPI merges a host named twice
        QCOMPARE(merged.size(), std::size_t(2));
        QCOMPARE(merged[0].slotCount, std::uint64_t(5));
        trainio::dist::MpiLaunch l;
        l.hosts = trainio::dist::parseHostList("a:1,b");
        l.processesPerHost = 2;
        QCOMPARE(trainio::dist::launchProblems(l, l.hosts).size(), std::size_t(1)); // a has 1 slot for 2
        l.oversubscribe = true;
        QVERIFY(trainio::dist::launchProblems(l, l.hosts).empty());
        const QString bad = work_.filePath(QStringLiteral("bad-hostfile"));
        testsupport::writeText(bad.toStdString(), "good\nnode cpus=4\n");
        try {
            trainio::dist::readHostfile(bad.toStdString());
            QFAIL("a hostfile with an unknown keyword was accepted");
        } catch (const trainio::InputError& e) {
            QVERIFY2(std::string(e.what()).find("line 2") != std::string::npos, e.what());
        }
    }

    // The group shows hosts × P × K and says what is wrong; the fields are remembered.
    void mpiGroupDerivesAndRemembers() {
        {
            RunPage page;
            MpiControls* mpi = page.mpiControls();
            QVERIFY(!mpi->isChecked()); // off by default
            QSignalSpy derived(&page, &RunPage::acceleratorsDerived);
            mpi->setChecked(true);
            mpi->setHostList(QStringLiteral("n1:2,n2:2,n3"));
            mpi->setProcessesPerHost(2);
            mpi->setAcceleratorsPerProcess(4);
            QCOMPARE(mpi->totalAccelerators(), std::uint64_t(24));
            QCOMPARE(page.runAccelerators(), std::uint64_t(24));
            QVERIFY2(mpi->summaryText().contains(QStringLiteral("= 24 accelerators")), qPrintable(mpi->summaryText()));
            QVERIFY(!derived.isEmpty());
            QCOMPARE(derived.last().at(0).toBool(), true);
            QCOMPARE(derived.last().at(1).toULongLong(), 24ULL);
            mpi->setHostList(QStringLiteral("n1;reboot"));
            QCOMPARE(mpi->totalAccelerators(), std::uint64_t(0));
            QVERIFY2(mpi->summaryText().contains(QStringLiteral("letters, digits")), qPrintable(mpi->summaryText()));
            page.setWorkload(cfg_, 1, trainio::MetricSemantics::DlioV2, true);
            page.setOutputFolder(work_.filePath(QStringLiteral("never")));
            QSignalSpy notes(&page, &RunPage::notify);
            QVERIFY(!page.startInvocation()); // a bad host list does not start
            QVERIFY(!page.isRunning());
            QVERIFY(notes.last().at(1).toString().contains(QStringLiteral("MPI")));
            mpi->setHostList(QStringLiteral("n1:2,n2"));
            mpi->setChecked(false);
            QCOMPARE(derived.last().at(0).toBool(), false);
            QCOMPARE(page.runAccelerators(), std::uint64_t(1));
        }
        RunPage again; // the next session
        QCOMPARE(again.mpiControls()->hostsEdit()->text(), QStringLiteral("n1:2,n2"));
        QCOMPARE(again.mpiControls()->isChecked(), false);
        again.mpiControls()->setChecked(true);
        QCOMPARE(again.mpiControls()->totalAccelerators(), std::uint64_t(2 * 2 * 4));
        again.mpiControls()->setChecked(false);
    }

    // In the window, the Workload page's Accelerators field follows the MPI group: derived and not editable
    // while it is on, the user's own value back when it is off.
    void workloadAcceleratorsFollowTheGroup() {
        MainWindow w;
        WorkloadPage* workload = w.workloadPage();
        workload->setAccelerators(3);
        QWidget* field = workload->editorFor(QStringLiteral("accelerators"));
        QVERIFY(field && field->isEnabled());
        MpiControls* mpi = w.runPage()->mpiControls();
        mpi->setHostList(QStringLiteral("a,b"));
        mpi->setProcessesPerHost(2);
        mpi->setAcceleratorsPerProcess(3);
        mpi->setChecked(true);
        QCOMPARE(workload->accelerators(), std::uint64_t(12));
        QVERIFY(!field->isEnabled());
        QCOMPARE(w.runPage()->runAccelerators(), std::uint64_t(12));
        mpi->setAcceleratorsPerProcess(1);
        QCOMPARE(workload->accelerators(), std::uint64_t(4));
        mpi->setChecked(false);
        QVERIFY(field->isEnabled());
        QCOMPARE(workload->accelerators(), std::uint64_t(3));
        QCOMPARE(w.runPage()->runAccelerators(), std::uint64_t(3));
    }

    // -np 2, K = 2 on localhost: ranks 0…3 reach the step signals, both epochs arrive with 4 ranks each,
    // the folder has 4 accelerators, and the host rows show one host with 4 ranks.
    void runOnLocalhostReachesEveryRank() {
        RunPage page;
        page.resize(1400, 900);
        page.show();
        page.setWorkload(cfg_, 4, trainio::MetricSemantics::DlioV2, true);
        localTwoByTwo(page);
        QCOMPARE(page.runAccelerators(), std::uint64_t(4));
        const QString out = work_.filePath(QStringLiteral("np2k2"));
        page.setOutputFolder(out);
        Observed o;
        follow(page, o);
        QVERIFY(page.startInvocation());
        QVERIFY2(waitFor(o, 180000), "the MPI run did not end within 3 minutes");
        QVERIFY2(o.finish.complete, qPrintable(o.finish.error));
        QCOMPARE(o.stepRanks, (std::set<std::uint64_t>{0, 1, 2, 3}));
        QCOMPARE(o.epochs.size(), std::size_t(2));
        for (const auto& e : o.epochs) QCOMPARE(e.rankAu.size(), std::size_t(4));
        QCOMPARE(int(o.hosts.size()), 1);
        QCOMPARE(int(o.hosts.first().size()), 4);
        QCOMPARE(o.invocationLabels, QStringList{QStringLiteral("invocation")});
        QCOMPARE(o.invocationStatuses, QStringList{QStringLiteral("complete")});
        const json summary = readJson(out + QStringLiteral("/summary.json"));
        QCOMPARE(summary["num_accelerators"].get<int>(), 4);
        QCOMPARE(readJson(out + QStringLiteral("/trainio_run.json"))["processes"].get<int>(), 2);
        // 32 files / (batch 2 × 4 ranks) = 4 steps per epoch, 2 epochs: every step reached the plots.
        QCOMPARE(page.plots()->stepPointCount(), 4 * 2);

        HostTable* table = page.hostTable();
        QVERIFY(table->isVisible());
        const HostFiguresModel* rows = table->figures();
        QCOMPARE(rows->rowCount(), 1);
        QCOMPARE(rows->index(0, HostFiguresModel::RanksColumn).data().toString(), QStringLiteral("0–3"));
        QCOMPARE(table->tally().hosts().front().ranks.size(), std::size_t(4));
        // The host's figures are the last epoch's, from its ranks: with one host, the job's.
        const auto& h = table->tally().hosts().front();
        QCOMPARE(h.epoch, std::uint64_t(2));
        QVERIFY(std::abs(h.epochAuPercent - o.epochs.back().auPercent) < 1e-9);
        QVERIFY(std::abs(h.epochSamplesPerSecond - o.epochs.back().throughput) < 1e-6 * o.epochs.back().throughput);
        QVERIFY2(!rows->index(0, HostFiguresModel::EpochAuColumn).data().toString().isEmpty(), "the AU column is filled");
        // The workload file written for the processes is gone with the run.
        for (const QFileInfo& f : QDir(work_.path()).entryInfoList(QDir::Dirs | QDir::Hidden | QDir::NoDotAndDotDot))
            QVERIFY2(!f.fileName().startsWith(QStringLiteral(".trainio-mpi")), qPrintable(f.filePath()));
    }

    // A benchmark over MPI lists each invocation with its label and status, as a local benchmark does.
    void benchmarkOverMpiListsItsInvocations() {
        RunPage page;
        page.setWorkload(cfg_, 4, trainio::MetricSemantics::DlioV2, true);
        localTwoByTwo(page);
        const QString out = work_.filePath(QStringLiteral("bench"));
        page.setOutputFolder(out);
        page.setBenchmarkShape(1, 1);
        Observed o;
        follow(page, o);
        // The library the window adds the result to (MainWindow::addResultsFolder).
        ResultsLibraryLoader loader;
        QSignalSpy loaded(&loader, &ResultsLibraryLoader::loaded);
        QObject::connect(&page, &RunPage::resultsWritten, &loader,
                         [&](const QString& dir, std::shared_ptr<const trainio::store::WrittenFiles> written) { loader.addWritten(dir, written); });
        trainio::store::ReadLog log;
        QVERIFY(page.startBenchmark());
        QVERIFY2(waitFor(o, 240000), "the MPI benchmark did not end within 4 minutes");
        QVERIFY2(o.finish.complete, qPrintable(o.finish.error));
        // Process 0 of the job wrote the folder, not this process: it is read once, and the library takes
        // it from there (issue 20) — no file of it is opened twice.
        QVERIFY(uitest::received(loaded, testsupport::kHangMs));
        QCOMPARE(loader.library()->imported().runs.size(), std::size_t(2));
        const std::vector<std::filesystem::path> reads = log.filesIn(out.toStdString());
        QVERIFY(!reads.empty());
        const std::set<std::filesystem::path> once(reads.begin(), reads.end());
        QCOMPARE(once.size(), reads.size());
        QCOMPARE(o.invocationLabels, (QStringList{QStringLiteral("warm-up"), QStringLiteral("run 1/1")}));
        QCOMPARE(o.invocationStatuses, (QStringList{QStringLiteral("complete"), QStringLiteral("complete")}));
        QCOMPARE(o.epochs.size(), std::size_t(4));
        // 2 invocations × 2 epochs × 4 steps, each complete on the plots: no invocation's first steps
        // reached them ahead of its start (which would split a step across two invocations).
        QCOMPARE(page.plots()->stepPointCount(), 2 * 2 * 4);
        QCOMPARE(readJson(out + QStringLiteral("/runs/run-1/summary.json"))["num_accelerators"].get<int>(), 4);
        QVERIFY(QFileInfo::exists(out + QStringLiteral("/warmup/summary.json")));
    }

    // Cancel during a long run: SIGINT to mpirun, every process stops, process 0 writes the folder marked
    // cancelled (and the run does not go on to its end: not complete).
    void cancelEndsTheRunMarkedCancelled() {
        RunPage page;
        Observed o;
        const QString out = work_.filePath(QStringLiteral("cancelled"));
        startLongRun(page, o, out);
        QElapsedTimer sinceCancel;
        sinceCancel.start();
        page.cancel();
        QVERIFY2(waitFor(o, testsupport::kHangMs), "not ended after the cancel");
        qInfo("ended %lld ms after the cancel", static_cast<long long>(sinceCancel.elapsed()));
        QVERIFY(!o.finish.complete);
        QVERIFY2(o.finish.cancelled, qPrintable(o.finish.error));
        const json run = readJson(out + QStringLiteral("/trainio_run.json"));
        QCOMPARE(QString::fromStdString(run.value("status", std::string())), QStringLiteral("cancelled"));
        QVERIFY(QFileInfo::exists(out + QStringLiteral("/summary.json")));
        QVERIFY(QFileInfo::exists(out + QStringLiteral("/3_output.json")));
        QVERIFY2(processesWriting(out) == 0, "a process of the job outlived the run");
    }

    // A second cancel does not wait for process 0: mpirun is killed, and its processes with it.
    void secondCancelKillsMpirun() {
        RunPage page;
        Observed o;
        const QString out = work_.filePath(QStringLiteral("killed"));
        startLongRun(page, o, out);
        page.cancel();
        page.cancel();
        QVERIFY2(waitFor(o, testsupport::kHangMs), "not ended after the second cancel");
        QVERIFY(o.finish.cancelled);
        QVERIFY(!page.isRunning());
        QElapsedTimer t;
        t.start();
        while (processesWriting(out) > 0 && t.elapsed() < testsupport::kHangMs) QTest::qWait(100);
        QVERIFY2(processesWriting(out) == 0, "a process of the killed job is still running");
    }

    // Checkpointing under MPI from the Run page (issue 31): no longer refused by the window's pre-flight; the
    // small llama of tst_mpi_checkpoint, checkpoint-only, 2 processes × 1 accelerator on localhost: both ranks'
    // save_ckpt/load_ckpt in process 0's folder and each rank's files in the checkpoint folder.
    void checkpointOverMpi() {
        const QString ckpt = work_.filePath(QStringLiteral("ckpt"));
        const trainio::WorkloadConfig llama =
            trainio::loadConfigOrPreset("llama3_8b", {"++workload.model.num_layers=4", "++workload.model.transformer.vocab_size=1000",
                                                      "++workload.model.transformer.hidden_size=256",
                                                      "++workload.model.transformer.ffn_hidden_size=1024",
                                                      "++workload.model.transformer.num_attention_heads=8",
                                                      "++workload.model.transformer.num_kv_heads=2",
                                                      "++workload.checkpoint.checkpoint_folder=" + ckpt.toStdString(),
                                                      "++workload.checkpoint.num_checkpoints_write=2",
                                                      "++workload.checkpoint.num_checkpoints_read=1"})
                .config;
        QVERIFY(llama.workflow.checkpoint && !llama.workflow.train);
        RunPage page;
        page.setWorkload(llama, 2, trainio::MetricSemantics::DlioV3, true);
        MpiControls* mpi = page.mpiControls();
        mpi->setChecked(true);
        mpi->setHostList(QStringLiteral("localhost"));
        mpi->setProcessesPerHost(2);
        mpi->setAcceleratorsPerProcess(1);
        mpi->setOversubscribe(true);
        const QString out = work_.filePath(QStringLiteral("ckpt-run"));
        page.setOutputFolder(out);
        Observed o;
        follow(page, o);
        QVERIFY(page.startInvocation());
        QVERIFY2(waitFor(o, 180000), "the MPI checkpoint run did not end within 3 minutes");
        QVERIFY2(o.finish.complete, qPrintable(o.finish.error));
        const json summary = readJson(out + QStringLiteral("/summary.json"));
        QCOMPARE(summary["num_accelerators"].get<int>(), 2);
        QVERIFY2(summary["metric"]["checkpoint_size_GB"].get<double>() > 0, summary.dump().c_str());
        for (int rank = 0; rank < 2; ++rank) {
            const json e = readJson(out + QStringLiteral("/%1_per_epoch_stats.json").arg(rank));
            QVERIFY2(e["1"].contains("save_ckpt1") && e["1"].contains("save_ckpt2") && e["1"].contains("load_ckpt1"), e.dump().c_str());
        }
        // ZeRO 3: every rank writes its own files into each checkpoint's folder (DLIO's names carry the rank).
        int rank0 = 0, rank1 = 0;
        for (const auto& e : fs::recursive_directory_iterator(ckpt.toStdString())) {
            const std::string name = e.path().filename().string();
            if (name.rfind("zero_pp_rank_0_", 0) == 0) ++rank0;
            if (name.rfind("zero_pp_rank_1_", 0) == 0) ++rank1;
        }
        // 2 checkpoints × (model states + optimizer states) per rank, as the fork names them.
        QVERIFY2(rank0 == 4 && rank1 == 4, qPrintable(QStringLiteral("rank 0: %1 files, rank 1: %2").arg(rank0).arg(rank1)));
    }

    // Pre-flight: without mpirun on PATH nothing starts, and the problem names the package to install.
    void missingMpirunIsAPreflightProblem() {
        const QByteArray path = qgetenv("PATH");
        QTemporaryDir empty;
        qputenv("PATH", empty.path().toLocal8Bit());
        RunController controller;
        QSignalSpy finished(&controller, &RunController::finished);
        RunRequest req;
        req.config = cfg_;
        req.outputDir = work_.filePath(QStringLiteral("no-mpirun")).toStdString();
        req.accelerators = 2;
        trainio::dist::MpiLaunch l;
        l.hosts = trainio::dist::parseHostList("localhost");
        l.processesPerHost = 2;
        req.mpi = l;
        QVERIFY(controller.start(req));
        const bool ended = finished.wait(testsupport::kHangMs);
        qputenv("PATH", path);
        QVERIFY(ended);
        const auto r = finished.first().first().value<RunFinish>();
        QVERIFY(!r.complete && !r.cancelled);
        QVERIFY2(r.error.contains(QStringLiteral("openmpi-bin")), qPrintable(r.error));
        QVERIFY(!QFileInfo::exists(work_.filePath(QStringLiteral("no-mpirun"))));
    }
};

QTEST_MAIN(TestMpiRun)
#include "tst_mpi_run.moc"
