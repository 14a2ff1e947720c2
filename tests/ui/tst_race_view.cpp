// The race and the replay (issue 33): recorded runs played side by side from their per-step records,
// labelled "replay of <run>, recorded <date>", reading nothing of their dataset; a live run raced against a
// recording from the Run page; `trainio --replay DIR…` and File → Replay…; three lanes at most, every text
// whole at 1280×720 and 1920×1080.
#include "main_window.h"
#include "gui_arguments.h"
#include "run/race_rivals.h"
#include "run/race_view.h"
#include "run/run_controller.h"
#include "run/run_page.h"
#include "run/storage_controls.h"
#include "session/recorded_run.h"
#include "util/errors.h"
#include "widgets/file_dialogs.h"
#include "workload/workload_page.h"
#include "gui_test_support.h"
#include "mark_label_checks.h"
#include "testsupport.h"

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>
#include <qcustomplot.h>

#include <QAction>
#include <QDoubleSpinBox>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <fstream>

using namespace trainio::ui;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json readJson(const fs::path& p) {
    std::ifstream in(p);
    return json::parse(in);
}

// The steps a DLIO-format run folder holds, counted from its <rank>_output.json files as written: every
// block's "proc" list of every epoch of every rank.
std::size_t stepsIn(const fs::path& run) {
    std::size_t n = 0;
    for (const auto& entry : fs::directory_iterator(run)) {
        const std::string name = entry.path().filename().string();
        if (name.size() < 12 || name.substr(name.size() - 12) != "_output.json") continue;
        const json j = readJson(entry.path());
        for (const auto& [key, epoch] : j.items())
            if (!key.empty() && std::isdigit(static_cast<unsigned char>(key[0])) && epoch.contains("proc"))
                for (const auto& [block, steps] : epoch["proc"].items()) n += steps.size();
    }
    return n;
}

// "2026-11-28T05:26:55.839594" → "2026-11-28 05:26", written here from the summary's text.
QString minute(const std::string& start) { return QString::fromStdString(start.substr(0, 10) + " " + start.substr(11, 5)); }

// Opens and reads of any file below a folder, seen by the kernel (inotify): what proves a replay reads no
// file of a dataset.
class FolderWatch {
public:
    explicit FolderWatch(const QString& root) : fd_(inotify_init1(IN_NONBLOCK)) {
        QDirIterator it(root, QDir::Dirs | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
        QStringList dirs{root};
        while (it.hasNext()) dirs << it.next();
        for (const QString& d : dirs)
            if (inotify_add_watch(fd_, d.toLocal8Bit().constData(), IN_OPEN | IN_ACCESS) >= 0) ++watched_;
    }
    ~FolderWatch() { ::close(fd_); }
    int watched() const { return watched_; }
    // Events since the last call.
    int events() {
        int n = 0;
        alignas(inotify_event) char buffer[8192];
        for (;;) {
            const ssize_t got = ::read(fd_, buffer, sizeof buffer);
            if (got <= 0) break;
            for (char* p = buffer; p < buffer + got;) {
                auto* e = reinterpret_cast<inotify_event*>(p);
                ++n;
                p += sizeof(inotify_event) + e->len;
            }
        }
        return n;
    }

private:
    int fd_;
    int watched_ = 0;
};

// The race view at both projector sizes, shown as the room sees it: the labels cut at either (waited for:
// fonts follow a resize), or that it was never shown; its picture saved as <name>-WxH.png where
// TRAINIO_SCREENSHOT_DIR says.
QStringList clippedAtProjectorSizes(RaceView* race, const QString& name) {
    QStringList problems;
    for (const QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
        race->showNormal();
        race->resize(size);
        if (!QTest::qWaitForWindowExposed(race)) return {QStringLiteral("the race view was not shown")};
        (void)QTest::qWaitFor([&] { return uitest::clippedLabels(race).isEmpty(); }, 10000);
        for (const QString& c : uitest::clippedLabels(race)) problems << QStringLiteral("%1x%2: %3").arg(size.width()).arg(size.height()).arg(c);
        if (const QByteArray dir = qgetenv("TRAINIO_SCREENSHOT_DIR"); !dir.isEmpty())
            race->grab().save(QStringLiteral("%1/%2-%3x%4.png").arg(QString::fromLocal8Bit(dir), name).arg(size.width()).arg(size.height()));
    }
    return problems;
}

} // namespace

