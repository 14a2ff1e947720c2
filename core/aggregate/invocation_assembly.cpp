#include "aggregate/invocation_assembly.h"

#include "aggregate/identity.h"
#include "aggregate/results_import.h"
#include "store/labels.h"

#include <algorithm>
#include <cmath>

namespace fs = std::filesystem;

namespace trainio::aggregate {

namespace {

// The AU lines of the MLPerf Storage workloads, used only when no config names one: v1.0 (unet3d and
// resnet50 90 %, cosmoflow 70 %) and v3.0's retinanet (mlcommons/storage configs/dlio/workload/
// retinanet_{b200,mi355}.yaml metric.au: 0.85; unet3d_b200.yaml keeps 0.90).
std::optional<double> knownAuThreshold(const std::string& model) {
    if (model == "unet3d" || model == "resnet50") return 90.0;
    if (model == "retinanet") return 85.0;
    if (model == "cosmoflow") return 70.0;
    return std::nullopt;
}

// MLPerf Storage v3.0 names its checkpointing workloads llama3_8b … llama3_1t in overrides.yaml and
// llama3-8b … llama3-1t everywhere else (mlpstorage_py/config.py LLM_MODELS, the results folders): the
// generator's split at '_' would make "8b" an accelerator. The folder <system>/checkpointing/<model>/
// names the model where it exists; otherwise the llama3_<size> spelling is mapped.
void checkpointModel(const fs::path& runDir, const std::string& workload, std::string& model, std::string& accelerator) {
    if (workload.rfind("llama3_", 0) == 0) {
        const auto rest = workload.substr(7);
        const auto us = rest.find('_');
        model = "llama3-" + rest.substr(0, us);
        accelerator = us == std::string::npos ? std::string() : rest.substr(us + 1); // "8b" is a size, not an accelerator
    }
    if (runDir.has_parent_path() && runDir.parent_path().has_parent_path() &&
        runDir.parent_path().parent_path().filename() == "checkpointing")
        model = runDir.parent_path().filename().string();
    model = mlperfCheckpointModel(model);
}

} // namespace

store::ReadBounds boundsOf(const ImportOptions& options) {
    store::ReadBounds b;
    b.maxFileBytes = options.maxFileBytes;
    b.maxStepFileBytes = options.maxStepFileBytes;
    b.maxJsonDepth = options.maxJsonDepth;
    return b;
}

std::optional<AssembledRun> assembleInvocation(RunFolder run, const store::FileSource& files, const ImportOptions& options,
                                               std::vector<SkippedFile>& skipped) {
    const fs::path& runDir = run.runDir;
    const store::ReadBounds bounds = boundsOf(options);
    std::sort(run.hosts.begin(), run.hosts.end(), [](const store::HostSummary& a, const store::HostSummary& b) { return a.file < b.file; });
    InvocationRecord r;
    r.path = runDir;
    r.runName = runDir.filename().string();
    const store::HostSummary& first = run.hosts.front();
    bool consistent = true;
    for (const auto& h : run.hosts) {
        r.summaryFiles.push_back(h.file);
        r.accelerators += h.accelerators;
        r.samplesPerSecond += h.sps;
        r.mbPerSecond += h.mbps;
        r.hostMemoryGiB += h.hostMemoryGiB;
        r.hostnames.push_back(h.hostname);
        for (const auto& n : h.notes)
            if (std::find(r.notes.begin(), r.notes.end(), n) == r.notes.end()) r.notes.push_back(n);
        consistent = consistent && h.checkpoint == first.checkpoint && h.filesTrain == first.filesTrain && h.samplesPerFile == first.samplesPerFile &&
                     h.epochAu.size() == first.epochAu.size() && h.epochSps.size() == first.epochSps.size();
    }
    if (!consistent) {
        for (const auto& h : run.hosts)
            skipped.push_back({h.file, "the host summaries of run " + runDir.string() +
                                           " disagree on files, samples per file or epochs"});
        return std::nullopt;
    }
    const double hosts = static_cast<double>(run.hosts.size());
    r.filesTrain = first.filesTrain;
    r.samplesPerFile = first.samplesPerFile;
    r.epochs = first.epochs;
    r.start = first.start;
    r.end = first.end;
    r.auMeetExpectation = first.meet;
    if (first.checkpoint) {
        r.type = BenchmarkType::Checkpointing;
        r.checkpointWriteGiBps = first.saveGiBps;
        r.checkpointWriteSeconds = first.saveSeconds;
        r.checkpointReadGiBps = first.loadGiBps;
        r.checkpointReadSeconds = first.loadSeconds;
        r.checkpointSizeGiB = first.sizeGiB;
        if (run.hosts.size() > 1) r.notes.push_back("checkpointing run of several host folders: the first host's numbers are used");
    }
    if (run.hosts.size() == 1) {
        r.numHosts = first.numHosts;
        r.auMeanPercent = first.au;
        r.auStdevPercent = first.auStdev;
        r.samplesPerSecondStdev = first.spsStdev;
        r.mbPerSecondStdev = first.mbpsStdev;
        r.epochAuPercent = first.epochAu;
        r.epochSamplesPerSecond = first.epochSps;
    } else {
        // Hosts are ranks of one job: AU averages, throughput adds up.
        r.numHosts = static_cast<std::int64_t>(run.hosts.size());
        r.notes.push_back("run of " + std::to_string(run.hosts.size()) + " host folders: throughput summed, AU averaged");
        r.epochAuPercent.assign(first.epochAu.size(), 0.0);
        r.epochSamplesPerSecond.assign(first.epochSps.size(), 0.0);
        for (const auto& h : run.hosts) {
            r.auMeanPercent += h.au / hosts;
            if (h.meet == "fail") r.auMeetExpectation = "fail";
            if (h.start < r.start) r.start = h.start;
            if (h.end > r.end) r.end = h.end;
            for (std::size_t e = 0; e < h.epochAu.size(); ++e) r.epochAuPercent[e] += h.epochAu[e] / hosts;
            for (std::size_t e = 0; e < h.epochSps.size(); ++e) r.epochSamplesPerSecond[e] += h.epochSps[e];
        }
        r.auStdevPercent = r.samplesPerSecondStdev = r.mbPerSecondStdev = NAN;
    }
    std::vector<fs::path> configDirs{first.file.parent_path()};
    if (runDir != first.file.parent_path()) configDirs.push_back(runDir);
    store::RunConfig rc = store::readRunConfig(configDirs, run.canonicalRoot, bounds, files);
    r.model = rc.model;
    r.accelerator = rc.accelerator;
    store::readMetadataFiles(runDir, run.canonicalRoot, bounds, r, files);
    if (r.type == BenchmarkType::Checkpointing) {
        checkpointModel(runDir, rc.workload, r.model, r.accelerator);
        if (r.accelerator.empty()) r.accelerator = r.metadataAccelerator;
        auto count = [&](const char* key) -> std::int64_t {
            auto it = rc.merged.find(key);
            const auto d = it == rc.merged.end() ? std::nullopt : store::parseFiniteNumber(it->second);
            return d && *d >= 0 ? static_cast<std::int64_t>(*d) : -1;
        };
        r.checkpointsWritten = count("checkpoint.num_checkpoints_write");
        r.checkpointsRead = count("checkpoint.num_checkpoints_read");
        if (auto it = rc.merged.find("checkpoint.mode"); it != rc.merged.end()) r.checkpointMode = it->second;
    }
    r.recordLengthBytes = rc.recordLength;
    r.overrides = rc.overrides;
    for (const auto& n : rc.notes) r.notes.push_back(n);
    if (r.model.empty()) r.notes.push_back("no configs/overrides.yaml or config.yaml names the workload");
    if (rc.auFraction) {
        r.auThresholdPercent = *rc.auFraction * 100.0;
        r.auThresholdSource = "metric.au in config.yaml";
    } else if (auto known = knownAuThreshold(r.model)) {
        r.auThresholdPercent = known;
        r.auThresholdSource = std::string(r.model == "retinanet" ? "MLPerf Storage v3.0" : "MLPerf Storage v1.0") +
                              " threshold for " + r.model;
    }
    r.resolved.assign(rc.merged.begin(), rc.merged.end());
    r.configFile = rc.configFile;
    r.workloadOverride = rc.workload;
    auto cfgValue = [&](std::initializer_list<const char*> keys) -> std::string {
        for (const char* k : keys)
            if (auto it = rc.merged.find(k); it != rc.merged.end()) return it->second;
        return {};
    };
    r.format = cfgValue({"dataset.format"});
    if (auto d = store::parseFiniteNumber(cfgValue({"dataset.record_length_bytes_stdev", "dataset.record_length_stdev"}))) r.recordLengthStdevBytes = *d;
    if (auto d = store::parseFiniteNumber(cfgValue({"reader.batch_size"})); d && *d > 0) r.batchSize = static_cast<std::int64_t>(*d);
    if (auto d = store::parseFiniteNumber(cfgValue({"train.epochs"})); d && *d > 0) r.plannedEpochs = static_cast<std::int64_t>(*d);
    {
        std::error_code cec;
        r.canonicalPath = fs::weakly_canonical(runDir, cec);
        if (cec) r.canonicalPath = runDir;
    }

    // Status: TrainIO says so in trainio_run.json; otherwise a summary with fewer epochs than the
    // config asked for is incomplete.
    const store::RunRecord tr = store::readRunRecord(runDir, run.canonicalRoot, bounds, files);
    r.status = tr.status;
    r.statusReason = tr.reason;
    r.warnings = tr.warnings;
    r.toolVersion = tr.trainioVersion;
    store::readIoFile(runDir, run.canonicalRoot, bounds, r, files);
    store::readModelFile(runDir, run.canonicalRoot, bounds, r, files);
    store::readTelemetryFile(runDir, run.canonicalRoot, bounds, options.stepDigests, r, files);
    const auto measuredEpochs = static_cast<std::int64_t>(std::max(r.epochAuPercent.size(), r.epochSamplesPerSecond.size()));
    if (r.type == BenchmarkType::Training && r.status == InvocationStatus::Complete && r.plannedEpochs > 0 &&
        measuredEpochs < r.plannedEpochs) {
        r.status = InvocationStatus::Incomplete;
        r.statusReason = "measured " + std::to_string(measuredEpochs) + " of " + std::to_string(r.plannedEpochs) +
                         " configured epochs (train.epochs)";
    }

    std::string labelWhy;
    r.labels = store::labelsFor(runDir, run.root, &labelWhy, files);
    if (!labelWhy.empty()) r.notes.push_back(labelWhy + " (labels ignored)");
    const Identity id = identityOf(r);
    r.workloadKey = id.workloadKey;
    r.benchmarkKey = id.benchmarkKey;
    r.workloadTitle = id.workloadTitle;
    AssembledRun out;
    out.trainioRun = tr.present;
    out.oneHostFolder = run.hosts.size() == 1 && first.file.parent_path() == runDir;
    out.config = std::move(rc);
    out.record = std::move(r);
    return out;
}

} // namespace trainio::aggregate
