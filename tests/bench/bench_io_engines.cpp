// The I/O engines against fio with the same engine, block size, depth and threads on the same files
// (issue 10 target: odirect and io_uring >= 0.95 x fio). Measured, not asserted:
//   cmake --preset release -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
//   cmake --build --preset release --target bench_io_engines
//   build/release/tests/bench/bench_io_engines [--dir D] [--files N] [--file-mib M] [--bs BYTES]
//        [--depth D] [--threads T] [--repeat R] [--engines posix,odirect,mmap,io_uring]
//
// Files: N files of M MiB in D (created with random bytes when absent; default 16 x 128 MiB = 2 GiB in
// /var/tmp/trainio-bench-io: put D on the disk you measure, not on a tmpfs). Thread t reads files t,
// t+T, ... whole, front to back. TrainIO's side:
//   posix, odirect, mmap   pread(bs) in a loop per file (what the sample reader does per transfer)
//   io_uring               one pread per file: the engine splits it into bs requests, depth in flight
// fio's side, one job per thread with the same files (file_service_type=sequential, invalidate=0):
//   posix -> psync   odirect -> psync direct=1   mmap -> mmap   io_uring -> io_uring direct=1 iodepth=D
// posix and mmap read page-cached data (a warm-up pass reads every file first) 4 times per run (fio
// loops=4); odirect and io_uring read the device once. Throughput is fio's group_reporting formula on
// both sides: all bytes over the longest job's (thread's) run time. Each repeat runs TrainIO and fio back to
// back (alternating which goes first) and gives one paired ratio: on a shared machine the pairs see the same
// neighbours, so the median of the paired ratios is the figure to read; the table also gives each side's
// median and range.
#include "io/aligned_buffer.h"
#include "io/io_engines.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace trainio;
namespace fs = std::filesystem;

namespace {

struct Args {
    fs::path dir = "/var/tmp/trainio-bench-io";
    unsigned files = 16;
    std::uint64_t fileMiB = 128;
    std::size_t bs = 262144;
    unsigned depth = 32;
    unsigned threads = 2;
    unsigned repeat = 3;
    std::vector<IoEngine> engines{IoEngine::Posix, IoEngine::ODirect, IoEngine::Mmap, IoEngine::IoUring};
};

[[noreturn]] void usage(const char* why) {
    std::fprintf(
        stderr,
        "bench_io_engines: %s\nusage: bench_io_engines [--dir D] [--files N] [--file-mib M] [--bs BYTES] "
        "[--depth D] [--threads T] [--repeat R] [--engines posix,odirect,mmap,io_uring]\n",
        why);
    std::exit(2);
}

std::uint64_t number(const char* key, const char* text) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(text, &end, 10);
    if (errno || !end || *end || v == 0 || text[0] == '-')
        usage((std::string(key) + " needs a positive integer, got '" + text + "'").c_str());
    return v;
}

Args parse(int argc, char** argv) {
    Args a;
    for (int i = 1; i < argc; ++i) {
        const std::string k = argv[i];
        if (i + 1 >= argc) usage((k + " needs a value").c_str());
        const char* v = argv[++i];
        if (k == "--dir")
            a.dir = v;
        else if (k == "--files")
            a.files = static_cast<unsigned>(number("--files", v));
        else if (k == "--file-mib")
            a.fileMiB = number("--file-mib", v);
        else if (k == "--bs")
            a.bs = number("--bs", v);
        else if (k == "--depth")
            a.depth = static_cast<unsigned>(number("--depth", v));
        else if (k == "--threads")
            a.threads = static_cast<unsigned>(number("--threads", v));
        else if (k == "--repeat")
            a.repeat = static_cast<unsigned>(number("--repeat", v));
        else if (k == "--engines") {
            a.engines.clear();
            std::string list = v;
            for (std::size_t p = 0; p <= list.size();) {
                const std::size_t q = std::min(list.find(',', p), list.size());
                try {
                    a.engines.push_back(parseIoEngine(list.substr(p, q - p), "--engines"));
                } catch (const std::exception& e) {
                    usage(e.what());
                }
                p = q + 1;
            }
        } else
            usage(("unknown option " + k).c_str());
    }
    if (a.bs % 4096 != 0) usage("--bs must be a multiple of 4096 (O_DIRECT transfers)");
    return a;
}

