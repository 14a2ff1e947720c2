// The per-step meeting of a multi-process run. Within a process the emulated accelerators are threads
// that meet as in a local run; one "sync thread" per process then meets the other processes with one
// allgather per meeting (the emulated all-reduce spans every accelerator of the job, as DLIO's ranks'
// do), and releases its threads. What each thread brings (a SyncSlot: its step times, or its epoch
// bounds) travels with the meeting, so process 0 sees every accelerator's steps as they happen: it emits
// them as live events and rebuilds every remote rank's record from them — nothing is gathered at the end,
// so what was measured up to the last meeting survives a peer that is killed.
//
// Stopping: a process whose run stops (an I/O error, a cancel) still joins the next meeting and says so;
// every process then stops at that same meeting, so all end consistently. Only a peer that never comes
// (killed, hung) breaks the communicator: the meeting gives up after the WaitLimits and the run fails.
#pragma once

#include "dist/communicator.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace trainio::dist {

// Plain data, the same layout on every host (one build), exchanged as bytes.
struct SyncSlot {
    enum Kind : std::uint32_t { None = 0, Step = 1, EpochEnd = 2, Other = 3 };
    std::uint32_t kind = None;
    std::uint32_t complete = 0;  // EpochEnd: every expected step ran
    std::uint64_t epoch = 0, step = 0, stepsPerEpoch = 0;
    double load = 0, compute = 0, proc = 0, wall = 0; // Step: seconds; wall: since the run's origin
    std::uint64_t bytesRead = 0, samplesRead = 0, queueDepth = 0; // the rank's totals so far
    double epochStart = 0, epochEnd = 0, blockStart = 0, blockEnd = 0; // EpochEnd: wall clock (Unix s)
};

class ProcessSync {
public:
    // localRanks threads of this process meet; `stop` is the run's stop flag (set by a local failure or
    // cancel, and by this object when another process stops).
    ProcessSync(Communicator& comm, std::uint64_t localRanks, std::atomic<bool>& stop, WaitLimits limits);
    ~ProcessSync();
    ProcessSync(const ProcessSync&) = delete;
    ProcessSync& operator=(const ProcessSync&) = delete;

    // Called on the sync thread after each completed meeting with every accelerator's slot (global rank
    // order: process p's local rank l is p × localRanks + l), before the threads are released.
    std::function<void(const std::vector<SyncSlot>&)> onMeeting;

    void start();
    // A local thread arrives with its slot; true when released, false when the run stops.
    bool arriveAndWait(std::uint64_t local, const SyncSlot& slot);
    // A local thread leaves the run: `finished` when it ran every epoch (the meetings end when every
    // thread has finished), else it stopped, and the next meeting says so.
    void leave(std::uint64_t local, bool finished);
    // This process stops (failure or cancel): the next meeting says so, and waiting threads return false.
    void requestStop(const std::string& error);
    void join();

    // Why the run stopped on another process ("process P: error"), or why the meeting broke.
    std::string remoteError() const;
    bool remoteStopped() const { return remoteStopped_.load(); }
    bool broken() const { return broken_.load(); }
    std::uint64_t meetings() const { return meetings_.load(); }

private:
    void loop();

    Communicator& comm_;
    const std::uint64_t local_;
    std::atomic<bool>& stop_;
    const WaitLimits limits_;
    mutable std::mutex mutex_;
    std::condition_variable arrivedCv_, releaseCv_;
    std::uint64_t arrived_ = 0, left_ = 0, generation_ = 0;
    bool ended_ = false;     // no more meetings: waiting threads return false
    bool stopRequested_ = false;
    std::string localError_; // the reason this process stops (empty for a cancel)
    std::vector<SyncSlot> slots_;
    std::atomic<bool> remoteStopped_{false}, broken_{false};
    std::atomic<std::uint64_t> meetings_{0};
    std::string remoteError_;
    std::thread thread_;
};

} // namespace trainio::dist
