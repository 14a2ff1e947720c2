// The results library: imported runs as a tree system → workload → benchmark → invocation → epoch.
// Aggregates only where they mean something (docs/aggregation.md): an epoch is one value; an
// invocation aggregates its epochs (DLIO); a benchmark its complete runs (MLPerf's mean of means,
// spread, 95 % CI). A workload node (one workload identity within a system) holds its benchmarks side
// by side and names the best passing one — no mean across accelerator counts; a system node holds a
// per-workload summary only — never a number averaged across workloads. Status badges on every level.
// Plain structs: the GUI wraps a Qt item model around this; reports, exports and the CLI walk it.
#pragma once

#include "aggregate/group_aggregate.h"
#include "aggregate/interference.h"
#include "store/invocation_record.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace trainio::aggregate {

// Collocation (issue 23): under its system, the workloads that ran at the same time on one storage
// (trainio-cli collocate) — their benchmarks or invocations are its children instead of their workloads'
// (measured under the others' load, they are named "· collocated with …"); its summary holds the
// interference when the collocation measured each workload alone too.
enum class NodeKind { Root, System, Workload, Benchmark, Invocation, Epoch, Collocation };
std::string nodeKindName(NodeKind kind);
struct LibraryNode;
// An item compare tables, plots and reports show: a benchmark, or an invocation run once (one directly
// under a workload or a collocation).
bool isLibraryItem(const LibraryNode& n);

// One metric at one node: statistics over the node's children (over its epochs for an invocation;
// the single value for an epoch).
struct NodeMetric {
    std::size_t n = 0;
    double mean = 0.0;
    double stdev = 0.0; // population stdev, the spread MLPerf and DLIO report
    ConfidenceInterval ci95;
    std::vector<double> values; // the sample behind mean/stdev/ci95 (runs of a benchmark, epochs of an invocation)
};

struct NodeBadge {
    bool evaluated = false;   // false where nothing could be checked (no threshold known, …)
    bool passed = false;
    std::size_t violations = 0; // rule checks failed in this subtree
};

