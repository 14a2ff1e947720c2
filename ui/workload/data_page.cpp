#include "workload/data_page.h"

#include "widgets/qt_text.h"
#include "io/s3_backend.h"

#include "workload/preflight_dialog.h"

#include <QDir>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QStyle>
#include <QTime>
#include <QVBoxLayout>

namespace trainio::ui {

namespace {

QString operationName(DatasetController::Operation op) {
    switch (op) {
    case DatasetController::Operation::Generate: return QObject::tr("Generation");
    case DatasetController::Operation::Verify: return QObject::tr("Verification");
    case DatasetController::Operation::Clean: return QObject::tr("Clean");
    }
    return {};
}

} // namespace

DataPage::DataPage(QWidget* parent) : QWidget(parent), controller_(new DatasetController(this)) {
    auto* layout = new QVBoxLayout(this);
    auto* info = new QGroupBox(tr("Dataset of the current workload"), this);
    auto* form = new QFormLayout(info);
    folder_ = new QLabel(info);
    folder_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    shape_ = new QLabel(info);
    shape_->setObjectName(QStringLiteral("datasetShape"));
    shape_->setWordWrap(true);
    form->addRow(tr("Folder:"), folder_);
    form->addRow(tr("Shape:"), shape_);
    layout->addWidget(info);

    auto* buttons = new QHBoxLayout;
    generate_ = new QPushButton(style()->standardIcon(QStyle::SP_DriveHDIcon), tr("Generate"), this);
    generate_->setToolTip(tr("Write every file in DLIO's layout with parallel writers; files already complete are kept, "
                             "so an interrupted generation resumes"));
    verify_ = new QPushButton(style()->standardIcon(QStyle::SP_DialogApplyButton), tr("Verify"), this);
    verify_->setToolTip(tr("Check that every file is present, of the expected size, and parses"));
    clean_ = new QPushButton(style()->standardIcon(QStyle::SP_TrashIcon), tr("Clean…"), this);
    clean_->setToolTip(tr("Delete what TrainIO generated in this folder (nothing else)"));
    cancel_ = new QPushButton(style()->standardIcon(QStyle::SP_BrowserStop), tr("Cancel"), this);
    for (QPushButton* b : {generate_, verify_, clean_, cancel_}) buttons->addWidget(b);
    buttons->addStretch();
    layout->addLayout(buttons);

    bar_ = new QProgressBar(this);
    bar_->setObjectName(QStringLiteral("datasetProgress"));
    bar_->setRange(0, 1000);
    bar_->setValue(0);
    bar_->setFormat(QStringLiteral("%p %"));
    layout->addWidget(bar_);
    rate_ = new QLabel(tr("Idle."), this);
    rate_->setObjectName(QStringLiteral("datasetRate"));
    layout->addWidget(rate_);
    log_ = new QPlainTextEdit(this);
    log_->setReadOnly(true);
    log_->setPlaceholderText(tr("Results of generate, verify and clean appear here."));
    layout->addWidget(log_, 1);

    connect(generate_, &QPushButton::clicked, this, &DataPage::generate);
    connect(verify_, &QPushButton::clicked, this, &DataPage::verify);
    connect(clean_, &QPushButton::clicked, this, [this] {
        // Non-modal confirmation: the GUI thread never blocks in a nested event loop.
        auto* box = new QMessageBox(QMessageBox::Question, tr("Clean dataset"),
                                    tr("Delete the files TrainIO generated in %1?").arg(folder_->text()),
                                    QMessageBox::Yes | QMessageBox::Cancel, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        connect(box, &QMessageBox::accepted, this, &DataPage::clean);
        box->open();
    });
    connect(cancel_, &QPushButton::clicked, this, &DataPage::cancel);
    connect(controller_, &DatasetController::progress, this, &DataPage::showProgress);
    connect(controller_, &DatasetController::finished, this, &DataPage::onFinished);
    connect(controller_, &DatasetController::warning, this, [this](const QString& text) {
        log_->appendPlainText(QStringLiteral("[%1] warning: %2").arg(QTime::currentTime().toString(), text));
        emit notify(Severity::Warning, tr("warning: %1").arg(text));
    });
    setBusy(false);
}

void DataPage::setWorkload(const WorkloadConfig& cfg) {
    // While an operation runs, the page stays on the dataset it works on (its progress is about that one).
    if (controller_->isBusy()) {
        pending_ = cfg;
        return;
    }
    pending_.reset();
    showDataset(cfg);
}

void DataPage::showDataset(const WorkloadConfig& cfg) {
    config_ = cfg;
    if (cfg.storage.isS3()) {
        folder_->setText(QString::fromStdString(s3DatasetLocation(cfg))); // objects of a bucket (docs/s3.md)
    } else {
        folder_->setText(QDir::toNativeSeparators(QString::fromStdString(cfg.dataset.dataFolder)));
    }
    const double fileBytes = cfg.dataset.recordLength * static_cast<double>(cfg.dataset.numSamplesPerFile);
    // Counts agree with their nouns ("× 1 sample", "1 subfolder").
    const auto count = [](std::uint64_t n, const QString& one, const QString& many) {
        return QStringLiteral("%L1 %2").arg(n).arg(n == 1 ? one : many);
    };
    shape_->setText(tr("%1 × %2 of %L3 bytes (± %L4), format %5, %6 — about %7 MiB")
                        .arg(count(cfg.dataset.numFilesTrain, tr("training file"), tr("training files")))
                        .arg(count(cfg.dataset.numSamplesPerFile, tr("sample"), tr("samples")))
                        .arg(cfg.dataset.recordLength, 0, 'f', 0)
                        .arg(cfg.dataset.recordLengthStdev, 0, 'f', 0)
                        .arg(QString::fromUtf8(toString(cfg.dataset.format)))
                        .arg(count(cfg.dataset.numSubfoldersTrain, tr("subfolder"), tr("subfolders")))
                        .arg(fileBytes * static_cast<double>(cfg.dataset.numFilesTrain) / 1048576.0, 0, 'f', 1));
    // The status line follows the dataset (issue 32 item 11): what was said about the one shown before is
    // kept for it, and this one's own status comes back.
    const QString key = folder_->text() + QLatin1Char('\n') + shape_->text();
    if (key == datasetKey_) return;
    if (!datasetKey_.isEmpty()) statusByDataset_.insert(datasetKey_, Status{rate_->text(), bar_->value()});
    datasetKey_ = key;
    const Status s = statusByDataset_.value(
        key, Status{tr("Not generated, verified or cleaned from here since TrainIO started: Verify checks what this location holds."), 0});
    rate_->setText(s.line);
    bar_->setValue(s.bar);
}

QString DataPage::statusText() const { return rate_->text(); }

void DataPage::generate() { begin(DatasetController::Operation::Generate); }
void DataPage::verify() { begin(DatasetController::Operation::Verify); }
void DataPage::clean() { begin(DatasetController::Operation::Clean); }
void DataPage::cancel() { controller_->cancel(); }

void DataPage::begin(DatasetController::Operation op) {
    if (controller_->isBusy()) return;
    bar_->setValue(0);
    rate_->setText(tr("%1 running…").arg(operationName(op)));
    // Verify and clean report no progress: a busy indicator instead of a bar stuck at zero.
    bar_->setRange(0, op == DatasetController::Operation::Generate ? 1000 : 0);
    setBusy(true);
    controller_->start(op, config_);
}

void DataPage::showProgress(const DatasetProgress& p) {
    const double fraction = p.bytesTotal ? static_cast<double>(p.bytesDone) / static_cast<double>(p.bytesTotal) : 0.0;
    bar_->setValue(static_cast<int>(fraction * 1000.0));
    const double mib = static_cast<double>(p.bytesDone) / 1048576.0;
    const double rate = p.seconds > 0 ? mib / p.seconds : 0.0;
    const double eta = fraction > 0 ? p.seconds * (1.0 - fraction) / fraction : -1;
    rate_->setText(tr("%L1 / %L2 files (%L3 skipped) · %4 MiB of %5 MiB · %6 MiB/s · elapsed %7 · ETA %8")
                       .arg(p.filesDone)
                       .arg(p.filesTotal)
                       .arg(p.filesSkipped)
                       .arg(mib, 0, 'f', 1)
                       .arg(static_cast<double>(p.bytesTotal) / 1048576.0, 0, 'f', 1)
                       .arg(rate, 0, 'f', 1)
                       .arg(clockDuration(p.seconds), clockDuration(eta)));
}

void DataPage::onFinished(DatasetController::Operation op, bool ok, bool cancelled, const QString& summary) {
    setBusy(false);
    bar_->setRange(0, 1000);
    if (ok) bar_->setValue(1000);
    lastSummary_ = summary;
    const bool refused = !controller_->preflightProblems().empty();
    if (refused) showPreflightProblems(this, operationName(op), controller_->preflightProblems());
    const QString head = cancelled ? tr("%1 cancelled").arg(operationName(op))
                         : refused ? tr("%1 not started").arg(operationName(op))
                         : ok      ? tr("%1 finished").arg(operationName(op))
                                   : tr("%1 failed").arg(operationName(op));
    // Keep the last progress line (files, MiB/s, time): it is the rate the user wanted to see.
    const QString last = op == DatasetController::Operation::Generate ? rate_->text() : QString();
    rate_->setText(last.contains(QLatin1String("MiB/s")) ? head + QStringLiteral(" — ") + last : head + QLatin1Char('.'));
    log_->appendPlainText(QStringLiteral("[%1] %2: %3").arg(QTime::currentTime().toString(), head, summary));
    emit notify(ok ? Severity::Info : (cancelled ? Severity::Warning : Severity::Error), head + QStringLiteral(": ") + summary);
    if (pending_) { // the workload changed during the operation: its dataset now
        const WorkloadConfig next = *pending_;
        pending_.reset();
        showDataset(next);
    }
}

void DataPage::setBusy(bool busy) {
    generate_->setEnabled(!busy);
    verify_->setEnabled(!busy);
    clean_->setEnabled(!busy);
    cancel_->setEnabled(busy);
}

} // namespace trainio::ui
