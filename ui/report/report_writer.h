// The PDF report and the aggregate exports the GUI's export menu and `trainio --report` offer. Every
// number comes from core's aggregate functions (importResults, aggregateGroup, checkRules, toJson,
// formatCsv); this code only lays them out. Plots are QCustomPlot drawn as vectors into the PDF.
#pragma once

#include "aggregate/invocation_record.h"

#include <QString>
#include <QStringList>

#include <filesystem>
#include <vector>

namespace trainio::ui {

struct ReportRequest {
    std::vector<std::filesystem::path> paths; // folders to import (TrainIO benchmark folders, any DLIO / MLPerf Storage tree)
    QString title;                            // optional; default "TrainIO report"
    QStringList checkedGroupKeys;             // optional filter of group keys (empty = every group found)
};

// Writes a PDF (atomically: temp file + rename). Returns false and sets *error on failure (nothing
// importable, unwritable path). Call on the GUI thread or with a QApplication alive (QCustomPlot is a
// widget, never shown); works with QT_QPA_PLATFORM=offscreen.
bool writeReportPdf(const ReportRequest& request, const QString& pdfPath, QString* error);

// The selected groups as core's CSV (aggregate::formatCsv rows) and JSON (aggregate::toJson per group,
// plus the skipped files and the report's provenance). Both written atomically.
bool exportAggregateCsv(const ReportRequest& request, const QString& csvPath, QString* error);
bool exportAggregateJson(const ReportRequest& request, const QString& jsonPath, QString* error);

// A group's stable identity for ReportRequest::checkedGroupKeys: the folder holding its runs plus the
// workload identity, "<path>|<model>|<accelerator>|<accelerators>|<files>|<samples per file>". The
// whole identity is needed because one folder can hold runs of several configurations.
QString groupKey(const trainio::aggregate::RunGroup& group);

} // namespace trainio::ui
