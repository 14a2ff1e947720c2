// MLCommons' table in the Results library (issue 33): a folder holding a results.csv in mlpstorage reportgen's
// schema imports through the GUI's loader, as a user adds a folder; each row is a benchmark with no runs below it,
// showing the row's figures. The table is the one `trainio-cli aggregate … --format mlcommons` writes for the
// published SAMSUNG MEMORY_AE v3.0 results: its training row's Read B/W worked out by hand from the runs'
// train_io_mean_MB_per_second: mean(27229.60585699703, 27234.535341052324, 27238.67337436259,
// 27224.981638261324, 27231.990955893933) / 1024 = 26.5937 GiB/s, 5 accelerators.
#ifndef Q_MOC_RUN
#include "gui_test_support.h"
#include "testsupport.h"

#include "library/results_library_loader.h"
#include "main_window.h"
#include "models/results_tree_model.h"
#endif

#include <QTest>

using namespace trainio;
using namespace trainio::ui;

class TestMlcommonsTableView : public QObject {
    Q_OBJECT
    uitest::TestFolders dirs_;

private slots:
    void theLibraryShowsTableRows() {
        QVERIFY(dirs_.work.isValid());
        const QString folder = dirs_.work.filePath(QStringLiteral("published"));
        QVERIFY(QDir().mkpath(folder));
        const auto exported = testsupport::runCli({QStringLiteral("aggregate"),
                                                   QStringLiteral(TRAINIO_TEST_DATA "/mlperf-storage-v3.0/closed/SAMSUNG"),
                                                   QStringLiteral("--format"), QStringLiteral("mlcommons")});
        QCOMPARE(exported.exitCode, 0);
        testsupport::writeText((folder + QStringLiteral("/results.csv")).toStdString(), exported.out.toStdString());

        QSettings().clear();
        QSettings().setValue(QStringLiteral("ui/quickStartShown"), true);
        MainWindow w;
        QVERIFY(uitest::importFolder(w.libraryLoader(), folder));
        ResultsTreeModel* model = w.resultsModel();
        const auto found = model->match(model->index(0, 0), ResultsTreeModel::NodeKindRole, static_cast<int>(aggregate::NodeKind::Benchmark), -1,
                                        Qt::MatchExactly | Qt::MatchRecursive);
        QCOMPARE(found.size(), 2); // the training row and the checkpointing row
        const double mib[] = {27229.60585699703, 27234.535341052324, 27238.67337436259, 27224.981638261324, 27231.990955893933};
        const double gib = (mib[0] + mib[1] + mib[2] + mib[3] + mib[4]) / 5.0 / 1024.0;
        int training = 0;
        for (const QModelIndex& i : found) {
            QVERIFY(model->data(i).toString().contains(QStringLiteral("table row")));
            QCOMPARE(model->rowCount(i), 0); // no runs below a table row
            QVERIFY(model->data(i, ResultsTreeModel::PathRole).toString().endsWith(QStringLiteral("results.csv")));
            const QModelIndex g = i.siblingAtColumn(ResultsTreeModel::GibColumn);
            if (model->data(g, ResultsTreeModel::MeanRole).isValid() && std::isfinite(model->data(g, ResultsTreeModel::MeanRole).toDouble()) &&
                model->data(g).toString() != QStringLiteral("—")) {
                ++training;
                QVERIFY(std::fabs(model->data(g, ResultsTreeModel::MeanRole).toDouble() - gib) < 1e-9);
                QCOMPARE(model->data(i.siblingAtColumn(ResultsTreeModel::CountColumn)).toString(), QStringLiteral("table row")); // not "5 runs"
                QCOMPARE(model->data(i.siblingAtColumn(ResultsTreeModel::AuColumn)).toString(), QStringLiteral("—")); // no AU in the table
            }
        }
        QCOMPARE(training, 1);
    }
};

QTEST_MAIN(TestMlcommonsTableView)
#include "tst_mlcommons_table_view.moc"
