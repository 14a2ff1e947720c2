#include "widgets/wheel_guard.h"

#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QEvent>
#include <QPointer>

namespace trainio::ui {

namespace {

QPointer<WheelGuard>& instance() {
    static QPointer<WheelGuard> guard;
    return guard;
}

// Fields whose value the wheel changes. Scroll bars are sliders too, but take no focus: they keep the
// wheel (they are what scrolls the page).
bool isValueField(const QWidget* w) {
    return (qobject_cast<const QAbstractSpinBox*>(w) || qobject_cast<const QComboBox*>(w) ||
            qobject_cast<const QAbstractSlider*>(w)) &&
           w->focusPolicy() != Qt::NoFocus;
}

} // namespace

void WheelGuard::install() {
    if (instance() || !qApp) return;
    instance() = new WheelGuard(qApp);
    qApp->installEventFilter(instance());
}

bool WheelGuard::isInstalled() { return !instance().isNull(); }

bool WheelGuard::eventFilter(QObject* watched, QEvent* event) {
    if (!watched->isWidgetType()) return false;
    auto* w = static_cast<QWidget*>(watched);
    if (event->type() == QEvent::Polish && isValueField(w) && (w->focusPolicy() & Qt::WheelFocus) == Qt::WheelFocus) {
        // Otherwise a real wheel event would give the field the focus before this filter sees it.
        w->setFocusPolicy(Qt::StrongFocus);
    } else if (event->type() == QEvent::FocusIn) {
        lastPageWheel_.invalidate(); // a field chosen by the user takes the wheel from now on
    } else if (event->type() == QEvent::Wheel) {
        const bool latched = lastPageWheel_.isValid() && lastPageWheel_.elapsed() < kLatchMs;
        if (isValueField(w) && (!w->hasFocus() || latched)) {
            // Ignored and filtered: QApplication then offers the wheel to the parents (the scroll area).
            lastPageWheel_.start();
            event->ignore();
            return true;
        }
        // Anything else the wheel reaches scrolls (or is offered to) the page.
        bool insideField = false;
        for (const QWidget* a = w; a && !insideField; a = a->parentWidget()) insideField = isValueField(a);
        if (!insideField) lastPageWheel_.start();
    }
    return false;
}

} // namespace trainio::ui
