// The emulator's own efficiency (issue 10): how many accelerators one client can emulate before the
// emulator itself, not the storage, costs AU. Measured, not asserted; run by hand:
//
//   cmake --build --preset release --target bench_au_floor && build/release/tests/bench/bench_au_floor
//       [--dir D] [--files N] [--epochs E] [--ranks 1,4,8,16] [--engines posix,mmap]
//       [--telemetry off,on] [--observers none,bridge,cli,live-json,journal] [--repeat K]
//
// Workload: CosmoFlow's step (batch 1, computation_time 3.5 ms, 4 read_threads, one 2,828,486-byte
// sample per npz file: the cosmoflow preset's record size) on files small enough in number to stay in
// the page cache (1024 files, 2.9 GB, by default). Each case prints the load average before it ran,
// the run's AU % (DLIO's definition, docs/metrics.md), samples/s and the process CPU per sample.
//
// Targets: AU >= 99 % at 1 accelerator with telemetry on; AU >= 70 % at 16 accelerators.
// Observers (issue 19, "What watches a run"): the GUI's EngineBridge (its steps taken every 100 ms as the
// Run page's timer does), the CLI's progress reporter (its progress line: run on a terminal, e.g. under
// `script`, to see the ticker) and --live-json (a line per step and epoch, written and flushed): each
// within 0.3 AU point of none. "journal" attaches the run journal instead (issue 20: within 0.3 point). Cases alternate in the order given, --repeat times, so that a drift in the
// machine's load falls on all of them alike.
// Every case runs the real engine: readers read and parse every sample, the compute step is waited out.
#include "config/config_loader.h"
#include "dataset/dataset_generator.h"
#include "engine/training_engine.h"
#include "io/io_engines.h"
#include "telemetry/telemetry_sampler.h"
#include "util/clock.h"
#include "progress_reporter.h"
#include "results/journal.h"
#ifdef TRAINIO_BENCH_WITH_UI
#include "run/engine_bridge.h"
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace trainio;
namespace fs = std::filesystem;

namespace {

WorkloadConfig cosmoflowStep(const std::string& folder, std::uint64_t files, std::uint64_t epochs) {
    const std::string yaml = "model: cosmoflow\nframework: tensorflow\nworkflow:\n  generate_data: False\n  train: True\n"
                             "dataset:\n  data_folder: " + folder + "\n  format: npz\n  num_files_train: " +
                             std::to_string(files) +
                             "\n  num_samples_per_file: 1\n  record_length_bytes: 2828486\n"
                             "reader:\n  data_loader: tensorflow\n  batch_size: 1\n  read_threads: 4\n"
                             "  file_shuffle: seed\n  sample_shuffle: seed\ntrain:\n  epochs: " +
                             std::to_string(epochs) + "\n  computation_time: 0.0035\n";
    return loadWorkloadConfigFromString(yaml, "bench_au_floor.yaml").config;
}

std::vector<std::string> splitList(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) out.push_back(item);
    return out;
}

std::string loadAverage() {
    std::ifstream in("/proc/loadavg");
    std::string a, b, c;
    in >> a >> b >> c;
    return a + " " + b + " " + c;
}

struct Case {
    std::uint64_t ranks;
    std::string engine;
    bool telemetry;
    std::string observer = "none";
};