class TestRaceView : public QObject {
    Q_OBJECT
    uitest::TestFolders dirs_;
    QString recorded_;  // a TrainIO run made here, its emulated device changed live once
    QString dataDir_;   // its dataset

    const fs::path np2 = testsupport::fixtures() / "dlio-runs" / "epoch_small_np2";
    const fs::path np4 = testsupport::fixtures() / "dlio-runs" / "epoch_small_np4";
    const fs::path unet = testsupport::fixtures() / "dlio-runs" / "unet3d_small_np2";

private slots:
    void initTestCase() {
        QVERIFY(dirs_.work.isValid());
        // A run recorded through the window: 1 MiB/s (16 × 64 KiB an epoch, 50 ms of compute a step of two
        // samples), then 4 MiB/s from the Run page's strip during the second epoch (a live change, logged
        // with its time).
        dataDir_ = dirs_.work.filePath(QStringLiteral("race-data"));
        trainio::WorkloadConfig cfg = uitest::tinyWorkload(dataDir_, 16, 5, 0.05);
        QVERIFY(uitest::generateDataset(cfg));
        cfg.trainio.storage.bandwidthMiBs = 1;
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.workloadPage()->setConfig(cfg, QStringLiteral("test"));
        RunPage* run = w.runPage();
        run->setOutputFolder(dirs_.work.filePath(QStringLiteral("recorded")));
        QSignalSpy finished(run->controller(), &RunController::finished);
        QSignalSpy epochs(run->controller(), &RunController::epochFinished);
        QVERIFY(run->startInvocation());
        QVERIFY(uitest::received(epochs, testsupport::kHangMs));
        run->storageControls()->bandwidthBox()->setValue(4);
        QVERIFY(uitest::received(finished, testsupport::kHangMs));
        const auto result = finished.first().first().value<RunFinish>();
        QVERIFY2(result.complete, qPrintable(result.error));
        recorded_ = result.outputDir;
    }

    // What the replay plays is what the folder's files say: every step of every rank, the epochs' AU of the
    // run's own summary.json, its start as the date; two ranks' steps in the order of their moments.
    void aRecordingIsWhatItsFilesSay() {
        const trainio::session::RecordedRun run = trainio::session::loadRecordedRun(np2);
        const json summary = readJson(np2 / "summary.json");
        QCOMPARE(run.ranks, std::uint64_t(2));
        QCOMPARE(run.steps.size(), stepsIn(np2));
        QVERIFY(run.steps.size() > 10);
        for (std::size_t i = 1; i < run.steps.size(); ++i) QVERIFY(run.steps[i - 1].wallTime <= run.steps[i].wallTime);
        QVERIFY(run.steps.front().wallTime >= 0);
        const auto& au = summary["metric"]["train_au_percentage"];
        QCOMPARE(run.epochs.size(), au.size());
        for (std::size_t e = 0; e < au.size(); ++e) QCOMPARE(run.epochs[e].event.auPercent, au[e].get<double>());
        QCOMPARE(run.auMeanPercent, summary["metric"]["train_au_mean_percentage"].get<double>());
        QCOMPARE(QString::fromStdString(trainio::session::replayCaption(run)),
                 QStringLiteral("replay of epoch_small_np2, recorded ") + minute(summary["start"].get<std::string>()));
        // A whole run lasts as long as its records say: the last step near the summary's end.
        QVERIFY2(run.seconds > 0.5 && run.seconds < 60, qPrintable(QString::number(run.seconds)));
    }

