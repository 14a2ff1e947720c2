// What the compare view and the exports need from checked library nodes: a label, the three metrics
// with their spread, the per-epoch series, and deltas against a baseline. The numbers are core's
// (ResultsLibrary / GroupAggregate); this only selects and labels them.
#pragma once

#include "aggregate/results_library.h"

#include <QString>

#include <vector>

namespace trainio::ui {

struct CompareItem {
    QString label;
    QString kind; // "benchmark", "invocation", …
    const aggregate::LibraryNode* node = nullptr;
    aggregate::NodeMetric au, samplesPerSecond, mibPerSecond;
    std::vector<double> epochAu;  // per epoch, in %; empty when the node has no epoch series
    std::vector<double> epochMib; // per epoch, MiB/s
};

std::vector<CompareItem> compareItems(const aggregate::ResultsLibrary& library,
                                      const std::vector<const aggregate::LibraryNode*>& nodes);

struct Delta {
    double absolute = 0;
    double percent = 0; // NaN when the baseline is 0
};
Delta deltaAgainst(double value, double baseline);

} // namespace trainio::ui
