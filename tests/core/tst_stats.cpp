// The statistics behind every aggregate: numpy-exact mean and population stdev (MLPerf's reduction),
// the other reductions, and Student t quantiles checked against published table values.
#include "testsupport.h"

#include "util/statistics.h"
#include "util/errors.h"

#include <cmath>
#include <vector>

using namespace trainio::aggregate;

class TestStats : public QObject {
    Q_OBJECT
private slots:
    void meanAndStdevOfTextbookSample() {
        const std::vector<double> v{2, 4, 4, 4, 5, 5, 7, 9};
        QCOMPARE(mean(v).value, 5.0);
        QCOMPARE(populationStdev(v).value, 2.0);
        QVERIFY(std::fabs(sampleStdev(v).value - std::sqrt(32.0 / 7.0)) < 1e-15);
        QVERIFY(!mean(v).rule.empty());
        QVERIFY(populationStdev(v).rule.find("population") != std::string::npos);
    }

    void numpyPairwiseSummation() {
        // Below 8 values numpy adds left to right, so the ones vanish against 1e16 …
        const std::vector<double> seven{1e16, 1, 1, 1, 1, 1, -1e16};
        QCOMPARE(numpySum(seven), 0.0);
        // … from 8 on it keeps 8 partial sums: (1e16+1) + (1+1) rounds to 1e16+2, then + (2+2) → 1e16+6.
        const std::vector<double> nine{1e16, 1, 1, 1, 1, 1, 1, 1, -1e16};
        QCOMPARE(numpySum(nine), 6.0);
        // Above the 128-value block it splits in halves; exact on integers either way.
        std::vector<double> many(1000);
        for (std::size_t i = 0; i < many.size(); ++i) many[i] = static_cast<double>(i);
        QCOMPARE(numpySum(many), 999.0 * 1000.0 / 2.0);
    }

    void medianMinMax() {
        QCOMPARE(median(std::vector<double>{3, 1, 2}).value, 2.0);
        QCOMPARE(median(std::vector<double>{4, 1, 3, 2}).value, 2.5);
        QCOMPARE(minimum(std::vector<double>{4, -1, 3}).value, -1.0);
        QCOMPARE(maximum(std::vector<double>{4, -1, 3}).value, 4.0);
    }

    void geomeanAndUndefinedCases() {
        QVERIFY(std::fabs(geomean(std::vector<double>{1, 4, 16}).value - 4.0) < 1e-12);
        QVERIFY(std::isnan(geomean(std::vector<double>{1, 0, 16}).value));
        QVERIFY(std::isnan(geomean(std::vector<double>{1, -2}).value));
        const std::vector<double> none;
        QVERIFY(std::isnan(mean(none).value));
        QVERIFY(std::isnan(median(none).value));
        QVERIFY(std::isnan(sampleStdev(std::vector<double>{1.0}).value));
        QCOMPARE(populationStdev(std::vector<double>{1.0}).value, 0.0);
    }

    void coefficientOfVariation() {
        const std::vector<double> v{90, 100, 110};
        QVERIFY(std::fabs(trainio::aggregate::coefficientOfVariation(v).value - 10.0 / 100.0) < 1e-15);
        QVERIFY(std::isnan(trainio::aggregate::coefficientOfVariation(std::vector<double>{0, 0}).value));
    }

    void studentTQuantilesMatchTables_data() {
        QTest::addColumn<double>("p");
        QTest::addColumn<double>("df");
        QTest::addColumn<double>("expected");
        // Two-sided 95 % and 99 % critical values from standard t tables (NIST/SEMATECH e-Handbook 1.3.6.7.2).
        QTest::newRow("0.975,1") << 0.975 << 1.0 << 12.706204736;
        QTest::newRow("0.975,2") << 0.975 << 2.0 << 4.302652730;
        QTest::newRow("0.975,4") << 0.975 << 4.0 << 2.776445105;
        QTest::newRow("0.975,10") << 0.975 << 10.0 << 2.228138852;
        QTest::newRow("0.975,30") << 0.975 << 30.0 << 2.042272456;
        QTest::newRow("0.975,100") << 0.975 << 100.0 << 1.983971519;
        QTest::newRow("0.995,5") << 0.995 << 5.0 << 4.032142984;
        QTest::newRow("0.95,3") << 0.95 << 3.0 << 2.353363435;
        QTest::newRow("0.025,4") << 0.025 << 4.0 << -2.776445105;
        QTest::newRow("0.975,1e6") << 0.975 << 1e6 << 1.959966;
    }
    void studentTQuantilesMatchTables() {
        QFETCH(double, p);
        QFETCH(double, df);
        QFETCH(double, expected);
        const double t = studentTQuantile(p, df);
        QVERIFY2(std::fabs(t - expected) < 1e-6, qPrintable(QString("t(%1,%2) = %3").arg(p).arg(df).arg(t, 0, 'g', 12)));
    }

    void studentTCdfIsConsistent() {
        QCOMPARE(studentTCdf(0.0, 7.0), 0.5);
        QVERIFY(std::fabs(studentTCdf(2.776445105, 4.0) - 0.975) < 1e-9);
        // df = 1 is the Cauchy distribution: F(t) = 1/2 + atan(t)/π.
        QVERIFY(std::fabs(studentTCdf(3.0, 1.0) - (0.5 + std::atan(3.0) / M_PI)) < 1e-12);
        QVERIFY(std::isnan(studentTQuantile(1.0, 4.0)));
        QVERIFY(std::isnan(studentTQuantile(0.5, 0.0)));
    }

    void confidenceInterval() {
        const std::vector<double> v{1, 2, 3, 4, 5};
        const ConfidenceInterval ci = ci95(v);
        const double half = 2.776445105 * std::sqrt(2.5) / std::sqrt(5.0);
        QVERIFY(std::fabs(ci.halfWidth - half) < 1e-8);
        QVERIFY(std::fabs(ci.low - (3.0 - half)) < 1e-8);
        QVERIFY(std::fabs(ci.high - (3.0 + half)) < 1e-8);
        QVERIFY(ci.rule.find("Student t") != std::string::npos);
        const ConfidenceInterval one = ci95(std::vector<double>{42.0});
        QVERIFY(std::isnan(one.low) && std::isnan(one.high));
    }

    void reductions() {
        const std::vector<double> v{1, 2, 4, 8, 100};
        QCOMPARE(reduce(v, Reduction::Mean).value, 23.0);
        QCOMPARE(reduce(v, Reduction::Median).value, 4.0);
        QCOMPARE(reduce(v, Reduction::Min).value, 1.0);
        QVERIFY(std::fabs(reduce(v, Reduction::Geomean).value - std::pow(6400.0, 0.2)) < 1e-12);
        QCOMPARE(parseReduction("geomean"), Reduction::Geomean);
        QCOMPARE(reductionName(parseReduction("median")), std::string("median"));
        QVERIFY_THROWS_EXCEPTION(trainio::InputError, parseReduction("average"));
    }
};

QTEST_GUILESS_MAIN(TestStats)
#include "tst_stats.moc"
