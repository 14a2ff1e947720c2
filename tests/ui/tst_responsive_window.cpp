// The window never waits on core work (issue 20, item 4): a 10 ms timer keeps ticking — the GUI thread
// spends less than 50 ms of its own CPU between two ticks, and no gap reaches 1 s even on a loaded machine — while a burst of workload edits asks for the input-pipeline model's
// prediction of resnet50_h100 with the lru loader, and while a report of the MLPerf Storage v1.0 and
// v3.0 fixtures is exported. The prediction shown is that of the last edit (a stale one is dropped), and
// a cancelled export leaves no file.
#include "gui_test_support.h"
#include "main_window.h"
#include "run/model_panel.h"
#include "report/report_content.h"
#include "report/report_exporter.h"
#include "library/results_library_loader.h"
#include "run/run_page.h"
#include "workload/workload_page.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QLineEdit>
#include <QPainter>
#include <QProgressDialog>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QThreadPool>
#include <QTimer>

#include <algorithm>
#include <ctime>

using namespace trainio::ui;

namespace {

double threadCpuMs() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

// How long the event loop stood still, between two ticks of a 10 ms timer: in wall time, and in the GUI
// thread's own CPU time — the work it did without coming back to the loop. On a machine loaded by other
// programs the wall gap also holds the time the thread waited for a core, which no program can avoid;
// the CPU gap is the window's own doing, and it is what must stay within a frame.
class LoopWatch {
public:
    LoopWatch() {
        timer_.setTimerType(Qt::PreciseTimer);
        timer_.setInterval(10);
        QObject::connect(&timer_, &QTimer::timeout, [this] {
            const qint64 now = clock_.elapsed();
            const double cpu = threadCpuMs();
            longest_ = std::max(longest_, now - last_);
            longestCpu_ = std::max(longestCpu_, cpu - lastCpu_);
            last_ = now;
            lastCpu_ = cpu;
            ++ticks_;
        });
        clock_.start();
        lastCpu_ = threadCpuMs();
        timer_.start();
    }
    // The gap still open counts too: a loop blocked right now has not ticked.
    qint64 longestGapMs() const { return std::max(longest_, clock_.elapsed() - last_); }
    double longestCpuGapMs() const { return std::max(longestCpu_, threadCpuMs() - lastCpu_); }
    int ticks() const { return ticks_; }
    qint64 elapsedMs() const { return clock_.elapsed(); }
    QString describe() const {
        return QStringLiteral("longest gap %1 ms (GUI thread CPU in a gap: at most %2 ms), %3 ticks in %4 ms, load %5")
            .arg(longestGapMs())
            .arg(longestCpuGapMs(), 0, 'f', 1)
            .arg(ticks_)
            .arg(elapsedMs())
            .arg(loadAverage());
    }
    static QString loadAverage() {
        QFile f(QStringLiteral("/proc/loadavg"));
        return f.open(QIODevice::ReadOnly) ? QString::fromLatin1(f.readLine()).section(QLatin1Char(' '), 0, 0) : QStringLiteral("?");
    }

private:
    QTimer timer_;
    QElapsedTimer clock_;
    qint64 last_ = 0;
    qint64 longest_ = 0;
    double lastCpu_ = 0, longestCpu_ = 0;
    int ticks_ = 0;
};

// What the GUI thread may do between two turns of its loop: a few frames' worth. Before the work moved to
// workers, a prediction held it for ~1 s and an export for seconds (both CPU on this thread).
constexpr double kMaxCpuGapMs = 50;
// A wall-clock stand-still this long is a blocked loop whatever else runs on the machine.
constexpr qint64 kMaxGapMs = 1000;

trainio::WorkloadConfig resnetLru(double ramTierMiB) {
    return trainio::loadPreset("resnet50_h100", {"++workload.trainio.loader=lru",
                                                 "++workload.trainio.ram_tier_mib=" + std::to_string(ramTierMiB),
                                                 "++workload.trainio.storage.bandwidth_mib_s=2000"})
        .config;
}

} // namespace

class TestResponsiveWindow : public QObject {
    Q_OBJECT
    QTemporaryDir settingsDir_;
    QTemporaryDir work_;

    void loadFixtures(MainWindow& w) {
        QSignalSpy loaded(w.libraryLoader(), &ResultsLibraryLoader::loaded);
        QVERIFY(w.openResultsFolder(QStringLiteral(TRAINIO_TEST_DATA "/mlperf-storage-v1.0")));
        QVERIFY(w.openResultsFolder(QStringLiteral(TRAINIO_TEST_DATA "/mlperf-storage-v3.0")));
        QTRY_VERIFY_WITH_TIMEOUT(!w.libraryLoader()->isLoading() && loaded.count() >= 1, 60000);
    }

private slots:
    void initTestCase() { uitest::isolateSettings(settingsDir_); }
    void init() { QSettings().clear(); }

