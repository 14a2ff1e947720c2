#include "dist/mpi_communicator.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <mutex>
#include <sched.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace trainio::dist {

bool MpiCommunicator::launchedByMpirun() {
    return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMIX_RANK") != nullptr;
}

namespace {

// Open MPI binds each process to one core by default when there are at most two processes (and to a
// socket beyond): a process hosting K accelerators and their readers would then share one core while the
// others idle — a harness cost charged to the storage (issue 19: `mpirun -np 1 … --accelerators-per-process
// 4` lost ~8 AU points to 4 threads). When the binding is Open MPI's default (it bound the process at
// launch and no --bind-to / hwloc_base_binding_policy was given), the process takes back the CPUs its
// launcher (the local daemon) may use; an explicit --bind-to is left as the user chose it.
void undoDefaultBinding() {
    const char* bound = std::getenv("OMPI_MCA_orte_bound_at_launch");
    if (!bound || std::string(bound) != "1") return;
    if (std::getenv("OMPI_MCA_hwloc_base_binding_policy") != nullptr) return; // the user's choice
    cpu_set_t launcher, mine;
    CPU_ZERO(&launcher);
    CPU_ZERO(&mine);
    if (sched_getaffinity(getppid(), sizeof launcher, &launcher) != 0) return;
    if (sched_getaffinity(0, sizeof mine, &mine) != 0) return;
    if (CPU_COUNT(&launcher) <= CPU_COUNT(&mine)) return;
    sched_setaffinity(0, sizeof launcher, &launcher); // threads created from now on inherit it
}

// Every MPI call of the process, on any communicator, is made under this lock: Open MPI is initialised
// MPI_THREAD_SERIALIZED, and a collocation's workloads meet at the same time on their own communicators.
std::mutex g_mpi;

} // namespace

struct MpiCommunicator::Handle {
    MPI_Comm comm = MPI_COMM_WORLD;
};

MpiCommunicator::MpiCommunicator() : comm_(std::make_unique<Handle>()) {}

std::unique_ptr<MpiCommunicator> MpiCommunicator::initIfLaunched(int* argc, char*** argv) {
    if (!launchedByMpirun()) return nullptr;
    undoDefaultBinding();
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided);
    // Errors are returned, not fatal: a failed collective must become a failed run with its reason.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    std::unique_ptr<MpiCommunicator> c(new MpiCommunicator());
    MPI_Comm_rank(MPI_COMM_WORLD, &c->rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &c->size_);
    return c;
}

MpiCommunicator::~MpiCommunicator() {
    if (broken()) return; // the job is being torn down: nothing that would wait for a peer
    std::lock_guard lock(g_mpi);
    if (world_) MPI_Finalize();
    else MPI_Comm_free(&comm_->comm);
}

std::unique_ptr<Communicator> MpiCommunicator::duplicate(const WaitLimits& limits) {
    if (broken()) return nullptr;
    std::unique_ptr<MpiCommunicator> c(new MpiCommunicator());
    c->world_ = false;
    c->rank_ = rank_;
    c->size_ = size_;
    c->jobBroken_ = jobBroken_;
    MPI_Request req;
    int rc = 0;
    {
        std::lock_guard lock(g_mpi);
        rc = MPI_Comm_idup(comm_->comm, &c->comm_->comm, &req);
    }
    if (rc != MPI_SUCCESS) {
        broken_ = true;
        jobBroken_->store(true);
        return nullptr;
    }
    if (!wait(&req, limits)) return nullptr;
    MPI_Comm_set_errhandler(c->comm_->comm, MPI_ERRORS_RETURN);
    return c;
}

std::unique_ptr<Communicator> MpiCommunicator::subset(bool member, const WaitLimits& limits) {
    if (broken()) return nullptr;
    const int tag = 0x7000 + subsets_++;
    std::vector<char> in(static_cast<std::size_t>(size_));
    const char mine = member ? 1 : 0;
    if (!allgather(&mine, 1, in.data(), limits)) return nullptr;
    std::vector<int> ranks;
    for (int p = 0; p < size_; ++p)
        if (in[static_cast<std::size_t>(p)]) ranks.push_back(p);
    if (static_cast<int>(ranks.size()) == size_) return duplicate(limits);
    if (!member) return nullptr;
    std::unique_ptr<MpiCommunicator> c(new MpiCommunicator());
    c->world_ = false;
    c->jobBroken_ = jobBroken_;
    int rc = 0;
    {
        // MPI_Comm_create_group has no non-blocking form: it is called right after every process answered
        // the allgather above, by the members only, before anything runs (a member killed in between would
        // hold the others here until mpirun ends the job).
        std::lock_guard lock(g_mpi);
        MPI_Group all, group;
        MPI_Comm_group(comm_->comm, &all);
        MPI_Group_incl(all, static_cast<int>(ranks.size()), ranks.data(), &group);
        rc = MPI_Comm_create_group(comm_->comm, group, tag, &c->comm_->comm);
        MPI_Group_free(&group);
        MPI_Group_free(&all);
        if (rc == MPI_SUCCESS) {
            MPI_Comm_set_errhandler(c->comm_->comm, MPI_ERRORS_RETURN);
            MPI_Comm_rank(c->comm_->comm, &c->rank_);
            MPI_Comm_size(c->comm_->comm, &c->size_);
        }
    }
    if (rc != MPI_SUCCESS) {
        broken_ = true;
        jobBroken_->store(true);
        return nullptr;
    }
    return c;
}

