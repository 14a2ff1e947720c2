// The Compare page on the published MLPerf Storage v1.0 results: a row of another workload says why it
// is not comparable in place of its deltas (and shows no values unless "compare anyway"); per
// accelerator is on by default when accelerator counts differ and the user's choice wins; the delta's
// 95 % CI (Welch) is a column centred on the difference of the means; bars are labelled with the items'
// names and start at zero; an exported plot carries its own title, legend and units.
// moc (Qt 6.4) cannot parse <compare>/<concepts>, which core's aggregate headers pull in.
#ifndef Q_MOC_RUN
#include "library/compare_items.h"
#include "library/compare_page.h"
#include "gui_test_support.h"
#include "plots/plot_export.h"
#include "testsupport.h"

#include "aggregate/results_import.h"
#endif

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QFile>
#include <QHeaderView>
#include <QScrollArea>
#include <QTableView>
#include <QVBoxLayout>
#include <QTest>

#include <cmath>

using namespace trainio;
using namespace trainio::ui;
using aggregate::LibraryNode;
using aggregate::NodeKind;

namespace {

const QString kJuice = QStringLiteral(TRAINIO_TEST_DATA "/mlperf-storage-v1.0/Closed/Juicedata/results/JuiceFS-cloud-nvme-distributed-cache");

// The benchmark node whose runs live in `folder` (a benchmark's path may be the folder or one below it).
const LibraryNode* benchmarkIn(const aggregate::ResultsLibrary& lib, const QString& folder) {
    const std::string want = folder.toStdString();
    for (const LibraryNode* n : lib.nodes(NodeKind::Benchmark)) {
        const std::string p = n->path.string();
        if (p == want || p.rfind(want + "/", 0) == 0) return n;
    }
    return nullptr;
}

// "[+1.5, +2.25]  within noise" → {1.5, 2.25}; the page writes numbers in the C locale here.
std::pair<double, double> bounds(QString text) {
    text = text.section(QLatin1Char(']'), 0, 0).mid(1);
    const QStringList parts = text.split(QStringLiteral(", "));
    if (parts.size() != 2) return {NAN, NAN};
    return {QLocale().toDouble(parts[0]), QLocale().toDouble(parts[1])};
}

// A cell of a view's model as the user reads it (display text unless another role is asked).
QString cellText(const QAbstractItemView* view, int row, int column, int role = Qt::DisplayRole) {
    return view->model()->index(row, column).data(role).toString();
}

QString headerText(const QTableView* view, int column) { return view->model()->headerData(column, Qt::Horizontal).toString(); }

// A tiny DLIO workload (16 files of 64 KiB, 2 epochs) that `trainio-cli benchmark` runs in seconds.
const char* kTinyConfig = "model:\n  name: tinycompare\nframework: pytorch\nworkflow:\n  generate_data: False\n"
                          "  train: True\ndataset:\n  data_folder: %1\n  format: npz\n  num_files_train: 16\n"
                          "  num_samples_per_file: 1\n  record_length_bytes: 65536\nreader:\n  data_loader: pytorch\n"
                          "  batch_size: 2\n  read_threads: 2\ntrain:\n  epochs: 2\n  computation_time: 0.002\nmetric:\n  au: 0.5\n";

QList<QCPBars*> barsOf(QCustomPlot* p) {
    QList<QCPBars*> out;
    for (int i = 0; i < p->plottableCount(); ++i)
        if (auto* b = qobject_cast<QCPBars*>(p->plottable(i))) out << b;
    return out;
}

} // namespace

class TestComparePage : public QObject {
    Q_OBJECT
    QTemporaryDir settingsDir_;
    std::shared_ptr<const aggregate::ResultsLibrary> lib_;
    const LibraryNode* unet1_ = nullptr;  // unet3d_h100, 1 accelerator
    const LibraryNode* unet2_ = nullptr;  // unet3d_h100, 2 accelerators
    const LibraryNode* resnet_ = nullptr; // resnet50_h100, 10 accelerators

