// What the importer learns from result folders: one record per invocation (one DLIO call, one
// summary.json — or several, one per host, when a run folder holds host folders), runs grouped by
// workload identity, and every file it had to skip with the reason.
#pragma once

#include <compare>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace trainio::aggregate {

struct InvocationRecord {
    std::filesystem::path path;                      // the run folder
    std::vector<std::filesystem::path> summaryFiles; // one per host folder, usually just one
    std::string runName;                             // the run folder's name, as the MLPerf report keys it
    std::string model;                               // from overrides.yaml "workload=<model>_<accel>", else config.yaml
    std::string accelerator;                         // "" when neither file names it
    std::int64_t accelerators = 0;                   // summed over hosts
    std::int64_t filesTrain = 0;
    std::int64_t samplesPerFile = 0;
    std::optional<double> recordLengthBytes;         // dataset.record_length(_bytes), mean bytes per sample
    std::vector<double> epochAuPercent;              // per epoch (mean over hosts)
    std::vector<double> epochSamplesPerSecond;       // per epoch (sum over hosts)
    double auMeanPercent = 0.0;                      // metric.train_au_mean_percentage
    double auStdevPercent = 0.0;
    double samplesPerSecond = 0.0;                   // metric.train_throughput_mean_samples_per_second
    double samplesPerSecondStdev = 0.0;
    double mbPerSecond = 0.0;                        // metric.train_io_mean_MB_per_second (really MiB/s)
    double mbPerSecondStdev = 0.0;
    std::string auMeetExpectation;                   // "success" / "fail" as DLIO wrote it
    std::optional<double> auThresholdPercent;        // metric.au × 100 from config.yaml
    std::string auThresholdSource;                   // where the threshold came from
    double hostMemoryGiB = 0.0;                      // sum of host_memory_GB slots: only the sum is reliable
    std::int64_t numHosts = 0;
    std::int64_t epochs = 0;
    std::string start;
    std::string end;
    std::vector<std::string> hostnames;
    bool warmup = false;
    std::vector<std::pair<std::string, std::string>> overrides; // configs/overrides.yaml keys ("workload." stripped) and values
    std::vector<std::string> notes;                  // quirks tolerated while reading
};

struct WorkloadIdentity {
    std::string model;
    std::string accelerator;
    std::int64_t accelerators = 0;
    std::int64_t filesTrain = 0;
    std::int64_t samplesPerFile = 0;
    auto operator<=>(const WorkloadIdentity&) const = default;
};

struct RunGroup {
    std::filesystem::path path;        // the folder the run folders were found in
    WorkloadIdentity identity;
    std::vector<std::size_t> runs;     // measured invocations (indices into ImportResult::runs), by name
    std::vector<std::size_t> warmups;  // warm-up invocations, excluded from every statistic
    std::string system;                // system label (systems/<name>.json, else a folder or user label)
    std::optional<std::filesystem::path> systemFile;
    std::optional<std::filesystem::path> existingReport; // an mlperf_storage_report.json beside the runs
};

struct SkippedFile {
    std::filesystem::path path;
    std::string reason;
};

struct ImportOptions {
    std::string systemLabel;                       // used when no systems/*.json names the system
    std::uintmax_t maxFileBytes = 64ull << 20;     // larger summary/config files are skipped
    int maxJsonDepth = 64;                         // deeper JSON is rejected (summary.json nests 3 levels)
    int maxFolderDepth = 32;                       // folders deeper below a root are not searched
};

struct ImportResult {
    std::vector<InvocationRecord> runs;
    std::vector<RunGroup> groups;
    std::vector<SkippedFile> skipped;
    std::size_t summariesFound = 0; // summary.json files seen, imported or not
};

} // namespace trainio::aggregate
