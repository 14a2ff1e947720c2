// Helpers the report's sections share: item names and numbers, CI texts, tables of keys.
#include "report/report_sections.h"

namespace trainio::ui::report_sections {

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

QString statusHtml(InvocationStatus s, const std::string& reason) {
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

QString metricCell(const NodeMetric& m, int precision) {
    if (m.n == 0) return QStringLiteral("–");
    return formatWithSpread(m.mean, m.n >= 2 ? m.stdev : std::nan(""), precision);
}

// ---- shared by the answer, the comparison and the appendix ---------------------------------------

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

QString leftOutRunsText(const ImportResult& imp, const std::vector<std::size_t>& runs) {
    return QStringLiteral("%1 run%2 left out of every number (%3)")
        .arg(runs.size())
        .arg(runs.size() == 1 ? QString() : QStringLiteral("s"))
        .arg(failedRunsText(imp, runs));
}

void headlineBlock(ReportPageFlow& flow, const QString& title, const QString& sentence, const QString& big,
                   int sentencePercent, FigureSize size, const QString& detail, const QStringList& rest) {
    // The widths and size first, then the texts in one pass (a text's own "%1" is never read as a marker).
    QString html = QStringLiteral("<table width=\"100%\" cellspacing=\"0\" cellpadding=\"0\"><tr>"
                                  "<td width=\"%1%\" valign=\"top\"><p class=\"headline-title\"><b>%4</b></p>"
                                  "<p class=\"headline-question\">%5:</p></td>"
                                  "<td width=\"%2%\" align=\"right\" valign=\"bottom\"><p class=\"%3\">%6</p></td></tr></table>")
                       .arg(sentencePercent)
                       .arg(100 - sentencePercent)
                       .arg(size == FigureSize::Large ? QStringLiteral("figure-large") : QStringLiteral("figure-medium"))
                       .arg(htmlBreakable(title), sentence, big);
    if (!detail.isEmpty()) html += QStringLiteral("<p class=\"detail\">%1</p>").arg(detail);
    if (!rest.isEmpty())
        html += QStringLiteral("<p class=\"caption\">%1; all in the comparison below.</p>")
                    .arg(rest.join(QStringLiteral("; ")));
    flow.addHtml(html, 9.0);
}

} // namespace trainio::ui::report_sections
