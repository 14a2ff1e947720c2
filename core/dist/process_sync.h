// The per-step meeting of a multi-process run. Within a process the emulated accelerators are threads
// that meet as in a local run; the last of them to arrive (the meeting's leader — no extra thread, no hop)
// meets the other processes with one allgather per meeting (the emulated all-reduce spans every
// accelerator of the job, as DLIO's ranks' do), and releases the others with one futex wake, as the
// single-process StepBarrier does: arriving is one atomic add, nobody takes a lock on the way in or out. What each thread brings (a SyncSlot: its step times, or its epoch
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
    // EpochEnd: the rank's loader counters of the epoch (docs/loader.md) and its summed step loads, for
    // process 0's live epoch event.
    std::uint64_t loaderAccesses = 0, loaderStorageReads = 0, beladyAccesses = 0, beladyHits = 0;
    double stallSeconds = 0;
    // Step: the block the step is in (a checkpoint during training ends a block, docs/checkpointing.md).
    std::uint64_t block = 1;
    // Any kind: the checkpoint record the rank finished since its last meeting (ckptOp 0: none), so that
    // process 0 has every rank's save_ckpt/load_ckpt as it happens (docs/mpi.md, "Checkpoints").
    std::uint32_t ckptOp = 0; // 1 write, 2 read
    std::uint32_t ckptComplete = 0;
    std::uint64_t ckptIndex = 0, ckptBlock = 0, ckptEpoch = 0, ckptStep = 0, ckptBytes = 0;
    double ckptStart = 0, ckptEnd = 0, ckptIo = 0, ckptStorage = 0;
};

class ProcessSync {
public:
    // localRanks threads of this process meet; `stop` is the run's stop flag (set by a local failure or
    // cancel, and by this object when another process stops).
    ProcessSync(Communicator& comm, std::uint64_t localRanks, std::atomic<bool>& stop, WaitLimits limits);
    ~ProcessSync();
    ProcessSync(const ProcessSync&) = delete;
    ProcessSync& operator=(const ProcessSync&) = delete;

    // Called after each completed meeting with every accelerator's slot (global rank order: process p's
    // local rank l is p × localRanks + l). A step's meeting is handed to the relay thread (start()) and the
    // threads go on at once: what it records of other processes' steps is done beside the accelerators,
    // never on one of them (docs/engine.md, "What watches a run"). Every other kind (epoch ends, a stop) is
    // called by the meeting's leader before it releases the threads, after the relay has caught up: what it
    // records must be there when the released threads read it. Calls never overlap, and come in meeting order.
    std::function<void(const std::vector<SyncSlot>&)> onMeeting;

    // Starts the relay thread when onMeeting is set (set it first).
    void start();
    // A local thread arrives with its slot; true when released, false when the run stops.
    bool arriveAndWait(std::uint64_t local, const SyncSlot& slot);
    // A local thread leaves the run: `finished` when it ran every epoch (the meetings end when every
    // thread has finished), else it stopped, and the next meeting says so.
    void leave(std::uint64_t local, bool finished);
    // This process stops (failure or cancel): the next meeting says so, and waiting threads return false.
    void requestStop(const std::string& error);
    // After the last meeting: the relay delivers what it still holds, then ends.
    void join();

    // Why the run stopped on another process ("process P: error"), or why the meeting broke.
    std::string remoteError() const;
    bool remoteStopped() const { return remoteStopped_.load(); }
    bool broken() const { return broken_.load(); }
    std::uint64_t meetings() const { return meetings_.load(); }

private:
    // Runs the meeting (the caller completed the set: every local thread has arrived or left) and releases.
    void lead(std::uint64_t arrived, std::uint64_t left);
    // The relay: step meetings copied into a ring of preallocated slot vectors by the leader (no allocation,
    // no lock), delivered to onMeeting by relayLoop() on its own thread.
    void relayStep();
    void relayCatchUp();
    void relayLoop();
    void wakeRelay();
    void release(bool ended);
    void wait(std::uint32_t seen) const;

    Communicator& comm_;
    const std::uint64_t local_;
    std::atomic<bool>& stop_;
    const WaitLimits limits_;
    // Arrived (low 32 bits) and left (high 32 bits) in one word, so that exactly one arrival or leave sees
    // the set complete.
    std::atomic<std::uint64_t> state_{0};
    // Generation (31 bits) | kEnded: waiting threads sleep on it (futex) until it moves.
    std::atomic<std::uint32_t> word_{0};
    std::atomic<bool> stopRequested_{false};
    mutable std::mutex mutex_;   // localError_, remoteError_
    std::mutex meetMutex_;       // one meeting (exchange + onMeeting) at a time
    std::string localError_;     // the reason this process stops (empty for a cancel)
    std::vector<SyncSlot> slots_; // slots_[l] written by local thread l before it arrives
    std::vector<unsigned char> mine_, all_;
    std::vector<SyncSlot> every_;
    std::atomic<bool> remoteStopped_{false}, broken_{false};
    std::atomic<std::uint64_t> meetings_{0};
    std::string remoteError_;
    static constexpr std::size_t kRelayDepth = 64; // meetings the relay may be behind before the leader waits
    static constexpr long kRelayPeriodMs = 20;     // the relay drains the ring this often unless woken sooner
    std::vector<std::vector<SyncSlot>> relayRing_;
    std::atomic<std::uint32_t> relayHead_{0}; // meetings handed over (leader)
    std::atomic<std::uint32_t> relayTail_{0}; // meetings delivered (relay)
    std::atomic<bool> relayEnd_{false};
    std::atomic<std::uint32_t> relaySignal_{0}; // moves on every hand-over and at the end (the relay sleeps on it)
    std::thread relay_;
};

} // namespace trainio::dist
