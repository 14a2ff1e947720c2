// Pieces the I/O engines share (internal to core/io): a thread-safe per-handle table, O_DIRECT open with
// the counted buffered fallback, and the bounce-buffer read that lets O_DIRECT take any request.
#pragma once

#include "io/aligned_buffer.h"
#include "io/io_engines.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace trainio::engines {

// What an engine remembers about an open handle. Readers look it up on every pread, so it is a
// shared-locked map: the lock is only taken exclusively at open and close.
template <class T> class HandleTable {
public:
    void put(int handle, const T& value) {
        std::unique_lock lock(mutex_);
        map_[handle] = value;
    }
    bool get(int handle, T& out) const {
        std::shared_lock lock(mutex_);
        auto it = map_.find(handle);
        if (it == map_.end()) return false;
        out = it->second;
        return true;
    }
    bool take(int handle, T& out) {
        std::unique_lock lock(mutex_);
        auto it = map_.find(handle);
        if (it == map_.end()) return false;
        out = it->second;
        map_.erase(it);
        return true;
    }

private:
    mutable std::shared_mutex mutex_;
    std::unordered_map<int, T> map_;
};

// Direct-I/O alignment of an open file: memory and file-offset alignment in bytes.
struct DirectAlignment {
    std::size_t memory = 4096;
    std::size_t offset = 4096;
};
// From statx(STATX_DIOALIGN) where the kernel reports it (Linux 6.1+), else 4096 for both, which every
// O_DIRECT-capable Linux file system accepts.
DirectAlignment directAlignmentOf(int fd);

// Counts files whose O_DIRECT open was refused and keeps the first reason (IoEngineStats).
class FallbackCounter {
public:
    // Counts each path once: a file opened again (every epoch, every reader) is the same file.
    void record(const std::string& path, int err);
    IoEngineStats stats() const;

private:
    mutable std::mutex mutex_;
    std::unordered_set<std::string> paths_;
    std::string reason_;
};

// Opens `path` read-only with O_DIRECT. Where the file system refuses it (EINVAL), opens it buffered,
// records the fallback and sets `direct` false. Returns the fd or -errno.
int openDirectOrBuffered(const std::string& path, FallbackCounter& fallbacks, bool& direct);

// Largest bounce read per call: a request larger than this returns short and the caller's readFully
// loop asks for the rest, so the per-thread bounce buffer stays bounded.
inline constexpr std::size_t kMaxBounceBytes = 16u << 20;

// Reads [offset, offset+len) of a direct file into `buf` through `raw(alignedBuf, alignedLen,
// alignedOffset)`: straight into the caller's buffer when buffer, offset and length are aligned, else
// the range is rounded out to the alignment, read into a per-thread aligned bounce buffer and the asked
// bytes are copied out. Same return convention as pread (short at end of file, -errno).
template <class RawRead>
ssize_t readAligned(const DirectAlignment& a, void* buf, std::size_t len, std::uint64_t offset,
                    RawRead&& raw) {
    const auto addr = reinterpret_cast<std::uintptr_t>(buf);
    if (addr % a.memory == 0 && offset % a.offset == 0 && len % a.offset == 0) return raw(buf, len, offset);
    thread_local AlignedBuffer bounce;
    const std::uint64_t start = offset / a.offset * a.offset;
    const std::uint64_t end = (offset + len + a.offset - 1) / a.offset * a.offset;
    const std::size_t cap = std::max<std::size_t>(kMaxBounceBytes / a.offset * a.offset, 2 * a.offset);
    const std::size_t span = static_cast<std::size_t>(std::min<std::uint64_t>(end - start, cap));
    bounce.reserve(span); // AlignedBuffer is 4096-aligned; memory alignments reported are <= 4096
    const ssize_t got = raw(bounce.data(), span, start);
    if (got < 0) return got;
    const std::size_t skip = static_cast<std::size_t>(offset - start);
    if (static_cast<std::size_t>(got) <= skip) return 0;
    const std::size_t n = std::min(len, static_cast<std::size_t>(got) - skip);
    std::memcpy(buf, bounce.data() + skip, n);
    return static_cast<ssize_t>(n);
}

// Read engines keep writes, size, fsync and close of POSIX: they change how data is read, not written.
class ReadEngineBase : public IoEngineBackend {
public:
    ssize_t pwrite(int handle, const void* buf, std::size_t len, std::uint64_t offset) override {
        return posix_->pwrite(handle, buf, len, offset);
    }
    std::int64_t size(int handle) override { return posix_->size(handle); }
    int fsync(int handle) override { return posix_->fsync(handle); }
    IoEngineStats stats() const override { return fallbacks_.stats(); }

protected:
    // Opens for reading with O_DIRECT (buffered where refused, counted) and remembers the alignment.
    int openDirect(const std::string& path) {
        bool direct = false;
        const int fd = openDirectOrBuffered(path, fallbacks_, direct);
        if (fd >= 0 && direct) directFiles_.put(fd, directAlignmentOf(fd));
        return fd;
    }
    // False for handles read buffered (writers, fallbacks, non-direct opens).
    bool directAlignment(int handle, DirectAlignment& a) const { return directFiles_.get(handle, a); }
    int closeDirectOrBuffered(int handle) {
        DirectAlignment unused;
        directFiles_.take(handle, unused);
        return posix_->close(handle);
    }

    std::shared_ptr<IoBackend> posix_ = makePosixBackend();
    FallbackCounter fallbacks_;

private:
    HandleTable<DirectAlignment> directFiles_;
};

std::shared_ptr<IoEngineBackend> makeODirectBackend();
std::shared_ptr<IoEngineBackend> makeMmapBackend();
std::shared_ptr<IoEngineBackend> makeIoUringBackend(const IoEngineOptions& options);

} // namespace trainio::engines
