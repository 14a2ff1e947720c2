#include "report/report_content.h"
#include "report/report_sections.h"

#include "aggregate/compare.h"
#include "aggregate/identity.h"
#include "aggregate/results_import.h"
#include "metrics/dlio_metrics.h"
#include "report/report_page_flow.h"
#include "report/report_interference.h"
#include "report/report_loader.h"
#include "report/report_capture.h"
#include "report/report_model.h"
#include "report/report_plots.h"
#include "library/sweep_view.h"
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

// The sections' helpers and the aggregate names they use (report_sections.h).
using namespace report_sections;
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

void reportHeading(ReportPageFlow& flow, const QString& html, int level) {
    const QString tag = QStringLiteral("h%1").arg(level);
    flow.addHeading(QStringLiteral("<%1>%2</%1>").arg(tag, html), flow.mm(level == 2 ? 2.0 : 1.2));
}


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
    reportHeading(flow, QStringLiteral("Max-accelerators sweep"), 2);
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
    answerPage(flow, d);
    comparisonSection(flow, d);
    loaderPoliciesSection(flow, d);
    modelPredictionSection(flow, d);
    capturedJobSection(flow, d);
    interferenceSection(flow, d);
    for (const SweepFile* sweep : reportSweeps(d)) sweepSection(flow, *sweep);
    if (d.options.itemDetail) {
        flow.ensureSpace(flow.mm(120)); // a part of its own: on a new page unless most of this one is free
        reportHeading(flow, QStringLiteral("Detail per item"), 2);
        flow.addHtml(QStringLiteral("<p class=\"muted\">Each item's runs over their epochs and steps, its statistics and its "
                                    "runs (left-out ones with the reason). Its configuration is in the appendix.</p>"),
                     7.5);
        for (std::size_t i = 0; i < d.items.size(); ++i) {
            flow.reportProgress(static_cast<double>(i) / static_cast<double>(d.items.size()));
            itemSection(flow, d, i);
        }
    }
    appendix(flow, d);
}

} // namespace trainio::ui
