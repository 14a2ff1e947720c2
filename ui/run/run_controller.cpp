#include "run/run_controller.h"

#include "run/engine_bridge.h"
#include "run/run_controller_mpi.h"
#include "checkpoint/checkpoint_plan.h"
#include "engine/checkpoint_run.h"
#include "preflight/preflight.h"
#include "session/session.h"
#include "util/errors.h"

#include <QMetaObject>

#include <functional>

namespace trainio::ui {

namespace {

// What the window shows of a session (core/session), called on the worker thread: everything crosses to
// the GUI thread through queued invocations on the controller.
class WindowObserver final : public session::SessionObserver {
public:
    // onInvocationStart: the controller's own (it marks the boundary in the bridge's steps first).
    using InvocationStart = std::function<void(const std::string& label, const std::filesystem::path& dir, std::size_t index)>;
    WindowObserver(RunController* c, InvocationStart onStart) : c_(c), onStart_(std::move(onStart)) {}
    void onMessage(const std::string& text) override { post(QString::fromStdString(text)); }
    void onCheckpointPlan(const checkpoint::CheckpointPlan& plan) override {
        post(QString::fromStdString(checkpoint::checkpointSizeLine(plan)));
        for (const auto& n : plan.notes) post(QString::fromStdString(n));
    }
    void onGeneration(const GenerationProgress& gp) override {
        // At most one line a second (and the last): the Messages panel is not a progress bar.
        if (gp.filesDone < gp.filesTotal && gp.seconds - lastShown_ < 1.0) return;
        lastShown_ = gp.seconds;
        post(RunController::tr("generating the dataset (workflow.generate_data): %1 of %2 files, %3 MiB")
                 .arg(gp.filesDone)
                 .arg(gp.filesTotal)
                 .arg(static_cast<double>(gp.bytesDone) / 1048576.0, 0, 'f', 1));
    }
    void onInvocationStart(const std::string& label, const std::filesystem::path& dir, std::size_t index) override {
        onStart_(label, dir, index);
    }
    void onInvocationDone(const std::string& label, const std::filesystem::path& dir, const RunOutcome& out) override {
        // What a result must say beside its numbers (page cache served it, client-bound, fallbacks).
        for (const auto& w : out.warnings)
            post(RunController::tr("%1: warning: %2").arg(QString::fromStdString(label), QString::fromStdString(w)));
        QMetaObject::invokeMethod(
            c_,
            [c = c_, l = QString::fromStdString(label), p = QString::fromStdString(dir.string()),
             s = QString::fromUtf8(toString(out.status)), au = out.metrics.auMean] { emit c->invocationFinished(l, p, s, au); },
            Qt::QueuedConnection);
    }

private:
    void post(const QString& m) {
        QMetaObject::invokeMethod(c_, [c = c_, m] { emit c->message(m); }, Qt::QueuedConnection);
    }
    RunController* c_;
    InvocationStart onStart_;
    double lastShown_ = -1.0;
};

} // namespace

RunController::RunController(QObject* parent) : QObject(parent), bridge_(new EngineBridge(this)) {
    qRegisterMetaType<trainio::ui::RunFinish>();
    qRegisterMetaType<trainio::checkpoint::CheckpointEvent>();
    qRegisterMetaType<trainio::S3EpochFigures>();
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
        RunFinish none;
        none.error = tr("No output folder chosen.");
        emit finished(none);
        return false;
    }
    cancel_ = false;
    cancelRequests_ = 0;
    invocationCount_ = request.benchmark ? request.runs + request.warmups : 1;
    bridge_->takeSteps(); // a previous run's leftovers
    shownInvocation_ = bridge_->beginInvocation();
    const QString dir = QString::fromStdString(request.outputDir.string());

    // Callbacks from the worker thread reach the GUI thread only through queued invocations on `this`.
    worker_ = std::thread([this, request, dir] {
        RunFinish result;
        result.outputDir = dir;
        try {
            // The same session as `trainio-cli run|benchmark` (core/session): pre-flight (it stats the
            // dataset and probes the output folder — long enough on a remote tree to freeze the window,
            // so it runs here), workflow.generate_data, then the invocation or the benchmark.
            session::SessionRequest sr;
            sr.config = request.config;
            sr.mode = request.benchmark ? session::SessionMode::Benchmark : session::SessionMode::Run;
            sr.output = request.outputDir;
            sr.accelerators = request.accelerators;
            sr.runs = request.runs;
            sr.warmups = request.warmups;
            // Under mpirun the command line every process runs generates, as it does when typed.
            sr.generateHere = !request.mpi;
            sr.audience = PreflightAudience::Gui; // "generate it on the Data page", not "run datagen first"
            sr.holdStepRecords = true;            // the library digests them (its report plots)
            if (request.mpi) sr.extraChecks = [&request](PreflightResult& r) { addMpiPreflight(request, r); };
            InvocationOptions& io = sr.invocation;
            io.semantics = request.semantics;
            io.observer = bridge_;
            io.cancel = &cancel_;
            io.io = request.io;
            io.commandLine = "trainio (desktop)";
            io.labels = request.labels;
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
            io.onEpochS3 = [this](std::uint64_t epoch, const S3EpochFigures& f) {
                QMetaObject::invokeMethod(this, [this, epoch, f] { emit epochS3(epoch, f); }, Qt::QueuedConnection);
            };
            io.onCheckpoint = [this](const checkpoint::CheckpointEvent& e) { postCheckpoint(e); };
            // Called on this worker thread between two invocations, when the previous one's steps are all in
            // the bridge and the next one's engine has not started: the steps from here on are held until the
            // GUI thread has taken the previous ones and announced this invocation (drainSteps).
            WindowObserver observer(this, [this](const std::string& label, const std::filesystem::path& d, std::size_t index) {
                QMetaObject::invokeMethod(
                    this,
                    [this, n = bridge_->beginInvocation(), l = QString::fromStdString(label),
                     p = QString::fromStdString(d.string()), i = static_cast<int>(index)] {
                        drainSteps(); // the previous invocation's last steps, before its boundary
                        shownInvocation_ = n;
                        emit invocationStarted(l, p, i);
                        drainSteps(); // this one's that came before its announcement
                    },
                    Qt::QueuedConnection);
            });
            session::Session s(sr, observer);
            bool prepared = false;
            try {
                prepared = s.prepare();
            } catch (const session::PreflightFailed& e) {
                result.preflightProblems = e.problems;
                result.error = tr("pre-flight check failed:\n%1").arg(QString::fromStdString(PreflightResult{e.problems, {}, {}}.text()).trimmed());
                QMetaObject::invokeMethod(this, [this, result] { onWorkerDone(result); }, Qt::QueuedConnection);
                return;
            }
            if (!prepared || cancel_) {
                result.cancelled = true;
                QMetaObject::invokeMethod(this, [this, result] { onWorkerDone(result); }, Qt::QueuedConnection);
                return;
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
            const session::SessionResult sres = s.measure();
            result.complete = sres.complete;
            result.cancelled = sres.cancelled;
            result.error = QString::fromStdString(sres.error);
            // What the session wrote, handed over in memory: the library and the model panel take the
            // records from it, nothing is read back (made here, on the worker).
            if (sres.measured) {
                result.written = sres.written;
                result.records = std::make_shared<const aggregate::ImportResult>(sres.records());
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
    std::vector<StepEvent> batch = bridge_->takeSteps(shownInvocation_);
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
