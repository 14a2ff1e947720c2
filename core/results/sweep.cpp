#include "results/sweep.h"

#include "aggregate/group_aggregate.h"
#include "aggregate/results_import.h"
#include "config/value_ranges.h"
#include "dist/mpi_launch.h"
#include "engine/sample_order.h"
#include "util/atomic_file.h"
#include "util/errors.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>

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

ordered_json numberOrNull(double v) { return std::isfinite(v) ? ordered_json(v) : ordered_json(); }

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

void measureTrial(SweepTrial& trial, double auThresholdPercent) {
    const aggregate::ImportResult imported = aggregate::importResults({trial.path});
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

ordered_json sweepJson(const SweepOutcome& outcome, const SweepDescription& what, const fs::path& dir) {
    ordered_json j;
    j["max_passing_accelerators"] = outcome.maxPassing ? ordered_json(*outcome.maxPassing) : ordered_json();
    j["complete"] = outcome.complete;
    j["au_threshold_percentage"] = what.auThresholdPercent;
    j["accelerators_min"] = what.range.min;
    j["accelerators_max"] = what.range.max;
    j["accelerators_step"] = what.range.step;
    j["mode"] = what.quick ? "quick" : "benchmark";
    j["runs_per_trial"] = what.runs;
    j["warmups_per_trial"] = what.warmups;
    j["launcher"] = what.launcher;
    j["hosts"] = what.hosts;
    j["processes_per_host"] = what.processesPerHost;
    j["config"] = what.config;
    j["overrides"] = what.overrides;
    ordered_json trials = ordered_json::array();
    for (const auto& t : outcome.trials) {
        const fs::path rel = t.path.lexically_relative(dir);
        ordered_json tj;
        tj["accelerators"] = t.accelerators;
        tj["au_mean_percentage"] = numberOrNull(t.auMeanPercent);
        tj["samples_per_second"] = numberOrNull(t.samplesPerSecond);
        tj["read_gib_per_second"] = numberOrNull(t.readGibPerSecond);
        tj["passed"] = t.passed;
        tj["path"] = (rel.empty() || *rel.begin() == "..") ? t.path.string() : rel.string();
        tj["status"] = toString(t.status);
        if (!t.error.empty()) tj["error"] = t.error;
        trials.push_back(std::move(tj));
    }
    j["trials"] = std::move(trials);
    return j;
}

fs::path writeSweepJson(const SweepOutcome& outcome, const SweepDescription& what, const fs::path& dir) {
    const fs::path file = dir / "sweep.json";
    writeFileAtomic(file, sweepJson(outcome, what, dir).dump(4) + "\n");
    return file;
}

SweepFile readSweepJson(const fs::path& where) {
    SweepFile f;
    std::error_code ec;
    f.file = fs::is_directory(where, ec) ? where / "sweep.json" : where;
    const fs::path dir = f.file.parent_path();
    std::ifstream in(f.file, std::ios::binary);
    if (!in) throw InputError(f.file.string() + ": cannot be read: expected a sweep's sweep.json (trainio-cli sweep)");
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw InputError(f.file.string() + ": not a JSON object");
    auto fail = [&](const std::string& key, const std::string& expected) {
        throw InputError(describeProblem(f.file.string(), key, "", expected));
    };
    auto number = [&](const nlohmann::json& o, const char* key, const std::string& at) {
        const auto it = o.find(key);
        if (it == o.end()) fail(at + key, "a number or null");
        if (it->is_null()) return std::nan("");
        if (!it->is_number()) fail(at + key, "a number or null");
        return it->get<double>();
    };
    // Keys beyond the contract: their value when it has the written type, else the fallback.
    auto count = [](const nlohmann::json& o, const char* key, std::uint64_t fallback) {
        const auto it = o.find(key);
        return it != o.end() && it->is_number_unsigned() ? it->get<std::uint64_t>() : fallback;
    };
    auto text = [](const nlohmann::json& o, const char* key, const std::string& fallback) {
        const auto it = o.find(key);
        return it != o.end() && it->is_string() ? it->get<std::string>() : fallback;
    };
    const auto maxIt = j.find("max_passing_accelerators");
    if (maxIt == j.end() || !(maxIt->is_null() || maxIt->is_number_unsigned()))
        fail("max_passing_accelerators", "a whole number or null");
    if (!maxIt->is_null()) f.outcome.maxPassing = maxIt->get<std::uint64_t>();
    f.outcome.complete = !(j.contains("complete") && j["complete"].is_boolean()) || j["complete"].get<bool>();
    SweepDescription& d = f.description;
    d.auThresholdPercent = j.contains("au_threshold_percentage") ? number(j, "au_threshold_percentage", "") : NAN;
    d.range.min = count(j, "accelerators_min", 1);
    d.range.max = count(j, "accelerators_max", d.range.min);
    d.range.step = count(j, "accelerators_step", 1);
    d.quick = text(j, "mode", "benchmark") == "quick";
    d.runs = count(j, "runs_per_trial", 1);
    d.warmups = count(j, "warmups_per_trial", 0);
    d.launcher = text(j, "launcher", "threads");
    d.hosts = count(j, "hosts", 1);
    d.processesPerHost = count(j, "processes_per_host", 1);
    d.config = text(j, "config", "");
    const auto trials = j.find("trials");
    if (trials == j.end() || !trials->is_array()) fail("trials", "an array of trials");
    for (std::size_t i = 0; i < trials->size(); ++i) {
        const nlohmann::json& t = (*trials)[i];
        const std::string at = "trials[" + std::to_string(i) + "].";
        if (!t.is_object()) fail(at, "a trial object");
        SweepTrial trial;
        if (!t.contains("accelerators") || !t["accelerators"].is_number_unsigned()) fail(at + "accelerators", "a whole number");
        trial.accelerators = t["accelerators"].get<std::uint64_t>();
        trial.auMeanPercent = number(t, "au_mean_percentage", at);
        trial.samplesPerSecond = number(t, "samples_per_second", at);
        trial.readGibPerSecond = number(t, "read_gib_per_second", at);
        if (!t.contains("passed") || !t["passed"].is_boolean()) fail(at + "passed", "true or false");
        trial.passed = t["passed"].get<bool>();
        if (!t.contains("path") || !t["path"].is_string()) fail(at + "path", "the trial folder");
        const fs::path path = t["path"].get<std::string>();
        trial.path = path.is_absolute() ? path : dir / path;
        const std::string status = text(t, "status", "complete");
        trial.status = status == "cancelled" ? RunStatus::Cancelled : status == "failed" ? RunStatus::Failed : RunStatus::Complete;
        trial.error = text(t, "error", "");
        f.outcome.trials.push_back(std::move(trial));
    }
    return f;
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
