// DLIO's training metrics, computed exactly as DLIO computes them (SPEC §5).
//
// DLIO >= 2.0 (default) — dlio_benchmark/utils/statscounter.py, compute_metrics_train():
//   metric_start_step = s (exclude_start_steps, 1), metric_end_step = steps - 1 - e (exclude_end_steps, 0),
//   with `steps` the expected steps per epoch;
//   AU % = 100 × Σ compute[s : end+1] ÷ (T − Σ proc[:s] − Σ proc[end+1:]),  0 when Σ compute is 0
//   throughput (samples/s, per rank) = (len(compute) − 2) ÷ (that same time) × batch_size
//   where T is the block's wall time (end_block − start_block) and compute is the *measured* sleep.
// DLIO 1.0 (MLPerf Storage v1.0): compute is the configured value,
//   AU % = 100 × Σ compute[1:] ÷ (T − proc[0]),  throughput = S ÷ T × batch_size.
// MLPerf Storage v3.0 (mlcommons/DLIO_local_changes f6796ed, statscounter.py:436-470), `--semantics v3`:
//   the same metric window [s, end] and time as >= 2.0, with Python's slice bounds, and
//   throughput = len(compute[s : end+1]) ÷ time × batch_size (the steps in the window, no "− 2");
//   AU and throughput are 0 when the window is empty or the time is not positive.
// Epoch (end_train): step-weighted mean over blocks, weights len(proc[block]).
// Epoch and invocation aggregation are the same in all three (v3: statscounter.py:267-277, 188-205).
// Invocation (end_run): per epoch AU = mean over ranks (allreduce sum ÷ comm size), throughput = sum
// over ranks; headline = numpy mean and population std over epochs; MB/s = samples/s × record_length
// ÷ 1024 ÷ 1024 (MiB/s, DLIO's key says MB); pass = mean AU >= metric.au × 100.
#pragma once

#include "config/workload_config.h"
#include "metrics/step_records.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainio {

struct MetricOptions {
    MetricSemantics semantics = MetricSemantics::DlioV2;
    std::uint64_t excludeStartSteps = 1;
    std::uint64_t excludeEndSteps = 0;
    std::uint64_t expectedSteps = 0; // steps per epoch the run was planned for
    std::uint64_t batchSize = 1;
};

struct BlockMetrics {
    double auPercent = 0;
    double throughput = 0; // samples/s, this rank
};

struct EpochRankMetrics {
    double auPercent = 0;
    double throughput = 0;
    std::uint64_t steps = 0;
};

struct InvocationMetrics {
    std::vector<double> auPerEpoch;         // %, mean over ranks
    std::vector<double> throughputPerEpoch; // samples/s, sum over ranks
    double auMean = 0, auStdev = 0;
    double throughputMean = 0, throughputStdev = 0;
    double ioMeanMiB = 0, ioStdevMiB = 0; // "MB/s" in DLIO's keys; really MiB/s
    bool pass = false;
};

BlockMetrics blockMetrics(const BlockRecord& block, const MetricOptions& opt);
EpochRankMetrics epochRankMetrics(const EpochRecord& epoch, const MetricOptions& opt);
// Combines per-epoch, per-rank metrics: perEpoch[e][r]. Epochs missing a rank are left out.
InvocationMetrics invocationMetrics(const std::vector<std::vector<EpochRankMetrics>>& perEpoch,
                                    double recordLength, double auThreshold);
InvocationMetrics invocationMetrics(const std::vector<RankRecord>& ranks, const MetricOptions& opt,
                                    double recordLength, double auThreshold);

// The "metric" object of summary.json, with DLIO's keys in DLIO's order.
nlohmann::ordered_json metricJson(const InvocationMetrics& m);

// "v1" | "v2" | "v3": the words `--semantics` takes and trainio_run.json's "semantics" records.
const char* semanticsName(MetricSemantics s);
std::optional<MetricSemantics> parseSemantics(std::string_view name);

// The semantics of an MLPerf Storage round (trainio.mlperf_round): v1.0 → v1 (DLIO 1.0), v2.0 → v2 (DLIO ≥ 2.0),
// v3.0 → v3 (the round's DLIO fork); no round (a workload of one's own) → v2.
MetricSemantics semanticsOfRound(std::string_view mlperfRound);

// parseSemantics for a word the user typed: throws InputError naming `option` for anything but v1, v2 or v3.
MetricSemantics semanticsWord(const std::string& word, const std::string& option = "--semantics");

// The semantics a run uses: an explicit choice (`--semantics`, the GUI's box) wins; without one, the
// config's round, so a preset carries its round's semantics (docs/metrics.md). One resolution for the
// CLI's run, benchmark, sweep and model and for the GUI. Throws as semanticsWord.
MetricSemantics resolveSemantics(const std::optional<std::string>& chosen, const WorkloadConfig& cfg,
                                 const std::string& option = "--semantics");

// The smallest number of steps per epoch for which `opt.semantics`' formulas measure anything: v1's AU skips
// the first step; v2's AU window is [exclude_start_steps, steps - exclude_end_steps) and its throughput counts
// steps - 2; v3's window is v2's, counted as is. Below it DLIO's own formulas give 0 or a negative samples/s.
std::uint64_t minimumMeaningfulSteps(const MetricOptions& opt);
// "" when an epoch of opt.expectedSteps steps is at least minimumMeaningfulSteps; else a sentence saying what
// DLIO's formulas will report and how many steps an epoch needs (shown by pre-flight, the model and the GUI).
std::string metricWindowWarning(const MetricOptions& opt);

double mean(const std::vector<double>& v);
double populationStdev(const std::vector<double>& v);

} // namespace trainio
