// Import speed: imports a results tree N times and prints summaries per second and CPU seconds per
// 1000 summaries. Usage: bench_import [N=20] [PATH=tests/data/mlperf-storage-v1.0]
#include "aggregate/group_aggregate.h"
#include "aggregate/results_import.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::max(1, std::atoi(argv[1])) : 20;
    const std::filesystem::path root =
        argc > 2 ? std::filesystem::path(argv[2])
                 : std::filesystem::path(TRAINIO_SOURCE_DIR) / "tests" / "data" / "mlperf-storage-v1.0";
    std::size_t summaries = 0, groups = 0, checks = 0;
    const std::clock_t cpu0 = std::clock();
    const auto wall0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) {
        const auto imported = trainio::aggregate::importResults({root});
        summaries += imported.summariesFound;
        groups += imported.groups.size();
        for (const auto& g : imported.groups) checks += trainio::aggregate::checkRules(imported, g).size();
    }
    const double cpu = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    if (summaries == 0) {
        std::fprintf(stderr, "no summary.json found below %s\n", root.c_str());
        return 1;
    }
    std::printf("imported %s %d times: %zu summaries, %zu groups, %zu rule violations in total\n", root.c_str(), n,
                summaries, groups, checks);
    std::printf("import + checks: %.0f summaries/s (wall), %.3f CPU s per 1000 summaries\n", summaries / wall,
                cpu * 1000.0 / static_cast<double>(summaries));
    return 0;
}
