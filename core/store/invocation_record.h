// What the importer learns from result folders: one record per invocation (one DLIO call, one
// summary.json — or several, one per host, when a run folder holds host folders), runs grouped by
// workload identity, and every file it had to skip with the reason.
#pragma once

#include "io/emulated_storage.h"
#include "store/sweep_file.h"
#include "store/collocation_file.h"

#include <nlohmann/json.hpp>
#include "telemetry/telemetry_summary.h"

#include <cmath>
#include <compare>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace trainio::aggregate {

// What an invocation (or a benchmark) is worth. Only Complete ones enter statistics; the others are
// shown with their reason (docs/aggregation.md).
//   complete   — every planned epoch measured (an invocation), every planned run complete (a benchmark)
//   incomplete — fewer epochs than configured, or fewer complete runs than the manifest planned
//   cancelled  — stopped by the user (TrainIO's trainio_run.json "status": "cancelled")
//   failed     — stopped by an error (trainio_run.json "status": "failed", with the error)
enum class InvocationStatus { Complete, Incomplete, Cancelled, Failed };

// What an invocation measured (MLPerf Storage v3.0 results tree: <system>/training/… or
// <system>/checkpointing/…): training reads, or checkpoint writes and reads.
enum class BenchmarkType { Training, Checkpointing };
std::string benchmarkTypeName(BenchmarkType t); // "training", "checkpointing"
std::string statusName(InvocationStatus s); // "complete", "incomplete", "cancelled", "failed"

// A number that describes a system, for its efficiency (docs/aggregation.md, "Efficiency"): given by the
// user in trainio_labels.json or read from an MLPerf systems file. No value where nothing says (a 0 says
// nothing either).
struct SystemFigure {
    std::optional<double> value;
    std::filesystem::path file; // where it was read from
    std::string key;            // the key, or the rule over keys, that gave it ("usable_capacity_GiB", …)
};
struct SystemFigures {
    SystemFigure usableCapacityGiB; // GiB (2^30 bytes) the storage offers the user
    SystemFigure powerKw;           // kW
    SystemFigure rackUnits;         // rack units (U)
};

// Names and descriptions a user gives to results (docs/aggregation.md, "Labels"): read from
// trainio_labels.json in the folder or the nearest folder above it inside the imported root, or,
// for MLPerf trees, from systems/<system>.json|yaml. Empty strings where nothing says.
struct Labels {
    std::string system;      // system name: the storage under test plus its client hosts
    std::string description; // the storage under test: file system, device/array, mount options, network, clients
    std::string notes;       // free text
    std::string name;        // the item's own name (a benchmark or an invocation); "" = the default name
    std::optional<std::filesystem::path> file; // where they were read from
    SystemFigures figures;   // the system's usable capacity, power and rack units, where the user gives them
};

// A run's per-step records (<rank>_output.json) as the report shows them, kept by the importer on request
// (ImportOptions::stepDigests) so that nothing is read from the run folder when the report is built: each
// rank's AU per epoch (DLIO's formula over that rank's steps) and, for the first ranks, load time and AU per
// step, each series binned to at most a few hundred points (aggregate/step_digest.h).
struct StepDigest {
    std::uint64_t excludeStartSteps = 1; // steps left out of each epoch's AU
    std::size_t binSteps = 1;            // each plotted point is the mean of this many consecutive steps
    std::size_t rankCount = 0;
    struct Rank {
        std::uint64_t rank = 0;
        std::vector<double> epochAuPercent;        // every rank
        std::vector<double> loadStep, loadMs;      // step number (bin mean) and load time in ms; empty past the plotted ranks
        std::vector<double> auStep, auPercent;     // step number and compute ÷ step time in %
    };
    std::vector<Rank> ranks;
    // On the wall clock, for plots that put several runs on one time axis (the report's Interference):
    // the first rank's epochs (seconds since the Unix epoch), and AU over time, every rank together — in
    // windows of auWindowS seconds, each the compute seconds of all ranks inside it ÷ (window × ranks). A
    // block's steps are stretched to fill the block (the barrier's wait is in no step), each step's compute
    // spread evenly over its stretch; so a block's windows average to its compute ÷ wall time.
    std::vector<double> epochStart, epochEnd;
    // The first rank's blocks on the wall clock (seconds since the Unix epoch) with the step number (as in
    // loadStep/auStep) of each block's first step and its step count: where a moment falls among the steps.
    struct Block {
        double start = 0, end = 0;
        double firstStep = 0;
        std::size_t steps = 0;
    };
    std::vector<Block> blocks;
    double auWindowS = 0;
    std::vector<double> auTime, auTimePercent; // window middles (seconds since the Unix epoch), AU %
};

