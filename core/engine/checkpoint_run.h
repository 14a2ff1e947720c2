// DLIO's checkpoint-only mode (workflow.train False, workflow.checkpoint True; the fork's main.py
// _checkpoint/_checkpoint_write/_checkpoint_read): N checkpoints written, then M read back, one thread
// per rank, each checkpoint preceded by time_between_checkpoints of emulated compute and a barrier.
// And what can be refused before a byte is written (folder, free space, MLPerf's memory rule).
#pragma once

#include "checkpoint/checkpoint_io.h"
#include "engine/training_engine.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace trainio::checkpoint {

// Numbers of checkpoints DLIO writes/reads in checkpoint-only mode (checkpoint.num_checkpoints_*; DLIO's
// -1 is none).
std::uint64_t checkpointsToWrite(const WorkloadConfig& cfg);
std::uint64_t checkpointsToRead(const WorkloadConfig& cfg);

// Throws InputError when the run cannot be what it claims: reads more than writes (DLIO's config.py
// rule), a read-only run (no writes) whose checkpoints are not there as planned, a checkpoint folder that cannot be created or written, too little free space for the scaled
// checkpoints it will write, or aggregate emulated accelerator memory below the real checkpoint size.
void checkpointPreflight(const WorkloadConfig& cfg, const CheckpointPlan& plan, std::uint64_t checkpoints);

// "checkpoint: real X GiB, writing Y GiB (scale s)" — what the CLI prints before starting.
std::string checkpointSizeLine(const CheckpointPlan& plan);

struct CheckpointRunOptions {
    std::uint64_t accelerators = 1; // this process's ranks (under mpirun: per process)
    std::shared_ptr<IoBackend> io;
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(const CheckpointEvent&)> onEvent;
    // Under mpirun (docs/mpi.md, "Checkpoints"): process p runs ranks p·K … p·K + K − 1 of the job's P × K,
    // meets the others at DLIO's barriers, and process 0 gets every rank's records with the meetings.
    dist::Communicator* comm = nullptr;
    double commTimeoutSeconds = dist::meetingTimeoutSeconds();
    EngineObserver* observer = nullptr; // process 0: the ranks' hosts
    // Process 0 (the one that writes): every rank's finished checkpoint as it gets it — its own ranks' as they
    // end, the other processes' at the meeting that brings them — for the run journal (results/journal.h).
    // Called from the ranks' threads and the meetings' leader: thread-safe.
    std::function<void(const CheckpointRecord&)> onRecord;
};

// Runs checkpoint-only mode. Bad input (plan, preflight) throws InputError before any thread starts
// (under mpirun the session has checked every process first: session.cpp); run-time failures end the run
// with status Failed, the file named, and everything measured so far.
RunOutcome runCheckpointOnly(const WorkloadConfig& cfg, const CheckpointRunOptions& options);

} // namespace trainio::checkpoint
