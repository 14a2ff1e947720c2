#include "engine/compute_emulator.h"

#include <algorithm>
#include <ctime>
#include <atomic>
#include <cerrno>
#include <sched.h>
#include <thread>
#include <time.h>

namespace trainio {
namespace {

// How long before the deadline the sleep hands over to the spin loop. Wake-ups on an idle Linux
// machine land within ~10–60 µs after the requested time with timer slack 1 ns.
constexpr std::int64_t kSpinMarginNs = 80'000;
constexpr std::int64_t kCancelSliceNs = 20'000'000;

// Threads spinning out a step's last microseconds right now, and how many may. Ranks run in lock step,
// so with more ranks than cores they all reach their spin at once: unlimited, they would take turns on
// the cores, each spin ending late by the others' spins, and the readers would get no core at all.
// At most one spinner per core but one; a rank that finds no free slot sleeps to its deadline instead
// (a few tens of µs late, which the step measures: DLIO >= 2 records the measured compute time).
std::atomic<unsigned> gSpinners{0};
unsigned usableCpus() {
    // The CPUs this process may run on (taskset, cgroup cpusets), else the machine's count.
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return static_cast<unsigned>(CPU_COUNT(&set));
    return std::thread::hardware_concurrency(); // 0 when unknown
}
const unsigned gMaxSpinners = std::max(2u, usableCpus()) - 1;

bool takeSpinSlot() {
    unsigned n = gSpinners.load(std::memory_order_relaxed);
    while (n < gMaxSpinners)
        if (gSpinners.compare_exchange_weak(n, n + 1, std::memory_order_relaxed)) return true;
    return false;
}

std::int64_t nowNs() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

void sleepUntilNs(std::int64_t t) {
    timespec ts{};
    ts.tv_sec = t / 1'000'000'000;
    ts.tv_nsec = t % 1'000'000'000;
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
    }
}

} // namespace

ComputeEmulator::ComputeEmulator(const ComputeTime& time, std::uint64_t seed) : time_(time), rng_(seed) {}

double ComputeEmulator::draw() {
    double v = 0.0;
    switch (time_.distribution) {
    case ComputeDistribution::Constant: v = time_.mean; break;
    case ComputeDistribution::Normal: v = time_.mean + time_.stdev * rng_.normal(); break;
    case ComputeDistribution::Uniform: v = time_.min + (time_.max - time_.min) * rng_.uniform01(); break;
    case ComputeDistribution::Gamma: v = rng_.gamma(time_.shape, time_.scale); break;
    case ComputeDistribution::Exponential: v = rng_.exponential(time_.scale); break;
    }
    return std::max(0.0, v);
}

bool ComputeEmulator::wait(double seconds, const std::atomic<bool>* cancel) {
    if (seconds <= 0.0) return !(cancel && cancel->load(std::memory_order_relaxed));
    const std::int64_t deadline = nowNs() + static_cast<std::int64_t>(seconds * 1e9);
    for (;;) {
        if (cancel && cancel->load(std::memory_order_relaxed)) return false;
        const std::int64_t left = deadline - nowNs();
        if (left <= kSpinMarginNs) break;
        sleepUntilNs(nowNs() + std::min(left - kSpinMarginNs, kCancelSliceNs));
    }
    if (!takeSpinSlot()) {
        sleepUntilNs(deadline);
        return true;
    }
    while (nowNs() < deadline) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    gSpinners.fetch_sub(1, std::memory_order_relaxed);
    return true;
}

namespace {
std::int64_t threadCpuNs() {
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}
} // namespace

bool ComputeEmulator::burn(double cpuSeconds, const std::atomic<bool>* cancel) {
    if (cpuSeconds <= 0.0) return !(cancel && cancel->load(std::memory_order_relaxed));
    const std::int64_t until = threadCpuNs() + static_cast<std::int64_t>(cpuSeconds * 1e9);
    // Work the compiler cannot drop; the thread's own CPU clock, read every ~20 µs of it, says when enough
    // ran (time spent waiting for a core is not counted: that is the contention the replay reproduces).
    volatile std::uint64_t sink = 0x9e3779b97f4a7c15ull;
    for (std::uint32_t i = 0;; ++i) {
        for (int k = 0; k < 2000; ++k) sink = sink * 6364136223846793005ull + 1442695040888963407ull;
        if (threadCpuNs() >= until) return true;
        if ((i & 63) == 0 && cancel && cancel->load(std::memory_order_relaxed)) return false;
    }
}

} // namespace trainio
