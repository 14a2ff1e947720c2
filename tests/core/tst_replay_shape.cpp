// Issue 30 part 2, docs/capture.md "Time distributions" and "CPU time and waiting": a captured job replays at
// the job's AU whatever its shape. Jobs of several shapes (tests/tools/shape_job.cpp: a C++ data loader with
// worker processes, CPU work per sample and per batch, a prefetch depth, a sleep as the accelerator's compute)
// are captured, a workload derived from each trace and replayed with `run` on the same files; the replay's AU
// and samples/s are held to the job's. The job's AU is recomputed here from its step marks; the fit of the
// derived time distributions is checked on skewed data generated here.
#include "testsupport.h"
#include "capture_support.h"

#include "engine/compute_emulator.h"
#include "trace/batch_handover.h"
#include "trace/derive_workload.h"
#include "trace/trace_reader.h"

#include <nlohmann/json.hpp>

#include <QObject>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <regex>
#include <set>

namespace fs = std::filesystem;
using namespace testsupport;

namespace {

// The job's AU from its marks (capture_support.h); -1 when it left none.
double auFromMarks(const fs::path& dir) {
    const capturetest::MarkFigures f = capturetest::figuresFromMarks(dir);
    return f.epochs == 0 ? -1 : f.au;
}
using capturetest::summaryMetric;

// Skewed positive times (lognormal, stdev above the mean as the issue's 7.4 ± 11.3 ms), seeded.
std::vector<double> skewedTimes(double median, double sigma, std::size_t n, std::uint32_t seed) {
    std::mt19937 gen(seed);
    std::lognormal_distribution<double> dist(std::log(median), sigma);
    std::vector<double> v(n);
    for (auto& x : v) x = dist(gen);
    return v;
}

struct Draws {
    double mean = 0, stdev = 0, min = 0;
};
Draws drawMany(const trainio::ComputeTime& t, std::size_t n) {
    trainio::ComputeEmulator e(t, 42);
    std::vector<double> v(n);
    for (auto& x : v) x = e.draw();
    Draws d;
    d.mean = meanOf(v);
    double ss = 0;
    for (double x : v) ss += (x - d.mean) * (x - d.mean);
    d.stdev = std::sqrt(ss / static_cast<double>(n));
    d.min = *std::min_element(v.begin(), v.end());
    return d;
}

} // namespace

