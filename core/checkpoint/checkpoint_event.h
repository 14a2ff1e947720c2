// What a checkpoint write or read reports as it happens (the GUI's checkpoint view, the CLI's progress)
// and what it leaves in summary.json. Contract shared by core/checkpoint (producer) and the views.
#pragma once

#include <cstdint>
#include <string>

namespace trainio::checkpoint {

enum class Operation { Write, Read };

// One rank's share of one checkpoint, reported when that rank finished it (Completed) and once at the
// start (Started, bytes/seconds 0) so a view can show what is in flight.
struct CheckpointEvent {
    enum class Phase { Started, Completed, Failed };
    Phase phase = Phase::Completed;
    Operation op = Operation::Write;
    std::uint64_t index = 0;   // 0-based checkpoint number within its operation (write 0..N-1, read 0..M-1)
    std::uint64_t rank = 0;
    std::uint64_t epoch = 0;   // DLIO's epoch/step the checkpoint is named after (global_epoch<E>_step<S>)
    std::uint64_t step = 0;
    std::uint64_t bytes = 0;   // bytes this rank wrote/read for this checkpoint (actual, scaled)
    double seconds = 0;        // this rank's duration (open → last byte [+ fsync] → close)
    double storageSeconds = 0; // of `seconds`, inside the storage's calls (the rest: making the bytes)
    std::uint64_t realBytes = 0; // what the unscaled checkpoint would be for this rank (== bytes at scale 1)
    std::string error;         // Failed: what went wrong, naming the file
};

inline const char* operationName(Operation op) { return op == Operation::Write ? "write" : "read"; }

// A transfer that spent more of its `seconds` outside the storage's calls (making or taking the bytes)
// than inside them: the client, not the storage, set its pace (mlcommons/storage#689 measured the same of
// its own harness). The words the CLI and trainio_checkpoint.json use for either.
inline bool generationBound(double seconds, double storageSeconds) { return seconds - storageSeconds > storageSeconds; }
inline const char* boundName(bool generationBound) { return generationBound ? "generation-bound" : "I/O-bound"; }

} // namespace trainio::checkpoint
