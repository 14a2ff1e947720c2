#include "telemetry/telemetry_sampler.h"

#include "telemetry/gpu_query.h"
#include "telemetry/proc_parsers.h"
#include "util/errors.h"
#include "util/units.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <ctime>
#include <fcntl.h>
#include <limits>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace trainio::telemetry {
// Named, not anonymous: TelemetrySampler::Sources holds these types, and a class with external linkage must
// not have members of internal-linkage types (GCC's -Wsubobject-linkage, which fires in unity builds).
namespace sampler_detail {


// One /proc file kept open for the whole run: each sample is one pread at offset 0 (which makes the
// kernel regenerate the text) into a buffer that only grows, so sampling neither opens files nor allocates.
class ProcFile {
public:
    explicit ProcFile(std::string path) : path_(std::move(path)) {
        fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd_ < 0) throw RunError("open " + path_ + ": " + errnoText(errno));
        buf_.resize(16384);
    }
    ~ProcFile() { ::close(fd_); }
    ProcFile(const ProcFile&) = delete;
    ProcFile& operator=(const ProcFile&) = delete;

    std::string_view read() {
        while (true) {
            const ssize_t n = ::pread(fd_, buf_.data(), buf_.size(), 0);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) throw RunError("read " + path_ + ": " + errnoText(errno));
            // A full buffer may be a truncated file: grow and read again (happens once, on big machines).
            if (static_cast<std::size_t>(n) == buf_.size()) {
                buf_.resize(buf_.size() * 2);
                continue;
            }
            return {buf_.data(), static_cast<std::size_t>(n)};
        }
    }

private:
    std::string path_;
    int fd_ = -1;
    std::string buf_;
};

struct Reading {
    std::chrono::steady_clock::time_point when;
    CpuStat cpu;
    std::vector<DiskCounters> disks;
    std::vector<NetCounters> nets;
    double processCpuS = 0;
};

double processCpuS() {
    rusage ru{};
    ::getrusage(RUSAGE_SELF, &ru);
    return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

double allowedCores() {
    cpu_set_t set;
    CPU_ZERO(&set);
    // The process's (main thread's) mask: the sampler thread's own could differ if someone pinned it.
    if (::sched_getaffinity(::getpid(), sizeof set, &set) != 0) return kNaN;
    return CPU_COUNT(&set);
}

template <typename T>
const T* findByName(const std::vector<T>& v, const std::string& name, std::size_t hint) {
    // The kernel lists devices in a stable order, so the previous position almost always matches.
    if (hint < v.size() && v[hint].name == name) return &v[hint];
    for (const auto& x : v)
        if (x.name == name) return &x;
    return nullptr;
}

std::size_t indexOf(const std::vector<int>& ids, int id, std::size_t hint) {
    if (hint < ids.size() && ids[hint] == id) return hint;
    const auto it = std::find(ids.begin(), ids.end(), id);
    return it == ids.end() ? ids.size() : static_cast<std::size_t>(it - ids.begin());
}

// The names the user asked for (each must exist), or else the ones the default rule keeps.
template <typename T, typename Keep>
std::vector<std::string> selectNames(const std::vector<T>& seen, const std::vector<std::string>& wanted,
                                     const char* key, const char* expected, Keep keep) {
    std::vector<std::string> out;
    for (const auto& w : wanted) {
        if (!findByName(seen, w, 0)) throw InputError(describeProblem("telemetry", key, w, expected));
        out.push_back(w);
    }
    if (wanted.empty())
        for (const auto& x : seen)
            if (keep(x.name)) out.push_back(x.name);
    return out;
}

} // namespace sampler_detail
using namespace sampler_detail;

bool isDefaultDisk(const std::string& name, const std::string& sysBlockDir) {
    for (const char* skip : {"loop", "ram", "zram"})
        if (name.rfind(skip, 0) == 0) return false;
    struct stat st {};
    return ::stat((sysBlockDir + "/" + name).c_str(), &st) == 0;
}

