#include "telemetry/telemetry_summary.h"

#include "telemetry/client_bound.h"
#include "util/errors.h"
#include "util/units.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>

namespace trainio::telemetry {
namespace {


bool startsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }
bool endsWith(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Mean and maximum of the measured (non-NaN) values.
struct Stat {
    double sum = 0, max = kNaN;
    std::size_t n = 0;
    void add(double v) {
        if (std::isnan(v)) return;
        sum += v;
        max = n == 0 ? v : std::max(max, v);
        ++n;
    }
    double mean() const { return n ? sum / static_cast<double>(n) : kNaN; }
};

std::string pct(double v) {
    if (std::isnan(v)) return "not measured";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f %%", v);
    return buf;
}

} // namespace

ReadColumns readColumns(const TelemetryTable& table, const std::string& device, const std::string& parentDisk) {
    ReadColumns out;
    if (startsWith(device, "net:")) {
        const std::string iface = device.substr(4);
        static const std::string rx = "_rx_mib_s";
        for (std::size_t i = 0; i < table.columns.size(); ++i) {
            const std::string& n = table.columns[i].name;
            if (!startsWith(n, "net_") || !endsWith(n, rx)) continue;
            const std::string name = n.substr(4, n.size() - 4 - rx.size());
            if (iface == "*" ? name != "lo" : name == iface) out.columns.push_back(i);
        }
        out.label = iface == "*" ? "S3 over the network" : "S3 over " + iface;
        return out;
    }
    for (const std::string& name : {device, parentDisk}) {
        if (name.empty()) continue;
        if (const int i = table.columnIndex("disk_" + name + "_read_mib_s"); i >= 0) {
            out.columns.push_back(static_cast<std::size_t>(i));
            out.label = name;
            return out;
        }
    }
    static const std::string suffix = "_read_mib_s";
    for (std::size_t i = 0; i < table.columns.size(); ++i) {
        const std::string& n = table.columns[i].name;
        if (!startsWith(n, "disk_") || !endsWith(n, suffix)) continue;
        const std::string dev = n.substr(5, n.size() - 5 - suffix.size());
        if (startsWith(dev, "dm-") || startsWith(dev, "md")) continue;
        out.columns.push_back(i);
    }
    if (out.columns.size() == 1) out.label = table.columns[out.columns[0]].name.substr(5, table.columns[out.columns[0]].name.size() - 5 - suffix.size());
    else if (!out.columns.empty()) out.label = "all disks";
    return out;
}

PointReader::PointReader(const TelemetryTable& header, const std::string& device, const std::string& parentDisk)
    : busy_(header.columnIndex("cpu_busy_pct")), proc_(header.columnIndex("proc_cpu_pct")),
      read_(readColumns(header, device, parentDisk)) {
    for (const auto& c : header.columns)
        if (startsWith(c.name, "cpu") && endsWith(c.name, "_busy_pct") && c.name != "cpu_busy_pct") cpus_ += 1;
}

TelemetryPoint PointReader::point(const std::vector<double>& row) const {
    const auto at = [&](int i) { return i >= 0 && static_cast<std::size_t>(i) < row.size() ? row[static_cast<std::size_t>(i)] : kNaN; };
    TelemetryPoint p;
    p.deviceLabel = read_.label;
    p.timeS = at(0);
    p.cpuBusyPct = at(busy_);
    p.procCpuPct = cpus_ > 0 ? at(proc_) / cpus_ : kNaN;
    if (read_.columns.empty()) {
        p.deviceReadMiBs = kNaN;
    } else {
        // A device that vanished mid-run leaves NaN cells: the sum is of what was measured, NaN when nothing was.
        double sum = 0;
        bool any = false;
        for (std::size_t c : read_.columns)
            if (c < row.size() && !std::isnan(row[c])) {
                sum += row[c];
                any = true;
            }
        p.deviceReadMiBs = any ? sum : kNaN;
    }
    return p;
}

TelemetrySummary summarize(const TelemetryTable& table, const std::string& device, const std::string& parentDisk) {
    TelemetrySummary s;
    s.rows = table.rows.size();
    if (s.rows == 0) return s;
    const PointReader reader(table, device, parentDisk);
    s.deviceLabel = reader.deviceLabel();
    Stat busy, proc, read;
    for (const auto& row : table.rows) {
        const TelemetryPoint p = reader.point(row);
        busy.add(p.cpuBusyPct);
        proc.add(p.procCpuPct);
        read.add(p.deviceReadMiBs);
        if (!std::isnan(p.timeS)) s.durationS = p.timeS;
    }
    s.meanCpuBusyPct = busy.mean();
    s.maxCpuBusyPct = busy.max;
    s.meanProcCpuPct = proc.mean();
    s.maxProcCpuPct = proc.max;
    s.meanDeviceReadMiBs = read.mean();
    try {
        const ClientBoundVerdict v = clientBound(table, table.rows.front()[0], table.rows.back()[0]);
        s.hasVerdict = v.rowsInWindow > 0;
        s.clientBound = v.clientBound;
        s.verdict = s.hasVerdict ? v.reason : "no client-bound verdict: the run was shorter than two telemetry samples";
    } catch (const InputError& e) {
        s.verdict = std::string("no client-bound verdict: ") + e.what();
    }
    return s;
}

std::string summaryText(const TelemetrySummary& s) {
    if (s.rows == 0) return {};
    std::string text = "Client CPU busy: mean " + pct(s.meanCpuBusyPct) + ", max " + pct(s.maxCpuBusyPct) +
                       " (TrainIO process: mean " + pct(s.meanProcCpuPct) + ", max " + pct(s.maxProcCpuPct) + " of all CPUs)";
    char buf[160];
    if (s.deviceLabel.empty())
        text += "; storage reads: no block device listed";
    else if (std::isnan(s.meanDeviceReadMiBs))
        text += "; storage reads (" + s.deviceLabel + "): not measured";
    else {
        std::snprintf(buf, sizeof buf, "; storage reads (%s): mean %.1f MiB/s", s.deviceLabel.c_str(), s.meanDeviceReadMiBs);
        text += buf;
    }
    std::snprintf(buf, sizeof buf, " over %zu samples, %.0f s. ", s.rows, s.durationS);
    text += buf;
    return text + verdictSentence(s);
}

std::string verdictSentence(const TelemetrySummary& s) {
    if (s.hasVerdict) return (s.clientBound ? "Client-bound: " : "Not client-bound: ") + s.verdict;
    if (s.verdict.empty()) return {};
    return char(std::toupper(static_cast<unsigned char>(s.verdict[0]))) + s.verdict.substr(1);
}

} // namespace trainio::telemetry
