// The I/O engines behind IoBackend: how the readers' bytes come from storage (issue 10, item 1).
//
//   posix     buffered ::pread (today's backend, makePosixBackend)
//   odirect   ::pread with O_DIRECT: bypasses the page cache. Any buffer, offset and length are accepted:
//             unaligned requests are rounded out to the file's direct-I/O alignment (statx
//             STATX_DIOALIGN, 4096 when the kernel does not say) and read into a per-thread aligned
//             bounce buffer, then the asked range is copied out. A file system that refuses O_DIRECT at
//             open (EINVAL) gets buffered reads for that file, counted in stats().
//   mmap      the file is mapped read-only at open (MADV_SEQUENTIAL) and pread memcpy's the asked range
//             into the caller's buffer: "delivering the bytes" means every byte is touched and lands
//             where the caller parses it, as with the other engines. A SIGBUS (file truncated under the
//             mapping) becomes -EIO, never a crash. OpenOptions::direct is ignored: a mapping reads
//             through the page cache.
//   io_uring  liburing, one ring per reader thread (thread_local, created on the thread's first read,
//             freed when the thread ends). pread(len) is split into ceil(len / requestBytes) reads with
//             up to ioDepth in flight, reaped together: a large read then keeps ioDepth requests queued
//             at the device, which a pread loop cannot. Optional O_DIRECT (options.direct) with the
//             same alignment handling as odirect.
//
// Integration (one call): from `trainio.io_engine` / `trainio.io_depth` and the reader's transfer_size,
//     auto io = makeIoBackend(parseIoEngine(text, "trainio.io_engine"),
//                             IoEngineOptions{.ioDepth = depth, .requestBytes = transferSize});
// and hand `io` to the engine where makePosixBackend() is used today (decorators such as fault injection
// or emulated storage wrap it like any IoBackend). `reader.odirect: true` maps to
// IoEngine::ODirect. To let io_uring keep ioDepth requests in flight, the sample reader must ask for a
// whole sample (or a multiple of requestBytes) per pread, i.e. readFully(..., chunk = len); with
// chunk = transfer_size each pread is one request and io_uring behaves like posix.
// After the epoch (or the run), io->stats() tells how many files fell back to buffered reads and why:
// warn once with stats().fallbackReason.
//
// Thread safety: one backend is shared by all reader threads; every call is thread-safe. Hot-path cost
// over posix: one shared-lock lookup of the handle per pread (odirect, mmap, io_uring); odirect's bounce
// copy only for unaligned requests (AlignedBuffer's buffers are aligned, and from 256 KiB on backed by
// huge pages, which doubled direct-read throughput: docs/io-engines.md); mmap one memcpy; io_uring one
// submit+wait per ioDepth requests. Writes (generator, result writers) are buffered ::pwrite with every
// engine: engines change reads only.
#pragma once

#include "io/io_backend.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace trainio {

enum class IoEngine { Posix, ODirect, Mmap, IoUring };

// "posix", "odirect", "mmap", "io_uring".
const char* toString(IoEngine engine);
// Parses the names above (exact, lower case). Throws InputError naming `key`, the value and the choices.
IoEngine parseIoEngine(std::string_view text, const std::string& key = "io_engine");

struct IoEngineOptions {
    // io_uring: requests in flight per reader thread (the ring's size). 1..4096.
    unsigned ioDepth = 32;
    // io_uring: size of each request a large pread is split into (the reader's transfer_size).
    std::size_t requestBytes = 262144;
    // io_uring: open data files with O_DIRECT (fio's direct=1). odirect always does; posix and mmap never.
    bool direct = false;
};

struct IoEngineStats {
    // Files opened for reading that the engine could not read its way (O_DIRECT refused with EINVAL at
    // open) and read buffered instead, each path counted once however often it is opened. 0 for posix
    // and mmap.
    std::uint64_t directFallbackFiles = 0;
    // The first fallback: "<path>: O_DIRECT refused by the file system (<strerror>); read buffered".
    std::string fallbackReason;
};

class IoEngineBackend : public IoBackend {
public:
    virtual IoEngine engine() const = 0;
    virtual IoEngineStats stats() const = 0;
};

// Builds the engine. Throws InputError for bad options (naming io_depth / request size and the range)
// and RunError when the engine cannot work here: io_uring when io_uring_setup fails (ENOSYS: kernel
// without io_uring, EPERM: seccomp or kernel.io_uring_disabled, ENOMEM: locked-memory limit), with the
// reason and the advice to pick another engine.
std::shared_ptr<IoEngineBackend> makeIoBackend(IoEngine engine, const IoEngineOptions& options = {});

} // namespace trainio