class TestReplayShape : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    fs::path data_;

    fs::path dir(const std::string& name) const { return fs::path(tmp_.path().toStdString()) / name; }

    struct Shape {
        const char* name;
        QStringList args;   // the job's options
        bool torch = false; // the real PyTorch job (capture_job.py: a DataLoader), else shape_job
        unsigned batch = 4;
    };
    int torchSkips_ = 0;

    // Captures the job, derives the workload with the CLI, replays it — three times, job and replay alternating —
    // and compares the medians of AU and samples/s (one job run against one replay on a loaded 2-core machine
    // missed the 10 % by 0.2 % once in a full suite run: each side's own spread is of that order).
    void captureDeriveReplay(const Shape& s) {
        std::vector<double> jobAus, jobRates, aus, rates;
        for (int trial = 0; trial < 3; ++trial) {
            const std::string tag = std::string(s.name) + "-" + std::to_string(trial);
            const fs::path trace = dir(tag + "-trace");
            QStringList args{"capture", "--output", QString::fromStdString(trace.string()), "--"};
            args << (s.torch ? QStringList{capturetest::kPython, capturetest::kJob, "--marker"} : QStringList{QStringLiteral(SHAPE_JOB)});
            args << "--data" << QString::fromStdString((data_ / "train").string()) << "--batch" << "4" << "--epochs" << "3";
            args << s.args;
            const CliResult c = runCli(args, 300000);
            QVERIFY2(c.exitCode == 0, qPrintable(c.err + c.out));
            const double jobAu = auFromMarks(trace);
            QVERIFY2(jobAu > 0, "the job wrote no step marks");
            const auto d = trainio::trace::deriveWorkload(trainio::trace::readTrace(trace));
            QVERIFY(d.stepsFromMarks);
            QCOMPARE(d.batchSize, static_cast<std::uint64_t>(s.batch));
            QVERIFY2(std::abs(d.jobAuPercent - jobAu) < 0.01, qPrintable(QString::number(d.jobAuPercent) + " vs " + QString::number(jobAu)));
            const fs::path yaml = dir(tag + ".yaml");
            const CliResult w = runCli({"workload", "--from-trace", QString::fromStdString(trace.string()), "--output", QString::fromStdString(yaml.string())});
            QVERIFY2(w.exitCode == 0, qPrintable(w.err));
            const fs::path run = dir(tag + "-replay");
            const CliResult r = runCli({"run", "--config", QString::fromStdString(yaml.string()), "--output", QString::fromStdString(run.string()), "--quiet"});
            QVERIFY2(r.exitCode == 0 || r.exitCode == 1, qPrintable(r.err)); // 1: below the AU line, still complete
            QVERIFY2(fs::exists(run / "summary.json"), qPrintable(r.err));
            jobAus.push_back(jobAu);
            jobRates.push_back(d.jobSamplesPerSecond);
            aus.push_back(summaryMetric(run, "train_au_mean_percentage"));
            rates.push_back(summaryMetric(run, "train_throughput_mean_samples_per_second"));
            qInfo("%s: job AU %.1f %%, %.1f samples/s; replay AU %.1f %%, %.1f samples/s (readers %llu, preprocess %.2f ms/sample "
                  "of which CPU %.2f, collation %.2f ms/batch, compute %.2f ms/step)",
                  tag.c_str(), jobAu, d.jobSamplesPerSecond, aus.back(), rates.back(), static_cast<unsigned long long>(d.readThreads),
                  d.preprocessMean * 1e3, d.preprocessCpuMean * 1e3, d.collateMean * 1e3, d.computeMean * 1e3);
        }
        const auto median = [](std::vector<double> v) {
            std::sort(v.begin(), v.end());
            return v[v.size() / 2];
        };
        const double jobAu = median(jobAus), jobRate = median(jobRates), au = median(aus), rate = median(rates);
        QVERIFY2(std::abs(au - jobAu) <= 5.0, qPrintable(QStringLiteral("%1: replay AU %2 vs job AU %3 (medians of 3)").arg(s.name).arg(au).arg(jobAu)));
        QVERIFY2(std::abs(rate - jobRate) <= 0.10 * jobRate,
                 qPrintable(QStringLiteral("%1: replay %2 samples/s vs job %3 (medians of 3)").arg(s.name).arg(rate).arg(jobRate)));
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        data_ = dir("data");
        const CliResult g = testsupport::generateNpz(dir("gen.yaml"), "shapejob", data_, 128, 65536);
        QVERIFY2(g.exitCode == 0, qPrintable(g.err));
    }

    // Times whose stdev exceeds their mean: the fit keeps the mean within 1 % and draws nothing negative.
    void fitKeepsMeanOfSkewedTimes() {
        for (double sigma : {0.6, 1.0, 1.3}) {
            const auto v = skewedTimes(0.004, sigma, 20000, 7);
            const double m = meanOf(v);
            double ss = 0;
            for (double x : v) ss += (x - m) * (x - m);
            const double sd = std::sqrt(ss / static_cast<double>(v.size()));
            const auto t = trainio::trace::fitTime(v);
            QVERIFY2(std::abs(t.expectedSeconds() - m) <= 0.01 * m, qPrintable(QString::number(t.expectedSeconds()) + " vs " + QString::number(m)));
            const Draws dr = drawMany(t, 400000);
            QVERIFY2(dr.min >= 0, qPrintable(QString::number(dr.min)));
            QVERIFY2(std::abs(dr.mean - m) <= 0.01 * m,
                     qPrintable(QStringLiteral("sigma %1: drawn mean %2 vs the data's %3").arg(sigma).arg(dr.mean).arg(m)));
            QVERIFY2(std::abs(dr.stdev - sd) <= 0.05 * sd, qPrintable(QStringLiteral("sigma %1: drawn stdev %2 vs %3").arg(sigma).arg(dr.stdev).arg(sd)));
            QVERIFY2(t.distribution == trainio::ComputeDistribution::Gamma, trainio::toString(t.distribution));
        }
        // A spread under 5 % of the mean is a constant.
        std::vector<double> flat;
        for (int i = 0; i < 100; ++i) flat.push_back(0.010 + (i % 2 ? 1e-4 : -1e-4));
        const auto c = trainio::trace::fitTime(flat);
        QVERIFY(c.distribution == trainio::ComputeDistribution::Constant);
        QVERIFY(std::abs(c.expectedSeconds() - 0.010) < 1e-9);
    }

    // reader.read_threads 0: the training loop loads each batch when it asks for it, so loading and compute
    // add up (20 ms of preprocessing a batch, 20 ms of compute: AU about 50 %); one reader thread instead
    // loads the next batch during the compute (AU near 100 %).
    void readThreadsZeroLoadsInTheLoop() {
        auto au = [&](int threads) {
            const fs::path yaml = dir("sync" + std::to_string(threads) + ".yaml");
            writeText(yaml, "model: {name: sync}\nframework: pytorch\nworkflow: {generate_data: false, train: true}\n"
                            "dataset: {data_folder: " + data_.string() + ", format: npz, num_files_train: 128, num_samples_per_file: 1, "
                            "record_length_bytes: 65536}\n"
                            "reader: {data_loader: pytorch, batch_size: 4, read_threads: " + std::to_string(threads) +
                            ", prefetch_size: " + std::to_string(threads == 0 ? 0 : 2) + ", preprocess_time: 0.005}\n"
                            "train: {epochs: 2, computation_time: 0.020}\n");
            const fs::path run = dir("sync" + std::to_string(threads) + "-run");
            const CliResult r = runCli({"run", "--config", QString::fromStdString(yaml.string()), "--output", QString::fromStdString(run.string()), "--quiet"});
            if (!fs::exists(run / "summary.json")) qWarning("%s", qPrintable(r.err));
            return fs::exists(run / "summary.json") ? summaryMetric(run, "train_au_mean_percentage") : -1.0;
        };
        const double sync = au(0), ahead = au(1);
        qInfo("read_threads 0: AU %.1f %%; read_threads 1: AU %.1f %%", sync, ahead);
        QVERIFY2(sync > 0 && ahead > 0, "a run failed");
        QVERIFY2(sync < 65, qPrintable(QString::number(sync)));
        QVERIFY2(ahead - sync > 20, qPrintable(QString::number(ahead) + " vs " + QString::number(sync)));
    }

    // The shapes of issue 30 (a 2-core machine): which part binds decides the AU.
    void loaderBound() { captureDeriveReplay({"loader-bound", {"--workers", "2", "--preprocess-ms", "1", "--collate-ms", "12", "--compute-ms", "3"}}); }
    void preprocessingBound() { captureDeriveReplay({"preprocessing-bound", {"--workers", "2", "--preprocess-ms", "8", "--compute-ms", "10"}}); }
    // The issue's case: per-sample times whose stdev exceeds their mean (a normal fit clamped at zero
    // would raise the mean and slow the replay's readers).
    void skewedPreprocessing() {
        captureDeriveReplay({"skewed-preprocessing", {"--workers", "2", "--preprocess-ms", "6", "--skew", "1.2", "--compute-ms", "8"}});
    }
    void computeBound() { captureDeriveReplay({"compute-bound", {"--workers", "2", "--preprocess-ms", "2", "--compute-ms", "25"}}); }
    void moreProcessesThanCores() { captureDeriveReplay({"more-processes-than-cores", {"--workers", "4", "--preprocess-ms", "6", "--compute-ms", "5"}}); }
    void noLoaderWorkers() { captureDeriveReplay({"no-workers", {"--workers", "0", "--preprocess-ms", "3", "--collate-ms", "1", "--compute-ms", "8"}}); }

    // The hand-over per step (trace/batch_handover.h) on hand-made epochs, times in ms: 2 readers, batches of
    // which reader 1's closes come first (started second: the fit puts it at position 0).
    void handoverFromHandMadeSteps() {
        using trainio::trace::HandoverEpoch;
        const auto ms = [](double v) { return static_cast<std::uint64_t>(v * 1e6); };
        HandoverEpoch ep;
        // steps 0..5: ask, arrival
        const double ask[] = {1000, 1010, 1020, 1030, 1040, 1050}, arrival[] = {1008, 1012, 1023, 1033, 1048, 1052};
        for (int k = 0; k < 6; ++k) {
            ep.ask.push_back(ms(ask[k]));
            ep.arrival.push_back(ms(arrival[k]));
        }
        // listed in start order: reader A made steps 1, 3, 5; reader B steps 0, 2, 4 (closed, done)
        ep.batchEnds.push_back({{ms(1005), ms(1006)}, {ms(1015), ms(1016)}, {ms(1049), ms(1050)}});
        ep.batchEnds.push_back({{ms(1004), ms(1005)}, {ms(1014), ms(1015)}, {ms(1045), ms(1046)}});
        const auto h = trainio::trace::estimateHandover({ep}, 0.001); // collation 1 ms
        QVERIFY2(h.usable, h.basis.c_str());
        QCOMPARE(h.steps, std::size_t(5)); // step 0 left out
        QCOMPARE(h.unmatched, std::size_t(0));
        // step 1: A's batch 0 ready 1007 < ask 1010 → 2; step 2: B's batch 1 ready 1016 < 1020 → 3; step 3: A's
        // batch 1 ready 1017 < 1030 → 3; step 4: B's batch 2 ready 1047 > ask 1040 → 1048 − 1047 = 1; step 5: A's
        // batch 2 ready 1051 > 1050 → 1052 − 1051 = 1.
        const std::vector<double> want = {2, 3, 3, 1, 1};
        QCOMPARE(h.seconds.size(), want.size());
        for (std::size_t i = 0; i < want.size(); ++i)
            QVERIFY2(std::abs(h.seconds[i] * 1e3 - want[i]) < 1e-6, qPrintable(QString::number(h.seconds[i] * 1e3)));
        QCOMPARE(h.readyBeforeAsk, std::size_t(3));
        // Batches that arrive before their reader closed them fit no order: not measured.
        HandoverEpoch bad = ep;
        for (auto& ends : bad.batchEnds)
            for (auto& e : ends) e.closed = e.done = ms(1100);
        QVERIFY(!trainio::trace::estimateHandover({bad}, 0.001).usable);
    }

    // trainio.whole_batches: the replay, itself captured, reads every batch with one reader, batch k by reader
    // k mod 2 in turn; without it the two readers share a batch's samples.
    void wholeBatchesAreEachReadByOneReader() {
        for (const bool whole : {true, false}) {
            const fs::path yaml = dir(whole ? "whole.yaml" : "shared.yaml");
            writeText(yaml, "model: {name: whole}\nframework: pytorch\nworkflow: {generate_data: false, train: true}\n"
                            "dataset: {data_folder: " + data_.string() + ", format: npz, num_files_train: 128, num_samples_per_file: 1, "
                            "record_length_bytes: 65536}\n"
                            "reader: {data_loader: pytorch, batch_size: 4, read_threads: 2, prefetch_size: 4, preprocess_time: 0.002}\n"
                            "train: {epochs: 1, computation_time: 0.001}\ntrainio: {whole_batches: " + (whole ? "true" : "false") + "}\n");
            const fs::path trace = dir(whole ? "whole-trace" : "shared-trace");
            const CliResult r = runCli({"capture", "--output", QString::fromStdString(trace.string()), "--no-python", "--", QStringLiteral(TRAINIO_CLI),
                                        "run", "--config", QString::fromStdString(yaml.string()), "--output",
                                        QString::fromStdString(dir(whole ? "whole-run" : "shared-run").string()), "--quiet"},
                                       180000);
            QVERIFY2(r.exitCode == 0 || r.exitCode == 1, qPrintable(r.err));
            const auto tr = trainio::trace::readTrace(trace);
            // Each file's last open (by time) is the epoch's read; the pre-flight checks read some before.
            std::map<int, std::uint32_t> readerOfFile;
            const std::regex name(R"(img_(\d+)_of_128\.npz$)");
            for (const auto& e : tr.events) {
                std::smatch m;
                if (e.op == trainio::trace::Op::Open && std::regex_search(tr.paths[e.path], m, name)) readerOfFile[std::stoi(m[1])] = e.tid;
            }
            std::map<int, std::set<std::uint32_t>> readersOf; // batch → reader threads
            for (const auto& [file, tid] : readerOfFile) readersOf[file / 4].insert(tid);
            QCOMPARE(readersOf.size(), std::size_t(32));
            int shared = 0;
            std::set<std::uint32_t> all;
            for (const auto& [b, tids] : readersOf) {
                shared += tids.size() > 1;
                all.insert(tids.begin(), tids.end());
                if (whole && b > 0) QVERIFY2(readersOf[b - 1] != tids, qPrintable(QStringLiteral("batches %1 and %2: one reader").arg(b - 1).arg(b)));
            }
            QCOMPARE(all.size(), std::size_t(2));
            if (whole) QCOMPARE(shared, 0);
            else QVERIFY2(shared > 0, "no batch shared by the two readers");
        }
    }

    // The issue's own job: a PyTorch DataLoader, 2 worker processes, batch 4, npz files, a fixed compute per
    // step — where the loader binds (3 ms: the loop's hand-over of each batch is most of its wait) and where
    // compute binds (25 ms); and 3 workers building batches of 8, which outnumber the cores.
    void torchLoaderBinds() { torchShape({"torch-3ms", {"--workers", "2", "--compute-ms", "3"}, true}); }
    void torchComputeBinds() { torchShape({"torch-25ms", {"--workers", "2", "--compute-ms", "25"}, true}); }
    void torchThreeWorkersBatch8() { torchShape({"torch-3-workers-batch-8", {"--workers", "3", "--batch", "8", "--compute-ms", "5"}, true, 8}); }

    void cleanupTestCase() {
        if (torchSkips_ > 0)
            qWarning("%d PyTorch job shape(s) SKIPPED: python3-torch is not installed (packaging/setup-debian.sh --tests)", torchSkips_);
    }

private:
    void torchShape(const Shape& s) {
        static const bool torch = capturetest::pythonHas(QStringLiteral("torch"));
        if (!torch) {
            ++torchSkips_;
            QSKIP("python3-torch is not installed: the PyTorch DataLoader job cannot run");
        }
        captureDeriveReplay(s);
    }
};

QTEST_GUILESS_MAIN(TestReplayShape)
#include "tst_replay_shape.moc"