struct TelemetrySampler::Sources {
    ProcFile stat{"/proc/stat"};
    ProcFile diskstats{"/proc/diskstats"};
    ProcFile netdev{"/proc/net/dev"};
    ProcFile meminfo{"/proc/meminfo"};
    ProcFile statm{"/proc/self/statm"};
    Reading prev, cur;
    MemInfo mem;
    double pageSizeMiB = static_cast<double>(::sysconf(_SC_PAGESIZE)) / kMiB;
    std::vector<int> coreIds;             // the per-core columns, in order
    std::vector<std::string> disks, nets; // the per-device and per-interface columns, in order
    std::string gpuPath;                  // empty: no GPU columns
    std::size_t gpus = 0;
    std::size_t gpuFailures = 0;
    std::string firstGpuFailure;
    std::string gpuGaveUp; // set when nvidia-smi hung: it is not asked again during this run
    std::vector<double> row;

    void read(Reading& r) {
        r.when = std::chrono::steady_clock::now();
        parseProcStat(stat.read(), r.cpu);
        parseDiskstats(diskstats.read(), r.disks);
        parseNetDev(netdev.read(), r.nets);
        r.processCpuS = processCpuS();
    }
};

TelemetrySampler::TelemetrySampler(TelemetryOptions options, WallClock clock, double runStartUnix)
    : opt_(std::move(options)), clock_(clock), runStartUnix_(runStartUnix) {}

TelemetrySampler::~TelemetrySampler() {
    if (thread_.joinable()) stop();
}

void TelemetrySampler::start() {
    if (thread_.joinable()) throw InputError("telemetry sampler: start: already started");
    if (!(opt_.intervalS > 0 && opt_.intervalS <= 3600))
        throw InputError(describeProblem("telemetry", "telemetry_interval_s", std::to_string(opt_.intervalS),
                                         "seconds between samples, above 0 and at most 3600"));
    if (!(opt_.gpuTimeoutS > 0))
        throw InputError(
            describeProblem("telemetry", "gpu timeout", std::to_string(opt_.gpuTimeoutS), "seconds above 0"));
    auto src = std::make_unique<Sources>();
    Sources& s = *src;
    s.read(s.prev);
    parseMeminfo(s.meminfo.read(), s.mem);
    parseStatmResidentPages(s.statm.read());

    TelemetryTable t;
    t.intervalS = opt_.intervalS;
    auto add = [&](const std::string& name) { t.columns.push_back(describeColumn(name)); };
    for (const char* c : {"time_s", "interval_s", "cpu_busy_pct", "cpu_iowait_pct"})
        add(c);
    s.coreIds = s.prev.cpu.coreIds;
    for (int id : s.coreIds)
        add("cpu" + std::to_string(id) + "_busy_pct");
    for (const char* c :
         {"allowed_cores", "proc_cpu_pct", "proc_rss_mib", "mem_available_mib", "page_cache_mib"})
        add(c);

    s.disks = selectNames(
        s.prev.disks, opt_.disks, "disks", "a device listed in /proc/diskstats",
        [&](const std::string& d) { return opt_.allDisks || isDefaultDisk(d, opt_.sysBlockDir); });
    for (const auto& d : s.disks)
        for (const char* suffix :
             {"_read_mib_s", "_write_mib_s", "_read_iops", "_write_iops", "_util_pct", "_queue_depth"})
            add("disk_" + d + suffix);

    s.nets = selectNames(s.prev.nets, opt_.interfaces, "interfaces", "an interface listed in /proc/net/dev",
                         [&](const std::string& n) { return n != "lo" || opt_.loopback; });
    for (const auto& n : s.nets)
        for (const char* suffix : {"_rx_mib_s", "_tx_mib_s"})
            add("net_" + n + suffix);

    if (opt_.nvidiaSmi.empty()) {
        t.notes.push_back("GPU telemetry off: no nvidia-smi program configured; no GPU columns");
    } else if (const std::string path = findExecutable(opt_.nvidiaSmi); path.empty()) {
        t.notes.push_back(opt_.nvidiaSmi + " not found" +
                          (opt_.nvidiaSmi.find('/') == std::string::npos ? " in $PATH" : "") +
                          " (no NVIDIA driver tools): no GPU columns");
    } else {
        const ProcessOutput out = runProcess(path, nvidiaSmiArguments(), opt_.gpuTimeoutS);
        try {
            if (!out.error.empty()) throw InputError(out.error);
            const auto gpus = parseNvidiaSmi(out.out, path);
            if (gpus.empty()) throw InputError(path + " listed no GPU");
            s.gpuPath = path;
            s.gpus = gpus.size();
            for (std::size_t g = 0; g < s.gpus; ++g)
                for (const char* suffix : {"_util_pct", "_mem_used_mib", "_mem_total_mib"})
                    add("gpu" + std::to_string(g) + suffix);
        } catch (const InputError& e) {
            t.notes.push_back(std::string("GPU query failed at start: ") + e.what() + ": no GPU columns");
        }
    }

    s.row.reserve(t.columns.size());
    {
        std::lock_guard lk(mu_);
        table_ = std::move(t);
        stopping_ = finished_ = false;
        error_.clear();
    }
    src_ = std::move(src);
    thread_ = std::thread([this] { run(); });
}

