#include "report/report_capture.h"

#include "report/report_page_flow.h"
#include "trace/job_vs_replay.h"

#include <cmath>

namespace trainio::ui {

void capturedJobSection(ReportPageFlow& flow, const ReportData& d) {
    const auto& imp = d.library->imported();
    ReportTable t;
    t.header = {QStringLiteral("#"), QStringLiteral("Item"), QStringLiteral("Trace"), QStringLiteral("Runs"),
                QStringLiteral("AU %<br/>real job"), QStringLiteral("AU %<br/>replay"), QStringLiteral("Δ AU<br/>points"),
                QStringLiteral("Samples/s<br/>real job"), QStringLiteral("Samples/s<br/>replay"), QStringLiteral("Δ<br/>samples/s")};
    t.widthsPercent = {3, 20, 16, 5, 8, 8, 8, 10, 10, 12};
    t.alignRight = {true, false, false, true, true, true, true, true, true, true};
    t.fontPt = 7;
    const QString unknown = QStringLiteral("unknown");
    bool inferred = false;
    QStringList edited; // "#3: reader.batch_size: 4 → 8"
    for (std::size_t i = 0; i < d.items.size(); ++i) {
        const ReportItem& it = d.items[i];
        const auto j = trace::jobVersusReplayOf(imp, it.runs);
        if (!j) continue;
        const bool known = j->stepsFromMarks;
        inferred = inferred || !known;
        const bool same = j->comparable(); // the job's own figures, and a replay not edited since it was derived
        if (!j->edits.empty())
            edited << QStringLiteral("#%1: %2").arg(i + 1).arg(QString::fromStdString(trace::editsText(*j)).toHtmlEscaped());
        const QString noDiff = known ? QStringLiteral("edited") : unknown;
        const double dAu = j->auDifferencePoints(), dS = j->samplesDifferencePercent();
        t.rows.push_back({QString::number(i + 1), htmlBreakable(it.name), htmlBreakable(QString::fromStdString(j->trace)),
                          QString::number(j->replayRuns), known ? formatNumber(j->jobAuPercent, 2) : unknown,
                          formatNumber(j->replayAuPercent, 2),
                          same ? QStringLiteral("%1%2").arg(dAu >= 0 ? QStringLiteral("+") : QString(), formatNumber(dAu, 2)) : noDiff,
                          known ? formatNumber(j->jobSamplesPerSecond, 1) : unknown, formatNumber(j->replaySamplesPerSecond, 1),
                          same ? htmlNoBreak(QStringLiteral("%1%2 %").arg(dS >= 0 ? QStringLiteral("+") : QString(), formatNumber(dS, 1)))
                               : noDiff});
    }
    if (t.rows.empty()) return;
    flow.ensureSpace(flow.mm(50));
    reportHeading(flow, QStringLiteral("Real job vs replay"), 2);
    flow.addHtml(QStringLiteral("<p class=\"muted\">These items replay a workload derived from a real training job's I/O "
                                "trace (trainio-cli capture, then workload --from-trace; docs/capture.md). Beside each, the "
                                "job's own figures from its step marks, with DLIO ≥ 2 semantics (the first step of each epoch "
                                "left out, the mean over epochs): AU = time in compute ÷ step time, and samples/s. The replay's "
                                "are the mean over the item's complete runs of that trace (Runs); Δ = replay − real job. A "
                                "replay on the job's own files reproduces the job when its AU is within 5 points and its "
                                "samples/s within 10 %.</p>"),
                 7.5);
    flow.addSpace(flow.mm(2));
    flow.addTable(t);
    if (inferred)
        flow.addHtml(QStringLiteral("<p class=\"muted\">unknown: the job ran without trainio_capture.steps, so its steps were "
                                    "inferred from its readers and it has no AU of its own.</p>"),
                     7.5);
    if (!edited.isEmpty())
        flow.addHtml(QStringLiteral("<p class=\"muted\">edited: the replay's configuration differs from the workload as derived "
                                    "from the trace, so it is another workload than the job and no difference is shown (%1).</p>")
                         .arg(edited.join(QStringLiteral("; "))),
                     7.5);
    flow.addSpace(flow.mm(4));
}

} // namespace trainio::ui
