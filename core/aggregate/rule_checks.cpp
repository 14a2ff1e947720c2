// MLPerf Storage's rule checks of a benchmark (group_aggregate.h: ruleFindings, checkRules, compareWithReport):
// the checks of the result itself, the rules of a submission, and the published report against the runs.
#include "aggregate/group_aggregate.h"
#include "aggregate/results_import.h"
#include "config/config_keys.h"
#include "store/run_folder.h"
#include "util/errors.h"
#include "util/page_cache_verdict.h"
#include "util/units.h"
#include "util/text.h"
#include <algorithm>
#include <set>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <stdexcept>
#include <variant>
#include <sstream>
#include <fcntl.h>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace trainio::aggregate {

namespace {

constexpr std::size_t kRequiredRuns = 5; // MLPerf Storage v1.0 REQUIRED_BENCHMARK_RUNS
constexpr double kDatasetToMemory = 5.0; // dataset >= 5 × the clients' total memory

std::string bytesText(double bytes) {
    if (bytes >= kGiB) return fixedNumber(bytes / kGiB, 1) + " GiB";
    return fixedNumber(bytes / kMiB, 1) + " MiB";
}

// What the runs measured of the page cache (trainio_io.json; nothing for DLIO and MLPerf folders), for
// util/page_cache_verdict.h: per epoch the highest share of any run, the first run's cache control.
PageCacheEvidence cacheEvidence(const ImportResult& imp, const std::vector<std::size_t>& runs) {
    PageCacheEvidence e;
    for (std::size_t i : runs) {
        const InvocationRecord& r = imp.runs[i];
        if (e.cacheControl.empty()) e.cacheControl = r.cacheControl;
        e.emulatedDevice = e.emulatedDevice || r.storageEmulated;
        for (const auto& [k, v] : r.resolved)
            if (k == "storage.storage_type" && v == "s3") e.objectStore = true;
        auto& all = e.epochPercentFromCache;
        if (all.size() < r.epochPercentFromCache.size()) all.resize(r.epochPercentFromCache.size(), NAN);
        for (std::size_t k = 0; k < r.epochPercentFromCache.size(); ++k) {
            const double p = r.epochPercentFromCache[k];
            if (!std::isnan(p)) all[k] = std::isnan(all[k]) ? p : std::max(all[k], p);
        }
    }
    return e;
}

bool relativelyEqual(double a, double b, double tolerance) {
    if (a == b) return true;
    return std::fabs(a - b) <= tolerance * std::max(std::fabs(a), std::fabs(b));
}

} // namespace

// "2026-07-08T06:50:57.118842" (DLIO's summary start/end) as seconds since 1970 (UTC assumed: only
// differences are used); NaN when it is not such a time.
double isoSeconds(const std::string& t) {
    int y = 0, mo = 0, d = 0, h = 0, mi = 0;
    double sec = 0;
    if (std::sscanf(t.c_str(), "%d-%d-%dT%d:%d:%lf", &y, &mo, &d, &h, &mi, &sec) != 6) return NAN;
    // Days from the civil date (Howard Hinnant's algorithm).
    y -= mo <= 2;
    const int era = (y >= 0 ? y : y - 399) / 400;
    const int yoe = y - era * 400;
    const int doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    const double days = static_cast<double>(era) * 146097.0 + doe - 719468.0;
    return days * 86400.0 + h * 3600.0 + mi * 60.0 + sec;
}

