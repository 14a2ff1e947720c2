// Compare with judgement: Welch's interval against R's published output, deltas only within one
// workload identity, per-accelerator values on by default when accelerator counts differ, values of
// not-comparable rows hidden unless "compare anyway", and the JSON/table writers. Nodes are built by
// hand here, so every expected value is computed in the test or quoted from its source.
#include "testsupport.h"

#include "aggregate/compare.h"
#include "util/errors.h"

#include <cmath>

using namespace trainio::aggregate;

namespace {

// R's `sleep` data set (Cushny & Peebles), extra hours of sleep per group. R's documentation example
// t.test(extra ~ group, data = sleep) (Welch, the default) prints:
//   t = -1.8608, df = 17.776, p-value = 0.07939
//   95 percent confidence interval: -3.3654832  0.2054832
//   mean in group 1 0.75, mean in group 2 2.33
const std::vector<double> kSleep1{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
const std::vector<double> kSleep2{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};

NodeMetric metric(const std::vector<double>& values) {
    NodeMetric m;
    m.values = values;
    m.n = values.size();
    m.mean = testsupport::meanOf(values);
    m.stdev = testsupport::populationStdevOf(values);
    return m;
}

std::vector<double> plus(std::vector<double> v, double d) {
    for (double& x : v) x += d;
    return v;
}

std::vector<double> times(std::vector<double> v, double f) {
    for (double& x : v) x *= f;
    return v;
}

LibraryNode item(const std::string& name, const std::string& workloadKey, std::int64_t accelerators,
                 const std::vector<double>& au, const std::vector<double>& sps, const std::vector<double>& gib) {
    LibraryNode n;
    n.kind = NodeKind::Benchmark;
    n.label = name;
    n.itemName = name;
    n.path = "/results/" + name;
    n.workloadKey = workloadKey;
    n.workloadTitle = workloadKey + "-title";
    n.accelerators = accelerators;
    n.hasMetrics = true;
    n.au = metric(au);
    n.samplesPerSecond = metric(sps);
    n.readGibPerSecond = metric(gib);
    n.mibPerSecond = metric(times(gib, 1024.0));
    return n;
}

bool near(double a, double b, double tol) { return std::fabs(a - b) <= tol; }

} // namespace

class TestCompare : public QObject {
    Q_OBJECT
private slots:
    void welchMatchesR() {
        // mean(group 2) − mean(group 1): R's interval with the sign flipped.
        const ConfidenceInterval ci = welchCi95(kSleep2, kSleep1);
        QVERIFY2(near(ci.low, -0.2054832, 1e-6), std::to_string(ci.low).c_str());
        QVERIFY2(near(ci.high, 3.3654832, 1e-6), std::to_string(ci.high).c_str());
        QVERIFY2(ci.rule.find("17.78") != std::string::npos, ci.rule.c_str()); // Welch–Satterthwaite df = 17.776
        const ConfidenceInterval flipped = welchCi95(kSleep1, kSleep2);
        QVERIFY(near(flipped.low, -3.3654832, 1e-6));
        QVERIFY(near(flipped.high, 0.2054832, 1e-6));
    }

    void welchUndefinedBelowTwoValues() {
        const ConfidenceInterval ci = welchCi95({1.0}, kSleep1);
        QVERIFY(std::isnan(ci.low) && std::isnan(ci.high));
        // Two samples without spread: the difference is exact.
        const ConfidenceInterval exact = welchCi95({5.0, 5.0}, {3.0, 3.0, 3.0});
        QCOMPARE(exact.low, 2.0);
        QCOMPARE(exact.high, 2.0);
    }

    void deltasWithinOneWorkload() {
        // Same workload, same accelerators: totals, and the interval of the difference is R's.
        const LibraryNode base = item("base", "wl-a", 4, kSleep1, kSleep1, kSleep1);
        const LibraryNode same = item("same", "wl-a", 4, kSleep2, kSleep2, kSleep2);
        const LibraryNode faster = item("faster", "wl-a", 4, plus(kSleep1, 10.0), plus(kSleep1, 10.0), plus(kSleep1, 10.0));
        const CompareResult r = compare({&base, &same, &faster}, CompareOptions{});
        QCOMPARE(r.perAccelerator, false);
        QCOMPARE(r.rows.size(), std::size_t(3));
        QVERIFY(r.rows[0].baseline);
        for (const auto& m : r.rows[0].metrics) QVERIFY(!m.delta); // the baseline has no delta against itself
        const MetricDelta& d = *r.rows[1].metrics[1].delta;
        QVERIFY(near(d.absolute, 2.33 - 0.75, 1e-12));
        QVERIFY(near(d.percent, 100.0 * (2.33 - 0.75) / 0.75, 1e-9));
        QVERIFY(near(d.ci95.low, -0.2054832, 1e-6));
        QVERIFY(near(d.ci95.high, 3.3654832, 1e-6));
        QCOMPARE(*d.withinNoise, true); // the interval holds 0
        const MetricDelta& f = *r.rows[2].metrics[2].delta;
        QVERIFY(near(f.absolute, 10.0, 1e-12));
        QCOMPARE(*f.withinNoise, false); // a shift of 10 against a spread of ~2: not noise
        QCOMPARE(r.rows[1].metrics[0].key, std::string("au_mean_percentage"));
        QCOMPARE(r.rows[1].metrics[1].key, std::string("samples_per_second"));
        QCOMPARE(r.rows[1].metrics[2].key, std::string("read_gib_per_second"));
    }

