#include "compare_page.h"

#include "plot_theme.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace trainio::ui {

namespace {

const aggregate::NodeMetric& metricOf(const CompareItem& item, int which) {
    return which == 0 ? item.au : which == 1 ? item.samplesPerSecond : item.mibPerSecond;
}

QString metricName(int which) {
    return which == 0 ? QObject::tr("AU %") : which == 1 ? QObject::tr("samples/s") : QObject::tr("MiB/s");
}

QString fmt(double v, int decimals) { return std::isfinite(v) ? QString::number(v, 'f', decimals) : QStringLiteral("—"); }

QCustomPlot* makePlot(QWidget* parent, const QString& title) {
    auto* p = new QCustomPlot(parent);
    p->setMinimumSize(240, 200);
    p->plotLayout()->insertRow(0);
    p->plotLayout()->addElement(0, 0, new QCPTextElement(p, title, QFont(parent->font().family(), parent->font().pointSize(), QFont::Bold)));
    return p;
}

} // namespace

ComparePage::ComparePage(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Baseline:"), this));
    baseline_ = new QComboBox(this);
    baseline_->setObjectName(QStringLiteral("baseline"));
    baseline_->setMinimumContentsLength(30);
    baseline_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    bar->addWidget(baseline_);
    bar->addSpacing(12);
    bar->addWidget(new QLabel(tr("Per-epoch overlay:"), this));
    epochMetric_ = new QComboBox(this);
    epochMetric_->addItems({tr("AU %"), tr("MiB/s")});
    bar->addWidget(epochMetric_);
    hint_ = new QLabel(this);
    bar->addWidget(hint_, 1);
    layout->addLayout(bar);

    auto* vsplit = new QSplitter(Qt::Vertical, this);
    auto* plotsRow = new QWidget(vsplit);
    auto* row = new QHBoxLayout(plotsRow);
    row->setContentsMargins(0, 0, 0, 0);
    for (int i = 0; i < 3; ++i) {
        bars_[i] = makePlot(plotsRow, tr("%1 (mean, 95 % CI)").arg(metricName(i)));
        bars_[i]->setObjectName(QStringLiteral("compareBars%1").arg(i));
        row->addWidget(bars_[i]);
    }
    epochs_ = makePlot(plotsRow, tr("Per epoch"));
    epochs_->setObjectName(QStringLiteral("compareEpochs"));
    epochs_->legend->setVisible(true);
    row->addWidget(epochs_, 2);
    vsplit->addWidget(plotsRow);
    table_ = new QTableWidget(vsplit);
    table_->setObjectName(QStringLiteral("deltaTable"));
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setAlternatingRowColors(true);
    vsplit->addWidget(table_);
    vsplit->setStretchFactor(0, 3);
    vsplit->setStretchFactor(1, 2);
    layout->addWidget(vsplit, 1);

    connect(baseline_, &QComboBox::currentIndexChanged, this, &ComparePage::rebuildTable);
    connect(epochMetric_, &QComboBox::currentIndexChanged, this, &ComparePage::rebuildPlots);
    setItems(nullptr, {});
}

void ComparePage::setItems(std::shared_ptr<const aggregate::ResultsLibrary> library, std::vector<CompareItem> items) {
    library_ = std::move(library); // keeps the nodes the items point to alive
    items_ = std::move(items);
    const int keep = baseline_->currentIndex();
    baseline_->blockSignals(true);
    baseline_->clear();
    for (const CompareItem& it : items_) baseline_->addItem(it.label);
    baseline_->setCurrentIndex(keep >= 0 && keep < static_cast<int>(items_.size()) ? keep : 0);
    baseline_->blockSignals(false);
    hint_->setText(items_.empty() ? tr("Check results in the Results page to compare them.")
                                  : tr("%n item(s) checked", nullptr, static_cast<int>(items_.size())));
    rebuildPlots();
    rebuildTable();
}

void ComparePage::setBaseline(int index) { baseline_->setCurrentIndex(index); }

