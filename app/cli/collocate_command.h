// trainio-cli collocate: several workloads at once on one storage (core/session/collocation.h).
#pragma once

#include <string>
#include <vector>

namespace trainio::cli {

// Returns the exit code: 0 every workload complete, 1 one failed or the collocation was interrupted, 2 bad input.
int runCollocateCommand(const std::vector<std::string>& args);

} // namespace trainio::cli
