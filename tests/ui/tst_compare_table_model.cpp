// The Compare page's item model (ui/models/compare_table_model) on a hand-made compare() result: its
// cells and headers, the rows whose delta columns hold one statement, and a sort by any column that
// keeps each row's item number, its statement and a selection on it.
// moc (Qt 6.4) cannot parse <compare>/<concepts>, which core's aggregate headers pull in.
#ifndef Q_MOC_RUN
#include "models/compare_table_model.h"
#endif

#include <QAbstractItemModelTester>
#include <QItemSelectionModel>
#include <QLocale>
#include <QTest>

#include <cmath>

using namespace trainio;
using namespace trainio::ui;
using Model = CompareTableModel;

namespace {

aggregate::CompareMetric metric(const char* unit, double mean, double stdev, std::size_t n) {
    aggregate::CompareMetric m;
    m.unit = unit;
    m.value.n = n;
    m.value.mean = mean;
    m.value.stdev = stdev;
    m.value.ci95 = {mean - 1, mean + 1, 1, "t"};
    return m;
}

aggregate::CompareRow row(const char* label, double au, double samples) {
    aggregate::CompareRow r;
    r.label = label;
    r.metrics = {metric("%", au, 0.5, 5), metric("samples/s", samples, 2, 5), metric("GiB/s", samples / 1000, 0.001, 5),
                 metric("MiB/s", samples / 1000 * 1024, 1, 5)};
    return r;
}

void withDelta(aggregate::CompareRow& r, const aggregate::CompareRow& base) {
    for (std::size_t m = 0; m < r.metrics.size(); ++m) {
        aggregate::MetricDelta d;
        d.absolute = r.metrics[m].value.mean - base.metrics[m].value.mean;
        d.percent = 100 * d.absolute / base.metrics[m].value.mean;
        d.ci95 = {d.absolute - 1, d.absolute + 1, 1, "welch"};
        d.withinNoise = std::abs(d.absolute) <= 1;
        r.metrics[m].delta = d;
    }
}

// Three items: the baseline (AU 90 %), a better one (AU 95 %) and one of another workload (AU 50 %,
// values hidden).
aggregate::CompareResult threeItems() {
    aggregate::CompareResult result;
    result.rows.push_back(row("lab · unet3d · base", 90, 100));
    result.rows[0].baseline = true;
    result.rows.push_back(row("lab · unet3d · better", 95, 130));
    withDelta(result.rows[1], result.rows[0]);
    result.rows.push_back(row("lab · resnet50 · other", 50, 900));
    result.rows[2].comparable = false;
    result.rows[2].valuesShown = false;
    result.rows[2].reason = "another workload: resnet50 vs unet3d";
    return result;
}

QString text(const Model& m, int row, int column) { return m.index(row, column).data().toString(); }

} // namespace