    void show(ComparePage& page, const std::vector<const LibraryNode*>& nodes) {
        page.setItems(lib_, compareItems(*lib_, nodes));
    }

private slots:
    void initTestCase() {
        uitest::isolateSettings(settingsDir_);
        QLocale::setDefault(QLocale::c());
        lib_ = std::make_shared<aggregate::ResultsLibrary>(
            aggregate::importResults({std::filesystem::path(TRAINIO_TEST_DATA "/mlperf-storage-v1.0")}));
        unet1_ = benchmarkIn(*lib_, kJuice + QStringLiteral("/unet3d-1acc"));
        unet2_ = benchmarkIn(*lib_, kJuice + QStringLiteral("/unet3d-2acc"));
        resnet_ = benchmarkIn(*lib_, kJuice + QStringLiteral("/resnet50-10acc"));
        QVERIFY(unet1_ && unet2_ && resnet_);
        // What the fixture's overrides say (workload=unet3d_h100 with 1 and 2 accelerators, 5 runs each).
        QCOMPARE(unet1_->accelerators, 1);
        QCOMPARE(unet2_->accelerators, 2);
        QCOMPARE(unet1_->au.values.size(), std::size_t(5));
    }

    void crossWorkloadRowSaysWhyAndHasNoDelta() {
        ComparePage page;
        show(page, {unet1_, resnet_});
        QTableView* t = page.deltaTable();
        QCOMPARE(t->model()->rowCount(), 2);
        QCOMPARE(cellText(t, 1, ComparePage::ItemColumn), QString::fromStdString(resnet_->itemName));
        const QString why = cellText(t, 1, ComparePage::DeltaColumn);
        QVERIFY2(why.startsWith(QStringLiteral("not comparable: ")), qPrintable(why));
        QVERIFY2(why.contains(QStringLiteral("resnet50")) && why.contains(QStringLiteral("unet3d")), qPrintable(why));
        // The reason replaces every delta and CI cell of the row; the values are hidden too.
        QCOMPARE(t->columnSpan(1, ComparePage::DeltaColumn), ComparePage::ColumnCount - ComparePage::DeltaColumn);
        for (int m = 0; m < 3; ++m) QCOMPARE(cellText(t, 1, ComparePage::ValueColumn + m), QStringLiteral("—"));
        QCOMPARE(barsOf(page.samplesBars()).size(), 1); // the baseline's bar only

        // Compare anyway: the values appear, the deltas do not.
        page.compareAnywayToggle()->setChecked(true);
        QVERIFY(cellText(t, 1, ComparePage::ValueColumn + 1).contains(QStringLiteral(" ± ")));
        QVERIFY(cellText(t, 1, ComparePage::DeltaColumn).startsWith(QStringLiteral("not comparable: ")));
        QCOMPARE(barsOf(page.samplesBars()).size(), 2);
    }

    void perAcceleratorIsOnWhenCountsDifferAndTheUserWins() {
        ComparePage page;
        show(page, {unet1_, unet2_});
        QVERIFY(page.perAcceleratorToggle()->isChecked());
        QVERIFY(headerText(page.deltaTable(), ComparePage::ValueColumn + 1).contains(QStringLiteral("per accelerator")));
        // 2 accelerators: the row shows the benchmark's mean over its runs halved.
        const double expected = testsupport::meanOf(unet2_->samplesPerSecond.values) / 2.0;
        const double shown = QLocale().toDouble(cellText(page.deltaTable(), 1, ComparePage::ValueColumn + 1).section(QStringLiteral(" ± "), 0, 0));
        QVERIFY2(std::abs(shown - expected) <= 0.05 + 1e-9, qPrintable(QStringLiteral("%1 vs %2").arg(shown).arg(expected)));

        QTest::mouseClick(page.perAcceleratorToggle(), Qt::LeftButton);
        QVERIFY(!page.perAcceleratorToggle()->isChecked());
        const double total = QLocale().toDouble(cellText(page.deltaTable(), 1, ComparePage::ValueColumn + 1).section(QStringLiteral(" ± "), 0, 0));
        QVERIFY(std::abs(total - testsupport::meanOf(unet2_->samplesPerSecond.values)) <= 0.05 + 1e-9);
        show(page, {unet2_, unet1_}); // new items: the user's "off" stays
        QVERIFY(!page.perAcceleratorToggle()->isChecked());
    }