// Polls a non-blocking collective: a few microseconds of MPI_Test, then short sleeps (the accelerators'
// threads and the readers need the cores more than this thread does), until it completes or the limits
// say to give up. Blocking MPI calls could not be abandoned when a peer is gone.
bool MpiCommunicator::wait(void* req, const WaitLimits& limits) {
    auto* request = static_cast<MPI_Request*>(req);
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    auto hurriedSince = clock::time_point::max();
    for (unsigned polls = 0;; ++polls) {
        if (jobBroken_->load()) break; // another communicator of the job gave up on a peer
        int done = 0;
        int rc = 0;
        {
            std::lock_guard lock(g_mpi);
            rc = MPI_Test(request, &done, MPI_STATUS_IGNORE);
        }
        if (rc != MPI_SUCCESS) {
            broken_ = true;
            jobBroken_->store(true);
            return false;
        }
        if (done) return true;
        const auto now = clock::now();
        if (limits.hurry && limits.hurry->load(std::memory_order_relaxed)) {
            if (hurriedSince == clock::time_point::max()) hurriedSince = now;
            if (std::chrono::duration<double>(now - hurriedSince).count() > limits.hurryGraceSeconds) break;
        }
        if (std::chrono::duration<double>(now - start).count() > limits.timeoutSeconds) break;
        if (polls < 64) {
            sched_yield();
        } else {
            const double idle = std::clamp(limits.idleSleepSeconds, 1e-6, 0.1); // 20 µs by default
            const timespec ts{0, static_cast<long>(idle * 1e9)};
            nanosleep(&ts, nullptr);
        }
    }
    broken_ = true; // the request stays pending: this process must not make another collective call
    jobBroken_->store(true);
    return false;
}

bool MpiCommunicator::allgather(const void* local, std::size_t bytes, void* all, const WaitLimits& limits) {
    if (broken()) return false;
    if (bytes > static_cast<std::size_t>(std::numeric_limits<int>::max())) return false;
    MPI_Request req;
    int rc = 0;
    {
        std::lock_guard lock(g_mpi);
        rc = MPI_Iallgather(local, static_cast<int>(bytes), MPI_BYTE, all, static_cast<int>(bytes), MPI_BYTE, comm_->comm, &req);
    }
    if (rc != MPI_SUCCESS) {
        broken_ = true;
        jobBroken_->store(true);
        return false;
    }
    return wait(&req, limits);
}

bool MpiCommunicator::allgatherStrings(const std::string& local, std::vector<std::string>& all, const WaitLimits& limits) {
    const long long mine = static_cast<long long>(local.size());
    std::vector<long long> sizes(static_cast<std::size_t>(size_));
    if (!allgather(&mine, sizeof mine, sizes.data(), limits)) return false;
    std::vector<int> counts(sizes.size()), displs(sizes.size());
    long long total = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        if (sizes[i] < 0 || total + sizes[i] > std::numeric_limits<int>::max()) return false;
        counts[i] = static_cast<int>(sizes[i]);
        displs[i] = static_cast<int>(total);
        total += sizes[i];
    }
    std::string buffer(static_cast<std::size_t>(total), '\0');
    MPI_Request req;
    int rc = 0;
    {
        std::lock_guard lock(g_mpi);
        rc = MPI_Iallgatherv(local.data(), static_cast<int>(local.size()), MPI_BYTE, buffer.data(), counts.data(), displs.data(),
                             MPI_BYTE, comm_->comm, &req);
    }
    if (rc != MPI_SUCCESS) {
        broken_ = true;
        jobBroken_->store(true);
        return false;
    }
    if (!wait(&req, limits)) return false;
    all.clear();
    for (std::size_t i = 0; i < sizes.size(); ++i) all.push_back(buffer.substr(static_cast<std::size_t>(displs[i]), static_cast<std::size_t>(counts[i])));
    return true;
}

} // namespace trainio::dist
