#include "store/run_files.h"

#include "config/config_loader.h"
#include "io/storage_profile.h"
#include "telemetry/telemetry_table.h"
#include "util/clock.h"
#include "util/errors.h"
#include "util/text.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <limits>
#include <regex>
#include <sstream>

namespace fs = std::filesystem;
using nlohmann::json;

namespace trainio::store {

using aggregate::InvocationRecord;
using aggregate::InvocationStatus;

namespace {

// A name in the folder: a file, or a link of any kind (which the link rule then judges when it is read).
bool present(const fs::path& file) {
    std::error_code ec;
    const auto st = fs::symlink_status(file, ec);
    return !ec && fs::exists(st) && !fs::is_directory(st);
}

const json* find(const json& obj, const char* key) {
    if (!obj.is_object()) return nullptr;
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
}

std::string typeName(const json& v) {
    if (v.is_string()) return "a string";
    if (v.is_boolean()) return "a boolean";
    if (v.is_array()) return "an array";
    if (v.is_object()) return "an object";
    if (v.is_null()) return "null";
    return "a number";
}

// A finite number, or a reason.
bool numberAt(const json& obj, const char* key, const std::string& where, double& out, std::string& why) {
    const json* v = find(obj, key);
    if (!v) {
        why = "missing key " + where + key;
        return false;
    }
    if (!v->is_number()) {
        why = where + key + " is " + typeName(*v) + ", expected a number";
        return false;
    }
    out = v->get<double>();
    if (!std::isfinite(out)) {
        why = where + key + " is not a finite number";
        return false;
    }
    return true;
}

// The number at `key` of an object, NaN where it is missing, null or not a number (a field not measured).
double numberOrNaN(const json& obj, const char* key) {
    double v = 0;
    std::string ignored;
    return obj.is_object() && numberAt(obj, key, "", v, ignored) ? v : std::numeric_limits<double>::quiet_NaN();
}

// Whole numbers that some writers store as strings ("train_num_accelerators": "3").
bool integerAt(const json& obj, const char* key, std::int64_t& out, std::string& why, bool& wasString) {
    const json* v = find(obj, key);
    wasString = false;
    if (!v) {
        why = std::string("missing key ") + key;
        return false;
    }
    if (v->is_number_integer()) {
        out = v->get<std::int64_t>();
    } else if (v->is_number_float()) {
        const double d = v->get<double>();
        if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9e15) {
            why = std::string(key) + " = " + v->dump() + ", expected a whole number";
            return false;
        }
        out = static_cast<std::int64_t>(d);
    } else if (v->is_string()) {
        const std::string s = trim(v->get<std::string>());
        if (s.empty() || s.size() > 18 || !std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); })) {
            why = std::string(key) + " = \"" + v->get<std::string>() + "\", expected a whole number";
            return false;
        }
        out = std::stoll(s);
        wasString = true;
    } else {
        why = std::string(key) + " is " + typeName(*v) + ", expected a whole number";
        return false;
    }
    if (out < 0) {
        why = std::string(key) + " = " + std::to_string(out) + ", expected a number >= 0";
        return false;
    }
    return true;
}

std::vector<double> numberArray(const json& metric, const char* key) {
    std::vector<double> out;
    const json* v = find(metric, key);
    if (!v || !v->is_array()) return out;
    for (const auto& x : *v) {
        if (!x.is_number()) return {};
        const double d = x.get<double>();
        if (!std::isfinite(d)) return {};
        out.push_back(d);
    }
    return out;
}

std::string stringAt(const json& obj, const char* key) {
    const json* v = find(obj, key);
    return v && v->is_string() ? v->get<std::string>() : std::string();
}

// A checkpointing summary.json (DLIO fork statscounter.py, MLPerf Storage v3.0): no train_* metric, but
// save_checkpoint_* / load_checkpoint_* and checkpoint_size_GB. Each key is optional (a write-only
// invocation has no load_*), but one that is present must be a finite number.
bool parseCheckpointMetrics(const json& metric, HostSummary& s, std::string& why) {
    const std::pair<const char*, double*> keys[] = {{"save_checkpoint_io_mean_GB_per_second", &s.saveGiBps},
                                                    {"save_checkpoint_duration_mean_seconds", &s.saveSeconds},
                                                    {"load_checkpoint_io_mean_GB_per_second", &s.loadGiBps},
                                                    {"load_checkpoint_duration_mean_seconds", &s.loadSeconds},
                                                    {"checkpoint_size_GB", &s.sizeGiB}};
    for (const auto& [key, out] : keys)
        if (find(metric, key) && !numberAt(metric, key, "metric.", *out, why)) return false;
    if (std::isnan(s.saveGiBps) && std::isnan(s.loadGiBps)) {
        why = "checkpointing summary without metric.save_checkpoint_io_mean_GB_per_second or "
              "metric.load_checkpoint_io_mean_GB_per_second";
        return false;
    }
    s.checkpoint = true;
    s.au = s.sps = s.mbps = s.auStdev = s.spsStdev = s.mbpsStdev = NAN;
    return true;
}

