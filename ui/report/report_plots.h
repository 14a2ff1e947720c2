// The report's figures as off-screen QCustomPlot widgets (never shown), styled for print: pixel-sized
// fonts so the layout is the same on every screen DPI, white background, no antialiasing tricks that
// only matter on screens. The page flow draws them as vectors with QCustomPlot::toPainter.
#pragma once

#include <QColor>
#include <QString>

#include <memory>
#include <optional>
#include <vector>

class QCustomPlot;

namespace trainio::ui {

struct BarItem {
    QString label;              // tick label under the bar
    double value = 0.0;         // bar height
    double ciLow = 0.0;         // 95 % CI bounds; NaN when undefined (fewer than two runs)
    double ciHigh = 0.0;
    std::optional<double> threshold; // AU pass threshold for this bar's workload, if known
};

std::unique_ptr<QCustomPlot> makeBarPlot(const QString& title, const QString& valueLabel,
                                         const std::vector<BarItem>& bars, const QColor& colour);

struct LineSeries {
    QString name;
    std::vector<double> values; // one per epoch, epoch 1 first
    bool warmup = false;
};

std::unique_ptr<QCustomPlot> makeEpochPlot(const QString& title, const QString& valueLabel,
                                           const std::vector<LineSeries>& series,
                                           std::optional<double> threshold, bool valueFromZero);

// Distinguishable on white and in greyscale print (Tableau 10).
QColor seriesColour(std::size_t index);

} // namespace trainio::ui
