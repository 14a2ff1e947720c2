#include "workload/dataset_controller.h"

#include "dataset/dataset_generator.h"
#include "preflight/preflight.h"

#include <QMetaObject>

namespace trainio::ui {

DatasetController::DatasetController(QObject* parent) : QObject(parent) {
    qRegisterMetaType<trainio::ui::DatasetProgress>();
}

DatasetController::~DatasetController() {
    cancel_ = true;
    if (worker_.joinable()) worker_.join();
}

bool DatasetController::start(Operation op, const WorkloadConfig& cfg) {
    if (isBusy()) return false;
    cancel_ = false;
    preflightProblems_.clear();
    worker_ = std::thread([this, op, cfg] {
        bool ok = false;
        bool cancelled = false;
        QString summary;
        std::vector<PreflightProblem> refused;
        try {
            switch (op) {
            case Operation::Generate: {
                PreflightRequest pr;
                pr.action = PreflightAction::Datagen;
                pr.audience = PreflightAudience::Gui;
                const PreflightResult checked = preflight(cfg, pr);
                for (const std::string& w : checked.warnings)
                    QMetaObject::invokeMethod(this, [this, t = QString::fromStdString(w)] { emit warning(t); }, Qt::QueuedConnection);
                if (!checked.ok()) {
                    refused = checked.problems;
                    summary = tr("not started, the pre-flight check failed:\n%1").arg(QString::fromStdString(checked.text()).trimmed());
                    break;
                }
                GenerateOptions opts;
                opts.cancel = &cancel_;
                // Called from the generator's writer threads; only a queued call reaches the GUI.
                opts.onProgress = [this](const GenerationProgress& g) {
                    DatasetProgress p{g.filesDone, g.filesTotal, g.filesSkipped, g.bytesDone, g.bytesTotal, g.seconds};
                    QMetaObject::invokeMethod(this, [this, p] { emit progress(p); }, Qt::QueuedConnection);
                };
                const GenerationResult r = generateDataset(cfg, opts);
                cancelled = r.cancelled;
                ok = !r.cancelled;
                summary = tr("%L1 files written, %L2 already present (skipped), %3 MiB in %4 s%5")
                              .arg(r.filesWritten)
                              .arg(r.filesSkipped)
                              .arg(static_cast<double>(r.bytesWritten) / 1048576.0, 0, 'f', 1)
                              .arg(r.seconds, 0, 'f', 1)
                              .arg(r.cancelled ? tr(" — cancelled; generating again resumes") : QString());
                break;
            }
            case Operation::Verify: {
                const VerifyResult r = verifyDataset(cfg, &cancel_);
                cancelled = cancel_.load();
                ok = !cancelled && r.filesMissing == 0 && r.filesBad == 0;
                summary = tr("%L1 files good, %L2 missing, %L3 bad").arg(r.filesOk).arg(r.filesMissing).arg(r.filesBad);
                for (std::size_t i = 0; i < r.problems.size() && i < 50; ++i)
                    summary += QLatin1Char('\n') + QString::fromStdString(r.problems[i]);
                if (r.problems.size() > 50) summary += tr("\n… and %L1 more").arg(r.problems.size() - 50);
                break;
            }
            case Operation::Clean: {
                const CleanResult r = cleanDataset(cfg);
                ok = true;
                summary = tr("%L1 files and %L2 folders removed").arg(r.filesRemoved).arg(r.dirsRemoved);
                break;
            }
            }
        } catch (const std::exception& e) {
            ok = false;
            summary = QString::fromUtf8(e.what());
        }
        QMetaObject::invokeMethod(
            this,
            [this, op, ok, cancelled, summary, refused] {
                if (worker_.joinable()) worker_.join();
                preflightProblems_ = refused;
                emit finished(op, ok, cancelled, summary);
            },
            Qt::QueuedConnection);
    });
    return true;
}

} // namespace trainio::ui
