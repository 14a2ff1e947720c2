// "Import a trace…" (issue 24, docs/capture.md): a captured training job's trace (trainio-cli capture) turned
// into a workload on the Workload page, with the observation report beside the form — what was observed,
// what was assumed, and the figures behind each value.
//
// The trace is read and the workload derived on a worker thread (a trace holds millions of events); the
// GUI thread only shows the result. When the job's files do not follow DLIO's names, the worker also
// writes the file list the workload replays them through (trainio.file_list): into the trace folder
// (trainio_files.txt), or, when that cannot be written, into TrainIO's data folder. A generation counter
// drops a derivation overtaken by a newer import.
#pragma once

#include "widgets/notification_panel.h"

#include <QString>
#include <QWidget>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

class QLabel;
class QTextBrowser;

namespace trainio::trace {
struct DerivedWorkload;
}

namespace trainio::ui {

class WorkloadPage;

class TraceImportPanel final : public QWidget {
    Q_OBJECT
public:
    // Adds itself beside `page`'s form, hidden until a trace is imported.
    explicit TraceImportPanel(WorkloadPage* page, QWidget* parent = nullptr);
    ~TraceImportPanel() override;

    // Asks for a trace folder, then importTrace.
    void importWithDialog();
    // Starts deriving the workload of the trace folder `dir` on a worker thread. When it is done, the page
    // shows it (after asking about unsaved edits) and imported() is emitted; on bad input failed() and an
    // error message naming the file and what was expected. A newer import overtakes one under way.
    void importTrace(const QString& dir);
    bool isBusy() const { return busy_; }

    QString traceFolder() const { return traceFolder_; } // the trace shown ("" before the first import)
    QTextBrowser* reportView() const { return report_; }
    // Tests: the thread the last derivation ran on (never the GUI thread).
    std::thread::id lastDerivationThread() const { return lastThread_; }

    // The observation report as the panel shows it: the trace's observations, the job's own figures, every
    // derived value (observed or assumed) with the figures behind it, and how to replay.
    static QString reportHtml(const trace::DerivedWorkload& d);

signals:
    void imported(const QString& dir);
    void failed(const QString& dir, const QString& why);
    void notify(trainio::ui::NotificationPanel::Severity severity, const QString& text);

private:
    void present(const QString& dir, const std::shared_ptr<const trace::DerivedWorkload>& d);
    void joinFinishedWorkers();

    WorkloadPage* page_;
    QLabel* title_;
    QTextBrowser* report_;
    QString traceFolder_;
    bool busy_ = false;
    quint64 generation_ = 0;
    std::thread::id lastThread_;
    struct Worker {
        std::thread thread;
        std::shared_ptr<std::atomic<bool>> done;
    };
    std::vector<Worker> workers_;
};

} // namespace trainio::ui
