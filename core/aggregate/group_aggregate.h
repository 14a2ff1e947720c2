// Aggregation of a benchmark's measured runs, the MLPerf Storage closed-division checks beside the
// numbers, and the files a benchmark folder gets: runs/mlperf_storage_report.json (what the MLPerf
// Storage v1.0 report generator writes) and aggregate.json (TrainIO's full statistics).
#pragma once

#include "aggregate/efficiency.h"
#include "store/invocation_record.h"
#include "util/statistics.h"
#include "io/io_backend.h"
#include "store/run_folder.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace trainio::aggregate {

// One metric over the measured runs of a group (or over the runs' values of one epoch).
struct MetricAggregate {
    std::string key;  // the per-run key as MLPerf names it, e.g. "train_throughput_samples_per_second"
    std::string unit; // "%", "samples/s", "MiB/s"
    std::vector<double> values;
    Statistic mean, populationStdev, sampleStdev, median, min, max, geomean, cv;
    Statistic reduced; // the reduction the user chose (--reduce), labelled with its rule
    ConfidenceInterval ci95;
};

MetricAggregate aggregateMetric(std::string key, std::string unit, std::vector<double> values,
                                Reduction reduction = Reduction::Mean);

struct EpochAggregate {
    std::size_t epoch = 0; // 1-based, as DLIO numbers epochs
    MetricAggregate au, samplesPerSecond, mibPerSecond;
};

struct GroupAggregate {
    RunGroup group;
    Reduction reduction = Reduction::Mean;
    MetricAggregate au;               // train_au_mean_percentage of each run
    MetricAggregate samplesPerSecond; // train_throughput_mean_samples_per_second of each run
    MetricAggregate mibPerSecond;     // train_io_mean_MB_per_second of each run (MiB/s, DLIO says MB/s)
    std::vector<EpochAggregate> perEpoch;
    // Checkpointing groups (MLPerf Storage v3.0): each over the complete runs that have the value (a write
    // invocation has no read numbers and the other way round). Empty for training groups.
    MetricAggregate checkpointWriteGiBps;   // metric.save_checkpoint_io_mean_GB_per_second (GiB/s)
    MetricAggregate checkpointReadGiBps;    // metric.load_checkpoint_io_mean_GB_per_second
    MetricAggregate checkpointWriteSeconds; // metric.save_checkpoint_duration_mean_seconds
    MetricAggregate checkpointReadSeconds;  // metric.load_checkpoint_duration_mean_seconds
    MetricAggregate checkpointSizeGiB;      // metric.checkpoint_size_GB
    Efficiency efficiency;            // Read GiB/s over the system's usable capacity, power, rack units (efficiency.h)
    std::vector<std::string> checks;  // checks that failed, one sentence each (ruleFindings: failed)
    std::vector<std::string> notes;   // what could not be checked, quirks tolerated
    bool submission = false;          // the runs were meant as an MLPerf Storage submission (isSubmissionAttempt)
    std::vector<std::string> notSubmission; // not a submission: the MLPerf Storage rules its runs would not meet
    std::optional<bool> reportAgrees; // set when the folder holds an mlperf_storage_report.json
};

GroupAggregate aggregateGroup(const ImportResult& imported, const RunGroup& group,
                              Reduction reduction = Reduction::Mean);

// Whether a group's runs were meant as an MLPerf Storage submission (docs/aggregation.md, "Checks"): results
// written by DLIO or MLPerf Storage's tools are (published results among them); TrainIO's runs are when their
// configuration says trainio.submission: true (trainio-cli benchmark/run --submission). TrainIO's own
// benchmarks (the demo preset, any workload tried on a workstation) are not.
bool isSubmissionAttempt(const ImportResult& imported, const RunGroup& group);

