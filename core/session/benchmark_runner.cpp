#include "session/benchmark_runner.h"

#include "aggregate/benchmark_report.h"
#include "aggregate/group_aggregate.h"
#include "store/labels.h"
#include "aggregate/results_import.h"
#include "engine/checkpoint_run.h"
#include "model/pipeline_model.h"
#include "store/benchmark_manifest.h"
#include "store/run_folder.h"
#include "util/clock.h"
#include "config/config_loader.h"
#include "results/invocation_files.h"
#include "session/storage_session.h"
#include "results/journal.h"
#include "util/errors.h"
#include "util/host_info.h"
#include "util/page_cache_verdict.h"
#include "loader/sample_order.h"
#include "metrics/dlio_metrics.h"

#include <chrono>
#include <optional>
#include <ctime>

namespace trainio {
namespace fs = std::filesystem;

namespace {

bool hasLabels(const aggregate::Labels& l) {
    return !l.system.empty() || !l.description.empty() || !l.notes.empty() || !l.name.empty();
}

std::string now() {
    return isoTimestamp(std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count());
}

} // namespace

RunOutcome runInvocation(const WorkloadConfig& cfg, const fs::path& dir, const InvocationOptions& opt) {
    // Under mpirun only process 0 writes the folder (with every rank's files: docs/mpi.md).
    const bool writer = !opt.comm || opt.comm->rank() == 0;
    // The storage side: I/O stack, cache control and metering between epochs, telemetry (trainio: section).
    StorageSession storage(cfg, opt.io, opt.comm ? static_cast<std::uint64_t>(opt.comm->rank()) : 0);
    if (!opt.collocatedWith.empty()) storage.collocate(opt.collocatedWith);
    storage.setMemoryBudget(opt.accelerators);
    std::vector<std::string> preRunWarnings; // said before the run, kept with its result
    if (opt.onStorage) opt.onStorage(storage.emulated());
    storage.onTelemetry = opt.onTelemetry;
    storage.onEpochCache = opt.onEpochCache;
    storage.onEpochS3 = opt.onEpochS3;
    EngineOptions eo;
    eo.accelerators = opt.accelerators;
    eo.semantics = opt.semantics;
    eo.observer = opt.observer;
    eo.cancel = opt.cancel;
    eo.comm = opt.comm;
    eo.commTimeoutSeconds = opt.commTimeoutSeconds;
    eo.io = storage.io();
    eo.beforeEpoch = [&](std::uint64_t epoch) { storage.beforeEpoch(epoch); };
    eo.afterEpoch = [&](std::uint64_t epoch, const std::vector<std::uint64_t>& bytes) { storage.afterEpoch(epoch, bytes); };
    const HostInfo host = readHostInfo();
    // The folder first: a folder that cannot be made fails here, before anything is measured, rather
    // than after a run of minutes whose results then have nowhere to go.
    std::error_code ec;
    if (writer) fs::create_directories(dir / "configs", ec);
    if (ec) throw RunError("create folder " + (dir / "configs").string() + ": " + ec.message() + " (nothing was measured)");
    // The system name the run controls asked for, beside the results (read back on import). A run inside
    // a benchmark has it on the benchmark folder instead.
    if (writer && hasLabels(opt.labels)) store::writeLabelsFile(dir, opt.labels, false, opt.io.get(), opt.written);
    // The input-pipeline model's prediction for this run (docs/model.md), made before it starts, kept beside
    // what is then measured: only for emulated storage, whose parameters the model takes as they are.
    std::optional<nlohmann::ordered_json> prediction;
    if (writer && cfg.workflow.train && cfg.trainio.storage.any()) {
        try {
            const std::uint64_t total = opt.accelerators * (opt.comm ? static_cast<std::uint64_t>(opt.comm->size()) : 1);
            prediction = model::predictionJson(cfg, total, model::storageFromConfig(cfg), {}, opt.semantics);
        } catch (const std::exception& e) {
            preRunWarnings.push_back(std::string("no model prediction: ") + e.what());
        }
    }
    if (writer) storage.startTelemetry();
    RunOutcome out;
    fs::path journalPath;
    // The journal (results/journal.h): what is measured on disk as it is measured, so that a run killed at any
    // instant is read back as interrupted with what it measured. The configuration first: the journal is read
    // back with it.
    std::unique_ptr<store::RunJournal> journal;
    auto openJournal = [&] {
        if (!writer) return;
        store::writeFileAtomic(dir / store::configFolders().front() / store::kConfigFile, toYaml(cfg), opt.io.get(), opt.written);
        store::writeFileAtomic(dir / store::configFolders().front() / store::kOverridesFile, overridesYaml(cfg), opt.io.get(),
                               opt.written);
        store::JournalHeader h;
        h.accelerators = opt.accelerators * (opt.comm ? static_cast<std::uint64_t>(opt.comm->size()) : 1);
        h.processes = opt.comm ? static_cast<std::uint64_t>(opt.comm->size()) : 1;
        h.semantics = opt.semantics;
        h.start = WallClock().now();
        h.host = host;
        h.commandLine = opt.commandLine;
        journal = std::make_unique<store::RunJournal>(dir, h);
    };
    auto closeJournal = [&] {
        if (!journal) return;
        journal->finish();
        if (!journal->error().empty()) preRunWarnings.push_back("the run journal was not kept up: " + journal->error());
        journalPath = journal->path();
    };
    if (!cfg.workflow.train && cfg.workflow.checkpoint) {
        // DLIO's checkpoint-only mode (main.py: checkpoint_only when train is off and checkpoint on).
        checkpoint::CheckpointRunOptions co;
        co.accelerators = opt.accelerators;
        co.io = storage.io();
        co.cancel = opt.cancel;
        co.onEvent = opt.onCheckpoint;
        co.comm = opt.comm;
        co.commTimeoutSeconds = opt.commTimeoutSeconds;
        co.observer = opt.observer;
        // Every rank's checkpoints journalled as process 0 gets them (one line each, durable at once).
        openJournal();
        if (journal) co.onRecord = [j = journal.get()](const checkpoint::CheckpointRecord& r) { j->checkpoint(r); };
        out = checkpoint::runCheckpointOnly(cfg, co);
        closeJournal();
        out.metricOptions.semantics = opt.semantics;
    } else {
        // Checkpoints during training (workflow.checkpoint with train), planned and refused up front.
        std::unique_ptr<checkpoint::Checkpointer> ckpt;
        if (cfg.workflow.checkpoint) {
            // Every rank of the job (under mpirun P × K): each process writes its own ranks' files.
            const std::uint64_t ranks = opt.accelerators * (opt.comm ? static_cast<std::uint64_t>(opt.comm->size()) : 1);
            auto plan = checkpoint::planCheckpoint(cfg, ranks);
            // (Under mpirun the session checked every process, and they agreed.)
            if (!opt.comm) checkpoint::checkpointPreflight(cfg, plan, 1);
            checkpoint::Checkpointer::Options co;
            co.io = storage.io();
            co.cancel = opt.cancel;
            co.onEvent = opt.onCheckpoint;
            ckpt = std::make_unique<checkpoint::Checkpointer>(cfg, std::move(plan), co);
            eo.checkpointer = ckpt.get();
        }
        // Every completed epoch journalled as it ends.
        openJournal();
        if (journal) eo.onEpochRecorded = [j = journal.get()](std::uint64_t rank, const EpochRecord& e) { j->epoch(rank, e); };
        out = runTraining(cfg, eo);
        if (ckpt) out.checkpoints = ckpt->results();
        closeJournal();
    }
    if (opt.onStorage) opt.onStorage(nullptr); // the device is gone with the run
    out.warnings = storage.stop();
    if (!writer) return out;
    if (cfg.workflow.train) storage.setLoaderReport(cfg, out);
    InvocationContext ctx;
    ctx.commandLine = opt.commandLine;
    ctx.io = opt.io.get();
    ctx.written = opt.written;
    // The storage files first, through the same backend as the rest: a failure there is a warning on the
    // result, never the loss of what was measured.
    for (auto& w : storage.write(dir, ctx.io, ctx.written)) out.warnings.push_back(std::move(w));
    out.warnings.insert(out.warnings.end(), preRunWarnings.begin(), preRunWarnings.end());
    out.warnings.insert(out.warnings.end(), opt.resultWarnings.begin(), opt.resultWarnings.end());
    if (prediction) {
        try {
            store::writeFileAtomic(dir / store::kModelFile, prediction->dump(2) + "\n", ctx.io, ctx.written);
        } catch (const RunError& e) {
            out.warnings.push_back(std::string("trainio_model.json was not written: ") + e.what());
        }
    }
    ctx.logLines = opt.warnings;
    ctx.logLines.insert(ctx.logLines.end(), out.warnings.begin(), out.warnings.end());
    writeInvocationFolder(dir, cfg, out, host, ctx);
    // The folder is whole (summary.json last): the journal has served. (Kept when the folder could not be
    // written: then it is the record of what was measured.)
    if (!journalPath.empty()) fs::remove(journalPath, ec);
    return out;
}

namespace {

bool checkpointOnly(const WorkloadConfig& cfg) { return !cfg.workflow.train && cfg.workflow.checkpoint; }

// One path component, as a folder of the MLPerf Storage v3.0 tree: nothing that could leave it.
std::string folderName(const std::string& what, const std::string& name) {
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos || name.find('\0') != std::string::npos)
        throw InputError(what + " = '" + name + "': expected a name usable as one folder name (no '/', not . or ..)");
    return name;
}

// mlpstorage names run folders datetime.now().strftime("%Y%m%d_%H%M%S"). Runs shorter than a second
// would share a name, so each is at least one second after the previous (the names stay in run order,
// which is what makes the first one the warm-up).
std::string nextTimestamp(std::time_t& last) {
    std::time_t t = std::time(nullptr);
    if (t <= last) t = last + 1;
    last = t;
    std::tm tm{};
    localtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%d_%H%M%S", &tm);
    return buf;
}

// What mlpstorage writes beside each run (<kind>_<ts>_metadata.json): the benchmark type, model,
// accelerator and process count, and system_info (the clients). TrainIO writes the keys the importer and
// mlpstorage's report generator read; "generator" says who wrote it.
void writeV3Metadata(const fs::path& runDir, const std::string& kind, const std::string& ts, const WorkloadConfig& cfg,
                     const InvocationOptions& opt, IoBackend* io) {
    const HostInfo host = readHostInfo();
    const double memoryBytes = host.memoryGiB * 1024.0 * 1024.0 * 1024.0;
    nlohmann::ordered_json cpu{{"num_cores", host.cpuCount},
                               {"model", host.cpuinfo.value("model name", std::string())},
                               {"architecture", host.processorName}};
    nlohmann::ordered_json j{
        {"benchmark_type", kind},
        {"model", cfg.model.name},
        {"command", "run"},
        {"run_datetime", ts},
        {"num_processes", opt.accelerators},
        {"accelerator", cfg.accelerator},
        {"result_dir", runDir.string()},
        {"system_info",
         {{"total_memory_bytes", memoryBytes},
          {"total_cores", host.cpuCount},
          {"num_hosts", 1},
          {"hosts", nlohmann::ordered_json::array({{{"hostname", host.hostname}, {"memory", {{"total", memoryBytes}}}, {"cpu", cpu}}})}}},
        {"generator", "trainio"},
        {"executed_command", opt.commandLine}};
    store::writeFileAtomic(runDir / (kind + "_" + ts + store::kMetadataSuffix), j.dump(4) + "\n", io, opt.written);
}

} // namespace

