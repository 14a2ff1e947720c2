// Generating, verifying and cleaning a DLIO-layout dataset (SPEC §3, Appendix A).
//
// Generation writes every train (and valid) file with parallel writer threads. Each file goes to a
// temporary ".<name>.tmp-<pid>" in its final folder and is renamed when complete, so a file under
// its final name is always whole. A final name that exists with the expected size (computable from
// the reproducible record shape) is skipped: generation is resumable. The folder is marked with
// <data_folder>/.trainio-dataset.json (written first, atomically): TrainIO's version and the
// generation parameters, from which clean and verify recompute every name TrainIO writes.
#pragma once

#include "config/workload_config.h"
#include "dataset/dataset_layout.h"
#include "io/io_backend.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace trainio {

inline constexpr const char* kDatasetMarkerName = ".trainio-dataset.json";

struct GenerationProgress {
    std::uint64_t filesDone = 0; // written + skipped
    std::uint64_t filesTotal = 0;
    std::uint64_t filesSkipped = 0;
    std::uint64_t bytesDone = 0; // payload bytes written (skipped files count in full)
    std::uint64_t bytesTotal = 0;
    double seconds = 0;
};

struct GenerateOptions {
    unsigned threads = 0; // 0 = hardware concurrency
    // Called from worker threads, at most ~10 times a second plus once at the end; must be thread-safe.
    std::function<void(const GenerationProgress&)> onProgress;
    const std::atomic<bool>* cancel = nullptr;
    std::shared_ptr<IoBackend> io; // null = POSIX
    // Several processes generating one dataset (mpirun, docs/mpi.md): this one writes the files whose
    // index within their split is ≡ shardIndex (mod shardCount), as DLIO's ranks do. With shardCount > 1
    // the folder must have been prepared first (prepareDataset, by one process) and is not swept here.
    std::uint64_t shardIndex = 0, shardCount = 1;
};

struct GenerationResult {
    std::uint64_t filesWritten = 0;
    std::uint64_t filesSkipped = 0;
    std::uint64_t bytesWritten = 0; // bytes of the files written (framing included)
    double seconds = 0;
    bool cancelled = false;
};

// Throws InputError (a foreign non-empty folder, a marker with other parameters, an unsupported
// format or element type) or RunError (I/O: names the path and the operation).
GenerationResult generateDataset(const WorkloadConfig& cfg, const GenerateOptions& opts);
// What generateDataset does before it writes files: the marker, the folders, and the sweep of
// temporaries an interrupted run left. For sharded generation, run once (by process 0) before any shard.
void prepareDataset(const WorkloadConfig& cfg, const std::shared_ptr<IoBackend>& io = nullptr);

struct CleanResult {
    std::uint64_t filesRemoved = 0;
    std::uint64_t dirsRemoved = 0;
    // Dataset files still present afterwards (not regular files, or below a symlinked folder): the
    // clean did not do what it was asked, and the caller must say so.
    std::uint64_t filesRemaining = 0;
    std::string firstRemaining;
};

// Removes what generateDataset wrote into cfg.dataset.dataFolder, using the parameters recorded in
// the marker (not cfg's, which may have changed since): data files, index files, TrainIO temporaries,
// then the marker and the directories that are left empty. Any other file stays (and so does its
// folder). Symbolic links are never followed: a symlinked component is left alone with all below it.
// Throws InputError naming the path when the folder has no marker (or is itself a symlink).
// shardCount > 1 (mpirun, one call per process): only the data and index files whose index within their
// split is ≡ shardIndex (mod shardCount), as generation splits them; no marker, temporary or folder is
// touched and filesRemaining stays 0 — one unsharded call after all shares finishes the clean.
CleanResult cleanDataset(const WorkloadConfig& cfg, std::uint64_t shardIndex = 0, std::uint64_t shardCount = 1);

struct VerifyResult {
    std::uint64_t filesOk = 0;
    std::uint64_t filesMissing = 0;
    std::uint64_t filesBad = 0;
    std::vector<std::string> problems; // one line per missing or bad file
};

// Checks every file of cfg's dataset: present, of the expected size, and its framing parses with the
// sample reader (every sample of every file is read).
// shardIndex/shardCount: only the files whose index ≡ shardIndex (mod shardCount), as generation splits them.
VerifyResult verifyDataset(const WorkloadConfig& cfg, const std::atomic<bool>* cancel = nullptr, std::uint64_t shardIndex = 0,
                           std::uint64_t shardCount = 1);

// One generation parameter on which a configuration and the dataset's marker differ.
struct DatasetParameterMismatch {
    std::string key;        // the configuration key (dataset.record_length_bytes_stdev, train.seed, …)
    std::string configured; // the configuration's value
    std::string generated;  // the value the marker records the files were generated with
};

enum class MarkerUse {
    Generate, // writing into the folder: every parameter, the seed included (it seeds the payload too)
    Read,     // measuring the folder: the parameters that shape the files' names and sizes (the seed only
              // when the sizes were drawn with it, record_length_stdev > 0)
};

// cfg against the marker of its data folder, every generation parameter compared exactly (one list, used
// by generation and by pre-flight). nullopt when the folder has no marker (a dataset TrainIO did not
// write); an empty list when the marker matches. Throws InputError naming the marker when it is unreadable.
std::optional<std::vector<DatasetParameterMismatch>> datasetMarkerMismatches(const WorkloadConfig& cfg, MarkerUse use);

// The expected size in bytes of file i of the split, as generateDataset writes it.
std::uint64_t expectedDatasetFileSize(const WorkloadConfig& cfg, Split split, std::uint64_t i);

} // namespace trainio
