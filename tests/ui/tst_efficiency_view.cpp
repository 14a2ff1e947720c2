// Efficiency where people decide (issue 33): Read GiB/s per usable TiB, per kW and per rack unit in the
// Results library's Efficiency column, Compare's Efficiency column and the report (the comparison's item cell,
// the item's detail with each figure's source). Two systems: the published SAMSUNG MEMORY_AE (its systems file
// gives 16 TiB, 0.8 kW, 1 U) and the same runs elsewhere, described by the user in the label editor (7150 GiB,
// 0.45 kW, 2 U). Expected text worked out by hand from the runs' train_io_mean_MB_per_second:
// mean(27229.60585699703, 27234.535341052324, 27238.67337436259, 27224.981638261324, 27231.990955893933) / 1024
// = 26.5937 GiB/s; ÷ 16 = 1.66, ÷ 0.8 = 33.2, ÷ 1 = 26.6; ÷ (7150 / 1024) = 3.81, ÷ 0.45 = 59.1, ÷ 2 = 13.3.
#ifndef Q_MOC_RUN
#include "gui_test_support.h"
#include "testsupport.h"

#include "library/compare_page.h"
#include "library/label_dialog.h"
#include "library/results_library_loader.h"
#include "main_window.h"
#include "models/compare_table_model.h"
#include "models/results_tree_model.h"
#include "report/report_writer.h"
#include "report_pdf_support.h"
#include "store/labels.h"
#endif

#include <QLineEdit>
#include <QRegularExpression>
#include <QTest>

using namespace trainio;
using namespace trainio::ui;

namespace {

const QString kSamsung = QStringLiteral(TRAINIO_TEST_DATA "/mlperf-storage-v3.0/closed/SAMSUNG");
const QString kPublishedText = QStringLiteral("1.66/TiB · 33.2/kW · 26.6/U");
const QString kLabelledText = QStringLiteral("3.81/TiB · 59.1/kW · 13.3/U");

} // namespace

class TestEfficiencyView : public QObject {
    Q_OBJECT
    uitest::TestFolders dirs_;
    QString root_, labelled_;

    // The library's training benchmark rows (an index in column 0 each), by folder.
    QMap<QString, QModelIndex> trainingRows(ResultsTreeModel* model) {
        QMap<QString, QModelIndex> out;
        const auto found = model->match(model->index(0, 0), ResultsTreeModel::NodeKindRole, static_cast<int>(aggregate::NodeKind::Benchmark), -1,
                                        Qt::MatchExactly | Qt::MatchRecursive);
        for (const QModelIndex& i : found) {
            const QString path = model->data(i, ResultsTreeModel::PathRole).toString();
            if (path.contains(QLatin1String("/training/")) || path.startsWith(labelled_)) out[path] = i;
        }
        return out;
    }

private slots:
    void initTestCase() {
        QVERIFY(dirs_.work.isValid());
        root_ = dirs_.work.filePath(QStringLiteral("results"));
        QVERIFY(uitest::copyTree(kSamsung, root_ + QStringLiteral("/SAMSUNG")));
        labelled_ = root_ + QStringLiteral("/lab/unet3d");
        QVERIFY(uitest::copyTree(kSamsung + QStringLiteral("/results/MEMORY_AE/training/unet3d"), labelled_));
    }

    // The label editor takes the three figures, refuses a bad one naming the file and the key, and writes them.
    void theLabelEditorTakesTheFigures() {
        ResultsLibraryLoader loader;
        QVERIFY(uitest::importFolder(&loader, labelled_));
        const auto lib = loader.library();
        QVERIFY(lib);
        const auto benches = lib->nodes(aggregate::NodeKind::Benchmark);
        QCOMPARE(benches.size(), std::size_t(1));
        LabelDialog dialog(*lib, *benches.front());
        for (std::size_t i = 0; i < 3; ++i) QVERIFY(dialog.figureEdit(i)->text().isEmpty());
        dialog.figureEdit(1)->setText(QStringLiteral("-0.45"));
        QString error;
        QVERIFY(!dialog.write(&error));
        QVERIFY2(error.contains(QStringLiteral("power_kw")) && error.contains(QStringLiteral("trainio_labels.json")) &&
                     error.contains(QStringLiteral("-0.45")) && error.contains(QStringLiteral("positive number")),
                 qPrintable(error));
        QVERIFY(dialog.folders().size() == 1 && !std::filesystem::exists(dialog.folders().front() / store::kLabelsFile));
        dialog.figureEdit(0)->setText(QStringLiteral("7150"));
        dialog.figureEdit(1)->setText(QStringLiteral("0.45"));
        dialog.figureEdit(2)->setText(QStringLiteral("2"));
        QVERIFY2(dialog.write(&error), qPrintable(error));
        const auto back = store::readLabelsFile(dialog.folders().front());
        QVERIFY(back && back->figures.usableCapacityGiB.value && back->figures.powerKw.value && back->figures.rackUnits.value);
        QCOMPARE(*back->figures.usableCapacityGiB.value, 7150.0);
        QCOMPARE(*back->figures.powerKw.value, 0.45);
        QCOMPARE(*back->figures.rackUnits.value, 2.0);
    }