    // Bad folders are refused, naming the folder and what it lacks.
    void foldersThatHoldNoRunAreRefused() {
        QTemporaryDir empty;
        try {
            trainio::session::loadRecordedRun(empty.path().toStdString());
            QFAIL("an empty folder was accepted");
        } catch (const trainio::InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(empty.path()) && QString::fromUtf8(e.what()).contains(QLatin1String("no run")), e.what());
        }
        try {
            trainio::session::loadRecordedRun(testsupport::fixtures() / "dlio-runs");
            QFAIL("a folder of several benchmarks was accepted");
        } catch (const trainio::InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QLatin1String("benchmarks (")), e.what());
        }
        try {
            trainio::session::loadRecordedRun("/no/such/folder");
            QFAIL("a missing folder was accepted");
        } catch (const trainio::InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QLatin1String("/no/such/folder: no such folder")), e.what());
        }
    }

    // The replay of a TrainIO run reads no file of its dataset (the kernel is asked: inotify on every folder
    // of it), and shows the run: its caption, its live change as a marker in the change's words, the run's
    // own epoch and mean AU at the end.
    void replayReadsNoFileOfTheDataset() {
        FolderWatch watch(dataDir_);
        QVERIFY(watch.watched() >= 1);
        QCOMPARE(watch.events(), 0);
        RaceView view;
        view.resize(1280, 720);
        view.show();
        QVERIFY(view.addReplayFolder(recorded_));
        view.start();
        view.advanceTo(1e6);
        QVERIFY(view.replaysFinished());
        QCOMPARE(watch.events(), 0);
        // The check can fail: one file of the dataset read here is seen.
        QDirIterator files(dataDir_, QDir::Files, QDirIterator::Subdirectories);
        QVERIFY(files.hasNext());
        QFile one(files.next());
        QVERIFY(one.open(QIODevice::ReadOnly));
        QVERIFY(!one.read(16).isEmpty());
        QVERIFY(watch.events() >= 1);

        const json summary = readJson(fs::path(recorded_.toStdString()) / "summary.json");
        QVERIFY2(view.laneCaption(0).startsWith(QStringLiteral("replay of %1, recorded %2")
                                                    .arg(QFileInfo(recorded_).fileName(), minute(summary["start"].get<std::string>()))),
                 qPrintable(view.laneCaption(0)));
        QVERIFY2(view.laneCaption(0).contains(QLatin1String("emulated")), qPrintable(view.laneCaption(0)));
        QCOMPARE(view.laneMarkers(0), QStringList{QStringLiteral("bw 1 MiB/s → 4 MiB/s")});
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.chart()->replot();
        uitest::checkMarkLabels(view.chart(), QStringLiteral("1: bw 1 MiB/s → 4 MiB/s"));
        const auto& au = summary["metric"]["train_au_percentage"];
        QCOMPARE(view.laneEpoch(0), QStringLiteral("epoch %1 % (DLIO) · run %2 %")
                                        .arg(au.back().get<double>(), 0, 'f', 1)
                                        .arg(summary["metric"]["train_au_mean_percentage"].get<double>(), 0, 'f', 1));
        QVERIFY(view.laneAuValue(0));
        QVERIFY2(view.laneDelivered(0).endsWith(QLatin1String("MiB/s")), qPrintable(view.laneDelivered(0)));
        QVERIFY2(view.laneLimit(0).startsWith(QLatin1String("limited by: ")), qPrintable(view.laneLimit(0)));
    }

    // At 1× a recording takes its own time: half-way through the clock, about half of its steps are played.
    void aReplayKeepsTheRecordedPace() {
        const trainio::session::RecordedRun run = trainio::session::loadRecordedRun(unet);
        trainio::session::ReplayCursor cursor(run, 1.0);
        const std::size_t half = cursor.until(run.seconds / 2).steps.size();
        QVERIFY2(half > 0 && half < run.steps.size(), qPrintable(QStringLiteral("%1 of %2").arg(half).arg(run.steps.size())));
        QCOMPARE(cursor.until(run.seconds).steps.size() + half, run.steps.size());
        QVERIFY(cursor.finished());
        trainio::session::ReplayCursor fast(run, 10.0);
        QCOMPARE(fast.until(run.seconds / 10).steps.size(), run.steps.size());
    }

    // Three runs side by side, one scale; a fourth is refused in words; every text whole at projector sizes.
    void threeLanesFitTheRoom() {
        RaceView view;
        QVERIFY(view.addReplayFolder(QString::fromStdString(np2.string())));
        QVERIFY(view.addReplayFolder(QString::fromStdString(np4.string())));
        QVERIFY(view.addReplayFolder(recorded_));
        QCOMPARE(view.laneCount(), 3);
        QVERIFY(!view.addReplayFolder(QString::fromStdString(unet.string())));
        QVERIFY2(view.message().contains(QLatin1String("At most 3")), qPrintable(view.message()));
        QCOMPARE(view.laneCount(), 3);
        view.start();
        view.advanceTo(1e6);
        for (int lane = 0; lane < 3; ++lane) {
            QVERIFY2(view.laneCaption(lane).startsWith(QLatin1String("replay of ")), qPrintable(view.laneCaption(lane)));
            QVERIFY(view.laneAuValue(lane));
            QVERIFY(!view.chart()->graph(lane)->data()->isEmpty());
        }
        for (const QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
            view.resize(size);
            view.show();
            QVERIFY(QTest::qWaitForWindowExposed(&view));
            // Fonts follow the window's size on its resize: waited for, then named if something is still cut.
            (void)QTest::qWaitFor([&] { return uitest::clippedLabels(&view).isEmpty(); }, 10000);
            const QStringList clipped = uitest::clippedLabels(&view);
            QVERIFY2(clipped.isEmpty(), qPrintable(clipped.join(QLatin1Char('\n'))));
            view.chart()->replot();
            uitest::checkMarkLabels(view.chart(), QStringLiteral("3: bw 1 MiB/s → 4 MiB/s"));
            if (const QByteArray dir = qgetenv("TRAINIO_SCREENSHOT_DIR"); !dir.isEmpty())
                view.grab().save(QStringLiteral("%1/replay-%2x%3.png").arg(QString::fromLocal8Bit(dir)).arg(size.width()).arg(size.height()));
        }
    }

    // The Run page's "Race a recording…": the live run's lane first, the recording beside it; both play
    // from the run's start; the recording's lane says it is one.
    void raceALiveRunAgainstARecording() {
        trainio::WorkloadConfig cfg = uitest::tinyWorkload(dataDir_, 16, 4, 0.05);
        cfg.trainio.storage.bandwidthMiBs = 8;
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.workloadPage()->setConfig(cfg, QStringLiteral("test"));
        RunPage* run = w.runPage();
        run->setOutputFolder(dirs_.work.filePath(QStringLiteral("race-live")));
        setFileDialogHook([this](const QString&, const QString&) { return recorded_; });
        QTest::mouseClick(run->raceButton(), Qt::LeftButton);
        setFileDialogHook({});
        RaceView* race = run->raceView();
        QVERIFY(race->isVisible());
        QCOMPARE(race->laneCount(), 2);
        QCOMPARE(race->laneCaption(0), QStringLiteral("live: measured now · emulated storage")); // limits without a profile
        QVERIFY2(race->laneCaption(1).startsWith(QLatin1String("replay of ")), qPrintable(race->laneCaption(1)));
        QSignalSpy finished(run->controller(), &RunController::finished);
        QVERIFY(run->startInvocation());
        // Both lanes show figures while the run goes (the recording plays at 1× from the run's start).
        QTRY_VERIFY_WITH_TIMEOUT(race->laneAuValue(0) && race->laneAuValue(1), testsupport::kHangMs);
        QVERIFY2(race->laneTitle(0).contains(QLatin1String("accelerator")), qPrintable(race->laneTitle(0)));
        // Readable at projector sizes during the race (from the live run's first epoch on).
        QTRY_VERIFY_WITH_TIMEOUT(race->laneEpoch(0).startsWith(QLatin1String("last epoch ")) || !finished.isEmpty(), testsupport::kHangMs);
        const QStringList clipped = clippedAtProjectorSizes(race, QStringLiteral("race"));
        QVERIFY2(clipped.isEmpty(), qPrintable(clipped.join(QLatin1Char('\n'))));
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), testsupport::kHangMs);
        QTRY_VERIFY_WITH_TIMEOUT(race->laneEpoch(0).startsWith(QLatin1String("last epoch ")) &&
                                     !race->laneEpoch(0).endsWith(QStringLiteral("—")),
                                 testsupport::kHangMs);
        QTest::keyClick(race, Qt::Key_Escape);
        QVERIFY(!race->isVisible());
    }

    // The Race menu's live race: this workload on another storage profile beside the page's run, both measured
    // at once. Each lane says where its bytes come from; the object store's first byte (100 ms a request, as
    // its profile file says) starves the accelerators that NVMe keeps busy, and the lanes and the two runs'
    // own summary.json files say so alike; the rival's run is a run of its own, its folder beside the page's,
    // the profile in its configuration, and goes to the library.
    void raceTwoProfilesLive() {
        trainio::WorkloadConfig cfg = uitest::tinyWorkload(dataDir_, 16, 3, 0.05);
        cfg.trainio.storage.profile = "nvme";
        cfg.trainio.storage.bandwidthMiBs = 100; // the page's own limits; the rival takes its profile's alone
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.workloadPage()->setConfig(cfg, QStringLiteral("test"));
        RunPage* run = w.runPage();
        const QString folder = dirs_.work.filePath(QStringLiteral("race-profiles"));
        run->setOutputFolder(folder);
        for (const char* p : {"hdd", "nfs-10gbe", "nvme", "object-store", "sata-ssd"})
            QVERIFY2(run->findChild<QAction*>(QStringLiteral("raceProfile:") + QLatin1String(p)), p);
        QVERIFY(!run->raceProfile(QStringLiteral("no-such-profile")));
        QCOMPARE(run->rivals()->count(), 0);
        run->findChild<QAction*>(QStringLiteral("raceProfile:object-store"))->trigger();
        RaceView* race = run->raceView();
        QVERIFY(race->isVisible());
        QCOMPARE(race->laneCount(), 2);
        QCOMPARE(race->laneCaption(0), QStringLiteral("live: measured now · emulated nvme"));
        QCOMPARE(race->laneCaption(1), QStringLiteral("live: measured now · emulated object-store"));
        QVERIFY2(race->laneTitle(1).endsWith(QLatin1String("object-store profile")), qPrintable(race->laneTitle(1)));
        // The same profile twice is one lane.
        QVERIFY(!run->raceProfile(QStringLiteral("object-store")));
        QCOMPARE(race->laneCount(), 2);

        QSignalSpy written(run, &RunPage::resultsWritten);
        QSignalSpy finished(run->controller(), &RunController::finished);
        QSignalSpy rivalFinished(run->rivals()->controller(0), &RunController::finished);
        QVERIFY(run->startInvocation());
        // Both lanes measured, the rival's first epoch over: the race as the room sees it.
        QTRY_VERIFY_WITH_TIMEOUT(race->laneAuValue(0) && race->laneAuValue(1) && race->laneEpoch(1).startsWith(QLatin1String("last epoch ")) &&
                                     !race->laneEpoch(1).endsWith(QStringLiteral("—")),
                                 testsupport::kHangMs);
        QVERIFY2(race->laneDelivered(1) != QStringLiteral("—"), qPrintable(race->laneDelivered(1)));
        const QStringList clipped = clippedAtProjectorSizes(race, QStringLiteral("race-profiles"));
        QVERIFY2(clipped.isEmpty(), qPrintable(clipped.join(QLatin1Char('\n'))));
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() && !rivalFinished.isEmpty(), testsupport::kHangMs);
        const auto page = finished.first().first().value<RunFinish>();
        const auto rival = rivalFinished.first().first().value<RunFinish>();
        QVERIFY2(page.complete, qPrintable(page.error));
        QVERIFY2(rival.complete, qPrintable(rival.error));
        QCOMPARE(rival.outputDir, folder + QStringLiteral("-object-store"));
        QTRY_COMPARE_WITH_TIMEOUT(written.size(), 2, testsupport::kHangMs);
        QStringList dirs{written.at(0).at(0).toString(), written.at(1).at(0).toString()};
        dirs.sort();
        QCOMPARE(dirs, (QStringList{folder, rival.outputDir}));
        // What each run was configured with, from its own folder: the rival has the profile alone.
        const YAML::Node rivalStorage = YAML::LoadFile(rival.outputDir.toStdString() + "/configs/config.yaml")["workload"]["trainio"]["storage"];
        QCOMPARE(QString::fromStdString(rivalStorage["profile"].as<std::string>()), QStringLiteral("object-store"));
        QVERIFY(!rivalStorage["bandwidth_mib_s"] || rivalStorage["bandwidth_mib_s"].as<double>() == 0);
        const YAML::Node pageStorage = YAML::LoadFile(folder.toStdString() + "/configs/config.yaml")["workload"]["trainio"]["storage"];
        QCOMPARE(QString::fromStdString(pageStorage["profile"].as<std::string>()), QStringLiteral("nvme"));
        const double pageAu = readJson(folder.toStdString() + "/summary.json")["metric"]["train_au_mean_percentage"].get<double>();
        const double rivalAu = readJson(rival.outputDir.toStdString() + "/summary.json")["metric"]["train_au_mean_percentage"].get<double>();
        QVERIFY2(pageAu > rivalAu + 20, qPrintable(QStringLiteral("nvme %1 %, object store %2 %").arg(pageAu).arg(rivalAu)));
        QVERIFY2(*race->laneAuValue(0) > *race->laneAuValue(1) + 20,
                 qPrintable(QStringLiteral("lanes: nvme %1, object store %2").arg(*race->laneAuValue(0)).arg(*race->laneAuValue(1))));
        // Again into another folder, cancelled while the rival measures (it needs four times the page's run's
        // time, see above): Cancel stops the rival too, which keeps what it measured, marked cancelled, and
        // goes to the library; its lane started over with the new run.
        const QString again = dirs_.work.filePath(QStringLiteral("race-profiles-again"));
        run->setOutputFolder(again);
        finished.clear();
        rivalFinished.clear();
        written.clear();
        QVERIFY(run->startInvocation());
        QTRY_VERIFY_WITH_TIMEOUT(run->rivals()->controller(0)->isRunning() && race->laneAuValue(1), testsupport::kHangMs);
        QVERIFY2(race->laneEpoch(1).endsWith(QStringLiteral("—")), qPrintable(race->laneEpoch(1)));
        run->cancel();
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() && !rivalFinished.isEmpty(), testsupport::kHangMs);
        const auto cancelled = rivalFinished.first().first().value<RunFinish>();
        QVERIFY2(cancelled.cancelled, qPrintable(cancelled.error));
        QCOMPARE(cancelled.outputDir, again + QStringLiteral("-object-store"));
        QTRY_VERIFY_WITH_TIMEOUT(written.size() == 2, testsupport::kHangMs);
        QVERIFY(QFileInfo::exists(cancelled.outputDir + QStringLiteral("/summary.json")));

        // The race cleared (File → Replay… reuses the view): the rival is forgotten, the page's next run alone.
        race->clear();
        QCOMPARE(run->rivals()->count(), 0);
        QTest::keyClick(race, Qt::Key_Escape);
    }

    // File → Replay…: a folder chosen in the dialog plays full screen; a folder without a run is said in the
    // window's messages, and nothing opens.
    void fileMenuReplays() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QAction* action = w.findChild<QAction*>(QStringLiteral("replay"));
        QVERIFY(action);
        QTemporaryDir empty;
        setFileDialogHook([&](const QString&, const QString&) { return empty.path(); });
        action->trigger();
        QVERIFY(!w.runPage()->raceView()->isVisible());
        setFileDialogHook([this](const QString&, const QString&) { return QString::fromStdString(np2.string()); });
        action->trigger();
        setFileDialogHook({});
        RaceView* race = w.runPage()->raceView();
        QVERIFY(race->isVisible());
        QVERIFY(race->isFullScreen());
        QCOMPARE(race->laneCount(), 1);
        QVERIFY2(race->laneCaption(0).startsWith(QLatin1String("replay of epoch_small_np2, recorded ")), qPrintable(race->laneCaption(0)));
        QTRY_VERIFY_WITH_TIMEOUT(race->laneAuValue(0).has_value(), testsupport::kHangMs);
        // Closed and shown again while it plays: it goes on to the recording's end.
        race->leave();
        QVERIFY(!race->isVisible());
        race->present();
        QTRY_VERIFY_WITH_TIMEOUT(race->replaysFinished(), testsupport::kHangMs);
        race->leave();
    }

    // The command line: `--replay` takes 1–3 folders and --speed; mistakes exit 2 naming the value.
    void commandLine() {
        const QString a = QString::fromStdString(np2.string()), b = QString::fromStdString(np4.string());
        GuiArguments p = parseGuiArguments({QStringLiteral("--replay"), a, b, QStringLiteral("--speed"), QStringLiteral("5")});
        QVERIFY2(p.error.isEmpty(), qPrintable(p.error));
        QCOMPARE(int(p.mode), int(GuiArguments::Mode::Replay));
        QCOMPARE(p.paths, (QStringList{a, b}));
        QCOMPARE(p.speed, 5.0);
        const std::pair<QStringList, QString> bad[] = {
            {{QStringLiteral("--replay")}, QStringLiteral("at least one")},
            {{QStringLiteral("--replay"), a, a, a, a}, QStringLiteral("at most 3")},
            {{QStringLiteral("--replay"), a, QStringLiteral("--speed"), QStringLiteral("fast")}, QStringLiteral("--speed fast")},
            {{QStringLiteral("--replay"), a, QStringLiteral("--speed"), QStringLiteral("0")}, QStringLiteral("--speed 0")},
            {{a, QStringLiteral("--speed"), QStringLiteral("2")}, QStringLiteral("only used with --replay")},
            {{QStringLiteral("--replay"), QStringLiteral("/no/such")}, QStringLiteral("/no/such: no such folder")},
            {{QStringLiteral("--replay"), a, QStringLiteral("--output"), QStringLiteral("x.pdf")}, QStringLiteral("only used with --report")}};
        for (const auto& [args, says] : bad) {
            const GuiArguments e = parseGuiArguments(args);
            QVERIFY2(e.error.contains(says), qPrintable(args.join(QLatin1Char(' ')) + QStringLiteral(" → ") + e.error));
        }
        // The program itself: a folder of no run exits 2 with the reason; a run plays until closed.
        QTemporaryDir empty;
        QProcess bad2;
        bad2.start(QStringLiteral(TRAINIO_GUI), {QStringLiteral("--replay"), empty.path()});
        QVERIFY(bad2.waitForFinished(60000));
        QCOMPARE(bad2.exitCode(), 2);
        QVERIFY2(QString::fromUtf8(bad2.readAllStandardError()).contains(QStringLiteral("cannot replay %1: ").arg(empty.path())), "no reason given");
        QProcess good;
        good.start(QStringLiteral(TRAINIO_GUI), {QStringLiteral("--replay"), a, QStringLiteral("--speed"), QStringLiteral("10")});
        QVERIFY(good.waitForStarted());
        QVERIFY2(!good.waitForFinished(3000), qPrintable(QString::fromUtf8(good.readAllStandardError())));
        good.kill();
        good.waitForFinished();
    }
};

QTEST_MAIN(TestRaceView)
#include "tst_race_view.moc"
