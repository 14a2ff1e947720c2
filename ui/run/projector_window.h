// A window for an audience (the presentation view, the race and replay view): full screen on the screen of
// the window it was opened from, the projector's dark theme, Esc or F11 to leave, its fonts following its
// size (scaleFonts on every resize).
#pragma once

#include <QString>
#include <QWidget>

#include <optional>

namespace trainio::ui {

// Bytes per second as a room reads it: GiB/s from 1 GiB/s up, else MiB/s ("2.0 MiB/s" on a throttled
// device, not "0.00 GiB/s"); *other (when given) the same rate in the other unit. "—" when unknown.
QString deliveredRateText(std::optional<double> bytesPerSecond, QString* other = nullptr);

class ProjectorWindow : public QWidget {
    Q_OBJECT
public:
    // Full screen over the opening window's screen, or back.
    void present();
    void leave();

signals:
    void closed();

protected:
    ProjectorWindow(QWidget* parent, const QString& objectName, const QString& title);
    // Sizes every font and figure for the window's size.
    virtual void scaleFonts() = 0;
    // Brings the figures up to date before the window is shown.
    virtual void beforePresent() {}

    void keyPressEvent(QKeyEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void closeEvent(QCloseEvent* event) override;
};

} // namespace trainio::ui
