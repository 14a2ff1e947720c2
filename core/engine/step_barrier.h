// The emulated all-reduce: all ranks meet after each step. Unlike std::barrier it can be aborted, so
// that one rank's I/O error or a cancel releases every waiting rank instead of hanging them.
//
// Lean on purpose (docs/engine.md, "Emulator efficiency"): it is crossed once per step by every rank,
// and with 16 ranks on 2 cores a mutex + condition variable made every release a herd — each woken
// rank re-took the mutex in turn, and the last one's wait was the next step's load time. Here arriving
// is one atomic add, and the release is one futex wake on a 32-bit word (generation | aborted bit)
// after which every waiter returns without touching a lock.
#pragma once

#include <atomic>
#include <climits>
#include <cstdint>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace trainio {

class StepBarrier {
public:
    explicit StepBarrier(std::uint64_t parties) : parties_(parties) {}
    StepBarrier(const StepBarrier&) = delete;
    StepBarrier& operator=(const StepBarrier&) = delete;

    // Returns false if the barrier was aborted (before or while waiting).
    bool arriveAndWait() {
        // The generation is read before arriving: it cannot move on until this rank has arrived.
        const std::uint32_t seen = word_.load(std::memory_order_acquire);
        if (seen & kAborted) return false;
        if (parties_ <= 1) return true;
        if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == parties_) {
            // Reset before publishing the new generation: a rank can only arrive for the next step after
            // it has seen the new generation (acquire), so it sees the count at 0.
            arrived_.store(0, std::memory_order_relaxed);
            std::uint32_t w = seen;
            while (!word_.compare_exchange_weak(w, (w & kAborted) | ((w + 1) & kGenerationMask),
                                                std::memory_order_acq_rel, std::memory_order_acquire)) {
            }
            wakeAll();
            return true;
        }
        for (;;) {
            const std::uint32_t now = word_.load(std::memory_order_acquire);
            if ((now & kGenerationMask) != (seen & kGenerationMask)) return true;
            if (now & kAborted) return false;
            // Sleeps only while the word still holds `now` (else returns at once): no lost wake-up.
            syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word_), FUTEX_WAIT_PRIVATE, now, nullptr, nullptr, 0);
        }
    }
    void abort() {
        word_.fetch_or(kAborted, std::memory_order_acq_rel);
        wakeAll();
    }
    // Ranks that have arrived at the current step and wait.
    std::uint64_t waiting() const { return arrived_.load(std::memory_order_acquire); }
    bool aborted() const { return (word_.load(std::memory_order_acquire) & kAborted) != 0; }

private:
    static constexpr std::uint32_t kAborted = 0x8000'0000u;
    static constexpr std::uint32_t kGenerationMask = 0x7FFF'FFFFu;
    static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t) && std::atomic<std::uint32_t>::is_always_lock_free,
                  "the futex word must be a plain 32-bit integer");

    void wakeAll() {
        syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word_), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
    }

    const std::uint64_t parties_;
    std::atomic<std::uint64_t> arrived_{0};
    std::atomic<std::uint32_t> word_{0}; // generation (31 bits) | kAborted
};

} // namespace trainio