std::vector<std::string> ensureFiles(const Args& a) {
    fs::create_directories(a.dir);
    std::vector<std::string> files;
    const std::uint64_t bytes = a.fileMiB << 20;
    std::vector<std::uint64_t> block(1 << 17); // 1 MiB
    std::mt19937_64 rng(42);
    for (unsigned i = 0; i < a.files; ++i) {
        const fs::path p = a.dir / ("io-bench-" + std::to_string(i) + ".bin");
        files.push_back(p.string());
        std::error_code ec;
        if (fs::file_size(p, ec) == bytes && !ec) continue;
        std::ofstream out(p, std::ios::binary | std::ios::trunc);
        for (std::uint64_t done = 0; done < bytes; done += 1 << 20) {
            for (auto& w : block)
                w = rng();
            out.write(reinterpret_cast<const char*>(block.data()), 1 << 20);
        }
        if (!out) {
            std::fprintf(stderr, "bench_io_engines: cannot write %s\n", p.c_str());
            std::exit(1);
        }
    }
    return files;
}

// Page-cached engines read the files this many times per measurement (fio: loops=), so that a run
// lasts long enough on a busy machine; the device-bound ones once.
unsigned passes(IoEngine e) {
    return e == IoEngine::Posix || e == IoEngine::Mmap ? 4 : 1;
}

// Reads every file passes(engine) times with `threads` threads. MiB/s as fio computes it with
// group_reporting: all bytes over the longest thread's run time (its opens included).
double trainioMiBps(IoEngineBackend& io, IoEngine engine, const std::vector<std::string>& files,
                    const Args& a) {
    std::atomic<std::uint64_t> total{0};
    std::atomic<bool> failed{false};
    std::vector<double> seconds(a.threads, 0.0);
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < a.threads; ++t) {
        threads.emplace_back([&, t] {
            AlignedBuffer buf(engine == IoEngine::IoUring ? (a.fileMiB << 20) : a.bs);
            const auto t0 = std::chrono::steady_clock::now();
            for (std::size_t i = t; i < files.size() * passes(engine); i += a.threads) {
                const std::size_t f = i % files.size();
                const int h = io.open(files[f], OpenOptions{});
                if (h < 0) {
                    failed = true;
                    return;
                }
                const auto size = static_cast<std::uint64_t>(io.size(h));
                const std::size_t chunk = engine == IoEngine::IoUring ? static_cast<std::size_t>(size) : a.bs;
                for (std::uint64_t off = 0; off < size;) {
                    const ssize_t n =
                        io.pread(h, buf.data(), std::min<std::uint64_t>(chunk, size - off), off);
                    if (n <= 0) {
                        failed = true;
                        break;
                    }
                    off += static_cast<std::uint64_t>(n);
                    total += static_cast<std::uint64_t>(n);
                }
                io.close(h);
            }
            seconds[t] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        });
    }
    for (auto& th : threads)
        th.join();
    const double s = *std::max_element(seconds.begin(), seconds.end());
    if (failed) {
        std::fprintf(stderr, "bench_io_engines: a %s read failed\n", toString(engine));
        return 0;
    }
    return static_cast<double>(total.load()) / 1048576.0 / s;
}

const char* fioEngine(IoEngine e) {
    switch (e) {
    case IoEngine::Posix:
    case IoEngine::ODirect:
        return "psync";
    case IoEngine::Mmap:
        return "mmap";
    case IoEngine::IoUring:
        return "io_uring";
    }
    return "psync";
}

