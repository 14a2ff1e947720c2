#include "report/report_plots.h"
#include "report/report_page_flow.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace trainio::ui {

namespace {

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

void fitTickLabels(QCustomPlot& plot, int widthPx, int heightPx) {
    constexpr double kGapPx = 4.0; // between neighbouring numbers
    plot.setViewport(QRect(0, 0, widthPx, heightPx));
    for (int round = 0; round < 8; ++round) {
        plot.replot(QCustomPlot::rpImmediateRefresh);
        bool changed = false;
        for (QCPAxis* axis : plot.axisRect()->axes()) {
            if (axis->orientation() != Qt::Horizontal || !axis->visible() || !axis->tickLabels()) continue;
            const QFontMetricsF fm(axis->tickLabelFont());
            const QVector<double> ticks = axis->tickVector();
            const QVector<QString> labels = axis->tickVectorLabels();
            const QRect area = plot.axisRect()->rect();
            double previousRight = -std::numeric_limits<double>::infinity();
            bool crowded = false;
            double overLeft = 0.0, overRight = 0.0;
            for (int i = 0; i < ticks.size() && i < labels.size(); ++i) {
                const double centre = axis->coordToPixel(ticks[i]);
                if (centre < area.left() - 0.5 || centre > area.right() + 0.5) continue;
                const double half = fm.horizontalAdvance(labels[i]) / 2.0;
                if (centre - half < previousRight + kGapPx) crowded = true;
                previousRight = centre + half;
                overLeft = std::max(overLeft, -(centre - half));
                overRight = std::max(overRight, centre + half - static_cast<double>(widthPx));
            }
            const int count = axis->ticker()->tickCount();
            if (crowded && count > 2) {
                axis->ticker()->setTickCount(count - 1);
                changed = true;
            }
            if (overLeft > 0.0 || overRight > 0.0) {
                QMargins m = plot.axisRect()->minimumMargins();
                m.setLeft(std::max(m.left(), plot.axisRect()->margins().left() + static_cast<int>(std::ceil(overLeft)) + 1));
                m.setRight(std::max(m.right(), plot.axisRect()->margins().right() + static_cast<int>(std::ceil(overRight)) + 1));
                plot.axisRect()->setMinimumMargins(m);
                changed = true;
            }
        }
        if (!changed) return;
    }
}

QColor seriesColour(std::size_t index) {
    static const QColor palette[] = {QColor(0x4e, 0x79, 0xa7), QColor(0xf2, 0x8e, 0x2b), QColor(0x59, 0xa1, 0x4f),
                                     QColor(0xb0, 0x7a, 0xa1), QColor(0x76, 0xb7, 0xb2), QColor(0xed, 0xc9, 0x48),
                                     QColor(0xff, 0x9d, 0xa7), QColor(0x9c, 0x75, 0x5f), QColor(0xe1, 0x57, 0x59)};
    return palette[index % (sizeof palette / sizeof palette[0])];
}

double barPlotHeightMm(std::size_t bars) { return 20.0 + 5.0 * static_cast<double>(std::max<std::size_t>(bars, 1)); }

std::unique_ptr<QCustomPlot> makeBarPlot(const QString& title, const QString& valueLabel,
                                         const std::vector<BarItem>& bars, const QColor& colour) {
    auto plot = basePlot(title);
    // Keys on the left axis, values along the bottom: long item names fit beside their bars.
    QCPAxis* keyAxis = plot->yAxis;
    QCPAxis* valueAxis = plot->xAxis;
    plot->xAxis->grid()->setVisible(true);
    plot->yAxis->grid()->setVisible(false);
    auto* barPlottable = new QCPBars(keyAxis, valueAxis);
    barPlottable->setWidth(0.62);
    barPlottable->setPen(QPen(colour.darker(125), 1));
    barPlottable->setBrush(colour);
    auto* errors = new QCPErrorBars(keyAxis, valueAxis);
    errors->setDataPlottable(barPlottable);
    errors->setPen(QPen(kInk, 1));
    errors->setWhiskerWidth(7);

    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    QVector<double> keys, values, errLow, errHigh;
    double high = 0.0;
    // The first item on top, as in the tables.
    for (std::size_t i = 0; i < bars.size(); ++i) {
        const auto& b = bars[i];
        const double key = static_cast<double>(bars.size() - i);
        keys << key;
        values << b.value;
        // QCPErrorBars skips NaN errors, which is right for a CI that is undefined for one run.
        errLow << (std::isfinite(b.ciLow) ? b.value - b.ciLow : std::numeric_limits<double>::quiet_NaN());
        errHigh << (std::isfinite(b.ciHigh) ? b.ciHigh - b.value : std::numeric_limits<double>::quiet_NaN());
        ticker->addTick(key, b.label);
        if (std::isfinite(b.value)) high = std::max(high, b.value);
        if (std::isfinite(b.ciHigh)) high = std::max(high, b.ciHigh);
        if (b.threshold) high = std::max(high, *b.threshold);
    }
    barPlottable->setData(keys, values, true);
    errors->setData(errLow, errHigh);
    // Each run of a bar as a dot, on a thin line from the lowest to the highest, in the upper part of the
    // bar (the CI whisker keeps the middle): the run-to-run spread beside the CI of the mean.
    auto* runDots = new QCPGraph(keyAxis, valueAxis);
    runDots->setLineStyle(QCPGraph::lsNone);
    runDots->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, kInk, QColor(Qt::white), 4));
    runDots->removeFromLegend();
    for (std::size_t i = 0; i < bars.size(); ++i) {
        const auto& runs = bars[i].runs;
        if (runs.size() < 2) continue;
        const double key = static_cast<double>(bars.size() - i) + 0.2;
        const auto [lowest, highest] = std::minmax_element(runs.begin(), runs.end());
        auto* range = new QCPItemLine(plot.get());
        range->setPen(QPen(kInk, 0.8));
        range->setClipAxisRect(plot->axisRect());
        range->start->setAxes(valueAxis, keyAxis);
        range->end->setAxes(valueAxis, keyAxis);
        range->start->setCoords(*lowest, key);
        range->end->setCoords(*highest, key);
        for (double v : runs) runDots->addData(key, v);
        high = std::max(high, *highest);
    }
    keyAxis->setTicker(ticker);
    // Four or five value ticks: their labels ("300000") never touch on a half-page-wide plot.
    valueAxis->ticker()->setTickCount(4);
    keyAxis->setTickLength(0, 3);
    keyAxis->setSubTicks(false);
    keyAxis->setRange(0.4, static_cast<double>(bars.size()) + 0.6);
    valueAxis->setLabel(valueLabel);
    niceValueRange(valueAxis, 0.0, high, true);

    // The pass threshold of each bar's workload as a dashed segment across the bar.
    const QPen thresholdPen(kThreshold, 1.4, Qt::DashLine);
    for (std::size_t i = 0; i < bars.size(); ++i) {
        if (!bars[i].threshold) continue;
        auto* line = new QCPItemLine(plot.get());
        line->setPen(thresholdPen);
        line->setClipAxisRect(plot->axisRect());
        const double key = static_cast<double>(bars.size() - i);
        line->start->setAxes(valueAxis, keyAxis);
        line->end->setAxes(valueAxis, keyAxis);
        line->start->setCoords(*bars[i].threshold, key - 0.45);
        line->end->setCoords(*bars[i].threshold, key + 0.45);
    }
    return plot;
}