// A run's telemetry.json as the report plots it (ImportOptions::stepDigests): one value per sample.
struct TelemetrySeries {
    double intervalS = 0;        // the requested sampling interval
    std::string deviceLabel;     // the data device whose reads are summed ("" when none is listed)
    std::vector<double> timeS, cpuBusyPct, procCpuPct, deviceReadMiBs; // telemetry::TelemetryPoint per row
};

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

    // Issue 9: status, identity, labels.
    InvocationStatus status = InvocationStatus::Complete;
    std::string statusReason;                        // why it is not complete ("" when complete)
    std::filesystem::path canonicalPath;             // the run folder, symlinks resolved (deduplication key)
    std::vector<std::pair<std::string, std::string>> resolved; // every resolved config key ("workload." stripped), sorted by key
    std::optional<std::filesystem::path> configFile; // the config.yaml the resolved keys come from (nullopt: none read)
    std::string workloadOverride;                    // overrides.yaml workload=<value> as written ("" when none)
    std::string format;                              // dataset.format ("" when unknown)
    std::optional<double> recordLengthStdevBytes;    // dataset.record_length(_bytes)_stdev
    std::int64_t batchSize = 0;                      // reader.batch_size (0 when unknown)
    std::int64_t plannedEpochs = 0;                  // train.epochs from the config (0 when unknown)
    std::string workloadKey;                         // canonical text of the workload identity (identity.h)
    std::string benchmarkKey;                        // canonical text of the benchmark identity
    std::string workloadTitle;                       // short human name: "unet3d_h100 · npz · 139.8 MiB/sample"
    Labels labels;
    std::optional<std::filesystem::path> manifest;   // the trainio_benchmark.json that names this invocation
    bool runOnce = false;                            // a TrainIO invocation outside any benchmark manifest

    // Where the bytes came from (TrainIO's trainio_io.json; empty for DLIO/MLPerf folders).
    std::string ioEngine;                            // "posix", "odirect", "mmap", "io_uring"
    std::string cacheControl;                        // "keep", "fadvise", "drop"
    // Per epoch of trainio_io.json, in order: % of delivered bytes not read from storage; NaN where the
    // file says null (not measured), so that index e is always epoch e + 1.
    std::vector<double> epochPercentFromCache;
    // The emulated device the readers went through (trainio_io.json "storage"; docs/emulated-storage.md).
    bool storageEmulated = false;                    // "storage" is a non-empty object
    std::string storageProfile;                      // the profile as given (name or file), "" when none was named
    std::string storageShape;                        // describeStorageShape of its parameters ("" when unreadable)
    std::vector<StorageChange> storageChanges;       // live changes during the run, in order
    // trainio_io.json "s3" (storage.storage_type s3, docs/s3.md): the object store the readers read from,
    // beneath the emulated device when there is one too. Both "" for a file system.
    std::string s3Endpoint;
    std::string s3Bucket;
    // The loader policy (trainio_io.json "loader" and its per-epoch fields; docs/loader.md): "" for folders
    // written before it existed (DLIO's reader: plain). Per epoch as above, NaN where not measured.
    std::string loaderPolicy;                        // "plain", "lru", "nopfs"
    double loaderRamTierMiB = 0;
    std::vector<double> epochHitRatio, epochBeladyHitRatio, epochStallSeconds;
    std::vector<double> epochBytesStorage, epochBytesRam, epochBytesSsd; // bytes_per_tier
    // The input-pipeline model's prediction made before the run (trainio_model.json; docs/model.md): NaN /
    // empty when there is none (no emulated storage, or a folder from before the model).
    double predictedAuPercent = std::numeric_limits<double>::quiet_NaN();
    double predictedSamplesPerSecond = std::numeric_limits<double>::quiet_NaN();
    std::int64_t predictedMaxAccelerators = -1;
    std::string predictedBottleneck;
    std::vector<std::string> warnings;               // trainio_run.json "warnings" (cache-served, client-bound, …)
    // TrainIO's telemetry.json, summarised (rows == 0: none); the data folder's device from trainio_io.json.
    std::string dataDevice, dataParentDisk;
    telemetry::TelemetrySummary telemetry;

    // Issue 11: MLPerf Storage v3.0. A checkpointing invocation's summary.json has save_*/load_* metrics
    // instead of train_* ones (DLIO fork statscounter.py); NaN where the invocation did not write, resp. read.
    BenchmarkType type = BenchmarkType::Training;
    double checkpointWriteGiBps = NAN;    // metric.save_checkpoint_io_mean_GB_per_second (GiB/s: size in GiB / s)
    double checkpointWriteSeconds = NAN;  // metric.save_checkpoint_duration_mean_seconds
    double checkpointReadGiBps = NAN;     // metric.load_checkpoint_io_mean_GB_per_second
    double checkpointReadSeconds = NAN;   // metric.load_checkpoint_duration_mean_seconds
    double checkpointSizeGiB = NAN;       // metric.checkpoint_size_GB (GiB, all ranks together)
    std::int64_t checkpointsWritten = -1; // checkpoint.num_checkpoints_write of the resolved config (-1: unknown)
    std::int64_t checkpointsRead = -1;    // checkpoint.num_checkpoints_read
    std::string checkpointMode;           // checkpoint.mode ("default", "subset"; "" when unknown)
    std::string metadataAccelerator;      // *_metadata.json "accelerator" (mlpstorage), "" when none
    std::int64_t metadataProcesses = 0;   // *_metadata.json "num_processes"
    std::string systemInfo;               // *_metadata.json system_info, described in one line ("" when none)
    bool metadataRead = false;            // an mlpstorage *_metadata.json was read beside the summary
    std::string toolVersion;              // trainio_run.json trainio_version ("" when not recorded: advisories.h)

    // Per-step records, summarised (ImportOptions::stepDigests; complete measured training invocations of
    // one host folder): null when not read, when the folder has none, or when they could not be read
    // (stepsError says why).
    bool stepsRead = false;                   // the importer looked for them
    std::shared_ptr<const StepDigest> steps;
    std::string stepsError;
    std::shared_ptr<const TelemetrySeries> telemetrySeries; // with stepDigests, when telemetry.json was read
};

