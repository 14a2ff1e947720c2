#include "trace/derive_workload.h"

#include "trace/batch_handover.h"

#include "trace/file_format.h"

#include "config/config_keys.h"
#include "config/config_loader.h"
#include "dataset/dataset_generator.h"
#include "dataset/dataset_layout.h"
#include "util/errors.h"
#include "util/statistics.h"
#include "util/text.h"
#include "util/units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>

namespace fs = std::filesystem;

namespace trainio::trace {

namespace {


// ---- small statistics ----

double mean(const std::vector<double>& v) { return v.empty() ? 0 : aggregate::mean(v).value; }

// Population, as DLIO's record_length_stdev is a spread.
double stdev(const std::vector<double>& v) { return v.size() < 2 ? 0 : aggregate::populationStdev(v).value; }

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string num(double v, int digits = 4) { return significantNumber(v, digits); }

std::string ms(double seconds) { return num(seconds * 1e3, 4) + " ms"; }

// ---- sessions ----

// One open-to-close use of a data file by one thread: one sample access.
struct Session {
    int pid = 0;
    std::uint32_t tid = 0;
    std::uint32_t file = 0; // index into Trace::paths
    std::uint64_t tOpen = 0, tEnd = 0;
    std::uint64_t bytes = 0;  // read or mapped, with repeats
    std::uint64_t ioNs = 0;   // time inside open, read, mmap and close calls
    std::uint64_t cpuAtOpen = 0; // the thread's CPU clock at its open (0: not recorded)
    std::uint64_t cpuAtClose = 0; // and at its close (0: not recorded; older traces)
    std::uint64_t waitAtOpen = 0; // 1 + the thread's time waiting for a core at its open (0: not recorded)
    bool mapped = false;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges; // [begin, end) read or mapped
    std::uint64_t distinct() const {
        auto r = ranges;
        std::sort(r.begin(), r.end());
        std::uint64_t total = 0, curB = 0, curE = 0;
        bool open = false;
        for (const auto& [b, e] : r) {
            if (!open || b > curE) {
                if (open) total += curE - curB;
                curB = b;
                curE = e;
                open = true;
            } else {
                curE = std::max(curE, e);
            }
        }
        if (open) total += curE - curB;
        return total;
    }
};

struct Sessions {
    std::vector<Session> list;
    std::vector<std::uint64_t> readSizes; // every read call's bytes
    std::uint64_t strayReads = 0;         // reads on descriptors whose open was not seen
};

std::uint64_t key(int pid, int fd) { return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(pid)) << 32) | static_cast<std::uint32_t>(fd); }

Sessions buildSessions(const Trace& tr) {
    Sessions out;
    std::unordered_map<std::uint64_t, std::size_t> open;     // (pid, fd) → session
    std::map<std::pair<int, std::uint64_t>, std::size_t> mappings; // (pid, addr) → session
    std::unordered_map<int, int> parent;
    for (const auto& p : tr.processes) parent[p.pid] = p.ppid;
    auto sessionFor = [&](const IoEvent& e) -> Session* {
        if (auto it = open.find(key(e.pid, e.fd)); it != open.end()) return &out.list[it->second];
        // A descriptor inherited across fork (a dataset that opened its files before the workers started).
        for (int p = parent.count(e.pid) ? parent[e.pid] : 0, hops = 0; p > 0 && hops < 8; ++hops) {
            if (auto it = open.find(key(p, e.fd)); it != open.end()) {
                Session s;
                s.pid = e.pid;
                s.tid = e.tid;
                s.file = out.list[it->second].file;
                s.tOpen = e.t;
                out.list.push_back(s);
                open[key(e.pid, e.fd)] = out.list.size() - 1;
                return &out.list.back();
            }
            p = parent.count(p) ? parent[p] : 0;
        }
        return nullptr;
    };
    for (const auto& e : tr.events) {
        switch (e.op) {
        case Op::Open: {
            Session s;
            s.pid = e.pid;
            s.tid = e.tid;
            s.file = e.path;
            s.tOpen = e.t;
            s.tEnd = e.t + e.dur;
            s.ioNs = e.dur;
            s.cpuAtOpen = e.cpu;
            s.waitAtOpen = e.runWait;
            out.list.push_back(s);
            open[key(e.pid, e.fd)] = out.list.size() - 1;
            break;
        }
        case Op::Mmap:
        case Op::Read:
        case Op::Pread:
        case Op::Readv:
        case Op::Preadv:
        case Op::Fread: {
            Session* s = sessionFor(e);
            if (!s) {
                ++out.strayReads;
                break;
            }
            s->bytes += e.n;
            if (e.n > 0) s->ranges.emplace_back(e.off, e.off + e.n);
            s->ioNs += e.dur;
            s->tEnd = std::max(s->tEnd, e.t + e.dur);
            if (e.op == Op::Mmap) {
                s->mapped = true;
                mappings[{e.pid, e.addr}] = static_cast<std::size_t>(s - out.list.data());
            } else if (e.n > 0) {
                out.readSizes.push_back(e.n);
            }
            break;
        }
        case Op::Munmap:
            if (auto it = mappings.find({e.pid, e.addr}); it != mappings.end()) {
                out.list[it->second].tEnd = std::max(out.list[it->second].tEnd, e.t + e.dur);
                mappings.erase(it);
            }
            break;
        case Op::Close:
            if (auto it = open.find(key(e.pid, e.fd)); it != open.end()) {
                Session& s = out.list[it->second];
                s.ioNs += e.dur;
                s.tEnd = std::max(s.tEnd, e.t + e.dur);
                s.cpuAtClose = e.cpu;
                open.erase(it);
            }
            break;
        }
    }
    // Only sessions that read something are sample accesses (a stat-like open is not).
    out.list.erase(std::remove_if(out.list.begin(), out.list.end(), [](const Session& s) { return s.bytes == 0; }),
                   out.list.end());
    return out;
}

// ---- DLIO's names ----

struct DlioNames {
    bool match = false;
    std::string root, prefix;
    std::uint64_t total = 0, subfolders = 0;
};