bool parseSummary(const json& j, HostSummary& s, std::string& why) {
    if (!j.is_object()) {
        why = "top level is " + typeName(j) + ", expected an object";
        return false;
    }
    const json* metric = find(j, "metric");
    if (!metric) {
        why = "missing key metric";
        return false;
    }
    if (!metric->is_object()) {
        why = "metric is " + typeName(*metric) + ", expected an object";
        return false;
    }
    std::string ignored;
    const bool checkpointing = !find(*metric, "train_au_mean_percentage") &&
                               (find(*metric, "checkpoint_size_GB") || find(*metric, "save_checkpoint_io_mean_GB_per_second") ||
                                find(*metric, "load_checkpoint_io_mean_GB_per_second"));
    if (checkpointing) {
        if (!parseCheckpointMetrics(*metric, s, why)) return false;
    } else {
        if (!numberAt(*metric, "train_au_mean_percentage", "metric.", s.au, why) ||
            !numberAt(*metric, "train_throughput_mean_samples_per_second", "metric.", s.sps, why) ||
            !numberAt(*metric, "train_io_mean_MB_per_second", "metric.", s.mbps, why))
            return false;
        if (!numberAt(*metric, "train_au_stdev_percentage", "metric.", s.auStdev, ignored)) s.auStdev = NAN;
        if (!numberAt(*metric, "train_throughput_stdev_samples_per_second", "metric.", s.spsStdev, ignored)) s.spsStdev = NAN;
        if (!numberAt(*metric, "train_io_stdev_MB_per_second", "metric.", s.mbpsStdev, ignored)) s.mbpsStdev = NAN;
    }
    bool asString = false;
    if (!integerAt(j, "num_accelerators", s.accelerators, why, asString)) return false;
    if (asString) s.notes.push_back("num_accelerators is a string");
    if (!integerAt(j, "num_files_train", s.filesTrain, why, asString)) return false;
    if (!integerAt(j, "num_samples_per_file", s.samplesPerFile, why, asString)) return false;
    if (!integerAt(j, "num_hosts", s.numHosts, ignored, asString)) s.numHosts = 1;
    if (!integerAt(j, "epochs", s.epochs, ignored, asString)) s.epochs = 0;
    s.epochAu = numberArray(*metric, "train_au_percentage");
    s.epochSps = numberArray(*metric, "train_throughput_samples_per_second");
    s.meet = stringAt(*metric, "train_au_meet_expectation");
    s.start = stringAt(j, "start");
    s.end = stringAt(j, "end");
    s.hostname = stringAt(j, "hostname");
    if (const json* mem = find(j, "host_memory_GB"); mem && mem->is_array()) {
        bool zero = false;
        for (const auto& x : *mem) {
            if (x.is_number() && std::isfinite(x.get<double>())) {
                s.hostMemoryGiB += x.get<double>();
                zero = zero || x.get<double>() == 0.0;
            }
        }
        if (zero) s.notes.push_back("host_memory_GB has zero slots; only the sum is used");
    } else if (mem && mem->is_number() && std::isfinite(mem->get<double>())) {
        s.hostMemoryGiB = mem->get<double>();
    }
    return true;
}

// trainio_io.json's "storage": the emulated device ({} when none), its profile and its live changes
// (docs/cache-honesty.md, docs/emulated-storage.md). A malformed part is a note; the rest is kept.
void readStorage(const json& s, const std::string& where, InvocationRecord& r) {
    if (!s.is_object() || s.empty()) return;
    r.storageEmulated = true;
    if (const auto p = s.find("profile"); p != s.end() && p->is_string()) r.storageProfile = p->get<std::string>();
    json shape = s;
    shape.erase("changes");
    shape.erase("shared_with"); // a collocation's: who else read through the device (docs/collocation.md)
    // Files written before the key was spelt as the configuration's (trainio.storage.latency_ms.stdev)
    // said "stddev"; read as stdev (docs/cache-honesty.md).
    if (auto l = shape.find("latency_ms"); l != shape.end() && l->is_object() && l->contains("stddev") && !l->contains("stdev")) {
        (*l)["stdev"] = (*l)["stddev"];
        l->erase("stddev");
    }
    try {
        r.storageShape = describeStorageShape(parseStorageShape(YAML::Load(shape.dump()), where + " storage"));
    } catch (const std::exception& e) {
        r.notes.push_back(std::string(e.what()) + " (the emulated device's parameters are not shown)");
    }
    const auto c = s.find("changes");
    if (c == s.end()) return;
    if (!c->is_array()) {
        r.notes.push_back(where + ": storage.changes is not a list (the live changes are not shown)");
        return;
    }
    for (const auto& x : *c) {
        const auto num = [&](const char* k) {
            const auto v = x.find(k);
            return v != x.end() && v->is_number() ? v->get<double>() : std::numeric_limits<double>::quiet_NaN();
        };
        const auto text = [&](const char* k) {
            const auto v = x.find(k);
            return v != x.end() && v->is_string() ? v->get<std::string>() : std::string();
        };
        if (!x.is_object() || !std::isfinite(num("seconds_since_start")) || text("parameter").empty()) {
            r.notes.push_back(where + ": a storage change without seconds_since_start or parameter was skipped");
            continue;
        }
        StorageChange ch;
        ch.secondsSinceStart = num("seconds_since_start");
        ch.unixTime = num("unix_time");
        ch.parameter = text("parameter");
        ch.oldValue = num("old");
        ch.newValue = num("new");
        ch.oldText = text("old_text");
        ch.newText = text("new_text");
        r.storageChanges.push_back(std::move(ch));
    }
}

