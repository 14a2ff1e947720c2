#include "run/live_figures.h"

#include <algorithm>

namespace trainio::ui {

void LiveFigures::reset(std::uint64_t ranks) { ranks_.assign(std::max<std::uint64_t>(1, ranks), Rank{}); }

void LiveFigures::beginInvocation() {
    for (Rank& r : ranks_) r = Rank{};
}

void LiveFigures::add(const std::vector<StepEvent>& events) {
    for (const StepEvent& e : events) {
        if (e.rank >= ranks_.size()) ranks_.resize(e.rank + 1);
        Rank& r = ranks_[e.rank];
        r.samples.push_back({e.wallTime, e.compute, e.proc, e.bytesRead});
        if (r.samples.size() > 1) { // the first sample is the baseline: its step is not in the sums
            r.compute += e.compute;
            r.proc += e.proc;
        }
        // Drop samples older than the window, keeping the newest of them as the baseline and at least one
        // step after it.
        while (r.samples.size() > 2 && r.samples[1].wallTime < e.wallTime - window_) {
            r.samples.pop_front();
            r.compute -= r.samples.front().compute; // the new baseline leaves the sums
            r.proc -= r.samples.front().proc;
        }
    }
}

std::optional<double> LiveFigures::rankAu(std::uint64_t rank) const {
    if (rank >= ranks_.size()) return std::nullopt;
    const Rank& r = ranks_[rank];
    if (r.samples.empty()) return std::nullopt;
    if (r.samples.size() == 1) { // one step only: its own AU
        const Sample& s = r.samples.front();
        return s.proc > 0 ? 100.0 * s.compute / s.proc : 0.0;
    }
    return r.proc > 0 ? std::clamp(100.0 * r.compute / r.proc, 0.0, 100.0) : 0.0;
}

std::optional<double> LiveFigures::totalAu() const {
    double sum = 0;
    for (std::uint64_t i = 0; i < ranks_.size(); ++i) {
        const std::optional<double> au = rankAu(i);
        if (!au) return std::nullopt;
        sum += *au;
    }
    return sum / static_cast<double>(ranks_.size());
}

std::optional<double> LiveFigures::bytesPerSecond() const {
    double sum = 0;
    bool any = false;
    for (const Rank& r : ranks_) {
        if (r.samples.size() < 2) continue;
        const Sample& first = r.samples.front();
        const Sample& last = r.samples.back();
        const double dt = last.wallTime - first.wallTime;
        if (dt <= 0 || last.bytes < first.bytes) continue;
        sum += static_cast<double>(last.bytes - first.bytes) / dt;
        any = true;
    }
    if (!any) return std::nullopt;
    return sum;
}

} // namespace trainio::ui
