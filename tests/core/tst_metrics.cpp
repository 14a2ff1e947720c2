// DLIO's metric formulas on hand-computed step lists (all three semantics), and `trainio-cli metrics` on
// invocation folders DLIO itself wrote (tests/data/dlio-runs: upstream DLIO; tests/data/dlio-v3-runs:
// MLPerf Storage v3.0's fork), which must reproduce their summary.json; and the published v3.0 results
// (tests/data/mlperf-storage-v3.0) checked against the v3 formulas.
#include "testsupport.h"

#include "config/config_loader.h"
#include "metrics/dlio_metrics.h"
#include "aggregate/step_digest.h"

#include <nlohmann/json.hpp>
#include <cmath>
#include <filesystem>

using namespace trainio;

class TestMetrics : public QObject {
    Q_OBJECT
private:
    static BlockRecord block(double start, double end, std::vector<double> load, std::vector<double> compute) {
        BlockRecord b;
        b.start = start;
        b.end = end;
        b.load = load;
        b.compute = compute;
        for (std::size_t i = 0; i < load.size(); ++i) b.proc.push_back(load[i] + compute[i]);
        return b;
    }
    static MetricOptions v3Options(std::uint64_t expectedSteps, std::uint64_t batch) {
        MetricOptions o;
        o.semantics = MetricSemantics::DlioV3;
        o.expectedSteps = expectedSteps;
        o.batchSize = batch;
        return o;
    }