struct LibraryNode {
    NodeKind kind = NodeKind::Root;
    std::string label;                   // tree label: system name, workload title, benchmark/invocation name
    std::string itemName;                // name in compare tables, plots and reports: the label's name, else
                                         // "system · workload · N accelerators" (benchmark), + " · run-2" (invocation)
    std::filesystem::path path;          // folder (system: none; epoch: the invocation's folder)
    bool hasMetrics = false;             // false at root, system and workload nodes: no aggregate is meaningful there
    NodeMetric au, samplesPerSecond, mibPerSecond;
    NodeMetric readGibPerSecond;         // MLPerf v3.0 headline "Read B/W (GiB/s)": train_io_mean_MB_per_second / 1024
    // Checkpointing benchmarks and invocations (type == Checkpointing; au … readGibPerSecond stay empty):
    // the MLPerf v3.0 headlines Write/Read B/W (GiB/s) and durations, each over the runs that measured it.
    BenchmarkType type = BenchmarkType::Training;
    NodeMetric checkpointWriteGibPerSecond, checkpointReadGibPerSecond, checkpointWriteSeconds, checkpointReadSeconds;
    std::int64_t accelerators = 0;       // benchmark, invocation, epoch nodes
    std::string workloadKey;             // workload identity (workload, benchmark, invocation, epoch nodes)
    std::string workloadTitle;
    InvocationStatus status = InvocationStatus::Complete; // worst status in the subtree at system/workload nodes
    std::string statusReason;
    std::string description;             // system: the storage under test; others: label description
    std::string notes;
    std::optional<std::size_t> bestPassing; // workload node: child index of the passing benchmark with the most
                                            // accelerators (ties: higher Read GiB/s); nullopt when none passes
    std::vector<std::string> summary;    // system: one line per workload; workload: the benchmarks side by side
    std::string bytesSource;             // invocation/benchmark: where the bytes came from (bytesSourceText), "" when unknown
    std::string telemetrySummary;        // invocation/benchmark: what the client did (telemetrySummaryText), "" when unknown
    // invocation/benchmark: the storage its bytes came through — "" for real storage, else "emulated nfs-10gbe"
    // ("emulated storage" without a profile; "… in 2 of 3 runs" when its runs differ) — and how often the
    // device was changed live during its complete runs (trainio_io.json storage.changes). Both are in itemName.
    std::string storage;
    // invocation/benchmark: "S3 at ENDPOINT" when its runs read objects of a bucket (storage.storage_type s3;
    // "… in 2 of 3 runs" when not all did), "" for a file system. Through an emulated device, storage says
    // both ("S3 at ENDPOINT through emulated nvme").
    std::string s3;
    std::size_t liveChanges = 0;
    bool clientBound = false;            // some invocation's telemetry says the client CPU was saturated
    std::optional<double> maxPercentFromCache; // highest per-epoch % of bytes not read from storage (complete runs)
    bool cacheServed = false;            // bytesSource warns: an epoch of a run without emulated storage had > 50 % from the cache
    NodeBadge badge;
    // invocation/benchmark: known defects of the tool that measured it (advisories.h), one sentence each;
    // a benchmark's say in how many of its measured runs ("in 3 of 5 runs: …") when not all.
    std::vector<std::string> advisories;
    // items (benchmark, run-once invocation): Read GiB/s per usable TiB, per kW, per rack unit of its system,
    // with the figures used and their sources (efficiency.h); its figures empty where the system does not say.
    Efficiency efficiency;
    // A row of MLCommons' table (aggregate/mlcommons_table.h), "row 3 of results.csv (MLCommons' table): no runs,
    // only the row's figures"; "" otherwise. Its metrics hold the row's figures, one value each (n = 1, no spread).
    std::string fromTable;
    std::vector<std::string> checks;     // the violations themselves, at benchmark nodes
    std::vector<std::string> notSubmission; // benchmark nodes not meant as a submission: the MLPerf Storage rules
                                            // they would not meet (GroupAggregate::notSubmission), no violation
    std::optional<std::size_t> group;    // index into ImportResult::groups (benchmark nodes)
    std::optional<std::size_t> collocation; // index into ImportResult::collocations (collocation nodes and their items)
    std::optional<std::size_t> run;      // index into ImportResult::runs (invocation and epoch nodes)
    std::optional<std::size_t> epoch;    // 0-based epoch index (epoch nodes)
    bool warmup = false;                 // warm-up invocation, shown but not counted
    bool excluded = false;               // not complete: shown with its reason, never counted
    LibraryNode* parent = nullptr;
    std::vector<std::unique_ptr<LibraryNode>> children;

    int row() const; // position among the parent's children (0 for the root)
};

class ResultsLibrary {
public:
    ResultsLibrary() = default;
    explicit ResultsLibrary(ImportResult imported);

    // This library with `added` in it — importWritten's records (results_import.h) of run folders a run just
    // wrote below one of the library's roots, made with that root — as importing the roots again would
    // give it, nothing read (results_import.h addImported). Null when that cannot be done exactly; the
    // caller imports the roots again instead.
    std::unique_ptr<ResultsLibrary> withAdded(ImportResult added) const;

    const LibraryNode& root() const { return *root_; }
    const ImportResult& imported() const { return imported_; }
    const GroupAggregate& aggregate(std::size_t group) const { return aggregates_.at(group); }

