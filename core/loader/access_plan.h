// The clairvoyant part of a loader (issue 13, NoPFS: Dryden et al., SC21, arXiv 2101.08734): training's
// "random" order comes from a known seed, so every sample a rank will read, in every epoch and in order,
// is known before the first read. From that access string: how often each sample will be read (the
// frequency ranking), where each sample lives (tier placement by rank until each tier is full), and what
// caches of a given capacity would hit — Belady's optimal eviction (the bound), LRU, and NoPFS's static
// placement. Pure functions; the engine's loader policies use them, the tests check them by hand.
#pragma once

#include "config/workload_config.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace trainio::loader {

// The global sample ids one rank reads, epoch by epoch, exactly as the engine's sampleOrder gives them.
struct AccessString {
    std::uint64_t rank = 0;
    std::vector<std::vector<std::uint64_t>> epochs; // epochs[e]: the ids read in epoch e + 1, in read order
    std::uint64_t accesses() const;
};

// cfg.train.epochs epochs of rank `rank` of `ranks` (planShard + sampleOrder; runSeed as the engine
// draws it for ShuffleMode::Random). Throws InputError as planShard does.
AccessString accessString(const WorkloadConfig& cfg, std::uint64_t rank, std::uint64_t ranks, std::uint64_t runSeed);

// A sample's size in bytes: the record of its file (recordShape of file id / samples_per_file).
std::uint64_t sampleBytes(const WorkloadConfig& cfg, std::uint64_t sampleId);
using SampleBytes = std::function<std::uint64_t(std::uint64_t sampleId)>;

struct RankedSample {
    std::uint64_t sample = 0;
    std::uint64_t accesses = 0;    // over all epochs
    std::uint64_t firstAccess = 0; // position in the whole string (epochs concatenated)
    std::uint64_t bytes = 0;
};

// Every sample of the string once: most accesses first; equal counts by first access, earlier first.
std::vector<RankedSample> frequencyRanking(const AccessString& string, const SampleBytes& bytesOf);

enum class Tier : std::uint8_t { Storage, Ram, Ssd };
const char* toString(Tier t); // "storage", "ram", "ssd"

struct TierCapacity {
    std::uint64_t ramBytes = 0;
    std::uint64_t ssdBytes = 0;
};

struct Placement {
    std::vector<RankedSample> ranking;
    std::vector<Tier> tier;          // tier[i] of ranking[i]
    std::uint64_t ramBytes = 0, ssdBytes = 0, storageBytes = 0; // bytes placed in each
    std::uint64_t ramSamples = 0, ssdSamples = 0, storageSamples = 0;
};

// In ranking order, each sample into the fastest tier it still fits in (RAM, then SSD), else it stays on
// storage. A sample that does not fit is skipped, not the rest: a smaller one further down may still fit.
Placement placeSamples(std::vector<RankedSample> ranking, const TierCapacity& capacity);

// What a cache of `capacityBytes` in front of the storage would do over the whole string (epochs in
// order): hits, and per epoch.
struct CacheSimulation {
    std::uint64_t accesses = 0;
    std::uint64_t hits = 0;
    std::uint64_t bytesFromStorage = 0;
    std::vector<std::uint64_t> accessesPerEpoch, hitsPerEpoch;
    double hitRatio() const { return accesses ? static_cast<double>(hits) / static_cast<double>(accesses) : 0.0; }
};

// Belady's MIN (optimal for equal sizes): every miss is brought in; when it does not fit, the resident
// samples whose next use is farthest (never = farthest of all) are evicted until it does. A sample
// larger than the capacity is never cached. With unequal sizes this is Belady's rule applied to bytes,
// a bound that is not always optimal (the exact problem is NP-hard).
CacheSimulation simulateBelady(const AccessString& string, std::uint64_t capacityBytes, const SampleBytes& bytesOf);

// Least-recently-used: every miss brought in, the least recently read evicted until it fits.
CacheSimulation simulateLru(const AccessString& string, std::uint64_t capacityBytes, const SampleBytes& bytesOf);

// NoPFS's static placement (placeSamples with this capacity as the RAM tier, no SSD tier): a sample
// placed in the tier is read from storage once, at its first access, and hits at every later one; the
// others always miss.
CacheSimulation simulateStatic(const AccessString& string, const Placement& placement);

} // namespace trainio::loader
