// How the engine talks to the world (CLI progress line, --live-json, the GUI bridge). Calls come from the
// engine's event pump thread (engine/event_pump.h), never from inside an accelerator's measured step;
// implementations must still be thread-safe (other phases call from other threads) and should keep up.
#pragma once

#include <cstdint>
#include <limits>
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
    // not known (the default: an event that did not say is never read as a measured 0).
    double hitRatio = std::numeric_limits<double>::quiet_NaN();
    double beladyHitRatio = std::numeric_limits<double>::quiet_NaN();
    double stallSeconds = std::numeric_limits<double>::quiet_NaN();
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
