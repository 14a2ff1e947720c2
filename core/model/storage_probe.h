// The calibration probe of the input-pipeline model (model/pipeline_model.h, docs/model.md): measures the
// real storage under a workload's data folder the way the readers use it — the dataset's own files, read
// with the posix backend through the format's SampleReader (transfer_size preads, framing parsed), after
// dropping them from the page cache (posix_fadvise DONTNEED, io/cache_control.h) before every point:
//   - aggregate bandwidth vs the number of reader threads (the curve the model interpolates at R·T readers);
//   - the mean time of one pread at each point (at 1 thread: the per-request latency);
//   - the client CPU per sample on page-cached data (thread CPU time of a second, cached pass): the copy
//     and the format parsing that a real loader pays whatever the device.
// Each point stops after `secondsPerPoint` or when its files are read, so a probe takes a few seconds.
// A dataset that fits in RAM is still measured from the device, because the files are dropped first; a
// file system that ignores DONTNEED (some network file systems) measures its cache instead.
#pragma once

#include "config/workload_config.h"
#include "model/pipeline_model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace trainio::model {

struct ProbeOptions {
    std::vector<unsigned> threads{1, 2, 4, 8, 16};
    double secondsPerPoint = 1.0;
    std::uint64_t maxFiles = 512; // files read per point (the same ones, dropped again before each point)
};

// Probes the dataset of `cfg` found under `dataFolder` (DLIO's layout: <dir>/train/…). Throws InputError
// naming the folder when it holds none of the workload's train files (run datagen first), RunError on an
// I/O error (naming the file).
StorageParameters probeStorage(const WorkloadConfig& cfg, const std::string& dataFolder,
                               const ProbeOptions& options = {});

} // namespace trainio::model
