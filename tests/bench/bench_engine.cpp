// The engine's speed targets, measured (not asserted): run by hand or `cmake --build --preset release
// --target bench_engine && build/release/tests/bench/bench_engine [--dir D] [--quick]`.
//
//   1. read throughput on a page-cached dataset (computation_time 0) against fio reading the same files
//      whole with the same thread count                                         target ≥ 0.9 × fio
//   2. engine CPU time per sample                                                (reported)
//   3. compute-sleep error, median |slept − asked| for 3.5 ms                    target < 50 µs
//   4. epoch shuffle of 1.28 M samples: time and memory per sample               target < 50 ms, < 64 B
//   5. the AU floor on CosmoFlow's step (batch 1, 3.5 ms compute, 2.8 MB npz, 1024 files, 4 readers,
//      1 accelerator) with the files page-cached                                 target ≥ 95 %
#include "config/config_loader.h"
#include "dataset/dataset_generator.h"
#include "engine/compute_emulator.h"
#include "loader/sample_order.h"
#include "engine/training_engine.h"
#include "util/clock.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

using namespace trainio;
namespace fs = std::filesystem;

namespace {

WorkloadConfig workload(const std::string& folder, const std::string& format, std::uint64_t files,
                        std::uint64_t recordBytes, std::uint64_t batch, std::uint64_t threads, double compute,
                        std::uint64_t epochs) {
    const std::string yaml = "model: bench\nframework: pytorch\nworkflow:\n  generate_data: False\n  train: True\n"
                             "dataset:\n  data_folder: " + folder + "\n  format: " + format +
                             "\n  num_files_train: " + std::to_string(files) +
                             "\n  num_samples_per_file: 1\n  record_length_bytes: " + std::to_string(recordBytes) +
                             "\nreader:\n  data_loader: pytorch\n  batch_size: " + std::to_string(batch) +
                             "\n  read_threads: " + std::to_string(threads) +
                             "\n  file_shuffle: seed\n  sample_shuffle: seed\ntrain:\n  epochs: " +
                             std::to_string(epochs) + "\n  computation_time: " + std::to_string(compute) + "\n";
    return loadWorkloadConfigFromString(yaml, "bench.yaml").config;
}

void warmPageCache(const WorkloadConfig& cfg) {
    // One untimed pass so that every file is in the page cache.
    EngineOptions o;
    WorkloadConfig c = cfg;
    c.train.epochs = 1;
    c.train.computationTime = ComputeTime{};
    runTraining(c, o);
}

std::string run(const std::string& cmd) {
    std::string out;
    std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), pclose);
    if (!p) return out;
    std::array<char, 4096> buf{};
    while (std::size_t n = fread(buf.data(), 1, buf.size(), p.get())) out.append(buf.data(), n);
    return out;
}

double fioReadMiBps(const fs::path& dir, unsigned threads, std::uint64_t bs) {
    // Each job reads every file whole (sequential 256 KiB reads, like numpy); aggregate bandwidth.
    const std::string cmd = "fio --name=read --opendir=" + dir.string() + " --rw=read --bs=" + std::to_string(bs) +
                            " --ioengine=psync --numjobs=" + std::to_string(threads) +
                            " --group_reporting --output-format=json --invalidate=0 2>/dev/null";
    const std::string out = run(cmd);
    try {
        const auto j = nlohmann::json::parse(out.substr(out.find('{')));
        return j["jobs"][0]["read"]["bw_bytes"].get<double>() / 1048576.0;
    } catch (...) {
        return 0.0;
    }
}

void line(const char* what, double value, const char* unit, const char* target, bool ok) {
    std::printf("%-58s %12.3f %-10s %-16s %s\n", what, value, unit, target, ok ? "met" : "NOT MET");
}

} // namespace

