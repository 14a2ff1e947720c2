// The processes of a multi-process run (MPI ranks across client hosts), as the engine and the commands
// see them. core/ knows only this interface; the Open MPI implementation is core/dist/mpi_communicator
// (library trainio_mpi, linked by trainio-cli only), so that the core links no MPI and a single-process
// run has no communicator at all (docs/mpi.md).
//
// Every call is a collective: all processes make the same calls in the same order. Each one is
// abortable: it waits at most `limits.timeoutSeconds`, or `limits.hurryGraceSeconds` once `*limits.hurry`
// is set (a cancel: mpirun gives a process about one second between SIGTERM and SIGKILL). A call that
// gives up leaves the communicator broken(): a peer was killed, hung or is unreachable, every later call
// returns false at once, and the process must end without the collectives a clean end needs.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace trainio::dist {

// How long a meeting waits for a peer before it takes the peer as gone: 120 s, or TRAINIO_MPI_TIMEOUT_S
// (seconds, > 0; docs/mpi.md) for clusters whose processes start or meet slower. meetingTimeoutProblem():
// what is wrong with TRAINIO_MPI_TIMEOUT_S (the command refuses to start), empty when unset or valid.
double meetingTimeoutSeconds();
std::string meetingTimeoutProblem();

struct WaitLimits {
    double timeoutSeconds = meetingTimeoutSeconds(); // a peer that has not answered by then is taken as gone
    const std::atomic<bool>* hurry = nullptr; // set: give up after hurryGraceSeconds instead
    double hurryGraceSeconds = 0.3;
    // The sleep between polls once the first few found nothing: short for a step's meeting (its wait is
    // measured), longer for a wait on other processes' whole work (a collocation's placed workloads).
    double idleSleepSeconds = 20e-6;
};

class Communicator {
public:
    virtual ~Communicator() = default;
    virtual int rank() const = 0; // this process, 0 … size()-1
    virtual int size() const = 0;
    // Each process gives `bytes` bytes (the same count everywhere); `all` receives size() × bytes, in rank
    // order. False when it gave up (see above).
    virtual bool allgather(const void* local, std::size_t bytes, void* all, const WaitLimits& limits) = 0;
    // Each process gives a string of any length; every process receives all of them in rank order.
    virtual bool allgatherStrings(const std::string& local, std::vector<std::string>& all, const WaitLimits& limits) = 0;
    virtual bool broken() const = 0;
    // A collective: a communicator over the same processes whose calls never meet this one's (a collocation
    // runs one per workload, their meetings at the same time: docs/collocation.md, "Under mpirun"). A peer
    // gone breaks the whole job: this one and every duplicate report broken(). Null when it gave up, or when
    // the implementation has none.
    virtual std::unique_ptr<Communicator> duplicate(const WaitLimits& limits) {
        (void)limits;
        return nullptr;
    }
    // A collective over every process: a communicator over the processes that pass member = true (their
    // ranks in the order of this one's), for a collocated workload placed on some hosts only. Null on a
    // process that is not a member; on a member, null when it gave up (broken()). All members: duplicate().
    virtual std::unique_ptr<Communicator> subset(bool member, const WaitLimits& limits) {
        (void)member;
        (void)limits;
        return nullptr;
    }
};

// Every process's contribution to a decision: true on every process when all are ok; `problems` gets the
// non-empty texts, each prefixed with "process P (host): ". False when the exchange itself failed.
bool agree(Communicator& comm, const std::string& problem, std::vector<std::string>& problems, const WaitLimits& limits = {});

} // namespace trainio::dist
