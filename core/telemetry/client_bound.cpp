#include "telemetry/client_bound.h"

#include "util/errors.h"

#include <cstdio>

namespace trainio::telemetry {

ClientBoundVerdict clientBound(const TelemetryTable& table, double fromS, double toS,
                               const ClientBoundRule& rule) {
    const auto column = [&](const char* name) {
        const int i = table.columnIndex(name);
        if (i < 0)
            throw InputError(std::string("telemetry table: column ") + name +
                             ": missing: expected it for the client-bound rule");
        return static_cast<std::size_t>(i);
    };
    const std::size_t time = 0, busy = column("cpu_busy_pct"), proc = column("proc_cpu_pct"),
                      cores = column("allowed_cores");
    ClientBoundVerdict v;
    for (const auto& row : table.rows) {
        if (!(row[time] > fromS && row[time] <= toS)) continue;
        ++v.rowsInWindow;
        // NaN compares false: an unmeasured value never counts as saturated.
        if (row[busy] >= rule.busyThresholdPct || row[proc] >= rule.busyThresholdPct * row[cores])
            ++v.saturatedRows;
    }
    char buf[256];
    if (v.rowsInWindow == 0) {
        std::snprintf(buf, sizeof buf, "no telemetry samples between %.3f s and %.3f s", fromS, toS);
    } else {
        v.clientBound = static_cast<double>(v.saturatedRows) >=
                        rule.minSaturatedFraction * static_cast<double>(v.rowsInWindow);
        std::snprintf(
            buf, sizeof buf,
            "%zu of %zu samples had the client CPU at or above %.0f %% busy (threshold: %.0f %% of the "
            "samples)%s",
            v.saturatedRows, v.rowsInWindow, rule.busyThresholdPct, rule.minSaturatedFraction * 100.0,
            v.clientBound ? ": client-bound, AU says little about the storage" : "");
    }
    v.reason = buf;
    return v;
}

} // namespace trainio::telemetry
