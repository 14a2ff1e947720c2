#include "session/sweep.h"

#include "aggregate/group_aggregate.h"
#include "config/value_ranges.h"
#include "dist/mpi_launch.h"
#include "loader/sample_order.h"
#include "engine/training_engine.h"
#include "util/errors.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace trainio {
namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace {

std::optional<std::uint64_t> wholeNumber(const std::string& s) {
    std::uint64_t v = 0;
    if (s.empty() || s.front() == '+' || s.front() == '-') return std::nullopt;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return v;
}

} // namespace

SweepRange parseSweepRange(const std::string& text, const std::string& option) {
    const auto colon = text.find(':');
    const auto loText = colon == std::string::npos ? std::nullopt : wholeNumber(text.substr(0, colon));
    const auto hiText = colon == std::string::npos ? std::nullopt : wholeNumber(text.substr(colon + 1));
    const double limit = valueRange("accelerators")->max;
    const std::string where = option + " = '" + text + "'";
    if (!loText || !hiText)
        throw InputError(where + ": expected MIN:MAX, two whole numbers such as 1:64 (the smallest and the largest "
                                 "accelerator count to try)");
    // (plain values: GCC 12 -O2 takes the optionals' payloads for maybe-uninitialized past the check)
    const std::uint64_t lo = loText.value_or(0), hi = hiText.value_or(0);
    if (lo < 1) throw InputError(where + ": MIN is 0; expected MIN >= 1");
    if (lo > hi) throw InputError(where + ": MIN " + std::to_string(lo) + " is above MAX " + std::to_string(hi) +
                                  "; expected MIN <= MAX");
    if (static_cast<double>(hi) > limit)
        throw InputError(where + ": MAX " + std::to_string(hi) + " is above " + std::to_string(static_cast<std::uint64_t>(limit)) +
                         ", the most accelerators a run takes");
    return {lo, hi, 1};
}

SweepUnits sweepUnits(const SweepRange& range, const std::string& option) {
    const std::uint64_t step = std::max<std::uint64_t>(1, range.step);
    const SweepUnits u{(range.min + step - 1) / step, range.max / step};
    if (u.first > u.last || u.first == 0)
        throw InputError(option + " = " + std::to_string(range.min) + ":" + std::to_string(range.max) + ": holds no multiple of " +
                         std::to_string(step) + " (hosts × processes per host); expected a range that does");
    return u;
}

SweepOutcome searchMaxPassing(const SweepRange& range, const SweepTrialRunner& runTrial,
                              const std::function<void(const SweepOutcome&)>& afterTrial) {
    const SweepUnits units = sweepUnits(range, "--accelerators");
    const std::uint64_t step = std::max<std::uint64_t>(1, range.step);
    SweepOutcome out;
    std::optional<std::uint64_t> lastPass, firstFail; // in units of step
    // Runs one trial; false when it did not complete (the sweep stops there).
    auto attempt = [&](std::uint64_t unit) {
        SweepTrial t = runTrial(unit * step);
        t.accelerators = unit * step;
        if (t.status != RunStatus::Complete) t.passed = false;
        const bool completed = t.status == RunStatus::Complete;
        if (completed && t.passed) {
            lastPass = unit;
            out.maxPassing = unit * step;
        } else if (completed) {
            firstFail = unit;
        }
        out.trials.push_back(std::move(t));
        if (afterTrial) afterTrial(out);
        return completed;
    };
    // Doubling: MIN, 2·MIN, 4·MIN, … (the last one clipped to MAX) until one fails.
    for (std::uint64_t unit = units.first;; unit = unit > units.last / 2 ? units.last : unit * 2) {
        if (!attempt(unit)) return out;
        if (firstFail || unit == units.last) break;
    }
    // Bisection between the last passing and the first failing count.
    while (lastPass && firstFail && *firstFail - *lastPass > 1)
        if (!attempt(*lastPass + (*firstFail - *lastPass) / 2)) return out;
    out.complete = true;
    return out;
}

