#include "trace/job_vs_replay.h"

#include "store/run_files.h"

#include <cmath>
#include <cstdio>

namespace trainio::trace {

namespace {

const std::string* resolvedValue(const aggregate::InvocationRecord& r, const std::string& key) {
    for (const auto& [k, v] : r.resolved)
        if (k == key) return &v;
    return nullptr;
}

} // namespace

std::string jobVersusReplayText(const JobVersusReplay& j) {
    char buf[512];
    std::string out = "                 real job     replay   difference\n";
    if (!j.stepsFromMarks || std::isnan(j.jobAuPercent)) {
        std::snprintf(buf, sizeof buf, "AU %%           %10s %10.2f   (the job has no step marks)\nsamples/s      %10s %10.1f\n",
                      "unknown", j.replayAuPercent, "unknown", j.replaySamplesPerSecond);
        return out + buf;
    }
    std::snprintf(buf, sizeof buf, "AU %%           %10.2f %10.2f   %+.2f points\nsamples/s      %10.1f %10.1f   %+.1f %%\n",
                  j.jobAuPercent, j.replayAuPercent, j.auDifferencePoints(), j.jobSamplesPerSecond, j.replaySamplesPerSecond,
                  j.samplesDifferencePercent());
    return out + buf;
}

std::optional<JobVersusReplay> capturedJobOf(const CapturedJobSection& c) {
    if (c.trace.empty()) return std::nullopt;
    JobVersusReplay j;
    j.trace = c.trace;
    j.stepsFromMarks = c.hasFigures();
    if (j.stepsFromMarks) {
        j.jobAuPercent = c.auPercent;
        j.jobSamplesPerSecond = c.samplesPerSecond;
    }
    return j;
}

std::optional<JobVersusReplay> capturedJobOf(const aggregate::InvocationRecord& r) {
    const std::string* trace = resolvedValue(r, "trainio.captured_job.trace");
    if (!trace || trace->empty()) return std::nullopt;
    JobVersusReplay j;
    j.trace = *trace;
    const std::string* steps = resolvedValue(r, "trainio.captured_job.steps");
    j.stepsFromMarks = steps && *steps == "marks";
    if (j.stepsFromMarks) {
        const std::string* au = resolvedValue(r, "trainio.captured_job.au_percent");
        const std::string* sps = resolvedValue(r, "trainio.captured_job.samples_per_second");
        if (au) j.jobAuPercent = store::parseFiniteNumber(*au).value_or(j.jobAuPercent);
        if (sps) j.jobSamplesPerSecond = store::parseFiniteNumber(*sps).value_or(j.jobSamplesPerSecond);
        j.stepsFromMarks = !std::isnan(j.jobAuPercent) && !std::isnan(j.jobSamplesPerSecond);
    }
    j.replayAuPercent = r.auMeanPercent;
    j.replaySamplesPerSecond = r.samplesPerSecond;
    return j;
}

std::optional<JobVersusReplay> jobVersusReplayOf(const aggregate::ImportResult& imported, const std::vector<std::size_t>& runs) {
    std::optional<JobVersusReplay> out;
    double au = 0, sps = 0;
    std::size_t n = 0;
    for (std::size_t i : runs) {
        if (i >= imported.runs.size()) continue;
        const auto j = capturedJobOf(imported.runs[i]);
        if (!j || (out && j->trace != out->trace)) continue;
        if (!out) out = j;
        au += j->replayAuPercent;
        sps += j->replaySamplesPerSecond;
        ++n;
    }
    if (!out) return std::nullopt;
    out->replayRuns = n;
    out->replayAuPercent = au / static_cast<double>(n);
    out->replaySamplesPerSecond = sps / static_cast<double>(n);
    return out;
}

} // namespace trainio::trace
