// Saving a plot as PNG (raster, 2× for high-DPI screens), SVG or PDF (vector, through QCPPainter).
#pragma once

#include <QString>

class QCustomPlot;

namespace trainio::ui {

// Picks the format from the file name's suffix (png, svg, pdf). Returns false and sets *error on failure.
bool savePlot(QCustomPlot* plot, const QString& path, QString* error);

} // namespace trainio::ui
