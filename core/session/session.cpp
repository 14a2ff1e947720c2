#include "session/session.h"

#include "engine/checkpoint_run.h"
#include "dist/communicator.h"
#include "engine/checkpoint_closed_division.h"
#include "aggregate/step_digest.h"
#include "store/run_folder.h"
#include "util/host_info.h"

#include <algorithm>

namespace trainio::session {
namespace fs = std::filesystem;

namespace {

bool isProcessZero(const dist::Communicator* comm) { return !comm || comm->rank() == 0; }

dist::WaitLimits limitsFor(const std::atomic<bool>* cancel) {
    dist::WaitLimits limits;
    limits.hurry = cancel;
    return limits;
}

// The checkpoint's pre-flight (folder, room, rights, S3 endpoint and keys, a read-only run's files) in the
// words the CLI prints and the GUI's dialog lists.
void checkpointChecked(const WorkloadConfig& cfg, const checkpoint::CheckpointPlan& plan, std::uint64_t checkpoints) {
    try {
        checkpoint::checkpointPreflight(cfg, plan, checkpoints);
    } catch (const InputError& e) {
        throw PreflightFailed(e.what(), {{"checkpoint", e.what(), "a checkpoint that can be written as configured"}});
    }
}

} // namespace

void onEveryProcess(dist::Communicator* comm, const std::atomic<bool>* cancel, const std::function<void()>& check) {
    if (!comm) {
        check();
        return;
    }
    std::string problem;
    std::vector<PreflightProblem> mine;
    try {
        check();
    } catch (const PreflightFailed& e) {
        problem = std::string(e.what()) + " (host " + readHostInfo().hostname + ")";
        mine = e.problems;
    } catch (const InputError& e) {
        problem = std::string(e.what()) + " (host " + readHostInfo().hostname + ")";
    }
    std::vector<std::string> problems;
    if (!dist::agree(*comm, problem, problems, limitsFor(cancel)))
        throw RunError("the processes of the MPI job did not all answer (one is missing, hung or was killed)");
    if (problems.empty()) return;
    std::string text;
    for (const auto& pr : problems) text += (text.empty() ? "" : "\n  ") + pr;
    text = problems.size() == 1 ? text : "on " + std::to_string(problems.size()) + " processes:\n  " + text;
    if (!mine.empty()) throw PreflightFailed(text, std::move(mine));
    throw AgreedInputError(text);
}

std::vector<nlohmann::json> reportsOfEveryProcess(dist::Communicator& comm, const std::atomic<bool>* cancel,
                                                  const nlohmann::json& mine, const std::string& command) {
    std::vector<std::string> all;
    if (!comm.allgatherStrings(mine.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), all, limitsFor(cancel)))
        throw RunError(command + ": the processes of the MPI job did not all answer (one is missing, hung or was killed)");
    std::vector<nlohmann::json> out;
    for (const auto& text : all) out.push_back(nlohmann::json::parse(text));
    return out;
}

void checkEverywhere(const WorkloadConfig& cfg, PreflightRequest req, dist::Communicator* comm,
                     const std::atomic<bool>* cancel, SessionObserver& observer,
                     const std::function<void(PreflightResult&)>& extraChecks, PreflightSaid* said) {
    if (!isProcessZero(comm)) req.output.clear(); // under mpirun only process 0 writes results
    if (comm) {
        req.process = static_cast<std::uint64_t>(comm->rank());
        req.processes = static_cast<std::uint64_t>(comm->size());
    }
    onEveryProcess(comm, cancel, [&] {
        PreflightResult r = preflight(cfg, req);
        if (extraChecks) extraChecks(r);
        if (isProcessZero(comm)) {
            if (!said || !said->figures)
                for (const auto& f : r.figures) observer.onMessage(f); // information, said as such (no "warning:")
            for (const auto& w : r.warnings)
                if (!said || said->warnings.insert(w).second) observer.onMessage("warning: " + w);
            if (said) said->figures = true;
        }
        if (r.ok()) return;
        // The CLI prints the words, the GUI shows `problems` in its dialog.
        throw PreflightFailed(r.failureMessage(), r.problems);
    });
}

