// The smaller traps a presenter fell into while preparing a customer demo (issue 21), one test each:
// an invalid field fed the sizing and the model; the wheel halved a byte field per notch and changed
// fields the page scrolled under the pointer; the Runs count was forgotten; the sizing warning said the
// page cache could serve a dataset that fadvise evicts before each epoch; open/save dialogs forgot the
// last folder; an error under a field moved the form under the mouse.
#include "widgets/file_dialogs.h"
#include "main_window.h"
#include "run/model_panel.h"
#include "widgets/quantity_spin_box.h"
#include "run/run_page.h"
#include "widgets/wheel_guard.h"
#include "workload/workload_page.h"
#include "workload/data_page.h"
#include "gui_test_support.h"
#include "testsupport.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QHash>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QSignalSpy>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QWheelEvent>

using namespace trainio::ui;

namespace {

void type(QWidget* field, const QString& text) {
    auto* edit = field->findChild<QLineEdit*>();
    QVERIFY(edit);
    edit->selectAll();
    QTest::keyClicks(edit, text);
}

void wheel(QWidget* w, int notches) {
    const QPointF centre(w->width() / 2.0, w->height() / 2.0);
    QWheelEvent e(centre, w->mapToGlobal(centre), QPoint(), QPoint(0, 120 * notches), Qt::NoButton, Qt::NoModifier,
                  Qt::NoScrollPhase, false);
    QApplication::sendEvent(w, &e);
}

} // namespace

class TestDemoTraps : public QObject {
    Q_OBJECT
    uitest::TestFolders dirs_; // settings isolated for the suite, and a work folder

private slots:
    void initTestCase() {
        QVERIFY(dirs_.work.isValid());
    }
    void init() { QSettings().clear(); }

    // "16.5" files is refused (red), and neither the sizing panel nor the model's prediction goes on with
    // the last accepted value (16 files; the issue saw "1.5" used as 1): both say the field is invalid until it is fixed.
    void invalidInputFeedsNeitherSizingNorModel() {
        MainWindow w;
        w.show();
        WorkloadPage* page = w.workloadPage();
        trainio::WorkloadConfig cfg = uitest::tinyWorkload(dirs_.work.filePath(QStringLiteral("d")));
        cfg.trainio.storage.profile = "nvme"; // the model predicts for an emulated device
        page->setConfig(cfg, QStringLiteral("test"));
        auto* model = w.runPage()->findChild<ModelPanel*>(QStringLiteral("modelPanel"));
        QVERIFY(model);
        QWidget* files = page->editorFor(QStringLiteral("dataset.num_files_train"));
        type(files, QStringLiteral("16"));
        QVERIFY2(page->sizingText().contains(QStringLiteral("configured: 16 files")), qPrintable(page->sizingText()));
        QTRY_VERIFY_WITH_TIMEOUT(!model->isComputing(), testsupport::kHangMs);
        QVERIFY2(model->predictionText().contains(QStringLiteral("Model prediction: AU")), qPrintable(model->predictionText()));

        type(files, QStringLiteral("16.5"));
        QVERIFY(!page->isValid());
        QCOMPARE(page->config().dataset.numFilesTrain, 16ull); // the config keeps the last accepted value …
        // … but nothing is computed from it.
        QVERIFY2(!page->sizingText().contains(QStringLiteral("configured: 16 files")), qPrintable(page->sizingText()));
        QVERIFY2(page->sizingText().contains(QStringLiteral("Not sized")) && page->sizingText().contains(QStringLiteral("'16.5'")),
                 qPrintable(page->sizingText()));
        QVERIFY(!page->findChild<QLabel*>(QStringLiteral("ramWarning"))->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(!model->isComputing(), testsupport::kHangMs);
        QVERIFY2(model->predictionText().contains(QStringLiteral("none")) && model->predictionText().contains(QStringLiteral("invalid")),
                 qPrintable(model->predictionText()));
        QVERIFY(std::isnan(model->predictedAuPercent()));

        type(files, QStringLiteral("32"));
        QVERIFY(page->isValid());
        QVERIFY2(page->sizingText().contains(QStringLiteral("configured: 32 files")), qPrintable(page->sizingText()));
        QTRY_VERIFY_WITH_TIMEOUT(!model->isComputing() && model->predictionText().contains(QStringLiteral("Model prediction: AU")), testsupport::kHangMs);
    }

    // The wheel over a focused byte field steps by one of the unit it shows (512 KiB → 497 KiB in 15
    // notches, not 16 B); while the page is being scrolled, a field the scrolling brings under the pointer
    // keeps its value even when it has the focus.
    void wheelStepsByteFieldsInTheirUnitAndNeverWhileScrolling() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(WheelGuard::isInstalled());
        WorkloadPage* page = w.workloadPage();
        page->setConfig(uitest::tinyWorkload(dirs_.work.filePath(QStringLiteral("w"))), QStringLiteral("test"));
        auto* record = qobject_cast<QuantitySpinBox*>(page->editorFor(QStringLiteral("dataset.record_length_bytes")));
        QVERIFY(record);
        QCOMPARE(record->kind(), trainio::quantity::Kind::Bytes);
        type(record, QStringLiteral("512 KiB"));
        QCOMPARE(record->value(), 524288.0);
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        record->setFocus();
        QTRY_VERIFY_WITH_TIMEOUT(record->hasFocus(), testsupport::kHangMs);
        for (int i = 0; i < 15; ++i) wheel(record, -1);
        QCOMPARE(record->text(), QStringLiteral("497 KiB"));
        QCOMPARE(record->value(), 497.0 * 1024);
        QCOMPARE(page->config().dataset.recordLength, 497.0 * 1024);
        wheel(record, 3);
        QCOMPARE(record->text(), QStringLiteral("500 KiB"));

        // The page scrolled with the wheel, then the same gesture reaches the focused field: it scrolls on.
        auto* scroll = page->findChild<QScrollArea*>();
        QVERIFY(scroll);
        wheel(scroll->viewport(), -1);
        wheel(record, -1);
        wheel(record, -1);
        QCOMPARE(record->text(), QStringLiteral("500 KiB"));
        QCOMPARE(page->config().dataset.recordLength, 500.0 * 1024);
        // The user clicks into the field again: it is what the wheel changes now.
        w.workloadPage()->setFocus();
        record->setFocus();
        QTRY_VERIFY_WITH_TIMEOUT(record->hasFocus(), testsupport::kHangMs);
        wheel(record, -1);
        QCOMPARE(record->text(), QStringLiteral("499 KiB"));
    }

