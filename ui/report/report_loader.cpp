#include "report/report_loader.h"

#include "aggregate/identity.h"
#include "report/report_page_flow.h"
#include "report/report_plots.h"
#include "util/units.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace trainio::ui {

namespace {

using aggregate::InvocationRecord;


// identityDifferences() lines about the loader's own keys ("trainio.loader: plain vs nopfs").
bool isLoaderDifference(const std::string& line) {
    for (const char* key : {"trainio.loader:", "trainio.ram_tier_mib:", "trainio.staging_mib:", "trainio.ssd_tier"})
        if (line.rfind(key, 0) == 0) return true;
    return false;
}

QString policyOf(const InvocationRecord& r) {
    return r.loaderPolicy.empty() ? QStringLiteral("plain") : QString::fromStdString(r.loaderPolicy);
}


double at(const std::vector<double>& v, std::size_t i) { return i < v.size() ? v[i] : kNaN; }

// Each epoch's time from DLIO's samples/s of that epoch: samples per epoch ÷ samples/s.
std::vector<double> epochSeconds(const InvocationRecord& r) {
    const double samples = static_cast<double>(r.filesTrain) * static_cast<double>(r.samplesPerFile);
    std::vector<double> out;
    for (double s : r.epochSamplesPerSecond) out.push_back(samples > 0 && s > 0 ? samples / s : kNaN);
    return out;
}

// One item's figures: each the mean over its complete runs of the run's value.
struct LoaderRow {
    std::size_t item = 0; // index into ReportData::items
    QString policy;
    double ramTierMiB = 0;
    double epochS = kNaN, auPercent = kNaN, hitFirst = kNaN, hitLater = kNaN, beladyLater = kNaN, stallFirst = kNaN,
           stallLater = kNaN, gibStorage = kNaN, gibRam = kNaN, gibSsd = kNaN;
    std::int64_t epochs = 0; // the runs' epoch count (-1 when they differ)
};

// The mean over runs of one figure of each run, leaving out runs without it.
template <typename F>
double overRuns(const aggregate::ImportResult& imp, const std::vector<std::size_t>& runs, F figure) {
    std::vector<double> values;
    for (std::size_t i : runs) values.push_back(figure(imp.runs[i]));
    return meanFrom(values, 0);
}

LoaderRow loaderRow(const ReportData& d, std::size_t item) {
    const auto& imp = d.library->imported();
    const ReportItem& it = d.items[item];
    const InvocationRecord& first = imp.runs[it.runs.front()];
    LoaderRow row;
    row.item = item;
    row.policy = policyOf(first);
    row.ramTierMiB = first.loaderRamTierMiB;
    row.epochs = static_cast<std::int64_t>(first.epochHitRatio.size());
    for (std::size_t i : it.runs)
        if (static_cast<std::int64_t>(imp.runs[i].epochHitRatio.size()) != row.epochs) row.epochs = -1;
    const auto& runs = it.runs;
    row.epochS = overRuns(imp, runs, [](const InvocationRecord& r) { return meanFrom(epochSeconds(r), 1); });
    row.auPercent = overRuns(imp, runs, [](const InvocationRecord& r) { return r.auMeanPercent; });
    row.hitFirst = overRuns(imp, runs, [](const InvocationRecord& r) { return 100.0 * at(r.epochHitRatio, 0); });
    row.hitLater = overRuns(imp, runs, [](const InvocationRecord& r) { return 100.0 * meanFrom(r.epochHitRatio, 1); });
    row.beladyLater = overRuns(imp, runs, [](const InvocationRecord& r) { return 100.0 * meanFrom(r.epochBeladyHitRatio, 1); });
    row.stallFirst = overRuns(imp, runs, [](const InvocationRecord& r) { return at(r.epochStallSeconds, 0); });
    row.stallLater = overRuns(imp, runs, [](const InvocationRecord& r) { return meanFrom(r.epochStallSeconds, 1); });
    row.gibStorage = overRuns(imp, runs, [](const InvocationRecord& r) { return meanFrom(r.epochBytesStorage, 1) / kGiB; });
    row.gibRam = overRuns(imp, runs, [](const InvocationRecord& r) { return meanFrom(r.epochBytesRam, 1) / kGiB; });
    row.gibSsd = overRuns(imp, runs, [](const InvocationRecord& r) { return meanFrom(r.epochBytesSsd, 1) / kGiB; });
    return row;
}

// "epochs 2–5" when every row has 5 epochs, else "epochs 2 to the last".
QString laterEpochs(const std::vector<LoaderRow>& rows) {
    const std::int64_t n = rows.front().epochs;
    for (const auto& r : rows)
        if (r.epochs != n) return QStringLiteral("epochs 2 to the last");
    if (n == 2) return QStringLiteral("epoch 2");
    return n > 2 ? QStringLiteral("epochs 2–%1").arg(n) : QStringLiteral("epochs 2–n (none here)");
}

void loaderTable(ReportPageFlow& flow, const ReportData& d, const std::vector<LoaderRow>& rows, const QString& later) {
    ReportTable t;
    // "epochs 2–5" in the headers as "ep. 2–5": the caption says it whole.
    const QString l = QStringLiteral("<br/>") + QString(later).replace(QStringLiteral("epochs "), QStringLiteral("ep.\u00A0"));
    t.header = {QStringLiteral("#"), QStringLiteral("Item"), QStringLiteral("Policy"), QStringLiteral("RAM tier MiB"),
                QStringLiteral("Epoch s") + l, QStringLiteral("AU %"), QStringLiteral("Hit %<br/>ep.\u00A01"),
                QStringLiteral("Hit %") + l, QStringLiteral("Belady %") + l, QStringLiteral("Stall s<br/>ep.\u00A01"),
                QStringLiteral("Stall s") + l, QStringLiteral("GiB storage") + l, QStringLiteral("GiB RAM") + l,
                QStringLiteral("GiB SSD") + l};
    t.widthsPercent = {3, 15, 6, 6, 7, 6, 6, 7, 7, 6, 7, 8, 8, 8};
    t.alignRight = {true, false, false, true, true, true, true, true, true, true, true, true, true, true};
    t.fontPt = 6.5;
    for (const LoaderRow& r : rows)
        t.rows.push_back({QString::number(r.item + 1), htmlBreakable(d.items[r.item].name), r.policy,
                          QString::number(r.ramTierMiB), formatNumber(r.epochS, 3), formatNumber(r.auPercent, 2),
                          formatNumber(r.hitFirst, 1), formatNumber(r.hitLater, 1), formatNumber(r.beladyLater, 1),
                          formatNumber(r.stallFirst, 3), formatNumber(r.stallLater, 3), formatNumber(r.gibStorage, 3),
                          formatNumber(r.gibRam, 3), formatNumber(r.gibSsd, 3)});
    flow.addTable(t);
}

void loaderBars(ReportPageFlow& flow, const std::vector<LoaderRow>& rows, const QString& later) {
    std::vector<BarItem> time, hit, stall;
    for (const LoaderRow& r : rows) {
        const QString label = QStringLiteral("#%1 %2").arg(r.item + 1).arg(r.policy);
        time.push_back({label, r.epochS, kNaN, kNaN, std::nullopt});
        // The bound as the per-bar line (dashed red): how far each policy is from the best possible.
        hit.push_back({label, r.hitLater, kNaN, kNaN, std::isfinite(r.beladyLater) ? std::optional<double>(r.beladyLater) : std::nullopt});
        stall.push_back({label, r.stallLater, kNaN, kNaN, std::nullopt});
    }
    const double height = flow.mm(barPlotHeightMm(rows.size()));
    auto p1 = barPlot(QStringLiteral("Epoch time, %1").arg(later), QStringLiteral("s per epoch"), time, seriesColour(0));
    auto p2 = barPlot(QStringLiteral("Hit ratio, %1").arg(later), QStringLiteral("% of sample accesses (dashed red: Belady bound)"),
                      hit, seriesColour(1));
    auto p3 = barPlot(QStringLiteral("Stall, %1").arg(later), QStringLiteral("s per epoch the accelerators waited"), stall, seriesColour(2));
    flow.ensureSpace(3 * height + flow.mm(8));
    flow.addPlots({p1}, height);
    flow.addSpace(flow.mm(1));
    flow.addPlots({p2}, height);
    flow.addSpace(flow.mm(1));
    flow.addPlots({p3}, height);
}

} // namespace

