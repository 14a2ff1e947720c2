// A sampler thread that records host telemetry beside a run: CPU (total, per core, this process), memory
// and page cache, per block device and per network interface rates, and GPUs through nvidia-smi where it
// exists. Columns and formulas: docs/telemetry.md.
//
// Integration (one object per run, owned by whoever owns the run):
//     telemetry::TelemetryOptions opt;
//     opt.intervalS = cfg.trainio.telemetry_interval_s;      // default 1 s
//     telemetry::TelemetrySampler sampler(opt, clock, runStartUnix);  // the run's WallClock and t = 0
//     sampler.start();                                       // before the first epoch; throws on bad options
//     …run…                                                  // the GUI may poll rowsFrom(n) or set opt.onRow
//     auto table = sampler.stop();                           // after the last epoch
//     store::writeTelemetryFiles(invocationFolder, table);   (store/run_files.h)
//     auto verdict = telemetry::clientBound(table, epochStart, epochEnd);  // per epoch or for the run
//
// Thread-safety: start() and stop() from one owning thread; rowCount(), rowsFrom(), columns(), waitForRows()
// from any thread. onRow runs on the sampler thread (keep it short, e.g. queue a Qt signal).
// Cost: nothing on the engine's hot path (the sampler only reads /proc from its own thread); that thread
// costs about 0.15–0.2 ms of CPU per sample in an optimised build, 0.02 % of a core at 1 Hz
// (tests/bench/bench_telemetry.cpp, docs/telemetry.md), plus one nvidia-smi child process per sample where
// that program exists.
#pragma once

#include "telemetry/telemetry_table.h"
#include "util/clock.h"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace trainio::telemetry {

struct TelemetryOptions {
    double intervalS = 1.0; // > 0 and <= 3600
    // Block devices: by default every whole disk (a /sys/block/<name> entry) except loop*, ram* and zram*
    // devices; partitions are never whole disks. `allDisks` lists every line of /proc/diskstats instead;
    // a non-empty `disks` lists exactly those names (partitions allowed) and fails if one is absent.
    bool allDisks = false;
    std::vector<std::string> disks;
    // Network interfaces: every interface but lo, or exactly the ones named.
    std::vector<std::string> interfaces;
    // With the default interfaces, lo too: the data comes over loopback (an S3 endpoint on this host).
    bool loopback = false;
    // nvidia-smi as a name searched in $PATH or a path; empty turns GPU telemetry off.
    std::string nvidiaSmi = "nvidia-smi";
    double gpuTimeoutS = 2.0;
    std::string sysBlockDir = "/sys/block"; // where whole disks are listed (tests point it elsewhere)
    std::function<void(const std::vector<double>& row)> onRow;
};

// The default device rule on its own, for tests and the documentation: `name` is listed when
// sysBlockDir/name exists and the name does not start with loop, ram or zram.
bool isDefaultDisk(const std::string& name, const std::string& sysBlockDir);

class TelemetrySampler {
public:
    // `clock` is copied (it is two numbers); rows carry clock.now() - runStartUnix.
    TelemetrySampler(TelemetryOptions options, WallClock clock, double runStartUnix);
    ~TelemetrySampler();
    TelemetrySampler(const TelemetrySampler&) = delete;
    TelemetrySampler& operator=(const TelemetrySampler&) = delete;

    // Reads every source once (the baseline the first row's rates start from), fixes the columns and
    // starts the thread. Throws InputError for bad options (interval, a named device or interface that
    // does not exist) and RunError when /proc cannot be read.
    void start();
    // Takes a last sample when at least a quarter interval has passed since the previous one (so the rows
    // cover the run to its end), joins the thread and returns the table. A sampling error that stopped
    // the thread early is in the table's notes and in error().
    TelemetryTable stop();

    std::vector<TelemetryColumn> columns() const;
    std::size_t rowCount() const;
    std::vector<std::vector<double>> rowsFrom(std::size_t first) const;
    // Waits on the sampler's own notification until at least n rows exist, the thread has stopped, or
    // the timeout passes; returns whether n rows exist.
    bool waitForRows(std::size_t n, std::chrono::milliseconds timeout) const;
    std::string error() const;

    // The sampler thread's own CPU time (CLOCK_THREAD_CPUTIME_ID) and its number of samples, valid after
    // stop(): the cost figure the benchmark reports.
    double threadCpuSeconds() const { return threadCpuSeconds_; }
    std::size_t samplesTaken() const { return samplesTaken_; }

private:
    struct Sources; // the open /proc files, their buffers and the previous readings
    void run();
    void sampleOnce();

    TelemetryOptions opt_;
    WallClock clock_;
    double runStartUnix_;
    std::unique_ptr<Sources> src_;
    std::thread thread_;
    mutable std::mutex mu_;
    mutable std::condition_variable cv_;
    bool stopping_ = false;
    bool finished_ = false;
    TelemetryTable table_; // columns fixed by start(); rows appended under mu_
    std::string error_;
    double threadCpuSeconds_ = 0;
    std::size_t samplesTaken_ = 0;
};

} // namespace trainio::telemetry