// Epoch, block and rank numbers in keys and file names: std::stoull would throw std::out_of_range or
// invalid_argument ("99999999999999999999", "blockx") — a crash of `metrics`, not the InputError that
// names the file (found by fuzz_results).
std::uint64_t keyNumber(const std::string& digits, const fs::path& file, const std::string& what) {
    std::uint64_t v = 0;
    const char* end = digits.data() + digits.size();
    const auto [p, ec] = std::from_chars(digits.data(), end, v);
    if (digits.empty() || ec != std::errc() || p != end)
        throw InputError(file.string() + ": " + what + " '" + digits + "': expected a whole number below 2^64");
    return v;
}

double jsonTimestamp(const nlohmann::json& obj, const char* key, const fs::path& file, const std::string& where) {
    if (!obj.is_object() || !obj.contains(key) || !obj[key].is_string())
        throw InputError(file.string() + ": " + where + "." + key + ": expected a timestamp string");
    double t = 0;
    if (!parseIsoTimestamp(obj[key].get<std::string>(), t))
        throw InputError(file.string() + ": " + where + "." + key + " = '" + obj[key].get<std::string>() +
                         "': expected YYYY-MM-DDTHH:MM:SS.ffffff");
    return t;
}

// The time DLIO itself measured a block in, from the AU it wrote for it. DLIO computes a block's metrics
// from two time() readings kept in memory (statscounter.py:311 in start_block, :325 in end_block,
// argonne-lcf/dlio_benchmark e1919d7; the same lines 332/346 in mlcommons/DLIO_local_changes f6796ed)
// and writes as the block's start and end separate utcnow() readings taken after them (:317, :329).
// Whatever runs in between (a garbage collection, the rank preempted on a busy host; more likely in a
// first epoch whose loader workers are starting) is in the timestamps, not in DLIO's figures: 12 ms of a
// 1.5 s first epoch of a 2-rank run. DLIO's AU (:404-411; fork :444-469) is
//   100 × Σ compute[s : end+1] ÷ (T − Σ proc[:s] − Σ proc[end+1:]),  end = steps − 1 − exclude_end (:87)
// so T follows from the `au` it wrote (json.dump keeps every digit). Used only when it is a time the
// block can have taken: at least its steps (Σ proc: they run inside the block) and at most its epoch
// (end_block runs between start_train's and end_train's timestamps, main.py:435-437); else 0 (the
// timestamps are used). Not for blocks without compute (AU 0 says nothing of the time).
double clockSecondsFromAu(const BlockRecord& b, double auPercent, std::uint64_t s, std::uint64_t e,
                          std::uint64_t expectedSteps, double epochSeconds) {
    if (!(auPercent > 0) || !std::isfinite(auPercent) || expectedSteps < e + 1) return 0;
    const std::size_t stop = static_cast<std::size_t>(expectedSteps - e); // end + 1
    double window = 0, excluded = 0, steps = 0;
    for (std::size_t i = 0; i < b.compute.size(); ++i)
        if (i >= s && i < stop) window += b.compute[i];
    for (std::size_t i = 0; i < b.proc.size(); ++i) {
        steps += b.proc[i];
        if (i < s || i >= stop) excluded += b.proc[i];
    }
    if (!(window > 0)) return 0;
    const double T = window / (auPercent / 100.0) + excluded;
    return T >= steps && T <= epochSeconds ? T : 0;
}

std::vector<double> numberList(const nlohmann::json& j, const fs::path& file, const std::string& where) {
    if (!j.is_array()) throw InputError(file.string() + ": " + where + ": expected a list of seconds");
    std::vector<double> v;
    v.reserve(j.size());
    for (const auto& x : j) {
        if (!x.is_number()) throw InputError(file.string() + ": " + where + ": expected numbers only");
        v.push_back(x.get<double>());
    }
    return v;
}

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

// The few numbers the step records need from the resolved configuration, with DLIO's defaults
// (dlioDefaultConfig) for keys the config leaves out, as the config loader would fill them.
struct StepConfig {
    std::uint64_t batchSize, samplesPerFile, filesTrain, totalTrainingSteps, excludeStart, excludeEnd;
    double recordLength, au;
};