int main(int argc, char** argv) {
    fs::path base = fs::temp_directory_path() / "trainio-bench";
    bool quick = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--dir" && i + 1 < argc) base = argv[++i];
        else if (a == "--quick") quick = true;
        else {
            std::fprintf(stderr, "usage: bench_engine [--dir DIR] [--quick]\n");
            return 2;
        }
    }
    std::printf("TrainIO engine benchmark (TrainIO %s), data in %s\n\n", TRAINIO_VERSION, base.string().c_str());
    std::printf("%-58s %12s %-10s %-16s %s\n", "measure", "value", "unit", "target", "");

    // 1 + 2: read throughput and CPU per sample, compute 0.
    {
        const unsigned threads = 4;
        const std::uint64_t files = quick ? 128 : 512, rec = 4u << 20;
        WorkloadConfig c = workload((base / "read").string(), "npz", files, rec, 8, threads, 0.0, 3);
        generateDataset(c, GenerateOptions{});
        warmPageCache(c);
        EngineOptions o;
        const RunOutcome r = runTraining(c, o);
        const double secs = r.end - r.start;
        const double mibps = static_cast<double>(r.bytesRead) / secs / 1048576.0;
        const double fio = fioReadMiBps(base / "read" / "train", threads, 262144);
        std::printf("%-58s %12.1f %-10s\n", "engine read throughput (4 readers, page-cached npz)", mibps, "MiB/s");
        std::printf("%-58s %12.1f %-10s\n", "fio, same files whole, 4 jobs, 256 KiB reads", fio, "MiB/s");
        line("engine / fio", fio > 0 ? mibps / fio : 0.0, "ratio", ">= 0.9", fio > 0 && mibps / fio >= 0.9);
        std::printf("%-58s %12.1f %-10s\n", "engine CPU per sample (4 MiB npz, all threads)",
                    r.samplesRead ? r.cpuSeconds / static_cast<double>(r.samplesRead) * 1e6 : 0.0, "µs");
        std::printf("%-58s %12.1f %-10s\n", "engine CPU per MiB read",
                    r.bytesRead ? r.cpuSeconds / (static_cast<double>(r.bytesRead) / 1048576.0) * 1e6 : 0.0, "µs");
    }
    // 3: compute-sleep error.
    {
        tightenTimerSlack();
        std::vector<double> err;
        const int n = quick ? 300 : 2000;
        for (int i = 0; i < n; ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            ComputeEmulator::wait(0.0035);
            err.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() - 0.0035);
        }
        std::sort(err.begin(), err.end());
        line("compute-sleep error, median (3.5 ms asked)", err[err.size() / 2] * 1e6, "µs", "< 50", err[err.size() / 2] < 50e-6);
        std::printf("%-58s %12.1f %-10s\n", "compute-sleep error, 99th percentile", err[err.size() * 99 / 100] * 1e6, "µs");
    }
    // 4: shuffle of 1.28 M samples.
    {
        WorkloadConfig c = workload("/nonexistent", "npz", 1281167, 1000, 1, 1, 0.0, 1);
        const ShardPlan plan = planShard(c, 0, 1);
        std::vector<std::uint64_t> order;
        sampleOrder(c, plan, 0, 1, 0, order); // sizes the buffer once
        const auto t0 = std::chrono::steady_clock::now();
        sampleOrder(c, plan, 0, 2, 0, order);
        const double ms = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * 1e3;
        line("epoch shuffle of 1,281,167 samples", ms, "ms", "< 50", ms < 50);
        const double bytes = static_cast<double>(order.capacity() * sizeof(std::uint64_t)) / static_cast<double>(order.size());
        line("shuffle memory per sample", bytes, "bytes", "< 64", bytes < 64);
    }
    // 5: AU floor on CosmoFlow's step.
    {
        const std::uint64_t files = quick ? 256 : 1024;
        WorkloadConfig c = workload((base / "cosmoflow").string(), "npz", files, 2828486, 1, 4, 0.0035, 2);
        generateDataset(c, GenerateOptions{});
        warmPageCache(c);
        EngineOptions o;
        const RunOutcome r = runTraining(c, o);
        line("AU floor, CosmoFlow step (batch 1, 3.5 ms, 2.8 MB npz, 4 readers)", r.metrics.auMean, "%", ">= 95",
             r.metrics.auMean >= 95.0);
        std::printf("%-58s %12.1f %-10s\n", "  its samples/s", r.metrics.throughputMean, "samples/s");
    }
    std::printf("\n(remove the data with: rm -rf %s)\n", base.string().c_str());
    return 0;
}
