// docs/capture.md "The batch hand-over"; the rule is in batch_handover.h.
#include "trace/batch_handover.h"

#include <algorithm>
#include <cstdio>

namespace trainio::trace {

namespace {
std::string count(std::size_t n) { return std::to_string(n); }

// The readers in the loader's order. Their start order is a guess (a forked worker's process line is
// written at its first data-file open, and the second worker may open first): each reader goes to the
// position p whose steps p, p + W, … its batches fit best — none arriving before the reader closed its
// last sample, the least time between the two — when that gives every reader its own position.
HandoverEpoch inLoaderOrder(const HandoverEpoch& ep) {
    const std::size_t w = ep.batchEnds.size();
    const std::size_t steps = std::min(ep.ask.size(), ep.arrival.size());
    std::vector<std::size_t> at(w, w);
    std::vector<bool> taken(w, false);
    for (std::size_t r = 0; r < w; ++r) {
        double best = 0;
        for (std::size_t p = 0; p < w; ++p) {
            std::size_t fits = 0, late = 0;
            double slack = 0;
            for (std::size_t b = 0; b < ep.batchEnds[r].size() && p + b * w < steps; ++b) {
                const std::uint64_t arrival = ep.arrival[p + b * w], closed = ep.batchEnds[r][b].closed;
                if (arrival == 0) continue;
                if (arrival < closed) ++late;
                else {
                    ++fits;
                    slack += static_cast<double>(arrival - closed);
                }
            }
            if (fits == 0 || late * 10 > fits + late) continue;
            const double score = slack / static_cast<double>(fits);
            if (at[r] == w || score < best) {
                at[r] = p;
                best = score;
            }
        }
        if (at[r] == w || taken[at[r]]) return ep; // no position, or two readers on one: keep the start order
        taken[at[r]] = true;
    }
    HandoverEpoch out = ep;
    for (std::size_t r = 0; r < w; ++r) out.batchEnds[at[r]] = ep.batchEnds[r];
    return out;
}
} // namespace

HandoverEstimate estimateHandover(const std::vector<HandoverEpoch>& given, double collateSeconds) {
    HandoverEstimate e;
    const auto collateNs = static_cast<std::int64_t>(std::max(0.0, collateSeconds) * 1e9);
    for (const auto& unordered : given) {
        const HandoverEpoch ep = inLoaderOrder(unordered);
        const std::size_t readers = ep.batchEnds.size();
        if (readers == 0) continue;
        const std::size_t steps = std::min(ep.ask.size(), ep.arrival.size());
        for (std::size_t k = 1; k < steps; ++k) { // step 0: the workers are still starting
            const auto& ends = ep.batchEnds[k % readers];
            const std::size_t b = k / readers;
            if (b >= ends.size() || ep.ask[k] == 0 || ep.arrival[k] == 0) continue;
            ++e.steps;
            const auto ask = static_cast<std::int64_t>(ep.ask[k]), arrival = static_cast<std::int64_t>(ep.arrival[k]);
            if (arrival < static_cast<std::int64_t>(ends[b].closed)) { // before its last sample was read: not this reader's batch
                ++e.unmatched;
                continue;
            }
            const std::int64_t ready = static_cast<std::int64_t>(ends[b].done) + collateNs;
            if (ready <= ask) ++e.readyBeforeAsk;
            e.seconds.push_back(static_cast<double>(std::max<std::int64_t>(0, arrival - std::max(ask, ready))) * 1e-9);
        }
    }
    if (e.steps < 3) {
        e.basis = "not measured: " + count(e.steps) + " step(s) whose batch could be matched to its reader";
        return e;
    }
    if (e.unmatched * 10 > e.steps) {
        e.seconds.clear();
        e.basis = "not measured: " + count(e.unmatched) + " of " + count(e.steps) +
                  " batches arrived before the reader that should have made them (batch k to reader k mod readers, as "
                  "PyTorch's DataLoader hands them out) had read their last sample: the loader hands batches out in "
                  "another order";
        return e;
    }
    e.usable = true;
    e.basis = count(e.seconds.size()) + " steps: from the loop's request, or the batch being done in its reader (its last sample "
              "read and worked on, plus the collation) when that was later, to the batch's arrival in the loop; " +
              count(e.readyBeforeAsk) + " of them were done before the loop asked";
    return e;
}

} // namespace trainio::trace
