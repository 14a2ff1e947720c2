// The mouse wheel changes a field only when the field has the keyboard focus. Scrolling a long form
// with the wheel must not change whichever spin box, combo box or slider passes under the pointer; the
// wheel then scrolls the page instead. One application-wide event filter, installed once.
#pragma once

#include <QObject>

namespace trainio::ui {

class WheelGuard final : public QObject {
    Q_OBJECT
public:
    // Installs the guard on the application (once, however often it is called).
    static void install();
    static bool isInstalled();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    explicit WheelGuard(QObject* parent) : QObject(parent) {}
};

} // namespace trainio::ui
