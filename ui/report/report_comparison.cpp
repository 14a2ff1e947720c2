// The comparison, per workload: the table against the baseline and its bar charts.
#include "report/report_sections.h"

namespace trainio::ui::report_sections {

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
    flow.addHeading(QStringLiteral("<h3>%1</h3><p class=\"caption\">%2</p>").arg(htmlText(w.title), caption),
                    flow.mm(1.2));

    ReportTable t;
    const QString per = cmp.perAccelerator ? QStringLiteral(" per acc.") : QString();
    t.header = {QStringLiteral("#"), QStringLiteral("Item"), QStringLiteral("Acc."), QStringLiteral("AU %<br/>mean ± sd"),
                QStringLiteral("Read GiB/s%1<br/>mean ± sd").arg(per), QStringLiteral("Δ AU<br/>points"), QStringLiteral("Δ Read<br/>GiB/s%1").arg(per)};
    t.widthsPercent = {5, 37, 6, 14, 15, 11, 12};
    t.fontPt = 7.0;
    t.alignRight = {true, false, true, true, true, true, true};
    std::vector<BarItem> au, gib;
    // Each reason once, with every item it holds for ("#2, #3: emulated nvme vs the real storage"): a wall of
    // the same sentence per item was what 58 items gave (issue 32 item 10).
    std::vector<std::pair<QString, QStringList>> footnotes, ciNotes;
    auto note = [](std::vector<std::pair<QString, QStringList>>& notes, const QString& reason, std::size_t item) {
        const QString id = QStringLiteral("#%1").arg(item + 1);
        for (auto& [text, ids] : notes)
            if (text == reason) return ids.push_back(id);
        notes.push_back({reason, {id}});
    };
    auto joined = [](const std::vector<std::pair<QString, QStringList>>& notes, const QString& prefix) {
        QStringList parts;
        for (const auto& [text, ids] : notes)
            parts << QStringLiteral("%1: %2%3").arg(ids.join(QStringLiteral(", ")), prefix,
                                                    QString(text).replace(QStringLiteral("\x01"), ids.size() > 1 ? QStringLiteral("each") : QStringLiteral("it")));
        return parts.join(QStringLiteral("; "));
    };
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
        // The advisories' badge (issue 33): how many known defects may touch it; their sentences in the item's
        // detail and the appendix.
        if (!n.advisories.empty())
            name += QStringLiteral("<br/><span class=\"fail\">%1 advisor%2</span> <span class=\"muted\">(known defects of the tool that measured it)</span>")
                        .arg(n.advisories.size())
                        .arg(n.advisories.size() == 1 ? QStringLiteral("y") : QStringLiteral("ies"));
        // Its efficiency (issue 33): GiB/s over its own system's figures; the figures and sources in the item's detail.
        if (const std::string eff = aggregate::efficiencyText(n.efficiency, true); !eff.empty())
            name += QStringLiteral("<br/><span class=\"muted\">efficiency (GiB/s per): %1</span>").arg(htmlText(q(eff)));
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
        // Under mean ± sd, the run-to-run spread (issue 33's noise floor): lowest to highest run.
        auto spread = [&](const NodeMetric& v, int precision) {
            if (v.values.size() < 2) return QString();
            const auto [low, high] = std::minmax_element(v.values.begin(), v.values.end());
            return QStringLiteral("<br/><span class=\"muted\">%1 %2–%3</span>")
                .arg(q(row.replication.empty() ? std::string("runs") : row.replication), formatNumber(*low, precision), formatNumber(*high, precision));
        };
        cells << metricCell(auValue) + spread(auValue, 2) << metricCell(gibValue, 3) + spread(gibValue, 3);
        if (!row.comparable && !row.baseline) {
            // The reason names this item and the baseline; said of "it" and "#b", the same reason of several
            // items is one sentence ("#2, #3: emulated vs real storage: each went through emulated nvme, #1
            // through real storage"), not one per item.
            QString reason = q(row.reason);
            const QString baseName = q(nodes[baseline]->itemName);
            reason.replace(q(n.itemName), QStringLiteral("\x01"));
            if (!baseName.isEmpty()) reason.replace(baseName, QStringLiteral("#%1").arg(w.items[baseline] + 1));
            note(footnotes, htmlBreakable(reason), i);
            cells << QStringLiteral("not compared*") << QString();
        } else {
            cells << (values ? deltaCell(row.metrics[0], 2) : QStringLiteral("–")) << (values ? deltaCell(row.metrics[2], 3) : QStringLiteral("–"));
            // Why a Δ has no CI (a benchmark's run means beside an invocation's epochs), said once per row.
            if (values && row.metrics[0].delta && !row.metrics[0].delta->ciNote.empty())
                note(ciNotes, htmlText(q(row.metrics[0].delta->ciNote)), i);
        }
        t.rows.push_back(cells);
        if (!row.comparable && !row.baseline) continue; // not drawn beside what it cannot be compared with
        const QString label = QStringLiteral("#%1").arg(i + 1);
        auto bar = [&](const NodeMetric& v, std::optional<double> th) {
            const bool ci = v.n >= 2;
            return BarItem{label, v.mean, ci ? v.ci95.low : std::nan(""), ci ? v.ci95.high : std::nan(""), th, v.values};
        };
        au.push_back(bar(auValue, threshold));
        gib.push_back(bar(gibValue, std::nullopt));
    }
    flow.addTable(t);
    if (!footnotes.empty()) {
        flow.addSpace(flow.mm(0.8));
        flow.addHtml(QStringLiteral("<p class=\"muted\">* Not compared with the baseline — %1.</p>").arg(joined(footnotes, QString())), 7.0);
    }
    if (!ciNotes.empty()) {
        flow.addSpace(flow.mm(0.8));
        flow.addHtml(QStringLiteral("<p class=\"muted\">%1.</p>").arg(joined(ciNotes, QStringLiteral("no CI: "))), 7.0);
    }
    if (au.size() > 1) {
        flow.addSpace(flow.mm(2));
        const QString suffix = cmp.perAccelerator ? QStringLiteral(" per accelerator") : QString();
        comparisonBars(flow, au, QStringLiteral("AU (dashed: the AU line)"), QStringLiteral("AU %"), gib,
                       QStringLiteral("Read bandwidth%1").arg(suffix), QStringLiteral("GiB/s") + suffix);
        flow.addHtml(QStringLiteral("<p class=\"muted\">Bars: the mean; whiskers: its 95&nbsp;% CI (none for one value); "
                                    "dots on a line: each run (an invocation's epochs), lowest to highest — the run-to-run "
                                    "spread; axes from zero; #n as in the table.</p>"),
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
            return BarItem{QStringLiteral("#%1").arg(i + 1), v.n ? v.mean : 0.0, ci ? v.ci95.low : std::nan(""), ci ? v.ci95.high : std::nan(""),
                           std::nullopt, v.values};
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
                                "(over its epochs for a single run); none for fewer than two values. Beneath it, the run-to-run "
                                "spread: the lowest and the highest run (epoch).</p>"),
                 7.5);
    flow.addSpace(flow.mm(2));
    for (const WorkloadItems& w : workloads) {
        if (w.checkpointing) checkpointComparison(flow, d, w);
        else trainingComparison(flow, d, w);
    }
}

} // namespace trainio::ui::report_sections
