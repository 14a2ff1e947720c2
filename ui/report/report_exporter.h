// File ▸ Export report without freezing the window: the report's layout and painting (ReportPdfJob, ~90 %
// of the time) run on a worker thread; each figure (a QCustomPlot, a widget) is made and drawn on the GUI
// thread in an event-loop turn of its own while the worker waits for it. A progress dialog (not modal:
// the window takes clicks and keys meanwhile) shows how far it is and cancels; a cancelled or failed export leaves no file (temporary file + rename).
#pragma once

#include "run/latest_job.h"

#include <QObject>
#include <QPointer>
#include <QProgressDialog>
#include <QString>
#include <QTimer>

#include <memory>
#include <vector>

class QWidget;

namespace trainio::aggregate {
class ResultsLibrary;
struct LibraryNode;
} // namespace trainio::aggregate

namespace trainio::ui {

class ReportPdfJob;
struct ReportOptions;

class ReportExporter final : public QObject {
    Q_OBJECT
public:
    // `items` are nodes of `library`, which the exporter keeps alive until the worker is done.
    ReportExporter(std::shared_ptr<const aggregate::ResultsLibrary> library,
                   std::vector<const aggregate::LibraryNode*> items, const ReportOptions& options, const QString& pdfPath,
                   QWidget* window);
    ~ReportExporter() override; // cancels; a worker waiting for a figure is released at once

    void start();
    void cancel();
    bool isRunning() const { return running_; }
    bool wasCancelled() const;
    QString pdfPath() const { return pdfPath_; }
    QProgressDialog* progressDialog() const { return dialog_.data(); }

signals:
    // ok: the file is complete at pdfPath(); otherwise error says why (or that it was cancelled).
    void finished(bool ok, const QString& error);

private:
    struct Handover; // the worker ↔ GUI thread hand-over of figures
    void showProgress();

    std::shared_ptr<const aggregate::ResultsLibrary> library_;
    std::shared_ptr<ReportPdfJob> job_;
    std::shared_ptr<Handover> handover_;
    QString pdfPath_;
    QPointer<QProgressDialog> dialog_;
    QTimer progressTimer_;
    LatestJob worker_{this};
    bool running_ = false;
};

} // namespace trainio::ui
