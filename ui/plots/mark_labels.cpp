#include "plots/mark_labels.h"

#include <qcustomplot.h>

#include <QFontMetricsF>

#include <algorithm>
#include <cmath>
#include <vector>

namespace trainio::ui {

namespace {
const char* const kSideProperty = "markSide";

// The y axis's ticks up to the data's top only: the band the labels stand in carries no numbers (an AU
// axis reads up to 100, not 150).
class CappedTicker final : public QCPAxisTicker {
public:
    double cap = 0;

protected:
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override {
        QVector<double> ticks = QCPAxisTicker::createTickVector(tickStep, range);
        ticks.erase(std::remove_if(ticks.begin(), ticks.end(), [this](double t) { return t > cap * (1 + 1e-9) + 1e-12; }), ticks.end());
        return ticks;
    }
};
} // namespace

void setMarkLabel(QCPItemText* text, Qt::Alignment side) {
    text->setProperty(kSideProperty, static_cast<int>(side & Qt::AlignHorizontal_Mask));
    text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    text->setPositionAlignment(side | Qt::AlignTop);
}

void layOutMarkLabels(QCustomPlot* p, int maxRows, double dataTop) {
    QCPAxisRect* axes = p->axisRect();
    const QRectF area = axes->rect();
    if (area.height() <= 0 || area.width() <= 0) return;
    std::vector<QCPItemText*> labels;
    for (int i = p->itemCount() - 1; i >= 0; --i) // newest first
        if (auto* t = qobject_cast<QCPItemText*>(p->item(i)); t && t->property(kSideProperty).isValid()) labels.push_back(t);
    if (labels.empty()) return;
    std::vector<QRectF> placed;
    double line = 0; // one row: the tallest label and 2 px
    for (QCPItemText* t : labels)
        line = std::max(line, QFontMetricsF(t->font()).height() + t->padding().top() + t->padding().bottom() + 2);
    // Above the data, the rows take at most 40 % of the axes' height: the curve keeps the rest.
    if (dataTop > 0) maxRows = std::min(maxRows, static_cast<int>((area.height() * 0.4 - 4) / line));
    int rowsUsed = 0;
    for (QCPItemText* t : labels) {
        const QFontMetricsF fm(t->font());
        const QMargins pad = t->padding();
        const QSizeF size(fm.horizontalAdvance(t->text()) + pad.left() + pad.right() + 2, fm.height() + pad.top() + pad.bottom());
        const double x = p->xAxis->coordToPixel(t->position->key());
        const auto side = static_cast<Qt::Alignment>(t->property(kSideProperty).toInt());
        // Its preferred side of the line, else the other; never across the axes' left or right edge.
        const double leftOf = x - size.width(), rightOf = x;
        std::vector<std::pair<double, Qt::Alignment>> sides = {{leftOf, Qt::AlignRight}, {rightOf, Qt::AlignLeft}};
        if (side != Qt::AlignRight) std::swap(sides[0], sides[1]);
        bool done = false;
        for (int row = 0; row < maxRows && !done; ++row) {
            const double top = area.top() + 2 + row * line;
            if (top + size.height() > area.bottom()) break;
            for (const auto& [left, align] : sides) {
                const QRectF r(left, top, size.width(), size.height());
                if (r.left() < area.left() || r.right() > area.right()) continue;
                // A few pixels apart, so that two labels either side of one line do not read as one.
                const QRectF clear = r.adjusted(-4, 0, 4, 0);
                if (std::any_of(placed.begin(), placed.end(), [&](const QRectF& o) { return o.intersects(clear); })) continue;
                placed.push_back(r);
                rowsUsed = std::max(rowsUsed, row + 1);
                t->setPositionAlignment(align | Qt::AlignTop);
                t->position->setCoords(t->position->key(), (top - area.top()) / area.height());
                done = true;
                break;
            }
        }
        t->setVisible(done);
    }
    if (dataTop > 0 && rowsUsed > 0) {
        // The rows' band above dataTop: dataTop's pixel at the band's bottom edge.
        const double band = 4 + rowsUsed * line;
        const QCPRange range = p->yAxis->range();
        if (band < area.height() * 0.5) {
            const double upper = range.lower + (dataTop - range.lower) * area.height() / (area.height() - band);
            if (std::abs(upper - range.upper) > 1e-9) p->yAxis->setRange(range.lower, upper);
            auto capped = p->yAxis->ticker().dynamicCast<CappedTicker>();
            if (!capped) {
                capped.reset(new CappedTicker);
                capped->setTickCount(p->yAxis->ticker()->tickCount());
                p->yAxis->setTicker(capped);
            }
            capped->cap = dataTop;
        }
    }
}

} // namespace trainio::ui