StepConfig stepConfig(const RunConfig& rc) {
    const WorkloadConfig dflt = dlioDefaultConfig();
    const std::string file = rc.configFile ? rc.configFile->string() : std::string("configuration");
    auto text = [&](std::initializer_list<const char*> keys) -> std::optional<std::pair<std::string, std::string>> {
        for (const char* k : keys)
            if (auto it = rc.merged.find(k); it != rc.merged.end()) return *it;
        return std::nullopt;
    };
    // A whole number >= `least` (DLIO's -1 "the whole dataset" read as 0 where allowed).
    auto whole = [&](std::initializer_list<const char*> keys, std::uint64_t fallback, std::uint64_t least,
                     bool minusOneIsZero = false) -> std::uint64_t {
        const auto kv = text(keys);
        if (!kv) return fallback;
        const auto d = parseFiniteNumber(kv->second);
        if (d && minusOneIsZero && *d == -1.0) return 0;
        if (!d || *d != std::floor(*d) || *d < static_cast<double>(least) || *d > 9e15)
            throw InputError(file + ": " + kv->first + " = '" + kv->second + "': expected a whole number >= " +
                             std::to_string(least));
        return static_cast<std::uint64_t>(*d);
    };
    auto real = [&](std::initializer_list<const char*> keys, double fallback, double low, double high) -> double {
        const auto kv = text(keys);
        if (!kv) return fallback;
        const auto d = parseFiniteNumber(kv->second);
        if (!d || *d < low || *d > high)
            throw InputError(file + ": " + kv->first + " = '" + kv->second + "': expected a number from " +
                             number(low) + " to " + number(high));
        return *d;
    };
    StepConfig c{};
    c.batchSize = whole({"reader.batch_size", "data_reader.batch_size"}, dflt.reader.batchSize, 1);
    c.samplesPerFile = whole({"dataset.num_samples_per_file"}, dflt.dataset.numSamplesPerFile, 1);
    c.filesTrain = whole({"dataset.num_files_train"}, dflt.dataset.numFilesTrain, 1);
    c.totalTrainingSteps = whole({"train.total_training_steps"}, dflt.train.totalTrainingSteps, 0, true);
    c.excludeStart = whole({"output.metric.exclude_start_steps"}, dflt.metric.excludeStartSteps, 0);
    c.excludeEnd = whole({"output.metric.exclude_end_steps"}, dflt.metric.excludeEndSteps, 0);
    // The later key generation wins (record_length_bytes), as in the config loader.
    c.recordLength = real({"dataset.record_length_bytes", "dataset.record_length"}, dflt.dataset.recordLength, 0.0, 1e18);
    c.au = real({"metric.au"}, dflt.metric.au, 0.0, 1.0);
    return c;
}

} // namespace

