#include "session/collocation.h"

#include "aggregate/interference.h"
#include "config/config_loader.h"
#include "dataset/dataset_layout.h"
#include "dist/communicator.h"
#include "io/storage_profile.h"
#include "io/emulated_storage.h"
#include "io/io_backend.h"
#include "io/page_cache.h"
#include "session/storage_session.h"
#include "store/run_folder.h"
#include "util/clock.h"
#include "util/errors.h"
#include "util/host_info.h"

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <set>
#include <thread>

namespace trainio::session {
namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace {

constexpr std::uintmax_t kMaxPlanBytes = 1 << 20;

[[noreturn]] void planError(const fs::path& file, const std::string& what) { throw InputError(file.string() + ": " + what); }

std::string where(const YAML::Node& n) {
    return n.Mark().line >= 0 ? " (line " + std::to_string(n.Mark().line + 1) + ")" : "";
}

std::string scalarText(const fs::path& file, const YAML::Node& n, const std::string& key) {
    if (!n.IsScalar()) planError(file, key + where(n) + ": expected a single value");
    return n.Scalar();
}

double numberAt(const fs::path& file, const YAML::Node& n, const std::string& key, double min) {
    const std::string text = scalarText(file, n, key);
    std::size_t used = 0;
    double v = NAN;
    try {
        v = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != text.size() || !std::isfinite(v) || v < min)
        planError(file, key + " = '" + text + "'" + where(n) + ": expected a number >= " + std::to_string(static_cast<long long>(min)));
    return v;
}

// The plan's storage: keys, as overrides of trainio.storage.<key> (nested maps flattened with dots):
// the one table of configuration keys checks them as it checks any workload's.
void flattenStorage(const fs::path& file, const YAML::Node& n, const std::string& prefix, std::vector<std::string>& out) {
    if (!n.IsMap()) planError(file, prefix + where(n) + ": expected a map of trainio.storage keys (profile, bandwidth_mib_s, …)");
    for (const auto& kv : n) {
        const std::string key = prefix + "." + kv.first.Scalar();
        if (kv.second.IsMap()) flattenStorage(file, kv.second, key, out);
        else out.push_back("++workload.trainio." + key + "=" + scalarText(file, kv.second, key));
    }
}

bool goodName(const std::string& s) {
    if (s.empty() || s.size() > 64) return false;
    for (unsigned char c : s)
        if (!std::isalnum(c) && c != '_' && c != '-') return false;
    return true;
}


std::string othersOf(const CollocationPlan& plan, std::size_t w) {
    std::string s;
    for (std::size_t i = 0; i < plan.workloads.size(); ++i)
        if (i != w) s += (s.empty() ? "" : ", ") + plan.workloads[i].name;
    return s;
}

} // namespace

CollocationPlan loadCollocationPlan(const fs::path& file) {
    CollocationPlan plan;
    plan.file = file;
    std::error_code ec;
    std::string why;
    const auto text = store::readBoundedFile(file, kMaxPlanBytes, why);
    if (!text) planError(file, "cannot read the collocation plan: " + why);
    YAML::Node root;
    try {
        root = YAML::Load(*text);
    } catch (const YAML::Exception& e) {
        planError(file, "not valid YAML: " + e.msg + " (line " + std::to_string(e.mark.line + 1) + ")");
    }
    if (!root.IsMap()) planError(file, "expected a map with `workloads:` (a list of two or more) and optionally `storage:`");
    for (const auto& kv : root) {
        const std::string key = kv.first.Scalar();
        if (key != "workloads" && key != "storage" && key != "device_scope")
            planError(file, "unknown key '" + key + "'" + where(kv.first) + "; expected workloads, storage or device_scope");
    }
    if (root["device_scope"]) {
        plan.deviceScope = scalarText(file, root["device_scope"], "device_scope");
        if (plan.deviceScope != "per_client" && plan.deviceScope != "split")
            planError(file, "device_scope = '" + plan.deviceScope + "'" + where(root["device_scope"]) +
                                ": expected per_client (under mpirun every process its own device with the storage: limits) or "
                                "split (one budget for the job: each of P processes gets 1/P of the bandwidth, IOPS and in-flight)");
        if (!root["storage"])
            planError(file, "device_scope" + where(root["device_scope"]) + ": no `storage:` section (device_scope says how the "
                                                                              "shared emulated device is divided under mpirun)");
    }
    if (root["storage"]) flattenStorage(file, root["storage"], "storage", plan.storageOverrides);
    const YAML::Node list = root["workloads"];
    if (!list || !list.IsSequence() || list.size() < 2)
        planError(file, "workloads: expected a list of two or more workloads (name, config, accelerators)");
    const fs::path planDir = file.parent_path();
    std::set<std::string> names;
    for (const auto& n : list) {
        if (!n.IsMap()) planError(file, "workloads" + where(n) + ": each workload is a map (name, config, accelerators, …)");
        CollocatedWorkload w;
        for (const auto& kv : n) {
            const std::string key = kv.first.Scalar();
            if (key != "name" && key != "config" && key != "accelerators" && key != "overrides" && key != "start_after_s" &&
                key != "hosts")
                planError(file, "workloads: unknown key '" + key + "'" + where(kv.first) +
                                    "; expected name, config, accelerators, overrides, start_after_s, hosts");
        }
        if (!n["name"]) planError(file, "workloads" + where(n) + ": a workload without `name`");
        w.name = scalarText(file, n["name"], "name");
        if (!goodName(w.name))
            planError(file, "name '" + w.name + "'" + where(n["name"]) + ": expected a folder name of letters, digits, '_' and '-'");
        if (!names.insert(w.name).second) planError(file, "name '" + w.name + "'" + where(n["name"]) + ": used twice; names must be unique");
        const std::string ctx = "workload '" + w.name + "': ";
        if (!n["config"]) planError(file, ctx + "no `config` (a preset name, or a DLIO workload YAML/JSON file)");
        w.config = scalarText(file, n["config"], "config");
        if (n["accelerators"]) {
            const double a = numberAt(file, n["accelerators"], ctx + "accelerators", 1);
            if (a != std::floor(a) || a > 4096) planError(file, ctx + "accelerators = " + n["accelerators"].Scalar() + ": expected a whole number 1…4096");
            w.accelerators = static_cast<std::uint64_t>(a);
        }
        if (n["start_after_s"]) w.startAfterS = numberAt(file, n["start_after_s"], ctx + "start_after_s", 0);
        if (const YAML::Node h = n["hosts"]) {
            // A host name as the processes report it (gethostname): letters, digits, '.', '-', '_'.
            if (!h.IsSequence() || h.size() == 0)
                planError(file, ctx + "hosts" + where(h) + ": expected a list of one or more host names (where the workload runs under mpirun)");
            for (const auto& x : h) {
                const std::string name = scalarText(file, x, ctx + "hosts");
                bool ok = !name.empty() && name.size() <= 253;
                for (unsigned char c : name) ok = ok && (std::isalnum(c) || c == '.' || c == '-' || c == '_');
                if (!ok) planError(file, ctx + "hosts: '" + name + "'" + where(x) + ": expected a host name (letters, digits, '.', '-', '_')");
                if (std::find(w.hosts.begin(), w.hosts.end(), name) != w.hosts.end())
                    planError(file, ctx + "hosts: '" + name + "'" + where(x) + ": named twice");
                w.hosts.push_back(name);
            }
        }
        if (const YAML::Node o = n["overrides"]) {
            if (!o.IsSequence()) planError(file, ctx + "overrides" + where(o) + ": expected a list of ++workload.section.key=value");
            for (const auto& x : o) w.overrides.push_back(scalarText(file, x, ctx + "overrides"));
        }
        // A file next to the plan wins; otherwise a preset name (or a path from the current folder).
        w.configSource = fs::exists(planDir / w.config, ec) ? (planDir / w.config).string() : w.config;
        try {
            const WorkloadConfig own = loadConfigOrPreset(w.configSource, w.overrides).config;
            if (own.trainio.storage.any())
                planError(file, ctx + "its config sets trainio.storage (an emulated device of its own); the workloads of a "
                                      "collocation share one storage: put the device in the plan's `storage:` section");
            std::vector<std::string> all = w.overrides;
            all.insert(all.end(), plan.storageOverrides.begin(), plan.storageOverrides.end());
            w.resolved = plan.storageOverrides.empty() ? own : loadConfigOrPreset(w.configSource, all).config;
        } catch (const InputError& e) {
            const std::string msg = e.what();
            if (msg.rfind(file.string() + ": ", 0) == 0) throw;
            planError(file, ctx + msg);
        }
        if (w.resolved.trainio.cache == "drop")
            planError(file, ctx + "trainio.cache = drop empties the whole page cache before each epoch, under the other "
                                  "workloads' feet; expected keep or fadvise (per file) in a collocation");
        if (!plan.storageOverrides.empty() && w.resolved.trainio.ioEngine != "posix")
            planError(file, ctx + "trainio.io_engine = " + w.resolved.trainio.ioEngine +
                                  ": the shared emulated device reads through posix; expected posix (or no `storage:`)");
        if (!w.resolved.workflow.train)
            planError(file, ctx + "workflow.train = False: a collocation measures training reads (expected True)");
        plan.workloads.push_back(std::move(w));
    }
    plan.storage = plan.workloads.front().resolved.trainio.storage;
    return plan;
}

StorageShape deviceOfProcess(const CollocationPlan& plan, std::uint64_t processes) {
    StorageShape shape = storageShapeFor(plan.storage);
    if (plan.deviceScope != "split" || processes <= 1) return shape;
    const double p = static_cast<double>(processes);
    shape.bandwidthBytesPerSecond /= p;
    shape.iops /= p;
    if (shape.maxInflight > 0) shape.maxInflight = std::max(1u, static_cast<unsigned>(shape.maxInflight / processes));
    return shape;
}

namespace {

CollocatedInvocation invocationOf(const std::string& label, const fs::path& dir, const RunOutcome& out, double recordLength) {
    CollocatedInvocation inv;
    inv.label = label;
    inv.path = dir;
    inv.start = out.start;
    inv.end = out.end;
    inv.status = toString(out.status);
    inv.auPercent = out.metrics.auMean;
    inv.mibPerSecond = out.metrics.ioMeanMiB;
    inv.auPerEpoch = out.metrics.auPerEpoch;
    for (double sps : out.metrics.throughputPerEpoch) inv.mibPerEpoch.push_back(sps * recordLength / 1048576.0);
    inv.bytesRead = out.bytesRead;
    inv.warmup = label.rfind("warm-up", 0) == 0;
    return inv;
}

// A workload's invocations as they travel from its first process to the others (under mpirun, when the
// workload runs on some hosts only); NaN travels as null.
ordered_json invocationsJson(const std::vector<CollocatedInvocation>& v) {
    ordered_json a = ordered_json::array();
    for (const auto& i : v)
        a.push_back({{"label", i.label}, {"path", i.path.string()}, {"start", i.start}, {"end", i.end}, {"status", i.status},
                     {"au", i.auPercent}, {"mib", i.mibPerSecond}, {"au_epochs", i.auPerEpoch}, {"mib_epochs", i.mibPerEpoch},
                     {"bytes", i.bytesRead}, {"warmup", i.warmup}});
    return a;
}

std::vector<CollocatedInvocation> invocationsFrom(const ordered_json& a) {
    const auto num = [](const ordered_json& x) { return x.is_number() ? x.get<double>() : NAN; };
    const auto nums = [&](const ordered_json& x) {
        std::vector<double> v;
        for (const auto& e : x) v.push_back(num(e));
        return v;
    };
    std::vector<CollocatedInvocation> out;
    for (const auto& j : a) {
        CollocatedInvocation i;
        i.label = j.at("label").get<std::string>();
        i.path = j.at("path").get<std::string>();
        i.start = num(j.at("start"));
        i.end = num(j.at("end"));
        i.status = j.at("status").get<std::string>();
        i.auPercent = num(j.at("au"));
        i.mibPerSecond = num(j.at("mib"));
        i.auPerEpoch = nums(j.at("au_epochs"));
        i.mibPerEpoch = nums(j.at("mib_epochs"));
        i.bytesRead = j.at("bytes").get<std::uint64_t>();
        i.warmup = j.at("warmup").get<bool>();
        out.push_back(std::move(i));
    }
    return out;
}

// What one workload's alone session did (CollocationOptions::alone).
class AloneObserver final : public SessionObserver {
public:
    AloneObserver(const CollocatedWorkload& w, CollocationObserver& out) : w_(w), out_(out) {}
    void onMessage(const std::string& text) override { out_.onMessage(w_.name + " (alone)", text); }
    void onInvocationStart(const std::string& label, const fs::path& dir, std::size_t) override {
        out_.onInvocationStart(w_.name + " (alone)", label, dir);
    }
    void onInvocationDone(const std::string& label, const fs::path& dir, const RunOutcome& out) override {
        done.push_back(invocationOf(label, dir, out, w_.resolved.dataset.recordLength));
        out_.onInvocationDone(w_.name + " (alone)", label, dir, out);
    }
    std::vector<CollocatedInvocation> done;

private:
    const CollocatedWorkload& w_;
    CollocationObserver& out_;
};

// One workload's session, as the collocation sees it: its rounds start together (a barrier every
// workload's thread meets before each invocation), staggered by start_after_s; a workload that does not
// complete stops the others.
class WorkloadObserver final : public SessionObserver {
public:
    WorkloadObserver(const CollocatedWorkload& w, CollocationObserver& out, std::barrier<>& rounds, std::atomic<bool>& stop,
                     std::mutex& m, std::condition_variable& cv)
        : w_(w), out_(out), rounds_(rounds), stop_(stop), m_(m), cv_(cv) {}
    void onMessage(const std::string& text) override { out_.onMessage(w_.name, text); }
    void onInvocationStart(const std::string& label, const fs::path& dir, std::size_t) override {
        rounds_.arrive_and_wait();
        if (w_.startAfterS > 0) {
            std::unique_lock lock(m_);
            cv_.wait_for(lock, std::chrono::duration<double>(w_.startAfterS), [this] { return stop_.load(); });
        }
        out_.onInvocationStart(w_.name, label, dir);
    }
    void onInvocationDone(const std::string& label, const fs::path& dir, const RunOutcome& out) override {
        done.push_back(invocationOf(label, dir, out, w_.resolved.dataset.recordLength));
        if (out.status != RunStatus::Complete) {
            if (error.empty() && out.status == RunStatus::Failed) error = out.error;
            stopAll();
        }
        out_.onInvocationDone(w_.name, label, dir, out);
    }
    void stopAll() {
        {
            std::lock_guard lock(m_);
            stop_ = true;
        }
        cv_.notify_all();
    }