    // Open and save dialogs start in the folder last used for the same purpose, in this session and the
    // next; another purpose keeps its own.
    void dialogsRememberTheirFolder() {
        QTemporaryDir out;
        QVERIFY(QDir().mkpath(out.filePath(QStringLiteral("plots"))));
        QStringList starts;
        QString answer;
        setFileDialogHook([&](const QString&, const QString& start) {
            starts << start;
            return answer;
        });
        {
            MainWindow w;
            answer = out.filePath(QStringLiteral("plots/p.svg"));
            w.action(QStringLiteral("exportPlot"))->trigger();
            QCOMPARE(starts.value(0), QDir::home().filePath(QStringLiteral("trainio-plot.svg")));
            answer.clear(); // cancelled: remembers nothing new
            w.action(QStringLiteral("exportPlot"))->trigger();
            QCOMPARE(starts.value(1), QDir(out.filePath(QStringLiteral("plots"))).filePath(QStringLiteral("trainio-plot.svg")));
            w.action(QStringLiteral("exportData"))->trigger();
            QCOMPARE(starts.value(2), QDir::home().filePath(QStringLiteral("trainio-aggregate.json")));
        }
        MainWindow next; // the next session
        next.action(QStringLiteral("exportPlot"))->trigger();
        QCOMPARE(starts.value(3), QDir(out.filePath(QStringLiteral("plots"))).filePath(QStringLiteral("trainio-plot.svg")));
        setFileDialogHook({});
    }

