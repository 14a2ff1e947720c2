// The one reader of an invocation folder's files (docs/formats.md, "The run folder"; names in
// run_folder.h), every file read under the store's bound and link rule (run_folder.h): the run's
// configuration (config.yaml read by the config loader, overrides.yaml), summary.json, the per-step
// records, trainio_run.json, trainio_io.json, trainio_model.json, telemetry.json, mlpstorage's
// *_metadata.json; and of the files beside a results tree: systems/<system>.json|yaml and
// mlperf_storage_report.json.
//
// Each reads through a FileSource (run_folder.h): the disk, or what this process wrote (written_files.h).
// The importer (aggregate/results_import.h) walks a tree, calls these for each run folder and groups;
// `trainio-cli metrics` (readInvocationFolder) and the sweep read through them too. The writers of these
// files are results/invocation_files.h (DLIO's files, trainio_run.json), session/storage_session.h
// (trainio_io.json, telemetry.json), session/benchmark_runner.h (trainio_model.json, metadata), all
// through run_folder.h's writeFileAtomic.
#pragma once

#include "store/invocation_record.h"
#include "metrics/step_records.h"
#include "store/run_folder.h"
#include "io/page_cache.h"
#include "telemetry/telemetry_table.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace trainio::store {

// The whole text as a finite number ("146600628", "0.323", "1e3"), else nullopt (no partial parse).
std::optional<double> parseFiniteNumber(const std::string& s);

// ---- configs/config.yaml + configs/overrides.yaml ----

// A run's configuration as the importer and `metrics` see it: every key of config.yaml (flattened by the
// config loader, config/config_loader.h flattenConfigYaml: "workload." stripped) with overrides.yaml's
// `++workload.key=value` items (config loader readOverrideList) applied.
struct RunConfig {
    std::string model, accelerator;
    std::string workload; // overrides.yaml workload=<value>, as written
    std::optional<double> recordLength;
    std::optional<double> auFraction;
    std::map<std::string, std::string> merged; // every resolved key
    std::vector<std::pair<std::string, std::string>> overrides; // overrides.yaml, "workload." stripped
    std::optional<std::filesystem::path> configFile; // the config.yaml read (nullopt: none found or readable)
    std::vector<std::string> notes; // files that were found but not read, and why
};
// The first dir of `dirs` with a config.yaml (resp. overrides.yaml) in one of configFolders() is used.
RunConfig readRunConfig(const std::vector<std::filesystem::path>& dirs, const std::filesystem::path& canonicalRoot,
                        const ReadBounds& bounds, const FileSource& files = diskFiles());

// ---- summary.json ----

// One host's summary.json (a run folder holds one, or one per host folder).
struct HostSummary {
    std::filesystem::path file;
    std::int64_t accelerators = 0, filesTrain = 0, samplesPerFile = 0, numHosts = 0, epochs = 0;
    double au = 0, auStdev = 0, sps = 0, spsStdev = 0, mbps = 0, mbpsStdev = 0, hostMemoryGiB = 0;
    std::vector<double> epochAu, epochSps;
    std::string meet, start, end, hostname;
    std::vector<std::string> notes;
    bool checkpoint = false; // a checkpointing summary: save_*/load_* metrics, no train_* ones
    double saveGiBps = NAN, saveSeconds = NAN, loadGiBps = NAN, loadSeconds = NAN, sizeGiB = NAN;
};
// nullopt with the reason in `why` for a file that cannot be read or lacks a key the import needs.
std::optional<HostSummary> readSummary(const std::filesystem::path& file, const std::filesystem::path& canonicalRoot,
                                       const ReadBounds& bounds, std::string& why, const FileSource& files = diskFiles());

// ---- <rank>_output.json, <rank>_per_epoch_stats.json ----

// What `trainio-cli metrics DIR` and the report need from a folder TrainIO or DLIO wrote.
struct InvocationData {
    std::vector<RankRecord> ranks;
    std::uint64_t batchSize = 0;
    double recordLength = 0;
    double auThreshold = 0.9;
    std::uint64_t expectedSteps = 0; // per epoch
    std::uint64_t excludeStartSteps = 1, excludeEndSteps = 0;
    nlohmann::json summary;          // summary.json as found (null if absent)
};
// True when `runDir` holds a <rank>_output.json.
bool hasStepRecords(const std::filesystem::path& runDir);
// Reads <rank>_output.json for every rank and the block/epoch times from <rank>_per_epoch_stats.json (or
// per_epoch_stats.json, DLIO before 2.0, for rank 0 — used for every rank when theirs is absent), batch
// size, record length, AU threshold, metric window and steps per epoch from the run's configuration
// (readRunConfig; DLIO's defaults for keys it leaves out) and trainio_run.json. `config`: the run's
// configuration when the caller has read it already. Throws InputError naming the file and what is
// missing, malformed, too large or linked out of the tree.
InvocationData readStepRecords(const std::filesystem::path& runDir, const std::filesystem::path& canonicalRoot,
                               const ReadBounds& bounds, const RunConfig* config = nullptr,
                               const FileSource& files = diskFiles());
