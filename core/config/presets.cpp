#include "config/config_internal.h"
#include "trainio_source_dir.h"
#include "config/config_loader.h"
#include "config/config_schema.h"
#include "util/errors.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace fs = std::filesystem;

namespace trainio {

namespace {

fs::path executableDir() {
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : exe.parent_path();
}

bool isDir(const fs::path& p) {
    std::error_code ec;
    return !p.empty() && fs::is_directory(p, ec);
}

} // namespace

std::string presetDirectory() {
    if (const char* env = std::getenv("TRAINIO_PRESET_DIR"); env && *env) return env;
    // Installed layout: <prefix>/bin/trainio-cli and <prefix>/share/trainio/presets.
    if (fs::path exe = executableDir(); !exe.empty()) {
        fs::path installed = exe / ".." / "share" / "trainio" / "presets";
        if (isDir(installed)) return fs::weakly_canonical(installed).string();
    }
    return std::string(TRAINIO_SOURCE_DIR) + "/resources/presets";
}

std::vector<std::string> presetNames() {
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(presetDirectory(), ec), end; !ec && it != end; it.increment(ec)) {
        if (it->path().extension() == ".yaml" && it->is_regular_file(ec)) names.push_back(it->path().stem().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

LoadedConfig loadPreset(const std::string& name, const std::vector<std::string>& overrides) {
    const auto names = presetNames();
    if (std::find(names.begin(), names.end(), name) == names.end()) {
        std::string nearest;
        std::size_t best = std::string::npos;
        for (const auto& n : names) {
            auto dist = config_schema::editDistance(name, n);
            if (dist < best) best = dist, nearest = n;
        }
        std::string msg = name + ": no such preset in " + presetDirectory() + ": expected one of " +
                          (names.empty() ? std::string("(none found)") : config_detail::joinNames(names));
        if (!nearest.empty() && best <= 3) msg += " (did you mean " + nearest + "?)";
        throw InputError(msg);
    }
    LoadedConfig loaded = loadWorkloadConfig((fs::path(presetDirectory()) / (name + ".yaml")).string(), overrides);
    return loaded;
}

LoadedConfig loadConfigOrPreset(const std::string& pathOrPreset, const std::vector<std::string>& overrides) {
    std::error_code ec;
    if (fs::exists(pathOrPreset, ec)) return loadWorkloadConfig(pathOrPreset, overrides);
    const auto names = presetNames();
    if (std::find(names.begin(), names.end(), pathOrPreset) != names.end()) return loadPreset(pathOrPreset, overrides);
    // Neither: say both things it could have been.
    throw InputError(pathOrPreset + ": cannot read the workload configuration: " + errnoText(ENOENT) +
                     "; expected a DLIO workload YAML/JSON file or a preset name (" +
                     (names.empty() ? std::string("none found") : config_detail::joinNames(names)) + ")");
}

} // namespace trainio
