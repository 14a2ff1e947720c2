#include "metrics/dlio_metrics.h"

#include "util/errors.h"
#include "util/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace trainio {
namespace {

double sumRange(const std::vector<double>& v, std::size_t b, std::size_t e) {
    b = std::min(b, v.size());
    e = std::min(e, v.size());
    double s = 0;
    for (std::size_t i = b; i < e; ++i) s += v[i];
    return s;
}

// Python's bounds for a[i:] / a[:i] on a list of n elements: a negative index counts from the end,
// then the bound is clamped to [0, n]. The v3 fork slices with metric_end_step + 1, which is
// negative when a block has fewer steps than exclude_end_steps + 1.
std::size_t pySliceBound(std::int64_t i, std::size_t n) {
    const auto sn = static_cast<std::int64_t>(n);
    if (i < 0) i += sn;
    return static_cast<std::size_t>(std::clamp<std::int64_t>(i, 0, sn));
}

// MLPerf Storage v3.0's DLIO (mlcommons/DLIO_local_changes f6796ed),
// dlio_benchmark/utils/statscounter.py compute_metrics_train(), lines 436-470.
BlockMetrics blockMetricsV3(const BlockRecord& block, const MetricOptions& opt) {
    BlockMetrics m;
    // statscounter.py:84-86: metric_end_step = steps - 1 - exclude_end, with `steps` the expected
    // steps per epoch (total_training_steps when set); slices below stop at metric_end_step + 1.
    const auto start = static_cast<std::int64_t>(opt.excludeStartSteps);
    const std::int64_t stop = static_cast<std::int64_t>(opt.expectedSteps) - static_cast<std::int64_t>(opt.excludeEndSteps);
    // :444-445: metric_slice = compute[start:stop]; total_compute_time = sum(metric_slice)
    const std::size_t cb = pySliceBound(start, block.compute.size()), ce = pySliceBound(stop, block.compute.size());
    const std::size_t window = ce > cb ? ce - cb : 0;
    const double totalCompute = sumRange(block.compute, cb, ce);
    // :448-453: total_time = end - start - sum(proc[:start]) - sum(proc[stop:])
    const std::size_t n = block.proc.size();
    const double totalTime = block.seconds() - sumRange(block.proc, 0, pySliceBound(start, n)) -
                             sumRange(block.proc, pySliceBound(stop, n), n);
    // :461-467: an empty window or a non-positive time gives 0 for both; AU is 0 without compute;
    // throughput counts the steps in the window (no "- 2").
    if (window == 0 || totalTime <= 0) return m;
    const double au = totalCompute > 0 ? totalCompute / totalTime : 0.0;
    m.auPercent = au * 100; // :469
    m.throughput = static_cast<double>(window) / totalTime * static_cast<double>(opt.batchSize);
    return m;
}

} // namespace

const char* semanticsName(MetricSemantics s) {
    switch (s) {
    case MetricSemantics::DlioV1: return "v1";
    case MetricSemantics::DlioV2: return "v2";
    case MetricSemantics::DlioV3: return "v3";
    }
    return "?";
}

std::optional<MetricSemantics> parseSemantics(std::string_view name) {
    for (MetricSemantics s : {MetricSemantics::DlioV1, MetricSemantics::DlioV2, MetricSemantics::DlioV3})
        if (name == semanticsName(s)) return s;
    return std::nullopt;
}

MetricSemantics semanticsOfRound(std::string_view mlperfRound) {
    if (mlperfRound == "v1.0") return MetricSemantics::DlioV1;
    if (mlperfRound == "v3.0") return MetricSemantics::DlioV3;
    return MetricSemantics::DlioV2; // v2.0 ran DLIO >= 2.0; a workload of one's own: upstream DLIO
}

MetricSemantics semanticsWord(const std::string& word, const std::string& option) {
    if (const auto sem = parseSemantics(word)) return *sem;
    throw InputError(option + " = '" + word + "': expected v1 (DLIO 1.0, MLPerf Storage v1.0), v2 (DLIO >= 2.0) "
                     "or v3 (MLPerf Storage v3.0's DLIO)");
}