    // An error appearing under a field never moves the form under the mouse: the fields below stay where
    // they were while it shows and after it goes; the message is whole in its tooltip.
    void errorUnderAFieldDoesNotMoveTheForm() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        WorkloadPage* page = w.workloadPage();
        page->setConfig(uitest::tinyWorkload(dirs_.work.filePath(QStringLiteral("e"))), QStringLiteral("test"));
        QWidget* epochs = page->editorFor(QStringLiteral("train.epochs"));
        QVERIFY(epochs);
        // Every editor's place on the page, before.
        auto places = [page] {
            QHash<QString, QPoint> at;
            for (QWidget* e : page->findChildren<QWidget*>())
                if (e->objectName().contains(QLatin1Char('.')) && !e->objectName().endsWith(QStringLiteral("/error")) && e->isVisible())
                    at.insert(e->objectName(), e->mapTo(page, QPoint(0, 0)));
            return at;
        };
        QApplication::processEvents();
        const QHash<QString, QPoint> before = places();
        QVERIFY(before.size() > 10);
        type(epochs, QStringLiteral("-3"));
        auto* label = page->findChild<QLabel*>(QStringLiteral("train.epochs/error"));
        QVERIFY(label && label->isVisible());
        QCOMPARE(label->toolTip(), label->text());
        QApplication::processEvents();
        const QHash<QString, QPoint> during = places();