// The observer a case runs with, and whatever drives it beside the run (the GUI's timer).
class CaseObserver {
public:
    CaseObserver(const std::string& kind, const WorkloadConfig& cfg, const fs::path& scratch) {
        if (kind == "cli") {
            cli_ = std::make_unique<cli::ProgressReporter>(false, "", static_cast<double>(cfg.dataset.recordLength),
                                                           cfg.reader.batchSize, cfg.train.epochs);
        } else if (kind == "live-json") {
            cli_ = std::make_unique<cli::ProgressReporter>(true, (scratch / "live.jsonl").string(),
                                                           static_cast<double>(cfg.dataset.recordLength),
                                                           cfg.reader.batchSize, cfg.train.epochs);
        } else if (kind == "bridge") {
#ifdef TRAINIO_BENCH_WITH_UI
            bridge_ = std::make_unique<ui::EngineBridge>();
            timer_ = std::thread([this] {
                while (!stop_.load()) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(100));
                    taken_ += bridge_->takeSteps().size();
                }
                taken_ += bridge_->takeSteps().size();
            });
#else
            throw std::runtime_error("--observers bridge: this build has no GUI library");
#endif
        } else if (kind == "journal") {
            // Not an observer: the run journal (results/journal.h) every invocation keeps, fed each epoch.
            fs::create_directories(scratch / "journal");
            store::JournalHeader h;
            h.accelerators = cfg.train.epochs; // (any: the bench never reads it back)
            journal_ = std::make_unique<store::RunJournal>(scratch / "journal", h);
        } else if (kind != "none") {
            throw std::runtime_error("--observers " + kind + ": expected none, bridge, cli, live-json or journal");
        }
    }
    ~CaseObserver() {
        stop_.store(true);
        if (timer_.joinable()) timer_.join();
    }
    store::RunJournal* journal() { return journal_.get(); }
    EngineObserver* get() {
#ifdef TRAINIO_BENCH_WITH_UI
        if (bridge_) return bridge_.get();
#endif
        return cli_.get();
    }

private:
    std::unique_ptr<cli::ProgressReporter> cli_;
    std::unique_ptr<store::RunJournal> journal_;
#ifdef TRAINIO_BENCH_WITH_UI
    std::unique_ptr<ui::EngineBridge> bridge_;
#endif
    std::atomic<bool> stop_{false};
    std::size_t taken_ = 0;
    std::thread timer_;
};

void runCase(const WorkloadConfig& cfg, const Case& k, const fs::path& scratch) {
    const std::string loadavg = loadAverage();
    CaseObserver observer(k.observer, cfg, scratch);
    EngineOptions o;
    o.observer = observer.get();
    if (store::RunJournal* j = observer.journal())
        o.onEpochRecorded = [j](std::uint64_t rank, const EpochRecord& e) { j->epoch(rank, e); };
    o.accelerators = k.ranks;
    o.io = makeIoBackend(parseIoEngine(k.engine, "--engines"));
    WallClock clock;
    std::unique_ptr<telemetry::TelemetrySampler> sampler;
    if (k.telemetry) {
        telemetry::TelemetryOptions t;
        t.nvidiaSmi.clear();
        sampler = std::make_unique<telemetry::TelemetrySampler>(t, clock, clock.now());
        sampler->start();
    }
    const RunOutcome r = runTraining(cfg, o);
    std::size_t rows = 0;
    if (sampler) rows = sampler->stop().rows.size();
    if (r.status != RunStatus::Complete) {
        std::printf("%4llu  %-6s %-4s %-9s  run %s: %s\n", static_cast<unsigned long long>(k.ranks), k.engine.c_str(),
                    k.telemetry ? "on" : "off", k.observer.c_str(), toString(r.status), r.error.c_str());
        return;
    }
    // Where a step's time goes, over every rank's steps: DLIO's load (batch wait + the previous step's
    // barrier wait) and the measured compute (3.5 ms asked; more means the wake-up came late).
    double load = 0, compute = 0, steps = 0;
    for (const auto& rank : r.ranks)
        for (const auto& ep : rank.epochs)
            for (const auto& b : ep.blocks)
                for (std::size_t i = 0; i < b.load.size(); ++i) {
                    load += b.load[i];
                    compute += b.compute[i];
                    steps += 1;
                }
    // The barrier makes every step as long as its slowest rank: the mean over steps of the slowest rank's
    // load + compute, against the step period, separates a late batch or wake-up from the release cost.
    double slowest = 0, periods = 0, slowSteps = 0;
    for (std::size_t e = 0; !r.ranks.empty() && e < r.ranks[0].epochs.size(); ++e) {
        const auto& b0 = r.ranks[0].epochs[e].blocks.front();
        for (std::size_t i = 0; i < b0.proc.size(); ++i) {
            double m = 0;
            for (const auto& rank : r.ranks) m = std::max(m, rank.epochs[e].blocks.front().proc[i]);
            slowest += m;
            slowSteps += 1;
        }
        periods += b0.end - b0.start;
    }
    const double cpuPerSample = r.samplesRead ? r.cpuSeconds / static_cast<double>(r.samplesRead) * 1e6 : 0.0;
    std::printf("%4llu  %-6s %-4s %-9s %8.2f %10.1f %10.1f %8.3f %8.3f %8.3f %8.3f %8.2f  %-16s %s\n",
                static_cast<unsigned long long>(k.ranks), k.engine.c_str(), k.telemetry ? "on" : "off", k.observer.c_str(),
                r.metrics.auMean,
                r.metrics.throughputMean, cpuPerSample, steps > 0 ? load / steps * 1e3 : 0.0,
                steps > 0 ? compute / steps * 1e3 : 0.0, slowSteps > 0 ? slowest / slowSteps * 1e3 : 0.0,
                slowSteps > 0 ? periods / slowSteps * 1e3 : 0.0, r.end - r.start, loadavg.c_str(), k.telemetry ? (std::to_string(rows) + " telemetry rows").c_str() : "");
    std::fflush(stdout);
}

} // namespace

