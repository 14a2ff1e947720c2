#include "telemetry/telemetry_table.h"

#include "util/errors.h"

#include <nlohmann/json.hpp>

#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>

namespace trainio::telemetry {
namespace {

struct Family {
    const char* prefix; // the name starts with this …
    const char* suffix; // … and ends with this; what lies between is the device, interface or index
    const char* unit;
    const char* meaning; // "%s" is replaced by the part between prefix and suffix
};

// The one list of column families: docs/telemetry.md documents the same names.
constexpr std::array kFamilies{
    Family{"time_s", "", "s", "seconds since the run's start at the end of this row's interval"},
    Family{"interval_s", "", "s", "measured length of the interval this row's rates and percentages cover"},
    Family{"cpu_busy_pct", "", "%",
           "all CPUs: busy time (user, nice, system, irq, softirq, steal) / all time, from /proc/stat"},
    Family{"cpu_iowait_pct", "", "%", "all CPUs: iowait time / all time (counted as idle in cpu_busy_pct)"},
    Family{"allowed_cores", "", "cores", "CPUs this process may run on (sched_getaffinity)"},
    Family{"proc_cpu_pct", "", "% of one core",
           "this process's user + system CPU time / interval (all threads; 200 = two cores busy)"},
    Family{"proc_rss_mib", "", "MiB", "this process's resident memory (/proc/self/statm)"},
    Family{"mem_available_mib", "", "MiB", "memory available to new work without swapping (MemAvailable)"},
    Family{"page_cache_mib", "", "MiB", "page cache size (/proc/meminfo Cached)"},
    Family{"cpu", "_busy_pct", "%", "CPU %s: busy time / all time, as cpu_busy_pct"},
    Family{"disk_", "_read_mib_s", "MiB/s", "block device %s: MiB read per second (sectors read × 512)"},
    Family{"disk_", "_write_mib_s", "MiB/s",
           "block device %s: MiB written per second (sectors written × 512)"},
    Family{"disk_", "_read_iops", "1/s", "block device %s: read requests completed per second"},
    Family{"disk_", "_write_iops", "1/s", "block device %s: write requests completed per second"},
    Family{"disk_", "_util_pct", "%",
           "block device %s: share of the interval with at least one request in flight (io_ticks; iostat "
           "%util)"},
    Family{"disk_", "_queue_depth", "requests",
           "block device %s: average requests in flight (time_in_queue delta / interval; iostat aqu-sz)"},
    Family{"net_", "_rx_mib_s", "MiB/s", "network interface %s: MiB received per second"},
    Family{"net_", "_tx_mib_s", "MiB/s", "network interface %s: MiB sent per second"},
    Family{"gpu", "_util_pct", "%", "GPU %s: utilization.gpu from nvidia-smi"},
    Family{"gpu", "_mem_used_mib", "MiB", "GPU %s: memory.used from nvidia-smi"},
    Family{"gpu", "_mem_total_mib", "MiB", "GPU %s: memory.total from nvidia-smi"},
};

bool isDigits(std::string_view s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

std::string formatNumber(double v) {
    if (std::isnan(v)) return {};
    std::array<char, 64> buf{};
    // Shortest text that reads back as the same double: the files round-trip exactly.
    const auto [p, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
    return ec == std::errc() ? std::string(buf.data(), p) : std::string{};
}

std::string csvField(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s)
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

// Splits one CSV line (RFC 4180 quoting, no embedded newlines: names never hold them).
std::vector<std::string> splitCsv(const std::string& line, const std::string& where) {
    std::vector<std::string> out(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
                out.back() += '"', ++i;
            else if (c == '"')
                quoted = false;
            else
                out.back() += c;
        } else if (c == '"' && out.back().empty())
            quoted = true;
        else if (c == ',')
            out.emplace_back();
        else
            out.back() += c;
    }
    if (quoted) throw InputError(where + ": unterminated quoted field: expected a closing '\"'");
    return out;
}

double parseNumber(const std::string& s, const std::string& where) {
    if (s.empty()) return std::numeric_limits<double>::quiet_NaN();
    double v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size())
        throw InputError(where + ": value \"" + s + "\": expected a number or an empty field");
    return v;
}

void checkColumns(const TelemetryTable& t, const std::string& source) {
    if (t.columns.empty() || t.columns[0].name != "time_s")
        throw InputError(source + ": first column: expected time_s");
}

} // namespace

int TelemetryTable::columnIndex(const std::string& name) const {
    for (std::size_t i = 0; i < columns.size(); ++i)
        if (columns[i].name == name) return static_cast<int>(i);
    return -1;
}

TelemetryColumn describeColumn(const std::string& name) {
    for (const Family& f : kFamilies) {
        const std::string_view prefix = f.prefix, suffix = f.suffix;
        if (suffix.empty()) {
            if (name == prefix) return {name, f.unit, f.meaning};
            continue;
        }
        if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
            name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
            continue;
        const std::string middle = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
        // cpuN and gpuN carry an index; disks and interfaces carry the kernel's name.
        if ((prefix == "cpu" || prefix == "gpu") && !isDigits(middle)) continue;
        std::string meaning = f.meaning;
        meaning.replace(meaning.find("%s"), 2, middle);
        return {name, f.unit, meaning};
    }
    throw InputError("telemetry column \"" + name +
                     "\": expected one of the documented names (docs/telemetry.md), e.g. cpu_busy_pct, "
                     "cpu0_busy_pct, disk_<device>_read_mib_s, net_<interface>_rx_mib_s, gpu0_util_pct");
}

std::string telemetryCsv(const TelemetryTable& table) {
    std::string out;
    for (std::size_t i = 0; i < table.columns.size(); ++i)
        out += (i ? "," : "") + csvField(table.columns[i].name);
    out += '\n';
    for (const auto& row : table.rows) {
        for (std::size_t i = 0; i < row.size(); ++i) {
            if (i) out += ',';
            out += formatNumber(row[i]);
        }
        out += '\n';
    }
    return out;
}

std::string telemetryJson(const TelemetryTable& table) {
    nlohmann::ordered_json j;
    j["format"] = "trainio-telemetry";
    j["version"] = 1;
    j["interval_s"] = table.intervalS;
    j["notes"] = table.notes;
    auto& cols = j["columns"] = nlohmann::ordered_json::array();
    for (const auto& c : table.columns)
        cols.push_back({{"name", c.name}, {"unit", c.unit}, {"meaning", c.meaning}});
    auto& rows = j["rows"] = nlohmann::ordered_json::array();
    for (const auto& row : table.rows) {
        auto r = nlohmann::ordered_json::array();
        for (double v : row)
            r.push_back(std::isnan(v) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(v));
        rows.push_back(std::move(r));
    }
    return j.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

TelemetryTable parseTelemetryCsv(const std::string& text, const std::string& source) {
    TelemetryTable t;
    std::size_t pos = 0, lineNo = 0;
    while (pos < text.size()) {
        std::size_t nl = text.find('\n', pos);
        if (nl == std::string::npos) nl = text.size();
        std::string line = text.substr(pos, nl - pos);
        pos = nl + 1;
        ++lineNo;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        const std::string where = source + " line " + std::to_string(lineNo);
        const auto fields = splitCsv(line, where);
        if (lineNo == 1) {
            for (const auto& name : fields) {
                if (t.columnIndex(name) >= 0)
                    throw InputError(where + ": column \"" + name + "\" appears twice");
                try {
                    t.columns.push_back(describeColumn(name));
                } catch (const InputError& e) {
                    throw InputError(where + ": " + e.what());
                }
            }
            checkColumns(t, source);
            continue;
        }
        if (line.empty() && pos >= text.size()) break;
        if (fields.size() != t.columns.size())
            throw InputError(where + ": " + std::to_string(fields.size()) + " fields: expected " +
                             std::to_string(t.columns.size()) + " (one per header column)");
        std::vector<double> row(fields.size());
        for (std::size_t i = 0; i < fields.size(); ++i)
            row[i] = parseNumber(fields[i], where + ", column " + t.columns[i].name);
        t.rows.push_back(std::move(row));
    }
    if (lineNo == 0) throw InputError(source + ": empty file: expected a header line starting with time_s");
    return t;
}

TelemetryTable parseTelemetryJson(const std::string& text, const std::string& source) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw InputError(source + ": not JSON: " + e.what());
    }
    auto need = [&](const char* key, bool (nlohmann::json::*is)() const noexcept,
                    const char* what) -> const nlohmann::json& {
        if (!j.is_object() || !j.contains(key) || !(j[key].*is)())
            throw InputError(describeProblem(
                source, key, j.is_object() && j.contains(key) ? j[key].dump() : "(missing)", what));
        return j[key];
    };
    if (need("format", &nlohmann::json::is_string, "\"trainio-telemetry\"") != "trainio-telemetry")
        throw InputError(describeProblem(source, "format", j["format"].dump(), "\"trainio-telemetry\""));
    if (need("version", &nlohmann::json::is_number_integer, "1") != 1)
        throw InputError(describeProblem(source, "version", j["version"].dump(), "1"));
    TelemetryTable t;
    t.intervalS = need("interval_s", &nlohmann::json::is_number, "a number of seconds").get<double>();
    for (const auto& n : need("notes", &nlohmann::json::is_array, "a list of strings")) {
        if (!n.is_string()) throw InputError(describeProblem(source, "notes", n.dump(), "a string"));
        t.notes.push_back(n.get<std::string>());
    }
    for (const auto& c : need("columns", &nlohmann::json::is_array, "a list of {name, unit, meaning}")) {
        if (!c.is_object() || !c.contains("name") || !c["name"].is_string())
            throw InputError(
                describeProblem(source, "columns", c.dump(), "{\"name\": …, \"unit\": …, \"meaning\": …}"));
        try {
            t.columns.push_back(describeColumn(c["name"].get<std::string>()));
        } catch (const InputError& e) {
            throw InputError(source + ": " + e.what());
        }
    }
    checkColumns(t, source);
    const auto& rows = need("rows", &nlohmann::json::is_array, "a list of rows");
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const std::string key = "rows[" + std::to_string(r) + "]";
        if (!rows[r].is_array() || rows[r].size() != t.columns.size())
            throw InputError(
                describeProblem(source, key, rows[r].dump(),
                                "a list of " + std::to_string(t.columns.size()) + " numbers or nulls"));
        std::vector<double> row;
        for (const auto& v : rows[r]) {
            if (!v.is_null() && !v.is_number())
                throw InputError(describeProblem(source, key, v.dump(), "a number or null"));
            row.push_back(v.is_null() ? std::numeric_limits<double>::quiet_NaN() : v.get<double>());
        }
        t.rows.push_back(std::move(row));
    }
    return t;
}

} // namespace trainio::telemetry
