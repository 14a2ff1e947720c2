#include "engine/event_pump.h"

#include <chrono>

namespace trainio {

namespace {
std::size_t roundUpPow2(std::size_t n) {
    std::size_t p = 1;
    while (p < n) p <<= 1;
    return p;
}
} // namespace

StepEventRing::StepEventRing(std::size_t capacityPow2)
    : slots_(roundUpPow2(capacityPow2 < 2 ? 2 : capacityPow2)), mask_(slots_.size() - 1) {}

bool StepEventRing::push(const StepEvent& e) noexcept {
    const std::uint64_t head = head_.load(std::memory_order_relaxed);
    if (head - cachedTail_ >= slots_.size()) {
        cachedTail_ = tail_.load(std::memory_order_acquire);
        if (head - cachedTail_ >= slots_.size()) return false;
    }
    slots_[head & mask_] = e;
    head_.store(head + 1, std::memory_order_release);
    return true;
}

EventPump::EventPump(EngineObserver* observer, const std::vector<std::size_t>& ringCapacities, unsigned periodMs)
    : observer_(observer), periodMs_(periodMs == 0 ? 1 : periodMs) {
    if (!observer_) return;
    rings_.reserve(ringCapacities.size());
    for (const std::size_t capacity : ringCapacities) rings_.push_back(std::make_unique<StepEventRing>(capacity));
    thread_ = std::thread([this] { loop(); });
}

EventPump::~EventPump() { finish(); }

void EventPump::epoch(const EpochEvent& e) {
    if (!observer_) return;
    {
        std::lock_guard lock(mutex_);
        Rare r;
        r.isEpoch = true;
        r.epoch = e;
        rare_.push_back(std::move(r));
    }
    cv_.notify_one();
}

void EventPump::message(const std::string& text) {
    if (!observer_) return;
    {
        std::lock_guard lock(mutex_);
        Rare r;
        r.text = text;
        rare_.push_back(std::move(r));
    }
    cv_.notify_one();
}

void EventPump::drainOnce() {
    // The rare events are taken before the rings are drained: each was posted after the steps it follows,
    // so those steps are in the rings by now and go out first.
    std::vector<Rare> rare;
    {
        std::lock_guard lock(mutex_);
        rare.swap(rare_);
    }
    std::uint64_t n = 0;
    for (auto& ring : rings_) n += ring->drain([this](const StepEvent& e) { observer_->onStep(e); });
    for (const Rare& r : rare) {
        if (r.isEpoch)
            observer_->onEpoch(r.epoch);
        else
            observer_->onMessage(r.text);
    }
    delivered_.fetch_add(n + rare.size(), std::memory_order_relaxed);
}

void EventPump::loop() {
    std::unique_lock lock(mutex_);
    while (!stop_) {
        cv_.wait_for(lock, std::chrono::milliseconds(periodMs_), [this] { return stop_ || !rare_.empty(); });
        lock.unlock();
        drainOnce();
        lock.lock();
    }
}

void EventPump::finish() {
    if (!observer_ || finished_) return;
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    cv_.notify_one();
    if (thread_.joinable()) thread_.join();
    drainOnce(); // anything posted after the thread's last pass
    finished_ = true;
    if (const std::uint64_t d = dropped_.load())
        observer_->onMessage("the live view skipped " + std::to_string(d) +
                             " step events (the observer fell behind); every step is in the results");
}

} // namespace trainio
