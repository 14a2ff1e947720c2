// The MPI half of RunController (run_controller_mpi.cpp): what pre-flight adds for a run launched with
// mpirun, and how the end of the job becomes a RunFinish.
#pragma once

#include "preflight/preflight.h"
#include "run/run_controller.h"

#include "session/mpi_job.h"

#include <cstdint>

namespace trainio::ui {

// Adds to `checked` what stops an MPI launch before anything runs: the hosts (host list or hostfile
// unreadable or malformed, fewer slots than processes), mpirun absent (naming openmpi-bin), trainio-cli
// absent. A checkpointing workload runs (each process checks the checkpoint folder itself).
void addMpiPreflight(const RunRequest& request, PreflightResult& checked);

// How the run ended, from mpirun's end and the statuses the result folder records (read by the importer,
// core's reader of result folders, once, into RunFinish::written — the window's other uses of the folder take
// it from there: the folder was written by the job, not by this process): complete when mpirun exited 0 and
// each of the `invocations`
// expected invocations is complete; cancelled when a cancel was sent or process 0 marked an invocation
// cancelled; failed otherwise, with the failed invocation's reason or what mpirun and trainio-cli said.
RunFinish mpiRunFinish(const dist::MpiJobResult& job, const std::filesystem::path& outputDir, std::uint64_t invocations);

} // namespace trainio::ui
