// The trainio-cli commands. Each takes the arguments after its name and returns the exit code:
// 0 success, 2 bad input, 1 a run that failed (or was interrupted).
#pragma once

#include <atomic>
#include <string>
#include <vector>

namespace trainio::cli {

using Args = std::vector<std::string>;

int runValidateCommand(const Args& args);
int runDatagenCommand(const Args& args);
int runCleanCommand(const Args& args);
int runVerifyCommand(const Args& args);
int runRunCommand(const Args& args);
int runBenchmarkCommand(const Args& args);
int runMetricsCommand(const Args& args);
int runPresetsCommand(const Args& args);

// Installs SIGINT/SIGTERM handlers that set the shared cancel flag; a second signal exits at once.
void installSignalHandlers();
const std::atomic<bool>* cancelFlag();

} // namespace trainio::cli
