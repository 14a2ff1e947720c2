// The run folder's one home (docs/formats.md, "The run folder"): every file name a run folder (an
// invocation: TrainIO's, DLIO's, MLPerf Storage's) and a results folder (a benchmark, a sweep, an MLPerf
// submission tree) holds, and the rules every read and every write of them follows:
//
//   - one size bound (ReadBounds): a file larger than its bound is refused with an InputError naming the
//     file, its size and the bound;
//   - one rule for symbolic links (safeToRead): a file is read only when its path, every link in every
//     component resolved, stays inside the tree being read — the imported root, or for a reader given one
//     folder (`trainio-cli metrics DIR`, `label DIR`, the sweep view) that folder. A link that leaves it,
//     a link loop or a dangling link is refused with an InputError naming the file;
//   - atomic writes (writeFileAtomic): a temporary file in the same folder, written through the IoBackend,
//     fsynced, renamed over the name, the folder fsynced: a crash or a full disk never leaves a partial
//     file under a result name.
//
// The readers and writers of each file sit beside them in core/store/ (run_files.h: summary.json, configs,
// per-step records, trainio_run.json, trainio_io.json, trainio_model.json, telemetry.json, mlpstorage's
// metadata, systems/<name>.json|yaml, mlperf_storage_report.json; labels.h; benchmark_manifest.h;
// sweep_file.h; journal.h). Nothing else in TrainIO opens a run folder's file by name.
//
// Every reader takes its files from a FileSource: the disk, or (written_files.h) what this process has
// just written, held in memory — what a run wrote is never read back (docs/aggregation.md, "Nothing read
// back"). A ReadLog lists every file the store opens, which is how the tests count it.
#pragma once

#include "io/io_backend.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace trainio::store {

class WrittenFiles; // written_files.h

// ---- An invocation folder (one DLIO call; SPEC §6) ----
inline constexpr const char* kSummaryFile = "summary.json";            // DLIO's (a host folder may hold one too)
inline constexpr const char* kLegacyEpochStatsFile = "per_epoch_stats.json"; // DLIO before 2.0, rank 0
inline constexpr const char* kConfigFile = "config.yaml";              // in one of configFolders()
inline constexpr const char* kOverridesFile = "overrides.yaml";        // in one of configFolders()
inline constexpr const char* kRunRecordFile = "trainio_run.json";      // TrainIO: status, error, semantics, seeds
inline constexpr const char* kLogFile = "trainio.log";                 // TrainIO's log (DLIO's layout)
inline constexpr const char* kIoFile = "trainio_io.json";              // engine, cache, loader, emulated storage
inline constexpr const char* kModelFile = "trainio_model.json";        // the model's prediction before the run
inline constexpr const char* kCheckpointFile = "trainio_checkpoint.json"; // checkpoint plan and records
inline constexpr const char* kTelemetryJsonFile = "telemetry.json";    // docs/telemetry.md
inline constexpr const char* kTelemetryCsvFile = "telemetry.csv";
inline constexpr const char* kJournalFile = "trainio_journal.jsonl";   // the crash journal (journal.h)
inline constexpr const char* kMetadataSuffix = "_metadata.json";       // mlpstorage: <kind>_<timestamp>_metadata.json
// ---- A results folder (a benchmark, a sweep, a submission) ----
inline constexpr const char* kLabelsFile = "trainio_labels.json";      // labels.h; any folder
inline constexpr const char* kBenchmarkManifestFile = "trainio_benchmark.json"; // benchmark_manifest.h
inline constexpr const char* kAggregateFile = "aggregate.json";        // a benchmark's aggregate
inline constexpr const char* kMlperfReportFile = "mlperf_storage_report.json"; // beside the runs (or in runs/)
inline constexpr const char* kSweepFile = "sweep.json";                // sweep_file.h
inline constexpr const char* kCollocationFile = "trainio_collocation.json"; // session/collocation.h (docs/collocation.md)
inline constexpr const char* kAloneFolder = "alone";                   // a collocation's workloads alone (--alone)
inline constexpr const char* kSystemsFolder = "systems";               // <org>/systems/<system>.json|yaml

// <rank>_output.json and <rank>_per_epoch_stats.json: DLIO's per-step records of one rank.
std::string rankOutputFile(std::uint64_t rank);
std::string rankEpochStatsFile(std::uint64_t rank);
// Where a run folder keeps its configuration, in the order searched: configs/ (DLIO, TrainIO), .hydra/
// (DLIO run by hand), dlio_config/ (MLPerf Storage v3.0).
const std::vector<std::string>& configFolders();
// DIR/<folder>/<file> for the first of configFolders() that has it; nullopt when none does.
std::optional<std::filesystem::path> findConfigFile(const std::filesystem::path& dir, const std::string& file);
// True for mlpstorage's <kind>_<timestamp>_metadata.json.
bool isMetadataFile(const std::string& name);

// ---- The bound ----
struct ReadBounds {
    std::uintmax_t maxFileBytes = 64ull << 20;      // every file but the per-step records
    std::uintmax_t maxStepFileBytes = 256ull << 20; // <rank>_output.json, *_per_epoch_stats.json: tens of MiB for long runs
    int maxJsonDepth = 64;                          // <rank>_output.json nests 5 levels, summary.json 3
};

