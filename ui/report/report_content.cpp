#include "report/report_content.h"

#include "aggregate/compare.h"
#include "aggregate/identity.h"
#include "aggregate/results_import.h"
#include "metrics/dlio_metrics.h"
#include "report/report_page_flow.h"
#include "report/report_loader.h"
#include "report/report_model.h"
#include "report/report_plots.h"
#include "sweep_view.h"
#include "aggregate/step_digest.h"
#include "telemetry/telemetry_summary.h"
#include "telemetry/telemetry_table.h"

#include <qcustomplot.h>

#include <QSysInfo>

#include <algorithm>
#include <cmath>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <set>

namespace fs = std::filesystem;

namespace trainio::ui {

using aggregate::GroupAggregate;
using aggregate::ImportResult;
using aggregate::InvocationRecord;
using aggregate::InvocationStatus;
using aggregate::LibraryNode;
using aggregate::MetricAggregate;
using aggregate::NodeKind;
using aggregate::NodeMetric;

QString formatNumber(double value, int precision) {
    if (!std::isfinite(value)) return QStringLiteral("n/a");
    return QString::number(value, 'f', precision);
}

QString formatWithSpread(double value, double spread, int precision) {
    if (!std::isfinite(spread)) return formatNumber(value, precision); // fewer than two values: no spread
    // No-break spaces keep "value ± sd" on one line in a table cell.
    return formatNumber(value, precision) + QStringLiteral("\u00A0±\u00A0") + formatNumber(spread, precision);
}

QString hostDescription() { return QSysInfo::machineHostName(); }

QString osDescription() {
    return QStringLiteral("%1 (%2 %3, %4)")
        .arg(QSysInfo::prettyProductName(), QSysInfo::kernelType(), QSysInfo::kernelVersion(),
             QSysInfo::currentCpuArchitecture());
}

namespace {

// The items below n: benchmarks, and run-once invocations (aggregate::isLibraryItem).
void collectItems(const LibraryNode& n, std::vector<const LibraryNode*>& out) {
    if (aggregate::isLibraryItem(n)) {
        out.push_back(&n);
        return;
    }
    for (const auto& c : n.children) collectItems(*c, out);
}

bool below(const LibraryNode* n, const LibraryNode* ancestor) {
    for (const LibraryNode* p = n ? n->parent : nullptr; p; p = p->parent)
        if (p == ancestor) return true;
    return false;
}

} // namespace

std::vector<const LibraryNode*> reportItems(const aggregate::ResultsLibrary& library,
                                            const std::vector<const LibraryNode*>& selected) {
    std::vector<const LibraryNode*> candidates;
    if (selected.empty()) collectItems(library.root(), candidates);
    for (const LibraryNode* n : selected) {
        if (!n) continue;
        switch (n->kind) {
        case NodeKind::Benchmark:
        case NodeKind::Invocation: candidates.push_back(n); break;
        case NodeKind::Epoch:
            if (n->parent) candidates.push_back(n->parent);
            break;
        case NodeKind::Root:
        case NodeKind::System:
        case NodeKind::Workload:
        case NodeKind::Collocation: collectItems(*n, candidates); break;
        }
    }
    std::vector<const LibraryNode*> items;
    std::set<const LibraryNode*> seen;
    for (const LibraryNode* n : candidates) {
        if (!seen.insert(n).second) continue;
        const bool heldByBenchmark = std::any_of(candidates.begin(), candidates.end(), [&](const LibraryNode* o) {
            return o->kind == NodeKind::Benchmark && below(n, o);
        });
        if (!heldByBenchmark) items.push_back(n);
    }
    return items;
}

ReportItem makeReportItem(const aggregate::ResultsLibrary& library, const LibraryNode* node) {
    ReportItem item;
    item.node = node;
    for (const LibraryNode* p = node->parent; p; p = p->parent)
        if (p->kind == NodeKind::System) {
            item.system = p;
            break;
        }
    const auto& imp = library.imported();
    if (node->kind == NodeKind::Benchmark && node->group && *node->group < imp.groups.size()) {
        item.group = node->group;
        const auto& g = imp.groups[*node->group];
        item.runs = g.runs;
        item.excluded = g.excluded;
        item.warmups = g.warmups;
        return item;
    }
    if (node->kind == NodeKind::Invocation && node->run) {
        const std::size_t r = *node->run;
        // The group that holds the run (a benchmark's, or the run-once invocation's own).
        for (std::size_t g = 0; g < imp.groups.size() && !item.group; ++g)
            for (const auto* list : {&imp.groups[g].runs, &imp.groups[g].excluded, &imp.groups[g].warmups})
                if (std::find(list->begin(), list->end(), r) != list->end()) item.group = g;
        if (node->warmup) item.warmups.push_back(r);
        else if (imp.runs.at(r).status == InvocationStatus::Complete && !node->excluded) item.runs.push_back(r);
        else item.excluded.push_back(r);
        return item;
    }
    // A benchmark node without its group: its invocation children say what they are.
    for (const auto& c : node->children) {
        if (!c->run) continue;
        if (c->warmup) item.warmups.push_back(*c->run);
        else if (c->excluded || c->status != InvocationStatus::Complete) item.excluded.push_back(*c->run);
        else item.runs.push_back(*c->run);
    }
    return item;
}

void nameReportItems(std::vector<ReportItem>& items) {
    auto base = [](const LibraryNode& n) { return QString::fromStdString(n.itemName.empty() ? n.label : n.itemName); };
    for (auto& it : items) it.name = base(*it.node);
    for (auto& it : items) {
        const bool shared = std::count_if(items.begin(), items.end(), [&](const ReportItem& o) { return base(*o.node) == base(*it.node); }) > 1;
        if (!shared) continue;
        // The default names ("system · workload · N accelerators") repeat for benchmarks of one workload:
        // the folder tells them apart (runs/ says nothing, its parent does).
        fs::path p = it.node->path;
        if (p.filename() == "runs" && p.has_parent_path()) p = p.parent_path();
        it.name = base(*it.node) + QStringLiteral(" (%1)").arg(QString::fromStdString(p.filename().string()));
    }
}

void reportHeading(ReportPageFlow& flow, const QString& html, int level, double keepWithNextMm) {
    const QString tag = QStringLiteral("h%1").arg(level);
    flow.ensureSpace(flow.mm(keepWithNextMm));
    flow.addHtml(QStringLiteral("<%1>%2</%1>").arg(tag, html));
    flow.addSpace(flow.mm(level == 2 ? 2.0 : 1.2));
}

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

QString systemLabel(const ReportItem& it) {
    return it.system && !it.system->label.empty() ? q(it.system->label) : QStringLiteral("(unnamed system)");
}
QString workloadText(const LibraryNode& n) {
    if (!n.workloadTitle.empty()) return q(n.workloadTitle);
    return QStringLiteral("unknown workload");
}

// Plain text (notes, descriptions) as HTML: escaped, its line breaks kept.
QString multiline(const QString& text) {
    QString html = htmlText(text.trimmed());
    html.replace(QLatin1Char('\n'), QStringLiteral("<br/>"));
    return html;
}

QString statusHtml(InvocationStatus s, const std::string& reason = {}) {
    const QString name = q(aggregate::statusName(s));
    const QString cls = s == InvocationStatus::Complete ? QStringLiteral("pass") : QStringLiteral("fail");
    QString html = QStringLiteral("<span class=\"%1\">%2</span>").arg(cls, name);
    if (!reason.empty()) html += QStringLiteral(" <span class=\"muted\">— %1</span>").arg(htmlBreakable(q(reason)));
    return html;
}

const QString kPlusMinus = QStringLiteral(
    "± is the population standard deviation (numpy.std, the spread MLPerf Storage reports, and what the GUI shows) "
    "— over a benchmark's complete runs, or over an invocation's epochs; no ± where there are fewer than two values. "
    "95 % confidence intervals are given separately, in brackets or in their own rows.");

// Dotted config keys wrap at their dots rather than mid-word.
QString htmlKey(const QString& key) {
    QString out = htmlBreakable(key);
    out.replace(QLatin1Char('.'), QStringLiteral(".\u200B"));
    return out;
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

std::optional<double> itemThreshold(const ImportResult& imp, const ReportItem& it) {
    for (const auto* list : {&it.runs, &it.excluded, &it.warmups})
        for (std::size_t i : *list)
            if (imp.runs[i].auThresholdPercent) return imp.runs[i].auThresholdPercent;
    return std::nullopt;
}

QString metricCell(const NodeMetric& m, int precision = 2) {
    if (m.n == 0) return QStringLiteral("–");
    return formatWithSpread(m.mean, m.n >= 2 ? m.stdev : std::nan(""), precision);
}

// ---- title page ----------------------------------------------------------------------------------

void titlePage(ReportPageFlow& flow, const ReportData& d) {
    const auto& o = d.options;
    flow.addSpace(flow.mm(4));
    flow.addHtml(QStringLiteral("<h1>%1</h1>").arg(htmlText(d.title)));
    if (!o.subtitle.trimmed().isEmpty()) {
        flow.addSpace(flow.mm(1.5));
        flow.addHtml(QStringLiteral("<p style=\"font-size: 13pt; color: #33475b;\">%1</p>").arg(htmlText(o.subtitle.trimmed())), 13.0);
    }
    flow.addSpace(flow.mm(1.5));
    flow.addHtml(QStringLiteral("<p class=\"muted\">Generated %1 by TrainIO %2 · deep-learning training I/O: "
                                "accelerator utilization (AU) and bandwidth, with the metric definitions of DLIO "
                                "and MLPerf Storage.</p>")
                     .arg(htmlText(d.generated.toString(QStringLiteral("yyyy-MM-dd HH:mm"))), QStringLiteral(TRAINIO_VERSION)),
                 8.0);
    if (!o.notes.trimmed().isEmpty()) {
        flow.addSpace(flow.mm(4));
        reportHeading(flow, QStringLiteral("Notes"), 3, 15);
        flow.addHtml(QStringLiteral("<p>%1</p>").arg(multiline(o.notes)), 9.0);
    }
    flow.addSpace(flow.mm(5));

    // Systems under test: each system node above a selected item, with the description of its storage.
    reportHeading(flow, QStringLiteral("Systems under test"), 3, 25);
    std::vector<const LibraryNode*> systems;
    bool unnamed = false;
    for (const auto& it : d.items) {
        if (!it.system) unnamed = true;
        else if (std::find(systems.begin(), systems.end(), it.system) == systems.end()) systems.push_back(it.system);
    }
    ReportTable sys;
    sys.header = {QStringLiteral("System"), QStringLiteral("Storage under test"), QStringLiteral("Notes")};
    sys.widthsPercent = {26, 50, 24};
    sys.alignRight = {false, false, false};
    sys.fontPt = 8.0;
    // The system node carries the description; the groups below it carry the same text from the import.
    auto describe = [&](const LibraryNode* s) {
        if (!s->description.empty()) return s->description;
        for (const auto& it : d.items)
            if (it.system == s && it.group && !d.library->imported().groups.at(*it.group).systemDescription.empty())
                return d.library->imported().groups.at(*it.group).systemDescription;
        return std::string();
    };
    for (const LibraryNode* s : systems)
        sys.rows.push_back({QStringLiteral("<b>%1</b>").arg(htmlBreakable(q(s->label))),
                            describe(s).empty()
                                ? QStringLiteral("<span class=\"muted\">not described (trainio-cli label DIR --description …, or "
                                                 "the Results page's label editor)</span>")
                                : multiline(q(describe(s))),
                            multiline(q(s->notes))});
    if (unnamed) sys.rows.push_back({QStringLiteral("(unnamed system)"), QStringLiteral("<span class=\"muted\">not described</span>"), QString()});
    flow.addTable(sys);
    flow.addSpace(flow.mm(5));

    reportHeading(flow, QStringLiteral("Items in this report"), 3, 30);
    flow.addHtml(QStringLiteral("<p class=\"muted\">%1 Read B/W (GiB/s) is MLPerf Storage v3.0's headline: the mean "
                                "over runs of train_io_mean_MB_per_second ÷ 1024; for a checkpointing item, W and R are "
                                "its Write and Read B/W (GiB/s). # is the item's section below; %2 "
                                "is the baseline of the comparisons.</p>")
                     .arg(htmlText(kPlusMinus))
                     .arg(d.options.baseline + 1),
                 7.5);
    flow.addSpace(flow.mm(1.5));
    ReportTable t;
    t.header = {QStringLiteral("#"), QStringLiteral("Item"), QStringLiteral("Status"), QStringLiteral("Acc."),
                QStringLiteral("Runs"), QStringLiteral("AU %"), QStringLiteral("samples/s"), QStringLiteral("Read GiB/s"),
                QStringLiteral("MiB/s")};
    t.widthsPercent = {3, 22, 11, 5, 9, 11, 14, 12, 13};
    t.fontPt = 7.0;
    t.alignRight = {true, false, false, true, true, true, true, true, true};
    for (std::size_t i = 0; i < d.items.size(); ++i) {
        const auto& it = d.items[i];
        const LibraryNode& n = *it.node;
        QString runs = QString::number(it.runs.size());
        if (!it.excluded.empty()) runs += QStringLiteral(" +\u00A0%1\u00A0excl.").arg(it.excluded.size());
        // A checkpointing item (MLPerf Storage v3.0) has no training numbers: its Write and Read B/W take
        // the Read GiB/s cell, each labelled.
        const bool ckpt = n.type == aggregate::BenchmarkType::Checkpointing;
        const QString gib = !n.hasMetrics ? QStringLiteral("–")
                            : ckpt ? QStringLiteral("W %1<br/>R %2").arg(metricCell(n.checkpointWriteGibPerSecond, 3),
                                                                         metricCell(n.checkpointReadGibPerSecond, 3))
                                   : metricCell(n.readGibPerSecond, 3);
        t.rows.push_back({QString::number(i + 1) + (i == d.options.baseline ? QStringLiteral("*") : QString()),
                          htmlBreakable(it.name), statusHtml(n.status), QString::number(n.accelerators), runs,
                          n.hasMetrics ? metricCell(n.au) : QStringLiteral("–"),
                          n.hasMetrics ? metricCell(n.samplesPerSecond) : QStringLiteral("–"), gib,
                          n.hasMetrics ? metricCell(n.mibPerSecond) : QStringLiteral("–")});
    }
    flow.addTable(t);
    flow.addSpace(flow.mm(5));

    // Provenance: the folders of the selected items only.
    reportHeading(flow, QStringLiteral("Provenance"), 3, 25);
    QStringList folders;
    for (const auto& it : d.items) folders << htmlBreakable(QString::fromStdString(it.node->path.string()));
    std::vector<std::pair<QString, QString>> prov{
        {QStringLiteral("Host"), htmlText(hostDescription())},
        {QStringLiteral("Operating system"), htmlText(osDescription())},
        {QStringLiteral("Folders of the items"), folders.join(QStringLiteral("<br/>"))},
    };
    flow.addTable(keyValueTable(prov, false));
    flow.addSpace(flow.mm(5));

    reportHeading(flow, QStringLiteral("Units"), 3, 30);
    ReportTable units;
    units.header = {QStringLiteral("Unit"), QStringLiteral("Meaning")};
    units.widthsPercent = {16, 84};
    units.rows = {
        {QStringLiteral("<b>AU %</b>"),
         QStringLiteral("Accelerator utilization: the share of the training time the emulated accelerators spent "
                        "computing rather than waiting for data (DLIO train_au_percentage). A run passes when its mean "
                        "AU is at least the workload's threshold, metric.au × 100.")},
        {QStringLiteral("<b>samples/s</b>"), QStringLiteral("Training samples delivered per second, summed over the accelerators.")},
        {QStringLiteral("<b>MiB/s</b>"),
         QStringLiteral("1 MiB/s = 2^20 bytes/s: samples/s × mean record length ÷ 2^20. DLIO names the key MB/s "
                        "(train_io_mean_MB_per_second) but the values are MiB/s.")},
        {QStringLiteral("<b>Read GiB/s</b>"), QStringLiteral("MLPerf Storage v3.0's \"Read B/W (GiB/s)\": train_io_mean_MB_per_second ÷ 1024, mean over runs.")},
        {QStringLiteral("<b>±</b>"), htmlText(kPlusMinus)},
        {QStringLiteral("<b>Status</b>"),
         QStringLiteral("complete · incomplete (fewer epochs or runs than planned) · cancelled · failed. Only complete "
                        "runs enter a statistic; the others are listed with their reason.")},
    };
    flow.addTable(units);
    flow.addSpace(flow.mm(5));
}

// ---- comparison per workload ---------------------------------------------------------------------

QString deltaCell(const aggregate::CompareMetric& m, int precision) {
    if (!m.delta) return QStringLiteral("–");
    const auto& dl = *m.delta;
    QString text = (dl.absolute >= 0 ? QStringLiteral("+") : QString()) + formatNumber(dl.absolute, precision);
    if (std::isfinite(dl.percent))
        text += QStringLiteral(" (%1%2\u00A0%)").arg(dl.percent >= 0 ? QStringLiteral("+") : QString(), formatNumber(dl.percent, 1));
    if (std::isfinite(dl.ci95.low) && std::isfinite(dl.ci95.high))
        text += QStringLiteral("<br/><span class=\"muted\">CI [%1, %2]</span>").arg(formatNumber(dl.ci95.low, precision), formatNumber(dl.ci95.high, precision));
    if (dl.withinNoise) text += *dl.withinNoise ? QStringLiteral("<br/><i>within noise</i>") : QStringLiteral("<br/><b>differs</b>");
    if (!dl.ciNote.empty()) text += QStringLiteral("<br/><i>no CI: %1</i>").arg(htmlText(QString::fromStdString(dl.ciNote)));
    return text;
}

void comparisonSection(ReportPageFlow& flow, const ReportData& d) {
    // Workloads in the order their first item appears.
    // Checkpointing items have none of the compared (training) numbers: their write/read GiB/s are in the
    // items table and their own section.
    std::vector<std::string> keys;
    for (const auto& it : d.items)
        if (it.node->type != aggregate::BenchmarkType::Checkpointing &&
            std::find(keys.begin(), keys.end(), it.node->workloadKey) == keys.end())
            keys.push_back(it.node->workloadKey);
    if (keys.empty()) return;

    flow.ensureSpace(flow.mm(60));
    reportHeading(flow, QStringLiteral("Comparison per workload"), 2, 60);
    flow.addHtml(QStringLiteral("<p class=\"muted\">Items are compared only within one workload identity (model, "
                                "accelerator type, format, record length, samples per file, batch size, computation "
                                "time, AU threshold). Δ is item − baseline with the 95 % CI of the difference (Welch); "
                                "\"within noise\" when that CI holds 0; no CI between a benchmark (run means) and an invocation (epochs): "
                                "they differ in kind. %1</p>")
                     .arg(htmlText(kPlusMinus)),
                 7.5);
    flow.addSpace(flow.mm(3));

    const LibraryNode* reportBaseline = d.items[d.options.baseline].node;
    for (const auto& key : keys) {
        std::vector<const LibraryNode*> nodes;
        std::vector<std::size_t> index; // report positions
        std::size_t baseline = 0;
        for (std::size_t i = 0; i < d.items.size(); ++i)
            if (d.items[i].node->workloadKey == key) {
                if (i == d.options.baseline) baseline = nodes.size();
                nodes.push_back(d.items[i].node);
                index.push_back(i);
            }
        aggregate::CompareOptions co;
        co.baseline = baseline;
        co.perAccelerator = d.options.perAccelerator;
        const aggregate::CompareResult cmp = aggregate::compare(nodes, co);

        const QString title = workloadText(*nodes.front());
        const double barHeight = flow.mm(barPlotHeightMm(nodes.size()));
        flow.ensureSpace(flow.mm(40));
        reportHeading(flow, htmlText(title), 3, 40);
        QString caption = QStringLiteral("Baseline: <b>%1</b>").arg(htmlBreakable(d.items[index[baseline]].name));
        if (nodes[baseline] != reportBaseline)
            caption += QStringLiteral(" (the report's baseline, %1, is another workload; this is the first item of this one)")
                           .arg(htmlBreakable(d.items[d.options.baseline].name));
        // Titles name the main keys only: say what sets a workload apart from an earlier one of the same title.
        for (const auto& earlier : keys) {
            if (earlier == key) break;
            const auto first = std::find_if(d.items.begin(), d.items.end(), [&](const ReportItem& x) { return x.node->workloadKey == earlier; });
            if (workloadText(*first->node) == title)
                caption += QStringLiteral(". Not the same workload as the one of this name above (above vs here: %1)")
                               .arg(htmlBreakable(q(aggregate::whyNotComparable(earlier, key))));
        }
        if (cmp.perAccelerator) caption += QStringLiteral(". samples/s and Read GiB/s per accelerator, since accelerator counts differ or it was asked for");
        flow.addHtml(QStringLiteral("<p>%1.</p>").arg(caption), 8.0);
        flow.addSpace(flow.mm(1.5));

        ReportTable t;
        const QString per = cmp.perAccelerator ? QStringLiteral("<br/>per acc.") : QString();
        t.header = {QStringLiteral("#"), QStringLiteral("Item"), QStringLiteral("AU %"), QStringLiteral("samples/s") + per,
                    QStringLiteral("Read GiB/s") + per, QStringLiteral("Δ AU (points)"), QStringLiteral("Δ samples/s"),
                    QStringLiteral("Δ Read GiB/s")};
        t.widthsPercent = {3, 22, 11, 14, 12, 12, 13, 13};
        t.fontPt = 7.0;
        t.alignRight = {true, false, true, true, true, true, true, true};
        std::vector<BarItem> au, sps, gib;
        const auto threshold = itemThreshold(d.library->imported(), d.items[index.front()]);
        for (std::size_t r = 0; r < cmp.rows.size(); ++r) {
            const auto& row = cmp.rows[r];
            QStringList cells{QString::number(index[r] + 1), htmlBreakable(d.items[index[r]].name) + (row.baseline ? QStringLiteral(" <i>(baseline)</i>") : QString())};
            if (!row.comparable || !row.valuesShown || row.metrics.size() < 3) {
                cells << QStringLiteral("<span class=\"fail\">not comparable</span> — %1").arg(htmlBreakable(q(row.reason)))
                      << QString() << QString() << QString() << QString() << QString();
                t.rows.push_back(cells);
                continue;
            }
            const int precision[] = {2, 2, 3};
            for (std::size_t m = 0; m < 3; ++m) cells << metricCell(row.metrics[m].value, precision[m]);
            for (std::size_t m = 0; m < 3; ++m) cells << deltaCell(row.metrics[m], precision[m]);
            t.rows.push_back(cells);
            const QString label = QStringLiteral("#%1 %2").arg(index[r] + 1).arg(d.items[index[r]].name);
            auto bar = [&](const NodeMetric& v, std::optional<double> th) {
                const bool ci = v.n >= 2;
                return BarItem{label, v.mean, ci ? v.ci95.low : std::nan(""), ci ? v.ci95.high : std::nan(""), th};
            };
            au.push_back(bar(row.metrics[0].value, threshold));
            sps.push_back(bar(row.metrics[1].value, std::nullopt));
            gib.push_back(bar(row.metrics[2].value, std::nullopt));
        }
        // Wide tables split across pages; keep at least the header and a few rows with the heading.
        flow.addTable(t);
        flow.addSpace(flow.mm(3));
        // One item has nothing to compare with: its numbers are in the table and its section.
        if (au.size() > 1) {
            const QString suffix = cmp.perAccelerator ? QStringLiteral(" per accelerator") : QString();
            auto p1 = barPlot(QStringLiteral("AU (%1)").arg(title), QStringLiteral("AU % (dashed red: pass threshold)"), au, seriesColour(0));
            auto p2 = barPlot(QStringLiteral("Throughput%1").arg(suffix), QStringLiteral("samples/s") + suffix, sps, seriesColour(1));
            auto p3 = barPlot(QStringLiteral("Read B/W%1").arg(suffix), QStringLiteral("GiB/s") + suffix, gib, seriesColour(2));
            flow.ensureSpace(3 * barHeight + flow.mm(8)); // the three charts of a workload on one page
            flow.addPlots({p1}, barHeight);
            flow.addSpace(flow.mm(1));
            flow.addPlots({p2}, barHeight);
            flow.addSpace(flow.mm(1));
            flow.addPlots({p3}, barHeight);
            flow.addHtml(QStringLiteral("<p class=\"muted\">Bars: the mean; whiskers: the 95 % CI of the mean (none "
                                        "for fewer than two values); axes from zero.</p>"),
                         7.0);
        }
        flow.addSpace(flow.mm(5));
    }

    // Items of other workloads than the report's baseline, with the reason compare() gives.
    if (keys.size() > 1) {
        std::vector<const LibraryNode*> all;
        for (const auto& it : d.items) all.push_back(it.node);
        aggregate::CompareOptions co;
        co.baseline = d.options.baseline;
        co.perAccelerator = d.options.perAccelerator;
        const auto cmp = aggregate::compare(all, co);
        QStringList lines;
        for (std::size_t r = 0; r < cmp.rows.size(); ++r)
            if (!cmp.rows[r].comparable)
                lines << QStringLiteral("#%1 %2: %3").arg(r + 1).arg(htmlBreakable(d.items[r].name), htmlBreakable(q(cmp.rows[r].reason)));
        if (!lines.isEmpty()) {
            reportHeading(flow, QStringLiteral("Not comparable with the baseline %1").arg(htmlBreakable(d.items[d.options.baseline].name)), 3, 20);
            flow.addHtml(QStringLiteral("<p>%1</p>").arg(lines.join(QStringLiteral("<br/>"))), 8.0);
            flow.addSpace(flow.mm(5));
        }
    }
}

// ---- one item ------------------------------------------------------------------------------------

// The complete run whose AU is the median (the lower one of the middle two for an even count); the
// item's only run for an invocation; null when the item has no complete run.
const InvocationRecord* representativeRun(const ImportResult& imp, const ReportItem& it, std::size_t* rank) {
    std::vector<std::size_t> runs = it.runs;
    if (runs.empty()) return nullptr;
    std::sort(runs.begin(), runs.end(), [&](std::size_t a, std::size_t b) { return imp.runs[a].auMeanPercent < imp.runs[b].auMeanPercent; });
    const std::size_t pick = (runs.size() - 1) / 2;
    if (rank) *rank = pick;
    return &imp.runs[runs[pick]];
}

// MiB/s of each epoch: samples/s × record length ÷ 2^20 (DLIO's formula), or scaled by the run's own
// MiB/s per sample/s when the record length is not known.
std::vector<double> epochMib(const InvocationRecord& r) {
    double perSample = std::nan("");
    if (r.recordLengthBytes) perSample = *r.recordLengthBytes / 1048576.0;
    else if (r.samplesPerSecond > 0) perSample = r.mbPerSecond / r.samplesPerSecond;
    std::vector<double> out;
    for (double s : r.epochSamplesPerSecond) out.push_back(s * perSample);
    return out;
}

QString runLabel(const InvocationRecord& r, bool excluded) {
    QString name = q(r.runName);
    if (excluded) name += QStringLiteral(" (%1, excluded)").arg(q(aggregate::statusName(r.status)));
    else if (r.warmup)
        name += name.contains(QStringLiteral("warm"), Qt::CaseInsensitive) ? QStringLiteral(" (excluded)") : QStringLiteral(" (warm-up, excluded)");
    return name;
}

void epochPlots(ReportPageFlow& flow, const ReportData& d, const ReportItem& it) {
    if (it.node->type == aggregate::BenchmarkType::Checkpointing) return; // no training epochs
    const auto& imp = d.library->imported();
    std::vector<LineSeries> au, mib;
    auto add = [&](std::size_t i, bool dashed, bool excluded) {
        const auto& r = imp.runs[i];
        au.push_back({runLabel(r, excluded), r.epochAuPercent, {}, dashed, true});
        mib.push_back({runLabel(r, excluded), epochMib(r), {}, dashed, true});
    };
    for (std::size_t i : it.runs) add(i, false, false);
    for (std::size_t i : it.excluded) add(i, true, true);
    for (std::size_t i : it.warmups) add(i, true, false);
    if (au.empty()) return;
    const int widthPx = static_cast<int>((flow.contentWidth() - flow.mm(6)) / 2 / flow.plotScale());
    auto p1 = linePlot(QStringLiteral("AU per epoch"), QStringLiteral("epoch"), QStringLiteral("AU %"), au,
                       itemThreshold(imp, it), false, widthPx);
    auto p2 = linePlot(QStringLiteral("Bandwidth per epoch"), QStringLiteral("epoch"), QStringLiteral("MiB/s"), mib,
                       std::nullopt, false, widthPx);
    reportHeading(flow, QStringLiteral("Per epoch"), 3, 66);
    flow.addPlots({p1, p2}, flow.mm(60));
    flow.addHtml(QStringLiteral("<p class=\"muted\">Every run of the item; dashed grey: runs shown but excluded from "
                                "every statistic (warm-up, not complete).</p>"),
                 7.0);
    flow.addSpace(flow.mm(3));
}

// The live changes of the run's emulated storage (trainio_io.json storage.changes), under its step plots:
// when, what, from and to, in the device's own words. Nothing when the run made none.
void storageChangesTable(ReportPageFlow& flow, const InvocationRecord& run) {
    if (run.storageChanges.empty()) return;
    flow.addHtml(QStringLiteral("<p>Emulated storage (%1) changed during this run (time in s since the run's start); the steps "
                                "after each time ran on the new value:</p>")
                     .arg(htmlText(run.storageProfile.empty() ? QStringLiteral("no profile") : q(run.storageProfile))),
                 8.0);
    flow.addSpace(flow.mm(1));
    ReportTable t;
    t.header = {QStringLiteral("Time (s)"), QStringLiteral("Parameter"), QStringLiteral("From"),
                QStringLiteral("To")};
    t.widthsPercent = {12, 20, 34, 34};
    t.alignRight = {true, false, false, false};
    for (const StorageChange& c : run.storageChanges)
        t.rows.push_back({formatNumber(c.secondsSinceStart, 2), htmlText(q(c.parameter)),
                          htmlBreakable(q(c.oldText.empty() ? std::to_string(c.oldValue) : c.oldText)),
                          htmlBreakable(q(c.newText.empty() ? std::to_string(c.newValue) : c.newText))});
    flow.addTable(t);
    flow.addSpace(flow.mm(2));
}

void stepAndAcceleratorSection(ReportPageFlow& flow, const ReportData& d, const ReportItem& it) {
    if (it.node->type == aggregate::BenchmarkType::Checkpointing) return; // no training steps
    const auto& imp = d.library->imported();
    const InvocationRecord* rep = representativeRun(imp, it, nullptr);
    // The records as the importer read them (ImportOptions::stepDigests): nothing is read here.
    const aggregate::StepDigest* data = rep ? rep->steps.get() : nullptr;
    // A heading stays with its plots when there are records, with its one sentence when there are none.
    reportHeading(flow, QStringLiteral("Per step and per accelerator"), 3, data ? 75 : 15);
    if (!rep) {
        flow.addHtml(QStringLiteral("<p class=\"muted\">No complete run: nothing to show per step.</p>"), 8.0);
        flow.addSpace(flow.mm(3));
        return;
    }
    const QString which = it.runs.size() == 1
                              ? QStringLiteral("Run %1").arg(htmlText(q(rep->runName)))
                              : QStringLiteral("Run %1, the run whose AU (%2 %) is the median of the %3 complete runs%4")
                                    .arg(htmlText(q(rep->runName)), formatNumber(rep->auMeanPercent))
                                    .arg(it.runs.size())
                                    .arg(it.runs.size() % 2 == 0 ? QStringLiteral(" (the lower of the middle two)") : QString());
    if (!data) {
        QString why;
        if (!rep->stepsRead) why = QStringLiteral("per-step records were not loaded with the library");
        else if (!rep->stepsError.empty()) why = QStringLiteral("per-step records not readable: %1").arg(htmlBreakable(q(rep->stepsError)));
        else
            why = QStringLiteral("no per-step records in this folder (%1 holds no &lt;rank&gt;_output.json; DLIO's summary gives "
                                 "per-epoch values only)")
                      .arg(htmlBreakable(QString::fromStdString(rep->path.string())));
        flow.addHtml(QStringLiteral("<p>%1: %2.</p>").arg(which, why), 8.0);
        flow.addSpace(flow.mm(3));
        storageChangesTable(flow, *rep); // recorded in trainio_io.json, shown with or without step records
        return;
    }
    std::vector<LineSeries> load, au;
    ReportTable ranks;
    ranks.headerRow = true;
    ranks.header = {QStringLiteral("Accelerator (rank)"), QStringLiteral("AU % per epoch"), QStringLiteral("AU % (mean over epochs)")};
    ranks.widthsPercent = {22, 54, 24};
    ranks.alignRight = {false, false, true};
    for (const auto& rank : data->ranks) {
        QStringList epochs;
        for (double v : rank.epochAuPercent) epochs << formatNumber(v);
        ranks.rows.push_back({QString::number(rank.rank), epochs.join(QStringLiteral(" · ")), formatNumber(trainio::mean(rank.epochAuPercent))});
        if (rank.loadStep.empty() && rank.auStep.empty()) continue; // not plotted (past the first ranks)
        const QString name = QStringLiteral("rank %1").arg(rank.rank);
        load.push_back({name, rank.loadMs, rank.loadStep, false, false});
        au.push_back({name, rank.auPercent, rank.auStep, false, false});
    }
    const int widthPx = static_cast<int>((flow.contentWidth() - flow.mm(6)) / 2 / flow.plotScale());
    auto p1 = linePlot(QStringLiteral("Load time per step"), QStringLiteral("step"), QStringLiteral("ms"), load,
                       std::nullopt, true, widthPx);
    auto p2 = linePlot(QStringLiteral("AU per step (compute ÷ step time)"), QStringLiteral("step"), QStringLiteral("AU %"),
                       au, itemThreshold(imp, it), true, widthPx);
    const std::size_t bin = data->binSteps;
    flow.addHtml(QStringLiteral("<p>%1%2.</p>")
                     .arg(which, bin > 1 ? QStringLiteral("; each point is the mean of %1 consecutive steps").arg(bin) : QString()),
                 8.0);
    flow.addSpace(flow.mm(1));
    flow.addPlots({p1, p2}, flow.mm(58));
    flow.addSpace(flow.mm(2));
    storageChangesTable(flow, *rep);
    if (data->ranks.size() > load.size())
        flow.addHtml(QStringLiteral("<p class=\"muted\">The plots show the first %1 of %2 ranks; the table has all.</p>")
                         .arg(load.size())
                         .arg(data->ranks.size()),
                     7.0);
    flow.addHtml(QStringLiteral("<p class=\"muted\">AU per accelerator from the same records, as DLIO computes it for "
                                "each rank (compute ÷ the epoch's time, first %1 step(s) excluded).</p>")
                     .arg(data->excludeStartSteps),
                 7.0);
    flow.addSpace(flow.mm(1));
    flow.addTable(ranks);
    flow.addSpace(flow.mm(4));
}

// The representative run's telemetry.json over the run's time: client CPU busy % (all processes and
// TrainIO's own, as % of all CPUs) and the data device's read MiB/s, with the client-bound verdict. Nothing
// for runs without the file (DLIO, MLPerf folders).
void telemetrySection(ReportPageFlow& flow, const ReportData& d, const ReportItem& it) {
    const auto& imp = d.library->imported();
    const InvocationRecord* rep = representativeRun(imp, it, nullptr);
    if (!rep || rep->telemetry.rows == 0) return;
    // The series as the importer read them (ImportOptions::stepDigests): nothing is read here.
    const aggregate::TelemetrySeries* series = rep->telemetrySeries.get();
    if (!series) {
        reportHeading(flow, QStringLiteral("Telemetry"), 3, 15);
        flow.addHtml(QStringLiteral("<p>%1.</p>").arg(htmlText(q(telemetry::verdictSentence(rep->telemetry)))), 8.0);
        flow.addHtml(QStringLiteral("<p class=\"muted\">The telemetry series were not loaded with the library.</p>"), 7.0);
        flow.addSpace(flow.mm(3));
        return;
    }
    std::vector<double> keys = series->timeS, busy = series->cpuBusyPct, proc = series->procCpuPct, read = series->deviceReadMiBs;
    std::size_t bin = 1;
    std::vector<double> k2 = keys, k3 = keys;
    aggregate::binSeries(keys, busy, 600, &bin);
    aggregate::binSeries(k2, proc, 600, &bin);
    aggregate::binSeries(k3, read, 600, &bin);
    const bool markers = keys.size() <= 60;
    const int widthPx = static_cast<int>((flow.contentWidth() - flow.mm(6)) / 2 / flow.plotScale());
    const QString device = series->deviceLabel.empty() ? QStringLiteral("no block device listed") : q(series->deviceLabel);
    auto p1 = linePlot(QStringLiteral("Client CPU busy"), QStringLiteral("s since the run's start"), QStringLiteral("% of all CPUs"),
                       {{QStringLiteral("all processes"), busy, keys, false, markers},
                        {QStringLiteral("TrainIO process"), proc, k2, false, markers}},
                       std::nullopt, true, widthPx);
    auto p2 = linePlot(QStringLiteral("Storage reads (%1)").arg(device), QStringLiteral("s since the run's start"),
                       QStringLiteral("MiB/s"), {{QStringLiteral("read MiB/s"), read, k3, false, markers}}, std::nullopt, true, widthPx);
    const auto& s = rep->telemetry;
    reportHeading(flow, QStringLiteral("Telemetry"), 3, 75);
    const QString which = it.runs.size() == 1 ? QStringLiteral("Run %1").arg(htmlText(q(rep->runName)))
                                              : QStringLiteral("Run %1 (the median-AU run, as above)").arg(htmlText(q(rep->runName)));
    flow.addHtml(QStringLiteral("<p>%1: client CPU busy and the data device's reads over the run, sampled every %2 s "
                                "(telemetry.json)%3.</p>")
                     .arg(which, formatNumber(series->intervalS, 2),
                          bin > 1 ? QStringLiteral("; each point is the mean of %1 consecutive samples").arg(bin) : QString()),
                 8.0);
    flow.addSpace(flow.mm(1));
    flow.addPlots({p1, p2}, flow.mm(58));
    flow.addSpace(flow.mm(1));
    const QString verdict = q(telemetry::verdictSentence(s));
    flow.addHtml(QStringLiteral("<p%1>%2.</p>").arg(s.clientBound ? QStringLiteral(" class=\"fail\"") : QString(), htmlText(verdict)), 8.0);
    flow.addHtml(QStringLiteral("<p class=\"muted\">TrainIO process: its CPU time as a share of all CPUs (100 % = every "
                                "CPU busy with TrainIO). Client-bound: at least half the samples had the machine or the "
                                "process at 90 % or more (docs/telemetry.md); AU then says little about the storage.</p>"),
                 7.0);
    flow.addSpace(flow.mm(4));
}

void nodeStatisticsTable(ReportPageFlow& flow, const LibraryNode& n) {
    ReportTable t;
    t.header = {QStringLiteral("Over the epochs"), QStringLiteral("AU %"), QStringLiteral("samples/s"),
                QStringLiteral("Read GiB/s"), QStringLiteral("MiB/s")};
    t.widthsPercent = {28, 18, 18, 18, 18};
    t.alignRight = {false, true, true, true, true};
    const NodeMetric* m[] = {&n.au, &n.samplesPerSecond, &n.readGibPerSecond, &n.mibPerSecond};
    auto row = [&](const QString& name, auto pick) {
        QStringList r{name};
        for (std::size_t k = 0; k < 4; ++k) r << pick(*m[k], k == 2 ? 3 : 2);
        t.rows.push_back(r);
    };
    row(QStringLiteral("Mean"), [](const NodeMetric& x, int p) { return formatNumber(x.mean, p); });
    row(QStringLiteral("Population stdev"), [](const NodeMetric& x, int p) { return formatNumber(x.stdev, p); });
    row(QStringLiteral("95 % CI of the mean"), [](const NodeMetric& x, int p) {
        return x.n >= 2 ? formatNumber(x.ci95.low, p) + QStringLiteral(" – ") + formatNumber(x.ci95.high, p) : QStringLiteral("n/a");
    });
    row(QStringLiteral("n"), [](const NodeMetric& x, int) { return QString::number(x.n); });
    flow.addTable(t);
}

void statisticsTable(ReportPageFlow& flow, const GroupAggregate& a) {
    ReportTable t;
    t.header = {QStringLiteral("Over the complete runs"), QStringLiteral("AU %"), QStringLiteral("samples/s"),
                QStringLiteral("Read GiB/s"), QStringLiteral("MiB/s"), QStringLiteral("Rule")};
    t.widthsPercent = {17, 12, 13, 13, 13, 32};
    t.alignRight = {false, true, true, true, true, false};
    // Read GiB/s is MiB/s ÷ 1024 run by run, so each statistic of it is the MiB/s one ÷ 1024 (CV: unchanged).
    auto row = [&](const QString& name, auto pick, int precision, bool scaleGib = true) {
        QStringList r{name, formatNumber(pick(a.au).value, precision), formatNumber(pick(a.samplesPerSecond).value, precision),
                      formatNumber(pick(a.mibPerSecond).value / (scaleGib ? 1024.0 : 1.0), scaleGib ? 3 : precision),
                      formatNumber(pick(a.mibPerSecond).value, precision)};
        r << QStringLiteral("<span class=\"muted\">%1</span>").arg(htmlText(q(pick(a.au).rule)));
        t.rows.push_back(r);
    };
    row(QStringLiteral("<b>Mean</b> (MLPerf rule)"), [](const MetricAggregate& x) { return x.mean; }, 2);
    row(QStringLiteral("<b>Population stdev</b> (MLPerf rule)"), [](const MetricAggregate& x) { return x.populationStdev; }, 2);
    {
        auto ci = [](const aggregate::ConfidenceInterval& c, double scale, int p) {
            return formatNumber(c.low / scale, p) + QStringLiteral(" – ") + formatNumber(c.high / scale, p);
        };
        t.rows.push_back({QStringLiteral("95 % CI of the mean"), ci(a.au.ci95, 1, 2), ci(a.samplesPerSecond.ci95, 1, 2),
                          ci(a.mibPerSecond.ci95, 1024, 3), ci(a.mibPerSecond.ci95, 1, 2),
                          QStringLiteral("<span class=\"muted\">%1</span>").arg(htmlText(q(a.au.ci95.rule)))});
    }
    row(QStringLiteral("Median"), [](const MetricAggregate& x) { return x.median; }, 2);
    row(QStringLiteral("Min"), [](const MetricAggregate& x) { return x.min; }, 2);
    row(QStringLiteral("Max"), [](const MetricAggregate& x) { return x.max; }, 2);
    row(QStringLiteral("Geometric mean"), [](const MetricAggregate& x) { return x.geomean; }, 2);
    row(QStringLiteral("CV"), [](const MetricAggregate& x) { return x.cv; }, 4, false);
    t.rows.push_back({QStringLiteral("Runs (n)"), QString::number(a.au.values.size()), QString::number(a.samplesPerSecond.values.size()),
                      QString::number(a.mibPerSecond.values.size()), QString::number(a.mibPerSecond.values.size()),
                      QStringLiteral("<span class=\"muted\">complete measured runs; warm-up and excluded runs left out</span>")});
    flow.addTable(t);
}

// The invocations of a checkpointing item (MLPerf Storage v3.0): what each wrote and read, as its
// summary.json says ("–" for the direction it did not measure).
ReportTable checkpointRunTable(const ImportResult& imp, const ReportItem& it) {
    ReportTable t;
    t.header = {QStringLiteral("Run"), QStringLiteral("Status"), QStringLiteral("Writes"), QStringLiteral("Write GiB/s"),
                QStringLiteral("Write s"), QStringLiteral("Reads"), QStringLiteral("Read GiB/s"), QStringLiteral("Read s"),
                QStringLiteral("Start")};
    t.widthsPercent = {12, 14, 7, 11, 9, 7, 11, 9, 20};
    t.alignRight = {false, false, true, true, true, true, true, true, false};
    auto count = [](std::int64_t c) { return c >= 0 ? QString::number(c) : QStringLiteral("?"); };
    auto value = [](double v, int precision) { return std::isfinite(v) ? formatNumber(v, precision) : QStringLiteral("–"); };
    auto add = [&](std::size_t i, const QString& status) {
        const auto& r = imp.runs[i];
        t.rows.push_back({htmlBreakable(q(r.runName)), status, count(r.checkpointsWritten), value(r.checkpointWriteGiBps, 3),
                          value(r.checkpointWriteSeconds, 2), count(r.checkpointsRead), value(r.checkpointReadGiBps, 3),
                          value(r.checkpointReadSeconds, 2), htmlBreakable(q(r.start))});
        t.rowBackground.push_back(QString());
    };
    for (std::size_t i : it.runs) add(i, statusHtml(imp.runs[i].status));
    for (std::size_t i : it.excluded) add(i, statusHtml(imp.runs[i].status, imp.runs[i].statusReason) + QStringLiteral(" <i>(excluded)</i>"));
    return t;
}

ReportTable runTable(const ImportResult& imp, const ReportItem& it) {
    ReportTable t;
    t.header = {QStringLiteral("Run"), QStringLiteral("Status"), QStringLiteral("AU %"), QStringLiteral("samples/s"),
                QStringLiteral("Read GiB/s"), QStringLiteral("MiB/s"), QStringLiteral("Epochs"), QStringLiteral("Start")};
    t.widthsPercent = {11, 24, 8, 11, 11, 9, 8, 18};
    t.alignRight = {false, false, true, true, true, true, true, false};
    auto add = [&](std::size_t i, const QString& status, const QString& background) {
        const auto& r = imp.runs[i];
        t.rows.push_back({htmlBreakable(q(r.runName)), status, formatNumber(r.auMeanPercent), formatNumber(r.samplesPerSecond),
                          formatNumber(r.mbPerSecond / 1024.0, 3), formatNumber(r.mbPerSecond),
                          r.plannedEpochs > 0 ? QStringLiteral("%1/%2").arg(r.epochs).arg(r.plannedEpochs) : QString::number(r.epochs),
                          htmlBreakable(q(r.start))});
        t.rowBackground.push_back(background);
    };
    for (std::size_t i : it.runs) add(i, statusHtml(imp.runs[i].status), QString());
    for (std::size_t i : it.excluded)
        add(i, statusHtml(imp.runs[i].status, imp.runs[i].statusReason) + QStringLiteral(" <i>(excluded)</i>"), QStringLiteral("#fbe9e7"));
    for (std::size_t i : it.warmups) add(i, QStringLiteral("warm-up <i>(excluded)</i>"), QStringLiteral("#fbf3e4"));
    return t;
}

void configurationTables(ReportPageFlow& flow, const ReportData& d, const ReportItem& it) {
    const auto& imp = d.library->imported();
    const InvocationRecord* first = representativeRun(imp, it, nullptr);
    if (!first && !it.excluded.empty()) first = &imp.runs[it.excluded.front()];
    if (!first) return;
    const auto& r = *first;
    std::vector<std::pair<QString, QString>> items{
        {QStringLiteral("Model"), r.model.empty() ? QStringLiteral("unknown") : htmlText(q(r.model))},
        {QStringLiteral("Accelerator"), r.accelerator.empty() ? QStringLiteral("unknown") : htmlText(q(r.accelerator))},
        {QStringLiteral("Accelerators"), QString::number(r.accelerators)},
        {QStringLiteral("Hosts"), QString::number(r.numHosts)},
        {QStringLiteral("Format"), r.format.empty() ? QStringLiteral("unknown") : htmlText(q(r.format))},
        {QStringLiteral("Record length"), r.recordLengthBytes ? formatNumber(*r.recordLengthBytes, 0) + QStringLiteral(" B") : QStringLiteral("unknown")},
        {QStringLiteral("Files (train)"), QString::number(r.filesTrain)},
        {QStringLiteral("Samples per file"), QString::number(r.samplesPerFile)},
        {QStringLiteral("Batch size"), r.batchSize > 0 ? QString::number(r.batchSize) : QStringLiteral("unknown")},
        {QStringLiteral("Client memory"), formatNumber(r.hostMemoryGiB, 1) + QStringLiteral(" GiB")},
        {QStringLiteral("AU threshold"),
         r.auThresholdPercent ? formatNumber(*r.auThresholdPercent, 0) + QStringLiteral(" % (") + htmlText(q(r.auThresholdSource)) + QStringLiteral(")")
                              : QStringLiteral("unknown")},
    };
    reportHeading(flow, QStringLiteral("Configuration <span class=\"muted\" style=\"font-weight: normal;\">— run %1</span>")
                      .arg(htmlText(q(r.runName))),
            3, 30);
    flow.addTable(keyValueTable(items, true));
    flow.addSpace(flow.mm(3));
    // The resolved configuration as the importer read it (config.yaml with overrides.yaml applied): nothing
    // is read from the run folder here.
    if (!r.resolved.empty()) {
        // Every key as running text: the whole configuration in a few lines instead of pages of table.
        QStringList keys;
        for (const auto& [k, v] : r.resolved)
            keys << QStringLiteral("<b>%1</b>&nbsp;=&nbsp;%2").arg(htmlKey(q(k)), htmlBreakable(q(v)));
        flow.ensureSpace(flow.mm(25));
        flow.addHtml(QStringLiteral("<p><b>%1</b> <span class=\"muted\">of run %2 (workload keys, as Hydra composed "
                                    "them, with the overrides applied)</span>: %3</p>")
                         .arg(r.configFile ? htmlBreakable(QString::fromStdString(r.configFile->string())) : QStringLiteral("Configuration"),
                              htmlText(q(r.runName)), keys.join(QStringLiteral(" &nbsp;· "))),
                     7.0);
        flow.addSpace(flow.mm(2));
    }
    if (!r.overrides.empty() || !r.workloadOverride.empty()) {
        QStringList list;
        if (!r.workloadOverride.empty()) list << htmlBreakable(QStringLiteral("workload=") + q(r.workloadOverride));
        for (const auto& [k, v] : r.overrides) list << htmlBreakable(q(k) + QLatin1Char('=') + q(v));
        flow.addHtml(QStringLiteral("<p><b>Overrides</b> <span class=\"muted\">(configs/overrides.yaml)</span>: %1</p>")
                         .arg(list.join(QStringLiteral("; "))),
                     7.5);
        flow.addSpace(flow.mm(3));
    }
}
void checksSection(ReportPageFlow& flow, const GroupAggregate& a) {
    reportHeading(flow, QStringLiteral("MLPerf Storage closed-division checks"), 3, 25);
    if (a.checks.empty()) {
        flow.addHtml(a.group.type == aggregate::BenchmarkType::Checkpointing
                         ? QStringLiteral("<p><span class=\"pass\">PASS</span> — every rule that could be checked holds "
                                          "(10 checkpoint writes and 10 reads in 1 or 2 invocations, write phase before read "
                                          "phase within 30 s, accelerator memory at least the checkpoint size, subset mode "
                                          "only for llama3-8b).</p>")
                         : QStringLiteral("<p><span class=\"pass\">PASS</span> — every rule that could be checked holds "
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


void itemSection(ReportPageFlow& flow, const ReportData& d, std::size_t index) {
    const ReportItem& it = d.items[index];
    const LibraryNode& n = *it.node;
    const auto& imp = d.library->imported();
    flow.ensureSpace(flow.mm(90));
    flow.addSpace(flow.mm(4));
    flow.addHtml(QStringLiteral("<h2>%1. %2</h2>").arg(index + 1).arg(htmlBreakable(it.name)));
    flow.addSpace(flow.mm(1));
    const QString kind = n.kind == NodeKind::Benchmark
                             ? QStringLiteral("benchmark of %1 complete run(s)").arg(it.runs.size())
                             : QStringLiteral("single invocation");
    flow.addHtml(QStringLiteral("<p>%1 &nbsp;·&nbsp; %2 &nbsp;·&nbsp; %3 &nbsp;·&nbsp; %4 accelerator(s) &nbsp;·&nbsp; %5</p>"
                                "<p class=\"muted\">%6</p>")
                     .arg(statusHtml(n.status, n.statusReason), htmlBreakable(systemLabel(it)), htmlText(workloadText(n)))
                     .arg(n.accelerators)
                     .arg(kind, htmlBreakable(QString::fromStdString(n.path.string()))),
                 8.5);
    if (!n.description.empty() || !n.notes.empty()) {
        flow.addSpace(flow.mm(1));
        QString html;
        if (!n.description.empty()) html += QStringLiteral("<p><b>Description:</b> %1</p>").arg(multiline(q(n.description)));
        if (!n.notes.empty()) html += QStringLiteral("<p><b>Notes:</b> %1</p>").arg(multiline(q(n.notes)));
        flow.addHtml(html, 8.5);
    }
    flow.addSpace(flow.mm(1.5));
    if (n.hasMetrics && n.type == aggregate::BenchmarkType::Checkpointing)
        // mlpstorage's checkpointing columns: Write/Read B/W (GiB/s) and Write/Read Duration (secs).
        flow.addHtml(QStringLiteral("<p>Checkpoint write %1 GiB/s in %2 s &nbsp;·&nbsp; read %3 GiB/s in %4 s "
                                    "<span class=\"muted\">(means of summary.json's save_/load_checkpoint_* over the runs that "
                                    "wrote, resp. read; – where none did)</span></p>")
                         .arg(metricCell(n.checkpointWriteGibPerSecond, 3), metricCell(n.checkpointWriteSeconds, 1),
                              metricCell(n.checkpointReadGibPerSecond, 3), metricCell(n.checkpointReadSeconds, 1)),
                     9.0);
    else if (n.hasMetrics)
        flow.addHtml(QStringLiteral("<p>AU %1 % &nbsp;·&nbsp; %2 samples/s &nbsp;·&nbsp; Read B/W %3 GiB/s &nbsp;·&nbsp; "
                                    "%4 MiB/s <span class=\"muted\">(mean ± population stdev over %5 %6)</span></p>")
                         .arg(metricCell(n.au), metricCell(n.samplesPerSecond), metricCell(n.readGibPerSecond, 3),
                              metricCell(n.mibPerSecond))
                         .arg(n.au.n)
                         .arg(n.kind == NodeKind::Benchmark ? QStringLiteral("complete runs") : QStringLiteral("epochs")),
                     9.0);
    else
        flow.addHtml(QStringLiteral("<p class=\"fail\">No statistic: the item has no complete run.</p>"), 9.0);
    // Where the bytes came from (trainio_io.json): a result that measured the page cache says so.
    if (!n.bytesSource.empty()) {
        flow.addHtml(QStringLiteral("<p%1>%2</p>").arg(n.cacheServed ? QStringLiteral(" class=\"fail\"") : QString(), htmlText(q(n.bytesSource))), 8.5);
    }
    // What the client did (telemetry.json): a client-bound result says so beside its AU.
    if (!n.telemetrySummary.empty())
        flow.addHtml(QStringLiteral("<p%1>%2</p>").arg(n.clientBound ? QStringLiteral(" class=\"fail\"") : QString(), htmlText(q(n.telemetrySummary))), 8.5);
    flow.addSpace(flow.mm(3));

    epochPlots(flow, d, it);
    stepAndAcceleratorSection(flow, d, it);
    telemetrySection(flow, d, it);

    std::optional<GroupAggregate> agg;
    if (n.kind == NodeKind::Benchmark && it.group && !it.runs.empty()) agg = d.library->aggregate(*it.group);
    const bool ckpt = n.type == aggregate::BenchmarkType::Checkpointing;
    if (!ckpt) { // a checkpointing item's numbers are its line above and its runs below: no training statistics
        reportHeading(flow, QStringLiteral("Statistics"), 3, 76);
        if (agg) statisticsTable(flow, *agg);
        else nodeStatisticsTable(flow, n);
        flow.addSpace(flow.mm(4));
    }

    reportHeading(flow, QStringLiteral("Runs <span class=\"muted\" style=\"font-weight: normal;\">— complete, then excluded "
                                 "(with the reason), then warm-up</span>"),
            3, 20);
    flow.addTable(ckpt ? checkpointRunTable(imp, it) : runTable(imp, it));
    flow.addSpace(flow.mm(4));

    configurationTables(flow, d, it);
    if (agg) checksSection(flow, *agg);
}

} // namespace

// ---- max-accelerators sweeps ---------------------------------------------------------------------

bool pathWithin(const fs::path& path, const fs::path& folder) {
    const fs::path a = path.lexically_normal(), b = folder.lexically_normal();
    auto ai = a.begin();
    for (auto bi = b.begin(); bi != b.end(); ++bi, ++ai) {
        if (bi->empty() && std::next(bi) == b.end()) break; // a trailing separator
        if (ai == a.end() || *ai != *bi) return false;
    }
    return true;
}

// The sweeps (trainio-cli sweep, read by the importer) one of whose trial folders holds a run of a
// report item: AU against accelerators with the pass line, and every trial in the order the search ran it.
std::vector<const SweepFile*> reportSweeps(const ReportData& d) {
    const auto& imp = d.library->imported();
    std::vector<const SweepFile*> out;
    for (const SweepFile& sweep : imp.sweeps) {
        bool used = false;
        for (const auto& it : d.items)
            for (const auto* list : {&it.runs, &it.excluded, &it.warmups})
                for (std::size_t i : *list)
                    for (const SweepTrial& t : sweep.outcome.trials)
                        used = used || pathWithin(imp.runs[i].path, t.path);
        if (used) out.push_back(&sweep);
    }
    return out;
}

void sweepSection(ReportPageFlow& flow, const SweepFile& sweep) {
    const auto& desc = sweep.description;
    reportHeading(flow, QStringLiteral("Max-accelerators sweep"), 2, 90);
    flow.addHtml(QStringLiteral("<p>%1</p>").arg(sweepSummaryHtml(sweep)), 8.5);
    QString config = QString::fromStdString(desc.config).toHtmlEscaped();
    for (const auto& o : desc.overrides) config += QStringLiteral(" ") + QString::fromStdString(o).toHtmlEscaped();
    if (!config.isEmpty())
        flow.addHtml(QStringLiteral("<p class=\"muted\">Config: %1. Each trial is a normal benchmark folder (its own "
                                    "section when selected); a trial passes when the mean AU of its measured runs "
                                    "reaches the AU threshold. The search doubles from MIN, then bisects, and assumes "
                                    "passing falls off monotonically with the count.</p>")
                         .arg(config),
                     7.5);
    std::vector<const SweepTrial*> byCount;
    for (const SweepTrial& t : sweep.outcome.trials)
        if (t.status == RunStatus::Complete && std::isfinite(t.auMeanPercent)) byCount.push_back(&t);
    std::sort(byCount.begin(), byCount.end(), [](auto* a, auto* b) { return a->accelerators < b->accelerators; });
    if (!byCount.empty()) {
        LineSeries au{QStringLiteral("AU mean of the trial"), {}, {}, false, true};
        for (const SweepTrial* t : byCount) {
            au.keys.push_back(static_cast<double>(t->accelerators));
            au.values.push_back(t->auMeanPercent);
        }
        const int widthPx = static_cast<int>(flow.contentWidth() / flow.plotScale());
        std::optional<double> line;
        if (std::isfinite(desc.auThresholdPercent)) line = desc.auThresholdPercent;
        auto plot = linePlot(QStringLiteral("AU by accelerator count"), QStringLiteral("accelerators"),
                             QStringLiteral("AU %"), {au}, line, true, widthPx, true);
        flow.addSpace(flow.mm(2));
        flow.addPlots({plot}, flow.mm(62));
    }
    ReportTable table;
    table.header = {QStringLiteral("#"), QStringLiteral("Accelerators"), QStringLiteral("AU %"), QStringLiteral("Samples/s"),
                    QStringLiteral("Read GiB/s"), QStringLiteral("Verdict"), QStringLiteral("Folder")};
    table.widthsPercent = {4, 13, 8, 10, 10, 15, 40};
    table.alignRight = {true, true, true, true, true, false, false};
    int order = 0;
    for (const SweepTrial& t : sweep.outcome.trials) {
        QStringList cells = sweepTrialCells(t, ++order);
        for (auto& c : cells) c = c.toHtmlEscaped();
        if (t.passed) cells[SweepView::VerdictColumn] = QStringLiteral("<b>%1</b>").arg(cells[SweepView::VerdictColumn]);
        table.rows.push_back(cells);
    }
    flow.addSpace(flow.mm(2));
    flow.addTable(table);
    flow.addSpace(flow.mm(4));
}

void composeReport(ReportPageFlow& flow, const ReportData& d) {
    if (d.items.empty() || !d.library) return;
    titlePage(flow, d);
    comparisonSection(flow, d);
    loaderPoliciesSection(flow, d);
    modelPredictionSection(flow, d);
    for (const SweepFile* sweep : reportSweeps(d)) sweepSection(flow, *sweep);
    for (std::size_t i = 0; i < d.items.size(); ++i) {
        flow.reportProgress(static_cast<double>(i) / static_cast<double>(d.items.size()));
        itemSection(flow, d, i);
    }
}

} // namespace trainio::ui