void ComparePage::rebuildPlots() {
    const QPalette pal = palette();
    const int n = static_cast<int>(items_.size());
    for (int m = 0; m < 3; ++m) {
        QCustomPlot* p = bars_[m];
        p->clearPlottables();
        QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
        double top = 0;
        for (int i = 0; i < n; ++i) {
            const auto& metric = metricOf(items_[static_cast<std::size_t>(i)], m);
            auto* bars = new QCPBars(p->xAxis, p->yAxis);
            const QColor c = seriesColor(i, pal);
            bars->setPen(QPen(c.darker(130), 1));
            bars->setBrush(c);
            bars->setWidth(0.7);
            bars->setName(items_[static_cast<std::size_t>(i)].label);
            const double mean = std::isfinite(metric.mean) ? metric.mean : 0.0;
            bars->addData(i + 1, mean);
            const double half = std::isfinite(metric.ci95.halfWidth) ? metric.ci95.halfWidth : 0.0;
            if (half > 0) {
                auto* err = new QCPErrorBars(p->xAxis, p->yAxis);
                err->setDataPlottable(bars);
                err->setData(QVector<double>{half});
                err->setPen(QPen(pal.color(QPalette::Text), 1));
                err->setWhiskerWidth(8);
            }
            top = std::max(top, mean + half);
            ticker->addTick(i + 1, QString::number(i + 1));
        }
        p->xAxis->setTicker(ticker);
        p->xAxis->setLabel(tr("item (see table)"));
        p->xAxis->setRange(0.3, std::max(1, n) + 0.7);
        p->yAxis->setLabel(metricName(m));
        p->yAxis->setRange(0, top > 0 ? top * 1.12 : 1);
        applyPlotTheme(p, pal);
        p->replot(QCustomPlot::rpQueuedReplot);
    }

    const bool mib = epochMetric_->currentIndex() == 1;
    epochs_->clearGraphs();
    double top = 0;
    int maxEpochs = 0;
    for (int i = 0; i < n; ++i) {
        const auto& series = mib ? items_[static_cast<std::size_t>(i)].epochMib : items_[static_cast<std::size_t>(i)].epochAu;
        if (series.empty()) continue;
        QCPGraph* g = epochs_->addGraph();
        g->setName(QStringLiteral("%1 %2").arg(i + 1).arg(items_[static_cast<std::size_t>(i)].label));
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
    QSharedPointer<QCPAxisTickerFixed> epochTicker(new QCPAxisTickerFixed);
    epochTicker->setTickStep(1.0);
    epochTicker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    epochs_->xAxis->setTicker(epochTicker);
    epochs_->xAxis->setLabel(tr("epoch"));
    epochs_->xAxis->setRange(0.5, std::max(1, maxEpochs) + 0.5);
    epochs_->yAxis->setLabel(mib ? tr("MiB/s") : tr("AU %"));
    epochs_->yAxis->setRange(0, mib ? std::max(1.0, top * 1.12) : 105);
    epochs_->legend->setVisible(epochs_->graphCount() > 0 && epochs_->graphCount() <= 10);
    epochs_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    applyPlotTheme(epochs_, pal);
    epochs_->replot(QCustomPlot::rpQueuedReplot);
}

void ComparePage::rebuildTable() {
    const int base = baseline_->currentIndex();
    QStringList headers{tr("#"), tr("Item"), tr("Level")};
    for (int m = 0; m < 3; ++m)
        headers << tr("%1 mean ± sd").arg(metricName(m)) << tr("Δ %1").arg(metricName(m)) << tr("Δ %");
    headers << tr("n");
    table_->clear();
    table_->setColumnCount(static_cast<int>(headers.size()));
    table_->setHorizontalHeaderLabels(headers);
    table_->setRowCount(static_cast<int>(items_.size()));
    const QColor better = isDarkPalette(palette()) ? QColor(0x81c784) : QColor(0x1b5e20);
    const QColor worse = isDarkPalette(palette()) ? QColor(0xef9a9a) : QColor(0xb71c1c);
    for (int r = 0; r < static_cast<int>(items_.size()); ++r) {
        const CompareItem& it = items_[static_cast<std::size_t>(r)];
        int col = 0;
        auto put = [&](const QString& text, Qt::Alignment align = Qt::AlignRight | Qt::AlignVCenter) {
            auto* cell = new QTableWidgetItem(text);
            cell->setTextAlignment(align);
            table_->setItem(r, col++, cell);
            return cell;
        };
        put(QString::number(r + 1));
        put(it.label, Qt::AlignLeft | Qt::AlignVCenter)->setToolTip(it.node ? QString::fromStdString(it.node->path.string()) : QString());
        put(it.kind, Qt::AlignLeft | Qt::AlignVCenter);
        for (int m = 0; m < 3; ++m) {
            const auto& v = metricOf(it, m);
            const int d = m == 0 ? 2 : 1;
            auto* cell = put(v.n > 1 ? QStringLiteral("%1 ± %2").arg(fmt(v.mean, d), fmt(v.stdev, d)) : fmt(v.mean, d));
            if (std::isfinite(v.ci95.low))
                cell->setToolTip(tr("95 % CI [%1, %2], n = %3").arg(fmt(v.ci95.low, d), fmt(v.ci95.high, d)).arg(v.n));
            if (base < 0 || r == base) {
                put(tr("baseline"));
                put(QString());
                continue;
            }
            const auto& b = metricOf(items_[static_cast<std::size_t>(base)], m);
            const Delta delta = deltaAgainst(v.mean, b.mean);
            auto* a = put(QStringLiteral("%1%2").arg(delta.absolute >= 0 ? QStringLiteral("+") : QString(), fmt(delta.absolute, d)));
            auto* p = put(std::isfinite(delta.percent) ? QStringLiteral("%1%2 %").arg(delta.percent >= 0 ? QStringLiteral("+") : QString(), fmt(delta.percent, 1))
                                                       : QStringLiteral("—"));
            if (std::isfinite(delta.absolute) && delta.absolute != 0) {
                a->setForeground(delta.absolute > 0 ? better : worse);
                p->setForeground(delta.absolute > 0 ? better : worse);
            }
        }
        put(QString::number(it.au.n));
    }
    table_->resizeColumnsToContents();
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
