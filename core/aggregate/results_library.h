// The results library: imported runs as a tree system → workload → benchmark → invocation → epoch,
// with an aggregate and its spread at every level and pass/fail badges. Plain structs: the GUI wraps
// a Qt item model around this, reports walk it directly.
#pragma once

#include "aggregate/group_aggregate.h"
#include "aggregate/invocation_record.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace trainio::aggregate {

enum class NodeKind { Root, System, Workload, Benchmark, Invocation, Epoch };
std::string nodeKindName(NodeKind kind);

// One metric at one node: statistics over the node's children (over its epochs for an invocation;
// the single value for an epoch).
struct NodeMetric {
    std::size_t n = 0;
    double mean = 0.0;
    double stdev = 0.0; // population stdev, the spread MLPerf and DLIO report
    ConfidenceInterval ci95;
};

struct NodeBadge {
    bool evaluated = false;   // false where nothing could be checked (no threshold known, …)
    bool passed = false;
    std::size_t violations = 0; // rule checks failed in this subtree
};

struct LibraryNode {
    NodeKind kind = NodeKind::Root;
    std::string label;
    std::filesystem::path path;          // folder (system: none; epoch: the invocation's folder)
    NodeMetric au, samplesPerSecond, mibPerSecond;
    NodeBadge badge;
    std::vector<std::string> checks;     // the violations themselves, at benchmark nodes
    std::optional<std::size_t> group;    // index into ImportResult::groups (benchmark nodes)
    std::optional<std::size_t> run;      // index into ImportResult::runs (invocation and epoch nodes)
    std::optional<std::size_t> epoch;    // 0-based epoch index (epoch nodes)
    bool warmup = false;                 // warm-up invocation, shown but not counted
    LibraryNode* parent = nullptr;
    std::vector<std::unique_ptr<LibraryNode>> children;

    int row() const; // position among the parent's children (0 for the root)
};

class ResultsLibrary {
public:
    ResultsLibrary() = default;
    explicit ResultsLibrary(ImportResult imported);

    const LibraryNode& root() const { return *root_; }
    const ImportResult& imported() const { return imported_; }
    const GroupAggregate& aggregate(std::size_t group) const { return aggregates_.at(group); }

private:
    ImportResult imported_;
    std::vector<GroupAggregate> aggregates_;
    std::unique_ptr<LibraryNode> root_ = std::make_unique<LibraryNode>();
};

} // namespace trainio::aggregate
