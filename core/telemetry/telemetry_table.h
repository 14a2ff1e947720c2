// The telemetry of one run as a table: named columns with units and meanings, one row per sample, and
// its two files in the invocation folder (telemetry.csv, telemetry.json; docs/telemetry.md documents every
// column). Column meanings come from the column's name alone (describeColumn), so a CSV read back has the
// same descriptions as the JSON. A value the sampler could not measure in a row (a device that vanished,
// a failed nvidia-smi call) is NaN in memory, an empty field in the CSV and null in the JSON.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace trainio::telemetry {

struct TelemetryColumn {
    std::string name;
    std::string unit;
    std::string meaning;
};

struct TelemetryTable {
    std::vector<TelemetryColumn> columns;  // columns[0] is always time_s
    std::vector<std::vector<double>> rows; // each row has columns.size() values
    double intervalS = 0;                  // the requested sampling interval
    std::vector<std::string> notes;        // e.g. why there are no GPU columns

    // Index of a column by name, or -1.
    int columnIndex(const std::string& name) const;
};

// Unit and meaning for a column name of the documented families (time_s, cpu_busy_pct, cpuN_busy_pct,
// disk_<dev>_read_mib_s, net_<if>_rx_mib_s, gpuN_util_pct, …). Throws InputError for any other name.
TelemetryColumn describeColumn(const std::string& name);

std::string telemetryCsv(const TelemetryTable& table);
std::string telemetryJson(const TelemetryTable& table);
// `source` names the file in error messages. Throws InputError naming the line (CSV) or key (JSON).
TelemetryTable parseTelemetryCsv(const std::string& text, const std::string& source);
TelemetryTable parseTelemetryJson(const std::string& text, const std::string& source);


} // namespace trainio::telemetry
