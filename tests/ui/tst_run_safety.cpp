// Run safety in the window: pre-flight refuses a run (and a generation) that cannot succeed before
// anything is measured, with a dialog naming every problem; a failure during or after a run ends the
// "running" state with the reason; closing the window during a run asks, and a confirmed close stops
// the engine and keeps what was measured, marked cancelled.
#include "workload/data_page.h"
#include "workload/dataset_controller.h"
#include "gui_test_support.h"
#include "testsupport.h"
#include "main_window.h"
#include "run/run_controller.h"
#include "run/run_page.h"
#include "workload/workload_page.h"

#include "io/fault_injection.h"

#include <QAction>
#include <QApplication>
#include <QLineEdit>
#include <QTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QTreeView>

using namespace trainio::ui;
using Severity = NotificationPanel::Severity;

namespace {

QJsonObject readJson(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

// Button states say whether the page believes a run is going on.
bool pageIsIdle(RunPage& page) {
    QPushButton* run = nullptr;
    QPushButton* cancel = nullptr;
    for (QPushButton* b : page.findChildren<QPushButton*>()) {
        if (b->text() == QObject::tr("Run once")) run = b;
        if (b->text() == QObject::tr("Cancel")) cancel = b;
    }
    return run && cancel && run->isEnabled() && !cancel->isEnabled() && !page.isRunning();
}

// A regular file where a folder would have to be created: no permission bit is involved, so it stops
// root as well.
QString regularFile(const QTemporaryDir& dir, const QString& name) {
    const QString path = dir.filePath(name);
    QFile f(path);
    if (f.open(QIODevice::WriteOnly)) f.write("not a folder\n");
    return path;
}

QString statusText(QWidget& page) { return page.findChild<QLabel*>(QStringLiteral("runStatus"))->text(); }

// The visible dialog with that object name, or null.
QMessageBox* visibleBox(QWidget& under, const QString& name) {
    for (QMessageBox* b : under.findChildren<QMessageBox*>(name))
        if (b->isVisible()) return b;
    return nullptr;
}

} // namespace

class TestRunSafety : public QObject {
    Q_OBJECT
    uitest::TestFolders dirs_;
    QTemporaryDir& work_ = dirs_.work;
    trainio::WorkloadConfig cfg_;

private slots:
    void initTestCase() {
        QVERIFY(work_.isValid());
        cfg_ = uitest::tinyWorkload(work_.filePath(QStringLiteral("data")));
        DatasetController data;
        QSignalSpy finished(&data, &DatasetController::finished);
        QVERIFY(data.start(DatasetController::Operation::Generate, cfg_));
        QVERIFY(finished.wait(testsupport::kHangMs));
        QVERIFY2(finished.first().at(1).toBool(), qPrintable(finished.first().at(3).toString()));
    }

    // An output folder under a regular file cannot be created.
    void preflightRefusesWithADialogAndMeasuresNothing_data() {
        QTest::addColumn<bool>("benchmark");
        QTest::addColumn<QString>("named"); // what the dialog and the error message must name
        QTest::addColumn<double>("stdev");  // dataset.record_length_bytes_stdev of the run (generated: 0)
        QTest::newRow("run, output folder under a file") << false << QStringLiteral("plain-file") << 0.0;
        // 16 files, batch 7, 4 accelerators: 16 samples cannot give each accelerator a batch of 7.
        QTest::newRow("benchmark, no step per accelerator") << true << QStringLiteral("batch 7") << 0.0;
        // The dataset was generated with stdev 0: the same pre-flight() as trainio-cli names the key.
        QTest::newRow("run, dataset generated for another stdev")
            << false << QStringLiteral("dataset.record_length_bytes_stdev") << 4096.0;
    }

