// Live plots on a long run, measured (not asserted): feeds STEPS steps of RANKS emulated accelerators
// through LivePlots::addSteps in batches of BATCH steps, as RunController hands them over every 100 ms,
// letting the queued replot of every batch run as the GUI's event loop would. Then it redraws the whole
// plot grid at a realistic size for a few seconds and prints the frame rate and the process's memory.
//
//   cmake --build --preset release --target bench_live_plots
//   build/release/tests/bench/bench_live_plots [STEPS=1000000] [RANKS=8] [BATCH=1000] [SECONDS=3]
//
// Targets (issue 8): >= 30 fps and < 200 MiB after 1,000,000 steps of 8 accelerators. The last line is
// exactly `fps=<n> memory_mib=<m>`, where memory is the peak resident set (VmHWM). With
// TRAINIO_BENCH_PNG=file.png it also saves the plots as drawn after the feed, to look at.
#include "plots/live_plots.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QElapsedTimer>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace {

// A field of /proc/self/status in MiB, or -1 when the kernel does not report it.
double procStatusMib(const std::string& field) {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(field + ":", 0) == 0)
            return std::strtod(line.c_str() + field.size() + 1, nullptr) / 1024.0;
    return -1;
}

std::uint64_t argOr(int argc, char** argv, int i, std::uint64_t fallback) {
    if (argc <= i) return fallback;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(argv[i], &end, 10);
    if (end == argv[i] || *end != '\0' || v == 0) {
        std::fprintf(stderr, "bench_live_plots: argument %d '%s' is not a positive integer\n", i, argv[i]);
        std::exit(2);
    }
    return v;
}

} // namespace

int main(int argc, char** argv) {
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const std::uint64_t steps = argOr(argc, argv, 1, 1'000'000);
    const std::uint64_t ranks = argOr(argc, argv, 2, 8);
    const std::uint64_t batch = argOr(argc, argv, 3, 1000);
    const double seconds = static_cast<double>(argOr(argc, argv, 4, 3));
    constexpr std::uint64_t stepsPerEpoch = 524'288; // CosmoFlow's steps per epoch per accelerator
    constexpr std::uint64_t batchSize = 1;
    constexpr double compute = 0.0035;

    trainio::ui::LivePlots plots;
    plots.resize(1600, 640); // the plot area of the Run page on a 1920×1080 screen
    plots.show();
    plots.reset(ranks, batchSize, 90.0);
    plots.beginInvocation(QStringLiteral("run-1"));
    QApplication::processEvents();

    // Load times around 0.5 ms with a rare slow read, so the plots have spikes to keep.
    std::mt19937_64 rng(42);
    std::lognormal_distribution<double> load(std::log(0.0005), 0.3);
    std::uniform_int_distribution<int> rare(0, 99'999);
    std::vector<double> wall(ranks, 0.0);
    std::vector<std::uint64_t> bytes(ranks, 0);
    std::vector<trainio::StepEvent> events;
    events.reserve(batch * ranks);
    QElapsedTimer feed;
    feed.start();
    std::uint64_t batches = 0, epochsDone = 0;
    for (std::uint64_t first = 0; first < steps; first += batch) {
        events.clear();
        const std::uint64_t last = std::min(steps, first + batch);
        for (std::uint64_t s = first; s < last; ++s)
            for (std::uint64_t r = 0; r < ranks; ++r) {
                trainio::StepEvent e;
                e.rank = r;
                e.epoch = s / stepsPerEpoch + 1;
                e.step = s % stepsPerEpoch + 1;
                e.stepsPerEpoch = stepsPerEpoch;
                e.load = load(rng) * (rare(rng) == 0 ? 200.0 : 1.0);
                e.compute = compute;
                e.proc = e.load + e.compute;
                wall[r] += e.proc;
                e.wallTime = wall[r];
                bytes[r] += 2'800'000;
                e.bytesRead = bytes[r];
                e.queueDepth = static_cast<std::uint64_t>(rng() % 5);
                events.push_back(e);
            }
        plots.addSteps(events);
        QApplication::processEvents(); // runs the queued replots, as the GUI's event loop does
        ++batches;
        // Every epoch that ended in this batch (the last one may be cut short by STEPS).
        const std::uint64_t ended =
            last == steps ? (steps + stepsPerEpoch - 1) / stepsPerEpoch : last / stepsPerEpoch;
        while (epochsDone < ended) {
            ++epochsDone;
            trainio::EpochEvent ep;
            ep.epoch = epochsDone;
            ep.epochs = (steps + stepsPerEpoch - 1) / stepsPerEpoch;
            ep.auPercent = 85;
            ep.throughput = 1000;
            ep.mibPerSecond = 2600;
            ep.rankAu.assign(ranks, 85.0);
            ep.rankThroughput.assign(ranks, 1000.0 / static_cast<double>(ranks));
            plots.addEpoch(ep);
            QApplication::processEvents();
        }
    }
    const double feedSeconds = static_cast<double>(feed.nsecsElapsed()) / 1e9;
    std::printf(
        "fed %llu steps x %llu accelerators in %llu batches in %.2f s (%.0f steps/s, %.2f ms per batch)\n",
        static_cast<unsigned long long>(steps), static_cast<unsigned long long>(ranks),
        static_cast<unsigned long long>(batches), feedSeconds, static_cast<double>(steps) / feedSeconds,
        1e3 * feedSeconds / static_cast<double>(batches));

    int drawn = 0;
    for (int id = 0; id < trainio::ui::LivePlots::PlotCount; ++id) {
        QCustomPlot* p = plots.plot(static_cast<trainio::ui::LivePlots::PlotId>(id));
        for (int g = 0; g < p->graphCount(); ++g)
            drawn += p->graph(g)->dataCount();
    }
    std::printf("steps received %d, points held by all graphs %d\n", plots.stepPointCount(), drawn);

    if (const QString png = qEnvironmentVariable("TRAINIO_BENCH_PNG"); !png.isEmpty()) {
        QApplication::processEvents();
        if (!plots.grab().save(png))
            std::fprintf(stderr, "bench_live_plots: cannot write %s\n", qPrintable(png));
    }

    // A frame is a full redraw of every plot of the grid, painted to the widget at once.
    QElapsedTimer clock;
    clock.start();
    std::uint64_t frames = 0;
    while (static_cast<double>(clock.nsecsElapsed()) / 1e9 < seconds) {
        for (int id = 0; id < trainio::ui::LivePlots::PlotCount; ++id)
            plots.plot(static_cast<trainio::ui::LivePlots::PlotId>(id))
                ->replot(QCustomPlot::rpImmediateRefresh);
        ++frames;
    }
    const double fps = static_cast<double>(frames) / (static_cast<double>(clock.nsecsElapsed()) / 1e9);
    const double rss = procStatusMib("VmRSS");
    const double hwm = procStatusMib("VmHWM");
    std::printf("frames %llu, VmRSS %.1f MiB, VmHWM %.1f MiB\n", static_cast<unsigned long long>(frames), rss,
                hwm);
    std::printf("fps=%.1f memory_mib=%.1f\n", fps, hwm);
    return 0;
}