// The MLPerf Storage v3.0 checkpointing rules (mlcommons/storage mlpstorage_py/rules/run_checkers/
// checkpointing.py and submission_checkers/checkpointing.py; Rules.md 4.3.4, 4.3.5, 4.7.1).
void checkCheckpointRules(const ImportResult& imp, const RunGroup& group, std::vector<std::string>& out,
                          std::vector<std::string>& note) {
    constexpr std::int64_t kRequired = 10; // REQUIRED_WRITES, REQUIRED_READS
    constexpr double kGapSeconds = 30;     // MAX_INTER_PHASE_GAP_SECONDS
    std::vector<std::size_t> runs = group.runs;
    std::sort(runs.begin(), runs.end(), [&](std::size_t a, std::size_t b) { return imp.runs[a].start < imp.runs[b].start; });
    std::int64_t writes = 0, reads = 0;
    bool countsKnown = true;
    for (std::size_t i : runs) {
        const auto& r = imp.runs[i];
        if (r.checkpointsWritten < 0 || r.checkpointsRead < 0) countsKnown = false;
        writes += std::max<std::int64_t>(r.checkpointsWritten, 0);
        reads += std::max<std::int64_t>(r.checkpointsRead, 0);
        for (const auto& n : r.notes) note.push_back("Run " + r.runName + ": " + n + ".");
    }
    if (!countsKnown) {
        note.push_back("Checkpoint counts not checked: a run's config names no checkpoint.num_checkpoints_write/read.");
    } else {
        if (writes != kRequired)
            out.push_back("The benchmark wrote " + std::to_string(writes) + " checkpoints; MLPerf Storage v3.0 requires " +
                          std::to_string(kRequired) + " (checkpoint.num_checkpoints_write, Rules.md 4.7.1).");
        if (reads != kRequired)
            out.push_back("The benchmark read " + std::to_string(reads) + " checkpoints; MLPerf Storage v3.0 requires " +
                          std::to_string(kRequired) + " (checkpoint.num_checkpoints_read, Rules.md 4.7.1).");
        if (runs.size() == 2) {
            const auto& w = imp.runs[runs[0]];
            const auto& rd = imp.runs[runs[1]];
            if (w.checkpointsWritten != kRequired || w.checkpointsRead != 0 || rd.checkpointsWritten != 0 ||
                rd.checkpointsRead != kRequired) {
                out.push_back("Two checkpointing invocations must be a write phase (10 writes, 0 reads) followed by a read "
                              "phase (0 writes, 10 reads); here " + w.runName + " has " + std::to_string(w.checkpointsWritten) +
                              "/" + std::to_string(w.checkpointsRead) + " and " + rd.runName + " " +
                              std::to_string(rd.checkpointsWritten) + "/" + std::to_string(rd.checkpointsRead) + " (Rules.md 4.7.1).");
            } else {
                const double gap = isoSeconds(rd.start) - isoSeconds(w.end);
                if (!std::isfinite(gap))
                    note.push_back("Gap between the write and the read phase not checked: no readable summary start/end.");
                else if (gap < 0)
                    out.push_back("The read phase (" + rd.runName + ") started " + fixedNumber(-gap, 1) +
                                  " s before the write phase ended: the phases must not overlap (Rules.md 4.7.1).");
                else if (gap > kGapSeconds)
                    out.push_back("The read phase (" + rd.runName + ") started " + fixedNumber(gap, 1) + " s after the write phase ended; "
                                  "at most 30 s are allowed (Rules.md 4.7.1).");
            }
        }
    }
    if (runs.size() > 2)
        out.push_back("A checkpointing benchmark is 1 or 2 invocations (Rules.md 4.7.1); this one has " +
                      std::to_string(runs.size()) + ".");
    if (runs.empty()) return;
    const auto& first = imp.runs[runs.front()];
    // Rules.md 4.3.4: processes × the emulated accelerator's memory ≥ the checkpoint size (Table 3, config_keys).
    const double memory = config_keys::acceleratorMemoryGB(group.identity.accelerator);
    double size = NAN;
    for (std::size_t i : runs) size = std::isfinite(size) ? size : imp.runs[i].checkpointSizeGiB;
    const std::int64_t processes = first.metadataProcesses > 0 ? first.metadataProcesses : first.accelerators;
    if (group.identity.accelerator.empty()) {
        note.push_back("Accelerator memory against the checkpoint size not checked: no accelerator type is named "
                       "(overrides.yaml workload=<model>_<accelerator> or *_metadata.json).");
    } else if (memory <= 0) {
        std::string known;
        for (const auto& a : config_keys::accelerators())
            if (a.memoryGB > 0) known += (known.empty() ? "" : ", ") + a.name + " " + fixedNumber(a.memoryGB, 0) + " GB";
        note.push_back("Accelerator memory not checked: no memory is known for accelerator " + group.identity.accelerator +
                       " (" + known + ").");
    } else if (std::isfinite(size) && static_cast<double>(processes) * memory < size) {
        out.push_back("The emulated accelerators' memory (" + std::to_string(processes) + " × " + fixedNumber(memory, 0) + " GB = " +
                      fixedNumber(static_cast<double>(processes) * memory, 0) + " GB) is below the checkpoint size (" + fixedNumber(size, 1) +
                      " GB): Rules.md 4.3.4 requires it to hold the checkpoint.");
    }
    // Rules.md 4.3.5 (mlcommons/storage#841): subset mode exists only for llama3-8b, on 8 processes.
    for (std::size_t i : runs) {
        const auto& r = imp.runs[i];
        if (r.checkpointMode != "subset") continue;
        if (group.identity.model != "llama3-8b")
            out.push_back("Run " + r.runName + " used checkpoint.mode = subset with " + group.identity.model +
                          "; subset mode is defined only for llama3-8b (Rules.md 4.3.5).");
        else if (r.accelerators != 8)
            out.push_back("Run " + r.runName + " used subset mode on " + std::to_string(r.accelerators) +
                          " processes; it requires exactly 8 (Rules.md 4.3.5).");
    }
}

