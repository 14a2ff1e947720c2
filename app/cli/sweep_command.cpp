#include "sweep_command.h"

#include "cli_args.h"
#include "commands.h"
#include "progress_reporter.h"

#include "config/config_loader.h"
#include "metrics/dlio_metrics.h"
#include "aggregate/results_import.h"
#include "preflight/preflight.h"
#include "session/benchmark_runner.h"
#include "session/sweep.h"
#include "session/session.h"
#include "store/run_folder.h"
#include "util/errors.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace trainio::cli {
namespace fs = std::filesystem;

namespace {

// What the sweep shows of a trial's session: the trial's label on the progress line. Its warnings go
// into each trial's log; the sweep said them once, before the first trial (checkBeforeSweeping).
class TrialObserver final : public session::SessionObserver {
public:
    TrialObserver(ProgressReporter& progress, std::string label, bool quick)
        : progress_(progress), label_(std::move(label)), quick_(quick) {}
    void onInvocationStart(const std::string& what, const fs::path&, std::size_t) override {
        if (!quick_) progress_.setLabel(label_ + " " + what);
    }

private:
    ProgressReporter& progress_;
    std::string label_;
    bool quick_;
};

const char* kSweepHelp =
    "Usage: trainio-cli sweep --config FILE|PRESET [++workload.section.key=value ...] --accelerators MIN:MAX\n"
    "                         --output DIR [--runs 5] [--quick] [--semantics v1|v2|v3] [--quiet]\n"
    "                         [--hostfile FILE --processes-per-host P]\n"
    "Finds the largest accelerator count whose benchmark passes the AU threshold (metric.au): tries MIN,\n"
    "doubles the count while it passes (the last doubling clipped to MAX), then bisects between the last\n"
    "passing and the first failing count (1:64 with a limit of 13 tries 1 2 4 8 16 12 14 13).\n"
    "A trial passes when the mean over its measured runs of train_au_mean_percentage is >= metric.au x 100.\n"
    "Every trial is a normal result folder, DIR/trial-<n>-accelerators/: a benchmark (1 warm-up and --runs\n"
    "measured runs, as `benchmark` writes it), or with --quick one invocation (no warm-up, one run).\n"
    "DIR/sweep.json is rewritten after every trial: {\"max_passing_accelerators\": n or null, \"complete\",\n"
    "\"trials\": [{\"accelerators\", \"au_mean_percentage\", \"samples_per_second\", \"read_gib_per_second\",\n"
    "\"passed\", \"path\", \"status\"}, ...], ...} (paths relative to DIR; docs/sweep.md lists every key).\n"
    "The sweep does not generate data: the dataset must exist (datagen) and give each of MAX accelerators a\n"
    "step; the pre-flight checks (config, dataset, DIR writable) run for MAX before anything is measured.\n"
    "--hostfile FILE --processes-per-host P: each trial is a child process\n"
    "  mpirun --hostfile FILE --npernode P -np HxP trainio-cli benchmark ... --accelerators-per-process K\n"
    "  (H hosts in FILE, K = count / (HxP), --allow-run-as-root as root); only multiples of HxP are tried.\n"
    "Exit codes: 0 the sweep finished (whether or not a count passed), 1 a trial failed or was interrupted\n"
    "(sweep.json keeps the trials so far, \"complete\": false), 2 bad input (nothing measured).\n";

// Where the launcher is: the first executable `name` on PATH (empty when none).
fs::path findOnPath(const std::string& name) {
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/bin:/bin";
    for (std::size_t begin = 0; begin <= dirs.size();) {
        const std::size_t end = std::min(dirs.find(':', begin), dirs.size());
        const fs::path candidate = fs::path(dirs.substr(begin, end - begin)) / name;
        if (end > begin && ::access(candidate.c_str(), X_OK) == 0) return candidate;
        begin = end + 1;
    }
    return {};
}

// Runs argv[0] with an argument vector (no shell) in its own process group, so that a terminal's SIGINT
// reaches it once, through us; the first cancel is forwarded as one SIGUSR1, which mpirun forwards to every
// rank at once (the graceful stop of an MPI run, docs/mpi.md: every rank stops within a step), and
// the child gets SIGTERM if this process dies. Returns the exit code, or 128 + signal.
int runChild(const std::vector<std::string>& args, const std::atomic<bool>* cancel) {
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    std::fflush(nullptr);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) throw RunError(std::string("fork for ") + args.front() + ": " + errnoText(errno));
    if (pid == 0) { // only async-signal-safe calls until exec
        ::setpgid(0, 0);
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (::getppid() != parent) ::_exit(127);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    bool forwarded = false;
    int status = 0;
    for (;;) {
        const pid_t r = ::waitpid(pid, &status, WNOHANG);
        if (r == pid) break;
        if (r < 0 && errno != EINTR) throw RunError(std::string("waitpid: ") + errnoText(errno));
        if (!forwarded && cancel && cancel->load()) {
            ::kill(pid, SIGUSR1);
            forwarded = true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// "94.08 %", "n/a" for a value the trial did not measure.
std::string fmt(double v, const char* format, const char* unit) {
    if (!std::isfinite(v)) return "n/a";
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return std::string(buf) + unit;
}

std::string headline(std::size_t index, const SweepTrial& t, double threshold) {
    const char* verdict = t.status != RunStatus::Complete ? toString(t.status) : t.passed ? "PASS" : "FAIL";
    std::string s = "sweep: trial " + std::to_string(index) + ", " + std::to_string(t.accelerators) + " accelerators: AU " +
                    fmt(t.auMeanPercent, "%.2f", " %") + " (threshold " + fmt(threshold, "%.0f", " %") + "), " +
                    fmt(t.samplesPerSecond, "%.1f", " samples/s") + ", " + fmt(t.readGibPerSecond, "%.3f", " GiB/s") + ": " +
                    verdict + " (" + t.path.string() + ")";
    if (!t.error.empty()) s += "\n  error: " + t.error;
    return s;
}

// The dataset must feed MAX accelerators a step each (the engine's shard plan); then the pre-flight
// checks for MAX — config, dataset, storage side, the sweep folder — before anything is measured.
void checkBeforeSweeping(const WorkloadConfig& cfg, const SweepRange& range, std::uint64_t largest, const fs::path& dir,
                         std::uint64_t invocations, ProgressReporter& progress) {
    if (fs::exists(dir / store::kSweepFile))
        throw InputError("--output " + dir.string() + ": already holds a sweep (sweep.json); expected a new folder");
    if (const std::string problem = shardProblem(cfg, largest); !problem.empty()) {
        const auto feeds = largestShardableCount(cfg, range);
        throw InputError("--accelerators " + std::to_string(range.min) + ":" + std::to_string(range.max) + ": the dataset cannot feed " +
                         std::to_string(largest) + " accelerators (" + problem + "); expected " +
                         (feeds ? "MAX <= " + std::to_string(*feeds) + ", the most it feeds," : std::string("a range it can feed")) +
                         " or a larger dataset");
    }
    PreflightRequest req;
    req.action = PreflightAction::Benchmark;
    req.accelerators = largest;
    req.output = dir;
    req.invocations = invocations;
    const PreflightResult r = preflight(cfg, req);
    for (const auto& f : r.figures) progress.onMessage(f);
    for (const auto& w : r.warnings) progress.onMessage("warning: " + w);
    requirePreflight(cfg, req);
}

} // namespace

int runSweepCommand(const std::vector<std::string>& args) {
    for (const auto& a : args)
        if (a == "--help" || a == "-h") {
            std::fputs(kSweepHelp, stdout);
            return 0;
        }
    OptionSpec spec;
    spec.valued = {"--config", "--output", "--accelerators", "--runs", "--semantics", "--hostfile", "--processes-per-host"};
    spec.flags = {"--quick", "--quiet"};
    spec.overrides = true;
    const ParsedArgs p = parseArgs(args, spec);
    const auto config = p.value("--config");
    if (!config) throw InputError("--config FILE is required (a DLIO workload YAML/JSON or a preset name)");
    const auto output = p.value("--output");
    if (!output) throw InputError("--output DIR is required (the sweep folder: DIR/sweep.json and a folder per trial)");
    const auto accelerators = p.value("--accelerators");
    if (!accelerators) throw InputError("--accelerators MIN:MAX is required (the smallest and largest count to try)");
    SweepRange range = parseSweepRange(*accelerators, "--accelerators");
    const bool quick = p.has("--quick");
    if (quick && p.has("--runs")) throw InputError("--runs with --quick: --quick runs one invocation per trial; give one of them");
    const std::uint64_t runs = quick ? 1 : p.unsignedValue("--runs", 1, 1000).value_or(5);
    const std::uint64_t warmups = quick ? 0 : 1;
    // A bad word is refused before anything is loaded; without one, the config's round decides (below).
    if (const auto chosen = p.value("--semantics")) semanticsWord(*chosen);

    // MPI: every count a multiple of hosts × processes per host.
    const bool mpi = p.has("--hostfile") || p.has("--processes-per-host");
    MpiTrialLaunch launch;
    if (mpi) {
        if (!p.has("--hostfile") || !p.has("--processes-per-host"))
            throw InputError(std::string(p.has("--hostfile") ? "--hostfile" : "--processes-per-host") +
                             " without " + (p.has("--hostfile") ? "--processes-per-host P" : "--hostfile FILE") +
                             ": an MPI sweep needs both");
        launch.hostfile = fs::absolute(*p.value("--hostfile"));
        launch.hosts = hostfileHosts(launch.hostfile, "--hostfile").size();
        launch.processesPerHost = *p.unsignedValue("--processes-per-host", 1, 4096);
        launch.mpirun = findOnPath("mpirun").string();
        if (launch.mpirun.empty()) throw InputError("--hostfile: mpirun is not on PATH; expected Open MPI (openmpi-bin)");
        launch.asRoot = ::geteuid() == 0;
        launch.executable = fs::read_symlink("/proc/self/exe");
        range.step = launch.hosts * launch.processesPerHost;
    }
    const SweepUnits units = sweepUnits(range, "--accelerators");
    const std::uint64_t largest = units.last * range.step;

    LoadedConfig lc = loadConfigOrPreset(*config, p.overrides);
    for (const auto& w : lc.warnings) std::fprintf(stderr, "warning: %s\n", w.message.c_str());
    WorkloadConfig cfg = lc.config;
    if (!cfg.workflow.train)
        throw InputError("workflow.train: False; the sweep measures training reads (expected workflow.train: True)");
    const MetricSemantics semantics = resolveSemantics(p.value("--semantics"), cfg);
    const std::string semanticsText = semanticsName(semantics);
    ProgressReporter progress(p.has("--quiet"), "", cfg.dataset.recordLength, cfg.reader.batchSize, cfg.train.epochs);
    if (cfg.workflow.generateData) {
        progress.onMessage("note: the sweep does not generate data (workflow.generate_data is ignored): the dataset must exist");
        cfg.workflow.generateData = false;
    }
    if (range.step > 1)
        progress.onMessage("note: " + std::to_string(launch.hosts) + " host(s) x " + std::to_string(launch.processesPerHost) +
                           " process(es): only multiples of " + std::to_string(range.step) + " are tried, " +
                           std::to_string(units.first * range.step) + " to " + std::to_string(largest));
    const fs::path dir = *output;
    checkBeforeSweeping(cfg, range, largest, dir, maxSweepTrials(range) * (runs + warmups), progress);
    fs::create_directories(dir);

    SweepDescription what;
    what.config = *config;
    what.overrides = p.overrides;
    what.range = range;
    what.quick = quick;
    what.runs = runs;
    what.warmups = warmups;
    what.auThresholdPercent = cfg.metric.au * 100.0;
    if (mpi) {
        what.launcher = "mpirun";
        what.hosts = launch.hosts;
        what.processesPerHost = launch.processesPerHost;
    }
    store::writeSweepJson(SweepOutcome{}, what, dir); // an empty sweep until the first trial is in

    const std::atomic<bool>* cancel = cancelFlag();
    std::size_t index = 0;
    auto runTrial = [&](std::uint64_t n) {
        SweepTrial t;
        t.accelerators = n;
        t.path = sweepTrialFolder(dir, n);
        const std::string label = "trial " + std::to_string(++index) + " (" + std::to_string(n) + " accelerators)";
        progress.onMessage("sweep: " + label + " -> " + t.path.string());
        try {
            if (mpi) {
                launch.benchmarkArgs = {"--config", *config};
                launch.benchmarkArgs.insert(launch.benchmarkArgs.end(), p.overrides.begin(), p.overrides.end());
                launch.benchmarkArgs.insert(launch.benchmarkArgs.end(),
                                            {"++workload.workflow.generate_data=False", "--output", t.path.string(), "--runs",
                                             std::to_string(runs), "--warmup", std::to_string(warmups), "--semantics", semanticsText});
                if (p.has("--quiet")) launch.benchmarkArgs.push_back("--quiet");
                const int code = runChild(mpiTrialArguments(launch, n), cancel);
                if (cancel->load()) t.status = RunStatus::Cancelled;
                else if (code != 0) {
                    t.status = RunStatus::Failed;
                    t.error = "mpirun … trainio-cli benchmark exited with " + std::to_string(code) +
                              (code == 2 ? " (bad input: see its message above)" : "");
                }
            } else {
                // A trial is a session (core/session) checked once for the whole sweep (checkBeforeSweeping).
                session::SessionRequest req;
                req.config = cfg;
                req.mode = quick ? session::SessionMode::Run : session::SessionMode::Benchmark;
                req.output = t.path;
                req.accelerators = n;
                req.runs = runs;
                req.warmups = warmups;
                req.preflight = false;
                req.invocation.semantics = semantics;
                req.invocation.observer = &progress;
                req.invocation.cancel = cancel;
                req.invocation.commandLine = "trainio-cli sweep (" + label + ")";
                progress.setLabel(label);
                TrialObserver obs(progress, label, quick);
                const session::SessionResult res = session::Session(req, obs).run();
                t.status = res.complete ? RunStatus::Complete : res.cancelled ? RunStatus::Cancelled : RunStatus::Failed;
                t.error = res.error;
                // Its records as its session wrote them, held in memory: nothing is read back.
                measureTrial(t, what.auThresholdPercent, res.records());
                progress.finishLine();
            }
        } catch (const std::exception& e) { // InputError/RunError at run time: the trial failed, the sweep stops
            progress.finishLine();
            t.status = RunStatus::Failed;
            t.error = e.what();
        }
        // A trial under mpirun was written by other processes: its folder is what there is to read (one
        // import). An in-process trial that threw has no numbers: it failed, and the sweep stops there.
        if (mpi) measureTrial(t, what.auThresholdPercent, aggregate::importResults({t.path}));
        progress.onMessage(headline(index, t, what.auThresholdPercent));
        return t;
    };
    const SweepOutcome outcome =
        searchMaxPassing(range, runTrial, [&](const SweepOutcome& sofar) { store::writeSweepJson(sofar, what, dir); });
    const fs::path file = store::writeSweepJson(outcome, what, dir);
    progress.onMessage(std::string("sweep: ") + (outcome.complete ? "" : "stopped early (a trial did not complete); ") +
                       "max passing accelerators: " +
                       (outcome.maxPassing ? std::to_string(*outcome.maxPassing) : std::string("none")) + " of " +
                       std::to_string(range.min) + ":" + std::to_string(range.max) + " after " +
                       std::to_string(outcome.trials.size()) + " trial(s)");
    std::printf("%s\n", file.string().c_str());
    return outcome.complete ? 0 : 1;
}

} // namespace trainio::cli
