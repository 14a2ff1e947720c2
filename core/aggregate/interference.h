// Interference (issue 23, docs/collocation.md): a workload measured together with others on one storage (a
// collocation) against the same workload measured alone. One rule serves `collocate --alone`
// (session/collocation.cpp, from the outcomes it just measured) and the results library, which looks for
// alone runs of the same benchmark identity (identity.h) among everything it holds — the collocation's own
// DIR/alone/<name>/ when it was run with --alone, or any other run of that workload on the same system —
// so that the tree, the GUI and the report say the same thing.
#pragma once

#include "store/invocation_record.h"
#include "store/collocation_file.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace trainio::aggregate {

// What one measured invocation contributes (a warm-up or a run that did not complete contributes nothing:
// leave it out).
struct InterferenceRun {
    double auPercent = NAN;           // the invocation's headline AU (DLIO's mean over epochs)
    double mibPerSecond = NAN;        // train_io_mean_MB_per_second (MiB/s)
    std::vector<double> auPerEpoch;   // %
    std::vector<double> mibPerEpoch;  // MiB/s
};

// Like with like: the runs of each side when either has more than one (a benchmark's measured runs, the
// 95 % CI Welch's over runs), else the epochs of the one invocation each side ran (with the rule saying
// that epochs of one invocation are not independent runs). AU points lost = alone − together; slowdown =
// 100 × (1 − together ÷ alone) in MiB/s, its CI that of the MiB/s difference over the alone mean. NaN where
// a side has fewer than two values. `alonePath` is left empty.
store::CollocationInterference compareAloneTogether(const std::string& name, const std::vector<InterferenceRun>& alone,
                                                    const std::vector<InterferenceRun>& together);

// The workload that lost most AU points ("" when no figure is finite).
std::string lostMost(const std::vector<store::CollocationInterference>& list);

// One invocation of the library as interference compares it.
InterferenceRun interferenceRunOf(const InvocationRecord& r);

// One collocated workload against the alone runs the library holds.
struct WorkloadInterference {
    std::string name;                          // the workload's name in the plan
    std::optional<std::size_t> togetherGroup;  // its item in the collocation (index into ImportResult::groups)
    std::optional<std::size_t> aloneGroup;    // the alone item compared with (index into ImportResult::groups)
    bool fromAloneFolder = false;              // the alone item is the collocation's own DIR/alone/<name>/ (--alone)
    std::size_t otherAloneItems = 0;           // further alone items of the same identity and system, not used
    bool compared = false;
    store::CollocationInterference figures;    // when compared (figures.alonePath: the alone item's folder); when
                                               // not, its together side only (the alone figures NaN)
    std::string why;                           // when not compared: why, in words
    std::string source;                        // what was compared, in words: "alone runs of collocate --alone
                                               // (alone/a, 2 runs)" or "alone runs found in the library (…)"
};

struct CollocationInterferenceResult {
    std::vector<WorkloadInterference> workloads; // in the plan's order
    std::string lostMost;                        // among the compared ones ("" when none)
    bool any() const;                            // some workload was compared
};

// For collocation `collocation` (index into imp.collocations): each workload's together item (the group the
// importer tied to it) against an alone item — a group outside every collocation with the same benchmark
// identity (so the same accelerators, dataset folder, emulated device and reader settings) and the same
// system (the storage under test). Preferred: the collocation's own DIR/alone/<name>/, then an item of the
// same kind (benchmark or run-once invocation), more complete runs, the later start. Anything else is refused
// with the reason: no alone run, or alone runs of the same workload that differ ("accelerators: 2 vs 4",
// "trainio.storage.bandwidth_mib_s: 100 vs 50"), or the same benchmark on another system.
CollocationInterferenceResult collocationInterference(const ImportResult& imp, std::size_t collocation);

// `trainio-cli aggregate --tree --format json`'s "interference" of a collocation node: {"workloads": [{…
// store::interferenceJson, "compared", "why", "source", "alone_from_collocate"}], "lost_most"}.
nlohmann::ordered_json interferenceJson(const CollocationInterferenceResult& r);

// "a: AU 56.41 % alone, 23.06 % together — 33.35 points lost (95 % CI 30.60…36.09); 140.4 → 57.3 MiB/s,
// slowdown 59.2 % (95 % CI 54.1…64.2), over 2/2 runs" — or "b: not compared: <why>".
std::string interferenceLine(const WorkloadInterference& w);

} // namespace trainio::aggregate