std::optional<double> parseFiniteNumber(const std::string& s) {
    try {
        std::size_t used = 0;
        const double d = std::stod(s, &used);
        if (used != s.size() || !std::isfinite(d)) return std::nullopt;
        return d;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

RunConfig readRunConfig(const std::vector<fs::path>& dirs, const fs::path& canonicalRoot, const ReadBounds& bounds,
                        const FileSource& files) {
    RunConfig rc;
    auto readNoted = [&](const fs::path& file) -> std::optional<std::string> {
        std::string why;
        auto text = files.text(file, canonicalRoot, bounds.maxFileBytes, why);
        if (!text) rc.notes.push_back(file.string() + ": " + why);
        return text;
    };
    // Hydra's config.yaml is the composed configuration (overrides already applied); overrides.yaml is
    // where MLPerf's generator reads the workload name, so it wins for model and accelerator. Both are
    // parsed by the config loader (yaml-cpp); one that does not parse is a note naming it and the line.
    for (const auto& dir : dirs) {
        const auto file = findConfigFile(dir, kConfigFile);
        if (!file) continue;
        if (auto text = readNoted(*file)) {
            try {
                for (auto& [k, v] : flattenConfigYaml(*text, file->string())) rc.merged[k] = v;
                rc.configFile = *file;
                break;
            } catch (const InputError& e) {
                rc.notes.push_back(e.what());
            }
        }
    }
    for (const auto& dir : dirs) {
        const auto file = findConfigFile(dir, kOverridesFile);
        if (!file) continue;
        if (auto text = readNoted(*file)) {
            try {
                for (const auto& raw : readOverrideList(*text, file->string())) {
                    const auto item = splitOverride(raw);
                    if (!item || item->remove || item->key.empty()) continue;
                    if (item->key == "workload") {
                        rc.workload = item->value;
                    } else {
                        rc.merged[item->key] = item->value;
                        rc.overrides.emplace_back(item->key, item->value);
                    }
                }
            } catch (const InputError& e) {
                rc.notes.push_back(e.what());
            }
            break;
        }
    }
    if (!rc.workload.empty()) {
        // MLPerf's rule: workload=<model>_<accelerator>, split at '_'.
        const auto us = rc.workload.find('_');
        rc.model = rc.workload.substr(0, us);
        if (us != std::string::npos) rc.accelerator = rc.workload.substr(us + 1, rc.workload.find('_', us + 1) - us - 1);
    }
    if (rc.model.empty()) {
        if (auto it = rc.merged.find("model"); it != rc.merged.end()) rc.model = it->second;
        else if (auto it2 = rc.merged.find("model.name"); it2 != rc.merged.end()) rc.model = it2->second;
    }
    for (const char* key : {"dataset.record_length_bytes", "dataset.record_length"}) {
        if (auto it = rc.merged.find(key); it != rc.merged.end()) {
            if (auto d = parseFiniteNumber(it->second); d && *d > 0) {
                rc.recordLength = d;
                break;
            }
        }
    }
    if (auto it = rc.merged.find("metric.au"); it != rc.merged.end()) {
        if (auto d = parseFiniteNumber(it->second); d && *d > 0 && *d <= 1) rc.auFraction = d;
    }
    return rc;
}


bool hasStepRecords(const fs::path& runDir) {
    static const std::regex outRe("^[0-9]+_output\\.json$");
    std::error_code ec;
    for (fs::directory_iterator i(runDir, ec), end; !ec && i != end; i.increment(ec))
        if (std::regex_match(i->path().filename().string(), outRe)) return true;
    return false;
}

InvocationData readStepRecords(const fs::path& dir, const fs::path& canonicalRoot, const ReadBounds& bounds,
                               const RunConfig* config, const FileSource& files) {
    if (!fs::is_directory(dir)) throw InputError(dir.string() + ": not a folder");
    const std::uintmax_t maxBytes = bounds.maxStepFileBytes;
    const int depth = bounds.maxJsonDepth;
    InvocationData d;
    // Rank output files: <rank>_output.json, ranks 0..R-1 without gaps.
    std::map<std::uint64_t, fs::path> outputs;
    static const std::regex outRe("^([0-9]+)_output\\.json$");
    for (const auto& entry : fs::directory_iterator(dir)) {
        std::smatch m;
        const std::string name = entry.path().filename().string();
        if (std::regex_match(name, m, outRe)) outputs[keyNumber(m[1].str(), entry.path(), "rank")] = entry.path();
    }
    if (outputs.empty())
        throw InputError(dir.string() + ": no <rank>_output.json files: expected DLIO's per-step records");
    for (std::uint64_t r = 0; r < outputs.size(); ++r)
        if (!outputs.count(r)) throw InputError(dir.string() + ": " + std::to_string(r) + "_output.json is missing");

    const fs::path summaryPath = dir / kSummaryFile;
    if (fs::exists(summaryPath)) d.summary = files.jsonOrThrow(summaryPath, canonicalRoot, bounds.maxFileBytes, depth);

    // Configuration: batch size, record length, threshold, dataset size (for the expected steps) — the
    // importer's reading of the same files.
    RunConfig own;
    if (!config) {
        own = readRunConfig({dir}, canonicalRoot, bounds, files);
        config = &own;
    }
    if (!config->configFile) {
        if (!config->notes.empty()) throw InputError(config->notes.front());
        throw InputError(dir.string() + ": no configs/config.yaml, .hydra/config.yaml or dlio_config/config.yaml: "
                                        "expected the run's configuration (batch size, record length)");
    }
    const StepConfig cfg = stepConfig(*config);
    d.batchSize = cfg.batchSize;
    d.recordLength = cfg.recordLength;
    d.auThreshold = cfg.au;
    d.excludeStartSteps = cfg.excludeStart;
    d.excludeEndSteps = cfg.excludeEnd;
    const std::uint64_t R = outputs.size();
    d.expectedSteps = cfg.samplesPerFile * cfg.filesTrain / cfg.batchSize / R;
    if (cfg.totalTrainingSteps > 0) d.expectedSteps = cfg.totalTrainingSteps;
    const RunRecord run = readRunRecord(dir, canonicalRoot, bounds, files);
    if (!run.unreadable.empty()) throw InputError(run.unreadable);
    if (run.stepsPerEpoch) d.expectedSteps = *run.stepsPerEpoch;

    const fs::path legacyStats = dir / kLegacyEpochStatsFile;
    for (std::uint64_t r = 0; r < R; ++r) {
        const fs::path outPath = outputs[r];
        fs::path statsPath = dir / rankEpochStatsFile(r);
        if (!fs::exists(statsPath)) statsPath = legacyStats;
        if (!fs::exists(statsPath))
            throw InputError(dir.string() + ": " + std::to_string(r) +
                             "_per_epoch_stats.json is missing: expected the block start/end times");
        const nlohmann::json out = files.jsonOrThrow(outPath, canonicalRoot, maxBytes, depth);
        const nlohmann::json stats = files.jsonOrThrow(statsPath, canonicalRoot, maxBytes, depth);
        if (!out.is_object()) throw InputError(outPath.string() + ": expected a JSON object");
        RankRecord rank;
        rank.rank = r;
        std::vector<std::uint64_t> epochs;
        for (const auto& [key, value] : out.items()) {
            if (key.empty() || !std::all_of(key.begin(), key.end(), ::isdigit)) continue;
            epochs.push_back(keyNumber(key, outPath, "epoch key"));
        }
        std::sort(epochs.begin(), epochs.end());
        for (std::uint64_t e : epochs) {
            const std::string ek = std::to_string(e);
            const nlohmann::json& eo = out[ek];
            if (!stats.contains(ek))
                throw InputError(statsPath.string() + ": epoch " + ek + " is missing (it is in " +
                                 outPath.filename().string() + ")");
            const nlohmann::json& es = stats[ek];
            EpochRecord ep;
            ep.epoch = e;
            ep.start = jsonTimestamp(es, "start", statsPath, ek);
            ep.end = es.contains("end") ? jsonTimestamp(es, "end", statsPath, ek) : ep.start;
            ep.complete = es.contains("end");
            if (!eo.is_object() || !eo.contains("proc") || !eo["proc"].is_object())
                throw InputError(outPath.string() + ": epoch " + ek + ": expected load/proc/compute lists per block");
            for (const auto& [bkey, procList] : eo["proc"].items()) {
                if (bkey.rfind("block", 0) != 0) continue;
                BlockRecord b;
                b.block = bkey.size() == 5 ? 1 : keyNumber(bkey.substr(5), outPath, "block key " + ek + "." + bkey);
                const std::string where = ek + "." + bkey;
                b.proc = numberList(procList, outPath, where + ".proc");
                b.compute = numberList(eo.value("compute", nlohmann::json::object()).value(bkey, nlohmann::json()),
                                       outPath, where + ".compute");
                b.load = numberList(eo.value("load", nlohmann::json::object()).value(bkey, nlohmann::json()),
                                    outPath, where + ".load");
                if (!es.contains(bkey))
                    throw InputError(statsPath.string() + ": " + ek + "." + bkey + " is missing: expected its start/end");
                b.start = jsonTimestamp(es[bkey], "start", statsPath, where);
                b.end = jsonTimestamp(es[bkey], "end", statsPath, where);
                // A folder DLIO wrote (no trainio_run.json): its block time on DLIO's own clock.
                if (!run.present && ep.complete)
                    if (const auto au = eo.value("au", nlohmann::json::object()).value(bkey, nlohmann::json());
                        au.is_number())
                        b.clockSeconds = clockSecondsFromAu(b, au.get<double>(), d.excludeStartSteps,
                                                            d.excludeEndSteps, d.expectedSteps, ep.end - ep.start);
                ep.blocks.push_back(std::move(b));
            }
            std::sort(ep.blocks.begin(), ep.blocks.end(),
                      [](const BlockRecord& a, const BlockRecord& b) { return a.block < b.block; });
            rank.epochs.push_back(std::move(ep));
        }
        d.ranks.push_back(std::move(rank));
    }
    // An incomplete TrainIO run marks its last epoch incomplete through the step count.
    for (auto& r : d.ranks)
        for (auto& e : r.epochs) e.complete = e.complete && e.steps() == d.expectedSteps;
    return d;
}
std::optional<HostSummary> readSummary(const fs::path& file, const fs::path& canonicalRoot, const ReadBounds& bounds,
                                       std::string& why, const FileSource& files) {
    const auto j = files.json(file, canonicalRoot, bounds.maxFileBytes, bounds.maxJsonDepth, why);
    if (!j) return std::nullopt;
    HostSummary hs;
    hs.file = file;
    if (!parseSummary(*j, hs, why)) return std::nullopt;
    return hs;
}

RunRecord readRunRecord(const fs::path& dir, const fs::path& canonicalRoot, const ReadBounds& bounds, const FileSource& files) {
    RunRecord out;
    const fs::path meta = dir / kRunRecordFile;
    if (!present(meta)) return out;
    out.present = true;
    std::string why;
    const auto j = files.json(meta, canonicalRoot, bounds.maxFileBytes, bounds.maxJsonDepth, why);
    if (!j || !j->is_object()) {
        // A run whose own record cannot be read cannot be vouched for.
        out.status = InvocationStatus::Failed;
        out.reason = out.unreadable = meta.string() + ": " + (why.empty() ? "not a JSON object" : why);
        return out;
    }
    if (const auto w = j->find("warnings"); w != j->end() && w->is_array())
        for (const auto& x : *w)
            if (x.is_string()) out.warnings.push_back(x.get<std::string>());
    if (const auto v = j->find("trainio_version"); v != j->end() && v->is_string()) out.trainioVersion = v->get<std::string>();
    if (const auto sem = j->find("semantics"); sem != j->end())
        out.semantics = sem->is_string() ? sem->get<std::string>() : sem->dump();
    if (const auto steps = j->find("steps_per_epoch"); steps != j->end() && steps->is_number_unsigned())
        out.stepsPerEpoch = steps->get<std::uint64_t>();
    const auto st = j->find("status");
    const std::string status = st != j->end() && st->is_string() ? st->get<std::string>() : "complete";
    if (status == "complete") return out;
    if (status == "interrupted") {
        // The process died before the run's end; its completed epochs were read back from its journal.
        out.status = InvocationStatus::Incomplete;
        const auto e = j->find("error");
        out.reason = e != j->end() && e->is_string() && !e->get<std::string>().empty() ? e->get<std::string>() : "interrupted";
        return out;
    }
    out.status = status == "cancelled" ? InvocationStatus::Cancelled : InvocationStatus::Failed;
    out.reason = status == "cancelled" ? "cancelled by the user" : "the run failed";
    if (const auto e = j->find("error"); e != j->end() && e->is_string() && !e->get<std::string>().empty())
        out.reason = (status == "cancelled" ? out.reason + ": " : std::string()) + e->get<std::string>();
    return out;
}

// trainio_io.json: engine, cache control, the emulated storage and each epoch's percent_from_cache
// (docs/cache-honesty.md).
void readIoFile(const fs::path& dir, const fs::path& canonicalRoot, const ReadBounds& bounds, InvocationRecord& r,
                const FileSource& files) {
    const fs::path file = dir / kIoFile;
    if (!present(file)) return;
    std::string why;
    const auto j = files.json(file, canonicalRoot, bounds.maxFileBytes, bounds.maxJsonDepth, why);
    if (!j || !j->is_object()) {
        r.notes.push_back(file.string() + ": " + (why.empty() ? "not a JSON object" : why) + " (where the bytes came from is unknown)");
        return;
    }
    r.ioEngine = j->value("engine", std::string());
    r.cacheControl = j->value("cache", std::string());
    // One value per epoch entry, NaN where it was not measured (null): epoch e stays at index e - 1.
    const auto l = j->find("loader");
    const bool hasLoader = l != j->end() && l->is_object();
    if (hasLoader) {
        r.loaderPolicy = l->value("policy", std::string());
        r.loaderRamTierMiB = numberOrNaN(*l, "ram_tier_mib");
    }
    if (const auto e = j->find("epochs"); e != j->end() && e->is_array())
        for (const auto& ep : *e) {
            r.epochPercentFromCache.push_back(numberOrNaN(ep, "percent_from_cache"));
            if (!hasLoader) continue;
            r.epochHitRatio.push_back(numberOrNaN(ep, "hit_ratio"));
            r.epochBeladyHitRatio.push_back(numberOrNaN(ep, "belady_hit_ratio"));
            r.epochStallSeconds.push_back(numberOrNaN(ep, "stall_seconds"));
            const auto t = ep.is_object() ? ep.find("bytes_per_tier") : ep.end();
            const nlohmann::json tiers = ep.is_object() && t != ep.end() ? *t : nlohmann::json();
            r.epochBytesStorage.push_back(numberOrNaN(tiers, "storage"));
            r.epochBytesRam.push_back(numberOrNaN(tiers, "ram"));
            r.epochBytesSsd.push_back(numberOrNaN(tiers, "ssd"));
        }
    if (const auto s = j->find("storage"); s != j->end()) readStorage(*s, file.string(), r);
    if (const auto s3 = j->find("s3"); s3 != j->end() && s3->is_object()) {
        r.s3Endpoint = stringAt(*s3, "endpoint");
        r.s3Bucket = stringAt(*s3, "bucket");
        if (r.s3Endpoint.empty()) r.s3Endpoint = "an unnamed endpoint";
    }
    if (const auto d = j->find("data_device"); d != j->end() && d->is_object()) {
        if (const auto n = d->find("name"); n != d->end() && n->is_string()) r.dataDevice = n->get<std::string>();
        if (const auto p = d->find("parent_disk"); p != d->end() && p->is_string()) r.dataParentDisk = p->get<std::string>();
    }
}

// trainio_model.json: the model's prediction made before the run (docs/model.md), beside what it measured.
void readModelFile(const fs::path& dir, const fs::path& canonicalRoot, const ReadBounds& bounds, InvocationRecord& r,
                   const FileSource& files) {
    const fs::path file = dir / kModelFile;
    if (!present(file)) return;
    std::string why;
    const auto j = files.json(file, canonicalRoot, bounds.maxFileBytes, bounds.maxJsonDepth, why);
    if (!j || !j->is_object()) {
        r.notes.push_back(file.string() + ": " + (why.empty() ? "not a JSON object" : why) + " (no prediction shown)");
        return;
    }
    r.predictedAuPercent = numberOrNaN(*j, "predicted_au_percentage");
    r.predictedSamplesPerSecond = numberOrNaN(*j, "predicted_samples_per_second");
    if (const auto m = j->find("max_passing_accelerators"); m != j->end() && m->is_number_integer())
        r.predictedMaxAccelerators = m->get<std::int64_t>();
    r.predictedBottleneck = j->value("bottleneck", std::string());
}

// telemetry.json (docs/telemetry.md), read within the import's bounds and kept as its summary (the table of
// a long run is large), with `series` also as the four series the report plots
// (InvocationRecord::telemetrySeries). After readTrainioIo, whose data device picks the read-rate column.
void readTelemetryFile(const fs::path& dir, const fs::path& canonicalRoot, const ReadBounds& bounds, bool series,
                       InvocationRecord& r, const FileSource& files) {
    const fs::path file = dir / kTelemetryJsonFile;
    if (!present(file)) return;
    std::string why;
    const std::optional<std::string> text = files.text(file, canonicalRoot, bounds.maxFileBytes, why);
    if (!text) {
        r.notes.push_back(file.string() + ": " + why + " (telemetry not shown)");
        return;
    }
    try {
        const telemetry::TelemetryTable table = telemetry::parseTelemetryJson(*text, file.string());
        r.telemetry = telemetry::summarize(table, r.dataDevice, r.dataParentDisk);
        if (series && !table.rows.empty()) {
            // The report's telemetry plots, kept with the per-step records (nothing is read when it is made).
            auto plotted = std::make_shared<aggregate::TelemetrySeries>();
            const telemetry::PointReader reader(table, r.dataDevice, r.dataParentDisk);
            plotted->intervalS = table.intervalS;
            plotted->deviceLabel = reader.deviceLabel();
            for (const auto& row : table.rows) {
                const telemetry::TelemetryPoint p = reader.point(row);
                plotted->timeS.push_back(p.timeS);
                plotted->cpuBusyPct.push_back(p.cpuBusyPct);
                plotted->procCpuPct.push_back(p.procCpuPct);
                plotted->deviceReadMiBs.push_back(p.deviceReadMiBs);
            }
            r.telemetrySeries = std::move(plotted);
        }
    } catch (const InputError& e) {
        r.notes.push_back(std::string(e.what()) + " (telemetry not shown)");
    }
}

// mlpstorage's <kind>_<timestamp>_metadata.json beside summary.json: the accelerator type and process
// count it was run with, and system_info (the clients as mlpstorage collected them) in one line.
void readMetadataFiles(const fs::path& runDir, const fs::path& canonicalRoot, const ReadBounds& bounds, InvocationRecord& r,
                       const FileSource& files) {
    std::error_code ec;
    fs::directory_iterator it(runDir, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (!isMetadataFile(name)) continue;
        if (it->is_directory(ec)) continue;
        std::string why;
        const std::optional<json> j = files.json(it->path(), canonicalRoot, bounds.maxFileBytes, bounds.maxJsonDepth, why);
        if (!j || !j->is_object()) {
            r.notes.push_back(it->path().string() + ": " + (why.empty() ? "not a JSON object" : why) + " (metadata ignored)");
            continue;
        }
        r.metadataRead = true;
        r.metadataAccelerator = stringAt(*j, "accelerator");
        if (const json* n = find(*j, "num_processes"); n && n->is_number_integer()) r.metadataProcesses = n->get<std::int64_t>();
        const json* si = find(*j, "system_info");
        if (!si || !si->is_object()) return;
        auto number = [&](const json& o, const char* key) {
            const json* v = find(o, key);
            return v && v->is_number() ? v->get<double>() : NAN;
        };
        const double hosts = number(*si, "num_hosts"), cores = number(*si, "total_cores"),
                     memory = number(*si, "total_memory_bytes");
        std::string cpu;
        if (const json* hs = find(*si, "hosts"); hs && hs->is_array() && !hs->empty())
            if (const json* c = find((*hs)[0], "cpu")) cpu = stringAt(*c, "model");
        std::ostringstream os;
        os << "mlpstorage system_info: ";
        if (std::isfinite(hosts)) os << static_cast<long long>(hosts) << (hosts == 1 ? " host" : " hosts");
        if (std::isfinite(cores)) os << ", " << static_cast<long long>(cores) << " cores";
        if (!cpu.empty()) os << " (" << cpu << ")";
        if (std::isfinite(memory)) os << ", " << std::fixed << std::setprecision(1) << memory / (1024.0 * 1024.0 * 1024.0) << " GiB memory";
        r.systemInfo = os.str();
        return;
    }
}
std::string mlperfSystemName(const fs::path& dir) {
    for (fs::path a = dir; a.has_parent_path() && a != a.parent_path(); a = a.parent_path())
        if (a.parent_path().filename() == "results") return a.filename().string();
    return {};
}

namespace {

// `p` lexically inside `root` (both absolute, normalised); root itself counts.
bool lexicallyInside(const fs::path& p, const fs::path& root) {
    const fs::path rel = p.lexically_normal().lexically_relative(root.lexically_normal());
    return !rel.empty() && *rel.begin() != "..";
}

} // namespace

std::optional<fs::path> findSystemFile(const fs::path& dir, const fs::path& root) {
    for (fs::path a = dir; a.has_parent_path() && a != a.parent_path(); a = a.parent_path()) {
        if (a.parent_path().filename() != "results") continue;
        const fs::path systems = a.parent_path().parent_path() / kSystemsFolder;
        // Bounded to the imported tree: results/<system>/ imported alone has no systems/ of its own.
        if (!lexicallyInside(systems, root)) return std::nullopt;
        std::error_code ec;
        for (const char* ext : {".json", ".yaml", ".yml"}) {
            const fs::path sys = systems / (a.filename().string() + ext);
            if (fs::exists(fs::symlink_status(sys, ec))) return sys;
        }
        return std::nullopt;
    }
    return std::nullopt;
}

std::optional<fs::path> findMlperfReport(const fs::path& groupDir, const fs::path& root) {
    for (const fs::path& rep : {groupDir / kMlperfReportFile,
                                groupDir.filename() == "runs" ? groupDir.parent_path() / kMlperfReportFile : fs::path()}) {
        if (!rep.empty() && lexicallyInside(rep, root) && present(rep)) return rep;
    }
    return std::nullopt;
}

InvocationData readInvocationFolder(const fs::path& dir) { return readStepRecords(dir, treeOf(dir), ReadBounds{}); }
void writeIoReport(const std::filesystem::path& folder, const IoReport& report) {
    writeFileAtomic(folder / kIoFile, ioReportJson(report).dump(2) + "\n");
}

void writeTelemetryFiles(const std::filesystem::path& folder, const telemetry::TelemetryTable& table) {
    writeFileAtomic(folder / kTelemetryCsvFile, telemetry::telemetryCsv(table));
    writeFileAtomic(folder / kTelemetryJsonFile, telemetry::telemetryJson(table));
}

} // namespace trainio::store
