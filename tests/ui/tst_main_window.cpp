// The window as a user meets it: pages and shortcuts, a broken configuration file and a missing
// results folder reported in the message panel (never a blocking dialog, never a crash), the workload
// form validating as it is edited, the sizing warning, compare and exports of checked results,
// settings restored in the next session, and the command line of `trainio --report`.
#include "library/compare_page.h"
#include "gui_arguments.h"
#include "main_window.h"
#include "widgets/notification_panel.h"
#include "widgets/quantity_spin_box.h"
#include "report/report_exporter.h"
#include "library/results_library_loader.h"
#include "library/results_page.h"
#include "models/results_tree_model.h"
#include "gui_test_support.h"
#include "testsupport.h"
#include "workload/workload_page.h"

#include <qcustomplot.h>

#include <cmath>

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QSignalSpy>
#include <QComboBox>
#include <QLineEdit>
#include <QTableView>
#include <QTest>

using namespace trainio::ui;
using Severity = NotificationPanel::Severity;

namespace {
// A cell of a view's model as the user reads it.
QString cellText(const QAbstractItemView* view, int row, int column) { return view->model()->index(row, column).data().toString(); }
} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
    QTemporaryDir settingsDir_;
    QTemporaryDir work_;
    const QString fixture_ = QStringLiteral(TRAINIO_TEST_DATA "/mlperf-storage-v1.0");

    static bool anyMessage(const MainWindow& w, Severity s, const QString& part) {
        for (const auto& e : w.notifications()->entries())
            if (e.severity == s && e.text.contains(part)) return true;
        return false;
    }

    // Types into a field as a user does: select all, then the keys.
    static void type(QWidget* field, const QString& text) {
        auto* edit = field->findChild<QLineEdit*>();
        QVERIFY(edit);
        edit->selectAll();
        QTest::keyClicks(edit, text);
    }

    void loadFixture(MainWindow& w) {
        QSignalSpy loaded(w.libraryLoader(), &ResultsLibraryLoader::loaded);
        QVERIFY(w.openResultsFolder(fixture_));
        QTRY_VERIFY_WITH_TIMEOUT(!w.libraryLoader()->isLoading() && loaded.count() >= 1, testsupport::kHangMs);
    }

