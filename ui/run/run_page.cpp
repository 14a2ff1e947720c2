#include "run/run_page.h"

#include "widgets/qt_text.h"
#include "io/s3_backend.h"
#include "util/page_cache_verdict.h"

#include "run/model_panel.h"

#include "widgets/recent_list.h"

#include "run/checkpoint_view.h"
#include "run/host_table.h"
#include "models/invocation_tree_model.h"
#include "plots/live_plots.h"
#include "run/mpi_controls.h"
#include "plots/plot_theme.h"
#include "workload/preflight_dialog.h"
#include "run/presentation_view.h"
#include "run/race_rivals.h"
#include "run/race_view.h"
#include "io/storage_profile.h"
#include "session/profile_rival.h"
#include "widgets/file_dialogs.h"
#include "run/storage_controls.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QProgressBar>
#include <QSettings>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QStyle>
#include <QTabBar>
#include <QTabWidget>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

#include <cmath>
#include <utility>

namespace trainio::ui {

namespace {

const QString kSystemsKey = QStringLiteral("run/systems");     // past system names, most recent first
const QString kSystemKey = QStringLiteral("run/system");       // the current one
const QString kRunsKey = QStringLiteral("run/runs");
const QString kWarmupsKey = QStringLiteral("run/warmups");
const QString kSystemAskedKey = QStringLiteral("run/systemAsked"); // the user answered the prompt with no name
constexpr int kRememberedSystems = 20;
// The invocation list's "From page cache" heading, explained.
QString cacheToolTip() {
    return QCoreApplication::translate("RunPage", "Per epoch: the share of the bytes the readers delivered that the process did not "
                                                  "read from storage (/proc/self/io), i.e. served by the page cache "
                                                  "(docs/cache-honesty.md)");
}

std::optional<QString> askSystem(QWidget* parent) {
    bool ok = false;
    const QString name = QInputDialog::getText(
        parent, QObject::tr("System under test"),
        QObject::tr("Name the system these results measure — the storage under test and its client hosts, e.g. "
                    "\"lab-nvme-01\". Results are then named \"system · workload · N accelerators\" and can be told "
                    "apart from other systems' results.\n\nLeave it empty to run without a name (you will not be "
                    "asked again; the System box on the Run page sets it any time)."),
        QLineEdit::Normal, QString(), &ok);
    if (!ok) return std::nullopt;
    return name.trimmed();
}

RunPage::SystemPrompt& systemPrompt() {
    static RunPage::SystemPrompt prompt = askSystem;
    return prompt;
}

} // namespace

RunPage::RunPage(QWidget* parent)
    : QWidget(parent), controller_(new RunController(this)), plots_(new LivePlots(this)),
      checkpoints_(new CheckpointView(this)) {
    auto* layout = new QVBoxLayout(this);

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("System:"), this));
    system_ = new QComboBox(this);
    system_->setObjectName(QStringLiteral("systemName"));
    system_->setEditable(true);
    system_->setInsertPolicy(QComboBox::NoInsert); // remembered when a run starts, not per keystroke
    system_->setMinimumContentsLength(14);
    system_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    system_->setToolTip(tr("The system under test (storage + client hosts). Saved with the results as "
                           "trainio_labels.json; results are named \"system · workload · N accelerators\""));
    system_->lineEdit()->setPlaceholderText(tr("e.g. lab-nvme-01"));
    {
        const QSettings settings;
        system_->addItems(settings.value(kSystemsKey).toStringList());
        system_->setCurrentText(settings.value(kSystemKey).toString());
    }
    controls->addWidget(system_);
    controls->addSpacing(12);
    controls->addWidget(new QLabel(tr("Output folder:"), this));
    output_ = new QLineEdit(this);
    output_->setObjectName(QStringLiteral("outputFolder"));
    output_->setToolTip(tr("The invocation folder (summary.json, per-rank outputs) or, for a benchmark, the "
                           "folder that gets warmup/ and runs/run-1 … run-N"));
    controls->addWidget(output_, 1);
    auto* browse = new QToolButton(this);
    browse->setText(QStringLiteral("…"));
    controls->addWidget(browse);
    controls->addSpacing(12);
    controls->addWidget(new QLabel(tr("Runs:"), this));
    runs_ = new QSpinBox(this);
    runs_->setObjectName(QStringLiteral("benchmarkRuns"));
    runs_->setRange(1, 1000);
    runs_->setValue(5);
    runs_->setToolTip(tr("Measured invocations of a benchmark (MLPerf Storage: 5)"));
    controls->addWidget(runs_);
    controls->addWidget(new QLabel(tr("Warm-up:"), this));
    warmups_ = new QSpinBox(this);
    warmups_->setObjectName(QStringLiteral("benchmarkWarmups"));
    warmups_->setRange(0, 10);
    warmups_->setValue(1);
    warmups_->setToolTip(tr("Warm-up invocations, run first and left out of every statistic"));
    controls->addWidget(warmups_);
    {
        // The benchmark's shape as the user left it (MLPerf Storage's 5 runs and 1 warm-up the first time).
        const QSettings settings;
        runs_->setValue(settings.value(kRunsKey, runs_->value()).toInt());
        warmups_->setValue(settings.value(kWarmupsKey, warmups_->value()).toInt());
    }
    connect(runs_, &QSpinBox::valueChanged, this, [](int v) { QSettings().setValue(kRunsKey, v); });
    connect(warmups_, &QSpinBox::valueChanged, this, [](int v) { QSettings().setValue(kWarmupsKey, v); });
    runButton_ = new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay), tr("Run once"), this);
    runButton_->setToolTip(tr("One invocation (Ctrl+R)"));
    benchButton_ = new QPushButton(style()->standardIcon(QStyle::SP_MediaSeekForward), tr("Benchmark"), this);
    benchButton_->setToolTip(tr("Warm-up + N measured invocations, then the MLPerf report and aggregate.json (Ctrl+B)"));
    cancelButton_ = new QPushButton(style()->standardIcon(QStyle::SP_MediaStop), tr("Cancel"), this);
    cancelButton_->setToolTip(tr("Stop within a step; what was measured is kept, marked cancelled (Esc)"));
    controls->addWidget(runButton_);
    controls->addWidget(benchButton_);
    controls->addWidget(cancelButton_);
    presentButton_ = new QPushButton(style()->standardIcon(QStyle::SP_TitleBarMaxButton), tr("Present"), this);
    presentButton_->setObjectName(QStringLiteral("presentButton"));
    presentButton_->setToolTip(tr("The run full screen for an audience: large AU bars against the pass line, GiB/s "
                                  "delivered, the emulated device's limits as sliders (F11; Esc or F11 to come back)"));
    controls->addWidget(presentButton_);
    // Click: race a recording. Its menu: that, or this workload live on another storage profile.
    raceButton_ = new QToolButton(this);
    raceButton_->setObjectName(QStringLiteral("raceButton"));
    raceButton_->setPopupMode(QToolButton::MenuButtonPopup);
    raceButton_->setToolButtonStyle(Qt::ToolButtonTextOnly);
    auto* raceMenu = new QMenu(raceButton_);
    auto* recorded = raceMenu->addAction(tr("Race…"), this, &RunPage::raceRecording);
    recorded->setObjectName(QStringLiteral("raceRecording"));
    recorded->setToolTip(tr("Race a recording: pick a recorded run's folder; it plays beside this page's run, from the run's start, "
                            "on one scale (full screen; Esc to come back). Nothing of its dataset is read."));
    raceButton_->setDefaultAction(recorded);
    raceButton_->setToolTip(recorded->toolTip() +
                            tr("\nIts menu: this workload live on another storage profile, run at the same time beside this "
                               "page's run (on this machine: both share its cores and storage)."));
    raceMenu->addSection(tr("Live, beside this run, on the storage profile"));
    for (const std::string& name : storageProfileNames()) {
        const QString profile = QString::fromStdString(name);
        QAction* a = raceMenu->addAction(profile, this, [this, profile] { raceProfile(profile); });
        a->setObjectName(QStringLiteral("raceProfile:") + profile);
        try {
            a->setToolTip(QString::fromStdString(loadStorageProfile(name).description));
        } catch (const std::exception& e) {
            a->setToolTip(QString::fromUtf8(e.what()));
        }
    }
    raceMenu->setToolTipsVisible(true);
    raceButton_->setMenu(raceMenu);
    controls->addWidget(raceButton_);
    layout->addLayout(controls);

    auto* statusRow = new QHBoxLayout;
    status_ = new QLabel(tr("Idle."), this);
    status_->setObjectName(QStringLiteral("runStatus"));
    statusRow->addWidget(status_, 1);
    progress_ = new QProgressBar(this);
    progress_->setRange(0, 1000);
    progress_->setValue(0);
    progress_->setMaximumWidth(320);
    statusRow->addWidget(progress_);
    layout->addLayout(statusRow);
    mpi_ = new MpiControls(this);
    layout->addWidget(mpi_);
    storage_ = new StorageControls(this);
    storage_->setObjectName(QStringLiteral("storageControls"));
    layout->addWidget(storage_);
    s3Strip_ = new QLabel(this);
    s3Strip_->setObjectName(QStringLiteral("s3Strip"));
    s3Strip_->setWordWrap(true);
    s3Strip_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    s3Strip_->setFrameShape(QFrame::StyledPanel);
    s3Strip_->setMargin(4);
    s3Strip_->setToolTip(tr("An object store has no page cache between it and the readers: what each epoch's requests "
                            "did instead (trainio_io.json's s3 epochs: requests, bytes on the wire against bytes "
                            "delivered, first-byte and request latency percentiles, retries; docs/s3.md)"));
    s3Strip_->hide();
    layout->addWidget(s3Strip_);
    presentation_ = new PresentationView(storage_, this);
    race_ = new RaceView(this);
    rivals_ = new RaceRivals(race_, this);
    connect(rivals_, &RaceRivals::notify, this, &RunPage::notify);
    connect(rivals_, &RaceRivals::resultsWritten, this, &RunPage::resultsWritten);
    // "limited by" weighs what the accelerators lost (the last seconds' AU) before any device wait.
    storage_->setAuSource([this] { return presentation_->liveFigures().totalAu(); });
    checkpointPlan_ = new QLabel(this);
    checkpointPlan_->setObjectName(QStringLiteral("checkpointPlan"));
    checkpointPlan_->setWordWrap(true);
    checkpointPlan_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(checkpointPlan_);
    // The input-pipeline model: its prediction before the run, predicted vs measured after it (docs/model.md).
    model_ = new ModelPanel(this);
    model_->setObjectName(QStringLiteral("modelPanel"));
    layout->addWidget(model_);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    views_ = new QTabWidget(splitter);
    views_->setObjectName(QStringLiteral("runViews"));
    views_->setDocumentMode(true);
    views_->addTab(plots_, tr("Training"));
    views_->addTab(checkpoints_, tr("Checkpoints"));
    checkpoints_->setObjectName(QStringLiteral("checkpointView"));
    splitter->addWidget(views_);
    invocations_ = new QTreeView;
    invocations_->setObjectName(QStringLiteral("invocationList"));
    // Invocations, each with a row per epoch as it ends: its AU and how much of it the page cache served.
    invocationModel_ = new InvocationTreeModel(invocations_);
    invocationModel_->setServedHeader(tr("From page cache"), cacheToolTip());
    invocations_->setModel(invocationModel_);
    invocations_->setUniformRowHeights(true);
    // An epoch's row shows as it arrives: its invocation opens.
    connect(invocationModel_, &QAbstractItemModel::rowsInserted, invocations_, [this](const QModelIndex& parent) {
        if (parent.isValid()) invocations_->expand(parent);
    });
    invocations_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // Below the plots: the invocations and, for an MPI run, its hosts side by side.
    auto* lists = new QSplitter(Qt::Horizontal, splitter);
    lists->addWidget(invocations_);
    hosts_ = new HostTable(lists);
    lists->addWidget(hosts_);
    lists->setStretchFactor(0, 3);
    lists->setStretchFactor(1, 2);
    splitter->addWidget(lists);
    splitter->setStretchFactor(0, 5);
    splitter->setStretchFactor(1, 1);
    layout->addWidget(splitter, 1);

    connect(browse, &QToolButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Output folder"), output_->text());
        if (!dir.isEmpty()) setOutputFolder(dir);
    });
    connect(output_, &QLineEdit::textEdited, this, [this] { outputChosenByUser_ = true; });
    connect(runButton_, &QPushButton::clicked, this, &RunPage::startInvocation);
    connect(benchButton_, &QPushButton::clicked, this, &RunPage::startBenchmark);
    connect(cancelButton_, &QPushButton::clicked, this, &RunPage::cancel);
    connect(presentButton_, &QPushButton::clicked, this, &RunPage::showPresentation);
    connect(presentation_, &PresentationView::closed, this, [this] {
        window()->raise();
        window()->activateWindow();
    });
    connect(race_, &RaceView::closed, this, [this] {
        window()->raise();
        window()->activateWindow();
    });
    connect(storage_, &StorageControls::bindingChanged, race_, &RaceView::setLiveLimit);

    connect(controller_, &RunController::steps, this, &RunPage::onSteps);
    connect(controller_, &RunController::epochFinished, this, &RunPage::onEpoch);
    connect(controller_, &RunController::finished, this, &RunPage::onFinished);
    connect(controller_, &RunController::telemetry, plots_, &LivePlots::addTelemetry);
    connect(controller_, &RunController::hosts, hosts_, &HostTable::setHosts);
    connect(mpi_, &MpiControls::changed, this, [this] {
        emit acceleratorsDerived(mpi_->isChecked(), mpi_->totalAccelerators());
        if (!outputChosenByUser_ && !isRunning()) output_->setText(suggestedFolder());
    });
    connect(controller_, &RunController::epochCache, this, &RunPage::onEpochCache);
    connect(controller_, &RunController::epochS3, this, &RunPage::onEpochS3);
    connect(controller_, &RunController::checkpoint, this, &RunPage::onCheckpoint);
    connect(controller_, &RunController::started, this, [this](const QString& dir) {
        clearView();
        // The page's run has passed its pre-flight and its dataset is there: its live rivals start now.
        if (request_) rivals_->start(*request_, runTitle(), true);
        emit notify(Severity::Info, tr("%1 started in %2").arg(benchmark_ ? tr("Benchmark") : tr("Invocation"), dir));
    });
    connect(controller_, &RunController::phaseChanged, this, [this](const QString& p) {
        phase_ = p;
        updateStatus();
    });
    // The controller's warnings say so ("warning: …", "run 2/5: warning: …"); its other lines (the dataset
    // being generated first) are information.
    connect(controller_, &RunController::message, this, [this](const QString& m) {
        emit notify(m.contains(QLatin1String("warning:")) ? Severity::Warning : Severity::Info, m);
    });
    connect(controller_, &RunController::storageChanged, this, [this] { storage_->setDevice(controller_->storage()); });
    // The device logs the change with its time (trainio_io.json); the plots show where in the run it fell.
    connect(storage_, &StorageControls::changed, this, [this](const QString& label) {
        // The step as the plots' axis counts it (every step of the run so far), and where that is in the epoch.
        const double x = plots_->addMarker(label);
        presentation_->addMarker(label, x);
        race_->addLiveMarker(label);
        emit notify(Severity::Info, tr("Emulated storage: %1 at step %L2 (epoch %3, step %4 of %5)")
                                        .arg(label)
                                        .arg(static_cast<qlonglong>(std::floor(x)))
                                        .arg(epoch_)
                                        .arg(step_)
                                        .arg(stepsPerEpoch_));
    });
    connect(storage_, &StorageControls::refused, this, [this](const QString& text) { emit notify(Severity::Error, text); });
    connect(controller_, &RunController::invocationStarted, this, [this](const QString& label, const QString& dir, int) {
        invocationLabel_ = label;
        epoch_ = step_ = 0;
        plots_->beginInvocation(label);
        presentation_->beginInvocation(label);
        race_->liveInvocation();
        checkpoints_->beginInvocation(label);
        invocationModel_->addInvocation(label, dir);
        updateStatus();
    });
    connect(controller_, &RunController::invocationFinished, this,
            [this](const QString&, const QString& dir, const QString& status, double au) {
                // Checkpoint-only mode has no training steps, hence no AU (core reports 0).
                invocationModel_->finishInvocation(dir, status, checkpointOnly(runConfig_) ? tr("— (checkpoint-only)")
                                                                                          : QString::number(au, 'f', 2));
            });
    setRunning(false);
    updateViews();
}

