#include "library/compare_page.h"

#include "plots/plot_export.h"
#include "plots/plot_theme.h"
#include "widgets/one_line_label.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <cmath>
#include <exception>
#include <utility>

namespace trainio::ui {

using aggregate::LibraryNode;
using aggregate::NodeKind;

namespace {

// CompareRow::metrics' order: AU, samples/s, Read GiB/s, MiB/s. The table shows all four; the first three
// have bars (MiB/s is Read GiB/s × 1024, a bar of its own would repeat it).
constexpr int kBarMetrics = 3;

QString metricName(int which) { return CompareTableModel::metricName(which); }
QString defaultUnit(int which) { return CompareTableModel::defaultUnit(which); }

// Legends sit below the plot, as wide as it: long item names wrap at their " · " separators rather
// than being clipped.
QString wrapName(const QString& name, int width = 44) {
    const QStringList parts = name.split(QStringLiteral(" · "));
    QString out, line;
    for (const QString& p : parts) {
        if (!line.isEmpty() && line.size() + 3 + p.size() > width) {
            out += line + QStringLiteral(" ·\n");
            line.clear();
        }
        line += (line.isEmpty() ? QString() : QStringLiteral(" · ")) + p;
    }
    return out + line;
}

QCustomPlot* makePlot(QWidget* parent) {
    auto* p = new QCustomPlot(parent);
    p->setMinimumSize(260, 150);
    p->plotLayout()->insertRow(0);
    p->plotLayout()->addElement(0, 0, new QCPTextElement(p, QString(), QFont(parent->font().family(), parent->font().pointSize(), QFont::Bold)));
    p->legend->setFillOrder(QCPLegend::foRowsFirst);
    QFont small = parent->font();
    small.setPointSizeF(std::max(7.0, small.pointSizeF() - 1));
    p->legend->setFont(small);
    p->legend->setMargins(QMargins(6, 3, 6, 3));
    p->legend->setRowSpacing(0);
    // On screen one legend serves every plot (the page's); an exported plot shows its own, below the
    // axis rect (plot_export).
    p->legend->setVisible(false);
    p->setProperty(kExportLegendProperty, true);
    return p;
}

void setTitle(QCustomPlot* p, const QString& title) {
    if (auto* t = qobject_cast<QCPTextElement*>(p->plotLayout()->element(0, 0))) t->setText(title);
}

// "± sd over runs" names what the spread is over: a benchmark's runs, an invocation's epochs.
QString spreadOver(const std::vector<CompareItem>& items) {
    bool runs = false, epochs = false;
    for (const CompareItem& it : items) {
        if (!it.node) continue;
        if (it.node->kind == NodeKind::Benchmark) runs = true;
        else epochs = true;
    }
    if (runs && epochs) return QObject::tr("runs / epochs");
    return epochs ? QObject::tr("epochs") : QObject::tr("runs");
}

} // namespace

ComparePage::ComparePage(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Baseline:"), this));
    baseline_ = new QComboBox(this);
    baseline_->setObjectName(QStringLiteral("baseline"));
    baseline_->setMinimumContentsLength(36);
    baseline_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    bar->addWidget(baseline_);
    bar->addSpacing(12);
    perAccelerator_ = new QCheckBox(tr("Per accelerator"), this);
    perAccelerator_->setObjectName(QStringLiteral("perAccelerator"));
    perAccelerator_->setToolTip(tr("Samples/s, GiB/s and MiB/s divided by each item's accelerator count (AU is never divided). "
                                   "On by default when the items' accelerator counts differ."));
    bar->addWidget(perAccelerator_);
    compareAnyway_ = new QCheckBox(tr("Compare anyway"), this);
    compareAnyway_->setObjectName(QStringLiteral("compareAnyway"));
    compareAnyway_->setToolTip(tr("Show the values of items of another workload too. Their deltas stay hidden: a "
                                  "difference between different workloads says nothing about the storage."));
    bar->addWidget(compareAnyway_);
    bar->addSpacing(12);
    bar->addWidget(new QLabel(tr("Per-epoch overlay:"), this));
    epochMetric_ = new QComboBox(this);
    epochMetric_->addItems({tr("AU %"), tr("MiB/s")});
    bar->addWidget(epochMetric_);
    // Elided in a narrow window (it held the page 1202 px wide at 1280×720), whole in its tooltip.
    hint_ = new OneLineLabel(this);
    bar->addWidget(hint_, 1);
    layout->addLayout(bar);

    auto* vsplit = new QSplitter(Qt::Vertical, this);
    auto* plots = new QWidget(vsplit);
    auto* grid = new QGridLayout(plots);
    grid->setContentsMargins(0, 0, 0, 0);
    for (int i = 0; i < kBarMetrics; ++i) {
        bars_[i] = makePlot(plots);
        bars_[i]->setObjectName(QStringLiteral("compareBars%1").arg(i));
        bars_[i]->installEventFilter(this); // resized: the item numbers thinned for the new width
    }
    epochs_ = makePlot(plots);
    epochs_->setObjectName(QStringLiteral("compareEpochs"));
    grid->addWidget(bars_[0], 0, 0);
    grid->addWidget(bars_[1], 0, 1);
    grid->addWidget(bars_[2], 1, 0);
    grid->addWidget(epochs_, 1, 1);
    // The legend scrolls when it is long (20 items): it never takes the table's room nor makes the window
    // taller than the screen.
    legendScroll_ = new QScrollArea(plots);
    legendScroll_->setObjectName(QStringLiteral("compareLegendScroll"));
    legendScroll_->setWidgetResizable(true);
    legendScroll_->setFrameShape(QFrame::NoFrame);
    legendScroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    legend_ = new QLabel;
    legend_->setObjectName(QStringLiteral("compareLegend"));
    legend_->setWordWrap(true);
    legend_->setTextFormat(Qt::RichText);
    legend_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    legendScroll_->setWidget(legend_);
    grid->addWidget(legendScroll_, 2, 0, 1, 2);
    grid->setRowStretch(0, 1);
    grid->setRowStretch(1, 1);
    vsplit->addWidget(plots);
    auto* tableBox = new QWidget(vsplit);
    auto* tableLayout = new QVBoxLayout(tableBox);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    model_ = new CompareTableModel(this);
    table_ = new QTableView(tableBox);
    table_->setObjectName(QStringLiteral("deltaTable"));
    table_->setModel(model_);
    table_->setSortingEnabled(true);
    table_->horizontalHeader()->setSortIndicator(CompareTableModel::IndexColumn, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    // A sort moves rows: the statements spanning the delta columns move with theirs.
    connect(model_, &QAbstractItemModel::layoutChanged, this, &ComparePage::applySpans);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setAlternatingRowColors(true);
    table_->setWordWrap(true);
    table_->verticalHeader()->setVisible(false);
    tableLayout->addWidget(table_, 1);
    note_ = new QLabel(tableBox);
    note_->setObjectName(QStringLiteral("compareNote"));
    note_->setWordWrap(true);
    tableLayout->addWidget(note_);
    vsplit->addWidget(tableBox);
    vsplit->setStretchFactor(0, 1);
    vsplit->setStretchFactor(1, 1);
    layout->addWidget(vsplit, 1);

    connect(baseline_, &QComboBox::currentIndexChanged, this, &ComparePage::recompute);
    connect(baseline_, &QComboBox::activated, this, [this](int index) { chosenBaseline_ = baseline_->itemText(index); });
    connect(perAccelerator_, &QCheckBox::clicked, this, [this](bool on) {
        perAcceleratorChoice_ = on; // the user's choice wins over the default from here on
        recompute();
    });
    connect(compareAnyway_, &QCheckBox::toggled, this, &ComparePage::recompute);
    connect(epochMetric_, &QComboBox::currentIndexChanged, this, &ComparePage::rebuildPlots);
    setItems(nullptr, {});
}

void ComparePage::setItems(std::shared_ptr<const aggregate::ResultsLibrary> library, std::vector<CompareItem> items) {
    library_ = std::move(library); // keeps the nodes the items point to alive
    items_ = std::move(items);
    // The baseline the user chose while it is among the items, else the user's own newest benchmark.
    int baseline = library_ ? static_cast<int>(defaultBaseline(*library_, items_)) : 0;
    for (int i = 0; i < static_cast<int>(items_.size()); ++i)
        if (!chosenBaseline_.isEmpty() && items_[static_cast<std::size_t>(i)].label == chosenBaseline_) baseline = i;
    baseline_->blockSignals(true);
    baseline_->clear();
    for (const CompareItem& it : items_) baseline_->addItem(it.label);
    baseline_->setCurrentIndex(items_.empty() ? -1 : baseline);
    baseline_->blockSignals(false);
    hint_->setText(items_.empty() ? tr("Check results in the Results page to compare them.")
                                  : tr("%n item(s) checked", nullptr, static_cast<int>(items_.size())));
    hint_->setToolTip(hint_->text());
    recompute();
}

void ComparePage::setBaseline(int index) {
    chosenBaseline_ = baseline_->itemText(index);
    baseline_->setCurrentIndex(index);
}

void ComparePage::recompute() {
    result_ = {};
    error_.clear();
    if (!items_.empty()) {
        std::vector<const LibraryNode*> nodes;
        for (const CompareItem& it : items_) nodes.push_back(it.node);
        aggregate::CompareOptions options;
        options.baseline = static_cast<std::size_t>(std::max(0, baseline_->currentIndex()));
        options.perAccelerator = perAcceleratorChoice_;
        options.compareAnyway = compareAnyway_->isChecked();
        try {
            result_ = aggregate::compare(nodes, options);
        } catch (const std::exception& e) {
            error_ = QString::fromUtf8(e.what());
        }
    }
    perAccelerator_->setChecked(result_.perAccelerator);
    rebuildPlots();
    rebuildTable();
}

void ComparePage::labelItemTicks(QCustomPlot* p) const {
    const int n = static_cast<int>(result_.rows.size());
    const QFontMetrics fm(p->xAxis->tickLabelFont());
    const QMargins m = p->axisRect()->margins(); // the axes' room beside the ticks, from the last layout
    const int room = std::max(1, p->width() - m.left() - m.right());
    const double perItem = static_cast<double>(room) / std::max(1, n);
    const double needed = fm.horizontalAdvance(QString::number(std::max(1, n))) + fm.horizontalAdvance(QStringLiteral("  "));
    int step = 1;
    for (int nice : {1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000})
        if ((step = nice) * perItem >= needed) break;
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int i = 1; i <= n; i += step) ticker->addTick(i, QString::number(i));
    p->xAxis->setTicker(ticker);
}

bool ComparePage::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::Resize)
        for (QCustomPlot* p : bars_)
            if (watched == p) {
                labelItemTicks(p);
                p->replot(QCustomPlot::rpQueuedReplot);
            }
    return QWidget::eventFilter(watched, event);
}

