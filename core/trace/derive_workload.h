// A DLIO workload derived from a captured job's trace (trainio-cli workload --from-trace, docs/capture.md):
// what was observed, what was assumed, and the figures behind every value.
//
// The rules, in short (docs/capture.md has them in full):
//   sample        one open-to-close session of a data file in which bytes were read (or mapped)
//   record size   the distinct bytes a session read (union of its ranges; mmap: the mapped length)
//   readers       the most reader threads (pid, tid) active at once other than the training loop's own
//                 process when it has workers; 1 when the training loop reads itself
//   epochs        step marks: the steps() calls; else worker generations (PyTorch restarts its workers
//                 every epoch); else sessions per file
//   steps, batch  step marks: batch marks per epoch, the batch's size when the module could tell it, else
//                 samples per epoch / steps; without marks, inferred from the gaps in each reader's sessions
//   compute       per step: the next request's time − the batch's arrival (the marks' gap)
//   preprocess    per sample in a reader: from its session's open to the next session's open in the same
//                 batch, less the time inside read calls (the batch's last sample is not counted), plus the
//                 batch's collation (from the readers' CPU clock and run-queue wait) spread over its samples
//   times         a gamma distribution fitted by moments when the spread exceeds 5 % of the mean (fitTime)
//   read_threads  0 when the training loop reads on its own main thread (it loads each batch when asked)
//   hand-over     per step in the loop: the batch's arrival − max(request, done in its reader) (batch_handover.h)
#pragma once

#include "config/workload_config.h"
#include "trace/job_vs_replay.h"
#include "trace/trace_reader.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace trainio::trace {

// One line of the report: a derived key, its value, and how it was obtained.
struct Figure {
    std::string key;   // "reader.batch_size", or an observation such as "job AU"
    std::string value;
    std::string basis; // the figures behind it
    bool assumed = false;
};

struct DerivedWorkload {
    WorkloadConfig config;
    // The derived values, also in config, kept here for callers that check them.
    std::string format;
    std::uint64_t files = 0;
    std::uint64_t samplesPerFile = 1;
    std::uint64_t sessions = 0; // samples read over the whole job
    double recordMean = 0, recordStdev = 0; // bytes
    std::uint64_t batchSize = 1;
    std::uint64_t readThreads = 1;   // reader threads seen (the loop's own thread when it reads itself)
    bool synchronous = false;        // the loop reads on its own main thread: replayed with read_threads 0
    std::uint64_t epochs = 1;
    std::uint64_t stepsPerEpoch = 0;
    std::uint64_t transferSize = 0;
    bool shuffled = false;
    bool mmap = false;
    bool stepsFromMarks = false;
    std::size_t notReaders = 0;    // processes that read data files only outside the loop's steps (marks only)
    std::string notReadersText;    // which, and why they are not readers (one observation line)
    double computeMean = 0, computeStdev = 0;       // s per step
    double preprocessMean = 0, preprocessStdev = 0; // s per sample, wall clock (CPU and waiting for a core)
    double preprocessCpuMean = 0;                   // s per sample on the readers' CPU clock (0: not recorded)
    double preprocessWaitMean = 0;                  // s per sample runnable but waiting for a core (0: not recorded)
    double collateMean = 0;                         // s per batch, wall clock (0: not recorded)
    double preprocessBlockedMean = 0;               // s per sample neither running nor waiting for a core
    double preprocessWorkMean = 0;                  // s per sample of CPU outside the I/O calls
    bool wholeBatches = false; // batch k built whole by worker k mod W (trainio.whole_batches)
    bool cpuBurned = false; // the CPU told from the rest: trainio.preprocess_cpu_time run on a core, the rest slept
    double handoverMean = 0, handoverStdev = 0;     // s per step in the loop: a ready batch's hand-over (0: none)
    // The job's own figures from its step marks (NaN without marks): DLIO ≥ 2 semantics, first step of
    // each epoch left out, mean over epochs.
    double jobAuPercent = 0;
    double jobSamplesPerSecond = 0;
    bool dlioNames = false; // data_folder points at the job's own files
    std::vector<std::string> dataFiles;
    std::vector<std::string> observations; // what the trace holds: the job, events, steps (marks or inferred), filter rule
    std::vector<Figure> figures;
    std::string report;  // the text report (what --report prints)
    std::string summary; // one line
};

// A measured time (per step, per sample) as the engine draws it: a constant when its spread is under 5 %
// of its mean, else a gamma distribution fitted by moments (keeps the mean and stdev, draws no negative
// time; docs/capture.md "Time distributions").
ComputeTime fitTime(double meanSeconds, double stdevSeconds);
ComputeTime fitTime(const std::vector<double>& seconds);

// Throws InputError naming the trace folder when it holds no data-file read. The config carries the trace
// and the job's figures (trainio.captured_job); when the job's files do not follow DLIO's names its
// trainio.file_list is still empty: attachFileList (or writeDerivedWorkload) writes the list.
DerivedWorkload deriveWorkload(const Trace& trace);
// "Real job vs replay": the job's AU and samples/s (from its marks) beside a replay's, with the
// differences (AU in points, samples/s in %), as text (jobVersusReplayText).
std::string jobVersusReplay(const DerivedWorkload& d, double replayAuPercent, double replaySamplesPerSecond);
// W.yaml → W.files.txt: where the file list of a workload written to `yaml` goes.
std::filesystem::path fileListPathFor(const std::filesystem::path& yaml);
// When the job's files do not follow DLIO's names: writes them as a file list at `listPath` and points
// d.config's trainio.file_list at it (absolute), so that the workload replays on them where they are.
// Returns false (and writes nothing) when they follow DLIO's names. Throws InputError when it cannot write.
bool attachFileList(DerivedWorkload& d, const std::filesystem::path& listPath);
// Writes the workload YAML (a comment header naming the trace and how to replay, then the config), and
// the file list beside it (fileListPathFor) when the config needs one and has none yet.
void writeDerivedWorkload(const DerivedWorkload& d, const std::filesystem::path& yaml);

} // namespace trainio::trace
