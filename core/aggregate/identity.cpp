#include "aggregate/identity.h"

#include "aggregate/results_import.h"
#include "config/config_keys.h"
#include "store/run_files.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace trainio::aggregate {

namespace {


// "0.3230" and "0.323", "146600628.0" and "146600628" are the same value; anything else is kept as text.
std::string canonicalValue(const std::string& v) {
    if (auto d = store::parseFiniteNumber(v)) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.10g", *d);
        return buf;
    }
    std::string lower = v;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lower == "true" || lower == "false") return lower; // Hydra writes True, TrainIO true
    return v;
}

// Key spellings of the DLIO generations merged: record_length (≤ 1.x) and record_length_bytes (2.x),
// model (a string, ≤ 1.x) and model.name (2.x).
std::string canonicalKey(const std::string& k) {
    static const std::map<std::string, std::string> renamed = {
        {"dataset.record_length_bytes", "dataset.record_length"},
        {"dataset.record_length_bytes_stdev", "dataset.record_length_stdev"},
        {"dataset.record_length_bytes_resize", "dataset.record_length_resize"},
        {"model.name", "model"},
        {"reader.odirect", "trainio.odirect"},
    };
    auto it = renamed.find(k);
    return it == renamed.end() ? k : it->second;
}

std::map<std::string, std::string> canonicalConfig(const ResolvedConfig& resolved) {
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : resolved) out[canonicalKey(k)] = canonicalValue(v);
    return out;
}

std::string get(const std::map<std::string, std::string>& c, const std::string& key, const std::string& dflt = "?") {
    auto it = c.find(key);
    return it == c.end() || it->second.empty() ? dflt : it->second;
}

std::string num(double d) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.10g", d);
    return buf;
}

// A time key appended to the identity only when set (reader.preprocess_time, trainio.handover_time) as
// canonical text (a number, or a distribution's keys as computation_time's); "" when it is absent or zero
// everywhere (DLIO's default: none). `section` is the key's section with its dot ("reader.").
std::string optionalTime(const std::map<std::string, std::string>& c, const std::string& section, const std::string& name) {
    const std::string key = section + name;
    std::string pt;
    bool nonZero = false;
    for (const auto& [k, v] : c) {
        const bool member = k.rfind(key + ".", 0) == 0 || k == key + "_stdev";
        if (k != key && !member) continue;
        if (k == key) pt += v;
        else pt += (pt.empty() ? "" : ",") + k.substr(section.size()) + ":" + v;
        if (k != key + ".type") nonZero = nonZero || store::parseFiniteNumber(v).value_or(1.0) != 0.0;
    }
    return nonZero ? pt : std::string();
}
// The identity fields appended only when set: their zero where absent.
const std::vector<std::string>& optionalFields() {
    static const std::vector<std::string> f = {"preprocess_time", "preprocess_cpu_time", "handover_time"};
    return f;
}
bool optionalField(const std::string& field) {
    const auto& f = optionalFields();
    return std::find(f.begin(), f.end(), field) != f.end();
}

