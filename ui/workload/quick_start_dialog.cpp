#include "workload/quick_start_dialog.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace trainio::ui {

QuickStartDialog::QuickStartDialog(QWidget* parent) : QDialog(parent) {
    setObjectName(QStringLiteral("quickStart"));
    setWindowTitle(tr("Quick start"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("<h3>Welcome to TrainIO</h3>"
                                "<p>TrainIO emulates a training job's reads and measures how busy the storage keeps "
                                "the accelerators (AU). A first run in three steps:</p>"
                                "<ol><li>load a workload — the small <b>demo</b> preset runs in about a minute;</li>"
                                "<li>or pick an MLPerf Storage preset and <b>shrink it to fit this machine</b> "
                                "(same format, batch, threads and compute time; fewer files);</li>"
                                "<li><b>Generate</b> its dataset (Ctrl+G), then <b>Run</b> (Ctrl+R).</li></ol>"),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    demo_ = new QPushButton(tr("Load the demo preset"), this);
    demo_->setObjectName(QStringLiteral("quickStartDemo"));
    shrink_ = new QPushButton(tr("Shrink to fit this machine"), this);
    shrink_->setObjectName(QStringLiteral("quickStartShrink"));
    guide_ = new QPushButton(tr("Open the user guide (F1)"), this);
    guide_->setObjectName(QStringLiteral("quickStartGuide"));
    for (QPushButton* b : {demo_, shrink_, guide_}) layout->addWidget(b);
    outcome_ = new QLabel(this);
    outcome_->setObjectName(QStringLiteral("quickStartOutcome"));
    outcome_->setWordWrap(true);
    outcome_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(outcome_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(demo_, &QPushButton::clicked, this, &QuickStartDialog::demoRequested);
    connect(shrink_, &QPushButton::clicked, this, &QuickStartDialog::shrinkRequested);
    connect(guide_, &QPushButton::clicked, this, &QuickStartDialog::guideRequested);
    setMinimumWidth(520);
}

void QuickStartDialog::showOutcome(const QString& text) { outcome_->setText(text); }
QString QuickStartDialog::outcome() const { return outcome_->text(); }

} // namespace trainio::ui