    // Every per-epoch AU and samples/s and the headline figures of `metrics` against DLIO's summary.json.
    static void compareEveryEpoch(const nlohmann::json& got, const nlohmann::json& want, double rel) {
        QVERIFY(got.is_object());
        auto close = [rel](double a, double b) { return std::abs(a - b) <= rel * std::abs(b); };
        for (const char* key : {"train_au_percentage", "train_throughput_samples_per_second"}) {
            QCOMPARE(got[key].size(), want[key].size());
            for (std::size_t e = 0; e < want[key].size(); ++e) {
                const double a = got[key][e].get<double>(), b = want[key][e].get<double>();
                QVERIFY2(close(a, b), qPrintable(QStringLiteral("%1[%2]: %3 vs DLIO %4").arg(key).arg(e).arg(a, 0, 'g', 12).arg(b, 0, 'g', 12)));
            }
        }
        for (const char* key : {"train_au_mean_percentage", "train_au_stdev_percentage", "train_throughput_mean_samples_per_second",
                                "train_throughput_stdev_samples_per_second", "train_io_mean_MB_per_second"}) {
            const double a = got[key].get<double>(), b = want[key].get<double>();
            QVERIFY2(std::abs(a - b) <= rel * std::abs(b) + 1e-9, qPrintable(QStringLiteral("%1: %2 vs DLIO %3").arg(key).arg(a, 0, 'g', 12).arg(b, 0, 'g', 12)));
        }
        QVERIFY(got["train_au_meet_expectation"] == want["train_au_meet_expectation"]);
    }

private slots:
    void v2BlockByHand() {
        // 4 steps, T = 10 s. proc = [3, 2, 2, 2]; s = 1, e = 0, expected steps 4.
        // AU = (1 + 1 + 1) / (10 - 3) = 3/7; throughput = (4 - 2) / 7 × batch 8.
        BlockRecord b = block(100.0, 110.0, {2, 1, 1, 1}, {1, 1, 1, 1});
        MetricOptions o;
        o.expectedSteps = 4;
        o.batchSize = 8;
        const BlockMetrics m = blockMetrics(b, o);
        QCOMPARE(m.auPercent, 100.0 * 3.0 / 7.0);
        QCOMPARE(m.throughput, 2.0 / 7.0 * 8.0);
    }
    void v2ExcludesEndSteps() {
        // e = 1: compute[1:3] = 1 + 1 = 2; time = 10 - proc[0] (3) - proc[3] (2) = 5.
        BlockRecord b = block(0.0, 10.0, {2, 1, 1, 1}, {1, 1, 1, 1});
        MetricOptions o;
        o.expectedSteps = 4;
        o.batchSize = 1;
        o.excludeEndSteps = 1;
        const BlockMetrics m = blockMetrics(b, o);
        QCOMPARE(m.auPercent, 100.0 * 2.0 / 5.0);
        QCOMPARE(m.throughput, 2.0 / 5.0);
    }
    void v2ZeroComputeIsZeroAu() {
        BlockRecord b = block(0.0, 4.0, {1, 1, 1, 1}, {0, 0, 0, 0});
        MetricOptions o;
        o.expectedSteps = 4;
        o.batchSize = 2;
        QCOMPARE(blockMetrics(b, o).auPercent, 0.0);
    }
    void v1BlockByHand() {
        // DLIO 1.0: AU = Σ compute[1:] ÷ (T − proc[0]) = 3 / 7; throughput = S ÷ T × batch = 4 / 10 × 8.
        BlockRecord b = block(0.0, 10.0, {2, 1, 1, 1}, {1, 1, 1, 1});
        MetricOptions o;
        o.semantics = MetricSemantics::DlioV1;
        o.expectedSteps = 4;
        o.batchSize = 8;
        const BlockMetrics m = blockMetrics(b, o);
        QCOMPARE(m.auPercent, 100.0 * 3.0 / 7.0);
        QCOMPARE(m.throughput, 4.0 / 10.0 * 8.0);
    }
    void v3BlockByHand() {
        // statscounter.py (fork) :444-467 on the v2 example: window = compute[1:4] (3 steps, Σ 3),
        // time = 10 − proc[0] (3) = 7; AU = 3/7, throughput = 3 steps ÷ 7 × 8 (v2: (4 − 2) ÷ 7 × 8).
        const BlockMetrics m = blockMetrics(block(100.0, 110.0, {2, 1, 1, 1}, {1, 1, 1, 1}), v3Options(4, 8));
        QVERIFY(std::abs(m.auPercent - 300.0 / 7.0) < 1e-12);
        QVERIFY(std::abs(m.throughput - 3.0 / 7.0 * 8.0) < 1e-12);
    }
    void v3EmptyWindowIsZero() {
        // One step with exclude_start_steps 1: the window is empty, so AU and throughput are 0 (v2
        // divided (1 − 2) by the time: a negative throughput).
        BlockRecord b = block(0.0, 5.0, {1}, {1});
        MetricOptions o = v3Options(1, 4);
        const BlockMetrics m = blockMetrics(b, o);
        QCOMPARE(m.auPercent, 0.0);
        QCOMPARE(m.throughput, 0.0);
        o.semantics = MetricSemantics::DlioV2;
        QVERIFY(blockMetrics(b, o).throughput < 0);
    }
    void v3SlicesLikePython() {
        // exclude_start 0, exclude_end 5, 4 expected steps: metric_end_step + 1 = −1, so Python takes
        // compute[0:-1] (3 steps, Σ 3) and subtracts proc[-1:] (the last step, 2): time = 10 − 2 = 8.
        BlockRecord b = block(0.0, 10.0, {2, 1, 1, 1}, {1, 1, 1, 1});
        MetricOptions o = v3Options(4, 2);
        o.excludeStartSteps = 0;
        o.excludeEndSteps = 5;
        const BlockMetrics m = blockMetrics(b, o);
        QVERIFY2(std::abs(m.auPercent - 37.5) < 1e-12, qPrintable(QString::number(m.auPercent)));
        QVERIFY(std::abs(m.throughput - 3.0 / 8.0 * 2.0) < 1e-12);
    }
    void v3ZeroComputeIsZeroAuNotZeroThroughput() {
        const BlockMetrics m = blockMetrics(block(0.0, 4.0, {1, 1, 1, 1}, {0, 0, 0, 0}), v3Options(4, 2));
        QCOMPARE(m.auPercent, 0.0);
        QVERIFY(std::abs(m.throughput - 3.0 / 3.0 * 2.0) < 1e-12); // 3 steps ÷ (4 − 1) s × 2
    }
    void semanticsNames() {
        QCOMPARE(QString(semanticsName(MetricSemantics::DlioV3)), QStringLiteral("v3"));
        QVERIFY(parseSemantics("v1") == MetricSemantics::DlioV1);
        QVERIFY(parseSemantics("v2") == MetricSemantics::DlioV2);
        QVERIFY(parseSemantics("v3") == MetricSemantics::DlioV3);
        QVERIFY(!parseSemantics("V3"));
        QVERIFY(!parseSemantics("3"));
    }
    void epochIsStepWeighted() {
        // Two blocks of 4 and 2 steps: AU weighted 4:2.
        EpochRecord e;
        e.blocks.push_back(block(0.0, 10.0, {2, 1, 1, 1}, {1, 1, 1, 1})); // AU 3/7
        BlockRecord b2 = block(20.0, 24.0, {1, 1}, {1, 1});                // AU 1/(4-2) = 1/2
        b2.block = 2;
        e.blocks.push_back(b2);
        MetricOptions o;
        o.expectedSteps = 4;
        o.batchSize = 1;
        const EpochRankMetrics m = epochRankMetrics(e, o);
        QCOMPARE(m.steps, std::uint64_t(6));
        QVERIFY(qAbs(m.auPercent - (4 * 100.0 * 3 / 7 + 2 * 50.0) / 6) < 1e-12);
    }
    void invocationMeanOverRanksSumThroughput() {
        std::vector<std::vector<EpochRankMetrics>> per = {{{80, 10, 4}, {90, 12, 4}}, {{70, 20, 4}, {50, 30, 4}}};
        const InvocationMetrics m = invocationMetrics(per, 2.0 * 1024 * 1024, 0.7);
        QCOMPARE(m.auPerEpoch.size(), std::size_t(2));
        QCOMPARE(m.auPerEpoch[0], 85.0);
        QCOMPARE(m.auPerEpoch[1], 60.0);
        QCOMPARE(m.throughputPerEpoch[0], 22.0);
        QCOMPARE(m.throughputPerEpoch[1], 50.0);
        QCOMPARE(m.auMean, 72.5);
        QCOMPARE(m.auStdev, 12.5); // population stdev, as numpy.std
        QCOMPARE(m.throughputMean, 36.0);
        QCOMPARE(m.ioMeanMiB, 72.0); // 36 samples/s × 2 MiB
        QVERIFY(m.pass);             // 72.5 >= 70
        const auto j = metricJson(m);
        QCOMPARE(QString::fromStdString(j.begin().key()), QStringLiteral("train_au_percentage"));
        QCOMPARE(j["train_au_meet_expectation"].get<std::string>(), std::string("success"));
    }
    void incompleteEpochsLeftOut() {
        RankRecord r;
        EpochRecord e1;
        e1.complete = true;
        e1.blocks.push_back(block(0.0, 10.0, {2, 1, 1, 1}, {1, 1, 1, 1}));
        EpochRecord e2;
        e2.complete = false;
        e2.blocks.push_back(block(10.0, 12.0, {1}, {1}));
        r.epochs = {e1, e2};
        MetricOptions o;
        o.expectedSteps = 4;
        o.batchSize = 1;
        const InvocationMetrics m = invocationMetrics(std::vector<RankRecord>{r}, o, 1.0, 0.9);
        QCOMPARE(m.auPerEpoch.size(), std::size_t(1));
        // And the epoch kept is the complete one: proc = [3, 2, 2, 2], T = 10, s = 1:
        // AU = 100 × 3 ÷ (10 − 3), samples/s = (4 − 2) ÷ 7 × 1.
        QVERIFY2(std::abs(m.auPerEpoch[0] - 300.0 / 7.0) < 1e-9, qPrintable(QString::number(m.auPerEpoch[0])));
        QVERIFY2(std::abs(m.throughputPerEpoch[0] - 2.0 / 7.0) < 1e-12, qPrintable(QString::number(m.throughputPerEpoch[0])));
    }

