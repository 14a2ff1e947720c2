// Saving a plot as PNG (raster, 2× for high-DPI screens), SVG or PDF (vector, through QCPPainter).
#pragma once

#include <qcustomplot.h>

#include <QString>

namespace trainio::ui {

// A plot with this property set (true) gets its legend shown in the exported file even when it is
// hidden on screen (where the page shows one legend for several plots).
inline constexpr const char* kExportLegendProperty = "trainioExportLegend";

// While alive, the plot's legend stands in a row below the axis rect, never over the data: a legend
// inside the axes (the live plots') and a legend hidden on screen with kExportLegendProperty (the Compare
// page's plots, whose page shows one legend for several) alike. Put back as it was afterwards. savePlot
// uses it; a test can look at the plot meanwhile.
class ExportLegendPlacement {
public:
    explicit ExportLegendPlacement(QCustomPlot* plot);
    ~ExportLegendPlacement();
    ExportLegendPlacement(const ExportLegendPlacement&) = delete;
    ExportLegendPlacement& operator=(const ExportLegendPlacement&) = delete;
    bool moved() const { return row_ >= 0; }

private:
    QCustomPlot* plot_;
    int row_ = -1;
    bool wasVisible_ = false;
    Qt::Alignment alignment_;
    QCPLayoutInset::InsetPlacement placement_ = QCPLayoutInset::ipBorderAligned;
    QRectF rect_;
};

// Picks the format from the file name's suffix (png, svg, pdf). Returns false and sets *error on failure.
bool savePlot(QCustomPlot* plot, const QString& path, QString* error);

} // namespace trainio::ui
