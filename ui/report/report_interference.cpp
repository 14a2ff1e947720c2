#include "report/report_interference.h"

#include "widgets/qt_text.h"
#include "aggregate/interference.h"
#include "report/report_page_flow.h"
#include "report/report_plots.h"
#include "util/units.h"

#include <qcustomplot.h>

#include <QDateTime>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace trainio::ui {

namespace {

using aggregate::ImportResult;
using aggregate::InvocationRecord;
using aggregate::LibraryNode;
using aggregate::NodeKind;



// A series on the shared time axis: NaN values are gaps (between epochs, between rounds); `step` draws it as
// a staircase (a value that holds until the next key).
struct TimeSeries {
    QString name;
    std::vector<double> keys, values;
    bool step = false;
    QPen pen; // Qt::NoPen: the workload colour makeLinePlot gives it
};

// Lines over seconds since the collocation started, every plot of the section on the same key range
// [0, keyHigh], so that a moment is at the same x in each.
PlotFactory timelinePlot(const QString& title, const QString& valueLabel, const std::vector<TimeSeries>& series,
                         double keyHigh, int widthPx) {
    return [=] {
        std::vector<LineSeries> finite;
        for (const auto& s : series) {
            LineSeries l{s.name, {}, {}, false, false};
            for (std::size_t i = 0; i < s.values.size(); ++i)
                if (std::isfinite(s.values[i])) l.keys.push_back(s.keys[i]), l.values.push_back(s.values[i]);
            if (l.keys.empty()) l.keys.push_back(0), l.values.push_back(kNaN); // keeps the key axis a time axis
            finite.push_back(std::move(l));
        }
        auto plot = makeLinePlot(title, QStringLiteral("s since the workloads started together"), valueLabel, finite,
                                 std::nullopt, true, widthPx);
        for (std::size_t i = 0; i < series.size() && static_cast<int>(i) < plot->graphCount(); ++i) {
            QCPGraph* g = plot->graph(static_cast<int>(i));
            QVector<double> k(series[i].keys.begin(), series[i].keys.end()), v(series[i].values.begin(), series[i].values.end());
            g->setData(k, v, true); // with the NaN gaps
            if (series[i].step) g->setLineStyle(QCPGraph::lsStepLeft);
            if (series[i].pen.style() != Qt::NoPen) g->setPen(series[i].pen);
        }
        plot->xAxis->setRange(0, keyHigh > 0 ? keyHigh : 1);
        return plot;
    };
}

// Appends a run's points to a series, a gap before it.
void appendRun(TimeSeries& s, const std::vector<double>& keys, const std::vector<double>& values, double t0) {
    if (keys.empty()) return;
    if (!s.keys.empty()) {
        s.keys.push_back((s.keys.back() + keys.front() - t0) / 2);
        s.values.push_back(kNaN);
    }
    for (std::size_t i = 0; i < keys.size() && i < values.size(); ++i) {
        s.keys.push_back(keys[i] - t0);
        s.values.push_back(values[i]);
    }
}

// "33.35 ± 2.75": a difference and the half-width of its 95 % CI (symmetric: Welch's), one precision.
QString withCi(double value, double low, double high, int precision) {
    if (!std::isfinite(value)) return QStringLiteral("n/a");
    if (!std::isfinite(low) || !std::isfinite(high)) return formatNumber(value, precision);
    return htmlNoBreak(formatNumber(value, precision) + QStringLiteral(" ± ") + formatNumber((high - low) / 2, precision));
}

QString seconds(double s) { return formatNumber(s, s >= 100 ? 0 : 1) + QStringLiteral("\u00A0s"); }

const LibraryNode* collocationNode(const aggregate::ResultsLibrary& library, std::size_t c) {
    for (const LibraryNode* n : library.nodes(NodeKind::Collocation))
        if (n->collocation == c) return n;
    return nullptr;
}

// The device's bandwidth cap over time (MiB/s; NaN while unlimited): the plan's value at the start, then each
// live change of bandwidth_mib_s the workloads' runs recorded (one device: each change once).
TimeSeries bandwidthLimit(const store::CollocationFile& f, const ImportResult& imp, const std::vector<std::size_t>& runs,
                          double t0, double tEnd) {
    TimeSeries s{QStringLiteral("device bandwidth limit"), {}, {}, true, QPen(QColor(0xd6, 0x27, 0x28), 1.4, Qt::DashLine)};
    const auto bw = f.sharedStorage.find("bandwidth_mib_s");
    double current = bw != f.sharedStorage.end() && bw->is_number() && bw->get<double>() > 0 ? bw->get<double>() : kNaN;
    s.keys.push_back(0);
    s.values.push_back(current);
    std::map<double, double> changes;
    for (std::size_t ri : runs)
        for (const auto& c : imp.runs[ri].storageChanges)
            if (c.parameter == "bandwidth_mib_s" && c.unixTime >= t0) changes[c.unixTime] = c.newValue > 0 ? c.newValue : kNaN;
    for (const auto& [t, v] : changes) {
        s.keys.push_back(t - t0);
        s.values.push_back(v);
        current = v;
    }
    s.keys.push_back(tEnd - t0);
    s.values.push_back(current);
    return s;
}

void collocationSection(ReportPageFlow& flow, const ReportData& d, std::size_t c) {
    const ImportResult& imp = d.library->imported();
    const store::CollocationFile& f = imp.collocations[c];
    const aggregate::CollocationInterferenceResult& r = d.library->interference(c);
    const LibraryNode* node = collocationNode(*d.library, c);

    // The together items' runs, per workload, and the report's #n of each.
    std::vector<std::vector<std::size_t>> runs(r.workloads.size());
    std::vector<QString> refs(r.workloads.size(), QStringLiteral("–"));
    std::vector<std::size_t> allRuns;
    for (std::size_t w = 0; w < r.workloads.size(); ++w) {
        if (!r.workloads[w].togetherGroup) continue;
        runs[w] = imp.groups[*r.workloads[w].togetherGroup].runs;
        allRuns.insert(allRuns.end(), runs[w].begin(), runs[w].end());
        for (std::size_t i = 0; i < d.items.size(); ++i)
            if (d.items[i].group == r.workloads[w].togetherGroup) refs[w] = QStringLiteral("#%1").arg(i + 1);
    }

    const QString title = node ? q(node->label) : QStringLiteral("collocation");
    flow.ensureSpace(flow.mm(70));
    reportHeading(flow, QStringLiteral("Interference <span class=\"aside\">— %1</span>").arg(htmlBreakable(title)), 2);

    // What ran, where, when.
    QStringList names, staggered;
    for (const auto& m : f.workloads) {
        names << htmlText(q(m.name) + QStringLiteral(" (%1 accelerator%2)").arg(m.accelerators).arg(m.accelerators == 1 ? "" : "s"));
        if (m.startAfterS > 0) staggered << htmlText(QStringLiteral("%1 after %2").arg(q(m.name), seconds(m.startAfterS)));
    }
    QString device = QStringLiteral("the real storage");
    if (!f.sharedStorage.empty()) {
        const auto p = f.sharedStorage.find("profile");
        const QString profile = p != f.sharedStorage.end() && p->is_string() ? q(p->get<std::string>()) : QString();
        QString shape;
        for (std::size_t ri : allRuns)
            if (shape.isEmpty()) shape = q(imp.runs[ri].storageShape);
        device = QStringLiteral("one emulated device%1%2").arg(profile.isEmpty() ? QString() : QLatin1Char(' ') + htmlText(profile),
                                                               shape.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(htmlNoBreak(shape).replace(QLatin1Char('/'), QStringLiteral("/\u2060"))));
    }
    QString when;
    if (std::isfinite(f.start)) {
        when = QStringLiteral(", from %1").arg(QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(f.start * 1000)).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")));
        if (std::isfinite(f.end)) when += QStringLiteral(" for %1").arg(seconds(f.end - f.start));
    }
    QString rounds = f.runs > 0 ? QStringLiteral(" %1 round%2 after %3 warm-up round%4, each started together.")
                                      .arg(f.runs).arg(f.runs == 1 ? "" : "s").arg(f.warmups).arg(f.warmups == 1 ? "" : "s")
                                : QStringLiteral(" One invocation each.");
    flow.addHtml(QStringLiteral("<p>%1 ran at the same time in one process on %2%3.%4%5 Status: %6.</p>")
                     .arg(names.join(QStringLiteral(", ")), device, when, rounds,
                          staggered.isEmpty() ? QString() : QStringLiteral(" Staggered starts: %1.").arg(staggered.join(QStringLiteral(", "))),
                          htmlText(q(f.status))),
                 8.5);

    // The figures.
    ReportTable t;
    t.header = {QStringLiteral("#"), QStringLiteral("Workload"), QStringLiteral("AU %<br/>alone"), QStringLiteral("AU %<br/>together"),
                QStringLiteral("AU points lost<br/>± 95 % CI"), QStringLiteral("Read GiB/s<br/>alone"),
                QStringLiteral("Read GiB/s<br/>together"), QStringLiteral("Slowdown %<br/>± 95 % CI"), QStringLiteral("n alone /<br/>together")};
    t.widthsPercent = {5, 15, 9, 10, 14, 11, 11, 13, 12};
    t.alignRight = {true, false, true, true, true, true, true, true, true};
    t.fontPt = 7.5;
    for (std::size_t w = 0; w < r.workloads.size(); ++w) {
        const auto& x = r.workloads[w];
        const auto& fig = x.figures;
        const bool lost = x.name == r.lostMost;
        QString name = htmlBreakable(q(x.name));
        if (lost) name = QStringLiteral("<b>%1</b>").arg(name);
        const QString unit = fig.unit == "runs" ? QStringLiteral("runs") : QStringLiteral("epochs");
        t.rows.push_back({refs[w], name, formatNumber(fig.auAlone, 2), formatNumber(fig.auTogether, 2),
                          x.compared ? withCi(fig.auPointsLost, fig.auPointsLostLow, fig.auPointsLostHigh, 2) : QStringLiteral("–"),
                          formatNumber(fig.mibAlone / 1024.0, 3), formatNumber(fig.mibTogether / 1024.0, 3),
                          x.compared ? withCi(fig.slowdownPercent, fig.slowdownLowPercent, fig.slowdownHighPercent, 1) : QStringLiteral("–"),
                          x.compared ? QStringLiteral("%1 / %2 %3").arg(fig.nAlone).arg(fig.nTogether).arg(unit)
                                     : QStringLiteral("– / %1 %2").arg(fig.nTogether).arg(unit)});
    }
    flow.addSpace(flow.mm(1.5));
    flow.addTable(t);
    flow.addSpace(flow.mm(1));
    if (!r.lostMost.empty()) {
        for (const auto& x : r.workloads)
            if (x.name == r.lostMost)
                flow.addHtml(QStringLiteral("<p><b>%1 lost most</b>: %2 AU points (%3 → %4 % AU), its read rate %5 % lower.</p>")
                                 .arg(htmlText(q(x.name)), formatNumber(x.figures.auPointsLost, 2), formatNumber(x.figures.auAlone, 2),
                                      formatNumber(x.figures.auTogether, 2), formatNumber(x.figures.slowdownPercent, 1)),
                             8.5);
    } else {
        flow.addHtml(QStringLiteral("<p>No workload could be compared with itself alone: see below why.</p>"), 8.5);
    }
    QStringList used;
    for (const auto& x : r.workloads)
        used << (x.compared ? QStringLiteral("%1 against %2").arg(htmlText(q(x.name)), htmlBreakable(q(x.source)))
                            : QStringLiteral("%1 <span class=\"fail\">not compared</span>: %2").arg(htmlText(q(x.name)), htmlBreakable(q(x.why))));
    std::string rule;
    for (const auto& x : r.workloads)
        if (x.compared && rule.empty()) rule = x.figures.rule;
    flow.addHtml(QStringLiteral("<p class=\"muted\">Alone: the same workload measured alone — a run of the same benchmark identity "
                                "(accelerators, dataset folder, emulated device and reader settings equal) on the same system, "
                                "the collocation's own --alone runs first. AU % and Read GiB/s are means over the "
                                "n values of each side (runs, or epochs of one invocation). ± is the half-width of the 95 % "
                                "confidence interval of the difference alone − together (Welch's t); the slowdown is "
                                "100 × (1 − together ÷ alone) in read rate, its interval that of the difference over the alone "
                                "mean. Items are keyed #n as in the rest of the report.<br/>%1%2</p>")
                     .arg(used.join(QStringLiteral("<br/>")),
                          rule.empty() ? QString() : QStringLiteral("<br/>Rule: %1.").arg(htmlBreakable(q(rule)))),
                 7.5);

    // One time axis: every workload's AU, the delivered MiB/s against the device's limit, the client.
    double t0 = f.start;
    double tEnd = f.end;
    std::vector<TimeSeries> au, mib;
    std::vector<std::vector<double>> epochs; // per workload: start, end, MiB/s triples, for the sum
    QStringList noSteps;
    for (std::size_t ri : allRuns)
        if (const auto* steps = imp.runs[ri].steps.get(); steps && !steps->epochStart.empty()) {
            if (!std::isfinite(f.start)) t0 = std::isfinite(t0) ? std::min(t0, steps->epochStart.front()) : steps->epochStart.front();
            tEnd = std::isfinite(tEnd) ? std::max(tEnd, steps->epochEnd.back()) : steps->epochEnd.back();
        }
    if (std::isfinite(t0) && std::isfinite(tEnd) && tEnd > t0) {
        double window = 0;
        for (std::size_t w = 0; w < r.workloads.size(); ++w) {
            TimeSeries a{q(r.workloads[w].name), {}, {}, false, QPen(Qt::NoPen)};
            TimeSeries m{q(r.workloads[w].name) + QStringLiteral(" delivered"), {}, {}, true, QPen(Qt::NoPen)};
            for (std::size_t ri : runs[w]) {
                const InvocationRecord& run = imp.runs[ri];
                const aggregate::StepDigest* steps = run.steps.get();
                if (!steps || steps->auTime.empty()) {
                    noSteps << htmlText(q(r.workloads[w].name + " " + run.runName));
                    continue;
                }
                window = std::max(window, steps->auWindowS);
                appendRun(a, steps->auTime, steps->auTimePercent, t0);
                // Each epoch's MiB/s (DLIO's) held across the epoch's wall time.
                const auto per = aggregate::interferenceRunOf(run).mibPerEpoch;
                std::vector<double> k, v;
                for (std::size_t e = 0; e < steps->epochStart.size() && e < per.size(); ++e) {
                    k.push_back(steps->epochStart[e]);
                    v.push_back(per[e]);
                    if (e + 1 == steps->epochStart.size() || e + 1 == per.size()) {
                        k.push_back(steps->epochEnd[e]);
                        v.push_back(per[e]);
                    }
                }
                appendRun(m, k, v, t0);
            }
            au.push_back(std::move(a));
            mib.push_back(std::move(m));
        }
        // All workloads together, over the whole collocation: the process's delivered bytes ÷ its wall time.
        // (A sum of the per-epoch figures would add epochs that do not line up: at their edges it means nothing.)
        const auto delivered = f.processIo.find("bytes_delivered");
        if (delivered != f.processIo.end() && delivered->is_number() && std::isfinite(f.start) && std::isfinite(f.end) && f.end > f.start) {
            const double mean = delivered->get<double>() / 1048576.0 / (f.end - f.start);
            mib.push_back({QStringLiteral("all workloads, mean over the collocation"), {0, f.end - t0}, {mean, mean}, false,
                           QPen(QColor(0x33, 0x33, 0x33), 1.2, Qt::DotLine)});
        }
        if (!f.sharedStorage.empty()) mib.push_back(bandwidthLimit(f, imp, allRuns, t0, tEnd));
        // The client, from the first workload's telemetry (one host and one process: every workload's
        // telemetry samples the same machine).
        TimeSeries busy{QStringLiteral("client CPU busy (all processes)"), {}, {}, false, QPen(QColor(0x4e, 0x79, 0xa7), 1.0)};
        TimeSeries proc{QStringLiteral("TrainIO process"), {}, {}, false, QPen(QColor(0xf2, 0x8e, 0x2b), 1.0)};
        TimeSeries disk{QStringLiteral("disk reads (telemetry)"), {}, {}, false, QPen(QColor(0x9a, 0xa3, 0xab), 1.0)};
        QString telemetryOf, diskLabel;
        for (std::size_t w = 0; w < r.workloads.size() && telemetryOf.isEmpty(); ++w)
            for (std::size_t ri : runs[w]) {
                const InvocationRecord& run = imp.runs[ri];
                const aggregate::TelemetrySeries* tel = run.telemetrySeries.get();
                if (!tel || tel->timeS.empty()) continue;
                // Its samples count from the sampler's start, the invocation's start in the collocation file.
                double start = kNaN;
                for (const auto& m : f.workloads)
                    if (m.name == r.workloads[w].name)
                        for (const auto& inv : m.invocations)
                            if (inv.path.filename() == run.path.filename() || inv.path == run.path) start = inv.start;
                if (!std::isfinite(start)) continue;
                std::vector<double> keys;
                for (double s : tel->timeS) keys.push_back(start + s);
                appendRun(busy, keys, tel->cpuBusyPct, t0);
                appendRun(proc, keys, tel->procCpuPct, t0);
                appendRun(disk, keys, tel->deviceReadMiBs, t0);
                telemetryOf = q(r.workloads[w].name);
                if (!tel->deviceLabel.empty()) diskLabel = q(tel->deviceLabel);
            }
        const auto finite = [](const TimeSeries& t) { return std::count_if(t.values.begin(), t.values.end(), [](double v) { return std::isfinite(v); }); };
        if (finite(disk) >= 2) {
            if (!diskLabel.isEmpty()) disk.name = QStringLiteral("%1 reads (telemetry)").arg(diskLabel);
            mib.push_back(std::move(disk));
        }

        const int widthPx = static_cast<int>(flow.contentWidth() / flow.plotScale());
        const double keyHigh = tEnd - t0;
        flow.ensureSpace(flow.mm(130)); // the caption and the AU and read-rate figures on one page
        reportHeading(flow, QStringLiteral("Over time, on one axis"), 3);
        flow.addHtml(QStringLiteral("<p class=\"muted\">x: seconds since the workloads started together (the collocation's start in "
                                    "trainio_collocation.json). AU: compute ÷ wall time of all of a workload's accelerators in "
                                    "windows of %1 s (per-step records; a block's steps stretched to fill it, so the barrier's wait "
                                    "counts). Read rate: each epoch's MiB/s (DLIO's, the metric window's) held across the epoch; all "
                                    "workloads together as the mean over the collocation (trainio_collocation.json process_io: bytes "
                                    "delivered ÷ wall time)%2.%3</p>")
                         .arg(formatNumber(window, 2),
                              f.sharedStorage.empty() ? QStringLiteral("; no shared emulated device: no limit to draw")
                                                      : QStringLiteral(", against the shared device's bandwidth limit (changed live where "
                                                                       "the runs recorded it)"),
                              noSteps.isEmpty() ? QString() : QStringLiteral(" No per-step records: %1.").arg(noSteps.join(QStringLiteral(", ")))),
                     7.5);
        flow.addSpace(flow.mm(1));
        flow.addPlots({timelinePlot(QStringLiteral("AU per workload"), QStringLiteral("AU %"), au, keyHigh, widthPx)}, flow.mm(52));
        flow.addPlots({timelinePlot(QStringLiteral("Read rate and the shared device"), QStringLiteral("MiB/s"), mib, keyHigh, widthPx)},
                      flow.mm(52));
        const auto samples = finite(busy);
        if (samples >= 2) {
            flow.addPlots({timelinePlot(QStringLiteral("Client (telemetry of %1's runs)").arg(telemetryOf), QStringLiteral("% of all CPUs"),
                                        {busy, proc}, keyHigh, widthPx)},
                          flow.mm(42));
        } else {
            flow.addHtml(samples == 0 ? QStringLiteral("<p class=\"muted\">No telemetry was recorded with these runs.</p>")
                                      : QStringLiteral("<p class=\"muted\">The client's telemetry has fewer than two samples in these "
                                                       "runs (one every trainio.telemetry_interval_s): no plot.</p>"),
                         7.5);
        }
    }
    flow.addSpace(flow.mm(4));
}

} // namespace

void interferenceSection(ReportPageFlow& flow, const ReportData& d) {
    // The collocations an item belongs to, in the order of their first item.
    std::vector<std::size_t> collocations;
    for (const auto& it : d.items)
        if (it.node && it.node->collocation && std::find(collocations.begin(), collocations.end(), *it.node->collocation) == collocations.end())
            collocations.push_back(*it.node->collocation);
    for (std::size_t c : collocations)
        if (c < d.library->imported().collocations.size()) collocationSection(flow, d, c);
}

} // namespace trainio::ui
