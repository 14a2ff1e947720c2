// The few telemetry figures shown where users look (issue 10 item 5): the Run page's live plot, the
// Results details, the tree JSON and the report. Each row gives the client's CPU busy % (the machine's
// and this process's, both as % of all CPUs so they share one axis) and the storage's read MiB/s; a
// table gives their means and maxima and the client-bound verdict of core/telemetry/client_bound.h.
#pragma once

#include "telemetry/telemetry_table.h"

#include <cstddef>
#include <string>
#include <vector>

namespace trainio::telemetry {

// Which columns give "the storage's read MiB/s": the data folder's device (`device`, e.g. "nvme0n1p2"
// from the page-cache meter) when the table has it, else its disk (`parentDisk`), else every whole disk
// summed except dm-* and md* (their reads are also counted on the disks below them). Values are NaN
// wherever a row has none of these columns measured. An object store's data arrives over the network:
// `device` "net:<interface>" takes that interface's received MiB/s (label "S3 over <interface>"), and
// "net:*" every interface but lo summed (label "S3 over the network").
struct ReadColumns {
    std::vector<std::size_t> columns;
    std::string label; // "sda", or "all disks" (the sum), or "" when the table lists no disk
};
ReadColumns readColumns(const TelemetryTable& table, const std::string& device = {}, const std::string& parentDisk = {});

// One row as the live plot draws it. NaN where the table lacks the column or the row did not measure it.
struct TelemetryPoint {
    double timeS = 0;
    double cpuBusyPct = 0;     // cpu_busy_pct: all CPUs, every process
    double procCpuPct = 0;     // proc_cpu_pct / CPUs listed (cpuN_busy_pct columns): this process, % of all CPUs
    double deviceReadMiBs = 0; // sum over ReadColumns
    std::string deviceLabel;   // ReadColumns::label
};

class PointReader {
public:
    PointReader(const TelemetryTable& header, const std::string& device = {}, const std::string& parentDisk = {});
    TelemetryPoint point(const std::vector<double>& row) const;
    const std::string& deviceLabel() const { return read_.label; }

private:
    int busy_ = -1, proc_ = -1;
    double cpus_ = 0;
    ReadColumns read_;
};

struct TelemetrySummary {
    std::size_t rows = 0;         // 0: no telemetry (the other fields mean nothing)
    double durationS = 0;         // time_s of the last row
    double meanCpuBusyPct = 0;    // NaN when never measured
    double maxCpuBusyPct = 0;
    double meanProcCpuPct = 0;    // % of all CPUs, as TelemetryPoint
    double maxProcCpuPct = 0;
    double meanDeviceReadMiBs = 0;
    std::string deviceLabel;      // ReadColumns::label
    bool hasVerdict = false;      // false when the table lacks the CPU columns or the window has no row
                                  // (a run shorter than two samples)
    bool clientBound = false;
    std::string verdict;          // ClientBoundVerdict::reason
};

// The verdict covers the rows after the first, as the run's own "client-bound" warning does
// (StorageSession::stop), so an imported result and the run agree.
TelemetrySummary summarize(const TelemetryTable& table, const std::string& device = {}, const std::string& parentDisk = {});

// "Client CPU busy: mean 42 %, max 97 % (TrainIO process: mean 30 %); storage reads (sda): mean 120.5 MiB/s
// over 61 samples. Not client-bound: …". "" when rows == 0.
std::string summaryText(const TelemetrySummary& s);
// Its last sentence alone: "Client-bound: …", "Not client-bound: …" or "No client-bound verdict: …".
std::string verdictSentence(const TelemetrySummary& s);

} // namespace trainio::telemetry
