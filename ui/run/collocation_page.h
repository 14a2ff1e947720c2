// The Collocate page (issue 23): several workloads at once on one storage, as `trainio-cli collocate`
// runs them (core/session/collocation.h) — the workloads (a preset or a workload file each, accelerators,
// a staggered start), the shared emulated device (a profile, a bandwidth cap; none: the real storage),
// the output folder, rounds and "each alone first"; then live: AU per workload, one colour each, on one
// time axis, the shared device's limits to drag (the Run page's strip), cancel stops all. The plan is
// written to DIR/plan.yaml and loaded from there, so the window checks it exactly as the CLI does. The
// result folder goes to the results library when the collocation ends.
#pragma once

#include "aggregate/results_library.h"
#include "io/emulated_storage.h"
#include "widgets/notification_panel.h"
#include "session/collocation.h"
#include "run/interference_chart.h"

#include <QWidget>

#include <atomic>
#include <functional>
#include <optional>
#include <memory>
#include <thread>
#include <vector>

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace trainio::ui {

class MpiControls;
class StorageControls;

class CollocationPage final : public QWidget {
    Q_OBJECT
public:
    explicit CollocationPage(QWidget* parent = nullptr);
    ~CollocationPage() override; // cancels and joins a running collocation

    // A workload row: `config` a preset name or a workload file. False (nothing added, the reason posted) for
    // a workload that brings its own emulated storage: the collocation's device is the page's.
    bool addWorkload(const QString& name, const QString& config, int accelerators, double startAfterS = 0);
    // The user's folder; until one is chosen the page suggests a new one below the results root.
    void setOutputFolder(const QString& dir);
    QString outputFolder() const;
    void setResultsRoot(const QString& root);
    QString statusText() const;
    void setSharedProfile(const QString& profile); // "" = the real storage
    void setBandwidthMiBs(double mibs);            // 0 = the profile's (or no cap)
    void setRounds(int runs, bool alone);

    // Where the name of the system under test comes from when a collocation starts (the main window: the Run
    // page's system, asked once as for a run); nullopt from it: the user cancelled, nothing starts. The name goes
    // to every workload's trainio_labels.json, so the library files the collocation under that system.
    using SystemSource = std::function<std::optional<QString>()>;
    void setSystemSource(SystemSource source) { systemSource_ = std::move(source); }

    // The plan as YAML (what Run writes to DIR/plan.yaml).
    QString planYaml() const;
    bool start();   // false: nothing started (the reason went to notify())
    void cancel();
    bool isRunning() const { return running_; }

    QTableWidget* table() const { return table_; }
    QCustomPlot* plot() const { return plot_; }
    // Alone against together per workload, once the collocation's figures (or the library's) are there.
    InterferenceChart* interferenceChart() const { return chart_; }
    StorageControls* storageControls() const { return storage_; }
    // "MPI (client hosts)": on, Run together starts mpirun … trainio-cli collocate (collocation_mpi.cpp).
    MpiControls* mpiControls() const { return mpi_; }
    QPushButton* runButton() const { return run_; }
    QPushButton* cancelButton() const { return cancel_; }
    QString summaryText() const;
    // Points plotted so far for workload w (tests).
    int pointCount(int w) const;

public slots:
    // The results library, each time it is (re)loaded: when it holds the collocation this page ran last, the
    // summary adds what the library compares (aggregate::collocationInterference: each workload against alone
    // runs of the same benchmark identity it holds, or why none could be used).
    void setLibrary(std::shared_ptr<const trainio::aggregate::ResultsLibrary> library);

signals:
    void notify(trainio::ui::NotificationPanel::Severity severity, const QString& text);
    void finished(bool complete, const QString& dir);
    void resultsWritten(const QString& dir);

private:
    struct Live;
    void addRowFromPicker();
    void removeSelected();
    void onFinished(const session::CollocationResult& r, const QString& error);
    void addPoint(int w, double t, double au);
    void showStarted(const QString& workload);
    QString suggestedFolder() const;
    // Under mpirun: what stops the launch (mpirun, trainio-cli, hosts, each workload's accelerators a multiple
    // of the processes), in the window's words; then mpirun … trainio-cli collocate on the worker.
    QString mpiLaunchProblem(const session::CollocationPlan& plan) const;
    void startUnderMpi(const session::CollocationPlan& plan, const QString& planFile, const QString& dir);
    void post(NotificationPanel::Severity severity, const QString& text);
    static InterferenceChart::Workload chartFigures(const store::CollocationInterference& x, const QString& why);

    QTableWidget* table_;
    QComboBox* preset_;
    QPushButton* add_;
    QPushButton* addFile_;
    QPushButton* remove_;
    QComboBox* profile_;
    QDoubleSpinBox* bandwidth_;
    QLineEdit* output_;
    QSpinBox* runs_;
    QCheckBox* alone_;
    QPushButton* run_;
    QPushButton* cancel_;
    QLabel* status_;
    QCustomPlot* plot_;
    InterferenceChart* chart_;
    StorageControls* storage_;
    MpiControls* mpi_;
    QPlainTextEdit* summary_;

    QString resultsRoot_;
    SystemSource systemSource_;
    QString system_; // the system of the collocation being run
    bool outputChosenByUser_ = false;
    QString lastDir_;           // the folder of the last collocation that ended
    QString sessionSummary_;        // its summary as the collocation itself gave it
    QStringList sessionInvocations_; // its invocations' lines
    bool running_ = false;
    std::atomic<bool> cancelFlag_{false};
    std::atomic<int> mpiCancels_{0}; // under mpirun: 1 stops it gracefully, 2 kills mpirun (session/mpi_job.h)
    std::thread worker_;
    std::shared_ptr<Live> live_;
};

} // namespace trainio::ui