fs::path benchmarkFolder(const WorkloadConfig& cfg, const fs::path& dir, const BenchmarkOptions& opt) {
    if (opt.layout == BenchmarkLayout::TrainIO) return dir;
    if (opt.invocation.labels.system.empty())
        throw InputError("--layout mlperf-v3 needs --system NAME: the results go to DIR/NAME/training|checkpointing/<model>/");
    const fs::path system = dir / folderName("--system", opt.invocation.labels.system);
    const std::string model = folderName("model.name", cfg.model.name);
    // mlpstorage's folder names: checkpointing/llama3-8b/ for the llama_8b of DLIO's config.
    return checkpointOnly(cfg) ? system / "checkpointing" / aggregate::mlperfCheckpointModel(model)
                               : system / "training" / model / "run";
}

BenchmarkResult runBenchmark(const WorkloadConfig& cfg, const fs::path& topDir, const BenchmarkOptions& opt) {
    BenchmarkResult res;
    IoBackend* io = opt.invocation.io.get();
    const bool v3 = opt.layout == BenchmarkLayout::MlperfV3;
    const fs::path dir = benchmarkFolder(cfg, topDir, opt);
    // Under mpirun every process runs the invocations; only process 0 writes anything (docs/mpi.md).
    const bool writer = !opt.invocation.comm || opt.invocation.comm->rank() == 0;
    // MLPerf Storage v3.0: a checkpointing benchmark is one invocation of writes then reads, no warm-up
    // (Rules.md 4.7.1; mlpstorage's report generator: "Checkpointing has 1 disk dir = 1 run").
    const std::uint64_t runs = v3 && checkpointOnly(cfg) ? 1 : opt.runs;
    const std::uint64_t warmups = v3 && checkpointOnly(cfg) ? 0 : opt.warmups;
    const std::string kind = checkpointOnly(cfg) ? "checkpointing" : "training";
    std::time_t lastStamp = 0;
    // What the benchmark writes, held (the caller's, or its own): its reports are made from it.
    store::WrittenFiles own;
    store::WrittenFiles* written = opt.invocation.written ? opt.invocation.written : &own;
    // The manifest names exactly this benchmark's warm-up and runs (the importer groups by it), and
    // says how far it got: written before the first invocation and after each one.
    store::BenchmarkManifest manifest;
    manifest.plannedRuns = runs;
    manifest.plannedWarmups = warmups;
    manifest.accelerators =
        opt.invocation.accelerators * (opt.invocation.comm ? static_cast<std::uint64_t>(opt.invocation.comm->size()) : 1);
    manifest.system = opt.invocation.labels.system;
    manifest.started = now();
    std::error_code ec;
    if (writer) fs::create_directories(dir, ec);
    if (ec) throw RunError("create folder " + dir.string() + ": " + ec.message() + " (nothing was measured)");
    auto writeManifest = [&] {
        if (writer) store::writeBenchmarkManifest(dir, manifest, io, written);
    };
    writeManifest();
    // v3: on the system folder, which names everything below it (as <org>/results/<system>/ does).
    if (writer && hasLabels(opt.invocation.labels))
        store::writeLabelsFile(v3 ? topDir / opt.invocation.labels.system : dir, opt.invocation.labels, false, io, written);
    InvocationOptions inner = opt.invocation;
    inner.labels = {}; // on the benchmark folder, which its invocations inherit
    inner.written = written;
    auto one = [&](const std::string& label, const fs::path& d, std::vector<fs::path>& into, std::vector<std::string>& listed) {
        if (opt.onInvocationStart) opt.onInvocationStart(label, d);
        listed.push_back(d.lexically_relative(dir).generic_string());
        writeManifest();
        const RunOutcome out = runInvocation(cfg, d, inner);
        into.push_back(d);
        if (v3 && writer) {
            // mlpstorage keeps the DLIO configs in dlio_config/ (one folder the importer also searches).
            std::error_code rec;
            if (!fs::exists(d / "dlio_config", rec)) {
                fs::rename(d / "configs", d / "dlio_config", rec);
                if (!rec) written->renameFolder(d / "configs", d / "dlio_config");
            }
            if (rec) throw RunError("rename " + (d / "configs").string() + " to dlio_config: " + rec.message());
            writeV3Metadata(d, kind, d.filename().string(), cfg, inner, io);
        }
        if (out.status != RunStatus::Complete) {
            res.error = out.error.empty() ? toString(out.status) : out.error;
            manifest.status = toString(out.status);
            manifest.reason = label + ": " + res.error;
            manifest.ended = now();
        }
        writeManifest();
        if (opt.onInvocationDone) opt.onInvocationDone(label, d, out);
        return out.status == RunStatus::Complete;
    };
    for (std::uint64_t w = 1; w <= warmups; ++w) {
        const std::string label = warmups > 1 ? "warm-up " + std::to_string(w) : "warm-up";
        const fs::path d = v3 ? dir / nextTimestamp(lastStamp)
                              : warmups > 1 ? dir / "warmup" / ("warmup-" + std::to_string(w)) : dir / "warmup";
        if (!one(label, d, res.warmups, manifest.warmups)) return res;
    }
    for (std::uint64_t i = 1; i <= runs; ++i) {
        const std::string label = "run " + std::to_string(i) + "/" + std::to_string(runs);
        const fs::path d = v3 ? dir / nextTimestamp(lastStamp) : dir / "runs" / ("run-" + std::to_string(i));
        if (!one(label, d, res.runs, manifest.runs)) return res;
    }
    manifest.status = "complete";
    manifest.ended = now();
    writeManifest();
    res.complete = true;
    if (!writer) return res;
    // The v1.0 generator's report needs DIR/runs/<run>/ without the warm-up: not the v3.0 layout.
    // From what the benchmark wrote, held in memory: the records importResults would make of the folder,
    // made without reading it back. The report is held too, so that aggregate.json compares with it.
    if (!v3) writeMlperfReport(aggregate::importWritten(dir / "runs", *written), dir / "runs", io, written);
    writeAggregateJson(aggregate::importWritten(dir, *written), dir, aggregate::Reduction::Mean, io, written);
    return res;
}

