// Compare with judgement (docs/aggregation.md, "Comparing"): deltas only between items of the same
// workload identity that both went through real storage or both through an emulated device; otherwise the row says why not (and "compare anyway" shows values without
// deltas). Per-accelerator values (samples/s, Read GiB/s and MiB/s; AU never) on request (on by default
// when accelerator counts differ). The
// difference's 95 % CI is Welch's (unequal variances, Welch–Satterthwaite degrees of freedom) over the
// items' samples (a benchmark's complete runs; an invocation's epochs); "within noise" when it holds 0.
// Only like with like: a benchmark against an invocation compares run means with epochs — units of
// replication that differ in kind — so that row gets its Δ with no CI (and no "within noise" or "differs"),
// and says why (MetricDelta::ciNote, CompareRow::kindNote).
// Used by the GUI's Compare page, `trainio-cli compare` and the PDF report.
#pragma once

#include "aggregate/results_library.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace trainio::aggregate {

struct CompareOptions {
    std::size_t baseline = 0;               // 0-based index into the items
    std::optional<bool> perAccelerator;     // nullopt = on when accelerator counts differ
    bool compareAnyway = false;             // show values of not-comparable rows (never deltas)
};

struct MetricDelta {
    double absolute = 0.0;        // item − baseline
    double percent = 0.0;         // NaN when the baseline is 0
    ConfidenceInterval ci95;      // of the difference, Welch; NaN bounds when either side has n < 2
    std::optional<bool> withinNoise; // nullopt when the CI is undefined
    std::string ciNote;           // why there is no CI when the sides differ in kind ("" otherwise)
};

struct CompareMetric {
    std::string key;   // "au_mean_percentage", "samples_per_second", "read_gib_per_second", "mib_per_second"
    std::string unit;  // "%", "samples/s" (or "samples/s per accelerator"), "GiB/s", "MiB/s" (or per accelerator)
    NodeMetric value;  // per accelerator when CompareResult::perAccelerator (AU never divided)
    std::optional<MetricDelta> delta; // against the baseline; nullopt when not comparable or the baseline row
};

struct CompareRow {
    const LibraryNode* node = nullptr;
    std::string label;       // node->itemName
    bool baseline = false;
    bool comparable = true;  // same workload identity as the baseline, and both have metrics
    std::string reason;      // why not comparable ("" when comparable)
    bool valuesShown = true; // false for a not-comparable row unless compareAnyway
    std::string replication; // what its sample holds: "runs" (a benchmark's run means) or "epochs" (an invocation's)
    std::string kindNote;    // "" when it and the baseline are of one kind; else that they differ and that Δ has no CI
    std::vector<CompareMetric> metrics; // au, samples/s, read GiB/s, MiB/s, in that order
};

struct CompareResult {
    bool perAccelerator = false;
    std::size_t baseline = 0;
    std::vector<CompareRow> rows; // one per item, in the order given
};

// The one division behind every per-accelerator figure (Compare, `trainio-cli compare`, every table of the
// report, comparable rows or not): mean, spread, CI and sample ÷ the item's accelerator count (NaN when
// the count is unknown). AU is never divided.
NodeMetric perAccelerator(const NodeMetric& m, std::int64_t accelerators);
// CompareOptions::perAccelerator's default (nullopt): on when the accelerator counts of items with numbers differ.
bool perAcceleratorByDefault(const std::vector<const LibraryNode*>& items);

// Throws InputError when items is empty or baseline is out of range.
CompareResult compare(const std::vector<const LibraryNode*>& items, const CompareOptions& options);

// 95 % CI of mean(a) − mean(b), Welch. NaN bounds when either side has fewer than 2 values.
ConfidenceInterval welchCi95(const std::vector<double>& a, const std::vector<double>& b);

// What an item's sample holds: "runs" for a benchmark, "epochs" for an invocation ("" for other nodes).
std::string unitOfReplication(const LibraryNode& n);

// {"baseline": N (1-based), "per_accelerator": bool, "rows": [{"label", "path", "comparable", "reason",
//  "unit_of_replication", "kind_note",
//  "values": {key: {"value","stdev","ci95","n","unit"}} or null, "delta": {key: {"absolute","percent",
//  "ci95_low","ci95_high","within_noise","ci_note"}} or null}]}
nlohmann::ordered_json toJson(const CompareResult& result);
std::string formatTable(const CompareResult& result);

} // namespace trainio::aggregate
