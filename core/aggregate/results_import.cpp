#include "aggregate/results_import.h"
#include "store/journal.h"

#include "aggregate/identity.h"
#include "aggregate/labels.h"
#include "aggregate/result_folder_reader.h"
#include "io/storage_profile.h"
#include "results/benchmark_manifest.h"
#include "results/sweep.h"
#include "telemetry/telemetry_table.h"
#include "util/errors.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <iomanip>
#include <limits>
#include <map>
#include <sstream>
#include <set>
#include <tuple>

#include <yaml-cpp/yaml.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace trainio::aggregate {

namespace {

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string trim(const std::string& s) {
    std::size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return s.substr(b, e - b);
}

std::string unquote(std::string s) {
    s = trim(s);
    if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front())
        s = s.substr(1, s.size() - 2);
    return s;
}

bool isWarmupName(const std::string& name) {
    const std::string n = lower(name);
    return n == "warmup" || n == "warm-up" || n == "warm_up";
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

// One host's summary.json, parsed into the fields of an invocation.
struct HostSummary {
    fs::path file;
    std::int64_t accelerators = 0, filesTrain = 0, samplesPerFile = 0, numHosts = 0, epochs = 0;
    double au = 0, auStdev = 0, sps = 0, spsStdev = 0, mbps = 0, mbpsStdev = 0, hostMemoryGiB = 0;
    std::vector<double> epochAu, epochSps;
    std::string meet, start, end, hostname;
    std::vector<std::string> notes;
    bool checkpoint = false; // a checkpointing summary: save_*/load_* metrics, no train_* ones
    double saveGiBps = NAN, saveSeconds = NAN, loadGiBps = NAN, loadSeconds = NAN, sizeGiB = NAN;
};

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

ReadBounds boundsOf(const ImportOptions& options) {
    ReadBounds b;
    b.maxFileBytes = options.maxFileBytes;
    b.maxStepFileBytes = options.maxStepFileBytes;
    b.maxJsonDepth = options.maxJsonDepth;
    return b;
}

// The AU lines of the MLPerf Storage workloads, used only when no config names one: v1.0 (unet3d and
// resnet50 90 %, cosmoflow 70 %) and v3.0's retinanet (mlcommons/storage configs/dlio/workload/
// retinanet_{b200,mi355}.yaml metric.au: 0.85; unet3d_b200.yaml keeps 0.90).
std::optional<double> knownAuThreshold(const std::string& model) {
    if (model == "unet3d" || model == "resnet50") return 90.0;
    if (model == "retinanet") return 85.0;
    if (model == "cosmoflow") return 70.0;
    return std::nullopt;
}

struct Found {
    fs::path summary;
    fs::path canonicalRoot;
    std::string importRootName;
    fs::path root; // the imported root as given (absolute): labels are looked up to here
};

int maxNesting(const std::string& text, int limit) {
    int depth = 0, deepest = 0;
    bool inString = false, escaped = false;
    for (char c : text) {
        if (inString) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') inString = false;
            continue;
        }
        if (c == '"') inString = true;
        else if (c == '[' || c == '{') {
            deepest = std::max(deepest, ++depth);
            if (deepest > limit) return deepest;
        } else if (c == ']' || c == '}') --depth;
    }
    return deepest;
}

// MLPerf Storage v3.0 names its checkpointing workloads llama3_8b … llama3_1t in overrides.yaml and
// llama3-8b … llama3-1t everywhere else (mlpstorage_py/config.py LLM_MODELS, the results folders): the
// generator's split at '_' would make "8b" an accelerator. The folder <system>/checkpointing/<model>/
// names the model where it exists; otherwise the llama3_<size> spelling is mapped.
void checkpointModel(const fs::path& runDir, const std::string& workload, std::string& model, std::string& accelerator) {
    if (workload.rfind("llama3_", 0) == 0) {
        const auto rest = workload.substr(7);
        const auto us = rest.find('_');
        model = "llama3-" + rest.substr(0, us);
        accelerator = us == std::string::npos ? std::string() : rest.substr(us + 1); // "8b" is a size, not an accelerator
    }
    if (runDir.has_parent_path() && runDir.parent_path().has_parent_path() &&
        runDir.parent_path().parent_path().filename() == "checkpointing")
        model = runDir.parent_path().filename().string();
    model = mlperfCheckpointModel(model);
}

// mlpstorage's <kind>_<timestamp>_metadata.json beside summary.json: the accelerator type and process
// count it was run with, and system_info (the clients as mlpstorage collected them) in one line.
void readMetadata(const fs::path& runDir, const fs::path& canonicalRoot, const ImportOptions& options, InvocationRecord& r) {
    std::error_code ec;
    fs::directory_iterator it(runDir, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.size() <= 14 || name.compare(name.size() - 14, 14, "_metadata.json") != 0) continue;
        if (!it->is_regular_file(ec)) continue;
        std::string why;
        std::optional<std::string> text;
        if (safeToRead(it->path(), canonicalRoot, why)) text = readBoundedFile(it->path(), options.maxFileBytes, why);
        std::optional<json> j;
        if (text) j = parseBoundedJson(*text, options.maxJsonDepth, why);
        if (!j || !j->is_object()) {
            r.notes.push_back(it->path().string() + ": " + (why.empty() ? "not a JSON object" : why) + " (metadata ignored)");
            continue;
        }
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

} // namespace

std::optional<std::string> readBoundedFile(const fs::path& file, std::uintmax_t maxBytes, std::string& why) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        why = "cannot open: " + errnoText(errno);
        return std::nullopt;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        why = "not a regular file";
        return std::nullopt;
    }
    if (static_cast<std::uintmax_t>(st.st_size) > maxBytes) {
        ::close(fd);
        why = "file is " + std::to_string(st.st_size) + " bytes, larger than the " +
              std::to_string(maxBytes >> 20) + " MiB read limit";
        return std::nullopt;
    }
    std::string text(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t got = 0;
    while (got < text.size()) {
        const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            why = "read error: " + errnoText(errno);
            ::close(fd);
            return std::nullopt;
        }
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    ::close(fd);
    text.resize(got);
    return text;
}