namespace {

// "dataset sizing: …" for a dataset that fits in this machine's RAM; "" otherwise.
std::string sizingLine(const WorkloadConfig& cfg, std::uint64_t accelerators) {
    const HostInfo host = readHostInfo();
    const SizingAdvice sa = sizingAdvice(cfg, accelerators, host.memoryGiB * 1024.0 * 1024.0 * 1024.0);
    return sa.fitsInRam ? "dataset sizing: " + sa.text : std::string();
}

bool cacheCanServe(const WorkloadConfig& cfg) {
    return pageCacheVerdict(PageCacheEvidence{cfg.trainio.cache, {}, cfg.storage.isS3(), false}).warning;
}

} // namespace

std::vector<std::string> runWarnings(const WorkloadConfig& cfg, std::uint64_t accelerators, MetricSemantics semantics) {
    std::vector<std::string> w;
    if (cfg.workflow.train) {
        try {
            MetricOptions mo;
            mo.semantics = semantics;
            mo.excludeStartSteps = cfg.metric.excludeStartSteps;
            mo.excludeEndSteps = cfg.metric.excludeEndSteps;
            mo.expectedSteps = planShard(cfg, 0, std::max<std::uint64_t>(1, accelerators)).stepsPerEpoch;
            if (std::string m = metricWindowWarning(mo); !m.empty()) w.push_back(std::move(m));
        } catch (const InputError&) {
            // no step at all: the pre-flight refuses it, naming the keys
        }
    }
    if (cfg.workflow.checkpoint && cfg.workflow.train && cfg.checkpoint.stepsBetween == 0 &&
        cfg.checkpoint.afterEpoch == 0)
        w.push_back("workflow.checkpoint is on but checkpoint.checkpoint_after_epoch is 0 and steps_between_checkpoints "
                    "unset: no checkpoint will be written");
    if (cfg.workflow.evaluation)
        w.push_back("workflow.evaluation is on: TrainIO emulates the training reads only; evaluation is not run");
    // A dataset that fits in RAM is a warning only where the page cache can serve it (util/page_cache_verdict.h).
    if (const std::string s = sizingLine(cfg, accelerators); !s.empty() && cacheCanServe(cfg)) w.push_back(s);
    return w;
}

std::vector<std::string> runNotes(const WorkloadConfig& cfg, std::uint64_t accelerators) {
    std::vector<std::string> n;
    if (const std::string s = sizingLine(cfg, accelerators); !s.empty() && !cacheCanServe(cfg)) n.push_back(s);
    return n;
}

} // namespace trainio
