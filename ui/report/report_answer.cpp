// Page 1 of the report: the answer — per workload one sentence and one figure, how it was obtained.
#include "report/report_sections.h"

namespace trainio::ui::report_sections {

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

// A workload's items as its headline needs them: those with a complete run (in the workload's order), those
// without one, and the runs left out of the items' aggregates.
namespace {
struct HeadlineItems {
    std::vector<std::size_t> measured, noRun, leftOutRuns;
};
HeadlineItems headlineItems(const ReportData& d, const WorkloadItems& w) {
    HeadlineItems h;
    for (std::size_t i : w.items) {
        const ReportItem& it = d.items[i];
        h.leftOutRuns.insert(h.leftOutRuns.end(), it.excluded.begin(), it.excluded.end());
        (it.node->hasMetrics ? h.measured : h.noRun).push_back(i);
    }
    return h;
}
} // namespace

// One workload's headline: a sentence and one figure (the best item above the AU line: most
// accelerators, then the higher Read GiB/s — the library's "best passing" order), what it rests on, and
// what was left out. Nothing is averaged across items.
void trainingHeadline(ReportPageFlow& flow, const ReportData& d, const WorkloadItems& w) {
    const auto& imp = d.library->imported();
    std::optional<std::size_t> best, bestBelow;
    std::size_t above = 0, below = 0;
    const HeadlineItems items = headlineItems(d, w);
    const std::vector<std::size_t>&noRun = items.noRun, &leftOutRuns = items.leftOutRuns;
    std::vector<std::size_t> cacheServed;
    for (std::size_t i : items.measured) {
        const ReportItem& it = d.items[i];
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
    if (!leftOutRuns.empty()) rest << leftOutRunsText(imp, leftOutRuns);
    headlineBlock(flow, w.title, sentence, big, 70, FigureSize::Large, detail, rest);
}

// A checkpointing workload (MLPerf Storage v3.0): write and read GiB/s of its best item (the passing one
// that writes fastest), never averaged with another item.
void checkpointHeadline(ReportPageFlow& flow, const ReportData& d, const WorkloadItems& w) {
    const auto& imp = d.library->imported();
    std::optional<std::size_t> best;
    const HeadlineItems items = headlineItems(d, w);
    const std::vector<std::size_t>&noRun = items.noRun, &leftOutRuns = items.leftOutRuns;
    for (std::size_t i : items.measured) {
        const ReportItem& it = d.items[i];
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
    if (!leftOutRuns.empty()) rest << leftOutRunsText(imp, leftOutRuns);
    headlineBlock(flow, w.title, sentence, big, 62, FigureSize::Medium, detail, rest);
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
    flow.addHtml(QStringLiteral("<p class=\"account\">%1</p>").arg(lines.join(QStringLiteral("</p><p class=\"account\">"))), 8.0);
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
        flow.addHtml(QStringLiteral("<p class=\"subtitle\">%1</p>").arg(htmlText(o.subtitle.trimmed())), 12.0);
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

} // namespace trainio::ui::report_sections
