// The MLPerf Storage v1.0 report generator this reproduces is report.py in mlcommons/storage (v1.0
// era, commit 16b959b): it walks <result_dir>/<run>/summary.json, insists on exactly 5 runs, reads
// model and accelerator from <run>/configs/overrides.yaml ("workload=<model>_<accelerator>"), takes
// per run metric.train_throughput_mean_samples_per_second, metric.train_io_mean_MB_per_second and
// num_accelerators, refuses runs whose metric.train_au_meet_expectation is "fail" and runs that
// disagree on model, accelerator, accelerators, files or samples per file, then writes numpy mean and
// numpy std (population) over the runs. It dumps with json.dump(default=str), which is why the
// numpy integer train_num_accelerators appears as a string in every published report.
#include "aggregate/group_aggregate.h"

#include "aggregate/results_import.h"
#include "config/config_keys.h"
#include "store/run_folder.h"
#include "util/errors.h"
#include "util/page_cache_verdict.h"
#include "util/units.h"
#include "util/text.h"

#include <algorithm>
#include <set>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <stdexcept>
#include <variant>
#include <sstream>

#include <fcntl.h>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace trainio::aggregate {

namespace {

constexpr std::size_t kRequiredRuns = 5; // MLPerf Storage v1.0 REQUIRED_BENCHMARK_RUNS
constexpr double kDatasetToMemory = 5.0; // dataset >= 5 × the clients' total memory

std::string bytesText(double bytes) {
    if (bytes >= kGiB) return fixedNumber(bytes / kGiB, 1) + " GiB";
    return fixedNumber(bytes / kMiB, 1) + " MiB";
}

// What the runs measured of the page cache (trainio_io.json; nothing for DLIO and MLPerf folders), for
// util/page_cache_verdict.h: per epoch the highest share of any run, the first run's cache control.
PageCacheEvidence cacheEvidence(const ImportResult& imp, const std::vector<std::size_t>& runs) {
    PageCacheEvidence e;
    for (std::size_t i : runs) {
        const InvocationRecord& r = imp.runs[i];
        if (e.cacheControl.empty()) e.cacheControl = r.cacheControl;
        e.emulatedDevice = e.emulatedDevice || r.storageEmulated;
        for (const auto& [k, v] : r.resolved)
            if (k == "storage.storage_type" && v == "s3") e.objectStore = true;
        auto& all = e.epochPercentFromCache;
        if (all.size() < r.epochPercentFromCache.size()) all.resize(r.epochPercentFromCache.size(), NAN);
        for (std::size_t k = 0; k < r.epochPercentFromCache.size(); ++k) {
            const double p = r.epochPercentFromCache[k];
            if (!std::isnan(p)) all[k] = std::isnan(all[k]) ? p : std::max(all[k], p);
        }
    }
    return e;
}

bool relativelyEqual(double a, double b, double tolerance) {
    if (a == b) return true;
    return std::fabs(a - b) <= tolerance * std::max(std::fabs(a), std::fabs(b));
}

ordered_json statisticJson(const Statistic& s) { return ordered_json{{"value", s.value}, {"rule", s.rule}}; }

ordered_json metricJson(const MetricAggregate& m) {
    ordered_json j;
    j["unit"] = m.unit;
    j["n"] = m.values.size();
    j["values"] = m.values;
    j["mean"] = statisticJson(m.mean);
    j["population_stdev"] = statisticJson(m.populationStdev);
    j["sample_stdev"] = statisticJson(m.sampleStdev);
    j["min"] = statisticJson(m.min);
    j["max"] = statisticJson(m.max);
    j["median"] = statisticJson(m.median);
    j["geomean"] = statisticJson(m.geomean);
    j["cv"] = statisticJson(m.cv);
    j["reduced"] = statisticJson(m.reduced);
    j["ci95"] = ordered_json{{"low", m.ci95.low}, {"high", m.ci95.high}, {"half_width", m.ci95.halfWidth}, {"rule", m.ci95.rule}};
    return j;
}

std::string describeIdentity(const WorkloadIdentity& id) {
    return std::to_string(id.accelerators) + " accelerators, " + std::to_string(id.filesTrain) + " files, " +
           std::to_string(id.samplesPerFile) + " samples per file" +
           (id.model.empty() ? std::string() : ", workload " + id.model + (id.accelerator.empty() ? "" : "_" + id.accelerator));
}

std::vector<double> collect(const ImportResult& imp, const std::vector<std::size_t>& runs, double InvocationRecord::*field) {
    std::vector<double> v;
    v.reserve(runs.size());
    for (std::size_t i : runs) v.push_back(imp.runs[i].*field);
    return v;
}

std::string csvField(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

std::string csvNumber(double v) {
    if (!std::isfinite(v)) return "";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

// The one description of a group's columns (docs/aggregation.md, "Columns"): the table, CSV and JSON
// writers all take their scalar values from here, each in its own selection and order.
struct GroupRow {
    const RunGroup& g;
    const GroupAggregate& a;
};
using Cell = std::variant<std::string, double, std::int64_t, bool>;
enum Sink : unsigned { kTable = 1, kCsv = 2, kJson = 4 };

struct Column {
    const char* key;
    const char* header; // table header; "{reduce}" stands for the reduction's name
    const char* unit;
    const char* description;
    unsigned sinks;
    int precision; // table decimals for numbers
    Cell (*get)(const GroupRow&);
};

std::int64_t count(std::size_t n) { return static_cast<std::int64_t>(n); }

std::string workloadText(const WorkloadIdentity& id) {
    std::string workload = id.model.empty() ? "?" : id.model;
    if (!id.accelerator.empty()) workload += "_" + id.accelerator;
    return workload;
}

// mlpstorage_py/report_generator.py _aggregate_training: train_read_bw_gibps = fmean(the runs'
// train_io_mean_MB_per_second) / 1024 (DLIO's "MB" are MiB). NaN (JSON null) for checkpointing groups.
double readGibPerSecond(const GroupAggregate& a) {
    return a.group.type == BenchmarkType::Training ? a.mibPerSecond.mean.value / 1024.0 : NAN;
}

// A checkpoint metric's mean; NaN (JSON null) for training groups and where no run measured it.
double checkpointValue(const GroupRow& r, const MetricAggregate& m) {
    return r.g.type == BenchmarkType::Checkpointing && !m.values.empty() ? m.mean.value : NAN;
}

std::string joinChecks(const std::vector<std::string>& sentences) {
    std::string out;
    for (const auto& c : sentences) out += (out.empty() ? "" : " | ") + c;
    return out;
}

// The table's word for the checks: failures first; a benchmark not meant as a submission is not failed by
// the submission rules it does not meet.
std::string checkSummary(const GroupAggregate& a) {
    if (!a.checks.empty()) return std::to_string(a.checks.size()) + " failed";
    return a.notSubmission.empty() ? std::string("pass") : std::string("not a submission");
}

const Column kColumns[] = {
    {"path", "path", "", "the folder the group's runs were found in (a runs/ folder, or a benchmark folder with a manifest)",
     kTable | kCsv | kJson, 0, [](const GroupRow& r) -> Cell { return r.g.path.string(); }},
    {"system", "system", "", "system name: labels, systems/<name>.json|yaml, the MLPerf <org>/results/<system>/ folder or --system",
     kCsv | kJson, 0, [](const GroupRow& r) -> Cell { return r.g.system; }},
    {"model", "model", "", "workload model (overrides.yaml workload=<model>_<accelerator>, else config.yaml)", kCsv | kJson, 0,
     [](const GroupRow& r) -> Cell { return r.g.identity.model; }},
    {"accelerator", "accelerator", "", "accelerator type emulated (\"\" when no file names it)", kCsv | kJson, 0,
     [](const GroupRow& r) -> Cell { return r.g.identity.accelerator; }},
    {"workload", "workload", "", "<model>_<accelerator>, as MLPerf names the workload", kTable, 0,
     [](const GroupRow& r) -> Cell { return workloadText(r.g.identity); }},
    {"train_num_accelerators", "accel", "", "accelerators emulated per run, summed over hosts", kTable | kCsv | kJson, 0,
     [](const GroupRow& r) -> Cell { return r.g.identity.accelerators; }},
    {"num_files_train", "files", "", "training files in the dataset", kTable | kCsv | kJson, 0,
     [](const GroupRow& r) -> Cell { return r.g.identity.filesTrain; }},
    {"num_samples_per_file", "samples/file", "", "samples per training file", kCsv | kJson, 0,
     [](const GroupRow& r) -> Cell { return r.g.identity.samplesPerFile; }},
    {"num_runs", "runs", "", "complete measured runs: the statistics are over these", kCsv | kJson, 0,
     [](const GroupRow& r) -> Cell { return count(r.g.runs.size()); }},
    {"runs", "runs", "", "complete measured runs, \"+Nw\" for N warm-ups (never counted)", kTable, 0,
     [](const GroupRow& r) -> Cell {
         return std::to_string(r.g.runs.size()) + (r.g.warmups.empty() ? "" : "+" + std::to_string(r.g.warmups.size()) + "w");
     }},
    {"train_throughput_mean_samples_per_second", "samples/s", "samples/s", "MLPerf: mean of the runs' train_throughput_mean_samples_per_second",
     kCsv | kJson, 2, [](const GroupRow& r) -> Cell { return r.a.samplesPerSecond.mean.value; }},
    {"train_throughput_stdev_samples_per_second", "sd", "samples/s", "MLPerf: population standard deviation of the same",
     kCsv | kJson, 2, [](const GroupRow& r) -> Cell { return r.a.samplesPerSecond.populationStdev.value; }},
    {"train_throughput_mean_MB_per_second", "MiB/s", "MiB/s", "MLPerf: mean of the runs' train_io_mean_MB_per_second (MiB/s; DLIO says MB/s)",
     kCsv | kJson, 2, [](const GroupRow& r) -> Cell { return r.a.mibPerSecond.mean.value; }},
    {"train_throughput_stdev_MB_per_second", "sd", "MiB/s", "MLPerf: population standard deviation of the same",
     kCsv | kJson, 2, [](const GroupRow& r) -> Cell { return r.a.mibPerSecond.populationStdev.value; }},
    {"train_au_mean_percentage", "AU %", "%", "mean of the runs' train_au_mean_percentage", kCsv | kJson, 2,
     [](const GroupRow& r) -> Cell { return r.a.au.mean.value; }},
    {"train_au_stdev_percentage", "sd", "%", "population standard deviation of the same", kJson, 2,
     [](const GroupRow& r) -> Cell { return r.a.au.populationStdev.value; }},
    {"reduce", "reduce", "", "the reduction chosen with --reduce (mean, median, min, geomean) for the *_reduced columns",
     kCsv | kJson, 0, [](const GroupRow& r) -> Cell { return reductionName(r.a.reduction); }},
    {"samples_per_second_reduced", "samples/s ({reduce})", "samples/s", "the runs' samples/s reduced by --reduce",
     kTable | kCsv, 2, [](const GroupRow& r) -> Cell { return r.a.samplesPerSecond.reduced.value; }},
    {"samples_per_second_ci95_half_width", "±95% CI", "samples/s", "half width of the 95 % CI of the mean samples/s (Student t, n−1 df)",
     kTable, 2, [](const GroupRow& r) -> Cell { return r.a.samplesPerSecond.ci95.halfWidth; }},
    {"samples_per_second_ci95_low", "CI low", "samples/s", "95 % CI of the mean samples/s, lower bound", kCsv, 2,
     [](const GroupRow& r) -> Cell { return r.a.samplesPerSecond.ci95.low; }},
    {"samples_per_second_ci95_high", "CI high", "samples/s", "95 % CI of the mean samples/s, upper bound", kCsv, 2,
     [](const GroupRow& r) -> Cell { return r.a.samplesPerSecond.ci95.high; }},
    {"MB_per_second_reduced", "MiB/s ({reduce})", "MiB/s", "the runs' MiB/s reduced by --reduce", kTable | kCsv, 2,
     [](const GroupRow& r) -> Cell { return r.a.mibPerSecond.reduced.value; }},
    {"MB_per_second_ci95_half_width", "±95% CI", "MiB/s", "half width of the 95 % CI of the mean MiB/s", kTable, 2,
     [](const GroupRow& r) -> Cell { return r.a.mibPerSecond.ci95.halfWidth; }},
    {"MB_per_second_ci95_low", "CI low", "MiB/s", "95 % CI of the mean MiB/s, lower bound", kCsv, 2,
     [](const GroupRow& r) -> Cell { return r.a.mibPerSecond.ci95.low; }},
    {"MB_per_second_ci95_high", "CI high", "MiB/s", "95 % CI of the mean MiB/s, upper bound", kCsv, 2,
     [](const GroupRow& r) -> Cell { return r.a.mibPerSecond.ci95.high; }},
    {"au_percentage_reduced", "AU % ({reduce})", "%", "the runs' AU reduced by --reduce", kTable | kCsv, 2,
     [](const GroupRow& r) -> Cell { return r.a.au.reduced.value; }},
    {"au_ci95_low", "CI low", "%", "95 % CI of the mean AU, lower bound", kCsv, 2, [](const GroupRow& r) -> Cell { return r.a.au.ci95.low; }},
    {"au_ci95_high", "CI high", "%", "95 % CI of the mean AU, upper bound", kCsv, 2, [](const GroupRow& r) -> Cell { return r.a.au.ci95.high; }},
    {"passed", "passed", "", "true when no MLPerf Storage closed-division check failed", kCsv | kJson, 0,
     [](const GroupRow& r) -> Cell { return r.a.checks.empty(); }},
    {"checks", "checks", "", "the failed checks, one sentence each (CSV: joined with \" | \"; JSON: an array)", kCsv, 0,
     [](const GroupRow& r) -> Cell { return joinChecks(r.a.checks); }},
    {"read_gib_per_second", "GiB/s", "GiB/s",
     "training: MLPerf v3.0 headline Read B/W, mean over the runs of train_io_mean_MB_per_second / 1024 (null for checkpointing)",
     kTable | kCsv | kJson, 3, [](const GroupRow& r) -> Cell { return readGibPerSecond(r.a); }},
    {"status", "status", "", "complete, incomplete (fewer complete runs than planned, or none), cancelled or failed",
     kTable | kCsv | kJson, 0, [](const GroupRow& r) -> Cell { return statusName(r.g.status); }},
    {"status_reason", "reason", "", "why the group is not complete (\"\" when complete)", kCsv | kJson, 0,
     [](const GroupRow& r) -> Cell { return r.g.statusReason; }},
    {"kind", "kind", "", "what the group measured (MLPerf Storage v3.0 benchmark type): training or checkpointing",
     kCsv | kJson, 0, [](const GroupRow& r) -> Cell { return benchmarkTypeName(r.g.type); }},
    {"workload_identity", "workload identity", "", "canonical text of the workload identity: equal text, same workload", kJson, 0,
     [](const GroupRow& r) -> Cell { return r.g.identity.workloadKey; }},
    {"system_description", "system description", "", "the storage under test, from the labels or the systems file", kJson, 0,
     [](const GroupRow& r) -> Cell { return r.g.systemDescription; }},
    {"num_excluded_runs", "excluded", "", "measured runs that did not complete: shown with their reason, in no statistic",
     kCsv | kJson, 0, [](const GroupRow& r) -> Cell { return count(r.g.excluded.size()); }},
    {"planned_runs", "planned", "", "runs the benchmark manifest planned (0 = not known)", kCsv | kJson, 0,
     [](const GroupRow& r) -> Cell { return count(r.g.plannedRuns); }},
    {"check_summary", "checks", "", "\"pass\", how many checks failed, or \"not a submission\" when only MLPerf Storage "
                                     "submission rules are not met by a benchmark not meant as one (the sentences follow the table)",
     kTable, 0, [](const GroupRow& r) -> Cell { return checkSummary(r.a); }},
    // Issue 11 (MLPerf Storage v3.0): "kind" above now says training or checkpointing (the contract);
    // the grouping it used to name, and the checkpoint headlines, are appended so the CSV columns before keep their order.
    {"group_kind", "grouped by", "", "how the runs became one group: benchmark (a TrainIO manifest), folder (an imported runs folder "
                         "sharing the benchmark identity) or single (a run-once invocation)",
     kCsv | kJson, 0,
     [](const GroupRow& r) -> Cell {
         return std::string(r.g.kind == GroupKind::Manifest ? "benchmark" : r.g.kind == GroupKind::Single ? "single" : "folder");
     }},
    {"checkpoint_write_gib_per_second", "write GiB/s", "GiB/s",
     "checkpointing: mean over the runs that wrote of save_checkpoint_io_mean_GB_per_second (GiB/s; null if none wrote)",
     kTable | kCsv | kJson, 3, [](const GroupRow& r) -> Cell { return checkpointValue(r, r.a.checkpointWriteGiBps); }},
    {"checkpoint_read_gib_per_second", "read GiB/s", "GiB/s",
     "checkpointing: mean over the runs that read of load_checkpoint_io_mean_GB_per_second (GiB/s; null if none read)",
     kTable | kCsv | kJson, 3, [](const GroupRow& r) -> Cell { return checkpointValue(r, r.a.checkpointReadGiBps); }},
    {"checkpoint_write_duration_seconds", "write s", "s",
     "checkpointing: mean over the runs that wrote of save_checkpoint_duration_mean_seconds", kCsv | kJson, 2,
     [](const GroupRow& r) -> Cell { return checkpointValue(r, r.a.checkpointWriteSeconds); }},
    {"checkpoint_read_duration_seconds", "read s", "s",
     "checkpointing: mean over the runs that read of load_checkpoint_duration_mean_seconds", kCsv | kJson, 2,
     [](const GroupRow& r) -> Cell { return checkpointValue(r, r.a.checkpointReadSeconds); }},
    {"checkpoint_size_gib", "ckpt GiB", "GiB", "checkpointing: checkpoint_size_GB (GiB, all ranks), mean over the runs",
     kCsv | kJson, 2, [](const GroupRow& r) -> Cell { return checkpointValue(r, r.a.checkpointSizeGiB); }},
    // Issue 30: the MLPerf Storage submission rules fail only a submission attempt.
    {"submission", "submission", "", "true when the runs were meant as an MLPerf Storage submission (DLIO or MLPerf "
                                     "Storage results; TrainIO runs with trainio.submission: true, --submission): then every "
                                     "rule is a check that can fail",
     kCsv | kJson, 0, [](const GroupRow& r) -> Cell { return r.a.submission; }},
    {"not_a_submission", "not a submission", "", "not a submission: the MLPerf Storage rules its runs would not meet, one "
                                                 "sentence each (CSV: joined with \" | \"; JSON: an array); none fails it",
     kCsv, 0, [](const GroupRow& r) -> Cell { return joinChecks(r.a.notSubmission); }},
};

// The table's selection and order: the workload first, the long path last.
const char* const kTableOrder[] = {"workload", "train_num_accelerators", "num_files_train", "runs",
                                   "samples_per_second_reduced", "samples_per_second_ci95_half_width", "MB_per_second_reduced",
                                   "MB_per_second_ci95_half_width", "au_percentage_reduced", "read_gib_per_second",
                                   "checkpoint_write_gib_per_second", "checkpoint_read_gib_per_second", "status",
                                   "check_summary", "path"};

const Column& column(const std::string& key) {
    for (const auto& c : kColumns)
        if (key == c.key) return c;
    throw std::logic_error("no column " + key);
}

// JSON has no NaN: an undefined number is null (what dump() would print anyway), also in memory.
ordered_json numberOrNull(double v) { return std::isfinite(v) ? ordered_json(v) : ordered_json(); }

ordered_json cellJson(const Cell& c) {
    if (const auto* d = std::get_if<double>(&c)) return numberOrNull(*d);
    return std::visit([](const auto& v) { return ordered_json(v); }, c);
}

std::string cellCsv(const Cell& c) {
    if (const auto* s = std::get_if<std::string>(&c)) return csvField(*s);
    if (const auto* d = std::get_if<double>(&c)) return csvNumber(*d);
    if (const auto* i = std::get_if<std::int64_t>(&c)) return std::to_string(*i);
    return std::get<bool>(c) ? "true" : "false";
}

std::string cellText(const Cell& c, int precision) {
    if (const auto* d = std::get_if<double>(&c)) return fixedNumber(*d, precision);
    if (std::holds_alternative<std::string>(c)) return std::get<std::string>(c);
    return cellCsv(c);
}

} // namespace

std::vector<ColumnInfo> groupColumns() {
    std::vector<ColumnInfo> out;
    for (const auto& c : kColumns)
        out.push_back(ColumnInfo{c.key, c.header, c.unit, c.description, (c.sinks & kTable) != 0, (c.sinks & kCsv) != 0,
                                 (c.sinks & kJson) != 0});
    return out;
}

MetricAggregate aggregateMetric(std::string key, std::string unit, std::vector<double> values, Reduction reduction) {
    MetricAggregate m;
    m.key = std::move(key);
    m.unit = std::move(unit);
    m.values = std::move(values);
    m.mean = mean(m.values);
    m.populationStdev = populationStdev(m.values);
    m.sampleStdev = sampleStdev(m.values);
    m.median = median(m.values);
    m.min = minimum(m.values);
    m.max = maximum(m.values);
    m.geomean = geomean(m.values);
    m.cv = coefficientOfVariation(m.values);
    m.reduced = reduce(m.values, reduction);
    m.ci95 = ci95(m.values);
    return m;
}

// The runs' values of one checkpoint metric, leaving out the runs that did not measure it (NaN).
std::vector<double> collectFinite(const ImportResult& imp, const std::vector<std::size_t>& runs, double InvocationRecord::*field) {
    std::vector<double> v;
    for (std::size_t i : runs)
        if (std::isfinite(imp.runs[i].*field)) v.push_back(imp.runs[i].*field);
    return v;
}

static void setChecks(GroupAggregate& a, const ImportResult& imp, const RunGroup& group) {
    RuleFindings f = ruleFindings(imp, group);
    a.checks = std::move(f.failed);
    a.notes = std::move(f.notes);
    a.submission = f.submission;
    a.notSubmission = std::move(f.unmetRules);
}

GroupAggregate aggregateGroup(const ImportResult& imp, const RunGroup& group, Reduction reduction) {
    GroupAggregate a;
    a.group = group;
    a.reduction = reduction;
    if (group.type == BenchmarkType::Checkpointing) {
        // mlpstorage_py/report_generator.py _aggregate_checkpointing: Write and Read B/W and durations are the
        // mean of each invocation's scalar, per direction over the invocations that produced it; the fork's
        // save_/load_checkpoint_io_mean_GB_per_second already are GiB/s (checkpoint size in GiB / seconds).
        a.checkpointWriteGiBps = aggregateMetric("save_checkpoint_io_mean_GB_per_second", "GiB/s",
                                                 collectFinite(imp, group.runs, &InvocationRecord::checkpointWriteGiBps), reduction);
        a.checkpointReadGiBps = aggregateMetric("load_checkpoint_io_mean_GB_per_second", "GiB/s",
                                                collectFinite(imp, group.runs, &InvocationRecord::checkpointReadGiBps), reduction);
        a.checkpointWriteSeconds = aggregateMetric("save_checkpoint_duration_mean_seconds", "s",
                                                   collectFinite(imp, group.runs, &InvocationRecord::checkpointWriteSeconds), reduction);
        a.checkpointReadSeconds = aggregateMetric("load_checkpoint_duration_mean_seconds", "s",
                                                  collectFinite(imp, group.runs, &InvocationRecord::checkpointReadSeconds), reduction);
        a.checkpointSizeGiB = aggregateMetric("checkpoint_size_GB", "GiB",
                                              collectFinite(imp, group.runs, &InvocationRecord::checkpointSizeGiB), reduction);
        a.au = aggregateMetric("train_au_percentage", "%", {}, reduction);
        a.samplesPerSecond = aggregateMetric("train_throughput_samples_per_second", "samples/s", {}, reduction);
        a.mibPerSecond = aggregateMetric("train_throughput_MB_per_second", "MiB/s", {}, reduction);
        setChecks(a, imp, group);
        return a;
    }
    a.au = aggregateMetric("train_au_percentage", "%", collect(imp, group.runs, &InvocationRecord::auMeanPercent), reduction);
    a.samplesPerSecond = aggregateMetric("train_throughput_samples_per_second", "samples/s",
                                         collect(imp, group.runs, &InvocationRecord::samplesPerSecond), reduction);
    a.mibPerSecond = aggregateMetric("train_throughput_MB_per_second", "MiB/s",
                                     collect(imp, group.runs, &InvocationRecord::mbPerSecond), reduction);

    // Epoch k over the runs that have it. MiB/s per epoch uses each run's own MiB-per-sample ratio
    // (train_io_mean_MB_per_second / train_throughput_mean_samples_per_second), i.e. the record length
    // DLIO itself used, so it matches the headline even where config.yaml is missing.
    std::size_t epochs = 0;
    for (std::size_t i : group.runs) epochs = std::max(epochs, imp.runs[i].epochAuPercent.size());
    for (std::size_t e = 0; e < epochs; ++e) {
        std::vector<double> au, sps, mib;
        for (std::size_t i : group.runs) {
            const auto& r = imp.runs[i];
            if (e < r.epochAuPercent.size()) au.push_back(r.epochAuPercent[e]);
            if (e < r.epochSamplesPerSecond.size()) {
                sps.push_back(r.epochSamplesPerSecond[e]);
                if (r.samplesPerSecond > 0) mib.push_back(r.epochSamplesPerSecond[e] * r.mbPerSecond / r.samplesPerSecond);
            }
        }
        EpochAggregate ea;
        ea.epoch = e + 1;
        ea.au = aggregateMetric("train_au_percentage", "%", std::move(au), reduction);
        ea.samplesPerSecond = aggregateMetric("train_throughput_samples_per_second", "samples/s", std::move(sps), reduction);
        ea.mibPerSecond = aggregateMetric("train_throughput_MB_per_second", "MiB/s", std::move(mib), reduction);
        a.perEpoch.push_back(std::move(ea));
    }
    setChecks(a, imp, group);
    if (group.existingReport) a.reportAgrees = compareWithReport(imp, group, *group.existingReport).empty();
    return a;
}

// "2026-07-08T06:50:57.118842" (DLIO's summary start/end) as seconds since 1970 (UTC assumed: only
// differences are used); NaN when it is not such a time.
double isoSeconds(const std::string& t) {
    int y = 0, mo = 0, d = 0, h = 0, mi = 0;
    double sec = 0;
    if (std::sscanf(t.c_str(), "%d-%d-%dT%d:%d:%lf", &y, &mo, &d, &h, &mi, &sec) != 6) return NAN;
    // Days from the civil date (Howard Hinnant's algorithm).
    y -= mo <= 2;
    const int era = (y >= 0 ? y : y - 399) / 400;
    const int yoe = y - era * 400;
    const int doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    const double days = static_cast<double>(era) * 146097.0 + doe - 719468.0;
    return days * 86400.0 + h * 3600.0 + mi * 60.0 + sec;
}

// The MLPerf Storage v3.0 checkpointing rules (mlcommons/storage mlpstorage_py/rules/run_checkers/
// checkpointing.py and submission_checkers/checkpointing.py; Rules.md 4.3.4, 4.3.5, 4.7.1).
void checkCheckpointRules(const ImportResult& imp, const RunGroup& group, std::vector<std::string>& out,
                          std::vector<std::string>& note) {
    constexpr std::int64_t kRequired = 10; // REQUIRED_WRITES, REQUIRED_READS
    constexpr double kGapSeconds = 30;     // MAX_INTER_PHASE_GAP_SECONDS
    std::vector<std::size_t> runs = group.runs;
    std::sort(runs.begin(), runs.end(), [&](std::size_t a, std::size_t b) { return imp.runs[a].start < imp.runs[b].start; });
    std::int64_t writes = 0, reads = 0;
    bool countsKnown = true;
    for (std::size_t i : runs) {
        const auto& r = imp.runs[i];
        if (r.checkpointsWritten < 0 || r.checkpointsRead < 0) countsKnown = false;
        writes += std::max<std::int64_t>(r.checkpointsWritten, 0);
        reads += std::max<std::int64_t>(r.checkpointsRead, 0);
        for (const auto& n : r.notes) note.push_back("Run " + r.runName + ": " + n + ".");
    }
    if (!countsKnown) {
        note.push_back("Checkpoint counts not checked: a run's config names no checkpoint.num_checkpoints_write/read.");
    } else {
        if (writes != kRequired)
            out.push_back("The benchmark wrote " + std::to_string(writes) + " checkpoints; MLPerf Storage v3.0 requires " +
                          std::to_string(kRequired) + " (checkpoint.num_checkpoints_write, Rules.md 4.7.1).");
        if (reads != kRequired)
            out.push_back("The benchmark read " + std::to_string(reads) + " checkpoints; MLPerf Storage v3.0 requires " +
                          std::to_string(kRequired) + " (checkpoint.num_checkpoints_read, Rules.md 4.7.1).");
        if (runs.size() == 2) {
            const auto& w = imp.runs[runs[0]];
            const auto& rd = imp.runs[runs[1]];
            if (w.checkpointsWritten != kRequired || w.checkpointsRead != 0 || rd.checkpointsWritten != 0 ||
                rd.checkpointsRead != kRequired) {
                out.push_back("Two checkpointing invocations must be a write phase (10 writes, 0 reads) followed by a read "
                              "phase (0 writes, 10 reads); here " + w.runName + " has " + std::to_string(w.checkpointsWritten) +
                              "/" + std::to_string(w.checkpointsRead) + " and " + rd.runName + " " +
                              std::to_string(rd.checkpointsWritten) + "/" + std::to_string(rd.checkpointsRead) + " (Rules.md 4.7.1).");
            } else {
                const double gap = isoSeconds(rd.start) - isoSeconds(w.end);
                if (!std::isfinite(gap))
                    note.push_back("Gap between the write and the read phase not checked: no readable summary start/end.");
                else if (gap < 0)
                    out.push_back("The read phase (" + rd.runName + ") started " + fixedNumber(-gap, 1) +
                                  " s before the write phase ended: the phases must not overlap (Rules.md 4.7.1).");
                else if (gap > kGapSeconds)
                    out.push_back("The read phase (" + rd.runName + ") started " + fixedNumber(gap, 1) + " s after the write phase ended; "
                                  "at most 30 s are allowed (Rules.md 4.7.1).");
            }
        }
    }
    if (runs.size() > 2)
        out.push_back("A checkpointing benchmark is 1 or 2 invocations (Rules.md 4.7.1); this one has " +
                      std::to_string(runs.size()) + ".");
    if (runs.empty()) return;
    const auto& first = imp.runs[runs.front()];
    // Rules.md 4.3.4: processes × the emulated accelerator's memory ≥ the checkpoint size (Table 3, config_keys).
    const double memory = config_keys::acceleratorMemoryGB(group.identity.accelerator);
    double size = NAN;
    for (std::size_t i : runs) size = std::isfinite(size) ? size : imp.runs[i].checkpointSizeGiB;
    const std::int64_t processes = first.metadataProcesses > 0 ? first.metadataProcesses : first.accelerators;
    if (group.identity.accelerator.empty()) {
        note.push_back("Accelerator memory against the checkpoint size not checked: no accelerator type is named "
                       "(overrides.yaml workload=<model>_<accelerator> or *_metadata.json).");
    } else if (memory <= 0) {
        std::string known;
        for (const auto& a : config_keys::accelerators())
            if (a.memoryGB > 0) known += (known.empty() ? "" : ", ") + a.name + " " + fixedNumber(a.memoryGB, 0) + " GB";
        note.push_back("Accelerator memory not checked: no memory is known for accelerator " + group.identity.accelerator +
                       " (" + known + ").");
    } else if (std::isfinite(size) && static_cast<double>(processes) * memory < size) {
        out.push_back("The emulated accelerators' memory (" + std::to_string(processes) + " × " + fixedNumber(memory, 0) + " GB = " +
                      fixedNumber(static_cast<double>(processes) * memory, 0) + " GB) is below the checkpoint size (" + fixedNumber(size, 1) +
                      " GB): Rules.md 4.3.4 requires it to hold the checkpoint.");
    }
    // Rules.md 4.3.5 (mlcommons/storage#841): subset mode exists only for llama3-8b, on 8 processes.
    for (std::size_t i : runs) {
        const auto& r = imp.runs[i];
        if (r.checkpointMode != "subset") continue;
        if (group.identity.model != "llama3-8b")
            out.push_back("Run " + r.runName + " used checkpoint.mode = subset with " + group.identity.model +
                          "; subset mode is defined only for llama3-8b (Rules.md 4.3.5).");
        else if (r.accelerators != 8)
            out.push_back("Run " + r.runName + " used subset mode on " + std::to_string(r.accelerators) +
                          " processes; it requires exactly 8 (Rules.md 4.3.5).");
    }
}

bool isSubmissionAttempt(const ImportResult& imp, const RunGroup& group) {
    for (const auto* list : {&group.runs, &group.excluded, &group.warmups})
        for (std::size_t i : *list) {
            const InvocationRecord& r = imp.runs[i];
            // DLIO's or MLPerf Storage's own folders (published results among them) were made to be submitted;
            // TrainIO's say so in their configuration (trainio.submission, trainio-cli benchmark --submission).
            if (!isTrainioRun(r)) return true;
            for (const auto& [k, v] : r.resolved)
                if (k == "trainio.submission" && (v == "true" || v == "True" || v == "1")) return true;
        }
    return false;
}

std::string notSubmissionText(std::size_t rules) {
    return "not a submission: " + std::to_string(rules) + " MLPerf Storage rule" + (rules == 1 ? "" : "s") +
           " would not allow it as one (a run marked as a submission, trainio-cli benchmark --submission or "
           "trainio.submission: true, fails on " + (rules == 1 ? "it" : "them") + ")";
}

RuleFindings ruleFindings(const ImportResult& imp, const RunGroup& group) {
    RuleFindings f;
    f.submission = isSubmissionAttempt(imp, group);
    // Each finding with what it is: a check of the result itself (the AU line the workload sets, DLIO's own
    // verdict, a report beside the runs that disagrees with them), which fails whatever the run was meant
    // for, or a rule of a submission (how many runs, the dataset against memory, the parameters the closed
    // division allows, one configuration per folder, the checkpointing rules), which fails only a submission.
    std::vector<std::pair<bool, std::string>> found; // (a submission rule?, the sentence)
    struct Sink {
        std::vector<std::pair<bool, std::string>>& to;
        bool rule;
        void push_back(std::string s) { to.emplace_back(rule, std::move(s)); }
    };
    Sink out{found, true}, result{found, false};
    std::vector<std::string>& note = f.notes;
    const auto finish = [&] {
        for (auto& [rule, text] : found) (rule && !f.submission ? f.unmetRules : f.failed).push_back(std::move(text));
        std::sort(note.begin(), note.end());
        note.erase(std::unique(note.begin(), note.end()), note.end());
        return f;
    };
    if (group.type == BenchmarkType::Checkpointing) {
        std::vector<std::string> rules;
        checkCheckpointRules(imp, group, rules, note);
        for (auto& r : rules) out.push_back(std::move(r));
        return finish();
    }

    if (group.runs.size() != kRequiredRuns) {
        out.push_back("This benchmark has " + std::to_string(group.runs.size()) + " measured run" +
                      (group.runs.size() == 1 ? "" : "s") + "; MLPerf Storage requires exactly " +
                      std::to_string(kRequiredRuns) + " (the warm-up does not count).");
    }
    // mlpstorage_py/report_generator.py _INVALID_MSG_TRAINING_COUNT: "expected 6 training invocations per
    // Rules.md §2.1.17 (1 warmup + 5 real)".
    if (isMlperfV3TrainingFolder(group.path) && group.warmups.size() != 1)
        out.push_back("MLPerf Storage v3.0 expects 6 training invocations in " + group.path.filename().string() +
                      "/ (1 warm-up + 5 measured, Rules.md 2.1.17); this benchmark has " + std::to_string(group.warmups.size()) +
                      " warm-up" + (group.warmups.size() == 1 ? "" : "s") + ".");

    for (std::size_t i : group.runs) {
        const auto& r = imp.runs[i];
        if (r.auThresholdPercent) {
            if (r.auMeanPercent < *r.auThresholdPercent) {
                // Whom to blame weighs what was measured: a run whose telemetry saw the client's CPU saturated was
                // held back by the client, not shown to be by the storage.
                result.push_back("Run " + r.runName + ": accelerator utilization " + fixedNumber(r.auMeanPercent) +
                              " % is below the " + fixedNumber(*r.auThresholdPercent, 0) + " % threshold (" + r.auThresholdSource +
                              (r.telemetry.clientBound
                                   ? "); its telemetry saw the client CPU saturated (client-bound), so the client, not "
                                     "necessarily the storage, kept the accelerators from being busy enough."
                                   : "), so the storage did not keep the accelerators busy enough."));
            }
        } else {
            note.push_back("Run " + r.runName + ": no AU threshold known (no metric.au in config.yaml, unknown workload).");
        }
        if (r.auMeetExpectation == "fail" && !(r.auThresholdPercent && r.auMeanPercent < *r.auThresholdPercent))
            result.push_back("Run " + r.runName + ": DLIO marked its accelerator utilization as failed (train_au_meet_expectation).");
        for (const auto& n : r.notes) note.push_back("Run " + r.runName + ": " + n + ".");
    }

    // Dataset size against the clients' memory. Runs usually share both numbers, so runs with the same
    // dataset and memory get one sentence instead of five identical ones.
    bool sizeChecked = false;
    struct Small {
        std::pair<double, double> key; // (bytes, GiB)
        std::vector<std::string> runNames;
        std::vector<std::size_t> runs;
    };
    std::vector<Small> small;
    for (std::size_t i : group.runs) {
        const auto& r = imp.runs[i];
        if (!r.recordLengthBytes || r.hostMemoryGiB <= 0.0) continue;
        sizeChecked = true;
        const double datasetBytes =
            static_cast<double>(r.filesTrain) * static_cast<double>(r.samplesPerFile) * *r.recordLengthBytes;
        if (datasetBytes >= kDatasetToMemory * r.hostMemoryGiB * kGiB) continue;
        const auto key = std::make_pair(datasetBytes, r.hostMemoryGiB);
        auto it = std::find_if(small.begin(), small.end(), [&](const auto& e) { return e.key == key; });
        if (it == small.end()) {
            small.push_back({key, {r.runName}, {i}});
        } else {
            it->runNames.push_back(r.runName);
            it->runs.push_back(i);
        }
    }
    for (const auto& [key, runNames, runs] : small) {
        std::string who;
        if (runNames.size() == group.runs.size() && runNames.size() > 1) {
            who = "In every run";
        } else {
            who = runNames.size() == 1 ? "In run " : "In runs ";
            for (std::size_t k = 0; k < runNames.size(); ++k) who += (k ? ", " : "") + runNames[k];
        }
        const double samples = static_cast<double>(group.identity.filesTrain) * static_cast<double>(group.identity.samplesPerFile);
        out.push_back(who + " the dataset (" + std::to_string(group.identity.filesTrain) + " files × " +
                      std::to_string(group.identity.samplesPerFile) + " samples × " + fixedNumber(key.first / samples, 0) +
                      " B = " + bytesText(key.first) + ") is smaller than 5 × the clients' total memory (" +
                      fixedNumber(key.second, 1) + " GiB, so at least " + fixedNumber(kDatasetToMemory * key.second, 1) + " GiB). " +
                      pageCacheVerdict(cacheEvidence(imp, runs)).text);
    }
    if (!sizeChecked && !group.runs.empty())
        note.push_back("Dataset size against client memory not checked: no record_length in config.yaml or no host_memory_GB.");

    // Closed division: only these parameters may be changed from the workload's defaults. The list is
    // mlcommons/storage's rules checker (check_allowed_params, CLOSED_ALLOWED_PARAMS); workflow.* and
    // profiling.* are set by the benchmark script itself on every run.
    static const std::set<std::string> kClosedAllowed = {
        "dataset.num_files_train", "dataset.num_subfolders_train", "dataset.data_folder", "reader.read_threads",
        "reader.computation_threads", "reader.transfer_size", "reader.odirect", "reader.prefetch_size",
        "checkpoint.checkpoint_folder", "storage.storage_type", "storage.storage_root",
        // v3.0 (mlpstorage_py/rules/run_checkers/training.py): an allowed client prefetch knob, and the
        // parameters mlpstorage injects itself (TOOL_INJECTED_PARAMS), which are never user overrides.
        "storage.storage_options.prefetch_window", "dataset.skip_listing", "dataset.listing_validation_interval",
        "dataset.num_files_generated", "storage.storage_options.storage_library", "storage.storage_options.uri_scheme",
        "storage.s3_force_path_style", "dataset.total_disk_bytes"};
    std::vector<std::pair<std::string, std::vector<std::string>>> disallowed; // "key = value" → runs
    for (std::size_t i : group.runs) {
        const auto& r = imp.runs[i];
        for (const auto& [key, value] : r.overrides) {
            // trainio.submission is the mark that asks for these checks: it changes nothing measured.
            if (kClosedAllowed.count(key) || key.rfind("workflow.", 0) == 0 || key.rfind("profiling.", 0) == 0 ||
                key == "trainio.submission")
                continue;
            const std::string what = key + " = " + value;
            auto it = std::find_if(disallowed.begin(), disallowed.end(), [&](const auto& e) { return e.first == what; });
            if (it == disallowed.end()) disallowed.push_back({what, {r.runName}});
            else it->second.push_back(r.runName);
        }
    }
    for (const auto& [what, runNames] : disallowed) {
        std::string who = runNames.size() == group.runs.size() && runNames.size() > 1 ? "Every run" : "Run";
        if (who == "Run") {
            who = runNames.size() == 1 ? "Run " : "Runs ";
            for (std::size_t k = 0; k < runNames.size(); ++k) who += (k ? ", " : "") + runNames[k];
        }
        out.push_back(who + " changed " + what + " (configs/overrides.yaml), which the closed division does not allow: "
                      "only the dataset's file count, subfolders and folder, the reader's threads, transfer and "
                      "prefetch sizes and O_DIRECT, and the checkpoint and storage locations may change.");
    }

    // Runs beside these in the same folder that differ in identity: the generator would refuse the folder.
    for (const auto& other : imp.groups) {
        if (other.path != group.path || other.identity == group.identity || other.runs.empty() || group.runs.empty()) continue;
        out.push_back("The folder also holds " + std::to_string(other.runs.size()) + " run" +
                      (other.runs.size() == 1 ? "" : "s") + " with a different configuration (" +
                      describeIdentity(other.identity) + " instead of " + describeIdentity(group.identity) +
                      "); all runs of a benchmark must use the same accelerators, files and samples per file.");
    }
    if (group.identity.model.empty())
        note.push_back("The workload is unknown: no configs/overrides.yaml with workload=<model>_<accelerator> and no model in config.yaml.");
    else if (group.identity.accelerator.empty())
        note.push_back("The accelerator is unknown: the runs name only the model (" + group.identity.model +
                       "); the MLPerf generator expects workload=<model>_<accelerator> in configs/overrides.yaml.");

    if (group.existingReport) {
        for (auto& s : compareWithReport(imp, group, *group.existingReport)) result.push_back(std::move(s));
    }
    return finish();
}

std::vector<std::string> checkRules(const ImportResult& imp, const RunGroup& group, std::vector<std::string>* notes) {
    RuleFindings f = ruleFindings(imp, group);
    if (notes) notes->insert(notes->end(), f.notes.begin(), f.notes.end());
    return std::move(f.failed);
}

std::vector<std::string> compareWithReport(const ImportResult& imp, const RunGroup& group, const fs::path& report) {
    std::vector<std::string> out;
    const std::string name = report.string();
    // Read by the importer (store::readFolderJson, within its bounds and link rule).
    const nlohmann::json* j = group.existingReportContent.get();
    if (!j) {
        out.push_back(name + " could not be read (" + group.existingReportError + "), so it could not be compared with the runs.");
        return out;
    }
    const auto overallIt = j->is_object() ? j->find("overall") : j->end();
    if (overallIt == j->end() || !overallIt->is_object()) {
        out.push_back(name + " has no \"overall\" section, so it could not be compared with the runs.");
        return out;
    }
    const auto& overall = *overallIt;
    const ordered_json mine = mlperfReport(imp, group);
    const auto& expected = mine["overall"];
    const std::string runs = std::to_string(group.runs.size()) + " run" + (group.runs.size() == 1 ? "" : "s");
    for (const auto& [key, value] : expected.items()) {
        auto it = overall.find(key);
        if (it == overall.end()) {
            out.push_back(name + " lacks the key " + key + ".");
            continue;
        }
        if (value.is_number_float()) {
            const double mineV = value.get<double>();
            if (!it->is_number() || !relativelyEqual(it->get<double>(), mineV, 1e-9)) {
                std::string theirs = it->dump();
                std::string diff;
                if (it->is_number() && mineV != 0.0)
                    diff = " (" + fixedNumber(100.0 * (it->get<double>() - mineV) / mineV, 3) + " %)";
                out.push_back(name + " says " + key + " = " + theirs + ", but the " + runs + " beside it give " +
                              csvNumber(mineV) + diff + ".");
            }
        } else {
            // Integers may be written as numbers or (train_num_accelerators) as strings: compare as text.
            auto asText = [](const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
            const std::string mineS = value.is_string() ? value.get<std::string>() : value.dump();
            if (asText(*it) != mineS)
                out.push_back(name + " says " + key + " = " + it->dump() + ", but the " + runs + " beside it give " + mineS + ".");
        }
    }
    if (auto runsIt = j->find("runs"); runsIt != j->end() && runsIt->is_object()) {
        std::vector<std::string> missing;
        for (const auto& item : runsIt->items()) {
            // Not a structured binding: clang 14 (the fuzz build) cannot capture one in the lambda.
            const std::string runName = item.key();
            const bool present = std::any_of(group.runs.begin(), group.runs.end(),
                                             [&](std::size_t i) { return imp.runs[i].runName == runName; });
            if (!present) missing.push_back(runName);
        }
        if (!missing.empty()) {
            std::string list;
            for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
            out.push_back(name + " lists runs that are not beside it: " + list + ".");
        }
    }
    return out;
}

ordered_json mlperfReport(const ImportResult& imp, const RunGroup& group) {
    ordered_json report;
    ordered_json runs = ordered_json::object();
    for (std::size_t i : group.runs) {
        const auto& r = imp.runs[i];
        ordered_json run;
        run["train_throughput_samples_per_second"] = r.samplesPerSecond;
        run["train_throughput_MB_per_second"] = r.mbPerSecond;
        run["train_num_accelerators"] = std::to_string(r.accelerators);
        run["model"] = r.model;
        run["accelerator"] = r.accelerator;
        run["num_files_train"] = r.filesTrain;
        run["num_samples_per_file"] = r.samplesPerFile;
        runs[r.runName] = std::move(run);
    }
    const auto sps = collect(imp, group.runs, &InvocationRecord::samplesPerSecond);
    const auto mbps = collect(imp, group.runs, &InvocationRecord::mbPerSecond);
    ordered_json overall;
    overall["model"] = group.identity.model;
    overall["accelerator"] = group.identity.accelerator;
    overall["num_benchmark_runs"] = group.runs.size();
    overall["train_num_accelerators"] = std::to_string(group.identity.accelerators);
    overall["num_files_train"] = group.identity.filesTrain;
    overall["num_samples_per_file"] = group.identity.samplesPerFile;
    overall["train_throughput_mean_samples_per_second"] = mean(sps).value;
    overall["train_throughput_stdev_samples_per_second"] = populationStdev(sps).value;
    overall["train_throughput_mean_MB_per_second"] = mean(mbps).value;
    overall["train_throughput_stdev_MB_per_second"] = populationStdev(mbps).value;
    report["overall"] = std::move(overall);
    report["runs"] = std::move(runs);
    return report;
}

ordered_json toJson(const InvocationRecord& r) {
    ordered_json j;
    j["path"] = r.path.string();
    j["name"] = r.runName;
    j["warmup"] = r.warmup;
    j["status"] = statusName(r.status);
    j["status_reason"] = r.statusReason;
    j["train_au_mean_percentage"] = r.auMeanPercent;
    j["train_throughput_mean_samples_per_second"] = r.samplesPerSecond;
    j["train_io_mean_MB_per_second"] = r.mbPerSecond;
    j["train_au_percentage"] = r.epochAuPercent;
    j["train_throughput_samples_per_second"] = r.epochSamplesPerSecond;
    j["au_threshold_percentage"] = r.auThresholdPercent ? ordered_json(*r.auThresholdPercent) : ordered_json();
    j["train_au_meet_expectation"] = r.auMeetExpectation;
    j["train_num_accelerators"] = r.accelerators;
    j["num_hosts"] = r.numHosts;
    j["host_memory_GB_total"] = r.hostMemoryGiB;
    j["record_length_bytes"] = r.recordLengthBytes ? ordered_json(*r.recordLengthBytes) : ordered_json();
    j["epochs"] = r.epochs;
    j["start"] = r.start;
    j["end"] = r.end;
    ordered_json files = ordered_json::array();
    for (const auto& f : r.summaryFiles) files.push_back(f.string());
    j["summary_files"] = std::move(files);
    j["notes"] = r.notes;
    j["workload_identity"] = r.workloadKey;
    j["io_engine"] = r.ioEngine;
    j["cache_control"] = r.cacheControl;
    j["epoch_percent_from_cache"] = r.epochPercentFromCache;
    j["warnings"] = r.warnings;
    j["kind"] = benchmarkTypeName(r.type);
    if (r.type == BenchmarkType::Checkpointing) {
        j["save_checkpoint_io_mean_GB_per_second"] = numberOrNull(r.checkpointWriteGiBps); // NaN → null: did not write
        j["save_checkpoint_duration_mean_seconds"] = numberOrNull(r.checkpointWriteSeconds);
        j["load_checkpoint_io_mean_GB_per_second"] = numberOrNull(r.checkpointReadGiBps);
        j["load_checkpoint_duration_mean_seconds"] = numberOrNull(r.checkpointReadSeconds);
        j["checkpoint_size_GB"] = numberOrNull(r.checkpointSizeGiB);
        j["num_checkpoints_write"] = r.checkpointsWritten >= 0 ? ordered_json(r.checkpointsWritten) : ordered_json();
        j["num_checkpoints_read"] = r.checkpointsRead >= 0 ? ordered_json(r.checkpointsRead) : ordered_json();
    }
    return j;
}

ordered_json toJson(const GroupAggregate& a, const ImportResult& imp) {
    const auto& g = a.group;
    ordered_json j;
    const GroupRow row{g, a};
    // The scalar columns (the MLPerf Storage v1.0 reduction under its key names among them), then
    // what only JSON can hold.
    for (const auto& c : kColumns)
        if (c.sinks & kJson) j[c.key] = cellJson(c.get(row));
    j["system_file"] = g.systemFile ? ordered_json(g.systemFile->string()) : ordered_json();
    j["differences"] = g.differences;
    j["setting_differences"] = g.settingDifferences;
    j["num_warmup_runs"] = g.warmups.size();
    j["mlperf_rule"] = "mean of the per-run means, population stdev (numpy.mean / numpy.std), as "
                       "mlcommons/storage report.py writes mlperf_storage_report.json";
    j["units"] = ordered_json{{"MB_per_second", "MiB/s (2^20 bytes per second; DLIO and MLPerf call it MB/s)"}};
    j["ci95"] = ordered_json{
        {a.au.key, {{"low", a.au.ci95.low}, {"high", a.au.ci95.high}}},
        {a.samplesPerSecond.key, {{"low", a.samplesPerSecond.ci95.low}, {"high", a.samplesPerSecond.ci95.high}}},
        {a.mibPerSecond.key, {{"low", a.mibPerSecond.ci95.low}, {"high", a.mibPerSecond.ci95.high}}}};
    j["statistics"] = ordered_json{{a.au.key, metricJson(a.au)},
                                   {a.samplesPerSecond.key, metricJson(a.samplesPerSecond)},
                                   {a.mibPerSecond.key, metricJson(a.mibPerSecond)}};
    if (g.type == BenchmarkType::Checkpointing)
        for (const MetricAggregate* m : {&a.checkpointWriteGiBps, &a.checkpointReadGiBps, &a.checkpointWriteSeconds,
                                         &a.checkpointReadSeconds, &a.checkpointSizeGiB})
            j["statistics"][m->key] = metricJson(*m);
    ordered_json epochs = ordered_json::array();
    for (const auto& e : a.perEpoch) {
        epochs.push_back(ordered_json{{"epoch", e.epoch},
                                      {e.au.key, metricJson(e.au)},
                                      {e.samplesPerSecond.key, metricJson(e.samplesPerSecond)},
                                      {e.mibPerSecond.key, metricJson(e.mibPerSecond)}});
    }
    j["per_epoch"] = std::move(epochs);
    j["checks"] = a.checks;
    j["notes"] = a.notes;
    j["not_a_submission"] = a.notSubmission;
    if (g.existingReport) {
        j["mlperf_storage_report"] = ordered_json{{"path", g.existingReport->string()},
                                                  {"agrees", a.reportAgrees.value_or(false)}};
    } else {
        j["mlperf_storage_report"] = nullptr;
    }
    ordered_json runs = ordered_json::array();
    for (std::size_t i : g.runs) runs.push_back(toJson(imp.runs[i]));
    j["runs"] = std::move(runs);
    ordered_json warm = ordered_json::array();
    for (std::size_t i : g.warmups) warm.push_back(toJson(imp.runs[i]));
    j["warmup"] = std::move(warm);
    ordered_json excluded = ordered_json::array();
    for (std::size_t i : g.excluded) excluded.push_back(toJson(imp.runs[i]));
    j["excluded"] = std::move(excluded); // not complete: shown with status and reason, in no statistic
    return j;
}

ordered_json toJson(const ImportResult& imp, Reduction reduction) {
    ordered_json j;
    ordered_json groups = ordered_json::array();
    for (const auto& g : imp.groups) groups.push_back(toJson(aggregateGroup(imp, g, reduction), imp));
    ordered_json skipped = ordered_json::array();
    for (const auto& s : imp.skipped) skipped.push_back(ordered_json{{"path", s.path.string()}, {"reason", s.reason}});
    j["groups"] = std::move(groups);
    j["skipped"] = std::move(skipped);
    ordered_json dups = ordered_json::array();
    for (const auto& d : imp.duplicates) dups.push_back(ordered_json{{"path", d.path.string()}, {"same_as", d.kept.string()}});
    j["duplicates"] = std::move(dups);
    return j;
}

std::string formatTable(const ImportResult& imp, Reduction reduction) {
    const std::string red = reductionName(reduction);
    std::vector<const Column*> cols;
    for (const char* key : kTableOrder) cols.push_back(&column(key));
    std::vector<std::vector<std::string>> rows(1);
    std::vector<bool> rightAligned;
    for (const Column* c : cols) {
        std::string header = c->header;
        if (const auto at = header.find("{reduce}"); at != std::string::npos) header.replace(at, 8, red);
        rows[0].push_back(header);
    }
    for (const auto& g : imp.groups) {
        const GroupAggregate a = aggregateGroup(imp, g, reduction);
        const GroupRow row{g, a};
        std::vector<std::string> cells;
        rightAligned.clear();
        for (const Column* c : cols) {
            const Cell cell = c->get(row);
            cells.push_back(cellText(cell, c->precision));
            rightAligned.push_back(!std::holds_alternative<std::string>(cell) || std::string(c->key) == "runs");
        }
        rows.push_back(std::move(cells));
    }
    std::vector<std::size_t> width(cols.size(), 0);
    auto displayWidth = [](const std::string& s) {
        std::size_t w = 0;
        for (unsigned char c : s) w += (c & 0xC0) != 0x80; // count UTF-8 code points, not bytes
        return w;
    };
    for (const auto& r : rows)
        for (std::size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], displayWidth(r[c]));
    std::ostringstream os;
    for (const auto& r : rows) {
        for (std::size_t c = 0; c < r.size(); ++c) {
            const std::size_t pad = width[c] - displayWidth(r[c]);
            if (c + 1 == r.size()) {
                os << r[c];
            } else if (!rightAligned.empty() && rightAligned[c]) {
                os << std::string(pad, ' ') << r[c] << "  ";
            } else {
                os << r[c] << std::string(pad, ' ') << "  ";
            }
        }
        os << '\n';
    }
    for (const auto& g : imp.groups) {
        const RuleFindings f = ruleFindings(imp, g);
        for (const auto& c : f.failed) os << "! " << g.path.string() << ": " << c << '\n';
        if (!f.unmetRules.empty()) {
            os << g.path.string() << ": " << notSubmissionText(f.unmetRules.size()) << ":\n";
            for (const auto& c : f.unmetRules) os << "  - " << c << '\n';
        }
        for (std::size_t i : g.excluded)
            os << "excluded " << imp.runs[i].path.string() << ": " << statusName(imp.runs[i].status)
               << (imp.runs[i].statusReason.empty() ? "" : " (" + imp.runs[i].statusReason + ")") << '\n';
    }
    for (const auto& s : imp.skipped) os << "skipped " << s.path.string() << ": " << s.reason << '\n';
    return os.str();
}

std::string formatCsv(const ImportResult& imp, Reduction reduction) {
    std::ostringstream os;
    bool first = true;
    for (const auto& c : kColumns) {
        if (!(c.sinks & kCsv)) continue;
        os << (first ? "" : ",") << c.key;
        first = false;
    }
    os << '\n';
    for (const auto& g : imp.groups) {
        const GroupAggregate a = aggregateGroup(imp, g, reduction);
        const GroupRow row{g, a};
        first = true;
        for (const auto& c : kColumns) {
            if (!(c.sinks & kCsv)) continue;
            os << (first ? "" : ",") << cellCsv(c.get(row));
            first = false;
        }
        os << '\n';
    }
    return os.str();
}

fs::path writeMlperfReport(const fs::path& runsDir, IoBackend* io) { return writeMlperfReport(importResults({runsDir}), runsDir, io); }

fs::path writeMlperfReport(const ImportResult& imp, const fs::path& runsDir, IoBackend* io, store::WrittenFiles* record) {
    std::vector<const RunGroup*> measured;
    for (const auto& g : imp.groups)
        if (!g.runs.empty()) measured.push_back(&g);
    if (measured.empty()) {
        std::string detail;
        for (const auto& s : imp.skipped) detail += "; " + s.path.string() + ": " + s.reason;
        throw InputError(runsDir.string() + ": no readable <run>/summary.json below it" + detail);
    }
    if (measured.size() > 1) {
        std::string detail;
        for (const auto* g : measured) detail += "; " + g->path.string() + ": " + describeIdentity(g->identity);
        throw InputError(runsDir.string() + ": the runs are of different workloads or folders, and the MLPerf "
                                            "Storage report covers one" + detail);
    }
    std::error_code ec;
    if (!fs::equivalent(measured.front()->path, runsDir, ec)) {
        throw InputError(runsDir.string() + ": expected the layout <runs>/<run>/summary.json, found runs in " +
                         measured.front()->path.string());
    }
    const fs::path target = runsDir / store::kMlperfReportFile;
    // json.dump(indent=4) layout, as the generator writes it.
    store::writeFileAtomic(target, mlperfReport(imp, *measured.front()).dump(4, ' ', false, ordered_json::error_handler_t::replace), io,
                           record);
    return target;
}

fs::path writeAggregateJson(const fs::path& benchmarkDir, Reduction reduction, IoBackend* io) {
    return writeAggregateJson(importResults({benchmarkDir}), benchmarkDir, reduction, io);
}

fs::path writeAggregateJson(const ImportResult& imp, const fs::path& benchmarkDir, Reduction reduction, IoBackend* io,
                            store::WrittenFiles* record) {
    ordered_json j;
    j["benchmark"] = benchmarkDir.string();
    j["generator"] = std::string("TrainIO ") + TRAINIO_VERSION;
    j["reduce"] = reductionName(reduction);
    ordered_json all = toJson(imp, reduction);
    j["groups"] = std::move(all["groups"]);
    j["skipped"] = std::move(all["skipped"]);
    const fs::path target = benchmarkDir / store::kAggregateFile;
    // Paths need not be valid UTF-8; dump would throw on them by default.
    store::writeFileAtomic(target, j.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n", io, record);
    return target;
}

} // namespace trainio::aggregate