std::unique_ptr<QCustomPlot> makeLinePlot(const QString& title, const QString& keyLabel, const QString& valueLabel,
                                          const std::vector<LineSeries>& series, std::optional<double> threshold,
                                          bool valueFromZero, int widthPx, bool wholeKeys, const std::vector<KeyMark>& marks) {
    auto plot = basePlot(title);
    double low = std::numeric_limits<double>::infinity();
    double high = -std::numeric_limits<double>::infinity();
    double keyLow = std::numeric_limits<double>::infinity();
    double keyHigh = -std::numeric_limits<double>::infinity();
    bool epochKeys = true;
    std::size_t measured = 0;
    for (const auto& s : series) {
        auto* graph = plot->addGraph();
        graph->setName(s.name);
        if (!s.keys.empty()) epochKeys = false;
        QVector<double> keys, values;
        for (std::size_t e = 0; e < s.values.size(); ++e) {
            if (!std::isfinite(s.values[e])) continue;
            const double key = e < s.keys.size() ? s.keys[e] : static_cast<double>(e + 1);
            keys << key;
            values << s.values[e];
            low = std::min(low, s.values[e]);
            high = std::max(high, s.values[e]);
            keyLow = std::min(keyLow, key);
            keyHigh = std::max(keyHigh, key);
        }
        graph->setData(keys, values, true);
        const QColor c = s.warmup ? QColor(0x9a, 0xa3, 0xab) : seriesColour(measured++);
        graph->setPen(QPen(c, s.markers ? 1.5 : 0.8, s.warmup ? Qt::DashLine : Qt::SolidLine));
        if (s.markers)
            graph->setScatterStyle(s.warmup ? QCPScatterStyle(QCPScatterStyle::ssCircle, c, Qt::white, 4)
                                            : QCPScatterStyle(QCPScatterStyle::ssDisc, c, c, 4));
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
    if (!std::isfinite(keyLow)) {
        keyLow = 1.0;
        keyHigh = 1.0;
    }
    if (epochKeys || wholeKeys) {
        auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
        ticker->setTickStep(1.0);
        ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
        plot->xAxis->setTicker(ticker);
        plot->xAxis->setSubTicks(false);
        const double pad = std::max(0.3, (keyHigh - keyLow) * 0.04);
        plot->xAxis->setRange(epochKeys ? 0.7 : keyLow - pad, keyHigh + pad);
    } else {
        plot->xAxis->setRange(keyLow, keyHigh > keyLow ? keyHigh : keyLow + 1.0);
    }
    plot->xAxis->setLabel(keyLabel);
    plot->yAxis->setLabel(valueLabel);
    niceValueRange(plot->yAxis, low, high, valueFromZero);
    // Marks: a dotted line over the whole height and the label just above the axes (outside the data, so it
    // covers no line); labels closer than their width go a row higher, never over each other.
    if (!marks.empty()) {
        const double span = plot->xAxis->range().size();
        const double pxPerKey = span > 0 ? (widthPx - 60.0) / span : 0.0;
        const QFont font = pixelFont(8, true);
        const QFontMetricsF fm(font);
        std::vector<double> rowEnd; // per row, the right edge (px) of its last label
        int rows = 0;
        for (const KeyMark& m : marks) {
            auto* line = new QCPItemStraightLine(plot.get());
            line->setPen(QPen(kAxis, 1.0, Qt::DotLine));
            line->point1->setCoords(m.key, 0.0);
            line->point2->setCoords(m.key, 1.0);
            const double x = (m.key - plot->xAxis->range().lower) * pxPerKey;
            const double w = fm.horizontalAdvance(m.label) + 4;
            std::size_t row = 0;
            while (row < rowEnd.size() && x - w / 2 < rowEnd[row]) ++row;
            if (row == rowEnd.size()) rowEnd.push_back(0);
            rowEnd[row] = x + w / 2;
            rows = std::max(rows, static_cast<int>(row) + 1);
            auto* text = new QCPItemText(plot.get());
            text->setClipToAxisRect(false);
            text->setFont(font);
            text->setColor(kInk);
            text->setText(m.label);
            text->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
            text->position->setTypeX(QCPItemPosition::ptPlotCoords);
            text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
            text->position->setCoords(m.key, 0.0); // the top edge of the axes
            text->setPadding(QMargins(0, 0, 0, static_cast<int>(fm.height() * static_cast<double>(row)) + 1));
        }
        // Room above the axes for the label rows.
        QMargins margins = plot->axisRect()->minimumMargins();
        margins.setTop(static_cast<int>(std::ceil(fm.height() * rows)) + 4);
        plot->axisRect()->setMinimumMargins(margins);
    }
    plot->yAxis->ticker()->setTickCount(4);
    if (!(epochKeys || wholeKeys)) plot->xAxis->ticker()->setTickCount(std::clamp(widthPx / 90, 3, 6));

    // The legend goes below the axes so it never covers a line, in as many columns as the longest
    // entry allows: an entry is never cut ("pass thresholc").
    const QFont legendFont = pixelFont(9);
    const QFontMetricsF metrics(legendFont);
    double widest = 0.0;
    for (int i = 0; i < plot->graphCount(); ++i) widest = std::max(widest, metrics.horizontalAdvance(plot->graph(i)->name()));
    const double entry = widest + 16 + 6 + 10; // icon, icon-text padding, column spacing
    const int columns = std::clamp(static_cast<int>((widthPx - 12) / entry), 1, 4);
    plot->legend->setVisible(true);
    plot->legend->setFont(legendFont);
    plot->legend->setBorderPen(Qt::NoPen);
    plot->legend->setBrush(Qt::NoBrush);
    plot->legend->setIconSize(16, 8);
    plot->legend->setRowSpacing(0);
    plot->legend->setColumnSpacing(10);
    plot->legend->setWrap(columns);
    plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    auto* legendRect = plot->axisRect()->insetLayout();
    legendRect->take(plot->legend);
    plot->plotLayout()->addElement(2, 0, plot->legend);
    plot->plotLayout()->setRowStretchFactor(2, 0.001);
    plot->legend->setMargins(QMargins(4, 0, 4, 2));
    return plot;
}

PlotFactory barPlot(const QString& title, const QString& valueLabel, const std::vector<BarItem>& bars, const QColor& colour) {
    return [=] { return makeBarPlot(title, valueLabel, bars, colour); };
}

PlotFactory linePlot(const QString& title, const QString& keyLabel, const QString& valueLabel,
                     const std::vector<LineSeries>& series, std::optional<double> threshold, bool valueFromZero,
                     int widthPx, bool wholeKeys, const std::vector<KeyMark>& marks) {
    return [=] { return makeLinePlot(title, keyLabel, valueLabel, series, threshold, valueFromZero, widthPx, wholeKeys, marks); };
}

} // namespace trainio::ui
