// How the engine talks to the world (CLI progress line, --live-json, the GUI bridge). Calls come from
// engine threads: implementations must be thread-safe and cheap (onStep is on the per-step path).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace trainio {

struct StepEvent {
    std::uint64_t rank = 0;
    std::uint64_t epoch = 1;
    std::uint64_t step = 1; // 1-based within the epoch
    std::uint64_t stepsPerEpoch = 0;
    double load = 0, compute = 0, proc = 0; // seconds
    double wallTime = 0;                    // seconds since the run started
    std::uint64_t queueDepth = 0;           // batches ready ahead after this step's batch was taken
    std::uint64_t bytesRead = 0;            // this rank's bytes read so far in the run
};

struct EpochEvent {
    std::uint64_t epoch = 1;
    std::uint64_t epochs = 1;
    double auPercent = 0;             // mean over ranks
    double throughput = 0;            // samples/s, sum over ranks
    double mibPerSecond = 0;          // throughput × mean record length / 2^20
    std::vector<double> rankAu;       // per rank
    std::vector<double> rankThroughput;
    double seconds = 0;               // epoch wall time
    // The loader policy (docs/loader.md), over this process's ranks: 1 − storage reads / accesses, Belady's
    // bound for the same capacity, and the accelerators' mean wait for batches (summed step loads). NaN when
    // not known.
    double hitRatio = 0, beladyHitRatio = 0, stallSeconds = 0;
};

class EngineObserver {
public:
    virtual ~EngineObserver() = default;
    virtual void onPhase(const std::string& /*phase*/) {}
    virtual void onStep(const StepEvent& /*e*/) {}
    virtual void onEpoch(const EpochEvent& /*e*/) {}
    virtual void onMessage(const std::string& /*warningOrInfo*/) {}
    // A multi-process run, before its first step: the host of every rank (process 0 only).
    virtual void onHosts(const std::vector<std::string>& /*hostOfRank*/) {}
};

} // namespace trainio
