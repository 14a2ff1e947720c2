// The run journal (docs/reliability.md, "Nothing lost"): what a run measures is appended to
// <invocation>/trainio_journal.jsonl as it is measured, so that a run that dies at any instant — SIGKILL
// of the process, of mpirun or of any rank under Open MPI's default teardown, the OOM killer, a CI
// timeout, power loss — still leaves every epoch it completed.
//
// Format (JSON lines, docs/formats.md): a header line {"trainio_journal": 1, …} with what the result
// files need that the configuration does not say (accelerators, processes, semantics, start, host,
// command line), then one line per (rank, completed epoch) with that epoch's blocks and per-step load,
// compute and proc lists — the same numbers <rank>_output.json holds. A checkpoint-only run journals one
// line per (rank, finished checkpoint) instead: {"ckpt": "write"|"read", "rank", "index", "block", …}, the
// record <rank>_per_epoch_stats.json's save_ckpt<N>/load_ckpt<N> and trainio_checkpoint.json hold. Lines are written by a writer
// thread (never in an accelerator's measured window), and made durable with fdatasync at each epoch end.
// A torn last line (power lost mid-write) is ignored when read back.
//
// Read back: a folder with a journal and no summary.json is an *interrupted* run. completeInterrupted
// writes its DLIO files from the journal and configs/config.yaml (written before the run starts), with
// trainio_run.json "status": "interrupted" — so the importer, `trainio-cli metrics` and DLIO's own tools
// read it as any other folder: shown, and excluded from statistics with its reason. A run that ends
// normally writes its folder and then removes the journal.
#pragma once

#include "checkpoint/checkpoint_io.h"
#include "engine/training_engine.h"
#include "store/run_folder.h"
#include "metrics/step_records.h"
#include "util/host_info.h"

#include <nlohmann/json.hpp>

#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace trainio::store {


struct JournalHeader {
    std::uint64_t accelerators = 1; // every rank of the job
    std::uint64_t processes = 1;
    MetricSemantics semantics = MetricSemantics::DlioV2;
    double start = 0; // Unix seconds
    HostInfo host;
    std::string commandLine;
};

class RunJournal {
public:
    // Creates (truncates) <dir>/trainio_journal.jsonl with its header line, durable before it returns.
    // Throws RunError naming the file.
    RunJournal(const std::filesystem::path& dir, const JournalHeader& header);
    ~RunJournal(); // finish()
    RunJournal(const RunJournal&) = delete;
    RunJournal& operator=(const RunJournal&) = delete;

    // A rank's completed epoch, from any thread (outside the measured window: after the epoch's end).
    void epoch(std::uint64_t rank, const EpochRecord& e);
    // A rank's finished checkpoint (checkpoint-only mode; process 0 journals every rank's as it gets it).
    // Made durable at once: checkpoints are few and each is seconds to minutes of work.
    void checkpoint(const checkpoint::CheckpointRecord& r);
    // Writes what is queued, syncs, stops the writer. A write error is kept (error()), never thrown: the
    // run goes on and its folder is still written at the end.
    void finish();
    std::string error() const;
    const std::filesystem::path& path() const { return path_; }

private:
    void loop();

    std::filesystem::path path_;
    int fd_ = -1;
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    std::vector<std::pair<std::uint64_t, EpochRecord>> pending_; // (rank, epoch) not yet written
    std::vector<checkpoint::CheckpointRecord> pendingCheckpoints_;
    bool stop_ = false, finished_ = false;
    std::string error_;
    std::thread thread_;
};

struct JournalContents {
    JournalHeader header;
    std::vector<RankRecord> ranks; // ranks[g]: every epoch the journal holds for rank g, in epoch order
    std::vector<checkpoint::CheckpointRecord> checkpoints; // checkpoint-only mode: every record, in journal order
    bool tornTail = false;         // the last line was cut (ignored)
};

// Reads <dir>/trainio_journal.jsonl within a size bound and never through a symbolic link. Throws
// InputError naming the file and what is wrong (a bad header, a line that is not an epoch record).
JournalContents readJournal(const std::filesystem::path& dir, std::uintmax_t maxBytes = 1ull << 30);

// True while a live run holds the journal of `dir` (an advisory lock the kernel drops however the
// process ends, SIGKILL included).
bool isRunning(const std::filesystem::path& dir);
// True when `dir` holds a journal, no summary.json, and no live run holds it: the run died before its end.
bool isInterrupted(const std::filesystem::path& dir);

// Writes the DLIO files of an interrupted run (see above). A checkpoint-only run keeps every checkpoint
// record its journal holds (each rank's save_ckpt/load_ckpt, the summary's metrics from rank 0's). The epochs that every rank completed count;
// trainio_run.json says "interrupted", how many epochs of how many were measured and that the process
// died. Throws InputError (no config, unreadable journal) or RunError (cannot write).
RunOutcome completeInterrupted(const std::filesystem::path& dir);

} // namespace trainio::store
