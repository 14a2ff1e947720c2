// Invocations and benchmarks as the CLI and the GUI run them: one invocation = runTraining() + its
// result folder; a benchmark = warm-up invocation(s) into DIR/warmup/ and N measured invocations into
// DIR/runs/run-1 … run-N/ (the layout MLPerf Storage's report generator accepts), then
// DIR/runs/mlperf_storage_report.json and DIR/aggregate.json.
#pragma once

#include "checkpoint/checkpoint_event.h"
#include "store/invocation_record.h"
#include "config/workload_config.h"
#include "engine/training_engine.h"
#include "io/emulated_storage.h"
#include "io/s3_client.h"
#include "store/written_files.h"
#include "telemetry/telemetry_summary.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace trainio {

struct InvocationOptions {
    std::uint64_t accelerators = 1; // with comm: per process (the job has comm->size() × accelerators)
    // A multi-process run under mpirun (docs/mpi.md); null: one process. Only process 0 writes results;
    // the others run the same invocations and write nothing.
    dist::Communicator* comm = nullptr;
    double commTimeoutSeconds = dist::meetingTimeoutSeconds();
    MetricSemantics semantics = MetricSemantics::DlioV2;
    EngineObserver* observer = nullptr;
    const std::atomic<bool>* cancel = nullptr;
    std::shared_ptr<IoBackend> io;
    std::string commandLine;           // recorded in trainio_run.json
    std::vector<std::string> warnings; // put at the head of the log
    // Said with the result too (trainio_run.json "warnings", the CLI after the headline): the closed-division
    // findings of a checkpoint-only run (engine/checkpoint_closed_division.h).
    std::vector<std::string> resultWarnings;
    // Written to trainio_labels.json in the invocation folder (a run once) or the benchmark folder
    // (a benchmark) when any field is set: the system name the run/benchmark controls ask for.
    aggregate::Labels labels;
    // Called with the emulated storage device when the run starts (null when none), and with null when
    // it ends: what the GUI's live bandwidth/latency controls act on.
    std::function<void(std::shared_ptr<EmulatedStorageBackend>)> onStorage;
    // Each telemetry row as the Run page plots it, called on the sampler thread (queue it to the GUI).
    std::function<void(const telemetry::TelemetryPoint&)> onTelemetry;
    // Each epoch's % of delivered bytes served from the page cache (NaN when /proc/self/io is unreadable),
    // called on the engine's thread as the epoch ends.
    std::function<void(std::uint64_t epoch, double percentFromCache)> onEpochCache;
    // storage.storage_type s3 (no page cache to meter): each epoch's requests, on the engine's thread.
    std::function<void(std::uint64_t epoch, const S3EpochFigures&)> onEpochS3;
    // Not empty: this invocation runs at the same time as these other workloads in this process (a
    // collocation, core/session/collocation.h); the result says its process counters are shared.
    std::string collocatedWith;
    // Each rank's checkpoint write/read as it starts and ends (checkpoint/checkpoint_event.h), called on
    // the rank's thread (queue it to the GUI).
    std::function<void(const checkpoint::CheckpointEvent&)> onCheckpoint;
    // Not null: every file the invocation (or the benchmark) writes that the importer reads is held here
    // too, so that nothing written is read back (store/written_files.h; the session sets it).
    store::WrittenFiles* written = nullptr;
};

// Runs one invocation and writes its folder (also when cancelled or failed: what was measured, marked).
// Throws InputError for a config the engine cannot run, RunError when the folder cannot be written.
RunOutcome runInvocation(const WorkloadConfig& cfg, const std::filesystem::path& dir, const InvocationOptions& opt);

// Where a benchmark's invocations go. TrainIO: DIR/warmup/ and DIR/runs/run-N/ (MLPerf Storage v1.0's
// generator layout). MlperfV3: the published MLPerf Storage v3.0 results tree (docs/aggregation.md),
// DIR/<system>/training/<model>/run/<YYYYMMDD_HHMMSS>/ with the warm-up the earliest timestamp, or for a
// checkpoint-only workload (workflow.train off, workflow.checkpoint on) one invocation in
// DIR/<system>/checkpointing/<model>/<YYYYMMDD_HHMMSS>/; each with dlio_config/ and a metadata file.
enum class BenchmarkLayout { TrainIO, MlperfV3 };

struct BenchmarkOptions {
    BenchmarkLayout layout = BenchmarkLayout::TrainIO;
    InvocationOptions invocation; // invocation.labels.system names the system folder of the MlperfV3 layout
    std::uint64_t runs = 5;
    std::uint64_t warmups = 1;
    // Called before each invocation with its label ("warm-up", "run 2/5") and folder.
    std::function<void(const std::string& label, const std::filesystem::path& dir)> onInvocationStart;
    // Called after each invocation has been written.
    std::function<void(const std::string& label, const std::filesystem::path& dir, const RunOutcome&)> onInvocationDone;
};

struct BenchmarkResult {
    bool complete = false;          // every invocation completed
    std::vector<std::filesystem::path> warmups, runs;
    std::string error;              // the failing invocation's error, if any
};

// Stops at the first invocation that does not complete (cancelled or failed); the reports are written
// only when every measured run completed, from the records of what the benchmark wrote, held in memory
// (opt.invocation.written, or its own): nothing it wrote is read back.
BenchmarkResult runBenchmark(const WorkloadConfig& cfg, const std::filesystem::path& dir, const BenchmarkOptions& opt);

// The folder runBenchmark makes the benchmark's manifest and run folders in: DIR itself (TrainIO), or
// DIR/<system>/training/<model>/run, resp. DIR/<system>/checkpointing/<model> (MlperfV3). Throws
// InputError for MlperfV3 without a system name, or a system or model name that is not one folder name.
std::filesystem::path benchmarkFolder(const WorkloadConfig& cfg, const std::filesystem::path& dir, const BenchmarkOptions& opt);

// Warnings a user should see before a run: sections TrainIO does not emulate, a dataset that fits in RAM, an
// epoch too short for `semantics`' formulas to measure anything (metricWindowWarning).
std::vector<std::string> runWarnings(const WorkloadConfig& cfg, std::uint64_t accelerators, MetricSemantics semantics);
// What a user should know before a run that is no warning: a dataset that fits in RAM under a trainio.cache
// that evicts it before each epoch (fadvise, drop) — the sizing figures and what the cache control does.
std::vector<std::string> runNotes(const WorkloadConfig& cfg, std::uint64_t accelerators);

} // namespace trainio
