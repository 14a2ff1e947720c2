// The size of each file's record (SPEC Appendix A, DLIO's DataGenerator.get_dimension): a d1 x d2
// array with d = int(sqrt(record_length)); with record_length_stdev > 0, d1 and d2 are each
// max(1, int(normal(d, record_length_stdev / 2 / sqrt(record_length)))).
//
// Unlike DLIO (one numpy stream for all files, so file i depends on every earlier draw), each file's
// draw has its own stream, seeded from (train.seed, split, file index): any file's size can be
// recomputed alone, which resumable and parallel generation, clean and verify need.
#pragma once

#include "config/workload_config.h"
#include "dataset/dataset_layout.h"

#include <cstdint>

namespace trainio {

struct RecordShape {
    std::uint64_t d1 = 1;
    std::uint64_t d2 = 1;
    std::uint64_t bytes() const { return d1 * d2; }
};

// d = int(sqrt(record_length)) (DLIO's "dimension").
std::uint64_t meanDimension(const DatasetSection& dataset);

// The seed of the stream of file i of the split: mix64(mix64(seed) ^ (2 * i + (split == Valid))).
std::uint64_t fileStreamSeed(std::uint64_t seed, Split split, std::uint64_t i);

RecordShape recordShape(const DatasetSection& dataset, std::uint64_t seed, Split split, std::uint64_t i);

} // namespace trainio
