// trainio-cli sweep: the largest accelerator count whose benchmark passes the AU threshold
// (core/session/sweep.h does the search; this runs the trials, with threads or under mpirun).
#pragma once

#include <string>
#include <vector>

namespace trainio::cli {

// Returns the exit code: 0 the sweep finished, 1 a trial failed or was interrupted, 2 bad input.
int runSweepCommand(const std::vector<std::string>& args);

} // namespace trainio::cli
