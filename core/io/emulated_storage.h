// Emulated storage for demos: an IoBackend decorator that makes any backend (posix, O_DIRECT, mmap,
// io_uring, fault injection) behave like a slower device, so that "slow storage starves the
// accelerators" can be shown on a workstation whose dataset sits in the page cache.
//
// Used by every run through StorageSession (session/storage_session.h), which builds
//     auto shaped = std::make_shared<EmulatedStorageBackend>(engineIo, storageShapeFor(cfg.trainio.storage),
//                                                            cfg.train.seed, runClock);
// hands `shaped` to the readers and to the GUI's live controls, and writes storageShapeJson(shape) (plus
// the profile as given) and storageChangesJson(shaped->changes()) into trainio_io.json's "storage".
// Thread-safety: every IoBackend call, setter and accessor may be called from any thread at any time.
// Clocks: the change log is stamped with the given WallClock (util/clock.h; pass the run's clock so
// that times line up with the step records); waits use std::chrono::steady_clock, which WallClock is
// built on.
//
// What is one request: one pread (or pwrite, when shape.shapeWrites) call on this backend. With the
// posix, odirect and mmap engines the readers call pread once per reader.transfer_size chunk (readFully
// in io_backend.h), so latency and the IOPS cap apply per transfer-size chunk; with io_uring they hand
// over whole samples (the engine splits them below this decorator), so a sample-sized read is one
// request (docs/emulated-storage.md). open/size/fsync/close pass straight through.
//
// The model of one request, in order:
//   1. concurrency: wait until fewer than max_inflight requests are in flight (the device's queue);
//   2. IOPS: take one token from the request bucket (wait until it is due);
//   3. the real call on the wrapped backend;
//   4. latency: wait until the latency drawn for this request has passed since step 3 began (the real
//      call's own time counts towards it: emulation can only add time, never remove it);
//   5. bandwidth: reserve the bytes actually moved in the aggregate byte bucket shared by all threads
//      and wait until that transfer is due (a device streams after its access latency).
//   The request leaves the in-flight count after step 5.
// Both buckets are GCRA token buckets (virtual finish time) holding at most kBucketDepth of credit, so a
// late wake-up of one thread is made up by the next request and the aggregate rate holds whatever the
// sleep precision; a bucket starts empty (no burst at the start of a run).
//
// Live changes: every setter may be called from any thread during a run. A new rate also rescales the
// work already queued in its bucket (its bytes are re-timed at the new rate) and sleeping requests
// re-check at least every 100 ms, so a change is effective within well under one second. A new latency
// applies to requests that reach the device after the change (one already drawn is served as drawn). Each
// change is appended to a log with the time since the clock's origin (pass the engine's run clock) so results
// and plots can show it.
//
// Cost on the hot path: per request a few atomics, a short mutex section per bucket that has a rate
// (reservation) and two while max_inflight is set (the queue), and one PRNG draw when a latency is set.
// Waiting sleeps until the due time; only latency waits spin, and only for the last kSpinWindow (100 µs),
// because a device's access time is what the latency figure is about. A parameter that is 0 / None costs
// nothing beyond a check.
//
// Latency draws are reproducible: draw k (k = 0, 1, … in the order requests reach step 3) comes from
// SplitMix64 seeded with mixSeed(seed, k). With one thread the latencies are the same on every run;
// with several, the same set of values is handed out in the order the threads arrive.
#pragma once

#include "io/io_backend.h"
#include "util/clock.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace trainio {

enum class LatencyKind { None, Constant, Normal, Lognormal, Exponential };

// A per-request latency in milliseconds.
//   Constant:    centerMs every time.
//   Normal:      mean centerMs, standard deviation spread (ms); draws below 0 are taken as 0, which
//                raises the mean when spread is not small against centerMs.
//   Lognormal:   median centerMs, sigma = spread (the standard deviation of ln(latency)); mean is
//                centerMs·exp(spread²/2).
//   Exponential: mean centerMs (median centerMs·ln 2).
struct LatencyDistribution {
    LatencyKind kind = LatencyKind::None;
    double centerMs = 0;
    double spread = 0;
    bool operator==(const LatencyDistribution&) const = default;
};

// The parameters of an emulated device. 0 means "no limit" for every cap.
struct StorageShape {
    double bandwidthBytesPerSecond = 0; // aggregate over all threads
    LatencyDistribution latency;        // per request
    double iops = 0;                    // requests per second, aggregate
    unsigned maxInflight = 0;           // requests in flight at once
    bool shapeWrites = false;           // also shape pwrite (checkpoints); reads are always shaped
    bool operator==(const StorageShape&) const = default;
};

// Throws InputError naming `where`, the key and the value when a parameter is negative, not finite or
// inconsistent (e.g. a lognormal without a positive median).
void validateStorageShape(const StorageShape& shape, const std::string& where);
// "lognormal(median 2 ms, sigma 0.5)", "constant 0.1 ms", "none" — for change logs and reports.
std::string describeLatency(const LatencyDistribution& latency);
const char* latencyKindName(LatencyKind kind);
// The whole device in one line, limits only: "250 MiB/s, lognormal(median 8 ms, sigma 0.5), 200 IOPS,
// 32 in flight"; "no limits" when every parameter is 0 / none. For reports and the results' details.
std::string describeStorageShape(const StorageShape& shape);

// The shape in the configuration's keys (docs/emulated-storage.md), for results files:
// {"bandwidth_mib_s", "latency_ms": {"type", …}, "iops", "max_inflight", "shape_writes"}; 0 = unlimited.
// It reads back with parseStorageShape (io/storage_profile.h).
nlohmann::json storageShapeJson(const StorageShape& shape);

