#include "config/config_internal.h"
#include "config/config_keys.h"
#include "config/config_loader.h"
#include "config/key_ranges.h"
#include "config/value_ranges.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <stdexcept>

namespace trainio {
namespace config_detail {

namespace {

bool contains(const std::vector<std::string>& names, const std::string& s) {
    return std::find(names.begin(), names.end(), s) != names.end();
}

// A value within the table's range (times: no negative times, nothing beyond a day per step).
void checkSeconds(const std::string& key, const std::string& tableKey, double v, std::vector<Issue>& out) {
    const auto r = valueRange(tableKey);
    if (r && (!std::isfinite(v) || !r->contains(v))) out.push_back({key, formatNumber(v), r->describe()});
}

void checkTime(const ComputeTime& t, const std::string& key, std::vector<Issue>& out) {
    const std::string k = "train.computation_time"; // one range for every time of the workload
    switch (t.distribution) {
    case ComputeDistribution::Constant: checkSeconds(key, k, t.mean, out); break;
    case ComputeDistribution::Normal:
        checkSeconds(key + ".mean", k, t.mean, out);
        checkSeconds(key + ".stdev", k, t.stdev, out);
        break;
    case ComputeDistribution::Uniform:
        checkSeconds(key + ".min", k, t.min, out);
        checkSeconds(key + ".max", k, t.max, out);
        if (!(t.max >= t.min)) out.push_back({key + ".max", formatNumber(t.max), "a number of seconds >= min (" + formatNumber(t.min) + ")"});
        break;
    case ComputeDistribution::Gamma:
        checkSeconds(key + ".shape", k + ".shape", t.shape, out); // the table's range (not seconds: same check)
        if (!(t.shape > 0)) out.push_back({key + ".shape", formatNumber(t.shape), "a number > 0 for the gamma distribution"});
        checkSeconds(key + ".scale", k + ".scale", t.scale, out);
        break;
    case ComputeDistribution::Exponential: checkSeconds(key + ".scale", k + ".scale", t.scale, out); break;
    }
}

} // namespace

std::string expectationFor(const std::string& key) {
    const auto r = valueRange(key);
    return r ? r->describe() : std::string("a number");
}

std::vector<Issue> checkRanges(const WorkloadConfig& c) {
    std::vector<Issue> out;
    if (c.model.name.empty()) out.push_back({"model.name", "''", "a non-empty model name (unet3d, resnet50, …)"});
    if (c.framework != "tensorflow" && c.framework != "pytorch")
        out.push_back({"framework", "'" + c.framework + "'", "tensorflow or pytorch"});
    const auto& d = c.dataset;
    if (d.dataFolder.empty()) out.push_back({"dataset.data_folder", "''", "a folder path"});
    // An object-store location is never read as a local folder (a folder literally named "s3:"), and with
    // storage_type s3 an s3:// location names the bucket of storage_root (dataset and checkpoints alike).
    auto s3Location = [&](const char* key, const std::string& value) {
        if (value.rfind("s3:/", 0) == 0 && !c.storage.isS3())
            out.push_back({key, "'" + value + "'",
                           "a local folder, or storage.storage_type: s3 with storage.storage_root (the bucket) to use objects"});
        if (c.storage.isS3() && value.rfind("s3:/", 0) == 0) {
            std::string rest = value.substr(3);
            while (!rest.empty() && rest.front() == '/') rest.erase(0, 1);
            const std::string bucket = rest.substr(0, rest.find('/'));
            if (!c.storage.root.empty() && bucket != c.storage.root)
                out.push_back({key, "'" + value + "'", "s3://" + c.storage.root + "/… (storage.storage_root names the bucket)"});
        }
    };
    s3Location("dataset.data_folder", d.dataFolder);
    if (c.workflow.checkpoint) s3Location("checkpoint.checkpoint_folder", c.checkpoint.folder);
    if (c.storage.isS3() && c.storage.root.empty())
        out.push_back({"storage.storage_root", "''", "the bucket name with storage.storage_type s3"});
    // A file list names local files (a captured job's own, docs/capture.md); objects have DLIO's names.
    if (!c.dataset.fileList.empty() && c.storage.isS3())
        out.push_back({"trainio.file_list", "'" + c.dataset.fileList + "'",
                       "no file list with storage.storage_type s3 (objects are read under DLIO's names)"});
    if (d.filePrefix.empty()) out.push_back({"dataset.file_prefix", "''", "a non-empty file name prefix"});
    if (d.filePrefix.find('/') != std::string::npos)
        out.push_back({"dataset.file_prefix", "'" + d.filePrefix + "'", "a file name prefix without '/'"});

    // Every key of the table against its range or its allowed values.
    for (const auto& k : config_keys::all()) {
        if (!k.field || k.has(config_keys::NotAKey) || k.has(config_keys::CustomCheck)) continue;
        const config_keys::Value v = k.field.get(c);
        if (k.type == config_keys::Type::Choice) {
            const std::string& s = std::get<std::string>(v);
            if (!(s.empty() && k.has(config_keys::OmitWhenEmpty)) && !contains(k.choices, s))
                out.push_back({k.path, "'" + s + "'", config_keys::choiceText(k)});
            continue;
        }
        if (!k.range) continue;
        const ValueRange& r = *k.range;
        if (const auto* u = std::get_if<std::uint64_t>(&v)) {
            if (!r.contains(static_cast<long double>(*u))) out.push_back({k.path, std::to_string(*u), r.describe()});
        } else if (const auto* i = std::get_if<std::int64_t>(&v)) {
            if (!r.contains(static_cast<long double>(*i))) out.push_back({k.path, std::to_string(*i), r.describe()});
        } else if (const auto* x = std::get_if<double>(&v)) {
            if (!std::isfinite(*x) || !r.contains(*x)) out.push_back({k.path, formatNumber(*x), r.describe()});
        }
    }

    // Cross-field checks beside the table.
    checkTime(c.train.computationTime, "train.computation_time", out);
    checkTime(c.evaluation.evalTime, "evaluation.eval_time", out);
    checkTime(c.reader.preprocessTime, "reader.preprocess_time", out);
    checkTime(c.trainio.handoverTime, "trainio.handover_time", out);
    checkTime(c.trainio.preprocessCpuTime, "trainio.preprocess_cpu_time", out);
    if (c.checkpoint.folder.empty() && c.workflow.checkpoint)
        out.push_back({"checkpoint.checkpoint_folder", "''", "a folder path when workflow.checkpoint is on"});
    if (c.model.parallelism.data == 0)
        out.push_back({"model.parallelism.data", "0", "-1 (derived from the number of ranks) or a whole number >= 1"});
    // What DLIO's ConfigArguments.validate() refuses without knowing the rank count (the MLPerf v3.0
    // fork's dlio_benchmark/utils/config.py, lines 452-470).
    const auto& par = c.model.parallelism;
    const auto& ck = c.checkpoint;
    if (c.model.numLayers > 0 && c.model.numLayers < par.pipeline)
        out.push_back({"model.num_layers", std::to_string(c.model.numLayers),
                       "at least model.parallelism.pipeline (" + std::to_string(par.pipeline) + ") layers"});
    if (par.pipeline > 1 && par.zeroStage == 3)
        out.push_back({"model.parallelism.zero_stage", "3",
                       "0, 1 or 2 with pipeline parallelism " + std::to_string(par.pipeline) +
                           " (ZeRO stage 3 is not compatible with pipeline parallelism)"});
    // (A data parallelism in default mode, which DLIO also refuses, is only a warning: some of
    // mlcommons/storage's llama3 configs carry `data: 1`; see the loader's dlioQuirks.)
    if (ck.mode == "subset" && par.data <= 0)
        out.push_back({"checkpoint.mode", "'subset'", "a target model.parallelism.data >= 1 for subset checkpointing"});
    if (ck.numCheckpointsWrite > 0 && ck.numCheckpointsRead > ck.numCheckpointsWrite)
        out.push_back({"checkpoint.num_checkpoints_read", std::to_string(ck.numCheckpointsRead),
                       "at most checkpoint.num_checkpoints_write (" + std::to_string(ck.numCheckpointsWrite) +
                           "): only written checkpoints can be read"});
    const auto& lat = c.trainio.storage.latencyMs;
    // The parameters the chosen distribution needs.
    auto need = [&](const char* name, double v) {
        if (!(v > 0))
            out.push_back({std::string("trainio.storage.latency_ms.") + name, formatNumber(v),
                           "a number of milliseconds > 0 for a " + lat.type + " latency"});
    };
    if (lat.type == "normal" || lat.type == "exponential") need("mean", lat.mean);
    if (lat.type == "lognormal") need("median", lat.median);

    // The loader policy's keys only where they do something (docs/loader.md): a capacity the policy ignores
    // would be a setting that silently changes nothing.
    const auto& ld = c.trainio.loader;
    if (ld.policy == "plain" && ld.ramTierMiB > 0)
        out.push_back({"trainio.ram_tier_mib", formatNumber(ld.ramTierMiB),
                       "0 with trainio.loader: plain (set trainio.loader: lru or nopfs to use a RAM tier)"});
    if (ld.policy == "lru" && !(ld.ramTierMiB > 0))
        out.push_back({"trainio.ram_tier_mib", formatNumber(ld.ramTierMiB), "a capacity > 0 MiB for trainio.loader: lru"});
    if (ld.policy != "nopfs" && ld.stagingMiB > 0)
        out.push_back({"trainio.staging_mib", formatNumber(ld.stagingMiB), "0 unless trainio.loader is nopfs"});
    if (ld.policy != "nopfs" && (!ld.ssdTier.path.empty() || ld.ssdTier.capacityMiB > 0))
        out.push_back({"trainio.ssd_tier", ld.ssdTier.path.empty() ? formatNumber(ld.ssdTier.capacityMiB) : "'" + ld.ssdTier.path + "'",
                       "no SSD tier unless trainio.loader is nopfs"});
    if (ld.policy == "nopfs" && ld.ssdTier.path.empty() != !(ld.ssdTier.capacityMiB > 0))
        out.push_back({ld.ssdTier.path.empty() ? "trainio.ssd_tier.path" : "trainio.ssd_tier.capacity_mib",
                       ld.ssdTier.path.empty() ? "''" : formatNumber(ld.ssdTier.capacityMiB),
                       ld.ssdTier.path.empty() ? "a local folder for the SSD tier of capacity_mib " + formatNumber(ld.ssdTier.capacityMiB)
                                               : "a capacity > 0 MiB for the SSD tier in " + ld.ssdTier.path});

    // Both end up in "workload=<model>_<accelerator>" (configs/overrides.yaml), which MLPerf's report.py
    // splits at '_': the accelerator may have no '_', the model's '_' are written as '-' (mlperfModelLabel),
    // and neither may hold what would break the YAML line (spaces, ':', '#', quotes, '=').
    // A character loop, not std::regex: libstdc++'s matcher recurses once per character and overflows
    // the stack on a name of ~20,000 characters (found by fuzz_config; corpus crash-long-accelerator-name).
    if (!c.accelerator.empty() && !key_ranges::acceleratorNameProblem(c.accelerator).empty())
        out.push_back({"accelerator", "'" + c.accelerator + "'",
                       "a lower-case accelerator name of letters, digits, '.' and '-' (no '_': it becomes "
                       "workload=<model>_<accelerator>), such as a100, h100, b200"});
    const auto modelChar = [](char ch) {
        return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
               ch == '.' || ch == '-';
    };
    const std::string& m = c.model.name;
    if (!m.empty() && (!std::all_of(m.begin(), m.end(), modelChar) || m.front() == '_' || m.front() == '.' ||
                       m.front() == '-'))
        out.push_back({"model.name", "'" + c.model.name + "'",
                       "a model name of letters, digits, '.', '-' and '_' (it becomes workload=<model>_<accelerator> "
                       "in configs/overrides.yaml, with '_' written as '-')"});
    return out;
}

std::string formatNumber(double v) {
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) {
        return std::to_string(static_cast<long long>(v));
    }
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

std::optional<DataFormat> parseFormat(const std::string& s) {
    static const std::map<std::string, DataFormat> m = {
        {"npz", DataFormat::Npz},   {"npy", DataFormat::Npy},   {"tfrecord", DataFormat::Tfrecord},
        {"hdf5", DataFormat::Hdf5}, {"indexed_binary", DataFormat::IndexedBinary},
        {"raw", DataFormat::Raw},   {"jpeg", DataFormat::Jpeg}, {"png", DataFormat::Png},
    };
    auto it = m.find(s);
    if (it == m.end()) return std::nullopt;
    return it->second;
}

std::optional<ShuffleMode> parseShuffle(const std::string& s) {
    if (s == "off") return ShuffleMode::Off;
    if (s == "seed") return ShuffleMode::Seed;
    if (s == "random") return ShuffleMode::Random;
    return std::nullopt;
}

std::optional<ComputeDistribution> parseDistribution(const std::string& s) {
    if (s == "normal") return ComputeDistribution::Normal;
    if (s == "uniform") return ComputeDistribution::Uniform;
    if (s == "gamma") return ComputeDistribution::Gamma;
    if (s == "exponential") return ComputeDistribution::Exponential;
    return std::nullopt;
}

namespace {
const std::vector<std::string>& choicesOf(const char* key) {
    const auto* k = config_keys::find(key);
    if (!k) throw std::logic_error(std::string("config_keys: no key ") + key);
    return k->choices;
}
} // namespace

// The value lists are rows of the one table of keys.
const std::vector<std::string>& formatNames() { return choicesOf("dataset.format"); }
const std::vector<std::string>& dataLoaderNames() { return choicesOf("reader.data_loader"); }
const std::vector<std::string>& elementTypeNames() { return choicesOf("dataset.record_element_type"); }
const std::vector<std::string>& ioEngineNames() { return choicesOf("trainio.io_engine"); }
const std::vector<std::string>& cacheModeNames() { return choicesOf("trainio.cache"); }
const std::vector<std::string>& latencyTypeNames() { return choicesOf("trainio.storage.latency_ms.type"); }
// dlio_benchmark/checkpointing/base_checkpointing.py get_datatype_size (fork f6796ed, lines 33-42).
const std::vector<std::string>& datatypeNames() { return choicesOf("model.model_datatype"); }
const std::vector<std::string>& checkpointTypeNames() { return choicesOf("checkpoint.type"); }
const std::vector<std::string>& checkpointModeNames() { return choicesOf("checkpoint.mode"); }
const std::vector<std::string>& mlperfRoundNames() { return choicesOf("trainio.mlperf_round"); }

std::string joinNames(const std::vector<std::string>& names, const std::string& lastSep) {
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (i > 0) out += (i + 1 == names.size()) ? lastSep : ", ";
        out += names[i];
    }
    return out;
}

} // namespace config_detail

std::vector<ConfigDiagnostic> validateConfig(const WorkloadConfig& cfg) {
    std::vector<ConfigDiagnostic> out;
    const std::string where = cfg.sourcePath.empty() ? std::string("workload") : cfg.sourcePath;
    for (const auto& i : config_detail::checkRanges(cfg)) {
        out.push_back({i.key, i.value, where + ": " + i.key + " = " + i.value + ": expected " + i.expected});
    }
    return out;
}

} // namespace trainio
