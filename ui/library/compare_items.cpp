#include "library/compare_items.h"

#include <cmath>
#include <limits>
#include <optional>

namespace trainio::ui {

using aggregate::LibraryNode;
using aggregate::NodeKind;

namespace {

QString labelOf(const LibraryNode& n) {
    if (!n.itemName.empty()) return QString::fromStdString(n.itemName);
    QString label = QString::fromStdString(n.label);
    // One level of context makes "run-1" or "epoch 2" identifiable among items from several folders.
    // A benchmark is told apart by its system (its folder name often repeats the workload's).
    if (n.kind == NodeKind::Benchmark && n.parent && n.parent->parent)
        label = QString::fromStdString(n.parent->parent->label) + QStringLiteral(" · ") + label;
    else if ((n.kind == NodeKind::Invocation || n.kind == NodeKind::Epoch) && n.parent)
        label = QString::fromStdString(n.parent->label) + QStringLiteral(" · ") + label;
    return label;
}

// The newest start among the runs at or below `n` that TrainIO made ("" when none).
std::string newestOwnStart(const aggregate::ResultsLibrary& library, const LibraryNode& n) {
    std::string newest;
    if (n.run) {
        const aggregate::InvocationRecord& r = library.imported().runs.at(*n.run);
        if (aggregate::isTrainioRun(r) && r.start > newest) newest = r.start.empty() ? std::string(" ") : r.start;
    }
    if (n.kind != NodeKind::Invocation)
        for (const auto& c : n.children)
            if (c->kind == NodeKind::Invocation && !c->warmup) newest = std::max(newest, newestOwnStart(library, *c));
    return newest;
}

} // namespace

std::size_t defaultBaseline(const aggregate::ResultsLibrary& library, const std::vector<CompareItem>& items) {
    std::optional<std::size_t> best;
    std::string bestStart;
    bool bestIsBenchmark = false;
    for (std::size_t i = 0; i < items.size(); ++i) {
        const LibraryNode* n = items[i].node;
        if (!n || !n->hasMetrics) continue;
        const std::string start = newestOwnStart(library, *n);
        if (start.empty()) continue;
        const bool benchmark = n->kind == NodeKind::Benchmark;
        // A benchmark before a single run; among equals the newest (the first of equally new ones).
        if (!best || (benchmark && !bestIsBenchmark) || (benchmark == bestIsBenchmark && start > bestStart)) {
            best = i;
            bestStart = start;
            bestIsBenchmark = benchmark;
        }
    }
    return best.value_or(0);
}

std::vector<CompareItem> compareItems(const aggregate::ResultsLibrary& library, const std::vector<const LibraryNode*>& nodes) {
    std::vector<CompareItem> out;
    for (const LibraryNode* n : nodes) {
        CompareItem item;
        item.label = labelOf(*n);
        item.kind = QString::fromStdString(aggregate::nodeKindName(n->kind));
        item.node = n;
        if (n->kind == NodeKind::Invocation) {
            for (const auto& e : n->children) {
                item.epochAu.push_back(e->au.n ? e->au.mean : std::numeric_limits<double>::quiet_NaN());
                item.epochMib.push_back(e->mibPerSecond.n ? e->mibPerSecond.mean : std::numeric_limits<double>::quiet_NaN());
            }
        } else if (n->kind == NodeKind::Benchmark && n->group) {
            for (const auto& e : library.aggregate(*n->group).perEpoch) {
                item.epochAu.push_back(e.au.mean.value);
                item.epochMib.push_back(e.mibPerSecond.mean.value);
            }
        } else if (n->kind == NodeKind::Epoch) {
            item.epochAu.push_back(n->au.mean);
            item.epochMib.push_back(n->mibPerSecond.mean);
        }
        out.push_back(std::move(item));
    }
    return out;
}

} // namespace trainio::ui
