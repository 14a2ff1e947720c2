#include "io/emulated_storage.h"

#include "util/clock.h"

#include "util/errors.h"
#include "util/prng.h"
#include "util/quantity.h"
#include "util/units.h"

#include <algorithm>
#include <cmath>
#include <thread>

namespace trainio {

namespace {

using Clock = std::chrono::steady_clock;
// Sleeping requests look at rate changes at least this often; a change is thus effective within it.
constexpr std::chrono::milliseconds kRecheck{100};

// Clamped so that an extreme parameter (a 1 B/s cap, a lognormal tail) cannot overflow the clock.
Clock::duration seconds(double s) {
    constexpr double kMax = 1e9;
    return std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(std::isfinite(s) ? std::clamp(s, 0.0, kMax) : kMax));
}

Clock::duration scaled(Clock::duration d, double factor) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, Clock::period>(
        std::min(static_cast<double>(d.count()) * factor, 1e18)));
}

std::uint64_t nanosBetween(Clock::time_point a, Clock::time_point b) {
    return b > a ? static_cast<std::uint64_t>(
                       std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count())
                 : 0;
}

std::string number(double v) {
    return quantity::format(v, quantity::Kind::Real);
}

std::string limitText(double v, const char* unit) {
    return v > 0 ? number(v) + " " + unit : std::string("unlimited");
}

// Sleeps until `due`; the last kSpinWindow is spent spinning so that the wake-up is on time (a plain
// sleep wakes 50–100 µs late, which is 5 % of a 2 ms latency). The thread's timer slack is set to 1 ns
// once (as the compute emulator does), and the spin does not yield: on a loaded machine sched_yield
// hands the core to another runnable thread for a whole time slice, milliseconds late.
void sleepPrecisely(Clock::time_point due) {
    thread_local const bool slack = [] {
        tightenTimerSlack();
        return true;
    }();
    (void)slack;
    if (due - Clock::now() > EmulatedStorageBackend::kSpinWindow)
        std::this_thread::sleep_until(due - EmulatedStorageBackend::kSpinWindow);
    while (Clock::now() < due) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
}

// `smallest`: the least value above 0 that is allowed (0 itself is allowed unless `positive`).
void requireFinite(double v, const std::string& where, const std::string& key, bool positive,
                   const char* expected, double smallest = 0) {
    if (!std::isfinite(v) || v < 0 || (positive && v == 0) || (v > 0 && v < smallest))
        throw InputError(describeProblem(where, key, number(v), expected));
}

// The configuration's key for the centre and the spread of each kind (docs/emulated-storage.md).
const char* centerKey(LatencyKind k) {
    switch (k) {
    case LatencyKind::Constant:
        return "latency_ms.value";
    case LatencyKind::Normal:
        return "latency_ms.mean";
    case LatencyKind::Lognormal:
        return "latency_ms.median";
    case LatencyKind::Exponential:
        return "latency_ms.mean";
    case LatencyKind::None:
        break;
    }
    return "latency_ms";
}

// The median of the distribution in ms: the number a plot of "latency over time" shows.
double medianMs(const LatencyDistribution& d) {
    switch (d.kind) {
    case LatencyKind::None:
        return 0;
    case LatencyKind::Exponential:
        return d.centerMs * std::log(2.0);
    case LatencyKind::Normal: // truncated at 0: the median moves only when the mean is below 0.67 sigma
    case LatencyKind::Constant:
    case LatencyKind::Lognormal:
        return d.centerMs;
    }
    return 0;
}

} // namespace

const char* latencyKindName(LatencyKind kind) {
    switch (kind) {
    case LatencyKind::None:
        return "none";
    case LatencyKind::Constant:
        return "constant";
    case LatencyKind::Normal:
        return "normal";
    case LatencyKind::Lognormal:
        return "lognormal";
    case LatencyKind::Exponential:
        return "exponential";
    }
    return "none";
}