MetricSemantics resolveSemantics(const std::optional<std::string>& chosen, const WorkloadConfig& cfg, const std::string& option) {
    return chosen ? semanticsWord(*chosen, option) : semanticsOfRound(cfg.trainio.mlperfRound);
}

std::uint64_t minimumMeaningfulSteps(const MetricOptions& opt) {
    switch (opt.semantics) {
    case MetricSemantics::DlioV1: return 2; // blockMetrics: AU over compute[1:]
    case MetricSemantics::DlioV2: // statscounter.py: the AU slice [start, metric_end_step + 1) and (steps - 2) samples
        return std::max<std::uint64_t>(3, opt.excludeStartSteps + opt.excludeEndSteps + 1);
    case MetricSemantics::DlioV3: return opt.excludeStartSteps + opt.excludeEndSteps + 1; // blockMetricsV3's window
    }
    return 1;
}

std::string metricWindowWarning(const MetricOptions& opt) {
    const std::uint64_t need = minimumMeaningfulSteps(opt);
    if (opt.expectedSteps >= need) return {};
    const std::string steps = std::to_string(opt.expectedSteps) + (opt.expectedSteps == 1 ? " step" : " steps");
    std::string what;
    switch (opt.semantics) {
    case MetricSemantics::DlioV1: what = "DLIO 1.0's AU skips the first step, so AU reads 0"; break;
    case MetricSemantics::DlioV2:
        what = "DLIO's AU skips metric.exclude_start_steps=" + std::to_string(opt.excludeStartSteps) +
               " and exclude_end_steps=" + std::to_string(opt.excludeEndSteps) +
               " and its samples/s counts steps - 2, so AU and samples/s read 0 or a negative number";
        break;
    case MetricSemantics::DlioV3:
        what = "MLPerf Storage v3.0's DLIO skips metric.exclude_start_steps=" + std::to_string(opt.excludeStartSteps) +
               " and exclude_end_steps=" + std::to_string(opt.excludeEndSteps) + ", so AU and samples/s read 0";
        break;
    }
    return "an epoch of " + steps + " leaves DLIO's " + semanticsName(opt.semantics) + " metrics nothing to measure (" +
           what + "): give each epoch at least " + std::to_string(need) +
           " steps (more files or samples per file, a smaller batch or fewer accelerators)";
}

// numpy's mean and std (DLIO's np.mean / np.std over epochs), summed as numpy sums (util/statistics.h); an
// empty list gives 0, as DLIO's figures of a run without epochs read.
double mean(const std::vector<double>& v) { return v.empty() ? 0.0 : aggregate::mean(v).value; }

double populationStdev(const std::vector<double>& v) { return v.empty() ? 0.0 : aggregate::populationStdev(v).value; }

BlockMetrics blockMetrics(const BlockRecord& block, const MetricOptions& opt) {
    if (opt.semantics == MetricSemantics::DlioV3) return blockMetricsV3(block, opt);
    BlockMetrics m;
    const double T = block.seconds(); // T: the block's time on DLIO's own clock when known (BlockRecord)
    const std::size_t n = block.compute.size();
    if (opt.semantics == MetricSemantics::DlioV1) {
        const double totalCompute = sumRange(block.compute, 1, n);
        const double time = T - sumRange(block.proc, 0, 1);
        m.auPercent = (totalCompute == 0 || time <= 0) ? 0.0 : 100.0 * totalCompute / time;
        m.throughput = T > 0 ? static_cast<double>(block.proc.size()) / T * static_cast<double>(opt.batchSize) : 0.0;
        return m;
    }
    // statscounter.py compute_metrics_train(): slices by the *expected* step count.
    const std::size_t s = opt.excludeStartSteps;
    const std::int64_t endStep = static_cast<std::int64_t>(opt.expectedSteps) - 1 -
                                 static_cast<std::int64_t>(opt.excludeEndSteps); // metric_end_step
    const std::size_t endExcl = endStep < 0 ? 0 : static_cast<std::size_t>(endStep + 1);
    const double totalCompute = endExcl > s ? sumRange(block.compute, s, endExcl) : 0.0;
    const double time = T - sumRange(block.proc, 0, s) - sumRange(block.proc, endExcl, block.proc.size());
    m.auPercent = (totalCompute == 0 || time <= 0) ? 0.0 : 100.0 * totalCompute / time;
    m.throughput = time > 0 ? (static_cast<double>(n) - 2.0) / time * static_cast<double>(opt.batchSize) : 0.0;
    return m;
}

