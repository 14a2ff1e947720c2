#include "plot_export.h"

#include <qcustomplot.h>

#include <QFileInfo>
#include <QSvgGenerator>

namespace trainio::ui {

namespace {

// A plot whose legend lives beside it on screen (the Compare page's plots) shows it in the file, in a
// row below the axis rect (never over the data): an exported plot names its items itself. On screen
// the hidden legend stays in the axis rect's inset layout, where it takes no room.
class ExportLegend {
public:
    explicit ExportLegend(QCustomPlot* plot) : plot_(plot) {
        QCPLegend* legend = plot_->legend;
        if (!legend || legend->visible() || !plot_->property(kExportLegendProperty).toBool() || legend->itemCount() == 0) return;
        plot_->axisRect()->insetLayout()->take(legend);
        row_ = plot_->plotLayout()->rowCount();
        plot_->plotLayout()->addElement(row_, 0, legend);
        plot_->plotLayout()->setRowStretchFactor(row_, 0.001);
        legend->setVisible(true);
        plot_->replot(QCustomPlot::rpImmediateRefresh);
    }
    ~ExportLegend() {
        if (row_ < 0) return;
        QCPLegend* legend = plot_->legend;
        plot_->plotLayout()->take(legend);
        plot_->plotLayout()->simplify();
        plot_->axisRect()->insetLayout()->addElement(legend, Qt::AlignTop | Qt::AlignRight);
        legend->setVisible(false);
        plot_->replot(QCustomPlot::rpQueuedReplot);
    }
    ExportLegend(const ExportLegend&) = delete;
    ExportLegend& operator=(const ExportLegend&) = delete;

private:
    QCustomPlot* plot_;
    int row_ = -1;
};

} // namespace

bool savePlot(QCustomPlot* plot, const QString& path, QString* error) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    const ExportLegend legend(plot);
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
