// The numbers of the checkpoint view, kept apart from the widgets (no Qt): each rank's share of each
// checkpoint as CheckpointEvents report it, the per-checkpoint duration and bandwidth as DLIO defines
// them, per-rank figures and the summary (mean ± population standard deviation, as DLIO's summary.json).
#pragma once

#include "checkpoint/checkpoint_event.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace trainio::ui {

// One checkpoint (one write or one read) as far as its ranks have reported it.
struct CheckpointBar {
    std::uint64_t index = 0;      // 0-based within its operation
    std::uint64_t epoch = 0, step = 0;
    std::uint64_t bytes = 0;      // every reported rank's bytes
    std::uint64_t realBytes = 0;  // the same at full size (checkpoint_scale 1)
    double seconds = 0;           // DLIO's duration: see CheckpointTally::add
    double gibPerSecond = 0;      // bytes / 2^30 / seconds (0 while seconds is 0)
    std::uint64_t ranksDone = 0;  // ranks that reported Completed
    bool failed = false;
};

struct MeanStd {
    std::size_t count = 0;
    double mean = 0;
    double stdev = 0; // population (numpy's np.std, ddof 0), as DLIO's *_stdev_* keys
};

// Mean and population standard deviation; {0, 0, 0} for no values.
MeanStd meanStd(const std::vector<double>& values);

struct RankCheckpointStats {
    std::uint64_t done = 0;   // checkpoints this rank completed
    std::uint64_t bytes = 0;  // over them
    MeanStd seconds;          // this rank's duration per checkpoint
    MeanStd gibPerSecond;     // this rank's bytes / its seconds, per checkpoint
};

struct CheckpointSummary {
    MeanStd gibPerSecond; // over the checkpoints with a duration
    MeanStd seconds;
};

class CheckpointTally {
public:
    // rankSync: checkpoint.rank_sync — DLIO then waits for every rank before it stops the clock.
    // sizeGiB: DLIO's checkpoint_size_GB, what it divides every duration by (CheckpointPlan's
    // dlioCheckpointSizeGiB × trainio.checkpoint_scale, as core's summary.json); 0: the bytes the ranks
    // reported.
    void reset(bool rankSync, double sizeGiB = 0);

    // Started marks the checkpoint in flight; Completed adds the rank's bytes and seconds; Failed marks it.
    // A checkpoint's duration is what the MLCommons fork's rank 0 measures between start_save_ckpt and
    // end_save_ckpt (dlio_benchmark/main.py:568-572, :588-592): rank 0's own duration, or with rank_sync
    // the slowest rank's (the barrier before end_*). Until rank 0 reports, the slowest reported rank's.
    // Bandwidth as utils/statscounter.py:381/:398: the whole checkpoint's size (reset's sizeGiB, else the
    // bytes reported) / that duration, in GiB/s.
    void add(const checkpoint::CheckpointEvent& e);

    const std::vector<CheckpointBar>& bars(checkpoint::Operation op) const { return ops_[slot(op)].bars; }
    // Per rank, in rank order, the ranks that reported anything.
    std::map<std::uint64_t, RankCheckpointStats> perRank(checkpoint::Operation op) const;
    // Over the completed checkpoints, as statscounter.py:165-186 (np.mean and np.std of the lists).
    CheckpointSummary summary(checkpoint::Operation op) const;

    // The checkpoint started last and not yet completed by every rank that started it, if any.
    struct InFlight {
        bool active = false;
        checkpoint::Operation op = checkpoint::Operation::Write;
        std::uint64_t index = 0;
        std::uint64_t ranksStarted = 0, ranksDone = 0;
    };
    InFlight inFlight() const;
    const std::vector<std::string>& errors() const { return errors_; }

private:
    struct RankShare {
        bool started = false, done = false, failed = false;
        std::uint64_t bytes = 0, realBytes = 0;
        double seconds = 0;
    };
    struct Op {
        std::vector<CheckpointBar> bars;
        std::vector<std::map<std::uint64_t, RankShare>> shares; // per bar, per rank
    };
    static std::size_t slot(checkpoint::Operation op) { return op == checkpoint::Operation::Write ? 0 : 1; }
    void recompute(Op& op, std::size_t i) const;

    bool rankSync_ = false;
    double sizeGiB_ = 0;
    Op ops_[2];
    checkpoint::Operation lastOp_ = checkpoint::Operation::Write;
    std::uint64_t lastIndex_ = 0;
    bool any_ = false;
    std::vector<std::string> errors_;
};

} // namespace trainio::ui