void TelemetrySampler::run() {
    const double cpu0 = threadCpuSeconds();
    const auto interval = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(opt_.intervalS));
    auto next = src_->prev.when + interval;
    try {
        while (true) {
            {
                std::unique_lock lk(mu_);
                if (cv_.wait_until(lk, next, [this] { return stopping_; })) break;
            }
            sampleOnce();
            next += interval;
            // After a stall (a suspended machine, a slow nvidia-smi) resume the grid instead of catching up
            // with a burst of back-to-back samples.
            const auto now = std::chrono::steady_clock::now();
            if (next < now) next = now + interval;
        }
        // The last, partial interval: so the rows reach the end of the run, unless it is too short to rate.
        if (std::chrono::steady_clock::now() - src_->prev.when >= interval / 4) sampleOnce();
    } catch (const std::exception& e) {
        std::lock_guard lk(mu_);
        error_ = std::string("telemetry stopped at ") + std::to_string(clock_.now() - runStartUnix_) +
                 " s: " + e.what();
    }
    threadCpuSeconds_ = threadCpuSeconds() - cpu0;
    {
        std::lock_guard lk(mu_);
        finished_ = true;
    }
    cv_.notify_all();
}

void TelemetrySampler::sampleOnce() {
    Sources& s = *src_;
    s.read(s.cur);
    // The row's time is the instant its counters were read (the same instant `interval_s` is measured from):
    // consecutive rows' times differ by exactly their interval, however long the reads took.
    const double t = clock_.at(s.cur.when) - runStartUnix_;
    parseMeminfo(s.meminfo.read(), s.mem);
    const double rssPages = static_cast<double>(parseStatmResidentPages(s.statm.read()));
    const Reading& a = s.prev;
    const Reading& b = s.cur;
    const double dt = std::chrono::duration<double>(b.when - a.when).count();

    std::vector<double>& row = s.row;
    row.clear();
    row.push_back(t);
    row.push_back(dt);
    const CpuPercent total = cpuPercent(a.cpu.total, b.cpu.total);
    row.push_back(total.busyPct);
    row.push_back(total.iowaitPct);
    for (std::size_t i = 0; i < s.coreIds.size(); ++i) {
        // A core taken offline during the run has no line: NaN, not a stale or zero value.
        const std::size_t ia = indexOf(a.cpu.coreIds, s.coreIds[i], i),
                          ib = indexOf(b.cpu.coreIds, s.coreIds[i], i);
        row.push_back(ia < a.cpu.cores.size() && ib < b.cpu.cores.size()
                          ? cpuPercent(a.cpu.cores[ia], b.cpu.cores[ib]).busyPct
                          : kNaN);
    }
    row.push_back(allowedCores());
    row.push_back(dt > 0 ? (b.processCpuS - a.processCpuS) / dt * 100.0 : kNaN);
    row.push_back(rssPages * s.pageSizeMiB);
    row.push_back(static_cast<double>(s.mem.availableKiB) / 1024.0);
    row.push_back(static_cast<double>(s.mem.cachedKiB) / 1024.0);
    for (std::size_t i = 0; i < s.disks.size(); ++i) {
        const DiskCounters* da = findByName(a.disks, s.disks[i], i);
        const DiskCounters* db = findByName(b.disks, s.disks[i], i);
        if (da && db) {
            const DiskRates r = diskRates(*da, *db, dt);
            for (double v : {r.readMiBs, r.writeMiBs, r.readIops, r.writeIops, r.utilPct, r.queueDepth})
                row.push_back(v);
        } else {
            row.insert(row.end(), 6, kNaN);
        }
    }
    for (std::size_t i = 0; i < s.nets.size(); ++i) {
        const NetCounters* na = findByName(a.nets, s.nets[i], i);
        const NetCounters* nb = findByName(b.nets, s.nets[i], i);
        if (na && nb) {
            const NetRates r = netRates(*na, *nb, dt);
            row.push_back(r.rxMiBs);
            row.push_back(r.txMiBs);
        } else {
            row.insert(row.end(), 2, kNaN);
        }
    }
    std::swap(s.prev, s.cur);

    if (s.gpus > 0 && !s.gpuGaveUp.empty()) {
        row.insert(row.end(), 3 * s.gpus, kNaN);
    } else if (s.gpus > 0) {
        const ProcessOutput out = runProcess(s.gpuPath, nvidiaSmiArguments(), opt_.gpuTimeoutS);
        // A hung driver would make every later sample wait for the time limit: stop asking.
        if (out.timedOut)
            s.gpuGaveUp = "nvidia-smi timed out at " + std::to_string(t) +
                          " s and was not run again: GPU columns empty from then on";
        std::vector<GpuReading> gpus;
        std::string failure = out.error;
        if (failure.empty()) {
            try {
                gpus = parseNvidiaSmi(out.out, s.gpuPath);
            } catch (const InputError& e) {
                failure = e.what();
            }
        }
        if (failure.empty() && gpus.size() != s.gpus)
            failure = s.gpuPath + " listed " + std::to_string(gpus.size()) + " GPUs, " +
                      std::to_string(s.gpus) + " at start";
        if (!failure.empty()) {
            if (s.gpuFailures++ == 0) s.firstGpuFailure = failure;
            row.insert(row.end(), 3 * s.gpus, kNaN);
        } else {
            for (const auto& g : gpus) {
                row.push_back(g.utilPct);
                row.push_back(g.memUsedMiB);
                row.push_back(g.memTotalMiB);
            }
        }
    }

    {
        std::lock_guard lk(mu_);
        table_.rows.push_back(row);
        ++samplesTaken_;
    }
    cv_.notify_all();
    if (opt_.onRow) opt_.onRow(row);
}