// ---- The link rule ----
// True when `file` resolves (through links in any component) to a path inside `canonicalRoot`; else
// false with `why`: "symbolic link pointing outside the imported tree (ROOT); not followed", "symbolic
// link loop; not followed" or "dangling symbolic link".
bool safeToRead(const std::filesystem::path& file, const std::filesystem::path& canonicalRoot, std::string& why);
// The tree a one-folder reader reads: `dir` with links resolved (itself when that fails).
std::filesystem::path treeOf(const std::filesystem::path& dir);

// ---- Reading ----
// A file of at most maxBytes. The text, or nullopt with the reason in `why` ("file is N bytes, larger
// than the M MiB read limit", "cannot open: …", "not a regular file").
std::optional<std::string> readBoundedFile(const std::filesystem::path& file, std::uintmax_t maxBytes, std::string& why);
// JSON whose arrays/objects nest at most maxDepth deep (nlohmann's DOM is built and destroyed
// recursively: a file of 10^5 '[' is refused before). nullopt with the reason in `why` otherwise.
std::optional<nlohmann::json> parseBoundedJson(const std::string& text, int maxDepth, std::string& why);
// A file of the tree under the link rule and the bound: its text, or nullopt with the reason in `why`.
std::optional<std::string> readFolderText(const std::filesystem::path& file, const std::filesystem::path& canonicalRoot,
                                          std::uintmax_t maxBytes, std::string& why);
// The same, JSON within the depth bound.
std::optional<nlohmann::json> readFolderJson(const std::filesystem::path& file, const std::filesystem::path& canonicalRoot,
                                             std::uintmax_t maxBytes, int maxDepth, std::string& why);
// The throwing forms: InputError "<file>: <why>".
std::string readFolderTextOrThrow(const std::filesystem::path& file, const std::filesystem::path& canonicalRoot,
                                  std::uintmax_t maxBytes);
nlohmann::json readFolderJsonOrThrow(const std::filesystem::path& file, const std::filesystem::path& canonicalRoot,
                                     std::uintmax_t maxBytes, int maxDepth);
// True when `bytes` fits the bound, else false with `why` as readBoundedFile words it.
bool withinBound(std::uintmax_t bytes, std::uintmax_t maxBytes, std::string& why);

// ---- Where a reader takes a file from ----
// A reader asks its FileSource for a file's text; the source applies the link rule and the bound. The
// disk (diskFiles) reads it; WrittenFiles (written_files.h) answers from what this process wrote.
class FileSource {
public:
    virtual ~FileSource() = default;
    // The text of `file`, a file of the tree `canonicalRoot`, of at most maxBytes; nullopt with the reason
    // in `why` (as readFolderText words it).
    virtual std::optional<std::string> text(const std::filesystem::path& file, const std::filesystem::path& canonicalRoot,
                                            std::uintmax_t maxBytes, std::string& why) const = 0;
    // The same, JSON within maxDepth (readFolderJson).
    std::optional<nlohmann::json> json(const std::filesystem::path& file, const std::filesystem::path& canonicalRoot,
                                       std::uintmax_t maxBytes, int maxDepth, std::string& why) const;
    // The throwing forms: InputError "<file>: <why>".
    std::string textOrThrow(const std::filesystem::path& file, const std::filesystem::path& canonicalRoot,
                            std::uintmax_t maxBytes) const;
    nlohmann::json jsonOrThrow(const std::filesystem::path& file, const std::filesystem::path& canonicalRoot,
                               std::uintmax_t maxBytes, int maxDepth) const;
};
// The disk: readFolderText under the link rule and the bound.
const FileSource& diskFiles();

// ---- Counting reads ----
// While a ReadLog lives, every file the store opens for reading (readBoundedFile, which every reader of a
// run or results folder and the journal's go through), from any thread, is listed in it: what the tests
// count to show that a run reads back nothing it wrote.
class ReadLog {
public:
    ReadLog();
    ~ReadLog();
    ReadLog(const ReadLog&) = delete;
    ReadLog& operator=(const ReadLog&) = delete;
    // Every file opened, in order (as spelt by the reader).
    std::vector<std::filesystem::path> files() const;
    // Those whose path, symlinks resolved, is inside `dir`.
    std::vector<std::filesystem::path> filesIn(const std::filesystem::path& dir) const;

private:
    friend void noteRead(const std::filesystem::path& file);
    mutable std::mutex mutex_;
    std::vector<std::filesystem::path> files_;
};

// ---- Writing ----
// Writes `content` to a temporary name in the same folder (through `io`, POSIX when null), fsyncs it,
// renames it over `path` and fsyncs the folder. On any failure the temporary file is removed, `path`
// keeps what it held before, and RunError names the path and the failed operation ("write
// …/summary.json: No space left on device"). Once written, `record` (when given) holds it too.
void writeFileAtomic(const std::filesystem::path& path, const std::string& content, IoBackend* io = nullptr,
                     WrittenFiles* record = nullptr);

// writeFileAtomic's temporary name for `path`: ".<name>.tmp-<pid>" in the same folder.
std::filesystem::path atomicTemporary(const std::filesystem::path& path, long pid);
// Whether a file name is such a temporary (".<name>.tmp-<digits>").
bool isAtomicTemporary(const std::string& fileName);
// Removes the temporaries writeFileAtomic left in `dir` and its configs folders when its process was killed
// between creating and renaming one (SIGKILL of process 0 under mpirun's teardown, the OOM killer): only
// regular files (never a link) of that name pattern. Call it only when no live process writes `dir` (the
// journal's lock is free: journal.h isInterrupted). Returns the files removed.
std::vector<std::filesystem::path> removeStaleTemporaries(const std::filesystem::path& dir);

} // namespace trainio::store