// The checks of one group. A check of the result itself — the workload's AU line, DLIO's own verdict, an
// mlperf_storage_report.json beside the runs that disagrees with them — fails whatever the runs were for.
// A rule of an MLPerf Storage submission (5 runs and a warm-up, a dataset of 5 × the clients' memory, only
// the parameters the closed division allows, one configuration per folder, the checkpointing rules) fails
// a submission attempt; a benchmark that is not one lists it in unmetRules instead, as what a submission
// would need.
struct RuleFindings {
    bool submission = false;
    std::vector<std::string> failed;     // one sentence each
    std::vector<std::string> unmetRules; // not a submission: the rules its runs would not meet
    std::vector<std::string> notes;      // what could not be checked, sorted, without repeats
};
RuleFindings ruleFindings(const ImportResult& imported, const RunGroup& group);
// "8 accelerators, 168 files, 1 samples per file, workload unet3d_h100": an identity in a check's words.
std::string describeIdentity(const WorkloadIdentity& id);

// "not a submission: 2 MLPerf Storage rules would not allow it as one (…)": the line the table, the GUI and
// the report give a benchmark that is not a submission attempt, before the rules themselves.
std::string notSubmissionText(std::size_t rules);

// ruleFindings' failed checks; `notes` (optional) receives what could not be checked. Reads the group's
// existing mlperf_storage_report.json, if any, to compare it.
std::vector<std::string> checkRules(const ImportResult& imported, const RunGroup& group,
                                    std::vector<std::string>* notes = nullptr);

// Compares an mlperf_storage_report.json with the runs it claims to summarise; empty when they agree.
std::vector<std::string> compareWithReport(const ImportResult& imported, const RunGroup& group,
                                           const std::filesystem::path& report);

// What the MLPerf Storage v1.0 generator writes for these runs: same keys, same order, same
// reductions (numpy mean and population stdev), train_num_accelerators as a string.
nlohmann::ordered_json mlperfReport(const ImportResult& imported, const RunGroup& group);

nlohmann::ordered_json toJson(const GroupAggregate& aggregate, const ImportResult& imported);
nlohmann::ordered_json toJson(const InvocationRecord& run);
// {"groups": [...], "skipped": [{"path", "reason"}]} for everything imported.
nlohmann::ordered_json toJson(const ImportResult& imported, Reduction reduction = Reduction::Mean);

// The columns the table, CSV and JSON writers take a group's scalar values from (one definition each;
// docs/aggregation.md "Columns" documents every one). Each writer uses its own selection and order.
struct ColumnInfo {
    std::string key;         // CSV header and JSON key
    std::string header;      // table header ("{reduce}" = the reduction's name)
    std::string unit;
    std::string description;
    bool table = false, csv = false, json = false;
};
std::vector<ColumnInfo> groupColumns();

// A CSV cell as Python's csv module writes it (QUOTE_MINIMAL): quoted, quotes doubled, only when it holds a
// comma, a quote or a line break.
std::string csvField(const std::string& s);

std::string formatTable(const ImportResult& imported, Reduction reduction = Reduction::Mean);
std::string formatCsv(const ImportResult& imported, Reduction reduction = Reduction::Mean);

// Writes <runsDir>/mlperf_storage_report.json atomically (temporary file, fsync, rename) from the
// measured runs <runsDir>/<run>/summary.json. Throws InputError when the folder holds no readable
// run or runs of different workloads (the generator refuses those too). Returns the file written.
std::filesystem::path writeMlperfReport(const std::filesystem::path& runsDir, IoBackend* io = nullptr);
// The same from `imported`, the records of the folder as importResults({runsDir}) gives them — a benchmark's
// own, made in memory (results_import.h importWritten): nothing is read. `record`: run_folder.h writeFileAtomic.
std::filesystem::path writeMlperfReport(const ImportResult& imported, const std::filesystem::path& runsDir,
                                        IoBackend* io = nullptr, store::WrittenFiles* record = nullptr);

// Writes <benchmarkDir>/aggregate.json atomically: every group found below the folder (measured runs
// from runs/*, warm-up from warmup/ shown apart), with statistics, checks and skipped files.
std::filesystem::path writeAggregateJson(const std::filesystem::path& benchmarkDir,
                                         Reduction reduction = Reduction::Mean, IoBackend* io = nullptr);
// The same from `imported`, the records of the folder as importResults({benchmarkDir}) gives them.
std::filesystem::path writeAggregateJson(const ImportResult& imported, const std::filesystem::path& benchmarkDir,
                                         Reduction reduction = Reduction::Mean, IoBackend* io = nullptr,
                                         store::WrittenFiles* record = nullptr);

} // namespace trainio::aggregate
