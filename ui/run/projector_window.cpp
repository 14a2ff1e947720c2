#include "run/projector_window.h"

#include "plots/plot_theme.h"

#include <QCloseEvent>
#include <QKeyEvent>
#include <QScreen>
#include <QShortcut>

namespace trainio::ui {

QString deliveredRateText(std::optional<double> bytes, QString* other) {
    if (!bytes) {
        if (other) other->clear();
        return QStringLiteral("—");
    }
    const double gib = *bytes / (1024.0 * 1024.0 * 1024.0), mib = *bytes / (1024.0 * 1024.0);
    const QString gibText = QObject::tr("%1 GiB/s").arg(gib, 0, 'f', gib < 10 ? 2 : 1);
    const QString mibText = QObject::tr("%L1 MiB/s").arg(mib, 0, 'f', mib < 10 ? 2 : mib < 100 ? 1 : 0);
    if (other) *other = gib >= 1 ? mibText : gibText;
    return gib >= 1 ? gibText : mibText;
}

ProjectorWindow::ProjectorWindow(QWidget* parent, const QString& objectName, const QString& title) : QWidget(parent, Qt::Window) {
    setObjectName(objectName);
    setWindowTitle(title);
    setPalette(projectorPalette());
    setAutoFillBackground(true);
    setFocusPolicy(Qt::StrongFocus);
    // Its own window's shortcuts: Esc here leaves the view (in the main window it cancels the run).
    for (const QKeySequence& key : {QKeySequence(Qt::Key_Escape), QKeySequence(Qt::Key_F11)}) {
        auto* shortcut = new QShortcut(key, this);
        shortcut->setContext(Qt::WindowShortcut);
        connect(shortcut, &QShortcut::activated, this, &ProjectorWindow::leave);
    }
}

void ProjectorWindow::present() {
    beforePresent();
    // The screen of the window it was opened from (a projector is often the second screen the main
    // window was moved to); its whole area also where no window manager makes full screen so.
    if (QWidget* from = parentWidget() ? parentWidget()->window() : nullptr; from && from->screen()) {
        setScreen(from->screen());
        setGeometry(from->screen()->geometry());
    }
    showFullScreen();
    raise();
    activateWindow();
    setFocus();
}

void ProjectorWindow::leave() {
    if (isVisible()) close();
}

void ProjectorWindow::keyPressEvent(QKeyEvent* event) {
    // Also when the shortcuts do not fire (the window not active yet): Esc and F11 reach the window from
    // whichever of its widgets has the focus (none of them uses these keys).
    if (event->key() == Qt::Key_Escape || event->key() == Qt::Key_F11) {
        leave();
        return;
    }
    QWidget::keyPressEvent(event);
}

void ProjectorWindow::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    scaleFonts();
}

void ProjectorWindow::closeEvent(QCloseEvent* event) {
    QWidget::closeEvent(event);
    emit closed();
}

} // namespace trainio::ui
