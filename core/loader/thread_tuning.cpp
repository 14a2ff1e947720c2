#include "loader/thread_tuning.h"

#include <cstdint>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace trainio {
namespace {

constexpr std::uint64_t kShortSliceNs = 100'000;

// The kernel's struct sched_attr (linux/sched/types.h clashes with glibc's sched.h); the layout is a
// stable ABI, versioned by its size.
struct KernelSchedAttr {
    std::uint32_t size;
    std::uint32_t sched_policy;
    std::uint64_t sched_flags;
    std::int32_t sched_nice;
    std::uint32_t sched_priority;
    std::uint64_t sched_runtime;
    std::uint64_t sched_deadline;
    std::uint64_t sched_period;
    std::uint32_t sched_util_min;
    std::uint32_t sched_util_max;
};

bool getAttr(KernelSchedAttr& attr) {
    return syscall(SYS_sched_getattr, 0, &attr, sizeof attr, 0) == 0;
}

bool setAttr(KernelSchedAttr& attr) {
    attr.size = sizeof attr;
    attr.sched_flags = 0; // keeps nice; no utilisation clamps
    return syscall(SYS_sched_setattr, 0, &attr, 0) == 0;
}

} // namespace

void askShortSlice() {
    KernelSchedAttr attr{};
    if (!getAttr(attr) || attr.sched_policy != SCHED_OTHER) return; // a policy set by the user stays
    attr.sched_runtime = kShortSliceNs;
    setAttr(attr);
}

void runAsBatch() {
    KernelSchedAttr attr{};
    if (getAttr(attr) && (attr.sched_policy == SCHED_OTHER || attr.sched_policy == SCHED_BATCH)) {
        attr.sched_policy = SCHED_BATCH;
        attr.sched_priority = 0;
        attr.sched_runtime = 0; // the default slice
        if (setAttr(attr)) return;
    }
    sched_param sp{};
    sp.sched_priority = 0;
    pthread_setschedparam(pthread_self(), SCHED_BATCH, &sp);
}

unsigned long long currentSliceNs() {
    KernelSchedAttr attr{};
    return getAttr(attr) ? attr.sched_runtime : 0;
}

} // namespace trainio