void ComparePage::rebuildPlots() {
    const QPalette pal = palette();
    const int n = static_cast<int>(result_.rows.size());
    for (int m = 0; m < kBarMetrics; ++m) {
        QCustomPlot* p = bars_[m];
        p->clearPlottables();
        p->clearItems();
        double top = 0;
        QString unit;
        for (int i = 0; i < n; ++i) {
            const aggregate::CompareRow& row = result_.rows[static_cast<std::size_t>(i)];
            if (!row.valuesShown || row.metrics.size() <= static_cast<std::size_t>(m)) continue;
            const aggregate::CompareMetric& metric = row.metrics[static_cast<std::size_t>(m)];
            unit = QString::fromStdString(metric.unit);
            auto* bars = new QCPBars(p->xAxis, p->yAxis);
            const QColor c = seriesColor(i, pal);
            bars->setPen(QPen(c.darker(130), 1));
            bars->setBrush(c);
            bars->setWidth(0.7);
            bars->setName(wrapName(QStringLiteral("%1  %2").arg(i + 1).arg(QString::fromStdString(row.label))));
            const double mean = std::isfinite(metric.value.mean) ? metric.value.mean : 0.0;
            bars->addData(i + 1, mean);
            const double half = std::isfinite(metric.value.ci95.halfWidth) ? metric.value.ci95.halfWidth : 0.0;
            if (half > 0) {
                auto* err = new QCPErrorBars(p->xAxis, p->yAxis);
                err->setDataPlottable(bars);
                err->setData(QVector<double>{half});
                err->setPen(QPen(pal.color(QPalette::Text), 1));
                err->setWhiskerWidth(8);
                err->removeFromLegend();
            }
            top = std::max(top, mean + half);
            // The noise floor (issue 33): each run (an invocation's epochs) as a dot on a thin line from the
            // lowest to the highest, right of the CI's error bar.
            if (metric.value.values.size() > 1) {
                const double key = i + 1 + 0.2;
                const auto [lowest, highest] = std::minmax_element(metric.value.values.begin(), metric.value.values.end());
                auto* range = new QCPItemLine(p);
                range->setPen(QPen(pal.color(QPalette::Text), 1));
                range->start->setCoords(key, *lowest);
                range->end->setCoords(key, *highest);
                auto* dots = new QCPGraph(p->xAxis, p->yAxis);
                dots->setLineStyle(QCPGraph::lsNone);
                dots->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, pal.color(QPalette::Text), pal.color(QPalette::Base), 5));
                for (double v : metric.value.values) dots->addData(key, v);
                dots->removeFromLegend();
                top = std::max(top, *highest);
            }
        }
        if (unit.isEmpty()) unit = defaultUnit(m);
        setTitle(p, tr("%1 (%2): mean, error bars 95 % CI, dots each run").arg(metricName(m), unit));
        p->xAxis->setLabel(tr("item (# as in the legend)"));
        p->xAxis->setRange(0.3, std::max(1, n) + 0.7);
        labelItemTicks(p);
        p->yAxis->setLabel(unit);
        p->yAxis->setRange(0, top > 0 ? top * 1.12 : 1); // bar axes start at zero
        applyPlotTheme(p, pal);
        p->replot(QCustomPlot::rpQueuedReplot);
    }

    const bool mib = epochMetric_->currentIndex() == 1;
    epochs_->clearGraphs();
    double top = 0;
    int maxEpochs = 0;
    for (int i = 0; i < static_cast<int>(items_.size()); ++i) {
        const CompareItem& item = items_[static_cast<std::size_t>(i)];
        if (i < n && !result_.rows[static_cast<std::size_t>(i)].valuesShown) continue;
        const auto& series = mib ? item.epochMib : item.epochAu;
        if (series.empty()) continue;
        QCPGraph* g = epochs_->addGraph();
        g->setName(wrapName(QStringLiteral("%1  %2").arg(i + 1).arg(item.label)));
        const QColor c = seriesColor(i, pal);
        g->setPen(QPen(c, 1));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, c, 5));
        for (std::size_t e = 0; e < series.size(); ++e)
            if (std::isfinite(series[e])) {
                g->addData(static_cast<double>(e + 1), series[e]);
                top = std::max(top, series[e]);
            }
        maxEpochs = std::max(maxEpochs, static_cast<int>(series.size()));
    }
    setTitle(epochs_, mib ? tr("MiB/s per epoch (a benchmark: mean over its runs)") : tr("AU % per epoch (a benchmark: mean over its runs)"));
    QSharedPointer<QCPAxisTickerFixed> epochTicker(new QCPAxisTickerFixed);
    epochTicker->setTickStep(1.0);
    epochTicker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    epochs_->xAxis->setTicker(epochTicker);
    epochs_->xAxis->setLabel(tr("epoch"));
    epochs_->xAxis->setRange(0.5, std::max(1, maxEpochs) + 0.5);
    epochs_->yAxis->setLabel(mib ? tr("MiB/s") : tr("AU %"));
    epochs_->yAxis->setRange(0, mib ? std::max(1.0, top * 1.12) : 105);
    applyPlotTheme(epochs_, pal);
    epochs_->replot(QCustomPlot::rpQueuedReplot);

    // The page's legend: the item's number (as on the bars' axis and in the table), colour and name.
    QString html = QStringLiteral("<table cellspacing=0 cellpadding=1><tr>");
    for (int i = 0; i < static_cast<int>(items_.size()); ++i) {
        if (i > 0 && i % 2 == 0) html += QStringLiteral("</tr><tr>");
        const bool shown = i >= n || result_.rows[static_cast<std::size_t>(i)].valuesShown;
        html += QStringLiteral("<td><span style=\"color:%1\">&#9632;</span>&nbsp;<b>%2</b>&nbsp;%3%4&nbsp;&nbsp;&nbsp;</td>")
                    .arg(seriesColor(i, pal).name())
                    .arg(i + 1)
                    .arg(items_[static_cast<std::size_t>(i)].label.toHtmlEscaped(),
                         shown ? QString() : tr(" <i>(not comparable: no bar)</i>"));
    }
    legend_->setText(items_.empty() ? QString() : html + QStringLiteral("</tr></table>"));
    // Up to four rows of the legend in view; more scroll.
    const int rows = (static_cast<int>(items_.size()) + 1) / 2;
    const int line = legend_->fontMetrics().lineSpacing() + 2;
    legendScroll_->setFixedHeight(items_.empty() ? 0 : std::min(std::max(rows, 1), 4) * line + 2 * line / 3);
    legendScroll_->setVisible(!items_.empty());
}

