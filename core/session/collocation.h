// Collocated workloads (issue 23, docs/collocation.md): several training jobs at once in one process, each
// on its own accelerators, readers and barrier, all on the same storage — the real one, or ONE emulated
// device they all go through, so that its limits are shared as a real device's are. Each workload is an
// ordinary session (core/session/session.h) into DIR/<name>/; the collocation starts their invocations
// together (round by round with --runs), staggers them by start_after_s, stops them all on a cancel or
// when one fails, and writes DIR/trainio_collocation.json.
#pragma once

#include "config/workload_config.h"
#include "io/emulated_storage.h"
#include "engine/engine_observer.h"
#include "session/session.h"
#include "store/collocation_file.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace trainio::dist {
class Communicator;
}

namespace trainio::session {

struct CollocatedWorkload {
    std::string name;                   // folder name under DIR: [A-Za-z0-9_-], unique
    std::string config;                 // as written in the plan: a preset, or a YAML/JSON file
    std::string configSource;           // what was loaded: the file (resolved against the plan's folder) or preset
    std::uint64_t accelerators = 1;
    std::vector<std::string> overrides; // Hydra-style, as for --config
    double startAfterS = 0;             // after the round's start
    // Under mpirun, the hosts the workload runs on (plan key `hosts`, a list of host names as the processes
    // report them): its accelerators are spread over the processes on those hosts only. Empty: every process.
    std::vector<std::string> hosts;
    WorkloadConfig resolved;            // loaded, overrides and the plan's storage applied, validated
};

struct CollocationPlan {
    std::filesystem::path file;
    std::vector<CollocatedWorkload> workloads;
    // The plan's `storage:` keys (trainio.storage's), as overrides applied to every workload; empty: the
    // workloads read the real storage.
    std::vector<std::string> storageOverrides;
    StorageEmulationSection storage; // as resolved (equal in every workload)
    bool sharedDevice() const { return storage.any(); }
    // Under mpirun, what the shared device is across the job's processes (plan key `device_scope`,
    // docs/collocation.md "Under mpirun"): "per_client" — every process (client) has its own device with the
    // plan's limits, as a run's trainio.storage is per client; "split" — one budget for the whole job, each
    // of P processes getting 1/P of the bandwidth, IOPS and in-flight slots (latency unchanged).
    std::string deviceScope = "per_client";
};

// The device one process reads through: the plan's, or its 1/processes share with device_scope: split.
StorageShape deviceOfProcess(const CollocationPlan& plan, std::uint64_t processes);

// Reads and checks a plan: at least two workloads, names, known keys, each workload's config loaded with
// its overrides (errors name the plan, the workload and the key). Throws InputError.
CollocationPlan loadCollocationPlan(const std::filesystem::path& file);

struct CollocationOptions {
    std::uint64_t runs = 0;    // 0: one invocation per workload (DIR/<name>/ is an invocation folder);
                               // N: N collocated rounds after `warmups` warm-up rounds (benchmark folders)
    std::uint64_t warmups = 1; // with runs > 0
    // Each workload alone first (one after the other, on the same storage, into DIR/alone/<name>/), so that
    // trainio_collocation.json's "interference" compares each workload together against itself alone.
    bool alone = false;
    const std::atomic<bool>* cancel = nullptr; // a user's cancel: every workload stops
    std::string commandLine;
    // Called with the shared emulated device before the first invocation and with null after the last (not
    // called when the workloads read the real storage): what a front end's live controls act on.
    std::function<void(std::shared_ptr<EmulatedStorageBackend>)> onStorage;
    // Live events of workload w's invocations (null: none), called on the invocations' pump threads.
    std::function<EngineObserver*(std::size_t w)> liveObserver;
    // Under mpirun (docs/collocation.md, "Under mpirun"): every process runs every workload with
    // accelerators / processes of its accelerators, each workload on its own duplicate of this communicator;
    // only process 0 writes. Null: one process.
    dist::Communicator* comm = nullptr;
    // The system the collocation ran on (--system, the window's system name): in every workload's folder,
    // together and alone, so that the library files the collocation under it (trainio_labels.json).
    aggregate::Labels labels;
};

// What the collocation reports, from the workloads' threads (each call names its workload).
class CollocationObserver {
public:
    virtual ~CollocationObserver() = default;
    virtual void onMessage(const std::string& workload, const std::string& text) { (void)workload, (void)text; }
    virtual void onInvocationStart(const std::string& workload, const std::string& label, const std::filesystem::path& dir) {
        (void)workload, (void)label, (void)dir;
    }
    virtual void onInvocationDone(const std::string& workload, const std::string& label, const std::filesystem::path& dir,
                                  const RunOutcome& out) {
        (void)workload, (void)label, (void)dir, (void)out;
    }
};

struct CollocatedInvocation {
    std::string label;              // "invocation", "warm-up", "run 2/3"
    std::filesystem::path path;
    double start = 0, end = 0;      // wall clock, seconds since the Unix epoch
    std::string status;             // complete | cancelled | failed
    double auPercent = 0;
    double mibPerSecond = 0;             // DLIO's train_io_mean_MB_per_second (MiB/s)
    std::vector<double> auPerEpoch;      // %
    std::vector<double> mibPerEpoch;     // samples/s per epoch × record length
    std::uint64_t bytesRead = 0;
    bool warmup = false;
};

// One workload together against itself alone (issue 23, "Interference"): like with like — the measured
// runs of each side (--runs N), or the epochs of one invocation each (no --runs; epochs of one invocation
// are not independent runs, and the rule says so). Lost AU points and the slowdown in MiB/s, each with the
// 95 % CI of the difference (Welch); NaN where a side has fewer than two values. (store/collocation_file.h)
using Interference = store::CollocationInterference;
Interference interference(const std::string& name, const std::vector<CollocatedInvocation>& alone,
                          const std::vector<CollocatedInvocation>& together);

struct CollocationResult {
    bool complete = false;
    bool cancelled = false;
    std::string error;              // the first workload's failure, naming it
    std::filesystem::path file;     // DIR/trainio_collocation.json
    std::vector<std::vector<CollocatedInvocation>> invocations; // per workload, in order
    std::vector<std::vector<CollocatedInvocation>> aloneInvocations; // with CollocationOptions::alone
    std::vector<Interference> interference;                          // with CollocationOptions::alone
    std::string lostMost;                                            // the workload that lost most AU points
};

// Checks every workload (pre-flight, generation when asked) before anything is measured, then runs
// them. Throws PreflightFailed naming the workload, InputError for a plan that cannot run here.
CollocationResult runCollocation(const CollocationPlan& plan, const std::filesystem::path& dir, const CollocationOptions& opt,
                                 CollocationObserver& observer);

} // namespace trainio::session
