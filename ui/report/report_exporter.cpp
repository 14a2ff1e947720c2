#include "report/report_exporter.h"

#include "report/report_writer.h"

#include <qcustomplot.h>

#include <QCoreApplication>
#include <QFileInfo>
#include <QMetaObject>
#include <QProgressDialog>

#include <condition_variable>
#include <mutex>
#include <stdexcept>

namespace trainio::ui {

// The worker asks for a figure and waits; the GUI thread makes and draws it into the worker's painter (the
// worker does not touch the painter meanwhile) and wakes it. `abandoned` (set on the GUI thread when the
// exporter goes) releases a waiting worker and makes a request still queued do nothing.
struct ReportExporter::Handover {
    std::mutex mutex;
    std::condition_variable drawn;
    bool abandoned = false;
};

ReportExporter::ReportExporter(std::shared_ptr<const aggregate::ResultsLibrary> library,
                               std::vector<const aggregate::LibraryNode*> items, const ReportOptions& options,
                               const QString& pdfPath, QWidget* window)
    : QObject(window),
      library_(std::move(library)),
      job_(std::make_shared<ReportPdfJob>(*library_, std::move(items), options, pdfPath)),
      handover_(std::make_shared<Handover>()),
      pdfPath_(pdfPath),
      dialog_(new QProgressDialog(window)) {
    dialog_->setObjectName(QStringLiteral("reportProgress"));
    dialog_->setWindowTitle(tr("Export report"));
    dialog_->setLabelText(tr("Laying out %1…").arg(QFileInfo(pdfPath).fileName()));
    dialog_->setRange(0, 1000);
    // Not modal (issue 32, item 7): the window stays usable while the worker writes — pages, the library,
    // a run — and the exporter keeps its own copy of the library and items, so nothing the user does there
    // changes the report under way. Only this dialog's Cancel stops it.
    dialog_->setWindowModality(Qt::NonModal);
    dialog_->setMinimumDuration(0);
    dialog_->setAutoClose(false);
    dialog_->setAutoReset(false);
    connect(dialog_, &QProgressDialog::canceled, this, &ReportExporter::cancel);
    progressTimer_.setInterval(50);
    connect(&progressTimer_, &QTimer::timeout, this, &ReportExporter::showProgress);
}

ReportExporter::~ReportExporter() {
    job_->cancel();
    {
        const std::lock_guard lock(handover_->mutex);
        handover_->abandoned = true;
    }
    handover_->drawn.notify_all();
    delete dialog_;
}

void ReportExporter::start() {
    running_ = true;
    dialog_->setValue(0);
    dialog_->show();
    progressTimer_.start();
    struct Outcome {
        bool ok = false;
        QString error;
    };
    // Runs on the worker: the figure is made on the GUI thread, in an event-loop turn of its own.
    ReportPageFlow::PlotPainter viaGuiThread = [handover = handover_, job = job_](const PlotRequest& request, QCPPainter& painter) {
        std::unique_lock lock(handover->mutex);
        auto done = std::make_shared<bool>(false);
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [handover, job, done, &request, &painter] {
                const std::lock_guard guard(handover->mutex);
                if (handover->abandoned) return; // the worker no longer waits: request and painter are gone
                paintPlot(request, painter, job->observer());
                *done = true;
                handover->drawn.notify_all();
            },
            Qt::QueuedConnection);
        handover->drawn.wait(lock, [&] { return *done || handover->abandoned; });
        if (!*done) throw std::runtime_error("the export was abandoned");
    };
    worker_.start(
        [job = job_, viaGuiThread, library = library_] {
            Outcome o;
            o.ok = job->layOut(&o.error) && job->write(&o.error, viaGuiThread);
            return o;
        },
        [this](const Outcome& o) {
            running_ = false;
            progressTimer_.stop();
            dialog_->hide();
            emit finished(o.ok, o.error);
        });
}

void ReportExporter::cancel() {
    job_->cancel();
    dialog_->setLabelText(tr("Cancelling…"));
}

bool ReportExporter::wasCancelled() const { return job_->isCancelled(); }

void ReportExporter::showProgress() {
    const int permille = job_->progressPermille();
    if (permille >= 400 && !job_->isCancelled())
        dialog_->setLabelText(tr("Writing %1 pages to %2…").arg(job_->pageCount()).arg(QFileInfo(pdfPath_).fileName()));
    dialog_->setValue(permille);
}

} // namespace trainio::ui