    void preflightRefusesWithADialogAndMeasuresNothing() {
        QFETCH(bool, benchmark);
        QFETCH(QString, named);
        QFETCH(double, stdev);
        const QString plain = regularFile(work_, QStringLiteral("plain-file"));
        QVERIFY(QFileInfo(plain).isFile());
        trainio::WorkloadConfig cfg = cfg_;
        std::uint64_t accelerators = 1;
        QString out = plain + QStringLiteral("/run");
        if (stdev != cfg.dataset.recordLengthStdev) {
            cfg.dataset.recordLengthStdev = stdev;
            out = work_.filePath(QStringLiteral("never-run"));
        }
        if (benchmark) {
            cfg.reader.batchSize = 7;
            accelerators = 4;
            out = work_.filePath(QStringLiteral("never-benchmarked"));
        }
        RunPage page;
        page.show();
        page.setWorkload(cfg, accelerators, trainio::MetricSemantics::DlioV2, true);
        page.setOutputFolder(out);
        QSignalSpy started(page.controller(), &RunController::started);
        QSignalSpy steps(page.controller(), &RunController::steps);
        QSignalSpy finished(page.controller(), &RunController::finished);
        QSignalSpy notes(&page, &RunPage::notify);
        QSignalSpy written(&page, &RunPage::resultsWritten);
        QVERIFY(benchmark ? page.startBenchmark() : page.startInvocation());
        QVERIFY(finished.wait(testsupport::kHangMs));

        const auto result = finished.first().first().value<RunFinish>();
        QVERIFY(!result.complete);
        QVERIFY(!result.preflightProblems.empty());
        QCOMPARE(started.count(), 0);
        QCOMPARE(steps.count(), 0);
        QCOMPARE(written.count(), 0);
        QVERIFY(QFileInfo(plain).isFile()); // untouched
        QVERIFY(!QFileInfo::exists(out));
        QVERIFY(pageIsIdle(page));
        QVERIFY2(statusText(page).contains(QStringLiteral("not started")), qPrintable(statusText(page)));

        QMessageBox* box = visibleBox(page, QStringLiteral("preflightDialog"));
        QVERIFY(box);
        // Every problem is listed, each with what was found and what was expected.
        const QString shown = box->informativeText();
        for (const auto& p : result.preflightProblems) {
            QVERIFY2(shown.contains(QString::fromStdString(p.found).toHtmlEscaped()), qPrintable(shown));
            QVERIFY2(shown.contains(QString::fromStdString(p.expected).toHtmlEscaped()), qPrintable(shown));
        }
        QVERIFY2(shown.contains(named), qPrintable(shown));
        // Named as the page labels it, not as the command line's option.
        if (stdev != cfg_.dataset.recordLengthStdev)
            QVERIFY2(shown.contains(QStringLiteral("4096")) && shown.contains(QStringLiteral("generated with 0")), qPrintable(shown));
        else if (!benchmark)
            QVERIFY2(shown.contains(QStringLiteral("<b>Output folder</b>")) && !shown.contains(QStringLiteral("--output")), qPrintable(shown));
        bool errorNamesIt = false;
        for (const auto& n : notes)
            errorNamesIt = errorNamesIt || (n.at(0).value<Severity>() == Severity::Error && n.at(1).toString().contains(named));
        QVERIFY(errorNamesIt);
        box->close();
    }

    // Pre-flight warnings are shown and the run goes ahead.
    void preflightWarningsDoNotStopTheRun() {
        trainio::WorkloadConfig cfg = cfg_;
        cfg.metric.excludeStartSteps = 8; // every one of the 8 steps per epoch: nothing left to measure
        RunPage page;
        page.setWorkload(cfg, 1, trainio::MetricSemantics::DlioV2, true);
        page.setOutputFolder(work_.filePath(QStringLiteral("warned")));
        QSignalSpy finished(page.controller(), &RunController::finished);
        QSignalSpy notes(&page, &RunPage::notify);
        QVERIFY(page.startInvocation());
        QVERIFY(finished.wait(testsupport::kHangMs));
        const auto result = finished.first().first().value<RunFinish>();
        QVERIFY2(result.complete, qPrintable(result.error));
        bool warned = false;
        for (const auto& n : notes)
            warned = warned || (n.at(0).value<Severity>() == Severity::Warning && n.at(1).toString().contains(QStringLiteral("no steps to measure")));
        QVERIFY(warned);
        QVERIFY(!visibleBox(page, QStringLiteral("preflightDialog")));
    }

    // A result's own warnings reach the Messages panel: this tiny dataset is read from the page cache
    // (trainio.cache keep), and the run says so rather than present memory bandwidth as storage.
    void resultWarningsAreShown() {
        RunPage page;
        page.setWorkload(cfg_, 1, trainio::MetricSemantics::DlioV2, true);
        page.setOutputFolder(work_.filePath(QStringLiteral("cached")));
        QSignalSpy finished(page.controller(), &RunController::finished);
        QSignalSpy messages(page.controller(), &RunController::message);
        QVERIFY(page.startInvocation());
        QVERIFY(finished.wait(testsupport::kHangMs));
        QVERIFY2(finished.first().first().value<RunFinish>().complete, "the run did not complete");
        bool cached = false;
        for (const auto& m : messages) cached = cached || m.at(0).toString().contains(QStringLiteral("Most bytes came from the page cache"));
        QVERIFY(cached);
        QVERIFY(QFileInfo::exists(work_.filePath(QStringLiteral("cached/trainio_io.json"))));
    }

