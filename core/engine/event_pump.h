// Keeps whoever watches a run out of its measured window (docs/engine.md, "What watches a run").
//
// Between the end of a step's compute and the step's meeting only clock reads and a lock-free store may
// sit: an accelerator's thread hands its StepEvent to its own single-producer ring (one relaxed load, one
// copy, one release store) and meets the others. The pump's own thread drains every ring a few dozen
// times a second, after the releases, and calls the observer there — so the GUI bridge's lock, the CLI
// reporter's mutex and --live-json's write + flush, and process 0's relay of every remote rank's steps
// under MPI, all run beside the accelerators, never in front of their barrier.
//
// Order: every step of an epoch reaches the observer before that epoch's EpochEvent (the rank that posts
// an epoch has met every rank after their last step of it, so their rings already hold those steps).
// A ring that is full drops the step event (counted, said once at the end): the live view is allowed to
// miss a point, the measurement is not — step records are kept by the engine, not here.
#pragma once

#include "engine/engine_observer.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace trainio {

// One producer thread, one consumer thread, fixed capacity (a power of two); never blocks, never allocates.
class StepEventRing {
public:
    explicit StepEventRing(std::size_t capacityPow2);
    // Producer: false (event dropped) when the ring is full.
    bool push(const StepEvent& e) noexcept;
    // Consumer: calls f on every event present, oldest first; returns how many.
    template <class F>
    std::size_t drain(F&& f) {
        std::uint64_t tail = tail_.load(std::memory_order_relaxed);
        const std::uint64_t head = head_.load(std::memory_order_acquire);
        const std::size_t n = static_cast<std::size_t>(head - tail);
        for (; tail != head; ++tail) f(slots_[tail & mask_]);
        tail_.store(tail, std::memory_order_release);
        return n;
    }

private:
    std::vector<StepEvent> slots_;
    const std::uint64_t mask_;
    alignas(64) std::atomic<std::uint64_t> head_{0}; // written by the producer
    alignas(64) std::atomic<std::uint64_t> tail_{0}; // written by the consumer
    alignas(64) std::uint64_t cachedTail_ = 0;       // the producer's last view of tail_
};

class EventPump {
public:
    // One ring per producer (each local accelerator, and a relay such as process 0's for the remote ranks),
    // ring p holding up to ringCapacities[p] events between two drains. observer may be null: then every
    // call is a no-op and no thread is started.
    EventPump(EngineObserver* observer, const std::vector<std::size_t>& ringCapacities, unsigned periodMs = 20);
    ~EventPump(); // finish()
    EventPump(const EventPump&) = delete;
    EventPump& operator=(const EventPump&) = delete;

    bool active() const { return observer_ != nullptr; }
    // Lock-free, from producer p's thread only (at most one thread per p at a time).
    void step(std::size_t producer, const StepEvent& e) noexcept {
        if (observer_ && !rings_[producer]->push(e)) dropped_.fetch_add(1, std::memory_order_relaxed);
    }
    // Rare events (outside every measured window): queued under a lock, delivered after the steps that
    // were posted before them.
    void epoch(const EpochEvent& e);
    void message(const std::string& text);
    // Delivers everything still queued and stops the thread; the observer is not called afterwards.
    void finish();
    std::uint64_t dropped() const { return dropped_.load(); }
    std::uint64_t delivered() const { return delivered_.load(); }

private:
    struct Rare {
        bool isEpoch = false;
        EpochEvent epoch;
        std::string text;
    };
    void loop();
    void drainOnce();

    EngineObserver* observer_;
    std::vector<std::unique_ptr<StepEventRing>> rings_;
    const unsigned periodMs_;
    std::mutex mutex_;
    std::condition_variable cv_;
    std::vector<Rare> rare_;
    bool stop_ = false, finished_ = false;
    std::atomic<std::uint64_t> dropped_{0}, delivered_{0};
    std::thread thread_;
};

} // namespace trainio
