#include "run_controller.h"

#include "engine_bridge.h"
#include "run_controller_mpi.h"
#include "checkpoint/checkpoint_plan.h"
#include "checkpoint/checkpoint_run.h"
#include "dataset/dataset_generator.h"
#include "preflight/preflight.h"
#include "results/benchmark_runner.h"
#include "util/errors.h"

#include <QMetaObject>

namespace trainio::ui {

namespace {

// DLIO's checkpoint-only mode reads no dataset: the CLI (app/cli/commands.cpp runCheckpointInvocation)
// checks the checkpoint instead of the dataset, and so does the window — model and parallelism DLIO would
// refuse, reads beyond writes, the checkpoint folder, free space, emulated accelerator memory.
PreflightResult checkpointPreflightResult(const WorkloadConfig& cfg, std::uint64_t accelerators) {
    PreflightResult r;
    try {
        const checkpoint::CheckpointPlan plan = checkpoint::planCheckpoint(cfg, accelerators);
        checkpoint::checkpointPreflight(cfg, plan, checkpoint::checkpointsToWrite(cfg));
    } catch (const InputError& e) {
        r.problems.push_back({"checkpoint", e.what(), "a checkpoint that can be written as configured"});
    }
    return r;
}

} // namespace

RunController::RunController(QObject* parent) : QObject(parent), bridge_(new EngineBridge(this)) {
    qRegisterMetaType<trainio::ui::RunFinish>();
    qRegisterMetaType<trainio::checkpoint::CheckpointEvent>();
    drainTimer_.setInterval(100);
    connect(&drainTimer_, &QTimer::timeout, this, &RunController::drainSteps);
    connect(bridge_, &EngineBridge::epochFinished, this, [this](const EpochEvent& e) {
        drainSteps(); // the epoch's steps first, so plots never show an epoch ahead of its steps
        emit epochFinished(e);
    });
    connect(bridge_, &EngineBridge::phaseChanged, this, &RunController::phaseChanged);
    connect(bridge_, &EngineBridge::message, this, &RunController::message);
}

RunController::~RunController() {
    cancel_ = true;
    cancelRequests_ = 2; // nobody waits for an MPI job's folder any more: kill mpirun

    if (worker_.joinable()) worker_.join();
}

bool RunController::start(const RunRequest& request) {
    if (isRunning()) {
        emit message(tr("A run is already in progress."));
        return false;
    }
    if (request.outputDir.empty()) {
        emit finished(RunFinish{false, false, tr("No output folder chosen."), {}, {}});
        return false;
    }
    cancel_ = false;
    cancelRequests_ = 0;
    invocationCount_ = request.benchmark ? request.runs + request.warmups : 1;
    bridge_->takeSteps();
    const QString dir = QString::fromStdString(request.outputDir.string());

    // Callbacks from the worker thread reach the GUI thread only through queued invocations on `this`.
    worker_ = std::thread([this, request, dir] {
        RunFinish result;
        result.outputDir = dir;
        try {
            // Pre-flight stats the dataset and probes the output folder: on a large or remote tree that
            // takes long enough to freeze the window, so it runs here rather than in start().
            PreflightRequest pr;
            pr.action = request.benchmark ? PreflightAction::Benchmark : PreflightAction::Run;
            pr.audience = PreflightAudience::Gui; // "generate it on the Data page", not "run datagen first"
            pr.accelerators = request.accelerators;
            pr.output = request.outputDir;
            pr.invocations = request.benchmark ? request.runs + request.warmups : 1;
            const bool checkpointOnly = !request.config.workflow.train && request.config.workflow.checkpoint;
            // workflow.generate_data: as the command line does, the dataset is generated first (so the
            // pre-flight checks the room it needs), then checked like any other before it is measured.
            // (Under mpirun the command line every process runs generates, as it does when typed.)
            pr.generateFirst = request.config.workflow.generateData && !checkpointOnly;
            const bool generateFirst = pr.generateFirst && !request.mpi;
            PreflightResult checked = checkpointOnly ? checkpointPreflightResult(request.config, request.accelerators)
                                                     : preflight(request.config, pr);
            if (request.mpi) addMpiPreflight(request, checked);
            std::vector<std::string> warnings = checkpointOnly ? std::vector<std::string>{}
                                                               : runWarnings(request.config, request.accelerators);
            warnings.insert(warnings.end(), checked.warnings.begin(), checked.warnings.end());
            QMetaObject::invokeMethod(
                this,
                [this, warnings] {
                    for (const auto& w : warnings) emit message(tr("warning: %1").arg(QString::fromStdString(w)));
                },
                Qt::QueuedConnection);
            if (!checked.ok() || cancel_) {
                result.preflightProblems = checked.problems;
                result.cancelled = checked.ok();
                if (!checked.ok())
                    result.error = tr("pre-flight check failed:\n%1").arg(QString::fromStdString(checked.text()).trimmed());
                QMetaObject::invokeMethod(this, [this, result] { onWorkerDone(result); }, Qt::QueuedConnection);
                return;
            }
            if (generateFirst) {
                GenerateOptions g;
                g.cancel = &cancel_;
                g.io = request.io;
                auto lastShown = std::make_shared<double>(-1.0);
                g.onProgress = [this, lastShown](const GenerationProgress& gp) {
                    // At most one line a second (and the last): the Messages panel is not a progress bar.
                    if (gp.filesDone < gp.filesTotal && gp.seconds - *lastShown < 1.0) return;
                    *lastShown = gp.seconds;
                    QMetaObject::invokeMethod(
                        this,
                        [this, m = tr("generating the dataset (workflow.generate_data): %1 of %2 files, %3 MiB")
                                       .arg(gp.filesDone)
                                       .arg(gp.filesTotal)
                                       .arg(static_cast<double>(gp.bytesDone) / 1048576.0, 0, 'f', 1)] { emit message(m); },
                        Qt::QueuedConnection);
                };
                const GenerationResult gen = generateDataset(request.config, g);
                if (gen.cancelled || cancel_) {
                    result.cancelled = true;
                    QMetaObject::invokeMethod(this, [this, result] { onWorkerDone(result); }, Qt::QueuedConnection);
                    return;
                }
                // What was just generated is checked as any dataset is, before it is measured.
                WorkloadConfig generated = request.config;
                generated.workflow.generateData = false;
                PreflightRequest again = pr;
                again.generateFirst = false;
                const PreflightResult rechecked = preflight(generated, again);
                if (!rechecked.ok()) {
                    result.preflightProblems = rechecked.problems;
                    result.error = tr("pre-flight check failed:\n%1").arg(QString::fromStdString(rechecked.text()).trimmed());
                    QMetaObject::invokeMethod(this, [this, result] { onWorkerDone(result); }, Qt::QueuedConnection);
                    return;
                }
            }
            QMetaObject::invokeMethod(this, [this, dir] {
                drainTimer_.start();
                emit started(dir);
            }, Qt::QueuedConnection);
            if (request.mpi) {
                result = runMpi(request, dir);
                QMetaObject::invokeMethod(this, [this, result] { onWorkerDone(result); }, Qt::QueuedConnection);
                return;
            }

            InvocationOptions io;
            io.accelerators = request.accelerators;
            io.semantics = request.semantics;
            io.observer = bridge_;
            io.cancel = &cancel_;
            io.io = request.io;
            io.commandLine = "trainio (desktop)";
            io.labels = request.labels;
            io.warnings = warnings; // at the head of the invocation's log too
            // Called on this worker thread: the device crosses to the GUI thread, where the live controls
            // act on it (its setters are thread-safe). Queued in order, so an invocation's null comes
            // before the next invocation's device.
            io.onStorage = [this](std::shared_ptr<EmulatedStorageBackend> device) {
                QMetaObject::invokeMethod(
                    this,
                    [this, device = std::move(device)] {
                        storage_ = device;
                        emit storageChanged();
                    },
                    Qt::QueuedConnection);
            };
            // Called on the sampler's and the engine's threads: queued to this (GUI) thread.
            io.onTelemetry = [this](const telemetry::TelemetryPoint& point) {
                QMetaObject::invokeMethod(this, [this, point] { emit telemetry(point); }, Qt::QueuedConnection);
            };
            io.onEpochCache = [this](std::uint64_t epoch, double percent) {
                QMetaObject::invokeMethod(this, [this, epoch, percent] { emit epochCache(epoch, percent); }, Qt::QueuedConnection);
            };
            io.onCheckpoint = [this](const checkpoint::CheckpointEvent& e) { postCheckpoint(e); };
            // What a result must say beside its numbers (page cache served it, client-bound, fallbacks).
            auto postWarnings = [this](const QString& label, const std::vector<std::string>& ws) {
                for (const auto& w : ws)
                    QMetaObject::invokeMethod(
                        this, [this, m = tr("%1: warning: %2").arg(label, QString::fromStdString(w))] { emit message(m); },
                        Qt::QueuedConnection);
            };
            if (!request.benchmark) {
                QMetaObject::invokeMethod(this, [this, dir] { emit invocationStarted(tr("invocation"), dir, 0); },
                                          Qt::QueuedConnection);
                const RunOutcome out = runInvocation(request.config, request.outputDir, io);
                postWarnings(tr("invocation"), out.warnings);
                const QString status = QString::fromUtf8(toString(out.status));
                const double au = out.metrics.auMean;
                QMetaObject::invokeMethod(
                    this, [this, dir, status, au] { emit invocationFinished(tr("invocation"), dir, status, au); },
                    Qt::QueuedConnection);
                result.complete = out.status == RunStatus::Complete;
                result.cancelled = out.status == RunStatus::Cancelled;
                result.error = QString::fromStdString(out.error);
            } else {
                BenchmarkOptions bo;
                bo.invocation = io;
                bo.runs = request.runs;
                bo.warmups = request.warmups;
                auto index = std::make_shared<int>(0);
                bo.onInvocationStart = [this, index](const std::string& label, const std::filesystem::path& d) {
                    const int i = (*index)++;
                    QMetaObject::invokeMethod(
                        this,
                        [this, l = QString::fromStdString(label), p = QString::fromStdString(d.string()), i] {
                            emit invocationStarted(l, p, i);
                        },
                        Qt::QueuedConnection);
                };
                bo.onInvocationDone = [this, postWarnings](const std::string& label, const std::filesystem::path& d,
                                                           const RunOutcome& out) {
                    postWarnings(QString::fromStdString(label), out.warnings);
                    QMetaObject::invokeMethod(
                        this,
                        [this, l = QString::fromStdString(label), p = QString::fromStdString(d.string()),
                         s = QString::fromUtf8(toString(out.status)), au = out.metrics.auMean] {
                            emit invocationFinished(l, p, s, au);
                        },
                        Qt::QueuedConnection);
                };
                const BenchmarkResult br = runBenchmark(request.config, request.outputDir, bo);
                result.complete = br.complete;
                result.cancelled = !br.complete && cancel_.load();
                result.error = QString::fromStdString(br.error);
            }
        } catch (const std::exception& e) {
            result.complete = false;
            result.error = QString::fromUtf8(e.what());
        }
        QMetaObject::invokeMethod(this, [this, result] { onWorkerDone(result); }, Qt::QueuedConnection);
    });
    return true;
}

void RunController::cancel() {
    cancel_ = true;
    ++cancelRequests_;
}

void RunController::postCheckpoint(const checkpoint::CheckpointEvent& e) {
    QMetaObject::invokeMethod(this, [this, e] { emit checkpoint(e); }, Qt::QueuedConnection);
}

void RunController::drainSteps() {
    std::vector<StepEvent> batch = bridge_->takeSteps();
    if (!batch.empty()) emit steps(batch);
}

void RunController::onWorkerDone(RunFinish result) {
    if (worker_.joinable()) worker_.join();
    drainTimer_.stop();
    drainSteps();
    if (result.cancelled) result.error.clear();
    if (storage_) { // an invocation that threw never said "none" itself
        storage_.reset();
        emit storageChanged();
    }
    emit finished(result);
}

} // namespace trainio::ui
