// Turns the engine's raw step events into the per-step values the live plots draw (instantaneous
// indicators, not DLIO's metrics: those come from core at the end of each epoch). Kept out of the
// plot widget so the widget only draws.
#pragma once

#include "engine/engine_observer.h"

#include <cstdint>
#include <map>
#include <vector>

namespace trainio::ui {

struct StepPoint {
    double key = 0;              // step number across epochs and invocations, 1-based
    double auPercent = 0;        // compute ÷ (load + compute) of this step
    double loadSeconds = 0;
    double samplesPerSecond = 0; // batch ÷ step time
    double mibPerSecond = 0;     // bytes read since the rank's previous step ÷ the wall time between them
    double queueDepth = 0;
};

class StepSeries {
public:
    void reset(std::uint64_t ranks, std::uint64_t batchSize);
    // A new invocation: keys continue after the last one, byte counters restart.
    void beginInvocation();

    struct Output {
        std::vector<std::pair<std::uint64_t, StepPoint>> perRank; // (rank, point)
        std::vector<StepPoint> total; // once every rank has reported a step: mean AU, summed rates
    };
    Output add(const std::vector<StepEvent>& events);

    std::uint64_t ranks() const { return ranks_; }
    double lastKey() const { return lastKey_; }

private:
    struct RankState {
        double wallTime = 0;
        std::uint64_t bytes = 0;
    };
    struct Pending {
        std::uint64_t count = 0;
        StepPoint sum;
    };
    std::uint64_t ranks_ = 1;
    std::uint64_t batch_ = 1;
    double keyOffset_ = 0;
    double lastKey_ = 0;
    std::vector<RankState> state_;
    std::map<double, Pending> pending_;
};

} // namespace trainio::ui
