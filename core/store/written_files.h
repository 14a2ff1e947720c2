// What this process wrote into run and results folders, held in memory, so that what was just written is
// never read back (issue 20; docs/aggregation.md, "Nothing read back"). The writers record each file the
// importer reads as they write it (run_folder.h writeFileAtomic's `record`); the readers then take it
// from here — a FileSource — and go to the disk only for files this process did not write (labels above
// the folder, a systems file). A session hands it over (session/session.h SessionResult::written) and
// aggregate/results_import.h importWritten makes the records from it: the benchmark's aggregate.json and
// MLPerf report, a sweep trial's numbers, the GUI's library and model comparison.
//
// With readThrough it is also a read-once cache: a folder another process wrote (the GUI's mpirun job) is
// read once, and every later use of it takes the files from here.
#pragma once

#include "store/run_folder.h"

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace trainio::aggregate {
struct StepDigest; // store/invocation_record.h
}

namespace trainio::store {

class WrittenFiles final : public FileSource {
public:
    struct Options {
        // Keep <rank>_output.json and *_per_epoch_stats.json too: the per-step records the GUI's library
        // digests (ImportOptions::stepDigests). Off, the largest files of a run are not held.
        bool stepRecords = false;
        // A file asked for and not held is read from the disk (under the link rule and the bound) and then
        // held: a folder this process did not write is read once.
        bool readThrough = false;
    };
    WrittenFiles() = default;
    explicit WrittenFiles(Options options) : options_(options) {}

    // Holds `text` as the content of `file` when the importer reads files of its name: summary.json, the
    // configs, trainio_run.json, trainio_io.json, trainio_model.json, telemetry.json, mlpstorage metadata,
    // labels, the benchmark manifest, the MLPerf report (and the step records with Options::stepRecords).
    // Other files (the log, telemetry.csv, aggregate.json, the checkpoint record) are not kept. Thread-safe.
    void record(const std::filesystem::path& file, const std::string& text);
    // A folder renamed after its files were written (the MLPerf v3.0 layout's configs/ → dlio_config/).
    void renameFolder(const std::filesystem::path& from, const std::filesystem::path& to);
    // Every folder a summary.json is held for — the invocation folders —, in path order, symlinks resolved.
    std::vector<std::filesystem::path> runFolders() const;
    bool holds(const std::filesystem::path& file) const;
    std::size_t size() const;
    bool holdsStepRecords() const { return options_.stepRecords; }

    // The per-step records of `runDir` made into their digest as soon as the invocation is written
    // (aggregate/step_digest.h digestHeldStepRecords), held instead of them: a long benchmark's records are
    // not all kept in memory until the library takes them. The importer takes the digest from here.
    void holdStepDigest(const std::filesystem::path& runDir, std::shared_ptr<const aggregate::StepDigest> digest);
    std::shared_ptr<const aggregate::StepDigest> stepDigest(const std::filesystem::path& runDir) const;

    // A held file under the same link rule and bound as the disk's; with readThrough, any other from the
    // disk. Without it, a file not held is read from the disk (it was not written here).
    std::optional<std::string> text(const std::filesystem::path& file, const std::filesystem::path& canonicalRoot,
                                    std::uintmax_t maxBytes, std::string& why) const override;

private:
    // A file's name in the map: absolute, symlinks resolved (one file, however spelt).
    static std::filesystem::path key(const std::filesystem::path& file);
    bool kept(const std::filesystem::path& file) const;

    Options options_;
    mutable std::mutex mutex_;
    mutable std::map<std::filesystem::path, std::shared_ptr<const std::string>> files_;
    std::map<std::filesystem::path, std::shared_ptr<const aggregate::StepDigest>> digests_;
};

} // namespace trainio::store
