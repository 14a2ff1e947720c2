#include "library/compare_items.h"

#include <cmath>
#include <limits>

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

} // namespace

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
