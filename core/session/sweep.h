// The max-accelerators sweep (issue 12, item 4; docs/sweep.md): the largest accelerator count whose
// benchmark keeps the accelerators above the AU line. The search over counts is a pure function that
// calls back for each trial, so that the CLI (threads, or mpirun child processes) and the GUI run the
// trials their own way and the order of the search is tested on a fake trial.
#pragma once

#include "config/workload_config.h"
#include "engine/training_engine.h"
#include "store/invocation_record.h"
#include "store/sweep_file.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace trainio {

// "MIN:MAX" → {MIN, MAX}; InputError naming `option` and the value for anything else: not two whole
// numbers, MIN < 1, MIN > MAX, MAX above the accelerators key's range.
SweepRange parseSweepRange(const std::string& text, const std::string& option);

// The counts the search may try: the multiples of `step` in [min, max]. InputError naming `option`
// when there is none.
struct SweepUnits {
    std::uint64_t first = 1; // the smallest multiple of step >= min, in steps
    std::uint64_t last = 1;  // the largest multiple of step <= max, in steps
};
SweepUnits sweepUnits(const SweepRange& range, const std::string& option);

// The search (docs/sweep.md): in units of range.step, try MIN, then double while the count passes
// (the last doubling is clipped to MAX); at the first failing count, bisect between the last passing
// and the first failing count until they are adjacent. It assumes that passing is monotone in the
// count and tries no count twice. A MIN that fails ends the search with no passing count (nothing
// below MIN is tried). A trial whose status is not Complete ends the search (complete = false).
// afterTrial (optional) is called after every trial with the outcome so far.
using SweepTrialRunner = std::function<SweepTrial(std::uint64_t accelerators)>;
SweepOutcome searchMaxPassing(const SweepRange& range, const SweepTrialRunner& runTrial,
                              const std::function<void(const SweepOutcome&)>& afterTrial = {});

// The most trials the search can make over this range (for the room the results need).
std::uint64_t maxSweepTrials(const SweepRange& range);

// Fills a trial's numbers from the records of its result folder, aggregated as `aggregate` does (the
// group's mean over complete runs); passed = status Complete and AU mean >= thresholdPercent. The records
// of an in-process trial are those its session made in memory (session.h SessionResult::records: nothing
// is read back); an MPI trial's folder was written by other processes and is imported once. Records with
// no complete measured run leave the numbers NaN and the trial not passed.
void measureTrial(SweepTrial& trial, double auThresholdPercent, const aggregate::ImportResult& records);

// Why the engine's shard plan cannot give each of `accelerators` a step (its message), "" when it can.
std::string shardProblem(const WorkloadConfig& cfg, std::uint64_t accelerators);
// The largest count in the range (a multiple of step) for which the engine's shard plan gives every
// accelerator at least one step; nullopt when not even the smallest can run.
std::optional<std::uint64_t> largestShardableCount(const WorkloadConfig& cfg, const SweepRange& range);

// The trial folder for a count: dir/trial-<n>-accelerators.
std::filesystem::path sweepTrialFolder(const std::filesystem::path& dir, std::uint64_t accelerators);

// The distinct host names of an Open MPI hostfile (first word of each line; '#' starts a comment;
// a host named twice counts once, as mpirun merges it). InputError naming `option` when the file cannot
// be read or names no host.
std::vector<std::string> hostfileHosts(const std::filesystem::path& hostfile, const std::string& option);

// The argument vector of one MPI trial: mpirun <dist::mpirunOptions: [--allow-run-as-root] --mca
// odls_base_sigkill_timeout 10 --hostfile F --npernode P -np H×P> EXE benchmark <benchmarkArgs…>
// --accelerators-per-process K, with K = accelerators / (H×P).
struct MpiTrialLaunch {
    std::string mpirun = "mpirun";
    std::filesystem::path hostfile;
    std::uint64_t hosts = 1, processesPerHost = 1;
    bool asRoot = false;
    std::filesystem::path executable;       // this trainio-cli
    std::vector<std::string> benchmarkArgs; // --config, overrides, --output, --runs, --warmup, …
};
std::vector<std::string> mpiTrialArguments(const MpiTrialLaunch& launch, std::uint64_t accelerators);

} // namespace trainio
