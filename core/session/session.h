// One workflow for every front end (issue 20): the sequence a run or a benchmark goes through —
// checkpoint-only mode, warnings, pre-flight (on every process under mpirun), the dataset generated when
// workflow.generate_data asks for it and checked again, then the invocation or the benchmark's warm-up and
// runs — owned by one object that reports through a SessionObserver. `trainio-cli run`, `benchmark`,
// `datagen`, each trial of `sweep`, and the GUI's Run page all go through it, so the window behaves exactly
// as the command line (docs/engine.md, "One workflow"). What it wrote it hands over in memory
// (SessionResult::written, ::records): nothing a session wrote is read back (docs/aggregation.md).
#pragma once

#include "checkpoint/checkpoint_plan.h"
#include "config/workload_config.h"
#include "dataset/dataset_generator.h"
#include "preflight/preflight.h"
#include "aggregate/results_import.h"
#include "session/benchmark_runner.h"
#include "store/written_files.h"
#include "util/errors.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace trainio::dist {
class Communicator;
}

namespace trainio::session {

// A bad input every process of an MPI job agreed on: the CLI prints it once, from process 0 (exit 2).
struct AgreedInputError : InputError {
    using InputError::InputError;
};

// The pre-flight refused: nothing was generated, measured or written. what() has every problem, one per
// line (as requirePreflight words them); `problems` keeps them apart for the GUI's pre-flight dialog.
struct PreflightFailed : AgreedInputError {
    PreflightFailed(const std::string& text, std::vector<PreflightProblem> p) : AgreedInputError(text), problems(std::move(p)) {}
    std::vector<PreflightProblem> problems;
};

// Under mpirun (comm not null): runs `check` on every process and lets all of them go on only when it
// passed on every one; otherwise every process throws AgreedInputError with every process's problem
// (naming its host). RunError when a process does not answer. Without MPI: `check` itself.
void onEveryProcess(dist::Communicator* comm, const std::atomic<bool>* cancel, const std::function<void()>& check);

// Under mpirun: every process's JSON report, in rank order (datagen, verify and clean sum them on process 0).
// RunError naming `command` when a process does not answer.
std::vector<nlohmann::json> reportsOfEveryProcess(dist::Communicator& comm, const std::atomic<bool>* cancel,
                                                  const nlohmann::json& mine, const std::string& command);

// What a session tells its front end, on the thread that runs it (the GUI queues to its own thread).
class SessionObserver {
public:
    virtual ~SessionObserver() = default;
    // A line for the user: "warning: …" for warnings, notes otherwise.
    virtual void onMessage(const std::string& text) { (void)text; }
    // A checkpoint-only session's plan (sizes real and scaled, notes) before anything is written.
    virtual void onCheckpointPlan(const checkpoint::CheckpointPlan& plan) { (void)plan; }
    // workflow.generate_data (and `datagen`): this process's progress, then the totals of every process.
    virtual void onGeneration(const GenerationProgress& p) { (void)p; }
    virtual void onGenerated(const GenerationResult& total, std::uint64_t processes) { (void)total, (void)processes; }
    // Each invocation: "invocation" for a run, "warm-up", "run 2/5" for a benchmark; index counts from 0.
    virtual void onInvocationStart(const std::string& label, const std::filesystem::path& dir, std::size_t index) {
        (void)label, (void)dir, (void)index;
    }
    virtual void onInvocationDone(const std::string& label, const std::filesystem::path& dir, const RunOutcome& out) {
        (void)label, (void)dir, (void)out;
    }
};

enum class SessionMode { Run, Benchmark };

struct SessionRequest {
    WorkloadConfig config;
    SessionMode mode = SessionMode::Run;
    std::filesystem::path output;     // the invocation folder (Run) or the benchmark's folder (Benchmark)
    std::uint64_t accelerators = 1;   // in all; under mpirun each process hosts accelerators / processes
    std::uint64_t runs = 5;           // Benchmark
    std::uint64_t warmups = 1;        // Benchmark
    BenchmarkLayout layout = BenchmarkLayout::TrainIO;
    // observer, cancel, io, comm, semantics, labels, command line and the live callbacks of every
    // invocation; `accelerators` and `warnings` are set by the session.
    InvocationOptions invocation;
    // false: the caller checked already (the sweep checks once, at its largest count and all its trials).
    bool preflight = true;
    // false: another process generates (the GUI's `mpirun … trainio-cli` children do it themselves);
    // the pre-flight still checks for the room generation needs instead of the dataset.
    bool generateHere = true;
    // Whose words the pre-flight speaks: the CLI's ("run datagen first") or the window's.
    PreflightAudience audience = PreflightAudience::Cli;
    // More checks of the caller's, added to the pre-flight's problems (the GUI's mpirun hosts).
    std::function<void(PreflightResult&)> extraChecks;
    // Hold the per-step records of what is written too (SessionResult::written): the GUI's library digests
    // them (ImportOptions::stepDigests). Off, the largest files of a run are not held in memory.
    bool holdStepRecords = false;
};

struct SessionResult {
    bool complete = false;   // every invocation complete
    bool cancelled = false;  // stopped by the cancel flag (during generation or an invocation)
    bool measured = false;   // an invocation ran (false: workflow.train off, or cancelled while generating)
    std::string error;       // the failing invocation's error
    // Run: the invocation folder; Benchmark: the folder holding the manifest and run folders.
    std::filesystem::path resultFolder;
    std::vector<RunOutcome> outcomes; // every invocation's, in order (warm-ups first)
    std::vector<std::string> labels;  // each outcome's label: "invocation", "warm-up", "run 2/5"
    // The outcomes of the measured invocations (no warm-up) that completed: what a benchmark's statistics use.
    std::vector<const RunOutcome*> measuredComplete() const;
    // Every file the session wrote that the importer reads, held in memory (store/written_files.h); empty on
    // the processes of an MPI job that write nothing. Never null.
    std::shared_ptr<const store::WrittenFiles> written = std::make_shared<store::WrittenFiles>();
    // The records of what was written below `root` (the result folder when empty), as importResults({root})
    // would make them (results_import.h importWritten), made from `written`: nothing is read back.
    aggregate::ImportResult records(const aggregate::ImportOptions& options = {}, const std::filesystem::path& root = {}) const;
};

// What a session's pre-flight said already: its figures (the S3 memory budget, whose "this process" share
// moves between two checks) once, each warning once.
struct PreflightSaid {
    bool figures = false;
    std::set<std::string> warnings;
};

class Session {
public:
    Session(SessionRequest request, SessionObserver& observer);