    void aBurstOfEditsNeverStopsTheLoop() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        WorkloadPage* form = w.workloadPage();
        auto* panel = w.runPage()->findChild<ModelPanel*>(QStringLiteral("modelPanel"));
        QVERIFY(panel);
        const trainio::WorkloadConfig cfg = resnetLru(4096);
        // What one prediction costs the thread that computes it: before, every keystroke paid it on the GUI thread.
        QElapsedTimer once;
        once.start();
        // The preset's round decides the semantics the form takes on (resnet50_h100: MLPerf v1.0, DLIO 1.0's).
        const QString first = modelPredictionText(cfg, 1, trainio::resolveSemantics(std::nullopt, cfg));
        qInfo("one prediction of resnet50_h100 + lru: %lld ms", once.elapsed());
        QSignalSpy shown(panel, &ModelPanel::predictionShown);
        form->setConfig(cfg, QStringLiteral("test"));
        QVERIFY(!shown.isEmpty() || shown.wait(60000));
        QCOMPARE(panel->predictionText(), first);

        // The emulated device's bandwidth, which the prediction follows (the lru loader stays on).
        auto* bandwidth = form->editorFor(QStringLiteral("trainio.storage.bandwidth_mib_s"))->findChild<QLineEdit*>();
        QVERIFY(bandwidth);
        // Keystrokes as the event loop delivers them: a value typed every 30 ms, each key an edit.
        // (The faster the device, the more accelerator counts pass and the longer the model searches.)
        const QStringList values = {QStringLiteral("8000"), QStringLiteral("7000"), QStringLiteral("6000"),
                                    QStringLiteral("5000"), QStringLiteral("4000")};
        qsizetype typed = 0;
        QTimer typist;
        typist.setInterval(30);
        QObject::connect(&typist, &QTimer::timeout, [&] {
            if (typed == values.size()) return typist.stop();
            bandwidth->selectAll();
            QTest::keyClicks(bandwidth, values[typed++]);
        });
        shown.clear();
        LoopWatch watch;
        typist.start();
        QTRY_VERIFY_WITH_TIMEOUT(typed == values.size() && !panel->isComputing(), 60000);
        qInfo("edits and their prediction: %s", qPrintable(watch.describe()));
        QVERIFY2(watch.longestCpuGapMs() < kMaxCpuGapMs, qPrintable(watch.describe()));
        QVERIFY2(watch.longestGapMs() < kMaxGapMs, qPrintable(watch.describe()));

