// planCheckpoint(): DLIO's PyTorch checkpoint, file by file, as MLCommons' DLIO fork (the code behind
// MLPerf Storage v3.0, mlcommons/DLIO_local_changes f6796ed) builds it. Line numbers below refer to
// dlio_benchmark/checkpointing/base_checkpointing.py (BC), utils/config.py (CFG) of that commit.
#include "checkpoint/checkpoint_plan.h"

#include "util/errors.h"

#include <cmath>
#include <string>

namespace trainio::checkpoint {

std::uint64_t RankPlan::realBytes() const {
    std::uint64_t s = 0;
    for (const auto& f : files) s += f.realBytes;
    return s;
}

std::uint64_t RankPlan::bytes() const {
    std::uint64_t s = 0;
    for (const auto& f : files) s += f.bytes;
    return s;
}

std::uint64_t datatypeBytes(const std::string& datatype) {
    // BC get_datatype_size (lines 33-43)
    if (datatype == "int8" || datatype == "uint8") return 1;
    if (datatype == "fp16" || datatype == "bf16") return 2;
    if (datatype == "fp32") return 4;
    if (datatype == "fp64") return 8;
    return 0;
}

std::string checkpointFolderName(std::uint64_t epoch, std::uint64_t step) {
    // BC save_checkpoint line 389: checkpoint_id = f"global_epoch{epoch}_step{step_number}"
    return "global_epoch" + std::to_string(epoch) + "_step" + std::to_string(step);
}

namespace {

using u64 = std::uint64_t;

struct Shape {
    u64 tp, pp, dp, mp, zero;
    u64 layers; // 0: not a layered model (num_layers <= 0)
    u64 vocab, hidden, ffn, heads, kvHeads;
};

// BC get_num_parameters (lines 284-302). Python's // on non-negative ints is floor division, as here.
u64 numParameters(const Shape& s) {
    if (s.layers == 0) return 0;
    const u64 headSize = s.hidden / s.heads;
    const u64 dimKv = headSize * s.kvHeads;
    const u64 embedding = s.vocab * s.hidden;
    const u64 perLayer = s.hidden                          // input_norm
                         + s.hidden * (s.hidden + 2 * dimKv) // qkv
                         + s.hidden * s.hidden             // dense
                         + s.hidden                        // layer_norm
                         + s.ffn * 2 * s.hidden            // mlp_h_to_4h (gated linear unit)
                         + s.ffn * s.hidden;               // mlp_4h_to_h
    return embedding + perLayer * s.layers + s.hidden /* weight */ + embedding /* lm_head */;
}

// BC get_layer_parameters (lines 304-332), the computed branch: elements per tensor of one layer.
std::vector<u64> layerParameters(const Shape& s, u64 layer) {
    const u64 headSize = s.hidden / s.heads;
    const u64 dimKv = headSize * s.kvHeads;
    const u64 shard = s.zero < 3 ? 1 : s.dp;
    if (layer == 0 || layer == s.layers + 1) return {s.hidden * s.vocab / s.tp / shard}; // embedding, lm_head
    if (layer == s.layers + 2) return {s.hidden / shard};                            // final weight
    return {s.hidden / shard,
            s.hidden * (s.hidden + 2 * dimKv) / s.tp / shard,
            s.hidden * s.hidden / s.tp / shard,
            s.hidden / shard,
            s.hidden * 2 * s.ffn / s.tp / shard,
            s.hidden * s.ffn / s.tp / shard};
}

// BC get_layer_index (lines 360-382): [start, end] inclusive for a pipeline rank.
std::pair<u64, u64> layerRange(const Shape& s, u64 pipelineRank, bool layerParametersPredefined) {
    const u64 perGroup = s.layers / s.pp;
    const u64 remainder = s.layers % s.pp;
    std::int64_t start = 0;
    std::int64_t end = 0;
    if (pipelineRank < remainder) {
        start = static_cast<std::int64_t>(pipelineRank * (perGroup + 1) + 1);
        end = start + static_cast<std::int64_t>(perGroup);
    } else {
        start = static_cast<std::int64_t>(remainder * (perGroup + 1) + (pipelineRank - remainder) * perGroup + 1);
        end = start + static_cast<std::int64_t>(perGroup) - 1;
    }
    if (!layerParametersPredefined) {
        if (pipelineRank == s.pp - 1) end = static_cast<std::int64_t>(s.layers + 2);
        if (pipelineRank == 0) start = 0;
    }
    if (end < start) return {1, 0}; // empty
    return {static_cast<u64>(start), static_cast<u64>(end)};
}

[[noreturn]] void refuse(const WorkloadConfig& cfg, const std::string& key, const std::string& value,
                         const std::string& expected) {
    throw InputError(describeProblem(cfg.sourcePath.empty() ? "checkpoint" : cfg.sourcePath, key, value, expected));
}

u64 positive(const WorkloadConfig& cfg, const char* key, std::int64_t v) {
    if (v < 1) refuse(cfg, key, std::to_string(v), "an integer >= 1");
    return static_cast<u64>(v);
}

u64 scaled(u64 real, double scale) {
    if (real == 0) return 0;
    const auto b = static_cast<u64>(std::llround(static_cast<double>(real) * scale));
    return b == 0 ? 1 : b; // a file DLIO writes is never left out, however small the scale
}

} // namespace

CheckpointPlan planCheckpoint(const WorkloadConfig& cfg, std::uint64_t ranks) {
    const auto& m = cfg.model;
    const auto& par = m.parallelism;
    const auto& ck = cfg.checkpoint;
    if (ranks == 0) refuse(cfg, "ranks", "0", "at least 1 rank");
    const double scale = cfg.trainio.checkpointScale;
    if (!(scale > 0 && scale <= 1))
        refuse(cfg, "trainio.checkpoint_scale", std::to_string(scale), "a factor in (0, 1] (1 = real size)");
    const u64 modelDt = datatypeBytes(m.modelDatatype);
    if (modelDt == 0) refuse(cfg, "model.model_datatype", m.modelDatatype, "one of int8, uint8, fp16, bf16, fp32, fp64");
    const u64 optDt = datatypeBytes(m.optimizerDatatype);
    if (optDt == 0)
        refuse(cfg, "model.optimizer_datatype", m.optimizerDatatype, "one of int8, uint8, fp16, bf16, fp32, fp64");
    if (ck.type != "rank_zero" && ck.type != "all_ranks") refuse(cfg, "checkpoint.type", ck.type, "rank_zero or all_ranks");
    if (ck.mode != "default" && ck.mode != "subset") refuse(cfg, "checkpoint.mode", ck.mode, "default or subset");

    Shape s{};
    s.tp = positive(cfg, "model.parallelism.tensor", par.tensor);
    s.pp = positive(cfg, "model.parallelism.pipeline", par.pipeline);
    if (par.zeroStage < 0 || par.zeroStage > 3)
        refuse(cfg, "model.parallelism.zero_stage", std::to_string(par.zeroStage), "0, 1, 2 or 3");
    s.zero = static_cast<u64>(par.zeroStage);
    s.mp = s.tp * s.pp;
    s.layers = m.numLayers > 0 ? static_cast<u64>(m.numLayers) : 0;
    s.vocab = m.transformer.vocabSize;
    s.hidden = m.transformer.hiddenSize;
    s.ffn = m.transformer.ffnHiddenSize;
    s.heads = m.transformer.numAttentionHeads;
    s.kvHeads = m.transformer.numKvHeads;
    if (s.layers > 0 && s.heads == 0)
        refuse(cfg, "model.transformer.num_attention_heads", "0", "an integer >= 1");

    // CFG validate(), lines 452-467: the rules DLIO refuses a run with.
    if (s.layers > 0 && s.layers < s.pp)
        refuse(cfg, "model.num_layers", std::to_string(s.layers),
               "at least model.parallelism.pipeline (" + std::to_string(s.pp) + ")");
    if (s.pp > 1 && s.zero == 3)
        refuse(cfg, "model.parallelism.zero_stage", "3", "ZeRO stage 3 is not compatible with pipeline parallelism > 1");
    const bool subset = ck.mode == "subset";
    if (!subset && par.data > 0)
        refuse(cfg, "model.parallelism.data", std::to_string(par.data),
               "unset in checkpoint.mode default (derived from the ranks); set checkpoint.mode: subset to use it");
    if (subset) {
        if (par.data <= 0)
            refuse(cfg, "model.parallelism.data", std::to_string(par.data), "a target data parallelism >= 1 for subset mode");
        if (static_cast<u64>(par.data) * s.mp < ranks)
            refuse(cfg, "ranks", std::to_string(ranks),
                   "at most data × tensor × pipeline = " + std::to_string(static_cast<u64>(par.data) * s.mp) +
                       " in subset mode");
    } else if (ranks % s.mp != 0) {
        refuse(cfg, "ranks", std::to_string(ranks),
               "a multiple of tensor × pipeline = " + std::to_string(s.mp));
    }
    // BC __init__ lines 55-62
    s.dp = subset ? static_cast<u64>(par.data) : ranks / s.mp;

    const bool layerPredefined = !m.layerParameters.empty();
    const bool optPredefined = !m.optimizationGroups.empty();
    const u64 numParams = numParameters(s);
    // model_type != "transformer" with model_size: one model_states-<rank> tensor (BC lines 159-162, 393)
    const bool wholeModelState = m.modelSizeBytes > 0 && m.type != "transformer";
    const auto modelSize = static_cast<u64>(m.modelSizeBytes);

    CheckpointPlan plan;
    plan.ranks = ranks;
    plan.scale = scale;
    double dlioModelBytes = 0; // BC model_checkpoint_size / optimizer_checkpoint_size, allreduced (164-165)
    double dlioOptimizerBytes = 0;

    for (u64 r = 0; r < ranks; ++r) {
        RankPlan rp;
        rp.rank = r;
        const u64 ppRank = (r / s.tp) % s.pp; // BC lines 64-67
        const u64 dpRank = r / s.mp;
        const u64 mpRank = r % s.mp;
        // BC lines 93-97: without ZeRO only the first model-parallel group writes. checkpoint.type is read
        // by the fork but no longer consulted; all_ranks keeps its meaning in DLIO until 2025 (upstream
        // base_checkpointing.py at 07d8bc7: every rank writes its own copy), which matters only without ZeRO.
        const bool writes = s.zero > 0 || r < s.mp || ck.type == "all_ranks";
        if (!writes) {
            plan.perRank.push_back(std::move(rp));
            continue;
        }
        auto add = [&](const std::string& name, u64 real) {
            if (real == 0) return; // BC/pytorch save_state: "0 bytes ..., skipping"
            rp.files.push_back(PlannedFile{name + ".pt", real, scaled(real, scale)});
        };
        const std::string zeroName =
            "zero_pp_rank_" + std::to_string(dpRank) + "_mp_rank_" + std::to_string(mpRank);

        if (wholeModelState) add("model_states-" + std::to_string(r), modelSize);

        // Layer (model) state, BC lines 109-135 (sizes) and 395-412 (which file).
        const auto [start, end] = layerRange(s, ppRank, layerPredefined);
        std::vector<u64> layerBytes; // per layer in [start, end]
        if (layerPredefined) {
            // "old code": every layer holds the same int8 tensors of state // tensor elements; not counted
            // in DLIO's reported checkpoint size.
            u64 perLayer = 0;
            for (u64 st : m.layerParameters)
                if (st > 0) perLayer += st / s.tp;
            for (u64 l = start; l <= end; ++l) layerBytes.push_back(perLayer);
        } else if (s.layers > 0 && !(s.zero == 1 && dpRank != 0)) {
            for (u64 l = start; l <= end; ++l) {
                u64 b = 0;
                for (u64 st : layerParameters(s, l))
                    if (st > 0) b += st * modelDt;
                layerBytes.push_back(b);
                dlioModelBytes += static_cast<double>(b);
            }
        }
        u64 layerTotal = 0;
        for (u64 b : layerBytes) layerTotal += b;
        if (layerTotal > 0) {
            if (s.zero > 0 && s.zero < 3) {
                if (dpRank == 0 && s.layers > 0) {
                    if (s.pp > 1) {
                        for (u64 i = 0; i < layerBytes.size(); ++i)
                            add("layer_" + std::to_string(start + i) + "-model_" + std::to_string(mpRank) + "_model_states",
                                layerBytes[i]);
                    } else {
                        add("model_" + std::to_string(mpRank) + "_model_states", layerTotal);
                    }
                }
            } else {
                add(zeroName + "_model_states", layerTotal);
            }
        }

        // Optimizer state, BC lines 137-157 and get_optimization_groups (340-358).
        u64 optBytes = 0;
        if (optPredefined) {
            u64 sum = 0;
            for (u64 st : m.optimizationGroups)
                if (st > 0) sum += st;
            optBytes = 3 * sum; // 'a' and 'b' per group plus "combined", int8
        } else if (s.layers > 0) {
            const u64 n = s.zero > 0 ? numParams / (s.dp * s.mp) : numParams / s.mp;
            if (n > 0) {
                optBytes = 3 * (n + s.hidden * 5) * optDt;
                dlioOptimizerBytes += static_cast<double>(optBytes);
            }
        }
        add(zeroName + "_optim_states", optBytes);
        plan.perRank.push_back(std::move(rp));
    }

    for (const auto& rp : plan.perRank) {
        plan.realTotalBytes += rp.realBytes();
        plan.totalBytes += rp.bytes();
    }
    // BC lines 164-170: the size DLIO reports (checkpoint_size_GB) and divides by the duration.
    if (wholeModelState) dlioModelBytes = static_cast<double>(modelSize);
    plan.dlioCheckpointSizeGiB = (dlioModelBytes + dlioOptimizerBytes) / 1024. / 1024. / 1024.;

    plan.notes.push_back("data parallelism " + std::to_string(s.dp) +
                         (subset ? " (subset mode: model.parallelism.data; " + std::to_string(ranks) + " of " +
                                       std::to_string(s.dp * s.mp) + " ranks write)"
                                 : " derived from " + std::to_string(ranks) + " ranks / (tensor " +
                                       std::to_string(s.tp) + " × pipeline " + std::to_string(s.pp) + ")"));
    if (s.layers > 0) plan.notes.push_back("model parameters: " + std::to_string(numParams));
    if (scale < 1)
        plan.notes.push_back("trainio.checkpoint_scale " + std::to_string(scale) +
                             ": every file is written at this fraction of its real size");
    return plan;
}

} // namespace trainio::checkpoint
