#include "session/host_figures.h"

#include <algorithm>

namespace trainio {

HostTally::HostTally(const std::vector<std::string>& hostOfRank)
    : hostOfRank_(hostOfRank), hostIndexOfRank_(hostOfRank.size()), running_(hostOfRank.size()) {
    for (std::size_t r = 0; r < hostOfRank.size(); ++r) {
        auto it = std::find_if(hosts_.begin(), hosts_.end(), [&](const HostFigures& h) { return h.host == hostOfRank[r]; });
        if (it == hosts_.end()) {
            hosts_.push_back({});
            hosts_.back().host = hostOfRank[r];
            it = hosts_.end() - 1;
        }
        it->ranks.push_back(r);
        hostIndexOfRank_[r] = static_cast<std::size_t>(it - hosts_.begin());
    }
}

void HostTally::addStep(const StepEvent& e) {
    if (e.rank >= running_.size()) return;
    RankRunning& r = running_[e.rank];
    if (r.epoch != e.epoch) {
        // The epoch's first step (normally step 1: the pipeline filling) starts the window, as in DLIO.
        r = RankRunning{e.epoch, 0, e.wallTime, e.wallTime};
    } else {
        r.compute += e.compute;
        r.last = e.wallTime;
    }
    updateLive(hostIndexOfRank_[e.rank]);
}

void HostTally::updateLive(std::size_t host) {
    HostFigures& h = hosts_[host];
    std::uint64_t epoch = 0;
    for (std::uint64_t rank : h.ranks) epoch = std::max(epoch, running_[rank].epoch);
    double sum = 0;
    std::size_t n = 0;
    for (std::uint64_t rank : h.ranks) {
        const RankRunning& r = running_[rank];
        if (r.epoch != epoch || r.last <= r.since) continue;
        sum += 100.0 * r.compute / (r.last - r.since);
        ++n;
    }
    h.liveEpoch = epoch;
    h.liveAuPercent = n ? sum / static_cast<double>(n) : 0.0;
}

void HostTally::addEpoch(const EpochEvent& e) {
    for (HostFigures& h : hosts_) {
        double au = 0, throughput = 0;
        std::size_t n = 0;
        for (std::uint64_t rank : h.ranks) {
            if (rank >= e.rankAu.size() || rank >= e.rankThroughput.size()) continue;
            au += e.rankAu[rank];
            throughput += e.rankThroughput[rank];
            ++n;
        }
        if (n == 0) continue;
        h.epoch = e.epoch;
        h.epochAuPercent = au / static_cast<double>(n);
        h.epochSamplesPerSecond = throughput;
    }
}

} // namespace trainio
