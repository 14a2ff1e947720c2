#include "model/storage_probe.h"

#include "dataset/dataset_layout.h"
#include "format/sample_reader.h"
#include "io/cache_control.h"
#include "io/io_backend.h"
#include "util/clock.h"
#include "util/errors.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <thread>

namespace trainio::model {
namespace {

using Clock = std::chrono::steady_clock;

// Counts the preads that reach the device and the time spent in them.
class TimedBackend final : public ForwardingBackend {
  public:
    explicit TimedBackend(std::shared_ptr<IoBackend> inner) : ForwardingBackend(std::move(inner)) {}
    const char* name() const override { return "probe"; }
    ssize_t pread(int handle, void* buf, std::size_t len, std::uint64_t offset) override {
        const auto t0 = Clock::now();
        const ssize_t n = inner_->pread(handle, buf, len, offset);
        ns_.fetch_add(static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count()),
                      std::memory_order_relaxed);
        requests_.fetch_add(1, std::memory_order_relaxed);
        if (n > 0) bytes_.fetch_add(static_cast<std::uint64_t>(n), std::memory_order_relaxed);
        return n;
    }

    void reset() {
        ns_ = 0;
        requests_ = 0;
        bytes_ = 0;
    }
    std::uint64_t requests() const { return requests_.load(); }
    std::uint64_t bytes() const { return bytes_.load(); }
    double seconds() const { return static_cast<double>(ns_.load()) / 1e9; }

  private:
    std::atomic<std::uint64_t> ns_{0}, requests_{0}, bytes_{0};
};

struct PassResult {
    double wallSeconds = 0;
    double cpuSeconds = 0; // summed over threads
    std::uint64_t samples = 0;
};

// `threads` readers take the files in turn and read every sample of each, as the engine's readers do.
PassResult readPass(const WorkloadConfig& cfg, IoBackend& io, const std::vector<std::string>& files, unsigned threads,
                    double limitSeconds) {
    SampleReaderOptions ro;
    ro.transferSize = cfg.reader.transferSize;
    ro.samplesPerFile = std::max<std::uint64_t>(1, cfg.dataset.numSamplesPerFile);
    std::atomic<std::size_t> next{0};
    std::atomic<std::uint64_t> samples{0};
    std::mutex m;
    double cpu = 0;
    std::string error;
    const auto start = Clock::now();
    const auto deadline = start + std::chrono::duration<double>(limitSeconds);
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back([&] {
            const double c0 = threadCpuSeconds();
            try {
                auto reader = makeSampleReader(cfg.dataset.format, io, ro);
                for (;;) {
                    const std::size_t i = next.fetch_add(1);
                    if (i >= files.size() || Clock::now() >= deadline) break;
                    for (std::uint64_t k = 0; k < ro.samplesPerFile; ++k) {
                        reader->read(files[i], k);
                        samples.fetch_add(1, std::memory_order_relaxed);
                    }
                }
            } catch (const std::exception& e) {
                std::lock_guard lock(m);
                if (error.empty()) error = e.what();
            }
            std::lock_guard lock(m);
            cpu += threadCpuSeconds() - c0;
        });
    for (auto& th : pool) th.join();
    if (!error.empty()) throw RunError("probe: " + error);
    PassResult r;
    r.wallSeconds = std::chrono::duration<double>(Clock::now() - start).count();
    r.cpuSeconds = cpu;
    r.samples = samples.load();
    return r;
}

} // namespace

StorageParameters probeStorage(const WorkloadConfig& cfg, const std::string& dataFolder, const ProbeOptions& options) {
    DatasetSection ds = cfg.dataset;
    ds.dataFolder = dataFolder;
    const DatasetLayout layout(ds);
    std::vector<std::string> files;
    const std::uint64_t want = std::min<std::uint64_t>(ds.numFilesTrain, std::max<std::uint64_t>(1, options.maxFiles));
    std::error_code ec;
    for (std::uint64_t k = 0; k < want; ++k) {
        std::string path = layout.filePath(Split::Train, k * ds.numFilesTrain / want);
        if (std::filesystem::is_regular_file(path, ec)) files.push_back(std::move(path));
    }
    if (files.empty())
        throw InputError("--probe " + dataFolder + ": none of the workload's train files is there (e.g. " +
                         layout.filePath(Split::Train, 0) + "); run `trainio-cli datagen` with dataset.data_folder=" +
                         dataFolder + " first");
    if (options.threads.empty()) throw InputError("probe: no thread counts to measure");

    auto timed = std::make_shared<TimedBackend>(makePosixBackend());
    StorageParameters p;
    p.source = StorageSource::Probe;
    p.origin = dataFolder;
    std::vector<unsigned> counts = options.threads;
    std::sort(counts.begin(), counts.end());
    counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
    for (unsigned t : counts) {
        if (t == 0) continue;
        applyCacheControl(CacheMode::Fadvise, files);
        timed->reset();
        const PassResult r = readPass(cfg, *timed, files, t, options.secondsPerPoint);
        ProbePoint pt;
        pt.threads = t;
        pt.bytesPerSecond = r.wallSeconds > 0 ? static_cast<double>(timed->bytes()) / r.wallSeconds : 0;
        pt.requestLatencySeconds = timed->requests() > 0 ? timed->seconds() / static_cast<double>(timed->requests()) : 0;
        p.curve.push_back(pt);
    }
    // The client's own cost: the same files again, now page-cached, on one thread.
    readPass(cfg, *timed, files, 1, options.secondsPerPoint); // make sure they are cached
    const PassResult cached = readPass(cfg, *timed, files, 1, options.secondsPerPoint);
    p.clientSecondsPerSample = cached.samples > 0 ? cached.cpuSeconds / static_cast<double>(cached.samples) : 0;

    double peak = 0;
    for (const auto& pt : p.curve) peak = std::max(peak, pt.bytesPerSecond);
    p.shape.bandwidthBytesPerSecond = peak;
    if (!p.curve.empty() && p.curve.front().requestLatencySeconds > 0) {
        p.shape.latency.kind = LatencyKind::Constant;
        p.shape.latency.centerMs = p.curve.front().requestLatencySeconds * 1000.0;
    }
    return p;
}

} // namespace trainio::model