    void crossWorkloadRowsAreNotComparable() {
        const LibraryNode base = item("unet", "wl-unet3d", 2, {95, 96}, {40, 41}, {5.4, 5.5});
        const LibraryNode other = item("resnet", "wl-resnet50", 2, {92, 93}, {32000, 32600}, {3.4, 3.5});
        CompareResult r = compare({&base, &other}, CompareOptions{});
        const CompareRow& row = r.rows[1];
        QCOMPARE(row.comparable, false);
        QVERIFY(!row.reason.empty());
        QVERIFY(!row.valuesShown);
        for (const auto& m : row.metrics) QVERIFY(!m.delta);
        CompareOptions anyway;
        anyway.compareAnyway = true;
        r = compare({&base, &other}, anyway);
        QVERIFY(r.rows[1].valuesShown);             // values shown on request…
        for (const auto& m : r.rows[1].metrics) QVERIFY(!m.delta); // …never a delta
        QCOMPARE(r.rows[1].comparable, false);

        // An item without numbers (no complete run) and a node that is not an item are not comparable.
        LibraryNode failed = item("failed", "wl-unet3d", 2, {}, {}, {});
        failed.hasMetrics = false;
        failed.status = InvocationStatus::Failed;
        LibraryNode workload;
        workload.kind = NodeKind::Workload;
        workload.itemName = "a workload";
        workload.workloadKey = "wl-unet3d";
        r = compare({&base, &failed, &workload}, CompareOptions{});
        QCOMPARE(r.rows[1].comparable, false);
        QVERIFY2(r.rows[1].reason.find("no complete run") != std::string::npos, r.rows[1].reason.c_str());
        QCOMPARE(r.rows[2].comparable, false);
        QVERIFY2(r.rows[2].reason.find("workload") != std::string::npos, r.rows[2].reason.c_str());
    }

    void perAcceleratorByDefaultWhenCountsDiffer() {
        const LibraryNode two = item("two", "wl", 2, {90, 92}, {100, 110}, {2.0, 2.2});
        const LibraryNode eight = item("eight", "wl", 8, {80, 82}, {400, 480}, {8.0, 9.6});
        CompareResult r = compare({&two, &eight}, CompareOptions{});
        QCOMPARE(r.perAccelerator, true);
        // samples/s and GiB/s divided by each item's own accelerators (every sample too); AU never.
        QCOMPARE(r.rows[0].metrics[1].value.mean, 105.0 / 2);
        QCOMPARE(r.rows[1].metrics[1].value.mean, 440.0 / 8);
        QCOMPARE(r.rows[1].metrics[1].value.values, (std::vector<double>{50.0, 60.0}));
        QCOMPARE(r.rows[1].metrics[2].value.mean, 8.8 / 8);
        QCOMPARE(r.rows[1].metrics[0].value.mean, 81.0);
        QCOMPARE(r.rows[1].metrics[1].unit, std::string("samples/s per accelerator"));
        QCOMPARE(r.rows[1].metrics[0].unit, std::string("%"));
        QVERIFY(near(r.rows[1].metrics[1].delta->absolute, 55.0 - 52.5, 1e-12));
        // MiB/s per accelerator too (issue 9 item 4: "samples/s and MiB/s per accelerator"), after the
        // three metrics that were there before: 8.0 and 9.6 GiB/s are 8192 and 9830.4 MiB/s, ÷ 8.
        QCOMPARE(r.rows[1].metrics.size(), std::size_t(4));
        QCOMPARE(r.rows[1].metrics[3].key, std::string("mib_per_second"));
        QCOMPARE(r.rows[1].metrics[3].unit, std::string("MiB/s per accelerator"));
        QVERIFY(near(r.rows[1].metrics[3].value.mean, (8192.0 + 9830.4) / 2 / 8, 1e-9));
        QVERIFY(near(r.rows[1].metrics[3].value.values[1], 9830.4 / 8, 1e-9));
        QVERIFY(near(r.rows[1].metrics[3].delta->absolute, (8192.0 + 9830.4) / 2 / 8 - (2048.0 + 2252.8) / 2 / 2, 1e-9));
        QVERIFY(near(r.rows[0].metrics[3].value.mean, (2048.0 + 2252.8) / 2 / 2, 1e-9));
        // Asked for totals: no division.
        CompareOptions totals;
        totals.perAccelerator = false;
        r = compare({&two, &eight}, totals);
        QCOMPARE(r.perAccelerator, false);
        QCOMPARE(r.rows[1].metrics[1].value.mean, 440.0);
        QVERIFY(near(r.rows[1].metrics[3].value.mean, (8192.0 + 9830.4) / 2, 1e-9));
        QCOMPARE(r.rows[1].metrics[3].unit, std::string("MiB/s"));
        // Equal counts: totals by default, per accelerator on request.
        const LibraryNode eight2 = item("eight2", "wl", 8, {80, 82}, {400, 480}, {8.0, 9.6});
        QCOMPARE(compare({&eight, &eight2}, CompareOptions{}).perAccelerator, false);
        CompareOptions per;
        per.perAccelerator = true;
        QCOMPARE(compare({&eight, &eight2}, per).rows[0].metrics[1].value.mean, 55.0);
    }

