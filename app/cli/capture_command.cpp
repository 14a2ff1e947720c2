#include "capture_command.h"

#include "cli_args.h"

#include "trace/capture_files.h"
#include "trace/derive_workload.h"
#include "trace/trace_reader.h"
#include "store/run_files.h"
#include "util/errors.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace trainio::cli {

namespace {

const char* kCaptureHelp =
    "Usage: trainio-cli capture --output TRACE_DIR [--no-python] -- COMMAND [ARGS...]\n"
    "Runs COMMAND (a training job) with TrainIO's I/O interposer preloaded (LD_PRELOAD, inherited by every\n"
    "process it starts, DataLoader workers included) and records each data-file open, read, pread, readv,\n"
    "mmap and close with its time, size, offset, process and thread into TRACE_DIR (docs/capture.md).\n"
    "The Python module trainio_capture is put on PYTHONPATH: one line in the training loop,\n"
    "  for batch in trainio_capture.steps(loader):\n"
    "marks when each step asked for its batch and when it arrived. Without it the steps are inferred.\n"
    "  --output TRACE_DIR   a new or empty folder: trainio_trace.json (header), events.<pid>.jsonl, marks.<pid>.jsonl\n"
    "  --no-python          do not put trainio_capture on PYTHONPATH (a job that is not Python, or to see\n"
    "                       what is inferred without marks)\n"
    "SIGTERM and SIGHUP are passed on to the job; SIGINT and SIGQUIT too when sent to capture alone (a\n"
    "terminal's Ctrl-C reaches the job directly). Exit code: the job's (128 + N when signal N ended it);\n"
    "2 bad input; 127 the command could not be started.\n"
    "Then: trainio-cli workload --from-trace TRACE_DIR --output W.yaml [--report]\n";

const char* kWorkloadHelp =
    "Usage: trainio-cli workload --from-trace TRACE_DIR --output W.yaml [--report] [--replay RUN_DIR]\n"
    "Derives a DLIO workload from a captured job (trainio-cli capture): format (from the files' magic),\n"
    "files and samples per file, record size mean and stdev (bytes actually read), batch size, read threads\n"
    "(worker processes), transfer size, shuffle, epochs, computation time per step (from the step marks minus\n"
    "the data waits) and reader.preprocess_time (the workers' time per sample outside reads).\n"
    "  --report   print what was observed, what was assumed and the figures behind each value\n"
    "  --replay RUN_DIR  a `run` of the workload: print the real job and the replay side by side (AU,\n"
    "             samples/s, and the differences)\n"
    "The workload replays on the job's own files where they are: data_folder points there when their names\n"
    "follow DLIO's, else trainio.file_list names W.files.txt, written beside W.yaml (one path a line). The\n"
    "workload records the trace and the job's own figures (trainio.captured_job): run prints the real job\n"
    "beside the replay, and the results library and the report show both. For another storage:\n"
    "  trainio-cli datagen --config W.yaml [++workload.trainio.file_list=] ++workload.dataset.data_folder=DIR\n"
    "writes a dataset of the same shape. Exit codes: 0 written, 2 bad input (an unreadable trace, no data file).\n";

volatile sig_atomic_t g_child = 0;

void forward(int sig, siginfo_t* info, void*) {
    const pid_t child = g_child;
    if (child <= 0) return;
    // A terminal's SIGINT/SIGQUIT reaches the whole foreground group, the job included: pass on only
    // those sent to capture alone (kill(2), sigqueue(3)).
    const bool fromProcess = info && (info->si_code == SI_USER || info->si_code == SI_QUEUE);
    if ((sig == SIGINT || sig == SIGQUIT) && !fromProcess) return;
    kill(child, sig);
}

// The signals capture passes on to the job. They are held (blocked) from before the trace's header is
// written — what a launcher or a test waits for before it signals — until the job's pid and the forwarding
// handler are in place: one sent in between is delivered then, to the handler, and reaches the job (before,
// it met trainio-cli's own cancel handler and the job ran on). Restores the mask it found when it goes.
class HeldSignals {
public:
    HeldSignals() {
        sigemptyset(&set_);
        for (int sig : kForwarded) sigaddset(&set_, sig);
        sigprocmask(SIG_BLOCK, &set_, &previous_);
    }
    ~HeldSignals() { release(); }
    HeldSignals(const HeldSignals&) = delete;
    HeldSignals& operator=(const HeldSignals&) = delete;
    void release() {
        if (held_) sigprocmask(SIG_SETMASK, &previous_, nullptr);
        held_ = false;
    }
    static constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

private:
    sigset_t set_{}, previous_{};
    bool held_ = true;
};

std::uint64_t monotonicNs() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

std::string localTimeIso() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    localtime_r(&now, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    return buf;
}

std::string prepended(const char* var, const std::string& first, char sep) {
    const char* old = std::getenv(var);
    return old && *old ? first + sep + old : first;
}

} // namespace

