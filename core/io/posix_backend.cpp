#include "io/io_backend.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace trainio {
namespace {

class PosixBackend final : public IoBackend {
public:
    const char* name() const override { return "posix"; }
    int open(const std::string& path, const OpenOptions& opts) override {
        int flags = O_CLOEXEC;
        // Writes always go to a temporary TrainIO names itself; one that is a symlink was planted, and
        // O_TRUNC through it would clobber whatever it points at.
        flags |= opts.write ? (O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW) : O_RDONLY;
        if (opts.direct) flags |= O_DIRECT;
        int fd = ::open(path.c_str(), flags, 0644);
        return fd >= 0 ? fd : -errno;
    }
    ssize_t pread(int handle, void* buf, std::size_t len, std::uint64_t offset) override {
        ssize_t n = ::pread(handle, buf, len, static_cast<off_t>(offset));
        return n >= 0 ? n : -errno;
    }
    ssize_t pwrite(int handle, const void* buf, std::size_t len, std::uint64_t offset) override {
        ssize_t n = ::pwrite(handle, buf, len, static_cast<off_t>(offset));
        return n >= 0 ? n : -errno;
    }
    std::int64_t size(int handle) override {
        struct stat st {};
        if (::fstat(handle, &st) != 0) return -errno;
        return st.st_size;
    }
    int fsync(int handle) override { return ::fsync(handle) == 0 ? 0 : -errno; }
    int close(int handle) override { return ::close(handle) == 0 ? 0 : -errno; }
};

} // namespace

std::shared_ptr<IoBackend> makePosixBackend() { return std::make_shared<PosixBackend>(); }

ssize_t readFully(IoBackend& io, int handle, void* buf, std::size_t len, std::uint64_t offset,
                  std::size_t chunk) {
    if (chunk == 0) chunk = len;
    auto* p = static_cast<char*>(buf);
    std::size_t done = 0;
    while (done < len) {
        std::size_t want = std::min(chunk, len - done);
        ssize_t n = io.pread(handle, p + done, want, offset + done);
        if (n == -EINTR) continue;
        if (n < 0) return n;
        if (n == 0) break;
        done += static_cast<std::size_t>(n);
    }
    return static_cast<ssize_t>(done);
}

int writeFully(IoBackend& io, int handle, const void* buf, std::size_t len, std::uint64_t offset) {
    const auto* p = static_cast<const char*>(buf);
    std::size_t done = 0;
    while (done < len) {
        ssize_t n = io.pwrite(handle, p + done, len - done, offset + done);
        if (n == -EINTR) continue;
        if (n < 0) return static_cast<int>(n);
        if (n == 0) return -EIO;
        done += static_cast<std::size_t>(n);
    }
    return 0;
}

} // namespace trainio
