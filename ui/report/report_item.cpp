// One item's detail: per-epoch plots, steps and accelerators, telemetry, statistics, configuration.
#include "aggregate/step_digest.h"
#include "report/report_sections.h"

namespace trainio::ui::report_sections {

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

// Each live change's step on the per-step plots (aggregate::stepAt), labelled with its number in the table.
std::vector<KeyMark> changeMarks(const InvocationRecord& run) {
    std::vector<KeyMark> marks;
    if (!run.steps) return marks;
    for (std::size_t c = 0; c < run.storageChanges.size(); ++c)
        if (const auto step = aggregate::stepAt(*run.steps, run.storageChanges[c].unixTime))
            marks.push_back({*step, QString::number(c + 1)});
    return marks;
}

// The live changes of the run's emulated storage (trainio_io.json storage.changes), under its step plots:
// number (as marked on the plots), when, what, from and to, in the device's own words. Nothing when the run
// made none.
void storageChangesTable(ReportPageFlow& flow, const InvocationRecord& run) {
    if (run.storageChanges.empty()) return;
    flow.addHeading(QStringLiteral("<p>Emulated storage (%1) changed during this run (time in s since the run's start; # as marked on the per-step plots); the steps "
                                "after each time ran on the new value:</p>")
                        .arg(htmlText(run.storageProfile.empty() ? QStringLiteral("no profile") : q(run.storageProfile))),
                    flow.mm(1), 8.0); // the table's intro stays with it
    ReportTable t;
    t.header = {QStringLiteral("#"), QStringLiteral("Time (s)"), QStringLiteral("Step"), QStringLiteral("Parameter"),
                QStringLiteral("From"), QStringLiteral("To")};
    t.widthsPercent = {5, 11, 9, 19, 28, 28};
    t.alignRight = {true, true, true, false, false, false};
    int number = 0;
    for (const StorageChange& c : run.storageChanges) {
        const auto step = run.steps ? aggregate::stepAt(*run.steps, c.unixTime) : std::nullopt;
        t.rows.push_back({QString::number(++number), formatNumber(c.secondsSinceStart, 2),
                          step ? QString::number(static_cast<long long>(std::floor(*step))) : QStringLiteral("–"), htmlText(q(c.parameter)),
                          htmlBreakable(q(c.oldText.empty() ? std::to_string(c.oldValue) : c.oldText)),
                          htmlBreakable(q(c.newText.empty() ? std::to_string(c.newValue) : c.newText))});
    }
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
    // The live storage changes where they happened among the steps, numbered as the table below numbers them.
    const std::vector<KeyMark> marks = changeMarks(*rep);
    auto p1 = linePlot(QStringLiteral("Load time per step"), QStringLiteral("step"), QStringLiteral("ms"), load,
                       std::nullopt, true, widthPx, false, marks);
    auto p2 = linePlot(QStringLiteral("AU per step (compute ÷ step time)"), QStringLiteral("step"), QStringLiteral("AU %"),
                       au, itemThreshold(imp, it), true, widthPx, false, marks);
    const std::size_t bin = data->binSteps;
    // The plots' intro stays with them (never alone at a page's foot).
    flow.addHeading(QStringLiteral("<p>%1%2.</p>")
                        .arg(which, bin > 1 ? QStringLiteral("; each point is the mean of %1 consecutive steps").arg(bin) : QString()),
                    flow.mm(1), 8.0);
    flow.addPlots({p1, p2}, flow.mm(58));
    flow.addSpace(flow.mm(2));
    storageChangesTable(flow, *rep);
    if (data->ranks.size() > load.size())
        flow.addHtml(QStringLiteral("<p class=\"muted\">The plots show the first %1 of %2 ranks; the table has all.</p>")
                         .arg(load.size())
                         .arg(data->ranks.size()),
                     7.0);
    flow.addHeading(QStringLiteral("<p class=\"muted\">AU per accelerator from the same records, as DLIO computes it for "
                                   "each rank (compute ÷ the epoch's time, first %1 step(s) excluded).</p>")
                        .arg(data->excludeStartSteps),
                    flow.mm(1), 7.0);
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
    reportHeading(flow, QStringLiteral("#%1 %2 <span class=\"aside\">— run %3</span>")
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
    if (!n.advisories.empty()) {
        // Known defects of the tool that measured it (issue 33; resources/advisories/ledger.json cites each).
        QString list;
        for (const auto& a : n.advisories) list += QStringLiteral("<li>%1</li>").arg(htmlBreakable(q(a)));
        flow.addHtml(QStringLiteral("<p><span class=\"fail\">Advisories</span> (known defects of the tool that measured it):</p><ul>%1</ul>").arg(list), 8.5);
    }
    if (n.efficiency.figures.usableCapacityGiB.value || n.efficiency.figures.powerKw.value || n.efficiency.figures.rackUnits.value) {
        // GiB/s per usable TiB, per kW, per rack unit (issue 33), and each figure with its source.
        const std::string text = aggregate::efficiencyText(n.efficiency);
        QString list;
        for (const auto& line : aggregate::efficiencySources(n.efficiency, commonFolder(d))) list += QStringLiteral("<li>%1</li>").arg(htmlBreakable(q(line)));
        flow.addHtml(QStringLiteral("<p><b>Efficiency</b> %1</p><ul>%2</ul>")
                         .arg(text.empty() ? QStringLiteral("<span class=\"muted\">not known: no read GiB/s</span>") : htmlText(q(text)), list),
                     8.5);
    }
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

    reportHeading(flow, QStringLiteral("Runs <span class=\"aside\">— complete, then excluded "
                                 "(with the reason), then warm-up</span>"), 3);
    flow.addTable(ckpt ? checkpointRunTable(imp, it) : runTable(imp, it));
    flow.addSpace(flow.mm(4));
}

} // namespace trainio::ui::report_sections
