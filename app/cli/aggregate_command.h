// `trainio-cli aggregate PATH... [--format json|table|csv] [--reduce mean|median|min|geomean] [--tree]`
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace trainio::cli {

// Runs the aggregate command with the arguments after the word "aggregate"; returns the exit code
// (0 ok, 2 bad input: no path, a path that does not exist, an unknown --format or --reduce).
int runAggregateCommand(const std::vector<std::string>& args);

// The PATH arguments of aggregate and compare: at least one, each existing; InputError otherwise.
std::vector<std::filesystem::path> existingRoots(const std::vector<std::string>& positionals, const std::string& command);

} // namespace trainio::cli
