// The presentation view's figures, from the step events the Run page already receives: per accelerator
// and in total, the AU of the last two seconds (compute ÷ (load + compute) summed over the steps in the
// window, the DLIO definition over a short window rather than an epoch) and the bytes delivered per second
// over the same window. Plain C++ (no Qt): fed and read on the GUI thread, no core calls.
#pragma once

#include "engine/engine_observer.h"

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

namespace trainio::ui {

class LiveFigures {
public:
    explicit LiveFigures(double windowSeconds = 2.0) : window_(windowSeconds) {}

    void reset(std::uint64_t ranks);
    // A new invocation: wall times and byte counters restart, so the windows do too.
    void beginInvocation();
    void add(const std::vector<StepEvent>& events);

    std::uint64_t ranks() const { return ranks_.size(); }
    // AU % of rank r over the window; nullopt before its first step.
    std::optional<double> rankAu(std::uint64_t rank) const;
    // Mean of the ranks' window AU (the DLIO total: the mean over accelerators); nullopt until every rank
    // has a step.
    std::optional<double> totalAu() const;
    // Bytes per second read by all ranks over their windows (sum of the per-rank rates); nullopt until a
    // rank has two steps.
    std::optional<double> bytesPerSecond() const;

private:
    struct Sample {
        double wallTime = 0, compute = 0, proc = 0;
        std::uint64_t bytes = 0;
    };
    struct Rank {
        std::deque<Sample> samples; // the window, plus the one sample before it (the byte baseline)
        double compute = 0, proc = 0; // sums over the samples after the baseline
    };
    double window_;
    std::vector<Rank> ranks_;
};

} // namespace trainio::ui