double meanFrom(const std::vector<double>& v, std::size_t from) {
    double sum = 0;
    std::size_t n = 0;
    for (std::size_t i = from; i < v.size(); ++i)
        if (std::isfinite(v[i])) {
            sum += v[i];
            ++n;
        }
    return n ? sum / static_cast<double>(n) : kNaN;
}

void loaderPoliciesSection(ReportPageFlow& flow, const ReportData& d) {
    const auto& imp = d.library->imported();
    // Workloads in the order their first item with complete training runs appears.
    std::vector<std::string> keys;
    for (const auto& it : d.items)
        if (it.node->type == aggregate::BenchmarkType::Training && !it.runs.empty() &&
            std::find(keys.begin(), keys.end(), it.node->workloadKey) == keys.end())
            keys.push_back(it.node->workloadKey);
    bool headed = false;
    for (const auto& key : keys) {
        std::vector<std::size_t> candidates;
        for (std::size_t i = 0; i < d.items.size(); ++i) {
            const ReportItem& it = d.items[i];
            if (it.node->workloadKey == key && it.node->type == aggregate::BenchmarkType::Training && !it.runs.empty()) candidates.push_back(i);
        }
        // The items that differ from `ref` in the loader's keys only.
        auto sameButLoader = [&](std::size_t ref, std::size_t i, QStringList* other) {
            for (const std::string& line : aggregate::identityDifferences(imp.runs[d.items[ref].runs.front()], imp.runs[d.items[i].runs.front()]))
                if (!isLoaderDifference(line)) *other << QString::fromStdString(line);
            return other->isEmpty();
        };
        // The reference: the first item with another policy among the items differing from it in the loader
        // only (the first item of the workload may be one on other storage).
        std::vector<LoaderRow> rows;
        QStringList leftOut;
        std::vector<QString> policies;
        for (std::size_t ref : candidates) {
            rows.clear();
            leftOut.clear();
            policies.clear();
            for (std::size_t i : candidates) {
                QStringList other;
                if (sameButLoader(ref, i, &other)) rows.push_back(loaderRow(d, i));
                else
                    leftOut << QStringLiteral("#%1 %2 (differs in %3)")
                                   .arg(i + 1)
                                   .arg(htmlBreakable(d.items[i].name), htmlBreakable(other.join(QStringLiteral("; "))));
            }
            for (const auto& r : rows)
                if (std::find(policies.begin(), policies.end(), r.policy) == policies.end()) policies.push_back(r.policy);
            if (policies.size() >= 2) break;
        }
        if (policies.size() < 2) continue;

        if (!headed) {
            flow.ensureSpace(flow.mm(60));
            reportHeading(flow, QStringLiteral("Loader policies"), 2);
            flow.addHtml(QStringLiteral("<p class=\"muted\">Items of one workload whose runs differ only in the loader's keys "
                                        "(trainio.loader, ram_tier_mib, staging_mib, ssd_tier; docs/loader.md), side by side. "
                                        "Every figure is the mean over the item's complete runs of the run's value. "
                                        "Hit %: sample accesses not read from storage; Belady %: the best any eviction could do "
                                        "with the same RAM tier; stall: seconds per epoch the accelerators waited for batches "
                                        "(mean over accelerators); GiB: bytes per epoch delivered from each tier. Epoch s: the "
                                        "epoch's samples ÷ its samples/s (DLIO metric, which leaves out the first step). AU %: the "
                                        "run's DLIO AU over all its epochs. Epoch 1 fills the tiers, so it is shown apart.</p>"),
                         7.5);
            flow.addSpace(flow.mm(2));
            headed = true;
        }
        const QString later = laterEpochs(rows);
        reportHeading(flow, htmlText(QString::fromStdString(d.items[rows.front().item].node->workloadTitle)), 3);
        loaderTable(flow, d, rows, later);
        flow.addSpace(flow.mm(1.5));
        if (!leftOut.isEmpty()) {
            flow.addHtml(QStringLiteral("<p>Left out (same workload, other settings than the loader's): %1.</p>")
                             .arg(leftOut.join(QStringLiteral("; "))),
                         7.5);
            flow.addSpace(flow.mm(1.5));
        }
        loaderBars(flow, rows, later);
        flow.addHtml(QStringLiteral("<p class=\"muted\">Bars: the mean over %1 (over the item's runs where it has several); "
                                    "axes from zero.</p>")
                         .arg(later),
                     7.0);
        flow.addSpace(flow.mm(5));
    }
}

} // namespace trainio::ui
