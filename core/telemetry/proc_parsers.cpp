#include "telemetry/proc_parsers.h"

#include "util/errors.h"
#include "util/units.h"

#include <array>
#include <charconv>
#include <cmath>
#include <limits>

namespace trainio::telemetry {
namespace {

constexpr double kSectorBytes = 512.0;

// Splits on spaces and tabs without allocating; at most N fields are kept, `count` says how many were seen.
template <std::size_t N> struct Fields {
    std::array<std::string_view, N> f{};
    std::size_t count = 0;
};

template <std::size_t N> Fields<N> splitFields(std::string_view line) {
    Fields<N> out;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
            ++i;
        if (i >= line.size()) break;
        std::size_t j = i;
        while (j < line.size() && line[j] != ' ' && line[j] != '\t')
            ++j;
        if (out.count < N) out.f[out.count] = line.substr(i, j - i);
        ++out.count;
        i = j;
    }
    return out;
}

// Calls fn(line, lineNumber) for each line (1-based numbers, as an editor shows them).
template <typename Fn> void forEachLine(std::string_view text, Fn&& fn) {
    std::size_t lineNo = 0;
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        const std::string_view line = text.substr(0, nl);
        fn(line, ++lineNo);
        if (nl == std::string_view::npos) break;
        text.remove_prefix(nl + 1);
    }
}

[[noreturn]] void fail(std::string_view source, std::size_t lineNo, std::string_view line,
                       std::string_view expected) {
    throw InputError(std::string(source) + " line " + std::to_string(lineNo) + " \"" + std::string(line) +
                     "\": expected " + std::string(expected));
}

std::uint64_t toU64(std::string_view s, std::string_view source, std::size_t lineNo, std::string_view line) {
    std::uint64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size())
        fail(source, lineNo, line, "a non-negative whole number, found \"" + std::string(s) + "\"");
    return v;
}

} // namespace

void parseProcStat(std::string_view text, CpuStat& out, std::string_view source) {
    std::size_t cores = 0;
    bool sawTotal = false;
    forEachLine(text, [&](std::string_view line, std::size_t lineNo) {
        if (line.size() < 3 || line.substr(0, 3) != "cpu") return;
        const auto fields = splitFields<12>(line);
        // user nice system idle are present since 2.4; later fields (iowait … steal) appeared one by one.
        if (fields.count < 5)
            fail(source, lineNo, line, "\"cpuN user nice system idle …\" (at least 4 counters)");
        std::array<std::uint64_t, 8> v{};
        for (std::size_t k = 0; k < 8 && k + 1 < std::min<std::size_t>(fields.count, 12); ++k)
            v[k] = toU64(fields.f[k + 1], source, lineNo, line);
        CpuTimes t;
        t.busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
        t.iowait = v[4];
        t.idle = v[3] + v[4];
        const std::string_view label = fields.f[0];
        if (label == "cpu") {
            out.total = t;
            sawTotal = true;
            return;
        }
        int id = 0;
        const auto [p, ec] = std::from_chars(label.data() + 3, label.data() + label.size(), id);
        if (ec != std::errc() || p != label.data() + label.size())
            fail(source, lineNo, line, "a label \"cpu\" or \"cpuN\"");
        if (out.cores.size() <= cores) {
            out.cores.resize(cores + 1);
            out.coreIds.resize(cores + 1);
        }
        out.cores[cores] = t;
        out.coreIds[cores] = id;
        ++cores;
    });
    if (!sawTotal)
        throw InputError(std::string(source) + ": no \"cpu\" line: expected the aggregate CPU counters");
    out.cores.resize(cores);
    out.coreIds.resize(cores);
}

void parseDiskstats(std::string_view text, std::vector<DiskCounters>& out, std::string_view source) {
    std::size_t n = 0;
    forEachLine(text, [&](std::string_view line, std::size_t lineNo) {
        const auto fields = splitFields<20>(line);
        if (fields.count == 0) return;
        if (fields.count == 7) return; // 2.6's partition line: reads, sectors read, writes, sectors written
        if (fields.count < 14)
            fail(source, lineNo, line, "\"major minor name\" and at least 11 counters (14, 18 or 20 fields)");
        if (out.size() <= n) out.resize(n + 1);
        DiskCounters& d = out[n++];
        d.major = static_cast<unsigned>(toU64(fields.f[0], source, lineNo, line));
        d.minor = static_cast<unsigned>(toU64(fields.f[1], source, lineNo, line));
        d.name.assign(fields.f[2]);
        d.readsCompleted = toU64(fields.f[3], source, lineNo, line);
        d.sectorsRead = toU64(fields.f[5], source, lineNo, line);
        d.writesCompleted = toU64(fields.f[7], source, lineNo, line);
        d.sectorsWritten = toU64(fields.f[9], source, lineNo, line);
        d.ioTicksMs = toU64(fields.f[12], source, lineNo, line);
        d.timeInQueueMs = toU64(fields.f[13], source, lineNo, line);
    });
    out.resize(n);
}

