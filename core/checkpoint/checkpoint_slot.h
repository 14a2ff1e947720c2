// A rank's checkpoint record on its way to process 0 under mpirun: it rides in the rank's slot of its next
// meeting (dist::SyncSlot), so that process 0 — which writes every rank's <rank>_per_epoch_stats.json —
// has every rank's save_ckpt/load_ckpt as it happens, and keeps them when a peer is killed later. DLIO's
// ranks each write their own file instead (the fork's statscounter.py save_data, lines 498-507).
#pragma once

#include "checkpoint/checkpoint_io.h"
#include "dist/process_sync.h"

#include <optional>

namespace trainio::checkpoint {

inline void putRecord(dist::SyncSlot& slot, const CheckpointRecord& rec) {
    slot.ckptOp = rec.op == Operation::Write ? 1u : 2u;
    slot.ckptComplete = rec.complete ? 1u : 0u;
    slot.ckptIndex = rec.index;
    slot.ckptBlock = rec.block;
    slot.ckptEpoch = rec.epoch;
    slot.ckptStep = rec.step;
    slot.ckptBytes = rec.bytes;
    slot.ckptStart = rec.start;
    slot.ckptEnd = rec.end;
    slot.ckptIo = rec.ioSeconds;
    slot.ckptStorage = rec.storageSeconds;
}

// The record in rank `rank`'s slot, if it carries one.
inline std::optional<CheckpointRecord> takeRecord(const dist::SyncSlot& slot, std::uint64_t rank) {
    if (slot.ckptOp == 0) return std::nullopt;
    CheckpointRecord rec;
    rec.op = slot.ckptOp == 1 ? Operation::Write : Operation::Read;
    rec.rank = rank;
    rec.complete = slot.ckptComplete != 0;
    rec.index = slot.ckptIndex;
    rec.block = slot.ckptBlock;
    rec.epoch = slot.ckptEpoch;
    rec.step = slot.ckptStep;
    rec.bytes = slot.ckptBytes;
    rec.start = slot.ckptStart;
    rec.end = slot.ckptEnd;
    rec.ioSeconds = slot.ckptIo;
    rec.storageSeconds = slot.ckptStorage;
    return rec;
}

} // namespace trainio::checkpoint
