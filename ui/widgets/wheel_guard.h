// The mouse wheel changes a field only when the field has the keyboard focus. Scrolling a long form
// with the wheel must not change whichever spin box, combo box or slider passes under the pointer; the
// wheel then scrolls the page instead. And while the page is being scrolled, a focused field that the
// scrolling brings under the pointer does not take the wheel over: wheel events within kLatchMs of the
// last one that scrolled the page keep scrolling it (a value the user did not look at never changes),
// until the user gives a field the focus. One application-wide event filter, installed once.
#pragma once

#include <QElapsedTimer>
#include <QObject>

namespace trainio::ui {

class WheelGuard final : public QObject {
    Q_OBJECT
public:
    // Installs the guard on the application (once, however often it is called).
    static void install();
    static bool isInstalled();
    static constexpr int kLatchMs = 500;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    explicit WheelGuard(QObject* parent) : QObject(parent) {}
    QElapsedTimer lastPageWheel_; // invalid: no page scroll to latch to
};

} // namespace trainio::ui
