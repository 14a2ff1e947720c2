// One emulated accelerator's input pipeline: `read_threads` reader threads load the samples of the
// next batches ahead of the training loop into a bounded window of batch slots (SPEC §4).
//
// Work is handed out per sample (a ticket counter), so all readers cooperate on the oldest batches
// first — like tf.data's parallel map and close to PyTorch's worker pool — and a batch is ready when
// its last sample has been read. The window holds max(prefetch_size, read_threads) batches, so every
// reader can have work in flight (PyTorch keeps prefetch_factor batches *per worker*). Each sample comes
// through the rank's loader policy (loader/sample_source.h: plain, lru, nopfs); nopfs may size the window
// as its staging buffer (trainio.staging_mib).
#pragma once

#include "config/workload_config.h"
#include "format/sample_reader.h"
#include "io/io_backend.h"
#include "loader/sample_source.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace trainio {

class BatchPrefetcher {
public:
    BatchPrefetcher(const WorkloadConfig& cfg, IoBackend& io, loader::SampleSource& source,
                    const std::atomic<bool>& cancel);
    ~BatchPrefetcher();
    BatchPrefetcher(const BatchPrefetcher&) = delete;
    BatchPrefetcher& operator=(const BatchPrefetcher&) = delete;

    // Starts loading `steps` batches of `order` (global sample ids; must stay alive until endEpoch).
    void startEpoch(const std::vector<std::uint64_t>& order, std::uint64_t steps);
    // Blocks until batch `b` (0-based, in order) is loaded and frees its slot for prefetching.
    // Returns false when cancelled or when a reader failed (see error()).
    bool takeBatch(std::uint64_t b);
    // Stops handing out work for this epoch and waits until every reader is idle.
    void endEpoch();
    // Batches loaded and waiting (the prefetch queue depth); takes the lock.
    std::uint64_t readyBatches() const;
    // The queue depth right after the last takeBatch, as it counted it: for the training loop's thread
    // only, no lock.
    std::uint64_t readyAfterTake() const { return readyAfterTake_; }
    std::uint64_t window() const { return window_; }
    bool failed() const { return failed_.load(); }
    std::string error() const;
    // Bytes moved through the I/O backend (from storage), not those a loader tier served.
    std::uint64_t bytesRead() const { return bytesRead_.load(std::memory_order_relaxed); }
    std::uint64_t samplesRead() const { return samplesRead_.load(std::memory_order_relaxed); }
    // Wakes any waiter so that it re-checks the cancel flag.
    void wake();

private:
    void readerLoop(unsigned id);
    bool ticketAvailable(unsigned id) const;
    std::uint64_t takeTicket(unsigned id); // under the lock, after ticketAvailable(id)

    const WorkloadConfig& cfg_;
    IoBackend& io_;
    loader::SampleSource& source_;
    const std::atomic<bool>& cancel_;
    const std::uint64_t batch_;
    const std::uint64_t window_;

    mutable std::mutex mutex_;
    std::condition_variable workCv_;  // readers wait for tickets
    std::condition_variable readyCv_; // the training loop waits for batches
    std::condition_variable idleCv_;  // endEpoch waits for readers
    const std::vector<std::uint64_t>* order_ = nullptr;
    std::uint64_t steps_ = 0;
    std::uint64_t nextTicket_ = 0; // next sample position in order_
    std::uint64_t taken_ = 0;      // batches handed to the training loop
    // reader.read_threads 0 (DLIO: PyTorch's DataLoader with num_workers 0): the training loop loads each
    // batch itself when it asks for it, nothing ahead. One reader thread reads a batch only once the loop
    // asked for it (requested_), and the loop waits for it: no overlap with compute.
    const bool synchronous_;
    // trainio.whole_batches: reader k builds whole batches k, k + W, k + 2W, … (W readers), as PyTorch's
    // DataLoader workers do, instead of every reader taking the next sample of any batch.
    const bool wholeBatches_;
    std::vector<std::uint64_t> ownTicket_; // whole batches: each reader's next sample position
    std::uint64_t requested_ = 0;  // synchronous: batches the training loop asked for
    std::uint64_t readyAfterTake_ = 0; // written by takeBatch, read by the same (training) thread
    bool active_ = false;
    std::uint64_t epochGen_ = 0; // readers forget their cached file when it changes
    bool shutdown_ = false;
    unsigned busy_ = 0;
    std::vector<std::uint64_t> remaining_; // per slot: samples still to read
    std::vector<std::uint64_t> slotBatch_; // per slot: batch it holds
    std::string error_;
    std::atomic<bool> failed_{false};
    std::atomic<std::uint64_t> bytesRead_{0};
    std::atomic<std::uint64_t> samplesRead_{0};
    std::vector<std::thread> threads_;
};

} // namespace trainio
