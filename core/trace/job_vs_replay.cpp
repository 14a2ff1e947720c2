#include "trace/job_vs_replay.h"

#include "config/config_loader.h"
#include "store/run_files.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace trainio::trace {

namespace {

const std::string* resolvedValue(const aggregate::InvocationRecord& r, const std::string& key) {
    for (const auto& [k, v] : r.resolved)
        if (k == key) return &v;
    return nullptr;
}

// The keys a trace decides (derive_workload.cpp), in every DLIO generation's spelling; the two times with
// their distributions' members (train.computation_time.mean, reader.preprocess_time.stdev, …), and the
// loop's batch hand-over.
bool traceDecided(const std::string& key) {
    static const std::set<std::string> keys = {
        "dataset.format", "dataset.num_files_train", "dataset.num_samples_per_file", "dataset.record_length",
        "dataset.record_length_bytes", "dataset.record_length_stdev", "dataset.record_length_bytes_stdev",
        "reader.batch_size", "reader.read_threads", "reader.transfer_size", "reader.file_shuffle",
        "reader.sample_shuffle", "reader.preprocess_time", "reader.preprocess_time_stdev", "train.computation_time",
        "train.computation_time_stdev", "trainio.io_engine", "trainio.handover_time",
        "trainio.preprocess_cpu_time", "trainio.whole_batches"};
    if (keys.count(key)) return true;
    for (const char* d : {"reader.preprocess_time.", "train.computation_time.", "trainio.handover_time.",
                          "trainio.preprocess_cpu_time."})
        if (key.rfind(d, 0) == 0) return true;
    return false;
}

std::map<std::string, std::string> parseFingerprint(const std::string& f) {
    std::map<std::string, std::string> out;
    std::size_t at = 0;
    while (at < f.size()) {
        std::size_t end = f.find(';', at);
        if (end == std::string::npos) end = f.size();
        const std::string part = f.substr(at, end - at);
        if (const auto eq = part.find('='); eq != std::string::npos) out[part.substr(0, eq)] = part.substr(eq + 1);
        at = end + 1;
    }
    return out;
}

} // namespace

std::string derivedFingerprint(const std::vector<std::pair<std::string, std::string>>& resolved, std::int64_t accelerators) {
    std::map<std::string, std::string> keys;
    for (const auto& [k, v] : resolved)
        if (traceDecided(k)) keys[k] = v;
    keys["accelerators"] = std::to_string(accelerators);
    std::string out;
    for (const auto& [k, v] : keys) out += (out.empty() ? "" : ";") + k + "=" + v;
    return out;
}

std::string derivedFingerprint(const WorkloadConfig& c, std::int64_t accelerators) {
    return derivedFingerprint(flattenConfigYaml(toYaml(c), "the derived workload"), accelerators);
}

std::vector<std::string> replayEdits(const std::string& recorded, const std::string& now) {
    std::vector<std::string> out;
    if (recorded.empty()) return out;
    const auto a = parseFingerprint(recorded), b = parseFingerprint(now);
    std::map<std::string, std::pair<std::string, std::string>> all;
    for (const auto& [k, v] : a) all[k].first = v;
    for (const auto& [k, v] : b) all[k].second = v;
    for (const auto& [k, v] : all) {
        if (v.first == v.second) continue;
        // Numbers written differently ("0.5" and "0.50") are the same value.
        const auto x = store::parseFiniteNumber(v.first), y = store::parseFiniteNumber(v.second);
        if (x && y && *x == *y) continue;
        out.push_back(k + ": " + (v.first.empty() ? "(unset)" : v.first) + " \u2192 " + (v.second.empty() ? "(unset)" : v.second));
    }
    return out;
}

std::string editsText(const JobVersusReplay& j) {
    std::string out;
    for (const auto& e : j.edits) out += (out.empty() ? "" : ", ") + e;
    return out;
}

std::string jobVersusReplayText(const JobVersusReplay& j) {
    char buf[512];
    std::string out = "                 real job     replay   difference\n";
    if (!j.stepsFromMarks || std::isnan(j.jobAuPercent)) {
        std::snprintf(buf, sizeof buf, "AU %%           %10s %10.2f   (the job has no step marks)\nsamples/s      %10s %10.1f\n",
                      "unknown", j.replayAuPercent, "unknown", j.replaySamplesPerSecond);
        return out + buf;
    }
    if (!j.edits.empty()) {
        std::snprintf(buf, sizeof buf, "AU %%           %10.2f %10.2f\nsamples/s      %10.1f %10.1f\n", j.jobAuPercent,
                      j.replayAuPercent, j.jobSamplesPerSecond, j.replaySamplesPerSecond);
        return out + buf + "no difference: the replay was edited since it was derived (" + editsText(j) +
               "), so it is another workload than the job\n";
    }
    std::snprintf(buf, sizeof buf, "AU %%           %10.2f %10.2f   %+.2f points\nsamples/s      %10.1f %10.1f   %+.1f %%\n",
                  j.jobAuPercent, j.replayAuPercent, j.auDifferencePoints(), j.jobSamplesPerSecond, j.replaySamplesPerSecond,
                  j.samplesDifferencePercent());
    return out + buf;
}

std::optional<JobVersusReplay> capturedJobOf(const CapturedJobSection& c, const std::string& current) {
    if (c.trace.empty()) return std::nullopt;
    JobVersusReplay j;
    j.trace = c.trace;
    j.edits = replayEdits(c.derived, current);
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
    if (const std::string* derived = resolvedValue(r, "trainio.captured_job.derived"))
        j.edits = replayEdits(*derived, derivedFingerprint(r.resolved, std::max<std::int64_t>(1, r.accelerators)));
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
        // Runs of one trace, edited alike (a benchmark's runs share their configuration).
        if (!j || (out && (j->trace != out->trace || j->edits != out->edits))) continue;
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
