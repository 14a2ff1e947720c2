#include "dist/process_sync.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace trainio::dist {

namespace {

// What each process puts before its slots: whether it stops, and why.
struct MeetingHeader {
    std::uint32_t stop = 0;
    std::uint32_t errorBytes = 0;
    char error[248] = {};
};
static_assert(sizeof(MeetingHeader) == 256);

} // namespace

ProcessSync::ProcessSync(Communicator& comm, std::uint64_t localRanks, std::atomic<bool>& stop, WaitLimits limits)
    : comm_(comm), local_(localRanks), stop_(stop), limits_(limits), slots_(localRanks) {}

ProcessSync::~ProcessSync() {
    requestStop("");
    join();
}

void ProcessSync::start() { thread_ = std::thread([this] { loop(); }); }

void ProcessSync::join() {
    if (thread_.joinable()) thread_.join();
}

bool ProcessSync::arriveAndWait(std::uint64_t local, const SyncSlot& slot) {
    std::unique_lock lock(mutex_);
    if (ended_) return false;
    slots_[local] = slot;
    ++arrived_;
    const std::uint64_t generation = generation_;
    if (arrived_ + left_ == local_) arrivedCv_.notify_one();
    releaseCv_.wait(lock, [&] { return generation_ != generation || ended_; });
    return generation_ != generation;
}

void ProcessSync::leave(std::uint64_t, bool finished) {
    std::lock_guard lock(mutex_);
    ++left_;
    if (!finished) stopRequested_ = true; // a thread that stopped early (cancel seen first, failure)
    arrivedCv_.notify_one();
}

void ProcessSync::requestStop(const std::string& error) {
    std::lock_guard lock(mutex_);
    if (!error.empty() && localError_.empty()) localError_ = error;
    stopRequested_ = true;
    arrivedCv_.notify_one();
}

std::string ProcessSync::remoteError() const {
    std::lock_guard lock(mutex_);
    return remoteError_;
}

void ProcessSync::loop() {
    const int P = comm_.size();
    const std::size_t per = sizeof(MeetingHeader) + local_ * sizeof(SyncSlot);
    std::vector<unsigned char> mine(per), all(per * static_cast<std::size_t>(P));
    std::vector<SyncSlot> every(static_cast<std::size_t>(P) * local_);
    for (;;) {
        std::unique_lock lock(mutex_);
        arrivedCv_.wait(lock, [&] { return (arrived_ > 0 && arrived_ + left_ == local_) || left_ == local_ || stopRequested_; });
        if (left_ == local_ && arrived_ == 0 && !stopRequested_) {
            ended_ = true; // every thread finished the run normally: so did every process, at the same meeting
            releaseCv_.notify_all();
            return;
        }
        // A thread that left while others meet has stopped: the meeting carries the stop.
        MeetingHeader h;
        h.stop = (stopRequested_ || left_ > 0) ? 1u : 0u;
        const std::string why = localError_.substr(0, sizeof h.error - 1);
        std::memcpy(h.error, why.data(), why.size());
        h.errorBytes = static_cast<std::uint32_t>(why.size());
        std::memcpy(mine.data(), &h, sizeof h);
        std::memcpy(mine.data() + sizeof h, slots_.data(), local_ * sizeof(SyncSlot));
        lock.unlock();

        const bool ok = comm_.allgather(mine.data(), per, all.data(), limits_);
        if (!ok) {
            lock.lock();
            std::ostringstream s;
            s << "a process of the MPI job did not answer within "
              << (limits_.hurry && limits_.hurry->load() ? limits_.hurryGraceSeconds : limits_.timeoutSeconds)
              << " s (killed, hung or unreachable); what was measured until then is kept";
            remoteError_ = s.str();
            broken_ = true;
            ended_ = true;
            stop_.store(true);
            releaseCv_.notify_all();
            return;
        }
        ++meetings_;
        bool anyStop = false;
        std::string firstError;
        for (int p = 0; p < P; ++p) {
            const unsigned char* base = all.data() + per * static_cast<std::size_t>(p);
            MeetingHeader ph;
            std::memcpy(&ph, base, sizeof ph);
            std::memcpy(every.data() + static_cast<std::size_t>(p) * local_, base + sizeof ph, local_ * sizeof(SyncSlot));
            if (ph.stop) {
                anyStop = true;
                if (p != comm_.rank()) remoteStopped_ = true;
                if (firstError.empty() && ph.errorBytes > 0)
                    firstError = "process " + std::to_string(p) + ": " +
                                 std::string(ph.error, std::min<std::size_t>(ph.errorBytes, sizeof ph.error - 1));
            }
        }
        if (onMeeting) onMeeting(every);
        lock.lock();
        if (anyStop) {
            remoteError_ = firstError;
            stop_.store(true);
            ended_ = true;
            releaseCv_.notify_all();
            return;
        }
        arrived_ = 0;
        ++generation_;
        std::fill(slots_.begin(), slots_.end(), SyncSlot{});
        releaseCv_.notify_all();
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