    void dlioFoldersReproduceSummary_data() {
        QTest::addColumn<QString>("folder");
        QTest::newRow("np1") << QStringLiteral("unet3d_256_np1");
        QTest::newRow("np2") << QStringLiteral("unet3d_small_np2");
    }
    void dlioFoldersReproduceSummary() {
        QFETCH(QString, folder);
        const auto dir = testsupport::fixtures() / "dlio-runs" / folder.toStdString();
        const auto r = testsupport::runCli({QStringLiteral("metrics"), QString::fromStdString(dir.string())});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const auto got = nlohmann::json::parse(r.out.toStdString());
        const auto want = nlohmann::json::parse(testsupport::readText(dir / "summary.json"))["metric"];
        auto close = [](double a, double b) { return std::abs(a - b) <= 0.005 * std::abs(b); };
        for (const char* key : {"train_au_mean_percentage", "train_throughput_mean_samples_per_second",
                                "train_io_mean_MB_per_second"}) {
            const double a = got[key].get<double>(), b = want[key].get<double>();
            QVERIFY2(close(a, b), qPrintable(QStringLiteral("%1: %2 vs DLIO %3").arg(key).arg(a).arg(b)));
        }
        QCOMPARE(got["train_au_percentage"].size(), want["train_au_percentage"].size());
        for (std::size_t i = 0; i < want["train_au_percentage"].size(); ++i) {
            QVERIFY(close(got["train_au_percentage"][i].get<double>(), want["train_au_percentage"][i].get<double>()));
            QVERIFY(close(got["train_throughput_samples_per_second"][i].get<double>(),
                          want["train_throughput_samples_per_second"][i].get<double>()));
        }
        QVERIFY(got["train_au_meet_expectation"] == want["train_au_meet_expectation"]);
    }
    // Issue 30.3: every epoch of every DLIO folder to DLIO's own figures, not within 0.5 %. DLIO times a
    // block with time() readings it never writes; its per_epoch_stats.json timestamps are read a moment
    // later, and on a busy host the moment can be long: in epoch_small_np4 (4 ranks, 2 cores) rank 3's first
    // block ends 84 ms later in the timestamps than on DLIO's clock (0.09-0.65 ms elsewhere). The
    // tolerance, 1e-6 relative, is below 1 µs on every block here (>= 0.16 s); the timestamps alone are
    // 1e-4 to 3e-3 off.
    void dlioEveryEpochToTheMillisecond_data() {
        QTest::addColumn<QString>("folder");
        QTest::newRow("np1 256 files") << QStringLiteral("unet3d_256_np1");
        QTest::newRow("np2 unet3d_small") << QStringLiteral("unet3d_small_np2");
        QTest::newRow("np2 epoch_small") << QStringLiteral("epoch_small_np2");
        QTest::newRow("np4 epoch_small") << QStringLiteral("epoch_small_np4");
    }
    void dlioEveryEpochToTheMillisecond() {
        QFETCH(QString, folder);
        const auto dir = testsupport::fixtures() / "dlio-runs" / folder.toStdString();
        const auto r = testsupport::runCli({QStringLiteral("metrics"), QString::fromStdString(dir.string())});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        compareEveryEpoch(nlohmann::json::parse(r.out.toStdString()),
                          nlohmann::json::parse(testsupport::readText(dir / "summary.json"))["metric"], 1e-6);
    }
    // A first block whose end was logged 12 ms after DLIO's clock stopped (a GC pass or a preempted rank
    // between end_block's time() and utcnow()): still DLIO's figures. An `au` no block time can give (more
    // than the epoch lasted) is not used: the timestamps are, as before.
    void delayedTimestampIsNotDlioTime() {
        QTemporaryDir tmp;
        const std::filesystem::path dir = tmp.filePath(QStringLiteral("run")).toStdString();
        std::filesystem::copy(testsupport::fixtures() / "dlio-runs" / "unet3d_small_np2", dir,
                              std::filesystem::copy_options::recursive);
        const auto want = nlohmann::json::parse(testsupport::readText(dir / "summary.json"))["metric"];
        auto stats = nlohmann::json::parse(testsupport::readText(dir / "0_per_epoch_stats.json"));
        // 07:13:55.567688 + 12 ms; the epoch ended at .572761, so move that too (end_train runs after).
        stats["1"]["block1"]["end"] = "2026-11-22T07:13:55.579688";
        stats["1"]["end"] = "2026-11-22T07:13:55.584761";
        testsupport::writeText(dir / "0_per_epoch_stats.json", stats.dump(4));
        auto metrics = [&] {
            const auto r = testsupport::runCli({QStringLiteral("metrics"), QString::fromStdString(dir.string())});
            if (r.exitCode != 0) qWarning("%s", qPrintable(r.err));
            return r.exitCode == 0 ? nlohmann::json::parse(r.out.toStdString()) : nlohmann::json();
        };
        compareEveryEpoch(metrics(), want, 1e-6);
        if (QTest::currentTestFailed()) return;
        // Rank 0's first block: compute[1:4] sums to ~0.15 s; an AU of 1 % would mean a 15 s block in a
        // 0.94 s epoch. So its timestamps count: T = 55.579688 - 54.643076 s, minus proc[0], for (4 - 2)
        // steps of batch 4; rank 1's block is DLIO's own (its throughput as written).
        auto out = nlohmann::json::parse(testsupport::readText(dir / "0_output.json"));
        out["1"]["au"]["block1"] = 1.0;
        testsupport::writeText(dir / "0_output.json", out.dump(4));
        const auto got = metrics();
        QVERIFY(got.is_object());
        const double rank1 =
            nlohmann::json::parse(testsupport::readText(dir / "1_output.json"))["1"]["throughput"]["block1"].get<double>();
        const double tp0 = 8.0 / (0.936612 - out["1"]["proc"]["block1"][0].get<double>()) + rank1;
        QVERIFY2(std::abs(got["train_throughput_samples_per_second"][0].get<double>() - tp0) <= 1e-6 * tp0,
                 qPrintable(QStringLiteral("%1 vs %2").arg(got["train_throughput_samples_per_second"][0].get<double>()).arg(tp0)));
    }

