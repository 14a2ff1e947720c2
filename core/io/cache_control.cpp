#include "io/cache_control.h"

#include "util/errors.h"

#include <cerrno>
#include <chrono>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace trainio {
namespace {

constexpr const char* kModeWords = "one of keep, fadvise, drop";

std::string dropFailure(const std::string& file, const std::string& operation, int err) {
    std::string msg = "cache: drop: " + operation + " " + file + ": " + errnoText(err);
    if (err == ENOENT) return msg + ": this system has no such file (not Linux procfs?); use cache: fadvise";
    if (err != EACCES && err != EPERM && err != EROFS) return msg;
    if (::geteuid() != 0)
        return msg + ": dropping the page cache needs root (CAP_SYS_ADMIN), and TrainIO never asks for a "
                     "password (no sudo); run as root, or use cache: fadvise, which needs no privilege";
    return msg + ": refused even as root: the sandbox or container forbids it (/proc/sys read-only or "
                 "CAP_SYS_ADMIN withheld); use cache: fadvise, which needs no privilege";
}

void adviseDontNeed(const std::string& path, CacheControlResult& result) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw RunError("cache: fadvise: open " + path + ": " + errnoText(errno));
    struct stat st {};
    int rc = ::fstat(fd, &st) == 0 ? 0 : errno;
    const char* op = "fstat";
    // DONTNEED drops only clean pages; a file still being written back would keep its dirty pages.
    // sync_file_range writes them out without a device cache flush and costs nothing when clean.
    if (rc == 0) {
        op = "sync_file_range";
        rc = ::sync_file_range(fd, 0, 0,
                               SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
                                   SYNC_FILE_RANGE_WAIT_AFTER) == 0
                 ? 0
                 : errno;
    }
    if (rc == 0) {
        op = "posix_fadvise(DONTNEED)";
        rc = ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED); // returns the error, does not set errno
    }
    ::close(fd);
    if (rc != 0) throw RunError("cache: fadvise: " + std::string(op) + " " + path + ": " + errnoText(rc));
    ++result.files;
    result.bytes += static_cast<std::uint64_t>(st.st_size);
}

void dropCaches(const std::string& file) {
    ::sync(); // drop_caches frees clean pages only
    // O_NONBLOCK: whatever the path is (an injected FIFO in a test), opening it never waits.
    int fd = ::open(file.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) throw RunError(dropFailure(file, "open", errno));
    ssize_t n = ::write(fd, "3", 1);
    int err = n == 1 ? 0 : (n < 0 ? errno : EIO);
    ::close(fd);
    if (err != 0) throw RunError(dropFailure(file, "write 3 to", err));
}

} // namespace

CacheMode parseCacheMode(const std::string& text, const std::string& where) {
    if (text == "keep") return CacheMode::Keep;
    if (text == "fadvise") return CacheMode::Fadvise;
    if (text == "drop") return CacheMode::Drop;
    // describeProblem leaves an empty value out; say it was empty rather than drop it.
    throw InputError(text.empty() ? where + ": '' (empty): expected " + kModeWords
                                  : describeProblem(where, "", text, kModeWords));
}

const char* toString(CacheMode mode) {
    switch (mode) {
    case CacheMode::Keep:
        return "keep";
    case CacheMode::Fadvise:
        return "fadvise";
    case CacheMode::Drop:
        return "drop";
    }
    return "keep";
}

CacheControlResult applyCacheControl(CacheMode mode, const std::vector<std::string>& files,
                                     const CacheControlOptions& options) {
    const auto start = std::chrono::steady_clock::now();
    CacheControlResult result;
    result.mode = mode;
    if (mode == CacheMode::Fadvise)
        for (const auto& f : files)
            adviseDontNeed(f, result);
    else if (mode == CacheMode::Drop)
        dropCaches(options.dropCachesFile.string());
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

std::optional<std::string> cacheControlProblem(CacheMode mode, const CacheControlOptions& options) {
    if (mode != CacheMode::Drop) return std::nullopt;
    const std::string file = options.dropCachesFile.string();
    if (::faccessat(AT_FDCWD, file.c_str(), W_OK, AT_EACCESS) != 0) return dropFailure(file, "access", errno);
    return std::nullopt;
}

} // namespace trainio
