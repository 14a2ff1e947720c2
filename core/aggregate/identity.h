// What makes two invocations the same workload, and the same benchmark (docs/aggregation.md).
//
// Computed from each invocation's resolved configuration (configs/config.yaml or .hydra/config.yaml or
// dlio_config/config.yaml, with overrides.yaml applied; summary.json where nothing else exists):
//   workload identity  — model, accelerator type, format, record length mean and stdev, samples per
//                        file, batch size, computation time and its distribution, the readers'
//                        preprocess time when it is not zero, AU threshold (the key table's Workload rows);
//   benchmark identity — the workload identity plus accelerators, hosts, files, reader settings
//                        (threads, prefetch, O_DIRECT, I/O engine) and every other resolved key that can
//                        change what is measured (the table's Setting rows): not bookkeeping (Bookkeeping
//                        rows: debug, telemetry interval), not a setting of a feature that is off (the
//                        table's gates: checkpoint.* while workflow.checkpoint is false), not a location
//                        (config_keys::roleOf: data and checkpoint folders, file prefix, bucket, endpoint,
//                        output folder, and keys outside the table whose name names a place — whether the
//                        feature is on or off), not in benchmarkIdentityExclusions() (run-to-run keys).
// Keys are canonical text: equal text ⇔ equal identity. Numbers are normalised ("0.3230" = "0.323",
// "146600628.0" = "146600628") and key spellings of DLIO generations merged (record_length and
// record_length_bytes, model and model.name).
#pragma once

#include "store/invocation_record.h"

#include <string>
#include <utility>
#include <vector>

namespace trainio::aggregate {

using ResolvedConfig = std::vector<std::pair<std::string, std::string>>; // sorted by key, "workload." stripped

struct Identity {
    std::string workloadKey;
    std::string benchmarkKey;
    std::string workloadTitle; // "unet3d_h100 · npz · 139.8 MiB/sample"
};

// The keys left out of the benchmark identity, each with why (documented in docs/aggregation.md).
struct ExcludedKey {
    std::string key;    // a dotted key, or a prefix ending in '.' ("output.")
    std::string reason;
};
const std::vector<ExcludedKey>& benchmarkIdentityExclusions();

// The invocation's identities from r.resolved and its summary fields (model, accelerator,
// accelerators, numHosts, filesTrain, samplesPerFile, recordLengthBytes, auThresholdPercent).
Identity identityOf(const InvocationRecord& r);

// Keys whose values differ between two resolved configs, benchmark-identity keys only, as
// "reader.read_threads: 1 vs 4" (a key missing on one side shows "(unset)").
std::vector<std::string> identityDifferences(const InvocationRecord& a, const InvocationRecord& b);

// Keys whose values differ between two invocations of one benchmark without splitting it (settings of a
// feature that is off, bookkeeping, locations, the keys of benchmarkIdentityExclusions()), each with why it does not
// split: "checkpoint.checkpoint_folder: /a vs /b — its feature is off (workflow.checkpoint false)".
std::vector<std::string> settingDifferences(const InvocationRecord& a, const InvocationRecord& b);

// What sets a workload apart from the other workloads that share its MLPerf name (two unet3d_h100 of
// 146 MB and of 3 MB samples), in words, for default item names (docs/aggregation.md, "Item names"): the
// fields of the workload identity whose values differ among `keys` (every workload key of that name in
// the library), as `key` has them, joined by " · " — "139.8 MiB/sample", "batch 4", "compute 0.05",
// "AU 70 %". "" when no other key of `keys` differs from `key`.
std::string workloadDistinction(const std::string& key, const std::vector<std::string>& keys);

// Why two workload keys are not comparable, in words ("different model: resnet50 vs unet3d",
// "different record length: 3 MB vs 146.6 MB"); "" when equal.
std::string whyNotComparable(const std::string& workloadKeyA, const std::string& workloadKeyB);

} // namespace trainio::aggregate
