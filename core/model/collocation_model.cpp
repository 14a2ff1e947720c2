#include "model/collocation_model.h"

#include "util/errors.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace trainio::model {

std::vector<double> waterFill(const std::vector<double>& demands, const std::vector<double>& weights) {
    const std::size_t n = demands.size();
    std::vector<double> share(n, 0.0);
    std::vector<bool> fixed(n, false);
    double left = 1.0;
    for (std::size_t round = 0; round < n; ++round) {
        double weight = 0;
        for (std::size_t i = 0; i < n; ++i)
            if (!fixed[i]) weight += weights[i];
        if (weight <= 0 || left <= 0) break;
        // Whoever wants less than its weighted part of what is left gets what it wants; the rest is shared again.
        bool anyMet = false;
        for (std::size_t i = 0; i < n; ++i)
            if (!fixed[i] && demands[i] <= left * weights[i] / weight) {
                share[i] = demands[i];
                fixed[i] = anyMet = true;
            }
        if (anyMet) {
            left = 1.0;
            for (std::size_t i = 0; i < n; ++i)
                if (fixed[i]) left -= share[i];
            continue;
        }
        for (std::size_t i = 0; i < n; ++i)
            if (!fixed[i]) share[i] = left * weights[i] / weight;
        break;
    }
    return share;
}

namespace {

bool isDeviceRoof(const std::string& name) { return name == "bandwidth" || name == "iops" || name == "inflight"; }

double deviceRoof(const Prediction& p) {
    double roof = std::numeric_limits<double>::infinity();
    for (const auto& r : p.roofs)
        if (isDeviceRoof(r.name)) roof = std::min(roof, r.samplesPerSecond);
    return roof;
}

} // namespace

std::vector<CollocatedPrediction> predictCollocation(const std::vector<WorkloadConfig>& configs,
                                                     const std::vector<std::uint64_t>& accelerators,
                                                     const StorageParameters& storage, const ModelConstants& constants,
                                                     MetricSemantics semantics) {
    const StorageShape& shape = storage.shape;
    if (shape.bandwidthBytesPerSecond <= 0 && shape.iops <= 0 && shape.maxInflight == 0)
        throw InputError("the shared storage has no bandwidth, IOPS or in-flight limit: the workloads share nothing the "
                         "model divides (expected a storage profile or trainio.storage keys with a limit)");
    std::vector<CollocatedPrediction> out(configs.size());
    std::vector<SampleFigures> samples(configs.size());
    std::vector<double> demands, weights;
    for (std::size_t i = 0; i < configs.size(); ++i) {
        samples[i] = sampleFigures(configs[i]);
        out[i].alone = predictAt(configs[i], accelerators[i], storage, samples[i], constants, semantics);
        const double roof = deviceRoof(out[i].alone);
        // What it consumes alone: its readers' rate, or its compute's when the compute is slower.
        const double uses = std::min(out[i].alone.readerSamplesPerSecond, out[i].alone.computeSamplesPerSecond);
        out[i].demandShare = std::isfinite(roof) && roof > 0 ? std::min(1.0, uses / roof) : 0.0;
        demands.push_back(out[i].demandShare);
        weights.push_back(static_cast<double>(accelerators[i]) *
                          static_cast<double>(std::max<std::uint64_t>(1, configs[i].reader.readThreads)));
    }
    const std::vector<double> shares = waterFill(demands, weights);
    for (std::size_t i = 0; i < configs.size(); ++i) {
        out[i].deviceShare = shares[i];
        StorageParameters mine = storage;
        const double f = std::max(shares[i], 1e-6);
        mine.shape.bandwidthBytesPerSecond = shape.bandwidthBytesPerSecond * f;
        mine.shape.iops = shape.iops * f;
        if (shape.maxInflight > 0)
            mine.shape.maxInflight = std::max(1u, static_cast<unsigned>(std::lround(static_cast<double>(shape.maxInflight) * f)));
        out[i].shared = predictAt(configs[i], accelerators[i], mine, samples[i], constants, semantics);
    }
    return out;
}

} // namespace trainio::model
