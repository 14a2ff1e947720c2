// Runs one invocation or one benchmark (warm-up + N) of a workload in a worker thread it owns, and
// reports to the GUI thread: step batches every 100 ms, epochs, invocation boundaries, the end.
// The window and the tests drive runs through this one object.
#pragma once

// moc (Qt 6.4) cannot parse <compare>, which the aggregate headers pull in; it needs only the names.
#ifndef Q_MOC_RUN
#include "store/invocation_record.h"
#include "store/written_files.h"
#endif
#include "checkpoint/checkpoint_event.h"
#include "config/workload_config.h"
#include "io/s3_client.h"
#include "dist/mpi_launch.h"
#include "engine/engine_observer.h"
#include "io/io_backend.h"
#include "preflight/preflight.h"
#include "telemetry/telemetry_summary.h"

#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <atomic>
#include <filesystem>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

namespace trainio {
class EmulatedStorageBackend;
}

namespace trainio::ui {

class EngineBridge;

struct RunRequest {
    WorkloadConfig config;
    std::filesystem::path outputDir;
    std::uint64_t accelerators = 1;
    MetricSemantics semantics = MetricSemantics::DlioV2;
    bool benchmark = false;     // false: a single invocation into outputDir
    std::uint64_t runs = 5;     // benchmark only
    std::uint64_t warmups = 1;  // benchmark only
    std::shared_ptr<IoBackend> io; // null: POSIX; tests wrap it in a FaultInjectingBackend
    aggregate::Labels labels;      // written beside the results (trainio_labels.json): the system name
    // Set: the run is `mpirun … trainio-cli run|benchmark …` on these client hosts (docs/mpi.md, "From the
    // GUI") instead of threads in this process; `accelerators` must then be hosts × P × K. `io` is not used.
    std::optional<dist::MpiLaunch> mpi;
};

struct RunFinish {
    bool complete = false;  // every invocation ran to the end
    bool cancelled = false;
    QString error;          // why it failed (empty when complete or cancelled)
    QString outputDir;
    // Not empty: pre-flight refused the run, nothing was measured or written.
    std::vector<PreflightProblem> preflightProblems;
    // What the run wrote, held in memory (store/written_files.h: the session's; for an MPI run, the output
    // folder as it was read once), and its records (root: outputDir) made from it: the window shows and
    // adds them to the library without reading the folder again. Null when nothing was written.
    std::shared_ptr<const store::WrittenFiles> written;
    std::shared_ptr<const aggregate::ImportResult> records;
    bool failed() const { return !complete && !cancelled; }
};

class RunController final : public QObject {
    Q_OBJECT
public:
    explicit RunController(QObject* parent = nullptr);
    ~RunController() override; // cancels and joins a running worker

    bool isRunning() const { return worker_.joinable(); }
    // Starts the worker, which runs pre-flight first: when it finds problems, finished() carries them
    // and nothing is measured; otherwise started() and the run follow. Returns false (and emits
    // finished) when one is already running or the request is unusable (no output folder).
    bool start(const RunRequest& request);
    // Asks the engine to stop; it stops within a step and keeps what was measured. An MPI run gets SIGINT
    // (every process stops and process 0 writes the folder marked cancelled); a second cancel kills mpirun.
    void cancel();
    // Thread-safe: queues a checkpoint event to the GUI thread, where checkpoint() is emitted. What the
    // run's InvocationOptions::onCheckpoint calls on the rank threads.
    void postCheckpoint(const checkpoint::CheckpointEvent& e);

    // How many invocations the current run has in total (warm-ups included).
    std::uint64_t invocationCount() const { return invocationCount_; }
    // The trainio-cli an MPI run starts on every host: $TRAINIO_CLI, else beside this program (or, in the
    // build tree, ../cli/), else on PATH. Empty when there is none.
    static QString cliProgram();

    // The emulated device the running invocation reads through; null when it uses none or none runs.
    const std::shared_ptr<EmulatedStorageBackend>& storage() const { return storage_; }

signals:
    void started(const QString& outputDir); // pre-flight passed, measuring begins
    void invocationStarted(const QString& label, const QString& dir, int index);
    void invocationFinished(const QString& label, const QString& dir, const QString& status, double auPercent);
    // Every 100 ms while steps arrive; an invocation's steps only after its invocationStarted, the previous
    // invocation's all before it (a window that lags behind the run never mixes two invocations).
    void steps(const std::vector<trainio::StepEvent>& batch);
    void epochFinished(const trainio::EpochEvent& e);
    void phaseChanged(const QString& phase);
    void message(const QString& text);
    void finished(const trainio::ui::RunFinish& result);
    void storageChanged(); // storage() now names another device (or none)
    // A telemetry row of the running invocation (TelemetrySampler's interval, 1 s by default).
    void telemetry(const trainio::telemetry::TelemetryPoint& point);
    // An epoch of the running invocation ended: its % of delivered bytes served by the page cache (NaN:
    // unknown, /proc/self/io unreadable). Emitted before or after that epoch's epochFinished.
    void epochCache(quint64 epoch, double percentFromCache);
    // storage.storage_type s3, instead of epochCache: the epoch's requests (no page cache to meter).
    void epochS3(quint64 epoch, const trainio::S3EpochFigures& figures);
    // A rank started, completed or failed its share of a checkpoint write or read (emitted on this
    // object's thread, in the order the ranks reported).
    void checkpoint(const trainio::checkpoint::CheckpointEvent& e);
    // An MPI run, before its first step (and again for each invocation of a benchmark): the host of
    // every rank, hostOfRank[r] for rank r.
    void hosts(const QStringList& hostOfRank);

private:
    // The worker's half of an MPI run, after pre-flight: mpirun started, followed and ended.
    RunFinish runMpi(const RunRequest& request, const QString& dir);
    void drainSteps();
    void onWorkerDone(RunFinish result);

    EngineBridge* bridge_;
    QTimer drainTimer_;
    std::thread worker_;
    std::atomic<bool> cancel_{false};
    std::atomic<int> cancelRequests_{0}; // MPI runs: 1 = SIGINT, 2 = SIGKILL
    std::uint64_t invocationCount_ = 0;
    // The bridge's invocation whose start the GUI thread has announced: drainSteps takes no later step, so
    // the plots never key an invocation's steps before its invocationStarted.
    std::uint64_t shownInvocation_ = 0;
    std::shared_ptr<EmulatedStorageBackend> storage_;
};

} // namespace trainio::ui

Q_DECLARE_METATYPE(trainio::ui::RunFinish)
Q_DECLARE_METATYPE(trainio::telemetry::TelemetryPoint)
Q_DECLARE_METATYPE(trainio::checkpoint::CheckpointEvent)
Q_DECLARE_METATYPE(trainio::S3EpochFigures)