    void welchCiColumnIsCentredOnTheDifference() {
        ComparePage page;
        show(page, {unet1_, unet2_});
        QTableView* t = page.deltaTable();
        QVERIFY(headerText(t, ComparePage::CiColumn).contains(QStringLiteral("Welch")));
        QVERIFY(headerText(t, ComparePage::ValueColumn).contains(QStringLiteral("mean ± sd\nover runs")));
        QCOMPARE(cellText(t, 0, ComparePage::DeltaColumn), QStringLiteral("baseline"));
        // AU is never divided per accelerator: the CI's centre is the difference of the run means.
        const QString ci = cellText(t, 1, ComparePage::CiColumn);
        const auto [low, high] = bounds(ci);
        const double diff = testsupport::meanOf(unet2_->au.values) - testsupport::meanOf(unet1_->au.values);
        QVERIFY2(std::isfinite(low) && low < high, qPrintable(ci));
        QVERIFY2(std::abs((low + high) / 2 - diff) <= 0.011, qPrintable(QStringLiteral("%1, difference %2").arg(ci).arg(diff)));
        QCOMPARE(ci.contains(QStringLiteral("within noise")), low <= 0 && high >= 0);
        const double pct = 100.0 * diff / testsupport::meanOf(unet1_->au.values);
        // "+1.20 points\n(+1.3 %)": the difference in AU points, then relative to the baseline (issue 21).
        const QString deltaText = cellText(t, 1, ComparePage::DeltaColumn);
        QVERIFY2(std::abs(QLocale().toDouble(deltaText.section(QLatin1Char(' '), 0, 0)) - diff) <= 0.0051, qPrintable(deltaText));
        QVERIFY2(deltaText.section(QLatin1Char(' '), 1, 1).startsWith(QStringLiteral("points")), qPrintable(deltaText));
        const QString relative = deltaText.section(QLatin1Char('('), 1).section(QLatin1Char(' '), 0, 0);
        QVERIFY2(std::abs(QLocale().toDouble(relative) - pct) <= 0.051, qPrintable(deltaText));
        QVERIFY2(ci.contains(QStringLiteral("] points")), qPrintable(ci));

        // An item against itself: a difference of 0, within noise.
        show(page, {unet1_, unet1_});
        QVERIFY(cellText(t, 1, ComparePage::CiColumn).contains(QStringLiteral("within noise")));
    }

    // The noise floor (issue 33): each row shows its runs' spread, lowest to highest, beside mean ± sd, and
    // the bar plot each run as a dot — the runs' AU read here from their own summary.json files.
    void everyRowShowsItsRunToRunSpread() {
        std::vector<double> au;
        for (int run = 1; run <= 5; ++run) {
            QFile f(kJuice + QStringLiteral("/unet3d-1acc/run%1/summary.json").arg(run));
            QVERIFY(f.open(QIODevice::ReadOnly));
            au.push_back(QJsonDocument::fromJson(f.readAll()).object()[QStringLiteral("metric")].toObject()[QStringLiteral("train_au_mean_percentage")].toDouble());
        }
        const auto [low, high] = std::minmax_element(au.begin(), au.end());
        ComparePage page;
        show(page, {unet1_, unet2_});
        const QString cell = cellText(page.deltaTable(), 0, ComparePage::ValueColumn);
        QVERIFY2(cell.endsWith(QStringLiteral("\nruns %1–%2").arg(*low, 0, 'f', 2).arg(*high, 0, 'f', 2)), qPrintable(cell));
        std::vector<double> dots;
        QCustomPlot* p = page.auBars();
        for (int i = 0; i < p->graphCount(); ++i)
            for (auto it = p->graph(i)->data()->constBegin(); it != p->graph(i)->data()->constEnd(); ++it)
                if (std::abs(it->key - 1.2) < 1e-9) dots.push_back(it->value);
        std::sort(dots.begin(), dots.end());
        std::sort(au.begin(), au.end());
        QCOMPARE(dots.size(), au.size());
        for (std::size_t i = 0; i < au.size(); ++i) QVERIFY(std::abs(dots[i] - au[i]) < 1e-9);
    }

