// The input-pipeline model for collocated workloads (issue 23, docs/collocation.md "Predicted"): several
// workloads on ONE emulated device share its bandwidth, IOPS and in-flight slots. Each workload alone on
// the whole device (pipeline_model.h) asks for a share of it — its predicted rate over its device roof (the
// smallest of its bandwidth, IOPS and in-flight roofs); the device is divided by weighted max-min fairness
// (water-filling), weighted by the readers each workload keeps busy (the emulator serves requests in
// turn, so a workload with twice the readers gets twice the share when both want more than they get);
// then each workload is predicted alone on its share of the device (bandwidth, IOPS and in-flight scaled).
// What it ignores: the client's cores are not divided (docs/collocation.md says when that matters).
#pragma once

#include "model/pipeline_model.h"

#include <vector>

namespace trainio::model {

struct CollocatedPrediction {
    Prediction alone;        // on the whole device
    Prediction shared;       // on its share of it
    double demandShare = 0;  // the share of the device it would use alone (≤ 1)
    double deviceShare = 0;  // the share it gets
};

// Weighted max-min fair shares of a capacity of 1: each gets min(demand, λ·weight) with λ such that the
// shares add up to 1 (or every demand is met). Demands and weights are ≥ 0, as many as workloads.
std::vector<double> waterFill(const std::vector<double>& demands, const std::vector<double>& weights);

// Throws InputError when the storage describes no shared limit (no bandwidth, IOPS or in-flight cap).
std::vector<CollocatedPrediction> predictCollocation(const std::vector<WorkloadConfig>& configs,
                                                     const std::vector<std::uint64_t>& accelerators,
                                                     const StorageParameters& storage, const ModelConstants& constants = {},
                                                     MetricSemantics semantics = MetricSemantics::DlioV2);

} // namespace trainio::model
