// The emulated all-reduce: all ranks meet after each step. Unlike std::barrier it can be aborted, so
// that one rank's I/O error or a cancel releases every waiting rank instead of hanging them.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace trainio {

class StepBarrier {
public:
    explicit StepBarrier(std::uint64_t parties) : parties_(parties) {}
    // Returns false if the barrier was aborted (before or while waiting).
    bool arriveAndWait() {
        std::unique_lock lock(mutex_);
        if (aborted_) return false;
        if (parties_ <= 1) return true;
        const std::uint64_t gen = generation_;
        if (++arrived_ == parties_) {
            arrived_ = 0;
            ++generation_;
            cv_.notify_all();
            return true;
        }
        cv_.wait(lock, [&] { return generation_ != gen || aborted_; });
        return generation_ != gen;
    }
    void abort() {
        std::lock_guard lock(mutex_);
        aborted_ = true;
        cv_.notify_all();
    }
    std::uint64_t waiting() const {
        std::lock_guard lock(mutex_);
        return arrived_;
    }
    bool aborted() const {
        std::lock_guard lock(mutex_);
        return aborted_;
    }

private:
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    std::uint64_t parties_;
    std::uint64_t arrived_ = 0;
    std::uint64_t generation_ = 0;
    bool aborted_ = false;
};

} // namespace trainio