    // Issue 21: every delta says its unit — AU in points, the others in theirs — and its share of the
    // baseline in %; the CI too.
    void everyDeltaHasItsUnit() {
        ComparePage page;
        show(page, {unet1_, unet2_});
        QTableView* t = page.deltaTable();
        const QString units[] = {QStringLiteral("points"), QStringLiteral("samples/s"), QStringLiteral("GiB/s"), QStringLiteral("MiB/s")};
        QVERIFY(headerText(t, ComparePage::DeltaColumn).contains(QStringLiteral("% of baseline")));
        for (int m = 0; m < 4; ++m) {
            const QString delta = cellText(t, 1, ComparePage::DeltaColumn + m);
            const QString ci = cellText(t, 1, ComparePage::CiColumn + m);
            // (samples/s etc. may say "per accelerator": the unit core gives, whatever follows it.)
            QVERIFY2(delta.section(QLatin1Char('\n'), 0, 0).section(QLatin1Char(' '), 1).startsWith(units[m]), qPrintable(delta));
            QVERIFY2(delta.section(QLatin1Char('\n'), 1).startsWith(QLatin1Char('(')) && delta.endsWith(QStringLiteral(" %)")), qPrintable(delta));
            QVERIFY2(ci.section(QLatin1Char('\n'), 0, 0).section(QStringLiteral("] "), 1).startsWith(units[m]), qPrintable(ci));
            QVERIFY2(headerText(t, ComparePage::DeltaColumn + m).contains(units[m]),
                     qPrintable(headerText(t, ComparePage::DeltaColumn + m)));
        }
    }

    // Issue 21: twenty items and more. The legend names every one but scrolls instead of growing: the
    // table keeps its room (rows in view) and the window does not grow past the screen.
    void manyItemsKeepTheTableAndTheWindow() {
        std::vector<const LibraryNode*> nodes;
        for (const LibraryNode* n : lib_->nodes(NodeKind::Benchmark)) nodes.push_back(n);
        QVERIFY2(nodes.size() >= 20, qPrintable(QString::number(nodes.size())));
        QWidget window;
        auto* layout = new QVBoxLayout(&window);
        auto* page = new ComparePage(&window);
        layout->addWidget(page);
        window.resize(1280, 720);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        show(*page, {});
        QTest::qWait(50);
        const QSize before = window.size();
        show(*page, nodes);
        QTest::qWait(100);
        QCOMPARE(window.size(), before);
        QVERIFY(window.minimumSizeHint().height() <= 720);
        QTableView* t = page->deltaTable();
        QCOMPARE(t->model()->rowCount(), static_cast<int>(nodes.size()));
        // The table's viewport shows at least two full rows (it scrolls for the rest).
        QVERIFY2(t->viewport()->height() >= 2 * t->rowHeight(0) && t->viewport()->height() >= 60,
                 qPrintable(QStringLiteral("table viewport %1 px, first row %2 px").arg(t->viewport()->height()).arg(t->rowHeight(0))));
        auto* legend = page->findChild<QLabel*>(QStringLiteral("compareLegend"));
        auto* scroll = page->findChild<QScrollArea*>(QStringLiteral("compareLegendScroll"));
        QVERIFY(legend && scroll);
        for (std::size_t i = 0; i < nodes.size(); ++i)
            QVERIFY2(legend->text().contains(QStringLiteral("<b>%1</b>").arg(i + 1)), qPrintable(QString::number(i + 1)));
        QVERIFY(scroll->height() < legend->heightForWidth(scroll->viewport()->width())); // it scrolls
        QVERIFY(scroll->height() <= 6 * legend->fontMetrics().lineSpacing());
        // The bars' item numbers never run together (issue 32 item 10): every labelled tick's text clear of
        // the next one's, item 1 labelled — at this width and in a narrower window (the numbers thinned again).
        for (int width : {1280, 640}) {
        window.resize(width, 720);
        QTest::qWait(50);
        for (QCustomPlot* p : {page->auBars(), page->samplesBars(), page->gibBars()}) {
            p->replot();
            auto ticker = qSharedPointerCast<QCPAxisTickerText>(p->xAxis->ticker());
            QVERIFY(ticker);
            const QFontMetrics fm(p->xAxis->tickLabelFont());
            QVERIFY(ticker->ticks().contains(1.0));
            double lastRight = -1e9;
            for (auto it = ticker->ticks().cbegin(); it != ticker->ticks().cend(); ++it) {
                const double x = p->xAxis->coordToPixel(it.key());
                const double half = fm.horizontalAdvance(it.value()) / 2.0;
                QVERIFY2(x - half >= lastRight + 2, qPrintable(QStringLiteral("%1: '%2' at %3 px runs into the label before (ends at %4 px)")
                                                                  .arg(p->objectName(), it.value()).arg(x).arg(lastRight)));
                lastRight = x + half;
            }
            QVERIFY2(ticker->ticks().size() >= 3, qPrintable(QString::number(ticker->ticks().size())));
        }
        }
    }