void RunPage::showPresentation() { presentation_->present(); }

void RunPage::raceRecording() {
    const QString folder = existingFolder(this, QStringLiteral("replay"), tr("A recorded run to race this page's run"));
    if (folder.isEmpty()) return;
    // The live lane first (this page's run, or the one about to start), then the recording beside it.
    givePageRunALane();
    QString error;
    if (!race_->addReplayFolder(folder, &error)) {
        emit notify(Severity::Error, error);
        return;
    }
    // Racing a run already under way: both from now. Otherwise the recording waits for the run's start.
    if (isRunning()) race_->liveStarted();
    race_->present();
}

void RunPage::givePageRunALane() {
    if (race_->hasLive()) return;
    race_->clear();
    const WorkloadConfig& cfg = isRunning() ? runConfig_ : config_;
    race_->setLive(runTitle(), runAccelerators_, cfg.metric.au * 100.0, QString::fromStdString(session::emulatedStorageWords(cfg)));
}

bool RunPage::raceProfile(const QString& profile) {
    givePageRunALane();
    const WorkloadConfig& cfg = isRunning() ? runConfig_ : config_;
    QString error;
    if (!rivals_->add(profile, runTitle(), runAccelerators_, cfg.metric.au * 100.0, isRunning() && request_ ? &*request_ : nullptr,
                      &error)) {
        emit notify(Severity::Error, tr("Live race on the %1 profile: %2").arg(profile, error));
        return false;
    }
    if (isRunning()) race_->liveStarted();
    race_->present();
    return true;
}

