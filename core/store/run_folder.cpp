#include "store/run_folder.h"

#include "store/written_files.h"
#include "util/errors.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace trainio::store {

namespace {

// Is `p` inside `root`? Both must be canonical.
bool isWithin(const fs::path& p, const fs::path& root) {
    auto r = root.begin(), q = p.begin();
    for (; r != root.end(); ++r, ++q) {
        if (q == p.end() || *q != *r) return false;
    }
    return true;
}

// A bound as the messages say it: "64 MiB" or "4096 bytes".
std::string boundText(std::uintmax_t bytes) {
    if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
    return std::to_string(bytes) + " bytes";
}

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

bool blank(const std::string& s) {
    return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c); });
}

// The live ReadLogs (rarely any: the tests'); readBoundedFile checks the count before it locks.
std::atomic<int> g_readLogs{0};
std::mutex g_readLogsMutex;
std::vector<ReadLog*>& readLogs() {
    static std::vector<ReadLog*> logs;
    return logs;
}

class DiskFiles final : public FileSource {
public:
    std::optional<std::string> text(const fs::path& file, const fs::path& canonicalRoot, std::uintmax_t maxBytes,
                                    std::string& why) const override {
        return readFolderText(file, canonicalRoot, maxBytes, why);
    }
};

} // namespace

void noteRead(const fs::path& file) {
    if (g_readLogs.load(std::memory_order_relaxed) == 0) return;
    std::lock_guard lock(g_readLogsMutex);
    for (ReadLog* log : readLogs()) {
        std::lock_guard own(log->mutex_);
        log->files_.push_back(file);
    }
}

ReadLog::ReadLog() {
    std::lock_guard lock(g_readLogsMutex);
    readLogs().push_back(this);
    ++g_readLogs;
}

ReadLog::~ReadLog() {
    std::lock_guard lock(g_readLogsMutex);
    std::erase(readLogs(), this);
    --g_readLogs;
}

std::vector<fs::path> ReadLog::files() const {
    std::lock_guard lock(mutex_);
    return files_;
}

std::vector<fs::path> ReadLog::filesIn(const fs::path& dir) const {
    const fs::path root = treeOf(dir);
    std::vector<fs::path> out;
    for (const fs::path& f : files())
        if (isWithin(treeOf(f), root)) out.push_back(f);
    return out;
}

bool withinBound(std::uintmax_t bytes, std::uintmax_t maxBytes, std::string& why) {
    if (bytes <= maxBytes) return true;
    why = "file is " + std::to_string(bytes) + " bytes, larger than the " + boundText(maxBytes) + " read limit";
    return false;
}

std::optional<json> FileSource::json(const fs::path& file, const fs::path& canonicalRoot, std::uintmax_t maxBytes,
                                     int maxDepth, std::string& why) const {
    const auto t = text(file, canonicalRoot, maxBytes, why);
    if (!t) return std::nullopt;
    return parseBoundedJson(*t, maxDepth, why);
}

std::string FileSource::textOrThrow(const fs::path& file, const fs::path& canonicalRoot, std::uintmax_t maxBytes) const {
    std::string why;
    auto t = text(file, canonicalRoot, maxBytes, why);
    if (!t) throw InputError(file.string() + ": " + why);
    return std::move(*t);
}

json FileSource::jsonOrThrow(const fs::path& file, const fs::path& canonicalRoot, std::uintmax_t maxBytes, int maxDepth) const {
    std::string why;
    auto j = json(file, canonicalRoot, maxBytes, maxDepth, why);
    if (!j) throw InputError(file.string() + ": " + why);
    return std::move(*j);
}

const FileSource& diskFiles() {
    static const DiskFiles disk;
    return disk;
}

std::string rankOutputFile(std::uint64_t rank) { return std::to_string(rank) + "_output.json"; }
std::string rankEpochStatsFile(std::uint64_t rank) { return std::to_string(rank) + "_per_epoch_stats.json"; }

const std::vector<std::string>& configFolders() {
    static const std::vector<std::string> folders = {"configs", ".hydra", "dlio_config"};
    return folders;
}

std::optional<fs::path> findConfigFile(const fs::path& dir, const std::string& file) {
    // A name in the folder (a file or a link of any kind: the reader's link rule judges it), not a folder.
    for (const auto& sub : configFolders()) {
        std::error_code ec;
        const auto st = fs::symlink_status(dir / sub / file, ec);
        if (!ec && fs::exists(st) && !fs::is_directory(st)) return dir / sub / file;
    }
    return std::nullopt;
}