        // The prediction shown is the last edit's, and it is not the one the burst started from.
        QCOMPARE(form->config().trainio.storage.bandwidthMiBs, 4000.0);
        QCOMPARE(form->config().trainio.loader.policy, std::string("lru"));
        const QString last = modelPredictionText(form->config(), form->accelerators(), form->semantics());
        QVERIFY(last != first);
        QCOMPARE(panel->predictionText(), last);
        QVERIFY2(shown.count() <= 2, qPrintable(QString::number(shown.count()))); // debounced: not one per key
    }

    // The Run page showed "-50000 samples/s" for a two-file dataset at batch 2 on the nvme profile: DLIO's v2
    // samples/s counts steps - 2. The panel says why there is no prediction instead of showing that number.
    void aTooShortEpochGetsNoNumbers() {
        const trainio::WorkloadConfig cfg = trainio::loadPreset("demo", {"++workload.dataset.num_files_train=2",
                                                                         "++workload.reader.batch_size=2",
                                                                         "++workload.trainio.storage.profile=nvme"})
                                                .config;
        const QString text = modelPredictionText(cfg, 1, trainio::MetricSemantics::DlioV2);
        QVERIFY2(text.startsWith(QStringLiteral("Model: no prediction")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("an epoch of 1 step")) && text.contains(QStringLiteral("at least 3 steps")),
                 qPrintable(text));
        QVERIFY2(!text.contains(QStringLiteral("samples/s at")), qPrintable(text));
        trainio::WorkloadConfig enough = cfg;
        enough.reader.batchSize = 1;
        enough.dataset.numFilesTrain = 3;
        QVERIFY2(modelPredictionText(enough, 1, trainio::MetricSemantics::DlioV2).startsWith(QStringLiteral("Model prediction: AU")),
                 qPrintable(modelPredictionText(enough, 1, trainio::MetricSemantics::DlioV2)));
    }

    // A prediction overtaken by a newer workload is dropped even when it is already computing.
    void aStalePredictionNeverReplacesANewerOne() {
        ModelPanel panel;
        panel.show();
        auto* debounce = panel.findChild<QTimer*>(QStringLiteral("predictionDebounce"));
        QVERIFY(debounce);
        const trainio::WorkloadConfig slow = resnetLru(4096);
        trainio::WorkloadConfig fast = slow;
        fast.trainio.loader.policy = "plain"; // no LRU simulation
        fast.trainio.loader.ramTierMiB = 0;
        fast.trainio.storage.bandwidthMiBs = 100;
        const QString fastText = modelPredictionText(fast, 1, trainio::MetricSemantics::DlioV2);
        QVERIFY(fastText != modelPredictionText(slow, 1, trainio::MetricSemantics::DlioV2));
        QSignalSpy shown(&panel, &ModelPanel::predictionShown);
        panel.setWorkload(slow, 1, trainio::MetricSemantics::DlioV2);
        QVERIFY(panel.predictionText().contains(QStringLiteral("computing")));
        QTRY_VERIFY(!debounce->isActive()); // the slow prediction is handed to a worker now
        panel.setWorkload(fast, 1, trainio::MetricSemantics::DlioV2);
        QVERIFY(shown.wait(60000));
        QVERIFY(QThreadPool::globalInstance()->waitForDone(60000)); // the slow one has ended too
        QCoreApplication::sendPostedEvents();
        QCOMPARE(panel.predictionText(), fastText);
        QCOMPARE(shown.count(), 1);
    }

    void exportingAReportNeverStopsTheLoop() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        loadFixtures(w);
        const QString pdf = work_.filePath(QStringLiteral("whole-library.pdf"));
        LoopWatch watch;
        ReportExporter* exporter = w.exportReport(pdf, ReportOptions{});
        QVERIFY(exporter);
        QSignalSpy done(exporter, &ReportExporter::finished);
        QProgressDialog* progress = exporter->progressDialog();
        QVERIFY(progress && progress->isVisible());
        int maxShown = 0;
        QTimer look;
        QObject::connect(&look, &QTimer::timeout, [&] {
            if (!progress) return;
            maxShown = std::max(maxShown, progress->value());
        });
        look.start(20);
        QVERIFY(done.wait(300000));
        look.stop();
        qInfo("report export: %s", qPrintable(watch.describe()));
        QVERIFY2(done.first().at(0).toBool(), qPrintable(done.first().at(1).toString()));
        QFile f(pdf);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.read(5), QByteArray("%PDF-"));
        QVERIFY2(maxShown >= 500, qPrintable(QString::number(maxShown))); // the dialog showed it advancing
        QVERIFY2(watch.longestCpuGapMs() < kMaxCpuGapMs, qPrintable(watch.describe()));
        QVERIFY2(watch.longestGapMs() < kMaxGapMs, qPrintable(watch.describe()));
    }

    void aCancelledExportLeavesNoFile() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        loadFixtures(w);
        QTemporaryDir target;
        QVERIFY(target.isValid());
        const QString pdf = QDir(target.path()).filePath(QStringLiteral("lab-report.pdf"));
        ReportExporter* exporter = w.exportReport(pdf, ReportOptions{});
        QVERIFY(exporter);
        QSignalSpy done(exporter, &ReportExporter::finished);
        QProgressDialog* progress = exporter->progressDialog();
        // Once pages are being painted (the temporary file exists), the user cancels in the dialog.
        QTRY_VERIFY_WITH_TIMEOUT(progress->value() > 450 || !done.isEmpty(), 120000);
        QVERIFY(done.isEmpty());
        // The dialog over the window, for the user guide: TRAINIO_SHOT_DIR=docs/screenshots.
        if (const QString shots = qEnvironmentVariable("TRAINIO_SHOT_DIR"); !shots.isEmpty()) {
            w.showPage(MainWindow::ResultsPageIndex);
            QPixmap shot = w.grab();
            const QPixmap box = progress->grab();
            QPainter painter(&shot);
            const QPoint at((shot.width() - box.width()) / 2, (shot.height() - box.height()) / 3);
            painter.drawPixmap(at, box);
            painter.setPen(QColor(0x5f, 0x6b, 0x76));
            painter.drawRect(QRect(at, box.size()).adjusted(-1, -1, 0, 0));
            painter.end();
            QVERIFY(shot.save(shots + QStringLiteral("/report-export-progress.png")));
        }
        auto* cancel = progress->findChild<QPushButton*>();
        QVERIFY(cancel);
        QTest::mouseClick(cancel, Qt::LeftButton);
        QVERIFY(done.wait(60000));
        QVERIFY(!done.first().at(0).toBool());
        QVERIFY2(done.first().at(1).toString().startsWith(QStringLiteral("Cancelled")), qPrintable(done.first().at(1).toString()));
        QVERIFY(!QFile::exists(pdf));
        QCOMPARE(QDir(target.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), QStringList());
    }
};

QTEST_MAIN(TestResponsiveWindow)
#include "tst_responsive_window.moc"