    // Every node of `kind` in tree order.
    std::vector<const LibraryNode*> nodes(NodeKind kind) const;
    // The node for a benchmark or invocation folder (canonical paths compared); null when none.
    const LibraryNode* findByPath(const std::filesystem::path& folder) const;
    // Added (lib): every benchmark (else invocation) node findByPath could answer, so that a caller can
    // tell "one" from "several"; and the items (benchmarks and run-once invocations) at or below a
    // folder, for `trainio-cli compare PATH` given a folder above a benchmark.
    std::vector<const LibraryNode*> findAllByPath(const std::filesystem::path& folder) const;
    std::vector<const LibraryNode*> itemsBelow(const std::filesystem::path& folder) const;
    // Collocation c's interference (index into imported().collocations): each workload against the alone
    // runs of the same benchmark identity this library holds (aggregate/interference.h) — the tree's
    // summary lines, the GUI and the report all show this one.
    const CollocationInterferenceResult& interference(std::size_t collocation) const { return interference_.at(collocation); }

private:
    ImportResult imported_;
    std::vector<GroupAggregate> aggregates_;
    std::vector<CollocationInterferenceResult> interference_;
    std::unique_ptr<LibraryNode> root_ = std::make_unique<LibraryNode>();
};

// `trainio-cli aggregate PATH... --tree --format json`: {"tree": [node...]} where each node has
// "level" (system|workload|collocation|benchmark|invocation; a collocation adds "interference", see
// aggregate/interference.h interferenceJson), "label", "status", "status_reason", "workload_identity",
// "metrics" (null where no aggregate is meaningful, else {"au_mean_percentage", "samples_per_second",
// "read_gib_per_second"} each {"value", "stdev", "ci95", "n"}; ci95 is the half width; checkpointing nodes
// — "kind": "checkpointing" — have {"checkpoint_write_gib_per_second", "checkpoint_read_gib_per_second",
// "checkpoint_write_seconds", "checkpoint_read_seconds"} instead, null where no run measured one) and "children".
// Epochs are not nodes of this tree (they are in each invocation's files).
nlohmann::ordered_json treeJson(const ResultsLibrary& library);

// Where the bytes of these invocations came from, from TrainIO's trainio_io.json (docs/cache-honesty.md):
// "Bytes from the page cache, per epoch: 22 %, 100 % (cache: keep, engine: posix)" ("not measured" for an
// epoch whose share is null) and, when any epoch had more than half its bytes from the cache, that the
// numbers describe memory rather than the storage (*cacheServed = true). Runs through emulated storage
// say so first — "Bytes came through emulated storage hdd (250 MiB/s, …): the numbers describe that
// device, not the page cache beneath it. From the page cache beneath it, per epoch: …" — and are never
// flagged: the device shaped every read whatever the cache held. "" when no invocation has the file
// (DLIO and MLPerf folders). *maxPercent gets the highest measured epoch.
std::string bytesSourceText(const ImportResult& imported, const std::vector<std::size_t>& runs,
                            std::optional<double>* maxPercent = nullptr, bool* cacheServed = nullptr);

// What the client did during these invocations, from TrainIO's telemetry.json (docs/telemetry.md): one
// invocation's telemetry::summaryText, or for several the range of their mean CPU busy % and read MiB/s
// and how many were client-bound. "" when none has telemetry. *clientBound: any was.
std::string telemetrySummaryText(const ImportResult& imported, const std::vector<std::size_t>& runs, bool* clientBound = nullptr);
// The advisories of `runs` (advisories.h), each once: its sentence, prefixed "in K of N runs: " when it
// touches only some of them. An unreadable ledger is said as one sentence, not thrown.
std::vector<std::string> advisoryTexts(const ImportResult& imported, const std::vector<std::size_t>& runs);

// Why the model's prediction of a run (made before it, for the device it started with) is not compared
// with what it measured: its emulated device sat over an object store (the model knows the device, not the
// store's requests beneath it), or its emulated device was changed live — "its storage was changed live 4 times (first
// at 12.3 s); the prediction is for the device it started with". The run's numbers are means over whole
// epochs and the changes are not placed in epochs, so no stretch without changes can be measured apart.
// "" when the comparison holds (no live change).
std::string predictionNotComparable(const InvocationRecord& r);

} // namespace trainio::aggregate
