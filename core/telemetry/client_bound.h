// The "client-bound" flag: was the client's CPU saturated during a time window? When it was, AU measures
// the emulating client as much as the storage (mlcommons/storage#490: a CPU-starved client lowers AU
// with the storage idle), so results should say so beside the AU.
//
// The rule (docs/telemetry.md), over the rows whose time_s lies in (fromS, toS]: a row is saturated when
//   cpu_busy_pct >= busyThresholdPct                                (the whole machine is busy), or
//   proc_cpu_pct >= busyThresholdPct × allowed_cores               (this process fills every core it may
//   use);
// the window is client-bound when at least minSaturatedFraction of its rows are saturated. Rows with NaN
// in a compared column do not count as saturated. A window without rows is not client-bound.
#pragma once

#include "telemetry/telemetry_table.h"

#include <string>

namespace trainio::telemetry {

struct ClientBoundRule {
    double busyThresholdPct = 90.0;
    double minSaturatedFraction = 0.5;
};

struct ClientBoundVerdict {
    bool clientBound = false;
    std::size_t rowsInWindow = 0;
    std::size_t saturatedRows = 0;
    std::string reason; // one sentence for the result and the report
};

// Throws InputError when the table lacks cpu_busy_pct, proc_cpu_pct or allowed_cores.
ClientBoundVerdict clientBound(const TelemetryTable& table, double fromS, double toS,
                               const ClientBoundRule& rule = {});

} // namespace trainio::telemetry
