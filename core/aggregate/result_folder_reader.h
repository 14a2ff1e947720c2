// The one reader of result folders (docs/aggregation.md, "Reading a run folder"): a run folder's
// resolved configuration (configs/, .hydra/ or dlio_config/: config.yaml with overrides.yaml applied)
// and its per-step records (<rank>_output.json, <rank>_per_epoch_stats.json), read within one set of
// bounds and under one rule for symbolic links: a file is read only when its path resolves inside the
// tree being read — the imported root, or for `trainio-cli metrics DIR` the folder DIR.
//
// The importer (importResults: configs, and on request the per-step records kept as StepDigests for the
// report), `trainio-cli metrics` (readInvocationFolder) and through the importer the library, the GUI
// and the PDF report all read run folders through it.
#pragma once

#include "aggregate/invocation_record.h"
#include "results/invocation_files.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace trainio::aggregate {

struct ReadBounds {
    std::uintmax_t maxFileBytes = 64ull << 20;      // summary.json, configs, TrainIO's own small JSON files
    std::uintmax_t maxStepFileBytes = 256ull << 20; // <rank>_output.json, *_per_epoch_stats.json: tens of MiB for long runs
    int maxJsonDepth = 64;                          // <rank>_output.json nests 5 levels, summary.json 3
};

// The rule for symbolic links: true when `file` resolves (through links in any component) to a path
// inside `canonicalRoot`; else false with `why` ("symbolic link pointing outside the imported tree …").
bool safeToRead(const std::filesystem::path& file, const std::filesystem::path& canonicalRoot, std::string& why);

// A run's configuration as the importer and `metrics` see it: every key of config.yaml (block YAML as
// Hydra writes it, "workload." stripped) with overrides.yaml's `++workload.key=value` lines applied.
struct RunConfig {
    std::string model, accelerator;
    std::string workload; // overrides.yaml workload=<value>, as written
    std::optional<double> recordLength;
    std::optional<double> auFraction;
    std::map<std::string, std::string> merged; // every resolved key
    std::vector<std::pair<std::string, std::string>> overrides; // overrides.yaml, "workload." stripped
    std::optional<std::filesystem::path> configFile; // the config.yaml read (nullopt: none found or readable)
    std::vector<std::string> notes; // files that were found but not read, and why
};

// The first dir of `dirs` with a config.yaml (resp. overrides.yaml) in one of runConfigFolders() is used.
RunConfig readRunConfig(const std::vector<std::filesystem::path>& dirs, const std::filesystem::path& canonicalRoot,
                        const ReadBounds& bounds);

// True when `runDir` holds a <rank>_output.json (DLIO's and TrainIO's per-step records).
bool hasStepRecords(const std::filesystem::path& runDir);

// Reads <rank>_output.json for every rank and the block/epoch times from <rank>_per_epoch_stats.json (or
// per_epoch_stats.json, DLIO before 2.0, for rank 0 — used for every rank when theirs is absent), batch
// size, record length, AU threshold, metric window and steps per epoch from the run's configuration
// (readRunConfig; DLIO's defaults for keys it leaves out) and trainio_run.json. `config`: the run's
// configuration when the caller has read it already. Throws InputError naming the file and what is
// missing, malformed, too large or linked out of the tree.
InvocationData readStepRecords(const std::filesystem::path& runDir, const std::filesystem::path& canonicalRoot,
                               const ReadBounds& bounds, const RunConfig* config = nullptr);

// What the report plots of a run's step records (StepDigest): each rank's AU per epoch, and for the
// first maxPlottedRanks ranks load time and AU per step, each series binned to at most maxPoints points.
StepDigest digestStepRecords(const InvocationData& records, std::size_t maxPoints = 600, std::size_t maxPlottedRanks = 8);

// Replaces runs of consecutive points by their mean (keys too) so that the series has at most maxPoints
// points; *binOut gets the larger of itself and the run length used. For plots of long series.
void binSeries(std::vector<double>& keys, std::vector<double>& values, std::size_t maxPoints, std::size_t* binOut);

} // namespace trainio::aggregate