class TestCompareTableModel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }

    void cellsHeadersAndStatements() {
        Model model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setResult(threeItems(), QStringLiteral("runs"), {});
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.columnCount(), int(Model::ColumnCount));
        QCOMPARE(text(model, 1, Model::ItemColumn), QStringLiteral("lab · unet3d · better"));
        QCOMPARE(text(model, 1, Model::ValueColumn), QStringLiteral("95.00 ± 0.50"));
        QCOMPARE(text(model, 1, Model::ValueColumn + 1), QStringLiteral("130.0 ± 2.0"));
        QCOMPARE(text(model, 1, Model::CountColumn), QStringLiteral("5"));
        // +5 AU points, +5.6 % of the baseline's 90; 130 − 100 samples/s = +30.0, +30.0 %.
        QCOMPARE(text(model, 1, Model::DeltaColumn), QStringLiteral("+5.00 points\n(+5.6 %)"));
        QCOMPARE(text(model, 1, Model::DeltaColumn + 1), QStringLiteral("+30.0 samples/s\n(+30.0 %)"));
        QCOMPARE(text(model, 1, Model::CiColumn), QStringLiteral("[+4.00, +6.00] points"));
        QCOMPARE(text(model, 0, Model::DeltaColumn), QStringLiteral("baseline"));
        QVERIFY(text(model, 2, Model::DeltaColumn).startsWith(QStringLiteral("not comparable: another workload")));
        QCOMPARE(text(model, 2, Model::ValueColumn), QStringLiteral("—"));
        QVERIFY(model.spansDeltas(0) && !model.spansDeltas(1) && model.spansDeltas(2));
        QVERIFY(model.headerData(Model::ValueColumn, Qt::Horizontal).toString().contains(QStringLiteral("mean ± sd\nover runs")));
        QVERIFY(model.headerData(Model::CiColumn, Qt::Horizontal).toString().contains(QStringLiteral("Welch")));
        QVERIFY(model.index(0, Model::ItemColumn).data(Qt::FontRole).value<QFont>().bold()); // the baseline
    }

    // A row whose mean is over several runs says their spread under mean ± sd: lowest to highest.
    void valuesSayTheirRunsSpread() {
        aggregate::CompareResult result = threeItems();
        result.rows[1].metrics[0].value.values = {94.31, 95.6, 95.02};
        result.rows[1].replication = "runs";
        result.rows[0].metrics[0].value.values = {90.5};
        Model model;
        model.setResult(result, QStringLiteral("runs"), {});
        QCOMPARE(text(model, 1, Model::ValueColumn), QStringLiteral("95.00 ± 0.50\nruns 94.31–95.60"));
        QCOMPARE(text(model, 0, Model::ValueColumn), QStringLiteral("90.00 ± 0.50")); // one value: no spread
        QVERIFY(model.index(1, Model::ValueColumn).data(Qt::ToolTipRole).toString().contains(QStringLiteral("lowest and the highest")));
    }

    void sortKeepsItemNumbersStatementsAndSelection() {
        Model model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setResult(threeItems(), QStringLiteral("runs"), {});
        QItemSelectionModel selection(&model);
        selection.select(model.index(0, Model::ItemColumn), QItemSelectionModel::Select | QItemSelectionModel::Rows);

        // By AU, highest first: better (95), base (90); the hidden value ("—") last.
        model.sort(Model::ValueColumn, Qt::DescendingOrder);
        QCOMPARE(text(model, 0, Model::ItemColumn), QStringLiteral("lab · unet3d · better"));
        QCOMPARE(text(model, 1, Model::ItemColumn), QStringLiteral("lab · unet3d · base"));
        QCOMPARE(text(model, 2, Model::ItemColumn), QStringLiteral("lab · resnet50 · other"));
        QCOMPARE(model.index(0, Model::IndexColumn).data().toString(), QStringLiteral("2")); // its number stays
        QCOMPARE(model.index(0, 0).data(Model::ItemNumberRole).toInt(), 2);
        QVERIFY(!model.spansDeltas(0) && model.spansDeltas(1) && model.spansDeltas(2));
        QCOMPARE(model.rowOfItem(0), 1);
        QCOMPARE(model.itemOfRow(0), 1);
        // The selection followed the baseline's row.
        QVERIFY(selection.isRowSelected(1, {}));
        QVERIFY(!selection.isRowSelected(0, {}));

        // Ascending: the "—" still last.
        model.sort(Model::ValueColumn, Qt::AscendingOrder);
        QCOMPARE(text(model, 0, Model::ItemColumn), QStringLiteral("lab · unet3d · base"));
        QCOMPARE(text(model, 2, Model::ItemColumn), QStringLiteral("lab · resnet50 · other"));
        // By name.
        model.sort(Model::ItemColumn, Qt::AscendingOrder);
        QCOMPARE(text(model, 0, Model::ItemColumn), QStringLiteral("lab · resnet50 · other"));
        // A new result keeps the user's order.
        model.setResult(threeItems(), QStringLiteral("runs"), {});
        QCOMPARE(text(model, 0, Model::ItemColumn), QStringLiteral("lab · resnet50 · other"));
        QCOMPARE(model.index(0, Model::IndexColumn).data().toString(), QStringLiteral("3"));
    }
};

QTEST_MAIN(TestCompareTableModel)
#include "tst_compare_table_model.moc"