// One live change of a parameter.
struct StorageChange {
    double secondsSinceStart = 0; // the clock's now() − origin()
    double unixTime = 0;          // the clock's now()
    std::string parameter;        // bandwidth_mib_s | latency_ms | iops | max_inflight | shape_writes
    // Numbers for plots: MiB/s, IOPS, requests, 0/1; for latency_ms the distribution's median in ms.
    double oldValue = 0;
    double newValue = 0;
    std::string oldText; // the whole value in words ("lognormal(median 2 ms, sigma 0.5)", "unlimited")
    std::string newText;
};

// [{"seconds_since_start", "unix_time", "parameter", "old", "new", "old_text", "new_text"}, …]
nlohmann::json storageChangesJson(const std::vector<StorageChange>& changes);

// Counters since construction; for reports and tests.
struct EmulationStats {
    std::uint64_t requests = 0;
    std::uint64_t bytes = 0;
    double inflightWaitSeconds = 0; // summed over requests (several threads wait at once)
    double iopsWaitSeconds = 0;
    double latencyWaitSeconds = 0;
    double bandwidthWaitSeconds = 0;
    unsigned maxInflightSeen = 0;
};

// Which of the device's limits held the readers back most between two readings of its counters: the one
// whose summed wait grew most — "bandwidth", "IOPS", "in flight" or "latency" — or "" when the requests
// waited (in all) less than 1 % of the interval: the device was not what the run waited for. For the
// Run page's "limited by" and the presentation view.
std::string bindingLimit(const EmulationStats& before, const EmulationStats& after, double intervalSeconds);

// What limits the run right now — one answer for the Run page's "limited by" and the presentation view,
// in the model's words (docs/model.md: compute, or a reader roof). kComputeLimit when the accelerators
// lost less than 100 − kComputeBoundAuPercent % of their time (`auPercent`, the AU over the recent steps):
// whatever the readers waited on then cost no AU, so no device limit is named; else the device limit the
// readers waited on most (bindingLimit); else "" — the accelerators waited, but not for the device.
// Without an AU yet (nullopt: before the first steps), bindingLimit alone.
inline constexpr double kComputeBoundAuPercent = 98.0;
inline constexpr const char* kComputeLimit = "compute (storage idle)";
std::string runLimit(const EmulationStats& before, const EmulationStats& after, double intervalSeconds,
                     std::optional<double> auPercent);

class EmulatedStorageBackend final : public ForwardingBackend {
  public:
    // How much unused rate a bucket keeps as credit; also the largest burst above the cap.
    static constexpr std::chrono::milliseconds kBucketDepth{20};
    static constexpr std::chrono::microseconds kSpinWindow{100};

    // Throws InputError when `shape` is invalid (validateStorageShape).
    EmulatedStorageBackend(std::shared_ptr<IoBackend> inner, const StorageShape& shape, std::uint64_t seed,
                           WallClock clock = WallClock());
    ~EmulatedStorageBackend() override;

    // Reads (and writes, when shaped) wait for the device's bandwidth, IOPS, in-flight and latency limits;
    // open, size, fsync and close go straight to the inner backend (ForwardingBackend).
    const char* name() const override { return "emulated-storage"; }
    ssize_t pread(int handle, void* buf, std::size_t len, std::uint64_t offset) override;
    ssize_t pwrite(int handle, const void* buf, std::size_t len, std::uint64_t offset) override;

    // Live controls, callable from any thread. Invalid values throw InputError and change nothing.
    void setBandwidth(double bytesPerSecond);
    void setLatency(const LatencyDistribution& latency);
    void setIops(double iops);
    void setMaxInflight(unsigned maxInflight);
    void setShapeWrites(bool on);
    // Applies every parameter that differs from the current one (each logged separately).
    void setShape(const StorageShape& shape);

    StorageShape shape() const;
    std::vector<StorageChange> changes() const;
    EmulationStats stats() const;

    class RateBucket; // defined in the .cpp

  private:
    template <class Call> ssize_t shaped(Call&& call);
    void logChange(const char* parameter, double oldValue, double newValue, std::string oldText,
                   std::string newText);
    double drawLatencySeconds();
    void publishLatency(const LatencyDistribution& latency); // with paramsMutex_ held
    void enterDevice();
    void leaveDevice();
    // A bandwidth or IOPS change: validates, updates the bucket and logs it (in unit / unitScale).
    void setRate(RateBucket& bucket, double StorageShape::*field, double value, const char* parameter,
                 double unitScale, const char* unit);

    const std::uint64_t seed_;
    const WallClock clock_;

    mutable std::mutex paramsMutex_; // shape_ (latency distribution) and the change log
    StorageShape shape_;
    std::vector<StorageChange> changes_;
    // The latency distribution as the hot path reads it, without a lock: a sequence lock whose
    // writers hold paramsMutex_ (odd latencySeq_ = being written).
    std::atomic<std::uint64_t> latencySeq_{0};
    std::atomic<int> latencyKind_{0};
    std::atomic<double> latencyCenterMs_{0}, latencySpread_{0};
    std::atomic<bool> shapeWrites_{false};
    std::atomic<std::uint64_t> latencyDraws_{0};

    std::unique_ptr<RateBucket> bytes_;
    std::unique_ptr<RateBucket> requests_;

    // Counted with atomics; requests take the mutex only while a limit is set (waiting needs it).
    std::mutex inflightMutex_;
    std::condition_variable inflightFree_;
    std::atomic<unsigned> inflight_{0};
    std::atomic<unsigned> maxInflight_{0};

    std::atomic<std::uint64_t> statRequests_{0}, statBytes_{0};
    std::atomic<std::uint64_t> waitInflightNs_{0}, waitIopsNs_{0}, waitLatencyNs_{0}, waitBandwidthNs_{0};
    std::atomic<unsigned> maxInflightSeen_{0};
};

} // namespace trainio
