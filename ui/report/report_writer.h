// The PDF report and the data exports (CSV / JSON) of the GUI's export menu and `trainio --report`.
// Both are built from an in-memory ResultsLibrary and the items the user selected (benchmark or
// invocation nodes): nothing is imported again and nothing outside the selected folders is read. The
// headless report imports once with core's importResults and then takes the same path. Every number
// comes from core (the library's node metrics, aggregateGroup, compare); this code only lays them out.
#pragma once

#include "aggregate/results_library.h"
#include "report/report_content.h"
#include "report/report_page_flow.h"

#include <QString>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <vector>

namespace trainio::ui {

// One PDF report in two steps that touch no widget, so that a window can run them on a worker thread
// (text layout and painting are where the time goes: about 90 % of an 82-page report, the figures about 2 %): layOut() paginates;
// write() paints, handing each figure (a QCustomPlot, a widget) to a PlotPainter, which makes and draws it
// on the GUI thread — a few milliseconds each — while the worker waits. cancel() (any thread) stops at the
// next page or section; the target is written to a temporary file and renamed only when complete, so a
// cancelled or failed report leaves no file. The library must outlive the job.
class ReportPdfJob {
public:
    ReportPdfJob(const aggregate::ResultsLibrary& library, std::vector<const aggregate::LibraryNode*> items,
                 ReportOptions options, QString pdfPath, ReportPageFlow::PlotObserver observer = {});

    bool layOut(QString* error); // checks the request, paginates
    // Paints the pages into the target, atomically. Without a plot painter, figures are made and drawn
    // right here: then this must be the GUI thread.
    bool write(QString* error, ReportPageFlow::PlotPainter plotPainter = {});
    const ReportPageFlow::PlotObserver& observer() const { return observer_; }

    void cancel() { cancelled_ = true; }
    bool isCancelled() const { return cancelled_; }
    // 0…1000 over both steps (layout 40 %, painting 60 %), readable from any thread.
    int progressPermille() const { return progress_; }
    int pageCount() const { return chrome_.totalPages; }

private:
    void setProgress(double from, double span, double fraction);

    const aggregate::ResultsLibrary& library_;
    std::vector<const aggregate::LibraryNode*> nodes_;
    QString pdfPath_;
    ReportPageFlow::PlotObserver observer_;
    ReportData data_;
    ReportPageFlow::Chrome chrome_;
    std::atomic<bool> cancelled_{false};
    std::atomic<int> progress_{0};
};

// Writes a PDF of `items` (benchmark or invocation nodes of `library`, see reportItems()) atomically
// (temp file + rename), all three steps of ReportPdfJob on the calling thread, which must be the GUI
// thread. Returns false and sets *error on failure (no item, bad baseline, unwritable path). Needs a
// QApplication (QCustomPlot is a widget, never shown); works with QT_QPA_PLATFORM=offscreen.
// `observer` (tests): called with every figure as it is drawn, at its size on the page.
bool writeReportPdf(const aggregate::ResultsLibrary& library, const std::vector<const aggregate::LibraryNode*>& items,
                    const ReportOptions& options, const QString& pdfPath, QString* error,
                    const ReportPageFlow::PlotObserver& observer = {});

// The selected items as CSV (core's formatCsv columns, one row per item) and JSON (core's toJson of each
// benchmark's aggregate or of each invocation, with the item's name, status and labels). Atomic writes.
bool exportItemsCsv(const aggregate::ResultsLibrary& library, const std::vector<const aggregate::LibraryNode*>& items,
                    const QString& csvPath, QString* error);
bool exportItemsJson(const aggregate::ResultsLibrary& library, const std::vector<const aggregate::LibraryNode*>& items,
                     const QString& jsonPath, QString* error);

// `trainio --report PATH... --output FILE.pdf`: imports the paths, builds the library and reports every
// item in it (benchmarks and run-once invocations).
struct ReportRequest {
    std::vector<std::filesystem::path> paths;
    ReportOptions options;
};
bool writeReportPdf(const ReportRequest& request, const QString& pdfPath, QString* error);

// --notes FILE: UTF-8 text of at most maxBytes. False with *error naming the file when it is missing,
// unreadable, too large, not UTF-8 or binary (a NUL or another control character than tab/CR/LF).
inline constexpr std::int64_t kMaxNotesBytes = 64 * 1024;
bool readNotesFile(const QString& path, QString* notes, QString* error, std::int64_t maxBytes = kMaxNotesBytes);

} // namespace trainio::ui
