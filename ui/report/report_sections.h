// The report's sections (report_content.cpp composes them): one file per part of the document —
// report_shared.cpp (helpers), report_answer.cpp (page 1), report_comparison.cpp, report_appendix.cpp and
// report_item.cpp (one item's detail). Private to ui/report.
#pragma once

#include "aggregate/compare.h"
#include "aggregate/group_aggregate.h"
#include "aggregate/identity.h"
#include "aggregate/results_import.h"
#include "aggregate/step_digest.h"
#include "library/sweep_view.h"
#include "metrics/dlio_metrics.h"
#include "report/report_capture.h"
#include "report/report_content.h"
#include "report/report_interference.h"
#include "report/report_loader.h"
#include "report/report_model.h"
#include "report/report_page_flow.h"
#include "report/report_plots.h"
#include "telemetry/telemetry_summary.h"
#include "telemetry/telemetry_table.h"
#include "widgets/qt_text.h"

#include <QString>
#include <QSysInfo>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace trainio::ui::report_sections {

namespace fs = std::filesystem;

using aggregate::GroupAggregate;
using aggregate::ImportResult;
using aggregate::InvocationRecord;
using aggregate::InvocationStatus;
using aggregate::LibraryNode;
using aggregate::MetricAggregate;
using aggregate::NodeKind;
using aggregate::NodeMetric;

// The items of one workload identity, in report order; the workloads in the order their first item appears.
struct WorkloadItems {
    std::string key;
    QString title;
    bool checkpointing = false;
    std::vector<std::size_t> items; // indices into ReportData::items
};

QString systemLabel(const ReportItem& it);
QString workloadText(const LibraryNode& n);
QString multiline(const QString& text);
QString statusHtml(InvocationStatus s, const std::string& reason = {});
QString htmlKey(const QString& key);
ReportTable keyValueTable(const std::vector<std::pair<QString, QString>>& items, bool twoPairsPerRow);
std::optional<double> itemThreshold(const ImportResult& imp, const ReportItem& it);
QString metricCell(const NodeMetric& m, int precision = 2);
std::vector<WorkloadItems> reportWorkloads(const ReportData& d);
QString itemRefs(std::vector<std::size_t> idx);
QString figure(double value, int precision, const QString& unit);
int figurePrecision(double value);
QString ciText(const NodeMetric& m, int precision, const QString& unit, const QString& over);
QString acceleratorsText(const ImportResult& imp, const ReportItem& it);
QString modelWord(const ImportResult& imp, const ReportItem& it);
std::optional<bool> aboveLine(const ImportResult& imp, const ReportItem& it);
QString failedRunsText(const ImportResult& imp, const std::vector<std::size_t>& runs);
// "2 runs left out of every number (…)".
QString leftOutRunsText(const ImportResult& imp, const std::vector<std::size_t>& runs);
// One workload's headline on page 1: its title and sentence on the left (sentencePercent of the width), the
// figure on the right (the stylesheet's .figure-large 17 pt or .figure-medium 13 pt), then the detail line
// and what was left out — the training and the checkpointing headline alike.
enum class FigureSize { Large, Medium };
void headlineBlock(ReportPageFlow& flow, const QString& title, const QString& sentence, const QString& big,
                   int sentencePercent, FigureSize size, const QString& detail, const QStringList& rest);
QString answerSubject(const LibraryNode& n);
void trainingHeadline(ReportPageFlow& flow, const ReportData& d, const WorkloadItems& w);
void checkpointHeadline(ReportPageFlow& flow, const ReportData& d, const WorkloadItems& w);
void provenanceLines(ReportPageFlow& flow, const ReportData& d);
std::vector<const LibraryNode*> reportSystems(const ReportData& d, bool* unnamed);
std::string systemDescription(const ReportData& d, const LibraryNode* s);
void answerPage(ReportPageFlow& flow, const ReportData& d);
QString deltaCell(const aggregate::CompareMetric& m, int precision);
void comparisonBars(ReportPageFlow& flow, const std::vector<BarItem>& left, const QString& leftTitle, const QString& leftAxis,
                    const std::vector<BarItem>& right, const QString& rightTitle, const QString& rightAxis);
void trainingComparison(ReportPageFlow& flow, const ReportData& d, const WorkloadItems& w);
void checkpointComparison(ReportPageFlow& flow, const ReportData& d, const WorkloadItems& w);
void comparisonSection(ReportPageFlow& flow, const ReportData& d);
fs::path commonFolder(const ReportData& d);
QString folderBelow(const fs::path& folder, const fs::path& common);
void appendix(ReportPageFlow& flow, const ReportData& d);
const InvocationRecord* representativeRun(const ImportResult& imp, const ReportItem& it, std::size_t* rank);
std::vector<double> epochMib(const InvocationRecord& r);
QString runLabel(const InvocationRecord& r, bool excluded);
void epochPlots(ReportPageFlow& flow, const ReportData& d, const ReportItem& it);
void storageChangesTable(ReportPageFlow& flow, const InvocationRecord& run);
void stepAndAcceleratorSection(ReportPageFlow& flow, const ReportData& d, const ReportItem& it);
void telemetrySection(ReportPageFlow& flow, const ReportData& d, const ReportItem& it);
void nodeStatisticsTable(ReportPageFlow& flow, const LibraryNode& n);
void statisticsTable(ReportPageFlow& flow, const GroupAggregate& a);
ReportTable checkpointRunTable(const ImportResult& imp, const ReportItem& it);
ReportTable runTable(const ImportResult& imp, const ReportItem& it);
void configurationTables(ReportPageFlow& flow, const ReportData& d, const ReportItem& it, std::size_t index);
void itemSection(ReportPageFlow& flow, const ReportData& d, std::size_t index);

} // namespace trainio::ui::report_sections
