#include "commands.h"

#include "cli_args.h"
#include "engine/checkpoint_run.h"
#include "progress_reporter.h"
#include "results/journal.h"

#include "config/config_loader.h"
#include "config/value_ranges.h"
#include "dataset/dataset_generator.h"
#include "dataset/dataset_layout.h"
#include "dist/communicator.h"
#include "engine/training_engine.h"
#include "io/fault_injection.h"
#include "preflight/preflight.h"
#include "session/benchmark_runner.h"
#include "results/invocation_files.h"
#include "store/run_files.h"
#include "trace/job_vs_replay.h"
#include "util/errors.h"
#include "util/host_info.h"
#include <optional>

#include <nlohmann/json.hpp>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <tuple>
#include <unistd.h>

namespace trainio::cli {
namespace fs = std::filesystem;

namespace {

std::atomic<bool> g_cancel{false};
std::atomic<int> g_signals{0}; // lock-free, so safe in a signal handler
dist::Communicator* g_comm = nullptr; // set under mpirun (main.cpp)

bool isProcessZero() { return !g_comm || g_comm->rank() == 0; }

// Under mpirun: a check on every process, all go on only when it passed everywhere (session/session.h).
void onEveryProcess(const std::function<void()>& check) { session::onEveryProcess(g_comm, &g_cancel, check); }

// Under mpirun: every process's JSON report, in rank order.
std::vector<nlohmann::json> reportsOfEveryProcess(const nlohmann::json& mine, const std::string& command) {
    return session::reportsOfEveryProcess(*g_comm, &g_cancel, mine, command);
}

extern "C" void onSignal(int sig) {
    if (++g_signals > 1) _exit(128 + sig); // a second signal: leave at once
    g_cancel.store(true);
    const char msg[] = "\ntrainio-cli: interrupted, stopping after the current step (again to quit now)\n";
    ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)ignored;
}

std::string joinArgs(const std::string& cmd, const Args& args) {
    std::string s = "trainio-cli " + cmd;
    for (const auto& a : args) s += " " + a;
    return s;
}

bool wantsHelp(const Args& args, const char* text) {
    for (const auto& a : args)
        if (a == "--help" || a == "-h") {
            std::fputs(text, stdout);
            return true;
        }
    return false;
}

LoadedConfig loadFromArgs(const ParsedArgs& p, bool printWarnings = true) {
    const auto config = p.value("--config");
    if (!config) throw InputError("--config FILE is required (a DLIO workload YAML/JSON or a preset name)");
    std::vector<std::string> overrides = p.overrides;
    // Options that are config keys, applied last so that they win over the preset's values and are
    // validated there like any value: --accelerator-type is `accelerator` (workload=<model>_<accelerator>),
    // --storage-profile is trainio.storage.profile (an emulated device, resources/storage-profiles/).
    for (const auto& [option, key, expected] :
         {std::tuple{"--accelerator-type", "++workload.accelerator=", "an accelerator name such as a100, h100, b200"},
          std::tuple{"--storage-profile", "++trainio.storage.profile=", "a storage profile name or file"}}) {
        const auto v = p.value(option);
        if (!v) continue;
        if (v->find_first_not_of(" \t") == std::string::npos)
            throw InputError(std::string(option) + " = '" + *v + "': expected " + expected);
        overrides.push_back(key + *v);
    }
    LoadedConfig lc = loadConfigOrPreset(*config, overrides);
    // --submission (run, benchmark) is trainio.submission: the MLPerf Storage rules then fail the result. Set
    // on the configuration (configs/config.yaml records it), not as an override the closed division would count.
    if (p.has("--submission")) lc.config.trainio.submission = true;
    if (printWarnings)
        for (const auto& w : lc.warnings) std::fprintf(stderr, "warning: %s\n", w.message.c_str());
    return lc;
}

// --semantics wins; without it the config's MLPerf round (a preset's semantics), else v2.
MetricSemantics semanticsFrom(const ParsedArgs& p, const WorkloadConfig& cfg) { return resolveSemantics(p.value("--semantics"), cfg); }

// Without --semantics, a TrainIO folder is recomputed with the semantics it was run with (its
// trainio_run.json), so that `metrics DIR` agrees with the folder's summary.json; others with v2.
MetricSemantics recordedSemantics(const ParsedArgs& p, const std::filesystem::path& dir) {
    if (const auto chosen = p.value("--semantics")) return semanticsWord(*chosen);
    const store::RunRecord run = store::readRunRecord(dir, store::treeOf(dir), store::ReadBounds{});
    if (!run.unreadable.empty()) throw InputError(run.unreadable);
    if (!run.semantics) return MetricSemantics::DlioV2; // not TrainIO's folder, or before "semantics" existed
    if (const auto sem = parseSemantics(*run.semantics)) return *sem;
    throw InputError((dir / store::kRunRecordFile).string() + ": semantics = '" + *run.semantics +
                     "': expected v1, v2 or v3 (or pass --semantics)");
}

std::uint64_t acceleratorsFrom(const ParsedArgs& p) {
    const ValueRange r = *valueRange("accelerators"); // one range for the CLI and the GUI's field
    const auto given =
        p.unsignedValue("--accelerators", static_cast<unsigned long long>(r.min), static_cast<unsigned long long>(r.max));
    const auto perProcess = p.unsignedValue("--accelerators-per-process", static_cast<unsigned long long>(r.min),
                                            static_cast<unsigned long long>(r.max));
    if (!g_comm) {
        if (perProcess)
            throw InputError("--accelerators-per-process " + std::to_string(*perProcess) +
                             ": only for runs under mpirun (N processes × K accelerators); here use --accelerators R");
        return given.value_or(1);
    }
    // Under mpirun: N processes × K accelerators each (docs/mpi.md).
    const std::uint64_t total = static_cast<std::uint64_t>(g_comm->size()) * perProcess.value_or(1);
    if (total > r.max)
        throw InputError(std::to_string(g_comm->size()) + " processes × --accelerators-per-process " +
                         std::to_string(perProcess.value_or(1)) + " = " + std::to_string(total) +
                         " accelerators: expected at most " + std::to_string(static_cast<unsigned long long>(r.max)));
    if (given && *given != total)
        throw InputError("--accelerators " + std::to_string(*given) + " under mpirun with " + std::to_string(g_comm->size()) +
                         " processes × " + std::to_string(perProcess.value_or(1)) +
                         " accelerators per process (--accelerators-per-process): expected " + std::to_string(total) +
                         " or no --accelerators");
    return total;
}

// Process 0 reports (progress line, messages, --live-json) for every rank; the others stay silent.
std::unique_ptr<ProgressReporter> makeProgress(const ParsedArgs& p, const WorkloadConfig& cfg) {
    const bool zero = isProcessZero();
    auto progress = std::make_unique<ProgressReporter>(p.has("--quiet") || !zero, zero ? p.value("--live-json").value_or("") : "",
                                                       cfg.dataset.recordLength, cfg.reader.batchSize, cfg.train.epochs);
    if (!zero) progress->setSilent();
    return progress;
}

// Test hook, documented in docs/reliability.md: TRAINIO_FAULTS="read:EIO:img_3_of:after=65536;…" wraps
// the POSIX backend in a FaultInjectingBackend so that tests can check, on the real binary, what a
// failing disk does to the exit code and the folders. Unset (always, in normal use): plain POSIX.
std::shared_ptr<IoBackend> ioBackend() {
    const char* spec = std::getenv("TRAINIO_FAULTS");
    if (!spec || !*spec) return nullptr;
    try {
        return withFaults(makePosixBackend(), spec);
    } catch (const InputError& e) {
        throw InputError(std::string("TRAINIO_FAULTS: ") + e.what());
    }
}

// Pre-flight messages outside a run's progress line (validate, datagen): straight to stderr.
struct StderrObserver final : session::SessionObserver {
    void onMessage(const std::string& text) override { std::fprintf(stderr, "%s\n", text.c_str()); }
};

// Everything that can be known to fail before measuring (core/preflight), on every process: exit 2
// naming each problem.
void checkBeforeMeasuring(const WorkloadConfig& cfg, const PreflightRequest& req) {
    StderrObserver quiet;
    session::checkEverywhere(cfg, req, g_comm, &g_cancel, quiet);
}

void printHeadline(const fs::path& dir, const RunOutcome& out) {
    if (!out.writesResults) return; // process 0 of an MPI job speaks for all
    const InvocationMetrics& m = out.metrics;
    const double cpuPerSample = out.samplesRead ? out.cpuSeconds / static_cast<double>(out.samplesRead) * 1e6 : 0.0;
    std::fprintf(stderr,
                 "%s: AU %.2f %% (±%.2f)  %.1f samples/s  %.1f MiB/s  %s  | read %.1f MiB, CPU %.2f s (%.1f µs/sample) "
                 "| %s\n",
                 dir.string().c_str(), m.auMean, m.auStdev, m.throughputMean, m.ioMeanMiB,
                 m.pass ? "PASS" : "FAIL", static_cast<double>(out.bytesRead) / 1048576.0, out.cpuSeconds, cpuPerSample,
                 toString(out.status));
    for (const auto& w : out.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    if (out.status == RunStatus::Failed) std::fprintf(stderr, "error: %s\n", out.error.c_str());
}

// A checkpoint-only invocation's headline: the checkpoint size and the save/load means DLIO's summary has.
void printCheckpointHeadline(const fs::path& dir, const RunOutcome& out) {
    if (!out.writesResults) return; // process 0 of an MPI job speaks for all
    const auto save = checkpoint::checkpointMetrics(out.checkpoints, checkpoint::Operation::Write);
    const auto load = checkpoint::checkpointMetrics(out.checkpoints, checkpoint::Operation::Read);
    std::fprintf(stderr, "%s: checkpoint %.4f GiB | save %llu: %.4f GiB/s, %.4f s | load %llu: %.4f GiB/s, %.4f s | %s\n",
                 dir.string().c_str(), out.checkpoints.sizeGiB, static_cast<unsigned long long>(save.count), save.ioMeanGiBs,
                 save.durationMean, static_cast<unsigned long long>(load.count), load.ioMeanGiBs, load.durationMean,
                 toString(out.status));
    // Who set the pace of each of rank 0's checkpoints: the storage or the writer making the bytes.
    std::uint64_t ioBound = 0, genBound = 0;
    double storage = 0, client = 0;
    if (!out.checkpoints.perRank.empty())
        for (const auto& rec : out.checkpoints.perRank[0]) {
            if (!rec.complete) continue;
            (rec.generationBound() ? genBound : ioBound) += 1;
            storage += rec.storageSeconds;
            client += rec.clientSeconds();
        }
    if (ioBound + genBound > 0)
        std::fprintf(stderr, "rank 0's checkpoints: %llu I/O-bound, %llu generation-bound (%.3f s in storage calls, %.3f s making the bytes)\n",
                     static_cast<unsigned long long>(ioBound), static_cast<unsigned long long>(genBound), storage, client);
    for (const auto& w : out.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    if (out.status == RunStatus::Failed) std::fprintf(stderr, "error: %s\n", out.error.c_str());
}

// What the command line shows of a session (core/session): messages and generation on the progress line,
// each invocation's headline as it ends.
class CliObserver final : public session::SessionObserver {
public:
    // accelerators: in all (a replay at another scale than its job is not the job).
    CliObserver(ProgressReporter& progress, const WorkloadConfig& cfg, bool labelled, std::uint64_t accelerators)
        : progress_(progress), checkpointOnly_(!cfg.workflow.train && cfg.workflow.checkpoint), labelled_(labelled),
          capturedJob_(trace::capturedJobOf(cfg.trainio.capturedJob,
                                            trace::derivedFingerprint(cfg, static_cast<std::int64_t>(accelerators)))) {}
    void onMessage(const std::string& text) override { progress_.onMessage(text); }
    void onCheckpointPlan(const checkpoint::CheckpointPlan& plan) override {
        std::fprintf(stderr, "%s\n", checkpoint::checkpointSizeLine(plan).c_str());
        for (const auto& n : plan.notes) progress_.onMessage(n);
    }
    void onGeneration(const GenerationProgress& gp) override {
        progress_.onGeneration(gp.filesDone, gp.filesTotal, gp.bytesDone, gp.bytesTotal, gp.seconds);
    }
    void onGenerated(const GenerationResult& r, std::uint64_t processes) override {
        progress_.finishLine();
        if (!isProcessZero()) return;
        std::fprintf(stderr, "datagen: %llu files written, %llu already complete, %.1f MiB in %.2f s (%.1f MiB/s)%s%s\n",
                     static_cast<unsigned long long>(r.filesWritten), static_cast<unsigned long long>(r.filesSkipped),
                     static_cast<double>(r.bytesWritten) / 1048576.0, r.seconds,
                     r.seconds > 0 ? static_cast<double>(r.bytesWritten) / 1048576.0 / r.seconds : 0.0,
                     processes > 1 ? (" by " + std::to_string(processes) + " processes").c_str() : "",
                     r.cancelled ? " — cancelled" : "");
    }
    void onInvocationStart(const std::string& label, const fs::path& dir, std::size_t) override {
        if (labelled_) progress_.setLabel(label);
        progress_.onInvocationStart(dir.string());
    }
    void onInvocationDone(const std::string&, const fs::path& dir, const RunOutcome& out) override {
        progress_.finishLine();
        if (checkpointOnly_) printCheckpointHeadline(dir, out);
        else printHeadline(dir, out);
        // A replay of a captured job (docs/capture.md): the real job beside it.
        if (capturedJob_ && out.writesResults && out.status == RunStatus::Complete) {
            trace::JobVersusReplay j = *capturedJob_;
            j.replayAuPercent = out.metrics.auMean;
            j.replaySamplesPerSecond = out.metrics.throughputMean;
            std::fprintf(stderr, "real job (trace %s) vs replay:\n%s", j.trace.c_str(), trace::jobVersusReplayText(j).c_str());
        }
        progress_.onInvocationDone(dir.string(), toString(out.status), out.metrics.auMean);
    }

private:
    ProgressReporter& progress_;
    bool checkpointOnly_, labelled_;
    std::optional<trace::JobVersusReplay> capturedJob_;
};

// DLIO's checkpoint-only mode: one line per checkpoint as rank 0 finishes it.
std::function<void(const checkpoint::CheckpointEvent&)> checkpointLines(const WorkloadConfig& cfg, ProgressReporter& progress) {
    const std::uint64_t writes = checkpoint::checkpointsToWrite(cfg), reads = checkpoint::checkpointsToRead(cfg);
    return [&progress, writes, reads](const checkpoint::CheckpointEvent& ev) {
        if (ev.rank != 0) return;
        const bool write = ev.op == checkpoint::Operation::Write;
        char line[256];
        if (ev.phase == checkpoint::CheckpointEvent::Phase::Completed)
            std::snprintf(line, sizeof line, "checkpoint %s %llu/%llu (rank 0): %.3f GiB in %.3f s (%.0f %% in storage calls: %s)",
                          checkpoint::operationName(ev.op), static_cast<unsigned long long>(ev.index + 1),
                          static_cast<unsigned long long>(write ? writes : reads), static_cast<double>(ev.bytes) / 1073741824.0,
                          ev.seconds, ev.seconds > 0 ? 100.0 * ev.storageSeconds / ev.seconds : 100.0,
                          checkpoint::boundName(checkpoint::generationBound(ev.seconds, ev.storageSeconds)));
        else if (ev.phase == checkpoint::CheckpointEvent::Phase::Failed)
            std::snprintf(line, sizeof line, "checkpoint %s %llu failed: %s", checkpoint::operationName(ev.op),
                          static_cast<unsigned long long>(ev.index + 1), ev.error.c_str());
        else
            return;
        progress.onMessage(line);
    };
}

const char* kValidateHelp =
    "Usage: trainio-cli validate --config FILE|PRESET [++workload.section.key=value ...] [--accelerators R]\n"
    "                            [--accelerator-type NAME] [--output DIR]\n"
    "Checks a workload and what a run of it needs: at least one step per accelerator; a dataset that is\n"
    "there matches the config (count, names, sizes, format), or, not generated yet, its data folder has room\n"
    "for it; with --output, that DIR can be written. Exit 0 if it can run, else 2 with one line per problem\n"
    "naming the key, file or folder and what was expected. run, benchmark and datagen make the same checks\n"
    "before they measure or write anything.\n"
    "--accelerator-type NAME: the accelerator in workload=<model>_<NAME> (configs/overrides.yaml); default:\n"
    "the preset's, else the config's `accelerator` key, else 'generic'. Lower case, no '_'.\n";
// run and benchmark: what --submission changes (docs/aggregation.md, "Checks").
#define TRAINIO_SUBMISSION_HELP                                                                                   \
    "--submission: the run is an MLPerf Storage submission attempt (trainio.submission: true): the submission\n"  \
    "rules (5 runs and a warm-up, a dataset of 5 x the clients' memory, only the closed division's parameters)\n" \
    "are checks that fail it. Without it they are listed as \"not a submission\", not as failures.\n"
// The paragraph every command that runs under mpirun shows.
#define TRAINIO_MPI_HELP                                                                                          \
    "Under mpirun (mpirun -np N trainio-cli ...): N processes, each hosting --accelerators-per-process K\n"       \
    "emulated accelerators (default 1), N x K in all; every process checks the config and dataset first,\n"     \
    "process 0 writes the results and reports for all (docs/mpi.md).\n"
const char* kDatagenHelp = "Usage: trainio-cli datagen --config FILE [overrides] [--quiet] [--live-json FILE]\n"
                           "Generates the dataset in dataset.data_folder (resumable: complete files are kept).\n"
                           "Under mpirun the N processes write every N-th file each (as DLIO's ranks do).\n";
const char* kVerifyHelp = "Usage: trainio-cli verify --config FILE [overrides]\n"
                          "Checks every dataset file exists with the expected size and framing.\n"
                          "Under mpirun each process checks its share of the files; process 0 reports all.\n";
const char* kCleanHelp = "Usage: trainio-cli clean --config FILE [overrides]\n"
                         "Deletes a dataset folder TrainIO generated (marker file), only the files it wrote.\n"
                         "Under mpirun process 0 deletes while the others wait for its result.\n";
const char* kRunHelp =
    "Usage: trainio-cli run --config FILE [overrides] --output DIR [--accelerators R] [--semantics v1|v2|v3]\n"
    "                       [--accelerator-type NAME] [--storage-profile NAME|FILE] [--quiet] [--live-json FILE]\n"
    "                       [--system NAME] [--description TEXT] [--accelerators-per-process K] [--submission]\n"
    "One invocation (all epochs) into DIR: summary.json, <rank>_output.json, <rank>_per_epoch_stats.json,\n"
    "configs/, trainio_run.json, trainio.log, trainio_io.json (bytes from the page cache vs storage per epoch),\n"
    "telemetry.csv/json. Exit 0 when complete, 1 when it failed or was interrupted.\n"
    "--semantics v1|v2|v3: the DLIO generation whose metrics to compute (v3 = MLPerf Storage v3.0's DLIO,\n"
    "which also warms the readers before each epoch outside the timed window). Without it, the config's\n"
    "trainio.mlperf_round decides (a v1.0 preset v1, a v3.0 preset v3), else v2.\n"
    "--storage-profile NAME|FILE: read through an emulated device (trainio.storage.profile; the profiles are\n"
    "in share/trainio/storage-profiles: nvme, sata-ssd, hdd, nfs-10gbe, object-store).\n"
    "With workflow.train False and workflow.checkpoint True it is DLIO's checkpoint-only mode: it writes\n"
    "checkpoint.num_checkpoints_write checkpoints into checkpoint.checkpoint_folder, reads back\n"
    "num_checkpoints_read, and writes summary.json with DLIO's checkpoint keys plus trainio_checkpoint.json\n"
    "(docs/checkpointing.md); trainio.checkpoint_scale shrinks every file for a workstation.\n"
    TRAINIO_SUBMISSION_HELP
    TRAINIO_MPI_HELP;
const char* kBenchmarkHelp =
    "Usage: trainio-cli benchmark --config FILE [overrides] --output DIR [--runs 5] [--warmup 1]\n"
    "                             [--accelerators R] [--semantics v1|v2|v3] [--accelerator-type NAME]\n"
    "                             [--storage-profile NAME|FILE] [--system NAME] [--description TEXT]\n"
    "                             [--layout trainio|mlperf-v3] [--quiet] [--live-json FILE]\n"
    "                             [--accelerators-per-process K] [--submission]\n"
    "A warm-up invocation into DIR/warmup/ and measured ones into DIR/runs/run-1 … run-N/, then\n"
    "DIR/runs/mlperf_storage_report.json and DIR/aggregate.json; DIR/trainio_benchmark.json names the\n"
    "warm-up and runs (the importer groups exactly those).\n"
    "--system NAME, --description TEXT: the system under test, written to trainio_labels.json beside the\n"
    "results (run and benchmark); results are named and grouped by it.\n"
    "--layout trainio|mlperf-v3: mlperf-v3 writes the MLPerf Storage v3.0 results tree instead,\n"
    "DIR/NAME/training/<model>/run/<YYYYMMDD_HHMMSS>/ (the earliest is the warm-up), or for a checkpoint-only\n"
    "workload one DIR/NAME/checkpointing/<model>/<YYYYMMDD_HHMMSS>/; needs --system NAME.\n"
    TRAINIO_SUBMISSION_HELP
    TRAINIO_MPI_HELP;
const char* kMetricsHelp = "Usage: trainio-cli metrics DIR [--semantics v1|v2|v3]\n"
                           "Recomputes an invocation's metrics from its per-rank step records and prints them as\n"
                           "JSON with summary.json's metric keys.\n"
                           "--semantics: v2 (DLIO >= 2.0), v1 (DLIO 1.0, MLPerf Storage v1.0), v3 (MLPerf Storage\n"
                           "v3.0's DLIO: throughput counts the steps in the metric window; docs/metrics.md). Default:\n"
                           "what the folder's trainio_run.json records, else v2.\n";

// The start of every command that runs under mpirun: arguments, config and accelerator count, checked
// on every process (the same arguments everywhere, but a config file may be missing on one host).
OptionSpec runSpec();
struct Start {
    ParsedArgs p;
    LoadedConfig lc;
    std::uint64_t accelerators = 1; // in all (N processes × K under mpirun)
};
Start startEverywhere(const Args& args) {
    Start st;
    onEveryProcess([&] {
        st.p = parseArgs(args, runSpec());
        st.lc = loadFromArgs(st.p, isProcessZero());
        st.accelerators = acceleratorsFrom(st.p);
    });
    return st;
}

OptionSpec runSpec() {
    OptionSpec s;
    s.valued = {"--config", "--output", "--accelerators", "--semantics", "--live-json", "--runs", "--warmup",
                "--accelerator-type", "--storage-profile", "--system", "--description", "--layout",
                "--accelerators-per-process"};
    s.flags = {"--quiet", "--submission"};
    s.overrides = true;
    return s;
}

} // namespace

void installSignalHandlers() {
    struct sigaction sa {};
    sa.sa_handler = onSignal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    // mpirun forwards SIGUSR1 to every process at once (SIGINT to mpirun reaches them as SIGTERM only
    // after odls_base_sigkill_timeout, one second before SIGKILL): the graceful stop of an MPI run.
    sigaction(SIGUSR1, &sa, nullptr);
}

const std::atomic<bool>* cancelFlag() { return &g_cancel; }

void setCommunicator(dist::Communicator* comm) { g_comm = comm; }
bool reportsErrors() { return isProcessZero(); }
bool isMultiProcess() { return g_comm != nullptr; }
dist::Communicator* communicator() { return g_comm; }

int runValidateCommand(const Args& args) {
    if (wantsHelp(args, kValidateHelp)) return 0;
    OptionSpec spec;
    spec.valued = {"--config", "--accelerators", "--accelerator-type", "--output", "--storage-profile"};
    spec.overrides = true;
    const ParsedArgs p = parseArgs(args, spec);
    const LoadedConfig lc = loadFromArgs(p);
    const WorkloadConfig& c = lc.config;
    std::string checkpointLine;
    if (c.workflow.checkpoint) {
        // The checkpoint DLIO would write (and what it refuses); checkpoint-only mode reads no dataset.
        const checkpoint::CheckpointPlan plan = checkpoint::planCheckpoint(c, acceleratorsFrom(p));
        checkpoint::checkpointPreflight(c, plan, 0);
        if (!c.workflow.train) {
            std::printf("valid: %s\n  model %s, checkpoint-only: %llu written, %llu read\n  %s\n", c.sourcePath.c_str(),
                        c.model.name.c_str(), static_cast<unsigned long long>(checkpoint::checkpointsToWrite(c)),
                        static_cast<unsigned long long>(checkpoint::checkpointsToRead(c)),
                        checkpoint::checkpointSizeLine(plan).c_str());
            return 0;
        }
        checkpointLine = "  " + checkpoint::checkpointSizeLine(plan) + "\n";
    }
    // A dataset not generated yet is no fault of the workload: then check the room datagen needs instead.
    // A dataset that is there must match.
    WorkloadConfig planned = c;
    std::error_code ec;
    if (!fs::is_directory(DatasetLayout(c.dataset).root(), ec)) planned.workflow.generateData = true;
    PreflightRequest req;
    req.action = PreflightAction::Run;
    req.accelerators = acceleratorsFrom(p);
    if (const auto out = p.value("--output")) req.output = *out;
    req.generateFirst = planned.workflow.generateData;
    req.roomIsAdvisory = true;
    checkBeforeMeasuring(planned, req);
    const HostInfo host = readHostInfo();
    const SizingAdvice sa = sizingAdvice(c, acceleratorsFrom(p), host.memoryGiB * 1024.0 * 1024.0 * 1024.0);
    std::printf("valid: %s\n  model %s, format %s, %llu files × %llu samples of %.0f bytes (stdev %.0f), batch %llu, "
                "%llu reader threads, %llu epochs, compute %.6g s, AU threshold %.0f %%\n  sizing: %s\n",
                c.sourcePath.c_str(), c.model.name.c_str(), toString(c.dataset.format),
                static_cast<unsigned long long>(c.dataset.numFilesTrain),
                static_cast<unsigned long long>(c.dataset.numSamplesPerFile), c.dataset.recordLength,
                c.dataset.recordLengthStdev, static_cast<unsigned long long>(c.reader.batchSize),
                static_cast<unsigned long long>(c.reader.readThreads), static_cast<unsigned long long>(c.train.epochs),
                c.train.computationTime.expectedSeconds(), c.metric.au * 100, sa.text.c_str());
    std::printf("%s", checkpointLine.c_str());
    return 0;
}

int runDatagenCommand(const Args& args) {
    if (wantsHelp(args, kDatagenHelp)) return 0;
    const Start st = startEverywhere(args);
    const ParsedArgs& p = st.p;
    const LoadedConfig& lc = st.lc;
    PreflightRequest req;
    req.action = PreflightAction::Datagen;
    req.invocations = 0;
    checkBeforeMeasuring(lc.config, req);
    auto progress = makeProgress(p, lc.config);
    CliObserver obs(*progress, lc.config, false, st.accelerators);
    return session::generateEverywhere(lc.config, g_comm, &g_cancel, ioBackend(), obs).cancelled ? 1 : 0;
}

int runVerifyCommand(const Args& args) {
    if (wantsHelp(args, kVerifyHelp)) return 0;
    const Start st = startEverywhere(args);
    const LoadedConfig& lc = st.lc;
    // Under mpirun each process checks its share of the files (generation's split); process 0 reports all.
    VerifyResult r = g_comm ? verifyDataset(lc.config, &g_cancel, static_cast<std::uint64_t>(g_comm->rank()),
                                            static_cast<std::uint64_t>(g_comm->size()))
                            : verifyDataset(lc.config, &g_cancel);
    if (g_comm) {
        const nlohmann::json mine{{"ok", r.filesOk}, {"missing", r.filesMissing}, {"bad", r.filesBad}, {"problems", r.problems}};
        r = VerifyResult{};
        for (const nlohmann::json& j : reportsOfEveryProcess(mine, "verify")) {
            r.filesOk += j["ok"].get<std::uint64_t>();
            r.filesMissing += j["missing"].get<std::uint64_t>();
            r.filesBad += j["bad"].get<std::uint64_t>();
            for (const auto& pr : j["problems"]) r.problems.push_back(pr.get<std::string>());
        }
    }
    if (isProcessZero()) {
        for (const auto& pr : r.problems) std::fprintf(stderr, "problem: %s\n", pr.c_str());
        std::printf("verify: %llu files ok, %llu missing, %llu bad\n", static_cast<unsigned long long>(r.filesOk),
                    static_cast<unsigned long long>(r.filesMissing), static_cast<unsigned long long>(r.filesBad));
    }
    return (r.filesMissing || r.filesBad) ? 1 : 0;
}

int runCleanCommand(const Args& args) {
    if (wantsHelp(args, kCleanHelp)) return 0;
    const Start st = startEverywhere(args);
    const LoadedConfig& lc = st.lc;
    // Under mpirun each process removes its share of the files (generation's split), then, once all have,
    // process 0 makes the last pass: whatever is left, the marker and the folders (docs/mpi.md).
    CleanResult r;
    std::uint64_t sharedRemoved = 0;
    if (g_comm) {
        CleanResult mine;
        onEveryProcess([&] {
            mine = cleanDataset(lc.config, static_cast<std::uint64_t>(g_comm->rank()), static_cast<std::uint64_t>(g_comm->size()));
        });
        for (const nlohmann::json& j : reportsOfEveryProcess(nlohmann::json{{"removed", mine.filesRemoved}}, "clean"))
            sharedRemoved += j["removed"].get<std::uint64_t>();
    }
    onEveryProcess([&] {
        if (isProcessZero()) r = cleanDataset(lc.config);
    });
    r.filesRemoved += sharedRemoved;
    if (!isProcessZero()) return 0;
    std::printf("clean: removed %llu files and %llu folders from %s\n", static_cast<unsigned long long>(r.filesRemoved),
                static_cast<unsigned long long>(r.dirsRemoved), lc.config.dataset.dataFolder.c_str());
    if (r.filesRemaining > 0) {
        std::fprintf(stderr, "error: %llu dataset file(s) are still there (first: %s); they are not regular files "
                             "TrainIO wrote, or lie below a symbolic link: remove them by hand\n",
                     static_cast<unsigned long long>(r.filesRemaining), r.firstRemaining.c_str());
        return 1;
    }
    return 0;
}

// `run` and `benchmark`: one session (core/session) with the command line's progress line and headlines.
int runSessionCommand(const Args& args, session::SessionMode mode) {
    const bool benchmark = mode == session::SessionMode::Benchmark;
    const Start st = startEverywhere(args);
    const ParsedArgs& p = st.p;
    const WorkloadConfig& cfg = st.lc.config;
    const auto output = p.value("--output");
    if (!output) throw InputError("--output DIR is required");
    session::SessionRequest req;
    req.config = cfg;
    req.mode = mode;
    req.output = *output;
    req.accelerators = st.accelerators;
    if (benchmark) {
        req.runs = p.unsignedValue("--runs", 1, 1000).value_or(5);
        req.warmups = p.unsignedValue("--warmup", 0, 10).value_or(1);
        if (const auto l = p.value("--layout")) {
            if (*l == "mlperf-v3") req.layout = BenchmarkLayout::MlperfV3;
            else if (*l != "trainio")
                throw InputError("--layout = '" + *l + "': expected trainio (DIR/warmup, DIR/runs/run-N) or mlperf-v3 "
                                 "(DIR/NAME/training/<model>/run/<timestamp>)");
        }
    }
    auto progressPtr = makeProgress(p, cfg);
    ProgressReporter& progress = *progressPtr;
    InvocationOptions& io = req.invocation;
    io.comm = g_comm;
    io.semantics = semanticsFrom(p, cfg);
    io.observer = &progress;
    io.cancel = &g_cancel;
    io.io = ioBackend();
    io.commandLine = redactSecretsInText(joinArgs(benchmark ? "benchmark" : "run", args));
    io.labels = labelsFrom(p);
    if (!cfg.workflow.train && cfg.workflow.checkpoint) io.onCheckpoint = checkpointLines(cfg, progress);
    CliObserver obs(progress, cfg, benchmark, st.accelerators);
    session::Session s(req, obs);
    const session::SessionResult r = s.run();
    if (!r.measured) return r.cancelled ? 1 : 0;
    if (benchmark && !r.complete) return 1;
    if (isProcessZero()) std::printf("%s\n", (benchmark ? r.resultFolder : r.resultFolder / "summary.json").string().c_str());
    return r.complete ? 0 : 1;
}

int runRunCommand(const Args& args) {
    if (wantsHelp(args, kRunHelp)) return 0;
    return runSessionCommand(args, session::SessionMode::Run);
}

int runBenchmarkCommand(const Args& args) {
    if (wantsHelp(args, kBenchmarkHelp)) return 0;
    return runSessionCommand(args, session::SessionMode::Benchmark);
}

int runMetricsCommand(const Args& args) {
    if (wantsHelp(args, kMetricsHelp)) return 0;
    OptionSpec spec;
    spec.valued = {"--semantics"};
    spec.positionals = true;
    const ParsedArgs p = parseArgs(args, spec);
    if (p.positionals.size() != 1) throw InputError("metrics takes exactly one invocation folder (DIR)");
    // A run that died (SIGKILL, OOM, power loss): its completed epochs are read back from its journal into
    // the folder's DLIO files first (results/journal.h), marked interrupted.
    if (store::isInterrupted(p.positionals[0])) {
        const RunOutcome r = store::completeInterrupted(p.positionals[0]);
        std::fprintf(stderr, "%s: %s\n", p.positionals[0].c_str(), r.error.c_str());
    } else if (store::isRunning(p.positionals[0])) {
        std::fprintf(stderr, "%s: a run is still writing this folder; the metrics are of what it has written so far\n",
                     p.positionals[0].c_str());
    }
    const store::InvocationData d = store::readInvocationFolder(p.positionals[0]);
    const MetricSemantics sem = recordedSemantics(p, p.positionals[0]);
    MetricOptions mo;
    mo.semantics = sem;
    mo.batchSize = d.batchSize;
    mo.expectedSteps = d.expectedSteps;
    mo.excludeStartSteps = d.excludeStartSteps;
    mo.excludeEndSteps = d.excludeEndSteps;
    const InvocationMetrics m = invocationMetrics(d.ranks, mo, d.recordLength, d.auThreshold);
    nlohmann::ordered_json j = metricJson(m);
    std::printf("%s\n", j.dump(4).c_str());
    return 0;
}

int runPresetsCommand(const Args& args) {
    if (wantsHelp(args, "Usage: trainio-cli presets\nLists the shipped workload presets (use the name as --config).\n"))
        return 0;
    parseArgs(args, OptionSpec{});
    for (const auto& n : presetNames()) std::printf("%s\n", n.c_str());
    return 0;
}

} // namespace trainio::cli