    // Issue 19, item 7: one of the benchmark's own invocations (its epochs) against the benchmark (its run
    // means): the Δ is shown, the CI column says they differ in kind and is neither "within noise" nor coloured
    // as a difference.
    void invocationAgainstBenchmarkDiffersInKind() {
        const LibraryNode* run = nullptr;
        for (const auto& c : unet1_->children)
            if (c->kind == aggregate::NodeKind::Invocation && c->hasMetrics && !c->warmup && !c->excluded) run = c.get();
        QVERIFY(run);
        QVERIFY(run->au.values.size() >= 2); // its epochs
        ComparePage page;
        show(page, {unet1_, run});
        QTableView* t = page.deltaTable();
        for (int m = 0; m < 3; ++m) {
            const QString ci = cellText(t, 1, ComparePage::CiColumn + m);
            QVERIFY2(ci.contains(QStringLiteral("differ in kind")) && !ci.contains(QLatin1Char('[')) && !ci.contains(QStringLiteral("noise")),
                     qPrintable(ci));
            QVERIFY(cellText(t, 1, ComparePage::CiColumn + m, Qt::ToolTipRole).contains(QStringLiteral("run means")));
            QVERIFY(cellText(t, 1, ComparePage::DeltaColumn + m).endsWith(QStringLiteral(" %)")));
        }
        show(page, {unet1_, unet2_}); // benchmark with benchmark: a CI again
        QVERIFY(cellText(t, 1, ComparePage::CiColumn).startsWith(QLatin1Char('[')));
    }

    // Issue 9 item 4: MiB/s per accelerator beside samples/s (and Read GiB/s), from the published reports.
    void mibPerAcceleratorColumn() {
        ComparePage page;
        show(page, {unet1_, unet2_});
        QTableView* t = page.deltaTable();
        const int mib = ComparePage::ValueColumn + 3;
        QVERIFY2(headerText(t, mib).contains(QStringLiteral("MiB/s\nper accelerator")),
                 qPrintable(headerText(t, mib)));
        QFile report(kJuice + QStringLiteral("/unet3d-2acc/mlperf_storage_report.json"));
        QVERIFY(report.open(QIODevice::ReadOnly));
        const double published = QJsonDocument::fromJson(report.readAll()).object()[QStringLiteral("overall")].toObject()
                                     [QStringLiteral("train_throughput_mean_MB_per_second")].toDouble();
        QVERIFY(published > 0);
        const double shown = QLocale().toDouble(cellText(t, 1, mib).section(QStringLiteral(" ± "), 0, 0));
        QVERIFY2(std::abs(shown - published / 2) <= 0.05 + 1e-9, qPrintable(QStringLiteral("%1 vs %2").arg(shown).arg(published / 2)));
        // Its delta and CI columns follow the other metrics'.
        QVERIFY(headerText(t, ComparePage::DeltaColumn + 3).contains(QStringLiteral("Bandwidth")));
        QVERIFY(cellText(t, 1, ComparePage::CiColumn + 3).startsWith(QLatin1Char('[')));
    }

    // Issue 9 item 5: two workloads MLPerf calls unet3d_h100 (146 MB and 3 MB samples) have names that say
    // what differs, as in the Results tree; the row of the other one says why it is not comparable.
    void sameNameWorkloadsAreTellable() {
        QTemporaryDir dir;
        QVERIFY(uitest::sameNameTwoWorkloads(dir.path()));
        const auto lib = std::make_shared<aggregate::ResultsLibrary>(aggregate::importResults({dir.path().toStdString()}));
        const LibraryNode* big = benchmarkIn(*lib, dir.filePath(QStringLiteral("big/unet3d_h100")));
        const LibraryNode* small = benchmarkIn(*lib, dir.filePath(QStringLiteral("small/unet3d_h100")));
        QVERIFY(big && small);
        ComparePage page;
        page.setItems(lib, compareItems(*lib, {big, small}));
        QTableView* t = page.deltaTable();
        QCOMPARE(cellText(t, 0, ComparePage::ItemColumn), QStringLiteral("lab · unet3d_h100 · 139.8 MiB/sample · 2 accelerators"));
        QCOMPARE(cellText(t, 1, ComparePage::ItemColumn), QStringLiteral("lab · unet3d_h100 · 3.0 MiB/sample · 2 accelerators"));
        const QString why = cellText(t, 1, ComparePage::DeltaColumn);
        QVERIFY2(why.contains(QStringLiteral("record length")), qPrintable(why));
        QCOMPARE(page.findChild<QComboBox*>(QStringLiteral("baseline"))->itemText(1), cellText(t, 1, ComparePage::ItemColumn));
    }