EpochRankMetrics epochRankMetrics(const EpochRecord& epoch, const MetricOptions& opt) {
    // statscounter.py end_train(): weights are len(proc[block]); all-zero steps give 0.
    EpochRankMetrics r;
    double auSum = 0, tpSum = 0;
    for (const auto& b : epoch.blocks) {
        const BlockMetrics bm = blockMetrics(b, opt);
        const auto w = static_cast<double>(b.steps());
        auSum += bm.auPercent * w;
        tpSum += bm.throughput * w;
        r.steps += b.steps();
    }
    if (r.steps > 0) {
        r.auPercent = auSum / static_cast<double>(r.steps);
        r.throughput = tpSum / static_cast<double>(r.steps);
    }
    return r;
}

InvocationMetrics invocationMetrics(const std::vector<std::vector<EpochRankMetrics>>& perEpoch,
                                    double recordLength, double auThreshold) {
    InvocationMetrics m;
    for (const auto& ranks : perEpoch) {
        if (ranks.empty()) continue;
        double au = 0, tp = 0;
        for (const auto& r : ranks) {
            au += r.auPercent;
            tp += r.throughput;
        }
        m.auPerEpoch.push_back(au / static_cast<double>(ranks.size()));
        m.throughputPerEpoch.push_back(tp);
    }
    m.auMean = mean(m.auPerEpoch);
    m.auStdev = populationStdev(m.auPerEpoch);
    m.throughputMean = mean(m.throughputPerEpoch);
    m.throughputStdev = populationStdev(m.throughputPerEpoch);
    m.ioMeanMiB = m.throughputMean * recordLength / 1024.0 / 1024.0;
    m.ioStdevMiB = m.throughputStdev * recordLength / 1024.0 / 1024.0;
    m.pass = !m.auPerEpoch.empty() && m.auMean >= auThreshold * 100.0;
    return m;
}

InvocationMetrics invocationMetrics(const std::vector<RankRecord>& ranks, const MetricOptions& opt,
                                    double recordLength, double auThreshold) {
    std::size_t epochs = SIZE_MAX;
    for (const auto& r : ranks) epochs = std::min(epochs, r.epochs.size());
    if (ranks.empty()) epochs = 0;
    // Only epochs every rank finished count: a cancelled run keeps its partial epoch in the step
    // records, but not in the headline numbers.
    std::vector<std::vector<EpochRankMetrics>> perEpoch;
    for (std::size_t e = 0; e < epochs; ++e) {
        bool complete = true;
        for (const auto& r : ranks) complete = complete && r.epochs[e].complete;
        if (!complete) continue;
        perEpoch.emplace_back();
        for (const auto& r : ranks) perEpoch.back().push_back(epochRankMetrics(r.epochs[e], opt));
    }
    return invocationMetrics(perEpoch, recordLength, auThreshold);
}

nlohmann::ordered_json metricJson(const InvocationMetrics& m) {
    nlohmann::ordered_json j;
    j["train_au_percentage"] = m.auPerEpoch;
    j["train_au_mean_percentage"] = m.auMean;
    j["train_au_meet_expectation"] = m.pass ? "success" : "fail";
    j["train_au_stdev_percentage"] = m.auStdev;
    j["train_throughput_samples_per_second"] = m.throughputPerEpoch;
    j["train_throughput_mean_samples_per_second"] = m.throughputMean;
    j["train_throughput_stdev_samples_per_second"] = m.throughputStdev;
    j["train_io_mean_MB_per_second"] = m.ioMeanMiB;
    j["train_io_stdev_MB_per_second"] = m.ioStdevMiB;
    return j;
}

} // namespace trainio
