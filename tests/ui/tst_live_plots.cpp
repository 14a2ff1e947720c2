// The live plots on long runs: memory and drawing cost stay bounded however many steps arrive, a single
// slow step stays visible, the most recent steps and every epoch are drawn exactly, and the step axis
// keeps its meaning. SeriesEnvelope is checked against a brute-force computation over the same points.
#include "plots/live_plots.h"
#include "plots/series_envelope.h"
#include "mark_label_checks.h"

#include <qcustomplot.h>

#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>

using trainio::ui::EnvelopePoint;
using trainio::ui::LivePlots;
using trainio::ui::SeriesEnvelope;

namespace {

constexpr double kCompute = 0.004;
// A slow read every run of plots must show: 5 s against a usual 1–7 ms.
constexpr std::uint64_t kSlowStep = 12'345;
constexpr double kSlowLoad = 5.0;

// Load time of a step on a rank: varies with both, so a mixed-up key or rank shows.
double loadOf(std::uint64_t step, std::uint64_t rank) {
    if (step == kSlowStep && rank == 0) return kSlowLoad;
    return 0.001 * static_cast<double>(1 + (step + rank) % 7);
}

// Feeds steps [first, last] of `ranks` ranks in batches of `batch` steps, as RunController does.
void feed(LivePlots& plots, std::uint64_t first, std::uint64_t last, std::uint64_t ranks,
          std::uint64_t batch = 2000) {
    std::vector<trainio::StepEvent> events;
    for (std::uint64_t s = first; s <= last;) {
        events.clear();
        for (std::uint64_t end = std::min(last, s + batch - 1); s <= end; ++s)
            for (std::uint64_t r = 0; r < ranks; ++r) {
                trainio::StepEvent e;
                e.rank = r;
                e.epoch = 1;
                e.step = s;
                e.stepsPerEpoch = 1'000'000;
                e.load = loadOf(s, r);
                e.compute = kCompute;
                e.proc = e.load + e.compute;
                e.wallTime = static_cast<double>(s);
                e.queueDepth = (s + r) % 4;
                events.push_back(e);
            }
        plots.addSteps(events);
    }
}

// The drawn data of one graph as key → values (a key may carry a minimum and a maximum).
std::multimap<double, double> drawn(QCPGraph* g) {
    std::multimap<double, double> out;
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
        out.emplace(it->key, it->value);
    return out;
}

bool contains(const std::multimap<double, double>& points, double key, double value) {
    auto [a, b] = points.equal_range(key);
    for (auto it = a; it != b; ++it)
        if (qFuzzyCompare(it->second, value)) return true;
    return false;
}

} // namespace