DlioNames matchDlioNames(const std::vector<std::string>& files, const std::string& format) {
    static const std::regex re(R"(^(.*)/train/(?:([0-9]+)/)?([^/]+)_([0-9]+)_of_([0-9]+)\.([A-Za-z0-9]+)$)");
    DlioNames d;
    std::set<std::string> subs;
    std::set<std::uint64_t> indices;
    for (const auto& f : files) {
        std::smatch m;
        if (!std::regex_match(f, m, re)) return {};
        const std::uint64_t total = std::stoull(m[5].str());
        if (indices.empty()) {
            d.root = m[1].str();
            d.prefix = m[3].str();
            d.total = total;
        } else if (d.root != m[1].str() || d.prefix != m[3].str() || d.total != total) {
            return {};
        }
        if (m[6].str() != format && !(format == "jpeg" && m[6].str() == "jpg")) return {};
        if (m[2].matched) subs.insert(m[2].str());
        indices.insert(std::stoull(m[4].str()));
    }
    // Replayable on these files only when the job read every file of the set.
    if (indices.size() != d.total || (indices.empty() ? true : *indices.rbegin() != d.total - 1)) return {};
    d.subfolders = subs.size() > 1 ? subs.size() : 0;
    d.match = true;
    return d;
}

std::optional<DataFormat> formatFromName(const std::string& f) {
    static const std::map<std::string, DataFormat> m = {{"npz", DataFormat::Npz},   {"npy", DataFormat::Npy},
                                                        {"tfrecord", DataFormat::Tfrecord}, {"hdf5", DataFormat::Hdf5},
                                                        {"jpeg", DataFormat::Jpeg}, {"png", DataFormat::Png},
                                                        {"raw", DataFormat::Raw}};
    auto it = m.find(f);
    if (it == m.end()) return std::nullopt;
    return it->second;
}

ComputeTime timeOf(double meanS, double stdevS) { return fitTime(meanS, stdevS); }

std::string timeText(const ComputeTime& t) {
    if (t.distribution == ComputeDistribution::Gamma)
        return "gamma{shape " + num(t.shape, 4) + ", scale " + num(t.scale, 4) + " s: mean " + num(t.expectedSeconds(), 5) + " s}";
    if (t.distribution == ComputeDistribution::Normal) return "normal{mean " + num(t.mean, 5) + " s, stdev " + num(t.stdev, 4) + " s}";
    return num(t.mean, 5) + " s";
}

} // namespace

ComputeTime fitTime(double meanS, double stdevS) {
    ComputeTime t;
    t.mean = std::max(0.0, meanS);
    // A spread under 5 % of the mean is noise of the measurement itself: a constant.
    if (!(stdevS > 0.05 * meanS) || !(meanS > 0)) return t;
    // Times are positive and, measured on a shared machine, skewed to the right (a wait for a core now and
    // then): a gamma distribution fitted by moments (shape = mean² / variance, scale = variance / mean)
    // keeps the job's mean and spread exactly and never draws a negative time. A normal distribution
    // cannot: when its stdev is near or above its mean, clamping its negative draws at zero raises the
    // mean (by ~25 % at stdev 1.5 × mean). DLIO's config supports gamma (utils/config.py), so the
    // derived YAML still runs under DLIO.
    t.distribution = ComputeDistribution::Gamma;
    t.scale = stdevS * stdevS / meanS;
    t.shape = meanS / t.scale;
    return t;
}

ComputeTime fitTime(const std::vector<double>& seconds) { return fitTime(mean(seconds), stdev(seconds)); }

