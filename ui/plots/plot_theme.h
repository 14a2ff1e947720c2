// Colours for QCustomPlot taken from the widget palette, so that plots stay legible in light and dark
// themes, and the fast-drawing defaults the live plots need (pen width 1, no antialiasing).
#pragma once

#include <QColor>
#include <QPalette>

class QCustomPlot;

namespace trainio::ui {

// Applies background, axis, grid and legend colours from `palette` and turns antialiasing off.
void applyPlotTheme(QCustomPlot* plot, const QPalette& palette);

// A colour for series i that stands out on the palette's base colour (a qualitative palette, lighter
// variants on dark backgrounds).
QColor seriesColor(int index, const QPalette& palette);

// The plot's legend in its own row `row` under the axes (where it hides no data), entries filled along the row.
void placeLegendBelow(QCustomPlot* plot, int row);
// The same, for a plot whose series come and go: the legend's row is there only while it has entries.
// QCustomPlot caps a layout column at its elements' smallest maximum width, and an empty legend's is its
// margins: the axes of a plot with no series yet were drawn 50 px wide in a 1000 px plot (issue 32 item 9).
// Call after adding or removing series.
void syncLegendBelow(QCustomPlot* plot, int row);

// True when the palette's window colour is dark.
bool isDarkPalette(const QPalette& palette);

// For a projector (the presentation view): near-black background, light text, strong accent colours —
// a projector washes out light backgrounds and thin, pale lines.
QPalette projectorPalette();
// The plot theme on the projector palette with fonts of `pixelSize` px and lines 3 px wide (antialiased:
// few points, drawn large).
void applyProjectorPlotTheme(QCustomPlot* plot, int pixelSize);

} // namespace trainio::ui
