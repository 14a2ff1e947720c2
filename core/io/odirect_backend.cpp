#include "io/engine_support.h"

#include <cerrno>
#include <unistd.h>

namespace trainio::engines {
namespace {

class ODirectBackend final : public ReadEngineBase {
public:
    const char* name() const override { return "odirect"; }
    IoEngine engine() const override { return IoEngine::ODirect; }

    int open(const std::string& path, const OpenOptions& opts) override {
        if (opts.write) return posix_->open(path, OpenOptions{true, false});
        return openDirect(path);
    }
    ssize_t pread(int handle, void* buf, std::size_t len, std::uint64_t offset) override {
        DirectAlignment a;
        if (!directAlignment(handle, a))
            return posix_->pread(handle, buf, len, offset); // buffered fallback or a writer
        return readAligned(a, buf, len, offset, [handle](void* b, std::size_t l, std::uint64_t o) -> ssize_t {
            const ssize_t n = ::pread(handle, b, l, static_cast<off_t>(o));
            return n >= 0 ? n : -errno;
        });
    }
    int close(int handle) override { return closeDirectOrBuffered(handle); }
};

} // namespace

std::shared_ptr<IoEngineBackend> makeODirectBackend() {
    return std::make_shared<ODirectBackend>();
}

} // namespace trainio::engines
