#include "store/written_files.h"

#include <regex>

namespace fs = std::filesystem;

namespace trainio::store {

namespace {

bool isStepRecordFile(const std::string& name) {
    static const std::regex steps("^([0-9]+_)?(output|per_epoch_stats)\\.json$");
    return std::regex_match(name, steps);
}

} // namespace

fs::path WrittenFiles::key(const fs::path& file) { return treeOf(file); }

bool WrittenFiles::kept(const fs::path& file) const {
    const std::string name = file.filename().string();
    for (const char* n : {kSummaryFile, kConfigFile, kOverridesFile, kRunRecordFile, kIoFile, kModelFile, kTelemetryJsonFile,
                          kLabelsFile, kBenchmarkManifestFile, kMlperfReportFile})
        if (name == n) return true;
    if (isMetadataFile(name)) return true;
    return options_.stepRecords && isStepRecordFile(name);
}

void WrittenFiles::holdStepDigest(const fs::path& runDir, std::shared_ptr<const aggregate::StepDigest> digest) {
    const fs::path dir = key(runDir);
    std::lock_guard lock(mutex_);
    std::erase_if(files_, [&](const auto& entry) {
        return entry.first.parent_path() == dir && isStepRecordFile(entry.first.filename().string());
    });
    digests_[dir] = std::move(digest);
}

std::shared_ptr<const aggregate::StepDigest> WrittenFiles::stepDigest(const fs::path& runDir) const {
    const fs::path dir = key(runDir);
    std::lock_guard lock(mutex_);
    const auto it = digests_.find(dir);
    return it == digests_.end() ? nullptr : it->second;
}

void WrittenFiles::record(const fs::path& file, const std::string& text) {
    if (!kept(file)) return;
    auto held = std::make_shared<const std::string>(text);
    const fs::path k = key(file);
    std::lock_guard lock(mutex_);
    files_[k] = std::move(held);
}

void WrittenFiles::renameFolder(const fs::path& from, const fs::path& to) {
    const fs::path f = key(from), t = key(to);
    std::lock_guard lock(mutex_);
    std::map<fs::path, std::shared_ptr<const std::string>> moved;
    for (auto it = files_.begin(); it != files_.end();) {
        const fs::path rel = it->first.lexically_relative(f);
        if (!rel.empty() && *rel.begin() != "..") {
            moved[t / rel] = std::move(it->second);
            it = files_.erase(it);
        } else {
            ++it;
        }
    }
    files_.merge(moved);
}

std::vector<fs::path> WrittenFiles::runFolders() const {
    std::lock_guard lock(mutex_);
    std::vector<fs::path> out;
    for (const auto& [file, text] : files_)
        if (file.filename() == kSummaryFile) out.push_back(file.parent_path());
    return out;
}

bool WrittenFiles::holds(const fs::path& file) const {
    const fs::path k = key(file);
    std::lock_guard lock(mutex_);
    return files_.count(k) > 0;
}

std::size_t WrittenFiles::size() const {
    std::lock_guard lock(mutex_);
    return files_.size();
}

std::optional<std::string> WrittenFiles::text(const fs::path& file, const fs::path& canonicalRoot, std::uintmax_t maxBytes,
                                              std::string& why) const {
    const fs::path k = key(file);
    std::shared_ptr<const std::string> held;
    {
        std::lock_guard lock(mutex_);
        if (const auto it = files_.find(k); it != files_.end()) held = it->second;
    }
    if (!held) {
        auto t = diskFiles().text(file, canonicalRoot, maxBytes, why);
        if (t && options_.readThrough) {
            std::lock_guard lock(mutex_);
            files_[k] = std::make_shared<const std::string>(*t);
        }
        return t;
    }
    // The rules the disk's reader applies, so that a held file is read exactly as it would be from the disk.
    if (!safeToRead(file, canonicalRoot, why)) return std::nullopt;
    if (!withinBound(held->size(), maxBytes, why)) return std::nullopt;
    return *held;
}

} // namespace trainio::store
