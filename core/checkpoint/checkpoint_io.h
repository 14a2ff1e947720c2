// Writing and reading DLIO checkpoints for real: each rank writes (reads) the files its RankPlan names
// into <checkpoint.checkpoint_folder>/global_epoch<E>_step<S>/, through the run's IoBackend (emulated
// storage, fault injection and byte counting see every byte), on the rank's own thread. What DLIO's
// statscounter records per checkpoint (save_ckpt<block>/load_ckpt<block> in <rank>_per_epoch_stats.json)
// and the summary metrics it derives from rank 0's records (save_/load_checkpoint_*).
#pragma once

#include "checkpoint/checkpoint_event.h"
#include "checkpoint/checkpoint_plan.h"
#include "io/aligned_buffer.h"
#include "io/io_backend.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace trainio::checkpoint {

// One rank's share of one checkpoint, as DLIO's statscounter (start_/end_save_ckpt) records it.
struct CheckpointRecord {
    Operation op = Operation::Write;
    std::uint64_t rank = 0;
    std::uint64_t index = 0; // 0-based within its operation
    std::uint64_t block = 1; // DLIO's key: save_ckpt<block> / load_ckpt<block>
    std::uint64_t epoch = 1;
    std::uint64_t step = 1;  // the step in the folder name global_epoch<E>_step<S>
    double start = 0;        // wall clock, after the ranks met (DLIO: comm.barrier(), then start_save_ckpt)
    double end = 0;          // after this rank's files (and the rank_sync barrier when asked)
    double ioSeconds = 0;    // this rank's own file I/O (open → last byte [+ fsync] → close)
    // Of ioSeconds, the time inside the storage's calls (open, write/read, fsync, close); the rest is the
    // writer's own: making (or taking) the bytes between the calls. More of the latter than the former is
    // a generation-bound checkpoint: the client, not the storage, set its pace (mlcommons/storage#689).
    double storageSeconds = 0;
    std::uint64_t bytes = 0; // bytes this rank moved for this checkpoint
    bool complete = true;
    double duration() const { return end - start; }
    double clientSeconds() const { return ioSeconds > storageSeconds ? ioSeconds - storageSeconds : 0.0; }
    bool generationBound() const { return checkpoint::generationBound(ioSeconds, storageSeconds); }
};

// Everything a run's checkpoints leave behind: the plan, DLIO's size, every rank's records.
struct CheckpointResults {
    bool enabled = false;
    std::string folder;
    CheckpointPlan plan;
    // DLIO's checkpoint_size_GB (GiB): the plan's dlioCheckpointSizeGiB × trainio.checkpoint_scale, so
    // that the GiB/s DLIO derives from it (size / duration) stay the bytes actually moved per second.
    double sizeGiB = 0;
    std::vector<std::vector<CheckpointRecord>> perRank;
    // Checkpoint-only mode: the bounds of DLIO's epoch "1" around the write and read phases.
    double phaseStart = 0, phaseEnd = 0;
};

// DLIO's summary metrics (statscounter.py end_run, lines 163-187): mean and population stdev over rank
// 0's checkpoints of duration and of size / duration. `count` 0: none of that operation.
struct CheckpointMetrics {
    std::uint64_t count = 0;
    double ioMeanGiBs = 0, ioStdevGiBs = 0;
    double durationMean = 0, durationStdev = 0;
};
CheckpointMetrics checkpointMetrics(const CheckpointResults& r, Operation op);
// size / duration of one record (statscounter.py end_save_ckpt line 381); 0 for a zero duration.
double recordThroughputGiBs(const CheckpointResults& r, const CheckpointRecord& rec);

// Writes and reads one rank's files of a checkpoint. Thread-safe across ranks: each rank calls with its
// own number from its own thread; records go to that rank's vector.
class Checkpointer {
public:
    struct Options {
        std::shared_ptr<IoBackend> io; // null: POSIX
        const std::atomic<bool>* cancel = nullptr;
        std::function<void(const CheckpointEvent&)> onEvent;
        std::size_t chunkBytes = 32u << 20; // the fork's streaming writer/reader chunk (32 MiB)
    };
    Checkpointer(const WorkloadConfig& cfg, CheckpointPlan plan, Options options);

    // Rank `rank`'s files of checkpoint (epoch, step). Returns false on a failure (error() names the
    // file) or a cancel; events Started then Completed/Failed go to onEvent. Does not record timings:
    // the caller (who owns the barriers) does, with record().
    bool write(std::uint64_t rank, std::uint64_t index, std::uint64_t epoch, std::uint64_t step, CheckpointRecord& rec);
    bool read(std::uint64_t rank, std::uint64_t index, std::uint64_t epoch, std::uint64_t step, CheckpointRecord& rec);
    // Keeps rec in its rank's list (call from that rank's thread).
    void record(const CheckpointRecord& rec);

    // Every file of checkpoint (epoch, step) of ranks first … first + count − 1 (default: all ranks).
    std::vector<std::string> files(std::uint64_t epoch, std::uint64_t step, std::uint64_t first = 0,
                                   std::uint64_t count = UINT64_MAX) const;
    std::string error() const;
    bool failed() const { return failed_.load(std::memory_order_acquire); }
    CheckpointResults results() const;
    const CheckpointPlan& plan() const { return plan_; }
    std::filesystem::path folder() const { return folder_; }

private:
    bool transfer(Operation op, std::uint64_t rank, std::uint64_t index, std::uint64_t epoch, std::uint64_t step,
                  CheckpointRecord& rec);
    bool fail(const std::string& message);
    bool cancelled() const { return opt_.cancel && opt_.cancel->load(std::memory_order_relaxed); }

    CheckpointPlan plan_;
    Options opt_;
    std::filesystem::path folder_;
    bool objectStore_ = false; // storage.storage_type s3: the folder is a key prefix, nothing to create
    bool fsync_ = false;
    double sizeGiB_ = 0;
    AlignedBuffer pattern_;                 // what every write sends (random or zeros), shared read-only
    std::vector<AlignedBuffer> readBuffers_; // one per rank
    std::vector<std::vector<CheckpointRecord>> records_;
    mutable std::mutex errorMutex_;
    std::string error_;
    std::atomic<bool> failed_{false};
};

} // namespace trainio::checkpoint