bool isSubmissionAttempt(const ImportResult& imp, const RunGroup& group) {
    for (const auto* list : {&group.runs, &group.excluded, &group.warmups})
        for (std::size_t i : *list) {
            const InvocationRecord& r = imp.runs[i];
            // DLIO's or MLPerf Storage's own folders (published results among them) were made to be submitted;
            // TrainIO's say so in their configuration (trainio.submission, trainio-cli benchmark --submission).
            if (!isTrainioRun(r)) return true;
            for (const auto& [k, v] : r.resolved)
                if (k == "trainio.submission" && (v == "true" || v == "True" || v == "1")) return true;
        }
    return false;
}

std::string notSubmissionText(std::size_t rules) {
    return "not a submission: " + std::to_string(rules) + " MLPerf Storage rule" + (rules == 1 ? "" : "s") +
           " would not allow it as one (a run marked as a submission, trainio-cli benchmark --submission or "
           "trainio.submission: true, fails on " + (rules == 1 ? "it" : "them") + ")";
}

RuleFindings ruleFindings(const ImportResult& imp, const RunGroup& group) {
    RuleFindings f;
    f.submission = isSubmissionAttempt(imp, group);
    // Each finding with what it is: a check of the result itself (the AU line the workload sets, DLIO's own
    // verdict, a report beside the runs that disagrees with them), which fails whatever the run was meant
    // for, or a rule of a submission (how many runs, the dataset against memory, the parameters the closed
    // division allows, one configuration per folder, the checkpointing rules), which fails only a submission.
    std::vector<std::pair<bool, std::string>> found; // (a submission rule?, the sentence)
    struct Sink {
        std::vector<std::pair<bool, std::string>>& to;
        bool rule;
        void push_back(std::string s) { to.emplace_back(rule, std::move(s)); }
    };
    Sink out{found, true}, result{found, false};
    std::vector<std::string>& note = f.notes;
    const auto finish = [&] {
        for (auto& [rule, text] : found) (rule && !f.submission ? f.unmetRules : f.failed).push_back(std::move(text));
        std::sort(note.begin(), note.end());
        note.erase(std::unique(note.begin(), note.end()), note.end());
        return f;
    };
    if (group.type == BenchmarkType::Checkpointing) {
        std::vector<std::string> rules;
        checkCheckpointRules(imp, group, rules, note);
        for (auto& r : rules) out.push_back(std::move(r));
        return finish();
    }

    if (group.runs.size() != kRequiredRuns) {
        out.push_back("This benchmark has " + std::to_string(group.runs.size()) + " measured run" +
                      (group.runs.size() == 1 ? "" : "s") + "; MLPerf Storage requires exactly " +
                      std::to_string(kRequiredRuns) + " (the warm-up does not count).");
    }
    // mlpstorage_py/report_generator.py _INVALID_MSG_TRAINING_COUNT: "expected 6 training invocations per
    // Rules.md §2.1.17 (1 warmup + 5 real)".
    if (isMlperfV3TrainingFolder(group.path) && group.warmups.size() != 1)
        out.push_back("MLPerf Storage v3.0 expects 6 training invocations in " + group.path.filename().string() +
                      "/ (1 warm-up + 5 measured, Rules.md 2.1.17); this benchmark has " + std::to_string(group.warmups.size()) +
                      " warm-up" + (group.warmups.size() == 1 ? "" : "s") + ".");

    for (std::size_t i : group.runs) {
        const auto& r = imp.runs[i];
        if (r.auThresholdPercent) {
            if (r.auMeanPercent < *r.auThresholdPercent) {
                // Whom to blame weighs what was measured: a run whose telemetry saw the client's CPU saturated was
                // held back by the client, not shown to be by the storage.
                result.push_back("Run " + r.runName + ": accelerator utilization " + fixedNumber(r.auMeanPercent) +
                              " % is below the " + fixedNumber(*r.auThresholdPercent, 0) + " % threshold (" + r.auThresholdSource +
                              (r.telemetry.clientBound
                                   ? "); its telemetry saw the client CPU saturated (client-bound), so the client, not "
                                     "necessarily the storage, kept the accelerators from being busy enough."
                                   : "), so the storage did not keep the accelerators busy enough."));
            }
        } else {
            note.push_back("Run " + r.runName + ": no AU threshold known (no metric.au in config.yaml, unknown workload).");
        }
        if (r.auMeetExpectation == "fail" && !(r.auThresholdPercent && r.auMeanPercent < *r.auThresholdPercent))
            result.push_back("Run " + r.runName + ": DLIO marked its accelerator utilization as failed (train_au_meet_expectation).");
        for (const auto& n : r.notes) note.push_back("Run " + r.runName + ": " + n + ".");
    }

    // Dataset size against the clients' memory. Runs usually share both numbers, so runs with the same
    // dataset and memory get one sentence instead of five identical ones.
    bool sizeChecked = false;
    struct Small {
        std::pair<double, double> key; // (bytes, GiB)
        std::vector<std::string> runNames;
        std::vector<std::size_t> runs;
    };
    std::vector<Small> small;
    for (std::size_t i : group.runs) {
        const auto& r = imp.runs[i];
        if (!r.recordLengthBytes || r.hostMemoryGiB <= 0.0) continue;
        sizeChecked = true;
        const double datasetBytes =
            static_cast<double>(r.filesTrain) * static_cast<double>(r.samplesPerFile) * *r.recordLengthBytes;
        if (datasetBytes >= kDatasetToMemory * r.hostMemoryGiB * kGiB) continue;
        const auto key = std::make_pair(datasetBytes, r.hostMemoryGiB);
        auto it = std::find_if(small.begin(), small.end(), [&](const auto& e) { return e.key == key; });
        if (it == small.end()) {
            small.push_back({key, {r.runName}, {i}});
        } else {
            it->runNames.push_back(r.runName);
            it->runs.push_back(i);
        }
    }
    for (const auto& [key, runNames, runs] : small) {
        std::string who;
        if (runNames.size() == group.runs.size() && runNames.size() > 1) {
            who = "In every run";
        } else {
            who = runNames.size() == 1 ? "In run " : "In runs ";
            for (std::size_t k = 0; k < runNames.size(); ++k) who += (k ? ", " : "") + runNames[k];
        }
        const double samples = static_cast<double>(group.identity.filesTrain) * static_cast<double>(group.identity.samplesPerFile);
        const auto counted = [](std::int64_t n, const char* noun) { return std::to_string(n) + " " + noun + (n == 1 ? "" : "s"); };
        out.push_back(who + " the dataset (" + counted(group.identity.filesTrain, "file") + " × " +
                      counted(group.identity.samplesPerFile, "sample") + " × " + fixedNumber(key.first / samples, 0) +
                      " B = " + bytesText(key.first) + ") is smaller than 5 × the clients' total memory (" +
                      fixedNumber(key.second, 1) + " GiB, so at least " + fixedNumber(kDatasetToMemory * key.second, 1) + " GiB). " +
                      pageCacheVerdict(cacheEvidence(imp, runs)).text);
    }
    if (!sizeChecked && !group.runs.empty())
        note.push_back("Dataset size against client memory not checked: no record_length in config.yaml or no host_memory_GB.");

    // Closed division: only these parameters may be changed from the workload's defaults. The list is
    // mlcommons/storage's rules checker (check_allowed_params, CLOSED_ALLOWED_PARAMS); workflow.* and
    // profiling.* are set by the benchmark script itself on every run.
    static const std::set<std::string> kClosedAllowed = {
        "dataset.num_files_train", "dataset.num_subfolders_train", "dataset.data_folder", "reader.read_threads",
        "reader.computation_threads", "reader.transfer_size", "reader.odirect", "reader.prefetch_size",
        "checkpoint.checkpoint_folder", "storage.storage_type", "storage.storage_root",
        // v3.0 (mlpstorage_py/rules/run_checkers/training.py): an allowed client prefetch knob, and the
        // parameters mlpstorage injects itself (TOOL_INJECTED_PARAMS), which are never user overrides.
        "storage.storage_options.prefetch_window", "dataset.skip_listing", "dataset.listing_validation_interval",
        "dataset.num_files_generated", "storage.storage_options.storage_library", "storage.storage_options.uri_scheme",
        "storage.s3_force_path_style", "dataset.total_disk_bytes"};
    std::vector<std::pair<std::string, std::vector<std::string>>> disallowed; // "key = value" → runs
    for (std::size_t i : group.runs) {
        const auto& r = imp.runs[i];
        for (const auto& [key, value] : r.overrides) {
            // trainio.submission is the mark that asks for these checks: it changes nothing measured.
            if (kClosedAllowed.count(key) || key.rfind("workflow.", 0) == 0 || key.rfind("profiling.", 0) == 0 ||
                key == "trainio.submission")
                continue;
            const std::string what = key + " = " + value;
            auto it = std::find_if(disallowed.begin(), disallowed.end(), [&](const auto& e) { return e.first == what; });
            if (it == disallowed.end()) disallowed.push_back({what, {r.runName}});
            else it->second.push_back(r.runName);
        }
    }
    for (const auto& [what, runNames] : disallowed) {
        std::string who = runNames.size() == group.runs.size() && runNames.size() > 1 ? "Every run" : "Run";
        if (who == "Run") {
            who = runNames.size() == 1 ? "Run " : "Runs ";
            for (std::size_t k = 0; k < runNames.size(); ++k) who += (k ? ", " : "") + runNames[k];
        }
        out.push_back(who + " changed " + what + " (configs/overrides.yaml), which the closed division does not allow: "
                      "only the dataset's file count, subfolders and folder, the reader's threads, transfer and "
                      "prefetch sizes and O_DIRECT, and the checkpoint and storage locations may change.");
    }

    // Runs beside these in the same folder that differ in identity: the generator would refuse the folder.
    for (const auto& other : imp.groups) {
        if (other.path != group.path || other.identity == group.identity || other.runs.empty() || group.runs.empty()) continue;
        out.push_back("The folder also holds " + std::to_string(other.runs.size()) + " run" +
                      (other.runs.size() == 1 ? "" : "s") + " with a different configuration (" +
                      describeIdentity(other.identity) + " instead of " + describeIdentity(group.identity) +
                      "); all runs of a benchmark must use the same accelerators, files and samples per file.");
    }
    if (group.identity.model.empty())
        note.push_back("The workload is unknown: no configs/overrides.yaml with workload=<model>_<accelerator> and no model in config.yaml.");
    else if (group.identity.accelerator.empty())
        note.push_back("The accelerator is unknown: the runs name only the model (" + group.identity.model +
                       "); the MLPerf generator expects workload=<model>_<accelerator> in configs/overrides.yaml.");

    if (group.existingReport) {
        for (auto& s : compareWithReport(imp, group, *group.existingReport)) result.push_back(std::move(s));
    }
    return finish();
}