    // The fork's own runs (tests/data/dlio-v3-runs: 1 and 2 ranks, and 1 rank with
    // output.metric.exclude_end_steps 2): --semantics v3 reproduces the summary.json it wrote; v2 on the
    // same records keeps AU but counts N − 2 steps, not the window's.
    void dlioV3FoldersReproduceSummary_data() {
        QTest::addColumn<QString>("folder");
        // Per rank and epoch: 16 files ÷ batch 2 ÷ ranks steps; v3 counts those of the window
        // (steps − exclude_start 1 − exclude_end), v2 steps − 2.
        QTest::addColumn<int>("windowSteps");
        QTest::addColumn<int>("v2Steps");
        QTest::newRow("np1") << QStringLiteral("v3_small_np1") << 7 << 6;
        QTest::newRow("np2") << QStringLiteral("v3_small_np2") << 3 << 2;
        QTest::newRow("np1 exclude_end 2") << QStringLiteral("v3_small_np1_end2") << 5 << 6;
    }
    void dlioV3FoldersReproduceSummary() {
        QFETCH(QString, folder);
        QFETCH(int, windowSteps);
        QFETCH(int, v2Steps);
        const auto dir = testsupport::fixtures() / "dlio-v3-runs" / folder.toStdString();
        const auto metricsFor = [&](const char* sem) {
            const auto r = testsupport::runCli({QStringLiteral("metrics"), QString::fromStdString(dir.string()),
                                                QStringLiteral("--semantics"), QString::fromLatin1(sem)});
            if (r.exitCode != 0) qWarning("%s", qPrintable(r.err));
            return r.exitCode == 0 ? nlohmann::json::parse(r.out.toStdString()) : nlohmann::json();
        };
        const auto v3 = metricsFor("v3");
        const auto v2 = metricsFor("v2");
        QVERIFY(v3.is_object() && v2.is_object());
        const auto want = nlohmann::json::parse(testsupport::readText(dir / "summary.json"))["metric"];
        auto close = [](double a, double b, double rel) { return std::abs(a - b) <= rel * std::abs(b); };
        for (const char* key : {"train_au_mean_percentage", "train_au_stdev_percentage",
                                "train_throughput_mean_samples_per_second", "train_throughput_stdev_samples_per_second",
                                "train_io_mean_MB_per_second", "train_io_stdev_MB_per_second"}) {
            const double a = v3[key].get<double>(), b = want[key].get<double>();
            QVERIFY2(close(a, b, 0.005), qPrintable(QStringLiteral("%1: %2 vs the fork's %3").arg(key).arg(a).arg(b)));
        }
        QCOMPARE(v3["train_au_percentage"].size(), want["train_au_percentage"].size());
        QCOMPARE(want["train_au_percentage"].size(), std::size_t(2));
        for (std::size_t e = 0; e < 2; ++e) {
            QVERIFY(close(v3["train_au_percentage"][e].get<double>(), want["train_au_percentage"][e].get<double>(), 0.005));
            const double tp3 = v3["train_throughput_samples_per_second"][e].get<double>();
            const double tpFork = want["train_throughput_samples_per_second"][e].get<double>();
            QVERIFY2(close(tp3, tpFork, 0.005), qPrintable(QStringLiteral("epoch %1: %2 vs %3").arg(e).arg(tp3).arg(tpFork)));
            // Where the formulas differ: the same window time, N − 2 steps instead of the window's.
            const double tp2 = v2["train_throughput_samples_per_second"][e].get<double>();
            QVERIFY(close(tp2 * windowSteps / v2Steps, tp3, 1e-9));
            QVERIFY2(!close(tp2, tpFork, 0.05), qPrintable(QStringLiteral("v2 %1 vs the fork's %2").arg(tp2).arg(tpFork)));
            // Where they agree: AU over the same window.
            QVERIFY(close(v2["train_au_percentage"][e].get<double>(), v3["train_au_percentage"][e].get<double>(), 1e-12));
        }
        QVERIFY(v3["train_au_meet_expectation"] == want["train_au_meet_expectation"]);
    }
    // Without --semantics, `metrics` uses what a TrainIO folder's trainio_run.json records.
    void metricsDefaultsToTheRecordedSemantics() {
        QTemporaryDir tmp;
        const std::filesystem::path dir = tmp.filePath(QStringLiteral("run")).toStdString();
        std::filesystem::copy(testsupport::fixtures() / "dlio-v3-runs" / "v3_small_np1", dir,
                              std::filesystem::copy_options::recursive);
        const auto want = nlohmann::json::parse(testsupport::readText(dir / "summary.json"))["metric"];
        const auto throughputWith = [&](const char* recorded) {
            testsupport::writeText(dir / "trainio_run.json", std::string("{\"semantics\": \"") + recorded + "\"}");
            const auto r = testsupport::runCli({QStringLiteral("metrics"), QString::fromStdString(dir.string())});
            if (r.exitCode != 0) return -1.0;
            return nlohmann::json::parse(r.out.toStdString())["train_throughput_mean_samples_per_second"].get<double>();
        };
        const double fork = want["train_throughput_mean_samples_per_second"].get<double>();
        QVERIFY(std::abs(throughputWith("v3") - fork) <= 0.005 * fork);
        // 8 steps: v2 counts 6 where v3 counts 7.
        QVERIFY(std::abs(throughputWith("v2") * 7.0 / 6.0 - throughputWith("v3")) <= 1e-9 * fork);
        testsupport::writeText(dir / "trainio_run.json", "{\"semantics\": \"v9\"}");
        const auto bad = testsupport::runCli({QStringLiteral("metrics"), QString::fromStdString(dir.string())});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains(QStringLiteral("trainio_run.json")) && bad.err.contains(QStringLiteral("'v9'")),
                 qPrintable(bad.err));
    }
    void badSemanticsIsBadInput() {
        const auto dir = testsupport::fixtures() / "dlio-v3-runs" / "v3_small_np1";
        const auto r = testsupport::runCli({QStringLiteral("metrics"), QString::fromStdString(dir.string()),
                                            QStringLiteral("--semantics"), QStringLiteral("v4")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("--semantics = 'v4'")) && r.err.contains(QStringLiteral("v3")),
                 qPrintable(r.err));
    }

    // Published v3.0 results (no *_output.json is published, so the per-step lists are not there).
    // What can be recomputed: (1) the invocation aggregation from the per-epoch lists; (2) the v3
    // per-block formulas, through their ratio: throughput ÷ AU = batch ÷ mean compute per step in
    // the window, so with R ranks b × R × AU ÷ throughput is the measured compute per step, which a
    // sleep makes at least computation_time (unet3d_b200: 0.162 s) and, on a quiet host, not much
    // more. Under v2's (N − 2) steps the same numbers would mean a compute shorter than the sleep
    // asked for. (Also holds for the Alluxio unet3d and retinanet runs of the shared fixture.)
    void publishedV3Results() {
        int checked = 0;
        const auto root = testsupport::fixtures() / "mlperf-storage-v3.0";
        for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
            if (e.path().filename() != "summary.json" || e.path().string().find("/training/") == std::string::npos)
                continue;
            const auto summary = nlohmann::json::parse(testsupport::readText(e.path()));
            const auto& m = summary["metric"];
            const auto cfg =
                loadWorkloadConfig((e.path().parent_path() / "dlio_config" / "config.yaml").string()).config;
            const auto R = summary["num_accelerators"].get<double>();
            const auto au = m["train_au_percentage"].get<std::vector<double>>();
            const auto tp = m["train_throughput_samples_per_second"].get<std::vector<double>>();
            QCOMPARE(au.size(), tp.size());
            // (1) end_run(): mean / population stdev over epochs, MiB/s from record_length, the AU line.
            std::vector<std::vector<EpochRankMetrics>> perEpoch;
            for (std::size_t i = 0; i < au.size(); ++i) perEpoch.push_back({{au[i], tp[i], 1}});
            const InvocationMetrics agg = invocationMetrics(perEpoch, cfg.dataset.recordLength, cfg.metric.au);
            auto same = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::abs(b); };
            QVERIFY(same(agg.auMean, m["train_au_mean_percentage"].get<double>()));
            QVERIFY(same(agg.auStdev, m["train_au_stdev_percentage"].get<double>()));
            QVERIFY(same(agg.throughputMean, m["train_throughput_mean_samples_per_second"].get<double>()));
            QVERIFY(same(agg.throughputStdev, m["train_throughput_stdev_samples_per_second"].get<double>()));
            QVERIFY(same(agg.ioMeanMiB, m["train_io_mean_MB_per_second"].get<double>()));
            QVERIFY(same(agg.ioStdevMiB, m["train_io_stdev_MB_per_second"].get<double>()));
            QCOMPARE(QString::fromStdString(metricJson(agg)["train_au_meet_expectation"].get<std::string>()),
                     QString::fromStdString(m["train_au_meet_expectation"].get<std::string>()));
            // (2) the v3 block formula's signature.
            const double b = static_cast<double>(cfg.reader.batchSize), c = cfg.train.computationTime.mean;
            const double N = std::floor(static_cast<double>(cfg.dataset.numFilesTrain * cfg.dataset.numSamplesPerFile) / b / R);
            for (std::size_t i = 0; i < au.size(); ++i) {
                const double computeV3 = b * R * au[i] / 100.0 / tp[i];
                const double computeV2 = computeV3 * (N - 2) / (N - 1);
                QVERIFY2(computeV3 >= c && computeV3 <= c * 1.005,
                         qPrintable(QStringLiteral("%1 epoch %2: %3 s").arg(QString::fromStdString(e.path().string())).arg(i + 1).arg(computeV3)));
                // Decisive only where 1/(N − 1) exceeds the sleep overshoot (~0.1 ms): unet3d's
                // 800-991 steps, not retinanet's ~34,000.
                if (N <= 1000) QVERIFY(computeV2 < c);
            }
            ++checked;
        }
        QVERIFY2(checked >= 6, qPrintable(QString::number(checked))); // SAMSUNG unet3d: warm-up + 5 runs
    }
    // Where a moment (a live storage change) falls among the steps of the per-step plots: blocks of the first
    // rank, numbered on from epoch to epoch, each block's steps spread evenly over its wall time.
    void stepAtPlacesMomentsAmongTheSteps() {
        store::InvocationData data;
        RankRecord rank;
        auto block = [](double start, double end, std::size_t steps) {
            BlockRecord b;
            b.start = start;
            b.end = end;
            b.proc.assign(steps, (end - start) / static_cast<double>(steps));
            b.load.assign(steps, 0.0);
            b.compute.assign(steps, 0.0);
            return b;
        };
        EpochRecord e1, e2;
        e1.start = 1000;
        e1.end = 1010;
        e1.blocks = {block(1000, 1010, 10)};      // steps 1-10, one a second
        e2.start = 1020;
        e2.end = 1024;
        e2.blocks = {block(1020, 1024, 4)};       // steps 11-14 after a 10 s pause
        rank.epochs = {e1, e2};
        data.ranks = {rank};
        const aggregate::StepDigest d = aggregate::digestStepRecords(data);
        QCOMPARE(d.blocks.size(), std::size_t(2));
        QCOMPARE(*aggregate::stepAt(d, 999), 1.0);    // before the first step: at it
        QCOMPARE(*aggregate::stepAt(d, 1000), 1.0);
        QCOMPARE(*aggregate::stepAt(d, 1005), 6.0);   // half way through 10 steps from step 1
        QCOMPARE(*aggregate::stepAt(d, 1015), 11.0);  // between epochs: the next epoch's first step
        QCOMPARE(*aggregate::stepAt(d, 1022), 13.0);  // half way through steps 11-14
        QVERIFY(!aggregate::stepAt(d, 1030));         // after the last step
    }

    void metricsOnMissingFolderIsBadInput() {
        const auto r = testsupport::runCli({QStringLiteral("metrics"), QStringLiteral("/nonexistent/trainio")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains(QStringLiteral("/nonexistent/trainio")));
    }
};

QTEST_GUILESS_MAIN(TestMetrics)
#include "tst_metrics.moc"
