// toYaml / toJson / overridesYaml: one description of the resolved-Hydra shape (a JSON tree) that both
// text forms come from, so that they cannot drift apart.
#include "config/config_internal.h"
#include "config/config_loader.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdlib>

namespace trainio {

namespace {

using nlohmann::ordered_json;

ordered_json number(double v) {
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9e15) return static_cast<long long>(v);
    return v;
}

ordered_json timeJson(const ComputeTime& t) {
    switch (t.distribution) {
    case ComputeDistribution::Constant: return number(t.mean);
    case ComputeDistribution::Normal: return {{"type", "normal"}, {"mean", number(t.mean)}, {"stdev", number(t.stdev)}};
    case ComputeDistribution::Uniform: return {{"type", "uniform"}, {"min", number(t.min)}, {"max", number(t.max)}};
    case ComputeDistribution::Gamma: return {{"type", "gamma"}, {"shape", number(t.shape)}, {"scale", number(t.scale)}};
    case ComputeDistribution::Exponential: return {{"type", "exponential"}, {"scale", number(t.scale)}};
    }
    return number(t.mean);
}

ordered_json workloadJson(const WorkloadConfig& c) {
    ordered_json w;
    ordered_json model;
    model["name"] = c.model.name;
    if (!c.model.type.empty()) model["type"] = c.model.type;
    model["model_size_bytes"] = number(c.checkpoint.modelSize);
    const auto& m = c.model;
    model["model_datatype"] = m.modelDatatype;
    model["optimizer_datatype"] = m.optimizerDatatype;
    model["num_layers"] = m.numLayers;
    model["layer_parameters"] = m.layerParameters;
    model["optimization_groups"] = m.optimizationGroups;
    model["parallelism"] = {{"tensor", m.parallelism.tensor}, {"pipeline", m.parallelism.pipeline},
                            {"data", m.parallelism.data}, {"zero_stage", m.parallelism.zeroStage}};
    const auto& tf = m.transformer;
    model["transformer"] = {{"vocab_size", tf.vocabSize}, {"hidden_size", tf.hiddenSize},
                            {"ffn_hidden_size", tf.ffnHiddenSize}, {"num_attention_heads", tf.numAttentionHeads},
                            {"num_kv_heads", tf.numKvHeads}};
    w["model"] = model;
    w["framework"] = c.framework;
    w["workflow"] = {{"generate_data", c.workflow.generateData}, {"train", c.workflow.train},
                     {"checkpoint", c.workflow.checkpoint},      {"evaluation", c.workflow.evaluation},
                     {"profiling", c.workflow.profiling}};
    const auto& d = c.dataset;
    w["dataset"] = {{"data_folder", d.dataFolder},
                    {"format", toString(d.format)},
                    {"num_files_train", d.numFilesTrain},
                    {"num_files_eval", d.numFilesEval},
                    {"num_samples_per_file", d.numSamplesPerFile},
                    {"record_length_bytes", number(d.recordLength)},
                    {"record_length_bytes_stdev", number(d.recordLengthStdev)},
                    {"record_length_bytes_resize", number(d.recordLengthResize)},
                    {"num_subfolders_train", d.numSubfoldersTrain},
                    {"num_subfolders_eval", d.numSubfoldersEval},
                    {"file_prefix", d.filePrefix},
                    {"record_element_type", d.recordElementType},
                    {"keep_files", d.keepFiles}};
    const auto& r = c.reader;
    w["reader"] = {{"data_loader", r.dataLoader},
                   {"batch_size", r.batchSize},
                   {"batch_size_eval", r.batchSizeEval},
                   {"read_threads", r.readThreads},
                   {"computation_threads", r.computationThreads},
                   {"prefetch_size", r.prefetchSize},
                   {"file_shuffle", toString(r.fileShuffle)},
                   {"sample_shuffle", toString(r.sampleShuffle)},
                   {"shuffle_size", r.shuffleSize},
                   {"transfer_size", r.transferSize},
                   {"odirect", r.odirect}};
    const auto& t = c.train;
    ordered_json train = {{"epochs", t.epochs},
                          {"computation_time", timeJson(t.computationTime)},
                          {"seed", t.seed},
                          {"seed_change_epoch", t.seedChangeEpoch}};
    // DLIO writes -1 for "the whole dataset" / "off"; those are TrainIO's 0.
    train["total_training_steps"] = t.totalTrainingSteps > 0 ? ordered_json(t.totalTrainingSteps) : ordered_json(-1);
    w["train"] = train;
    const auto& k = c.checkpoint;
    w["checkpoint"] = {{"checkpoint_folder", k.folder},
                       {"checkpoint_after_epoch", k.afterEpoch},
                       {"epochs_between_checkpoints", k.epochsBetween},
                       {"steps_between_checkpoints", k.stepsBetween > 0 ? ordered_json(k.stepsBetween) : ordered_json(-1)},
                       {"fsync", k.fsync},
                       {"type", k.type},
                       {"mode", k.mode},
                       {"time_between_checkpoints", number(k.timeBetweenCheckpoints)},
                       {"num_checkpoints_write", k.numCheckpointsWrite},
                       {"num_checkpoints_read", k.numCheckpointsRead},
                       {"rank_sync", k.rankSync},
                       {"recovery_rank_shift", k.recoveryRankShift},
                       {"randomize_tensor", k.randomizeTensor}};
    // DLIO imports a named class: an empty name would be an import error, so it is left out.
    if (!k.mechanismClassname.empty()) w["checkpoint"]["checkpoint_mechanism_classname"] = k.mechanismClassname;
    w["evaluation"] = {{"eval_time", timeJson(c.evaluation.evalTime)},
                       {"epochs_between_evals", c.evaluation.epochsBetweenEvals}};
    w["output"] = {{"metric", {{"exclude_start_steps", c.metric.excludeStartSteps},
                               {"exclude_end_steps", c.metric.excludeEndSteps}}}};
    w["metric"] = {{"au", number(c.metric.au)}};
    if (!c.accelerator.empty()) w["accelerator"] = c.accelerator;
    // TrainIO's own section, always written: it is how the storage was read and shaped (DLIO ignores it).
    const auto& tr = c.trainio;
    ordered_json trainio = {{"io_engine", tr.ioEngine}, {"io_depth", tr.ioDepth}, {"cache", tr.cache}};
    const auto& st = tr.storage;
    if (st.any()) {
        ordered_json storage;
        if (!st.profile.empty()) storage["profile"] = st.profile;
        storage["bandwidth_mib_s"] = number(st.bandwidthMiBs);
        const auto& l = st.latencyMs;
        ordered_json lat = {{"type", l.type}};
        if (l.type == "constant") lat["value"] = number(l.value);
        if (l.type == "normal") lat["mean"] = number(l.mean), lat["stdev"] = number(l.stdev);
        if (l.type == "exponential") lat["mean"] = number(l.mean);
        if (l.type == "lognormal") lat["median"] = number(l.median), lat["sigma"] = number(l.sigma);
        storage["latency_ms"] = lat;
        storage["iops"] = number(st.iops);
        storage["max_inflight"] = st.maxInflight;
        trainio["storage"] = storage;
    }
    trainio["telemetry_interval_s"] = number(tr.telemetryIntervalS);
    if (!tr.mlperfRound.empty()) trainio["mlperf_round"] = tr.mlperfRound;
    trainio["checkpoint_scale"] = number(tr.checkpointScale);
    w["trainio"] = trainio;
    return w;
}

void emit(YAML::Emitter& e, const ordered_json& j) {
    switch (j.type()) {
    case ordered_json::value_t::object:
        e << YAML::BeginMap;
        for (auto it = j.begin(); it != j.end(); ++it) {
            e << YAML::Key << it.key() << YAML::Value;
            emit(e, it.value());
        }
        e << YAML::EndMap;
        break;
    case ordered_json::value_t::array:
        e << YAML::BeginSeq;
        for (const auto& v : j) emit(e, v);
        e << YAML::EndSeq;
        break;
    case ordered_json::value_t::string: {
        // Strings that YAML would read back as something else (a number, a boolean, null) are quoted.
        const std::string s = j.get<std::string>();
        YAML::Node probe;
        bool ambiguous = s.empty();
        try {
            probe = YAML::Load(s);
            ambiguous = ambiguous || !probe.IsScalar() || probe.Scalar() != s || s == "null" || s == "~";
            static const char* words[] = {"true", "false", "yes", "no", "on", "off", "y", "n", "True", "False",
                                          "TRUE", "FALSE", "Yes", "No", "On", "Off", "Null", "NULL"};
            for (const char* w : words) ambiguous = ambiguous || s == w;
            char* end = nullptr;
            std::strtod(s.c_str(), &end);
            ambiguous = ambiguous || (end && *end == '\0');
        } catch (const YAML::Exception&) {
            ambiguous = true;
        }
        if (ambiguous) e << YAML::DoubleQuoted;
        e << s;
        break;
    }
    case ordered_json::value_t::boolean: e << (j.get<bool>() ? "true" : "false"); break;
    case ordered_json::value_t::number_float: e << config_detail::formatNumber(j.get<double>()); break;
    case ordered_json::value_t::null: e << YAML::Null; break;
    default: e << j.dump(); break;
    }
}

} // namespace

