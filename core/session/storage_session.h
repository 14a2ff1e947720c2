// The storage side of one invocation (issue "Storage truth"), around the engine: the I/O stack the
// readers use (the engine chosen by trainio.io_engine, wrapped in emulated storage when trainio.storage
// asks for it), cache control and page-cache metering between epochs, the telemetry sampler around the
// run — and, after it, trainio_io.json and telemetry.csv/json in the invocation folder.
#pragma once

#include "config/workload_config.h"
#include "io/cache_control.h"
#include "io/emulated_storage.h"
#include "io/io_engines.h"
#include "io/page_cache.h"
#include "io/s3_backend.h"
#include "telemetry/telemetry_sampler.h"
#include "telemetry/telemetry_summary.h"

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace trainio {

struct RunOutcome; // engine/training_engine.h
namespace store {
class WrittenFiles; // store/written_files.h
}


class StorageSession {
public:
    // `base` is the backend the engine would use (null: POSIX); tests pass a fault-injecting one. `process`:
    // this MPI process's rank (storage.storage_type s3 reads from its entry of the endpoint list).
    StorageSession(const WorkloadConfig& cfg, std::shared_ptr<IoBackend> base, std::uint64_t process = 0);
    ~StorageSession();

    std::shared_ptr<IoBackend> io() const { return io_; }
    // The emulated device for live changes (null when the workload emulates none).
    std::shared_ptr<EmulatedStorageBackend> emulated() const { return emulated_; }

    // EngineOptions::beforeEpoch / afterEpoch.
    void beforeEpoch(std::uint64_t epoch);
    void afterEpoch(std::uint64_t epoch, const std::vector<std::uint64_t>& bytesPerRank);

    // What the GUI shows live (InvocationOptions::onTelemetry / onEpochCache); set before the run starts.
    // onTelemetry runs on the sampler thread, onEpochCache on the thread that calls afterEpoch.
    std::function<void(const telemetry::TelemetryPoint&)> onTelemetry;
    std::function<void(std::uint64_t epoch, double percentFromCache)> onEpochCache;
    // storage.storage_type s3, instead of onEpochCache: the epoch's requests (the thread that calls afterEpoch).
    std::function<void(std::uint64_t epoch, const S3EpochFigures&)> onEpochS3;

    void startTelemetry();
    // Stops the sampler (if started) and returns the warnings for the result: most bytes from the page
    // cache, a client-bound run.
    std::vector<std::string> stop();
    // Writes trainio_io.json and telemetry.csv/json into `dir` through `io` (null: POSIX), held in `written`
    // too when given (store/written_files.h). A file that cannot be written does not cost the run: its error
    // is returned as a warning instead.
    std::vector<std::string> write(const std::filesystem::path& dir, IoBackend* io, store::WrittenFiles* written = nullptr) const;

    // The loader policy's figures of a finished (or stopped) run, written into trainio_io.json: "loader" (the
    // policy, its capacities and the nopfs placement) and, in each epoch entry, hit_ratio,
    // belady_hit_ratio, stall_seconds and bytes_per_tier (docs/loader.md). Call before write().
    void setLoaderReport(const WorkloadConfig& cfg, const RunOutcome& outcome);

    // This workload runs beside others in the process (a collocation, core/session/collocation.h): the
    // process's I/O counters are not its own (the page cache share is the collocation's, written there),
    // and the result says so.
    void collocate(const std::string& with);

    // storage.storage_type s3: the memory budget told before the run (preflight/memory_budget.h) for this
    // process's `accelerators`, kept to be written beside the process's measured peak.
    void setMemoryBudget(std::uint64_t accelerators);

    // Seconds spent in cache control before each epoch (outside the measured epochs).
    const std::vector<double>& cacheControlSeconds() const { return cacheSeconds_; }

private:
    const WorkloadConfig& cfg_;
    std::shared_ptr<IoBackend> io_;
    std::shared_ptr<IoEngineBackend> engine_; // null when a backend that is no IoEngineBackend was handed in
    std::shared_ptr<EmulatedStorageBackend> emulated_;
    CacheMode cache_ = CacheMode::Keep;
    std::vector<std::string> files_;
    std::unique_ptr<PageCacheMeter> meter_; // null with storage.storage_type s3
    std::shared_ptr<S3Backend> s3_;          // storage.storage_type s3: the readers' backend
    std::vector<std::string> s3Warnings_;
    nlohmann::json s3Epochs_ = nlohmann::json::array();
    nlohmann::json s3Checkpoints_; // a checkpoint-only run: its requests (it has no epochs)
    nlohmann::json s3Memory_;      // the budget and the measured peak
    IoReport report_;
    std::vector<double> cacheSeconds_;
    WallClock clock_;
    nlohmann::json loader_;       // "loader"
    nlohmann::json loaderEpochs_; // per epoch: the fields above, keyed by epoch number
    std::unique_ptr<telemetry::TelemetrySampler> sampler_;
    std::optional<telemetry::TelemetryTable> telemetry_;
    std::string collocatedWith_;
};

} // namespace trainio