int runCaptureCommand(const std::vector<std::string>& args) {
    auto dash = std::find(args.begin(), args.end(), std::string("--"));
    const std::vector<std::string> own(args.begin(), dash);
    const std::vector<std::string> command(dash == args.end() ? args.end() : dash + 1, args.end());
    for (const auto& a : own)
        if (a == "--help" || a == "-h") {
            std::fputs(kCaptureHelp, stdout);
            return 0;
        }
    OptionSpec spec;
    spec.valued = {"--output"};
    spec.flags = {"--no-python", "--quiet"};
    const ParsedArgs p = parseArgs(own, spec);
    const auto output = p.value("--output");
    if (!output) throw InputError("capture: --output TRACE_DIR is required (see trainio-cli capture --help)");
    if (command.empty()) throw InputError("capture: no command: expected -- COMMAND [ARGS...] after the options");

    const fs::path dir = fs::absolute(*output).lexically_normal();
    std::error_code ec;
    if (fs::exists(dir, ec)) {
        if (!fs::is_directory(dir, ec)) throw InputError(dir.string() + ": not a folder: expected a new or empty folder");
        if (!fs::is_empty(dir, ec))
            throw InputError(dir.string() + ": not empty: expected a new or empty folder (a trace is never appended to another)");
    } else if (!fs::create_directories(dir, ec) && ec) {
        throw InputError(dir.string() + ": cannot create: " + ec.message());
    }
    const fs::path preload = trace::preloadLibrary();
    const bool python = !p.flags.count("--no-python");
    const fs::path pyDir = python ? trace::pythonModuleFolder() : fs::path();

    trace::TraceHeader h;
    h.command = command;
    h.cwd = fs::current_path(ec).string();
    h.start = localTimeIso();
    h.pythonMarks = python;
    h.rule = trace::defaultFilterRule();
    h.startNs = monotonicNs();
    HeldSignals held;
    trace::writeHeader(dir, h);

    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t child = fork();
    if (child < 0) throw RunError(std::string("capture: fork failed: ") + std::strerror(errno));
    if (child == 0) {
        setenv("LD_PRELOAD", prepended("LD_PRELOAD", preload.string(), ':').c_str(), 1);
        if (python) setenv("PYTHONPATH", prepended("PYTHONPATH", pyDir.string(), ':').c_str(), 1);
        setenv("TRAINIO_CAPTURE_DIR", dir.c_str(), 1);
        setenv("TRAINIO_CAPTURE_EXCLUDE_PREFIXES", trace::joinColon(h.rule.prefixes).c_str(), 1);
        setenv("TRAINIO_CAPTURE_EXCLUDE_PARTS", trace::joinColon(h.rule.parts).c_str(), 1);
        setenv("TRAINIO_CAPTURE_EXCLUDE_SUFFIXES", trace::joinColon(h.rule.suffixes).c_str(), 1);
        // The job gets the default dispositions, not trainio-cli's handlers.
        for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1}) std::signal(sig, SIG_DFL);
        held.release(); // the job starts with the mask capture was started with (a blocked mask is inherited)
        std::vector<char*> argv;
        for (const auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        execvp(argv[0], argv.data());
        std::fprintf(stderr, "error: capture: cannot start %s: %s\n", argv[0], std::strerror(errno));
        _exit(127);
    }
    g_child = child;
    struct sigaction sa {};
    sa.sa_sigaction = forward;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (int sig : HeldSignals::kForwarded) sigaction(sig, &sa, nullptr);
    held.release(); // a signal sent since the header was written is forwarded now

    int status = 0;
    while (waitpid(child, &status, 0) < 0) {
        if (errno != EINTR) throw RunError(std::string("capture: waitpid failed: ") + std::strerror(errno));
    }
    g_child = 0;
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
    h.endNs = monotonicNs();
    h.exitCode = code;
    h.jobPid = child;
    trace::writeHeader(dir, h);

    if (!p.flags.count("--quiet")) {
        std::size_t events = 0, marks = 0;
        for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
            const std::string name = it->path().filename().string();
            events += name.rfind("events.", 0) == 0;
            marks += name.rfind("marks.", 0) == 0;
        }
        std::fprintf(stderr, "capture: %s: %zu process(es) read data files, %zu wrote step marks; the job exited with %d "
                             "after %.2f s\n",
                     dir.c_str(), events, marks, code, static_cast<double>(h.endNs - h.startNs) / 1e9);
        if (events == 0)
            std::fprintf(stderr, "capture: no data file was read (the filter rule: %s)\n", h.rule.describe().c_str());
    }
    return code;
}

int runWorkloadCommand(const std::vector<std::string>& args) {
    for (const auto& a : args)
        if (a == "--help" || a == "-h") {
            std::fputs(kWorkloadHelp, stdout);
            return 0;
        }
    OptionSpec spec;
    spec.valued = {"--from-trace", "--output", "--replay"};
    spec.flags = {"--report"};
    const ParsedArgs p = parseArgs(args, spec);
    const auto from = p.value("--from-trace");
    const auto output = p.value("--output");
    if (!from) throw InputError("workload: --from-trace TRACE_DIR is required (see trainio-cli workload --help)");
    if (!output) throw InputError("workload: --output W.yaml is required");
    const trace::Trace tr = trace::readTrace(*from);
    const trace::DerivedWorkload d = trace::deriveWorkload(tr);
    trace::writeDerivedWorkload(d, *output);
    if (p.flags.count("--report")) std::fputs(d.report.c_str(), stdout);
    if (const auto replay = p.value("--replay")) {
        const fs::path summary = fs::path(*replay) / "summary.json";
        std::string why;
        std::error_code ec;
        const fs::path root = fs::weakly_canonical(fs::absolute(*replay), ec);
        const auto s = store::readSummary(summary, root, store::ReadBounds{}, why);
        if (!s) throw InputError(summary.string() + ": " + why);
        std::fputs(trace::jobVersusReplay(d, s->au, s->sps).c_str(), stdout);
    }
    std::fprintf(stderr, "workload: %s written (%s)\n", output->c_str(), d.summary.c_str());
    return 0;
}

} // namespace trainio::cli
