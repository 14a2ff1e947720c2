// A small training job of a chosen shape, for the capture → derive → replay tests (tst_replay_shape,
// docs/capture.md): a data loader over the files of a folder, as PyTorch's DataLoader runs one, without
// Python. C++ so that the tests need no interpreter or numpy on the machine that runs them.
//
//   shape_job --data DIR [--workers W] [--batch B] [--epochs E] [--compute-ms C] [--preprocess-ms P]
//             [--collate-ms K] [--prefetch F] [--skew S]
//
// Every epoch reads every regular file of DIR once, in name order, B files a batch. With W > 0 worker
// processes (fork), batch b goes to worker b % W, which opens, reads and closes each of its files, spends P
// ms of its own CPU per sample (a decode: CPU work, so workers that outnumber the cores wait for one) and
// K ms of CPU per batch (the collation), then hands the batch to the training loop through a pipe; the loop
// keeps F × W batches requested ahead (PyTorch's prefetch_factor) and takes them in order. With W = 0 the
// loop reads, decodes and collates each batch itself. With --skew S > 0 a sample's CPU work is drawn from a
// lognormal distribution of mean P and log-stdev S (seeded per process): most samples are quick, a few take
// many times the mean (S = 1.2: stdev 1.9 × the mean), as decodes of images of varied sizes do. A step's compute is C ms of sleep (an accelerator:
// the CPU is free meanwhile).
//
// Step marks as trainio_capture.steps writes them (epoch_begin, ask, batch, epoch_end), into
// $TRAINIO_CAPTURE_DIR/marks.<pid>.jsonl when that variable is set (under `trainio-cli capture`).
#include <fcntl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <random>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace {

std::uint64_t monoNs() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

std::uint64_t cpuNs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

// Spends `ms` of this thread's CPU time (not wall time: a thread waiting for a core takes longer).
volatile std::uint64_t gSink = 0;
void burnCpu(double ms) {
    if (ms <= 0) return;
    const std::uint64_t until = cpuNs() + static_cast<std::uint64_t>(ms * 1e6);
    std::uint64_t x = gSink;
    while (cpuNs() < until)
        for (int i = 0; i < 2000; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
    gSink = x;
}

void sleepMs(double ms) {
    if (ms <= 0) return;
    const std::uint64_t until = monoNs() + static_cast<std::uint64_t>(ms * 1e6);
    timespec ts{static_cast<time_t>(until / 1'000'000'000ull), static_cast<long>(until % 1'000'000'000ull)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) != 0) {
    }
}

std::uint64_t readFile(const std::string& path, std::vector<char>& buf) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) {
        std::perror(path.c_str());
        std::exit(3);
    }
    std::uint64_t total = 0;
    for (ssize_t n; (n = ::read(fd, buf.data(), buf.size())) > 0;) total += static_cast<std::uint64_t>(n);
    ::close(fd);
    return total;
}

struct Options {
    std::string data;
    int workers = 2, batch = 4, epochs = 2, prefetch = 2;
    double computeMs = 10, preprocessMs = 0, collateMs = 0, skew = 0;
};

std::mt19937_64 gRng(1);
double sampleWorkMs(const Options& o) {
    if (o.skew <= 0) return o.preprocessMs;
    // mean of lognormal(mu, s) = exp(mu + s²/2) = P
    std::lognormal_distribution<double> d(std::log(o.preprocessMs) - o.skew * o.skew / 2, o.skew);
    return d(gRng);
}

std::string gMarks;
void mark(const char* op, int epoch, const std::string& more = {}) {
    char line[256];
    std::snprintf(line, sizeof line, "{\"op\":\"%s\",\"t\":%llu,\"pid\":%d,\"epoch\":%d%s}\n", op,
                  static_cast<unsigned long long>(monoNs()), static_cast<int>(getpid()), epoch, more.c_str());
    gMarks += line;
}

void writeAll(int fd, const void* p, std::size_t n) {
    const char* c = static_cast<const char*>(p);
    while (n > 0) {
        const ssize_t k = ::write(fd, c, n);
        if (k <= 0) std::exit(4);
        c += k;
        n -= static_cast<std::size_t>(k);
    }
}
bool readAll(int fd, void* p, std::size_t n) {
    char* c = static_cast<char*>(p);
    while (n > 0) {
        const ssize_t k = ::read(fd, c, n);
        if (k <= 0) return false;
        c += k;
        n -= static_cast<std::size_t>(k);
    }
    return true;
}