DerivedWorkload deriveWorkload(const Trace& tr) {
    DerivedWorkload d;
    auto add = [&](std::string k, std::string v, std::string basis, bool assumed = false) {
        d.figures.push_back({std::move(k), std::move(v), std::move(basis), assumed});
    };
    const Sessions ss = buildSessions(tr);
    const auto& sessions = ss.list;
    if (sessions.empty())
        throw InputError(tr.dir.string() + ": no data file was read in this trace (" + std::to_string(tr.events.size()) +
                         " events): expected reads of the job's data files (the filter rule: " + tr.header.rule.describe() + ")");

    // ---- processes: the training loop and its readers ----
    std::map<int, std::uint64_t> batchMarks;
    for (const auto& m : tr.marks)
        if (m.op == MarkOp::Batch) ++batchMarks[m.pid];
    int mainPid = 0;
    std::string mainBasis;
    std::set<int> readerPids;
    for (const auto& s : sessions) readerPids.insert(s.pid);
    if (!batchMarks.empty()) {
        mainPid = std::max_element(batchMarks.begin(), batchMarks.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
        mainBasis = "the process that wrote the step marks";
        // Processes whose every read lies outside the training loop (a launcher, a shim, a wrapper script
        // before the job; a tool after it) are not its readers.
        std::uint64_t loopStart = UINT64_MAX, loopEnd = 0;
        for (const auto& m : tr.marks)
            if (m.pid == mainPid) {
                loopStart = std::min(loopStart, m.t);
                loopEnd = std::max(loopEnd, m.t);
            }
        std::set<int> inLoop;
        for (const auto& s : sessions)
            if (s.tOpen <= loopEnd && s.tEnd >= loopStart) inLoop.insert(s.pid);
        inLoop.insert(mainPid);
        std::vector<int> outside;
        for (int pid : readerPids)
            if (!inLoop.count(pid)) outside.push_back(pid);
        if (!outside.empty()) {
            std::string pids;
            for (std::size_t i = 0; i < outside.size() && i < 8; ++i) pids += (i ? ", " : "") + std::to_string(outside[i]);
            if (outside.size() > 8) pids += ", …";
            d.notReaders = outside.size();
            d.notReadersText = std::to_string(outside.size()) + " process(es) read files only outside the training loop's steps "
                               "(a launcher or wrapper before the job, a tool after it; pid " + pids + "): not readers";
            for (int pid : outside) readerPids.erase(pid);
        }
    } else if (readerPids.size() == 1) {
        mainPid = *readerPids.begin();
        mainBasis = "the only process that read data files";
    } else if (readerPids.count(tr.header.jobPid)) {
        mainPid = tr.header.jobPid;
        mainBasis = "the job's own process (it read data files too)";
    } else {
        std::set<int> parents;
        for (const auto& p : tr.processes)
            if (readerPids.count(p.pid)) parents.insert(p.ppid);
        if (parents.size() == 1 && !readerPids.count(*parents.begin())) {
            mainPid = *parents.begin();
            mainBasis = "the parent of every process that read data files";
        } else {
            mainPid = sessions.front().pid;
            mainBasis = "the first process that read a data file (no marks, no common parent)";
        }
    }
    const bool hasWorkers = readerPids.size() > 1 || !readerPids.count(mainPid);
    d.stepsFromMarks = batchMarks.count(mainPid) > 0;

    // Reader threads: (pid, tid) of the readers (workers; the main process when it reads alone).
    struct Reader {
        std::uint64_t first = UINT64_MAX, last = 0;
        std::vector<std::size_t> sessions;
    };
    std::map<std::pair<int, std::uint32_t>, Reader> readers;
    for (std::size_t i = 0; i < sessions.size(); ++i) {
        const auto& s = sessions[i];
        if (hasWorkers && s.pid == mainPid) continue; // the loop's own reads beside its workers (metadata, …)
        if (!readerPids.count(s.pid)) continue;        // read only outside the loop
        Reader& r = readers[{s.pid, s.tid}];
        r.first = std::min(r.first, s.tOpen);
        r.last = std::max(r.last, s.tEnd);
        r.sessions.push_back(i);
    }
    {
        std::vector<std::pair<std::uint64_t, int>> edges;
        for (const auto& [id, r] : readers) {
            edges.emplace_back(r.first, +1);
            edges.emplace_back(r.last + 1, -1);
        }
        std::sort(edges.begin(), edges.end());
        int cur = 0, best = 0;
        for (const auto& [t, delta] : edges) best = std::max(best, cur += delta);
        d.readThreads = static_cast<std::uint64_t>(std::max(1, best));
    }
    // The training loop reading on its own main thread loads each batch when it asks for it (PyTorch's
    // DataLoader with num_workers 0, a plain loop): nothing is read ahead while it computes. Replayed with
    // read_threads 0 (DLIO's num_workers 0), not with a reader thread that would prefetch.
    d.synchronous = d.stepsFromMarks && !hasWorkers && !readers.empty() &&
                    std::all_of(readers.begin(), readers.end(), [&](const auto& r) {
                        return r.first.first == mainPid && static_cast<int>(r.first.second) == mainPid;
                    });
    std::set<int> workerPids;
    for (const auto& [id, r] : readers)
        if (id.first != mainPid) workerPids.insert(id.first);
    add("reader.read_threads", std::to_string(d.readThreads),
        hasWorkers ? std::to_string(workerPids.size()) + " worker process(es) read data, at most " + std::to_string(d.readThreads) +
                         " at once; the training loop is pid " + std::to_string(mainPid) + " (" + mainBasis + ")"
                   : "the training loop (pid " + std::to_string(mainPid) + ", " + mainBasis + ") read the data itself with " +
                         std::to_string(readers.size()) + " thread(s), at most " + std::to_string(d.readThreads) + " at once" +
                         (d.synchronous ? ": its main thread, between its requests and the batches' arrivals, so it loads each batch "
                                          "when it asks for it: read_threads 0 (DLIO's pytorch: DataLoader num_workers 0, no prefetch)"
                                        : ""));

    // ---- epochs: windows in time ----
    std::vector<std::pair<std::uint64_t, std::uint64_t>> windows;
    std::string epochBasis;
    bool epochsFromSessions = false;
    if (d.stepsFromMarks) {
        std::map<std::uint64_t, std::pair<std::uint64_t, std::uint64_t>> byEpoch;
        for (const auto& m : tr.marks) {
            if (m.pid != mainPid) continue;
            auto [it, added] = byEpoch.emplace(m.epoch, std::make_pair(m.t, m.t));
            it->second.first = std::min(it->second.first, m.t);
            it->second.second = std::max(it->second.second, m.t);
        }
        for (const auto& [e, w] : byEpoch) windows.push_back(w);
        epochBasis = std::to_string(windows.size()) + " trainio_capture.steps() loop(s) in pid " + std::to_string(mainPid);
    } else {
        // PyTorch starts new workers for every epoch (unless persistent_workers): generations of workers.
        std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
        std::map<int, std::pair<std::uint64_t, std::uint64_t>> byPid;
        for (const auto& [id, r] : readers) {
            auto [it, added] = byPid.emplace(id.first, std::make_pair(r.first, r.last));
            it->second.first = std::min(it->second.first, r.first);
            it->second.second = std::max(it->second.second, r.last);
        }
        for (const auto& [pid, w] : byPid) spans.push_back(w);
        std::sort(spans.begin(), spans.end());
        for (const auto& w : spans) {
            if (!windows.empty() && w.first <= windows.back().second) windows.back().second = std::max(windows.back().second, w.second);
            else windows.push_back(w);
        }
        if (hasWorkers && windows.size() > 1) {
            epochBasis = std::to_string(windows.size()) + " generations of worker processes (PyTorch starts new workers every epoch)";
        } else {
            windows.assign(1, {0, UINT64_MAX});
            epochsFromSessions = true;
        }
    }
    std::vector<std::vector<std::size_t>> inEpoch(windows.size());
    std::uint64_t outside = 0, loopOwn = 0;
    for (std::size_t i = 0; i < sessions.size(); ++i) {
        const auto& s = sessions[i];
        if (hasWorkers && s.pid == mainPid) { // the loop's own reads beside its workers: not samples
            ++loopOwn;
            continue;
        }
        if (!readerPids.count(s.pid)) { // a process that read only outside the loop
            ++outside;
            continue;
        }
        bool placed = false;
        for (std::size_t w = 0; w < windows.size() && !placed; ++w)
            if (s.tOpen >= windows[w].first && s.tOpen <= windows[w].second) {
                inEpoch[w].push_back(i);
                placed = true;
            }
        if (!placed) ++outside;
    }

    // ---- files and samples per file ----
    std::map<std::uint32_t, std::uint64_t> perFile;
    for (const auto& ep : inEpoch)
        for (std::size_t i : ep) ++perFile[sessions[i].file];
    if (perFile.empty())
        throw InputError(tr.dir.string() + ": no data file was read inside the training loop's steps (" +
                         std::to_string(sessions.size()) + " reads outside it)");
    std::vector<double> perFileCounts;
    for (const auto& [f, n] : perFile) {
        d.dataFiles.push_back(tr.paths[f]);
        perFileCounts.push_back(static_cast<double>(n));
    }
    std::sort(d.dataFiles.begin(), d.dataFiles.end());
    d.files = d.dataFiles.size();
    const double perFileMedian = median(perFileCounts);
    if (epochsFromSessions) {
        d.epochs = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(perFileMedian)));
        d.samplesPerFile = 1;
        epochBasis = "no step marks and no worker generations: each file was opened " + num(perFileMedian) +
                     " time(s) (median), read as one sample per file per epoch";
    } else {
        d.epochs = windows.size();
        d.samplesPerFile = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(perFileMedian / static_cast<double>(d.epochs))));
    }
    add("train.epochs", std::to_string(d.epochs), epochBasis, epochsFromSessions);
    add("dataset.num_files_train", std::to_string(d.files),
        "distinct data files read in the training loop (" + std::to_string(tr.paths.size()) + " data files opened in all)");
    add("dataset.num_samples_per_file", std::to_string(d.samplesPerFile),
        "each file was opened " + num(perFileMedian) + " time(s) (median) over " + std::to_string(d.epochs) +
            " epoch(s); one open-to-close session is one sample",
        true);
    for (const auto& ep : inEpoch) d.sessions += ep.size();
    const double samplesPerEpoch = static_cast<double>(d.sessions) / static_cast<double>(d.epochs);

    // ---- format, record size and transfer size ----
    std::string formatBasis;
    d.format = sniffFormat(d.dataFiles.front(), formatBasis);
    add("dataset.format", d.format, formatBasis);
    std::map<std::uint32_t, std::uint64_t> overhead;
    std::string overheadHow;
    for (const auto& [f, n] : perFile) {
        std::string how;
        overhead[f] = formatOverhead(tr.paths[f], d.format, how);
        if (overheadHow.empty()) overheadHow = how;
    }
    std::vector<double> distinct;
    std::uint64_t mappedSessions = 0, totalBytes = 0;
    double distinctSum = 0; // with the format's bytes

    for (const auto& ep : inEpoch)
        for (std::size_t i : ep) {
            const std::uint64_t got = sessions[i].distinct();
            distinctSum += static_cast<double>(got);
            const std::uint64_t head = overhead[sessions[i].file];
            distinct.push_back(static_cast<double>(got > head ? got - head : got));
            mappedSessions += sessions[i].mapped;
            totalBytes += sessions[i].bytes;
        }
    d.recordMean = mean(distinct);
    d.recordStdev = stdev(distinct);
    add("dataset.record_length_bytes", num(d.recordMean, 10),
        "mean of the distinct bytes each of " + std::to_string(distinct.size()) + " samples read (" + num(static_cast<double>(totalBytes), 10) +
            " bytes read in all, " + num(100.0 * (static_cast<double>(totalBytes) / std::max(1.0, distinctSum) - 1), 3) +
            " % of them read twice), less the format's own bytes" +
            (overheadHow.empty() ? std::string(" (none known for ") + d.format + ")" : ": " + overheadHow));
    add("dataset.record_length_bytes_stdev", num(d.recordStdev, 8), "population stdev over the same samples");
    d.mmap = mappedSessions * 2 > distinct.size();
    if (!ss.readSizes.empty()) {
        std::vector<std::uint64_t> sizes = ss.readSizes;
        std::sort(sizes.begin(), sizes.end());
        std::uint64_t all = 0;
        for (auto s : sizes) all += s;
        std::uint64_t acc = 0;
        for (auto s : sizes)
            if ((acc += s) * 2 >= all) {
                d.transferSize = s;
                break;
            }
        add("reader.transfer_size", std::to_string(d.transferSize),
            "the read() size that carries half of the " + std::to_string(sizes.size()) + " reads' bytes (byte-weighted median; smallest " +
                std::to_string(sizes.front()) + ", largest " + std::to_string(sizes.back()) + ")");
    } else {
        d.transferSize = 262144;
        add("reader.transfer_size", "262144", "no read() calls (the data was mapped): TrainIO's default", true);
    }
    if (d.mmap)
        add("trainio.io_engine", "mmap", std::to_string(mappedSessions) + " of " + std::to_string(distinct.size()) +
                                             " samples were mapped (mmap), not read: the mapped length counts as read");

    // ---- format and names ----
    const DlioNames names = matchDlioNames(d.dataFiles, d.format);
    d.dlioNames = names.match;

    // ---- steps, batch size, compute time, the job's own AU ----
    std::vector<double> compute, waits;
    std::vector<double> auPerEpoch;
    std::vector<std::pair<double, double>> rateParts;
    std::map<std::int64_t, std::uint64_t> sizeVotes;
    std::uint64_t steps = 0;
    if (d.stepsFromMarks) {
        std::map<std::uint64_t, std::vector<const Mark*>> byEpoch;
        for (const auto& m : tr.marks)
            if (m.pid == mainPid && (m.op == MarkOp::Ask || m.op == MarkOp::Batch)) byEpoch[m.epoch].push_back(&m);
        for (const auto& [e, ms] : byEpoch) {
            std::vector<double> c, w;
            for (std::size_t i = 0; i < ms.size(); ++i) {
                if (ms[i]->op != MarkOp::Batch) continue;
                if (ms[i]->size > 0) ++sizeVotes[ms[i]->size];
                if (i > 0 && ms[i - 1]->op == MarkOp::Ask) w.push_back(static_cast<double>(ms[i]->t - ms[i - 1]->t) * 1e-9);
                else w.push_back(0);
                if (i + 1 < ms.size() && ms[i + 1]->op == MarkOp::Ask) c.push_back(static_cast<double>(ms[i + 1]->t - ms[i]->t) * 1e-9);
                else c.push_back(0);
            }
            steps += c.size();
            compute.insert(compute.end(), c.begin(), c.end());
            waits.insert(waits.end(), w.begin(), w.end());
            if (c.size() >= 3) { // DLIO ≥ 2: the first step of the epoch is left out
                double sc = 0, sp = 0;
                for (std::size_t k = 1; k < c.size(); ++k) {
                    sc += c[k];
                    sp += c[k] + w[k];
                }
                if (sp > 0) {
                    auPerEpoch.push_back(100.0 * sc / sp);
                    rateParts.emplace_back(static_cast<double>(c.size()) - 2, sp);
                }
            }
        }
        d.stepsPerEpoch = steps / std::max<std::uint64_t>(1, byEpoch.size());
        if (!sizeVotes.empty()) {
            d.batchSize = static_cast<std::uint64_t>(
                std::max_element(sizeVotes.begin(), sizeVotes.end(), [](auto& a, auto& b) { return a.second < b.second; })->first);
            add("reader.batch_size", std::to_string(d.batchSize),
                "the size of " + std::to_string(sizeVotes[static_cast<std::int64_t>(d.batchSize)]) + " of " + std::to_string(steps) +
                    " batches as trainio_capture.steps saw them (samples read per step: " +
                    num(samplesPerEpoch / std::max(1.0, static_cast<double>(d.stepsPerEpoch))) + ")");
        } else {
            d.batchSize = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(samplesPerEpoch / std::max(1.0, static_cast<double>(d.stepsPerEpoch)))));
            add("reader.batch_size", std::to_string(d.batchSize),
                num(samplesPerEpoch) + " samples read per epoch over " + std::to_string(d.stepsPerEpoch) + " steps");
        }
        d.computeMean = mean(compute);
        d.computeStdev = stdev(compute);
        add("train.computation_time", timeText(timeOf(d.computeMean, d.computeStdev)),
            std::to_string(compute.size()) + " steps: from each batch's arrival to the next request (the step marks); "
            "mean " + ms(d.computeMean) + ", stdev " + ms(d.computeStdev) + ", median " + ms(median(compute)) +
            "; the data waits (request to arrival) were mean " + ms(mean(waits)) + ", median " + ms(median(waits)));
    } else {
        // Inferred from the readers: a reader that finishes a batch waits for the next request, so the
        // long gaps between its session starts cut its sessions into batches.
        std::vector<double> clusterSizes, periods;
        for (const auto& [id, r] : readers) {
            std::vector<double> gaps;
            for (std::size_t k = 1; k < r.sessions.size(); ++k)
                gaps.push_back(static_cast<double>(sessions[r.sessions[k]].tOpen - sessions[r.sessions[k - 1]].tOpen));
            if (gaps.size() < 4) continue;
            const double cut = std::max(4 * median(gaps), 1e6);
            std::size_t run = 1;
            std::uint64_t lastStart = sessions[r.sessions[0]].tOpen;
            for (std::size_t k = 0; k < gaps.size(); ++k) {
                if (gaps[k] > cut) {
                    clusterSizes.push_back(static_cast<double>(run));
                    const std::uint64_t start = sessions[r.sessions[k + 1]].tOpen;
                    periods.push_back(static_cast<double>(start - lastStart) * 1e-9);
                    lastStart = start;
                    run = 1;
                } else {
                    ++run;
                }
            }
        }
        if (clusterSizes.size() >= 3) {
            d.batchSize = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(median(clusterSizes))));
            const double stepTime = median(periods) / static_cast<double>(std::max<std::uint64_t>(1, d.readThreads));
            d.computeMean = stepTime;
            add("reader.batch_size", std::to_string(d.batchSize),
                "inferred (no step marks): the readers' sessions come in bursts of " + num(median(clusterSizes)) +
                    " (median of " + std::to_string(clusterSizes.size()) + " bursts separated by idle gaps)",
                true);
            add("train.computation_time", num(stepTime, 5) + " s",
                "inferred (no step marks): a reader's bursts come every " + ms(median(periods)) + " (median), shared by " +
                    std::to_string(d.readThreads) + " reader(s): the step time, all of it taken as compute (an upper bound)",
                true);
        } else {
            d.batchSize = 1;
            add("reader.batch_size", "1", "not inferable without step marks (the readers never waited): assumed 1", true);
            add("train.computation_time", "0 s", "not inferable without step marks: assumed 0", true);
        }
        d.stepsPerEpoch = static_cast<std::uint64_t>(samplesPerEpoch / static_cast<double>(d.batchSize));
    }
    if (!auPerEpoch.empty()) {
        d.jobAuPercent = mean(auPerEpoch);
        double rate = 0;
        for (const auto& [s, t] : rateParts) rate += s / t * static_cast<double>(d.batchSize);
        d.jobSamplesPerSecond = rate / static_cast<double>(rateParts.size());
    } else {
        d.jobAuPercent = kNaN;
        d.jobSamplesPerSecond = kNaN;
    }

    // ---- per-sample time in the readers (reader.preprocess_time), and the collation per batch ----
    // Within a batch, a reader's time from a sample's open to the next one's, less the time inside I/O
    // calls, is its per-sample work as the wall clock saw it: CPU time and, on a machine whose cores the
    // job oversubscribes, the time it waited for a core. Across a batch boundary the gap also holds the
    // collation, the hand-over and any idle wait for the next request: only the reader's CPU clock tells
    // them apart (a reader that idles spends no CPU), so the collation is that gap's CPU less a sample's.
    std::vector<double> busy, busyCpu, boundaryCpu;
    std::vector<double> busyWait, boundaryRun; // waiting for a core; running or waiting for a core
    std::vector<double> busyBlocked;           // neither running nor waiting for a core (a sleep, a lock, a page fault)
    std::vector<double> busyWork;              // CPU outside the I/O calls: what the replay's reader runs (its own reads cost their own)
    for (const auto& ep : inEpoch) {
        std::map<std::pair<int, std::uint32_t>, std::vector<std::size_t>> byReader;
        for (std::size_t i : ep)
            if (!(hasWorkers && sessions[i].pid == mainPid)) byReader[{sessions[i].pid, sessions[i].tid}].push_back(i);
        for (const auto& [id, list] : byReader)
            for (std::size_t k = 0; k + 1 < list.size(); ++k) {
                const Session& a = sessions[list[k]];
                const Session& b = sessions[list[k + 1]];
                const bool cpuKnown = a.cpuAtOpen > 0 && b.cpuAtOpen >= a.cpuAtOpen;
                const double cpu = cpuKnown ? static_cast<double>(b.cpuAtOpen - a.cpuAtOpen) * 1e-9 : 0;
                const bool waitKnown = cpuKnown && a.waitAtOpen > 0 && b.waitAtOpen >= a.waitAtOpen;
                const double wait = waitKnown ? static_cast<double>(b.waitAtOpen - a.waitAtOpen) * 1e-9 : 0;
                // A reader's first batch of an epoch holds its start-up (PyTorch starts its workers anew every
                // epoch: imports, first allocations): not a sample's work, left out when there are later batches.
                if (k < d.batchSize && list.size() >= 2 * d.batchSize) continue;
                if ((k + 1) % d.batchSize == 0) { // the batch's last sample: its collation and hand-over follow
                    if (cpuKnown) boundaryCpu.push_back(cpu);
                    if (waitKnown) boundaryRun.push_back(cpu + wait);
                    continue;
                }
                const double gap = static_cast<double>(b.tOpen - a.tOpen) - static_cast<double>(a.ioNs);
                busy.push_back(std::max(0.0, gap) * 1e-9);
                if (cpuKnown) busyCpu.push_back(cpu);
                if (waitKnown) busyWait.push_back(wait);
                // The CPU outside the I/O calls: after the close (decode, transforms), and inside the session less
                // its I/O calls' time (a parse between reads; on page-cache reads those calls are CPU themselves).
                // Without the close's CPU clock (older traces) all of it: the replay's reads then count twice.
                const bool closeKnown = cpuKnown && a.cpuAtClose >= a.cpuAtOpen && b.cpuAtOpen >= a.cpuAtClose;
                const double work = closeKnown ? static_cast<double>(b.cpuAtOpen - a.cpuAtClose) * 1e-9 +
                                                     std::max(0.0, static_cast<double>(a.cpuAtClose - a.cpuAtOpen) - static_cast<double>(a.ioNs)) * 1e-9
                                               : cpu;
                if (waitKnown) busyWork.push_back(work);
                if (waitKnown) busyBlocked.push_back(std::max(0.0, gap * 1e-9 - wait - work));
            }
    }
    if (busy.size() >= 2) {
        d.preprocessMean = mean(busy);
        d.preprocessStdev = stdev(busy);
    }
    // CPU vs waiting: the share of a sample's wall time the reader ran on a core.
    const bool cpuSeen = busyCpu.size() >= 2 && busyCpu.size() == busy.size();
    if (cpuSeen) {
        d.preprocessCpuMean = mean(busyCpu);
        // The collation: a boundary gap's CPU less a sample's, in wall time at the readers' own CPU share.
        const bool waitSeen = busyWait.size() == busyCpu.size() && !boundaryRun.empty() && boundaryRun.size() == boundaryCpu.size();
        if (waitSeen) d.preprocessWaitMean = mean(busyWait);
        if (!d.synchronous && waitSeen) {
            // The CPU and the rest told apart: the replay's readers run the CPU on a core (waiting for one as
            // the job's did when they outnumber the cores, and only then) and sleep the rest. The collation is
            // CPU: a boundary's less a sample's.
            d.cpuBurned = true;
            d.preprocessBlockedMean = mean(busyBlocked);
            d.preprocessWorkMean = mean(busyWork);
            d.collateMean = std::max(0.0, mean(boundaryCpu) - d.preprocessCpuMean);
        } else if (!d.synchronous && !boundaryCpu.empty() && d.preprocessCpuMean > 0) {
            const double collateCpu = std::max(0.0, mean(boundaryCpu) - d.preprocessCpuMean);
            const double share = d.preprocessMean > 0 ? std::min(1.0, d.preprocessCpuMean / d.preprocessMean) : 1.0;
            d.collateMean = share > 0 ? collateCpu / share : collateCpu;
        }
    }
    // A loop that loads its batches itself computes between them on the same thread: its CPU between a
    // batch's last sample and the next batch holds the compute too. Its collation is read from the marks
    // instead: from the batch's last sample (its own work, a sample's mean, done) to the batch's arrival.
    if (d.synchronous && busy.size() >= 2) {
        std::vector<std::uint64_t> opens; // the loop's sample opens, by time
        std::vector<std::size_t> which;
        for (std::size_t i = 0; i < sessions.size(); ++i)
            if (sessions[i].pid == mainPid) {
                opens.push_back(sessions[i].tOpen);
                which.push_back(i);
            }
        std::vector<double> collate;
        for (const auto& m : tr.marks) {
            if (m.pid != mainPid || m.op != MarkOp::Batch) continue;
            const auto it = std::lower_bound(opens.begin(), opens.end(), m.t);
            if (it == opens.begin()) continue;
            const Session& last = sessions[which[static_cast<std::size_t>(it - opens.begin()) - 1]];
            const double after = static_cast<double>(m.t - last.tOpen) * 1e-9 - static_cast<double>(last.ioNs) * 1e-9;
            collate.push_back(std::max(0.0, after - d.preprocessMean));
        }
        if (!collate.empty()) d.collateMean = median(collate);
    }
    // The engine has no collation step of its own: a batch's collation is spread over its samples (the
    // same time per batch in the readers; with the readers binding, the same batches per second).
    const double perSampleCollate = d.collateMean / static_cast<double>(d.batchSize);
    const ComputeTime preprocess = d.cpuBurned ? timeOf(d.preprocessBlockedMean, stdev(busyBlocked))
                                               : timeOf(d.preprocessMean + perSampleCollate, d.preprocessStdev);
    const ComputeTime preprocessCpu = d.cpuBurned ? timeOf(d.preprocessWorkMean + perSampleCollate, stdev(busyWork)) : ComputeTime{};
    std::string preBasis =
        busy.size() >= 2
            ? std::to_string(busy.size()) + " samples: a reader's time from a sample's open to its next sample's open in the same "
              "batch, less the time inside open/read/close: mean " + ms(d.preprocessMean) + ", stdev " + ms(d.preprocessStdev) +
              ", median " + ms(median(busy)) + " (the batch's last sample is left out: its collation and hand-over follow it)"
            : "too few samples in a batch to tell (batch size " + std::to_string(d.batchSize) + "): 0";
    if (d.cpuBurned)
        preBasis += "; of it the readers' CPU clock " + ms(d.preprocessCpuMean) + " a sample (" + ms(d.preprocessWorkMean) +
                    " outside the I/O calls), waiting for a core " +
                    ms(d.preprocessWaitMean) + ", neither (blocked or asleep) " + ms(d.preprocessBlockedMean) +
                    ": the replay's readers sleep the last (this key) and run the CPU on a core (trainio.preprocess_cpu_time), "
                    "so they wait for a core as the job's did where they outnumber the cores, and only there";
    else if (cpuSeen)
        preBasis += "; of it the readers' CPU clock " + ms(d.preprocessCpuMean) + " a sample (" +
                    num(d.preprocessMean > 0 ? 100 * d.preprocessCpuMean / d.preprocessMean : 100, 3) + " %)" +
                    (d.preprocessWaitMean > 0 ? ", waiting for a core " + ms(d.preprocessWaitMean) : std::string(", the rest waiting")) +
                    ": the replay's readers sleep the whole wall time, so the job's contention is replayed once (a sleeping "
                    "reader adds none); plus the collation, " + ms(d.collateMean) + " a batch (" +
                    (d.synchronous ? "from the batch's last sample to its arrival in the loop, less a sample's work"
                                   : d.preprocessWaitMean > 0 ? "a reader's time running or waiting for a core between a batch's last "
                                                                "sample and the next batch, less a sample's"
                                                              : "the CPU between a batch's last sample and the next batch, less a "
                                                                "sample's, at the same CPU share") +
                    ") spread over its " + std::to_string(d.batchSize) + " samples";
    else
        preBasis += "; the trace has no CPU clock (an older interposer): no collation time could be told from idle waits";
    add("reader.preprocess_time", timeText(preprocess), preBasis, true);
    if (d.cpuBurned)
        add("trainio.preprocess_cpu_time", timeText(preprocessCpu),
            std::to_string(busyWork.size()) + " samples: a reader's CPU clock from a sample's open to its next sample's open in the "
            "same batch, outside the I/O calls (the replay's reads cost their own): mean " + ms(d.preprocessWorkMean) + ", stdev " +
            ms(stdev(busyWork)) + "; plus the collation, " +
            ms(d.collateMean) + " of CPU a batch (between a batch's last sample and the next batch, less a sample's), spread "
            "over its " + std::to_string(d.batchSize) + " samples; run on a core by the replay's readers after each read");

    // ---- the batch hand-over in the loop (trainio.handover_time, batch_handover.h) ----
    ComputeTime handover;
    if (d.stepsFromMarks && hasWorkers && !d.synchronous) {
        // Also tells whether the workers built whole batches in turn (batch k by worker k mod W).
        std::map<int, std::uint64_t> started; // reader processes in the order they were started
        for (const auto& p : tr.processes) started[p.pid] = p.t;
        std::map<std::uint64_t, HandoverEpoch> byEpoch;
        for (const auto& m : tr.marks) {
            if (m.pid != mainPid || (m.op != MarkOp::Ask && m.op != MarkOp::Batch)) continue;
            auto& v = m.op == MarkOp::Ask ? byEpoch[m.epoch].ask : byEpoch[m.epoch].arrival;
            if (v.size() <= m.step) v.resize(m.step + 1, 0);
            v[m.step] = m.t;
        }
        std::vector<HandoverEpoch> epochs;
        std::size_t w = 0;
        for (auto& [e, he] : byEpoch) {
            if (w >= inEpoch.size()) break;
            std::map<std::tuple<std::uint64_t, int, std::uint32_t>, std::vector<std::size_t>> byReader;
            for (std::size_t i : inEpoch[w]) byReader[{started[sessions[i].pid], sessions[i].pid, sessions[i].tid}].push_back(i);
            for (const auto& [id, list] : byReader) {
                auto& ends = he.batchEnds.emplace_back();
                for (std::size_t k = 0; k + d.batchSize <= list.size(); k += d.batchSize) {
                    HandoverEpoch::BatchEnd end;
                    for (std::size_t j = k; j < k + d.batchSize; ++j) end.closed = std::max(end.closed, sessions[list[j]].tEnd);
                    const Session& last = sessions[list[k + d.batchSize - 1]];
                    end.done = std::max(end.closed, last.tOpen + last.ioNs + static_cast<std::uint64_t>(d.preprocessMean * 1e9));
                    ends.push_back(end);
                }
            }
            epochs.push_back(std::move(he));
            ++w;
        }
        const HandoverEstimate h = estimateHandover(epochs, d.collateMean);
        d.wholeBatches = h.usable && d.readThreads > 1;
        if (h.usable) {
            d.handoverMean = mean(h.seconds);
            d.handoverStdev = stdev(h.seconds);
            handover = timeOf(d.handoverMean, d.handoverStdev);
        }
        add("trainio.handover_time", h.usable ? timeText(handover) : "0",
            h.basis + (h.usable ? ": mean " + ms(d.handoverMean) + ", stdev " + ms(d.handoverStdev) + ", median " +
                                      ms(median(h.seconds)) + "; the replay's loop sleeps it after taking each batch, as waiting for data"
                                : std::string(": none replayed")),
            !h.usable);
    }

    // ---- shuffle: does each reader read the files in their sorted order? ----
    std::map<std::uint32_t, std::size_t> rank;
    {
        std::vector<std::pair<std::string, std::uint32_t>> byName;
        for (const auto& [f, n] : perFile) byName.emplace_back(tr.paths[f], f);
        std::sort(byName.begin(), byName.end());
        for (std::size_t i = 0; i < byName.size(); ++i) rank[byName[i].second] = i;
    }
    std::uint64_t pairs = 0, rising = 0;
    for (const auto& ep : inEpoch) {
        std::map<std::pair<int, std::uint32_t>, std::vector<std::size_t>> byReader;
        for (std::size_t i : ep) byReader[{sessions[i].pid, sessions[i].tid}].push_back(rank[sessions[i].file]);
        for (const auto& [id, seq] : byReader)
            for (std::size_t k = 1; k < seq.size(); ++k) {
                ++pairs;
                rising += seq[k] >= seq[k - 1];
            }
    }
    d.shuffled = pairs >= 3 && static_cast<double>(rising) < 0.9 * static_cast<double>(pairs);
    add("reader.sample_shuffle", d.shuffled ? "seed" : "off",
        std::to_string(rising) + " of " + std::to_string(pairs) + " consecutive reads of a reader went to a later file in name order" +
            (d.shuffled ? ": shuffled (seed: a reproducible shuffle, a new order every epoch, as the job's sampler)" : ": in order"));

    // ---- the workload ----
    WorkloadConfig c = dlioDefaultConfig();
    c.model.name = "captured";
    c.framework = "pytorch";
    c.workflow.generateData = false;
    c.workflow.train = true;
    c.workflow.checkpoint = false;
    c.dataset.format = formatFromName(d.format).value_or(DataFormat::Raw);
    c.dataset.numFilesTrain = d.files;
    c.dataset.numSamplesPerFile = d.samplesPerFile;
    c.dataset.recordLength = std::max(1.0, std::round(d.recordMean));
    c.dataset.recordLengthStdev = std::round(d.recordStdev);
    if (names.match) {
        c.dataset.dataFolder = names.root;
        c.dataset.filePrefix = names.prefix;
        c.dataset.numSubfoldersTrain = names.subfolders;
        add("dataset.data_folder", names.root,
            "the job's files follow DLIO's names (" + names.prefix + "_<i>_of_" + std::to_string(names.total) +
                "): the workload replays on them where they are");
    } else {
        c.dataset.dataFolder = "./trainio-replay-data/";
        add("trainio.file_list", "the " + std::to_string(d.files) + " files the job read",
            "the job's files do not follow DLIO's names (e.g. " + d.dataFiles.front() +
                "): the workload replays on them where they are through a file list (one path a line, in name "
                "order), written beside the workload");
        add("dataset.data_folder", c.dataset.dataFolder,
            "where datagen writes a dataset of the same shape for another storage (clear trainio.file_list for it)", true);
    }
    if (names.match) {
        // A folder TrainIO generated records its generation parameters: run's pre-flight holds the
        // workload to them. The record size observed from the reads differs by a few bytes of headers
        // (and the sizes drawn with a stdev differ from their configured mean): the marker's values are
        // the dataset's own, so they are used, each reported beside what was observed.
        if (auto mism = datasetMarkerMismatches(c, MarkerUse::Read)) {
            static const std::set<std::string> adoptable = {"dataset.record_length_bytes", "dataset.record_length_bytes_stdev",
                                                            "dataset.record_element_type", "train.seed"};
            for (const auto& m : *mism) {
                const config_keys::KeyDef* k = config_keys::find(m.key);
                if (!k || !k->field || !adoptable.count(m.key)) {
                    add(m.key, m.configured, "observed; the folder's TrainIO marker says " + m.generated + ": run will refuse it", true);
                    continue;
                }
                if (k->type == config_keys::Type::Choice || k->type == config_keys::Type::Text) k->field.set(c, config_keys::Value(m.generated));
                else if (k->type == config_keys::Type::Whole) k->field.set(c, config_keys::Value(static_cast<std::uint64_t>(std::strtoull(m.generated.c_str(), nullptr, 10))));
                else k->field.set(c, config_keys::Value(std::strtod(m.generated.c_str(), nullptr)));
                add(m.key, m.generated, "from the folder's TrainIO marker (" + std::string(kDatasetMarkerName) + "), the parameters its files were generated with; observed " + m.configured);
            }
        }
    }
    c.reader.dataLoader = "pytorch";
    c.reader.batchSize = d.batchSize;
    c.reader.readThreads = d.synchronous ? 0 : d.readThreads;
    c.reader.prefetchSize = d.synchronous ? 0 : 2 * d.readThreads;
    c.trainio.wholeBatches = d.wholeBatches;
    if (d.wholeBatches)
        add("trainio.whole_batches", "true",
            "each batch's samples were read by one worker, batch k by worker k mod " + std::to_string(d.readThreads) +
                " (PyTorch's DataLoader): the replay's readers build whole batches in the same turn");
    if (d.synchronous)
        add("reader.prefetch_size", "0", "the training loop loads each batch itself when it asks for it: nothing ahead");
    else
        add("reader.prefetch_size", std::to_string(c.reader.prefetchSize),
            "PyTorch's default prefetch_factor 2 per worker (not visible in the I/O)", true);
    c.reader.fileShuffle = d.shuffled ? ShuffleMode::Seed : ShuffleMode::Off;
    c.reader.sampleShuffle = d.shuffled ? ShuffleMode::Seed : ShuffleMode::Off;
    c.reader.transferSize = d.transferSize;
    c.reader.preprocessTime = preprocess;
    c.trainio.preprocessCpuTime = preprocessCpu;
    c.trainio.handoverTime = handover;
    c.train.epochs = d.epochs;
    c.train.computationTime = timeOf(d.computeMean, d.computeStdev);
    if (d.mmap) c.trainio.ioEngine = "mmap";
    // Where it came from and the job's own figures: a replay's result folder carries them (docs/capture.md).
    std::error_code absEc;
    c.trainio.capturedJob.trace = fs::absolute(tr.dir, absEc).lexically_normal().string();
    c.trainio.capturedJob.steps = d.stepsFromMarks ? "marks" : "inferred";
    if (!std::isnan(d.jobAuPercent)) {
        c.trainio.capturedJob.auPercent = d.jobAuPercent;
        c.trainio.capturedJob.samplesPerSecond = d.jobSamplesPerSecond;
    }
    // The trace-decided keys as derived, at the job's scale (one training process, one accelerator): a replay
    // edited since (another batch, other readers, more accelerators) is shown without the job beside it.
    c.trainio.capturedJob.derived = derivedFingerprint(c, 1);
    d.config = c;

    // ---- the report ----
    // What the trace holds, line by line (the report's head; the GUI shows them above the figures).
    {
        auto& o = d.observations;
        std::string job = "Job:";
        for (const auto& a : tr.header.command) job += " " + a;
        job += " (exit code " + std::to_string(tr.header.exitCode) + ", " +
               (tr.header.endNs > tr.header.startNs ? num(static_cast<double>(tr.header.endNs - tr.header.startNs) * 1e-9) + " s"
                                                    : std::string("still running")) + ")";
        o.push_back(job);
        o.push_back("Observed: " + std::to_string(tr.events.size()) + " I/O events of " + std::to_string(readerPids.size()) +
                    " process(es) on " + std::to_string(tr.paths.size()) + " data file(s); " + std::to_string(d.sessions) +
                    " samples read in " + std::to_string(d.epochs) + " epoch(s)" +
                    (outside ? ", " + std::to_string(outside) + " outside the training loop (left out)" : std::string()) +
                    (loopOwn ? ", " + std::to_string(loopOwn) + " by the training loop's own process beside its workers (left out)"
                             : std::string()) +
                    "; " + std::to_string(tr.marks.size()) + " step marks" +
                    (ss.strayReads ? "; " + std::to_string(ss.strayReads) + " reads on descriptors whose open was not seen (left out)"
                                   : std::string()));
        if (!d.notReadersText.empty()) o.push_back("Not readers: " + d.notReadersText);
        o.push_back("Steps: " + (d.stepsFromMarks ? "from the trainio_capture.steps marks (" + std::to_string(steps) + " steps)"
                                                  : std::string("inferred from the readers' pattern: the job has no trainio_capture.steps marks") +
                                                        (tr.header.pythonMarks ? "" : " (captured with --no-python)")));
        o.push_back("Filter rule: " + (tr.header.rule.prefixes.empty() ? std::string("(not recorded)") : tr.header.rule.describe()));
    }
    std::ostringstream r;
    r << "Workload derived from the trace " << tr.dir.string() << "\n";
    for (const auto& line : d.observations) r << line << "\n";
    r << "\n";
    r << "Derived values (observed unless marked assumed):\n";
    for (const auto& f : d.figures)
        r << "  " << f.key << " = " << f.value << (f.assumed ? "   [assumed]" : "") << "\n      " << f.basis << "\n";
    r << "\nThe job's own figures (DLIO >= 2 semantics, first step of each epoch left out):\n";
    if (std::isnan(d.jobAuPercent)) {
        r << "  AU and samples/s: unknown without step marks\n";
    } else {
        r << "  AU " << num(d.jobAuPercent, 4) << " %  (compute / step time, per epoch:";
        for (double a : auPerEpoch) r << " " << num(a, 4);
        r << ")\n  throughput " << num(d.jobSamplesPerSecond, 5) << " samples/s\n";
    }
    r << "\nReplay:\n";
    r << "  on the job's own files: trainio-cli run --config W.yaml --output RUN_DIR"
      << (names.match ? " (data_folder is the job's folder)\n" : " (trainio.file_list lists them: W.files.txt beside W.yaml)\n");
    r << "  on another storage: trainio-cli datagen --config W.yaml " << (names.match ? "" : "++workload.trainio.file_list= ")
      << "++workload.dataset.data_folder=DIR, then run with the same override" << (names.match ? "" : "s") << "\n";
    d.report = r.str();
    d.summary = d.format + ", " + std::to_string(d.files) + " files, " + std::to_string(std::llround(d.recordMean)) + " B/sample, batch " +
                std::to_string(d.batchSize) + ", " + std::to_string(d.readThreads) + " reader(s), compute " + ms(d.computeMean) +
                "/step, preprocess " + ms(d.preprocessMean) + "/sample" + (d.stepsFromMarks ? "" : ", steps inferred");
    return d;
}

} // namespace trainio::trace
