#include "report/report_model.h"

#include "report/report_loader.h"
#include "report/report_page_flow.h"

#include <cmath>
#include <limits>

namespace trainio::ui {


void modelPredictionSection(ReportPageFlow& flow, const ReportData& d) {
    const auto& imp = d.library->imported();
    ReportTable t;
    t.header = {QStringLiteral("#"), QStringLiteral("Item"), QStringLiteral("Runs"), QStringLiteral("Limit (model)"),
                QStringLiteral("AU %<br/>predicted"), QStringLiteral("AU %<br/>measured"), QStringLiteral("Δ AU<br/>points"),
                QStringLiteral("Samples/s<br/>predicted"), QStringLiteral("Samples/s<br/>measured"),
                QStringLiteral("Max passing<br/>accelerators<br/>(model)")};
    t.widthsPercent = {3, 21, 6, 10, 10, 10, 8, 10, 10, 12};
    t.alignRight = {true, false, true, false, true, true, true, true, true, true};
    t.fontPt = 7;
    QStringList notCompared; // runs with live storage changes: the prediction was for another device
    for (std::size_t i = 0; i < d.items.size(); ++i) {
        const ReportItem& it = d.items[i];
        std::vector<double> pAu, mAu, pS, mS;
        QString limit;
        std::int64_t maxPass = -1;
        bool sameMax = true;
        for (std::size_t k : it.runs) {
            const auto& r = imp.runs[k];
            if (!std::isfinite(r.predictedAuPercent)) continue;
            if (it.node && it.node->collocation) { // predicted before the run as if alone
                notCompared << QStringLiteral("#%1 %2: ran collocated with other workloads; the prediction is for it alone "
                                              "(trainio-cli model --plan predicts a collocation; see Interference)")
                                   .arg(i + 1)
                                   .arg(htmlBreakable(it.name));
                break;
            }
            if (const std::string why = aggregate::predictionNotComparable(r); !why.empty()) {
                notCompared << QStringLiteral("#%1 %2, %3: %4").arg(i + 1).arg(htmlBreakable(it.name), htmlText(QString::fromStdString(r.runName)),
                                                                   htmlText(QString::fromStdString(why)));
                continue;
            }
            pAu.push_back(r.predictedAuPercent);
            mAu.push_back(r.auMeanPercent);
            pS.push_back(r.predictedSamplesPerSecond);
            mS.push_back(r.samplesPerSecond);
            const QString l = QString::fromStdString(r.predictedBottleneck);
            if (limit.isEmpty()) limit = l;
            else if (limit != l) limit = QStringLiteral("varies");
            if (maxPass < 0) maxPass = r.predictedMaxAccelerators;
            else if (maxPass != r.predictedMaxAccelerators) sameMax = false;
        }
        if (pAu.empty()) continue;
        const double pa = meanFrom(pAu), ma = meanFrom(mAu);
        t.rows.push_back({QString::number(i + 1), htmlBreakable(it.name), QString::number(pAu.size()), limit.toHtmlEscaped(),
                          formatNumber(pa, 1), formatNumber(ma, 1), QStringLiteral("%1%2").arg(ma >= pa ? QStringLiteral("+") : QString(), formatNumber(ma - pa, 1)),
                          formatNumber(meanFrom(pS), 1), formatNumber(meanFrom(mS), 1),
                          sameMax && maxPass >= 0 ? QString::number(maxPass) : QStringLiteral("varies")});
    }
    if (t.rows.empty() && notCompared.isEmpty()) return;
    flow.ensureSpace(flow.mm(50));
    reportHeading(flow, QStringLiteral("Model prediction vs measurement"), 2);
    flow.addHtml(QStringLiteral("<p class=\"muted\">The input-pipeline model (docs/model.md) predicted each run before it "
                                "started, from the workload and its emulated storage (trainio_model.json); beside it what "
                                "the run measured. Each figure is the mean over the item's complete runs that carry a "
                                "prediction (Runs); Δ = measured − predicted. The model is checked against measured anchors "
                                "within ±5 AU points; docs/model.md says where it is known to be wrong.</p>"),
                 7.5);
    flow.addSpace(flow.mm(2));
    if (!t.rows.empty()) flow.addTable(t);
    if (!notCompared.isEmpty())
        flow.addHtml(QStringLiteral("<p class=\"muted\">Not compared with the prediction (runs whose emulated storage was "
                                    "changed live — their figures are whole-epoch means, so no stretch without changes can be "
                                    "told apart — that read an object store through the emulated device, or that ran "
                                    "collocated):<br/>%1</p>")
                         .arg(notCompared.join(QStringLiteral("<br/>"))),
                     7.5);
    flow.addSpace(flow.mm(4));
}

} // namespace trainio::ui
