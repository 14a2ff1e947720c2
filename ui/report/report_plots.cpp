#include "report/report_plots.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace trainio::ui {

namespace {

const QString kFontFamily = QStringLiteral("DejaVu Sans");
const QColor kInk(0x1d, 0x1d, 0x1f);
const QColor kGrid(0xe3, 0xe8, 0xed);
const QColor kAxis(0x8a, 0x96, 0xa1);
const QColor kThreshold(0xc6, 0x28, 0x28);

QFont pixelFont(int px, bool bold = false) {
    QFont f(kFontFamily);
    f.setPixelSize(px);
    f.setBold(bold);
    f.setLetterSpacing(QFont::AbsoluteSpacing, 0.05); // no ligatures, as in the report's text
    return f;
}

void styleAxis(QCPAxis* axis) {
    axis->setBasePen(QPen(kAxis, 1));
    axis->setTickPen(QPen(kAxis, 1));
    axis->setSubTickPen(QPen(kAxis, 1));
    axis->setTickLabelFont(pixelFont(10));
    axis->setTickLabelColor(kInk);
    axis->setLabelFont(pixelFont(11));
    axis->setLabelColor(kInk);
    axis->grid()->setPen(QPen(kGrid, 1));
    axis->grid()->setSubGridVisible(false);
    axis->grid()->setZeroLinePen(Qt::NoPen);
}

std::unique_ptr<QCustomPlot> basePlot(const QString& title) {
    auto plot = std::make_unique<QCustomPlot>();
    plot->setAttribute(Qt::WA_DontShowOnScreen);
    plot->setBackground(Qt::white);
    plot->setAntialiasedElements(QCP::aeAll);
    plot->plotLayout()->insertRow(0);
    auto* titleElement = new QCPTextElement(plot.get(), title, pixelFont(12, true));
    titleElement->setTextColor(kInk);
    plot->plotLayout()->addElement(0, 0, titleElement);
    plot->plotLayout()->setRowSpacing(2);
    styleAxis(plot->xAxis);
    styleAxis(plot->yAxis);
    plot->xAxis->grid()->setVisible(false);
    return plot;
}

// Ticks at "nice" steps that never go below the axis' base: a bar axis starts at zero.
void niceValueRange(QCPAxis* axis, double low, double high, bool fromZero) {
    if (!std::isfinite(low) || !std::isfinite(high)) {
        low = 0.0;
        high = 1.0;
    }
    if (fromZero) low = std::min(0.0, low);
    double span = high - low;
    if (span <= 0.0) span = std::max(std::fabs(high), 1.0) * 0.1;
    const double pad = span * 0.08;
    double lo = fromZero ? low : low - pad;
    if (!fromZero && low >= 0.0) lo = std::max(0.0, lo);
    axis->setRange(lo, high + pad);
}

} // namespace

QColor seriesColour(std::size_t index) {
    static const QColor palette[] = {QColor(0x4e, 0x79, 0xa7), QColor(0xf2, 0x8e, 0x2b), QColor(0x59, 0xa1, 0x4f),
                                     QColor(0xb0, 0x7a, 0xa1), QColor(0x76, 0xb7, 0xb2), QColor(0xed, 0xc9, 0x48),
                                     QColor(0xff, 0x9d, 0xa7), QColor(0x9c, 0x75, 0x5f), QColor(0xe1, 0x57, 0x59)};
    return palette[index % (sizeof palette / sizeof palette[0])];
}

