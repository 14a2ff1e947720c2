// The application window: five pages (Workload, Data, Run, Results, Compare) behind a sidebar, the
// menus and shortcuts of the main actions, the notification panel, drag-and-drop of results folders,
// themes, and the settings that persist between sessions.
#pragma once

#include "widgets/notification_panel.h"

#include <QMainWindow>

#include <memory>

class QAction;
class QListWidget;
class QMenu;
class QSettings;
class QTimer;
class QStackedWidget;

namespace trainio::store {
class WrittenFiles;
}

namespace trainio::ui {

class ComparePage;
class CollocationPage;
class DataPage;
class HelpWindow;
class QuickStartDialog;
class SweepDialog;
class ReportExportDialog;
class ReportExporter;
struct ReportOptions;
class ResultsLibraryLoader;
class ResultsPage;
class ResultsTreeModel;
class RunPage;
class TraceImportPanel;
class WorkloadPage;

class MainWindow final : public QMainWindow {
    Q_OBJECT
public:
    enum Page { WorkloadPageIndex, DataPageIndex, RunPageIndex, ResultsPageIndex, ComparePageIndex, CollocatePageIndex, PageCount };
    enum class Theme { System, Light, Dark };

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    WorkloadPage* workloadPage() const { return workload_; }
    DataPage* dataPage() const { return data_; }
    RunPage* runPage() const { return run_; }
    ResultsPage* resultsPage() const { return results_; }
    ComparePage* comparePage() const { return compare_; }
    CollocationPage* collocationPage() const { return collocate_; }
    NotificationPanel* notifications() const { return notifications_; }
    ResultsLibraryLoader* libraryLoader() const { return loader_; }
    ResultsTreeModel* resultsModel() const { return model_; }
    TraceImportPanel* traceImport() const { return traceImport_; } // "Import a trace…" on the Workload page
    QWidget* pageWidget(Page page) const;
    int currentPage() const;
    QAction* action(const QString& objectName) const;

    // Reads QSettings: geometry, state, last page, library folders, recent files, theme, results root,
    // the workload form as it was left. On the very first start it offers the quick start.
    void restoreSession();

    // The bundled documentation (F1), created on first use; `document` e.g. "metrics.md".
    HelpWindow* showHelp(const QString& document = {});
    HelpWindow* helpWindow() const { return help_; }
    QuickStartDialog* showQuickStart();
    // A sweep folder's sweep.json (trainio-cli sweep) in a window of its own: AU against accelerators, the
    // pass line, the largest passing count. Null (and a message) when it cannot be read.
    SweepDialog* showSweep(const QString& folder);
    QuickStartDialog* quickStart() const { return quickStart_; }

public slots:
    void showPage(int page);
    void setTheme(trainio::ui::MainWindow::Theme theme);
    // Starts writing the report on a worker with a progress dialog (ReportExporter, finished() tells the
    // outcome, which is also posted as a message). Null, with a message, when the library is empty.
    ReportExporter* exportReport(const QString& pdfPath); // with the options last chosen in the export dialog
    ReportExporter* exportReport(const QString& pdfPath, const trainio::ui::ReportOptions& options);
    bool exportCurrentPlot(const QString& path);
    bool exportData(const QString& path); // .csv or .json, by suffix
    bool openResultsFolder(const QString& path);
    // Recorded runs (1–3 folders) played side by side full screen at `speed`× (`trainio --replay`, File →
    // Replay…; run/race_view.h). False with the reason in *error: a folder that holds no run to replay.
    bool replay(const QStringList& folders, double speed, QString* error = nullptr);

    // Keeps the window inside its screen's available area (issue 32, item 5): no larger than it and
    // nowhere off it, e.g. a geometry saved on a larger screen restored on a 1280×720 one.
    void fitToScreen();

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    // A folder a run or a collocation just wrote: into the results library — from what the run wrote, held
    // in memory, when it hands that over (`written`: nothing is read back); else added once, then reloaded.
    void addResultsFolder(const QString& dir, std::shared_ptr<const trainio::store::WrittenFiles> written = nullptr);
    void buildMenus();
    void buildWorkloadActions(QMenu* fileMenu, QMenu* helpMenu);
    void shrinkWorkloadToMachine();
    void restoreWorkloadSession(const QSettings& settings);
    void saveWorkloadSession(QSettings& settings);
    bool workloadFieldsAccepted(); // false, with a message, while a workload field holds refused text
    // False (and the event ignored, a Save / Discard / Cancel question open) while unsaved workload edits
    // would be lost; the window closes itself once they are saved or discarded.
    bool confirmUnsavedWorkload(QCloseEvent* event);
    void syncWorkload();
    void updateCompare();
    void rememberRecent(const QString& key, const QString& path);
    void rebuildRecentMenus();
    void chooseResultsRoot();
    struct ReportSelection;
    ReportSelection reportSelection() const;
    ReportExportDialog* makeReportDialog(const ReportSelection& selection);

    WorkloadPage* workload_;
    DataPage* data_;
    RunPage* run_;
    ResultsPage* results_;
    ComparePage* compare_;
    CollocationPage* collocate_;
    NotificationPanel* notifications_;
    ResultsLibraryLoader* loader_;
    ResultsTreeModel* model_;
    QListWidget* sidebar_;
    QStackedWidget* stack_;
    QMenu* recentConfigs_ = nullptr;
    QMenu* recentResults_ = nullptr;
    HelpWindow* help_ = nullptr;
    QuickStartDialog* quickStart_ = nullptr;
    TraceImportPanel* traceImport_ = nullptr;
    // Quitting with unsaved workload edits was answered (Save or Discard): what is still unsaved then is
    // dropped when the window really closes, not before.
    bool quitDiscardsWorkloadEdits_ = false;
    QTimer* workloadAutosave_ = nullptr; // keeps the form in the settings shortly after each edit (a crash keeps it)
    Theme theme_ = Theme::System;
    QPalette systemPalette_;
    QString systemStyle_;
};

} // namespace trainio::ui