std::uint64_t maxSweepTrials(const SweepRange& range) {
    const SweepUnits u = sweepUnits(range, "--accelerators");
    std::uint64_t doublings = 1, bisections = 0;
    for (std::uint64_t unit = u.first; unit < u.last; unit = unit > u.last / 2 ? u.last : unit * 2) ++doublings;
    for (std::uint64_t gap = std::max<std::uint64_t>(1, u.last - u.first); gap > 1; gap = (gap + 1) / 2) ++bisections;
    return doublings + bisections;
}

void measureTrial(SweepTrial& trial, double auThresholdPercent, const aggregate::ImportResult& imported) {
    trial.auMeanPercent = trial.samplesPerSecond = trial.readGibPerSecond = NAN;
    for (const auto& group : imported.groups) {
        if (group.type != aggregate::BenchmarkType::Training || group.runs.empty()) continue;
        const aggregate::GroupAggregate agg = aggregate::aggregateGroup(imported, group);
        trial.auMeanPercent = agg.au.mean.value;
        trial.samplesPerSecond = agg.samplesPerSecond.mean.value;
        trial.readGibPerSecond = agg.mibPerSecond.mean.value / 1024.0; // DLIO's "MB/s" are MiB/s
        break;
    }
    trial.passed = trial.status == RunStatus::Complete && std::isfinite(trial.auMeanPercent) &&
                   trial.auMeanPercent >= auThresholdPercent;
}

std::string shardProblem(const WorkloadConfig& cfg, std::uint64_t accelerators) {
    try {
        planShard(cfg, 0, accelerators);
        if (accelerators > 1) planShard(cfg, accelerators - 1, accelerators);
        return "";
    } catch (const InputError& e) {
        return e.what();
    }
}

std::optional<std::uint64_t> largestShardableCount(const WorkloadConfig& cfg, const SweepRange& range) {
    SweepUnits u = sweepUnits(range, "--accelerators");
    const std::uint64_t step = std::max<std::uint64_t>(1, range.step);
    if (!shardProblem(cfg, u.first * step).empty()) return std::nullopt;
    // Fewer accelerators never have fewer steps each, so the shardable counts are a prefix: bisect.
    while (u.first < u.last) {
        const std::uint64_t mid = u.first + (u.last - u.first + 1) / 2;
        if (shardProblem(cfg, mid * step).empty()) u.first = mid;
        else u.last = mid - 1;
    }
    return u.first * step;
}

fs::path sweepTrialFolder(const fs::path& dir, std::uint64_t accelerators) {
    return dir / ("trial-" + std::to_string(accelerators) + "-accelerators");
}

std::vector<std::string> hostfileHosts(const fs::path& hostfile, const std::string& option) {
    std::vector<std::string> names;
    try {
        for (const dist::HostSlots& h : dist::readHostfile(hostfile)) names.push_back(h.name);
    } catch (const InputError& e) {
        throw InputError(option + ": " + e.what());
    }
    return names;
}

std::vector<std::string> mpiTrialArguments(const MpiTrialLaunch& launch, std::uint64_t accelerators) {
    const std::uint64_t processes = launch.hosts * launch.processesPerHost;
    if (processes == 0 || accelerators % processes != 0)
        throw InputError(std::to_string(accelerators) + " accelerators: expected a multiple of hosts × processes per host (" +
                         std::to_string(processes) + ")");
    // Open MPI kills a rank 1 s after the SIGTERM of a cancel by default: too short for process 0 to write
    // a large folder (docs/mpi.md), so the ranks get 10 s.
    dist::MpiLaunch options;
    options.hostfile = launch.hostfile;
    options.processesPerHost = launch.processesPerHost;
    options.allowRunAsRoot = launch.asRoot;
    options.sigkillTimeoutSeconds = 10;
    std::vector<std::string> argv{launch.mpirun};
    const auto mpirunOptions = dist::mpirunOptions(options, launch.hosts);
    argv.insert(argv.end(), mpirunOptions.begin(), mpirunOptions.end());
    argv.push_back(launch.executable.string());
    argv.push_back("benchmark");
    argv.insert(argv.end(), launch.benchmarkArgs.begin(), launch.benchmarkArgs.end());
    argv.push_back("--accelerators-per-process");
    argv.push_back(std::to_string(accelerators / processes));
    return argv;
}

} // namespace trainio
