// Page 3: run the current workload — one invocation or a benchmark (warm-up + N) — into a folder,
// with live plots, the current invocation / epoch / step, ETA, and cancel.
#pragma once

#include "config/workload_config.h"
#include "widgets/notification_panel.h"
#include "run/run_controller.h"

#include <QElapsedTimer>
#include <QWidget>

#include <functional>
#include <memory>
#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QToolButton;
class QTreeView;

namespace trainio::ui {

class ModelPanel;
class RaceRivals;

class CheckpointView;
class HostTable;
class InvocationTreeModel;
class LivePlots;
class MpiControls;
class PresentationView;
class RaceView;
class StorageControls;

class RunPage final : public QWidget {
    Q_OBJECT
public:
    explicit RunPage(QWidget* parent = nullptr);

    void setWorkload(const WorkloadConfig& cfg, std::uint64_t accelerators, MetricSemantics semantics, bool valid);
    void setResultsRoot(const QString& root);
    void setOutputFolder(const QString& dir);
    QString outputFolder() const;
    void setBenchmarkShape(int runs, int warmups);
    // The system under test (storage + client hosts), written as the results' label "system"
    // (trainio_labels.json). Past names are remembered (QSettings "run/systems").
    QString systemName() const;
    void setSystemName(const QString& name);
    // The system name for the next run (or collocation), asking once when there is none; nullopt when the
    // user cancelled.
    std::optional<QString> systemForRun();
    QComboBox* systemCombo() const { return system_; }

    // Asked once, before a run, when the system name is empty: returns the name (empty: run without
    // one, and do not ask again) or nullopt (the user cancelled: the run does not start). The default
    // shows a dialog; test suites answer it themselves.
    using SystemPrompt = std::function<std::optional<QString>(QWidget* parent)>;
    static void setSystemPrompt(SystemPrompt prompt);

    RunController* controller() const { return controller_; }
    LivePlots* plots() const { return plots_; }
    // Shown when the workload checkpoints (workflow.checkpoint); alone in checkpoint-only mode
    // (workflow.train false), where there is no AU to plot.
    CheckpointView* checkpointView() const { return checkpoints_; }
    // The tabs of the live views: "Training" (the live plots) and "Checkpoints", each present when the
    // workload does that.
    QTabWidget* views() const { return views_; }
    // The checkpoint's size before starting (real and scaled), empty when the workload does not checkpoint.
    QString checkpointPlanText() const;
    StorageControls* storageControls() const { return storage_; }
    // The run full screen for an audience (F11 in the main window, or the page's "Present" button):
    // large AU bars and GiB/s, the emulated device's limits as sliders; Esc or F11 there comes back.
    PresentationView* presentation() const { return presentation_; }
    QPushButton* presentButton() const { return presentButton_; }
    // A recorded run raced beside this page's run (issue 33): its lane plays from the run's start. The
    // button's click picks a recording; its menu also races this workload live on another storage profile.
    RaceView* raceView() const { return race_; }
    QToolButton* raceButton() const { return raceButton_; }
    void raceRecording();
    // This page's workload, live, on the storage profile `profile` beside the page's run (RaceRivals): from
    // the page's next run, or at once when one is under way. False, said in the window's messages, when it
    // cannot be (an unknown profile, three lanes taken, an MPI run).
    bool raceProfile(const QString& profile);
    RaceRivals* rivals() const { return rivals_; }
    // The "MPI (client hosts)" group: when on, runs are `mpirun … trainio-cli` on those hosts, with
    // hosts × processes × accelerators-per-process accelerators; the per-host rows of such a run.
    MpiControls* mpiControls() const { return mpi_; }
    HostTable* hostTable() const { return hosts_; }
    // The accelerators the next run has: the MPI group's total while it is on, else the workload's.
    std::uint64_t runAccelerators() const;
    bool isRunning() const { return controller_->isRunning(); }
    // The I/O backend of the next runs (null: POSIX). Tests inject faults through it.
    void setIoBackend(std::shared_ptr<IoBackend> io) { io_ = std::move(io); }

