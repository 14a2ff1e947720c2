#include "io/engine_support.h"
#include "util/errors.h"

#include <liburing.h>

#include <cerrno>
#include <climits>
#include <vector>

namespace trainio::engines {
namespace {

// One ring per reader thread: IoBackend is shared by the readers, and a ring must not be driven by two
// threads at once. Created on the thread's first read, at the largest depth any backend asked of it.
struct ThreadRing {
    io_uring ring{};
    unsigned depth = 0;
    std::vector<int> results; // per request of the current pread
    ~ThreadRing() { reset(); }
    void reset() {
        if (depth) io_uring_queue_exit(&ring);
        depth = 0;
    }
    int ensure(unsigned want) {
        if (depth >= want) return 0;
        reset();
        // SINGLE_ISSUER and COOP_TASKRUN fit a ring that one thread submits to and waits on (fewer
        // interrupts); kernels before 6.0 refuse them, and then the plain ring is just as correct.
        int e = io_uring_queue_init(want, &ring, IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN);
        if (e == -EINVAL) e = io_uring_queue_init(want, &ring, 0);
        if (e < 0) return e;
        depth = want;
        return 0;
    }
};
thread_local ThreadRing tRing;

// Most requests one pread issues; a larger read returns short and readFully asks for the rest.
constexpr std::size_t kMaxRequestsPerCall = 4096;

class IoUringBackend final : public ReadEngineBase {
public:
    explicit IoUringBackend(const IoEngineOptions& o) : depth_(o.ioDepth), direct_(o.direct) {
        // Requests stay multiples of the direct alignment, so that the split of an aligned read is aligned.
        request_ = (o.requestBytes + AlignedBuffer::kAlignment - 1) / AlignedBuffer::kAlignment *
                   AlignedBuffer::kAlignment;
    }
    const char* name() const override { return "io_uring"; }
    IoEngine engine() const override { return IoEngine::IoUring; }

    int open(const std::string& path, const OpenOptions& opts) override {
        if (opts.write) return posix_->open(path, OpenOptions{true, false});
        if (!(direct_ || opts.direct)) return posix_->open(path, OpenOptions{false, false});
        return openDirect(path);
    }
    ssize_t pread(int handle, void* buf, std::size_t len, std::uint64_t offset) override {
        DirectAlignment a;
        if (!directAlignment(handle, a)) return submit(handle, buf, len, offset);
        return readAligned(a, buf, len, offset, [this, handle](void* b, std::size_t l, std::uint64_t o) {
            return submit(handle, b, l, o);
        });
    }
    int close(int handle) override { return closeDirectOrBuffered(handle); }

private:
    // Splits [offset, offset+len) into requests of request_ bytes and keeps up to depth_ of them in
    // flight until all completed, or one came back short or failed. Returns the bytes read contiguously
    // from `offset` (pread's convention), or the first request's error when nothing was read.
    ssize_t submit(int fd, void* buf, std::size_t len, std::uint64_t offset) {
        if (len == 0) return 0;
        ThreadRing& tr = tRing;
        if (const int e = tr.ensure(depth_); e < 0) return e;
        const std::size_t count = std::min((len + request_ - 1) / request_, kMaxRequestsPerCall);
        auto lengthOf = [&](std::size_t i) { return std::min(request_, len - i * request_); };
        tr.results.assign(count, INT_MIN);
        auto* p = static_cast<unsigned char*>(buf);
        std::size_t next = 0;
        std::size_t inflight = 0;
        bool stop = false;
        while (inflight > 0 || (!stop && next < count)) {
            unsigned queued = 0;
            while (!stop && next < count && inflight < depth_) {
                io_uring_sqe* sqe = io_uring_get_sqe(&tr.ring);
                if (!sqe) break;
                io_uring_prep_read(sqe, fd, p + next * request_, static_cast<unsigned>(lengthOf(next)),
                                   offset + next * request_);
                io_uring_sqe_set_data64(sqe, next);
                ++next;
                ++inflight;
                ++queued;
            }
            if (queued > 0) {
                int s;
                do
                    s = io_uring_submit(&tr.ring);
                while (s == -EINTR || s == -EAGAIN || s == -EBUSY);
                if (s < 0) {
                    // The kernel holds requests into the caller's buffer that we can no longer account
                    // for: closing the ring cancels them before the buffer is given back.
                    tr.reset();
                    return s;
                }
            }
            io_uring_cqe* cqe = nullptr;
            int w;
            do
                w = io_uring_wait_cqe(&tr.ring, &cqe);
            while (w == -EINTR);
            if (w < 0) {
                tr.reset();
                return w;
            }
            unsigned head;
            unsigned seen = 0;
            io_uring_for_each_cqe(&tr.ring, head, cqe) {
                const auto i = static_cast<std::size_t>(io_uring_cqe_get_data64(cqe));
                tr.results[i] = cqe->res;
                if (cqe->res < 0 || static_cast<std::size_t>(cqe->res) < lengthOf(i)) stop = true;
                --inflight;
                ++seen;
            }
            io_uring_cq_advance(&tr.ring, seen);
        }
        std::size_t total = 0;
        for (std::size_t i = 0; i < next; ++i) {
            const int r = tr.results[i];
            if (r < 0) return total > 0 ? static_cast<ssize_t>(total) : r;
            total += static_cast<std::size_t>(r);
            if (static_cast<std::size_t>(r) < lengthOf(i)) break;
        }
        return static_cast<ssize_t>(total);
    }

    unsigned depth_;
    bool direct_;
    std::size_t request_ = 0;
};

} // namespace

std::shared_ptr<IoEngineBackend> makeIoUringBackend(const IoEngineOptions& options) {
    // Probe here, on the constructing thread, so that an unusable io_uring is one clear error at set-up
    // rather than an errno from every reader's first read.
    io_uring probe{};
    const int e = io_uring_queue_init(options.ioDepth, &probe, 0);
    if (e < 0)
        throw RunError("io_engine io_uring: io_uring_setup failed (" + errnoText(-e) +
                       "): the kernel has no io_uring (ENOSYS), or it is forbidden here (EPERM: seccomp, a "
                       "container, or sysctl kernel.io_uring_disabled), or the locked-memory limit is too "
                       "low (ENOMEM); choose io_engine posix, odirect or mmap");
    io_uring_queue_exit(&probe);
    return std::make_shared<IoUringBackend>(options);
}

} // namespace trainio::engines
