// DLIO's metric formulas on hand-computed step lists (both semantics), and `trainio-cli metrics` on
// invocation folders DLIO itself wrote (tests/data/dlio-runs), which must reproduce their summary.json.
#include "testsupport.h"

#include "metrics/dlio_metrics.h"

#include <nlohmann/json.hpp>

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
    void metricsOnMissingFolderIsBadInput() {
        const auto r = testsupport::runCli({QStringLiteral("metrics"), QStringLiteral("/nonexistent/trainio")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains(QStringLiteral("/nonexistent/trainio")));
    }
};

QTEST_GUILESS_MAIN(TestMetrics)
#include "tst_metrics.moc"