double fioMiBps(IoEngine engine, const std::vector<std::string>& files, const Args& a,
                const fs::path& jobFile) {
    const bool direct = engine == IoEngine::ODirect || engine == IoEngine::IoUring;
    std::ofstream job(jobFile);
    job << "[global]\nrw=read\nbs=" << a.bs << "\nioengine=" << fioEngine(engine)
        << "\ndirect=" << (direct ? 1 : 0) << "\niodepth=" << (engine == IoEngine::IoUring ? a.depth : 1)
        << "\nloops=" << passes(engine)
        << "\ninvalidate=0\nfile_service_type=sequential\ngroup_reporting=1\n";
    for (unsigned t = 0; t < a.threads; ++t) {
        job << "[job" << t << "]\nfilename=";
        for (std::size_t f = t, n = 0; f < files.size(); f += a.threads, ++n)
            job << (n ? ":" : "") << files[f];
        job << "\n";
    }
    job.close();
    const fs::path result = jobFile.string() + ".json";
    const std::string cmd =
        "fio --output-format=json --output=" + result.string() + " " + jobFile.string() + " 2>&1";
    const int rc = std::system(cmd.c_str());
    std::ifstream in(result);
    const auto j = nlohmann::json::parse(in, nullptr, false);
    fs::remove(result);
    if (rc != 0 || j.is_discarded() || !j.contains("jobs")) {
        std::fprintf(stderr, "bench_io_engines: fio (%s) failed, exit %d\n", fioEngine(engine), rc);
        return 0.0;
    }
    return j["jobs"][0]["read"]["bw_bytes"].get<double>() / 1048576.0;
}

struct Spread {
    double median = 0, min = 0, max = 0;
};
Spread spread(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return {n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v.front(), v.back()};
}

} // namespace

int main(int argc, char** argv) {
    const Args a = parse(argc, argv);
    if (std::system("fio --version > /dev/null 2>&1") != 0) {
        std::fprintf(stderr, "bench_io_engines: fio not found (packaging/setup-debian.sh installs it)\n");
        return 1;
    }
    const auto files = ensureFiles(a);
    const fs::path jobFile = a.dir / "io-bench.fio";
    std::printf("files: %u x %llu MiB in %s; bs %zu, depth %u, threads %u, repeats %u\n", a.files,
                static_cast<unsigned long long>(a.fileMiB), a.dir.c_str(), a.bs, a.depth, a.threads,
                a.repeat);
    {
        auto warm = makeIoBackend(IoEngine::Posix);
        trainioMiBps(*warm, IoEngine::Posix, files, a); // page-cache the files for posix and mmap
    }
    std::printf("\n%-9s %-28s %-28s %-24s %s\n", "engine", "TrainIO MiB/s med [min-max]",
                "fio MiB/s med [min-max]", "TrainIO/fio paired med [min-max]", "fio engine");
    for (IoEngine e : a.engines) {
        std::shared_ptr<IoEngineBackend> io;
        try {
            io = makeIoBackend(e, IoEngineOptions{a.depth, a.bs, true});
        } catch (const std::exception& ex) {
            std::printf("%-9s not available: %s\n", toString(e), ex.what());
            continue;
        }
        std::vector<double> ours, theirs, ratios;
        for (unsigned r = 0; r < a.repeat; ++r) {
            double o = 0, f = 0;
            if (r % 2 == 0) {
                o = trainioMiBps(*io, e, files, a);
                f = fioMiBps(e, files, a, jobFile);
            } else {
                f = fioMiBps(e, files, a, jobFile);
                o = trainioMiBps(*io, e, files, a);
            }
            ours.push_back(o);
            theirs.push_back(f);
            ratios.push_back(f > 0 ? o / f : 0);
        }
        const Spread so = spread(ours), sf = spread(theirs), sr = spread(ratios);
        const bool target = e == IoEngine::ODirect || e == IoEngine::IoUring;
        std::printf(
            "%-9s %8.0f [%6.0f-%6.0f]      %8.0f [%6.0f-%6.0f]      %5.3f [%5.3f-%5.3f]            %s%s%s\n",
            toString(e), so.median, so.min, so.max, sf.median, sf.min, sf.max, sr.median, sr.min, sr.max,
            fioEngine(e), target ? " direct=1" : "",
            target ? (sr.median >= 0.95 ? "  (target >= 0.95: met)" : "  (target >= 0.95: NOT MET)") : "");
        if (io->stats().directFallbackFiles)
            std::printf("          warning: %llu file(s) read buffered: %s\n",
                        static_cast<unsigned long long>(io->stats().directFallbackFiles),
                        io->stats().fallbackReason.c_str());
    }
    fs::remove(jobFile);
    return 0;
}