    // workflow.generate_data on: the window generates the dataset first, as `trainio-cli run` does (issue
    // 20: the GUI used to fail pre-flight instead), then checks and measures it.
    void theWindowGeneratesWhenTheConfigSaysSo() {
        trainio::WorkloadConfig cfg = cfg_;
        cfg.dataset.dataFolder = work_.filePath(QStringLiteral("generated-by-run")).toStdString();
        cfg.workflow.generateData = true;
        QVERIFY(!QFileInfo::exists(QString::fromStdString(cfg.dataset.dataFolder)));
        RunPage page;
        page.setWorkload(cfg, 1, trainio::MetricSemantics::DlioV2, true);
        page.setOutputFolder(work_.filePath(QStringLiteral("generate-then-run")));
        QSignalSpy finished(page.controller(), &RunController::finished);
        QSignalSpy messages(page.controller(), &RunController::message);
        QSignalSpy notes(&page, &RunPage::notify);
        QVERIFY(page.startInvocation());
        QVERIFY(finished.wait(120000));
        const auto result = finished.first().first().value<RunFinish>();
        QVERIFY2(result.complete, qPrintable(result.error));
        // Said as information, not as a warning.
        bool info = false;
        for (const auto& n : notes)
            info = info || (n.at(0).value<Severity>() == Severity::Info && n.at(1).toString().contains(QStringLiteral("generating the dataset")));
        QVERIFY(info);
        // Every file the config names is there (counted here from the config), and the run read them.
        const QDir train(QString::fromStdString(cfg.dataset.dataFolder) + QStringLiteral("/train"));
        QCOMPARE(static_cast<std::uint64_t>(train.entryList(QDir::Files).size()), cfg.dataset.numFilesTrain);
        bool said = false;
        for (const auto& m : messages) said = said || m.at(0).toString().contains(QStringLiteral("generating the dataset"));
        QVERIFY(said);
        const QJsonObject run = readJson(work_.filePath(QStringLiteral("generate-then-run/trainio_run.json")));
        QCOMPARE(run.value(QStringLiteral("status")).toString(), QStringLiteral("complete"));
    }

    void preflightRefusesAGenerationWithADialog() {
        // The data folder would be created below a regular file: datagen cannot write a single file.
        const QString plain = regularFile(work_, QStringLiteral("plain-data-file"));
        QVERIFY(QFileInfo(plain).isFile());
        trainio::WorkloadConfig cfg = cfg_;
        cfg.dataset.dataFolder = (plain + QStringLiteral("/data")).toStdString();
        DataPage page;
        page.show();
        page.setWorkload(cfg);
        QSignalSpy progress(page.controller(), &DatasetController::progress);
        QSignalSpy finished(page.controller(), &DatasetController::finished);
        page.generate();
        QVERIFY(finished.wait(testsupport::kHangMs));
        QVERIFY(!finished.first().at(1).toBool());
        QVERIFY(!page.controller()->preflightProblems().empty());
        QCOMPARE(progress.count(), 0);
        QVERIFY(QFileInfo(plain).isFile());
        QMessageBox* box = visibleBox(page, QStringLiteral("preflightDialog"));
        QVERIFY(box);
        QVERIFY2(box->informativeText().contains(QStringLiteral("plain-data-file")), qPrintable(box->informativeText()));
        QVERIFY2(page.lastSummary().contains(QStringLiteral("not started")), qPrintable(page.lastSummary()));
        box->close();
    }

    // Defect 4: a failure while or after measuring must end the "running" state and say why.
    void failureEndsTheRunningStateWithTheReason_data() {
        QTest::addColumn<QString>("faults");
        QTest::addColumn<QString>("reason");
        // Thrown by the result writer after the whole measurement (RunError).
        QTest::newRow("result write fails") << QStringLiteral("write:ENOSPC:summary.json") << QStringLiteral("No space left on device");
        // Returned by the engine as a failed outcome, mid-run.
        QTest::newRow("read fails") << QStringLiteral("read:EIO:.npz") << QStringLiteral("Input/output error");
    }