std::optional<json> parseBoundedJson(const std::string& text, int maxDepth, std::string& why) {
    if (trim(text).empty()) {
        why = "empty file";
        return std::nullopt;
    }
    if (maxNesting(text, maxDepth) > maxDepth) {
        why = "JSON nested deeper than " + std::to_string(maxDepth) + " levels";
        return std::nullopt;
    }
    try {
        return json::parse(text);
    } catch (const json::exception& e) {
        // nlohmann's messages are precise ("unexpected end of input", "number overflow parsing '1e400'").
        std::string msg = e.what();
        if (auto p = msg.find("] "); p != std::string::npos) msg = msg.substr(p + 2);
        why = "not valid JSON: " + msg;
        return std::nullopt;
    }
}

// What TrainIO's trainio_run.json says about a run folder TrainIO wrote.
struct TrainioRun {
    bool present = false; // the folder has a trainio_run.json (TrainIO wrote it)
    InvocationStatus status = InvocationStatus::Complete;
    std::string reason;
    std::vector<std::string> warnings;
};

// A TrainIO file of the run folder as JSON, read within the import's bounds; nullopt (with why) otherwise.
std::optional<json> readRunJson(const fs::path& file, const fs::path& canonicalRoot, const ImportOptions& options,
                                std::string& why) {
    std::optional<std::string> text;
    if (safeToRead(file, canonicalRoot, why)) text = readBoundedFile(file, options.maxFileBytes, why);
    if (!text) return std::nullopt;
    return parseBoundedJson(*text, options.maxJsonDepth, why);
}

