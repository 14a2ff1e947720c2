// The telemetry sampler's own cost: runs the sampler at a fast interval for N samples, reads the sampler
// thread's CPU time (CLOCK_THREAD_CPUTIME_ID, measured inside the thread: parsing, rates, waiting and
// waking) and prints it per sample and as a share of one core at 1 Hz. Target: < 0.5 %.
// Usage: bench_telemetry [SAMPLES=100] [INTERVAL_MS=10] [NVIDIA_SMI=nvidia-smi]
// (an empty NVIDIA_SMI argument turns the GPU query off; where nvidia-smi runs, its child process's CPU
// is not in the thread's figure and is printed apart.)
#include "telemetry/telemetry_sampler.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/resource.h>

namespace {
double childrenCpuSeconds() {
    rusage ru{};
    getrusage(RUSAGE_CHILDREN, &ru);
    return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}
} // namespace

int main(int argc, char** argv) {
    const std::size_t samples = argc > 1 ? static_cast<std::size_t>(std::max(1, std::atoi(argv[1]))) : 100;
    const double intervalMs = argc > 2 ? std::max(1.0, std::atof(argv[2])) : 10.0;
    trainio::telemetry::TelemetryOptions opt;
    opt.intervalS = intervalMs / 1000.0;
    if (argc > 3) opt.nvidiaSmi = argv[3];
    trainio::WallClock clock;
    trainio::telemetry::TelemetrySampler sampler(opt, clock, clock.now());
    const double children0 = childrenCpuSeconds();
    sampler.start();
    if (!sampler.waitForRows(samples, std::chrono::minutes(10))) {
        std::fprintf(stderr, "sampler stopped after %zu of %zu samples: %s\n", sampler.rowCount(), samples,
                     sampler.error().c_str());
        return 1;
    }
    const auto table = sampler.stop();
    const double children = childrenCpuSeconds() - children0;
    const double perSample = sampler.threadCpuSeconds() / static_cast<double>(sampler.samplesTaken());
    std::printf("%zu samples at %.0f ms, %zu columns (%zu notes)\n", sampler.samplesTaken(), intervalMs,
                table.columns.size(), table.notes.size());
    for (const auto& n : table.notes)
        std::printf("  note: %s\n", n.c_str());
    std::printf("sampler thread CPU: %.1f us per sample = %.4f %% of one core at 1 Hz (target < 0.5 %%)\n",
                perSample * 1e6, perSample * 100.0);
    if (children > 0)
        std::printf("child processes (nvidia-smi): %.1f ms CPU per sample = %.2f %% of one core at 1 Hz\n",
                    children / static_cast<double>(sampler.samplesTaken()) * 1e3,
                    children / static_cast<double>(sampler.samplesTaken()) * 100.0);
    return perSample * 100.0 < 0.5 ? 0 : 2;
}