void parseNetDev(std::string_view text, std::vector<NetCounters>& out, std::string_view source) {
    std::size_t n = 0;
    forEachLine(text, [&](std::string_view line, std::size_t lineNo) {
        const std::size_t colon = line.find(':');
        // The two header lines contain '|' and no interface colon.
        if (line.find('|') != std::string_view::npos) return;
        if (colon == std::string_view::npos) {
            if (splitFields<1>(line).count == 0) return;
            fail(source, lineNo, line, "\"interface: rx_bytes … tx_bytes …\"");
        }
        const auto name = splitFields<2>(line.substr(0, colon));
        // Old kernels print "eth0:123" with no space, hence splitting after the colon, not on spaces.
        const auto fields = splitFields<16>(line.substr(colon + 1));
        if (name.count != 1 || fields.count < 16)
            fail(source, lineNo, line, "an interface name and 16 counters (8 receive, 8 transmit)");
        if (out.size() <= n) out.resize(n + 1);
        NetCounters& c = out[n++];
        c.name.assign(name.f[0]);
        c.rxBytes = toU64(fields.f[0], source, lineNo, line);
        c.txBytes = toU64(fields.f[8], source, lineNo, line);
    });
    out.resize(n);
}

void parseMeminfo(std::string_view text, MemInfo& out, std::string_view source) {
    bool total = false, available = false, cached = false;
    forEachLine(text, [&](std::string_view line, std::size_t lineNo) {
        const auto fields = splitFields<3>(line);
        if (fields.count < 2) return;
        std::uint64_t* target = nullptr;
        if (fields.f[0] == "MemTotal:")
            target = &out.totalKiB, total = true;
        else if (fields.f[0] == "MemAvailable:")
            target = &out.availableKiB, available = true;
        else if (fields.f[0] == "Cached:")
            target = &out.cachedKiB, cached = true;
        if (!target) return;
        if (fields.count != 3 || fields.f[2] != "kB") fail(source, lineNo, line, "\"Key: <number> kB\"");
        *target = toU64(fields.f[1], source, lineNo, line);
    });
    if (!total || !available || !cached)
        throw InputError(std::string(source) +
                         ": expected the keys MemTotal, MemAvailable and Cached; missing " +
                         (!total       ? "MemTotal"
                          : !available ? "MemAvailable"
                                       : "Cached"));
}

std::uint64_t parseStatmResidentPages(std::string_view text, std::string_view source) {
    const std::string_view line = text.substr(0, text.find('\n'));
    const auto fields = splitFields<7>(line);
    if (fields.count < 2) fail(source, 1, line, "\"size resident shared …\" (page counts)");
    return toU64(fields.f[1], source, 1, line);
}

double counterDelta(std::uint64_t before, std::uint64_t after) {
    if (after >= before) return static_cast<double>(after - before);
    constexpr std::uint64_t k32 = std::numeric_limits<std::uint32_t>::max();
    if (before <= k32 && after <= k32) return static_cast<double>((after + (k32 + 1)) - before);
    return -1;
}

CpuPercent cpuPercent(const CpuTimes& before, const CpuTimes& after) {
    const double busy = counterDelta(before.busy, after.busy);
    const double idle = counterDelta(before.idle, after.idle);
    const double iowait = counterDelta(before.iowait, after.iowait);
    const double all = busy + idle;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (busy < 0 || idle < 0 || iowait < 0 || all <= 0) return {nan, nan};
    return {busy / all * 100.0, iowait / all * 100.0};
}

namespace {
double rate(double delta, double scale, double intervalS) {
    return delta < 0 || intervalS <= 0 ? std::numeric_limits<double>::quiet_NaN() : delta * scale / intervalS;
}
} // namespace

DiskRates diskRates(const DiskCounters& a, const DiskCounters& b, double intervalS) {
    DiskRates r;
    r.readMiBs = rate(counterDelta(a.sectorsRead, b.sectorsRead), kSectorBytes / kMiB, intervalS);
    r.writeMiBs = rate(counterDelta(a.sectorsWritten, b.sectorsWritten), kSectorBytes / kMiB, intervalS);
    r.readIops = rate(counterDelta(a.readsCompleted, b.readsCompleted), 1.0, intervalS);
    r.writeIops = rate(counterDelta(a.writesCompleted, b.writesCompleted), 1.0, intervalS);
    // The counters are in milliseconds; the interval is in seconds.
    // io_ticks is sampled at jiffy granularity, so a fully busy device can show slightly over 100 %.
    r.utilPct = rate(counterDelta(a.ioTicksMs, b.ioTicksMs), 0.1, intervalS);
    if (r.utilPct > 100.0) r.utilPct = 100.0;
    r.queueDepth = rate(counterDelta(a.timeInQueueMs, b.timeInQueueMs), 0.001, intervalS);
    return r;
}

NetRates netRates(const NetCounters& a, const NetCounters& b, double intervalS) {
    return {rate(counterDelta(a.rxBytes, b.rxBytes), 1.0 / kMiB, intervalS),
            rate(counterDelta(a.txBytes, b.txBytes), 1.0 / kMiB, intervalS)};
}

} // namespace trainio::telemetry
