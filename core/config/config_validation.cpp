#include "config/config_internal.h"
#include "config/config_loader.h"
#include "config/key_ranges.h"
#include "config/value_ranges.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

namespace trainio {
namespace config_detail {

namespace {

bool contains(const std::vector<std::string>& names, const std::string& s) {
    return std::find(names.begin(), names.end(), s) != names.end();
}

std::string u(std::uint64_t v) { return std::to_string(v); }

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

void checkSigned(const char* key, std::int64_t v, std::vector<Issue>& out) {
    const auto r = valueRange(key);
    if (r && !r->contains(static_cast<long double>(v))) out.push_back({key, std::to_string(v), r->describe()});
}

void checkChoice(const char* key, const std::string& v, const std::vector<std::string>& names, std::vector<Issue>& out) {
    if (!contains(names, v)) out.push_back({key, "'" + v + "'", "one of " + joinNames(names)});
}

void checkModel(const ModelSection& m, std::vector<Issue>& out) {
    checkChoice("model.model_datatype", m.modelDatatype, datatypeNames(), out);
    checkChoice("model.optimizer_datatype", m.optimizerDatatype, datatypeNames(), out);
    checkSigned("model.num_layers", m.numLayers, out);
    checkSigned("model.parallelism.tensor", m.parallelism.tensor, out);
    checkSigned("model.parallelism.pipeline", m.parallelism.pipeline, out);
    checkSigned("model.parallelism.data", m.parallelism.data, out);
    if (m.parallelism.data == 0)
        out.push_back({"model.parallelism.data", "0", "-1 (derived from the number of ranks) or a whole number >= 1"});
    checkSigned("model.parallelism.zero_stage", m.parallelism.zeroStage, out);
    const auto& t = m.transformer;
    for (auto [key, v] : {std::pair{"model.transformer.vocab_size", t.vocabSize}, {"model.transformer.hidden_size", t.hiddenSize},
                          {"model.transformer.ffn_hidden_size", t.ffnHiddenSize},
                          {"model.transformer.num_attention_heads", t.numAttentionHeads},
                          {"model.transformer.num_kv_heads", t.numKvHeads}})
        checkSigned(key, static_cast<std::int64_t>(std::min<std::uint64_t>(v, std::uint64_t{1} << 62)), out);
}

void checkCheckpoint(const CheckpointSection& k, std::vector<Issue>& out) {
    checkChoice("checkpoint.type", k.type, checkpointTypeNames(), out);
    checkChoice("checkpoint.mode", k.mode, checkpointModeNames(), out);
    const auto r = valueRange("checkpoint.time_between_checkpoints");
    if (r && !r->contains(k.timeBetweenCheckpoints))
        out.push_back({"checkpoint.time_between_checkpoints", formatNumber(k.timeBetweenCheckpoints), r->describe()});
    checkSigned("checkpoint.num_checkpoints_write", k.numCheckpointsWrite, out);
    checkSigned("checkpoint.num_checkpoints_read", k.numCheckpointsRead, out);
}

} // namespace

std::string expectationFor(const std::string& key) {
    const auto r = valueRange(key);
    return r ? r->describe() : std::string("a number");
}

std::vector<Issue> checkRanges(const WorkloadConfig& c) {
    std::vector<Issue> out;
    // Every numeric key against its range in the one table (value_ranges.cpp).
    auto inRange = [&](const char* key, long double v, const std::string& shown) {
        const auto r = valueRange(key);
        if (r && !r->contains(v)) out.push_back({key, shown, r->describe()});
    };
    auto whole = [&](const char* key, std::uint64_t v) { inRange(key, static_cast<long double>(v), u(v)); };
    auto real = [&](const char* key, double v) {
        if (!std::isfinite(v)) out.push_back({key, formatNumber(v), expectationFor(key)});
        else inRange(key, v, formatNumber(v));
    };
    if (c.model.name.empty()) out.push_back({"model.name", "''", "a non-empty model name (unet3d, resnet50, …)"});
    if (c.framework != "tensorflow" && c.framework != "pytorch")
        out.push_back({"framework", "'" + c.framework + "'", "tensorflow or pytorch"});

    const auto& d = c.dataset;
    if (d.dataFolder.empty()) out.push_back({"dataset.data_folder", "''", "a folder path"});
    whole("dataset.num_files_train", d.numFilesTrain);
    whole("dataset.num_files_eval", d.numFilesEval);
    whole("dataset.num_samples_per_file", d.numSamplesPerFile);
    whole("dataset.num_subfolders_train", d.numSubfoldersTrain);
    whole("dataset.num_subfolders_eval", d.numSubfoldersEval);
    real("dataset.record_length_bytes", d.recordLength);
    real("dataset.record_length_bytes_stdev", d.recordLengthStdev);
    real("dataset.record_length_bytes_resize", d.recordLengthResize);
    if (d.filePrefix.empty()) out.push_back({"dataset.file_prefix", "''", "a non-empty file name prefix"});
    if (d.filePrefix.find('/') != std::string::npos)
        out.push_back({"dataset.file_prefix", "'" + d.filePrefix + "'", "a file name prefix without '/'"});
    if (!contains(elementTypeNames(), d.recordElementType))
        out.push_back({"dataset.record_element_type", "'" + d.recordElementType + "'", "one of " + joinNames(elementTypeNames())});

    const auto& r = c.reader;
    if (!contains(dataLoaderNames(), r.dataLoader))
        out.push_back({"reader.data_loader", "'" + r.dataLoader + "'", "one of " + joinNames(dataLoaderNames())});
    whole("reader.batch_size", r.batchSize);
    whole("reader.batch_size_eval", r.batchSizeEval);
    whole("reader.read_threads", r.readThreads);
    whole("reader.computation_threads", r.computationThreads);
    whole("reader.prefetch_size", r.prefetchSize);
    whole("reader.shuffle_size", r.shuffleSize);
    whole("reader.transfer_size", r.transferSize);

    whole("train.epochs", c.train.epochs);
    whole("train.total_training_steps", c.train.totalTrainingSteps);
    checkTime(c.train.computationTime, "train.computation_time", out);
    checkTime(c.evaluation.evalTime, "evaluation.eval_time", out);
    whole("evaluation.epochs_between_evals", c.evaluation.epochsBetweenEvals);
    whole("checkpoint.checkpoint_after_epoch", c.checkpoint.afterEpoch);
    whole("checkpoint.epochs_between_checkpoints", c.checkpoint.epochsBetween);
    whole("checkpoint.steps_between_checkpoints", c.checkpoint.stepsBetween);
    whole("output.metric.exclude_start_steps", c.metric.excludeStartSteps);
    whole("output.metric.exclude_end_steps", c.metric.excludeEndSteps);
    if (c.checkpoint.folder.empty() && c.workflow.checkpoint)
        out.push_back({"checkpoint.checkpoint_folder", "''", "a folder path when workflow.checkpoint is on"});
    real("model.model_size_bytes", c.checkpoint.modelSize);
    checkModel(c.model, out);
    checkCheckpoint(c.checkpoint, out);
    real("trainio.checkpoint_scale", c.trainio.checkpointScale);
    if (!c.trainio.mlperfRound.empty() && !contains(mlperfRoundNames(), c.trainio.mlperfRound))
        out.push_back({"trainio.mlperf_round", "'" + c.trainio.mlperfRound + "'", "one of " + joinNames(mlperfRoundNames())});

    const auto& tr = c.trainio;
    whole("trainio.io_depth", tr.ioDepth);
    real("trainio.storage.bandwidth_mib_s", tr.storage.bandwidthMiBs);
    real("trainio.storage.iops", tr.storage.iops);
    whole("trainio.storage.max_inflight", tr.storage.maxInflight);
    real("trainio.telemetry_interval_s", tr.telemetryIntervalS);
    const auto& lat = tr.storage.latencyMs;
    real("trainio.storage.latency_ms.value", lat.value);
    real("trainio.storage.latency_ms.mean", lat.mean);
    real("trainio.storage.latency_ms.stdev", lat.stdev);
    real("trainio.storage.latency_ms.median", lat.median);
    real("trainio.storage.latency_ms.sigma", lat.sigma);
    // The parameters the chosen distribution needs.
    auto need = [&](const char* name, double v) {
        if (!(v > 0))
            out.push_back({std::string("trainio.storage.latency_ms.") + name, formatNumber(v),
                           "a number of milliseconds > 0 for a " + lat.type + " latency"});
    };
    if (lat.type == "normal" || lat.type == "exponential") need("mean", lat.mean);
    if (lat.type == "lognormal") need("median", lat.median);
    real("metric.au", c.metric.au);

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

const std::vector<std::string>& formatNames() {
    static const std::vector<std::string> v = {"npz", "npy", "tfrecord", "hdf5", "indexed_binary", "raw", "jpeg", "png"};
    return v;
}

const std::vector<std::string>& dataLoaderNames() {
    static const std::vector<std::string> v = {"pytorch", "tensorflow", "dali", "native_dali",
                                               "custom", "none", "synthetic", "daos_pytorch"};
    return v;
}

const std::vector<std::string>& elementTypeNames() {
    static const std::vector<std::string> v = {"uint8", "int8",  "uint16", "int16",   "uint32",  "int32",
                                               "uint64", "int64", "float16", "float32", "float64"};
    return v;
}

const std::vector<std::string>& acceleratorNames() {
    static const std::vector<std::string> v = {"a100", "h100", "h200", "b200", "gb200", "mi300x"};
    return v;
}

const std::vector<std::string>& datatypeNames() {
    // dlio_benchmark/checkpointing/base_checkpointing.py get_datatype_size (fork f6796ed, lines 33-42).
    static const std::vector<std::string> v = {"fp16", "bf16", "fp32", "fp64", "int8", "uint8"};
    return v;
}

const std::vector<std::string>& checkpointTypeNames() {
    static const std::vector<std::string> v = {"rank_zero", "all_ranks"};
    return v;
}

const std::vector<std::string>& checkpointModeNames() {
    static const std::vector<std::string> v = {"default", "subset"};
    return v;
}

const std::vector<std::string>& mlperfRoundNames() {
    static const std::vector<std::string> v = {"v1.0", "v2.0", "v3.0"};
    return v;
}

const std::vector<std::string>& ioEngineNames() {
    static const std::vector<std::string> v = {"posix", "odirect", "mmap", "io_uring"};
    return v;
}

const std::vector<std::string>& cacheModeNames() {
    static const std::vector<std::string> v = {"keep", "fadvise", "drop"};
    return v;
}

const std::vector<std::string>& latencyTypeNames() {
    static const std::vector<std::string> v = {"none", "constant", "normal", "lognormal", "exponential"};
    return v;
}

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