QString RunPage::runTitle() const {
    QString workload = QString::fromStdString(runConfig_.model.name);
    if (!runConfig_.accelerator.empty()) workload += QLatin1Char('_') + QString::fromStdString(runConfig_.accelerator);
    QStringList parts;
    if (!systemName().isEmpty()) parts << systemName();
    parts << workload << (runAccelerators_ == 1 ? tr("1 accelerator") : tr("%1 accelerators").arg(runAccelerators_));
    return parts.join(QStringLiteral(" · "));
}

void RunPage::setWorkload(const WorkloadConfig& cfg, std::uint64_t accelerators, MetricSemantics semantics, bool valid) {
    config_ = cfg;
    accelerators_ = accelerators;
    semantics_ = semantics;
    valid_ = valid;
    if (!outputChosenByUser_ && !isRunning()) output_->setText(suggestedFolder());
    setRunning(isRunning());
    if (!isRunning()) updateViews(); // a running checkpoint view stays until the run ends
}

void RunPage::updateViews() {
    const WorkloadConfig& cfg = isRunning() ? runConfig_ : config_;
    const bool train = cfg.workflow.train || !cfg.workflow.checkpoint; // something must be shown
    views_->setTabVisible(views_->indexOf(plots_), train);
    views_->setTabVisible(views_->indexOf(checkpoints_), cfg.workflow.checkpoint);
    views_->tabBar()->setVisible(train && cfg.workflow.checkpoint);
    if (checkpointOnly(cfg)) views_->setCurrentWidget(checkpoints_);
    else if (!cfg.workflow.checkpoint) views_->setCurrentWidget(plots_);
    const QString plan = checkpointPlanText();
    checkpointPlan_->setText(plan);
    checkpointPlan_->setVisible(!plan.isEmpty());
    if (!isRunning()) {
        if (valid_) model_->setWorkload(config_, accelerators_, semantics_);
        else model_->setInvalid(tr("the workload has invalid values; fix them on the Workload page"));
    }
}

