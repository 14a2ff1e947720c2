#include "results/benchmark_runner.h"

#include "aggregate/benchmark_report.h"
#include "aggregate/labels.h"
#include "checkpoint/checkpoint_run.h"
#include "results/benchmark_manifest.h"
#include "util/clock.h"
#include "config/config_loader.h"
#include "results/invocation_files.h"
#include "results/storage_session.h"
#include "util/errors.h"
#include "util/host_info.h"

#include <chrono>

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
    // The storage side: I/O stack, cache control and metering between epochs, telemetry (trainio: section).
    StorageSession storage(cfg, opt.io);
    if (opt.onStorage) opt.onStorage(storage.emulated());
    storage.onTelemetry = opt.onTelemetry;
    storage.onEpochCache = opt.onEpochCache;
    EngineOptions eo;
    eo.accelerators = opt.accelerators;
    eo.semantics = opt.semantics;
    eo.observer = opt.observer;
    eo.cancel = opt.cancel;
    eo.io = storage.io();
    eo.beforeEpoch = [&](std::uint64_t epoch) { storage.beforeEpoch(epoch); };
    eo.afterEpoch = [&](std::uint64_t epoch, const std::vector<std::uint64_t>& bytes) { storage.afterEpoch(epoch, bytes); };
    const HostInfo host = readHostInfo();
    // The folder first: a folder that cannot be made fails here, before anything is measured, rather
    // than after a run of minutes whose results then have nowhere to go.
    std::error_code ec;
    fs::create_directories(dir / "configs", ec);
    if (ec) throw RunError("create folder " + (dir / "configs").string() + ": " + ec.message() + " (nothing was measured)");
    // The system name the run controls asked for, beside the results (read back on import). A run inside
    // a benchmark has it on the benchmark folder instead.
    if (hasLabels(opt.labels)) aggregate::writeLabelsFile(dir, opt.labels, false, opt.io.get());
    storage.startTelemetry();
    RunOutcome out;
    if (!cfg.workflow.train && cfg.workflow.checkpoint) {
        // DLIO's checkpoint-only mode (main.py: checkpoint_only when train is off and checkpoint on).
        checkpoint::CheckpointRunOptions co;
        co.accelerators = opt.accelerators;
        co.io = storage.io();
        co.cancel = opt.cancel;
        co.onEvent = opt.onCheckpoint;
        out = checkpoint::runCheckpointOnly(cfg, co);
        out.metricOptions.semantics = opt.semantics;
    } else {
        // Checkpoints during training (workflow.checkpoint with train), planned and refused up front.
        std::unique_ptr<checkpoint::Checkpointer> ckpt;
        if (cfg.workflow.checkpoint) {
            auto plan = checkpoint::planCheckpoint(cfg, opt.accelerators);
            checkpoint::checkpointPreflight(cfg, plan, 1);
            checkpoint::Checkpointer::Options co;
            co.io = storage.io();
            co.cancel = opt.cancel;
            co.onEvent = opt.onCheckpoint;
            ckpt = std::make_unique<checkpoint::Checkpointer>(cfg, std::move(plan), co);
            eo.checkpointer = ckpt.get();
        }
        out = runTraining(cfg, eo);
        if (ckpt) out.checkpoints = ckpt->results();
    }
    if (opt.onStorage) opt.onStorage(nullptr); // the device is gone with the run
    out.warnings = storage.stop();
    InvocationContext ctx;
    ctx.commandLine = opt.commandLine;
    ctx.io = opt.io.get();
    // The storage files first, through the same backend as the rest: a failure there is a warning on the
    // result, never the loss of what was measured.
    for (auto& w : storage.write(dir, ctx.io)) out.warnings.push_back(std::move(w));
    ctx.logLines = opt.warnings;
    ctx.logLines.insert(ctx.logLines.end(), out.warnings.begin(), out.warnings.end());
    writeInvocationFolder(dir, cfg, out, host, ctx);
    return out;
}

