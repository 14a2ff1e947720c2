// The Communicator over Open MPI (library trainio_mpi; only trainio-cli links it). A process is under
// mpirun when Open MPI's launcher set OMPI_COMM_WORLD_SIZE (or PMIx's PMIX_RANK); then, and only then,
// MPI is initialised: a plain `trainio-cli run` never starts MPI (no singleton daemon, no latency).
#pragma once

#include "dist/communicator.h"

#include <atomic>
#include <memory>

namespace trainio::dist {

class MpiCommunicator final : public Communicator {
public:
    // Null when not launched by mpirun. Initialises MPI with MPI_THREAD_SERIALIZED (calls come from one
    // thread at a time: the command's, then each meeting's leader, then the command's again). A process
    // that Open MPI bound to one core by default gets back its launcher's CPUs first (docs/mpi.md).
    static std::unique_ptr<MpiCommunicator> initIfLaunched(int* argc, char*** argv);
    static bool launchedByMpirun();
    ~MpiCommunicator() override; // MPI_Finalize, unless broken (then nothing: the job is being torn down)

    int rank() const override { return rank_; }
    int size() const override { return size_; }
    bool allgather(const void* local, std::size_t bytes, void* all, const WaitLimits& limits) override;
    bool allgatherStrings(const std::string& local, std::vector<std::string>& all, const WaitLimits& limits) override;
    bool broken() const override { return broken_ || jobBroken_->load(); }
    // MPI_Comm_idup. Calls on any of the job's communicators are made under one process-wide lock, so that
    // several communicators' meetings may run at once under MPI_THREAD_SERIALIZED (a collocation).
    std::unique_ptr<Communicator> duplicate(const WaitLimits& limits) override;
    // Who is in, agreed by an allgather (abortable); then MPI_Comm_create_group among the members only.
    std::unique_ptr<Communicator> subset(bool member, const WaitLimits& limits) override;

private:
    struct Handle;
    MpiCommunicator();
    bool wait(void* request, const WaitLimits& limits);

    std::unique_ptr<Handle> comm_; // MPI_COMM_WORLD, or a duplicate of it
    bool world_ = true;
    int rank_ = 0, size_ = 1;
    bool broken_ = false;
    int subsets_ = 0; // subset() calls so far: every process makes them in the same order (the group's tag)
    // Shared by the world communicator and its duplicates: a peer gone breaks every one of them.
    std::shared_ptr<std::atomic<bool>> jobBroken_ = std::make_shared<std::atomic<bool>>(false);
};

} // namespace trainio::dist
