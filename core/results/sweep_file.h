// A sweep's data as sweep.json holds it (results/sweep.h writes and reads it): plain structs, so that the
// importer's result (aggregate::ImportResult::sweeps) can carry the sweeps it finds without the engine.
#pragma once

#include "engine/run_status.h"

#include <cmath>
#include <cstdint>
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

} // namespace trainio