class TestLivePlots : public QObject {
    Q_OBJECT
private slots:
    void envelopeKeepsMinMaxAndMeanOfEveryBucket() {
        const SeriesEnvelope::Limits limits{16, 64};
        SeriesEnvelope env(limits);
        std::mt19937_64 rng(7);
        std::normal_distribution<double> noise(10.0, 2.0);
        constexpr std::uint64_t n = 100'000;
        std::vector<double> values(n + 1);
        for (std::uint64_t k = 1; k <= n; ++k) {
            values[k] = noise(rng);
            if (k % 9973 == 0) values[k] = 1000.0 + static_cast<double>(k); // isolated spikes…
            if (k % 7919 == 0) values[k] = -500.0;                          // …and dips
            env.add(static_cast<double>(k), values[k]);
        }
        QCOMPARE(env.received(), n);
        // Keys 1 … n−16 are merged. The width is the smallest power of two that spans them with at most
        // 64 buckets of keys [i·w, (i+1)·w): 99,984 keys need w = 2048 (49 buckets; 1024 would need 98).
        const std::uint64_t merged = n - limits.recentPoints;
        QCOMPARE(env.bucketWidth(), 2048.0);
        QCOMPARE(env.buckets().size(), std::size_t(merged / 2048 + 1));
        std::size_t checked = 0;
        for (const auto& b : env.buckets()) {
            const std::uint64_t lo = std::max<std::uint64_t>(1, std::uint64_t(b.index) * 2048);
            const std::uint64_t hi = std::min<std::uint64_t>(merged, std::uint64_t(b.index + 1) * 2048 - 1);
            double mn = values[lo], mx = values[lo], sum = 0;
            std::uint64_t mnKey = lo, mxKey = lo;
            for (std::uint64_t k = lo; k <= hi; ++k) {
                if (values[k] < mn) mn = values[k], mnKey = k;
                if (values[k] > mx) mx = values[k], mxKey = k;
                sum += values[k];
            }
            QCOMPARE(b.count, hi - lo + 1);
            QCOMPARE(b.min.value, mn);
            QCOMPARE(b.min.key, double(mnKey));
            QCOMPARE(b.max.value, mx);
            QCOMPARE(b.max.key, double(mxKey));
            QVERIFY(std::abs(b.mean() - sum / double(hi - lo + 1)) < 1e-9);
            checked += b.count;
        }
        QCOMPARE(checked, std::size_t(merged));
        // The recent points are the last 16, exactly.
        QCOMPARE(env.recent().size(), std::size_t(16));
        for (std::size_t i = 0; i < 16; ++i) {
            QCOMPARE(env.recent()[i].key, double(merged + 1 + i));
            QCOMPARE(env.recent()[i].value, values[merged + 1 + i]);
        }
        double lower = 0, upper = 0;
        QVERIFY(env.valueRange(lower, upper));
        QCOMPARE(lower, -500.0);
        QCOMPARE(upper, 1000.0 + 9973.0 * 10); // the spike at key 99,730, the last below n
    }

