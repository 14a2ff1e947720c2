// What the engine measures, as plain data: per rank, per epoch, per block, the per-step load,
// compute and proc ("load + compute") seconds, and wall-clock block/epoch bounds — the same lists
// DLIO writes to <rank>_output.json and <rank>_per_epoch_stats.json.
#pragma once

#include <cstdint>
#include <vector>

namespace trainio {

struct BlockRecord {
    std::uint64_t block = 1;
    double start = 0; // wall clock, seconds since the Unix epoch (µs resolution in files)
    double end = 0;
    std::vector<double> load, compute, proc;
    // The block's time on the clock its metrics were computed with, when a folder written by DLIO says
    // it (readStepRecords, from the block's own `au`): DLIO times a block with two time() readings it
    // never writes and logs start/end as separate readings a moment later (statscounter.py:311/317,
    // :325/:329). 0: use end - start.
    double clockSeconds = 0;
    double seconds() const { return clockSeconds > 0 ? clockSeconds : end - start; }
    std::uint64_t steps() const { return proc.size(); }
};

struct EpochRecord {
    std::uint64_t epoch = 1;
    double start = 0;
    double end = 0;
    bool complete = false; // every expected step ran
    std::vector<BlockRecord> blocks;
    std::uint64_t steps() const {
        std::uint64_t n = 0;
        for (const auto& b : blocks) n += b.steps();
        return n;
    }
    // How long the accelerator waited for its batches in the epoch: the summed per-step load times (the
    // loader's stall_seconds, docs/loader.md).
    double loadSeconds() const {
        double s = 0;
        for (const auto& b : blocks)
            for (const double l : b.load) s += l;
        return s;
    }
};

struct RankRecord {
    std::uint64_t rank = 0;
    std::vector<EpochRecord> epochs;
};

} // namespace trainio