// trainio_io.json's "storage": the emulated device ({} when none), its profile and its live changes
// (docs/cache-honesty.md, docs/emulated-storage.md). A malformed part is a note; the rest is kept.
void readStorage(const json& s, const std::string& where, InvocationRecord& r) {
    if (!s.is_object() || s.empty()) return;
    r.storageEmulated = true;
    if (const auto p = s.find("profile"); p != s.end() && p->is_string()) r.storageProfile = p->get<std::string>();
    json shape = s;
    shape.erase("changes");
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

// trainio_io.json: engine, cache control, the emulated storage and each epoch's percent_from_cache
// (docs/cache-honesty.md).
void readTrainioIo(const fs::path& dir, const fs::path& canonicalRoot, const ImportOptions& options, InvocationRecord& r) {
    const fs::path file = dir / "trainio_io.json";
    std::error_code ec;
    if (!fs::is_regular_file(fs::symlink_status(file, ec))) return;
    std::string why;
    const auto j = readRunJson(file, canonicalRoot, options, why);
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
    if (const auto d = j->find("data_device"); d != j->end() && d->is_object()) {
        if (const auto n = d->find("name"); n != d->end() && n->is_string()) r.dataDevice = n->get<std::string>();
        if (const auto p = d->find("parent_disk"); p != d->end() && p->is_string()) r.dataParentDisk = p->get<std::string>();
    }
}

// trainio_model.json: the model's prediction made before the run (docs/model.md), beside what it measured.
void readModelPrediction(const fs::path& dir, const fs::path& canonicalRoot, const ImportOptions& options, InvocationRecord& r) {
    const fs::path file = dir / "trainio_model.json";
    std::error_code ec;
    if (!fs::is_regular_file(fs::symlink_status(file, ec))) return;
    std::string why;
    const auto j = readRunJson(file, canonicalRoot, options, why);
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
// a long run is large), with ImportOptions::stepDigests also as the four series the report plots
// (InvocationRecord::telemetrySeries). After readTrainioIo, whose data device picks the read-rate column.
void readTelemetry(const fs::path& dir, const fs::path& canonicalRoot, const ImportOptions& options, InvocationRecord& r) {
    const fs::path file = dir / "telemetry.json";
    std::error_code ec;
    if (!fs::is_regular_file(fs::symlink_status(file, ec))) return;
    std::string why;
    std::optional<std::string> text;
    if (safeToRead(file, canonicalRoot, why)) text = readBoundedFile(file, options.maxFileBytes, why);
    if (!text) {
        r.notes.push_back(file.string() + ": " + why + " (telemetry not shown)");
        return;
    }
    try {
        const telemetry::TelemetryTable table = telemetry::parseTelemetryJson(*text, file.string());
        r.telemetry = telemetry::summarize(table, r.dataDevice, r.dataParentDisk);
        if (options.stepDigests && !table.rows.empty()) {
            // The report's telemetry plots, kept with the per-step records (nothing is read when it is made).
            auto series = std::make_shared<TelemetrySeries>();
            const telemetry::PointReader reader(table, r.dataDevice, r.dataParentDisk);
            series->intervalS = table.intervalS;
            series->deviceLabel = reader.deviceLabel();
            for (const auto& row : table.rows) {
                const telemetry::TelemetryPoint p = reader.point(row);
                series->timeS.push_back(p.timeS);
                series->cpuBusyPct.push_back(p.cpuBusyPct);
                series->procCpuPct.push_back(p.procCpuPct);
                series->deviceReadMiBs.push_back(p.deviceReadMiBs);
            }
            r.telemetrySeries = std::move(series);
        }
    } catch (const InputError& e) {
        r.notes.push_back(std::string(e.what()) + " (telemetry not shown)");
    }
}

TrainioRun trainioRunStatus(const fs::path& dir, const fs::path& canonicalRoot, const ImportOptions& options) {
    TrainioRun out;
    const fs::path meta = dir / "trainio_run.json";
    std::error_code ec;
    if (!fs::is_regular_file(fs::symlink_status(meta, ec))) return out;
    out.present = true;
    std::string why;
    const auto j = readRunJson(meta, canonicalRoot, options, why);
    if (!j || !j->is_object()) {
        // A run whose own record cannot be read cannot be vouched for.
        out.status = InvocationStatus::Failed;
        out.reason = meta.string() + ": " + (why.empty() ? "not a JSON object" : why);
        return out;
    }
    if (const auto w = j->find("warnings"); w != j->end() && w->is_array())
        for (const auto& x : *w)
            if (x.is_string()) out.warnings.push_back(x.get<std::string>());
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

// The manifest of the benchmark a run folder belongs to: <bench>/<run> (warm-up) or <bench>/<x>/<run>
// (runs/run-N, warmup/warmup-N), only when the manifest names the folder.
struct ManifestPlace {
    fs::path benchmarkDir;
    BenchmarkManifest manifest;
    bool warmup = false;
};

// Manifests already read, by benchmark folder: every run of a benchmark asks for the same one.
struct ManifestRead {
    std::optional<BenchmarkManifest> manifest;
    std::string error; // a malformed manifest: noted on each run that would have belonged to it
};
using ManifestCache = std::map<fs::path, ManifestRead>;

std::optional<ManifestPlace> manifestFor(const fs::path& runDir, const fs::path& root, std::vector<std::string>& notes,
                                        bool& manifestNearby, ManifestCache& cache) {
    for (const fs::path& bench : {runDir.parent_path(), runDir.parent_path().parent_path()}) {
        // Nothing is read outside the imported tree: a benchmark's runs/ imported alone is a folder of runs.
        const auto rel = bench.lexically_relative(root);
        if (bench.empty() || rel.empty() || *rel.begin() == "..") continue;
        auto [it, fresh] = cache.try_emplace(bench);
        if (fresh) {
            try {
                it->second.manifest = readBenchmarkManifest(bench);
            } catch (const InputError& e) {
                it->second.error = e.what();
            }
        }
        const ManifestRead& read = it->second;
        if (!read.error.empty()) notes.push_back(read.error);
        if (!read.manifest) continue;
        manifestNearby = true;
        const std::string runRel = runDir.lexically_relative(bench).generic_string();
        for (const auto& w : read.manifest->warmups)
            if (w == runRel) return ManifestPlace{bench, *read.manifest, true};
        for (const auto& r : read.manifest->runs)
            if (r == runRel) return ManifestPlace{bench, *read.manifest, false};
    }
    return std::nullopt;
}

std::vector<std::pair<std::string, std::string>> readFlatYaml(const std::string& text) {
    std::vector<std::pair<std::string, std::string>> out;
    std::vector<std::pair<std::size_t, std::string>> stack; // (indent, key) of open mappings
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t nl = text.find('\n', pos);
        if (nl == std::string::npos) nl = text.size();
        std::string line = text.substr(pos, nl - pos);
        pos = nl + 1;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        std::size_t indent = 0;
        while (indent < line.size() && line[indent] == ' ') ++indent;
        const std::string body = line.substr(indent);
        if (body.empty() || body[0] == '#' || body[0] == '-' || body.rfind("---", 0) == 0) continue;
        const auto colon = body.find(": ") != std::string::npos ? body.find(": ")
                           : (!body.empty() && body.back() == ':') ? body.size() - 1 : std::string::npos;
        if (colon == std::string::npos || colon == 0) continue;
        const std::string key = unquote(body.substr(0, colon));
        std::string value = colon + 1 < body.size() ? body.substr(colon + 1) : std::string();
        if (auto hash = value.find(" #"); hash != std::string::npos) value = value.substr(0, hash);
        value = unquote(value);
        while (!stack.empty() && stack.back().first >= indent) stack.pop_back();
        std::string full;
        for (const auto& s : stack) full += s.second + ".";
        full += key;
        if (value.empty()) stack.emplace_back(indent, key);
        else out.emplace_back(full.rfind("workload.", 0) == 0 ? full.substr(9) : full, value);
    }
    return out;
}

std::vector<std::pair<std::string, std::string>> readOverrides(const std::string& text) {
    std::vector<std::pair<std::string, std::string>> out;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t nl = text.find('\n', pos);
        if (nl == std::string::npos) nl = text.size();
        std::string item = trim(text.substr(pos, nl - pos));
        pos = nl + 1;
        if (item.rfind("- ", 0) != 0) continue;
        item = unquote(item.substr(2));
        while (!item.empty() && (item[0] == '+' || item[0] == '~')) item.erase(0, 1);
        const auto eq = item.find('=');
        if (eq == std::string::npos) continue;
        std::string key = trim(item.substr(0, eq));
        const std::string value = unquote(item.substr(eq + 1));
        // The workload choice itself, as opposed to a key inside the workload.
        if (key == "workload") out.emplace_back("=workload", value);
        else out.emplace_back(key.rfind("workload.", 0) == 0 ? key.substr(9) : key, value);
    }
    return out;
}

const std::vector<std::string>& runConfigFolders() {
    static const std::vector<std::string> folders = {"configs", ".hydra", "dlio_config"};
    return folders;
}

std::optional<fs::path> findRunConfigFile(const fs::path& dir, const std::string& file) {
    for (const auto& sub : runConfigFolders()) {
        std::error_code ec;
        if (fs::is_regular_file(dir / sub / file, ec)) return dir / sub / file;
    }
    return std::nullopt;
}

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

std::string mlperfCheckpointModel(const std::string& name) {
    for (const char* prefix : {"llama3_", "llama3-", "llama_", "llama-"}) {
        const std::string p = prefix;
        if (name.size() <= p.size() || name.compare(0, p.size(), p) != 0) continue;
        const std::string size = name.substr(p.size());
        const bool digits = std::all_of(size.begin(), size.end() - 1, [](unsigned char c) { return std::isdigit(c); });
        if (digits && std::isdigit(static_cast<unsigned char>(size.front())) && (size.back() == 'b' || size.back() == 't'))
            return "llama3-" + size;
    }
    return name;
}

bool isMlperfV3TrainingFolder(const fs::path& dir) {
    return dir.filename() == "run" && dir.parent_path().parent_path().filename() == "training";
}

std::string benchmarkTypeName(BenchmarkType t) { return t == BenchmarkType::Checkpointing ? "checkpointing" : "training"; }

std::string statusName(InvocationStatus s) {
    switch (s) {
    case InvocationStatus::Complete: return "complete";
    case InvocationStatus::Incomplete: return "incomplete";
    case InvocationStatus::Cancelled: return "cancelled";
    case InvocationStatus::Failed: return "failed";
    }
    return "unknown";
}

bool looksLikeRunFolder(const std::string& name) {
    const std::string n = lower(name);
    std::size_t i = 0;
    if (n.rfind("run", 0) == 0) {
        i = 3;
        if (i < n.size() && (n[i] == '-' || n[i] == '_' || n[i] == ' ')) ++i;
        return i < n.size() && std::all_of(n.begin() + static_cast<long>(i), n.end(),
                                           [](unsigned char c) { return std::isdigit(c); });
    }
    // Timestamps: at least 8 digits, only digits and separators.
    std::size_t digits = 0;
    for (char c : n) {
        if (std::isdigit(static_cast<unsigned char>(c))) ++digits;
        else if (c != '-' && c != '_' && c != ':' && c != 't' && c != '.') return false;
    }
    return digits >= 8;
}

bool naturalLess(const std::string& a, const std::string& b) {
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
            std::size_t ie = i, je = j;
            while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
            while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
            std::string na = a.substr(i, ie - i), nb = b.substr(j, je - j);
            na.erase(0, std::min(na.find_first_not_of('0'), na.size()));
            nb.erase(0, std::min(nb.find_first_not_of('0'), nb.size()));
            if (na.size() != nb.size()) return na.size() < nb.size();
            if (na != nb) return na < nb;
            i = ie;
            j = je;
        } else {
            if (a[i] != b[j]) return a[i] < b[j];
            ++i;
            ++j;
        }
    }
    return a.size() - i < b.size() - j;
}

