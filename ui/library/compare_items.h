// What the compare view needs from checked library nodes beside core's compare(): the item's name
// (LibraryNode::itemName) and its per-epoch series. The numbers are core's (ResultsLibrary /
// GroupAggregate); this only selects and labels them.
#pragma once

#include "aggregate/results_library.h"

#include <QString>

#include <vector>

namespace trainio::ui {

struct CompareItem {
    QString label;
    QString kind; // "benchmark", "invocation", …
    const aggregate::LibraryNode* node = nullptr;
    std::vector<double> epochAu;  // per epoch, in %; empty when the node has no epoch series
    std::vector<double> epochMib; // per epoch, MiB/s
};

std::vector<CompareItem> compareItems(const aggregate::ResultsLibrary& library,
                                      const std::vector<const aggregate::LibraryNode*>& nodes);

} // namespace trainio::ui