GenerationResult generateEverywhere(const WorkloadConfig& cfg, dist::Communicator* comm, const std::atomic<bool>* cancel,
                                    std::shared_ptr<IoBackend> io, SessionObserver& observer) {
    GenerateOptions opts;
    opts.cancel = cancel;
    opts.io = std::move(io);
    opts.onProgress = [&observer](const GenerationProgress& gp) { observer.onGeneration(gp); };
    if (comm) {
        onEveryProcess(comm, cancel, [&] {
            if (comm->rank() == 0) prepareDataset(cfg, opts.io);
        });
        opts.shardIndex = static_cast<std::uint64_t>(comm->rank());
        opts.shardCount = static_cast<std::uint64_t>(comm->size());
    }
    GenerationResult r;
    std::string failure;
    try {
        r = generateDataset(cfg, opts);
    } catch (const std::exception& e) {
        if (!comm) throw;
        failure = e.what();
    }
    if (comm) {
        // Every process's counts (or its failure), summed.
        nlohmann::json mine{{"written", r.filesWritten}, {"skipped", r.filesSkipped}, {"bytes", r.bytesWritten},
                            {"seconds", r.seconds},      {"cancelled", r.cancelled},  {"error", failure}};
        const auto all = reportsOfEveryProcess(*comm, cancel, mine, "datagen");
        GenerationResult sum;
        std::string errors;
        for (std::size_t p = 0; p < all.size(); ++p) {
            const nlohmann::json& j = all[p];
            sum.filesWritten += j["written"].get<std::uint64_t>();
            sum.filesSkipped += j["skipped"].get<std::uint64_t>();
            sum.bytesWritten += j["bytes"].get<std::uint64_t>();
            sum.seconds = std::max(sum.seconds, j["seconds"].get<double>());
            sum.cancelled = sum.cancelled || j["cancelled"].get<bool>();
            if (!j["error"].get<std::string>().empty())
                errors += (errors.empty() ? "" : "; ") + ("process " + std::to_string(p) + ": " + j["error"].get<std::string>());
        }
        if (!errors.empty()) throw RunError("datagen: " + errors);
        r = sum;
    }
    observer.onGenerated(r, comm ? static_cast<std::uint64_t>(comm->size()) : 1);
    return r;
}

Session::Session(SessionRequest request, SessionObserver& observer)
    : req_(std::move(request)), obs_(observer),
      written_(std::make_shared<store::WrittenFiles>(store::WrittenFiles::Options{req_.holdStepRecords, false})) {
    const std::uint64_t processes = req_.invocation.comm ? static_cast<std::uint64_t>(req_.invocation.comm->size()) : 1;
    req_.invocation.accelerators = req_.accelerators / processes;
    // Everything the invocations write is held here and handed over with the result.
    req_.invocation.written = written_.get();
}

bool Session::checkpointOnly() const { return !req_.config.workflow.train && req_.config.workflow.checkpoint; }
bool Session::nothingToMeasure() const { return !req_.config.workflow.train && !req_.config.workflow.checkpoint; }

PreflightRequest Session::preflightRequest(bool generateFirst) const {
    PreflightRequest pr;
    if (nothingToMeasure()) {
        pr.action = PreflightAction::Datagen; // only the generation, if asked: the data folder's room
        pr.audience = req_.audience;
        pr.accelerators = 1;
        pr.invocations = 0;
        return pr;
    }
    pr.action = req_.mode == SessionMode::Benchmark ? PreflightAction::Benchmark : PreflightAction::Run;
    pr.audience = req_.audience;
    pr.accelerators = req_.accelerators;
    pr.output = req_.output;
    pr.invocations = req_.mode == SessionMode::Benchmark ? req_.runs + req_.warmups : 1;
    pr.generateFirst = generateFirst;
    return pr;
}

void Session::check(const PreflightRequest& pr, const WorkloadConfig& cfg) {
    checkEverywhere(cfg, pr, req_.invocation.comm, req_.invocation.cancel, obs_, req_.extraChecks, &said_);
}

