// Emulates an accelerator's compute step by waiting: draws the step's duration from the configured
// distribution (SplitMix64, see prng.h) and waits it out precisely. The wait sleeps with
// clock_nanosleep(TIMER_ABSTIME) until a short margin before the deadline and spins the rest, so the
// error is a few microseconds instead of the scheduler's 50–100 µs, without burning a core for the
// whole step (which would starve the reader threads on small machines).
#pragma once

#include "config/workload_config.h"
#include "util/prng.h"

#include <atomic>
#include <chrono>
#include <cstdint>

namespace trainio {

class ComputeEmulator {
public:
    ComputeEmulator(const ComputeTime& time, std::uint64_t seed);
    // The next step's compute duration in seconds (never negative).
    double draw();
    // Waits `seconds` from now; returns early (false) if `cancel` becomes true. Checks cancel at least
    // every 20 ms so that a long compute step still stops promptly.
    static bool wait(double seconds, const std::atomic<bool>* cancel = nullptr);
    // Runs on this thread's core until its CPU clock has advanced `cpuSeconds` (a captured job's per-sample
    // CPU work, trainio.preprocess_cpu_time): on a busy machine it takes longer than that in wall time, as
    // the job's did. Returns early (false) if `cancel` becomes true.
    static bool burn(double cpuSeconds, const std::atomic<bool>* cancel = nullptr);

private:
    ComputeTime time_;
    SplitMix64 rng_;
};

} // namespace trainio
