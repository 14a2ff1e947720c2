// Everything an import holds, as JSON, so that two imports can be compared whole: the records a run handed
// over in memory against a fresh import of its folder (tst_handover, tst_library_handover). aggregate's own
// toJson (the groups with their statistics, checks and runs, the skipped files) plus what it leaves out:
// every record's labels, identity, placement, configuration, storage, loader, prediction, telemetry and
// step digest, and every group's system, labels, kind and members.
#pragma once

#include "aggregate/group_aggregate.h"
#include "telemetry/telemetry_summary.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

namespace importcompare {

inline nlohmann::ordered_json numbers(const std::vector<double>& v) {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (double x : v) a.push_back(std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json("nan"));
    return a;
}

inline nlohmann::ordered_json number(double x) { return std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json("nan"); }

inline nlohmann::ordered_json labels(const trainio::aggregate::Labels& l) {
    return {l.system, l.description, l.notes, l.name, l.file ? l.file->string() : std::string()};
}

inline nlohmann::ordered_json describe(const trainio::aggregate::ImportResult& imp) {
    using nlohmann::ordered_json;
    ordered_json j = trainio::aggregate::toJson(imp);
    ordered_json runs = ordered_json::array();
    for (const auto& r : imp.runs) {
        ordered_json x = trainio::aggregate::toJson(r);
        x["labels"] = labels(r.labels);
        x["identity"] = {r.workloadKey, r.benchmarkKey, r.workloadTitle, r.model, r.accelerator, r.filesTrain, r.samplesPerFile};
        x["placement"] = {r.canonicalPath.string(), r.manifest ? r.manifest->string() : std::string(), r.runOnce};
        x["config"] = {r.configFile ? r.configFile->string() : std::string(), r.workloadOverride, r.format, r.batchSize,
                       r.plannedEpochs, r.auThresholdSource};
        ordered_json resolved = ordered_json::array();
        for (const auto& [k, v] : r.resolved) resolved.push_back({k, v});
        x["resolved"] = resolved;
        ordered_json overrides = ordered_json::array();
        for (const auto& [k, v] : r.overrides) overrides.push_back({k, v});
        x["overrides"] = overrides;
        x["hostnames"] = r.hostnames;
        x["storage"] = {r.storageEmulated, r.storageProfile, r.storageShape, r.storageChanges.size()};
        x["loader"] = {r.loaderPolicy, number(r.loaderRamTierMiB), numbers(r.epochHitRatio), numbers(r.epochBeladyHitRatio),
                       numbers(r.epochStallSeconds), numbers(r.epochBytesStorage), numbers(r.epochBytesRam), numbers(r.epochBytesSsd)};
        x["prediction"] = {number(r.predictedAuPercent), number(r.predictedSamplesPerSecond), r.predictedMaxAccelerators,
                           r.predictedBottleneck};
        x["telemetry"] = {r.dataDevice, r.dataParentDisk, r.telemetry.rows, trainio::telemetry::summaryText(r.telemetry)};
        x["metadata"] = {r.metadataAccelerator, r.metadataProcesses, r.systemInfo};
        ordered_json steps = {r.stepsRead, r.stepsError, static_cast<bool>(r.steps)};
        if (r.steps) {
            steps.push_back({r.steps->excludeStartSteps, r.steps->binSteps, r.steps->rankCount, numbers(r.steps->auTime),
                             numbers(r.steps->auTimePercent)});
            for (const auto& rank : r.steps->ranks)
                steps.push_back({rank.rank, numbers(rank.epochAuPercent), numbers(rank.loadStep), numbers(rank.loadMs),
                                 numbers(rank.auStep), numbers(rank.auPercent)});
        }
        x["steps"] = steps;
        if (r.telemetrySeries) {
            const auto& s = *r.telemetrySeries;
            x["telemetry_series"] = {number(s.intervalS), s.deviceLabel, numbers(s.timeS), numbers(s.cpuBusyPct),
                                     numbers(s.procCpuPct), numbers(s.deviceReadMiBs)};
        }
        runs.push_back(std::move(x));
    }
    j["every_run"] = std::move(runs);
    ordered_json groups = ordered_json::array();
    for (const auto& g : imp.groups) {
        groups.push_back({g.path.string(), g.system, g.systemDescription, g.systemFile ? g.systemFile->string() : std::string(),
                          labels(g.labels), static_cast<int>(g.kind), static_cast<int>(g.type), g.plannedRuns,
                          trainio::aggregate::statusName(g.status), g.statusReason, g.runs, g.warmups, g.excluded,
                          g.existingReport ? g.existingReport->string() : std::string(), g.existingReportError,
                          static_cast<bool>(g.existingReportContent), g.differences, g.settingDifferences,
                          g.collocation ? static_cast<long long>(*g.collocation) : -1LL, g.collocatedAs});
    }
    j["every_group"] = std::move(groups);
    j["summaries_found"] = imp.summariesFound;
    return j;
}

} // namespace importcompare
