// Runs one invocation: R emulated accelerators (threads) × epochs × steps, each step waiting for its
// batch from the rank's BatchPrefetcher, emulating compute, then meeting the other ranks at the
// step barrier. Produces the per-step records DLIO writes and the epoch metrics as it goes.
#pragma once

#include "store/run_status.h"
#include "checkpoint/checkpoint_io.h"
#include "dist/communicator.h"
#include "config/workload_config.h"
#include "engine/engine_observer.h"
#include "io/io_backend.h"
#include "loader/sample_source.h"
#include "metrics/dlio_metrics.h"
#include "metrics/step_records.h"

#include <atomic>
#include <functional>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace trainio {


struct EngineOptions {
    std::uint64_t accelerators = 1;
    MetricSemantics semantics = MetricSemantics::DlioV2;
    std::shared_ptr<IoBackend> io;        // null = POSIX
    EngineObserver* observer = nullptr;   // may be null
    const std::atomic<bool>* cancel = nullptr;
    // Between epochs, outside every measured window, on one thread while all ranks wait: before the
    // epoch's first read (cache control, page-cache metering) and after its last read, with the bytes
    // each rank delivered in that epoch. Only called when set; an exception fails the run.
    std::function<void(std::uint64_t epoch)> beforeEpoch;
    std::function<void(std::uint64_t epoch, const std::vector<std::uint64_t>& bytesPerRank)> afterEpoch;
    // The process that writes the results (a single process, or process 0 under MPI): every rank's completed
    // epoch as soon as it is known — the run journal's feed (results/journal.h). Called after the epoch's end
    // (outside every measured window), from the rank's own thread or, for another process's rank, from the
    // meeting that brought its epoch end; must be thread-safe.
    std::function<void(std::uint64_t rank, const EpochRecord& epoch)> onEpochRecorded;
    // DLIO's checkpoints during training (workflow.checkpoint with train): after epochs
    // (checkpoint_after_epoch, epochs_between_checkpoints) or every steps_between_checkpoints steps, each
    // one ending a block as in the fork's main.py _train. Null: none.
    checkpoint::Checkpointer* checkpointer = nullptr;
    // A multi-process run (MPI ranks, docs/mpi.md): this process hosts `accelerators` emulated
    // accelerators, ranks comm->rank() × accelerators … + accelerators − 1 of comm->size() × accelerators.
    // Null: a single process.
    dist::Communicator* comm = nullptr;
    double commTimeoutSeconds = dist::meetingTimeoutSeconds(); // a meeting a peer has not reached by then fails the run
};

// A client host of the run, as summary.json's per-host arrays need it.
struct HostSummary {
    std::string hostname;
    unsigned cpuCount = 0;
    double memoryGiB = 0;
};

struct RunOutcome {
    RunStatus status = RunStatus::Complete;
    std::string error;          // what failed (file and operation), empty unless Failed
    std::vector<RankRecord> ranks;
    InvocationMetrics metrics;  // over the epochs every rank completed
    MetricOptions metricOptions;
    double start = 0, end = 0;  // wall clock, seconds since the Unix epoch
    std::uint64_t stepsPerEpoch = 0;
    std::uint64_t runSeed = 0;  // seed of "random" shuffles (train.seed otherwise)
    std::uint64_t bytesRead = 0;
    std::uint64_t samplesRead = 0;
    double cpuSeconds = 0;      // process CPU time (user + system) during the run
    // What the result must say beside its numbers (most bytes from the page cache, a client-bound run);
    // filled by the invocation runner from the storage session.
    std::vector<std::string> warnings;
    // DLIO's checkpoints (checkpoint-only mode, or during training): plan, size and every rank's records.
    checkpoint::CheckpointResults checkpoints;
    // Multi-process runs: the client hosts (in order of their first rank) and each rank's host; on
    // process 0 `ranks` holds every rank of the job (the others' rebuilt from the per-step meetings), on
    // the other processes only their own, and they write no results. Empty hosts: one process, this host.
    std::vector<HostSummary> hosts;
    // The loader policy's counters (trainio.loader, docs/loader.md) of this process's ranks:
    // loaderTallies[l][e − 1] of rank firstRank + l in epoch e, and the nopfs placement of each.
    std::vector<std::vector<loader::EpochTally>> loaderTallies;
    std::vector<loader::PlacementSummary> loaderPlacement;
    std::vector<std::uint32_t> rankHost;
    std::uint64_t processes = 1;
    bool writesResults = true;
};

// Throws InputError for a configuration the engine cannot run (e.g. too few samples for one step).
// Runtime failures do not throw: they end the run with status Failed and what was measured so far.
RunOutcome runTraining(const WorkloadConfig& cfg, const EngineOptions& options);

// Under mpirun, before anything is measured (training and checkpoint-only runs alike): every process's
// host — summary.json's per-host arrays, the rank → host map, `accelerators` ranks per process — and
// process 0's `runSeed`, into `out` (hosts, rankHost, processes, writesResults); the observer of process 0
// hears the ranks' hosts. False, with `out` Failed and the error, when a process did not answer.
bool meetProcesses(dist::Communicator& comm, std::uint64_t accelerators, const dist::WaitLimits& limits,
                   EngineObserver* observer, std::uint64_t& runSeed, RunOutcome& out);

} // namespace trainio
