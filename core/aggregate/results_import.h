// Discovery and import of result folders: any tree, any of the layouts published MLPerf Storage v1.0
// submissions use, and TrainIO's own benchmark folders (runs/ + warmup/). A summary that cannot be
// read is listed in ImportResult::skipped with its path and the reason, and the rest still imports.
#pragma once

#include "aggregate/invocation_record.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace trainio::aggregate {

// Finds every summary.json below the roots (a root may also be a summary.json itself), reads them,
// merges host folders into their run, groups runs by workload identity within the folder that holds
// the run folders, and attaches warm-up runs to their benchmark. Never throws for a bad file; a root
// that does not exist is listed in skipped.
ImportResult importResults(const std::vector<std::filesystem::path>& roots, const ImportOptions& options = {});

// Reads a file of at most maxBytes. Returns the text, or nullopt with the reason in `why`.
std::optional<std::string> readBoundedFile(const std::filesystem::path& file, std::uintmax_t maxBytes,
                                           std::string& why);

// Parses JSON after checking that arrays/objects nest at most maxDepth deep (nlohmann's DOM is built
// and destroyed recursively; a file of 10^5 '[' must be refused before it gets there). Returns
// nullopt with the reason in `why` for bad JSON.
std::optional<nlohmann::json> parseBoundedJson(const std::string& text, int maxDepth, std::string& why);

// The few keys of a Hydra-written YAML (config.yaml) or override list (overrides.yaml) the importer
// needs, flattened to dotted keys without the leading "workload." ("dataset.record_length" → "146600628").
// Block-style mappings only, which is what Hydra writes; anything else is ignored, never fatal.
std::vector<std::pair<std::string, std::string>> readFlatYaml(const std::string& text);
std::vector<std::pair<std::string, std::string>> readOverrides(const std::string& text);

// True for folder names a run gets: run1, run-1, run_1, Run 1, and timestamps (2024-08-29-09-29-27,
// 20240829_092927, 2024-08-29T09:29:27…).
bool looksLikeRunFolder(const std::string& name);

// Where a run folder keeps its configuration: the sub-folders DLIO and its forks write, in the order
// they are searched — configs/ (DLIO, TrainIO), .hydra/ (DLIO run by hand), dlio_config/ (MLPerf
// Storage v3.0). The one list the importer and `metrics` (readInvocationFolder) both use.
const std::vector<std::string>& runConfigFolders();
// DIR/<folder>/<file> for the first of runConfigFolders() that has it (file: "config.yaml" or
// "overrides.yaml"); nullopt when none does.
std::optional<std::filesystem::path> findRunConfigFile(const std::filesystem::path& dir, const std::string& file);

// <system>/training/<model>/run: the folder of an MLPerf Storage v3.0 training benchmark, which holds
// the warm-up beside the measured runs (docs/aggregation.md, "MLPerf Storage v3.0").
bool isMlperfV3TrainingFolder(const std::filesystem::path& dir);

// The name MLPerf Storage v3.0 gives a checkpointing model (mlpstorage_py/config.py LLM_MODELS, the
// <system>/checkpointing/<model>/ folders): llama3-8b … llama3-1t for the spellings DLIO's configs
// (model.name: llama_8b), overrides (workload=llama3_8b) and TrainIO's workload label (llama-8b) use;
// any other name unchanged.
std::string mlperfCheckpointModel(const std::string& name);

// The whole text as a finite number ("146600628", "0.323", "1e3"), else nullopt (no partial parse).
std::optional<double> parseFiniteNumber(const std::string& s);

// Orders run1 < run2 < run10.
bool naturalLess(const std::string& a, const std::string& b);

} // namespace trainio::aggregate
