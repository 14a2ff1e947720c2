#include "session/profile_rival.h"

#include "io/storage_profile.h"

namespace trainio::session {

namespace {
// "<path>-<suffix>", a trailing separator kept where the path had one ("./checkpoints/" → "./checkpoints-hdd/").
std::string suffixed(std::string path, const std::string& suffix) {
    const bool slash = !path.empty() && path.back() == '/';
    while (!path.empty() && path.back() == '/') path.pop_back();
    return path + "-" + suffix + (slash ? "/" : "");
}
} // namespace

ProfileRival profileRival(const WorkloadConfig& base, const std::filesystem::path& output, const std::string& profile) {
    const StorageProfile p = loadStorageProfile(profile); // throws, naming the profile
    ProfileRival r;
    r.profile = p.name;
    r.description = p.description;
    r.config = base;
    r.config.trainio.storage = StorageEmulationSection{};
    r.config.trainio.storage.profile = profile;
    (void)storageShapeFor(r.config.trainio.storage); // the profile's values, checked as a workload's would be
    r.config.workflow.generateData = false;
    if (r.config.workflow.checkpoint) r.config.checkpoint.folder = suffixed(r.config.checkpoint.folder, p.name);
    r.output = suffixed(output.string(), p.name);
    return r;
}

std::string emulatedStorageWords(const WorkloadConfig& config) {
    const StorageEmulationSection& s = config.trainio.storage;
    if (!s.profile.empty()) return "emulated " + std::filesystem::path(s.profile).stem().string();
    return s.any() ? "emulated storage" : "";
}

} // namespace trainio::session
