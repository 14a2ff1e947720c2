#include "collocate_command.h"

#include "cli_args.h"
#include "commands.h"

#include "engine/live_json.h"
#include "session/collocation.h"
#include "util/errors.h"

#include <cstdio>
#include <memory>
#include <mutex>

namespace trainio::cli {
namespace fs = std::filesystem;

namespace {

const char* kCollocateHelp =
    "Usage: trainio-cli collocate --plan PLAN.yaml --output DIR [--runs N --warmup W] [--alone] [--quiet]\n"
    "                             [--live-json FILE] [--system NAME] [--description TEXT]\n"
    "Runs two or more workloads at once in this process, each on its own accelerators, readers and barrier,\n"
    "on the same storage: the real one, or the plan's `storage:` — ONE emulated device every workload reads\n"
    "through (trainio.storage keys: profile, bandwidth_mib_s, latency_ms, iops, max_inflight).\n"
    "PLAN.yaml:\n"
    "  workloads:                 # two or more\n"
    "    - name: a                # folder name under DIR ([A-Za-z0-9_-], unique)\n"
    "      config: unet3d_b200    # preset, DLIO YAML or JSON (a file next to the plan wins)\n"
    "      accelerators: 2\n"
    "      overrides: [\"++workload.dataset.data_folder=/data/unet3d\"]\n"
    "      start_after_s: 0       # optional: staggered starts\n"
    "  storage: {profile: nfs-10gbe}   # optional\n"
    "DIR/<name>/ is an ordinary invocation folder (with --runs: a benchmark folder, warm-up and runs, each round\n"
    "started together); DIR/trainio_collocation.json lists the workloads, their start and end (seconds since the\n"
    "Unix epoch), the shared device and the process's page-cache share over the collocation (docs/collocation.md).\n"
    "--alone: each workload first runs alone (one after the other, same storage) into DIR/alone/<name>/; then\n"
    "trainio_collocation.json's \"interference\" gives, per workload, AU and MiB/s alone and together, the AU\n"
    "points lost and the slowdown with their 95 % CI (runs with runs; without --runs, epochs with epochs), and\n"
    "which workload lost most.\n"
    "--system NAME (and --description TEXT): the system the collocation ran on, in trainio_labels.json of every\n"
    "workload's folder, so that the library files the collocation under it (else under DIR's name).\n"
    "Every workload is checked before anything is measured; a cancel (Ctrl+C) or a failing workload stops all.\n"
    "Under mpirun (mpirun -np P trainio-cli collocate …): every process runs every workload with accelerators / P\n"
    "of its accelerators (each workload's accelerators a multiple of P); process 0 writes DIR. The plan's\n"
    "device_scope: per_client (default: each process its own device with the storage: limits) or split (one budget\n"
    "for the job, each process 1/P of the bandwidth, IOPS and in-flight).\n";

// --live-json: every workload's events in one stream, the label naming the workload ("a", "a · run 1/3").
class LiveStream {
public:
    explicit LiveStream(const std::string& path) {
        if (path.empty()) return;
        file_ = std::fopen(path.c_str(), "w");
        if (!file_) throw InputError("--live-json " + path + ": cannot create: " + errnoText(errno));
    }
    ~LiveStream() {
        if (file_) std::fclose(file_);
    }
    void write(const std::string& line) {
        if (!file_) return;
        std::lock_guard lock(m_);
        std::fputs(line.c_str(), file_);
        std::fputc('\n', file_);
        std::fflush(file_);
    }
    bool on() const { return file_ != nullptr; }

private:
    std::FILE* file_ = nullptr;
    std::mutex m_;
};

class WorkloadLive final : public EngineObserver {
public:
    WorkloadLive(LiveStream& s, std::string name) : s_(s), name_(std::move(name)), label_(name_) {}
    void setLabel(const std::string& label) {
        std::lock_guard lock(m_);
        label_ = label == "invocation" ? name_ : name_ + " · " + label;
    }
    std::string label() {
        std::lock_guard lock(m_);
        return label_;
    }
    void onPhase(const std::string& phase) override { s_.write(live::phaseLine(label(), phase)); }
    void onStep(const StepEvent& e) override { s_.write(live::stepLine(label(), e)); }
    void onEpoch(const EpochEvent& e) override { s_.write(live::epochLine(label(), e)); }
    void onMessage(const std::string& text) override { s_.write(live::messageLine(name_ + ": " + text)); }

private:
    LiveStream& s_;
    std::string name_;
    std::mutex m_;
    std::string label_;
};

class CliCollocationObserver final : public session::CollocationObserver {
public:
    CliCollocationObserver(bool quiet, bool silent, LiveStream& live, std::vector<std::unique_ptr<WorkloadLive>>& perWorkload,
                           const session::CollocationPlan& plan)
        : quiet_(quiet || silent), silent_(silent), live_(live), perWorkload_(perWorkload), plan_(plan) {}
    void onMessage(const std::string& workload, const std::string& text) override {
        say((workload.empty() ? "" : workload + ": ") + text);
        live_.write(live::messageLine((workload.empty() ? "" : workload + ": ") + text));
    }
    void onInvocationStart(const std::string& workload, const std::string& label, const fs::path& dir) override {
        WorkloadLive* w = find(workload);
        if (w) w->setLabel(label);
        say(workload + " " + label + ": started -> " + dir.string());
        live_.write(live::invocationStartedLine(w ? w->label() : workload, dir.string()));
    }
    void onInvocationDone(const std::string& workload, const std::string& label, const fs::path& dir,
                          const RunOutcome& out) override {
        if (silent_) return; // not process 0 of an MPI job
        char line[512];
        std::snprintf(line, sizeof line, "%s %s: AU %.2f %% (±%.2f)  %.1f samples/s  %.1f MiB/s  %s | %s", workload.c_str(),
                      label.c_str(), out.metrics.auMean, out.metrics.auStdev, out.metrics.throughputMean, out.metrics.ioMeanMiB,
                      out.metrics.pass ? "PASS" : "FAIL", toString(out.status));
        {
            std::lock_guard lock(m_);
            std::fprintf(stderr, "%s\n", line); // headlines even with --quiet, as `run` prints its own
            if (out.status == RunStatus::Failed) std::fprintf(stderr, "%s: error: %s\n", workload.c_str(), out.error.c_str());
        }
        WorkloadLive* w = find(workload);
        live_.write(live::invocationFinishedLine(w ? w->label() : workload, dir.string(), toString(out.status), out.metrics.auMean));
    }

private:
    void say(const std::string& text) {
        if (quiet_) return;
        std::lock_guard lock(m_);
        std::fprintf(stderr, "%s\n", text.c_str());
    }
    WorkloadLive* find(const std::string& name) {
        for (std::size_t i = 0; i < plan_.workloads.size() && i < perWorkload_.size(); ++i)
            if (plan_.workloads[i].name == name) return perWorkload_[i].get();
        return nullptr;
    }
    bool quiet_, silent_;
    LiveStream& live_;
    std::vector<std::unique_ptr<WorkloadLive>>& perWorkload_;
    const session::CollocationPlan& plan_;
    std::mutex m_;
};

} // namespace

int runCollocateCommand(const std::vector<std::string>& args) {
    for (const auto& a : args)
        if (a == "--help" || a == "-h") {
            std::fputs(kCollocateHelp, stdout);
            return 0;
        }
    OptionSpec spec;
    spec.valued = {"--plan", "--output", "--runs", "--warmup", "--live-json", "--system", "--description"};
    spec.flags = {"--quiet", "--alone"};
    const ParsedArgs p = parseArgs(args, spec);
    const auto planFile = p.value("--plan");
    if (!planFile) throw InputError("--plan PLAN.yaml is required (the workloads to run at once: see --help)");
    const auto output = p.value("--output");
    if (!output) throw InputError("--output DIR is required");
    session::CollocationOptions opt;
    opt.runs = p.unsignedValue("--runs", 1, 1000).value_or(0);
    opt.warmups = p.unsignedValue("--warmup", 0, 10).value_or(1);
    if (p.value("--warmup") && opt.runs == 0) throw InputError("--warmup W needs --runs N (rounds of a collocated benchmark)");
    opt.cancel = cancelFlag();
    opt.alone = p.has("--alone");
    opt.labels = labelsFrom(p);
    std::string cmd = "trainio-cli collocate";
    for (const auto& a : args) cmd += " " + a;
    opt.commandLine = cmd;
    opt.comm = communicator();
    // Under mpirun the plan is read on every process (every host must reach it), and a problem is printed once.
    session::CollocationPlan plan;
    session::onEveryProcess(opt.comm, opt.cancel, [&] { plan = session::loadCollocationPlan(*planFile); });
    const bool zero = reportsErrors(); // process 0 speaks for the job; the others are silent
    LiveStream live(zero ? p.value("--live-json").value_or("") : "");
    std::vector<std::unique_ptr<WorkloadLive>> perWorkload;
    for (const auto& w : plan.workloads) perWorkload.push_back(std::make_unique<WorkloadLive>(live, w.name));
    if (live.on()) opt.liveObserver = [&](std::size_t w) -> EngineObserver* { return perWorkload[w].get(); };
    CliCollocationObserver obs(p.has("--quiet"), !zero, live, perWorkload, plan);
    const session::CollocationResult r = session::runCollocation(plan, *output, opt, obs);
    if (!zero) return r.complete ? 0 : 1;
    for (const auto& x : r.interference)
        std::fprintf(stderr, "%s: AU %.2f %% alone, %.2f %% together (%.2f points lost, 95 %% CI %.2f…%.2f); %.1f → %.1f MiB/s "
                             "(slowdown %.1f %%, CI %.1f…%.1f) over %zu/%zu %s\n",
                     x.name.c_str(), x.auAlone, x.auTogether, x.auPointsLost, x.auPointsLostLow, x.auPointsLostHigh, x.mibAlone,
                     x.mibTogether, x.slowdownPercent, x.slowdownLowPercent, x.slowdownHighPercent, x.nAlone, x.nTogether,
                     x.unit.c_str());
    if (!r.lostMost.empty()) std::fprintf(stderr, "lost most: %s\n", r.lostMost.c_str());
    if (!r.error.empty()) std::fprintf(stderr, "error: %s\n", r.error.c_str());
    if (r.cancelled) std::fprintf(stderr, "collocate: cancelled\n");
    if (!r.file.empty() && fs::exists(r.file)) std::printf("%s\n", r.file.string().c_str());
    return r.complete ? 0 : 1;
}

} // namespace trainio::cli
