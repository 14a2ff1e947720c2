#include "engine/compute_emulator.h"

#include <algorithm>
#include <ctime>
#include <atomic>
#include <cerrno>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <thread>
#include <time.h>
#include <unistd.h>

namespace trainio {
namespace {

// How long before the deadline the sleep hands over to the spin loop. Wake-ups on an idle Linux
// machine land within ~10–60 µs after the requested time with timer slack 1 ns.
constexpr std::int64_t kSpinMarginNs = 80'000;
constexpr std::int64_t kCancelSliceNs = 20'000'000;
// The scheduler slice asked for the training threads (EEVDF, Linux >= 6.12; older kernels ignore it).
constexpr std::uint64_t kShortSliceNs = 100'000;

// Threads spinning out a step's last microseconds right now, and how many may. Ranks run in lock step,
// so with more ranks than cores they all reach their spin at once: unlimited, they would take turns on
// the cores, each spin ending late by the others' spins, and the readers would get no core at all.
// At most one spinner per core but one; a rank that finds no free slot sleeps to its deadline instead
// (a few tens of µs late, which the step measures: DLIO >= 2 records the measured compute time).
std::atomic<unsigned> gSpinners{0};
const unsigned gMaxSpinners = std::max(1u, std::thread::hardware_concurrency() - 1);

// The kernel's struct sched_attr (linux/sched/types.h, which clashes with glibc's sched.h); the layout is
// a stable ABI, versioned by its size.
struct KernelSchedAttr {
    std::uint32_t size;
    std::uint32_t sched_policy;
    std::uint64_t sched_flags;
    std::int32_t sched_nice;
    std::uint32_t sched_priority;
    std::uint64_t sched_runtime;
    std::uint64_t sched_deadline;
    std::uint64_t sched_period;
    std::uint32_t sched_util_min;
    std::uint32_t sched_util_max;
};

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

void ComputeEmulator::tightenTimerSlack() { prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); }

void ComputeEmulator::askShortSlice() {
    KernelSchedAttr attr{};
    if (syscall(SYS_sched_getattr, 0, &attr, sizeof attr, 0) != 0) return;
    if (attr.sched_policy != SCHED_OTHER) return; // a real-time or batch policy set by the user stays
    attr.size = sizeof attr;
    attr.sched_flags = 0;
    attr.sched_runtime = kShortSliceNs;
    syscall(SYS_sched_setattr, 0, &attr, 0);
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

} // namespace trainio