TelemetryTable TelemetrySampler::stop() {
    if (!thread_.joinable()) throw InputError("telemetry sampler: stop: not started");
    {
        std::lock_guard lk(mu_);
        stopping_ = true;
    }
    cv_.notify_all();
    thread_.join();
    std::lock_guard lk(mu_);
    TelemetryTable t = table_;
    if (src_ && src_->gpuFailures > 0)
        t.notes.push_back("nvidia-smi failed in " + std::to_string(src_->gpuFailures) +
                          " samples (GPU columns empty there); first failure: " + src_->firstGpuFailure);
    if (src_ && !src_->gpuGaveUp.empty()) t.notes.push_back(src_->gpuGaveUp);
    if (!error_.empty()) t.notes.push_back(error_);
    src_.reset();
    return t;
}

std::vector<TelemetryColumn> TelemetrySampler::columns() const {
    std::lock_guard lk(mu_);
    return table_.columns;
}

std::size_t TelemetrySampler::rowCount() const {
    std::lock_guard lk(mu_);
    return table_.rows.size();
}

std::vector<std::vector<double>> TelemetrySampler::rowsFrom(std::size_t first) const {
    std::lock_guard lk(mu_);
    if (first >= table_.rows.size()) return {};
    return {table_.rows.begin() + static_cast<std::ptrdiff_t>(first), table_.rows.end()};
}

bool TelemetrySampler::waitForRows(std::size_t n, std::chrono::milliseconds timeout) const {
    std::unique_lock lk(mu_);
    cv_.wait_for(lk, timeout, [&] { return table_.rows.size() >= n || finished_; });
    return table_.rows.size() >= n;
}

std::string TelemetrySampler::error() const {
    std::lock_guard lk(mu_);
    return error_;
}

} // namespace trainio::telemetry