nlohmann::json toJson(const WorkloadConfig& cfg) {
    return nlohmann::json::parse(ordered_json{{"workload", workloadJson(cfg)}}.dump());
}

std::string toYaml(const WorkloadConfig& cfg) {
    YAML::Emitter e;
    e.SetIndent(2);
    emit(e, ordered_json{{"workload", workloadJson(cfg)}});
    return std::string(e.c_str()) + "\n";
}

std::string mlperfModelLabel(const std::string& modelName) {
    std::string m = modelName;
    for (char& ch : m)
        if (ch == '_') ch = '-';
    return m;
}

std::string mlperfWorkloadLabel(const WorkloadConfig& cfg) {
    return mlperfModelLabel(cfg.model.name) + "_" + (cfg.accelerator.empty() ? kDefaultAccelerator : cfg.accelerator);
}

std::string overridesYaml(const WorkloadConfig& cfg) {
    std::string out = "- workload=" + mlperfWorkloadLabel(cfg) + "\n";
    for (const auto& raw : cfg.overrides) {
        std::string s = raw;
        auto b = s.find_first_not_of(" \t");
        s = b == std::string::npos ? std::string() : s.substr(b);
        if (s.empty()) continue;
        if (s.rfind("workload=", 0) == 0) continue; // the label line above says it
        if (s[0] == '~') {
            out += "- " + s + "\n";
            continue;
        }
        while (!s.empty() && s[0] == '+') s.erase(0, 1);
        auto eq = s.find('=');
        std::string key = s.substr(0, eq);
        if (key.rfind("workload.", 0) != 0) key = "workload." + key;
        out += "- ++" + key + "=" + (eq == std::string::npos ? std::string() : s.substr(eq + 1)) + "\n";
    }
    return out;
}

} // namespace trainio