private slots:
    void initTestCase() { uitest::isolateSettings(settingsDir_); }
    void init() { QSettings().clear(); }

    void shortcutsSwitchPagesAndNameTheMainActions() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        for (int page = MainWindow::PageCount; page >= 1; --page) {
            QTest::keyClick(&w, Qt::Key(Qt::Key_0 + page), Qt::ControlModifier);
            QCOMPARE(w.currentPage(), page - 1);
        }
        const std::pair<const char*, QKeySequence> expected[] = {
            {"openConfig", QKeySequence(QKeySequence::Open)}, {"saveConfig", QKeySequence(QKeySequence::Save)},
            {"runOnce", QKeySequence(QStringLiteral("Ctrl+R"))}, {"runBenchmark", QKeySequence(QStringLiteral("Ctrl+B"))},
            {"cancel", QKeySequence(Qt::Key_Escape)}, {"exportReport", QKeySequence(QStringLiteral("Ctrl+E"))}};
        for (const auto& [name, keys] : expected) {
            QAction* a = w.action(QString::fromLatin1(name));
            QVERIFY2(a, name);
            QVERIFY2(a->shortcuts().contains(keys), name);
        }
        QVERIFY(w.action(QStringLiteral("cancel"))->shortcuts().contains(QKeySequence(QStringLiteral("Ctrl+."))));
    }

    void brokenConfigFileIsReportedAndKeepsTheForm() {
        MainWindow w;
        WorkloadPage* page = w.workloadPage();
        QVERIFY(page->loadPresetNamed(QStringLiteral("unet3d_h100")));
        const auto before = page->config().dataset.numFilesTrain;
        const QString path = work_.filePath(QStringLiteral("broken.yaml"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("dataset:\n  num_files_train: [oops\n  format: npz\n");
        f.close();
        QVERIFY(!page->openFile(path));
        QVERIFY(anyMessage(w, Severity::Error, QStringLiteral("broken.yaml")));
        QCOMPARE(page->config().dataset.numFilesTrain, before);
        QVERIFY(!anyMessage(w, Severity::Error, QStringLiteral("/nonexistent")));
        QVERIFY(!page->openFile(QStringLiteral("/nonexistent/workload.yaml")));
        QVERIFY(anyMessage(w, Severity::Error, QStringLiteral("/nonexistent/workload.yaml")));
    }

    void saveAndOpenRoundTrip() {
        MainWindow w;
        WorkloadPage* page = w.workloadPage();
        QVERIFY(page->loadPresetNamed(QStringLiteral("resnet50_a100")));
        auto* threads = qobject_cast<QuantitySpinBox*>(page->editorFor(QStringLiteral("reader.read_threads")));
        QVERIFY(threads);
        type(threads, QStringLiteral("7"));
        QCOMPARE(page->config().reader.readThreads, 7ull);
        const QString path = work_.filePath(QStringLiteral("saved.yaml"));
        QVERIFY(page->saveFile(path));
        QVERIFY(page->loadPresetNamed(QStringLiteral("unet3d_h100")));
        QVERIFY(page->openFile(path));
        QCOMPARE(page->config().reader.readThreads, 7ull);
        QCOMPARE(page->config().model.name, std::string("resnet50"));
        QCOMPARE(threads->value(), 7.0);
    }

    void formValidatesAsYouType() {
        MainWindow w;
        WorkloadPage* page = w.workloadPage();
        QVERIFY(page->loadPresetNamed(QStringLiteral("unet3d_h100")));
        QVERIFY(page->isValid());
        QSignalSpy changed(page, &WorkloadPage::configChanged);
        // A zero sample size and an AU threshold outside (0, 1]: the engine's own validation must say so.
        // Values the fields accept but validateConfig refuses as a combination: uniform compute with
        // max < min. The engine's own validation must say so.
        auto* min = page->editorFor(QStringLiteral("train.computation_time.min"));
        auto* max = page->editorFor(QStringLiteral("train.computation_time.max"));
        auto* kind = qobject_cast<QComboBox*>(page->editorFor(QStringLiteral("train.computation_time.type")));
        QVERIFY(min && max && kind);
        kind->setCurrentText(QStringLiteral("uniform"));
        type(min, QStringLiteral("0.5"));
        type(max, QStringLiteral("0.25"));
        QVERIFY(changed.count() >= 2);
        const auto expected = trainio::validateConfig(page->config());
        QCOMPARE(expected.size(), std::size_t(1));
        QCOMPARE(page->errors().size(), expected.size());
        auto* list = page->findChild<QListWidget*>(QStringLiteral("diagnostics"));
        QVERIFY(list);
        QCOMPARE(list->item(0)->text(), QString::fromStdString(expected.front().message));
        QVERIFY(list->item(0)->text().contains(QStringLiteral("train.computation_time.max")));
        // Out of range where the field itself refuses it: listed first, with the key and the range.
        type(page->editorFor(QStringLiteral("metric.au")), QStringLiteral("0"));
        QCOMPARE(page->errors().size(), std::size_t(2));
        QVERIFY(list->item(0)->text().startsWith(QStringLiteral("metric.au: '0' is not allowed")));
        type(max, QStringLiteral("1 s"));
        type(page->editorFor(QStringLiteral("metric.au")), QStringLiteral("90 %"));
        QCOMPARE(page->config().metric.au, 0.9);
        QVERIFY(page->isValid());
        QCOMPARE(list->count(), 1); // "The configuration is valid."
    }

    void warnsWhenTheDatasetFitsInRam() {
        MainWindow w;
        w.show();
        WorkloadPage* page = w.workloadPage();
        page->setConfig(uitest::tinyWorkload(work_.filePath(QStringLiteral("d"))), QStringLiteral("test"));
        auto* warning = page->findChild<QLabel*>(QStringLiteral("ramWarning"));
        QVERIFY(warning);
        QVERIFY(page->datasetFitsInRam());
        QVERIFY(warning->isVisible());
        QVERIFY(warning->text().contains(QStringLiteral("fits in the client RAM")));
        QVERIFY(page->loadPresetNamed(QStringLiteral("unet3d_h100")));
        type(page->editorFor(QStringLiteral("dataset.num_files_train")), QStringLiteral("2000000")); // ~273 TiB of 146 MB samples
        QVERIFY(!page->datasetFitsInRam());
        QVERIFY(!warning->isVisible());
    }

    void missingResultsFolderIsReported() {
        MainWindow w;
        QVERIFY(!w.openResultsFolder(QStringLiteral("/nonexistent/results")));
        QVERIFY(anyMessage(w, Severity::Error, QStringLiteral("/nonexistent/results")));
        QVERIFY(w.libraryLoader()->folders().isEmpty());
    }

    void compareCheckedBenchmarksAgainstABaseline() {
        MainWindow w;
        loadFixture(w);
        ResultsTreeModel* model = w.resultsModel();
        QCOMPARE(model->groupCount(), 39);
        // Check two benchmarks of one workload from two systems (Compare gives deltas only there).
        std::vector<const trainio::aggregate::LibraryNode*> checked;
        std::vector<QModelIndex> benches;
        for (int s = 0; s < model->rowCount(); ++s)
            for (int w = 0; w < model->rowCount(model->index(s, 0)); ++w)
                benches.push_back(model->index(0, 0, model->index(w, 0, model->index(s, 0))));
        for (std::size_t a = 0; a < benches.size() && checked.empty(); ++a)
            for (std::size_t b = a + 1; b < benches.size() && checked.empty(); ++b)
                if (model->node(benches[a])->workloadKey == model->node(benches[b])->workloadKey &&
                    benches[a].parent().parent() != benches[b].parent().parent())
                    for (const QModelIndex& i : {benches[a], benches[b]}) {
                        QVERIFY(model->setData(i, Qt::Checked, Qt::CheckStateRole));
                        checked.push_back(model->node(i));
                    }
        QCOMPARE(checked.size(), std::size_t(2));
        ComparePage* compare = w.comparePage();
        QCOMPARE(compare->items().size(), std::size_t(2));
        QCOMPARE(compare->auBars()->plottableCount() >= 2, true);
        QCOMPARE(compare->epochPlot()->graphCount(), 2);
        QTableView* table = compare->deltaTable();
        QCOMPARE(table->model()->rowCount(), 2);
        compare->setBaseline(0);
        QCOMPARE(cellText(table, 0, ComparePage::DeltaColumn), QStringLiteral("baseline"));
        // AU (never divided per accelerator): the delta in % of the baseline's mean over its runs.
        const double pct = 100.0 * (checked[1]->au.mean - checked[0]->au.mean) / checked[0]->au.mean;
        const QString shown = cellText(table, 1, ComparePage::DeltaColumn);
        QVERIFY2(std::abs(QLocale().toDouble(shown.section(QLatin1Char(' '), 0, 0)) - pct) <= 0.051,
                 qPrintable(QStringLiteral("%1 vs %2").arg(shown).arg(pct)));

        // Exports of the checked items: the plot as SVG and PNG, the aggregate as JSON.
        w.showPage(MainWindow::ComparePageIndex);
        const QString svg = work_.filePath(QStringLiteral("plot.svg"));
        const QString png = work_.filePath(QStringLiteral("plot.png"));
        const QString json = work_.filePath(QStringLiteral("aggregate.json"));
        QVERIFY(w.exportCurrentPlot(svg));
        QVERIFY(w.exportCurrentPlot(png));
        QVERIFY(w.exportData(json));
        QFile svgFile(svg);
        QVERIFY(svgFile.open(QIODevice::ReadOnly));
        QVERIFY(svgFile.readAll().contains("<svg"));
        QVERIFY(QFileInfo(png).size() > 1000);
        QFile jsonFile(json);
        QVERIFY(jsonFile.open(QIODevice::ReadOnly));
        const QByteArray text = jsonFile.readAll();
        QVERIFY(text.contains("\"items\"")); // the checked items (ui/report/report_writer.h)
        QVERIFY(!w.exportCurrentPlot(work_.filePath(QStringLiteral("plot.bmp"))));
        QVERIFY(anyMessage(w, Severity::Error, QStringLiteral("plot.bmp")));
    }

    void exportReportWritesAPdf() {
        MainWindow w;
        const QString pdf = work_.filePath(QStringLiteral("report.pdf"));
        QVERIFY(!w.exportReport(pdf)); // empty library: a message, no file
        QVERIFY(anyMessage(w, Severity::Error, QStringLiteral("empty")));
        loadFixture(w);
        const QModelIndex bench = w.resultsModel()->index(0, 0, w.resultsModel()->index(0, 0, w.resultsModel()->index(0, 0)));
        w.resultsModel()->setData(bench, Qt::Checked, Qt::CheckStateRole);
        ReportExporter* exporter = w.exportReport(pdf); // on a worker, with a progress dialog
        QVERIFY(exporter);
        QSignalSpy done(exporter, &ReportExporter::finished);
        QVERIFY(done.wait(120000));
        QVERIFY2(done.first().at(0).toBool(), qPrintable(done.first().at(1).toString()));
        QVERIFY(anyMessage(w, Severity::Info, pdf));
        QFile f(pdf);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.read(5) == "%PDF-");
    }

    void sessionIsRestored() {
        {
            MainWindow w;
            w.show();
            loadFixture(w);
            QVERIFY(w.workloadPage()->loadPresetNamed(QStringLiteral("cosmoflow_h100")));
            w.workloadPage()->setAccelerators(3);
            w.showPage(MainWindow::ComparePageIndex);
            w.close();
        }
        MainWindow restored;
        QSignalSpy loaded(restored.libraryLoader(), &ResultsLibraryLoader::loaded);
        restored.restoreSession();
        QCOMPARE(restored.currentPage(), int(MainWindow::ComparePageIndex));
        QCOMPARE(restored.workloadPage()->config().model.name, std::string("cosmoflow"));
        QCOMPARE(restored.workloadPage()->accelerators(), 3ull);
        QCOMPARE(restored.libraryLoader()->folders().size(), 1);
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() >= 1 && !restored.libraryLoader()->isLoading(), testsupport::kHangMs);
        QCOMPARE(restored.resultsModel()->groupCount(), 39);
    }

    // Issue 32 item 10: the items checked in the Results tree (checked with the space bar, as a user does)
    // are checked again after a restart, and Compare shows them.
    void checkedItemsComeBackAfterARestart() {
        QStringList names;
        {
            MainWindow w;
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            loadFixture(w);
            w.showPage(MainWindow::ResultsPageIndex);
            auto* tree = w.resultsPage()->findChild<QTreeView*>(QStringLiteral("resultsTree"));
            QVERIFY(tree);
            ResultsTreeModel* model = w.resultsModel();
            // The first benchmark of the first two workloads of the first system.
            const QModelIndex system = model->index(0, 0);
            QVERIFY(model->rowCount(system) >= 2);
            for (int wl = 0; wl < 2; ++wl) {
                const QModelIndex bench = model->index(0, 0, model->index(wl, 0, system));
                tree->expand(bench.parent());
                tree->setCurrentIndex(bench);
                tree->setFocus();
                QTest::keyClick(tree, Qt::Key_Space);
                QCOMPARE(bench.data(Qt::CheckStateRole).toInt(), int(Qt::Checked));
                names << QString::fromStdString(model->node(bench)->itemName);
            }
            QCOMPARE(w.comparePage()->items().size(), std::size_t(2));
            w.close();
        }
        MainWindow restored;
        restored.restoreSession();
        QTRY_VERIFY_WITH_TIMEOUT(restored.libraryLoader()->folders().size() == 1 && !restored.libraryLoader()->isLoading() &&
                                     restored.comparePage()->items().size() == 2,
                                 testsupport::kHangMs);
        QStringList shown;
        for (const auto& item : restored.comparePage()->items()) shown << item.label;
        QCOMPARE(shown, names);
        QCOMPARE(int(restored.resultsModel()->checkedNodes().size()), 2);
    }

    void darkThemeRecoloursPlots() {
        MainWindow w;
        w.setTheme(MainWindow::Theme::Dark);
        QCustomPlot* plot = w.comparePage()->auBars();
        QTRY_VERIFY_WITH_TIMEOUT(plot->toPixmap(200, 150).toImage().pixelColor(2, 2).lightness() < 80, testsupport::kHangMs);
        QVERIFY(plot->xAxis->tickLabelColor().lightness() > 170);
        w.setTheme(MainWindow::Theme::Light);
        QTRY_VERIFY_WITH_TIMEOUT(plot->toPixmap(200, 150).toImage().pixelColor(2, 2).lightness() > 170, testsupport::kHangMs);
        QVERIFY(plot->xAxis->tickLabelColor().lightness() < 80);
    }

    void reportCommandLine() {
        auto parse = [](QStringList a) { return parseGuiArguments(a); };
        QVERIFY(!parse({QStringLiteral("--report"), QStringLiteral("--output"), QStringLiteral("x.pdf")}).error.isEmpty());
        QVERIFY(!parse({QStringLiteral("--report"), fixture_}).error.isEmpty());
        QVERIFY(parse({QStringLiteral("--report"), QStringLiteral("/nonexistent"), QStringLiteral("--output"), QStringLiteral("x.pdf")})
                    .error.contains(QStringLiteral("no such")));
        const GuiArguments ok = parse({QStringLiteral("--report"), fixture_, QStringLiteral("--output"), QStringLiteral("x.pdf")});
        QVERIFY2(ok.error.isEmpty(), qPrintable(ok.error));
        QCOMPARE(ok.mode, GuiArguments::Mode::Report);
        QCOMPARE(ok.paths, QStringList{fixture_});
        QCOMPARE(ok.output, QStringLiteral("x.pdf"));
        QCOMPARE(parse({}).mode, GuiArguments::Mode::Window);
        QVERIFY(!parse({QStringLiteral("--bogus")}).error.isEmpty());
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