BenchmarkResult runBenchmark(const WorkloadConfig& cfg, const fs::path& dir, const BenchmarkOptions& opt) {
    BenchmarkResult res;
    IoBackend* io = opt.invocation.io.get();
    // The manifest names exactly this benchmark's warm-up and runs (the importer groups by it), and
    // says how far it got: written before the first invocation and after each one.
    BenchmarkManifest manifest;
    manifest.plannedRuns = opt.runs;
    manifest.plannedWarmups = opt.warmups;
    manifest.accelerators = opt.invocation.accelerators;
    manifest.system = opt.invocation.labels.system;
    manifest.started = now();
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw RunError("create folder " + dir.string() + ": " + ec.message() + " (nothing was measured)");
    writeBenchmarkManifest(dir, manifest, io);
    if (hasLabels(opt.invocation.labels)) aggregate::writeLabelsFile(dir, opt.invocation.labels, false, io);
    InvocationOptions inner = opt.invocation;
    inner.labels = {}; // on the benchmark folder, which its invocations inherit
    auto one = [&](const std::string& label, const fs::path& d, std::vector<fs::path>& into, std::vector<std::string>& listed) {
        if (opt.onInvocationStart) opt.onInvocationStart(label, d);
        listed.push_back(d.lexically_relative(dir).generic_string());
        writeBenchmarkManifest(dir, manifest, io);
        const RunOutcome out = runInvocation(cfg, d, inner);
        into.push_back(d);
        if (out.status != RunStatus::Complete) {
            res.error = out.error.empty() ? toString(out.status) : out.error;
            manifest.status = toString(out.status);
            manifest.reason = label + ": " + res.error;
            manifest.ended = now();
        }
        writeBenchmarkManifest(dir, manifest, io);
        if (opt.onInvocationDone) opt.onInvocationDone(label, d, out);
        return out.status == RunStatus::Complete;
    };
    for (std::uint64_t w = 1; w <= opt.warmups; ++w) {
        const std::string label = opt.warmups > 1 ? "warm-up " + std::to_string(w) : "warm-up";
        const fs::path d = opt.warmups > 1 ? dir / "warmup" / ("warmup-" + std::to_string(w)) : dir / "warmup";
        if (!one(label, d, res.warmups, manifest.warmups)) return res;
    }
    for (std::uint64_t i = 1; i <= opt.runs; ++i) {
        const std::string label = "run " + std::to_string(i) + "/" + std::to_string(opt.runs);
        if (!one(label, dir / "runs" / ("run-" + std::to_string(i)), res.runs, manifest.runs)) return res;
    }
    manifest.status = "complete";
    manifest.ended = now();
    writeBenchmarkManifest(dir, manifest, io);
    writeMlperfReport(dir / "runs", io);
    writeAggregateJson(dir, aggregate::Reduction::Mean, io);
    res.complete = true;
    return res;
}

std::vector<std::string> runWarnings(const WorkloadConfig& cfg, std::uint64_t accelerators) {
    std::vector<std::string> w;
    if (cfg.workflow.checkpoint && cfg.workflow.train && cfg.checkpoint.stepsBetween == 0 &&
        cfg.checkpoint.afterEpoch == 0)
        w.push_back("workflow.checkpoint is on but checkpoint.checkpoint_after_epoch is 0 and steps_between_checkpoints "
                    "unset: no checkpoint will be written");
    if (cfg.workflow.evaluation)
        w.push_back("workflow.evaluation is on: TrainIO emulates the training reads only; evaluation is not run");
    const HostInfo host = readHostInfo();
    const SizingAdvice sa = sizingAdvice(cfg, accelerators, host.memoryGiB * 1024.0 * 1024.0 * 1024.0);
    if (sa.fitsInRam) w.push_back("dataset sizing: " + sa.text);
    return w;
}

} // namespace trainio
