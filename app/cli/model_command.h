// trainio-cli model: the input-pipeline model's prediction for a workload (core/model/pipeline_model.h,
// docs/model.md) — predicted AU and samples/s, the largest accelerator count above the AU line, the
// bandwidth one accelerator needs — from a calibration probe of the data folder, a storage profile, or the
// workload's own trainio.storage keys.
#pragma once

#include <string>
#include <vector>

namespace trainio::cli {

// Returns the exit code: 0 printed, 2 bad input (also: no storage to model), 1 the probe failed.
int runModelCommand(const std::vector<std::string>& args);

} // namespace trainio::cli
