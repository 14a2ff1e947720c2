#include "report/report_content.h"

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

void reportHeading(ReportPageFlow& flow, const QString& html, int level) {
    const QString tag = QStringLiteral("h%1").arg(level);
    flow.addHeading(QStringLiteral("<%1>%2</%1>").arg(tag, html), flow.mm(level == 2 ? 2.0 : 1.2));
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

void configurationTables(ReportPageFlow& flow, const ReportData& d, const ReportItem& it, std::size_t index);

// ---- shared by the answer, the comparison and the appendix ---------------------------------------

// The items of one workload identity, in report order; the workloads in the order their first item appears.
struct WorkloadItems {
    std::string key;
    QString title;
    bool checkpointing = false;
    std::vector<std::size_t> items; // indices into ReportData::items
};

std::vector<WorkloadItems> reportWorkloads(const ReportData& d) {
    std::vector<WorkloadItems> out;
    for (std::size_t i = 0; i < d.items.size(); ++i) {
        const LibraryNode& n = *d.items[i].node;
        auto w = std::find_if(out.begin(), out.end(), [&](const WorkloadItems& x) { return x.key == n.workloadKey; });
        if (w == out.end()) {
            out.push_back({n.workloadKey, workloadText(n), n.type == aggregate::BenchmarkType::Checkpointing, {}});
            w = std::prev(out.end());
        }
        w->items.push_back(i);
    }
    // Two identities may share a title (the title names the main keys only): number them.
    std::map<QString, int> seen;
    for (auto& w : out) {
        const int k = ++seen[w.title];
        if (k > 1) w.title += QStringLiteral(" (%1)").arg(k);
    }
    return out;
}

// "#1–#3, #7": report positions (0-based indices) as the report numbers them.
QString itemRefs(std::vector<std::size_t> idx) {
    std::sort(idx.begin(), idx.end());
    idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
    QStringList parts;
    for (std::size_t i = 0; i < idx.size();) {
        std::size_t j = i;
        while (j + 1 < idx.size() && idx[j + 1] == idx[j] + 1) ++j;
        parts << (j == i ? QStringLiteral("#%1").arg(idx[i] + 1)
                         : QStringLiteral("#%1%2#%3").arg(idx[i] + 1).arg(QChar(0x2013)).arg(idx[j] + 1));
        i = j + 1;
    }
    return parts.join(QStringLiteral(", "));
}

// A figure and its unit that never break apart: "141.2 GiB/s".
QString figure(double value, int precision, const QString& unit) {
    return htmlNoBreak(formatNumber(value, precision) + QLatin1Char(' ') + unit);
}

// The precision a figure of this size needs: three significant digits at least, never more than 2 decimals.
int figurePrecision(double value) {
    const double a = std::fabs(value);
    return a >= 100 ? 1 : a >= 10 ? 2 : a >= 1 ? 2 : 3;
}

// "± 2.2 GiB/s: 95 % CI of the mean over 5 runs", or "one run, no CI" — every ± says what it is.
QString ciText(const NodeMetric& m, int precision, const QString& unit, const QString& over) {
    if (m.n < 2 || !std::isfinite(m.ci95.halfWidth))
        return QStringLiteral("%1 %2, no CI").arg(m.n).arg(over.chopped(1)); // "1 run, no CI"
    // Enough decimals for the half-width's first significant digit ("± 0.004", never "± 0.00").
    if (m.ci95.halfWidth > 0)
        precision = std::clamp(static_cast<int>(std::ceil(-std::log10(m.ci95.halfWidth))), precision, 4);
    return QStringLiteral("%1: 95&nbsp;% CI of the mean over %2 %3")
        .arg(htmlNoBreak(QStringLiteral("± ") + formatNumber(m.ci95.halfWidth, precision) + QLatin1Char(' ') + unit))
        .arg(m.n)
        .arg(over);
}

// "8 b200 accelerators", "1 accelerator": the count and what it counts, never broken apart.
QString acceleratorsText(const ImportResult& imp, const ReportItem& it) {
    const std::int64_t n = it.node->accelerators;
    QString type;
    for (const auto* list : {&it.runs, &it.excluded})
        for (std::size_t i : *list)
            if (type.isEmpty() && !imp.runs[i].accelerator.empty() && imp.runs[i].accelerator != "generic") type = q(imp.runs[i].accelerator);
    return htmlNoBreak(QStringLiteral("%1 %2%3").arg(n).arg(type.isEmpty() ? QString() : type + QLatin1Char(' '),
                                                          n == 1 ? QStringLiteral("accelerator") : QStringLiteral("accelerators")));
}

QString modelWord(const ImportResult& imp, const ReportItem& it) {
    for (const auto* list : {&it.runs, &it.excluded})
        for (std::size_t i : *list)
            if (!imp.runs[i].model.empty()) return q(imp.runs[i].model);
    return workloadText(*it.node);
}

// Whether every complete run of the item is at or above its AU line (the MLPerf rule per run); nullopt
// when no line is known or the item has no complete run.
std::optional<bool> aboveLine(const ImportResult& imp, const ReportItem& it) {
    const auto line = itemThreshold(imp, it);
    if (!line || it.runs.empty() || !it.node->hasMetrics) return std::nullopt;
    for (std::size_t i : it.runs)
        if (imp.runs[i].auMeanPercent < *line || imp.runs[i].auMeetExpectation == "fail") return false;
    return true;
}

QString failedRunsText(const ImportResult& imp, const std::vector<std::size_t>& runs) {
    std::map<std::string, int> byStatus;
    for (std::size_t i : runs) ++byStatus[aggregate::statusName(imp.runs[i].status)];
    QStringList parts;
    for (const auto& [status, count] : byStatus) parts << QStringLiteral("%1 %2").arg(count).arg(q(status));
    return parts.join(QStringLiteral(", "));
}

// ---- page 1: the answer --------------------------------------------------------------------------

// What gave the headline's number, for the answer's own sentence: an emulated device (and the object
// store beneath it), an object store, or the storage — with the page cache's share when it served any.
QString answerSubject(const LibraryNode& n) {
    if (!n.storage.empty())
        return QStringLiteral("<b>%1</b> (a device TrainIO emulated, not the storage under test)").arg(htmlBreakable(q(n.storage)));
    QString subject = n.s3.empty() ? QStringLiteral("the storage") : QStringLiteral("<b>%1</b>").arg(htmlBreakable(q(n.s3)));
    if (n.maxPercentFromCache && *n.maxPercentFromCache >= 1.0)
        subject += QStringLiteral(" (with up to %1 of an epoch's bytes from the page cache)")
                       .arg(htmlNoBreak(formatNumber(*n.maxPercentFromCache, 0) + QStringLiteral(" %")));
    return subject;
}

// One workload's headline: a sentence and one figure (the best item above the AU line: most
// accelerators, then the higher Read GiB/s — the library's "best passing" order), what it rests on, and
// what was left out. Nothing is averaged across items.
void trainingHeadline(ReportPageFlow& flow, const ReportData& d, const WorkloadItems& w) {
    const auto& imp = d.library->imported();
    std::optional<std::size_t> best, bestBelow;
    std::size_t above = 0, below = 0;
    std::vector<std::size_t> noRun, leftOutRuns, cacheServed;
    for (std::size_t i : w.items) {
        const ReportItem& it = d.items[i];
        leftOutRuns.insert(leftOutRuns.end(), it.excluded.begin(), it.excluded.end());
        if (!it.node->hasMetrics) {
            noRun.push_back(i);
            continue;
        }
        if (it.node->cacheServed) { // its numbers describe memory, not the storage: never the headline
            cacheServed.push_back(i);
            continue;
        }
        const auto ok = aboveLine(imp, it);
        auto better = [&](std::optional<std::size_t> cur) {
            if (!cur) return true;
            const LibraryNode& a = *it.node;
            const LibraryNode& b = *d.items[*cur].node;
            return a.accelerators > b.accelerators ||
                   (a.accelerators == b.accelerators && a.readGibPerSecond.mean > b.readGibPerSecond.mean);
        };
        if (ok && *ok) {
            ++above;
            if (better(best)) best = i;
        } else {
            ++below;
            // Below the line (or no line known): the highest AU tells how close it came.
            if (!bestBelow || it.node->au.mean > d.items[*bestBelow].node->au.mean) bestBelow = i;
        }
    }
    QString sentence, big, detail;
    if (best) {
        const ReportItem& it = d.items[*best];
        const LibraryNode& n = *it.node;
        const double line = *itemThreshold(imp, it);
        sentence = QStringLiteral("On <b>%1</b>, %2 keeps <b>%3</b> above the %4 AU line on %5")
                       .arg(htmlBreakable(systemLabel(it)), answerSubject(n),
                            acceleratorsText(imp, it),
                            htmlNoBreak(formatNumber(line, 0) + QStringLiteral(" %")), htmlText(modelWord(imp, it)));
        const int p = figurePrecision(n.readGibPerSecond.mean);
        big = figure(n.readGibPerSecond.mean, p, QStringLiteral("GiB/s"));
        detail = QStringLiteral("%1 · AU %2 · %3")
                     .arg(ciText(n.readGibPerSecond, p, QStringLiteral("GiB/s"), n.kind == NodeKind::Benchmark ? QStringLiteral("runs") : QStringLiteral("epochs")),
                          htmlNoBreak(formatNumber(n.au.mean, 1) + QStringLiteral(" %")), itemRefs({*best}));
    } else if (bestBelow) {
        const ReportItem& it = d.items[*bestBelow];
        const LibraryNode& n = *it.node;
        const auto line = itemThreshold(imp, it);
        if (line)
            sentence = QStringLiteral("<span class=\"fail\">No item stays above the %1 AU line.</span> Closest: on <b>%2</b>, "
                                      "%3 with %4 reaches")
                           .arg(htmlNoBreak(formatNumber(*line, 0) + QStringLiteral(" %")), htmlBreakable(systemLabel(it)),
                                answerSubject(n), acceleratorsText(imp, it));
        else
            sentence = QStringLiteral("No AU line is known for this workload. Highest AU: on <b>%1</b>, %2 with %3 reaches")
                           .arg(htmlBreakable(systemLabel(it)), answerSubject(n),
                                acceleratorsText(imp, it));
        big = figure(n.au.mean, 1, QStringLiteral("% AU"));
        detail = QStringLiteral("%1 · Read %2 · %3")
                     .arg(ciText(n.au, 1, QStringLiteral("%"), n.kind == NodeKind::Benchmark ? QStringLiteral("runs") : QStringLiteral("epochs")),
                          figure(n.readGibPerSecond.mean, figurePrecision(n.readGibPerSecond.mean), QStringLiteral("GiB/s")),
                          itemRefs({*bestBelow}));
    } else {
        sentence = cacheServed.empty() ? QStringLiteral("<span class=\"fail\">No complete run:</span> every item of this workload "
                                                        "failed, was cancelled or is incomplete")
                                       : QStringLiteral("<span class=\"fail\">No item measured the storage</span>");
        big = QStringLiteral("<span class=\"fail\">none</span>");
    }
    QStringList rest;
    const std::size_t others = w.items.size() - 1;
    if (w.items.size() > 1 || !noRun.empty())
        rest << QStringLiteral("%1 item%2 of this workload: %3 above the line, %4 below%5")
                    .arg(w.items.size())
                    .arg(w.items.size() == 1 ? QString() : QStringLiteral("s"))
                    .arg(above)
                    .arg(below)
                    .arg(noRun.empty() ? QString()
                                       : QStringLiteral(", %1 without a complete run (%2)").arg(noRun.size()).arg(itemRefs(noRun)));
    (void)others;
    if (!cacheServed.empty())
        rest << QStringLiteral("<span class=\"fail\">%1 left out of the headline: more than half an epoch came from the page "
                               "cache, so %2 numbers describe memory</span>")
                    .arg(itemRefs(cacheServed), cacheServed.size() == 1 ? QStringLiteral("its") : QStringLiteral("their"));
    if (!leftOutRuns.empty())
        rest << QStringLiteral("%1 run%2 left out of every number (%3)")
                    .arg(leftOutRuns.size())
                    .arg(leftOutRuns.size() == 1 ? QString() : QStringLiteral("s"))
                    .arg(failedRunsText(imp, leftOutRuns));
    QString html = QStringLiteral("<table width=\"100%\" cellspacing=\"0\" cellpadding=\"0\"><tr>"
                                  "<td width=\"70%\" valign=\"top\"><p style=\"font-size: 8pt; color: #17324d;\"><b>%1</b></p>"
                                  "<p style=\"font-size: 10pt;\">%2:</p></td>"
                                  "<td width=\"30%\" align=\"right\" valign=\"bottom\"><p style=\"font-size: 17pt; font-weight: 600; "
                                  "color: #17324d;\">%3</p></td></tr></table>")
                       .arg(htmlBreakable(w.title), sentence, big);
    if (!detail.isEmpty()) html += QStringLiteral("<p style=\"font-size: 8pt;\">%1</p>").arg(detail);
    if (!rest.isEmpty())
        html += QStringLiteral("<p class=\"muted\" style=\"font-size: 7.5pt;\">%1; all in the comparison below.</p>")
                    .arg(rest.join(QStringLiteral("; ")));
    flow.addHtml(html, 9.0);
}

// A checkpointing workload (MLPerf Storage v3.0): write and read GiB/s of its best item (the passing one
// that writes fastest), never averaged with another item.
void checkpointHeadline(ReportPageFlow& flow, const ReportData& d, const WorkloadItems& w) {
    const auto& imp = d.library->imported();
    std::optional<std::size_t> best;
    std::vector<std::size_t> noRun, leftOutRuns;
    for (std::size_t i : w.items) {
        const ReportItem& it = d.items[i];
        leftOutRuns.insert(leftOutRuns.end(), it.excluded.begin(), it.excluded.end());
        if (!it.node->hasMetrics) {
            noRun.push_back(i);
            continue;
        }
        if (!best) {
            best = i;
            continue;
        }
        const LibraryNode& a = *it.node;
        const LibraryNode& b = *d.items[*best].node;
        if ((a.badge.passed && !b.badge.passed) ||
            (a.badge.passed == b.badge.passed && a.checkpointWriteGibPerSecond.mean > b.checkpointWriteGibPerSecond.mean))
            best = i;
    }
    QString sentence, big, detail;
    if (best) {
        const ReportItem& it = d.items[*best];
        const LibraryNode& n = *it.node;
        sentence = QStringLiteral("On <b>%1</b>, %2 checkpoints (%3) are written and read at")
                       .arg(htmlBreakable(systemLabel(it)), htmlText(modelWord(imp, it)),
                            htmlNoBreak(QStringLiteral("%1 processes").arg(n.accelerators)));
        const NodeMetric& wr = n.checkpointWriteGibPerSecond;
        const NodeMetric& rd = n.checkpointReadGibPerSecond;
        big = QStringLiteral("%1<br/>%2")
                  .arg(wr.n ? htmlNoBreak(QStringLiteral("write ")) + figure(wr.mean, figurePrecision(wr.mean), QStringLiteral("GiB/s")) : QStringLiteral("no write"),
                       rd.n ? htmlNoBreak(QStringLiteral("read ")) + figure(rd.mean, figurePrecision(rd.mean), QStringLiteral("GiB/s")) : QStringLiteral("no read"));
        QStringList parts;
        if (wr.n) parts << QStringLiteral("write %1").arg(ciText(wr, figurePrecision(wr.mean), QStringLiteral("GiB/s"), QStringLiteral("runs")));
        if (rd.n) parts << QStringLiteral("read %1").arg(ciText(rd, figurePrecision(rd.mean), QStringLiteral("GiB/s"), QStringLiteral("runs")));
        parts << QStringLiteral("MLPerf checks: %1").arg(n.badge.passed ? QStringLiteral("<span class=\"pass\">pass</span>")
                                                                        : QStringLiteral("<span class=\"fail\">fail</span> (Appendix)"));
        parts << itemRefs({*best});
        detail = parts.join(QStringLiteral(" · "));
    } else {
        sentence = QStringLiteral("<span class=\"fail\">No complete run:</span> every item of this workload failed, was "
                                  "cancelled or is incomplete");
        big = QStringLiteral("<span class=\"fail\">none</span>");
    }
    QStringList rest;
    if (w.items.size() > 1) rest << QStringLiteral("%1 items of this workload").arg(w.items.size());
    if (!noRun.empty()) rest << QStringLiteral("%1 without a complete run (%2)").arg(noRun.size()).arg(itemRefs(noRun));
    if (!leftOutRuns.empty())
        rest << QStringLiteral("%1 run%2 left out of every number (%3)")
                    .arg(leftOutRuns.size())
                    .arg(leftOutRuns.size() == 1 ? QString() : QStringLiteral("s"))
                    .arg(failedRunsText(imp, leftOutRuns));
    QString html = QStringLiteral("<table width=\"100%\" cellspacing=\"0\" cellpadding=\"0\"><tr>"
                                  "<td width=\"62%\" valign=\"top\"><p style=\"font-size: 8pt; color: #17324d;\"><b>%1</b></p>"
                                  "<p style=\"font-size: 10pt;\">%2:</p></td>"
                                  "<td width=\"38%\" align=\"right\" valign=\"bottom\"><p style=\"font-size: 13pt; font-weight: 600; "
                                  "color: #17324d;\">%3</p></td></tr></table>")
                       .arg(htmlBreakable(w.title), sentence, big);
    if (!detail.isEmpty()) html += QStringLiteral("<p style=\"font-size: 8pt;\">%1</p>").arg(detail);
    if (!rest.isEmpty())
        html += QStringLiteral("<p class=\"muted\" style=\"font-size: 7.5pt;\">%1; all in the comparison below.</p>")
                    .arg(rest.join(QStringLiteral("; ")));
    flow.addHtml(html, 9.0);
}

// How the numbers were obtained: storage (real or emulated), the page cache's share, the metric
// semantics, what ± means, what was left out.
void provenanceLines(ReportPageFlow& flow, const ReportData& d) {
    const auto& imp = d.library->imported();
    std::vector<std::size_t> real, cacheUnknown;
    std::map<QString, std::vector<std::size_t>> emulated, rounds;
    std::vector<std::size_t> published, cacheServed;
    double cacheMax = -1;
    std::vector<std::size_t> cacheMeasured, leftOut;
    std::vector<std::size_t> leftOutRuns;
    for (std::size_t i = 0; i < d.items.size(); ++i) {
        const ReportItem& it = d.items[i];
        const LibraryNode& n = *it.node;
        if (!n.storage.empty()) emulated[q(n.storage)].push_back(i);
        else if (!n.s3.empty()) emulated[q(n.s3)].push_back(i);
        else real.push_back(i);
        if (n.bytesSource.empty()) cacheUnknown.push_back(i);
        else {
            cacheMeasured.push_back(i);
            if (n.maxPercentFromCache) cacheMax = std::max(cacheMax, *n.maxPercentFromCache);
            if (n.cacheServed) cacheServed.push_back(i);
        }
        const InvocationRecord* r = !it.runs.empty() ? &imp.runs[it.runs.front()] : !it.excluded.empty() ? &imp.runs[it.excluded.front()] : nullptr;
        const bool trainio = r && aggregate::isTrainioRun(*r);
        if (!trainio) published.push_back(i);
        else {
            QString round = QStringLiteral("no MLPerf round in the config: DLIO ≥ 2.0 semantics unless --semantics chose another");
            if (r)
                for (const auto& [k, v] : r->resolved)
                    if (k == "trainio.mlperf_round" && !v.empty() && v != "none")
                        round = QStringLiteral("MLPerf Storage %1 config: that round's DLIO semantics").arg(q(v));
            rounds[round].push_back(i);
        }
        if (!it.excluded.empty()) leftOut.push_back(i);
        leftOutRuns.insert(leftOutRuns.end(), it.excluded.begin(), it.excluded.end());
    }
    QStringList lines;
    {
        QStringList parts;
        if (!real.empty()) parts << QStringLiteral("real storage for %1").arg(itemRefs(real));
        for (const auto& [name, idx] : emulated) parts << QStringLiteral("%1 for %2").arg(htmlText(name), itemRefs(idx));
        lines << QStringLiteral("<b>Storage:</b> %1.").arg(parts.join(QStringLiteral("; ")));
    }
    {
        QStringList parts;
        if (!cacheMeasured.empty())
            parts << QStringLiteral("measured by TrainIO for %1: at most %2 of an epoch's bytes came from the page cache")
                         .arg(itemRefs(cacheMeasured), htmlNoBreak(cacheMax >= 0 ? formatNumber(cacheMax, 0) + QStringLiteral(" %") : QStringLiteral("n/a")));
        if (!cacheServed.empty())
            parts << QStringLiteral("<span class=\"fail\">%1 read more than half an epoch from the page cache: those numbers "
                                    "describe memory, not the storage</span>")
                         .arg(itemRefs(cacheServed));
        if (!cacheUnknown.empty())
            parts << QStringLiteral("not recorded for %1 (DLIO and MLPerf Storage result folders do not record it)").arg(itemRefs(cacheUnknown));
        lines << QStringLiteral("<b>Page cache:</b> %1.").arg(parts.join(QStringLiteral("; ")));
    }
    {
        QStringList parts;
        if (!published.empty())
            parts << QStringLiteral("%1 are results of DLIO or MLPerf Storage runs, read from their summary.json as the DLIO "
                                    "that ran them computed them")
                         .arg(itemRefs(published));
        for (const auto& [round, idx] : rounds) parts << QStringLiteral("%1 were measured by TrainIO (%2)").arg(itemRefs(idx), round);
        lines << QStringLiteral("<b>Semantics:</b> %1.").arg(parts.join(QStringLiteral("; ")));
    }
    lines << QStringLiteral("<b>Statistics:</b> every figure is the mean over an item's complete measured runs (MLPerf's "
                            "mean of run means; the warm-up never counts), or over a single run's epochs. ± after a "
                            "headline figure is the 95&nbsp;% CI of that mean, as written beside it; ± in a table is "
                            "the population standard deviation, as its header says. Items are compared only within one "
                            "workload; nothing is averaged across workloads, accelerator counts or settings.");
    if (!leftOutRuns.empty())
        lines << QStringLiteral("<b>Left out:</b> %1 run%2 (%3) of %4 — listed with their reasons in the appendix, never "
                                "counted.")
                     .arg(leftOutRuns.size())
                     .arg(leftOutRuns.size() == 1 ? QString() : QStringLiteral("s"))
                     .arg(failedRunsText(imp, leftOutRuns), itemRefs(leftOut));
    // One block: the whole account moves to the next page rather than half of it.
    flow.addHtml(QStringLiteral("<p style=\"margin-bottom: 3px;\">%1</p>").arg(lines.join(QStringLiteral("</p><p style=\"margin-bottom: 3px;\">"))), 8.0);
}

std::vector<const LibraryNode*> reportSystems(const ReportData& d, bool* unnamed) {
    std::vector<const LibraryNode*> systems;
    *unnamed = false;
    for (const auto& it : d.items) {
        if (!it.system) *unnamed = true;
        else if (std::find(systems.begin(), systems.end(), it.system) == systems.end()) systems.push_back(it.system);
    }
    return systems;
}

// The system node carries the description; the groups below it carry the same text from the import.
std::string systemDescription(const ReportData& d, const LibraryNode* s) {
    if (!s->description.empty()) return s->description;
    for (const auto& it : d.items)
        if (it.system == s && it.group && !d.library->imported().groups.at(*it.group).systemDescription.empty())
            return d.library->imported().groups.at(*it.group).systemDescription;
    return std::string();
}

void answerPage(ReportPageFlow& flow, const ReportData& d) {
    const auto& o = d.options;
    flow.addHtml(QStringLiteral("<h1>%1</h1>").arg(htmlText(d.title)));
    if (!o.subtitle.trimmed().isEmpty()) {
        flow.addSpace(flow.mm(1));
        flow.addHtml(QStringLiteral("<p style=\"font-size: 12pt; color: #33475b;\">%1</p>").arg(htmlText(o.subtitle.trimmed())), 12.0);
    }
    flow.addSpace(flow.mm(1));
    flow.addHtml(QStringLiteral("<p class=\"muted\">%1 item%2 · generated %3 by TrainIO %4 · accelerator utilization (AU) "
                                "and bandwidth of deep-learning training I/O, with the metric definitions of DLIO and "
                                "MLPerf Storage</p>")
                     .arg(d.items.size())
                     .arg(d.items.size() == 1 ? QString() : QStringLiteral("s"))
                     .arg(htmlText(d.generated.toString(QStringLiteral("yyyy-MM-dd HH:mm"))), QStringLiteral(TRAINIO_VERSION)),
                 7.5);
    if (!o.notes.trimmed().isEmpty()) {
        flow.addSpace(flow.mm(2));
        flow.addHtml(QStringLiteral("<p>%1</p>").arg(multiline(o.notes)), 9.0);
    }
    flow.addSpace(flow.mm(4));
    reportHeading(flow, QStringLiteral("The answer"), 2);
    for (const WorkloadItems& w : reportWorkloads(d)) {
        if (w.checkpointing) checkpointHeadline(flow, d, w);
        else trainingHeadline(flow, d, w);
        flow.addSpace(flow.mm(3));
    }
    flow.addSpace(flow.mm(1));
    bool unnamed = false;
    const auto systems = reportSystems(d, &unnamed);
    reportHeading(flow, systems.size() + (unnamed ? 1 : 0) == 1 ? QStringLiteral("System under test") : QStringLiteral("Systems under test"), 3);
    if (systems.size() <= 3 && !unnamed) {
        for (const LibraryNode* s : systems) {
            const std::string text = systemDescription(d, s);
            flow.addHtml(QStringLiteral("<p><b>%1</b>: %2</p>")
                             .arg(htmlBreakable(q(s->label)),
                                  text.empty() ? QStringLiteral("<span class=\"muted\">storage not described (trainio-cli label DIR "
                                                                "--description …, or the Results page's label editor)</span>")
                                               : multiline(q(text))),
                         8.0);
            flow.addSpace(flow.mm(0.8));
        }
    } else {
        QStringList names;
        for (const LibraryNode* s : systems) names << htmlBreakable(q(s->label));
        if (unnamed) names << QStringLiteral("(unnamed system)");
        flow.addHtml(QStringLiteral("<p>%1 systems: %2. The appendix describes the storage of each.</p>")
                         .arg(names.size())
                         .arg(names.join(QStringLiteral(", "))),
                     8.0);
    }
    flow.addSpace(flow.mm(3));
    reportHeading(flow, QStringLiteral("How the numbers were obtained"), 3);
    provenanceLines(flow, d);
    flow.addSpace(flow.mm(4));
}

// ---- the comparison, per workload ----------------------------------------------------------------

QString deltaCell(const aggregate::CompareMetric& m, int precision) {
    if (!m.delta) return QStringLiteral("–");
    const auto& dl = *m.delta;
    QString text = htmlNoBreak((dl.absolute >= 0 ? QStringLiteral("+") : QString()) + formatNumber(dl.absolute, precision));
    if (std::isfinite(dl.percent))
        text += QStringLiteral(" ") + htmlNoBreak(QStringLiteral("(%1%2 %)").arg(dl.percent >= 0 ? QStringLiteral("+") : QString(), formatNumber(dl.percent, 1)));
    if (dl.withinNoise) text += *dl.withinNoise ? QStringLiteral("<br/><i>within noise</i>") : QStringLiteral("<br/><b>differs</b>");
    else if (!dl.ciNote.empty()) text += QStringLiteral("<br/><i>no CI</i>");
    return text;
}

// Horizontal bars of one metric of a workload's items, each labelled #n (the table names them).
void comparisonBars(ReportPageFlow& flow, const std::vector<BarItem>& left, const QString& leftTitle, const QString& leftAxis,
                    const std::vector<BarItem>& right, const QString& rightTitle, const QString& rightAxis) {
    if (left.size() < 2) return;
    const double height = flow.mm(barPlotHeightMm(left.size()));
    flow.addPlots({barPlot(leftTitle, leftAxis, left, seriesColour(0)), barPlot(rightTitle, rightAxis, right, seriesColour(2))}, height);
}

void trainingComparison(ReportPageFlow& flow, const ReportData& d, const WorkloadItems& w) {
    std::vector<const LibraryNode*> nodes;
    std::size_t baseline = 0;
    for (std::size_t k = 0; k < w.items.size(); ++k) {
        if (w.items[k] == d.options.baseline) baseline = k;
        nodes.push_back(d.items[w.items[k]].node);
    }
    aggregate::CompareOptions co;
    co.baseline = baseline;
    co.perAccelerator = d.options.perAccelerator;
    const aggregate::CompareResult cmp = aggregate::compare(nodes, co);
    const auto threshold = itemThreshold(d.library->imported(), d.items[w.items.front()]);

    QString caption;
    if (w.items.size() > 1) {
        caption = QStringLiteral("Δ against <b>#%1</b>").arg(w.items[baseline] + 1);
        if (w.items[baseline] != d.options.baseline) caption += QStringLiteral(" (the report's baseline is of another workload)");
        caption += QStringLiteral("; “within noise” when the 95&nbsp;% CI of the difference (Welch) holds 0");
        if (cmp.perAccelerator) caption += QStringLiteral(". Read GiB/s per accelerator, since accelerator counts differ or it was asked for");
        caption += QLatin1Char('.');
    }
    if (threshold) caption += QStringLiteral(" AU line: %1.").arg(htmlNoBreak(formatNumber(*threshold, 0) + QStringLiteral(" %")));
    // The caption is part of the heading: both stay with the table's first rows.
    flow.addHeading(QStringLiteral("<h3>%1</h3><p class=\"muted\" style=\"font-size: 7.5pt;\">%2</p>").arg(htmlText(w.title), caption),
                    flow.mm(1.2));

    ReportTable t;
    const QString per = cmp.perAccelerator ? QStringLiteral(" per acc.") : QString();
    t.header = {QStringLiteral("#"), QStringLiteral("Item"), QStringLiteral("Acc."), QStringLiteral("AU %<br/>mean ± sd"),
                QStringLiteral("Read GiB/s%1<br/>mean ± sd").arg(per), QStringLiteral("Δ AU<br/>points"), QStringLiteral("Δ Read<br/>GiB/s%1").arg(per)};
    t.widthsPercent = {5, 37, 6, 14, 15, 11, 12};
    t.fontPt = 7.0;
    t.alignRight = {true, false, true, true, true, true, true};
    std::vector<BarItem> au, gib;
    QStringList footnotes, ciNotes;
    const auto& imp = d.library->imported();
    for (std::size_t r = 0; r < cmp.rows.size(); ++r) {
        const auto& row = cmp.rows[r];
        const std::size_t i = w.items[r];
        const ReportItem& it = d.items[i];
        const LibraryNode& n = *it.node;
        QString name = htmlBreakable(it.name);
        if (row.baseline && w.items.size() > 1) name += QStringLiteral(" <i>(baseline)</i>");
        if (!n.hasMetrics)
            name += QStringLiteral("<br/>%1 <span class=\"muted\">— no complete run, excluded</span>").arg(statusHtml(n.status));
        else if (!it.excluded.empty())
            name += QStringLiteral("<br/><span class=\"muted\">%1 excluded: %2</span>").arg(it.excluded.size()).arg(failedRunsText(imp, it.excluded));
        if (const auto ok = aboveLine(imp, it); ok && !*ok) name += QStringLiteral(" <span class=\"fail\">below the AU line</span>");
        QStringList cells{QString::number(i + 1), name, QString::number(n.accelerators)};
        if (!n.hasMetrics) {
            cells << QStringLiteral("–") << QStringLiteral("–") << QStringLiteral("–") << QStringLiteral("–");
            t.rows.push_back(cells);
            continue;
        }
        const bool values = row.valuesShown && row.metrics.size() >= 3;
        // The row's own figures, divided as the header says whether or not it is compared (compare() divides
        // every row; valuesShown only governs its deltas here).
        const NodeMetric& auValue = row.metrics.at(0).value;
        const NodeMetric& gibValue = row.metrics.at(2).value;
        cells << metricCell(auValue) << metricCell(gibValue, 3);
        if (!row.comparable && !row.baseline) {
            footnotes << QStringLiteral("#%1: %2").arg(i + 1).arg(htmlBreakable(q(row.reason)));
            cells << QStringLiteral("not compared*") << QString();
        } else {
            cells << (values ? deltaCell(row.metrics[0], 2) : QStringLiteral("–")) << (values ? deltaCell(row.metrics[2], 3) : QStringLiteral("–"));
            // Why a Δ has no CI (a benchmark's run means beside an invocation's epochs), said once per row.
            if (values && row.metrics[0].delta && !row.metrics[0].delta->ciNote.empty())
                ciNotes << QStringLiteral("#%1: no CI: %2").arg(i + 1).arg(htmlText(q(row.metrics[0].delta->ciNote)));
        }
        t.rows.push_back(cells);
        if (!row.comparable && !row.baseline) continue; // not drawn beside what it cannot be compared with
        const QString label = QStringLiteral("#%1").arg(i + 1);
        auto bar = [&](const NodeMetric& v, std::optional<double> th) {
            const bool ci = v.n >= 2;
            return BarItem{label, v.mean, ci ? v.ci95.low : std::nan(""), ci ? v.ci95.high : std::nan(""), th};
        };
        au.push_back(bar(auValue, threshold));
        gib.push_back(bar(gibValue, std::nullopt));
    }
    flow.addTable(t);
    if (!footnotes.isEmpty()) {
        flow.addSpace(flow.mm(0.8));
        flow.addHtml(QStringLiteral("<p class=\"muted\">* Not compared with the baseline — %1.</p>").arg(footnotes.join(QStringLiteral("; "))), 7.0);
    }
    if (!ciNotes.isEmpty()) {
        flow.addSpace(flow.mm(0.8));
        flow.addHtml(QStringLiteral("<p class=\"muted\">%1.</p>").arg(ciNotes.join(QStringLiteral("; "))), 7.0);
    }
    if (au.size() > 1) {
        flow.addSpace(flow.mm(2));
        const QString suffix = cmp.perAccelerator ? QStringLiteral(" per accelerator") : QString();
        comparisonBars(flow, au, QStringLiteral("AU (dashed: the AU line)"), QStringLiteral("AU %"), gib,
                       QStringLiteral("Read bandwidth%1").arg(suffix), QStringLiteral("GiB/s") + suffix);
        flow.addHtml(QStringLiteral("<p class=\"muted\">Bars: the mean; whiskers: its 95&nbsp;% CI (none for one value); "
                                    "axes from zero; #n as in the table.</p>"),
                     7.0);
    }
    flow.addSpace(flow.mm(5));
}

void checkpointComparison(ReportPageFlow& flow, const ReportData& d, const WorkloadItems& w) {
    const auto& imp = d.library->imported();
    reportHeading(flow, htmlText(w.title), 3);
    ReportTable t;
    t.header = {QStringLiteral("#"), QStringLiteral("Item"), QStringLiteral("Proc."), QStringLiteral("Write GiB/s<br/>mean ± sd"),
                QStringLiteral("Read GiB/s<br/>mean ± sd"), QStringLiteral("Write s<br/>mean ± sd"), QStringLiteral("Read s<br/>mean ± sd")};
    t.widthsPercent = {5, 35, 7, 14, 14, 12, 13};
    t.fontPt = 7.0;
    t.alignRight = {true, false, true, true, true, true, true};
    std::vector<BarItem> wr, rd;
    for (std::size_t i : w.items) {
        const ReportItem& it = d.items[i];
        const LibraryNode& n = *it.node;
        QString name = htmlBreakable(it.name);
        if (!n.hasMetrics) name += QStringLiteral("<br/>%1 <span class=\"muted\">— no complete run, excluded</span>").arg(statusHtml(n.status));
        else if (!it.excluded.empty())
            name += QStringLiteral("<br/><span class=\"muted\">%1 excluded: %2</span>").arg(it.excluded.size()).arg(failedRunsText(imp, it.excluded));
        t.rows.push_back({QString::number(i + 1), name, QString::number(n.accelerators),
                          n.hasMetrics ? metricCell(n.checkpointWriteGibPerSecond, 3) : QStringLiteral("–"),
                          n.hasMetrics ? metricCell(n.checkpointReadGibPerSecond, 3) : QStringLiteral("–"),
                          n.hasMetrics ? metricCell(n.checkpointWriteSeconds, 1) : QStringLiteral("–"),
                          n.hasMetrics ? metricCell(n.checkpointReadSeconds, 1) : QStringLiteral("–")});
        if (!n.hasMetrics) continue;
        auto bar = [&](const NodeMetric& v) {
            const bool ci = v.n >= 2;
            return BarItem{QStringLiteral("#%1").arg(i + 1), v.n ? v.mean : 0.0, ci ? v.ci95.low : std::nan(""), ci ? v.ci95.high : std::nan(""), std::nullopt};
        };
        wr.push_back(bar(n.checkpointWriteGibPerSecond));
        rd.push_back(bar(n.checkpointReadGibPerSecond));
    }
    flow.addTable(t);
    if (wr.size() > 1) {
        flow.addSpace(flow.mm(2));
        comparisonBars(flow, wr, QStringLiteral("Checkpoint write"), QStringLiteral("GiB/s"), rd, QStringLiteral("Checkpoint read"),
                       QStringLiteral("GiB/s"));
    }
    flow.addSpace(flow.mm(5));
}

void comparisonSection(ReportPageFlow& flow, const ReportData& d) {
    const auto workloads = reportWorkloads(d);
    reportHeading(flow, QStringLiteral("Comparison per workload"), 2);
    flow.addHtml(QStringLiteral("<p class=\"muted\">Items are compared only within one workload identity (model, accelerator "
                                "type, format, record length, samples per file, batch size, computation time, AU line). "
                                "± in these tables is the population standard deviation over the item's complete runs "
                                "(over its epochs for a single run); none for fewer than two values.</p>"),
                 7.5);
    flow.addSpace(flow.mm(2));
    for (const WorkloadItems& w : workloads) {
        if (w.checkpointing) checkpointComparison(flow, d, w);
        else trainingComparison(flow, d, w);
    }
}

// ---- appendix ------------------------------------------------------------------------------------

// The deepest folder holding every item's folder (named once; the folders are listed below it).
fs::path commonFolder(const ReportData& d) {
    std::optional<fs::path> common;
    for (const auto& it : d.items) {
        const fs::path p = it.node->path.lexically_normal();
        if (!common) {
            common = p.parent_path();
            continue;
        }
        fs::path shared;
        auto a = common->begin();
        for (auto b = p.begin(); a != common->end() && b != p.end() && *a == *b; ++a, ++b) shared /= *a;
        common = shared;
    }
    if (d.items.size() == 1) return d.items.front().node->path.lexically_normal(); // named whole, once
    return common.value_or(fs::path());
}

QString folderBelow(const fs::path& folder, const fs::path& common) {
    if (common.empty()) return htmlBreakable(q(folder.string()));
    const fs::path rel = folder.lexically_normal().lexically_relative(common);
    return htmlBreakable(rel.empty() || rel == "." ? QStringLiteral("(the folder itself)") : q(rel.string()));
}

void appendix(ReportPageFlow& flow, const ReportData& d) {
    const auto& imp = d.library->imported();
    flow.ensureSpace(flow.mm(120));
    reportHeading(flow, QStringLiteral("Appendix"), 2);

    const fs::path common = commonFolder(d);
    reportHeading(flow, QStringLiteral("A. Items, their runs and folders"), 3);
    flow.addHtml(QStringLiteral("<p class=\"muted\">Folders below <b>%1</b>. ± is the population standard deviation over the "
                                "item's complete runs (over its epochs for a single run).</p>")
                     .arg(htmlBreakable(common.empty() ? QStringLiteral("(no common folder)") : q(common.string()))),
                 7.5);
    flow.addSpace(flow.mm(1));
    // Per accelerator as the comparison tables are, when the report asks for it (or counts differ).
    std::vector<const LibraryNode*> nodes;
    for (const auto& it : d.items) nodes.push_back(it.node);
    const bool perAcc = d.options.perAccelerator ? *d.options.perAccelerator : aggregate::perAcceleratorByDefault(nodes);
    const QString per = perAcc ? QStringLiteral(" per acc.") : QString();
    ReportTable items;
    items.header = {QStringLiteral("#"), QStringLiteral("Item"), QStringLiteral("Status"), QStringLiteral("Runs"),
                    QStringLiteral("samples/s%1<br/>mean ± sd").arg(per), QStringLiteral("MiB/s%1<br/>mean ± sd").arg(per),
                    QStringLiteral("Folder")};
    items.widthsPercent = {4, 24, 8, 6, 16, 13, 29};
    items.alignRight = {true, false, false, true, true, true, false};
    items.fontPt = 6.5;
    for (std::size_t i = 0; i < d.items.size(); ++i) {
        const ReportItem& it = d.items[i];
        const LibraryNode& n = *it.node;
        QString runs = QString::number(it.runs.size());
        if (!it.excluded.empty()) runs += QStringLiteral(" + ") + htmlNoBreak(QStringLiteral("%1 excl.").arg(it.excluded.size()));
        const bool ckpt = n.type == aggregate::BenchmarkType::Checkpointing;
        items.rows.push_back({QString::number(i + 1), htmlBreakable(it.name), statusHtml(n.status), runs,
                              n.hasMetrics && !ckpt ? metricCell(perAcc ? aggregate::perAccelerator(n.samplesPerSecond, n.accelerators) : n.samplesPerSecond) : QStringLiteral("–"),
                              n.hasMetrics && !ckpt ? metricCell(perAcc ? aggregate::perAccelerator(n.mibPerSecond, n.accelerators) : n.mibPerSecond) : QStringLiteral("–"),
                              folderBelow(n.path, common)});
    }
    flow.addTable(items);
    flow.addSpace(flow.mm(4));

    bool unnamed = false;
    const auto systems = reportSystems(d, &unnamed);
    reportHeading(flow, QStringLiteral("B. Systems under test"), 3);
    ReportTable sys;
    sys.header = {QStringLiteral("System"), QStringLiteral("Storage under test"), QStringLiteral("Notes")};
    sys.widthsPercent = {28, 52, 20};
    sys.alignRight = {false, false, false};
    sys.fontPt = 7.0;
    for (const LibraryNode* s : systems) {
        const std::string text = systemDescription(d, s);
        sys.rows.push_back({QStringLiteral("<b>%1</b>").arg(htmlBreakable(q(s->label))),
                            text.empty() ? QStringLiteral("<span class=\"muted\">not described (trainio-cli label DIR --description "
                                                          "…, or the Results page's label editor)</span>")
                                         : multiline(q(text)),
                            multiline(q(s->notes))});
    }
    if (unnamed) sys.rows.push_back({QStringLiteral("(unnamed system)"), QStringLiteral("<span class=\"muted\">not described</span>"), QString()});
    flow.addTable(sys);
    flow.addSpace(flow.mm(4));

    ReportTable left;
    left.header = {QStringLiteral("#"), QStringLiteral("Run"), QStringLiteral("Status and reason")};
    left.widthsPercent = {5, 25, 70};
    left.alignRight = {true, false, false};
    left.fontPt = 7.0;
    for (std::size_t i = 0; i < d.items.size(); ++i)
        for (std::size_t k : d.items[i].excluded)
            left.rows.push_back({QString::number(i + 1), htmlBreakable(q(imp.runs[k].runName)), statusHtml(imp.runs[k].status, imp.runs[k].statusReason)});
    reportHeading(flow, QStringLiteral("C. Runs left out of every number"), 3);
    if (left.rows.empty()) flow.addHtml(QStringLiteral("<p>None: every measured run is complete.</p>"), 8.0);
    else flow.addTable(left);
    flow.addSpace(flow.mm(4));

    reportHeading(flow, QStringLiteral("D. MLPerf Storage closed-division checks"), 3);
    ReportTable checks;
    checks.header = {QStringLiteral("#"), QStringLiteral("Verdict")};
    checks.widthsPercent = {5, 95};
    checks.alignRight = {true, false};
    checks.fontPt = 7.0;
    for (std::size_t i = 0; i < d.items.size(); ++i) {
        const ReportItem& it = d.items[i];
        const LibraryNode& n = *it.node;
        QString verdict;
        if (n.kind != NodeKind::Benchmark) verdict = QStringLiteral("<span class=\"muted\">not checked: a single invocation (the rules are about a benchmark's runs)</span>");
        else if (!n.hasMetrics) verdict = QStringLiteral("<span class=\"fail\">FAIL</span> — no complete run");
        else {
            if (!n.checks.empty()) {
                QStringList list;
                for (const auto& c : n.checks) list << htmlBreakable(q(c));
                verdict = QStringLiteral("<span class=\"fail\">FAIL</span> — %1").arg(list.join(QStringLiteral("<br/>")));
            } else if (n.notSubmission.empty()) {
                verdict = QStringLiteral("<span class=\"pass\">PASS</span> — every rule that could be checked holds");
            }
            // Not meant as a submission: the rules it would not meet are what a submission would need, not failures.
            if (!n.notSubmission.empty()) {
                QStringList list;
                for (const auto& c : n.notSubmission) list << htmlBreakable(q(c));
                verdict += QStringLiteral("%1%2:<br/><span class=\"muted\">%3</span>")
                               .arg(verdict.isEmpty() ? QString() : QStringLiteral("<br/>"),
                                    htmlText(q(aggregate::notSubmissionText(n.notSubmission.size()))), list.join(QStringLiteral("<br/>")));
            }
        }
        if (n.kind == NodeKind::Benchmark && it.group && !it.runs.empty()) {
            const auto& agg = d.library->aggregate(*it.group);
            if (agg.reportAgrees)
                verdict += *agg.reportAgrees ? QStringLiteral("<br/><span class=\"muted\">mlperf_storage_report.json beside the runs agrees</span>")
                                             : QStringLiteral("<br/><span class=\"fail\">mlperf_storage_report.json beside the runs disagrees</span>");
        }
        checks.rows.push_back({QString::number(i + 1), verdict});
    }
    flow.addHtml(QStringLiteral("<p class=\"muted\">Training: 5 measured runs and a warm-up, AU at or above the line in every "
                                "run, a dataset of at least 5 × the clients' memory, one configuration per folder. "
                                "Checkpointing: 10 writes and 10 reads in 1 or 2 invocations, the write phase before the read "
                                "phase, accelerator memory at least the checkpoint size, subset mode only for llama3-8b.</p>"),
                 7.5);
    flow.addSpace(flow.mm(1));
    flow.addTable(checks);
    flow.addSpace(flow.mm(4));

    if (d.options.itemDetail) {
        reportHeading(flow, QStringLiteral("E. Configuration of each item"), 3);
        for (std::size_t i = 0; i < d.items.size(); ++i) configurationTables(flow, d, d.items[i], i);
        flow.addSpace(flow.mm(2));
    }

    reportHeading(flow, QStringLiteral("%1. Units").arg(d.options.itemDetail ? QStringLiteral("F") : QStringLiteral("E")), 3);
    ReportTable units;
    units.header = {QStringLiteral("Unit"), QStringLiteral("Meaning")};
    units.widthsPercent = {16, 84};
    units.fontPt = 7.0;
    units.rows = {
        {QStringLiteral("<b>AU %</b>"),
         QStringLiteral("Accelerator utilization: the share of the training time the emulated accelerators spent "
                        "computing rather than waiting for data (DLIO train_au_percentage). A run is above the AU line "
                        "when its mean AU is at least the workload's threshold, metric.au × 100.")},
        {QStringLiteral("<b>samples/s</b>"), QStringLiteral("Training samples delivered per second, summed over the accelerators.")},
        {QStringLiteral("<b>MiB/s</b>"),
         QStringLiteral("1 MiB/s = 2^20 bytes/s: samples/s × mean record length ÷ 2^20. DLIO names the key MB/s "
                        "(train_io_mean_MB_per_second) but the values are MiB/s.")},
        {QStringLiteral("<b>Read GiB/s</b>"), QStringLiteral("MLPerf Storage v3.0's \"Read B/W (GiB/s)\": train_io_mean_MB_per_second ÷ 1024, mean over runs.")},
        {QStringLiteral("<b>±</b>"),
         QStringLiteral("After a headline figure: the half-width of the 95 % confidence interval of the mean (Student's t), "
                        "as written beside it. In a table: the population standard deviation (numpy.std, the spread "
                        "MLPerf Storage reports, and what the GUI shows), as the column header says — but in the "
                        "Interference table, whose headers say \"± 95 % CI\": the half-width of the 95 % confidence "
                        "interval of the difference alone − together (Welch).")},
        {QStringLiteral("<b>Status</b>"),
         QStringLiteral("complete · incomplete (fewer epochs or runs than planned) · cancelled · failed. Only complete "
                        "runs enter a number; the others are listed in C with their reason.")},
    };
    flow.addTable(units);
    flow.addSpace(flow.mm(3));
    flow.addHtml(QStringLiteral("<p class=\"muted\">Report written on %1, %2.</p>").arg(htmlText(hostDescription()), htmlText(osDescription())), 7.0);
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
    reportHeading(flow, QStringLiteral("Per epoch"), 3);
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
    reportHeading(flow, QStringLiteral("Per step and per accelerator"), 3);
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
                      .arg(folderBelow(rep->path, commonFolder(d)));
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
        reportHeading(flow, QStringLiteral("Telemetry"), 3);
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
    reportHeading(flow, QStringLiteral("Telemetry"), 3);
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

void configurationTables(ReportPageFlow& flow, const ReportData& d, const ReportItem& it, std::size_t index) {
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
    reportHeading(flow, QStringLiteral("#%1 %2 <span class=\"muted\" style=\"font-weight: normal;\">— run %3</span>")
                            .arg(index + 1)
                            .arg(htmlBreakable(it.name), htmlText(q(r.runName))),
                  3);
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
                         .arg(r.configFile ? folderBelow(*r.configFile, commonFolder(d)) : QStringLiteral("Configuration"),
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
void itemSection(ReportPageFlow& flow, const ReportData& d, std::size_t index) {
    const ReportItem& it = d.items[index];
    const LibraryNode& n = *it.node;
    const auto& imp = d.library->imported();
    flow.addSpace(flow.mm(4));
    reportHeading(flow, QStringLiteral("#%1 %2").arg(index + 1).arg(htmlBreakable(it.name)), 2);
    const QString kind = n.kind == NodeKind::Benchmark
                             ? QStringLiteral("benchmark of %1 complete run%2").arg(it.runs.size()).arg(it.runs.size() == 1 ? QString() : QStringLiteral("s"))
                             : QStringLiteral("single invocation");
    flow.addHtml(QStringLiteral("<p>%1 &nbsp;·&nbsp; %2 &nbsp;·&nbsp; %3 &nbsp;·&nbsp; %4 &nbsp;·&nbsp; %5</p>"
                                "<p class=\"muted\">Folder: %6</p>")
                     .arg(statusHtml(n.status, n.statusReason), htmlBreakable(systemLabel(it)), htmlText(workloadText(n)),
                          htmlNoBreak(QStringLiteral("%1 accelerator%2").arg(n.accelerators).arg(n.accelerators == 1 ? QString() : QStringLiteral("s"))),
                          kind, folderBelow(n.path, commonFolder(d))),
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
        flow.addHtml(QStringLiteral("<p>Checkpoint write %1&nbsp;GiB/s in %2&nbsp;s &nbsp;·&nbsp; read %3&nbsp;GiB/s in %4&nbsp;s "
                                    "<span class=\"muted\">(means of summary.json's save_/load_checkpoint_* over the runs that "
                                    "wrote, resp. read; – where none did)</span></p>")
                         .arg(metricCell(n.checkpointWriteGibPerSecond, 3), metricCell(n.checkpointWriteSeconds, 1),
                              metricCell(n.checkpointReadGibPerSecond, 3), metricCell(n.checkpointReadSeconds, 1)),
                     9.0);
    else if (n.hasMetrics)
        flow.addHtml(QStringLiteral("<p>AU %1&nbsp;% &nbsp;·&nbsp; %2&nbsp;samples/s &nbsp;·&nbsp; Read B/W %3&nbsp;GiB/s &nbsp;·&nbsp; "
                                    "%4&nbsp;MiB/s <span class=\"muted\">(mean ± population stdev over %5 %6)</span></p>")
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
        reportHeading(flow, QStringLiteral("Statistics"), 3);
        if (agg) statisticsTable(flow, *agg);
        else nodeStatisticsTable(flow, n);
        flow.addSpace(flow.mm(4));
    }

    reportHeading(flow, QStringLiteral("Runs <span class=\"muted\" style=\"font-weight: normal;\">— complete, then excluded "
                                 "(with the reason), then warm-up</span>"), 3);
    flow.addTable(ckpt ? checkpointRunTable(imp, it) : runTable(imp, it));
    flow.addSpace(flow.mm(4));
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
