#include "aggregate/results_library.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace trainio::aggregate {

namespace {

NodeMetric metricOf(const std::vector<double>& values) {
    NodeMetric m;
    m.n = values.size();
    m.mean = mean(values).value;
    m.stdev = populationStdev(values).value;
    m.ci95 = ci95(values);
    return m;
}

// Each level aggregates the means of its children, so every child weighs the same whatever its size.
void aggregateFromChildren(LibraryNode& node) {
    std::vector<double> au, sps, mib;
    for (const auto& c : node.children) {
        if (c->warmup) continue;
        if (c->au.n && std::isfinite(c->au.mean)) au.push_back(c->au.mean);
        if (c->samplesPerSecond.n && std::isfinite(c->samplesPerSecond.mean)) sps.push_back(c->samplesPerSecond.mean);
        if (c->mibPerSecond.n && std::isfinite(c->mibPerSecond.mean)) mib.push_back(c->mibPerSecond.mean);
    }
    node.au = metricOf(au);
    node.samplesPerSecond = metricOf(sps);
    node.mibPerSecond = metricOf(mib);
}

void badgeFromChildren(LibraryNode& node) {
    node.badge = NodeBadge{};
    bool allPassed = true;
    for (const auto& c : node.children) {
        if (c->warmup) continue;
        node.badge.violations += c->badge.violations;
        if (c->badge.evaluated) {
            node.badge.evaluated = true;
            allPassed = allPassed && c->badge.passed;
        }
    }
    node.badge.passed = node.badge.evaluated && allPassed;
}

LibraryNode& child(LibraryNode& parent, NodeKind kind, std::string label) {
    auto n = std::make_unique<LibraryNode>();
    n->kind = kind;
    n->label = std::move(label);
    n->parent = &parent;
    parent.children.push_back(std::move(n));
    return *parent.children.back();
}

} // namespace

std::string nodeKindName(NodeKind kind) {
    switch (kind) {
    case NodeKind::Root: return "root";
    case NodeKind::System: return "system";
    case NodeKind::Workload: return "workload";
    case NodeKind::Benchmark: return "benchmark";
    case NodeKind::Invocation: return "invocation";
    case NodeKind::Epoch: return "epoch";
    }
    return "node";
}

int LibraryNode::row() const {
    if (!parent) return 0;
    for (std::size_t i = 0; i < parent->children.size(); ++i)
        if (parent->children[i].get() == this) return static_cast<int>(i);
    return 0;
}

ResultsLibrary::ResultsLibrary(ImportResult imported) : imported_(std::move(imported)) {
    root_->kind = NodeKind::Root;
    root_->label = "All results";
    std::map<std::string, LibraryNode*> systems;
    std::map<std::pair<std::string, std::string>, LibraryNode*> workloads;
    for (std::size_t gi = 0; gi < imported_.groups.size(); ++gi) {
        const RunGroup& g = imported_.groups[gi];
        aggregates_.push_back(aggregateGroup(imported_, g));
        const GroupAggregate& agg = aggregates_.back();

        LibraryNode*& sys = systems[g.system];
        if (!sys) {
            sys = &child(*root_, NodeKind::System, g.system);
            if (g.systemFile) sys->path = *g.systemFile;
        }
        std::string wl = g.identity.model.empty() ? "unknown workload" : g.identity.model;
        if (!g.identity.accelerator.empty()) wl += "_" + g.identity.accelerator;
        LibraryNode*& work = workloads[{g.system, wl}];
        if (!work) work = &child(*sys, NodeKind::Workload, wl);

        std::string label = g.path.filename().string();
        if (label == "runs" && g.path.has_parent_path()) label = g.path.parent_path().filename().string() + "/runs";
        label += " (" + std::to_string(g.identity.accelerators) + " accelerators)";
        LibraryNode& bench = child(*work, NodeKind::Benchmark, label);
        bench.path = g.path;
        bench.group = gi;
        bench.checks = agg.checks;

        auto addInvocation = [&](std::size_t ri) {
            const InvocationRecord& r = imported_.runs[ri];
            LibraryNode& inv = child(bench, NodeKind::Invocation, r.warmup ? r.runName + " (warm-up)" : r.runName);
            inv.path = r.path;
            inv.run = ri;
            inv.warmup = r.warmup;
            const double mibPerSample = r.samplesPerSecond > 0 ? r.mbPerSecond / r.samplesPerSecond : NAN;
            for (std::size_t e = 0; e < std::max(r.epochAuPercent.size(), r.epochSamplesPerSecond.size()); ++e) {
                LibraryNode& ep = child(inv, NodeKind::Epoch, "epoch " + std::to_string(e + 1));
                ep.path = r.path;
                ep.run = ri;
                ep.epoch = e;
                ep.warmup = r.warmup;
                if (e < r.epochAuPercent.size()) ep.au = metricOf({r.epochAuPercent[e]});
                if (e < r.epochSamplesPerSecond.size()) {
                    ep.samplesPerSecond = metricOf({r.epochSamplesPerSecond[e]});
                    if (std::isfinite(mibPerSample)) ep.mibPerSecond = metricOf({r.epochSamplesPerSecond[e] * mibPerSample});
                }
                if (r.auThresholdPercent && e < r.epochAuPercent.size()) {
                    ep.badge.evaluated = true;
                    ep.badge.passed = r.epochAuPercent[e] >= *r.auThresholdPercent;
                }
            }
            // An invocation's own numbers are DLIO's headline (mean over epochs), its spread over epochs.
            aggregateFromChildren(inv);
            inv.au.mean = r.auMeanPercent;
            inv.samplesPerSecond.mean = r.samplesPerSecond;
            inv.mibPerSecond.mean = r.mbPerSecond;
            inv.au.n = std::max<std::size_t>(inv.au.n, 1);
            inv.samplesPerSecond.n = std::max<std::size_t>(inv.samplesPerSecond.n, 1);
            inv.mibPerSecond.n = std::max<std::size_t>(inv.mibPerSecond.n, 1);
            if (r.auThresholdPercent) {
                inv.badge.evaluated = true;
                inv.badge.passed = r.auMeanPercent >= *r.auThresholdPercent && r.auMeetExpectation != "fail";
            }
        };
        for (std::size_t ri : g.warmups) addInvocation(ri);
        for (std::size_t ri : g.runs) addInvocation(ri);

        // The benchmark's numbers are exactly the group aggregate (MLPerf's mean and population stdev).
        auto fromAggregate = [](const MetricAggregate& m) {
            return NodeMetric{m.values.size(), m.mean.value, m.populationStdev.value, m.ci95};
        };
        bench.au = fromAggregate(agg.au);
        bench.samplesPerSecond = fromAggregate(agg.samplesPerSecond);
        bench.mibPerSecond = fromAggregate(agg.mibPerSecond);
        bench.badge.evaluated = true;
        bench.badge.passed = agg.checks.empty();
        bench.badge.violations = agg.checks.size();
    }
    for (auto& sys : root_->children) {
        for (auto& work : sys->children) {
            aggregateFromChildren(*work);
            badgeFromChildren(*work);
        }
        aggregateFromChildren(*sys);
        badgeFromChildren(*sys);
    }
    aggregateFromChildren(*root_);
    badgeFromChildren(*root_);
}

} // namespace trainio::aggregate
