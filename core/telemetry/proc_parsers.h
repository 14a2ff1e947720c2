// Parsers for the /proc files the telemetry sampler reads, and the rates derived from two readings.
// Pure functions over text so that tests feed them captured fixtures; the sampler calls them once per
// sample with its own reused output vectors (assigning into existing elements reuses their storage, so a
// steady-state sample allocates nothing here). Malformed text throws InputError naming the file, the line
// and what was expected: a kernel that changed a format must be reported, never read as zeros.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace trainio::telemetry {

// Jiffies from one "cpu…" line of /proc/stat. busy = user + nice + system + irq + softirq + steal;
// idle = idle + iowait (a CPU waiting for I/O is free to run other work). guest and guest_nice are left
// out: the kernel already counts them inside user and nice.
struct CpuTimes {
    std::uint64_t busy = 0;
    std::uint64_t idle = 0;
    std::uint64_t iowait = 0;
};

struct CpuStat {
    CpuTimes total;              // the aggregate "cpu" line
    std::vector<int> coreIds;    // N of each "cpuN" line, in file order (offline cores have none)
    std::vector<CpuTimes> cores; // parallel to coreIds
};

// One whole line of /proc/diskstats. Fields after "major minor name": 11 (kernels before 4.18),
// 15 (4.18+: discards) or 17 (5.5+: flushes); only the first 11 are used. Sectors are always 512 bytes
// in this file whatever the device's sector size.
struct DiskCounters {
    std::string name;
    unsigned major = 0;
    unsigned minor = 0;
    std::uint64_t readsCompleted = 0;
    std::uint64_t sectorsRead = 0;
    std::uint64_t writesCompleted = 0;
    std::uint64_t sectorsWritten = 0;
    std::uint64_t ioTicksMs = 0; // field 10: time the device had I/O in flight (unsigned int in the kernel)
    std::uint64_t timeInQueueMs = 0; // field 11: sum over requests of their time in flight
};

struct NetCounters {
    std::string name;
    std::uint64_t rxBytes = 0;
    std::uint64_t txBytes = 0;
};

struct MemInfo {
    std::uint64_t totalKiB = 0;
    std::uint64_t availableKiB = 0;
    std::uint64_t cachedKiB =
        0; // "Cached": the page cache (without swap cache), as free(1)'s buff/cache minus buffers
};

// `source` names the file in error messages (tests pass the fixture's name).
void parseProcStat(std::string_view text, CpuStat& out, std::string_view source = "/proc/stat");
// Lines with fewer than 11 counters (the 4-counter partition lines of 2.6 kernels) are skipped: they
// are partitions, which the default device rule leaves out anyway.
void parseDiskstats(std::string_view text, std::vector<DiskCounters>& out,
                    std::string_view source = "/proc/diskstats");
void parseNetDev(std::string_view text, std::vector<NetCounters>& out,
                 std::string_view source = "/proc/net/dev");
void parseMeminfo(std::string_view text, MemInfo& out, std::string_view source = "/proc/meminfo");
// /proc/self/statm: the second field, resident pages.
std::uint64_t parseStatmResidentPages(std::string_view text, std::string_view source = "/proc/self/statm");

// Difference of two readings of a counter. The kernel keeps io_ticks and time_in_queue in 32-bit
// unsigned ints on some versions, so a decrease from a value below 2^32 is a 32-bit wrap; any other
// decrease (a device replaced, counters reset) has no meaningful delta and gives -1.
double counterDelta(std::uint64_t before, std::uint64_t after);

struct CpuPercent {
    double busyPct = 0;   // busy jiffies / all jiffies in the interval × 100
    double iowaitPct = 0; // iowait jiffies / all jiffies × 100 (part of idle)
};
// NaN when no jiffy elapsed between the readings.
CpuPercent cpuPercent(const CpuTimes& before, const CpuTimes& after);

struct DiskRates {
    double readMiBs = 0;
    double writeMiBs = 0;
    double readIops = 0;
    double writeIops = 0;
    double utilPct = 0;    // io_ticks delta / interval × 100, capped at 100 (iostat's %util)
    double queueDepth = 0; // time_in_queue delta / interval: the average number in flight (iostat's aqu-sz)
};
DiskRates diskRates(const DiskCounters& before, const DiskCounters& after, double intervalS);

struct NetRates {
    double rxMiBs = 0;
    double txMiBs = 0;
};
NetRates netRates(const NetCounters& before, const NetCounters& after, double intervalS);

} // namespace trainio::telemetry
