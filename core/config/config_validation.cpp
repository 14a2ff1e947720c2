#include "config/config_internal.h"
#include "config/config_loader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <regex>

namespace trainio {
namespace config_detail {

namespace {

bool contains(const std::vector<std::string>& names, const std::string& s) {
    return std::find(names.begin(), names.end(), s) != names.end();
}

std::string u(std::uint64_t v) { return std::to_string(v); }

void checkTime(const ComputeTime& t, const std::string& key, std::vector<Issue>& out) {
    const std::string secs = "a number of seconds >= 0";
    switch (t.distribution) {
    case ComputeDistribution::Constant:
        if (!(t.mean >= 0)) out.push_back({key, formatNumber(t.mean), secs});
        break;
    case ComputeDistribution::Normal:
        if (!(t.mean >= 0)) out.push_back({key + ".mean", formatNumber(t.mean), secs});
        if (!(t.stdev >= 0)) out.push_back({key + ".stdev", formatNumber(t.stdev), secs});
        break;
    case ComputeDistribution::Uniform:
        if (!(t.min >= 0)) out.push_back({key + ".min", formatNumber(t.min), secs});
        if (!(t.max >= t.min)) out.push_back({key + ".max", formatNumber(t.max), "a number of seconds >= min (" + formatNumber(t.min) + ")"});
        break;
    case ComputeDistribution::Gamma:
        if (!(t.shape > 0)) out.push_back({key + ".shape", formatNumber(t.shape), "a number > 0"});
        if (!(t.scale > 0)) out.push_back({key + ".scale", formatNumber(t.scale), "a number of seconds > 0"});
        break;
    case ComputeDistribution::Exponential:
        if (!(t.scale > 0)) out.push_back({key + ".scale", formatNumber(t.scale), "a number of seconds > 0"});
        break;
    }
}

} // namespace

std::string expectationFor(const std::string& key) {
    static const std::map<std::string, std::string> m = {
        {"dataset.num_files_train", "a whole number >= 1"},
        {"dataset.num_files_eval", "a whole number >= 0"},
        {"dataset.num_samples_per_file", "a whole number >= 1"},
        {"dataset.record_length_bytes", "a number of bytes > 0"},
        {"dataset.record_length_bytes_stdev", "a number of bytes >= 0"},
        {"dataset.record_length_bytes_resize", "a number of bytes >= 0"},
        {"dataset.num_subfolders_train", "a whole number >= 0"},
        {"dataset.num_subfolders_eval", "a whole number >= 0"},
        {"reader.batch_size", "a whole number >= 1"},
        {"reader.batch_size_eval", "a whole number >= 1"},
        {"reader.read_threads", "a whole number >= 1"},
        {"reader.computation_threads", "a whole number >= 1"},
        {"reader.prefetch_size", "a whole number >= 0"},
        {"reader.shuffle_size", "a whole number >= 1"},
        {"reader.transfer_size", "a number of bytes >= 0 (a whole number)"},
        {"train.epochs", "a whole number >= 1"},
        {"train.seed", "a whole number >= 0"},
        {"train.total_training_steps", "a whole number >= 0, or -1 for the whole dataset"},
        {"checkpoint.checkpoint_after_epoch", "a whole number >= 0"},
        {"checkpoint.epochs_between_checkpoints", "a whole number >= 1"},
        {"checkpoint.steps_between_checkpoints", "a whole number >= 1, or -1 for off"},
        {"model.model_size_bytes", "a number of bytes >= 0"},
        {"evaluation.epochs_between_evals", "a whole number >= 1"},
        {"output.metric.exclude_start_steps", "a whole number >= 0"},
        {"output.metric.exclude_end_steps", "a whole number >= 0"},
        {"metric.au", "a fraction > 0 and <= 1 (0.90 = 90 %)"},
    };
    auto it = m.find(key);
    return it == m.end() ? std::string("a number") : it->second;
}

std::vector<Issue> checkRanges(const WorkloadConfig& c) {
    std::vector<Issue> out;
    auto atLeast = [&](const char* key, std::uint64_t v, std::uint64_t min) {
        if (v < min) out.push_back({key, u(v), expectationFor(key)});
    };
    if (c.model.name.empty()) out.push_back({"model.name", "''", "a non-empty model name (unet3d, resnet50, …)"});
    if (c.framework != "tensorflow" && c.framework != "pytorch")
        out.push_back({"framework", "'" + c.framework + "'", "tensorflow or pytorch"});

    const auto& d = c.dataset;
    if (d.dataFolder.empty()) out.push_back({"dataset.data_folder", "''", "a folder path"});
    atLeast("dataset.num_files_train", d.numFilesTrain, 1);
    atLeast("dataset.num_samples_per_file", d.numSamplesPerFile, 1);
    if (!(d.recordLength > 0) || !std::isfinite(d.recordLength))
        out.push_back({"dataset.record_length_bytes", formatNumber(d.recordLength), expectationFor("dataset.record_length_bytes")});
    if (!(d.recordLengthStdev >= 0) || !std::isfinite(d.recordLengthStdev))
        out.push_back({"dataset.record_length_bytes_stdev", formatNumber(d.recordLengthStdev), expectationFor("dataset.record_length_bytes_stdev")});
    if (!(d.recordLengthResize >= 0) || !std::isfinite(d.recordLengthResize))
        out.push_back({"dataset.record_length_bytes_resize", formatNumber(d.recordLengthResize), expectationFor("dataset.record_length_bytes_resize")});
    if (d.filePrefix.empty()) out.push_back({"dataset.file_prefix", "''", "a non-empty file name prefix"});
    if (d.filePrefix.find('/') != std::string::npos)
        out.push_back({"dataset.file_prefix", "'" + d.filePrefix + "'", "a file name prefix without '/'"});
    if (!contains(elementTypeNames(), d.recordElementType))
        out.push_back({"dataset.record_element_type", "'" + d.recordElementType + "'", "one of " + joinNames(elementTypeNames())});

    const auto& r = c.reader;
    if (!contains(dataLoaderNames(), r.dataLoader))
        out.push_back({"reader.data_loader", "'" + r.dataLoader + "'", "one of " + joinNames(dataLoaderNames())});
    atLeast("reader.batch_size", r.batchSize, 1);
    atLeast("reader.batch_size_eval", r.batchSizeEval, 1);
    atLeast("reader.read_threads", r.readThreads, 1);
    atLeast("reader.computation_threads", r.computationThreads, 1);
    atLeast("reader.shuffle_size", r.shuffleSize, 1);

    atLeast("train.epochs", c.train.epochs, 1);
    checkTime(c.train.computationTime, "train.computation_time", out);
    checkTime(c.evaluation.evalTime, "evaluation.eval_time", out);
    atLeast("evaluation.epochs_between_evals", c.evaluation.epochsBetweenEvals, 1);
    atLeast("checkpoint.epochs_between_checkpoints", c.checkpoint.epochsBetween, 1);
    if (c.checkpoint.folder.empty() && c.workflow.checkpoint)
        out.push_back({"checkpoint.checkpoint_folder", "''", "a folder path when workflow.checkpoint is on"});
    if (!(c.checkpoint.modelSize >= 0) || !std::isfinite(c.checkpoint.modelSize))
        out.push_back({"model.model_size_bytes", formatNumber(c.checkpoint.modelSize), expectationFor("model.model_size_bytes")});

    if (!(c.metric.au > 0 && c.metric.au <= 1))
        out.push_back({"metric.au", formatNumber(c.metric.au), expectationFor("metric.au")});

    static const std::regex acceleratorPattern("[a-z0-9][a-z0-9_.-]*");
    if (!c.accelerator.empty() && !std::regex_match(c.accelerator, acceleratorPattern))
        out.push_back({"accelerator", "'" + c.accelerator + "'", "a lower-case accelerator name such as a100, h100, b200"});
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
