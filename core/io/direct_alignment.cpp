// Kept apart from the other engine sources: glibc's <sys/stat.h> struct statx (glibc 2.36) lacks the
// STATX_DIOALIGN fields, so this file uses the kernel's struct from <linux/stat.h> and the raw syscall,
// and must not see <sys/stat.h>.
#include "io/engine_support.h"
#include "util/errors.h"

#include <cerrno>
#include <fcntl.h>
#include <linux/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace trainio::engines {

DirectAlignment directAlignmentOf(int fd) {
    DirectAlignment a;
    struct statx stx {};
    if (::syscall(SYS_statx, fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0 &&
        (stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_mem_align > 0 && stx.stx_dio_offset_align > 0) {
        // Never below 512 (the smallest logical block) nor above what AlignedBuffer guarantees in memory.
        a.memory = std::clamp<std::size_t>(stx.stx_dio_mem_align, 1, AlignedBuffer::kAlignment);
        a.offset = std::max<std::size_t>(stx.stx_dio_offset_align, 512);
    }
    return a;
}

void FallbackCounter::record(const std::string& path, int err) {
    // A rare path (once per refused file): the lock keeps the count and the first reason consistent.
    std::lock_guard lock(mutex_);
    if (paths_.insert(path).second && paths_.size() == 1)
        reason_ = path + ": O_DIRECT refused by the file system (" + errnoText(err) + "); read buffered";
}

IoEngineStats FallbackCounter::stats() const {
    IoEngineStats s;
    std::lock_guard lock(mutex_);
    s.directFallbackFiles = paths_.size();
    s.fallbackReason = reason_;
    return s;
}

int openDirectOrBuffered(const std::string& path, FallbackCounter& fallbacks, bool& direct) {
    direct = true;
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT);
    if (fd >= 0) return fd;
    if (errno != EINVAL) return -errno;
    direct = false;
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    fallbacks.record(path, EINVAL);
    return fd;
}

} // namespace trainio::engines
