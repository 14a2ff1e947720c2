// The MLPerf Storage v1.0 report generator this reproduces is report.py in mlcommons/storage (v1.0
// era, commit 16b959b): it walks <result_dir>/<run>/summary.json, insists on exactly 5 runs, reads
// model and accelerator from <run>/configs/overrides.yaml ("workload=<model>_<accelerator>"), takes
// per run metric.train_throughput_mean_samples_per_second, metric.train_io_mean_MB_per_second and
// num_accelerators, refuses runs whose metric.train_au_meet_expectation is "fail" and runs that
// disagree on model, accelerator, accelerators, files or samples per file, then writes numpy mean and
// numpy std (population) over the runs. It dumps with json.dump(default=str), which is why the
// numpy integer train_num_accelerators appears as a string in every published report.
#include "aggregate/group_aggregate.h"
#include "aggregate/mlcommons_table.h"
#include "aggregate/advisories.h"

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

std::vector<double> collect(const ImportResult& imp, const std::vector<std::size_t>& runs, double InvocationRecord::*field) {
    std::vector<double> v;
    v.reserve(runs.size());
    for (std::size_t i : runs) v.push_back(imp.runs[i].*field);
    return v;
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
    // Issue 33: efficiency, as the JSON's `efficiency` object gives it (empty where the system does not say).
    {"gib_per_s_per_usable_tib", "GiB/s per TiB", "GiB/s per TiB",
     "efficiency: read_gib_per_second ÷ (usable_capacity_GiB / 1024) (docs/aggregation.md, \"Efficiency\")", kCsv, 4,
     [](const GroupRow& r) -> Cell { return r.a.efficiency.perUsableTiB.value_or(NAN); }},
    {"gib_per_s_per_kw", "GiB/s per kW", "GiB/s per kW", "efficiency: read_gib_per_second ÷ power_kw", kCsv, 4,
     [](const GroupRow& r) -> Cell { return r.a.efficiency.perKw.value_or(NAN); }},
    {"gib_per_s_per_rack_unit", "GiB/s per U", "GiB/s per U", "efficiency: read_gib_per_second ÷ rack_units", kCsv, 4,
     [](const GroupRow& r) -> Cell { return r.a.efficiency.perRackUnit.value_or(NAN); }},
    {"usable_capacity_GiB", "usable GiB", "GiB", "the system's usable capacity the efficiency is over (labels or the MLPerf systems file)",
     kCsv, 0, [](const GroupRow& r) -> Cell { return r.a.efficiency.figures.usableCapacityGiB.value.value_or(NAN); }},
    {"power_kw", "kW", "kW", "the system's power the efficiency is over", kCsv, 3,
     [](const GroupRow& r) -> Cell { return r.a.efficiency.figures.powerKw.value.value_or(NAN); }},
    {"rack_units", "U", "U", "the system's rack units the efficiency is over", kCsv, 0,
     [](const GroupRow& r) -> Cell { return r.a.efficiency.figures.rackUnits.value.value_or(NAN); }},
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
    if (const auto* d = std::get_if<double>(&c)) return exactNumber(*d);
    if (const auto* i = std::get_if<std::int64_t>(&c)) return std::to_string(*i);
    return std::get<bool>(c) ? "true" : "false";
}

std::string cellText(const Cell& c, int precision) {
    if (const auto* d = std::get_if<double>(&c)) return fixedNumber(*d, precision);
    if (std::holds_alternative<std::string>(c)) return std::get<std::string>(c);
    return cellCsv(c);
}

} // namespace

std::string describeIdentity(const WorkloadIdentity& id) {
    return std::to_string(id.accelerators) + " accelerators, " + std::to_string(id.filesTrain) + " files, " +
           std::to_string(id.samplesPerFile) + " samples per file" +
           (id.model.empty() ? std::string() : ", workload " + id.model + (id.accelerator.empty() ? "" : "_" + id.accelerator));
}

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
    if (group.tableRow) return aggregateTableRow(group, reduction); // a table row: its figures, no runs
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
        a.efficiency = efficiencyOf(NAN, group.systemFigures); // no read GiB/s: the figures alone
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
    a.efficiency = efficiencyOf(a.mibPerSecond.values.empty() ? NAN : readGibPerSecond(a), group.systemFigures);
    if (group.existingReport) a.reportAgrees = compareWithReport(imp, group, *group.existingReport).empty();
    return a;
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

static ordered_json advisoryJson(const AdvisoryMatch& m) {
    return ordered_json{{"fixed_in", m.advisory->tool + " " + m.advisory->fixedIn},
                        {"certain", m.certain},
                        {"effect", m.advisory->effect},
                        {"refs", m.advisory->refs},
                        {"text", m.text}};
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
    // How it was made and what the advisory ledger knows against it (issue 33; advisories.h).
    const RunProvenance made = provenanceOf(r);
    j["provenance"] = ordered_json{{"tool", made.tool}, {"version", made.version.empty() ? ordered_json() : ordered_json(made.version)},
                                   {"date", made.date.empty() ? ordered_json() : ordered_json(made.date)}};
    ordered_json advisories = ordered_json::array();
    for (const AdvisoryMatch& m : matchAdvisories(defaultAdvisoryLedger(), made)) advisories.push_back(advisoryJson(m));
    j["advisories"] = std::move(advisories);
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
    // The group's advisories: each known defect once, with how many of its measured runs it may touch
    // (issue 33: a badge on the item).
    std::vector<RunProvenance> made;
    for (std::size_t i : g.runs) made.push_back(provenanceOf(imp.runs[i]));
    ordered_json advisories = ordered_json::array();
    for (const RunsAdvisory& a : matchAdvisoriesOfRuns(defaultAdvisoryLedger(), made)) {
        ordered_json entry = advisoryJson(a.match);
        entry["runs"] = a.runs;
        advisories.push_back(std::move(entry));
    }
    j["advisories"] = std::move(advisories);
    // GiB/s per usable TiB, per kW, per rack unit, and the system's figures used with their sources (issue 33).
    j["efficiency"] = efficiencyJson(a.efficiency);
    j["from_table"] = g.tableRow ? tableRowJson(*g.tableRow) : ordered_json(); // MLCommons' table: no runs
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
