#include "plots/plot_theme.h"

#include <qcustomplot.h>

#include <array>

namespace trainio::ui {

bool isDarkPalette(const QPalette& palette) { return palette.color(QPalette::Window).lightness() < 128; }

QColor seriesColor(int index, const QPalette& palette) {
    // Okabe–Ito: distinguishable with the common colour-vision deficiencies.
    static constexpr std::array<QRgb, 8> kLight = {0x0072B2, 0xD55E00, 0x009E73, 0xCC79A7,
                                                   0xE69F00, 0x56B4E9, 0x000000, 0xF0E442};
    QColor c(kLight[static_cast<std::size_t>(index) % kLight.size()]);
    if (isDarkPalette(palette)) {
        if (c == QColor(Qt::black)) c = QColor(0xdddddd);
        c = c.lighter(135);
    }
    return c;
}

void applyPlotTheme(QCustomPlot* plot, const QPalette& palette) {
    const QColor base = palette.color(QPalette::Base);
    const QColor text = palette.color(QPalette::Text);
    QColor grid = text;
    grid.setAlpha(45);
    QColor subGrid = text;
    subGrid.setAlpha(20);
    plot->setBackground(base);
    plot->setAntialiasedElements(QCP::aeNone);
    plot->setNotAntialiasedElements(QCP::aeAll);
    plot->setNoAntialiasingOnDrag(true);
    for (QCPAxis* axis : plot->axisRect()->axes()) {
        axis->setBasePen(QPen(text, 1));
        axis->setTickPen(QPen(text, 1));
        axis->setSubTickPen(QPen(text, 1));
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
        axis->grid()->setSubGridPen(QPen(subGrid, 1, Qt::DotLine));
        axis->grid()->setZeroLinePen(Qt::NoPen);
    }
    plot->legend->setBrush(base);
    plot->legend->setBorderPen(QPen(grid, 1));
    plot->legend->setTextColor(text);
    for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
        if (auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->elementAt(i))) title->setTextColor(text);
}

QPalette projectorPalette() {
    QPalette p;
    const QColor window(0x10, 0x12, 0x16), base(0x16, 0x19, 0x1f), text(0xf2, 0xf2, 0xf2);
    for (QPalette::ColorGroup g : {QPalette::Active, QPalette::Inactive}) {
        p.setColor(g, QPalette::Window, window);
        p.setColor(g, QPalette::Base, base);
        p.setColor(g, QPalette::AlternateBase, window);
        p.setColor(g, QPalette::WindowText, text);
        p.setColor(g, QPalette::Text, text);
        p.setColor(g, QPalette::ButtonText, text);
        p.setColor(g, QPalette::Button, QColor(0x2a, 0x2e, 0x36));
        p.setColor(g, QPalette::Highlight, QColor(0x56, 0xb4, 0xe9));
        p.setColor(g, QPalette::HighlightedText, QColor(Qt::black));
        p.setColor(g, QPalette::PlaceholderText, QColor(0xa0, 0xa0, 0xa0));
        p.setColor(g, QPalette::ToolTipBase, base);
        p.setColor(g, QPalette::ToolTipText, text);
    }
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x80, 0x80, 0x80));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x80, 0x80, 0x80));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x80, 0x80, 0x80));
    p.setColor(QPalette::Disabled, QPalette::Window, window);
    p.setColor(QPalette::Disabled, QPalette::Base, base);
    return p;
}

void applyProjectorPlotTheme(QCustomPlot* plot, int pixelSize) {
    const QPalette palette = projectorPalette();
    applyPlotTheme(plot, palette);
    plot->setAntialiasedElements(QCP::aeAll);
    plot->setNotAntialiasedElements(QCP::aeNone);
    QFont f = plot->font();
    f.setPixelSize(pixelSize);
    QFont small = f;
    small.setPixelSize(std::max(10, pixelSize * 4 / 5));
    for (QCPAxis* axis : plot->axisRect()->axes()) {
        axis->setLabelFont(f);
        axis->setTickLabelFont(small);
        axis->setBasePen(QPen(palette.color(QPalette::Text), 2));
        axis->setTickPen(QPen(palette.color(QPalette::Text), 2));
    }
    plot->legend->setFont(small);
}

void placeLegendBelow(QCustomPlot* plot, int row) {
    plot->legend->setVisible(true);
    plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    if (plot->axisRect()->insetLayout()->elements(false).contains(plot->legend)) plot->axisRect()->insetLayout()->take(plot->legend);
    plot->plotLayout()->addElement(row, 0, plot->legend);
    plot->plotLayout()->setRowStretchFactor(row, 0.001);
}

void syncLegendBelow(QCustomPlot* plot, int row) {
    QCPLayoutGrid* layout = plot->plotLayout();
    const bool placed = layout->elements(false).contains(plot->legend);
    if (plot->legend->itemCount() > 0 && !placed) {
        placeLegendBelow(plot, row);
    } else if (plot->legend->itemCount() == 0 && placed) {
        layout->take(plot->legend);
        layout->simplify(); // its empty row goes
    } else if (!placed && plot->axisRect()->insetLayout()->elements(false).contains(plot->legend)) {
        plot->axisRect()->insetLayout()->take(plot->legend); // empty, out of QCustomPlot's default inset place
    }
}

} // namespace trainio::ui
