// Saving a plot as PNG (raster, 2× for high-DPI screens), SVG or PDF (vector, through QCPPainter).
#pragma once

#include <QString>

class QCustomPlot;

namespace trainio::ui {

// A plot with this property set (true) gets its legend shown in the exported file even when it is
// hidden on screen (where the page shows one legend for several plots).
inline constexpr const char* kExportLegendProperty = "trainioExportLegend";

// Picks the format from the file name's suffix (png, svg, pdf). Returns false and sets *error on failure.
bool savePlot(QCustomPlot* plot, const QString& path, QString* error);

} // namespace trainio::ui
