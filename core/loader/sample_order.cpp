#include "loader/sample_order.h"

#include "util/prng.h"
#include "util/errors.h"

#include <algorithm>
#include <numeric>

namespace trainio {
namespace {

// Fisher–Yates (Durstenfeld): for i from n down to 2, swap v[i-1] with v[below(i)] — docs/engine.md.
void fisherYates(std::vector<std::uint64_t>& v, std::uint64_t streamSeed) {
    SplitMix64 g(streamSeed);
    for (std::uint64_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[g.below(i)]);
}

} // namespace

ShardPlan planShard(const WorkloadConfig& cfg, std::uint64_t rank, std::uint64_t ranks) {
    ShardPlan p;
    p.batchSize = cfg.reader.batchSize;
    p.totalSamples = cfg.dataset.numFilesTrain * cfg.dataset.numSamplesPerFile;
    const std::uint64_t per = (p.totalSamples + ranks - 1) / ranks;
    p.shardBegin = std::min(p.totalSamples, rank * per);
    p.shardSize = std::min(per, p.totalSamples - p.shardBegin);
    const std::uint64_t maxSteps = p.totalSamples / p.batchSize / ranks;
    if (maxSteps == 0)
        throw InputError("dataset: " + std::to_string(p.totalSamples) + " samples cannot feed one step of " +
                         std::to_string(p.batchSize) + " samples on each of " + std::to_string(ranks) +
                         " accelerators: expected num_files_train × num_samples_per_file >= batch_size × accelerators");
    p.stepsPerEpoch = maxSteps;
    if (cfg.train.totalTrainingSteps > 0) {
        if (cfg.train.totalTrainingSteps > maxSteps)
            throw InputError("train.total_training_steps = " + std::to_string(cfg.train.totalTrainingSteps) +
                             ": expected at most " + std::to_string(maxSteps) +
                             " (the dataset has enough data for that many steps per epoch)");
        p.stepsPerEpoch = cfg.train.totalTrainingSteps;
    }
    if (p.shardSize == 0)
        throw InputError("dataset: too few samples (" + std::to_string(p.totalSamples) + ") for " +
                         std::to_string(ranks) + " accelerators");
    return p;
}

std::uint64_t epochSeed(const WorkloadConfig& cfg, std::uint64_t epoch, std::uint64_t runSeed) {
    std::uint64_t base = cfg.reader.sampleShuffle == ShuffleMode::Random || cfg.reader.fileShuffle == ShuffleMode::Random
                             ? runSeed
                             : cfg.train.seed;
    return cfg.train.seedChangeEpoch ? base + epoch : base;
}

void sampleOrder(const WorkloadConfig& cfg, const ShardPlan& plan, std::uint64_t rank, std::uint64_t epoch,
                 std::uint64_t runSeed, std::vector<std::uint64_t>& order) {
    const std::uint64_t spf = cfg.dataset.numSamplesPerFile;
    order.resize(plan.shardSize);
    std::iota(order.begin(), order.end(), plan.shardBegin);
    const std::uint64_t seed = epochSeed(cfg, epoch, runSeed);

    if (cfg.reader.fileShuffle != ShuffleMode::Off && spf > 1) {
        // Permute whole files of the shard: the samples of one file stay together and in order.
        const std::uint64_t firstFile = plan.shardBegin / spf;
        const std::uint64_t lastFile = (plan.shardBegin + plan.shardSize - 1) / spf;
        std::vector<std::uint64_t> files(lastFile - firstFile + 1);
        std::iota(files.begin(), files.end(), firstFile);
        fisherYates(files, mixSeed(seed, 0xF11E, rank));
        std::size_t k = 0;
        for (std::uint64_t f : files) {
            const std::uint64_t b = std::max(plan.shardBegin, f * spf);
            const std::uint64_t e = std::min(plan.shardBegin + plan.shardSize, (f + 1) * spf);
            for (std::uint64_t s = b; s < e; ++s) order[k++] = s;
        }
    } else if (cfg.reader.fileShuffle != ShuffleMode::Off && cfg.reader.sampleShuffle == ShuffleMode::Off) {
        // One sample per file: shuffling files is shuffling samples.
        fisherYates(order, mixSeed(seed, 0xF11E, rank));
    }
    if (cfg.reader.sampleShuffle != ShuffleMode::Off) {
        fisherYates(order, mixSeed(seed, 0x5A3B, rank));
    }
    const std::uint64_t need = plan.stepsPerEpoch * plan.batchSize;
    if (need < order.size()) {
        order.resize(need);
    } else if (need > order.size()) {
        // A short last shard wraps around, as a padding sampler does; all ranks take the same steps.
        const std::size_t have = order.size();
        order.resize(need);
        for (std::size_t i = have; i < need; ++i) order[i] = order[i - have];
    }
}

} // namespace trainio