QString RunPage::checkpointPlanText() const {
    if (!config_.workflow.checkpoint) return {};
    return checkpointPlanSummary(config_, accelerators_);
}

void RunPage::setResultsRoot(const QString& root) {
    resultsRoot_ = root;
    if (!outputChosenByUser_ && !isRunning()) output_->setText(suggestedFolder());
}

void RunPage::setOutputFolder(const QString& dir) {
    output_->setText(dir);
    outputChosenByUser_ = true;
}

QString RunPage::outputFolder() const { return output_->text(); }

void RunPage::setBenchmarkShape(int runs, int warmups) {
    runs_->setValue(runs);
    warmups_->setValue(warmups);
}

QString RunPage::suggestedFolder() const {
    QString label = QString::fromStdString(config_.model.name);
    if (!config_.accelerator.empty()) label += QLatin1Char('_') + QString::fromStdString(config_.accelerator);
    return QDir(resultsRoot_.isEmpty() ? QDir::homePath() : resultsRoot_)
        .filePath(QStringLiteral("%1-%2acc-%3").arg(label).arg(runAccelerators()).arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"))));
}

QString RunPage::systemName() const { return system_->currentText().trimmed(); }

void RunPage::setSystemName(const QString& name) { system_->setCurrentText(name.trimmed()); }

void RunPage::setSystemPrompt(SystemPrompt prompt) { systemPrompt() = prompt ? std::move(prompt) : askSystem; }

std::optional<QString> RunPage::systemForRun() {
    QSettings settings;
    QString name = systemName();
    if (name.isEmpty() && !settings.value(kSystemAskedKey, false).toBool()) {
        const std::optional<QString> answer = systemPrompt()(this);
        if (!answer) return std::nullopt;
        name = answer->trimmed();
        if (name.isEmpty()) settings.setValue(kSystemAskedKey, true);
        setSystemName(name);
    }
    if (!name.isEmpty()) rememberSystem(name);
    return name;
}

void RunPage::rememberSystem(const QString& name) {
    QSettings settings;
    const QStringList names = pushRecent(settings, kSystemsKey, name, kRememberedSystems);
    settings.setValue(kSystemKey, name);
    const QSignalBlocker block(system_);
    system_->clear();
    system_->addItems(names);
    system_->setCurrentText(name);
}

std::uint64_t RunPage::runAccelerators() const {
    return mpi_->isChecked() ? mpi_->totalAccelerators() : accelerators_;
}

bool RunPage::startInvocation() { return start(false); }
bool RunPage::startBenchmark() { return start(true); }

bool RunPage::start(bool benchmark) {
    if (isRunning()) return false;
    if (!valid_) {
        emit notify(Severity::Error, tr("The workload configuration has errors; fix them on the Workload page first."));
        return false;
    }
    if (output_->text().trimmed().isEmpty()) {
        emit notify(Severity::Error, tr("Choose an output folder first."));
        return false;
    }
    std::optional<dist::MpiLaunch> launch;
    if (mpi_->isChecked()) {
        QString problem;
        launch = mpi_->launch(&problem);
        if (!launch) {
            emit notify(Severity::Error, tr("MPI (client hosts): %1").arg(problem));
            return false;
        }
    }
    if (rivals_->isRunning()) {
        emit notify(Severity::Error, tr("A live rival of the last run is still running: wait for its end or cancel it first."));
        return false;
    }
    const std::optional<QString> system = systemForRun();
    if (!system) {
        emit notify(Severity::Info, tr("Run not started: no system name given."));
        return false;
    }
    // A fresh folder per run unless the user chose one: never mix two runs' files.
    if (!outputChosenByUser_) output_->setText(suggestedFolder());
    RunRequest req;
    req.labels.system = system->toStdString();
    req.config = config_;
    req.outputDir = output_->text().trimmed().toStdString();
    req.accelerators = runAccelerators();
    req.mpi = launch;
    req.semantics = semantics_;
    req.benchmark = benchmark;
    req.runs = static_cast<std::uint64_t>(runs_->value());
    req.warmups = static_cast<std::uint64_t>(warmups_->value());
    req.io = io_;
    benchmark_ = benchmark;
    runConfig_ = config_;
    showObjectStorage();
    runAccelerators_ = req.accelerators;
    runIsMpi_ = launch.has_value();
    cancelRequests_ = 0;

    request_ = req;
    if (!controller_->start(req)) return false;
    setRunning(true);
    setStatusText(tr("Checking before the run (pre-flight: configuration, dataset, output folder)…"));
    return true;
}

void RunPage::clearView() {
    invocationModel_->clear();
    hosts_->clearHosts();
    plots_->reset(runAccelerators_, runConfig_.reader.batchSize, runConfig_.metric.au * 100.0);
    presentation_->reset(runAccelerators_, runConfig_.reader.batchSize, runConfig_.metric.au * 100.0, runTitle());
    // A race set up before the run: the recordings start again with it.
    if (race_->hasLive()) {
        race_->setLive(runTitle(), runAccelerators_, runConfig_.metric.au * 100.0,
                       QString::fromStdString(session::emulatedStorageWords(runConfig_)));
        race_->liveStarted();
    }
    epoch_ = step_ = stepsPerEpoch_ = stepsDone_ = 0;
    epochs_ = runConfig_.train.epochs;
    checkpointsDone_ = 0;
    // Checkpoint-only mode writes and reads a known number per invocation; during training it depends on
    // the steps, so the view counts without a total.
    const bool only = checkpointOnly(runConfig_);
    double sizeGiB = 0; // what core divides by (checkpoint_io's CheckpointResults::sizeGiB)
    if (runConfig_.workflow.checkpoint) {
        try {
            const checkpoint::CheckpointPlan plan = checkpoint::planCheckpoint(runConfig_, runAccelerators_);
            sizeGiB = plan.dlioCheckpointSizeGiB * plan.scale;
        } catch (const std::exception&) {
            // The run's own error names the key; the view falls back to the bytes the ranks report.
        }
    }
    checkpoints_->reset(only ? static_cast<std::uint64_t>(std::max<std::int64_t>(0, runConfig_.checkpoint.numCheckpointsWrite)) : 0,
                        only ? static_cast<std::uint64_t>(std::max<std::int64_t>(0, runConfig_.checkpoint.numCheckpointsRead)) : 0,
                        runConfig_.checkpoint.rankSync, sizeGiB);
    updateViews();
    phase_.clear();
    invocationLabel_.clear();
    progress_->setValue(0);
    clock_.start();
}

void RunPage::cancel() {
    rivals_->cancel();
    if (!isRunning()) return;
    const bool again = cancelRequests_++ > 0;
    controller_->cancel();
    if (runIsMpi_)
        setStatusText(again ? tr("Cancelling again — killing mpirun (what process 0 has not written is lost)…")
                               : tr("Cancelling — mpirun stops every process; process 0 writes what was measured…"));
    else
        setStatusText(tr("Cancelling — stopping within a step…"));
}

void RunPage::onSteps(const std::vector<StepEvent>& batch) {
    plots_->addSteps(batch);
    presentation_->addSteps(batch);
    race_->addLiveSteps(batch);
    hosts_->addSteps(batch);
    for (const StepEvent& e : batch) {
        if (e.rank != 0) continue;
        ++stepsDone_;
        epoch_ = e.epoch;
        step_ = e.step;
        stepsPerEpoch_ = e.stepsPerEpoch;
    }
    updateStatus();
}

void RunPage::onCheckpoint(const checkpoint::CheckpointEvent& e) {
    checkpoints_->add(e);
    if (e.phase == checkpoint::CheckpointEvent::Phase::Failed)
        emit notify(Severity::Error, tr("Checkpoint %1 %2, rank %3 failed: %4")
                                         .arg(QString::fromUtf8(checkpoint::operationName(e.op)))
                                         .arg(e.index + 1)
                                         .arg(e.rank)
                                         .arg(QString::fromStdString(e.error)));
    if (e.phase == checkpoint::CheckpointEvent::Phase::Completed && e.rank == 0) ++checkpointsDone_;
    updateStatus();
}

void RunPage::onEpoch(const EpochEvent& e) {
    plots_->addEpoch(e);
    presentation_->addEpoch(e);
    race_->addLiveEpoch(e);
    hosts_->addEpoch(e);
    invocationModel_->setEpochAu(e.epoch, QString::number(e.auPercent, 'f', 2));
    epochs_ = e.epochs;
    updateStatus();
}

void RunPage::onEpochCache(quint64 epoch, double percent) {
    if (std::isnan(percent)) {
        invocationModel_->setEpochServed(epoch, tr("unknown (/proc/self/io unreadable)"));
        return;
    }
    QString text = tr("%1 %").arg(percent, 0, 'f', 0);
    QColor alarm;
    // The epoch's measured share decides, in core's terms (util/page_cache_verdict.h), as the result's warning.
    if (pageCacheVerdict(PageCacheEvidence{runConfig_.trainio.cache, {percent}, false, false}).warning) {
        // Under an emulated device the reads are shaped as that device would serve them whatever the cache
        // holds (the result carries no cache warning then): said, not flagged.
        if (controller_->storage()) {
            text += tr(" — under the emulated device, which shapes the reads");
        } else {
            text += tr(" — mostly from the page cache: AU and MiB/s describe memory, not the storage");
            alarm = isDarkPalette(palette()) ? QColor(0xff6b6b) : QColor(0xc0392b);
        }
    }
    invocationModel_->setEpochServed(epoch, text, alarm);
}

void RunPage::showObjectStorage() {
    const bool s3 = runConfig_.storage.isS3();
    invocationModel_->setServedHeader(s3 ? tr("S3 requests") : tr("From page cache"),
                                      s3 ? tr("Per epoch: the S3 requests the readers made and what they delivered") : cacheToolTip());
    s3Strip_->setVisible(s3);
    if (!s3) return;
    s3Location_ = QString::fromStdString(s3DatasetLocation(runConfig_));
    s3Strip_->setText(tr("Object storage: %1 — no page cache: each epoch's requests are shown here as it ends").arg(s3Location_));
}

void RunPage::onEpochS3(quint64 epoch, const S3EpochFigures& f) {
    const QString figures = tr("%L1 GETs, %2 MiB delivered (%3 MiB on the wire), first byte p50 %4 ms, request p50 %5 ms / "
                               "p99 %6 ms, %L7 retries%8")
                                .arg(f.gets)
                                .arg(static_cast<double>(f.bytesDelivered) / 1048576.0, 0, 'f', 1)
                                .arg(static_cast<double>(f.wireBytesIn) / 1048576.0, 0, 'f', 1)
                                .arg(f.firstByteP50Ms, 0, 'f', 1)
                                .arg(f.requestP50Ms, 0, 'f', 1)
                                .arg(f.requestP99Ms, 0, 'f', 1)
                                .arg(f.retries)
                                .arg(f.failures ? tr(", %L1 failed").arg(f.failures) : QString());
    s3Strip_->setText(tr("Object storage: %1 — epoch %2: %3").arg(s3Location_).arg(epoch).arg(figures));
    invocationModel_->setEpochServed(epoch, figures);
}

void RunPage::setStatusText(const QString& text) {
    status_->setText(text);
    presentation_->setStatus(text);
}

void RunPage::updateStatus() {
    const double elapsed = static_cast<double>(clock_.elapsed()) / 1000.0;
    if (checkpointOnly(runConfig_) && isRunning()) {
        // No steps to count: progress is rank 0's checkpoints (rank 0 takes part in every one, whatever
        // checkpoint.type).
        const auto perInvocation = static_cast<double>(std::max<std::int64_t>(0, runConfig_.checkpoint.numCheckpointsWrite) +
                                                       std::max<std::int64_t>(0, runConfig_.checkpoint.numCheckpointsRead));
        const double total = perInvocation * static_cast<double>(std::max<std::uint64_t>(1, controller_->invocationCount()));
        const double fraction = total > 0 ? std::min(1.0, static_cast<double>(checkpointsDone_) / total) : 0.0;
        const double eta = fraction > 0 ? elapsed * (1.0 - fraction) / fraction : -1;
        progress_->setValue(static_cast<int>(fraction * 1000.0));
        setStatusText(tr("%1 · phase %2 · checkpoint-only · %3 · elapsed %4 · ETA %5")
                             .arg(invocationLabel_.isEmpty() ? tr("starting") : invocationLabel_,
                                  phase_.isEmpty() ? QStringLiteral("—") : phase_, checkpoints_->statusText(),
                                  clockDuration(elapsed), clockDuration(eta)));
        return;
    }
    const double total = static_cast<double>(stepsPerEpoch_ * epochs_ * std::max<std::uint64_t>(1, controller_->invocationCount()));
    const double fraction = total > 0 ? std::min(1.0, static_cast<double>(stepsDone_) / total) : 0.0;
    const double eta = fraction > 0 ? elapsed * (1.0 - fraction) / fraction : -1;
    progress_->setValue(static_cast<int>(fraction * 1000.0));
    setStatusText(tr("%1 · phase %2 · epoch %3/%4 · step %L5/%L6 · elapsed %7 · ETA %8")
                         .arg(invocationLabel_.isEmpty() ? tr("starting") : invocationLabel_,
                              phase_.isEmpty() ? QStringLiteral("—") : phase_)
                         .arg(epoch_)
                         .arg(epochs_)
                         .arg(step_)
                         .arg(stepsPerEpoch_)
                         .arg(clockDuration(elapsed), clockDuration(eta)));
}

void RunPage::onFinished(const RunFinish& r) {
    setRunning(false);
    // Rows of invocations that never reported their end (a write error thrown after the measurement,
    // a cancel between invocations) must not keep saying "running".
    const QString ended = r.cancelled ? tr("cancelled") : r.complete ? tr("complete") : tr("failed");
    invocationModel_->endRunning(ended);
    status_->setToolTip(QString());
    if (!r.preflightProblems.empty()) {
        const QString what = benchmark_ ? tr("Benchmark") : tr("Run");
        setStatusText(tr("%1 not started: the pre-flight check found %2.").arg(what, problemCount(r.preflightProblems.size())));
        emit notify(Severity::Error, tr("%1 not started — pre-flight: %2").arg(what, preflightProblemLines(r.preflightProblems)));
        // Closing anyway: the problems are in the notifications; a dialog would outlive the window.
        if (closeWhenStopped_) std::exchange(closeWhenStopped_, nullptr)();
        else showPreflightProblems(this, what, r.preflightProblems);
        return;
    }
    if (r.complete) progress_->setValue(1000);
    if (r.failed()) {
        const QString reason = r.error.isEmpty() ? tr("unknown error") : r.error;
        setStatusText(tr("Run failed: %1").arg(reason.section(QLatin1Char('\n'), 0, 0)));
        status_->setToolTip(reason);
        emit notify(Severity::Error, tr("Run failed: %1 (folder %2)").arg(reason, r.outputDir));
    } else {
        const QString what = r.complete ? (benchmark_ ? tr("Benchmark complete") : tr("Run complete"))
                                        : (benchmark_ ? tr("Benchmark cancelled (what was measured is kept)")
                                                      : tr("Run cancelled (what was measured is kept)"));
        setStatusText(QStringLiteral("%1 — %2").arg(what, r.outputDir));
        emit notify(r.complete ? Severity::Info : Severity::Warning, tr("%1: %2").arg(what, r.outputDir));
    }
    if (!r.outputDir.isEmpty() && QDir(r.outputDir).exists()) {
        model_->showMeasured(r.records);
        emit resultsWritten(r.outputDir, r.written);
    }
    if (closeWhenStopped_) std::exchange(closeWhenStopped_, nullptr)();
}

bool RunPage::confirmClose(std::function<void()> closeNow, std::function<void()> cancelled) {
    if (!isRunning()) return true;
    if (closeWhenStopped_) { // already stopping; it closes when the engine has stopped — asked again: stop harder
        cancel();
        return false;
    }
    // Window-modal and asynchronous (open, not exec): the run keeps reporting while the user decides.
    auto* box = new QMessageBox(QMessageBox::Question, tr("A run is in progress"),
                                tr("Closing TrainIO stops the run. What was measured so far is kept in %1, marked "
                                   "cancelled.").arg(output_->text()),
                                QMessageBox::Cancel, this);
    box->setObjectName(QStringLiteral("confirmCloseDialog"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    QPushButton* stop = box->addButton(tr("Stop the run and close"), QMessageBox::DestructiveRole);
    stop->setObjectName(QStringLiteral("stopAndClose"));
    box->setDefaultButton(QMessageBox::Cancel);
    connect(stop, &QPushButton::clicked, this, [this, closeNow = std::move(closeNow)] {
        if (!isRunning()) return closeNow(); // it ended while the question was open
        closeWhenStopped_ = closeNow;
        cancel();
    });
    // Cancel, Escape or the box closed: the window stays, and whoever asked is told.
    connect(box, &QMessageBox::finished, this, [box, stop, cancelled = std::move(cancelled)] {
        if (box->clickedButton() != stop && cancelled) cancelled();
    });
    box->open();
    return false;
}

void RunPage::setRunning(bool running) {
    runButton_->setEnabled(!running && valid_);
    benchButton_->setEnabled(!running && valid_);
    cancelButton_->setEnabled(running);
    output_->setEnabled(!running);
    mpi_->setEnabled(!running);
}

} // namespace trainio::ui