    // Issue 32 item 10: the default baseline is the user's own newest benchmark, not the first item (a
    // published result that sorts first); a baseline the user picks stays while it is among the items.
    void defaultBaselineIsTheUsersNewestBenchmark() {
        QTemporaryDir work;
        const QString cfg = work.filePath(QStringLiteral("tiny.yaml"));
        testsupport::writeText(cfg.toStdString(), QString::fromLatin1(kTinyConfig).arg(work.filePath(QStringLiteral("data"))).toStdString());
        const auto gen = testsupport::runCli({QStringLiteral("datagen"), QStringLiteral("--config"), cfg, QStringLiteral("--quiet")});
        QVERIFY2(gen.exitCode == 0, qPrintable(gen.err));
        for (const char* name : {"older", "newer"}) { // one after the other: "newer" starts later
            const auto r = testsupport::runCli({QStringLiteral("benchmark"), QStringLiteral("--config"), cfg, QStringLiteral("--output"),
                                                work.filePath(QString::fromLatin1(name)), QStringLiteral("--runs"), QStringLiteral("2"),
                                                QStringLiteral("--quiet")},
                                               300000);
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        }
        const auto lib = std::make_shared<aggregate::ResultsLibrary>(aggregate::importResults(
            {std::filesystem::path(kJuice.toStdString()), work.filePath(QStringLiteral("older")).toStdString(),
             work.filePath(QStringLiteral("newer")).toStdString()}));
        const LibraryNode* older = benchmarkIn(*lib, work.filePath(QStringLiteral("older")));
        const LibraryNode* newer = benchmarkIn(*lib, work.filePath(QStringLiteral("newer")));
        const LibraryNode* published = benchmarkIn(*lib, kJuice + QStringLiteral("/unet3d-1acc"));
        QVERIFY(older && newer && published);

        ComparePage page;
        page.resize(1280, 720);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        page.setItems(lib, compareItems(*lib, {published, older, newer}));
        auto* baseline = page.findChild<QComboBox*>(QStringLiteral("baseline"));
        QCOMPARE(baseline->currentIndex(), 2);
        QCOMPARE(cellText(page.deltaTable(), 2, ComparePage::DeltaColumn), QStringLiteral("baseline"));
        QVERIFY(cellText(page.deltaTable(), 0, ComparePage::DeltaColumn) != QStringLiteral("baseline"));
        // Other items, the newest own benchmark elsewhere: it is still the default.
        page.setItems(lib, compareItems(*lib, {newer, published, older}));
        QCOMPARE(baseline->currentIndex(), 0);

        // The user picks the older one (keys on the combo box, as a user would): it stays when items change.
        baseline->setFocus();
        QTest::keyClick(baseline, Qt::Key_Down);
        QTest::keyClick(baseline, Qt::Key_Down);
        QCOMPARE(baseline->currentText(), QString::fromStdString(older->itemName));
        page.setItems(lib, compareItems(*lib, {published, newer, older}));
        QCOMPARE(baseline->currentIndex(), 2);
        QCOMPARE(cellText(page.deltaTable(), 2, ComparePage::DeltaColumn), QStringLiteral("baseline"));
    }

