#include "io/storage_profile.h"
#include "trainio_source_dir.h"

#include "config/config_internal.h"
#include "config/config_schema.h"
#include "util/errors.h"
#include "util/quantity.h"
#include "util/units.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace fs = std::filesystem;

namespace trainio {

namespace {


std::string scalarOrShape(const YAML::Node& v) {
    if (v.IsScalar()) return v.Scalar();
    if (v.IsMap()) return "(a map)";
    if (v.IsSequence()) return "(a list)";
    return "(nothing)";
}

double readNumber(const YAML::Node& v, const std::string& where, const std::string& key, quantity::Kind kind,
                  double max, const std::string& expected) {
    if (!v.IsScalar()) throw InputError(describeProblem(where, key, scalarOrShape(v), expected));
    quantity::Limits limits;
    limits.min = 0;
    limits.max = max;
    const quantity::Result r = quantity::parse(v.Scalar(), kind, limits, expected);
    if (!r.ok()) throw InputError(describeProblem(where, key, v.Scalar(), expected));
    return *r.value;
}

double readMs(const YAML::Node& v, const std::string& where, const std::string& key) {
    return readNumber(v, where, key, quantity::Kind::Real, 1e7,
                      "a number of milliseconds >= 0, e.g. 0.1 or 8");
}

void rejectUnknownKeys(const YAML::Node& map, const std::string& where, const std::string& prefix,
                       const std::vector<std::string>& known) {
    for (const auto& kv : map) {
        const std::string key = kv.first.as<std::string>();
        if (std::find(known.begin(), known.end(), key) != known.end()) continue;
        std::string expected = "one of " + config_detail::joinNames(known);
        for (const auto& k : known)
            if (config_schema::editDistance(key, k) <= 2) expected += " (did you mean " + k + "?)";
        throw InputError(describeProblem(where, "key", prefix + key, expected));
    }
}

LatencyDistribution readLatency(const YAML::Node& v, const std::string& where) {
    LatencyDistribution d;
    if (v.IsScalar()) {
        d.kind = LatencyKind::Constant;
        d.centerMs = readMs(v, where, "latency_ms");
        return d;
    }
    const std::string kinds = "constant, normal, lognormal, exponential or none";
    if (!v.IsMap())
        throw InputError(describeProblem(where, "latency_ms", scalarOrShape(v),
                                         "a number of milliseconds or a map {type: " + kinds + ", …}"));
    const YAML::Node type = v["type"];
    if (!type) throw InputError(describeProblem(where, "latency_ms.type", "(missing)", kinds));
    const std::string t = type.IsScalar() ? type.Scalar() : scalarOrShape(type);
    // The keys each kind takes, the first being its centre (LatencyDistribution::centerMs).
    struct KindKeys {
        const char* name;
        LatencyKind kind;
        std::vector<std::string> keys;
    };
    static const KindKeys table[] = {{"none", LatencyKind::None, {}},
                                     {"constant", LatencyKind::Constant, {"value"}},
                                     {"normal", LatencyKind::Normal, {"mean", "stdev"}},
                                     {"lognormal", LatencyKind::Lognormal, {"median", "sigma"}},
                                     {"exponential", LatencyKind::Exponential, {"mean"}}};
    const auto found =
        std::find_if(std::begin(table), std::end(table), [&](const KindKeys& k) { return t == k.name; });
    if (found == std::end(table)) throw InputError(describeProblem(where, "latency_ms.type", t, kinds));
    d.kind = found->kind;
    const std::vector<std::string>& keys = found->keys;
    std::vector<std::string> known = keys;
    known.push_back("type");
    // The key is `stdev`, as trainio.storage.latency_ms.stdev; profiles of earlier versions said `stddev`:
    // refused by its name, with the key to write instead (docs/emulated-storage.md).
    if (d.kind == LatencyKind::Normal && v["stddev"])
        throw InputError(describeProblem(where, "key", "latency_ms.stddev",
                                         "latency_ms.stdev (the standard deviation's key is spelt stdev, as "
                                         "trainio.storage.latency_ms.stdev)"));
    rejectUnknownKeys(v, where + " (latency_ms of type " + t + ")", "latency_ms.", known);
    for (std::size_t i = 0; i < keys.size(); ++i) {
        const std::string key = "latency_ms." + keys[i];
        const YAML::Node n = v[keys[i]];
        if (!n)
            throw InputError(
                describeProblem(where, key, "(missing)", "a number (required for type " + t + ")"));
        const double x = keys[i] == "sigma"
                             ? readNumber(n, where, key, quantity::Kind::Real, 10,
                                          "a number 0 … 10 (the standard deviation of ln latency)")
                             : readMs(n, where, key);
        (i == 0 ? d.centerMs : d.spread) = x;
    }
    return d;
}

bool readBool(const YAML::Node& v, const std::string& where, const std::string& key) {
    const std::string s = scalarOrShape(v);
    if (v.IsScalar() && (s == "true" || s == "True")) return true;
    if (v.IsScalar() && (s == "false" || s == "False")) return false;
    throw InputError(describeProblem(where, key, s, "true or false"));
}

StorageShape readShape(const YAML::Node& node, const std::string& where, StorageShape s,
                       const std::vector<std::string>& extraKeys) {
    if (!node.IsMap())
        throw InputError(
            describeProblem(where, "", scalarOrShape(node),
                            "a map of bandwidth_mib_s, latency_ms, iops, max_inflight, shape_writes"));
    std::vector<std::string> known = {"bandwidth_mib_s", "latency_ms", "iops", "max_inflight",
                                      "shape_writes"};
    known.insert(known.end(), extraKeys.begin(), extraKeys.end());
    rejectUnknownKeys(node, where, "", known);
    if (const YAML::Node v = node["bandwidth_mib_s"])
        s.bandwidthBytesPerSecond = kMiB * readNumber(v, where, "bandwidth_mib_s", quantity::Kind::Real, 1e9,
                                                      "a number of MiB/s >= 0 (0 = unlimited)");
    if (const YAML::Node v = node["latency_ms"]) s.latency = readLatency(v, where);
    if (const YAML::Node v = node["iops"])
        s.iops = readNumber(v, where, "iops", quantity::Kind::Real, 1e10,
                            "a number of requests per second >= 0 (0 = unlimited)");
    if (const YAML::Node v = node["max_inflight"])
        s.maxInflight = static_cast<unsigned>(readNumber(v, where, "max_inflight", quantity::Kind::Count, 1e6,
                                                         "a whole number 0 … 1000000 (0 = unlimited)"));
    if (const YAML::Node v = node["shape_writes"]) s.shapeWrites = readBool(v, where, "shape_writes");
    validateStorageShape(s, where);
    return s;
}

bool looksLikePath(const std::string& s) {
    std::error_code ec;
    return s.find('/') != std::string::npos || fs::path(s).extension() == ".yaml" ||
           fs::is_regular_file(s, ec);
}

StorageProfile loadFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot read the storage profile: " + errnoText(errno));
    std::stringstream text;
    text << in.rdbuf();
    YAML::Node doc;
    try {
        doc = YAML::Load(text.str());
    } catch (const YAML::ParserException& e) {
        throw InputError(path + ": YAML syntax error at line " + std::to_string(e.mark.line + 1) +
                         ", column " + std::to_string(e.mark.column + 1) + ": " + e.msg);
    }
    if (!doc.IsDefined() || doc.IsNull())
        throw InputError(path +
                         ": the storage profile is empty: expected a map of description, bandwidth_mib_s, "
                         "latency_ms, iops, max_inflight");
    StorageProfile p;
    p.path = path;
    p.name = fs::path(path).stem().string();
    p.shape = readShape(doc, path, {}, {"description"});
    if (const YAML::Node d = doc["description"]) {
        if (!d.IsScalar()) throw InputError(describeProblem(path, "description", scalarOrShape(d), "text"));
        p.description = d.Scalar();
    }
    return p;
}

} // namespace

