#include "plots/plot_export.h"

#include <qcustomplot.h>

#include <QFileInfo>
#include <QSvgGenerator>

namespace trainio::ui {

ExportLegendPlacement::ExportLegendPlacement(QCustomPlot* plot) : plot_(plot) {
    QCPLegend* legend = plot_->legend;
    if (!legend || legend->itemCount() == 0) return;
    QCPLayoutInset* inset = plot_->axisRect()->insetLayout();
    int at = -1;
    for (int i = 0; i < inset->elementCount(); ++i)
        if (inset->elementAt(i) == legend) at = i;
    if (at < 0) return; // already outside the axes
    wasVisible_ = legend->visible();
    if (!wasVisible_ && !plot_->property(kExportLegendProperty).toBool()) return;
    alignment_ = inset->insetAlignment(at);
    placement_ = inset->insetPlacement(at);
    rect_ = inset->insetRect(at);
    inset->take(legend);
    inset->simplify();
    row_ = plot_->plotLayout()->rowCount();
    plot_->plotLayout()->addElement(row_, 0, legend);
    plot_->plotLayout()->setRowStretchFactor(row_, 0.001);
    legend->setVisible(true);
    plot_->replot(QCustomPlot::rpImmediateRefresh);
}

ExportLegendPlacement::~ExportLegendPlacement() {
    if (row_ < 0) return;
    QCPLegend* legend = plot_->legend;
    plot_->plotLayout()->take(legend);
    plot_->plotLayout()->simplify();
    if (placement_ == QCPLayoutInset::ipFree) plot_->axisRect()->insetLayout()->addElement(legend, rect_);
    else plot_->axisRect()->insetLayout()->addElement(legend, alignment_);
    legend->setVisible(wasVisible_);
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

bool savePlot(QCustomPlot* plot, const QString& path, QString* error) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    const ExportLegendPlacement legend(plot);
    const int w = std::max(plot->width(), 640);
    const int h = std::max(plot->height(), 400);
    bool ok = false;
    if (suffix == QLatin1String("png")) {
        ok = plot->savePng(path, w, h, 2.0);
    } else if (suffix == QLatin1String("pdf")) {
        ok = plot->savePdf(path, w, h);
    } else if (suffix == QLatin1String("svg")) {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(QSize(w, h));
        svg.setViewBox(QRect(0, 0, w, h));
        svg.setTitle(QStringLiteral("TrainIO plot"));
        QCPPainter painter;
        if (painter.begin(&svg)) {
            plot->toPainter(&painter, w, h);
            ok = painter.end();
        }
    } else {
        if (error) *error = QObject::tr("%1: unknown plot format \"%2\" (png, svg or pdf)").arg(path, suffix);
        return false;
    }
    if (!ok && error) *error = QObject::tr("%1: could not be written").arg(path);
    return ok;
}

} // namespace trainio::ui
