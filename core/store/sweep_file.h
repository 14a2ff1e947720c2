// A sweep's data as sweep.json holds it (docs/sweep.md), its writer and its one reader: plain structs, so
// that the importer's result (aggregate::ImportResult::sweeps) can carry the sweeps it finds without the
// engine. The search itself is session/sweep.h.
#pragma once

#include "store/run_status.h"

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace trainio {

// MIN:MAX as given to --accelerators, and the multiple every tried count must be (1 with threads,
// hosts × processes per host over MPI).
struct SweepRange {
    std::uint64_t min = 1;
    std::uint64_t max = 1;
    std::uint64_t step = 1;
};

// One trial: a benchmark (or with --quick one invocation) at one accelerator count.
struct SweepTrial {
    std::uint64_t accelerators = 0;
    RunStatus status = RunStatus::Complete; // Cancelled or Failed stops the sweep and never passes
    double auMeanPercent = NAN;             // mean over the measured runs of train_au_mean_percentage
    double samplesPerSecond = NAN;          // mean over the runs of train_throughput_mean_samples_per_second
    double readGibPerSecond = NAN;          // mean over the runs of train_io_mean_MB_per_second / 1024
    bool passed = false;                    // complete and auMeanPercent >= the AU threshold
    std::filesystem::path path;             // the trial's result folder
    std::string error;                      // why it failed ("" unless Failed)
};

struct SweepOutcome {
    std::vector<SweepTrial> trials;               // in the order they ran
    std::optional<std::uint64_t> maxPassing;      // nullopt when no trial passed
    bool complete = false;                        // the search ended (no trial cancelled or failed)
};

// What sweep.json says besides the trials.
struct SweepDescription {
    std::string config;                 // --config as given
    std::vector<std::string> overrides; // as given
    SweepRange range;
    bool quick = false;
    std::uint64_t runs = 1, warmups = 0; // per trial
    double auThresholdPercent = 0;
    std::string launcher = "threads";   // "threads" or "mpirun"
    std::uint64_t hosts = 1, processesPerHost = 1;
};

struct SweepFile {
    std::filesystem::path file; // the sweep.json read
    SweepOutcome outcome;
    SweepDescription description;
};

namespace store {

// {"max_passing_accelerators": n|null, "complete", "au_threshold_percentage", …, "trials": [{"accelerators",
// "au_mean_percentage", "samples_per_second", "read_gib_per_second", "passed", "path", "status", …}]};
// paths relative to `dir` (the sweep folder), NaN as null. docs/sweep.md lists every key.
nlohmann::ordered_json sweepJson(const SweepOutcome& outcome, const SweepDescription& what, const std::filesystem::path& dir);
// Writes dir/sweep.json atomically (temporary file, fsync, rename). Returns the file.
std::filesystem::path writeSweepJson(const SweepOutcome& outcome, const SweepDescription& what, const std::filesystem::path& dir);

// sweep.json read back (the importer, the GUI's sweep view): the outcome and the description as written,
// trial paths made absolute against the sweep folder. `where` is the sweep folder or its sweep.json; the
// file is read under the store's bound and link rule (run_folder.h) inside `canonicalRoot` (the sweep
// folder when empty). Throws InputError naming the file and the key for a file that is missing, not JSON,
// larger than the bound, a link leaving the tree, or lacks a contract key
// (max_passing_accelerators, trials[] with accelerators, au_mean_percentage, samples_per_second,
// read_gib_per_second, passed, path); keys added later are read when present.
SweepFile readSweepJson(const std::filesystem::path& where, const std::filesystem::path& canonicalRoot = {});

} // namespace store

} // namespace trainio