    void envelopeDrawsEverySpikeInKeyOrder() {
        SeriesEnvelope env({8, 32});
        for (int k = 1; k <= 50'000; ++k)
            env.add(k, k == 777 ? 99.0 : (k == 30'001 ? -99.0 : 1.0));
        std::vector<EnvelopePoint> points;
        env.forEachDrawPoint([&](const EnvelopePoint& p) { points.push_back(p); });
        QCOMPARE(points.size(), env.drawPointCount());
        QVERIFY(points.size() <= 2 * 32 + 8);
        for (std::size_t i = 1; i < points.size(); ++i)
            QVERIFY(points[i - 1].key <= points[i].key);
        auto has = [&](double key, double value) {
            return std::any_of(points.begin(), points.end(),
                               [&](const EnvelopePoint& p) { return p.key == key && p.value == value; });
        };
        QVERIFY(has(777, 99.0));
        QVERIFY(has(30'001, -99.0));
        QVERIFY(has(50'000, 1.0));
    }

    void envelopeTakesLateKeysAndRefusesNonFiniteValues() {
        SeriesEnvelope env({4, 8});
        for (int k = 1; k <= 100; ++k)
            env.add(k, 1.0);
        env.add(3, 50.0);  // long merged: goes into the bucket of key 3
        env.add(99, 60.0); // still recent: sorted in
        env.add(101, std::numeric_limits<double>::quiet_NaN());
        env.add(std::numeric_limits<double>::infinity(), 1.0);
        env.add(1e300, 1.0);
        QCOMPARE(env.received(), std::uint64_t(105));
        QCOMPARE(env.notDrawable(), std::uint64_t(3));
        std::vector<EnvelopePoint> points;
        env.forEachDrawPoint([&](const EnvelopePoint& p) { points.push_back(p); });
        for (std::size_t i = 1; i < points.size(); ++i)
            QVERIFY(points[i - 1].key <= points[i].key);
        QVERIFY(
            std::any_of(points.begin(), points.end(), [](auto& p) { return p.key == 3 && p.value == 50.0; }));
        QVERIFY(std::any_of(points.begin(), points.end(),
                            [](auto& p) { return p.key == 99 && p.value == 60.0; }));
        for (const auto& p : points)
            QVERIFY(std::isfinite(p.key) && std::isfinite(p.value));
        env.clear();
        QCOMPARE(env.received(), std::uint64_t(0));
        QCOMPARE(env.drawPointCount(), std::size_t(0));
        double lo = 0, hi = 0;
        QVERIFY(!env.valueRange(lo, hi));
    }

    void drawnPointsStayBoundedAsStepsGrow() {
        LivePlots plots;
        plots.resize(1400, 600);
        plots.reset(2, 1, 90.0);
        feed(plots, 1, 50'000, 2);
        int after50k = 0;
        for (int id = LivePlots::StepAu; id <= LivePlots::StepQueue; ++id)
            after50k = std::max(after50k, plots.plot(LivePlots::PlotId(id))->graph(0)->dataCount());
        feed(plots, 50'001, 200'000, 2);
        QCOMPARE(plots.stepPointCount(), 200'000); // steps received, every one counted
        // A few points per pixel column of even a 4K-wide plot, not one per step.
        constexpr int bound = 6000;
        for (int id = LivePlots::StepAu; id <= LivePlots::StepQueue; ++id) {
            QCustomPlot* p = plots.plot(LivePlots::PlotId(id));
            QCOMPARE(p->graphCount(), 3);
            for (int g = 0; g < p->graphCount(); ++g)
                QVERIFY2(p->graph(g)->dataCount() <= bound,
                         qPrintable(QStringLiteral("plot %1 graph %2 holds %3 points")
                                        .arg(id)
                                        .arg(g)
                                        .arg(p->graph(g)->dataCount())));
        }
        QVERIFY(plots.plot(LivePlots::StepAu)->graph(0)->dataCount() <= after50k + after50k / 2);
        QCOMPARE(plots.stepPointsDrawn(), plots.plot(LivePlots::StepAu)->graph(0)->dataCount());
        // The x axis still counts steps: it ends just past the last one.
        QCOMPARE(plots.plot(LivePlots::StepLoad)->xAxis->range().upper, 200'001.0);
        QCOMPARE((plots.plot(LivePlots::StepLoad)->graph(0)->data()->constEnd() - 1)->key, 200'000.0);
    }

    void aSingleSlowStepStaysVisible() {
        LivePlots plots;
        plots.reset(2, 1, 90.0);
        feed(plots, 1, 200'000, 2);
        // Rank 0's step 12,345 took 5 s to load, rank 1's 0.001 × (1 + 12,346 mod 7) = 0.006 s.
        QCOMPARE(loadOf(kSlowStep, 1), 0.006);
        const auto load = drawn(plots.plot(LivePlots::StepLoad)->graph(1));
        QVERIFY(contains(load, double(kSlowStep), kSlowLoad));
        const auto loadTotal = drawn(plots.plot(LivePlots::StepLoad)->graph(0));
        QVERIFY(contains(loadTotal, double(kSlowStep), (kSlowLoad + 0.006) / 2));
        // The same step is a dip of AU: 100 × 0.004 / 5.004 on rank 0 (40 % on rank 1), their mean on
        // the total — below any other step's total (at least 38 %).
        const auto au = drawn(plots.plot(LivePlots::StepAu)->graph(1));
        QVERIFY(contains(au, double(kSlowStep), 100.0 * 0.004 / 5.004));
        const auto auTotal = drawn(plots.plot(LivePlots::StepAu)->graph(0));
        QVERIFY(contains(auTotal, double(kSlowStep), (100.0 * 0.004 / 5.004 + 100.0 * 0.004 / 0.010) / 2));
        // The load axis reaches the spike, so it is on screen.
        QVERIFY(plots.plot(LivePlots::StepLoad)->yAxis->range().upper >= kSlowLoad);
    }

    void theMostRecentStepsAreExact() {
        LivePlots plots;
        plots.reset(2, 1, 90.0);
        feed(plots, 1, 200'000, 2);
        const auto auRank1 = drawn(plots.plot(LivePlots::StepAu)->graph(2));
        const auto loadTotal = drawn(plots.plot(LivePlots::StepLoad)->graph(0));
        const auto queueRank0 = drawn(plots.plot(LivePlots::StepQueue)->graph(1));
        for (std::uint64_t s = 199'001; s <= 200'000; ++s) {
            const double k = double(s);
            QCOMPARE(auRank1.count(k), std::size_t(1));
            QVERIFY2(qFuzzyCompare(auRank1.find(k)->second, 100.0 * kCompute / (kCompute + loadOf(s, 1))),
                     qPrintable(QString::number(s)));
            QCOMPARE(loadTotal.count(k), std::size_t(1));
            QVERIFY(qFuzzyCompare(loadTotal.find(k)->second, (loadOf(s, 0) + loadOf(s, 1)) / 2));
            QCOMPARE(queueRank0.count(k), std::size_t(1));
            QCOMPARE(queueRank0.find(k)->second, double(s % 4));
        }
    }

    void epochPlotsStayExactAfterManySteps() {
        LivePlots plots;
        plots.reset(2, 1, 90.0);
        feed(plots, 1, 100'000, 2);
        for (std::uint64_t epoch = 1; epoch <= 3; ++epoch) {
            trainio::EpochEvent e;
            e.epoch = epoch;
            e.epochs = 3;
            e.auPercent = 80.0 + double(epoch);
            e.throughput = 200;
            e.mibPerSecond = 100 * double(epoch);
            e.rankAu = {70.0 + double(epoch), 90.0 + double(epoch)};
            e.rankThroughput = {100, 100};
            plots.addEpoch(e);
        }
        QCOMPARE(plots.epochPointCount(), 3);
        QCustomPlot* au = plots.plot(LivePlots::EpochAu);
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(au->graph(0)->data()->at(i)->key, double(i + 1));
            QCOMPARE(au->graph(0)->data()->at(i)->value, 81.0 + i);
            QCOMPARE(au->graph(2)->data()->at(i)->value, 91.0 + i);
            QCOMPARE(plots.plot(LivePlots::EpochMib)->graph(1)->data()->at(i)->value, 50.0 * (i + 1));
        }
    }

    // Issue 13: the loader's per-epoch figures, in % for the hit ratio and its Belady bound, in seconds for
    // the stall; an epoch without them (NaN) leaves a gap, not a zero; a benchmark's second invocation
    // continues the epoch axis.
    void loaderPlotsShowHitRatioBoundAndStall() {
        LivePlots plots;
        plots.reset(2, 1, 90.0);
        QCustomPlot* hit = plots.plot(LivePlots::EpochHit);
        QCustomPlot* stall = plots.plot(LivePlots::EpochStall);
        QCOMPARE(hit->graphCount(), 2); // hit ratio and bound: no per-accelerator lines
        QCOMPARE(stall->graphCount(), 1);
        const double hits[] = {0.0, 0.5, 0.48, std::nan("")};
        const double bounds[] = {0.0, 0.5, 0.5, std::nan("")};
        const double stalls[] = {1.25, 0.25, 0.3, std::nan("")};
        auto epoch = [&](std::uint64_t n, std::size_t i) {
            trainio::EpochEvent e;
            e.epoch = n;
            e.epochs = 3;
            e.auPercent = 50;
            e.hitRatio = hits[i];
            e.beladyHitRatio = bounds[i];
            e.stallSeconds = stalls[i];
            plots.addEpoch(e);
        };
        for (std::uint64_t n = 1; n <= 3; ++n) epoch(n, n - 1);
        plots.beginInvocation(QStringLiteral("run 2"));
        epoch(1, 3);
        QCOMPARE(hit->graph(LivePlots::HitRatio)->dataCount(), 4);
        const double percent[] = {0.0, 50.0, 48.0};
        const double boundPercent[] = {0.0, 50.0, 50.0};
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(hit->graph(LivePlots::HitRatio)->data()->at(i)->key, double(i + 1));
            QCOMPARE(hit->graph(LivePlots::HitRatio)->data()->at(i)->value, percent[i]);
            QCOMPARE(hit->graph(LivePlots::BeladyBound)->data()->at(i)->value, boundPercent[i]);
            QCOMPARE(stall->graph(0)->data()->at(i)->key, double(i + 1));
            QCOMPARE(stall->graph(0)->data()->at(i)->value, stalls[i]);
        }
        QCOMPARE(hit->graph(LivePlots::HitRatio)->data()->at(3)->key, 4.0);
        QVERIFY(std::isnan(hit->graph(LivePlots::HitRatio)->data()->at(3)->value));
        QVERIFY(std::isnan(stall->graph(0)->data()->at(3)->value));
        // Axes: the hit ratio in % from 0 to a little over 100, the stall from 0 over its largest value.
        QCOMPARE(hit->yAxis->range().lower, 0.0);
        QVERIFY(hit->yAxis->range().upper >= 100.0);
        QCOMPARE(stall->yAxis->range().lower, 0.0);
        QVERIFY(stall->yAxis->range().upper >= 1.25 && stall->yAxis->range().upper < 2.0);
        QCOMPARE(stall->xAxis->range().upper, 4.5);
        // A new run starts empty.
        plots.reset(1, 1, 90.0);
        QCOMPARE(hit->graph(LivePlots::HitRatio)->dataCount(), 0);
        QCOMPARE(stall->graph(0)->dataCount(), 0);
    }

    // Legends never cover data (issue 21): every visible legend lies outside its axis rectangle, so no
    // drawn point — low AU epochs in the bottom right included, where the legend used to sit — is under it.
    // Checked on the laid-out widget, in pixels, for 2 and for 16 accelerators.
    void legendsNeverCoverData_data() {
        QTest::addColumn<int>("ranks");
        QTest::newRow("2 accelerators") << 2;
        QTest::newRow("16 accelerators") << 16;
    }
    void legendsNeverCoverData() {
        QFETCH(int, ranks);
        LivePlots plots;
        plots.resize(1150, 500); // five plots abreast in a 1440-wide window beside the page list
        plots.reset(static_cast<std::uint64_t>(ranks), 1, 90.0);
        for (std::uint64_t n = 1; n <= 6; ++n) {
            trainio::EpochEvent e;
            e.epoch = n;
            e.epochs = 6;
            e.auPercent = n % 2 ? 3.0 : 97.0; // low epochs bottom right, high ones top right
            e.throughput = 10;
            e.mibPerSecond = 5;
            e.hitRatio = n % 2 ? 0.0 : 1.0;
            e.beladyHitRatio = e.hitRatio;
            e.stallSeconds = 1;
            for (int r = 0; r < ranks; ++r) {
                e.rankAu.push_back(e.auPercent);
                e.rankThroughput.push_back(1);
            }
            plots.addEpoch(e);
        }
        plots.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plots));
        int checkedLegends = 0;
        for (int id = 0; id < LivePlots::PlotCount; ++id) {
            QCustomPlot* p = plots.plot(static_cast<LivePlots::PlotId>(id));
            p->replot(QCustomPlot::rpImmediateRefresh);
            if (!p->legend->visible()) continue;
            ++checkedLegends;
            const QRect legend = p->legend->outerRect();
            const QRect axes = p->axisRect()->rect();
            QVERIFY2(!legend.intersects(axes), qPrintable(QStringLiteral("plot %1: legend %2,%3 %4x%5 over the axes")
                                                              .arg(id).arg(legend.x()).arg(legend.y()).arg(legend.width()).arg(legend.height())));
            // The axes keep most of the plot's height: the legend does not squeeze them away.
            QVERIFY2(axes.height() > legend.height(), qPrintable(QString::number(id)));
            // No entry is squeezed below what its name needs (a cut name reads "accelera").
            for (int i = 0; i < p->legend->itemCount(); ++i) {
                QCPAbstractLegendItem* item = p->legend->item(i);
                if (!item) continue; // an empty cell of the legend's grid
                QVERIFY2(item->outerRect().width() >= item->minimumOuterSizeHint().width(),
                         qPrintable(QStringLiteral("plot %1 legend entry %2: %3 px for %4").arg(id).arg(i)
                                        .arg(item->outerRect().width()).arg(item->minimumOuterSizeHint().width())));
                QVERIFY2(p->rect().contains(item->outerRect()), qPrintable(QStringLiteral("plot %1 entry %2 off the plot").arg(id).arg(i)));
            }
            for (int g = 0; g < p->graphCount(); ++g)
                for (auto it = p->graph(g)->data()->constBegin(); it != p->graph(g)->data()->constEnd(); ++it) {
                    if (std::isnan(it->value)) continue;
                    const QPointF px(p->xAxis->coordToPixel(it->key), p->graph(g)->valueAxis()->coordToPixel(it->value));
                    QVERIFY(!legend.contains(px.toPoint()));
                }
        }
        QCOMPARE(checkedLegends, 3); // AU per epoch, hit ratio, telemetry
    }

    // Marker and invocation labels are readable (issue 21): storage changes a few steps apart take turns on
    // rows of their own and stand left of their line, so none prints over another or runs off the axes;
    // invocation labels one step apart ("warm-up", "run 1/3", …) likewise. The marker sits at the step the
    // axis counts (the run's 63rd step, not "step 3" of its epoch).
    void markerLabelsNeverOverprintNorLeaveTheAxes() {
        LivePlots plots;
        plots.resize(1500, 500);
        plots.reset(1, 1, 90.0);
        // Each invocation counts its steps from 1; the axis counts on across them: 20 + 1 + 42 = 63.
        plots.beginInvocation(QStringLiteral("warm-up"));
        feed(plots, 1, 20, 1);
        plots.beginInvocation(QStringLiteral("run 1/3"));
        feed(plots, 1, 1, 1);
        plots.beginInvocation(QStringLiteral("run 2/3"));
        feed(plots, 1, 42, 1);
        QCOMPARE(std::floor(plots.addMarker(QStringLiteral("bw 250→100 MiB/s"))), 63.0);
        feed(plots, 43, 43, 1);
        plots.addMarker(QStringLiteral("lat 8→2 ms"));
        feed(plots, 44, 45, 1);
        plots.addMarker(QStringLiteral("IOPS 200→unlimited"));
        plots.addMarker(QStringLiteral("in flight 32→4"));
        plots.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plots));
        QCustomPlot* p = plots.plot(LivePlots::StepAu);
        p->replot(QCustomPlot::rpImmediateRefresh);
        const QRect axes = p->axisRect()->rect();
        std::vector<std::pair<QString, QRectF>> labels;
        for (int i = 0; i < p->itemCount(); ++i)
            if (auto* t = qobject_cast<QCPItemText*>(p->item(i)); t && t->objectName().isEmpty())
                labels.emplace_back(t->text(), QRectF(t->topLeft->pixelPosition(), t->bottomRight->pixelPosition()));
        QCOMPARE(labels.size(), std::size_t(3 + 4));
        auto disjointInside = [](const std::vector<std::pair<QString, QRectF>>& all, const QRect& area) {
            for (std::size_t i = 0; i < all.size(); ++i) {
                QVERIFY2(area.contains(all[i].second.toAlignedRect()), qPrintable(all[i].first + QStringLiteral(" runs off the axes")));
                for (std::size_t j = i + 1; j < all.size(); ++j)
                    QVERIFY2(!all[i].second.intersects(all[j].second), qPrintable(all[i].first + QStringLiteral(" over ") + all[j].first));
            }
        };
        disjointInside(labels, axes);
        // The AU-per-epoch plot: the invocation labels (the pass threshold is named in the legend).
        QCustomPlot* epochs = plots.plot(LivePlots::EpochAu);
        epochs->replot(QCustomPlot::rpImmediateRefresh);
        std::vector<std::pair<QString, QRectF>> epochLabels;
        for (int i = 0; i < epochs->itemCount(); ++i)
            if (auto* t = qobject_cast<QCPItemText*>(epochs->item(i)))
                epochLabels.emplace_back(t->text(), QRectF(t->topLeft->pixelPosition(), t->bottomRight->pixelPosition()));
        QCOMPARE(epochLabels.size(), std::size_t(3));
        disjointInside(epochLabels, epochs->axisRect()->rect());
    }

    // Issue 32, item 6: on a Run page 1280 px wide (five plots abreast), five storage changes at the same
    // step near the left edge and three invocation labels: every label shown stands clear of the others,
    // inside the axes (none clipped at the left axis), and above the 100 % line, so none covers the AU
    // curve ("warm-up" and "run 3/3" included); the newest change is always shown.
    void changeLabelsStandAboveTheAuCurve() {
        LivePlots plots;
        plots.resize(1280, 400);
        plots.reset(1, 1, 90.0);
        plots.beginInvocation(QStringLiteral("warm-up"));
        feed(plots, 1, 2, 1);
        plots.beginInvocation(QStringLiteral("run 1/3"));
        feed(plots, 1, 2, 1);
        const QStringList changes = {QStringLiteral("bw 6.35 GiB/s → 250 MiB/s"), QStringLiteral("lat 85 µs → 8 ms"),
                                     QStringLiteral("IOPS 1,000,000 → 200"), QStringLiteral("in flight 128 → 32"),
                                     QStringLiteral("→ hdd profile")};
        for (const QString& c : changes) plots.addMarker(c);
        plots.beginInvocation(QStringLiteral("run 3/3"));
        feed(plots, 1, 30, 1);
        plots.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plots));
        QCustomPlot* p = plots.plot(LivePlots::StepAu);
        p->replot(QCustomPlot::rpImmediateRefresh);
        p->replot(QCustomPlot::rpImmediateRefresh); // the range the labels asked for, then the labels at it
        uitest::checkMarkLabels(p, changes.last(), 3);
    }

    // All-zero series (an empty prefetch queue, a stall of 0) get a plain 0…1 axis, not one whose tick
    // labels read "1·10⁻⁶" (issue 21).
    void zeroSeriesHavePlainAxes() {
        LivePlots plots;
        plots.resize(1500, 500);
        plots.reset(1, 1, 90.0);
        std::vector<trainio::StepEvent> events;
        for (std::uint64_t s = 1; s <= 50; ++s) {
            trainio::StepEvent e;
            e.step = s;
            e.stepsPerEpoch = 50;
            e.compute = kCompute;
            e.proc = kCompute;
            e.wallTime = static_cast<double>(s);
            events.push_back(e); // load 0, queue depth 0
        }
        plots.addSteps(events);
        trainio::EpochEvent ep;
        ep.epochs = 1;
        ep.auPercent = 100;
        ep.stallSeconds = 0;
        plots.addEpoch(ep);
        plots.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plots));
        for (auto id : {LivePlots::StepQueue, LivePlots::StepLoad, LivePlots::EpochStall}) {
            QCustomPlot* p = plots.plot(id);
            p->replot(QCustomPlot::rpImmediateRefresh);
            QCOMPARE(p->yAxis->range().lower, 0.0);
            QVERIFY2(p->yAxis->range().upper >= 1.0, qPrintable(QString::number(p->yAxis->range().upper)));
            for (const QString& label : p->yAxis->tickVectorLabels())
                QVERIFY2(!label.contains(QLatin1Char('e')) && !label.contains(QStringLiteral("10")), qPrintable(label));
        }
    }

    void aSmallRunIsDrawnPointForPoint() {
        LivePlots plots;
        plots.reset(3, 1, 90.0);
        feed(plots, 1, 500, 3, 64);
        for (int id = LivePlots::StepAu; id <= LivePlots::StepQueue; ++id)
            for (int g = 0; g < 4; ++g)
                QCOMPARE(plots.plot(LivePlots::PlotId(id))->graph(g)->dataCount(), 500);
        QCOMPARE(plots.stepPointsDrawn(), 500);
        QCOMPARE(plots.stepPointCount(), 500);
    }
};

QTEST_MAIN(TestLivePlots)
#include "tst_live_plots.moc"
