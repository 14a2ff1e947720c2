// What the report plots of a run's per-step records (InvocationRecord::steps), made by the importer from
// what store/run_files.h readStepRecords read, so that the report never reads a run folder itself.
#pragma once

#include "store/invocation_record.h"
#include "store/run_files.h"
#include "store/written_files.h"

#include <cstddef>
#include <optional>
#include <vector>

namespace trainio::aggregate {

// Each rank's AU per epoch, and for the first maxPlottedRanks ranks load time and AU per step, each
// series binned to at most maxPoints points.
StepDigest digestStepRecords(const store::InvocationData& records, std::size_t maxPoints = 600, std::size_t maxPlottedRanks = 8);

// The per-step records of `runDir` that `written` holds (what a run just wrote, store/written_files.h) made
// into their digest as the importer would make it (default bounds and points), which `written` then holds
// instead of them. Records that cannot be digested are left as they are (the importer says why).
void digestHeldStepRecords(store::WrittenFiles& written, const std::filesystem::path& runDir);

// The step (as the digest's loadStep/auStep number them, fractional inside a step) at `unixTime` on the first
// rank: where a moment (a live storage change) is drawn on the per-step plots. nullopt after the last step or
// without blocks (records from before the digest kept them).
std::optional<double> stepAt(const StepDigest& digest, double unixTime);

// Replaces runs of consecutive points by their mean (keys too) so that the series has at most maxPoints
// points; *binOut gets the larger of itself and the run length used. For plots of long series.
void binSeries(std::vector<double>& keys, std::vector<double>& values, std::size_t maxPoints, std::size_t* binOut);

} // namespace trainio::aggregate
