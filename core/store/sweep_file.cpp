#include "store/sweep_file.h"

#include "store/run_folder.h"
#include "util/errors.h"

namespace trainio::store {
namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace {

ordered_json numberOrNull(double v) { return std::isfinite(v) ? ordered_json(v) : ordered_json(); }

} // namespace

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
    const fs::path file = dir / kSweepFile;
    writeFileAtomic(file, sweepJson(outcome, what, dir).dump(4) + "\n");
    return file;
}

SweepFile readSweepJson(const fs::path& where, const fs::path& canonicalRoot) {
    SweepFile f;
    std::error_code ec;
    f.file = fs::is_directory(where, ec) ? where / kSweepFile : where;
    const fs::path dir = f.file.parent_path();
    if (!fs::exists(fs::symlink_status(f.file, ec)))
        throw InputError(f.file.string() + ": cannot be read: expected a sweep's sweep.json (trainio-cli sweep)");
    const ReadBounds bounds;
    const nlohmann::json j = readFolderJsonOrThrow(f.file, canonicalRoot.empty() ? treeOf(dir) : canonicalRoot,
                                                   bounds.maxFileBytes, bounds.maxJsonDepth);
    if (!j.is_object()) throw InputError(f.file.string() + ": not a JSON object");
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

} // namespace trainio::store