// The workload identity's fields, in key order. DLIO's defaults stand in for keys a config leaves out
// (record_length_stdev 0, computation_time_stdev 0), so a published config that omits them equals a
// TrainIO config that writes them.
std::vector<std::pair<std::string, std::string>> workloadFields(const InvocationRecord& r,
                                                                const std::map<std::string, std::string>& c) {
    std::vector<std::pair<std::string, std::string>> f;
    f.emplace_back("model", r.model.empty() ? get(c, "model") : r.model);
    f.emplace_back("accelerator", r.accelerator.empty() ? get(c, "accelerator") : r.accelerator);
    f.emplace_back("format", get(c, "dataset.format"));
    f.emplace_back("record_length", r.recordLengthBytes ? num(*r.recordLengthBytes) : get(c, "dataset.record_length"));
    f.emplace_back("record_length_stdev", get(c, "dataset.record_length_stdev", "0"));
    f.emplace_back("samples_per_file", r.samplesPerFile > 0 ? std::to_string(r.samplesPerFile)
                                                            : get(c, "dataset.num_samples_per_file"));
    f.emplace_back("batch_size", get(c, "reader.batch_size"));
    // Computation time: a number (DLIO ≤ 2.0) or a distribution (train.computation_time.{type,mean,stdev,…}
    // in later generations); every key below train.computation_time is part of it.
    std::string ct;
    for (const auto& [k, v] : c) {
        if (k == "train.computation_time") ct += v;
        else if (k.rfind("train.computation_time.", 0) == 0 || k == "train.computation_time_stdev")
            ct += (ct.empty() ? "" : ",") + k.substr(std::string("train.").size()) + ":" + v;
    }
    f.emplace_back("computation_time", ct.empty() ? "?" : ct);
    std::optional<double> au = r.auThresholdPercent;
    if (const auto fraction = store::parseFiniteNumber(get(c, "metric.au")); !au && fraction) au = *fraction * 100.0;
    f.emplace_back("au_threshold_percent", au ? num(*au) : "?");
    // reader.preprocess_time (DLIO's per-sample work in the readers, a captured job's decode) is slept where
    // the reads are: a different time is a different workload, as a different computation time is.
    // Appended only when it is not zero, so that every key of a workload without it stays what it was.
    if (const std::string pt = optionalTime(c, "reader.", "preprocess_time"); !pt.empty()) f.emplace_back("preprocess_time", pt);
    // trainio.handover_time (a captured PyTorch job's batch hand-over in the loop) is waited on every step.
    // trainio.preprocess_cpu_time (its CPU work per sample, run on a core) likewise.
    if (const std::string ct = optionalTime(c, "trainio.", "preprocess_cpu_time"); !ct.empty()) f.emplace_back("preprocess_cpu_time", ct);
    if (const std::string ht = optionalTime(c, "trainio.", "handover_time"); !ht.empty()) f.emplace_back("handover_time", ht);
    // Appended only for checkpointing, so that every training key stays what it was before v3.0.
    if (r.type == BenchmarkType::Checkpointing) {
        f.emplace_back("benchmark_type", benchmarkTypeName(r.type));
        // What a checkpoint moves: a scaled-down checkpoint (trainio.checkpoint_scale) or another model is
        // another workload, whatever the dataset keys (DLIO's defaults in a checkpointing config) say.
        if (std::isfinite(r.checkpointSizeGiB) && r.checkpointSizeGiB > 0)
            f.emplace_back("checkpoint_size_gib", num(r.checkpointSizeGiB));
    }
    return f;
}

std::string join(const std::vector<std::pair<std::string, std::string>>& fields) {
    std::string s;
    for (const auto& [k, v] : fields) s += (s.empty() ? "" : "|") + k + "=" + v;
    return s;
}

std::map<std::string, std::string> split(const std::string& key) {
    std::map<std::string, std::string> out;
    std::stringstream ss(key);
    std::string part;
    while (std::getline(ss, part, '|')) {
        const auto eq = part.find('=');
        if (eq != std::string::npos) out[part.substr(0, eq)] = part.substr(eq + 1);
    }
    return out;
}

std::string bytesText(const std::string& v) {
    const auto d = store::parseFiniteNumber(v);
    if (!d) return v;
    char buf[64];
    if (*d >= 1024.0 * 1024.0) std::snprintf(buf, sizeof buf, "%.1f MiB", *d / (1024.0 * 1024.0));
    else if (*d >= 1024.0) std::snprintf(buf, sizeof buf, "%.1f KiB", *d / 1024.0);
    else std::snprintf(buf, sizeof buf, "%.0f B", *d);
    return buf;
}

// Why a resolved key cannot split a benchmark, in words; "" when it can. From the key table
// (config_keys: bookkeeping rows, the Bool key that gates a feature) and the few keys outside it
// (benchmarkIdentityExclusions). A checkpointing invocation checkpoints whatever workflow.checkpoint says.
std::string whyNotSplitting(const std::string& key, const std::map<std::string, std::string>& c, BenchmarkType type) {
    for (const auto& e : benchmarkIdentityExclusions()) {
        if (e.key == "train.seed") {
            // The seed matters only where a shuffle uses it ("seed" shuffles; "random" ones draw anew).
            if (key == "train.seed" && get(c, "reader.file_shuffle", "off") != "seed" &&
                get(c, "reader.sample_shuffle", "off") != "seed")
                return e.reason;
            continue;
        }
        if (e.key.back() == '.' ? key.rfind(e.key, 0) == 0 : key == e.key) return e.reason;
    }
    if (key.empty() || key[0] == '#') return {};
    if (config_keys::isBookkeeping(key)) return "bookkeeping (where results or logs go, how often a recorder samples)";
    const std::string gate = config_keys::featureGate(key);
    if (!gate.empty() && !(gate == "workflow.checkpoint" && type == BenchmarkType::Checkpointing)) {
        const config_keys::KeyDef* g = config_keys::find(gate);
        if (get(c, gate, g ? canonicalValue(g->dlioDefault) : "false") == "false") return "its feature is off (" + gate + " false)";
    }
    // Where files are written or read is not what the workload does, whether its feature is on or off (issue 30).
    if (config_keys::roleOf(key) == config_keys::Role::Location) return "a location (where files are written or read), not what the workload does";
    return {};
}