    void badArgumentsAreInputErrors() {
        const LibraryNode a = item("a", "wl", 1, {1, 2}, {1, 2}, {1, 2});
        QVERIFY_THROWS_EXCEPTION(trainio::InputError, compare({}, CompareOptions{}));
        CompareOptions out;
        out.baseline = 1;
        QVERIFY_THROWS_EXCEPTION(trainio::InputError, compare({&a}, out));
    }

    // Issue 19, item 7: a run-once invocation (one run, 30 epochs) against a benchmark (3 run means). Its
    // epochs are not replicates of a run mean: had they been taken as n = 30, Welch would call a 2-point AU
    // difference significant (30 tight epochs around 88, 3 runs around 90). No CI, no "differs", and
    // the row says the units differ; benchmark vs benchmark keeps its CI over run means, invocation vs
    // invocation over epochs.
    void unitsOfReplicationAreNotMixed() {
        std::vector<double> epochs;
        for (int e = 0; e < 30; ++e) epochs.push_back(88.0 + 0.1 * (e % 3 - 1)); // 87.9, 88.0, 88.1, …
        const std::vector<double> runs{89.9, 90.0, 90.1};
        const LibraryNode bench = item("bench", "wl", 4, runs, runs, runs);
        LibraryNode once = item("once", "wl", 4, epochs, epochs, epochs);
        once.kind = NodeKind::Invocation;
        // What the old rule produced: a CI over 30 "replicates" that excludes 0.
        const ConfidenceInterval pretend = welchCi95(epochs, runs);
        QVERIFY(std::isfinite(pretend.high) && pretend.high < 0.0);

        const CompareResult r = compare({&bench, &once}, CompareOptions{});
        const CompareRow& row = r.rows[1];
        QVERIFY(row.comparable); // one workload: the values and the Δ are shown
        QCOMPARE(row.replication, std::string("epochs"));
        QCOMPARE(r.rows[0].replication, std::string("runs"));
        QVERIFY2(row.kindNote.find("differs in kind") != std::string::npos && row.kindNote.find("30 epochs") != std::string::npos &&
                     row.kindNote.find("3 run means") != std::string::npos,
                 row.kindNote.c_str());
        for (const auto& m : row.metrics) {
            QVERIFY(m.delta.has_value());
            const double scale = m.key == "mib_per_second" ? 1024.0 : 1.0; // item() makes MiB/s = GiB/s × 1024
            QVERIFY(near(m.delta->absolute, scale * (testsupport::meanOf(epochs) - 90.0), 1e-9));
            QVERIFY(std::isnan(m.delta->ci95.low) && std::isnan(m.delta->ci95.high));
            QVERIFY(!m.delta->withinNoise.has_value()); // neither "within noise" nor "differs"
            QVERIFY2(m.delta->ciNote.find("differ in kind") != std::string::npos, m.key.c_str());
        }
        const auto j = toJson(r);
        QVERIFY(j["rows"][1]["delta"]["au_mean_percentage"]["ci95_low"].is_null() ||
                std::isnan(j["rows"][1]["delta"]["au_mean_percentage"]["ci95_low"].get<double>()));
        QVERIFY(j["rows"][1]["delta"]["au_mean_percentage"]["within_noise"].is_null());
        QCOMPARE(j["rows"][1]["unit_of_replication"].get<std::string>(), std::string("epochs"));
        const std::string table = formatTable(r);
        QVERIFY2(table.find("differs in kind") != std::string::npos, table.c_str());
        QVERIFY2(table.find("[") == std::string::npos || table.find("[95 % CI]") != std::string::npos, table.c_str());

        // Like with like: two benchmarks over their run means, two invocations over their epochs.
        const std::vector<double> runs2{91.9, 92.0, 92.1};
        const LibraryNode bench2 = item("bench2", "wl", 4, runs2, runs2, runs2);
        const CompareResult bb = compare({&bench, &bench2}, CompareOptions{});
        const ConfidenceInterval byHand = welchCi95(runs2, runs);
        QVERIFY(bb.rows[1].kindNote.empty());
        QVERIFY(near(bb.rows[1].metrics[0].delta->ci95.halfWidth, byHand.halfWidth, 1e-12));
        QCOMPARE(bb.rows[1].metrics[0].delta->withinNoise, std::optional<bool>(false));
        LibraryNode once2 = item("once2", "wl", 4, plus(epochs, 0.5), plus(epochs, 0.5), plus(epochs, 0.5));
        once2.kind = NodeKind::Invocation;
        const CompareResult ii = compare({&once, &once2}, CompareOptions{});
        QVERIFY(ii.rows[1].kindNote.empty());
        QVERIFY(std::isfinite(ii.rows[1].metrics[0].delta->ci95.low));
        QCOMPARE(ii.rows[1].metrics[0].delta->withinNoise, std::optional<bool>(false));
    }