int main(int argc, char** argv) {
    fs::path base = fs::temp_directory_path() / "trainio-bench";
    std::uint64_t files = 1024, epochs = 3, repeat = 1;
    std::vector<std::string> ranks{"1", "4", "8", "16"}, engines{"posix", "mmap"}, telemetry{"off", "on"}, observers{"none"};
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool more = i + 1 < argc;
        if (a == "--dir" && more) base = argv[++i];
        else if (a == "--files" && more) files = std::stoull(argv[++i]);
        else if (a == "--epochs" && more) epochs = std::stoull(argv[++i]);
        else if (a == "--repeat" && more) repeat = std::stoull(argv[++i]);
        else if (a == "--ranks" && more) ranks = splitList(argv[++i]);
        else if (a == "--engines" && more) engines = splitList(argv[++i]);
        else if (a == "--telemetry" && more) telemetry = splitList(argv[++i]);
        else if (a == "--observers" && more) observers = splitList(argv[++i]);
        else {
            std::fprintf(stderr, "usage: bench_au_floor [--dir DIR] [--files N] [--epochs E] [--ranks 1,4,8,16] "
                                 "[--engines posix,mmap] [--telemetry off,on] [--observers none,bridge,cli,live-json,journal] "
                                 "[--repeat K]\n");
            return 2;
        }
    }
    try {
        const WorkloadConfig cfg = cosmoflowStep((base / "cosmoflow-au").string(), files, epochs);
        generateDataset(cfg, GenerateOptions{});
        {
            // One untimed pass with no compute so that every file is in the page cache.
            WorkloadConfig warm = cfg;
            warm.train.epochs = 1;
            warm.train.computationTime = ComputeTime{};
            runTraining(warm, EngineOptions{});
        }
        std::printf("TrainIO AU floor benchmark (TrainIO %s): CosmoFlow step, %llu page-cached 2.8 MB npz files in %s, "
                    "%llu epochs, %u CPUs\n\n",
                    TRAINIO_VERSION, static_cast<unsigned long long>(files), base.string().c_str(),
                    static_cast<unsigned long long>(epochs), std::thread::hardware_concurrency());
        std::printf("%4s  %-6s %-4s %-9s %8s %10s %10s %8s %8s %8s %8s %8s  %-16s\n", "accs", "engine", "tele", "observer",
                    "AU %", "samples/s",
                    "CPU µs/s", "load ms", "comp ms", "slow ms", "step ms", "wall s", "loadavg before");
        for (const auto& rk : ranks) {
            // One untimed run at each accelerator count first: the first run of a process at a new size pays
            // its readers' buffers' first page faults and the allocator's growth (measured: 2-8 AU points at
            // 16 accelerators in a 1-s run), which would fall on whichever case came first. Then the repeats,
            // each with the observers in a rotated order, so that no case always runs first.
            EngineOptions o;
            o.accelerators = std::stoull(rk);
            runTraining(cfg, o);
            for (std::uint64_t k = 0; k < repeat; ++k)
                for (const auto& e : engines)
                    for (const auto& t : telemetry)
                        for (std::size_t i = 0; i < observers.size(); ++i)
                            runCase(cfg, Case{std::stoull(rk), e, t == "on", observers[(i + k) % observers.size()]}, base);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_au_floor: %s\n", e.what());
        return 1;
    }
    std::printf("\n(remove the data with: rm -rf %s)\n", (base / "cosmoflow-au").string().c_str());
    return 0;
}
