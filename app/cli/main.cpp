// trainio-cli: the headless front end. A thin shell over core/: parse, call, print, exit code.
#include "aggregate_command.h"
#include "capture_command.h"
#include "collocate_command.h"
#include "commands.h"
#include "config_keys_command.h"
#include "library_commands.h"
#include "model_command.h"
#include "sweep_command.h"

#include "dist/mpi_communicator.h"
#include "util/errors.h"
#include "util/host_info.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <unistd.h>
#include <iostream>
#include <string>
#include <vector>

namespace {

const char* kUsage = R"(trainio-cli — emulate deep-learning training I/O and measure it as DLIO does

Usage: trainio-cli <command> [options]

Commands:
  validate   --config FILE [++workload.k=v ...]   check a workload (DLIO YAML/JSON or a preset name)
  datagen    --config FILE [overrides]             generate the dataset in dataset.data_folder
  verify     --config FILE [overrides]             check the dataset's files (sizes and framing)
  clean      --config FILE [overrides]             delete a dataset TrainIO generated (only its files)
  run        --config FILE [overrides] --output DIR [--accelerators R] [--semantics v1|v2|v3]
                                                   one invocation (all epochs) into DIR
  benchmark  --config FILE [overrides] --output DIR [--runs 5] [--warmup 1] [--accelerators R]
                                                   warm-up into DIR/warmup/, measured runs into DIR/runs/run-N/
  sweep      --config FILE [overrides] --accelerators MIN:MAX --output DIR [--runs 5] [--quick]
             [--hostfile F --processes-per-host P]
                                                   the largest accelerator count that passes the AU threshold
                                                   (doubling, then bisection); DIR/sweep.json + a folder per trial
  collocate  --plan PLAN.yaml --output DIR [--runs N --warmup W]
                                                   two or more workloads at once on one storage (a shared
                                                   emulated device or the real one); DIR/<name>/ each and
                                                   DIR/trainio_collocation.json (docs/collocation.md)
  model      --config FILE [overrides] [--accelerators R] [--probe DIR | --storage-profile P] [--format text|json]
                                                   predict AU, samples/s and the largest passing accelerator
                                                   count from a storage probe or profile (docs/model.md)
  metrics    DIR [--semantics v1|v2|v3]               recompute an invocation's metrics from its step records
  aggregate  PATH... [--format json|table|csv] [--reduce mean|median|min|geomean] [--tree]
                                                   import result trees and aggregate per workload group
                                                   (--tree: system > workload > benchmark > invocation)
  compare    PATH... [--baseline N] [--per-accelerator] [--compare-anyway] [--format table|json]
                                                   one row per PATH against the baseline: deltas with a
                                                   95 % CI (Welch) only within one workload identity
  label      DIR [--system NAME] [--description TEXT] [--notes TEXT] [--name TEXT]
                                                   write DIR/trainio_labels.json (names the importer reads)
  capture    --output TRACE_DIR [--no-python] -- COMMAND [ARGS...]
                                                   run a real training job with the I/O interposer and
                                                   step marks (trainio_capture.steps); the job's exit code
  workload   --from-trace TRACE_DIR --output W.yaml [--report]
                                                   derive a DLIO workload from a captured job: replay it
                                                   with run, or datagen a same-shape dataset (docs/capture.md)
  presets                                          list the shipped workload presets
  config-keys [--format markdown|json]             every configuration key: type, default, range, meaning

Common options: --quiet (no progress line), --live-json FILE (one JSON object per step/epoch),
--help (per command). Exit codes: 0 success, 2 bad input, 1 a run that failed or was interrupted.

Under mpirun (Open MPI): mpirun -np N trainio-cli run|benchmark|datagen|clean|verify ... runs N processes,
each with --accelerators-per-process K emulated accelerators (default 1); process 0 writes the results
for all N x K (docs/mpi.md).
)";

// Runs a command and turns its errors into exit codes. Under mpirun, an error every process agreed on is
// printed once (by process 0); any other is printed by the process it happened on, naming it.
int runCommand(const std::string& cmd, const std::vector<std::string>& rest, const std::string& who) {
    using namespace trainio::cli;
    try {
        if (cmd == "validate") return runValidateCommand(rest);
        if (cmd == "datagen") return runDatagenCommand(rest);
        if (cmd == "verify") return runVerifyCommand(rest);
        if (cmd == "clean") return runCleanCommand(rest);
        if (cmd == "run") return runRunCommand(rest);
        if (cmd == "benchmark") return runBenchmarkCommand(rest);
        if (cmd == "sweep") return runSweepCommand(rest);
        if (cmd == "collocate") return runCollocateCommand(rest);
        if (cmd == "model") return runModelCommand(rest);
        if (cmd == "metrics") return runMetricsCommand(rest);
        if (cmd == "aggregate") return runAggregateCommand(rest);
        if (cmd == "compare") return runCompareCommand(rest);
        if (cmd == "label") return runLabelCommand(rest);
        if (cmd == "capture") return runCaptureCommand(rest);
        if (cmd == "workload") return runWorkloadCommand(rest);
        if (cmd == "presets") return runPresetsCommand(rest);
        if (cmd == "config-keys") return runConfigKeysCommand(rest);
    } catch (const AgreedInputError& e) {
        if (reportsErrors()) std::fprintf(stderr, "error: %s\n", e.what());
        return 2;
    } catch (const trainio::InputError& e) {
        std::fprintf(stderr, "error: %s%s\n", who.c_str(), e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s%s\n", who.c_str(), e.what());
        return 1;
    }
    std::fprintf(stderr, "error: unknown command '%s' (see trainio-cli --help)\n", cmd.c_str());
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        std::fputs(kUsage, stderr);
        return 2;
    }
    const std::string cmd = args.front();
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (cmd == "--help" || cmd == "-h" || cmd == "help") {
        std::fputs(kUsage, stdout);
        return 0;
    }
    if (cmd == "--version" || cmd == "-V") {
        std::printf("trainio-cli %s\n", TRAINIO_VERSION);
        return 0;
    }
    trainio::cli::installSignalHandlers();
    if (const std::string problem = trainio::dist::meetingTimeoutProblem(); !problem.empty()) {
        // Before MPI starts: under mpirun every process refuses, and process 0 alone says why.
        const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
        if (!rank || std::string(rank) == "0") std::fprintf(stderr, "error: %s\n", problem.c_str());
        return 2;
    }
    // Under mpirun only: MPI is initialised when Open MPI's launcher started this process.
    std::unique_ptr<trainio::dist::MpiCommunicator> comm;
    std::string who;
    if (trainio::dist::MpiCommunicator::launchedByMpirun()) {
        comm = trainio::dist::MpiCommunicator::initIfLaunched(&argc, &argv);
        trainio::cli::setCommunicator(comm.get());
        if (comm->size() > 1)
            who = "process " + std::to_string(comm->rank()) + " (" + trainio::readHostInfo().hostname + "): ";
    }
    const int code = runCommand(cmd, rest, who);
    trainio::cli::setCommunicator(nullptr);
    if (comm && comm->broken()) {
        // A peer is gone and a collective is still pending: no MPI_Finalize (it would wait for the peer).
        std::fflush(stdout);
        std::fflush(stderr);
        _exit(code == 0 ? 1 : code);
    }
    comm.reset(); // MPI_Finalize
    return code;
}
