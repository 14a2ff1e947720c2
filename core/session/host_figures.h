// Per-host figures of a multi-process run as it goes (the Run page's host rows): which ranks run on a
// host, and per host the latest epoch's AU (mean over its ranks' AU, as DLIO averages over ranks) and
// samples/s (sum over its ranks), both from the per-rank values of the epoch event; and, between epochs,
// a running AU of the current epoch from the step events, per rank as DLIO's AU over the part of the epoch
// so far (Σcompute of the steps after the first ÷ the wall time since the first step ended: the waits at
// the step barrier count, as they do in DLIO's block time), then the mean over the host's ranks.
#pragma once

#include "engine/engine_observer.h"

#include <cstdint>
#include <string>
#include <vector>

namespace trainio {

struct HostFigures {
    std::string host;
    std::vector<std::uint64_t> ranks;  // ascending
    std::uint64_t epoch = 0;           // the latest epoch whose figures are below (0: none yet)
    double epochAuPercent = 0;         // mean over the host's ranks of that epoch's AU
    double epochSamplesPerSecond = 0;  // sum over the host's ranks
    std::uint64_t liveEpoch = 0;       // the epoch the running AU is of (0: no step yet)
    double liveAuPercent = 0;          // running AU of liveEpoch, mean over the ranks that have one
};

class HostTally {
public:
    HostTally() = default;
    // hostOfRank[r]: the host rank r runs on. Hosts are listed in the order of their first rank.
    explicit HostTally(const std::vector<std::string>& hostOfRank);

    void addStep(const StepEvent& e);
    void addEpoch(const EpochEvent& e);

    const std::vector<HostFigures>& hosts() const { return hosts_; }
    const std::vector<std::string>& hostOfRank() const { return hostOfRank_; }

private:
    struct RankRunning {
        std::uint64_t epoch = 0;
        double compute = 0; // Σcompute of the steps after the first seen
        double since = 0;   // wall time at the end of the first step seen
        double last = 0;    // wall time at the end of the latest step
    };
    void updateLive(std::size_t host);

    std::vector<std::string> hostOfRank_;
    std::vector<std::size_t> hostIndexOfRank_;
    std::vector<RankRunning> running_;
    std::vector<HostFigures> hosts_;
};

} // namespace trainio
