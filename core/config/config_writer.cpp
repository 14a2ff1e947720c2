// toYaml / toJson / overridesYaml: one description of the resolved-Hydra shape (a JSON tree) that both
// text forms come from, so that they cannot drift apart.
#include "config/config_internal.h"
#include "config/config_keys.h"
#include "config/config_loader.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdlib>
#include <type_traits>

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

ordered_json valueJson(const config_keys::KeyDef& k, const config_keys::Value& v) {
    return std::visit(
        [&](const auto& x) -> ordered_json {
            using X = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<X, double>) {
                return number(x);
            } else if constexpr (std::is_same_v<X, std::uint64_t>) {
                // DLIO writes -1 for "the whole dataset" / "off"; those are TrainIO's 0.
                if (k.has(config_keys::MinusOneIsZero) && x == 0) return -1;
                return x;
            } else {
                return x;
            }
        },
        v);
}

// The table's value at `path` placed in the tree (sections created on the way).
void put(ordered_json& w, const std::string& path, ordered_json value) {
    ordered_json* cur = &w;
    std::size_t start = 0;
    for (std::size_t dot; (dot = path.find('.', start)) != std::string::npos; start = dot + 1)
        cur = &(*cur)[path.substr(start, dot - start)];
    (*cur)[path.substr(start)] = std::move(value);
}

ordered_json workloadJson(const WorkloadConfig& c) {
    ordered_json w;
    // DLIO's resolved-Hydra order of the sections; keys within a section follow the table.
    for (const char* s : {"model", "framework", "workflow", "storage", "dataset", "reader", "train", "checkpoint", "evaluation",
                          "output", "metric", "accelerator", "trainio"})
        w[s] = nullptr;
    for (const auto& k : config_keys::all()) {
        if (!k.field || k.kind == config_schema::KeyKind::Ignored || k.has(config_keys::NotAKey) ||
            k.has(config_keys::NotWritten) || k.has(config_keys::CustomWrite))
            continue;
        const config_keys::Value v = k.field.get(c);
        // OmitWhenEmpty: an empty text, or a false Bool (trainio.submission), is not written.
        if (k.has(config_keys::OmitWhenEmpty) &&
            (std::holds_alternative<bool>(v) ? !std::get<bool>(v) : std::get<std::string>(v).empty()))
            continue;
        // A secret is never written (docs/s3.md): the copy in a result folder says one was given.
        if (isSecretKey(k.path)) {
            put(w, k.path, "***");
            continue;
        }
        put(w, k.path, valueJson(k, v));
    }
    // Beside the table: the time distributions, the accelerator when known, and the emulated storage
    // only when it emulates something (its latency as the chosen distribution's parameters).
    w["train"]["computation_time"] = timeJson(c.train.computationTime);
    w["evaluation"]["eval_time"] = timeJson(c.evaluation.evalTime);
    w["reader"]["preprocess_time"] = timeJson(c.reader.preprocessTime);
    // TrainIO's own: written only when there is one, so that every other workload's YAML stays as it was.
    if (c.trainio.handoverTime.expectedSeconds() > 0) w["trainio"]["handover_time"] = timeJson(c.trainio.handoverTime);
    if (c.trainio.preprocessCpuTime.expectedSeconds() > 0)
        w["trainio"]["preprocess_cpu_time"] = timeJson(c.trainio.preprocessCpuTime);
    // DLIO's default data_loader is the string "tensorflow", which its framework check never matches;
    // written out, the same value becomes the enum and DLIO refuses it with framework pytorch (the
    // fork's utils/config.py lines 209, 386-388). Left out, it reads back as the same default.
    if (c.framework == "pytorch" && c.reader.dataLoader == "tensorflow") w["reader"].erase("data_loader");
    // A workload on the local file system with no storage key set keeps writing no storage section.
    const StorageSection d;
    const StorageSection& st0 = c.storage;
    if (w["storage"].is_null() ||
        (st0.type == d.type && st0.root == d.root && st0.endpointUrl == d.endpointUrl && st0.region == d.region &&
         st0.accessKeyId == d.accessKeyId && st0.secretAccessKey == d.secretAccessKey && st0.forcePathStyle == d.forcePathStyle &&
         st0.maxAttempts == d.maxAttempts && st0.caBundle == d.caBundle && st0.verifyTls == d.verifyTls &&
         st0.profile == d.profile))
        w.erase("storage");
    // A captured job's figures only with the job they are of (trainio.captured_job, docs/capture.md).
    // Every figure read is written back (a value given is never dropped); the library and the report show
    // them only with the job they are of (CapturedJob::hasFigures).
    if (c.trainio.capturedJob.auPercent > 0)
        w["trainio"]["captured_job"]["au_percent"] = number(c.trainio.capturedJob.auPercent);
    if (c.trainio.capturedJob.samplesPerSecond > 0)
        w["trainio"]["captured_job"]["samples_per_second"] = number(c.trainio.capturedJob.samplesPerSecond);
    if (!c.accelerator.empty()) w["accelerator"] = c.accelerator;
    else w.erase("accelerator");
    const auto& st = c.trainio.storage;
    if (st.any()) {
        const auto& l = st.latencyMs;
        ordered_json lat = {{"type", l.type}};
        if (l.type == "constant") lat["value"] = number(l.value);
        if (l.type == "normal") lat["mean"] = number(l.mean), lat["stdev"] = number(l.stdev);
        if (l.type == "exponential") lat["mean"] = number(l.mean);
        if (l.type == "lognormal") lat["median"] = number(l.median), lat["sigma"] = number(l.sigma);
        w["trainio"]["storage"]["latency_ms"] = lat;
    } else {
        w["trainio"].erase("storage");
    }
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
