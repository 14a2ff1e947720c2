// How long the window's event loop stands still, measured (not asserted): the figures tst_responsive_window
// asserted before issue 29, where a loaded 2-vCPU ASan run failed them (a 53.8 ms GUI-thread CPU gap
// against a 50 ms limit). The unit test now proves the behaviour by counting loop turns while the work runs
// elsewhere; the speed figures are printed here, for the note:
//   edits  — a burst of workload edits (the emulated device's bandwidth typed five times, 30 ms apart), each
//            asking for the input-pipeline model's prediction of resnet50_h100 with the lru loader;
//   export — File ▸ Export report of the whole MLPerf Storage v1.0 + v3.0 fixture library.
// For each: the longest stand-still of a 10 ms timer in wall time and in the GUI thread's own CPU time (the
// work it did without coming back to the loop; the wall gap also holds the time it waited for a core).
// Targets (issue 20, item 4): CPU gap within a frame or so (50 ms), no wall gap of 1 s.
//
//   cmake --build --preset release --target bench_responsive_window
//   build/release/tests/bench/bench_responsive_window [REPEATS=3]
//
// The last line is exactly `edits_cpu_gap_ms=<a> edits_wall_gap_ms=<b> export_cpu_gap_ms=<c> export_wall_gap_ms=<d>`,
// the worst of the repeats.
#include "gui_test_support.h"
#include "main_window.h"
#include "run/model_panel.h"
#include "report/report_content.h"
#include "report/report_exporter.h"
#include "workload/workload_page.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>

using namespace trainio::ui;

namespace {

double threadCpuMs() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

QString loadAverage() {
    QFile f(QStringLiteral("/proc/loadavg"));
    return f.open(QIODevice::ReadOnly) ? QString::fromLatin1(f.readLine()).section(QLatin1Char(' '), 0, 2) : QStringLiteral("?");
}

// How long the event loop stood still between two ticks of a 10 ms timer: in wall time, and in the GUI
// thread's own CPU time.
class LoopWatch {
public:
    LoopWatch() {
        timer_.setTimerType(Qt::PreciseTimer);
        timer_.setInterval(10);
        QObject::connect(&timer_, &QTimer::timeout, [this] {
            const qint64 now = clock_.elapsed();
            const double cpu = threadCpuMs();
            longest_ = std::max(longest_, now - last_);
            longestCpu_ = std::max(longestCpu_, cpu - lastCpu_);
            last_ = now;
            lastCpu_ = cpu;
            ++ticks_;
        });
        clock_.start();
        lastCpu_ = threadCpuMs();
        timer_.start();
    }
    // The gap still open counts too: a loop blocked right now has not ticked.
    qint64 longestGapMs() const { return std::max(longest_, clock_.elapsed() - last_); }
    double longestCpuGapMs() const { return std::max(longestCpu_, threadCpuMs() - lastCpu_); }
    QString describe() const {
        return QStringLiteral("longest gap %1 ms, GUI thread CPU in a gap at most %2 ms, %3 ticks in %4 ms")
            .arg(longestGapMs())
            .arg(longestCpuGapMs(), 0, 'f', 1)
            .arg(ticks_)
            .arg(clock_.elapsed());
    }

private:
    QTimer timer_;
    QElapsedTimer clock_;
    qint64 last_ = 0;
    qint64 longest_ = 0;
    double lastCpu_ = 0, longestCpu_ = 0;
    int ticks_ = 0;
};

struct Gaps {
    double cpuMs = 0;
    qint64 wallMs = 0;
    void worst(const LoopWatch& w) {
        cpuMs = std::max(cpuMs, w.longestCpuGapMs());
        wallMs = std::max(wallMs, w.longestGapMs());
    }
};

// Runs the event loop until done() holds (or `limitMs` passed: then the bench says so and stops).
template <class Done>
void waitFor(Done done, const char* what, int limitMs = 600000) {
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() > limitMs) {
            std::fprintf(stderr, "bench_responsive_window: %s did not end within %d s\n", what, limitMs / 1000);
            std::exit(1);
        }
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    }
}

