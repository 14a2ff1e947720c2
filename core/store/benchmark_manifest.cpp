#include "store/benchmark_manifest.h"

#include "util/errors.h"

#include <nlohmann/json.hpp>

namespace trainio::store {

namespace fs = std::filesystem;

void writeBenchmarkManifest(const fs::path& benchmarkDir, const BenchmarkManifest& m, IoBackend* io, WrittenFiles* record) {
    nlohmann::ordered_json j;
    j["format"] = "trainio-benchmark";
    j["version"] = 1;
    j["status"] = m.status;
    j["reason"] = m.reason;
    j["planned_runs"] = m.plannedRuns;
    j["planned_warmups"] = m.plannedWarmups;
    j["warmups"] = m.warmups;
    j["runs"] = m.runs;
    j["accelerators"] = m.accelerators;
    j["system"] = m.system;
    j["started"] = m.started;
    j["ended"] = m.ended;
    writeFileAtomic(benchmarkDir / kBenchmarkManifestFile, j.dump(2) + "\n", io, record);
}

std::optional<BenchmarkManifest> readBenchmarkManifest(const fs::path& benchmarkDir, const fs::path& canonicalRoot,
                                                       const FileSource& files) {
    const fs::path file = benchmarkDir / kBenchmarkManifestFile;
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(file, ec))) return std::nullopt;
    const ReadBounds bounds;
    const auto j = std::optional<nlohmann::json>(
        files.jsonOrThrow(file, canonicalRoot.empty() ? treeOf(benchmarkDir) : canonicalRoot, bounds.maxFileBytes, bounds.maxJsonDepth));
    auto bad = [&](const std::string& key, const std::string& expected) {
        return InputError(file.string() + ": " + key + ": expected " + expected);
    };
    if (!j->is_object() || j->value("format", std::string()) != "trainio-benchmark")
        throw bad("format", "\"trainio-benchmark\"");
    BenchmarkManifest m;
    auto str = [&](const char* key, std::string& out) {
        if (!j->contains(key)) return;
        if (!(*j)[key].is_string()) throw bad(key, "a string");
        out = (*j)[key].get<std::string>();
    };
    auto whole = [&](const char* key, std::uint64_t& out) {
        if (!j->contains(key)) return;
        if (!(*j)[key].is_number_unsigned()) throw bad(key, "a whole number >= 0");
        out = (*j)[key].get<std::uint64_t>();
    };
    auto list = [&](const char* key, std::vector<std::string>& out) {
        if (!j->contains(key)) return;
        if (!(*j)[key].is_array()) throw bad(key, "an array of folder names");
        for (const auto& v : (*j)[key]) {
            if (!v.is_string()) throw bad(key, "an array of folder names");
            const fs::path rel = v.get<std::string>();
            // Names inside the benchmark folder only: a manifest never pulls in folders from elsewhere.
            if (rel.empty() || rel.is_absolute() || rel.lexically_normal().string().rfind("..", 0) == 0)
                throw bad(key, "folders inside the benchmark folder, got \"" + rel.string() + "\"");
            out.push_back(rel.lexically_normal().generic_string());
        }
    };
    str("status", m.status);
    str("reason", m.reason);
    whole("planned_runs", m.plannedRuns);
    whole("planned_warmups", m.plannedWarmups);
    list("warmups", m.warmups);
    list("runs", m.runs);
    whole("accelerators", m.accelerators);
    str("system", m.system);
    str("started", m.started);
    str("ended", m.ended);
    return m;
}

} // namespace trainio::store
