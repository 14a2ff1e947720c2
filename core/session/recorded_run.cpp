#include "session/recorded_run.h"

#include "aggregate/results_import.h"
#include "aggregate/results_library.h"
#include "store/run_files.h"
#include "util/errors.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace fs = std::filesystem;

namespace trainio::session {

namespace {

using aggregate::LibraryNode;
using aggregate::NodeKind;

// The invocation node to play among `node` (an invocation, or a benchmark: its complete run of median AU,
// as the report shows it); null when it holds no complete run.
const LibraryNode* runToPlay(const aggregate::ResultsLibrary& lib, const LibraryNode& node) {
    if (node.kind == NodeKind::Invocation) return &node;
    std::vector<const LibraryNode*> runs;
    for (const auto& child : node.children)
        if (child->kind == NodeKind::Invocation && child->run && !child->excluded && !child->warmup) runs.push_back(child.get());
    if (runs.empty()) return nullptr;
    const auto& imported = lib.imported();
    std::stable_sort(runs.begin(), runs.end(), [&](const LibraryNode* a, const LibraryNode* b) {
        return imported.runs[*a->run].auMeanPercent < imported.runs[*b->run].auMeanPercent;
    });
    return runs[(runs.size() - 1) / 2];
}

// "2026-07-09T18:50:21.891904" → "2026-07-09 18:50"; other texts as they are.
std::string minuteOf(const std::string& start) {
    if (start.size() >= 16 && start[4] == '-' && start[7] == '-' && (start[10] == 'T' || start[10] == ' ') && start[13] == ':')
        return start.substr(0, 10) + " " + start.substr(11, 5);
    return start;
}

[[noreturn]] void refuse(const fs::path& folder, const std::string& why) {
    throw InputError("cannot replay " + folder.string() + ": " + why);
}

} // namespace

RecordedRun loadRecordedRun(const fs::path& folder) {
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) refuse(folder, "no such folder");
    aggregate::ResultsLibrary lib(aggregate::importResults({folder}));
    // The folder itself (a run, or a benchmark), else the one item below it.
    std::vector<const LibraryNode*> at = lib.findAllByPath(folder);
    if (at.empty()) at = lib.itemsBelow(folder);
    if (at.empty()) refuse(folder, "it holds no run TrainIO or DLIO wrote (no summary.json below it)");
    if (at.size() > 1) {
        std::string names;
        for (std::size_t i = 0; i < at.size() && i < 4; ++i) names += (i ? "; " : "") + at[i]->itemName;
        if (at.size() > 4) names += "; …";
        refuse(folder, "it holds " + std::to_string(at.size()) + " benchmarks (" + names + "): give the folder of one of them, or of one run");
    }
    const LibraryNode* node = runToPlay(lib, *at.front());
    if (!node) refuse(folder, "it holds no complete run (" + at.front()->itemName + ")");
    const aggregate::InvocationRecord& record = lib.imported().runs.at(*node->run);
    if (record.type != aggregate::BenchmarkType::Training)
        refuse(record.path, "a checkpointing run has no training steps to replay");
    if (!store::hasStepRecords(record.path))
        refuse(record.path, "no per-step records (<rank>_output.json) in it: only a run that kept them can be replayed");
    const store::InvocationData data = store::readInvocationFolder(record.path);

    RecordedRun run;
    run.folder = record.path;
    run.runName = record.runName;
    run.recorded = minuteOf(record.start);
    run.storage = !node->storage.empty() ? node->storage : node->s3;
    // The library's name, less the storage it ends with (" · emulated nvme · changed live ×2"): the
    // caption says how the bytes came.
    run.itemName = node->itemName;
    if (const auto cut = node->storage.empty() ? std::string::npos : run.itemName.rfind(" · " + node->storage); cut != std::string::npos)
        run.itemName.erase(cut);
    run.ranks = data.ranks.size();
    run.batchSize = data.batchSize ? data.batchSize : static_cast<std::uint64_t>(std::max<std::int64_t>(record.batchSize, 1));
    run.recordLength = data.recordLength > 0 ? data.recordLength : record.recordLengthBytes.value_or(0.0);
    run.auThresholdPercent = record.auThresholdPercent.value_or(data.auThreshold * 100.0);
    run.auMeanPercent = record.auMeanPercent;

    // The run's start: its first rank's first block (the steps' clock, seconds since the Unix epoch).
    double start = std::numeric_limits<double>::infinity();
    for (const auto& rank : data.ranks)
        for (const auto& epoch : rank.epochs)
            for (const auto& block : epoch.blocks) start = std::min(start, block.start);
    if (!std::isfinite(start)) refuse(record.path, "its per-step records hold no step");