bool edits(MainWindow& w, Gaps& gaps) {
    WorkloadPage* form = w.workloadPage();
    auto* panel = w.runPage()->findChild<ModelPanel*>(QStringLiteral("modelPanel"));
    if (!panel) return false;
    const trainio::WorkloadConfig cfg =
        trainio::loadPreset("resnet50_h100", {"++workload.trainio.loader=lru", "++workload.trainio.ram_tier_mib=4096",
                                              "++workload.trainio.storage.bandwidth_mib_s=2000"})
            .config;
    QElapsedTimer once;
    once.start();
    modelPredictionText(cfg, 1, trainio::resolveSemantics(std::nullopt, cfg));
    std::printf("one prediction of resnet50_h100 + lru: %lld ms\n", static_cast<long long>(once.elapsed()));
    form->setConfig(cfg, QStringLiteral("bench"));
    waitFor([&] { return !panel->isComputing(); }, "the first prediction");
    auto* bandwidth = form->editorFor(QStringLiteral("trainio.storage.bandwidth_mib_s"))->findChild<QLineEdit*>();
    if (!bandwidth) return false;
    uitest::Typist typist(bandwidth, {QStringLiteral("8000"), QStringLiteral("7000"), QStringLiteral("6000"),
                                      QStringLiteral("5000"), QStringLiteral("4000")});
    LoopWatch watch;
    typist.start();
    waitFor([&] { return typist.done() && !panel->isComputing(); }, "the burst of edits");
    std::printf("edits and their prediction: %s\n", qPrintable(watch.describe()));
    gaps.worst(watch);
    return true;
}

bool exportReport(MainWindow& w, const QString& pdf, Gaps& gaps) {
    LoopWatch watch;
    ReportExporter* exporter = w.exportReport(pdf, ReportOptions{});
    if (!exporter) return false;
    bool ok = false, done = false;
    QObject::connect(exporter, &ReportExporter::finished, [&](bool good, const QString& error) {
        ok = good;
        done = true;
        if (!good) std::fprintf(stderr, "bench_responsive_window: export failed: %s\n", qPrintable(error));
    });
    waitFor([&] { return done; }, "the report export");
    std::printf("report export: %s\n", qPrintable(watch.describe()));
    gaps.worst(watch);
    QFile::remove(pdf);
    return ok;
}

} // namespace

int main(int argc, char** argv) {
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    int repeats = 3;
    if (argc > 1) {
        char* end = nullptr;
        repeats = static_cast<int>(std::strtol(argv[1], &end, 10));
        if (end == argv[1] || *end != '\0' || repeats <= 0) {
            std::fprintf(stderr, "bench_responsive_window: REPEATS '%s' is not a positive integer\n", argv[1]);
            return 2;
        }
    }
    QTemporaryDir settings, work;
    if (!settings.isValid() || !work.isValid()) return 1;
    uitest::isolateSettings(settings);
    std::printf("load before: %s; %d cores\n", qPrintable(loadAverage()), QThread::idealThreadCount());

    Gaps editGaps, exportGaps;
    MainWindow w;
    w.show();
    if (!w.openResultsFolder(QStringLiteral(TRAINIO_TEST_DATA "/mlperf-storage-v1.0")) ||
        !w.openResultsFolder(QStringLiteral(TRAINIO_TEST_DATA "/mlperf-storage-v3.0")))
        return 1;
    waitFor([&] { return !w.libraryLoader()->isLoading(); }, "loading the fixtures");
    for (int i = 0; i < repeats; ++i) {
        if (!edits(w, editGaps)) return 1;
        if (!exportReport(w, work.filePath(QStringLiteral("whole-library.pdf")), exportGaps)) return 1;
    }
    std::printf("load after: %s\n", qPrintable(loadAverage()));
    std::printf("edits_cpu_gap_ms=%.1f edits_wall_gap_ms=%lld export_cpu_gap_ms=%.1f export_wall_gap_ms=%lld\n",
                editGaps.cpuMs, static_cast<long long>(editGaps.wallMs), exportGaps.cpuMs,
                static_cast<long long>(exportGaps.wallMs));
    return 0;
}
