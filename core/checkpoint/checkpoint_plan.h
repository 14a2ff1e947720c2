// What a checkpoint is, before anything is written: per rank, the files DLIO's PyTorch checkpointing
// writes (names and sizes) for a model, its data types and its parallelism, computed as DLIO computes
// them (the fork's dlio_benchmark/checkpointing/*), at full size and scaled (trainio.checkpoint_scale).
// Contract shared by core/checkpoint (implementation), the CLI and the GUI (sizes shown before starting).
#pragma once

#include "config/workload_config.h"

#include <cstdint>
#include <string>
#include <vector>

namespace trainio::checkpoint {

struct PlannedFile {
    std::string relativePath; // inside global_epoch<E>_step<S>/, e.g. zero_pp_rank_0_mp_rank_0_model_states.pt (DLIO: no zero padding)
    std::uint64_t realBytes = 0;   // DLIO's size for this file
    std::uint64_t bytes = 0;       // what TrainIO writes (realBytes × scale, rounded as documented)
};

struct RankPlan {
    std::uint64_t rank = 0;
    std::vector<PlannedFile> files; // empty for a rank that writes nothing (rank_zero, rank > 0)
    std::uint64_t realBytes() const;
    std::uint64_t bytes() const;
};

struct CheckpointPlan {
    std::uint64_t ranks = 1;
    std::vector<RankPlan> perRank;
    std::uint64_t realTotalBytes = 0; // the whole checkpoint at full size (all ranks)
    std::uint64_t totalBytes = 0;     // what will be written (scaled)
    double scale = 1.0;
    // What DLIO reports as checkpoint_size_GB (GiB) and divides every duration by: the allreduced model
    // and optimizer state sizes of the computed (not predefined) tensors at full size. Differs from
    // realTotalBytes where DLIO counts state it does not write (ZeRO 2, data-parallel ranks > 0).
    double dlioCheckpointSizeGiB = 0;
    std::vector<std::string> notes;   // e.g. "data parallelism 8 derived from 8 ranks / (tp 1 × pp 1)"
};

// Throws InputError naming the key for a model/parallelism DLIO would refuse (e.g. ranks not a multiple
// of tensor × pipeline).
CheckpointPlan planCheckpoint(const WorkloadConfig& cfg, std::uint64_t ranks);

// Bytes per element of a DLIO datatype name (int8 … fp64); 0 for a name DLIO does not know.
std::uint64_t datatypeBytes(const std::string& datatype);

// DLIO's folder of one checkpoint: global_epoch<E>_step<S>.
std::string checkpointFolderName(std::uint64_t epoch, std::uint64_t step);

} // namespace trainio::checkpoint
