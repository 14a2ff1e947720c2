// What goes on the report's pages, in order (docs/report.md): the answer — per workload one sentence and
// one figure (the best item above the AU line; write/read GiB/s for checkpointing), the systems under test
// and how the numbers were obtained; the comparison per workload (deltas against the baseline from
// aggregate::compare(), bars labelled #n); loader policies, model predictions and sweeps where there are
// any; optionally one detail section per item (per-epoch and per-step plots, per-accelerator AU,
// statistics, runs); the appendix (items and folders below their common folder, systems, runs left out
// with their reasons, rule checks, each item's configuration, units).
// Everything comes from the in-memory ResultsLibrary, the per-step records and telemetry series included
// (read by the importer with ImportOptions::stepDigests, in the GUI's library thread): no file is read.
#pragma once

#include "aggregate/group_aggregate.h"
#include "aggregate/results_library.h"

#include <QDateTime>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace trainio::ui {

class ReportPageFlow;

struct ReportOptions {
    QString title;                      // "" = "TrainIO report"
    QString subtitle;
    QString notes;                      // multi-line plain text
    std::size_t baseline = 0;           // 0-based index into the items
    std::optional<bool> perAccelerator; // nullopt = on when accelerator counts differ (aggregate::compare)
    bool itemDetail = true;             // the per-item detail and each item's configuration (off: answer,
                                        // comparison and a short appendix only — for long reports)
};

// One selected benchmark or invocation, with the runs behind it (indices into ImportResult::runs).
struct ReportItem {
    const aggregate::LibraryNode* node = nullptr;
    QString name;                                   // its name in the report: unique (see nameReportItems)
    const aggregate::LibraryNode* system = nullptr; // the system node above it (null when none)
    std::optional<std::size_t> group;               // the group holding its runs: index into ImportResult::groups
    std::vector<std::size_t> runs;                  // complete measured runs
    std::vector<std::size_t> excluded;              // measured but not complete
    std::vector<std::size_t> warmups;
};

struct ReportData {
    ReportOptions options;
    QString title; // options.title or the default
    QDateTime generated;
    const aggregate::ResultsLibrary* library = nullptr;
    std::vector<ReportItem> items; // report order; options.baseline indexes this
};

// The report's items for `selected` library nodes: benchmark and invocation nodes stand for
// themselves, an epoch for its invocation, a system or workload node for its items (benchmarks and
// run-once invocations); an invocation whose benchmark is selected too is left out (the benchmark holds
// it). Order kept, duplicates dropped. Nothing selected = every item of the library.
std::vector<const aggregate::LibraryNode*> reportItems(const aggregate::ResultsLibrary& library,
                                                       const std::vector<const aggregate::LibraryNode*>& selected);
ReportItem makeReportItem(const aggregate::ResultsLibrary& library, const aggregate::LibraryNode* node);
// Names the items: the node's itemName, with the folder's name added where two items would share one.
void nameReportItems(std::vector<ReportItem>& items);

// Numbers as every table of the report prints them: fixed `precision` decimals, "n/a" when undefined.
QString formatNumber(double value, int precision = 2);
// "value ± population stdev" — the one meaning of ± in the report, as in the GUI — or just the value
// when the spread is undefined (fewer than 2 values).
QString formatWithSpread(double value, double spread, int precision = 2);

QString hostDescription();
QString osDescription();

// A heading of `level` (2, 3), kept on one page with the start of what follows it.
void reportHeading(ReportPageFlow& flow, const QString& html, int level);

void composeReport(ReportPageFlow& flow, const ReportData& data);

} // namespace trainio::ui
