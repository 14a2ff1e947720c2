// "Shrink to fit this machine": a workload with the same shape (format, samples per file, batch size,
// reader threads, compute time, the record size distribution's shape) whose dataset fits this machine
// and whose epoch takes about a minute — what a first run on a laptop needs. Only num_files_train is
// reduced, and the record length (mean, stdev and resize scaled by one factor) only when even the
// smallest runnable dataset would not fit. At least one step per accelerator is always kept.
#pragma once

#include "config/workload_config.h"

#include <cstdint>
#include <string>

namespace trainio {

struct MachineBudget {
    double freeBytes = 0;            // free space of the file system that holds (or will hold) the data folder
    double ramBytes = 0;             // this host's RAM
    std::uint64_t accelerators = 1;  // emulated accelerators of the run
    double targetEpochSeconds = 60;  // one epoch should take about this long, or less
    // Assumed read rate while estimating the epoch time: a dataset that fits in a quarter of RAM is read
    // mostly from the page cache after generation, so the compute time usually dominates.
    double readBytesPerSecond = 1e9;
};

// The budget of this machine for a data folder: free space via std::filesystem::space of the folder or
// its nearest existing parent, RAM from /proc/meminfo.
MachineBudget measureMachine(const std::string& dataFolder, std::uint64_t accelerators);

struct ShrinkResult {
    WorkloadConfig config;      // the shrunk workload (equal to the input when nothing had to change)
    bool changed = false;
    bool fits = true;           // false when not even one step per accelerator of 1-byte records fits
    std::uint64_t filesBefore = 0, filesAfter = 0;
    double recordBefore = 0, recordAfter = 0;
    double datasetBytes = 0;    // estimated bytes on disk afterwards (train + eval files)
    double byteBudget = 0;      // min(half the free space, a quarter of RAM)
    std::uint64_t stepsPerEpoch = 0; // per accelerator, afterwards
    double epochSeconds = 0;    // estimated
    std::string summary;        // what changed and why, in one paragraph
};

// Estimated on-disk size of one file: samples × record length plus 4 KiB of headers and slack.
double estimatedFileBytes(const DatasetSection& d);

ShrinkResult shrinkToFit(const WorkloadConfig& cfg, const MachineBudget& budget);

} // namespace trainio