// Everything in the benchmark identity that is not already in the workload identity, as canonical keys.
std::map<std::string, std::string> benchmarkExtras(const InvocationRecord& r) {
    auto c = canonicalConfig(r.resolved);
    std::map<std::string, std::string> out;
    // Keys the workload identity already holds (the key table's Workload rows and their members, with DLIO's
    // defaults for absent ones) are left out here, so that a config that writes a default and one that omits
    // it are the same benchmark.
    for (const auto& [k, v] : c)
        if (whyNotSplitting(k, c, r.type).empty() && config_keys::roleOf(k) != config_keys::Role::Workload) out[k] = v;
    out["#accelerators"] = std::to_string(r.accelerators);
    out["#hosts"] = std::to_string(std::max<std::int64_t>(r.numHosts, 1));
    out["#files_train"] = std::to_string(r.filesTrain);
    return out;
}

} // namespace

const std::vector<ExcludedKey>& benchmarkIdentityExclusions() {
    static const std::vector<ExcludedKey> keys = {
        {"hydra.", "Hydra's own bookkeeping (run folder, job name, time stamps)"},
        {"=workload", "the workload name is in the workload identity already (model, accelerator)"},
        {"model", "in the workload identity"},
        {"train.seed", "only when no shuffle uses it (file_shuffle and sample_shuffle not \"seed\"): "
                       "\"random\" shuffles draw a new order every run"},
        // MLPerf Storage v3.0 Rules.md 4.7.1 (mlpstorage_py/rules/submission_checkers/checkpointing.py,
        // check_invocation_structure): a checkpointing benchmark is one invocation of 10 writes and 10 reads,
        // or a write invocation (10/0) followed by a read invocation (0/10). Both phases are one benchmark.
        {"checkpoint.num_checkpoints_write", "a checkpointing benchmark may write in one invocation and read in the next"},
        {"checkpoint.num_checkpoints_read", "a checkpointing benchmark may write in one invocation and read in the next"},
    };
    return keys;
}

Identity identityOf(const InvocationRecord& r) {
    const auto c = canonicalConfig(r.resolved);
    const auto fields = workloadFields(r, c);
    Identity id;
    id.workloadKey = join(fields);
    std::vector<std::pair<std::string, std::string>> all(fields);
    for (const auto& [k, v] : benchmarkExtras(r)) all.emplace_back(k, v);
    id.benchmarkKey = join(all);
    std::string name = fields[0].second;
    if (fields[1].second != "?") name += "_" + fields[1].second;
    id.workloadTitle = name;
    if (r.type == BenchmarkType::Checkpointing) {
        // The dataset keys of a checkpointing config are DLIO's defaults, not what it does: name the checkpoint.
        id.workloadTitle += " · checkpointing";
        if (std::isfinite(r.checkpointSizeGiB) && r.checkpointSizeGiB > 0) {
            char buf[64];
            std::snprintf(buf, sizeof buf, " · %.4g GiB", r.checkpointSizeGiB);
            id.workloadTitle += buf;
        }
        return id;
    }
    if (fields[2].second != "?") id.workloadTitle += " · " + fields[2].second;
    if (fields[3].second != "?") id.workloadTitle += " · " + bytesText(fields[3].second) + "/sample";
    return id;
}

std::vector<std::string> identityDifferences(const InvocationRecord& a, const InvocationRecord& b) {
    // Records from the importer carry their key already; others (hand-made) get it computed.
    auto keyOf = [](const InvocationRecord& r) { return r.benchmarkKey.empty() ? identityOf(r).benchmarkKey : r.benchmarkKey; };
    auto fa = split(keyOf(a)), fb = split(keyOf(b));
    std::set<std::string> keys;
    for (const auto& [k, v] : fa) keys.insert(k);
    for (const auto& [k, v] : fb) keys.insert(k);
    std::vector<std::string> out;
    for (const auto& k : keys) {
        const std::string va = fa.count(k) ? fa[k] : "(unset)", vb = fb.count(k) ? fb[k] : "(unset)";
        if (va == vb) continue;
        out.push_back((k[0] == '#' ? k.substr(1) : k) + ": " + va + " vs " + vb);
    }
    return out;
}

