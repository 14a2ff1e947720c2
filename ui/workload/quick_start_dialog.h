// The first start's welcome: three ways in — the small demo workload, shrinking the current workload to
// this machine, the user guide — and what the shrink did. Not modal: the window stays usable behind it.
#pragma once

#include <QDialog>

class QLabel;
class QPushButton;

namespace trainio::ui {

class QuickStartDialog final : public QDialog {
    Q_OBJECT
public:
    explicit QuickStartDialog(QWidget* parent = nullptr);
    void showOutcome(const QString& text); // shown under the buttons (e.g. the shrink summary)
    QString outcome() const;
    QPushButton* demoButton() const { return demo_; }
    QPushButton* shrinkButton() const { return shrink_; }
    QPushButton* guideButton() const { return guide_; }

signals:
    void demoRequested();
    void shrinkRequested();
    void guideRequested();

private:
    QPushButton* demo_;
    QPushButton* shrink_;
    QPushButton* guide_;
    QLabel* outcome_;
};

} // namespace trainio::ui