    std::vector<CollocatedInvocation> done;
    std::string error;

private:
    const CollocatedWorkload& w_;
    CollocationObserver& out_;
    std::barrier<>& rounds_;
    std::atomic<bool>& stop_;
    std::mutex& m_;
    std::condition_variable& cv_;
};

// Which processes run each workload (plan key `hosts`; all of them without it) and how many of its
// accelerators each hosts.
struct Placement {
    std::vector<std::vector<int>> processes; // per workload, in rank order
    std::vector<std::uint64_t> perProcess;   // per workload: accelerators / its processes
    bool on(std::size_t w, int process) const {
        return std::find(processes[w].begin(), processes[w].end(), process) != processes[w].end();
    }
};

store::CollocationFile collocationFile(const CollocationPlan& plan, const fs::path& dir, const CollocationOptions& opt,
                                       const Placement& placed, const std::vector<std::vector<CollocatedInvocation>>& done,
                                       const std::string& status, double start, double end, const ordered_json& processIo,
                                       const ordered_json& mpi) {
    const std::uint64_t processes = opt.comm ? static_cast<std::uint64_t>(opt.comm->size()) : 1;
    store::CollocationFile f;
    f.plan = plan.file.string();
    f.commandLine = opt.commandLine;
    f.status = status;
    f.start = start;
    f.end = end > 0 ? end : NAN;
    f.runs = opt.runs;
    f.warmups = opt.runs > 0 ? opt.warmups : 0;
    for (std::size_t i = 0; i < plan.workloads.size(); ++i) {
        const CollocatedWorkload& w = plan.workloads[i];
        if (placed.on(i, 0)) { // what process 0 hosts
            f.trainingThreads += placed.perProcess[i];
            f.readerThreads += placed.perProcess[i] * w.resolved.reader.readThreads;
        }
        store::CollocationMember m;
        m.name = w.name;
        m.path = w.name; // relative to the collocation's folder: the folder can move
        m.config = w.configSource;
        m.accelerators = w.accelerators;
        m.startAfterS = w.startAfterS;
        m.status = done.empty() || done[i].empty() ? status : "complete";
        if (!done.empty())
            for (const auto& inv : done[i]) {
                m.invocations.push_back(
                    {inv.label, inv.path.lexically_relative(dir), inv.start, inv.end, inv.status, inv.auPercent, inv.bytesRead});
                if (!(m.start <= inv.start)) m.start = inv.start;
                if (!(m.end >= inv.end)) m.end = inv.end;
                if (inv.status != "complete") m.status = inv.status;
            }
        f.workloads.push_back(std::move(m));
    }
    if (plan.sharedDevice()) {
        f.sharedStorage = storageShapeJson(storageShapeFor(plan.storage));
        f.sharedStorage["profile"] = plan.storage.profile.empty() ? ordered_json() : ordered_json(plan.storage.profile);
        if (opt.comm) {
            f.sharedStorage["device_scope"] = plan.deviceScope;
            f.sharedStorage["per_process"] = storageShapeJson(deviceOfProcess(plan, processes));
        }
    }
    f.cpus = std::thread::hardware_concurrency();
    f.processIo = processIo;
    f.mpi = mpi;
    return f;
}

} // namespace

Interference interference(const std::string& name, const std::vector<CollocatedInvocation>& alone,
                          const std::vector<CollocatedInvocation>& together) {
    auto measured = [](const std::vector<CollocatedInvocation>& v) {
        std::vector<aggregate::InterferenceRun> out;
        for (const auto& i : v)
            if (!i.warmup && i.status == "complete") out.push_back({i.auPercent, i.mibPerSecond, i.auPerEpoch, i.mibPerEpoch});
        return out;
    };
    return aggregate::compareAloneTogether(name, measured(alone), measured(together));
}

CollocationResult runCollocation(const CollocationPlan& plan, const fs::path& dir, const CollocationOptions& opt,
                                 CollocationObserver& observer) {
    const std::size_t n = plan.workloads.size();
    CollocationResult res;
    res.file = dir / store::kCollocationFile;
    std::atomic<bool> stop{false};
    std::mutex m;
    std::condition_variable cv;

    // Under mpirun every process runs every workload, or the workloads placed on its host (plan key `hosts`),
    // with accelerators / (the workload's processes) of its accelerators; each workload meets its peers on its
    // own communicator (their meetings overlap); process 0 writes the collocation's file, each workload's
    // first process its folder.
    const std::uint64_t processes = opt.comm ? static_cast<std::uint64_t>(opt.comm->size()) : 1;
    const int me = opt.comm ? opt.comm->rank() : 0;
    const bool writer = me == 0;
    dist::WaitLimits limits;
    limits.hurry = opt.cancel;
    std::vector<std::string> hosts{readHostInfo().hostname};
    if (opt.comm && !opt.comm->allgatherStrings(hosts.front(), hosts, limits))
        throw RunError("collocate: the processes of the MPI job did not all answer (one is missing, hung or was killed)");
    Placement placed;
    for (std::size_t i = 0; i < n; ++i) {
        const CollocatedWorkload& w = plan.workloads[i];
        std::vector<int> on;
        for (int p = 0; p < static_cast<int>(processes); ++p)
            if (!opt.comm || w.hosts.empty() ||
                std::find(w.hosts.begin(), w.hosts.end(), hosts[static_cast<std::size_t>(p)]) != w.hosts.end())
                on.push_back(p);
        if (on.empty()) {
            std::string named, job;
            for (const auto& h : w.hosts) named += (named.empty() ? "" : ", ") + h;
            for (const auto& h : std::set<std::string>(hosts.begin(), hosts.end())) job += (job.empty() ? "" : ", ") + h;
            throw AgreedInputError(plan.file.string() + ": workload '" + w.name + "': hosts: " + named +
                                   ": no process of the MPI job runs there; its processes run on " + job +
                                   " (host names as the processes report them: gethostname)");
        }
        if (w.accelerators % on.size() != 0)
            throw AgreedInputError(plan.file.string() + ": workload '" + w.name + "': accelerators = " + std::to_string(w.accelerators) +
                                   " under mpirun with " + std::to_string(on.size()) + " processes" +
                                   (w.hosts.empty() ? std::string() : " on its hosts") + ": expected a multiple of " +
                                   std::to_string(on.size()) + " (each process hosts accelerators / processes of them)");
        placed.perProcess.push_back(w.accelerators / on.size());
        placed.processes.push_back(std::move(on));
    }
    for (int p = 0; p < static_cast<int>(processes); ++p) {
        bool any = false;
        for (std::size_t i = 0; i < n; ++i) any = any || placed.on(i, p);
        if (!any)
            throw AgreedInputError(plan.file.string() + ": process " + std::to_string(p) + " (host " + hosts[static_cast<std::size_t>(p)] +
                                   ") runs no workload of the plan: name its host in a workload's `hosts`, or leave it out of the job");
    }
    if (!opt.comm)
        for (const auto& w : plan.workloads)
            if (!w.hosts.empty())
                observer.onMessage(w.name, "hosts: not used in one process (every workload runs here); it places the "
                                           "workload under mpirun");
    ordered_json mpi = ordered_json::object();
    std::vector<std::unique_ptr<dist::Communicator>> comms; // outlive the sessions that use them
    std::vector<bool> local(n, true);                        // the workloads this process runs
    if (opt.comm) {
        for (std::size_t i = 0; i < n; ++i) {
            local[i] = placed.on(i, me);
            comms.push_back(opt.comm->subset(local[i], limits));
            if (local[i] && !comms.back())
                throw RunError("collocate: no communicator for workload '" + plan.workloads[i].name + "' (a process did not answer)");
        }
        mpi["processes"] = processes;
        mpi["hosts"] = hosts; // process p's host at [p]
        mpi["device_scope"] = plan.sharedDevice() ? ordered_json(plan.deviceScope) : ordered_json();
        ordered_json per = ordered_json::object(), where = ordered_json::object();
        for (std::size_t i = 0; i < n; ++i) {
            per[plan.workloads[i].name] = placed.perProcess[i];
            where[plan.workloads[i].name] = placed.processes[i];
        }
        mpi["accelerators_per_process"] = per;
        mpi["placement"] = where; // the processes that run each workload
        mpi["note"] = "each workload runs on its processes (every process, or those on the plan's hosts) with accelerators / "
                      "processes of its accelerators each; threads, cpus and process_io are process 0's";
    }
    auto commOf = [&](std::size_t i) { return comms.empty() ? nullptr : comms[i].get(); };
    std::size_t localCount = 0;
    for (std::size_t i = 0; i < n; ++i) localCount += local[i] ? 1 : 0;
    std::barrier<> rounds(static_cast<std::ptrdiff_t>(localCount));
    // Under mpirun, after each workload's alone run: every process agrees before the next starts (a workload
    // placed on some hosts must not overlap the next one's alone run), and learns of a failure anywhere.
    // These meetings wait for other processes' whole work (a placed workload's check, generation, alone run,
    // or its end): no time bound (a process that dies ends the job through mpirun; a cancel still hurries
    // them), and a poll every 2 ms instead of every 20 µs, so that a waiting process leaves the cores to the
    // workloads still running on its host.
    dist::WaitLimits patient = limits;
    patient.timeoutSeconds = std::numeric_limits<double>::infinity();
    patient.idleSleepSeconds = 0.002;
    // Returns the problems said anywhere (each "process P (host): …" under mpirun).
    auto agreeAll = [&](const std::string& problem) -> std::vector<std::string> {
        if (!opt.comm) return problem.empty() ? std::vector<std::string>{} : std::vector<std::string>{problem};
        std::vector<std::string> problems;
        if (!dist::agree(*opt.comm, problem, problems, patient))
            throw RunError("collocate: the processes of the MPI job did not all answer (one is missing, hung or was killed)");
        return problems;
    };
    static const std::string kCancelled = "cancelled by the user";
    auto onlyCancels = [&](const std::vector<std::string>& problems) {
        return std::all_of(problems.begin(), problems.end(), [&](const std::string& p) {
            return p.size() >= kCancelled.size() && p.compare(p.size() - kCancelled.size(), kCancelled.size(), kCancelled) == 0;
        });
    };

    std::shared_ptr<EmulatedStorageBackend> device;
    if (plan.sharedDevice())
        device = std::make_shared<EmulatedStorageBackend>(makePosixBackend(), deviceOfProcess(plan, processes),
                                                          plan.workloads.front().resolved.train.seed, WallClock());

    // Every workload is checked (and its dataset generated when asked) before anything is measured: each by
    // the processes that run it, one workload after the other (two workloads may share a dataset folder), and
    // under mpirun every process agrees after each (a problem anywhere stops all).
    std::vector<std::unique_ptr<WorkloadObserver>> obs(n);
    std::vector<std::unique_ptr<Session>> sessions(n);
    std::uint64_t training = 0, readers = 0; // this process's
    std::exception_ptr failedHere;
    std::string problemHere;
    bool cancelledHere = false;
    // After each workload's check: true when every process was cancelled; throws what failed anywhere.
    auto checkedTogether = [&]() -> bool {
        const auto anywhere = agreeAll(failedHere ? problemHere : cancelledHere ? kCancelled : "");
        if (anywhere.empty()) return false;
        if (failedHere) std::rethrow_exception(failedHere);
        if (onlyCancels(anywhere)) {
            res.cancelled = true;
            return true;
        }
        for (const auto& p : anywhere)
            if (!onlyCancels({p})) throw AgreedInputError(p);
        return true;
    };
    for (std::size_t i = 0; i < n; ++i) {
        if (!local[i]) {
            checkedTogether();
            continue;
        }
        const CollocatedWorkload& w = plan.workloads[i];
        training += placed.perProcess[i];
        readers += placed.perProcess[i] * w.resolved.reader.readThreads;
        obs[i] = std::make_unique<WorkloadObserver>(w, observer, rounds, stop, m, cv);
        SessionRequest req;
        req.config = w.resolved;
        req.mode = opt.runs > 0 ? SessionMode::Benchmark : SessionMode::Run;
        req.output = dir / w.name;
        req.accelerators = w.accelerators;
        req.runs = opt.runs;
        req.warmups = opt.warmups;
        req.invocation.cancel = &stop;
        req.invocation.io = device;
        req.invocation.comm = commOf(i);
        req.invocation.observer = opt.liveObserver ? opt.liveObserver(i) : nullptr;
        req.invocation.commandLine = opt.commandLine + " (workload " + w.name + ")";
        req.invocation.collocatedWith = othersOf(plan, i);
        req.invocation.labels = opt.labels;
        sessions[i] = std::make_unique<Session>(req, *obs[i]);
        try {
            if (!sessions[i]->prepare() || (opt.cancel && opt.cancel->load())) cancelledHere = true;
        } catch (const PreflightFailed& e) {
            std::vector<PreflightProblem> problems = e.problems;
            const std::string ctx = plan.file.string() + ": workload '" + w.name + "': ";
            for (auto& p : problems) p.subject = ctx + p.subject;
            failedHere = std::make_exception_ptr(PreflightFailed(ctx + e.what(), problems));
            problemHere = ctx + e.what();
        } catch (const InputError& e) {
            problemHere = plan.file.string() + ": workload '" + w.name + "': " + e.what();
            failedHere = std::make_exception_ptr(InputError(problemHere));
        } catch (const std::exception& e) { // generation failed: said as the workload's, on every process
            problemHere = plan.file.string() + ": workload '" + w.name + "': " + e.what();
            failedHere = std::make_exception_ptr(RunError(problemHere));
        }
        if (checkedTogether()) return res;
    }
    // Each workload alone first, one after the other, on the same storage.
    std::vector<std::vector<CollocatedInvocation>> aloneDone(n);
    if (opt.alone) {
        for (std::size_t i = 0; i < n; ++i) {
            const CollocatedWorkload& w = plan.workloads[i];
            std::string failed;
            if (local[i]) {
                AloneObserver aloneObs(w, observer);
                SessionRequest req;
                req.config = w.resolved;
                // Checked and generated above by the workload's own session, before anything was measured. The config
                // stays the workload's (generate_data too), so that alone and together are one benchmark identity.
                req.preflight = false;
                req.generateHere = false;
                req.mode = opt.runs > 0 ? SessionMode::Benchmark : SessionMode::Run;
                req.output = dir / store::kAloneFolder / w.name;
                req.accelerators = w.accelerators;
                req.runs = opt.runs;
                req.warmups = opt.warmups;
                req.invocation.cancel = opt.cancel;
                req.invocation.io = device;
                req.invocation.comm = commOf(i);
                req.invocation.commandLine = opt.commandLine + " (workload " + w.name + ", alone)";
                req.invocation.labels = opt.labels;
                const SessionResult r = Session(req, aloneObs).run();
                aloneDone[i] = aloneObs.done;
                if (!r.complete) failed = r.cancelled ? kCancelled : "workload '" + w.name + "' alone: " + r.error;
            }
            if (const auto anywhere = agreeAll(failed); !anywhere.empty()) {
                res.aloneInvocations = aloneDone;
                res.cancelled = onlyCancels(anywhere);
                res.error = res.cancelled ? "" : !failed.empty() && !onlyCancels({failed}) ? failed : anywhere.front();
                return res;
            }
        }
    }
    observer.onMessage("", "collocation: " + std::to_string(localCount) + " workloads, " + std::to_string(training) +
                               " training threads and " + std::to_string(readers) + " reader threads on " +
                               std::to_string(std::thread::hardware_concurrency()) + " CPUs" +
                               (processes > 1 ? " in process " + std::to_string(me) + " of " + std::to_string(processes) : "") +
                               (!device                       ? ", the real storage"
                                : processes == 1              ? ", one shared emulated device"
                                : plan.deviceScope == "split" ? ", one emulated device split over the processes"
                                                              : ", one shared emulated device per process"));
    const WallClock clock;
    const double start = clock.now();
    if (writer) {
        fs::create_directories(dir);
        store::writeCollocationFile(collocationFile(plan, dir, opt, placed, {}, "running", start, 0, ordered_json::object(), mpi), dir);
    }

    // The collocation's page-cache share: the process's counters over every workload's files.
    std::vector<std::string> files;
    for (const auto& w : plan.workloads) {
        auto f = DatasetLayout(w.resolved.dataset).filePaths(Split::Train);
        files.insert(files.end(), f.begin(), f.end());
    }
    PageCacheMeter meter(datasetRoot(plan.workloads.front().resolved.dataset.dataFolder), files);
    meter.beginEpoch();

    if (device && opt.onStorage) opt.onStorage(device);
    // A user's cancel reaches every workload through the collocation's own flag (which a failing workload sets too).
    bool finished = false;
    std::thread watcher([&] {
        std::unique_lock lock(m);
        while (!finished && !stop) {
            cv.wait_for(lock, std::chrono::milliseconds(50));
            if (opt.cancel && opt.cancel->load()) stop = true;
        }
        lock.unlock();
        cv.notify_all();
    });
    std::vector<SessionResult> results(n);
    std::vector<std::string> thrown(n);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < n; ++i)
        if (local[i]) threads.emplace_back([&, i] {
            try {
                results[i] = sessions[i]->measure();
            } catch (const std::exception& e) {
                thrown[i] = e.what();
                obs[i]->stopAll();
            }
            rounds.arrive_and_drop();
        });
    for (auto& t : threads) t.join();
    {
        std::lock_guard lock(m);
        finished = true;
    }
    cv.notify_all();
    watcher.join();
    const double end = clock.now();
    if (device && opt.onStorage) opt.onStorage(nullptr);

