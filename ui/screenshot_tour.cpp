#include "screenshot_tour.h"

#include "run/checkpoint_view.h"
#include "run/collocation_page.h"
#include "library/compare_page.h"
#include "workload/data_page.h"
#include "widgets/help_window.h"
#include "workload/quick_start_dialog.h"
#include "main_window.h"
#include "run/mpi_controls.h"
#include "run/presentation_view.h"
#include "library/results_library_loader.h"
#include "library/results_page.h"
#include "models/results_tree_model.h"
#include "run/run_page.h"
#include "library/sweep_view.h"
#include "workload/workload_page.h"

#include "config/config_loader.h"
#include "store/invocation_record.h"
#include "aggregate/results_library.h"
#include "io/fault_injection.h"
#include "io/io_backend.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QDialog>
#include <QDir>
#include <QGroupBox>
#include <QFile>
#include <QMessageBox>
#include <QPainter>
#include <QPixmap>
#include <QProcess>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSlider>
#include <QTextStream>
#include <QElapsedTimer>
#include <QTimer>
#include <QTreeView>

#include <algorithm>
#include <iterator>
#include <memory>

namespace trainio::ui {

ScreenshotTour::ScreenshotTour(MainWindow* window, QString outputDir, QStringList resultsFolders, QObject* parent)
    : QObject(parent), window_(window), outputDir_(std::move(outputDir)), resultsFolders_(std::move(resultsFolders)) {}

void ScreenshotTour::start() {
    if (!temp_.isValid() || !QDir().mkpath(outputDir_)) {
        fail(QStringLiteral("cannot create %1 or a temporary folder").arg(outputDir_));
        return;
    }
    // A small workload that still draws readable plots: 2 accelerators × 32 steps × 3 epochs.
    WorkloadConfig cfg = loadPreset("demo").config;
    cfg.dataset.dataFolder = QDir(temp_.path()).filePath(QStringLiteral("data")).toStdString();
    cfg.dataset.format = DataFormat::Npz;
    cfg.dataset.numFilesTrain = 128;
    cfg.dataset.numSamplesPerFile = 1;
    cfg.dataset.recordLength = 256 * 1024;
    cfg.dataset.recordLengthStdev = 32 * 1024;
    cfg.reader.batchSize = 2;
    cfg.reader.readThreads = 2;
    cfg.train.epochs = 3;
    cfg.train.computationTime = ComputeTime{};
    cfg.train.computationTime.distribution = ComputeDistribution::Normal;
    cfg.train.computationTime.mean = 0.006;
    cfg.train.computationTime.stdev = 0.001;
    window_->workloadPage()->setConfig(cfg, QStringLiteral("preset demo (resized for the screenshots)"));
    window_->workloadPage()->setAccelerators(2);
    // The system under test, as a user names it (and so no question before the first run).
    window_->runPage()->setSystemName(QStringLiteral("workstation-nvme"));
    window_->showPage(MainWindow::WorkloadPageIndex);
    QTimer::singleShot(300, this, [this] {
        save(QStringLiteral("workload"));
        // The storage settings sit below the fold of the page: their group alone.
        for (QGroupBox* box : window_->workloadPage()->findChildren<QGroupBox*>())
            if (box->title() == tr("Storage (TrainIO)")) saveWidget(box, QStringLiteral("storage-settings"));
        showInvalidFields();
    });
}

// Two fields typed wrong, as a user might: each refused at the field with the key and what is accepted.
void ScreenshotTour::showInvalidFields() {
    WorkloadPage* page = window_->workloadPage();
    for (const auto& [key, typed] : {std::pair{"train.epochs", "-3"}, std::pair{"accelerator", "H100_SXM"}}) {
        QWidget* editor = page->editorFor(QString::fromLatin1(key));
        auto* edit = editor ? editor->findChild<QLineEdit*>() : nullptr;
        if (!edit) return fail(QStringLiteral("no editor for %1").arg(QString::fromLatin1(key)));
        edit->selectAll();
        edit->insert(QString::fromLatin1(typed)); // as typed: emits textEdited
    }
    QTimer::singleShot(300, this, [this, page] {
        save(QStringLiteral("workload-invalid"));
        page->revertEdits();
        generate();
    });
}

void ScreenshotTour::quickStartAndHelp() {
    // An MLPerf Storage workload is what needs shrinking on a workstation.
    window_->workloadPage()->loadPresetNamed(QStringLiteral("unet3d_h100"));
    QuickStartDialog* quick = window_->showQuickStart();
    quick->shrinkButton()->click();
    QTimer::singleShot(300, this, [this, quick] {
        saveWidget(quick, QStringLiteral("quick-start"));
        HelpWindow* help = window_->showHelp(QStringLiteral("user-guide.md"));
        quick->hide();
        QTimer::singleShot(300, this, [this, help] {
            saveWidget(help, QStringLiteral("help"));
            help->hide();
            collocationDemo();
        });
    });
}

void ScreenshotTour::generate() {
    window_->showPage(MainWindow::DataPageIndex);
    auto* c = window_->dataPage()->controller();
    connect(c, &DatasetController::finished, this, [this](DatasetController::Operation, bool ok, bool, const QString& summary) {
        if (!ok) return fail(QStringLiteral("generation failed: %1").arg(summary));
        QTimer::singleShot(200, this, [this] {
            save(QStringLiteral("data"));
            benchmark();
        });
    }, Qt::SingleShotConnection);
    window_->dataPage()->generate();
}

void ScreenshotTour::benchmark() {
    window_->showPage(MainWindow::RunPageIndex);
    RunPage* run = window_->runPage();
    benchmarkDir_ = QDir(temp_.path()).filePath(QStringLiteral("results/demo-benchmark"));
    run->setOutputFolder(benchmarkDir_);
    run->setBenchmarkShape(3, 1);
    connect(run->controller(), &RunController::finished, this, [this](const RunFinish& r) {
        if (!r.complete) return fail(QStringLiteral("benchmark failed: %1").arg(r.error));
        QTimer::singleShot(300, this, [this] {
            save(QStringLiteral("run"));
            window_->setTheme(MainWindow::Theme::Dark);
            QTimer::singleShot(300, this, [this] {
                save(QStringLiteral("run-dark"));
                window_->setTheme(MainWindow::Theme::Light);
                demoConfig_ = window_->workloadPage()->config();
                mpiDemo();
            });
        });
    }, Qt::SingleShotConnection);
    if (!run->startBenchmark()) fail(QStringLiteral("the benchmark did not start"));
}

// The same workload as an MPI run on this machine (docs/mpi.md, "From the GUI"): 2 processes × 2
// accelerators under mpirun, every rank's steps on the plots and the host row below them.
void ScreenshotTour::mpiDemo() {
    window_->showPage(MainWindow::RunPageIndex);
    RunPage* run = window_->runPage();
    MpiControls* mpi = run->mpiControls();
    mpi->setChecked(true);
    mpi->setHostList(QStringLiteral("localhost"));
    mpi->setProcessesPerHost(2);
    mpi->setAcceleratorsPerProcess(2);
    mpi->setOversubscribe(true); // a workstation may have fewer cores than processes
    run->setOutputFolder(QDir(temp_.path()).filePath(QStringLiteral("results/demo-mpi")));
    connect(run->controller(), &RunController::finished, this, [this, mpi](const RunFinish& r) {
        if (!r.complete) return fail(QStringLiteral("the MPI run failed: %1").arg(r.error));
        QTimer::singleShot(300, this, [this, mpi] {
            save(QStringLiteral("run-mpi"));
            mpi->setChecked(false);
            sweepDemo();
        });
    }, Qt::SingleShotConnection);
    if (!run->startInvocation()) fail(QStringLiteral("the MPI run did not start"));
}

// `trainio-cli sweep --quick` over 1…8 accelerators on the tour's data, opened with File → Open sweep…
// (docs/sweep.md, "In the GUI"). With 20 ms of compute per step the few counts a workstation's cores keep
// busy pass and the larger ones do not, so the search doubles and then bisects.
void ScreenshotTour::sweepDemo() {
    WorkloadConfig cfg = demoConfig_;
    cfg.train.computationTime.mean = 0.02;
    cfg.train.computationTime.stdev = 0.002;
    const QString config = QDir(temp_.path()).filePath(QStringLiteral("sweep-workload.yaml"));
    QFile file(config);
    if (!file.open(QIODevice::WriteOnly) || file.write(QByteArray::fromStdString(toYaml(cfg))) < 0)
        return fail(QStringLiteral("cannot write %1").arg(config));
    file.close();
    const QString dir = QDir(temp_.path()).filePath(QStringLiteral("results/demo-sweep"));
    auto* cli = new QProcess(this);
    cli->setProgram(RunController::cliProgram());
    cli->setArguments({QStringLiteral("sweep"), QStringLiteral("--config"), config, QStringLiteral("--accelerators"),
                       QStringLiteral("1:8"), QStringLiteral("--quick"), QStringLiteral("--output"), dir,
                       QStringLiteral("--quiet")});
    connect(cli, &QProcess::finished, this, [this, cli, dir](int code, QProcess::ExitStatus status) {
        cli->deleteLater();
        if (status != QProcess::NormalExit || code != 0)
            return fail(QStringLiteral("the sweep failed: %1").arg(QString::fromUtf8(cli->readAllStandardError())));
        SweepDialog* dialog = window_->showSweep(dir);
        if (!dialog) return fail(QStringLiteral("the sweep in %1 did not open").arg(dir));
        QTimer::singleShot(500, this, [this, dialog, dir] {
            saveWidget(dialog, QStringLiteral("sweep"));
            dialog->close();
            window_->libraryLoader()->removeFolder(dir); // the Results pictures show what they always showed
            storageDemo(0);
        });
    });
    cli->start();
}

// The same workload through two emulated devices (docs/storage-demo.md): nvme keeps the accelerators
// busy, hdd starves them. Each picture is taken while the last epoch runs, so the live "Emulated
// storage" strip is on it.
void ScreenshotTour::storageDemo(int profileIndex) {
    static const QStringList profiles = {QStringLiteral("nvme"), QStringLiteral("hdd")};
    if (profileIndex >= profiles.size()) {
        return presentationDemo();
    }
    const QString profile = profiles[profileIndex];
    WorkloadConfig cfg = demoConfig_;
    cfg.trainio.storage = StorageEmulationSection{};
    cfg.trainio.storage.profile = profile.toStdString();
    cfg.train.epochs = 4;
    // A run of a few seconds: telemetry every 0.1 s, so that its plot has points when the picture is taken.
    cfg.trainio.telemetryIntervalS = 0.1;
    window_->workloadPage()->setConfig(cfg, QStringLiteral("preset demo, storage profile %1").arg(profile));
    window_->showPage(MainWindow::RunPageIndex);
    RunPage* run = window_->runPage();
    run->setOutputFolder(QDir(temp_.path()).filePath(QStringLiteral("storage-") + profile));
    auto whileRunning = std::make_shared<QMetaObject::Connection>();
    *whileRunning = connect(run->controller(), &RunController::epochFinished, this,
                            [this, profile, whileRunning](const EpochEvent& e) {
                                if (e.epoch + 1 < e.epochs) return;
                                disconnect(*whileRunning);
                                // The epochs' rows (AU, share from the page cache) as they arrive, the latest in view.
                                if (auto* list = window_->runPage()->findChild<QTreeView*>(QStringLiteral("invocationList")))
                                    list->scrollToBottom();
                                save(QStringLiteral("storage-") + profile);
                            });
    connect(run->controller(), &RunController::finished, this, [this, profileIndex, profile, whileRunning](const RunFinish& r) {
        disconnect(*whileRunning);
        if (!r.complete) return fail(QStringLiteral("the %1 storage run failed: %2").arg(profile, r.error));
        QTimer::singleShot(300, this, [this, profileIndex] { storageDemo(profileIndex + 1); });
    }, Qt::SingleShotConnection);
    if (!run->startInvocation()) fail(QStringLiteral("the %1 storage run did not start").arg(profile));
}

// The presentation view (F11) during a demo on the nvme profile (docs/user-guide.md, "Presenting a run"):
// the accelerators busy; then every limit dragged to an hdd's (250 MiB/s, 8 ms, 200 IOPS, 32 in flight) and
// the AU falling (and the Run page behind it); then back to nvme's with its profile button and the AU
// recovering. A picture of each, full screen.
void ScreenshotTour::presentationDemo() {
    WorkloadConfig cfg = demoConfig_;
    cfg.trainio.storage = StorageEmulationSection{};
    cfg.trainio.storage.profile = "nvme";
    cfg.train.epochs = 40;
    window_->workloadPage()->setConfig(cfg, QStringLiteral("preset demo, storage profile nvme"));
    window_->showPage(MainWindow::RunPageIndex);
    RunPage* run = window_->runPage();
    run->setOutputFolder(QDir(temp_.path()).filePath(QStringLiteral("presentation")));
    PresentationView* view = run->presentation();
    // The limits as a presenter drags them: each slider to the position of the value (as a mouse would
    // leave it), applied through the Run page's strip.
    auto dragTo = [view](double bandwidthMiBs, double latencyMs, double iops, double inflight) {
        const std::pair<PresentationView::Limit, double> limits[] = {{PresentationView::Bandwidth, bandwidthMiBs},
                                                                    {PresentationView::Latency, latencyMs},
                                                                    {PresentationView::Iops, iops},
                                                                    {PresentationView::Inflight, inflight}};
        for (const auto& [limit, value] : limits) view->slider(limit)->setValue(PresentationView::positionOf(limit, value));
    };
    auto stage = std::make_shared<int>(0);
    auto lastChange = std::make_shared<std::uint64_t>(0);
    auto epochs = std::make_shared<QMetaObject::Connection>();
    *epochs = connect(run->controller(), &RunController::epochFinished, this,
                      [this, view, dragTo, stage, lastChange, epochs](const EpochEvent& e) {
                          // nvme: 10 epochs; hdd-like: 3 (each far longer); nvme again: 15 (the bars show
                          // the last two seconds).
                          const std::uint64_t wait = *stage == 0 ? 10 : *stage == 1 ? 3 : 15;
                          if (e.epoch < *lastChange + wait) return;
                          *lastChange = e.epoch;
                          if (*stage == 0) {
                              saveWidget(view, QStringLiteral("presentation-nvme"));
                              dragTo(250, 8, 200, 32);
                          } else if (*stage == 1) {
                              saveWidget(view, QStringLiteral("presentation-hdd"));
                              // The Run page behind it, its plots marking the four changes (issue 32, item 6).
                              save(QStringLiteral("run-storage-change"));
                              // Back to nvme's exact limits in one click (issue 32, item 8), as a presenter does.
                              for (QPushButton* b : view->profileButtons())
                                  if (b->text() == QLatin1String("nvme")) b->click();
                          } else {
                              saveWidget(view, QStringLiteral("presentation-recovered"));
                              disconnect(*epochs);
                          }
                          ++*stage;
                      });
    connect(run->controller(), &RunController::finished, this, [this, view, stage, epochs](const RunFinish& r) {
        disconnect(*epochs);
        view->leave();
        if (!r.complete) return fail(QStringLiteral("the presentation run failed: %1").arg(r.error));
        if (*stage < 3) return fail(QStringLiteral("the presentation run ended before its third picture"));
        QTimer::singleShot(300, this, [this] { loaderDemo(); });
    }, Qt::SingleShotConnection);
    if (!run->startInvocation()) return fail(QStringLiteral("the presentation run did not start"));
    run->showPresentation();
}

// The nopfs loader (issue 13, docs/loader.md) on the tour's data behind a 50 MiB/s emulated device, with
// a RAM tier of half of each accelerator's share: its fields on the Workload page, then the Run page with
// the hit ratio (against Belady's bound) and stall plots after the run.
void ScreenshotTour::loaderDemo() {
    WorkloadConfig cfg = demoConfig_;
    cfg.trainio.storage = StorageEmulationSection{};
    cfg.trainio.storage.bandwidthMiBs = 50;
    cfg.train.epochs = 5;
    cfg.trainio.loader.policy = "nopfs";
    const double perAccelerator = static_cast<double>(cfg.dataset.numFilesTrain) * cfg.dataset.recordLength / 2 / 1048576.0;
    cfg.trainio.loader.ramTierMiB = perAccelerator / 2;
    WorkloadPage* page = window_->workloadPage();
    page->setConfig(cfg, QStringLiteral("preset demo, loader nopfs"));
    window_->showPage(MainWindow::WorkloadPageIndex);
    QTimer::singleShot(300, this, [this, page] {
        for (QGroupBox* box : page->findChildren<QGroupBox*>())
            if (box->title() == tr("Loader policy (TrainIO)")) {
                if (auto* scroll = page->findChild<QScrollArea*>()) scroll->ensureWidgetVisible(box, 0, 0);
                saveWidget(box, QStringLiteral("loader-settings"));
            }
        QTimer::singleShot(300, this, [this, page] {
            save(QStringLiteral("loader-workload"));
            // The RAM tier kept while the policy is switched to plain, as a user might: core refuses it.
            auto* policy = qobject_cast<QComboBox*>(page->editorFor(QStringLiteral("trainio.loader")));
            if (!policy) return fail(QStringLiteral("no editor for trainio.loader"));
            policy->setCurrentText(QStringLiteral("plain"));
            QTimer::singleShot(300, this, [this, page] {
                save(QStringLiteral("loader-invalid"));
                page->revertEdits();
                loaderRun();
            });
        });
    });
}

void ScreenshotTour::loaderRun() {
    window_->showPage(MainWindow::RunPageIndex);
    RunPage* run = window_->runPage();
    run->setOutputFolder(QDir(temp_.path()).filePath(QStringLiteral("loader-nopfs")));
    connect(run->controller(), &RunController::finished, this, [this](const RunFinish& r) {
        if (!r.complete) return fail(QStringLiteral("the nopfs run failed: %1").arg(r.error));
        QTimer::singleShot(300, this, [this] {
            save(QStringLiteral("loader-run"));
            checkpointDemo();
        });
    }, Qt::SingleShotConnection);
    if (!run->startInvocation()) fail(QStringLiteral("the nopfs run did not start"));
}

// The llama3-8b checkpointing preset (MLPerf Storage v3.0) at 1/1000 of its size on the tour's two
// accelerators: checkpoint-only, so the Run page shows the checkpoint view instead of the AU plots.
void ScreenshotTour::checkpointDemo() {
    WorkloadConfig cfg = loadPreset("llama3_8b").config;
    cfg.checkpoint.folder = QDir(temp_.path()).filePath(QStringLiteral("checkpoints/llama3-8b")).toStdString();
    cfg.checkpoint.numCheckpointsWrite = 5;
    cfg.checkpoint.numCheckpointsRead = 5;
    cfg.checkpoint.timeBetweenCheckpoints = 0;
    cfg.trainio.checkpointScale = 0.001;
    window_->workloadPage()->setConfig(cfg, QStringLiteral("preset llama3_8b, checkpoint_scale 0.001"));
    window_->showPage(MainWindow::RunPageIndex);
    RunPage* run = window_->runPage();
    run->setOutputFolder(QDir(temp_.path()).filePath(QStringLiteral("checkpoint-run")));
    connect(run->controller(), &RunController::finished, this, [this, run](const RunFinish& r) {
        if (!r.complete) return fail(QStringLiteral("the checkpoint run failed: %1").arg(r.error));
        QTimer::singleShot(300, this, [this, run] {
            save(QStringLiteral("run-checkpoint"));
            saveWidget(run->checkpointView(), QStringLiteral("checkpoint"));
            window_->workloadPage()->setConfig(demoConfig_, QStringLiteral("preset demo (resized for the screenshots)"));
            preflight();
        });
    }, Qt::SingleShotConnection);
    if (!run->startInvocation()) fail(QStringLiteral("the checkpoint run did not start"));
}

void ScreenshotTour::preflight() {
    // An output folder that would have to be created under a regular file: pre-flight refuses the run.
    const QString blocker = QDir(temp_.path()).filePath(QStringLiteral("results/not-a-folder"));
    QFile file(blocker);
    if (!file.open(QIODevice::WriteOnly) || file.write("a file, not a folder\n") < 0) return fail(QStringLiteral("cannot write %1").arg(blocker));
    file.close();
    RunPage* run = window_->runPage();
    run->setOutputFolder(blocker + QStringLiteral("/run-1"));
    connect(run->controller(), &RunController::finished, this, [this, run](const RunFinish& r) {
        if (r.preflightProblems.empty()) return fail(QStringLiteral("pre-flight let a run into %1 start").arg(r.outputDir));
        QTimer::singleShot(300, this, [this, run] {
            save(QStringLiteral("preflight"));
            for (QMessageBox* box : run->findChildren<QMessageBox*>(QStringLiteral("preflightDialog"))) box->close();
            run->setOutputFolder(benchmarkDir_); // the Run page of the later pictures shows the benchmark
            moreBenchmarks(0);
        });
    }, Qt::SingleShotConnection);
    if (!run->startInvocation()) fail(QStringLiteral("the pre-flight run did not start"));
}

// The Results picture (issue 9): one workload of the system under test with several benchmarks side by
// side — the one above on 2 accelerators, and the same workload on 1 and on 4 — and, below, a run that
// failed and one the user cancelled, greyed, with their reasons, in no statistic.
void ScreenshotTour::moreBenchmarks(int index) {
    static const int accelerators[] = {1, 4};
    if (index >= static_cast<int>(std::size(accelerators))) return failedRun();
    window_->workloadPage()->setConfig(demoConfig_, QStringLiteral("preset demo (resized for the screenshots)"));
    window_->workloadPage()->setAccelerators(static_cast<std::uint64_t>(accelerators[index]));
    window_->showPage(MainWindow::RunPageIndex);
    RunPage* run = window_->runPage();
    run->setOutputFolder(QDir(temp_.path()).filePath(QStringLiteral("results/demo-benchmark-%1acc").arg(accelerators[index])));
    run->setBenchmarkShape(3, 1);
    connect(run->controller(), &RunController::finished, this, [this, index](const RunFinish& r) {
        if (!r.complete) return fail(QStringLiteral("benchmark %1 failed: %2").arg(index + 2).arg(r.error));
        QTimer::singleShot(200, this, [this, index] { moreBenchmarks(index + 1); });
    }, Qt::SingleShotConnection);
    if (!run->startBenchmark()) fail(QStringLiteral("benchmark %1 did not start").arg(index + 2));
}

// A run that fails in its second epoch: a read of the dataset returns EIO (fault injection, as
// docs/reliability.md's TRAINIO_FAULTS does for the CLI), the way a flaky device or mount would.
void ScreenshotTour::failedRun() {
    window_->workloadPage()->setAccelerators(2);
    RunPage* run = window_->runPage();
    run->setIoBackend(std::make_shared<FaultInjectingBackend>(makePosixBackend(), parseFaultRules("read:EIO:.npz:skip=160:count=1")));
    run->setOutputFolder(QDir(temp_.path()).filePath(QStringLiteral("results/failed-run")));
    connect(run->controller(), &RunController::finished, this, [this, run](const RunFinish& r) {
        run->setIoBackend(nullptr);
        if (!r.failed()) return fail(QStringLiteral("the run meant to fail did not: %1").arg(r.error));
        QTimer::singleShot(200, this, [this] { cancelledRun(); });
    }, Qt::SingleShotConnection);
    if (!run->startInvocation()) fail(QStringLiteral("the failing run did not start"));
}

// A run the user cancels after its first epoch (the Run page's Cancel); 10 epochs, so that the cancel
// lands long before its end.
void ScreenshotTour::cancelledRun() {
    WorkloadConfig cfg = demoConfig_;
    cfg.train.epochs = 10;
    window_->workloadPage()->setConfig(cfg, QStringLiteral("preset demo (resized for the screenshots), 10 epochs"));
    window_->workloadPage()->setAccelerators(2);
    RunPage* run = window_->runPage();
    run->setOutputFolder(QDir(temp_.path()).filePath(QStringLiteral("results/cancelled-run")));
    auto afterFirstEpoch = std::make_shared<QMetaObject::Connection>();
    *afterFirstEpoch = connect(run->controller(), &RunController::epochFinished, this, [run, afterFirstEpoch](const EpochEvent&) {
        disconnect(*afterFirstEpoch);
        run->cancel();
    });
    connect(run->controller(), &RunController::finished, this, [this, run, afterFirstEpoch](const RunFinish& r) {
        disconnect(*afterFirstEpoch);
        if (!r.cancelled) return fail(QStringLiteral("the run meant to be cancelled ended otherwise: %1").arg(r.error));
        window_->workloadPage()->setConfig(demoConfig_, QStringLiteral("preset demo (resized for the screenshots)"));
        window_->workloadPage()->setAccelerators(2);
        run->setOutputFolder(benchmarkDir_);
        QTimer::singleShot(200, this, [this] { importResults(); });
    }, Qt::SingleShotConnection);
    if (!run->startInvocation()) fail(QStringLiteral("the run to cancel did not start"));
}

void ScreenshotTour::importResults() {
    ResultsLibraryLoader* loader = window_->libraryLoader();
    for (const QString& f : resultsFolders_) window_->openResultsFolder(f);
    // A folder without results, for the message the import gives then.
    const QString empty = QDir(temp_.path()).filePath(QStringLiteral("no-results-here"));
    QDir().mkpath(empty);
    window_->openResultsFolder(empty);
    window_->showPage(MainWindow::ResultsPageIndex);
    // The last of the imports started above is the one that holds every folder.
    auto waitForLibrary = std::make_shared<QMetaObject::Connection>();
    *waitForLibrary = connect(loader, &ResultsLibraryLoader::loaded, this, [this, loader, waitForLibrary] {
        if (loader->isLoading()) return;
        disconnect(*waitForLibrary);
        QTreeView* tree = window_->resultsPage()->tree();
        ResultsTreeModel* model = window_->resultsModel();
        tree->collapseAll();
        // The system under test (the tour's own runs), down to its training workload: the benchmarks side
        // by side with their numbers, the failed and the cancelled run greyed. The workload row is
        // selected: its details list every item with its verdict or reason and name the best passing one.
        QModelIndex select;
        for (int s = 0; s < model->rowCount() && !select.isValid(); ++s) {
            const QModelIndex sys = model->index(s, 0);
            if (model->data(sys).toString() != QStringLiteral("workstation-nvme")) continue;
            tree->expand(sys);
            for (int w = 0; w < model->rowCount(sys) && !select.isValid(); ++w) {
                const QModelIndex wl = model->index(w, 0, sys);
                bool benchmarks = false;
                for (int i = 0; i < model->rowCount(wl); ++i)
                    benchmarks = benchmarks || model->data(model->index(i, 0, wl), ResultsTreeModel::NodeKindRole).toInt() ==
                                                   static_cast<int>(aggregate::NodeKind::Benchmark);
                if (!benchmarks) continue;
                tree->expand(wl);
                select = wl;
            }
        }
        if (!select.isValid()) return fail(QStringLiteral("the tour's own benchmarks are not in the library"));
        tree->setCurrentIndex(select);
        tree->resizeColumnToContents(ResultsTreeModel::NameColumn);
        tree->setColumnWidth(ResultsTreeModel::NameColumn, std::min(tree->columnWidth(ResultsTreeModel::NameColumn), 430));
        tree->scrollTo(model->index(0, 0, select.parent()), QAbstractItemView::PositionAtTop);
        QTimer::singleShot(300, this, [this] {
            save(QStringLiteral("results"));
            compare();
        });
    });
    if (!loader->isLoading()) loader->reload();
}

void ScreenshotTour::compare() {
    ResultsTreeModel* model = window_->resultsModel();
    // The unet3d_h100 benchmarks of up to three published systems (different accelerator counts: per
    // accelerator by default) and one resnet50 benchmark (another workload: not comparable).
    int unet = 0, resnet = 0;
    for (int s = 0; s < model->rowCount(); ++s) {
        const QModelIndex sys = model->index(s, 0);
        for (int w = 0; w < model->rowCount(sys); ++w) {
            const QModelIndex wl = model->index(w, 0, sys);
            const QString name = model->data(wl).toString();
            const bool isUnet = name.startsWith(QLatin1String("unet3d_h100")) && unet < 3;
            const bool isResnet = name.startsWith(QLatin1String("resnet50_h100")) && resnet < 1 && unet > 0;
            if ((!isUnet && !isResnet) || model->rowCount(wl) == 0) continue;
            (isUnet ? unet : resnet) += 1;
            model->setData(model->index(0, 0, wl), Qt::Checked, Qt::CheckStateRole);
        }
    }
    window_->showPage(MainWindow::ComparePageIndex);
    QTimer::singleShot(300, this, [this] {
        save(QStringLiteral("compare"));
        window_->setTheme(MainWindow::Theme::Dark);
        QTimer::singleShot(300, this, [this] {
            save(QStringLiteral("compare-dark"));
            window_->setTheme(MainWindow::Theme::Light);
            quickStartAndHelp();
        });
    });
}

// Two workloads at once on one emulated 120 MiB/s device, each alone first (the Collocate page, issue 23):
// mid-run (the live AU of both on one axis, the shared device's limits) and at the end (what each lost).
void ScreenshotTour::collocationDemo() {
    CollocationPage* page = window_->collocationPage();
    const auto workloadFile = [this](const QString& name, std::uint64_t files, double record, double compute) {
        WorkloadConfig cfg = loadPreset("demo").config;
        cfg.dataset.dataFolder = QDir(temp_.path()).filePath(QStringLiteral("colloc-") + name).toStdString();
        cfg.dataset.format = DataFormat::Npz;
        cfg.dataset.numFilesTrain = files;
        cfg.dataset.numSamplesPerFile = 1;
        cfg.dataset.recordLength = record;
        cfg.dataset.recordLengthStdev = 0;
        cfg.reader.batchSize = 2;
        cfg.reader.readThreads = 2;
        cfg.train.epochs = 4;
        cfg.train.computationTime = ComputeTime{};
        cfg.train.computationTime.mean = compute;
        cfg.workflow.generateData = true;
        const QString file = QDir(temp_.path()).filePath(name + QStringLiteral(".yaml"));
        QFile f(file);
        if (f.open(QIODevice::WriteOnly)) f.write(QByteArray::fromStdString(toYaml(cfg)));
        return file;
    };
    page->addWorkload(QStringLiteral("unet3d_like"), workloadFile(QStringLiteral("unet3d_like"), 64, 1048576, 0.02), 2);
    page->addWorkload(QStringLiteral("resnet_like"), workloadFile(QStringLiteral("resnet_like"), 256, 131072, 0.004), 2, 0.5);
    page->setSharedProfile(QStringLiteral("-"));
    page->setBandwidthMiBs(120);
    page->setRounds(0, true);
    page->setOutputFolder(QDir(temp_.path()).filePath(QStringLiteral("collocation")));
    window_->showPage(MainWindow::CollocatePageIndex);
    connect(page, &CollocationPage::finished, this, [this, page](bool ok, const QString&) {
        if (!ok) return fail(QStringLiteral("the collocation did not complete"));
        // At the end: once the results library has loaded the folder and the summary says what it compares.
        auto* wait = new QTimer(this);
        auto* clock = new QElapsedTimer;
        clock->start();
        connect(wait, &QTimer::timeout, this, [this, page, wait, clock] {
            if (!page->summaryText().contains(QStringLiteral("In the results library")) && clock->elapsed() < 20000) return;
            wait->deleteLater();
            delete clock;
            save(QStringLiteral("collocation-done"));
            QTextStream(stdout) << outputDir_ << '\n';
            emit finished(exitCode_);
        });
        wait->start(100);
    }, Qt::SingleShotConnection);
    if (!page->start()) return fail(QStringLiteral("the collocation did not start"));
    // Mid-run: once both workloads of the together part have plotted for a while.
    auto* poll = new QTimer(this);
    connect(poll, &QTimer::timeout, this, [this, page, poll] {
        if (page->pointCount(0) < 12 || page->pointCount(1) < 12) return;
        poll->deleteLater();
        save(QStringLiteral("collocation"));
    });
    poll->start(100);
}

void ScreenshotTour::save(const QString& name) {
    // Queued replots have not necessarily happened yet: draw every plot now.
    for (QCustomPlot* p : window_->findChildren<QCustomPlot*>()) p->replot(QCustomPlot::rpImmediateRefresh);
    const QString path = QDir(outputDir_).filePath(name + QStringLiteral(".png"));
    // grab() draws the window only: an open dialog (a separate window) is painted over it where it is.
    QPixmap picture = window_->grab();
    QPainter painter(&picture);
    for (QDialog* d : window_->findChildren<QDialog*>())
        if (d->isVisible()) painter.drawPixmap(window_->mapFromGlobal(d->mapToGlobal(QPoint(0, 0))), d->grab());
    painter.end();
    if (!picture.save(path)) fail(QStringLiteral("cannot write %1").arg(path));
}

void ScreenshotTour::saveWidget(QWidget* widget, const QString& name) {
    const QString path = QDir(outputDir_).filePath(name + QStringLiteral(".png"));
    if (!widget->grab().save(path)) fail(QStringLiteral("cannot write %1").arg(path));
}

void ScreenshotTour::fail(const QString& why) {
    QTextStream(stderr) << "trainio --screenshot: " << why << '\n';
    exitCode_ = 1;
    emit finished(exitCode_);
}

} // namespace trainio::ui