std::string storageProfileDirectory() {
    if (const char* env = std::getenv("TRAINIO_STORAGE_PROFILE_DIR"); env && *env) return env;
    std::error_code ec;
    // Installed layout: <prefix>/bin/trainio-cli and <prefix>/share/trainio/storage-profiles.
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const fs::path installed = exe.parent_path() / ".." / "share" / "trainio" / "storage-profiles";
        if (fs::is_directory(installed, ec)) return fs::weakly_canonical(installed).string();
    }
    return std::string(TRAINIO_SOURCE_DIR) + "/resources/storage-profiles";
}

std::vector<std::string> storageProfileNames() {
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(storageProfileDirectory(), ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".yaml" && it->is_regular_file(ec))
            names.push_back(it->path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

StorageProfile loadStorageProfile(const std::string& nameOrPath) {
    if (looksLikePath(nameOrPath)) return loadFile(nameOrPath);
    const std::vector<std::string> names = storageProfileNames();
    if (std::find(names.begin(), names.end(), nameOrPath) == names.end()) {
        std::string msg = nameOrPath + ": no such storage profile in " + storageProfileDirectory() +
                          ": expected one of " +
                          (names.empty() ? std::string("(none found)") : config_detail::joinNames(names)) +
                          " or the path of a profile file";
        for (const auto& n : names)
            if (config_schema::editDistance(nameOrPath, n) <= 2) msg += " (did you mean " + n + "?)";
        throw InputError(msg);
    }
    return loadFile((fs::path(storageProfileDirectory()) / (nameOrPath + ".yaml")).string());
}

StorageShape parseStorageShape(const YAML::Node& node, const std::string& where, StorageShape base) {
    return readShape(node, where, base, {"profile"});
}

namespace {

LatencyDistribution latencyFor(const LatencySpec& l) {
    LatencyDistribution d;
    if (l.type == "constant") {
        d.kind = LatencyKind::Constant;
        d.centerMs = l.value;
    } else if (l.type == "normal") {
        d.kind = LatencyKind::Normal;
        d.centerMs = l.mean;
        d.spread = l.stdev;
    } else if (l.type == "lognormal") {
        d.kind = LatencyKind::Lognormal;
        d.centerMs = l.median;
        d.spread = l.sigma;
    } else if (l.type == "exponential") {
        d.kind = LatencyKind::Exponential;
        d.centerMs = l.mean;
    }
    return d;
}


} // namespace

StorageShape storageShapeFor(const StorageEmulationSection& s) {
    StorageShape shape = s.profile.empty() ? StorageShape{} : loadStorageProfile(s.profile).shape;
    if (s.bandwidthMiBs > 0) shape.bandwidthBytesPerSecond = s.bandwidthMiBs * 1048576.0;
    if (s.latencyMs.type != "none") shape.latency = latencyFor(s.latencyMs);
    if (s.iops > 0) shape.iops = s.iops;
    if (s.maxInflight > 0) shape.maxInflight = static_cast<unsigned>(s.maxInflight);
    validateStorageShape(shape, "trainio.storage");
    return shape;
}

} // namespace trainio
