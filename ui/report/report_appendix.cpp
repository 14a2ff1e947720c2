// The appendix: where every item came from, its runs, its checks.
#include "report/report_sections.h"

namespace trainio::ui::report_sections {

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

} // namespace trainio::ui::report_sections