// MLPerf Storage v3.0 training keeps the warm-up beside the five measured runs:
// <system>/training/<model>/run/<YYYYMMDD_HHMMSS>/. mlpstorage finds it as its report generator does
// (mlpstorage_py/report_generator.py, ReportGenerator._process_single_run and
// _process_workload_groups; Rules.md 2.1.17): tier 1, two runs with the same summary "start" (the
// retired --loops orchestrator stamped the warm-up with the first real run's start) — the one whose
// folder name sorts first is the warm-up; tier 2, when tier 1 finds none, a folder of exactly six
// invocations — the one whose folder name sorts first (the earliest timestamp) is the warm-up.
template <typename Place>
void markV3Warmups(std::vector<InvocationRecord>& runs, const std::vector<Place>& places) {
    std::map<fs::path, std::vector<std::size_t>> folders;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const fs::path& dir = places[i].groupDir;
        if (places[i].kind != GroupKind::Folder || runs[i].type != BenchmarkType::Training || runs[i].warmup) continue;
        if (!isMlperfV3TrainingFolder(dir)) continue;
        folders[dir].push_back(i);
    }
    for (const auto& [dir, members] : folders) {
        bool found = false;
        for (std::size_t a = 0; a < members.size(); ++a)
            for (std::size_t b = a + 1; b < members.size(); ++b) {
                auto& ra = runs[members[a]];
                auto& rb = runs[members[b]];
                if (ra.start.empty() || ra.start != rb.start) continue;
                auto& warm = ra.runName < rb.runName ? ra : rb;
                const auto& real = ra.runName < rb.runName ? rb : ra;
                warm.warmup = found = true;
                warm.notes.push_back("warm-up: same summary start as " + real.runName +
                                     " (mlpstorage: the earlier folder of two with one start is the warm-up)");
            }
        if (found || members.size() != 6) continue;
        const std::size_t first = *std::min_element(members.begin(), members.end(), [&](std::size_t x, std::size_t y) {
            return runs[x].runName < runs[y].runName;
        });
        runs[first].warmup = true;
        runs[first].notes.push_back("warm-up: the earliest of the six timestamped runs (mlpstorage, Rules.md 2.1.17)");
    }
}