    // Each step at the moment it ended: the block's start plus the steps' times (load + compute) so far,
    // never past the block's recorded end. Bytes: a batch of the dataset's samples per step.
    const double bytesPerStep = static_cast<double>(run.batchSize) * run.recordLength;
    std::map<std::uint64_t, double> epochEnd;
    std::uint64_t epochs = 0;
    for (const auto& rank : data.ranks) {
        std::uint64_t stepsSoFar = 0;
        for (const auto& epoch : rank.epochs) {
            epochs = std::max(epochs, epoch.epoch);
            const std::uint64_t perEpoch = data.expectedSteps ? data.expectedSteps : epoch.steps();
            std::uint64_t step = 0;
            for (const auto& block : epoch.blocks) {
                double t = block.start;
                for (std::size_t i = 0; i < block.proc.size(); ++i) {
                    t += block.proc[i];
                    ++stepsSoFar;
                    StepEvent e;
                    e.rank = rank.rank;
                    e.epoch = epoch.epoch;
                    e.step = ++step;
                    e.stepsPerEpoch = perEpoch;
                    e.load = i < block.load.size() ? block.load[i] : 0.0;
                    e.compute = i < block.compute.size() ? block.compute[i] : 0.0;
                    e.proc = block.proc[i];
                    e.wallTime = std::min(t, std::max(block.end, block.start)) - start;
                    e.bytesRead = static_cast<std::uint64_t>(std::llround(bytesPerStep * static_cast<double>(stepsSoFar)));
                    run.steps.push_back(e);
                }
            }
            const double end = std::max(epoch.end, epoch.blocks.empty() ? epoch.end : epoch.blocks.back().end) - start;
            epochEnd[epoch.epoch] = std::max(epochEnd[epoch.epoch], end);
        }
    }
    std::stable_sort(run.steps.begin(), run.steps.end(), [](const StepEvent& a, const StepEvent& b) { return a.wallTime < b.wallTime; });
    run.seconds = run.steps.empty() ? 0.0 : run.steps.back().wallTime;

    // Each epoch's figures as the run's own summary.json gives them (DLIO's metrics, computed when it ran).
    for (const auto& [number, end] : epochEnd) {
        const std::size_t i = static_cast<std::size_t>(number - 1);
        if (i >= record.epochAuPercent.size()) continue;
        RecordedEpoch epoch;
        epoch.at = end;
        epoch.event.epoch = number;
        epoch.event.epochs = std::max<std::uint64_t>(epochs, static_cast<std::uint64_t>(std::max<std::int64_t>(record.plannedEpochs, 0)));
        epoch.event.auPercent = record.epochAuPercent[i];
        epoch.event.throughput = i < record.epochSamplesPerSecond.size() ? record.epochSamplesPerSecond[i] : 0.0;
        epoch.event.mibPerSecond = epoch.event.throughput * run.recordLength / 1048576.0;
        run.epochs.push_back(std::move(epoch));
    }

    // The device's live changes, those of one moment (a profile's several limits) together.
    for (const StorageChange& c : record.storageChanges) {
        const double at = c.unixTime - start;
        if (!run.changes.empty() && std::abs(run.changes.back().at - at) < 0.05) run.changes.back().changes.push_back(c);
        else run.changes.push_back({at, {c}});
    }
    // Its whole length: the last step, epoch end or change.
    for (const RecordedEpoch& e : run.epochs) run.seconds = std::max(run.seconds, e.at);
    for (const RecordedChange& c : run.changes) run.seconds = std::max(run.seconds, c.at);
    return run;
}

std::string replayCaption(const RecordedRun& run) {
    return "replay of " + run.runName + (run.recorded.empty() ? std::string() : ", recorded " + run.recorded);
}

ReplayCursor::ReplayCursor(const RecordedRun& run, double speed) : run_(&run), speed_(speed > 0 ? speed : 1.0) {}

ReplayCursor::Due ReplayCursor::until(double seconds) {
    const double t = seconds * speed_;
    Due due;
    while (step_ < run_->steps.size() && run_->steps[step_].wallTime <= t) due.steps.push_back(run_->steps[step_++]);
    while (epoch_ < run_->epochs.size() && run_->epochs[epoch_].at <= t) due.epochs.push_back(run_->epochs[epoch_++]);
    while (change_ < run_->changes.size() && run_->changes[change_].at <= t) due.changes.push_back(run_->changes[change_++]);
    return due;
}

bool ReplayCursor::finished() const {
    return step_ >= run_->steps.size() && epoch_ >= run_->epochs.size() && change_ >= run_->changes.size();
}

} // namespace trainio::session
