// A label of one line that its text never widens nor moves: a long text is elided where it is drawn and
// whole in text() (and in the tooltip, where its owner sets one). The line under a form's field for its
// error (reserved whether the message shows or not: issue 21), Test connection's answer (issue 32 item 11)
// and the Results page's library summary, which held the page 1297 px wide at 1280×720 (item 5).
#pragma once

#include <QLabel>
#include <QPainter>

namespace trainio::ui {

class OneLineLabel final : public QLabel {
public:
    explicit OneLineLabel(QWidget* parent) : QLabel(parent) {
        setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
        setWordWrap(false);
    }
    QSize sizeHint() const override { return {0, fontMetrics().height()}; }
    QSize minimumSizeHint() const override { return sizeHint(); }

protected:
    void paintEvent(QPaintEvent*) override {
        QPainter painter(this);
        painter.setPen(palette().color(QPalette::WindowText));
        const QRect room = contentsRect();
        painter.drawText(room, Qt::AlignLeft | Qt::AlignVCenter, fontMetrics().elidedText(text(), Qt::ElideRight, room.width()));
    }
};

} // namespace trainio::ui