std::vector<std::string> settingDifferences(const InvocationRecord& a, const InvocationRecord& b) {
    const auto ca = canonicalConfig(a.resolved), cb = canonicalConfig(b.resolved);
    std::set<std::string> keys;
    for (const auto& [k, v] : ca) keys.insert(k);
    for (const auto& [k, v] : cb) keys.insert(k);
    std::vector<std::string> out;
    for (const auto& k : keys) {
        const auto ia = ca.find(k), ib = cb.find(k);
        const std::string va = ia == ca.end() ? "(unset)" : ia->second, vb = ib == cb.end() ? "(unset)" : ib->second;
        if (va == vb) continue;
        const std::string why = whyNotSplitting(k, ca, a.type);
        if (why.empty() || why != whyNotSplitting(k, cb, b.type)) continue; // a difference that splits
        out.push_back(k + ": " + va + " vs " + vb + " — " + why);
    }
    return out;
}

std::string workloadDistinction(const std::string& key, const std::vector<std::string>& keys) {
    // The identity's fields (workloadFields) in the order a reader scans a name, each as a short phrase.
    static const std::vector<std::pair<std::string, std::string (*)(const std::string&)>> phrases = {
        {"benchmark_type", [](const std::string& v) { return v; }},
        {"checkpoint_size_gib", [](const std::string& v) { return v + " GiB checkpoint"; }},
        {"format", [](const std::string& v) { return v; }},
        {"record_length", [](const std::string& v) { return bytesText(v) + "/sample"; }},
        {"record_length_stdev", [](const std::string& v) { return "sd " + bytesText(v); }},
        {"samples_per_file", [](const std::string& v) { return v + " samples/file"; }},
        {"batch_size", [](const std::string& v) { return "batch " + v; }},
        {"computation_time", [](const std::string& v) { return "compute " + v; }},
        {"preprocess_time", [](const std::string& v) { return "preprocess " + v; }},
        {"preprocess_cpu_time", [](const std::string& v) { return "preprocess CPU " + v; }},
        {"handover_time", [](const std::string& v) { return "hand-over " + v; }},
        {"au_threshold_percent", [](const std::string& v) { return "AU " + v + " %"; }},
        {"model", [](const std::string& v) { return v; }},
        {"accelerator", [](const std::string& v) { return v; }},
    };
    auto mine = split(key);
    std::vector<std::map<std::string, std::string>> others;
    for (const auto& k : keys)
        if (k != key) others.push_back(split(k));
    std::string out;
    for (const auto& entry : phrases) {
        // Not a structured binding: clang 14 (the asan/fuzz build) cannot capture one in a lambda.
        const std::string& field = entry.first;
        const auto& phrase = entry.second;
        // A field appended only when set (preprocess_time) is its zero where absent, not unknown.
        const std::string absent = optionalField(field) ? "0" : "?";
        const auto value = mine.count(field) ? mine[field] : absent;
        const bool differs = std::any_of(others.begin(), others.end(), [&](const auto& o) {
            const auto it = o.find(field);
            return (it == o.end() ? absent : it->second) != value;
        });
        if (differs) out += (out.empty() ? "" : " · ") + (value == "?" ? field + " unknown" : phrase(value));
    }
    return out;
}

std::string whyNotComparable(const std::string& workloadKeyA, const std::string& workloadKeyB) {
    if (workloadKeyA == workloadKeyB) return {};
    static const std::vector<std::pair<std::string, std::string>> words = {
        {"model", "model"},
        {"accelerator", "accelerator type"},
        {"format", "format"},
        {"record_length", "record length"},
        {"record_length_stdev", "record length stdev"},
        {"samples_per_file", "samples per file"},
        {"batch_size", "batch size"},
        {"computation_time", "computation time"},
        {"preprocess_time", "preprocess time"},
        {"preprocess_cpu_time", "preprocess CPU time"},
        {"handover_time", "batch hand-over time"},
        {"au_threshold_percent", "AU threshold"},
    };
    auto a = split(workloadKeyA), b = split(workloadKeyB);
    std::string why;
    for (const auto& f : optionalFields())
        if (!a.count(f) != !b.count(f)) (a.count(f) ? b : a)[f] = "0";
    for (const auto& [k, word] : words) {
        if (a[k] == b[k]) continue;
        const bool bytes = k.rfind("record_length", 0) == 0;
        const std::string va = bytes ? bytesText(a[k]) : a[k], vb = bytes ? bytesText(b[k]) : b[k];
        why += (why.empty() ? "" : "; ") + ("different " + word + ": " + va + " vs " + vb);
    }
    return why.empty() ? "different workload identity" : why;
}

} // namespace trainio::aggregate
