// The memory one process of an S3 run holds, told before the run and refused when the machine does not
// have it (issue 22; docs/s3.md, "Memory budget"; mlcommons/storage#666 is a submitter who could not run
// unet3d on S3 within RAM). Objects do not pass through the page cache: what a run holds is the readers'
// own buffers, and they, not the requests in flight, are what grows with the workload:
//   budget = the process now (its resident memory when the budget is made)
//          + readers (read_threads × accelerators of this process) × what one reader holds
//          + the loader's RAM tiers and staging (lru, nopfs; per accelerator)
// What one reader holds: with trainio.io_depth > 1 the S3 backend gets whole samples, so npz/npy files
// (and decoded JPEG/PNG) land whole in the reader's buffer, its io_depth ranged GETs of transfer_size each
// writing into it: the largest file of the dataset (buffers grow and are kept: over a run every reader
// comes to hold about the largest, so the budget is what a long run reaches). With io_depth 1 an npz/npy
// reader keeps the chunks of the framing windows and one transfer_size chunk. Formats read record by
// record (tfrecord, hdf5, raw, indexed_binary) hold the largest record. Buffers of 256 KiB and more are
// 2 MiB huge pages (io/aligned_buffer.h): each counts rounded up.
#pragma once

#include "config/workload_config.h"

#include <cstdint>
#include <string>

namespace trainio {

struct MemoryBudget {
    std::uint64_t readers = 0;     // reader threads of this process
    double perReaderBytes = 0;     // what one reader holds
    std::string perReaderWhy;      // why, in words ("the largest file, 22.3 MiB, read whole: …")
    double tierBytes = 0;          // loader RAM tiers and staging, every accelerator of the process
    double processBytes = 0;       // the process's resident memory when the budget was made
    double totalBytes() const { return processBytes + static_cast<double>(readers) * perReaderBytes + tierBytes; }
    // "S3 memory budget: 4 readers x 22.3 MiB (…) + loader tiers 0.0 MiB + this process 15.2 MiB = 104.4 MiB"
    std::string text() const;
};

// The budget of one process running `accelerators` emulated accelerators of cfg.
MemoryBudget memoryBudget(const WorkloadConfig& cfg, std::uint64_t accelerators);

// This process's resident memory now (/proc/self/statm) and its peak so far (getrusage's ru_maxrss), in bytes.
std::uint64_t processResidentBytes();
std::uint64_t processPeakResidentBytes();

} // namespace trainio
