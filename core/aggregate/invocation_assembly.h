// One invocation's record from its folder's files: the host summaries merged (AU averaged, throughput
// added up), the configuration (workload, threshold, resolved keys), mlpstorage's metadata, the status,
// where the bytes came from, the model's prediction, telemetry, the labels and the workload identity.
// The importer (results_import.h importResults) makes one for each run folder its walk finds; importWritten
// for each one this process wrote, from the files it holds (store/written_files.h) — one assembly, so that a
// record made in memory is the record an import of the folder makes.
#pragma once

#include "store/invocation_record.h"
#include "store/run_files.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace trainio::aggregate {

// A run folder and its summaries, in the tree it was found in.
struct RunFolder {
    std::filesystem::path runDir;
    std::vector<store::HostSummary> hosts; // one, or one per host folder
    std::filesystem::path canonicalRoot;   // the imported tree: the link rule
    std::filesystem::path root;            // the imported root as given: labels are looked up to it
};

struct AssembledRun {
    InvocationRecord record;
    store::RunConfig config;     // the run's configuration (its step records are read with it)
    bool trainioRun = false;     // the folder has a trainio_run.json (TrainIO wrote it)
    bool oneHostFolder = true;   // its summary.json is in the run folder itself
};

// The record of `run`, every file read through `files` under the bounds of `options`. nullopt when its
// host summaries disagree (on files, samples per file or epochs): each is then listed in `skipped`.
std::optional<AssembledRun> assembleInvocation(RunFolder run, const store::FileSource& files, const ImportOptions& options,
                                               std::vector<SkippedFile>& skipped);

// The store's bounds as the import options set them.
store::ReadBounds boundsOf(const ImportOptions& options);

} // namespace trainio::aggregate