void ComparePage::rebuildTable() {
    CompareTableModel::Colors colors;
    const bool dark = isDarkPalette(palette());
    colors.better = dark ? QColor(0x81c784) : QColor(0x1b5e20);
    colors.worse = dark ? QColor(0xef9a9a) : QColor(0xb71c1c);
    colors.muted = palette().color(QPalette::Disabled, QPalette::Text);
    for (int i = 0; i < static_cast<int>(result_.rows.size()); ++i) colors.series.push_back(seriesColor(i, palette()));
    table_->clearSpans();
    model_->setResult(result_, spreadOver(items_), colors);
    table_->resizeColumnsToContents();
    // Long item names wrap at their " · " rather than push the deltas out of sight (no eliding: the
    // column is as wide as the longest part).
    // Measured in bold (the baseline's name is bold), so that no part breaks inside itself.
    QFont bold = table_->font();
    bold.setBold(true);
    const QFontMetrics boldMetrics(bold);
    int itemWidth = 0;
    for (const auto& row : result_.rows)
        for (const QString& part : QString::fromStdString(row.label).split(QStringLiteral(" · ")))
            itemWidth = std::max(itemWidth, boldMetrics.horizontalAdvance(part + QStringLiteral(" ·")) + 16);
    table_->setColumnWidth(ItemColumn, std::min(table_->columnWidth(ItemColumn), std::max(itemWidth, 150)));
    // The statements are spanned after the columns are sized, so that their length does not widen the
    // first delta column.
    applySpans();
    table_->horizontalHeader()->setStretchLastSection(false);
    QString note = tr("± is the population standard deviation over a benchmark's complete runs (an invocation's epochs). "
                      "Δ CI: the 95 % confidence interval of the difference of means (Welch); \"within noise\" when it contains 0. "
                      "Deltas only between items of the same workload; a CI only between items of one kind (a benchmark's run means "
                      "with a benchmark's, an invocation's epochs with an invocation's).");
    if (result_.perAccelerator) note += tr(" Samples/s, GiB/s and MiB/s are per accelerator.");
    if (!error_.isEmpty()) note = tr("Cannot compare: %1").arg(error_);
    note_->setText(note);
}

void ComparePage::applySpans() {
    table_->clearSpans();
    for (int r = 0; r < model_->rowCount(); ++r)
        if (model_->spansDeltas(r)) table_->setSpan(r, DeltaColumn, 1, ColumnCount - DeltaColumn);
    table_->resizeRowsToContents();
}

QCustomPlot* ComparePage::currentPlot() const {
    for (QCustomPlot* p : {bars_[0], bars_[1], bars_[2], epochs_})
        if (p->underMouse() || p->hasFocus()) return p;
    return bars_[0];
}

void ComparePage::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange) {
        rebuildPlots();
        rebuildTable();
    }
    QWidget::changeEvent(event);
}

} // namespace trainio::ui