// A run TrainIO made (its trainio_io.json, a benchmark manifest naming it, or a run-once folder), not one
// DLIO or MLPerf Storage's tools wrote.
inline bool isTrainioRun(const InvocationRecord& r) { return !r.ioEngine.empty() || r.manifest || r.runOnce; }

struct WorkloadIdentity {
    std::string model;
    std::string accelerator;
    std::int64_t accelerators = 0;
    std::int64_t filesTrain = 0;
    std::int64_t samplesPerFile = 0;
    std::string workloadKey;  // InvocationRecord::workloadKey of its runs (equal for equal workloads)
    std::string benchmarkKey; // InvocationRecord::benchmarkKey of its runs
    auto operator<=>(const WorkloadIdentity&) const = default;
};

// How invocations came to form one group (docs/aggregation.md, "Benchmarks").
enum class GroupKind {
    Manifest, // a TrainIO benchmark: its trainio_benchmark.json names the warm-up and the runs
    Folder,   // an imported tree: invocations sharing a runs folder and the benchmark identity
    Single,   // one invocation on its own (a TrainIO "run once", or a lone folder)
    Table,    // a row of an MLCommons results table (aggregate/mlcommons_table.h): no runs, only the row's figures
};

// A row of an MLCommons results table — mlpstorage's `reports reportgen` results.csv schema, the one the
// results website is made from (aggregate/mlcommons_table.h, docs/aggregation.md "MLCommons' table"). It
// holds no runs and no per-epoch data: only the figures the row publishes. A figure the row leaves blank is
// nullopt, never 0.
struct TableRow {
    std::filesystem::path file; // the table it was read from
    std::size_t row = 0;        // 1-based data row (the header is not counted; line = row + 1 without quoted newlines)
    std::vector<std::pair<std::string, std::string>> cells; // every column as written, in the schema's order
    std::string publicId, organization, division, benchmarkType, model, name, accelerator, checkpointMode;
    std::optional<double> clientNodes, accelerators, readGiBps;                       // training
    std::optional<double> checkpointWriteGiBps, checkpointWriteSeconds, checkpointReadGiBps, checkpointReadSeconds;
    std::optional<double> usableCapacityTiB, rackUnits, provisionedPowerW;            // the system under test
};

