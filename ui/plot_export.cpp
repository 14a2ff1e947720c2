#include "plot_export.h"

#include <qcustomplot.h>

#include <QFileInfo>
#include <QSvgGenerator>

namespace trainio::ui {

bool savePlot(QCustomPlot* plot, const QString& path, QString* error) {
    const QString suffix = QFileInfo(path).suffix().toLower();
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
