// Which samples an emulated accelerator reads, in what order, each epoch (SPEC §4, Appendix A).
// The global sample list [0, files × samples_per_file) is cut into R contiguous shards of
// ceil(total / R); each epoch a rank's shard is optionally file-shuffled (whole files keep their
// samples together) and sample-shuffled with Fisher–Yates over SplitMix64 seeded with
// seed (+ epoch when seed_change_epoch). "random" seeds from the OS once per run instead.
#pragma once

#include "config/workload_config.h"

#include <cstdint>
#include <vector>

namespace trainio {

struct ShardPlan {
    std::uint64_t totalSamples = 0;
    std::uint64_t shardBegin = 0;
    std::uint64_t shardSize = 0;
    std::uint64_t stepsPerEpoch = 0; // floor(total / batch / R), or total_training_steps when set
    std::uint64_t batchSize = 1;
};

// Throws InputError when the dataset cannot feed one step, or total_training_steps exceeds what it can.
ShardPlan planShard(const WorkloadConfig& cfg, std::uint64_t rank, std::uint64_t ranks);

// Fills `order` (reused, no reallocation once sized) with the global sample ids rank `rank` reads in
// `epoch` (1-based): exactly stepsPerEpoch × batch ids, wrapping around the shard if it is short.
// `runSeed` replaces train.seed for ShuffleMode::Random (drawn once per run).
void sampleOrder(const WorkloadConfig& cfg, const ShardPlan& plan, std::uint64_t rank, std::uint64_t epoch,
                 std::uint64_t runSeed, std::vector<std::uint64_t>& order);

// The seed actually used for an epoch's shuffles (exported with the results so orders can be replayed).
std::uint64_t epochSeed(const WorkloadConfig& cfg, std::uint64_t epoch, std::uint64_t runSeed);

} // namespace trainio