    void failureEndsTheRunningStateWithTheReason() {
        QFETCH(QString, faults);
        QFETCH(QString, reason);
        RunPage page;
        page.show();
        page.setWorkload(cfg_, 1, trainio::MetricSemantics::DlioV2, true);
        const QString out = work_.filePath(QStringLiteral("failing-%1").arg(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('-')));
        page.setOutputFolder(out);
        auto backend = std::make_shared<trainio::FaultInjectingBackend>(trainio::makePosixBackend(), trainio::parseFaultRules(faults.toStdString()));
        page.setIoBackend(backend);
        QSignalSpy finished(page.controller(), &RunController::finished);
        QSignalSpy notes(&page, &RunPage::notify);
        QVERIFY(page.startInvocation());
        QVERIFY(finished.wait(testsupport::kHangMs));
        QVERIFY(backend->firedTotal() > 0); // the fault really happened

        const auto result = finished.first().first().value<RunFinish>();
        QVERIFY(result.failed());
        QVERIFY2(result.error.contains(reason), qPrintable(result.error));
        QVERIFY(pageIsIdle(page));
        QVERIFY2(statusText(page).startsWith(QStringLiteral("Run failed: ")), qPrintable(statusText(page)));
        QVERIFY2(statusText(page).contains(reason), qPrintable(statusText(page)));
        // No invocation row keeps saying "running".
        auto* list = page.findChild<QTreeView*>(QStringLiteral("invocationList"));
        QCOMPARE(list->model()->rowCount(), 1);
        QCOMPARE(list->model()->index(0, 1).data().toString(), QStringLiteral("failed"));
        bool shown = false;
        for (const auto& n : notes)
            shown = shown || (n.at(0).value<Severity>() == Severity::Error && n.at(1).toString().contains(reason));
        QVERIFY(shown);
        // The page can run again at once (into a new folder: pre-flight never lets a run overwrite one).
        page.setIoBackend(nullptr);
        page.setOutputFolder(out + QStringLiteral("-again"));
        QVERIFY(page.startInvocation());
        QVERIFY(finished.wait(testsupport::kHangMs));
        QVERIFY2(finished.last().first().value<RunFinish>().complete, qPrintable(finished.last().first().value<RunFinish>().error));
    }