    std::vector<std::uint64_t> delivered(n, 0);
    for (std::size_t i = 0; i < n; ++i)
        if (local[i])
            for (const auto& inv : obs[i]->done) delivered[i] += inv.bytesRead;
    const EpochIoRecord io = meter.endEpoch(1, delivered);
    ordered_json processIo;
    std::uint64_t total = 0;
    for (auto d : delivered) total += d;
    processIo["bytes_delivered"] = total;
    std::optional<std::uint64_t> fromStorage;
    for (const auto& r : io.ranks)
        if (r.bytesFromStorage) fromStorage = fromStorage.value_or(0) + *r.bytesFromStorage;
    processIo["bytes_from_storage"] = fromStorage ? ordered_json(*fromStorage) : ordered_json();
    const auto pct = percentFromCache(io);
    processIo["percent_from_cache"] = pct ? ordered_json(*pct) : ordered_json();
    processIo["note"] = "the process's read counters over the whole collocation, every workload together";

    // What each workload did: here for the workloads this process runs; under mpirun each workload's first
    // process speaks for it, and its figures reach every process (process 0 writes them).
    std::vector<std::vector<CollocatedInvocation>> done(n);
    std::vector<std::string> errors(n);
    std::vector<bool> complete(n, false);
    for (std::size_t i = 0; i < n; ++i) {
        if (!local[i]) continue;
        done[i] = obs[i]->done;
        const std::string& why = !thrown[i].empty() ? thrown[i] : obs[i]->error;
        if (!why.empty()) errors[i] = "workload '" + plan.workloads[i].name + "': " + why;
        complete[i] = results[i].complete;
    }
    if (opt.comm) {
        ordered_json mine = ordered_json::object();
        for (std::size_t i = 0; i < n; ++i)
            if (local[i] && comms[i] && comms[i]->rank() == 0)
                mine[std::to_string(i)] = {{"done", invocationsJson(done[i])}, {"alone", invocationsJson(aloneDone[i])},
                                           {"error", errors[i]}, {"complete", complete[i]}};
        std::vector<std::string> all;
        if (opt.comm->allgatherStrings(mine.dump(), all, patient)) {
            for (std::size_t p = 0; p < all.size(); ++p) {
                if (static_cast<int>(p) == me) continue;
                const ordered_json theirs = ordered_json::parse(all[p]);
                for (const auto& [key, v] : theirs.items()) {
                    const std::size_t i = std::stoul(key);
                    if (i >= n || local[i]) continue;
                    done[i] = invocationsFrom(v.at("done"));
                    aloneDone[i] = invocationsFrom(v.at("alone"));
                    errors[i] = v.at("error").get<std::string>();
                    complete[i] = v.at("complete").get<bool>();
                }
            }
        }
        for (std::size_t i = 0; i < n; ++i)
            if (!local[i] && !complete[i] && errors[i].empty() && done[i].empty())
                errors[i] = "workload '" + plan.workloads[i].name + "': its processes did not report at the end (killed, hung or gone)";
    }
    res.complete = true;
    for (std::size_t i = 0; i < n; ++i) {
        res.invocations.push_back(done[i]);
        if (!errors[i].empty() && res.error.empty()) res.error = errors[i];
        if (!complete[i]) res.complete = false;
    }
    res.aloneInvocations = aloneDone;
    res.cancelled = !res.complete && res.error.empty() && opt.cancel && opt.cancel->load();
    const std::string status = res.complete ? "complete" : res.cancelled ? "cancelled" : "failed";
    store::CollocationFile file = collocationFile(plan, dir, opt, placed, done, status, start, end, processIo, mpi);
    file.error = res.error;
    if (opt.alone) {
        for (std::size_t i = 0; i < n; ++i) {
            Interference x = interference(plan.workloads[i].name, res.aloneInvocations[i], res.invocations[i]);
            x.alonePath = fs::path(store::kAloneFolder) / x.name; // relative to the collocation's folder
            res.interference.push_back(std::move(x));
        }
        res.lostMost = aggregate::lostMost(res.interference);
        file.hasInterference = true;
        file.interference = res.interference;
        file.lostMost = res.lostMost;
    }
    if (writer) store::writeCollocationFile(file, dir);
    return res;
}

} // namespace trainio::session