        for (auto it = before.cbegin(); it != before.cend(); ++it)
            QVERIFY2(during.value(it.key()) == it.value(), qPrintable(QStringLiteral("%1 moved from (%2,%3) to (%4,%5)")
                                                                       .arg(it.key())
                                                                       .arg(it.value().x())
                                                                       .arg(it.value().y())
                                                                       .arg(during.value(it.key()).x())
                                                                       .arg(during.value(it.key()).y())));
        type(epochs, QStringLiteral("3"));
        QVERIFY(!label->isVisible());
        QApplication::processEvents();
        QCOMPARE(places(), before);
    }

    // The benchmark's Runs and Warm-up counts come back in the next session.
    void runsCountIsRemembered() {
        {
            RunPage page;
            auto* runs = page.findChild<QSpinBox*>(QStringLiteral("benchmarkRuns"));
            auto* warmups = page.findChild<QSpinBox*>(QStringLiteral("benchmarkWarmups"));
            QVERIFY(runs && warmups);
            QCOMPARE(runs->value(), 5); // MLPerf Storage's, the first time
            QCOMPARE(warmups->value(), 1);
            runs->setValue(3);
            warmups->setValue(0);
        }
        RunPage again;
        QCOMPARE(again.findChild<QSpinBox*>(QStringLiteral("benchmarkRuns"))->value(), 3);
        QCOMPARE(again.findChild<QSpinBox*>(QStringLiteral("benchmarkWarmups"))->value(), 0);
    }

    // A dataset that fits in RAM under trainio.cache fadvise: the warning says what fadvise does for
    // this run (evicted before each epoch), not that the page cache can serve it.
    void ramWarningSaysWhatFadviseMeans() {
        MainWindow w;
        w.show();
        WorkloadPage* page = w.workloadPage();
        trainio::WorkloadConfig cfg = uitest::tinyWorkload(dirs_.work.filePath(QStringLiteral("f")));
        page->setConfig(cfg, QStringLiteral("test"));
        auto* warning = page->findChild<QLabel*>(QStringLiteral("ramWarning"));
        QVERIFY(warning && warning->isVisible());
        QVERIFY2(warning->text().contains(QStringLiteral("can serve it")), qPrintable(warning->text()));
        cfg.trainio.cache = "fadvise";
        page->setConfig(cfg, QStringLiteral("test"));
        QVERIFY(warning->isVisible());
        QVERIFY2(!warning->text().contains(QStringLiteral("can serve it")), qPrintable(warning->text()));
        QVERIFY2(warning->text().contains(QStringLiteral("fadvise")) && warning->text().contains(QStringLiteral("before each epoch")),
                 qPrintable(warning->text()));
    }

    // The same warning follows the storage profile picked in the form (issue 32 item 11): an emulated device
    // shapes every read whatever the page cache holds, so a dataset that fits in RAM is no warning then;
    // back to "none", the page cache can serve it again.
    void ramWarningFollowsTheStorageProfile() {
        MainWindow w;
        w.show();
        WorkloadPage* page = w.workloadPage();
        trainio::WorkloadConfig cfg = uitest::tinyWorkload(dirs_.work.filePath(QStringLiteral("p")));
        cfg.trainio.cache = "keep";
        page->setConfig(cfg, QStringLiteral("test"));
        auto* warning = page->findChild<QLabel*>(QStringLiteral("ramWarning"));
        QVERIFY(warning && warning->isVisible());
        QVERIFY2(warning->text().contains(QStringLiteral("can serve it")), qPrintable(warning->text()));
        auto* profile = qobject_cast<QComboBox*>(page->editorFor(QStringLiteral("trainio.storage.profile")));
        QVERIFY(profile);
        const int nvme = profile->findText(QStringLiteral("nvme"));
        QVERIFY(nvme > 0);
        // Picked as a user picks: the drop-down opened with the keyboard, moved to the entry, Enter.
        profile->setFocus();
        profile->setCurrentIndex(0);
        while (profile->currentIndex() != nvme) QTest::keyClick(profile, Qt::Key_Down);
        QCOMPARE(page->config().trainio.storage.profile, std::string("nvme"));
        QVERIFY(warning->isVisible());
        QVERIFY2(!warning->text().contains(QStringLiteral("can serve it")) && !warning->text().contains(QStringLiteral("⚠")) &&
                     warning->text().contains(QStringLiteral("emulated device")),
                 qPrintable(warning->text()));
        while (profile->currentIndex() != 0) QTest::keyClick(profile, Qt::Key_Up);
        QVERIFY(page->config().trainio.storage.profile.empty());
        QVERIFY2(warning->text().contains(QStringLiteral("can serve it")), qPrintable(warning->text()));
    }

    // The Data page's status line is about the dataset shown above it (issue 32 item 11): after generating
    // into one folder, another folder is "not checked here", and the first one's line comes back with it. A
    // workload changed while an operation runs is shown once the operation ends (its progress was about the
    // first folder).
    // The Data page's shape line counts as a person writes ("× 1 samples" was on the 1280×720 screenshot).
    void datasetShapeCountsAgreeWithTheirNouns() {
        MainWindow w;
        trainio::WorkloadConfig cfg = uitest::tinyWorkload(dirs_.work.filePath(QStringLiteral("shape")), 1, 1);
        cfg.dataset.numFilesTrain = 1;
        cfg.dataset.numSamplesPerFile = 1;
        cfg.dataset.numSubfoldersTrain = 1;
        w.workloadPage()->setConfig(cfg, QStringLiteral("test"));
        auto* shape = w.dataPage()->findChild<QLabel*>(QStringLiteral("datasetShape"));
        QVERIFY(shape);
        QVERIFY2(shape->text().startsWith(QStringLiteral("1 training file × 1 sample of ")) && shape->text().contains(QStringLiteral(", 1 subfolder — ")),
                 qPrintable(shape->text()));
        cfg.dataset.numFilesTrain = 1200;
        cfg.dataset.numSamplesPerFile = 2;
        cfg.dataset.numSubfoldersTrain = 0;
        w.workloadPage()->setConfig(cfg, QStringLiteral("test"));
        QVERIFY2(shape->text().startsWith(QStringLiteral("%L1 training files × 2 samples of ").arg(1200)) && shape->text().contains(QStringLiteral(", 0 subfolders — ")),
                 qPrintable(shape->text()));
    }

    void dataPageStatusFollowsTheDataLocation() {
        MainWindow w;
        w.show();
        WorkloadPage* page = w.workloadPage();
        DataPage* data = w.dataPage();
        const QString first = dirs_.work.filePath(QStringLiteral("loc-a"));
        const QString second = dirs_.work.filePath(QStringLiteral("loc-b"));
        trainio::WorkloadConfig cfg = uitest::tinyWorkload(first, 4, 1);
        page->setConfig(cfg, QStringLiteral("test"));
        QVERIFY2(data->statusText().startsWith(QStringLiteral("Not generated")), qPrintable(data->statusText()));
        QSignalSpy done(data->controller(), &DatasetController::finished);
        data->generate();
        // Changed while the generation runs: the page stays on the folder being generated.
        trainio::WorkloadConfig other = cfg;
        other.dataset.dataFolder = second.toStdString();
        page->setConfig(other, QStringLiteral("test"));
        QVERIFY(uitest::received(done, testsupport::kHangMs));
        QVERIFY(done.first().at(1).toBool());
        // Now the other folder, with a status of its own.
        auto shows = [&](const QString& dir) {
            for (QLabel* l : data->findChildren<QLabel*>())
                if (l->text() == QDir::toNativeSeparators(dir)) return true;
            return false;
        };
        QVERIFY(shows(second));
        QVERIFY2(data->statusText().startsWith(QStringLiteral("Not generated")), qPrintable(data->statusText()));
        auto* bar = data->findChild<QProgressBar*>(QStringLiteral("datasetProgress"));
        QVERIFY(bar);
        QCOMPARE(bar->value(), 0);
        // Back to the generated folder: its line again.
        page->setConfig(cfg, QStringLiteral("test"));
        QVERIFY(shows(first));
        QVERIFY2(data->statusText().startsWith(QStringLiteral("Generation finished")),
                 qPrintable(data->statusText()));
        QCOMPARE(bar->value(), bar->maximum());
    }

    // Byte fields say their unit and about how much they are; a time derived to 17 digits reads as a person
    // writes it (issue 32 item 11: "146600628", "0.05066255668571429"). What the form holds stays exact, and
    // so does a saved and restored session.
    void bytesAndTimesReadAsAPersonWritesThem() {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        WorkloadPage* page = w.workloadPage();
        trainio::WorkloadConfig cfg = uitest::tinyWorkload(dirs_.work.filePath(QStringLiteral("u")));
        cfg.dataset.recordLength = 146600628;
        cfg.train.computationTime.mean = 0.05066255668571429;
        page->setConfig(cfg, QStringLiteral("test"));
        w.showPage(MainWindow::WorkloadPageIndex);
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* size = qobject_cast<QuantitySpinBox*>(page->editorFor(QStringLiteral("dataset.record_length_bytes")));
        auto* compute = qobject_cast<QuantitySpinBox*>(page->editorFor(QStringLiteral("train.computation_time")));
        QVERIFY(size && compute);
        QApplication::processEvents();
        QCOMPARE(size->text(), QStringLiteral("146600628 B"));
        QCOMPARE(size->approximateSize(), QStringLiteral("≈ 139.8 MiB")); // 146600628 / 1048576 = 139.808
        // … on the line under the field, where an error would be.
        auto* line = page->findChild<QLabel*>(QStringLiteral("dataset.record_length_bytes/error"));
        QVERIFY(line && line->isVisible());
        QCOMPARE(line->text(), QStringLiteral("≈ 139.8 MiB"));
        QCOMPARE(compute->text(), QStringLiteral("50.66 ms"));
        QCOMPARE(page->config().dataset.recordLength, 146600628.0);
        QCOMPARE(page->config().train.computationTime.mean, 0.05066255668571429); // exact, not 0.05066
        // A size in a binary unit needs no hint; a typed size gets one as it is typed.
        type(size, QStringLiteral("4 MiB"));
        QCOMPARE(size->approximateSize(), QString());
        QVERIFY(!line->isVisible());
        type(size, QStringLiteral("3000000"));
        QCOMPARE(size->approximateSize(), QStringLiteral("≈ 2.9 MiB"));
        QCOMPARE(line->text(), QStringLiteral("≈ 2.9 MiB"));
        QCOMPARE(page->config().dataset.recordLength, 3000000.0);
        // The session keeps the exact time, not the rounded text.
        QTemporaryDir dir;
        QSettings saved(dir.filePath(QStringLiteral("s.ini")), QSettings::IniFormat);
        page->saveSession(saved);
        saved.sync();
        MainWindow other;
        QVERIFY(other.workloadPage()->restoreSession(saved));
        QCOMPARE(other.workloadPage()->config().train.computationTime.mean, 0.05066255668571429);
        QCOMPARE(other.workloadPage()->config().dataset.recordLength, 3000000.0);
        // Typed over, the text is the user's, parsed as typed.
        type(compute, QStringLiteral("50.66 ms"));
        QCOMPARE(page->config().train.computationTime.mean, 0.05066);
    }
};

QTEST_MAIN(TestDemoTraps)
#include "tst_demo_traps.moc"
