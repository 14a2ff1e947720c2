// The manifest a TrainIO `benchmark` writes: DIR/trainio_benchmark.json names its warm-up and its
// measured runs, so that the importer groups exactly those invocations into one benchmark (and a
// "run once" invocation never joins one). Written when the benchmark starts (status "running") and
// rewritten after each invocation, atomically; read under the store's bound and link rule (run_folder.h).
//
//   {"format": "trainio-benchmark", "version": 1, "status": "running|complete|incomplete|cancelled|failed",
//    "reason": "", "planned_runs": 5, "planned_warmups": 1, "warmups": ["warmup"],
//    "runs": ["runs/run-1", ...], "accelerators": 4, "system": "lab-nvme-01",
//    "started": "2026-11-23T04:05:21", "ended": ""}
#pragma once

#include "io/io_backend.h"
#include "store/run_folder.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace trainio::store {

struct BenchmarkManifest {
    std::string status = "running";
    std::string reason;
    std::uint64_t plannedRuns = 0;
    std::uint64_t plannedWarmups = 0;
    std::vector<std::string> warmups; // folders relative to the benchmark folder
    std::vector<std::string> runs;
    std::uint64_t accelerators = 0;
    std::string system;
    std::string started, ended;
};

// `record`: run_folder.h writeFileAtomic.
void writeBenchmarkManifest(const std::filesystem::path& benchmarkDir, const BenchmarkManifest& m, IoBackend* io = nullptr,
                            WrittenFiles* record = nullptr);
// nullopt when DIR has no manifest; throws InputError naming the file for a malformed one, one larger than
// the bound or a link leaving the tree `canonicalRoot` (DIR itself when empty).
std::optional<BenchmarkManifest> readBenchmarkManifest(const std::filesystem::path& benchmarkDir,
                                                       const std::filesystem::path& canonicalRoot = {},
                                                       const FileSource& files = diskFiles());

} // namespace trainio::store