    // Warnings, then the checks: checkpoint-only, the checkpoint plan and its checks; otherwise the
    // pre-flight (every process under mpirun); with workflow.generate_data the dataset is generated and
    // checked again before anything is measured. Throws PreflightFailed (nothing measured), InputError,
    // RunError. Returns false when cancelled during generation.
    bool prepare();
    // The invocation, or the benchmark's warm-ups and runs (after prepare()).
    SessionResult measure();
    // prepare() then measure().
    SessionResult run();

    const std::vector<std::string>& warnings() const { return warnings_; }
    // Nothing to measure: workflow.train and workflow.checkpoint both off (only generation, if asked).
    bool nothingToMeasure() const;

private:
    bool checkpointOnly() const;
    PreflightRequest preflightRequest(bool generateFirst) const;
    void check(const PreflightRequest& req, const WorkloadConfig& cfg);
    void closedDivision(const WorkloadConfig& cfg);

    SessionRequest req_;
    SessionObserver& obs_;
    std::shared_ptr<store::WrittenFiles> written_;
    std::vector<std::string> warnings_;
    std::vector<std::string> logNotes_; // information for the head of each invocation's log
    bool cancelledWhilePreparing_ = false;
    PreflightSaid said_; // a dataset checked again after its generation: its figures and warnings not said twice
};


// The pre-flight on every process (under mpirun only process 0 checks the output folder, which only it
// writes); process 0's figures go to the observer as they are, its warnings as "warning: …" — each once
// when `said` keeps what was said before. Throws PreflightFailed.
void checkEverywhere(const WorkloadConfig& cfg, PreflightRequest req, dist::Communicator* comm,
                     const std::atomic<bool>* cancel, SessionObserver& observer,
                     const std::function<void(PreflightResult&)>& extraChecks = {}, PreflightSaid* said = nullptr);

// The dataset generation of `datagen` and workflow.generate_data: under mpirun process 0 prepares the
// folder, then every process writes its share of the files (as DLIO's ranks do) and the totals of every
// process are returned on each. Reports through the observer; RunError naming the failing processes.
GenerationResult generateEverywhere(const WorkloadConfig& cfg, dist::Communicator* comm, const std::atomic<bool>* cancel,
                                    std::shared_ptr<IoBackend> io, SessionObserver& observer);

} // namespace trainio::session
