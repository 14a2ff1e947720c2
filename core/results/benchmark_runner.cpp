#include "results/benchmark_runner.h"

#include "aggregate/benchmark_report.h"
#include "config/config_loader.h"
#include "results/invocation_files.h"
#include "results/storage_session.h"
#include "util/errors.h"
#include "util/host_info.h"

namespace trainio {
namespace fs = std::filesystem;

RunOutcome runInvocation(const WorkloadConfig& cfg, const fs::path& dir, const InvocationOptions& opt) {
    // The storage side: I/O stack, cache control and metering between epochs, telemetry (trainio: section).
    StorageSession storage(cfg, opt.io);
    if (opt.onStorage) opt.onStorage(storage.emulated());
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
    storage.startTelemetry();
    RunOutcome out = runTraining(cfg, eo);
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
    auto one = [&](const std::string& label, const fs::path& d, std::vector<fs::path>& into) {
        if (opt.onInvocationStart) opt.onInvocationStart(label, d);
        const RunOutcome out = runInvocation(cfg, d, opt.invocation);
        into.push_back(d);
        if (opt.onInvocationDone) opt.onInvocationDone(label, d, out);
        if (out.status != RunStatus::Complete) res.error = out.error.empty() ? toString(out.status) : out.error;
        return out.status == RunStatus::Complete;
    };
    for (std::uint64_t w = 1; w <= opt.warmups; ++w) {
        const std::string label = opt.warmups > 1 ? "warm-up " + std::to_string(w) : "warm-up";
        const fs::path d = opt.warmups > 1 ? dir / "warmup" / ("warmup-" + std::to_string(w)) : dir / "warmup";
        if (!one(label, d, res.warmups)) return res;
    }
    for (std::uint64_t i = 1; i <= opt.runs; ++i) {
        const std::string label = "run " + std::to_string(i) + "/" + std::to_string(opt.runs);
        if (!one(label, dir / "runs" / ("run-" + std::to_string(i)), res.runs)) return res;
    }
    writeMlperfReport(dir / "runs", opt.invocation.io.get());
    writeAggregateJson(dir, aggregate::Reduction::Mean, opt.invocation.io.get());
    res.complete = true;
    return res;
}

std::vector<std::string> runWarnings(const WorkloadConfig& cfg, std::uint64_t accelerators) {
    std::vector<std::string> w;
    if (cfg.workflow.checkpoint)
        w.push_back("workflow.checkpoint is on: TrainIO emulates the training reads only; checkpoints are not written");
    if (cfg.workflow.evaluation)
        w.push_back("workflow.evaluation is on: TrainIO emulates the training reads only; evaluation is not run");
    const HostInfo host = readHostInfo();
    const SizingAdvice sa = sizingAdvice(cfg, accelerators, host.memoryGiB * 1024.0 * 1024.0 * 1024.0);
    if (sa.fitsInRam) w.push_back("dataset sizing: " + sa.text);
    return w;
}

} // namespace trainio
