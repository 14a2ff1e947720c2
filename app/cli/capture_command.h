// trainio-cli capture and trainio-cli workload --from-trace (issue 24, docs/capture.md): run a real
// training job with the I/O interposer and step marks, then derive a DLIO workload from its trace.
#pragma once

#include <string>
#include <vector>

namespace trainio::cli {

// Runs the job; returns its exit code (128 + N when signal N ended it, 127 when it could not start).
int runCaptureCommand(const std::vector<std::string>& args);
// Writes the derived workload YAML (and prints the report with --report). 0 written, 2 bad input.
int runWorkloadCommand(const std::vector<std::string>& args);

} // namespace trainio::cli
