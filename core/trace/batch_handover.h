// The training loop's time to receive a batch its loader has ready (docs/capture.md "The batch hand-over"):
// with PyTorch's DataLoader the loop unpickles each batch from a worker's queue and maps its shared-memory
// tensors — time the job counts as waiting for data even when the batch was long done. A replay whose
// batches are ready in memory has none of it, so a compute-bound replay would run at ~100 % AU where the
// job ran at ~91 %. Measured per step from the marks and the readers' sessions:
//   ready  = the batch's last sample done in its reader (its open, its I/O and a sample's mean work: a
//            decode may follow the close), plus the reader's collation
//   hand-over = arrival − max(ask, ready)   (≥ 0; the time between the loop asking, or the batch being
//               done, whichever is later, and the batch arriving in the loop)
// Which reader made step k's batch: PyTorch hands batch k of an epoch to worker k mod W (its index cycle
// restarts every epoch), as its b-th batch, b = k div W; which worker is k = 0 is told by the fit of each
// reader's batches to the arrivals (none before its last sample closed, the least slack). Whole batches in
// turn: trainio.whole_batches for the replay.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace trainio::trace {

// One epoch of a job whose loop takes batches from reader processes.
struct HandoverEpoch {
    std::vector<std::uint64_t> ask, arrival;           // ns, by step (0 when the step's mark is missing)
    struct BatchEnd {
        std::uint64_t closed = 0; // the batch's last sample closed (a batch cannot arrive before)
        std::uint64_t done = 0;   // and its work done (before the collation)
    };
    std::vector<std::vector<BatchEnd>> batchEnds; // by reader in start order, by its batch; ns
};

struct HandoverEstimate {
    std::vector<double> seconds;      // one per step measured (the first step of each epoch is left out: workers start)
    std::size_t steps = 0;            // steps looked at
    std::size_t readyBeforeAsk = 0;   // of them, batches done before the loop asked (pure hand-over)
    std::size_t unmatched = 0;        // arrived before their reader had finished them: the order above does not hold
    bool usable = false;              // enough steps, and the order holds for at least 90 % of them
    std::string basis;                // how it was obtained, or why there is none
};

HandoverEstimate estimateHandover(const std::vector<HandoverEpoch>& epochs, double collateSeconds);

} // namespace trainio::trace