    // Issue 29: the table is an item model the user sorts by clicking a header; each row keeps its item
    // number, its statement spans the delta columns wherever the row lands, and the selected row stays
    // selected.
    void clickingAHeaderSortsAndKeepsSpansAndSelection() {
        ComparePage page;
        page.resize(1280, 720);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        show(page, {unet1_, unet2_, resnet_});
        QTableView* t = page.deltaTable();
        QVERIFY(qobject_cast<CompareTableModel*>(t->model()));
        page.compareAnywayToggle()->setChecked(true);
        // Select the first row (unet3d, 1 accelerator) with a click.
        QTest::mouseClick(t->viewport(), Qt::LeftButton, {}, t->visualRect(t->model()->index(0, ComparePage::ItemColumn)).center());
        QCOMPARE(t->selectionModel()->selectedRows().size(), 1);
        // Samples/s per accelerator, one click: ascending; resnet50 (10 accelerators) and the unet3d rows by value.
        QHeaderView* header = t->horizontalHeader();
        const int samples = ComparePage::ValueColumn + 1;
        const auto valueAt = [&](int row) { return QLocale().toDouble(cellText(t, row, samples).section(QStringLiteral(" ± "), 0, 0)); };
        QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, QPoint(header->sectionViewportPosition(samples) + header->sectionSize(samples) / 2, header->height() / 2));
        const Qt::SortOrder first = header->sortIndicatorOrder();
        QCOMPARE(header->sortIndicatorSection(), samples);
        for (int r = 1; r < 3; ++r)
            QVERIFY2(first == Qt::AscendingOrder ? valueAt(r - 1) <= valueAt(r) : valueAt(r - 1) >= valueAt(r),
                     qPrintable(QStringLiteral("%1 then %2").arg(valueAt(r - 1)).arg(valueAt(r))));
        QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, QPoint(header->sectionViewportPosition(samples) + header->sectionSize(samples) / 2, header->height() / 2));
        QVERIFY(header->sortIndicatorOrder() != first);
        for (int r = 1; r < 3; ++r) QVERIFY(first == Qt::AscendingOrder ? valueAt(r - 1) >= valueAt(r) : valueAt(r - 1) <= valueAt(r));
        // Every row: its number is its item's, the statement rows span the deltas, the selection is on unet3d-1acc.
        for (int r = 0; r < 3; ++r) {
            const int item = cellText(t, r, ComparePage::IndexColumn).toInt() - 1;
            const LibraryNode* node = std::vector<const LibraryNode*>{unet1_, unet2_, resnet_}[static_cast<std::size_t>(item)];
            QCOMPARE(cellText(t, r, ComparePage::ItemColumn), QString::fromStdString(node->itemName));
            const bool statement = node != unet2_; // the baseline and the other workload
            QCOMPARE(t->columnSpan(r, ComparePage::DeltaColumn), statement ? ComparePage::ColumnCount - ComparePage::DeltaColumn : 1);
        }
        const QModelIndexList selected = t->selectionModel()->selectedRows();
        QCOMPARE(selected.size(), 1);
        QCOMPARE(cellText(t, selected.front().row(), ComparePage::ItemColumn), QString::fromStdString(unet1_->itemName));
        if (const QString shots = qEnvironmentVariable("TRAINIO_SCREENSHOT_DIR"); !shots.isEmpty()) {
            QTest::qWait(200);
            QVERIFY(page.grab().save(QDir(shots).filePath(QStringLiteral("compare-sorted.png"))));
        }
    }

    void plotsNameTheItemsAndExportTheirLabels() {
        ComparePage page;
        page.resize(1200, 900);
        show(page, {unet1_, unet2_});
        QCustomPlot* p = page.samplesBars();
        QCOMPARE(p->yAxis->range().lower, 0.0);
        // On screen one legend below the plots names every item; each plot's own legend is for exports.
        const QString shared = page.findChild<QLabel*>(QStringLiteral("compareLegend"))->text();
        for (const LibraryNode* n : {unet1_, unet2_})
            QVERIFY2(shared.contains(QString::fromStdString(n->itemName).toHtmlEscaped()), qPrintable(shared));
        QCOMPARE(p->legend->itemCount(), 2);
        QVERIFY(!p->legend->visible());
        const int rows = p->plotLayout()->rowCount(); // title, axis rect
        const QString legendText = barsOf(p).value(1)->name();
        QString flat = legendText;
        flat.replace(QStringLiteral(" ·\n"), QStringLiteral(" · "));
        QCOMPARE(flat, QStringLiteral("2  ") + QString::fromStdString(unet2_->itemName));
        QVERIFY(!p->xAxis->label().contains(QStringLiteral("see table")));

        QTemporaryDir out;
        const QString svg = out.filePath(QStringLiteral("bars.svg"));
        QString error;
        QVERIFY2(savePlot(p, svg, &error), qPrintable(error));
        QFile f(svg);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(f.readAll());
        // Self-contained: the title with its unit, and each item's name in the legend.
        QVERIFY(text.contains(QStringLiteral("Throughput")));
        QVERIFY(text.contains(QStringLiteral("samples/s per accelerator")));
        QVERIFY2(text.contains(QStringLiteral("JuiceFS-cloud-nvme-distributed-cache")), "the legend is in the file");
        QVERIFY(!p->legend->visible()); // and hidden again on screen, the layout as it was
        QCOMPARE(p->plotLayout()->rowCount(), rows);
    }
};

QTEST_MAIN(TestComparePage)
#include "tst_compare_page.moc"