    // Asked before the window closes. Nothing running: returns true (close now). Otherwise asks "Stop
    // the run and close / Cancel" and returns false; when confirmed, cancels the run and calls
    // closeNow() once the engine has stopped and the folder holds what was measured; cancelled() when the
    // question is answered otherwise (Cancel, Escape).
    bool confirmClose(std::function<void()> closeNow, std::function<void()> cancelled = {});

public slots:
    void showPresentation();
    bool startInvocation();
    bool startBenchmark();
    void cancel();

signals:
    void notify(trainio::ui::NotificationPanel::Severity severity, const QString& text);
    // A run wrote results (complete or not), held in memory in `written` (RunFinish::written): the library
    // adds them without reading the folder again.
    void resultsWritten(const QString& dir, std::shared_ptr<const trainio::store::WrittenFiles> written);
    // The MPI group was switched on (derived: the run's accelerators are `total`) or off: the Workload
    // page's Accelerators field follows it.
    void acceleratorsDerived(bool derived, quint64 total);

private:
    bool start(bool benchmark);
    QString suggestedFolder() const;
    void onSteps(const std::vector<StepEvent>& batch);
    void onEpoch(const EpochEvent& e);
    void onEpochCache(quint64 epoch, double percentFromCache);
    void onEpochS3(quint64 epoch, const trainio::S3EpochFigures& figures);
    // The object-storage strip for the run about to start (hidden unless storage.storage_type is s3).
    void showObjectStorage();
    // The running invocation's row for an epoch (made on first use: the epoch's AU and its cache figure
    // arrive in either order).
    void onFinished(const RunFinish& r);
    void onCheckpoint(const checkpoint::CheckpointEvent& e);
    // Which views the workload needs (training plots, checkpoint view) and the checkpoint's planned size.
    void updateViews();
    // Checkpoint-only mode: the workload checkpoints and does not train.
    static bool checkpointOnly(const WorkloadConfig& cfg) { return cfg.workflow.checkpoint && !cfg.workflow.train; }
    void updateStatus();
    // The status line, on the page and in the presentation view.
    void setStatusText(const QString& text);
    void setRunning(bool running);
    // Pre-flight passed: the previous run's plots, list and counters give way (a refused start keeps them).
    void clearView();
    // The race view's first lane for this page's run (its storage in the caption), unless it has one.
    void givePageRunALane();
    void rememberSystem(const QString& name);
    // "system · workload · N accelerators" of the current run, the presentation view's title.
    QString runTitle() const;

    WorkloadConfig config_;
    std::uint64_t accelerators_ = 1;
    MetricSemantics semantics_ = MetricSemantics::DlioV2;
    bool valid_ = false;
    QString resultsRoot_;
    bool outputChosenByUser_ = false;
    std::shared_ptr<IoBackend> io_;
    std::function<void()> closeWhenStopped_; // set while a confirmed close waits for the engine
    bool benchmark_ = false;                 // what the current (or last) start was
    WorkloadConfig runConfig_;               // the workload the current run was started with
    std::uint64_t runAccelerators_ = 1;
    bool runIsMpi_ = false;      // the current (or last) run was launched with mpirun
    int cancelRequests_ = 0;     // of the current run: a second one kills mpirun

    RunController* controller_;
    LivePlots* plots_;
    CheckpointView* checkpoints_;
    QTabWidget* views_;
    QLabel* checkpointPlan_;
    QLabel* s3Strip_;        // storage.storage_type s3: where the objects are and the last epoch's requests
    QString s3Location_;
    ModelPanel* model_ = nullptr;
    StorageControls* storage_;
    MpiControls* mpi_;
    HostTable* hosts_;
    QComboBox* system_;
    QLineEdit* output_;
    QSpinBox* runs_;
    QSpinBox* warmups_;
    QPushButton* runButton_;
    QPushButton* benchButton_;
    QPushButton* cancelButton_;
    QPushButton* presentButton_;
    PresentationView* presentation_;
    QToolButton* raceButton_;
    RaceView* race_;
    RaceRivals* rivals_;
    std::optional<RunRequest> request_; // the page's run's, while it runs (a rival added then runs it too)
    QLabel* status_;
    QProgressBar* progress_;
    QTreeView* invocations_;
    InvocationTreeModel* invocationModel_;

    QElapsedTimer clock_;
    QString invocationLabel_;
    QString phase_;
    std::uint64_t epoch_ = 0, epochs_ = 0, step_ = 0, stepsPerEpoch_ = 0;
    std::uint64_t stepsDone_ = 0; // rank 0's steps over the whole run
    std::uint64_t checkpointsDone_ = 0; // checkpoint-only mode: rank 0's completed writes and reads, whole run
};

} // namespace trainio::ui