// The closed-division rules of a checkpoint-only run that depend on its processes and hosts, before it runs:
// every process names its host (one collective under mpirun), process 0 says what it found, the findings go
// with the result (trainio_run.json "warnings") and the notes to the head of each invocation's log.
void Session::closedDivision(const WorkloadConfig& cfg) {
    dist::Communicator* comm = req_.invocation.comm;
    const std::string me = readHostInfo().hostname;
    std::vector<std::string> hosts{me};
    if (comm && !comm->allgatherStrings(me, hosts, limitsFor(req_.invocation.cancel)))
        throw RunError("the processes of the MPI job did not all answer (one is missing, hung or was killed)");
    std::vector<std::pair<std::string, std::uint64_t>> perHost; // in the order of the hosts' first process
    for (const auto& h : hosts) {
        auto it = std::find_if(perHost.begin(), perHost.end(), [&](const auto& p) { return p.first == h; });
        if (it == perHost.end()) perHost.emplace_back(h, 0), it = perHost.end() - 1;
        it->second += req_.invocation.accelerators;
    }
    const checkpoint::ClosedDivisionCheck c = checkpoint::checkClosedDivision(cfg, req_.accelerators, perHost);
    for (const auto& f : c.findings) {
        req_.invocation.resultWarnings.push_back("not MLPerf Storage v3.0 closed division: " + f);
        if (isProcessZero(comm)) obs_.onMessage("warning: not MLPerf Storage v3.0 closed division: " + f);
    }
    for (const auto& n : c.notes) {
        logNotes_.push_back("closed division: " + n);
        if (isProcessZero(comm)) obs_.onMessage("closed division: " + n);
    }
}

bool Session::prepare() {
    const WorkloadConfig& cfg = req_.config;
    if (req_.mode == SessionMode::Benchmark && !nothingToMeasure()) {
        // A bad layout or system name fails before anything is generated or measured.
        BenchmarkOptions layoutOnly;
        layoutOnly.layout = req_.layout;
        layoutOnly.invocation.labels = req_.invocation.labels;
        benchmarkFolder(cfg, req_.output, layoutOnly);
    }
    if (checkpointOnly()) {
        // DLIO's checkpoint-only mode reads no dataset: the checkpoint is checked instead — model and
        // parallelism DLIO would refuse, reads beyond writes, the folder, free space, accelerator memory.
        // Under mpirun every process checks (its host's view of the folder, its S3 keys) and they agree.
        dist::Communicator* comm = req_.invocation.comm;
        const checkpoint::CheckpointPlan plan = checkpoint::planCheckpoint(cfg, req_.accelerators);
        if (isProcessZero(comm)) obs_.onCheckpointPlan(plan);
        if (req_.mode == SessionMode::Benchmark) warnings_ = runWarnings(cfg, req_.accelerators, req_.invocation.semantics);
        if (isProcessZero(comm))
            for (const auto& w : warnings_) obs_.onMessage("warning: " + w);
        closedDivision(cfg);
        onEveryProcess(comm, req_.invocation.cancel, [&] {
            if (isProcessZero(comm) && req_.mode == SessionMode::Run && fs::exists(req_.output / store::kSummaryFile))
                throw PreflightFailed("--output " + req_.output.string() + ": already holds a result (summary.json); expected a new folder",
                                      {{req_.output.string(), "already holds a result (summary.json)", "a new folder"}});
            checkpointChecked(cfg, plan, checkpoint::checkpointsToWrite(cfg));
        });
        return true;
    }
    warnings_ = runWarnings(cfg, req_.accelerators, req_.invocation.semantics);
    for (const auto& n : runNotes(cfg, req_.accelerators)) obs_.onMessage(n); // information, said as such
    for (const auto& w : warnings_) obs_.onMessage("warning: " + w);
    // Checkpoints during training under mpirun: every process checks the folder before anything runs (a
    // single process checks it when the invocation starts).
    if (cfg.workflow.checkpoint && req_.invocation.comm)
        onEveryProcess(req_.invocation.comm, req_.invocation.cancel,
                       [&] { checkpointChecked(cfg, checkpoint::planCheckpoint(cfg, req_.accelerators), 1); });
    const bool generate = cfg.workflow.generateData;
    if (req_.preflight) check(preflightRequest(generate), cfg);
    if (!generate || !req_.generateHere) return true;
    const GenerationResult gen = generateEverywhere(cfg, req_.invocation.comm, req_.invocation.cancel, req_.invocation.io, obs_);
    if (gen.cancelled || (req_.invocation.cancel && req_.invocation.cancel->load())) {
        cancelledWhilePreparing_ = true;
        return false;
    }
    if (nothingToMeasure()) return true;
    // What was just generated is checked as any dataset is, before it is measured.
    WorkloadConfig generated = cfg;
    generated.workflow.generateData = false;
    if (req_.preflight) check(preflightRequest(false), generated);
    return true;
}

