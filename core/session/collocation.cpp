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

#include <barrier>
#include <chrono>
#include <cmath>
#include <condition_variable>
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
            if (key != "name" && key != "config" && key != "accelerators" && key != "overrides" && key != "start_after_s")
                planError(file, "workloads: unknown key '" + key + "'" + where(kv.first) +
                                    "; expected name, config, accelerators, overrides, start_after_s");
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

store::CollocationFile collocationFile(const CollocationPlan& plan, const fs::path& dir, const CollocationOptions& opt,
                                       const std::vector<std::unique_ptr<WorkloadObserver>>& obs, const std::string& status,
                                       double start, double end, const ordered_json& processIo, const ordered_json& mpi) {
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
        f.trainingThreads += w.accelerators / processes; // what each process hosts
        f.readerThreads += w.accelerators / processes * w.resolved.reader.readThreads;
        store::CollocationMember m;
        m.name = w.name;
        m.path = w.name; // relative to the collocation's folder: the folder can move
        m.config = w.configSource;
        m.accelerators = w.accelerators;
        m.startAfterS = w.startAfterS;
        m.status = obs.empty() || obs[i]->done.empty() ? status : "complete";
        if (!obs.empty())
            for (const auto& inv : obs[i]->done) {
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
    std::barrier<> rounds(static_cast<std::ptrdiff_t>(n));

    // Under mpirun every process runs every workload with accelerators / processes of its accelerators, each
    // workload meeting its peers on its own communicator (their meetings overlap); only process 0 writes.
    const std::uint64_t processes = opt.comm ? static_cast<std::uint64_t>(opt.comm->size()) : 1;
    const bool writer = !opt.comm || opt.comm->rank() == 0;
    for (const auto& w : plan.workloads)
        if (w.accelerators % processes != 0)
            throw AgreedInputError(plan.file.string() + ": workload '" + w.name + "': accelerators = " + std::to_string(w.accelerators) +
                                   " under mpirun with " + std::to_string(processes) + " processes: expected a multiple of " +
                                   std::to_string(processes) + " (each process hosts accelerators / processes of them)");
    ordered_json mpi = ordered_json::object();
    std::vector<std::unique_ptr<dist::Communicator>> comms; // outlive the sessions that use them
    if (opt.comm) {
        dist::WaitLimits limits;
        limits.hurry = opt.cancel;
        std::vector<std::string> hosts;
        if (!opt.comm->allgatherStrings(readHostInfo().hostname, hosts, limits))
            throw RunError("collocate: the processes of the MPI job did not all answer (one is missing, hung or was killed)");
        for (std::size_t i = 0; i < n; ++i) {
            comms.push_back(opt.comm->duplicate(limits));
            if (!comms.back()) throw RunError("collocate: no communicator for workload '" + plan.workloads[i].name + "' (a process did not answer)");
        }
        mpi["processes"] = processes;
        mpi["hosts"] = hosts; // process p's host at [p]
        mpi["device_scope"] = plan.sharedDevice() ? ordered_json(plan.deviceScope) : ordered_json();
        ordered_json per = ordered_json::object();
        for (const auto& w : plan.workloads) per[w.name] = w.accelerators / processes;
        mpi["accelerators_per_process"] = per;
        mpi["note"] = "every process runs every workload with accelerators / processes of its accelerators (ranks p*K … p*K+K-1); "
                      "threads, cpus and process_io are process 0's";
    }
    auto commOf = [&](std::size_t i) { return comms.empty() ? nullptr : comms[i].get(); };

    std::shared_ptr<EmulatedStorageBackend> device;
    if (plan.sharedDevice())
        device = std::make_shared<EmulatedStorageBackend>(makePosixBackend(), deviceOfProcess(plan, processes),
                                                          plan.workloads.front().resolved.train.seed, WallClock());

    // Every workload is checked (and its dataset generated when asked) before anything is measured.
    std::vector<std::unique_ptr<WorkloadObserver>> obs;
    std::vector<std::unique_ptr<Session>> sessions;
    std::uint64_t training = 0, readers = 0; // this process's
    for (std::size_t i = 0; i < n; ++i) {
        const CollocatedWorkload& w = plan.workloads[i];
        training += w.accelerators / processes;
        readers += w.accelerators / processes * w.resolved.reader.readThreads;
        obs.push_back(std::make_unique<WorkloadObserver>(w, observer, rounds, stop, m, cv));
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
        sessions.push_back(std::make_unique<Session>(req, *obs.back()));
        try {
            if (!sessions.back()->prepare() || (opt.cancel && opt.cancel->load())) {
                res.cancelled = true;
                return res;
            }
        } catch (const PreflightFailed& e) {
            std::vector<PreflightProblem> problems = e.problems;
            const std::string ctx = plan.file.string() + ": workload '" + w.name + "': ";
            for (auto& p : problems) p.subject = ctx + p.subject;
            throw PreflightFailed(ctx + e.what(), problems);
        } catch (const InputError& e) {
            throw InputError(plan.file.string() + ": workload '" + w.name + "': " + e.what());
        }
    }
    // Each workload alone first, one after the other, on the same storage.
    std::vector<std::unique_ptr<AloneObserver>> aloneObs;
    if (opt.alone) {
        for (std::size_t i = 0; i < n; ++i) {
            const CollocatedWorkload& w = plan.workloads[i];
            aloneObs.push_back(std::make_unique<AloneObserver>(w, observer));
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
            const SessionResult r = Session(req, *aloneObs.back()).run();
            res.aloneInvocations.push_back(aloneObs.back()->done);
            if (!r.complete) {
                res.cancelled = r.cancelled;
                res.error = r.cancelled ? "" : "workload '" + w.name + "' alone: " + r.error;
                return res;
            }
        }
    }
    observer.onMessage("", "collocation: " + std::to_string(n) + " workloads, " + std::to_string(training) +
                               " training threads and " + std::to_string(readers) + " reader threads on " +
                               std::to_string(std::thread::hardware_concurrency()) + " CPUs" +
                               (processes > 1 ? " in each of " + std::to_string(processes) + " processes" : "") +
                               (!device                       ? ", the real storage"
                                : processes == 1              ? ", one shared emulated device"
                                : plan.deviceScope == "split" ? ", one emulated device split over the processes"
                                                              : ", one shared emulated device per process"));
    const WallClock clock;
    const double start = clock.now();
    if (writer) {
        fs::create_directories(dir);
        store::writeCollocationFile(collocationFile(plan, dir, opt, {}, "running", start, 0, ordered_json::object(), mpi), dir);
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
        threads.emplace_back([&, i] {
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

    res.complete = true;
    for (std::size_t i = 0; i < n; ++i) {
        res.invocations.push_back(obs[i]->done);
        if (!thrown[i].empty() && res.error.empty()) res.error = "workload '" + plan.workloads[i].name + "': " + thrown[i];
        if (!obs[i]->error.empty() && res.error.empty()) res.error = "workload '" + plan.workloads[i].name + "': " + obs[i]->error;
        if (!results[i].complete) res.complete = false;
    }
    res.cancelled = !res.complete && res.error.empty() && opt.cancel && opt.cancel->load();
    const std::string status = res.complete ? "complete" : res.cancelled ? "cancelled" : "failed";
    store::CollocationFile file = collocationFile(plan, dir, opt, obs, status, start, end, processIo, mpi);
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