    void jsonAndTable() {
        const LibraryNode base = item("unet", "wl-unet3d", 2, kSleep1, kSleep1, kSleep1);
        const LibraryNode same = item("unet tuned", "wl-unet3d", 2, kSleep2, kSleep2, kSleep2);
        const LibraryNode other = item("resnet", "wl-resnet50", 2, kSleep2, kSleep2, kSleep2);
        CompareOptions o;
        o.baseline = 1;
        const CompareResult r = compare({&base, &same, &other}, o);
        const auto j = toJson(r);
        QCOMPARE(j["baseline"].get<int>(), 2); // 1-based
        QCOMPARE(j["rows"].size(), std::size_t(3));
        for (const auto& row : j["rows"])
            for (const char* key : {"label", "comparable", "reason", "delta", "values"}) QVERIFY2(row.contains(key), key);
        QCOMPARE(j["rows"][0]["label"].get<std::string>(), std::string("unet"));
        QCOMPARE(j["rows"][0]["comparable"].get<bool>(), true);
        QVERIFY(near(j["rows"][0]["delta"]["samples_per_second"]["absolute"].get<double>(), 0.75 - 2.33, 1e-12));
        QVERIFY(near(j["rows"][0]["delta"]["samples_per_second"]["ci95_low"].get<double>(), -3.3654832, 1e-6));
        QCOMPARE(j["rows"][0]["delta"]["samples_per_second"]["within_noise"].get<bool>(), true);
        QVERIFY(j["rows"][1]["delta"].is_null()); // the baseline
        QCOMPARE(j["rows"][2]["comparable"].get<bool>(), false);
        QVERIFY(j["rows"][2]["delta"].is_null());
        QVERIFY(j["rows"][2]["values"].is_null());
        QVERIFY(!j["rows"][2]["reason"].get<std::string>().empty());
        // The new key beside the old ones, which keep their names.
        for (const char* key : {"au_mean_percentage", "samples_per_second", "read_gib_per_second", "mib_per_second"}) {
            QVERIFY2(j["rows"][0]["values"].contains(key), key);
            QVERIFY2(j["rows"][0]["delta"].contains(key), key);
        }
        QVERIFY(near(j["rows"][0]["values"]["mib_per_second"]["value"].get<double>(), 0.75 * 1024, 1e-9));
        QCOMPARE(j["rows"][0]["values"]["mib_per_second"]["unit"].get<std::string>(), std::string("MiB/s"));

        const std::string table = formatTable(r);
        QVERIFY2(table.find("not comparable: ") != std::string::npos, table.c_str());
        QVERIFY2(table.find("baseline") != std::string::npos, table.c_str());
        QVERIFY2(table.find("within noise") != std::string::npos, table.c_str());
        QVERIFY2(table.find("Read GiB/s  ") != std::string::npos && table.find("MiB/s  ") != std::string::npos, table.c_str());
        QCOMPARE(std::count(table.begin(), table.end(), '\n'), 1 + 3 + 2); // header, rows, two legend lines
    }
};

QTEST_GUILESS_MAIN(TestCompare)
#include "tst_compare.moc"
