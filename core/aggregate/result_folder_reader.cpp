#include "aggregate/result_folder_reader.h"

#include "aggregate/results_import.h"
#include "config/config_loader.h"
#include "metrics/dlio_metrics.h"
#include "util/clock.h"
#include "util/errors.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <regex>

namespace fs = std::filesystem;

namespace trainio::aggregate {

namespace {

// Is `p` inside `root`? Both must be canonical.
bool isWithin(const fs::path& p, const fs::path& root) {
    auto r = root.begin(), q = p.begin();
    for (; r != root.end(); ++r, ++q) {
        if (q == p.end() || *q != *r) return false;
    }
    return true;
}

// A file of the run folder, read under the link rule and the bound; InputError naming it otherwise.
std::string readResultFile(const fs::path& p, const fs::path& canonicalRoot, std::uintmax_t maxBytes) {
    std::string why;
    if (!safeToRead(p, canonicalRoot, why)) throw InputError(p.string() + ": " + why);
    auto text = readBoundedFile(p, maxBytes, why);
    if (!text) throw InputError(p.string() + ": " + why);
    return std::move(*text);
}

nlohmann::json readJsonFile(const fs::path& p, const fs::path& canonicalRoot, std::uintmax_t maxBytes, int maxDepth) {
    std::string why;
    // parseBoundedJson refuses deep nesting before nlohmann recurses into it.
    auto j = parseBoundedJson(readResultFile(p, canonicalRoot, maxBytes), maxDepth, why);
    if (!j) throw InputError(p.string() + ": " + why);
    return std::move(*j);
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

bool safeToRead(const fs::path& file, const fs::path& canonicalRoot, std::string& why) {
    // Any component can be the link (a run's configs/ folder linked elsewhere, not just the file), so
    // where the whole path resolves to decides.
    std::error_code ec;
    const fs::path target = fs::weakly_canonical(file, ec);
    if (ec || !isWithin(target, canonicalRoot)) {
        why = "symbolic link pointing outside the imported tree (" + canonicalRoot.string() + "); not followed";
        return false;
    }
    return true;
}

RunConfig readRunConfig(const std::vector<fs::path>& dirs, const fs::path& canonicalRoot, const ReadBounds& bounds) {
    RunConfig rc;
    auto readIfSafe = [&](const fs::path& file) -> std::optional<std::string> {
        std::error_code ec;
        if (!fs::is_regular_file(file, ec)) return std::nullopt;
        std::string why;
        if (!safeToRead(file, canonicalRoot, why)) {
            rc.notes.push_back(file.string() + ": " + why);
            return std::nullopt;
        }
        auto text = readBoundedFile(file, bounds.maxFileBytes, why);
        if (!text) rc.notes.push_back(file.string() + ": " + why);
        return text;
    };
    // Hydra's config.yaml is the composed configuration (overrides already applied); overrides.yaml is
    // where MLPerf's generator reads the workload name, so it wins for model and accelerator.
    for (const auto& dir : dirs) {
        const auto file = findRunConfigFile(dir, "config.yaml");
        if (!file) continue;
        if (auto text = readIfSafe(*file)) {
            for (auto& [k, v] : readFlatYaml(*text)) rc.merged[k] = v;
            rc.configFile = *file;
            break;
        }
    }
    for (const auto& dir : dirs) {
        const auto file = findRunConfigFile(dir, "overrides.yaml");
        if (!file) continue;
        if (auto text = readIfSafe(*file)) {
            for (auto& [k, v] : readOverrides(*text)) {
                if (k == "=workload") {
                    rc.workload = v;
                } else {
                    rc.merged[k] = v;
                    rc.overrides.emplace_back(k, v);
                }
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

void binSeries(std::vector<double>& keys, std::vector<double>& values, std::size_t maxPoints, std::size_t* binOut) {
    const std::size_t bin = (values.size() + maxPoints - 1) / maxPoints;
    *binOut = std::max<std::size_t>(*binOut, bin);
    if (bin <= 1) return;
    std::vector<double> k, v;
    for (std::size_t s = 0; s < values.size(); s += bin) {
        const std::size_t e = std::min(values.size(), s + bin);
        double sk = 0, sv = 0;
        for (std::size_t j = s; j < e; ++j) {
            sk += keys[j];
            sv += values[j];
        }
        k.push_back(sk / static_cast<double>(e - s));
        v.push_back(sv / static_cast<double>(e - s));
    }
    keys = std::move(k);
    values = std::move(v);
}

bool hasStepRecords(const fs::path& runDir) {
    static const std::regex outRe("^[0-9]+_output\\.json$");
    std::error_code ec;
    for (fs::directory_iterator i(runDir, ec), end; !ec && i != end; i.increment(ec))
        if (std::regex_match(i->path().filename().string(), outRe)) return true;
    return false;
}

InvocationData readStepRecords(const fs::path& dir, const fs::path& canonicalRoot, const ReadBounds& bounds,
                               const RunConfig* config) {
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

    const fs::path summaryPath = dir / "summary.json";
    if (fs::exists(summaryPath)) d.summary = readJsonFile(summaryPath, canonicalRoot, maxBytes, depth);

    // Configuration: batch size, record length, threshold, dataset size (for the expected steps) — the
    // importer's reading of the same files.
    RunConfig own;
    if (!config) {
        own = readRunConfig({dir}, canonicalRoot, bounds);
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
    if (const fs::path meta = dir / "trainio_run.json"; fs::exists(meta)) {
        const nlohmann::json m = readJsonFile(meta, canonicalRoot, maxBytes, depth);
        if (m.contains("steps_per_epoch") && m["steps_per_epoch"].is_number_unsigned())
            d.expectedSteps = m["steps_per_epoch"].get<std::uint64_t>();
    }

    const fs::path legacyStats = dir / "per_epoch_stats.json";
    for (std::uint64_t r = 0; r < R; ++r) {
        const fs::path outPath = outputs[r];
        fs::path statsPath = dir / (std::to_string(r) + "_per_epoch_stats.json");
        if (!fs::exists(statsPath)) statsPath = legacyStats;
        if (!fs::exists(statsPath))
            throw InputError(dir.string() + ": " + std::to_string(r) +
                             "_per_epoch_stats.json is missing: expected the block start/end times");
        const nlohmann::json out = readJsonFile(outPath, canonicalRoot, maxBytes, depth);
        const nlohmann::json stats = readJsonFile(statsPath, canonicalRoot, maxBytes, depth);
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

StepDigest digestStepRecords(const InvocationData& data, std::size_t maxPoints, std::size_t maxPlottedRanks) {
    StepDigest digest;
    digest.excludeStartSteps = data.excludeStartSteps;
    digest.rankCount = data.ranks.size();
    MetricOptions opt;
    opt.excludeStartSteps = data.excludeStartSteps;
    opt.excludeEndSteps = data.excludeEndSteps;
    opt.expectedSteps = data.expectedSteps;
    opt.batchSize = std::max<std::uint64_t>(data.batchSize, 1);
    for (const auto& rank : data.ranks) {
        StepDigest::Rank out;
        out.rank = rank.rank;
        std::vector<double> keys, loadMs, stepAu;
        double step = 0;
        for (const auto& e : rank.epochs) {
            for (const auto& b : e.blocks)
                for (std::size_t s = 0; s < b.proc.size(); ++s) {
                    keys.push_back(++step);
                    loadMs.push_back(s < b.load.size() ? b.load[s] * 1000.0 : std::nan(""));
                    const double c = s < b.compute.size() ? b.compute[s] : std::nan("");
                    stepAu.push_back(b.proc[s] > 0 ? 100.0 * c / b.proc[s] : std::nan(""));
                }
            out.epochAuPercent.push_back(epochRankMetrics(e, opt).auPercent);
        }
        if (digest.ranks.size() < maxPlottedRanks) {
            std::vector<double> auKeys = keys;
            binSeries(keys, loadMs, maxPoints, &digest.binSteps);
            binSeries(auKeys, stepAu, maxPoints, &digest.binSteps);
            out.loadStep = std::move(keys);
            out.loadMs = std::move(loadMs);
            out.auStep = std::move(auKeys);
            out.auPercent = std::move(stepAu);
        }
        digest.ranks.push_back(std::move(out));
    }
    return digest;
}

} // namespace trainio::aggregate
