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

// The baseline Compare starts from: the user's own newest benchmark among the items (a benchmark of
// runs TrainIO made, newest by its runs' start), else the user's own newest run, else the first item —
// not whatever sorts first (a published result).
std::size_t defaultBaseline(const aggregate::ResultsLibrary& library, const std::vector<CompareItem>& items);

} // namespace trainio::ui