bool isMetadataFile(const std::string& name) {
    const std::string suffix = kMetadataSuffix;
    return name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool safeToRead(const fs::path& file, const fs::path& canonicalRoot, std::string& why) {
    // Any component can be the link (a run's configs/ folder linked elsewhere, not just the file), so
    // where the whole path resolves to decides.
    std::error_code ec;
    const fs::path target = fs::weakly_canonical(file, ec);
    if (ec) {
        why = ec.value() == ELOOP ? "symbolic link loop; not followed"
                                  : "cannot resolve the path (" + ec.message() + "); not read";
        return false;
    }
    if (!isWithin(target, canonicalRoot)) {
        why = "symbolic link pointing outside the imported tree (" + canonicalRoot.string() + "); not followed";
        return false;
    }
    return true;
}

fs::path treeOf(const fs::path& dir) {
    std::error_code ec;
    const fs::path c = fs::weakly_canonical(dir, ec);
    return ec ? fs::absolute(dir).lexically_normal() : c;
}

std::optional<std::string> readBoundedFile(const fs::path& file, std::uintmax_t maxBytes, std::string& why) {
    noteRead(file);
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        why = errno == ELOOP ? "symbolic link loop; not followed" : "cannot open: " + errnoText(errno);
        return std::nullopt;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        why = "not a regular file";
        return std::nullopt;
    }
    if (!withinBound(static_cast<std::uintmax_t>(st.st_size), maxBytes, why)) {
        ::close(fd);
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
    if (blank(text)) {
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

std::optional<std::string> readFolderText(const fs::path& file, const fs::path& canonicalRoot, std::uintmax_t maxBytes,
                                          std::string& why) {
    if (!safeToRead(file, canonicalRoot, why)) return std::nullopt;
    return readBoundedFile(file, maxBytes, why);
}

std::optional<json> readFolderJson(const fs::path& file, const fs::path& canonicalRoot, std::uintmax_t maxBytes,
                                   int maxDepth, std::string& why) {
    const auto text = readFolderText(file, canonicalRoot, maxBytes, why);
    if (!text) return std::nullopt;
    return parseBoundedJson(*text, maxDepth, why);
}

std::string readFolderTextOrThrow(const fs::path& file, const fs::path& canonicalRoot, std::uintmax_t maxBytes) {
    std::string why;
    auto text = readFolderText(file, canonicalRoot, maxBytes, why);
    if (!text) throw InputError(file.string() + ": " + why);
    return std::move(*text);
}

json readFolderJsonOrThrow(const fs::path& file, const fs::path& canonicalRoot, std::uintmax_t maxBytes, int maxDepth) {
    std::string why;
    auto j = readFolderJson(file, canonicalRoot, maxBytes, maxDepth, why);
    if (!j) throw InputError(file.string() + ": " + why);
    return std::move(*j);
}

fs::path atomicTemporary(const fs::path& path, long pid) {
    return path.parent_path() / ("." + path.filename().string() + ".tmp-" + std::to_string(pid));
}

bool isAtomicTemporary(const std::string& name) {
    const auto t = name.rfind(".tmp-");
    if (name.size() < 2 || name[0] != '.' || t == std::string::npos || t < 2 || t + 5 >= name.size()) return false;
    return name.find_first_not_of("0123456789", t + 5) == std::string::npos;
}

std::vector<fs::path> removeStaleTemporaries(const fs::path& dir) {
    std::vector<fs::path> removed;
    std::vector<fs::path> folders{dir};
    for (const auto& c : configFolders()) folders.push_back(dir / c);
    for (const auto& folder : folders) {
        std::error_code ec;
        if (!fs::is_directory(fs::symlink_status(folder, ec))) continue; // never through a link
        for (const auto& e : fs::directory_iterator(folder, ec)) {
            std::error_code fe;
            if (!isAtomicTemporary(e.path().filename().string()) || !fs::is_regular_file(e.symlink_status(fe))) continue;
            if (fs::remove(e.path(), fe)) removed.push_back(e.path());
        }
    }
    return removed;
}

void writeFileAtomic(const fs::path& path, const std::string& content, IoBackend* io, WrittenFiles* record) {
    std::shared_ptr<IoBackend> owned;
    if (!io) {
        owned = makePosixBackend();
        io = owned.get();
    }
    std::error_code ec;
    if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
    if (ec) throw RunError("create folder " + path.parent_path().string() + ": " + ec.message());
    const fs::path tmp = atomicTemporary(path, ::getpid());
    OpenOptions o;
    o.write = true;
    const int h = io->open(tmp.string(), o);
    if (h < 0) throw RunError("create " + tmp.string() + ": " + errnoText(-h));
    int rc = writeFully(*io, h, content.data(), content.size(), 0);
    if (rc == 0) rc = io->fsync(h);
    const int rcClose = io->close(h);
    if (rc == 0) rc = rcClose;
    if (rc != 0) {
        fs::remove(tmp, ec);
        throw RunError("write " + path.string() + ": " + errnoText(-rc));
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        fs::remove(tmp, ec);
        throw RunError("rename " + tmp.string() + " to " + path.string() + ": " + errnoText(err));
    }
    // Make the rename itself durable.
    const int dfd = ::open(path.parent_path().empty() ? "." : path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
    if (record) record->record(path, content);
}

} // namespace trainio::store
