#include "report/report_content.h"

#include "aggregate/results_import.h"
#include "report/report_page_flow.h"
#include "report/report_plots.h"

#include <qcustomplot.h>

#include <QSysInfo>

#include <cmath>
#include <map>
#include <memory>
#include <optional>

namespace fs = std::filesystem;

namespace trainio::ui {

using aggregate::GroupAggregate;
using aggregate::ImportResult;
using aggregate::InvocationRecord;
using aggregate::MetricAggregate;
using aggregate::RunGroup;

QString formatNumber(double value, int precision) {
    if (!std::isfinite(value)) return QStringLiteral("n/a");
    return QString::number(value, 'f', precision);
}

QString formatWithCi(double value, double halfWidth, int precision) {
    if (!std::isfinite(halfWidth)) return formatNumber(value, precision);
    // No-break spaces keep "value ± half" on one line in a table cell.
    return formatNumber(value, precision) + QStringLiteral("\u00A0±\u00A0") + formatNumber(halfWidth, precision);
}

QString workloadName(const aggregate::WorkloadIdentity& id) {
    QString name = id.model.empty() ? QStringLiteral("unknown workload") : QString::fromStdString(id.model);
    if (!id.accelerator.empty()) name += QLatin1Char('_') + QString::fromStdString(id.accelerator);
    return name;
}

QString hostDescription() { return QSysInfo::machineHostName(); }

QString osDescription() {
    return QStringLiteral("%1 (%2 %3, %4)")
        .arg(QSysInfo::prettyProductName(), QSysInfo::kernelType(), QSysInfo::kernelVersion(),
             QSysInfo::currentCpuArchitecture());
}

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

// Dotted config keys wrap at their dots rather than mid-word.
QString htmlKey(const QString& key) {
    QString out = htmlBreakable(key);
    out.replace(QLatin1Char('.'), QStringLiteral(".\u200B"));
    return out;
}

QString pathText(const fs::path& p) { return htmlBreakable(QString::fromStdString(p.string())); }

// The first measured run with a threshold decides the group's line; runs of a group share a workload.
std::optional<double> groupThreshold(const ImportResult& imp, const RunGroup& g) {
    for (std::size_t i : g.runs)
        if (imp.runs[i].auThresholdPercent) return imp.runs[i].auThresholdPercent;
    return std::nullopt;
}

QString systemName(const RunGroup& g) { return g.system.empty() ? QStringLiteral("(unnamed system)") : q(g.system); }

QString verdictHtml(const GroupAggregate& a) {
    if (a.checks.empty()) return QStringLiteral("<span class=\"pass\">PASS</span>");
    return QStringLiteral("<span class=\"fail\">FAIL (%1)</span>").arg(a.checks.size());
}

ReportTable keyValueTable(const std::vector<std::pair<QString, QString>>& items, bool twoPairsPerRow) {
    ReportTable t;
    t.headerRow = false;
    t.fontPt = 7.5;
    if (!twoPairsPerRow) {
        t.widthsPercent = {24, 76};
        t.alignRight = {false, false};
        for (const auto& [k, v] : items) t.rows.push_back({QStringLiteral("<b>%1</b>").arg(k), v});
        return t;
    }
    t.widthsPercent = {24, 26, 24, 26};
    t.alignRight = {false, false, false, false};
    const std::size_t half = (items.size() + 1) / 2;
    // Column-major, so that related keys (dataset.*, reader.*) read down, not across.
    for (std::size_t r = 0; r < half; ++r) {
        QStringList row;
        for (std::size_t c : {r, r + half}) {
            if (c < items.size()) row << QStringLiteral("<b>%1</b>").arg(items[c].first) << items[c].second;
            else row << QString() << QString();
        }
        t.rows.push_back(row);
    }
    return t;
}

// configs/config.yaml (or .hydra/config.yaml) of a run, where the importer looks for it.
std::optional<std::pair<fs::path, std::string>> findRunFile(const InvocationRecord& run, const char* name) {
    std::vector<fs::path> dirs{run.path};
    for (const auto& s : run.summaryFiles) dirs.push_back(s.parent_path());
    for (const auto& dir : dirs) {
        for (const char* sub : {"configs", ".hydra"}) {
            const fs::path file = dir / sub / name;
            std::error_code ec;
            if (!fs::is_regular_file(file, ec)) continue;
            std::string why;
            if (auto text = aggregate::readBoundedFile(file, 1u << 20, why)) return std::make_pair(file, *text);
        }
    }
    return std::nullopt;
}

void heading(ReportPageFlow& flow, const QString& html, int level, double keepWithNextMm) {
    const QString tag = QStringLiteral("h%1").arg(level);
    flow.ensureSpace(flow.mm(keepWithNextMm));
    flow.addHtml(QStringLiteral("<%1>%2</%1>").arg(tag, html));
    flow.addSpace(flow.mm(level == 2 ? 2.0 : 1.2));
}

// ---- title page ----------------------------------------------------------------------------------

void titlePage(ReportPageFlow& flow, const ReportData& d) {
    flow.addSpace(flow.mm(6));
    flow.addHtml(QStringLiteral("<h1>%1</h1>").arg(htmlText(d.title)));
    flow.addSpace(flow.mm(1.5));
    flow.addHtml(QStringLiteral("<p class=\"muted\">Deep-learning training I/O: accelerator utilization (AU) and "
                                "bandwidth, with the metric definitions of DLIO and MLPerf Storage, aggregated over "
                                "the measured runs of each benchmark.</p>"),
                 10.0);
    flow.addSpace(flow.mm(6));

    heading(flow, QStringLiteral("Provenance"), 3, 40);
    const auto& imp = d.imported;
    QStringList roots;
    for (const auto& r : d.roots) roots << htmlBreakable(r);
    std::size_t measuredRuns = 0, warmups = 0;
    for (const auto& a : d.aggregates) {
        measuredRuns += a.group.runs.size();
        warmups += a.group.warmups.size();
    }
    std::vector<std::pair<QString, QString>> prov{
        {QStringLiteral("Generated"), htmlText(d.generated.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss t")))},
        {QStringLiteral("TrainIO version"), QStringLiteral(TRAINIO_VERSION)},
        {QStringLiteral("Host"), htmlText(hostDescription())},
        {QStringLiteral("Operating system"), htmlText(osDescription())},
        {QStringLiteral("Qt"), htmlText(QString::fromLatin1(qVersion()))},
        {QStringLiteral("Folders imported"), roots.join(QStringLiteral("<br/>"))},
        {QStringLiteral("Import"),
         QStringLiteral("%1 summary.json found, %2 invocations read, %3 groups found, %4 in this report "
                        "(%5 measured runs, %6 warm-up runs), %7 files skipped")
             .arg(imp.summariesFound)
             .arg(imp.runs.size())
             .arg(imp.groups.size())
             .arg(d.groups.size())
             .arg(measuredRuns)
             .arg(warmups)
             .arg(imp.skipped.size())},
    };
    flow.addTable(keyValueTable(prov, false));
    flow.addSpace(flow.mm(5));

    // Systems under test: the label each group carries, with the description file when one was found.
    heading(flow, QStringLiteral("Systems"), 3, 25);
    std::map<QString, std::pair<std::size_t, QString>> systems;
    for (const auto& a : d.aggregates) {
        auto& entry = systems[systemName(a.group)];
        ++entry.first;
        if (a.group.systemFile) entry.second = pathText(*a.group.systemFile);
    }
    ReportTable sys;
    sys.header = {QStringLiteral("System"), QStringLiteral("Groups"), QStringLiteral("Description file")};
    sys.widthsPercent = {38, 8, 54};
    sys.alignRight = {false, true, false};
    for (const auto& [name, entry] : systems)
        sys.rows.push_back({htmlBreakable(name), QString::number(entry.first),
                            entry.second.isEmpty() ? QStringLiteral("<span class=\"muted\">none found</span>") : entry.second});
    flow.addTable(sys);
    flow.addSpace(flow.mm(5));

    heading(flow, QStringLiteral("Results at a glance"), 3, 30);
    flow.addHtml(QStringLiteral("<p class=\"muted\">Mean of the per-run means (the MLPerf Storage rule) ± the half "
                                "width of its 95 % confidence interval, over the measured runs; the warm-up is "
                                "excluded. # is the section of the group below.</p>"),
                 7.5);
    flow.addSpace(flow.mm(1.5));
    ReportTable overview;
    overview.header = {QStringLiteral("#"), QStringLiteral("Workload"), QStringLiteral("System"), QStringLiteral("Acc."),
                       QStringLiteral("Runs"), QStringLiteral("AU %"), QStringLiteral("samples/s"), QStringLiteral("MiB/s"),
                       QStringLiteral("Checks")};
    overview.widthsPercent = {4, 15, 17, 5, 6, 12, 16, 16, 9};
    overview.alignRight = {true, false, false, true, true, true, true, true, false};
    for (std::size_t i = 0; i < d.aggregates.size(); ++i) {
        const auto& a = d.aggregates[i];
        const auto& g = a.group;
        overview.rows.push_back(
            {QString::number(i + 1), htmlText(workloadName(g.identity)), htmlBreakable(systemName(g)),
             QString::number(g.identity.accelerators),
             QString::number(g.runs.size()) + (g.warmups.empty() ? QString() : QStringLiteral(" + %1 w").arg(g.warmups.size())),
             formatWithCi(a.au.mean.value, a.au.ci95.halfWidth),
             formatWithCi(a.samplesPerSecond.mean.value, a.samplesPerSecond.ci95.halfWidth),
             formatWithCi(a.mibPerSecond.mean.value, a.mibPerSecond.ci95.halfWidth), verdictHtml(a)});
    }
    flow.addTable(overview);
    flow.addSpace(flow.mm(5));
}

void legendSection(ReportPageFlow& flow, const ReportData& d) {
    heading(flow, QStringLiteral("Units and rules"), 3, 50);
    const auto& first = d.aggregates.front();
    const auto groupJson = aggregate::toJson(first, d.imported);
    const QString mlperfRule = q(groupJson.value("mlperf_rule", std::string()));
    const QString mibUnit = q(groupJson["units"].value("MB_per_second", std::string()));

    ReportTable units;
    units.header = {QStringLiteral("Unit"), QStringLiteral("Meaning")};
    units.widthsPercent = {16, 84};
    units.rows = {
        {QStringLiteral("<b>AU %</b>"),
         QStringLiteral("Accelerator utilization: the share of the training time the emulated accelerators spent "
                        "computing rather than waiting for data (DLIO train_au_percentage). A run passes when its "
                        "mean AU is at least the workload's threshold, metric.au × 100 (90 % for UNet3D and "
                        "ResNet-50, 70 % for CosmoFlow in MLPerf Storage v1.0).")},
        {QStringLiteral("<b>samples/s</b>"),
         QStringLiteral("Training samples delivered per second, summed over the accelerators "
                        "(DLIO train_throughput_samples_per_second).")},
        {QStringLiteral("<b>MiB/s</b>"),
         QStringLiteral("1 MiB/s = 2^20 bytes/s = 1.048576 MB/s: samples/s × mean record length ÷ 2^20. DLIO and "
                        "MLPerf Storage name these keys MB/s (train_io_mean_MB_per_second, "
                        "train_throughput_MB_per_second) but the values are MiB/s; TrainIO labels them MiB/s. "
                        "Core's definition: %1.")
             .arg(htmlText(mibUnit))},
        {QStringLiteral("<b>Warm-up</b>"),
         QStringLiteral("The invocation before the measured runs (MLPerf Storage: 1 warm-up + 5 measured). It is "
                        "listed apart and excluded from every statistic.")},
    };
    flow.addTable(units);
    flow.addSpace(flow.mm(3));

    ReportTable rules;
    rules.header = {QStringLiteral("Statistic"), QStringLiteral("Rule")};
    rules.widthsPercent = {22, 78};
    const MetricAggregate& m = first.au;
    rules.rows = {
        {QStringLiteral("<b>MLPerf Storage rule</b>"), htmlText(mlperfRule)},
        {QStringLiteral("Mean"), htmlText(q(m.mean.rule))},
        {QStringLiteral("Population stdev"), htmlText(q(m.populationStdev.rule))},
        {QStringLiteral("Sample stdev"), htmlText(q(m.sampleStdev.rule))},
        {QStringLiteral("95 % CI"), htmlText(q(m.ci95.rule))},
        {QStringLiteral("Median"), htmlText(q(m.median.rule))},
        {QStringLiteral("Min / max"), htmlText(q(m.min.rule) + QStringLiteral(" / ") + q(m.max.rule))},
        {QStringLiteral("Geometric mean"), htmlText(q(m.geomean.rule))},
        {QStringLiteral("CV"), htmlText(q(m.cv.rule))},
    };
    flow.addTable(rules);
}

// ---- comparison figures --------------------------------------------------------------------------

void comparisonSection(ReportPageFlow& flow, const ReportData& d) {
    flow.newPage();
    heading(flow, QStringLiteral("Comparison across groups"), 2, 60);
    flow.addHtml(QStringLiteral("<p class=\"muted\">One figure per workload; each bar is a group (its section "
                                "number), the mean of its measured runs, with whiskers for the 95 % confidence "
                                "interval of the mean (none for a single run). The dashed red line is the AU pass "
                                "threshold of the workload.</p>"),
                 7.5);
    flow.addSpace(flow.mm(3));

    std::vector<QString> workloads;
    for (const auto& a : d.aggregates) {
        const QString w = workloadName(a.group.identity);
        if (std::find(workloads.begin(), workloads.end(), w) == workloads.end()) workloads.push_back(w);
    }
    for (const auto& w : workloads) {
        std::vector<BarItem> au, sps, mib;
        for (std::size_t i = 0; i < d.aggregates.size(); ++i) {
            const auto& a = d.aggregates[i];
            if (workloadName(a.group.identity) != w) continue;
            const QString label = QStringLiteral("#%1").arg(i + 1);
            au.push_back({label, a.au.mean.value, a.au.ci95.low, a.au.ci95.high, groupThreshold(d.imported, a.group)});
            sps.push_back({label, a.samplesPerSecond.mean.value, a.samplesPerSecond.ci95.low,
                           a.samplesPerSecond.ci95.high, std::nullopt});
            mib.push_back({label, a.mibPerSecond.mean.value, a.mibPerSecond.ci95.low, a.mibPerSecond.ci95.high,
                           std::nullopt});
        }
        auto p1 = makeBarPlot(QStringLiteral("AU"), QStringLiteral("AU %"), au, seriesColour(0));
        auto p2 = makeBarPlot(QStringLiteral("Throughput"), QStringLiteral("samples/s"), sps, seriesColour(1));
        auto p3 = makeBarPlot(QStringLiteral("Bandwidth"), QStringLiteral("MiB/s"), mib, seriesColour(2));
        // Side by side while the tick labels fit; one above the other for many groups.
        const bool stacked = au.size() > 4;
        const double figureHeight = stacked ? flow.mm(150) : flow.mm(58);
        flow.ensureSpace(figureHeight + flow.mm(8));
        heading(flow, htmlText(w), 3, 8);
        if (stacked) {
            flow.addPlots({p1.get()}, flow.mm(50));
            flow.addPlots({p2.get()}, flow.mm(50));
            flow.addPlots({p3.get()}, flow.mm(50));
        } else {
            flow.addPlots({p1.get(), p2.get(), p3.get()}, flow.mm(58));
        }
        flow.addSpace(flow.mm(5));
    }
}

// ---- one group -----------------------------------------------------------------------------------

ReportTable runTable(const ImportResult& imp, const std::vector<std::size_t>& runs, bool warmup) {
    ReportTable t;
    t.header = {QStringLiteral("Run"), QStringLiteral("AU %"), QStringLiteral("samples/s"), QStringLiteral("MiB/s"),
                QStringLiteral("Epochs"), QStringLiteral("DLIO verdict"), QStringLiteral("Start"), QStringLiteral("Hosts")};
    t.widthsPercent = {12, 9, 12, 11, 9, 10, 30, 7};
    t.alignRight = {false, true, true, true, true, false, false, true};
    for (std::size_t i : runs) {
        const auto& r = imp.runs[i];
        t.rows.push_back({htmlBreakable(q(r.runName)), formatNumber(r.auMeanPercent), formatNumber(r.samplesPerSecond),
                          formatNumber(r.mbPerSecond), QString::number(r.epochs),
                          r.auMeetExpectation.empty() ? QStringLiteral("–") : htmlText(q(r.auMeetExpectation)),
                          htmlText(q(r.start)), QString::number(r.numHosts)});
        if (warmup) t.rowBackground.push_back(QStringLiteral("#fbf3e4"));
    }
    return t;
}

void statisticsTable(ReportPageFlow& flow, const GroupAggregate& a) {
    ReportTable t;
    t.header = {QStringLiteral("Statistic over the runs"), QStringLiteral("AU %"), QStringLiteral("samples/s"),
                QStringLiteral("MiB/s"), QStringLiteral("Rule")};
    t.widthsPercent = {19, 12, 15, 14, 40};
    t.alignRight = {false, true, true, true, false};
    const MetricAggregate* m[] = {&a.au, &a.samplesPerSecond, &a.mibPerSecond};
    auto row = [&](const QString& name, auto pick, int precision = 2) {
        QStringList r{name};
        for (const auto* metric : m) r << formatNumber(pick(*metric).value, precision);
        r << QStringLiteral("<span class=\"muted\">%1</span>").arg(htmlText(q(pick(a.au).rule)));
        t.rows.push_back(r);
    };
    row(QStringLiteral("<b>Mean</b> (MLPerf Storage rule)"), [](const MetricAggregate& x) { return x.mean; });
    row(QStringLiteral("<b>Population stdev</b> (MLPerf Storage rule)"),
        [](const MetricAggregate& x) { return x.populationStdev; });
    {
        QStringList r{QStringLiteral("95 % CI of the mean")};
        for (const auto* metric : m)
            r << formatNumber(metric->ci95.low) + QStringLiteral(" – ") + formatNumber(metric->ci95.high);
        r << QStringLiteral("<span class=\"muted\">%1</span>").arg(htmlText(q(a.au.ci95.rule)));
        t.rows.push_back(r);
    }
    row(QStringLiteral("Sample stdev"), [](const MetricAggregate& x) { return x.sampleStdev; });
    row(QStringLiteral("Median"), [](const MetricAggregate& x) { return x.median; });
    row(QStringLiteral("Min"), [](const MetricAggregate& x) { return x.min; });
    row(QStringLiteral("Max"), [](const MetricAggregate& x) { return x.max; });
    row(QStringLiteral("Geometric mean"), [](const MetricAggregate& x) { return x.geomean; });
    row(QStringLiteral("CV"), [](const MetricAggregate& x) { return x.cv; }, 4);
    t.rows.push_back({QStringLiteral("Runs (n)"), QString::number(a.au.values.size()),
                      QString::number(a.samplesPerSecond.values.size()), QString::number(a.mibPerSecond.values.size()),
                      QStringLiteral("<span class=\"muted\">measured runs; the warm-up is excluded</span>")});
    flow.addTable(t);
}

void epochTable(ReportPageFlow& flow, const GroupAggregate& a) {
    ReportTable t;
    t.header = {QStringLiteral("Epoch"), QStringLiteral("Runs"), QStringLiteral("AU % (mean ± 95 % CI)"),
                QStringLiteral("samples/s (mean ± 95 % CI)"), QStringLiteral("MiB/s (mean ± 95 % CI)")};
    t.widthsPercent = {10, 8, 26, 30, 26};
    t.alignRight = {true, true, true, true, true};
    for (const auto& e : a.perEpoch) {
        t.rows.push_back({QString::number(e.epoch), QString::number(e.au.values.size()),
                          formatWithCi(e.au.mean.value, e.au.ci95.halfWidth),
                          formatWithCi(e.samplesPerSecond.mean.value, e.samplesPerSecond.ci95.halfWidth),
                          formatWithCi(e.mibPerSecond.mean.value, e.mibPerSecond.ci95.halfWidth)});
    }
    flow.addTable(t);
}

void configurationTables(ReportPageFlow& flow, const ReportData& d, const GroupAggregate& a) {
    const auto& g = a.group;
    const auto& imp = d.imported;
    const InvocationRecord* first = nullptr;
    if (!g.runs.empty()) first = &imp.runs[g.runs.front()];
    else if (!g.warmups.empty()) first = &imp.runs[g.warmups.front()];

    std::vector<std::pair<QString, QString>> items{
        {QStringLiteral("Model"), g.identity.model.empty() ? QStringLiteral("unknown") : htmlText(q(g.identity.model))},
        {QStringLiteral("Accelerator"), g.identity.accelerator.empty() ? QStringLiteral("unknown") : htmlText(q(g.identity.accelerator))},
        {QStringLiteral("Accelerators"), QString::number(g.identity.accelerators)},
        {QStringLiteral("Files (train)"), QString::number(g.identity.filesTrain)},
        {QStringLiteral("Samples per file"), QString::number(g.identity.samplesPerFile)},
        {QStringLiteral("Measured runs"), QString::number(g.runs.size())},
        {QStringLiteral("Warm-up runs"), QString::number(g.warmups.size())},
        {QStringLiteral("System"), htmlBreakable(systemName(g))},
    };
    if (first) {
        items.emplace_back(QStringLiteral("Record length"), first->recordLengthBytes
                                                                ? formatNumber(*first->recordLengthBytes, 0) + QStringLiteral(" B")
                                                                : QStringLiteral("unknown"));
        items.emplace_back(QStringLiteral("Epochs"), QString::number(first->epochs));
        items.emplace_back(QStringLiteral("Hosts"), QString::number(first->numHosts));
        items.emplace_back(QStringLiteral("Client memory"), formatNumber(first->hostMemoryGiB, 1) + QStringLiteral(" GiB (sum of host_memory_GB)"));
        items.emplace_back(QStringLiteral("AU threshold"),
                           first->auThresholdPercent
                               ? formatNumber(*first->auThresholdPercent, 0) + QStringLiteral(" % (") + htmlText(q(first->auThresholdSource)) + QStringLiteral(")")
                               : QStringLiteral("unknown"));
        QStringList hosts;
        for (const auto& h : first->hostnames) hosts << htmlText(q(h));
        items.emplace_back(QStringLiteral("Host names"), hosts.isEmpty() ? QStringLiteral("–") : hosts.join(QStringLiteral(", ")));
    }
    heading(flow, QStringLiteral("Configuration"), 3, 30);
    flow.addTable(keyValueTable(items, true));
    flow.addSpace(flow.mm(3));

    if (!first) return;
    if (auto cfg = findRunFile(*first, "config.yaml")) {
        std::vector<std::pair<QString, QString>> keys;
        for (const auto& [k, v] : aggregate::readFlatYaml(cfg->second)) keys.emplace_back(htmlKey(q(k)), htmlBreakable(q(v)));
        if (!keys.empty()) {
            flow.ensureSpace(flow.mm(25));
            flow.addHtml(QStringLiteral("<p><b>%1</b> <span class=\"muted\">of run %2 (workload keys, as Hydra composed "
                                        "them)</span></p>")
                             .arg(htmlBreakable(QString::fromStdString(cfg->first.string())), htmlText(q(first->runName))),
                         7.5);
            flow.addSpace(flow.mm(1));
            flow.addTable(keyValueTable(keys, true));
            flow.addSpace(flow.mm(2));
        }
    }
    if (auto ov = findRunFile(*first, "overrides.yaml")) {
        QStringList list;
        for (const auto& [k, v] : aggregate::readOverrides(ov->second))
            list << htmlBreakable((k == "=workload" ? QStringLiteral("workload") : q(k)) + QLatin1Char('=') + q(v));
        if (!list.isEmpty()) {
            flow.addHtml(QStringLiteral("<p><b>Overrides</b> <span class=\"muted\">(configs/overrides.yaml)</span>: %1</p>")
                             .arg(list.join(QStringLiteral("; "))),
                         7.5);
            flow.addSpace(flow.mm(3));
        }
    }
}

void checksSection(ReportPageFlow& flow, const GroupAggregate& a) {
    heading(flow, QStringLiteral("MLPerf Storage closed-division checks"), 3, 25);
    if (a.checks.empty()) {
        flow.addHtml(QStringLiteral("<p><span class=\"pass\">PASS</span> — every rule that could be checked holds "
                                    "(5 measured runs + warm-up, AU at or above the threshold in every run, dataset "
                                    "at least 5 × the clients' memory, one configuration per folder).</p>"),
                     8.0);
    } else {
        flow.addHtml(QStringLiteral("<p><span class=\"fail\">FAIL</span> — %1 rule check%2 failed:</p>")
                         .arg(a.checks.size())
                         .arg(a.checks.size() == 1 ? QString() : QStringLiteral("s")),
                     8.0);
        for (std::size_t i = 0; i < a.checks.size(); ++i) {
            flow.addSpace(flow.mm(0.8));
            flow.addHtml(QStringLiteral("<table width=\"100%\" cellspacing=\"0\" cellpadding=\"0\"><tr>"
                                        "<td width=\"4%\" class=\"fail\">%1.</td><td>%2</td></tr></table>")
                             .arg(i + 1)
                             .arg(htmlBreakable(q(a.checks[i]))),
                         8.0);
        }
    }
    if (a.reportAgrees) {
        flow.addSpace(flow.mm(1.2));
        flow.addHtml(*a.reportAgrees
                         ? QStringLiteral("<p>The mlperf_storage_report.json beside the runs <span class=\"pass\">agrees</span> "
                                          "with them (relative difference ≤ 1e-9).</p>")
                         : QStringLiteral("<p>The mlperf_storage_report.json beside the runs <span class=\"fail\">disagrees</span> "
                                          "with them (see the checks above).</p>"),
                     8.0);
    }
    if (!a.notes.empty()) {
        flow.addSpace(flow.mm(2));
        flow.addHtml(QStringLiteral("<p class=\"muted\"><b>Not checked, or tolerated while reading:</b></p>"), 7.5);
        for (const auto& n : a.notes) {
            flow.addSpace(flow.mm(0.5));
            flow.addHtml(QStringLiteral("<p class=\"muted\">• %1</p>").arg(htmlBreakable(q(n))), 7.5);
        }
    }
}

void groupSection(ReportPageFlow& flow, const ReportData& d, std::size_t index) {
    const GroupAggregate& a = d.aggregates[index];
    const auto& g = a.group;
    const auto& imp = d.imported;
    flow.newPage();
    flow.addHtml(QStringLiteral("<h2>%1. %2 <span class=\"muted\" style=\"font-weight: normal;\">— %3</span></h2>")
                     .arg(index + 1)
                     .arg(htmlText(workloadName(g.identity)), htmlBreakable(systemName(g))));
    flow.addSpace(flow.mm(1));
    flow.addHtml(QStringLiteral("<p class=\"muted\">%1</p>").arg(pathText(g.path)), 7.5);
    flow.addSpace(flow.mm(1.5));
    flow.addHtml(QStringLiteral("<p>Checks: %1 &nbsp;·&nbsp; AU %2 % &nbsp;·&nbsp; %3 samples/s &nbsp;·&nbsp; %4 MiB/s "
                                "<span class=\"muted\">(mean ± 95 % CI over %5 measured runs)</span></p>")
                     .arg(verdictHtml(a), formatWithCi(a.au.mean.value, a.au.ci95.halfWidth),
                          formatWithCi(a.samplesPerSecond.mean.value, a.samplesPerSecond.ci95.halfWidth),
                          formatWithCi(a.mibPerSecond.mean.value, a.mibPerSecond.ci95.halfWidth))
                     .arg(g.runs.size()),
                 9.0);
    flow.addSpace(flow.mm(4));

    configurationTables(flow, d, a);

    // Per-epoch lines of every run, the warm-up dashed and grey.
    std::vector<LineSeries> auLines, spsLines;
    for (std::size_t i : g.runs) {
        const auto& r = imp.runs[i];
        auLines.push_back({q(r.runName), r.epochAuPercent, false});
        spsLines.push_back({q(r.runName), r.epochSamplesPerSecond, false});
    }
    for (std::size_t i : g.warmups) {
        const auto& r = imp.runs[i];
        const QString name = q(r.runName);
        const QString label = name + (name.contains(QStringLiteral("warm"), Qt::CaseInsensitive)
                                           ? QStringLiteral(" (excluded)")
                                           : QStringLiteral(" (warm-up, excluded)"));
        auLines.push_back({label, r.epochAuPercent, true});
        spsLines.push_back({label, r.epochSamplesPerSecond, true});
    }
    auto auPlot = makeEpochPlot(QStringLiteral("AU per epoch"), QStringLiteral("AU %"), auLines, groupThreshold(imp, g), false);
    auto spsPlot = makeEpochPlot(QStringLiteral("Throughput per epoch"), QStringLiteral("samples/s"), spsLines, std::nullopt, false);
    flow.ensureSpace(flow.mm(72));
    heading(flow, QStringLiteral("Per-epoch results of the runs"), 3, 72);
    flow.addPlots({auPlot.get(), spsPlot.get()}, flow.mm(64));
    flow.addSpace(flow.mm(4));

    heading(flow, QStringLiteral("Aggregate over the measured runs"), 3, 40);
    statisticsTable(flow, a);
    flow.addSpace(flow.mm(4));

    if (!a.perEpoch.empty()) {
        heading(flow, QStringLiteral("Per-epoch aggregate"), 3, 25);
        epochTable(flow, a);
        flow.addSpace(flow.mm(4));
    }

    heading(flow, QStringLiteral("Measured runs"), 3, 25);
    flow.addTable(runTable(imp, g.runs, false));
    flow.addSpace(flow.mm(4));

    heading(flow, QStringLiteral("Warm-up <span class=\"muted\" style=\"font-weight: normal;\">— excluded from every "
                                 "statistic</span>"),
            3, 20);
    if (g.warmups.empty()) {
        flow.addHtml(QStringLiteral("<p class=\"muted\">No warm-up run was found beside the measured runs.</p>"), 8.0);
    } else {
        flow.addTable(runTable(imp, g.warmups, true));
    }
    flow.addSpace(flow.mm(4));

    checksSection(flow, a);
}

} // namespace

void composeReport(ReportPageFlow& flow, const ReportData& d) {
    titlePage(flow, d);
    legendSection(flow, d);
    comparisonSection(flow, d);
    for (std::size_t i = 0; i < d.aggregates.size(); ++i) groupSection(flow, d, i);
}

} // namespace trainio::ui
