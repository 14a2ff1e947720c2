#include "dist/process_sync.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <climits>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cstring>
#include <ctime>
#include <sstream>

namespace trainio::dist {

std::string meetingTimeoutProblem() {
    const char* text = std::getenv("TRAINIO_MPI_TIMEOUT_S");
    if (!text) return {};
    char* end = nullptr;
    const double v = std::strtod(text, &end);
    if (*text == '\0' || end == nullptr || *end != '\0' || !(v > 0) || !std::isfinite(v))
        return std::string("TRAINIO_MPI_TIMEOUT_S = '") + text + "': expected a number of seconds > 0 (how long a meeting of "
                                                               "the MPI job waits for a process before taking it as gone)";
    return {};
}

double meetingTimeoutSeconds() {
    if (!meetingTimeoutProblem().empty()) return 120; // refused by the command before anything runs
    const char* text = std::getenv("TRAINIO_MPI_TIMEOUT_S");
    return text ? std::strtod(text, nullptr) : 120;
}

namespace {

// What each process puts before its slots: whether it stops, and why.
struct MeetingHeader {
    std::uint32_t stop = 0;
    std::uint32_t errorBytes = 0;
    char error[248] = {};
};
static_assert(sizeof(MeetingHeader) == 256);

} // namespace

namespace {
constexpr std::uint32_t kEnded = 0x8000'0000u;
constexpr std::uint32_t kGenerationMask = 0x7FFF'FFFFu;
constexpr std::uint64_t kOneLeft = std::uint64_t{1} << 32;
std::uint64_t arrivedOf(std::uint64_t state) { return state & 0xFFFF'FFFFu; }
std::uint64_t leftOf(std::uint64_t state) { return state >> 32; }
} // namespace

ProcessSync::ProcessSync(Communicator& comm, std::uint64_t localRanks, std::atomic<bool>& stop, WaitLimits limits)
    : comm_(comm), local_(localRanks), stop_(stop), limits_(limits), slots_(localRanks),
      mine_(sizeof(MeetingHeader) + localRanks * sizeof(SyncSlot)),
      all_(mine_.size() * static_cast<std::size_t>(comm.size())),
      every_(static_cast<std::size_t>(comm.size()) * localRanks) {}

ProcessSync::~ProcessSync() { join(); }

void ProcessSync::start() {
    if (!onMeeting || relay_.joinable()) return;
    relayRing_.assign(kRelayDepth, std::vector<SyncSlot>(every_.size()));
    relay_ = std::thread([this] { relayLoop(); });
}

void ProcessSync::join() {
    if (!relay_.joinable()) return;
    relayEnd_.store(true, std::memory_order_release);
    wakeRelay();
    relay_.join();
}

void ProcessSync::relayStep() {
    const std::uint32_t head = relayHead_.load(std::memory_order_relaxed);
    // The relay is kRelayDepth meetings behind (process 0's machine is saturated): wait for a free entry
    // rather than lose a remote rank's step (a record, not only a live figure).
    while (head - relayTail_.load(std::memory_order_acquire) >= kRelayDepth) std::this_thread::yield();
    std::copy(every_.begin(), every_.end(), relayRing_[head % kRelayDepth].begin());
    relayHead_.store(head + 1, std::memory_order_release);
    // The relay is not woken for every step: it wakes every kRelayPeriodMs by itself and drains what is there.
    // A wake per step (a futex call here, a context switch on a core an accelerator or a reader needs) cost
    // 3 AU points on a 2-core client (mpirun -np 2 × 2 accelerators, CosmoFlow's step: 90.3 % with the
    // bookkeeping on the leader, 87.4 % with a wake per step). Half a ring behind, the leader wakes it.
    if (head + 1 - relayTail_.load(std::memory_order_acquire) >= kRelayDepth / 2) wakeRelay();
}

void ProcessSync::wakeRelay() {
    relaySignal_.fetch_add(1, std::memory_order_acq_rel);
    syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&relaySignal_), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

void ProcessSync::relayCatchUp() {
    if (!relay_.joinable()) return;
    if (relayTail_.load(std::memory_order_acquire) != relayHead_.load(std::memory_order_relaxed)) wakeRelay();
    while (relayTail_.load(std::memory_order_acquire) != relayHead_.load(std::memory_order_relaxed))
        std::this_thread::yield();
}

void ProcessSync::relayLoop() {
    for (;;) {
        // The signal is read first: a hand-over or end after this read changes it, so the wait below returns
        // at once instead of sleeping through it (no lost wake-up).
        const std::uint32_t signal = relaySignal_.load(std::memory_order_acquire);
        const std::uint32_t head = relayHead_.load(std::memory_order_acquire);
        std::uint32_t tail = relayTail_.load(std::memory_order_relaxed);
        if (tail == head) {
            if (relayEnd_.load(std::memory_order_acquire)) return;
            const timespec period{0, kRelayPeriodMs * 1000000L};
            syscall(SYS_futex, reinterpret_cast<const std::uint32_t*>(&relaySignal_), FUTEX_WAIT_PRIVATE, signal, &period,
                    nullptr, 0);
            continue;
        }
        for (; tail != head; ++tail) {
            onMeeting(relayRing_[tail % kRelayDepth]);
            relayTail_.store(tail + 1, std::memory_order_release);
        }
    }
}

void ProcessSync::wait(std::uint32_t seen) const {
    for (;;) {
        if (word_.load(std::memory_order_acquire) != seen) return;
        // Sleeps only while the word still holds `seen` (else returns at once): no lost wake-up.
        syscall(SYS_futex, reinterpret_cast<const std::uint32_t*>(&word_), FUTEX_WAIT_PRIVATE, seen, nullptr, nullptr, 0);
    }
}

void ProcessSync::release(bool ended) {
    std::uint32_t w = word_.load(std::memory_order_acquire);
    std::uint32_t next = 0;
    do {
        next = ended ? (w | kEnded) : ((w & kEnded) | ((w + 1) & kGenerationMask));
    } while (!word_.compare_exchange_weak(w, next, std::memory_order_acq_rel, std::memory_order_acquire));
    syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word_), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}

bool ProcessSync::arriveAndWait(std::uint64_t local, const SyncSlot& slot) {
    // The generation is read before arriving: it cannot move on until this thread has arrived.
    const std::uint32_t seen = word_.load(std::memory_order_acquire);
    if (seen & kEnded) return false;
    slots_[local] = slot;
    const std::uint64_t s = state_.fetch_add(1, std::memory_order_acq_rel) + 1;
    if (arrivedOf(s) + leftOf(s) == local_)
        lead(arrivedOf(s), leftOf(s));
    else
        wait(seen);
    return (word_.load(std::memory_order_acquire) & kEnded) == 0;
}

void ProcessSync::leave(std::uint64_t, bool finished) {
    if (!finished) stopRequested_.store(true); // a thread that stopped early (cancel seen first, failure)
    // No meeting can be under way while a thread is still to leave (a meeting needs every thread in), so
    // an ended run is seen here reliably: no more meetings.
    if (word_.load(std::memory_order_acquire) & kEnded) return;
    const std::uint64_t s = state_.fetch_add(kOneLeft, std::memory_order_acq_rel) + kOneLeft;
    if (arrivedOf(s) + leftOf(s) != local_) return;
    if (arrivedOf(s) == 0 && !stopRequested_.load()) {
        release(true); // every thread finished the run normally: so did every process, at the same meeting
        return;
    }
    lead(arrivedOf(s), leftOf(s)); // a thread that left while others meet has stopped: the meeting carries it
}

void ProcessSync::requestStop(const std::string& error) {
    {
        std::lock_guard lock(mutex_);
        if (!error.empty() && localError_.empty()) localError_ = error;
    }
    // The threads see the run's stop flag and arrive or leave; the last of them holds the meeting that
    // tells the other processes.
    stopRequested_.store(true);
}

std::string ProcessSync::remoteError() const {
    std::lock_guard lock(mutex_);
    return remoteError_;
}

void ProcessSync::lead(std::uint64_t arrived, std::uint64_t left) {
    std::lock_guard meeting(meetMutex_);
    const int P = comm_.size();
    const std::size_t per = mine_.size();
    MeetingHeader h;
    h.stop = (stopRequested_.load() || left > 0) ? 1u : 0u;
    if (h.stop) {
        std::lock_guard lock(mutex_);
        const std::string why = localError_.substr(0, sizeof h.error - 1);
        std::memcpy(h.error, why.data(), why.size());
        h.errorBytes = static_cast<std::uint32_t>(why.size());
    }
    std::memcpy(mine_.data(), &h, sizeof h);
    std::memcpy(mine_.data() + sizeof h, slots_.data(), local_ * sizeof(SyncSlot));
    // The slots are copied: clear them now, before anyone is released to write the next ones (a thread
    // that left keeps an empty slot).
    std::fill(slots_.begin(), slots_.end(), SyncSlot{});

    if (!comm_.allgather(mine_.data(), per, all_.data(), limits_)) {
        std::ostringstream s;
        s << "a process of the MPI job did not answer within "
          << (limits_.hurry && limits_.hurry->load() ? limits_.hurryGraceSeconds : limits_.timeoutSeconds)
          << " s (killed, hung or unreachable); what was measured until then is kept";
        {
            std::lock_guard lock(mutex_);
            remoteError_ = s.str();
        }
        broken_ = true;
        stop_.store(true);
        release(true);
        return;
    }
    ++meetings_;
    bool anyStop = false, stepMeeting = false;
    std::string firstError;
    for (int p = 0; p < P; ++p) {
        const unsigned char* base = all_.data() + per * static_cast<std::size_t>(p);
        MeetingHeader ph;
        std::memcpy(&ph, base, sizeof ph);
        SyncSlot* dst = every_.data() + static_cast<std::size_t>(p) * local_;
        std::memcpy(dst, base + sizeof ph, local_ * sizeof(SyncSlot));
        for (std::uint64_t l = 0; l < local_; ++l) stepMeeting = stepMeeting || dst[l].kind == SyncSlot::Step;
        if (ph.stop) {
            anyStop = true;
            if (p != comm_.rank()) remoteStopped_ = true;
            if (firstError.empty() && ph.errorBytes > 0)
                firstError = "process " + std::to_string(p) + ": " +
                             std::string(ph.error, std::min<std::size_t>(ph.errorBytes, sizeof ph.error - 1));
        }
    }
    if (anyStop) {
        relayCatchUp();
        if (onMeeting) onMeeting(every_);
        {
            std::lock_guard lock(mutex_);
            remoteError_ = firstError;
        }
        stop_.store(true);
        release(true);
        return;
    }
    state_.fetch_sub(arrived, std::memory_order_acq_rel); // the next meeting starts with nobody arrived
    if (stepMeeting) {
        // A step's meeting: the accelerators go on at once; what process 0 records of the others' steps
        // and relays to the observer happens on the relay thread, beside them (docs/engine.md, "What
        // watches a run"): the leader only copies the slots into the relay's ring.
        release(false);
        if (relay_.joinable()) relayStep();
        else if (onMeeting) onMeeting(every_);
    } else {
        relayCatchUp();
        if (onMeeting) onMeeting(every_);
        release(false);
    }
}

bool agree(Communicator& comm, const std::string& problem, std::vector<std::string>& problems, const WaitLimits& limits) {
    std::vector<std::string> all;
    if (!comm.allgatherStrings(problem, all, limits)) return false;
    problems.clear();
    for (std::size_t p = 0; p < all.size(); ++p)
        if (!all[p].empty()) problems.push_back("process " + std::to_string(p) + ": " + all[p]);
    return true;
}

} // namespace trainio::dist