std::string describeLatency(const LatencyDistribution& d) {
    switch (d.kind) {
    case LatencyKind::None:
        return "none";
    case LatencyKind::Constant:
        return "constant " + number(d.centerMs) + " ms";
    case LatencyKind::Normal:
        return "normal(mean " + number(d.centerMs) + " ms, stdev " + number(d.spread) + " ms)";
    case LatencyKind::Lognormal:
        return "lognormal(median " + number(d.centerMs) + " ms, sigma " + number(d.spread) + ")";
    case LatencyKind::Exponential:
        return "exponential(mean " + number(d.centerMs) + " ms)";
    }
    return "none";
}

std::string describeStorageShape(const StorageShape& s) {
    std::string out;
    const auto add = [&out](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
    if (s.bandwidthBytesPerSecond > 0) add(number(s.bandwidthBytesPerSecond / kMiB) + " MiB/s");
    if (s.latency.kind != LatencyKind::None) add(describeLatency(s.latency));
    if (s.iops > 0) add(number(s.iops) + " IOPS");
    if (s.maxInflight > 0) add(std::to_string(s.maxInflight) + " in flight");
    if (s.shapeWrites) add("writes shaped too");
    return out.empty() ? std::string("no limits") : out;
}

nlohmann::json storageShapeJson(const StorageShape& s) {
    nlohmann::json latency = {{"type", latencyKindName(s.latency.kind)}};
    switch (s.latency.kind) {
    case LatencyKind::None:
        break;
    case LatencyKind::Constant:
        latency["value"] = s.latency.centerMs;
        break;
    case LatencyKind::Normal:
        latency["mean"] = s.latency.centerMs, latency["stdev"] = s.latency.spread;
        break;
    case LatencyKind::Lognormal:
        latency["median"] = s.latency.centerMs, latency["sigma"] = s.latency.spread;
        break;
    case LatencyKind::Exponential:
        latency["mean"] = s.latency.centerMs;
        break;
    }
    return {{"bandwidth_mib_s", s.bandwidthBytesPerSecond / kMiB},
            {"latency_ms", latency},
            {"iops", s.iops},
            {"max_inflight", s.maxInflight},
            {"shape_writes", s.shapeWrites}};
}

nlohmann::json storageChangesJson(const std::vector<StorageChange>& changes) {
    nlohmann::json out = nlohmann::json::array();
    for (const StorageChange& c : changes)
        out.push_back({{"seconds_since_start", c.secondsSinceStart},
                       {"unix_time", c.unixTime},
                       {"parameter", c.parameter},
                       {"old", c.oldValue},
                       {"new", c.newValue},
                       {"old_text", c.oldText},
                       {"new_text", c.newText}});
    return out;
}

void validateStorageShape(const StorageShape& s, const std::string& where) {
    requireFinite(s.bandwidthBytesPerSecond / kMiB, where, "bandwidth_mib_s", false,
                  "0 (unlimited) or a number of MiB/s >= 0.001", 0.001);
    requireFinite(s.iops, where, "iops", false, "0 (unlimited) or a number of requests per second >= 0.001",
                  0.001);
    const LatencyDistribution& l = s.latency;
    if (l.kind == LatencyKind::None) return;
    const bool positive = l.kind == LatencyKind::Lognormal || l.kind == LatencyKind::Exponential;
    requireFinite(l.centerMs, where, centerKey(l.kind), positive,
                  positive ? "a number of milliseconds > 0" : "a number of milliseconds >= 0");
    if (l.kind == LatencyKind::Normal)
        requireFinite(l.spread, where, "latency_ms.stdev", false, "a number of milliseconds >= 0");
    if (l.kind == LatencyKind::Lognormal)
        requireFinite(l.spread, where, "latency_ms.sigma", false,
                      "a number >= 0 (the standard deviation of ln latency)");
}

// A GCRA token bucket: tat_ is the time at which all work reserved so far is done. A reservation
// starts at tat_, or up to kBucketDepth in the past when the bucket has been idle (the credit).
class EmulatedStorageBackend::RateBucket {
  public:
    struct Reservation {
        Clock::time_point due;
        std::uint64_t generation = 0;
        double rate = 0;
    };

    explicit RateBucket(double rate) : rate_(rate), tat_(Clock::now()) {}

    // False when the bucket is unlimited (nothing to wait for).
    bool reserve(double units, Reservation& r) {
        std::lock_guard lock(mutex_);
        if (rate_ <= 0) return false;
        const Clock::time_point start = std::max(tat_, Clock::now() - kBucketDepth);
        tat_ = start + seconds(units / rate_);
        r = {tat_, generation_.load(std::memory_order_relaxed), rate_};
        return true;
    }

    void setRate(double rate) {
        std::lock_guard lock(mutex_);
        const Clock::time_point now = Clock::now();
        // The queued work keeps its units and is re-timed at the new rate; an unlimited bucket has no
        // queue and its stale tat_ must not become a burst of credit.
        if (rate_ > 0 && rate > 0 && tat_ > now)
            tat_ = now + scaled(tat_ - now, rate_ / rate);
        else
            tat_ = std::max(tat_, now);
        rate_ = rate;
        generation_.fetch_add(1, std::memory_order_release);
    }

    // Sleeps until the reservation is due, following rate changes. No spinning: a late wake-up is made
    // up by the bucket's credit, so the aggregate rate does not depend on the sleep's precision.
    void wait(Reservation r) {
        for (;;) {
            if (generation_.load(std::memory_order_acquire) != r.generation) {
                std::lock_guard lock(mutex_);
                if (rate_ <= 0) return;
                const Clock::time_point now = Clock::now();
                if (r.due > now) r.due = now + scaled(r.due - now, r.rate / rate_);
                r.rate = rate_;
                r.generation = generation_.load(std::memory_order_relaxed);
            }
            const Clock::time_point now = Clock::now();
            if (now >= r.due) return;
            std::this_thread::sleep_until(std::min(r.due, now + kRecheck));
        }
    }

  private:
    std::mutex mutex_;
    double rate_;
    Clock::time_point tat_;
    std::atomic<std::uint64_t> generation_{0};
};

EmulatedStorageBackend::EmulatedStorageBackend(std::shared_ptr<IoBackend> inner, const StorageShape& shape,
                                               std::uint64_t seed, WallClock clock)
    : ForwardingBackend(inner ? std::move(inner) : makePosixBackend()), seed_(seed), clock_(clock), shape_(shape) {
    validateStorageShape(shape, "emulated storage");
    publishLatency(shape.latency);
    shapeWrites_ = shape.shapeWrites;
    bytes_ = std::make_unique<RateBucket>(shape.bandwidthBytesPerSecond);
    requests_ = std::make_unique<RateBucket>(shape.iops);
    maxInflight_.store(shape.maxInflight);
}

EmulatedStorageBackend::~EmulatedStorageBackend() = default;

// All sequentially consistent (no fences: TSan does not model them): a reader that saw any field of a
// write in progress sees the sequence number move. Loads are plain moves on x86; only writers pay.
void EmulatedStorageBackend::publishLatency(const LatencyDistribution& d) {
    ++latencySeq_;
    latencyKind_ = static_cast<int>(d.kind);
    latencyCenterMs_ = d.centerMs;
    latencySpread_ = d.spread;
    ++latencySeq_;
}

double EmulatedStorageBackend::drawLatencySeconds() {
    LatencyDistribution d;
    for (;;) {
        const std::uint64_t seq = latencySeq_.load();
        d.kind = static_cast<LatencyKind>(latencyKind_.load());
        d.centerMs = latencyCenterMs_.load();
        d.spread = latencySpread_.load();
        if (!(seq & 1) && latencySeq_.load() == seq) break;
    }
    SplitMix64 g(mixSeed(seed_, latencyDraws_.fetch_add(1, std::memory_order_relaxed)));
    double ms = 0;
    switch (d.kind) {
    case LatencyKind::None:
        break;
    case LatencyKind::Constant:
        ms = d.centerMs;
        break;
    case LatencyKind::Normal:
        ms = std::max(0.0, d.centerMs + d.spread * g.normal());
        break;
    case LatencyKind::Lognormal:
        ms = d.centerMs * std::exp(d.spread * g.normal());
        break;
    case LatencyKind::Exponential:
        ms = g.exponential(d.centerMs);
        break;
    }
    return ms / 1e3;
}

// Without a limit a request only counts itself in. With one it waits under the mutex until there is
// room; the count stays atomic so that a limit set during a run sees the requests already in flight.
void EmulatedStorageBackend::enterDevice() {
    unsigned now = 0;
    if (maxInflight_.load() == 0) {
        now = inflight_.fetch_add(1) + 1;
    } else {
        std::unique_lock lock(inflightMutex_);
        inflightFree_.wait(lock, [this] {
            const unsigned limit = maxInflight_.load();
            return limit == 0 || inflight_.load() < limit;
        });
        now = inflight_.fetch_add(1) + 1;
    }
    unsigned seen = maxInflightSeen_.load(std::memory_order_relaxed);
    while (now > seen && !maxInflightSeen_.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {
    }
}

void EmulatedStorageBackend::leaveDevice() {
    inflight_.fetch_sub(1);
    if (maxInflight_.load() == 0) return;
    // Taking the mutex orders this exit before a waiter's check-then-sleep: no lost wake-up.
    { std::lock_guard lock(inflightMutex_); }
    inflightFree_.notify_one();
}

template <class Call> ssize_t EmulatedStorageBackend::shaped(Call&& call) {
    const Clock::time_point arrived = Clock::now();
    enterDevice();
    struct Leave {
        EmulatedStorageBackend& self;
        ~Leave() { self.leaveDevice(); }
    } leave{*this};
    const Clock::time_point admitted = Clock::now();
    waitInflightNs_.fetch_add(nanosBetween(arrived, admitted), std::memory_order_relaxed);

    RateBucket::Reservation r;
    if (requests_->reserve(1, r)) requests_->wait(r);
    const Clock::time_point issued = Clock::now();
    waitIopsNs_.fetch_add(nanosBetween(admitted, issued), std::memory_order_relaxed);

    const double latency = latencyKind_.load(std::memory_order_relaxed) != static_cast<int>(LatencyKind::None)
                               ? drawLatencySeconds()
                               : 0.0;
    const ssize_t n = call();
    if (latency > 0) {
        const Clock::time_point done = Clock::now();
        sleepPrecisely(issued + seconds(latency));
        waitLatencyNs_.fetch_add(nanosBetween(done, Clock::now()), std::memory_order_relaxed);
    }
    if (n > 0 && bytes_->reserve(static_cast<double>(n), r)) {
        const Clock::time_point before = Clock::now();
        bytes_->wait(r);
        waitBandwidthNs_.fetch_add(nanosBetween(before, Clock::now()), std::memory_order_relaxed);
    }
    statRequests_.fetch_add(1, std::memory_order_relaxed);
    if (n > 0) statBytes_.fetch_add(static_cast<std::uint64_t>(n), std::memory_order_relaxed);
    return n;
}

ssize_t EmulatedStorageBackend::pread(int handle, void* buf, std::size_t len, std::uint64_t offset) {
    return shaped([&] { return inner_->pread(handle, buf, len, offset); });
}

ssize_t EmulatedStorageBackend::pwrite(int handle, const void* buf, std::size_t len, std::uint64_t offset) {
    if (!shapeWrites_.load(std::memory_order_relaxed)) return inner_->pwrite(handle, buf, len, offset);
    return shaped([&] { return inner_->pwrite(handle, buf, len, offset); });
}


void EmulatedStorageBackend::logChange(const char* parameter, double oldValue, double newValue,
                                       std::string oldText, std::string newText) {
    const double now = clock_.now();
    changes_.push_back(
        {now - clock_.origin(), now, parameter, oldValue, newValue, std::move(oldText), std::move(newText)});
}

void EmulatedStorageBackend::setRate(RateBucket& bucket, double StorageShape::*field, double value,
                                     const char* parameter, double unitScale, const char* unit) {
    StorageShape probe;
    probe.*field = value;
    validateStorageShape(probe, "emulated storage");
    std::lock_guard lock(paramsMutex_);
    const double old = shape_.*field;
    if (old == value) return;
    shape_.*field = value;
    bucket.setRate(value);
    logChange(parameter, old / unitScale, value / unitScale, limitText(old / unitScale, unit),
              limitText(value / unitScale, unit));
}

void EmulatedStorageBackend::setBandwidth(double bytesPerSecond) {
    setRate(*bytes_, &StorageShape::bandwidthBytesPerSecond, bytesPerSecond, "bandwidth_mib_s", kMiB,
            "MiB/s");
}

void EmulatedStorageBackend::setIops(double iops) {
    setRate(*requests_, &StorageShape::iops, iops, "iops", 1, "IOPS");
}

void EmulatedStorageBackend::setLatency(const LatencyDistribution& latency) {
    StorageShape probe;
    probe.latency = latency;
    validateStorageShape(probe, "emulated storage");
    std::lock_guard lock(paramsMutex_);
    const LatencyDistribution old = shape_.latency;
    if (old == latency) return;
    shape_.latency = latency;
    publishLatency(latency);
    logChange("latency_ms", medianMs(old), medianMs(latency), describeLatency(old), describeLatency(latency));
}

void EmulatedStorageBackend::setMaxInflight(unsigned maxInflight) {
    std::lock_guard lock(paramsMutex_);
    const unsigned old = shape_.maxInflight;
    if (old == maxInflight) return;
    shape_.maxInflight = maxInflight;
    {
        std::lock_guard inflight(inflightMutex_);
        maxInflight_.store(maxInflight);
    }
    inflightFree_.notify_all();
    logChange("max_inflight", old, maxInflight, limitText(old, "requests"),
              limitText(maxInflight, "requests"));
}

void EmulatedStorageBackend::setShapeWrites(bool on) {
    std::lock_guard lock(paramsMutex_);
    if (shape_.shapeWrites == on) return;
    shape_.shapeWrites = on;
    shapeWrites_.store(on, std::memory_order_relaxed);
    logChange("shape_writes", on ? 0 : 1, on ? 1 : 0, on ? "false" : "true", on ? "true" : "false");
}

void EmulatedStorageBackend::setShape(const StorageShape& shape) {
    validateStorageShape(shape, "emulated storage");
    setBandwidth(shape.bandwidthBytesPerSecond);
    setLatency(shape.latency);
    setIops(shape.iops);
    setMaxInflight(shape.maxInflight);
    setShapeWrites(shape.shapeWrites);
}

StorageShape EmulatedStorageBackend::shape() const {
    std::lock_guard lock(paramsMutex_);
    return shape_;
}

std::vector<StorageChange> EmulatedStorageBackend::changes() const {
    std::lock_guard lock(paramsMutex_);
    return changes_;
}

std::string bindingLimit(const EmulationStats& before, const EmulationStats& after, double intervalSeconds) {
    const std::pair<const char*, double> waits[] = {
        {"bandwidth", after.bandwidthWaitSeconds - before.bandwidthWaitSeconds},
        {"IOPS", after.iopsWaitSeconds - before.iopsWaitSeconds},
        {"in flight", after.inflightWaitSeconds - before.inflightWaitSeconds},
        {"latency", after.latencyWaitSeconds - before.latencyWaitSeconds}};
    double total = 0;
    const std::pair<const char*, double>* most = &waits[0];
    for (const auto& w : waits) {
        total += std::max(0.0, w.second);
        if (w.second > most->second) most = &w;
    }
    if (!(intervalSeconds > 0) || total < 0.01 * intervalSeconds || most->second <= 0) return {};
    return most->first;
}

std::string runLimit(const EmulationStats& before, const EmulationStats& after, double intervalSeconds,
                     std::optional<double> auPercent) {
    if (auPercent && *auPercent >= kComputeBoundAuPercent) return kComputeLimit;
    return bindingLimit(before, after, intervalSeconds);
}

EmulationStats EmulatedStorageBackend::stats() const {
    auto secs = [](const std::atomic<std::uint64_t>& ns) { return static_cast<double>(ns.load()) / 1e9; };
    EmulationStats s;
    s.requests = statRequests_.load();
    s.bytes = statBytes_.load();
    s.inflightWaitSeconds = secs(waitInflightNs_);
    s.iopsWaitSeconds = secs(waitIopsNs_);
    s.latencyWaitSeconds = secs(waitLatencyNs_);
    s.bandwidthWaitSeconds = secs(waitBandwidthNs_);
    s.maxInflightSeen = maxInflightSeen_.load();
    return s;
}

} // namespace trainio