ImportResult importResults(const std::vector<fs::path>& roots, const ImportOptions& options) {
    ImportResult result;
    std::vector<Found> found;
    std::vector<fs::path> sweepFiles; // sweep.json files below the roots
    // One run folder reached twice — the same root given twice, a symlink, a root inside another — is
    // imported once: summaries are keyed by their folder with symlinks resolved.
    std::map<fs::path, fs::path> seen; // canonical summary → the spelling kept
    // A file's identity: its path with symlinks resolved (the spelling itself when that fails).
    auto canonicalKey = [](const fs::path& p) {
        std::error_code cec;
        fs::path key = fs::weakly_canonical(p, cec);
        return cec ? p : key;
    };
    auto addFound = [&](const fs::path& p, const fs::path& canonicalRoot, const std::string& rootName, const fs::path& absRoot) {
        auto [it, fresh] = seen.emplace(canonicalKey(p), p);
        if (fresh) found.push_back({p, canonicalRoot, rootName, absRoot});
        else if (it->second != p) result.duplicates.push_back({p.parent_path(), it->second.parent_path()});
    };

    for (const auto& given : roots) {
        std::error_code ec;
        // A sweep's sweep.json stands for its folder: the sweep and its trials.
        const fs::path root = given.filename() == "sweep.json" && fs::is_regular_file(given, ec) ? fs::absolute(given).parent_path() : given;
        if (!fs::exists(fs::symlink_status(root, ec))) {
            result.skipped.push_back({root, "no such file or folder"});
            continue;
        }
        fs::path canonicalRoot = fs::weakly_canonical(root, ec);
        if (ec) canonicalRoot = fs::absolute(root);
        const fs::path absRoot = fs::absolute(root).lexically_normal();
        if (fs::is_regular_file(root, ec)) {
            const fs::path parent = absRoot.parent_path();
            addFound(absRoot, fs::weakly_canonical(parent, ec), parent.filename().string(), parent);
            continue;
        }
        std::string rootName = absRoot.filename().string();
        if (rootName.empty()) rootName = absRoot.parent_path().filename().string();
        // Directory symlinks are not followed: they can leave the tree or loop.
        fs::recursive_directory_iterator it(absRoot, fs::directory_options::skip_permission_denied, ec), end;
        if (ec) {
            result.skipped.push_back({root, "cannot list folder: " + ec.message()});
            continue;
        }
        bool depthNoted = false;
        for (; it != end; it.increment(ec)) {
            if (ec) {
                result.skipped.push_back({it->path(), "cannot list folder: " + ec.message()});
                ec.clear();
                continue;
            }
            // Result trees are a few levels deep; a pathological one must not make the walk unbounded.
            if (it.depth() >= options.maxFolderDepth && it->is_directory(ec) && !it->is_symlink(ec)) {
                it.disable_recursion_pending();
                if (!depthNoted)
                    result.skipped.push_back({it->path(), "folder nested deeper than " +
                                                              std::to_string(options.maxFolderDepth) +
                                                              " levels below the imported root; not searched"});
                depthNoted = true;
                continue;
            }
            if (it->path().filename() == "sweep.json" && it->is_regular_file(ec)) {
                sweepFiles.push_back(it->path().lexically_normal());
                continue;
            }
            if (it->path().filename() == store::kJournalName && it->is_regular_file(ec) && !it->is_symlink(ec)) {
                // A run folder with a journal and no summary.json: a run that died (read back as interrupted,
                // its DLIO files written from the journal: store/journal.h), or one still running (skipped).
                const fs::path runDir = it->path().parent_path();
                if (store::isInterrupted(runDir)) {
                    try {
                        store::completeInterrupted(runDir);
                        addFound((runDir / "summary.json").lexically_normal(), canonicalRoot, rootName, absRoot);
                    } catch (const std::exception& e) {
                        result.skipped.push_back({runDir, std::string("an interrupted run whose journal could not be read back: ") + e.what()});
                    }
                } else if (store::isRunning(runDir)) {
                    result.skipped.push_back({runDir, "a run is still writing this folder (not imported until it ends)"});
                }
                continue;
            }
            if (it->path().filename() != "summary.json") continue;
            if (it->is_directory(ec)) continue;
            const fs::path p = it->path().lexically_normal();
            addFound(p, canonicalRoot, rootName, absRoot);
        }
    }
    result.summariesFound = found.size();

    // Sweeps (trainio-cli sweep): each sweep.json once, however many roots reach it.
    std::set<fs::path> sweepsSeen;
    for (const auto& f : sweepFiles) {
        if (!sweepsSeen.insert(canonicalKey(f)).second) continue;
        try {
            result.sweeps.push_back(readSweepJson(f));
        } catch (const std::exception& e) {
            result.skipped.push_back({f, e.what()});
        }
    }

    // Read every summary; collect host summaries per run folder.
    struct PendingRun {
        fs::path runDir;
        fs::path canonicalRoot;
        std::string importRootName;
        fs::path root;
        std::vector<HostSummary> hosts;
    };
    std::map<fs::path, PendingRun> pending;
    for (const auto& f : found) {
        std::string why;
        if (!safeToRead(f.summary, f.canonicalRoot, why)) {
            result.skipped.push_back({f.summary, why});
            continue;
        }
        auto text = readBoundedFile(f.summary, options.maxFileBytes, why);
        if (!text) {
            result.skipped.push_back({f.summary, why});
            continue;
        }
        auto j = parseBoundedJson(*text, options.maxJsonDepth, why);
        if (!j) {
            result.skipped.push_back({f.summary, why});
            continue;
        }
        HostSummary hs;
        hs.file = f.summary;
        if (!parseSummary(*j, hs, why)) {
            result.skipped.push_back({f.summary, why});
            continue;
        }
        const fs::path dir = f.summary.parent_path();
        fs::path runDir = dir;
        // <run>/<host>/summary.json (multi-host layout of the earlier MLPerf Storage scripts).
        if (!looksLikeRunFolder(dir.filename().string()) && !isWarmupName(dir.filename().string()) &&
            dir.has_parent_path() && looksLikeRunFolder(dir.parent_path().filename().string())) {
            runDir = dir.parent_path();
        }
        auto& pr = pending[runDir];
        pr.runDir = runDir;
        pr.canonicalRoot = f.canonicalRoot;
        pr.importRootName = f.importRootName;
        pr.root = f.root;
        pr.hosts.push_back(std::move(hs));
    }

    // Build invocations.
    struct RunPlace {
        fs::path groupDir;
        std::string importRootName;
        fs::path root;
        fs::path canonicalRoot;
        RunConfig config;       // for the step records (ImportOptions::stepDigests)
        bool oneHostFolder = true; // the run's summary.json is in the run folder itself
        GroupKind kind = GroupKind::Folder;
        std::size_t plannedRuns = 0;
        std::string manifestStatus, manifestReason;
    };
    std::vector<RunPlace> places;
    ManifestCache manifests;
    for (auto& [runDir, pr] : pending) {
        std::sort(pr.hosts.begin(), pr.hosts.end(), [](const HostSummary& a, const HostSummary& b) { return a.file < b.file; });
        InvocationRecord r;
        r.path = runDir;
        r.runName = runDir.filename().string();
        const HostSummary& first = pr.hosts.front();
        bool consistent = true;
        for (const auto& h : pr.hosts) {
            r.summaryFiles.push_back(h.file);
            r.accelerators += h.accelerators;
            r.samplesPerSecond += h.sps;
            r.mbPerSecond += h.mbps;
            r.hostMemoryGiB += h.hostMemoryGiB;
            r.hostnames.push_back(h.hostname);
            for (const auto& n : h.notes)
                if (std::find(r.notes.begin(), r.notes.end(), n) == r.notes.end()) r.notes.push_back(n);
            consistent = consistent && h.checkpoint == first.checkpoint && h.filesTrain == first.filesTrain && h.samplesPerFile == first.samplesPerFile &&
                         h.epochAu.size() == first.epochAu.size() && h.epochSps.size() == first.epochSps.size();
        }
        if (!consistent) {
            for (const auto& h : pr.hosts)
                result.skipped.push_back({h.file, "the host summaries of run " + runDir.string() +
                                                      " disagree on files, samples per file or epochs"});
            continue;
        }
        const double hosts = static_cast<double>(pr.hosts.size());
        r.filesTrain = first.filesTrain;
        r.samplesPerFile = first.samplesPerFile;
        r.epochs = first.epochs;
        r.start = first.start;
        r.end = first.end;
        r.auMeetExpectation = first.meet;
        if (first.checkpoint) {
            r.type = BenchmarkType::Checkpointing;
            r.checkpointWriteGiBps = first.saveGiBps;
            r.checkpointWriteSeconds = first.saveSeconds;
            r.checkpointReadGiBps = first.loadGiBps;
            r.checkpointReadSeconds = first.loadSeconds;
            r.checkpointSizeGiB = first.sizeGiB;
            if (pr.hosts.size() > 1) r.notes.push_back("checkpointing run of several host folders: the first host's numbers are used");
        }
        if (pr.hosts.size() == 1) {
            r.numHosts = first.numHosts;
            r.auMeanPercent = first.au;
            r.auStdevPercent = first.auStdev;
            r.samplesPerSecondStdev = first.spsStdev;
            r.mbPerSecondStdev = first.mbpsStdev;
            r.epochAuPercent = first.epochAu;
            r.epochSamplesPerSecond = first.epochSps;
        } else {
            // Hosts are ranks of one job: AU averages, throughput adds up.
            r.numHosts = static_cast<std::int64_t>(pr.hosts.size());
            r.notes.push_back("run of " + std::to_string(pr.hosts.size()) + " host folders: throughput summed, AU averaged");
            r.epochAuPercent.assign(first.epochAu.size(), 0.0);
            r.epochSamplesPerSecond.assign(first.epochSps.size(), 0.0);
            for (const auto& h : pr.hosts) {
                r.auMeanPercent += h.au / hosts;
                if (h.meet == "fail") r.auMeetExpectation = "fail";
                if (h.start < r.start) r.start = h.start;
                if (h.end > r.end) r.end = h.end;
                for (std::size_t e = 0; e < h.epochAu.size(); ++e) r.epochAuPercent[e] += h.epochAu[e] / hosts;
                for (std::size_t e = 0; e < h.epochSps.size(); ++e) r.epochSamplesPerSecond[e] += h.epochSps[e];
            }
            r.auStdevPercent = r.samplesPerSecondStdev = r.mbPerSecondStdev = NAN;
        }
        std::vector<fs::path> configDirs{first.file.parent_path()};
        if (runDir != first.file.parent_path()) configDirs.push_back(runDir);
        RunConfig rc = readRunConfig(configDirs, pr.canonicalRoot, boundsOf(options));
        r.model = rc.model;
        r.accelerator = rc.accelerator;
        readMetadata(runDir, pr.canonicalRoot, options, r);
        if (r.type == BenchmarkType::Checkpointing) {
            checkpointModel(runDir, rc.workload, r.model, r.accelerator);
            if (r.accelerator.empty()) r.accelerator = r.metadataAccelerator;
            auto count = [&](const char* key) -> std::int64_t {
                auto it = rc.merged.find(key);
                const auto d = it == rc.merged.end() ? std::nullopt : parseFiniteNumber(it->second);
                return d && *d >= 0 ? static_cast<std::int64_t>(*d) : -1;
            };
            r.checkpointsWritten = count("checkpoint.num_checkpoints_write");
            r.checkpointsRead = count("checkpoint.num_checkpoints_read");
            if (auto it = rc.merged.find("checkpoint.mode"); it != rc.merged.end()) r.checkpointMode = it->second;
        }
        r.recordLengthBytes = rc.recordLength;
        r.overrides = rc.overrides;
        for (const auto& n : rc.notes) r.notes.push_back(n);
        if (r.model.empty()) r.notes.push_back("no configs/overrides.yaml or config.yaml names the workload");
        if (rc.auFraction) {
            r.auThresholdPercent = *rc.auFraction * 100.0;
            r.auThresholdSource = "metric.au in config.yaml";
        } else if (auto known = knownAuThreshold(r.model)) {
            r.auThresholdPercent = known;
            r.auThresholdSource = std::string(r.model == "retinanet" ? "MLPerf Storage v3.0" : "MLPerf Storage v1.0") +
                                  " threshold for " + r.model;
        }
        r.resolved.assign(rc.merged.begin(), rc.merged.end());
        r.configFile = rc.configFile;
        r.workloadOverride = rc.workload;
        auto cfgValue = [&](std::initializer_list<const char*> keys) -> std::string {
            for (const char* k : keys)
                if (auto it = rc.merged.find(k); it != rc.merged.end()) return it->second;
            return {};
        };
        r.format = cfgValue({"dataset.format"});
        if (auto d = parseFiniteNumber(cfgValue({"dataset.record_length_bytes_stdev", "dataset.record_length_stdev"}))) r.recordLengthStdevBytes = *d;
        if (auto d = parseFiniteNumber(cfgValue({"reader.batch_size"})); d && *d > 0) r.batchSize = static_cast<std::int64_t>(*d);
        if (auto d = parseFiniteNumber(cfgValue({"train.epochs"})); d && *d > 0) r.plannedEpochs = static_cast<std::int64_t>(*d);
        {
            std::error_code cec;
            r.canonicalPath = fs::weakly_canonical(runDir, cec);
            if (cec) r.canonicalPath = runDir;
        }

        // Status: TrainIO says so in trainio_run.json; otherwise a summary with fewer epochs than the
        // config asked for is incomplete.
        const TrainioRun tr = trainioRunStatus(runDir, pr.canonicalRoot, options);
        r.status = tr.status;
        r.statusReason = tr.reason;
        r.warnings = tr.warnings;
        readTrainioIo(runDir, pr.canonicalRoot, options, r);
        readModelPrediction(runDir, pr.canonicalRoot, options, r);
        readTelemetry(runDir, pr.canonicalRoot, options, r);
        const auto measuredEpochs = static_cast<std::int64_t>(std::max(r.epochAuPercent.size(), r.epochSamplesPerSecond.size()));
        if (r.type == BenchmarkType::Training && r.status == InvocationStatus::Complete && r.plannedEpochs > 0 &&
            measuredEpochs < r.plannedEpochs) {
            r.status = InvocationStatus::Incomplete;
            r.statusReason = "measured " + std::to_string(measuredEpochs) + " of " + std::to_string(r.plannedEpochs) +
                             " configured epochs (train.epochs)";
        }

        std::string labelWhy;
        r.labels = labelsFor(runDir, pr.root, &labelWhy);
        if (!labelWhy.empty()) r.notes.push_back(labelWhy + " (labels ignored)");
        const Identity id = identityOf(r);
        r.workloadKey = id.workloadKey;
        r.benchmarkKey = id.benchmarkKey;
        r.workloadTitle = id.workloadTitle;

        // Where the invocation belongs: the benchmark whose manifest names it; else, for a TrainIO run
        // outside any manifest, nowhere (a run once is its own item); else the folder holding the run
        // folders (warm-ups: <benchmark>/warmup[/<x>] belongs to <benchmark>/runs when that exists).
        std::vector<std::string> manifestNotes;
        bool manifestNearby = false;
        const auto place = manifestFor(runDir, pr.root, manifestNotes, manifestNearby, manifests);
        for (auto& n : manifestNotes) r.notes.push_back(std::move(n));
        RunPlace rp;
        rp.importRootName = pr.importRootName;
        rp.root = pr.root;
        rp.canonicalRoot = pr.canonicalRoot;
        rp.oneHostFolder = pr.hosts.size() == 1 && first.file.parent_path() == runDir;
        if (options.stepDigests) rp.config = std::move(rc);
        if (place) {
            r.manifest = place->benchmarkDir / kBenchmarkManifestName;
            r.warmup = place->warmup;
            rp.kind = GroupKind::Manifest;
            std::error_code ec;
            rp.groupDir = fs::is_directory(place->benchmarkDir / "runs", ec) ? place->benchmarkDir / "runs" : place->benchmarkDir;
            rp.plannedRuns = place->manifest.plannedRuns;
            rp.manifestStatus = place->manifest.status;
            rp.manifestReason = place->manifest.reason;
        } else {
            rp.groupDir = runDir.parent_path();
            for (const fs::path& candidate : {runDir, runDir.parent_path()}) {
                if (isWarmupName(candidate.filename().string())) {
                    r.warmup = true;
                    std::error_code ec;
                    const fs::path runs = candidate.parent_path() / "runs";
                    rp.groupDir = fs::is_directory(runs, ec) ? runs : candidate.parent_path();
                    break;
                }
            }
            // TrainIO benchmarks written before manifests existed keep their runs/ + warmup/ layout.
            // A run a manifest beside it does not name is not one of that benchmark's.
            // So do TrainIO's MLPerf Storage v3.0 trees (benchmark --layout mlperf-v3) without their manifest:
            // they import as the published ones do.
            const fs::path parent = runDir.parent_path();
            const bool v3Tree = isMlperfV3TrainingFolder(parent) || parent.parent_path().filename() == "checkpointing";
            const bool oldBenchmark = !manifestNearby && (r.warmup || parent.filename() == "runs" || v3Tree);
            if (tr.present && !oldBenchmark) {
                r.runOnce = true;
                rp.kind = GroupKind::Single;
                rp.groupDir = runDir;
            }
        }
        places.push_back(std::move(rp));
        result.runs.push_back(std::move(r));
    }

    markV3Warmups(result.runs, places);

    // Group: a manifest's invocations by the manifest; a run once alone; the rest by (folder, benchmark identity).
    struct GroupKey {
        fs::path dir;
        std::string benchmarkKey;
        auto operator<=>(const GroupKey&) const = default;
    };
    std::map<GroupKey, std::size_t> index;
    for (std::size_t i = 0; i < result.runs.size(); ++i) {
        const auto& r = result.runs[i];
        const RunPlace& rp = places[i];
        const GroupKey key{rp.groupDir, rp.kind == GroupKind::Folder ? r.benchmarkKey : std::string()};
        auto it = index.find(key);
        if (it == index.end()) {
            RunGroup g;
            g.path = rp.groupDir;
            g.type = r.type;
            g.kind = rp.kind;
            g.plannedRuns = rp.plannedRuns;
            g.identity = WorkloadIdentity{r.model, r.accelerator, r.accelerators, r.filesTrain, r.samplesPerFile,
                                          r.workloadKey, r.benchmarkKey};
            // System: the labels' system name; else <org>/results/<system>/… beside <org>/systems/, as
            // MLPerf submissions are laid out; else the user's label or the imported folder's name.
            g.system = r.labels.system;
            g.systemDescription = r.labels.description;
            for (fs::path a = g.path; a.has_parent_path() && a != a.parent_path(); a = a.parent_path()) {
                if (a.parent_path().filename() == "results") {
                    if (g.system.empty()) g.system = a.filename().string();
                    std::error_code ec;
                    for (const char* ext : {".json", ".yaml", ".yml"}) {
                        const fs::path sys = a.parent_path().parent_path() / "systems" / (a.filename().string() + ext);
                        if (fs::is_regular_file(sys, ec)) {
                            g.systemFile = sys;
                            if (g.systemDescription.empty()) g.systemDescription = describeSystemFile(sys);
                            break;
                        }
                    }
                    break;
                }
            }
            if (g.system.empty()) g.system = !options.systemLabel.empty() ? options.systemLabel : rp.importRootName;
            std::string labelWhy;
            g.labels = rp.kind == GroupKind::Single ? r.labels : labelsFor(g.path.filename() == "runs" ? g.path.parent_path() : g.path, rp.root, &labelWhy);
            std::error_code ec;
            for (const fs::path& rep : {g.path / "mlperf_storage_report.json",
                                        g.path.filename() == "runs" ? g.path.parent_path() / "mlperf_storage_report.json" : fs::path(),
                                        fs::path()}) {
                if (!rep.empty() && fs::is_regular_file(rep, ec)) {
                    g.existingReport = rep;
                    break;
                }
            }
            it = index.emplace(key, result.groups.size()).first;
            result.groups.push_back(std::move(g));
        }
        auto& g = result.groups[it->second];
        // mlpstorage's own record of the clients (any run's *_metadata.json): after what the labels or the
        // systems file say about the storage, since it describes only the hosts.
        if (!r.systemInfo.empty() && g.systemDescription.find(r.systemInfo) == std::string::npos)
            g.systemDescription += (g.systemDescription.empty() ? "" : "\n") + r.systemInfo;
        if (r.warmup) g.warmups.push_back(i);
        else if (r.status == InvocationStatus::Complete) g.runs.push_back(i);
        else g.excluded.push_back(i);
    }
    for (std::size_t gi = 0; gi < result.groups.size(); ++gi) {
        auto& g = result.groups[gi];
        auto byName = [&](std::size_t a, std::size_t b) { return naturalLess(result.runs[a].runName, result.runs[b].runName); };
        std::sort(g.runs.begin(), g.runs.end(), byName);
        std::sort(g.warmups.begin(), g.warmups.end(), byName);
        std::sort(g.excluded.begin(), g.excluded.end(), byName);
        // A benchmark is complete when every run it planned is; what is missing is said.
        std::string manifestStatus, manifestReason;
        for (std::size_t i = 0; i < places.size(); ++i)
            if (places[i].kind == GroupKind::Manifest && places[i].groupDir == g.path) { // the manifest's own status
                manifestStatus = places[i].manifestStatus;
                manifestReason = places[i].manifestReason;
                break;
            }
        const std::size_t complete = g.runs.size();
        std::string why;
        for (std::size_t i : g.excluded)
            why += (why.empty() ? "" : "; ") + result.runs[i].runName + " " + statusName(result.runs[i].status) + ": " + result.runs[i].statusReason;
        if (g.kind == GroupKind::Single) {
            const std::size_t only = !g.runs.empty() ? g.runs.front() : !g.excluded.empty() ? g.excluded.front() : g.warmups.front();
            g.status = result.runs[only].status;
            g.statusReason = result.runs[only].statusReason;
        } else if (complete == 0) {
            g.status = InvocationStatus::Incomplete;
            g.statusReason = "no complete measured run" + (why.empty() ? std::string() : " (" + why + ")");
            for (std::size_t i : g.excluded)
                if (result.runs[i].status == InvocationStatus::Failed || result.runs[i].status == InvocationStatus::Cancelled) {
                    g.status = result.runs[i].status;
                    break;
                }
        } else if (g.plannedRuns > 0 && complete < g.plannedRuns) {
            g.status = InvocationStatus::Incomplete;
            g.statusReason = std::to_string(complete) + " of " + std::to_string(g.plannedRuns) + " planned runs complete";
            if (!why.empty()) g.statusReason += " (" + why + ")";
            else if (manifestStatus == "running") g.statusReason += " (the benchmark was interrupted or is still running)";
            else if (!manifestReason.empty()) g.statusReason += " (" + manifestReason + ")";
        } else if (!g.excluded.empty()) {
            g.status = InvocationStatus::Incomplete;
            g.statusReason = std::to_string(g.excluded.size()) + " measured run(s) not complete, excluded: " + why;
        }
    }
    // The per-step records of every complete measured run, summarised for the report, when asked for: read
    // here (the GUI imports in a worker thread), so that the report never reads a run folder itself.
    if (options.stepDigests) {
        for (const auto& g : result.groups) {
            if (g.type != BenchmarkType::Training) continue;
            for (std::size_t i : g.runs) {
                InvocationRecord& r = result.runs[i];
                const RunPlace& rp = places[i];
                r.stepsRead = true;
                if (!rp.oneHostFolder || !hasStepRecords(r.path)) continue;
                try {
                    r.steps = std::make_shared<const StepDigest>(
                        digestStepRecords(readStepRecords(r.path, rp.canonicalRoot, boundsOf(options), &rp.config)));
                } catch (const std::exception& e) { // InputError naming the file; a folder that cannot be listed
                    r.stepsError = e.what();
                }
            }
        }
    }
    // Runs of one benchmark that differ in settings that cannot change what is measured: listed, not split.
    for (auto& g : result.groups) {
        std::vector<std::size_t> members(g.runs);
        members.insert(members.end(), g.excluded.begin(), g.excluded.end());
        for (std::size_t m = 1; m < members.size(); ++m)
            for (const auto& d : settingDifferences(result.runs[members.front()], result.runs[members[m]]))
                g.settingDifferences.push_back(d + " (" + result.runs[members.front()].runName + " vs " +
                                               result.runs[members[m]].runName + ")");
    }
    // Runs of one folder that are not one benchmark: say what differs, never average them.
    for (std::size_t gi = 0; gi < result.groups.size(); ++gi) {
        auto& g = result.groups[gi];
        if (g.kind != GroupKind::Folder) continue;
        for (std::size_t gj = 0; gj < result.groups.size(); ++gj) {
            const auto& o = result.groups[gj];
            if (gj == gi || o.kind != GroupKind::Folder || o.path != g.path) continue;
            auto firstOf = [&](const RunGroup& x) {
                return !x.runs.empty() ? x.runs.front() : !x.excluded.empty() ? x.excluded.front() : x.warmups.front();
            };
            for (const auto& d : identityDifferences(result.runs[firstOf(g)], result.runs[firstOf(o)]))
                g.differences.push_back(d + " (here vs " + result.runs[firstOf(o)].runName + ")");
        }
    }
    std::sort(result.groups.begin(), result.groups.end(), [](const RunGroup& a, const RunGroup& b) {
        return std::tie(a.path, a.identity) < std::tie(b.path, b.identity);
    });
    std::sort(result.skipped.begin(), result.skipped.end(),
              [](const SkippedFile& a, const SkippedFile& b) { return a.path < b.path; });
    return result;
}

} // namespace trainio::aggregate
