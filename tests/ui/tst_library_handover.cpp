// A run in the window joins the results library from memory (issue 20, "no re-import after a run"): the
// Run page hands what the run wrote (RunFinish::written) to the library, which adds its records without
// the folder being read again (ResultsLibraryLoader::addWritten: importWritten + ResultsLibrary::withAdded),
// and the model panel compares prediction and measurement from the same records. Counted with the store's
// ReadLog (every file the store opens, from any thread): none of the run's files is opened from the start
// of the run until the library has it. The library is then what a fresh import of its folders makes
// (importResults, which reads them), whole — for a folder new to the library and for one inside a library
// folder that holds other results.
#include "gui_test_support.h"
#include "testsupport.h"
#include "import_compare.h"

#include "aggregate/results_import.h"
#include "main_window.h"
#include "run/model_panel.h"
#include "store/run_folder.h"

#include <QSpinBox>

namespace fs = std::filesystem;
using namespace trainio::ui;

namespace {

std::string listed(const std::vector<fs::path>& files) {
    std::string out;
    for (const auto& f : files) out += "\n  " + f.string();
    return out;
}

trainio::aggregate::ImportOptions withSteps() {
    trainio::aggregate::ImportOptions o;
    o.stepDigests = true;
    return o;
}

} // namespace

class TestLibraryHandover : public QObject {
    Q_OBJECT
    QTemporaryDir settingsDir_;
    QTemporaryDir work_;
    trainio::WorkloadConfig cfg_;

    // Starts a run on the window's Run page and waits until it ended and the library that holds it landed;
    // every file the store read meanwhile below `watched` is in *readBack.
    bool runAndLand(MainWindow& w, const QString& out, bool benchmark, const QString& watched, std::vector<fs::path>* readBack,
                    RunFinish* finish) {
        ResultsLibraryLoader* loader = w.libraryLoader();
        if (!QTest::qWaitFor([&] { return !loader->isLoading(); }, 60000)) return false;
        RunPage* run = w.runPage();
        run->setWorkload(cfg_, 2, trainio::MetricSemantics::DlioV2, true);
        run->setOutputFolder(out);
        run->setBenchmarkShape(2, 1);
        QSignalSpy finished(run->controller(), &RunController::finished);
        QSignalSpy loaded(loader, &ResultsLibraryLoader::loaded);
        qsizetype loadedAtFinish = -1;
        QObject::connect(run->controller(), &RunController::finished, loader, [&] { loadedAtFinish = loaded.count(); });
        trainio::store::ReadLog log;
        if (!(benchmark ? run->startBenchmark() : run->startInvocation())) return false;
        if (!finished.wait(120000)) return false;
        *finish = finished.first().first().value<RunFinish>();
        if (!QTest::qWaitFor([&] { return loaded.count() > loadedAtFinish && !loader->isLoading(); }, 60000)) return false;
        *readBack = log.filesIn(watched.toStdString());
        return true;
    }

private slots:
    void initTestCase() {
        uitest::isolateSettings(settingsDir_);
        cfg_ = uitest::tinyWorkload(work_.filePath(QStringLiteral("data")), 16, 2);
        cfg_.trainio.storage.bandwidthMiBs = 400; // emulated storage: the model's prediction is written and compared
        QVERIFY(uitest::generateDataset(cfg_));
    }
    void init() { QSettings().clear(); }

    // A benchmark into a folder the library does not hold yet: the folder joins the library list, its
    // records come from memory, and the model panel's comparison too.
    void aBenchmarkJoinsTheLibraryWithoutBeingRead() {
        MainWindow w;
        const QString out = QDir(work_.path()).filePath(QStringLiteral("bench"));
        std::vector<fs::path> readBack;
        RunFinish finish;
        QVERIFY(runAndLand(w, out, true, out, &readBack, &finish));
        QVERIFY2(finish.complete, qPrintable(finish.error));
        QVERIFY2(readBack.empty(), ("read back what the run wrote:" + listed(readBack)).c_str());
        QVERIFY(finish.written && finish.records);
        const QString canonicalOut = QFileInfo(out).canonicalFilePath();
        QCOMPARE(w.libraryLoader()->folders(), QStringList{canonicalOut});
        // The library is a fresh import of its folder, whole (records, groups, statistics, step digests).
        const auto fresh = trainio::aggregate::importResults({canonicalOut.toStdString()}, withSteps());
        QCOMPARE(fresh.runs.size(), std::size_t(3));
        QCOMPARE(QString::fromStdString(importcompare::describe(w.libraryLoader()->library()->imported()).dump(1)),
                 QString::fromStdString(importcompare::describe(fresh).dump(1)));
        // Predicted vs measured, from the records handed over.
        auto* panel = w.runPage()->findChild<ModelPanel*>(QStringLiteral("modelPanel"));
        QVERIFY(panel);
        QVERIFY(QTest::qWaitFor([&] { return !panel->comparisonText().isEmpty(); }, 30000));
        QVERIFY2(panel->comparisonText().contains(QStringLiteral("run-1: measured AU")), qPrintable(panel->comparisonText()));
    }

    // A run into a folder inside a library folder that holds other results (a published MLPerf benchmark):
    // added to what the library holds, as a fresh import of the library folder makes it.
    void aRunInsideALibraryFolderIsAddedToIt() {
        MainWindow w;
        const QString lab = QDir(work_.path()).filePath(QStringLiteral("lab"));
        QVERIFY(uitest::copyTree(QStringLiteral(TRAINIO_TEST_DATA "/mlperf-storage-v1.0/Closed/Micron/results/"
                                                "Micron_9550_Gen5_Performance_NVMe/cosmoflow/h100"),
                                 QDir(lab).filePath(QStringLiteral("cosmoflow"))));
        QSignalSpy loaded(w.libraryLoader(), &ResultsLibraryLoader::loaded);
        QVERIFY(w.libraryLoader()->addFolder(lab));
        QVERIFY(uitest::received(loaded, testsupport::kHangMs));
        QCOMPARE(w.libraryLoader()->library()->imported().runs.size(), std::size_t(5));
        const QString out = QDir(lab).filePath(QStringLiteral("once"));
        std::vector<fs::path> readBack;
        RunFinish finish;
        // Nothing below the library folder is read: neither what the run wrote nor the results the library
        // held already (the run is added to them, the folder is not imported again).
        QVERIFY(runAndLand(w, out, false, lab, &readBack, &finish));
        QVERIFY2(finish.complete, qPrintable(finish.error));
        QVERIFY2(readBack.empty(), ("read below the library folder:" + listed(readBack)).c_str());
        const QString canonicalLab = QFileInfo(lab).canonicalFilePath();
        QCOMPARE(w.libraryLoader()->folders(), QStringList{canonicalLab}); // held by the library folder: not added
        const auto fresh = trainio::aggregate::importResults({canonicalLab.toStdString()}, withSteps());
        QCOMPARE(fresh.runs.size(), std::size_t(6));
        QCOMPARE(QString::fromStdString(importcompare::describe(w.libraryLoader()->library()->imported()).dump(1)),
                 QString::fromStdString(importcompare::describe(fresh).dump(1)));
    }
};

QTEST_MAIN(TestLibraryHandover)
#include "tst_library_handover.moc"
