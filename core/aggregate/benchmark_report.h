// What the benchmark runner calls once its measured runs are written: DIR/runs/mlperf_storage_report.json
// (the MLPerf Storage v1.0 generator's file) and DIR/aggregate.json (TrainIO's full statistics).
// Both are written atomically; see group_aggregate.h for what they contain.
#pragma once

#include "aggregate/group_aggregate.h"

namespace trainio {

using aggregate::writeAggregateJson;
using aggregate::writeMlperfReport;

} // namespace trainio
