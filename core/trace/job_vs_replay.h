// "Real job vs replay" (issue 24, docs/capture.md): a captured job's own AU and samples/s, from its step
// marks, beside what a replay of the workload derived from its trace measured. One comparison for every
// place that shows it: `trainio-cli workload --replay`, the headline of `trainio-cli run`, the results
// library's details and the PDF report.
//
// A replay's result folder records the job in its resolved configuration (configs/config.yaml,
// trainio.captured_job: trace, steps, au_percent, samples_per_second), so the importer's resolved keys are
// all that is read.
#pragma once

#include "store/invocation_record.h"
#include "config/workload_config.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace trainio::trace {

struct JobVersusReplay {
    std::string trace;           // the trace folder the workload was derived from
    bool stepsFromMarks = false; // false: the job had no trainio_capture.steps marks, so no AU of its own
    double jobAuPercent = std::numeric_limits<double>::quiet_NaN();
    double jobSamplesPerSecond = std::numeric_limits<double>::quiet_NaN();
    double replayAuPercent = std::numeric_limits<double>::quiet_NaN();        // mean over the replay's runs
    double replaySamplesPerSecond = std::numeric_limits<double>::quiet_NaN();
    std::size_t replayRuns = 1;
    // The trace-decided keys the replay changed since it was derived ("reader.batch_size: 4 → 8"): not empty,
    // the replay is another workload than the job, and no difference is shown (an edited replay proves nothing).
    std::vector<std::string> edits;
    bool comparable() const { return stepsFromMarks && edits.empty(); }
    double auDifferencePoints() const { return replayAuPercent - jobAuPercent; }        // replay − job
    double samplesDifferencePercent() const { return 100.0 * (replaySamplesPerSecond / jobSamplesPerSecond - 1.0); }
};

// The keys a trace decides when a workload is derived from it (format, files, samples per file, record size,
// batch size, readers, transfer size, shuffle, computation and preprocess time, I/O engine) and the run's
// accelerators, of a resolved configuration (flattenConfigYaml's keys), as "key=value" joined by ';' in key
// order: recorded as trainio.captured_job.derived, compared with every replay.
std::string derivedFingerprint(const std::vector<std::pair<std::string, std::string>>& resolved, std::int64_t accelerators);
// The same of a configuration in memory (written and flattened as its run folder's config.yaml is).
std::string derivedFingerprint(const WorkloadConfig& c, std::int64_t accelerators);
// What differs between the fingerprint recorded at derivation and a replay's ("reader.batch_size: 4 → 8");
// empty when they agree or when nothing was recorded (a workload derived before the fingerprint existed).
std::vector<std::string> replayEdits(const std::string& recorded, const std::string& now);

// The edits joined for a sentence: "accelerators: 1 → 2, reader.batch_size: 4 → 8".
std::string editsText(const JobVersusReplay& j);

// The table as the CLI prints it:
//                  real job     replay   difference
//   AU %              68.35      65.44   -2.91 points
//   samples/s         157.0      150.4   -4.2 %
std::string jobVersusReplayText(const JobVersusReplay& j);

// The captured job a workload was derived from (its trainio.captured_job section), the replay's figures
// still unknown; nullopt when the workload is not a captured job's.
// `current` is the replay's fingerprint (derivedFingerprint of the configuration about to run).
std::optional<JobVersusReplay> capturedJobOf(const CapturedJobSection& c, const std::string& current);
// The captured job behind an invocation (its resolved trainio.captured_job keys) with the invocation's own
// figures as the replay's; nullopt when it is not a replay of a captured job.
std::optional<JobVersusReplay> capturedJobOf(const aggregate::InvocationRecord& r);

// The job beside the replay formed by `runs` (indices into imported.runs; a benchmark's complete runs or
// one invocation): the runs that replay the same trace as the first such run, their AU and samples/s
// averaged. nullopt when none of them replays a captured job.
std::optional<JobVersusReplay> jobVersusReplayOf(const aggregate::ImportResult& imported, const std::vector<std::size_t>& runs);

} // namespace trainio::trace