    void theLibraryAndCompareShowTheEfficiency() {
        QSettings().clear();
        QSettings().setValue(QStringLiteral("ui/quickStartShown"), true);
        MainWindow w;
        QVERIFY(uitest::importFolder(w.libraryLoader(), root_));
        ResultsTreeModel* model = w.resultsModel();
        const QMap<QString, QModelIndex> rows = trainingRows(model);
        QCOMPARE(rows.size(), 2);
        for (auto it = rows.begin(); it != rows.end(); ++it) {
            const QModelIndex cell = it.value().siblingAtColumn(ResultsTreeModel::EfficiencyColumn);
            const QString tip = model->data(cell, Qt::ToolTipRole).toString();
            const bool byLabel = it.key().startsWith(labelled_);
            QCOMPARE(model->data(cell).toString(), byLabel ? kLabelledText : kPublishedText);
            // Each figure with where it came from.
            QVERIFY2(tip.contains(byLabel ? QStringLiteral("power 0.450 kW, from ") : QStringLiteral("power 0.800 kW, from ")), qPrintable(tip));
            QVERIFY2(tip.contains(byLabel ? QStringLiteral("trainio_labels.json: power_kw") : QStringLiteral("MEMORY_AE.yaml")), qPrintable(tip));
        }
        QCOMPARE(model->headerData(ResultsTreeModel::EfficiencyColumn, Qt::Horizontal).toString(), QStringLiteral("Efficiency (GiB/s per)"));

        // Compare: each item's own efficiency in its column, the sources in the tooltip.
        for (const QModelIndex& row : rows) QVERIFY(model->setData(row, Qt::Checked, Qt::CheckStateRole));
        w.showPage(MainWindow::ComparePageIndex);
        CompareTableModel* table = w.comparePage()->deltaModel();
        QTRY_COMPARE_WITH_TIMEOUT(table->rowCount(), 2, testsupport::kHangMs);
        QStringList shown;
        for (int r = 0; r < table->rowCount(); ++r) shown << table->index(r, CompareTableModel::EfficiencyColumn).data().toString();
        shown.sort();
        QCOMPARE(shown, (QStringList{kPublishedText, kLabelledText}));
        QVERIFY(table->headerData(CompareTableModel::EfficiencyColumn, Qt::Horizontal).toString().startsWith(QStringLiteral("Efficiency")));
        QVERIFY(table->index(0, CompareTableModel::EfficiencyColumn).data(Qt::ToolTipRole).toString().contains(QStringLiteral("usable capacity")));
    }

    void theReportShowsTheEfficiency() {
        ReportRequest request;
        // The organisation's folder: its systems file is read only inside the imported tree.
        request.paths = {(root_ + QStringLiteral("/SAMSUNG")).toStdString(), labelled_.toStdString()};
        request.options.title = QStringLiteral("Efficiency");
        const QString pdf = dirs_.work.filePath(QStringLiteral("efficiency.pdf"));
        QString error;
        QVERIFY2(writeReportPdf(request, pdf, &error), qPrintable(error));
        const reporttest::PdfText text = reporttest::pdfText(pdf);
        if (text.spaced.isEmpty()) QSKIP("pdftotext (poppler-utils) is not installed: the report's text cannot be read back");
        // The comparison's item cells (cells wrap: read without white space), once each.
        auto squeezed = [](QString s) { return s.remove(QRegularExpression(QStringLiteral("[\\s-]"))); };
        QCOMPARE(text.squeezed.count(squeezed(QStringLiteral("efficiency (GiB/s per): ") + kPublishedText)), 1);
        QCOMPARE(text.squeezed.count(squeezed(QStringLiteral("efficiency (GiB/s per): ") + kLabelledText)), 1);
        // The items' detail: the efficiency, then each figure with its source.
        for (const QString& words : {QStringLiteral("Efficiency 1.66 GiB/s per usable TiB · 33.2 GiB/s per kW · 26.6 GiB/s per U"),
                                     QStringLiteral("Efficiency 3.81 GiB/s per usable TiB · 59.1 GiB/s per kW · 13.3 GiB/s per U"),
                                     QStringLiteral("usable capacity 7150 GiB (6.98 TiB), from"), QStringLiteral("trainio_labels.json: rack_units"),
                                     QStringLiteral("rack units 2 U, from"),
                                     QStringLiteral("MEMORY_AE.yaml: system_under_test.solution.usable_capacity_tib × 1024")})
            QVERIFY2(text.hasIdentifier(words), qPrintable(words + QStringLiteral(" not in: ") + text.spaced.left(3000)));
    }
};

QTEST_MAIN(TestEfficiencyView)
#include "tst_efficiency_view.moc"