std::unique_ptr<QCustomPlot> makeBarPlot(const QString& title, const QString& valueLabel,
                                         const std::vector<BarItem>& bars, const QColor& colour) {
    auto plot = basePlot(title);
    auto* barPlottable = new QCPBars(plot->xAxis, plot->yAxis);
    barPlottable->setWidth(0.62);
    barPlottable->setPen(QPen(colour.darker(125), 1));
    barPlottable->setBrush(colour);
    auto* errors = new QCPErrorBars(plot->xAxis, plot->yAxis);
    errors->setDataPlottable(barPlottable);
    errors->setPen(QPen(kInk, 1));
    errors->setWhiskerWidth(7);

    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    QVector<double> keys, values, errLow, errHigh;
    double high = 0.0;
    for (std::size_t i = 0; i < bars.size(); ++i) {
        const auto& b = bars[i];
        const double key = static_cast<double>(i + 1);
        keys << key;
        values << b.value;
        // QCPErrorBars skips NaN errors, which is right for a CI that is undefined for one run.
        errLow << (std::isfinite(b.ciLow) ? b.value - b.ciLow : std::numeric_limits<double>::quiet_NaN());
        errHigh << (std::isfinite(b.ciHigh) ? b.ciHigh - b.value : std::numeric_limits<double>::quiet_NaN());
        ticker->addTick(key, b.label);
        high = std::max(high, b.value);
        if (std::isfinite(b.ciHigh)) high = std::max(high, b.ciHigh);
        if (b.threshold) high = std::max(high, *b.threshold);
    }
    barPlottable->setData(keys, values, true);
    errors->setData(errLow, errHigh);
    plot->xAxis->setTicker(ticker);
    plot->xAxis->setTickLength(0, 3);
    plot->xAxis->setSubTicks(false);
    // At least three bar slots wide, so that one or two groups do not become slabs.
    const double barSlots = std::max<double>(3.0, static_cast<double>(bars.size()));
    const double centre = (static_cast<double>(bars.size()) + 1.0) / 2.0;
    plot->xAxis->setRange(centre - barSlots / 2.0 - 0.1, centre + barSlots / 2.0 + 0.1);
    plot->yAxis->setLabel(valueLabel);
    niceValueRange(plot->yAxis, 0.0, high, true);

    // The pass threshold of each bar's workload as a dashed segment across the bar.
    const QPen thresholdPen(kThreshold, 1.4, Qt::DashLine);
    for (std::size_t i = 0; i < bars.size(); ++i) {
        if (!bars[i].threshold) continue;
        auto* line = new QCPItemLine(plot.get());
        line->setPen(thresholdPen);
        const double key = static_cast<double>(i + 1);
        line->start->setCoords(key - 0.48, *bars[i].threshold);
        line->end->setCoords(key + 0.48, *bars[i].threshold);
    }
    return plot;
}

std::unique_ptr<QCustomPlot> makeEpochPlot(const QString& title, const QString& valueLabel,
                                           const std::vector<LineSeries>& series, std::optional<double> threshold,
                                           bool valueFromZero) {
    auto plot = basePlot(title);
    double low = std::numeric_limits<double>::infinity();
    double high = -std::numeric_limits<double>::infinity();
    std::size_t epochs = 1;
    std::size_t measured = 0;
    for (const auto& s : series) {
        auto* graph = plot->addGraph();
        graph->setName(s.name);
        QVector<double> keys, values;
        for (std::size_t e = 0; e < s.values.size(); ++e) {
            if (!std::isfinite(s.values[e])) continue;
            keys << static_cast<double>(e + 1);
            values << s.values[e];
            low = std::min(low, s.values[e]);
            high = std::max(high, s.values[e]);
        }
        epochs = std::max(epochs, s.values.size());
        graph->setData(keys, values, true);
        if (s.warmup) {
            graph->setPen(QPen(QColor(0x9a, 0xa3, 0xab), 1.2, Qt::DashLine));
            graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(0x9a, 0xa3, 0xab), Qt::white, 4));
        } else {
            const QColor c = seriesColour(measured++);
            graph->setPen(QPen(c, 1.5));
            graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, c, c, 4));
        }
    }
    if (threshold) {
        auto* line = new QCPItemStraightLine(plot.get());
        line->setPen(QPen(kThreshold, 1.4, Qt::DashLine));
        line->point1->setCoords(0.0, *threshold);
        line->point2->setCoords(1.0, *threshold);
        // A data-less graph gives the threshold its legend entry.
        auto* legendOnly = plot->addGraph();
        legendOnly->setName(QStringLiteral("pass threshold"));
        legendOnly->setPen(QPen(kThreshold, 1.4, Qt::DashLine));
        low = std::min(low, *threshold);
        high = std::max(high, *threshold);
    }

    auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    plot->xAxis->setTicker(ticker);
    plot->xAxis->setSubTicks(false);
    plot->xAxis->setRange(0.7, static_cast<double>(epochs) + 0.3);
    plot->xAxis->setLabel(QStringLiteral("epoch"));
    plot->yAxis->setLabel(valueLabel);
    niceValueRange(plot->yAxis, low, high, valueFromZero);

    // The legend goes below the axes so it never covers a line.
    plot->legend->setVisible(true);
    plot->legend->setFont(pixelFont(9));
    plot->legend->setBorderPen(Qt::NoPen);
    plot->legend->setBrush(Qt::NoBrush);
    plot->legend->setIconSize(16, 8);
    plot->legend->setRowSpacing(0);
    plot->legend->setColumnSpacing(8);
    plot->legend->setWrap(4);
    plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    auto* legendRect = plot->axisRect()->insetLayout();
    legendRect->take(plot->legend);
    plot->plotLayout()->addElement(2, 0, plot->legend);
    plot->plotLayout()->setRowStretchFactor(2, 0.001);
    plot->legend->setMargins(QMargins(4, 0, 4, 2));
    return plot;
}

} // namespace trainio::ui
