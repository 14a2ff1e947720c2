// The trainio-cli commands. Each takes the arguments after its name and returns the exit code:
// 0 success, 2 bad input, 1 a run that failed (or was interrupted).
#pragma once

#include "session/session.h"
#include "util/errors.h"

#include <atomic>
#include <string>
#include <vector>

namespace trainio::dist {
class Communicator;
}

namespace trainio::cli {

// A bad input every process of an MPI job agreed on: printed once, by process 0.
using AgreedInputError = session::AgreedInputError;

using Args = std::vector<std::string>;

int runValidateCommand(const Args& args);
int runDatagenCommand(const Args& args);
int runCleanCommand(const Args& args);
int runVerifyCommand(const Args& args);
int runRunCommand(const Args& args);
int runBenchmarkCommand(const Args& args);
int runMetricsCommand(const Args& args);
int runPresetsCommand(const Args& args);

// Installs SIGINT/SIGTERM (and SIGUSR1, which mpirun forwards) handlers that set the shared cancel flag;
// a second signal exits at once.
void installSignalHandlers();
const std::atomic<bool>* cancelFlag();

// Under mpirun (main.cpp): the job's processes; null otherwise.
void setCommunicator(dist::Communicator* comm);
// False on the processes of an MPI job other than 0 (which report for all).
bool reportsErrors();
// Under mpirun (any process).
bool isMultiProcess();
// The job's processes under mpirun (null otherwise).
dist::Communicator* communicator();

} // namespace trainio::cli