void loadBatch(const Options& o, const std::vector<std::string>& files, std::int64_t b, std::vector<char>& buf) {
    for (int i = 0; i < o.batch; ++i) {
        readFile(files[static_cast<std::size_t>(b * o.batch + i)], buf);
        burnCpu(sampleWorkMs(o));
    }
    burnCpu(o.collateMs);
}

} // namespace

int main(int argc, char** argv) {
    Options o;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i];
        const char* v = argv[i + 1];
        if (k == "--data") o.data = v;
        else if (k == "--workers") o.workers = std::atoi(v);
        else if (k == "--batch") o.batch = std::atoi(v);
        else if (k == "--epochs") o.epochs = std::atoi(v);
        else if (k == "--prefetch") o.prefetch = std::atoi(v);
        else if (k == "--compute-ms") o.computeMs = std::atof(v);
        else if (k == "--preprocess-ms") o.preprocessMs = std::atof(v);
        else if (k == "--collate-ms") o.collateMs = std::atof(v);
        else if (k == "--skew") o.skew = std::atof(v);
        else {
            std::fprintf(stderr, "shape_job: unknown option %s\n", k.c_str());
            return 2;
        }
    }
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::recursive_directory_iterator(o.data))
        if (e.is_regular_file()) files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    if (files.empty() || o.batch < 1 || o.workers < 0 || o.prefetch < 1) {
        std::fprintf(stderr, "shape_job: no files in %s or a bad option\n", o.data.c_str());
        return 2;
    }
    const std::int64_t steps = static_cast<std::int64_t>(files.size()) / o.batch;
    std::vector<char> buf(1 << 20);

    // Workers: a request pipe each (batch numbers; -1 ends), one result pipe shared (batch numbers).
    std::vector<int> requests;
    std::vector<pid_t> pids;
    int results[2] = {-1, -1};
    if (o.workers > 0 && ::pipe(results) != 0) return 5;
    for (int w = 0; w < o.workers; ++w) {
        int req[2];
        if (::pipe(req) != 0) return 5;
        const pid_t pid = ::fork();
        if (pid == 0) {
            gRng.seed(static_cast<std::uint64_t>(w) + 2);
            ::close(req[1]);
            ::close(results[0]);
            for (std::int64_t b; readAll(req[0], &b, sizeof b) && b >= 0;) {
                loadBatch(o, files, b, buf);
                writeAll(results[1], &b, sizeof b);
            }
            std::fflush(nullptr);
            ::_exit(0);
        }
        ::close(req[0]);
        requests.push_back(req[1]);
        pids.push_back(pid);
    }
    if (o.workers > 0) ::close(results[1]);

    const std::int64_t ahead = static_cast<std::int64_t>(o.prefetch) * o.workers;
    for (int epoch = 1; epoch <= o.epochs; ++epoch) {
        mark("epoch_begin", epoch);
        std::int64_t sent = 0;
        std::set<std::int64_t> arrived;
        std::int64_t taken = 0;
        for (std::int64_t step = 0; step <= steps; ++step) {
            mark("ask", epoch, ",\"step\":" + std::to_string(step));
            if (step == steps) break; // StopIteration
            if (o.workers == 0) {
                loadBatch(o, files, step, buf);
            } else {
                // In flight: the batches requested and not yet taken, at most F × W.
                while (sent < steps && sent - taken < ahead) {
                    writeAll(requests[static_cast<std::size_t>(sent % o.workers)], &sent, sizeof sent);
                    ++sent;
                }
                while (!arrived.count(step)) {
                    std::int64_t b = 0;
                    if (!readAll(results[0], &b, sizeof b)) return 6;
                    arrived.insert(b);
                }
                arrived.erase(step);
                ++taken;
            }
            mark("batch", epoch, ",\"step\":" + std::to_string(step) + ",\"size\":" + std::to_string(o.batch));
            sleepMs(o.computeMs);
        }
        mark("epoch_end", epoch, ",\"steps\":" + std::to_string(steps));
    }
    for (int fd : requests) {
        const std::int64_t end = -1;
        writeAll(fd, &end, sizeof end);
        ::close(fd);
    }
    for (pid_t p : pids) ::waitpid(p, nullptr, 0);
    if (const char* dir = std::getenv("TRAINIO_CAPTURE_DIR"); dir && *dir) {
        const std::string path = std::string(dir) + "/marks." + std::to_string(getpid()) + ".jsonl";
        if (FILE* f = std::fopen(path.c_str(), "a")) {
            std::fwrite(gMarks.data(), 1, gMarks.size(), f);
            std::fclose(f);
        }
    }
    return 0;
}