struct RunGroup {
    std::filesystem::path path;        // the folder the run folders were found in
    WorkloadIdentity identity;
    std::vector<std::size_t> runs;     // complete measured invocations (indices into ImportResult::runs), by name
    std::vector<std::size_t> warmups;  // warm-up invocations, excluded from every statistic
    std::vector<std::size_t> excluded; // measured invocations that are not complete: shown with their reason,
                                       // never in a statistic
    std::string system;                // system name (labels, systems/<name>.json|yaml, else a folder or user label)
    std::string systemDescription;     // the storage under test, as the labels or the systems file describe it
    std::optional<std::filesystem::path> systemFile;
    SystemFigures systemFigures;       // the labels' figures, else the systems file's, each on its own (efficiency)
    std::optional<std::filesystem::path> existingReport; // an mlperf_storage_report.json beside the runs
    std::shared_ptr<const nlohmann::json> existingReportContent; // that report as the importer read it (null: not read)
    std::string existingReportError;   // why it could not be read ("" when it was)
    GroupKind kind = GroupKind::Folder;
    BenchmarkType type = BenchmarkType::Training; // its invocations' type (a group never mixes them)
    std::size_t plannedRuns = 0;       // from the manifest (0 = not known)
    InvocationStatus status = InvocationStatus::Complete; // Incomplete when fewer complete runs than planned,
                                                          // or no complete run at all
    std::string statusReason;
    Labels labels;                     // the group's own labels (name, notes) — system ones are above
    std::vector<std::string> differences; // "reader.read_threads: 1 here, 4 in <other group path>" for groups
                                          // sharing this folder with another benchmark identity
    std::vector<std::string> settingDifferences; // settings its runs differ in that cannot change what is
                                                 // measured (identity.h settingDifferences), with the runs named
    // Measured at the same time as other workloads on one storage (a collocation's DIR/<name>/): index into
    // ImportResult::collocations and its name there. Its runs are not comparable to the same workload alone
    // without saying so.
    std::optional<std::size_t> collocation;
    std::string collocatedAs;
    // kind == Table: the table row it is (its runs, warmups and excluded lists are empty).
    std::shared_ptr<const TableRow> tableRow;
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
    std::uintmax_t maxStepFileBytes = 256ull << 20; // <rank>_output.json / *_per_epoch_stats.json (long runs: tens of MiB)
    bool stepDigests = false;                      // read the per-step records of complete runs (InvocationRecord::steps):
                                                   // the GUI's library and the report ask for them, aggregate/compare do not
};

struct DuplicatePath {
    std::filesystem::path path; // the spelling that was dropped
    std::filesystem::path kept; // the run folder it is the same as
};

struct ImportResult {
    std::vector<InvocationRecord> runs;
    std::vector<DuplicatePath> duplicates; // one run folder reached twice (same root twice, symlink, overlap)
    std::vector<RunGroup> groups;
    std::vector<SkippedFile> skipped;
    std::size_t summariesFound = 0; // summary.json files seen, imported or not
    // Every sweep.json found below the roots (trainio-cli sweep), read by readSweepJson: trial paths
    // absolute. One that cannot be read is in `skipped` with the reason.
    std::vector<SweepFile> sweeps;
    // Every trainio_collocation.json found (trainio-cli collocate, docs/collocation.md): member paths
    // absolute. One that cannot be read is in `skipped` with the reason.
    std::vector<store::CollocationFile> collocations;
};

} // namespace trainio::aggregate