SessionResult Session::measure() {
    SessionResult res;
    res.written = written_;
    const WorkloadConfig& cfg = req_.config;
    if (cancelledWhilePreparing_) {
        res.cancelled = true;
        return res;
    }
    if (nothingToMeasure()) {
        obs_.onMessage("workflow.train is off: nothing to run");
        res.complete = true;
        return res;
    }
    InvocationOptions io = req_.invocation;
    io.warnings = warnings_; // at the head of each invocation's log too
    io.warnings.insert(io.warnings.end(), logNotes_.begin(), logNotes_.end());
    if (req_.mode == SessionMode::Run) {
        res.resultFolder = req_.output;
        obs_.onInvocationStart("invocation", req_.output, 0);
        RunOutcome out = runInvocation(cfg, req_.output, io);
        aggregate::digestHeldStepRecords(*written_, req_.output);
        obs_.onInvocationDone("invocation", req_.output, out);
        res.measured = true;
        res.complete = out.status == RunStatus::Complete;
        res.cancelled = out.status == RunStatus::Cancelled;
        res.error = out.error;
        res.outcomes.push_back(std::move(out));
        res.labels.push_back("invocation");
        return res;
    }
    BenchmarkOptions bo;
    bo.invocation = io;
    bo.layout = req_.layout;
    bo.runs = req_.runs;
    bo.warmups = req_.warmups;
    res.resultFolder = benchmarkFolder(cfg, req_.output, bo);
    std::size_t index = 0;
    bo.onInvocationStart = [&](const std::string& label, const fs::path& d) { obs_.onInvocationStart(label, d, index++); };
    bo.onInvocationDone = [&](const std::string& label, const fs::path& d, const RunOutcome& out) {
        // Held as their digest from here on: a long benchmark's step records are not all kept in memory.
        aggregate::digestHeldStepRecords(*written_, d);
        res.outcomes.push_back(out);
        res.labels.push_back(label);
        obs_.onInvocationDone(label, d, out);
    };
    const BenchmarkResult br = runBenchmark(cfg, req_.output, bo);
    res.measured = !res.outcomes.empty();
    res.complete = br.complete;
    res.cancelled = !br.complete && io.cancel && io.cancel->load();
    res.error = br.error;
    return res;
}

std::vector<const RunOutcome*> SessionResult::measuredComplete() const {
    std::vector<const RunOutcome*> out;
    for (std::size_t i = 0; i < outcomes.size(); ++i)
        if (labels[i].rfind("warm-up", 0) != 0 && outcomes[i].status == RunStatus::Complete) out.push_back(&outcomes[i]);
    return out;
}

aggregate::ImportResult SessionResult::records(const aggregate::ImportOptions& options, const fs::path& root) const {
    const fs::path tree = root.empty() ? resultFolder : root;
    if (tree.empty()) return {}; // nothing was measured
    return aggregate::importWritten(tree, *written, options);
}

SessionResult Session::run() {
    prepare(); // false (cancelled while generating): measure() says so and measures nothing
    return measure();
}

} // namespace trainio::session
