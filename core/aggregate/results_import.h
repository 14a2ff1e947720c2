// Discovery and import of result folders: any tree, any of the layouts published MLPerf Storage v1.0
// submissions use, and TrainIO's own benchmark folders (runs/ + warmup/). A summary that cannot be
// read is listed in ImportResult::skipped with its path and the reason, and the rest still imports.
// The importer walks and groups (a run folder's record is invocation_assembly.h's); every file is read by core/store (run_files.h, labels.h,
// benchmark_manifest.h, sweep_file.h, journal.h) under the store's bound and link rule (run_folder.h).
#pragma once

#include "store/invocation_record.h"
#include "store/written_files.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace trainio::aggregate {

// Finds every summary.json below the roots (a root may also be a summary.json itself), reads them,
// merges host folders into their run, groups runs by workload identity within the folder that holds
// the run folders, and attaches warm-up runs to their benchmark. Never throws for a bad file; a root
// that does not exist is listed in skipped. Every run folder's record is made by invocation_assembly.h
// assembleInvocation; the files are read through `files` (the disk, or a store::WrittenFiles that holds
// some of them: then only the others are read).
ImportResult importResults(const std::vector<std::filesystem::path>& roots, const ImportOptions& options = {},
                           const store::FileSource& files = store::diskFiles());

// The records of the run folders below `root` that `written` holds (what this process wrote: a session's
// invocations, store/written_files.h), made, placed and grouped as importResults({root}) makes them — the
// same records, the same groups, the same numbers — from the files held, without reading them back. Only
// files this process did not write (labels above its folders, a systems file) are read. What else the
// tree holds (other runs, sweeps, collocations) is not looked for.
ImportResult importWritten(const std::filesystem::path& root, const store::WrittenFiles& written,
                           const ImportOptions& options = {});

// Adds `added` (importWritten's records of run folders below one of the library's roots, made with that
// root) to `library` (an import of its roots), as importing the roots again would give them — the runs in
// path order, the groups sorted, a run folder imported before replaced — without reading anything. False,
// with `library` unchanged, when that cannot be done exactly: an added group shares its folder with a group
// of the library (runs of one folder grouped by identity, which the roots' import must regroup), or only
// part of a library group is replaced.
bool addImported(ImportResult& library, ImportResult added);

// True for folder names a run gets: run1, run-1, run_1, Run 1, and timestamps (2024-08-29-09-29-27,
// 20240829_092927, 2024-08-29T09:29:27…).
bool looksLikeRunFolder(const std::string& name);

// <system>/training/<model>/run: the folder of an MLPerf Storage v3.0 training benchmark, which holds
// the warm-up beside the measured runs (docs/aggregation.md, "MLPerf Storage v3.0").
bool isMlperfV3TrainingFolder(const std::filesystem::path& dir);

// The name MLPerf Storage v3.0 gives a checkpointing model (mlpstorage_py/config.py LLM_MODELS, the
// <system>/checkpointing/<model>/ folders): llama3-8b … llama3-1t for the spellings DLIO's configs
// (model.name: llama_8b), overrides (workload=llama3_8b) and TrainIO's workload label (llama-8b) use;
// any other name unchanged.
std::string mlperfCheckpointModel(const std::string& name);

// Orders run1 < run2 < run10.
bool naturalLess(const std::string& a, const std::string& b);

} // namespace trainio::aggregate
