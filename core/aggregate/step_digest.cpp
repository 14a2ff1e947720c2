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
    return digest;
}

} // namespace trainio::aggregate
