#include "aggregate/step_digest.h"

#include "metrics/dlio_metrics.h"

#include <algorithm>
#include <cmath>

namespace trainio::aggregate {

void binSeries(std::vector<double>& keys, std::vector<double>& values, std::size_t maxPoints, std::size_t* binOut) {
    const std::size_t bin = (values.size() + maxPoints - 1) / maxPoints;
    *binOut = std::max<std::size_t>(*binOut, bin);
    if (bin <= 1) return;
    std::vector<double> k, v;
    for (std::size_t s = 0; s < values.size(); s += bin) {
        const std::size_t e = std::min(values.size(), s + bin);
        double sk = 0, sv = 0;
        for (std::size_t j = s; j < e; ++j) {
            sk += keys[j];
            sv += values[j];
        }
        k.push_back(sk / static_cast<double>(e - s));
        v.push_back(sv / static_cast<double>(e - s));
    }
    keys = std::move(k);
    values = std::move(v);
}

void digestHeldStepRecords(store::WrittenFiles& written, const std::filesystem::path& runDir) {
    if (!written.holdsStepRecords() || !store::hasStepRecords(runDir)) return;
    try {
        auto digest = std::make_shared<const StepDigest>(
            digestStepRecords(store::readStepRecords(runDir, store::treeOf(runDir), store::ReadBounds{}, nullptr, written)));
        written.holdStepDigest(runDir, std::move(digest));
    } catch (const std::exception&) {
        // Kept: the importer reads them and names what is wrong (InvocationRecord::stepsError).
    }
}

namespace {

// StepDigest::auTime / auTimePercent: at most maxWindows windows, none shorter than three mean steps (a
// window of one step would only say whether that step was computing or loading).
void auOverTime(const store::InvocationData& data, std::size_t maxWindows, StepDigest& digest) {
    double first = INFINITY, last = -INFINITY, wall = 0;
    std::size_t steps = 0;
    for (const auto& rank : data.ranks)
        for (const auto& e : rank.epochs)
            for (const auto& b : e.blocks) {
                if (!(b.end > b.start) || b.proc.empty()) continue;
                first = std::min(first, b.start);
                last = std::max(last, b.end);
                wall += b.end - b.start;
                steps += b.proc.size();
            }
    if (!(last > first) || steps == 0 || maxWindows == 0) return;
    const double window = std::max((last - first) / static_cast<double>(maxWindows), 3.0 * wall / static_cast<double>(steps));
    const std::size_t n = static_cast<std::size_t>(std::ceil((last - first) / window));
    std::vector<double> busy(n, 0.0);
    for (const auto& rank : data.ranks)
        for (const auto& e : rank.epochs)
            for (const auto& b : e.blocks) {
                double proc = 0;
                for (double p : b.proc) proc += p;
                if (!(b.end > b.start) || !(proc > 0)) continue;
                const double stretch = (b.end - b.start) / proc;
                double t = b.start;
                for (std::size_t s = 0; s < b.proc.size(); ++s) {
                    const double span = b.proc[s] * stretch;
                    const double c = s < b.compute.size() ? std::clamp(b.compute[s], 0.0, b.proc[s]) : 0.0;
                    if (span > 0 && c > 0) {
                        const double density = c / span;
                        const auto from = static_cast<std::size_t>(std::max(0.0, (t - first) / window));
                        for (std::size_t i = from; i < n; ++i) {
                            const double lo = std::max(t, first + static_cast<double>(i) * window);
                            const double hi = std::min(t + span, first + static_cast<double>(i + 1) * window);
                            if (hi <= lo) {
                                if (first + static_cast<double>(i) * window >= t + span) break;
                                continue;
                            }
                            busy[i] += (hi - lo) * density;
                        }
                    }
                    t += span;
                }
            }
    digest.auWindowS = window;
    const double ranks = static_cast<double>(data.ranks.size());
    for (std::size_t i = 0; i < n; ++i) {
        const double lo = first + static_cast<double>(i) * window, hi = std::min(last, lo + window);
        if (!(hi > lo)) continue;
        digest.auTime.push_back((lo + hi) / 2);
        digest.auTimePercent.push_back(100.0 * busy[i] / ((hi - lo) * ranks));
    }
}

} // namespace

StepDigest digestStepRecords(const store::InvocationData& data, std::size_t maxPoints, std::size_t maxPlottedRanks) {
    StepDigest digest;
    digest.excludeStartSteps = data.excludeStartSteps;
    digest.rankCount = data.ranks.size();
    MetricOptions opt;
    opt.excludeStartSteps = data.excludeStartSteps;
    opt.excludeEndSteps = data.excludeEndSteps;
    opt.expectedSteps = data.expectedSteps;
    opt.batchSize = std::max<std::uint64_t>(data.batchSize, 1);
    for (const auto& rank : data.ranks) {
        StepDigest::Rank out;
        out.rank = rank.rank;
        std::vector<double> keys, loadMs, stepAu;
        double step = 0;
        for (const auto& e : rank.epochs) {
            for (const auto& b : e.blocks)
                for (std::size_t s = 0; s < b.proc.size(); ++s) {
                    keys.push_back(++step);
                    loadMs.push_back(s < b.load.size() ? b.load[s] * 1000.0 : std::nan(""));
                    const double c = s < b.compute.size() ? b.compute[s] : std::nan("");
                    stepAu.push_back(b.proc[s] > 0 ? 100.0 * c / b.proc[s] : std::nan(""));
                }
            out.epochAuPercent.push_back(epochRankMetrics(e, opt).auPercent);
        }
        if (digest.ranks.size() < maxPlottedRanks) {
            std::vector<double> auKeys = keys;
            binSeries(keys, loadMs, maxPoints, &digest.binSteps);
            binSeries(auKeys, stepAu, maxPoints, &digest.binSteps);
            out.loadStep = std::move(keys);
            out.loadMs = std::move(loadMs);
            out.auStep = std::move(auKeys);
            out.auPercent = std::move(stepAu);
        }
        digest.ranks.push_back(std::move(out));
    }
    if (!data.ranks.empty()) {
        double step = 0;
        for (const auto& e : data.ranks.front().epochs) {
            digest.epochStart.push_back(e.start);
            digest.epochEnd.push_back(e.end);
            for (const auto& b : e.blocks) {
                if (b.end > b.start && !b.proc.empty()) digest.blocks.push_back({b.start, b.end, step + 1, b.proc.size()});
                step += static_cast<double>(b.proc.size());
            }
        }
    }
    auOverTime(data, maxPoints / 2, digest);
    return digest;
}

std::optional<double> stepAt(const StepDigest& digest, double unixTime) {
    // A block's steps are stretched evenly over it (as auOverTime spreads them); between blocks (an epoch's
    // barrier, the pause between epochs) the moment belongs to the next block's first step.
    for (const auto& b : digest.blocks) {
        if (unixTime < b.start) return b.firstStep;
        if (unixTime <= b.end)
            return b.firstStep + (unixTime - b.start) / (b.end - b.start) * static_cast<double>(b.steps);
    }
    return std::nullopt; // after the last step (or no blocks)
}

} // namespace trainio::aggregate