    void closingWithoutARunDoesNotAsk() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.close());
        QVERIFY(!visibleBox(w, QStringLiteral("confirmCloseDialog")));
    }

    // Quit during a run with unsaved workload edits: "Discard" in the first question, "Cancel" in the
    // second keeps the window, the run, the form as edited and the saved settings; quitting for real then
    // drops the edits, and the next session starts without them.
    void quitCancelledInTheSecondQuestionKeepsTheEdits() {
        trainio::WorkloadConfig slow = cfg_;
        slow.train.epochs = 3;
        slow.train.computationTime.mean = 0.2;
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        WorkloadPage* form = w.workloadPage();
        QVERIFY(form->loadPresetNamed(QStringLiteral("unet3d_h100")));
        auto* epochs = form->editorFor(QStringLiteral("train.epochs"))->findChild<QLineEdit*>();
        QVERIFY(epochs);
        epochs->selectAll();
        QTest::keyClicks(epochs, QStringLiteral("9"));
        QVERIFY(form->isModified());
        QCOMPARE(form->config().train.epochs, 9ull);
        auto* autosave = w.findChild<QTimer*>(QStringLiteral("workloadAutosave"));
        QVERIFY(autosave);
        QTRY_VERIFY_WITH_TIMEOUT(!autosave->isActive(), testsupport::kHangMs); // the edit is in the settings
        const QString fieldsKey = QStringLiteral("workload/form/fields");
        const QVariantMap saved = QSettings().value(fieldsKey).toMap();
        QCOMPARE(saved.value(QStringLiteral("train.epochs")).toString(), QStringLiteral("9"));

        RunPage* page = w.runPage();
        page->setWorkload(slow, 1, trainio::MetricSemantics::DlioV2, true);
        page->setOutputFolder(work_.filePath(QStringLiteral("quit-cancelled")));
        QSignalSpy steps(page->controller(), &RunController::steps);
        QSignalSpy finished(page->controller(), &RunController::finished);
        QVERIFY(page->startInvocation());
        QVERIFY(steps.wait(testsupport::kHangMs));

        QAction* quit = w.action(QStringLiteral("quit"));
        QVERIFY(quit);
        // Ctrl+Q whatever the platform theme (Qt's Quit binding is empty under some, offscreen's among them).
        QVERIFY(quit->shortcuts().contains(QKeySequence(QStringLiteral("Ctrl+Q"))));
        quit->trigger();
        QMessageBox* first = form->pendingDiscardPrompt();
        QVERIFY(first);
        QTest::mouseClick(first->button(QMessageBox::Discard), Qt::LeftButton);
        QMessageBox* second = visibleBox(w, QStringLiteral("confirmCloseDialog"));
        QVERIFY(second);
        QTest::mouseClick(second->button(QMessageBox::Cancel), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!visibleBox(w, QStringLiteral("confirmCloseDialog")), testsupport::kHangMs);
        QVERIFY(w.isVisible());
        QVERIFY(page->isRunning());
        // The form as it was: edited, unsaved; nothing was reverted, so nothing new waits to be saved.
        QCOMPARE(epochs->text(), QStringLiteral("9"));
        QCOMPARE(form->config().train.epochs, 9ull);
        QVERIFY(form->isModified());
        QVERIFY(!autosave->isActive());
        QCOMPARE(QSettings().value(fieldsKey).toMap(), saved);

        // Quit again, and mean it: Discard, then stop the run and close.
        quit->trigger();
        QVERIFY(form->pendingDiscardPrompt());
        QTest::mouseClick(form->pendingDiscardPrompt()->button(QMessageBox::Discard), Qt::LeftButton);
        second = visibleBox(w, QStringLiteral("confirmCloseDialog"));
        QVERIFY(second);
        auto* stop = second->findChild<QPushButton*>(QStringLiteral("stopAndClose"));
        QVERIFY(stop);
        stop->click();
        QTRY_VERIFY_WITH_TIMEOUT(!w.isVisible(), testsupport::kHangMs);
        QCOMPARE(finished.count(), 1);
        MainWindow next;
        next.restoreSession();
        QCOMPARE(next.workloadPage()->config().model.name, std::string("unet3d"));
        QCOMPARE(next.workloadPage()->config().train.epochs, 5ull);
        QVERIFY(!next.workloadPage()->isModified());
    }

    void closingDuringARunAsksAndKeepsWhatWasMeasured() {
        // 8 steps × 3 epochs × 0.2 s: it cannot end by itself during the test.
        trainio::WorkloadConfig slow = cfg_;
        slow.train.epochs = 3;
        slow.train.computationTime.mean = 0.2;
        const std::uint64_t stepsPerEpoch = slow.dataset.numFilesTrain / slow.reader.batchSize;
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        RunPage* page = w.runPage();
        page->setWorkload(slow, 1, trainio::MetricSemantics::DlioV2, true);
        const QString out = work_.filePath(QStringLiteral("closed-during-run"));
        page->setOutputFolder(out);
        QSignalSpy steps(page->controller(), &RunController::steps);
        QSignalSpy finished(page->controller(), &RunController::finished);
        QVERIFY(page->startInvocation());
        QVERIFY(steps.wait(testsupport::kHangMs));

        // Asked; "Cancel" keeps the window and the run.
        QVERIFY(!w.close());
        QMessageBox* box = visibleBox(w, QStringLiteral("confirmCloseDialog"));
        QVERIFY(box);
        box->button(QMessageBox::Cancel)->click();
        QVERIFY(w.isVisible());
        QVERIFY(page->isRunning());
        QCOMPARE(finished.count(), 0);

        // Asked again; "Stop the run and close" stops the engine, writes the folder, then closes.
        QVERIFY(!w.close());
        box = visibleBox(w, QStringLiteral("confirmCloseDialog"));
        QVERIFY(box);
        auto* stop = box->findChild<QPushButton*>(QStringLiteral("stopAndClose"));
        QVERIFY(stop);
        stop->click();
        QTRY_VERIFY_WITH_TIMEOUT(!w.isVisible(), testsupport::kHangMs);
        QVERIFY(!page->isRunning());
        QCOMPARE(finished.count(), 1);
        // The run was stopped, not waited for: cancelled, and fewer steps recorded than the run has (below).
        // How soon is not asserted (issue 29): a loaded machine decides it.
        QVERIFY(finished.first().first().value<RunFinish>().cancelled);

        // The folder keeps what was measured, marked cancelled, with its per-step records.
        QCOMPARE(readJson(out + QStringLiteral("/summary.json")).value(QStringLiteral("trainio_status")).toString(), QStringLiteral("cancelled"));
        QCOMPARE(readJson(out + QStringLiteral("/trainio_run.json")).value(QStringLiteral("status")).toString(), QStringLiteral("cancelled"));
        qsizetype loads = 0; // per-step load times, over every epoch and block recorded
        for (const auto& epoch : readJson(out + QStringLiteral("/0_output.json")))
            for (const auto& block : epoch.toObject().value(QStringLiteral("load")).toObject()) loads += block.toArray().size();
        QVERIFY2(loads >= 1, "at least one step's load time");
        QVERIFY2(loads < qsizetype(stepsPerEpoch * slow.train.epochs), "stopped before the end");
    }
};

QTEST_MAIN(TestRunSafety)
#include "tst_run_safety.moc"
