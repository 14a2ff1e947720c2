// `trainio-cli aggregate PATH... [--format json|table|csv] [--reduce mean|median|min|geomean]`
#pragma once

#include <string>
#include <vector>

namespace trainio::cli {

// Runs the aggregate command with the arguments after the word "aggregate"; returns the exit code
// (0 ok, 2 bad input: no path, a path that does not exist, an unknown --format or --reduce).
int runAggregateCommand(const std::vector<std::string>& args);

} // namespace trainio::cli