// readStepRecords with `dir` itself as the tree (`trainio-cli metrics DIR`).
InvocationData readInvocationFolder(const std::filesystem::path& dir);

// ---- trainio_run.json ----

struct RunRecord {
    bool present = false; // the folder has a trainio_run.json (TrainIO wrote it)
    aggregate::InvocationStatus status = aggregate::InvocationStatus::Complete;
    std::string reason;
    std::vector<std::string> warnings;
    std::optional<std::string> semantics;        // "v1", "v2", "v3" as written (absent before the key existed)
    std::optional<std::uint64_t> stepsPerEpoch;  // steps_per_epoch
    std::string trainioVersion;                  // trainio_version ("" when absent)
    std::string unreadable;                      // "<file>: <why>" when present but not readable (status Failed)
};
// A run whose own record cannot be read cannot be vouched for: status Failed with the reason.
RunRecord readRunRecord(const std::filesystem::path& dir, const std::filesystem::path& canonicalRoot,
                        const ReadBounds& bounds, const FileSource& files = diskFiles());

// ---- trainio_io.json, trainio_model.json, telemetry.json, *_metadata.json ----
// Each fills its fields of `r`; a file that cannot be read becomes a note on `r` naming it and why.

// Engine, cache control, loader, the emulated storage and each epoch's percent_from_cache (docs/cache-honesty.md).
void readIoFile(const std::filesystem::path& dir, const std::filesystem::path& canonicalRoot, const ReadBounds& bounds,
                aggregate::InvocationRecord& r, const FileSource& files = diskFiles());
// The model's prediction made before the run (docs/model.md).
void readModelFile(const std::filesystem::path& dir, const std::filesystem::path& canonicalRoot, const ReadBounds& bounds,
                   aggregate::InvocationRecord& r, const FileSource& files = diskFiles());
// telemetry.json (docs/telemetry.md) kept as its summary, with `series` also as the four series the report
// plots. After readIoFile, whose data device picks the read-rate column.
void readTelemetryFile(const std::filesystem::path& dir, const std::filesystem::path& canonicalRoot,
                       const ReadBounds& bounds, bool series, aggregate::InvocationRecord& r,
                       const FileSource& files = diskFiles());
// mlpstorage's <kind>_<timestamp>_metadata.json: accelerator type, process count, system_info in one line.
void readMetadataFiles(const std::filesystem::path& runDir, const std::filesystem::path& canonicalRoot,
                       const ReadBounds& bounds, aggregate::InvocationRecord& r, const FileSource& files = diskFiles());

// ---- Beside a results tree ----

// The MLPerf submission layout <org>/results/<system>/…: the <system> folder name for a folder below
// it, "" otherwise. A name taken from the path, nothing read.
std::string mlperfSystemName(const std::filesystem::path& dir);
// <org>/systems/<system>.json|.yaml|.yml for a folder below <org>/results/<system>/ — only when
// <org>/systems/ is inside the imported root `root` (importing <org> or above; a tree imported from
// results/ or deeper never reads beside or above itself). nullopt when there is none. Its reader is
// labels.h describeSystemFile.
std::optional<std::filesystem::path> findSystemFile(const std::filesystem::path& dir, const std::filesystem::path& root);
// An mlperf_storage_report.json in `groupDir` or, for a runs/ folder, beside it — inside `root` only.
std::optional<std::filesystem::path> findMlperfReport(const std::filesystem::path& groupDir, const std::filesystem::path& root);

// Writers of a run's measurement files, for folders built by hand (tests, tools); a run writes them through
// its storage session. Each file atomically (writeFileAtomic); throw RunError naming the file.
void writeIoReport(const std::filesystem::path& folder, const IoReport& report);              // trainio_io.json
void writeTelemetryFiles(const std::filesystem::path& folder, const telemetry::TelemetryTable& table); // telemetry.csv/.json

} // namespace trainio::store
