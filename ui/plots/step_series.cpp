#include "plots/step_series.h"

#include <algorithm>

namespace trainio::ui {

void StepSeries::reset(std::uint64_t ranks, std::uint64_t batchSize) {
    ranks_ = std::max<std::uint64_t>(1, ranks);
    batch_ = std::max<std::uint64_t>(1, batchSize);
    keyOffset_ = 0;
    lastKey_ = 0;
    state_.assign(ranks_, RankState{});
    pending_.clear();
}

void StepSeries::beginInvocation() {
    keyOffset_ = lastKey_;
    state_.assign(ranks_, RankState{});
    pending_.clear();
}

StepSeries::Output StepSeries::add(const std::vector<StepEvent>& events) {
    Output out;
    out.perRank.reserve(events.size());
    for (const StepEvent& e : events) {
        if (e.rank >= state_.size()) state_.resize(e.rank + 1);
        RankState& s = state_[e.rank];
        StepPoint p;
        p.key = keyOffset_ + static_cast<double>((e.epoch - 1) * e.stepsPerEpoch + e.step);
        p.loadSeconds = e.load;
        p.auPercent = e.proc > 0 ? 100.0 * e.compute / e.proc : 0.0;
        p.samplesPerSecond = e.proc > 0 ? static_cast<double>(batch_) / e.proc : 0.0;
        const double dt = e.wallTime - s.wallTime;
        const double bytes = static_cast<double>(e.bytesRead >= s.bytes ? e.bytesRead - s.bytes : e.bytesRead);
        p.mibPerSecond = dt > 0 ? bytes / dt / (1024.0 * 1024.0) : 0.0;
        p.queueDepth = static_cast<double>(e.queueDepth);
        s.wallTime = e.wallTime;
        s.bytes = e.bytesRead;
        lastKey_ = std::max(lastKey_, p.key);
        out.perRank.emplace_back(e.rank, p);

        Pending& pend = pending_[p.key];
        ++pend.count;
        pend.sum.auPercent += p.auPercent;
        pend.sum.loadSeconds += p.loadSeconds;
        pend.sum.samplesPerSecond += p.samplesPerSecond;
        pend.sum.mibPerSecond += p.mibPerSecond;
        pend.sum.queueDepth += p.queueDepth;
    }
    // Ranks meet at a barrier every step, so a step is complete once every rank has reported it.
    for (auto it = pending_.begin(); it != pending_.end();) {
        if (it->second.count < ranks_) {
            ++it;
            continue;
        }
        const double n = static_cast<double>(ranks_);
        StepPoint t = it->second.sum;
        t.key = it->first;
        t.auPercent /= n;
        t.loadSeconds /= n;
        t.queueDepth /= n;
        out.total.push_back(t);
        it = pending_.erase(it);
    }
    return out;
}

} // namespace trainio::ui