std::vector<std::string> checkRules(const ImportResult& imp, const RunGroup& group, std::vector<std::string>* notes) {
    RuleFindings f = ruleFindings(imp, group);
    if (notes) notes->insert(notes->end(), f.notes.begin(), f.notes.end());
    return std::move(f.failed);
}

std::vector<std::string> compareWithReport(const ImportResult& imp, const RunGroup& group, const fs::path& report) {
    std::vector<std::string> out;
    const std::string name = report.string();
    // Read by the importer (store::readFolderJson, within its bounds and link rule).
    const nlohmann::json* j = group.existingReportContent.get();
    if (!j) {
        out.push_back(name + " could not be read (" + group.existingReportError + "), so it could not be compared with the runs.");
        return out;
    }
    const auto overallIt = j->is_object() ? j->find("overall") : j->end();
    if (overallIt == j->end() || !overallIt->is_object()) {
        out.push_back(name + " has no \"overall\" section, so it could not be compared with the runs.");
        return out;
    }
    const auto& overall = *overallIt;
    const ordered_json mine = mlperfReport(imp, group);
    const auto& expected = mine["overall"];
    const std::string runs = std::to_string(group.runs.size()) + " run" + (group.runs.size() == 1 ? "" : "s");
    for (const auto& [key, value] : expected.items()) {
        auto it = overall.find(key);
        if (it == overall.end()) {
            out.push_back(name + " lacks the key " + key + ".");
            continue;
        }
        if (value.is_number_float()) {
            const double mineV = value.get<double>();
            if (!it->is_number() || !relativelyEqual(it->get<double>(), mineV, 1e-9)) {
                std::string theirs = it->dump();
                std::string diff;
                if (it->is_number() && mineV != 0.0)
                    diff = " (" + fixedNumber(100.0 * (it->get<double>() - mineV) / mineV, 3) + " %)";
                out.push_back(name + " says " + key + " = " + theirs + ", but the " + runs + " beside it give " +
                              exactNumber(mineV) + diff + ".");
            }
        } else {
            // Integers may be written as numbers or (train_num_accelerators) as strings: compare as text.
            auto asText = [](const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
            const std::string mineS = value.is_string() ? value.get<std::string>() : value.dump();
            if (asText(*it) != mineS)
                out.push_back(name + " says " + key + " = " + it->dump() + ", but the " + runs + " beside it give " + mineS + ".");
        }
    }
    if (auto runsIt = j->find("runs"); runsIt != j->end() && runsIt->is_object()) {
        std::vector<std::string> missing;
        for (const auto& item : runsIt->items()) {
            // Not a structured binding: clang 14 (the fuzz build) cannot capture one in the lambda.
            const std::string runName = item.key();
            const bool present = std::any_of(group.runs.begin(), group.runs.end(),
                                             [&](std::size_t i) { return imp.runs[i].runName == runName; });
            if (!present) missing.push_back(runName);
        }
        if (!missing.empty()) {
            std::string list;
            for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
            out.push_back(name + " lists runs that are not beside it: " + list + ".");
        }
    }
    return out;
}

} // namespace trainio::aggregate
