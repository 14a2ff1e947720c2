#include "io/io_engines.h"

#include "io/engine_support.h"
#include "util/errors.h"

#include <array>
#include <utility>

namespace trainio {
namespace {

constexpr std::array<std::pair<IoEngine, const char*>, 4> kNames{{
    {IoEngine::Posix, "posix"},
    {IoEngine::ODirect, "odirect"},
    {IoEngine::Mmap, "mmap"},
    {IoEngine::IoUring, "io_uring"},
}};

// Buffered pread, as IoBackend's default; wrapped so that every engine answers engine() and stats().
class PosixEngine final : public engines::ReadEngineBase {
public:
    const char* name() const override { return "posix"; }
    IoEngine engine() const override { return IoEngine::Posix; }
    int open(const std::string& path, const OpenOptions& opts) override { return posix_->open(path, opts); }
    ssize_t pread(int handle, void* buf, std::size_t len, std::uint64_t offset) override {
        return posix_->pread(handle, buf, len, offset);
    }
    int close(int handle) override { return posix_->close(handle); }
};

} // namespace

const char* toString(IoEngine engine) {
    for (const auto& [e, n] : kNames)
        if (e == engine) return n;
    return "posix";
}

IoEngine parseIoEngine(std::string_view text, const std::string& key) {
    for (const auto& [e, n] : kNames)
        if (text == n) return e;
    throw InputError(
        describeProblem("", key, "'" + std::string(text) + "'", "one of posix, odirect, mmap, io_uring"));
}

std::shared_ptr<IoEngineBackend> makeIoBackend(IoEngine engine, const IoEngineOptions& options) {
    if (options.ioDepth < 1 || options.ioDepth > 4096)
        throw InputError(
            describeProblem("", "io_depth", std::to_string(options.ioDepth), "an integer from 1 to 4096"));
    if (options.requestBytes < 512 || options.requestBytes > (std::size_t{1} << 30))
        throw InputError(describeProblem("", "io_uring request size (transfer_size)",
                                         std::to_string(options.requestBytes), "from 512 bytes to 1 GiB"));
    switch (engine) {
    case IoEngine::Posix:
        return std::make_shared<PosixEngine>();
    case IoEngine::ODirect:
        return engines::makeODirectBackend();
    case IoEngine::Mmap:
        return engines::makeMmapBackend();
    case IoEngine::IoUring:
        return engines::makeIoUringBackend(options);
    }
    return std::make_shared<PosixEngine>();
}

} // namespace trainio
