// Runs `mpirun … trainio-cli run|benchmark … --live-json FILE` as a child process and follows it: process
// 0's live lines are read from FILE as it grows, parsed (engine/live_json.h) and handed to an
// EngineObserver as the in-process engine would call it — so a front end shows an MPI run through the same
// path as a local one.
//
// Cancel. Open MPI 4.1's mpirun, on SIGINT, waits odls_base_sigkill_timeout seconds before it SIGTERMs
// the processes and as long again before it SIGKILLs them (orte/mca/odls/base: sleep, SIGTERM, sleep,
// SIGKILL) — with the 10 s the runs use, a cancel would take 20 s. SIGUSR1, in contrast, mpirun forwards to
// every process at once, and trainio-cli takes it as it takes SIGINT: stop at the next step meeting, write
// what was measured. So a cancel request sends SIGUSR1; SIGINT follows when process 0 has not reported
// the end of its invocation within interruptAfterSeconds; once it has (the folder is written), mpirun is
// given endGraceSeconds to exit and is then SIGKILLed (its processes die with it: nothing is left to
// write). A second request, or no exit within killAfterSeconds, SIGKILLs it at once.
#pragma once

#include "engine/engine_observer.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace trainio::dist {

struct MpiJobOptions {
    std::string mpirun;                  // the program, by path
    std::vector<std::string> arguments;  // after the program name (dist::mpirunArguments)
    std::string liveJson;                // the --live-json FILE of the arguments, followed as it grows
    EngineObserver* observer = nullptr;  // phases, steps, epochs, messages, hosts
    // Set: the observer of the phase, step and epoch lines of each label instead (a collocation's stream names
    // its workload in every line: "a", "a · run 1/3"); null from it: the line is not handed on.
    std::function<EngineObserver*(const std::string& label)> observerFor;
    // The invocation events of the stream (label "" for a single run).
    std::function<void(const std::string& label, const std::string& dir)> onInvocationStart;
    std::function<void(const std::string& label, const std::string& dir, const std::string& status, double au)>
        onInvocationDone;
    // Called every pollMs on the calling thread, after what arrived was handed on (batch it, flush it).
    std::function<void()> onPoll;
    // Cancel requests, read every pollMs: 1 cancels (above), 2 or more SIGKILL mpirun.
    const std::atomic<int>* cancelRequests = nullptr;
    double interruptAfterSeconds = 5; // SIGUSR1 sent, no invocation end reported yet: SIGINT
    double endGraceSeconds = 3;       // the invocation's end reported after a cancel: SIGKILL if still running
    double killAfterSeconds = 40;     // after the cancel: SIGKILL when mpirun has not exited by then
    int pollMs = 50;
};

struct MpiJobResult {
    bool started = false;   // false: mpirun could not be started (startError says why)
    std::string startError;
    int exitCode = -1;      // mpirun's exit code when it exited
    int signal = 0;         // the signal that ended it, when one did
    bool interrupted = false; // a cancel was sent (SIGUSR1, maybe SIGINT)
    bool killed = false;      // SIGKILL was sent
    // The end of mpirun's standard output and error (Open MPI's own complaints, trainio-cli's errors), at
    // most 16 KiB: what to show when it failed.
    std::string otherOutput;
    bool complete() const { return started && exitCode == 0; }
};

MpiJobResult runMpiJob(const MpiJobOptions& options);

} // namespace trainio::dist
