// The I/O layer: every byte the engine, the generator and the result writers move goes through an
// IoBackend, so that other engines (O_DIRECT, mmap, io_uring) and fault injection (tests) plug in
// without touching the callers. Calls are POSIX-shaped and thread-safe; errors are returned as
// negative errno values, never thrown, because the hot path must stay cheap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <sys/types.h>
#include <utility>

namespace trainio {

struct OpenOptions {
    bool write = false;    // open for writing (create/truncate)
    bool direct = false;   // O_DIRECT (reads bypass the page cache; buffers must be aligned)
    // One large object moved start to end in big chunks (a checkpoint file): an object store streams it
    // in parts (S3: multipart upload, ranged GETs of its part size in flight) instead of holding it whole
    // or reading it in the dataset's transfer_size. Files ignore it.
    bool streaming = false;
};

class IoBackend {
public:
    virtual ~IoBackend() = default;
    virtual const char* name() const = 0;
    // Returns a file descriptor-like handle >= 0, or -errno.
    virtual int open(const std::string& path, const OpenOptions& opts) = 0;
    // Returns bytes read (0 at end of file), or -errno. May return fewer bytes than asked.
    virtual ssize_t pread(int handle, void* buf, std::size_t len, std::uint64_t offset) = 0;
    // Returns bytes written, or -errno.
    virtual ssize_t pwrite(int handle, const void* buf, std::size_t len, std::uint64_t offset) = 0;
    // File size in bytes, or -errno.
    virtual std::int64_t size(int handle) = 0;
    virtual int fsync(int handle) = 0;
    virtual int close(int handle) = 0;
};

// A backend wrapped around another (the emulated device, the storage probe's timer, fault injection): every
// call goes to the inner backend unless the wrapper overrides it.
class ForwardingBackend : public IoBackend {
public:
    explicit ForwardingBackend(std::shared_ptr<IoBackend> inner) : inner_(std::move(inner)) {}
    int open(const std::string& path, const OpenOptions& opts) override { return inner_->open(path, opts); }
    ssize_t pread(int handle, void* buf, std::size_t len, std::uint64_t offset) override {
        return inner_->pread(handle, buf, len, offset);
    }
    ssize_t pwrite(int handle, const void* buf, std::size_t len, std::uint64_t offset) override {
        return inner_->pwrite(handle, buf, len, offset);
    }
    std::int64_t size(int handle) override { return inner_->size(handle); }
    int fsync(int handle) override { return inner_->fsync(handle); }
    int close(int handle) override { return inner_->close(handle); }

protected:
    std::shared_ptr<IoBackend> inner_;
};

// Buffered POSIX pread/pwrite.
std::shared_ptr<IoBackend> makePosixBackend();

// Reads exactly len bytes at offset in chunks of at most chunk bytes, retrying short reads and EINTR.
// Returns bytes read (less than len only at end of file) or -errno.
ssize_t readFully(IoBackend& io, int handle, void* buf, std::size_t len, std::uint64_t offset,
                  std::size_t chunk);

// Writes all len bytes at offset, retrying short writes and EINTR. Returns 0 or -errno.
int writeFully(IoBackend& io, int handle, const void* buf, std::size_t len, std::uint64_t offset);

} // namespace trainio
