#include "io/engine_support.h"

#include <atomic>
#include <cerrno>
#include <csetjmp>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace trainio::engines {
namespace {

// A file truncated under a mapping raises SIGBUS on the first access beyond its new end. A reader must
// get an I/O error for that, as pread would give, not kill the process: the copy runs with a per-thread
// jump target that a process-wide SIGBUS handler returns to. A SIGBUS outside such a copy goes to the
// handler that was installed before (or the default action).
// volatile: the handler reads it asynchronously; without it the compiler may drop the store before
// the memcpy (memcpy is known not to read it), and a fault then looks like a SIGBUS outside a copy.
thread_local sigjmp_buf* volatile tCopyJump = nullptr;
struct sigaction gPreviousBus {};

void onSigbus(int sig, siginfo_t* info, void* context) {
    if (sigjmp_buf* jump = tCopyJump) siglongjmp(*jump, 1);
    if (gPreviousBus.sa_flags & SA_SIGINFO) {
        gPreviousBus.sa_sigaction(sig, info, context);
    } else if (gPreviousBus.sa_handler != SIG_DFL && gPreviousBus.sa_handler != SIG_IGN) {
        gPreviousBus.sa_handler(sig);
    } else {
        ::signal(sig, SIG_DFL);
        ::raise(sig);
    }
}

void installSigbusGuard() {
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction sa {};
        sa.sa_sigaction = onSigbus;
        // SA_NODEFER: leaving the handler by siglongjmp (which here does not restore the signal mask,
        // to keep the copy free of a sigprocmask call) must not leave SIGBUS blocked in the thread.
        sa.sa_flags = SA_SIGINFO | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        ::sigaction(SIGBUS, &sa, &gPreviousBus);
    });
}

// Returns false when the mapping faulted (the file shrank under it).
bool guardedCopy(void* dst, const unsigned char* src, std::size_t n) {
    sigjmp_buf jump;
    if (sigsetjmp(jump, 0) != 0) {
        tCopyJump = nullptr;
        // Left the handler by a jump that did not restore the signal mask: SIGBUS may still be blocked
        // (SA_NODEFER covers our handler, not a sanitizer's wrapper around it), and a blocked SIGBUS on
        // the next fault would kill the process. Unblocking here costs nothing on the copies that work.
        sigset_t bus;
        sigemptyset(&bus);
        sigaddset(&bus, SIGBUS);
        ::pthread_sigmask(SIG_UNBLOCK, &bus, nullptr);
        return false;
    }
    tCopyJump = &jump;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    std::memcpy(dst, src, n);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    tCopyJump = nullptr;
    return true;
}

struct Mapping {
    const unsigned char* base = nullptr;
    std::size_t size = 0;
};

class MmapBackend final : public ReadEngineBase {
public:
    MmapBackend() { installSigbusGuard(); }
    const char* name() const override { return "mmap"; }
    IoEngine engine() const override { return IoEngine::Mmap; }

    int open(const std::string& path, const OpenOptions& opts) override {
        if (opts.write) return posix_->open(path, OpenOptions{true, false});
        const int fd = posix_->open(path, OpenOptions{false, false});
        if (fd < 0) return fd;
        struct stat st {};
        if (::fstat(fd, &st) != 0) {
            const int err = errno;
            ::close(fd);
            return -err;
        }
        // Empty files and files that are not regular (procfs, pipes) cannot be mapped: they are read
        // with pread, which is what mapping them would amount to.
        if (!S_ISREG(st.st_mode) || st.st_size <= 0) return fd;
        const auto size = static_cast<std::size_t>(st.st_size);
        void* p = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED) {
            const int err = errno;
            ::close(fd);
            return -err;
        }
        // Samples are read front to back: aggressive readahead on a cold file, early reclaim behind.
        // No per-read madvise(WILLNEED): on cached data a syscall per read would cost what mmap saves.
        ::madvise(p, size, MADV_SEQUENTIAL);
        maps_.put(fd, Mapping{static_cast<const unsigned char*>(p), size});
        return fd;
    }
    ssize_t pread(int handle, void* buf, std::size_t len, std::uint64_t offset) override {
        Mapping m;
        if (!maps_.get(handle, m)) return posix_->pread(handle, buf, len, offset);
        if (offset >= m.size) return 0;
        const std::size_t n = std::min<std::size_t>(len, m.size - static_cast<std::size_t>(offset));
        if (!guardedCopy(buf, m.base + offset, n)) return -EIO;
        return static_cast<ssize_t>(n);
    }
    int close(int handle) override {
        Mapping m;
        if (maps_.take(handle, m)) ::munmap(const_cast<unsigned char*>(m.base), m.size);
        return posix_->close(handle);
    }

private:
    HandleTable<Mapping> maps_;
};

} // namespace

std::shared_ptr<IoEngineBackend> makeMmapBackend() {
    return std::make_shared<MmapBackend>();
}

} // namespace trainio::engines
