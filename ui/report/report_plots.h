// The report's figures as off-screen QCustomPlot widgets (never shown), styled for print: pixel-sized
// fonts so the layout is the same on every screen DPI, white background, no antialiasing tricks that
// only matter on screens. The page flow draws them as vectors with QCustomPlot::toPainter.
#pragma once

#include "report/report_page_flow.h"

#include <QColor>
#include <QString>

#include <memory>
#include <optional>
#include <vector>

class QCustomPlot;

namespace trainio::ui {

struct BarItem {
    QString label;              // a short key beside its bar ("#3"), named in the table above the plot
    double value = 0.0;         // bar height
    double ciLow = 0.0;         // 95 % CI bounds; NaN when undefined (fewer than two runs)
    double ciHigh = 0.0;
    std::optional<double> threshold; // AU pass threshold for this bar's workload, if known
    // What the mean is over (a benchmark's runs, an invocation's epochs): drawn as dots on a line from the
    // lowest to the highest beside the bar, the run-to-run spread (issue 33's noise floor); none for one.
    std::vector<double> runs = {};
};

// Horizontal bars, one per item, its short key beside it (the bars get the width); the value axis always
// starts at zero; whiskers for the 95 % CI; each run as a dot on its lowest-to-highest line; the AU threshold as a
// dashed red line per bar.
std::unique_ptr<QCustomPlot> makeBarPlot(const QString& title, const QString& valueLabel,
                                         const std::vector<BarItem>& bars, const QColor& colour);
// The height a bar plot of `bars` bars needs, in millimetres on the page.
double barPlotHeightMm(std::size_t bars);

struct LineSeries {
    QString name;
    std::vector<double> values; // one per point
    std::vector<double> keys;   // x of each value; empty = 1, 2, 3 … (epochs)
    bool warmup = false;        // dashed grey: shown, not counted (warm-up, excluded runs)
    bool markers = true;        // false for dense series (per-step records)
};

// Lines over epochs (keys 1…n, integer ticks) or over any keys (wholeKeys: counts, integer ticks, a
// little room beside the first and last point); the legend below the axes, in as many columns as its
// longest entry allows in `widthPx` (the plot's width on the page), so no entry is clipped.
// A moment marked on a line plot's key axis: a dotted vertical line and its label at the top (a storage
// change's number on the per-step plots, as its table row numbers it).
struct KeyMark {
    double key = 0;
    QString label;
};

std::unique_ptr<QCustomPlot> makeLinePlot(const QString& title, const QString& keyLabel, const QString& valueLabel,
                                          const std::vector<LineSeries>& series, std::optional<double> threshold,
                                          bool valueFromZero, int widthPx, bool wholeKeys = false,
                                          const std::vector<KeyMark>& marks = {});

// The same figures made later, on the GUI thread, by the page flow (recordPlot): the arguments are copied.
PlotFactory barPlot(const QString& title, const QString& valueLabel, const std::vector<BarItem>& bars, const QColor& colour);
PlotFactory linePlot(const QString& title, const QString& keyLabel, const QString& valueLabel,
                     const std::vector<LineSeries>& series, std::optional<double> threshold, bool valueFromZero,
                     int widthPx, bool wholeKeys = false, const std::vector<KeyMark>& marks = {});

// Lays `plot` out at its size on the page and makes its horizontal axes' numbers fit: fewer ticks while
// neighbouring labels would touch, and margin for an end label that would stand past the figure's edge
// (QCustomPlot sizes margins for a bottom axis' label height, never for its overhang at the ends).
void fitTickLabels(QCustomPlot& plot, int widthPx, int heightPx);

// Distinguishable on white and in greyscale print (Tableau 10).
QColor seriesColour(std::size_t index);

} // namespace trainio::ui
