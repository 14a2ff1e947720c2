#include "main_window.h"

#include "widgets/recent_list.h"

#include "run/collocation_page.h"
#include "library/compare_page.h"
#include "workload/data_page.h"
#include "widgets/help_window.h"
#include "plots/live_plots.h"
#include "run/mpi_controls.h"
#include "plots/plot_export.h"
#include "workload/quick_start_dialog.h"
#include "report/report_export_dialog.h"
#include "report/report_exporter.h"
#include "report/report_writer.h"
#include "library/results_library_loader.h"
#include "library/results_page.h"
#include "models/results_tree_model.h"
#include "run/run_page.h"
#include "run/presentation_view.h"
#include "run/race_view.h"
#include "widgets/file_dialogs.h"
#include "library/sweep_view.h"
#include "workload/trace_import_panel.h"
#include "widgets/wheel_guard.h"
#include "workload/workload_page.h"

#include "util/errors.h"

#include <qcustomplot.h>

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>
#include <QPainter>
#include <QPixmap>
#include <QStyleFactory>
#include <QTimer>

#include <memory>
#include <QUrl>

#include <set>
#include <utility>

namespace trainio::ui {

namespace {

constexpr int kMaxRecent = 8;

QPalette darkPalette() {
    QPalette p;
    const QColor window(0x2b2b2b), base(0x1e1e1e), text(0xe6e6e6), disabled(0x808080), highlight(0x2f6fb0);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x262626));
    p.setColor(QPalette::ToolTipBase, QColor(0x3a3a3a));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, disabled);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(0x353535));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::red);
    p.setColor(QPalette::Link, QColor(0x6fb0ff));
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Mid, QColor(0x444444));
    p.setColor(QPalette::Dark, QColor(0x191919));
    p.setColor(QPalette::Light, QColor(0x4a4a4a));
    for (auto role : {QPalette::Text, QPalette::WindowText, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    return p;
}

// The style's play icon is a black glyph that vanishes on the dark palette; a coloured triangle reads
// on both.
QIcon runPageIcon() {
    QPixmap pm(48, 48);
    pm.fill(Qt::transparent);
    QPainter painter(&pm);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(Qt::NoPen);
    painter.setBrush(QColor(0x2e9e4f));
    const QPointF triangle[] = {{12, 8}, {40, 24}, {12, 40}};
    painter.drawPolygon(triangle, 3);
    return QIcon(pm);
}

QPalette lightPalette() {
    // QStyleFactory::create hands over ownership; the style is only needed for its palette.
    const std::unique_ptr<QStyle> fusion(QStyleFactory::create(QStringLiteral("Fusion")));
    return fusion ? fusion->standardPalette() : QApplication::palette();
}

} // namespace

struct MainWindow::ReportSelection {
    std::shared_ptr<const aggregate::ResultsLibrary> library; // the in-memory library: nothing is imported again
    std::vector<const aggregate::LibraryNode*> items;         // benchmarks / invocations, report order
    QString what; // for messages: "3 checked items" / "the whole library"
};

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      notifications_(new NotificationPanel(this)),
      loader_(new ResultsLibraryLoader(this)),
      model_(new ResultsTreeModel(this)) {
    setWindowTitle(tr("TrainIO"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/trainio.svg")));
    setAcceptDrops(true);
    systemPalette_ = QApplication::palette();
    systemStyle_ = QApplication::style()->name();
    WheelGuard::install();

    workload_ = new WorkloadPage(this);
    data_ = new DataPage(this);
    run_ = new RunPage(this);
    results_ = new ResultsPage(loader_, model_, this);
    compare_ = new ComparePage(this);
    collocate_ = new CollocationPage(this);

    sidebar_ = new QListWidget(this);
    sidebar_->setObjectName(QStringLiteral("pageList"));
    sidebar_->setIconSize(QSize(24, 24));
    sidebar_->setFixedWidth(150);
    const std::pair<QString, QStyle::StandardPixmap> pages[] = {
        {tr("Workload"), QStyle::SP_FileDialogDetailedView}, {tr("Data"), QStyle::SP_DriveHDIcon},
        {tr("Run"), QStyle::SP_MediaPlay}, {tr("Results"), QStyle::SP_DirIcon}, {tr("Compare"), QStyle::SP_FileDialogContentsView},
        {tr("Collocate"), QStyle::SP_FileDialogListView}};
    for (int i = 0; i < PageCount; ++i) {
        const QIcon icon = i == RunPageIndex ? runPageIcon() : style()->standardIcon(pages[i].second);
        auto* item = new QListWidgetItem(icon, pages[i].first, sidebar_);
        item->setToolTip(tr("%1 (Ctrl+%2)").arg(pages[i].first).arg(i + 1));
        item->setSizeHint(QSize(140, 40));
    }
    stack_ = new QStackedWidget(this);
    // Each page in a scroll area of its own (issue 32, item 5): a stack takes the largest minimum of all its
    // pages, so one wide page held the window wider than a 1280-px screen; now a page larger than the
    // window scrolls, nothing is pushed off-screen and nothing is squeezed under its minimum into overprint.
    for (QWidget* w : std::initializer_list<QWidget*>{workload_, data_, run_, results_, compare_, collocate_}) {
        auto* area = new QScrollArea(stack_);
        area->setObjectName(w->objectName().isEmpty() ? QString() : w->objectName() + QStringLiteral("Scroll"));
        area->setFrameShape(QFrame::NoFrame);
        area->setWidgetResizable(true);
        area->setWidget(w);
        stack_->addWidget(area);
    }
    auto* central = new QWidget(this);
    auto* row = new QHBoxLayout(central);
    row->setContentsMargins(4, 4, 4, 4);
    row->addWidget(sidebar_);
    row->addWidget(stack_, 1);
    setCentralWidget(central);

    auto* dock = new QDockWidget(tr("Messages"), this);
    dock->setObjectName(QStringLiteral("messagesDock"));
    dock->setWidget(notifications_);
    addDockWidget(Qt::BottomDockWidgetArea, dock);
    resizeDocks({dock}, {110}, Qt::Vertical);

    connect(sidebar_, &QListWidget::currentRowChanged, stack_, &QStackedWidget::setCurrentIndex);
    connect(workload_, &WorkloadPage::notify, notifications_, &NotificationPanel::post);
    connect(data_, &DataPage::notify, notifications_, &NotificationPanel::post);
    connect(run_, &RunPage::notify, notifications_, &NotificationPanel::post);
    connect(collocate_, &CollocationPage::notify, notifications_, &NotificationPanel::post);
    // A collocation runs on the system the Run page names (asked once, as for a run): filed under it.
    collocate_->setSystemSource([this] { return run_->systemForRun(); });
    connect(results_, &ResultsPage::notify, notifications_, &NotificationPanel::post);
    connect(notifications_, &NotificationPanel::posted, this, [this](Severity s, const QString& text) {
        statusBar()->showMessage(text.section(QLatin1Char('\n'), 0, 0), s == Severity::Error ? 15000 : 6000);
    });
    connect(workload_, &WorkloadPage::configChanged, this, &MainWindow::syncWorkload);
    // With the Run page's MPI group on, the run's accelerators are hosts × processes × per-process ones.
    connect(run_, &RunPage::acceleratorsDerived, workload_, &WorkloadPage::setDerivedAccelerators);
    connect(workload_, &WorkloadPage::fileOpened, this, [this](const QString& p) { rememberRecent(QStringLiteral("recent/configs"), p); });
    connect(workload_, &WorkloadPage::shrinkRequested, this, &MainWindow::shrinkWorkloadToMachine);
    traceImport_ = new TraceImportPanel(workload_, workload_);
    connect(traceImport_, &TraceImportPanel::notify, notifications_, &NotificationPanel::post);
    workloadAutosave_ = new QTimer(this);
    workloadAutosave_->setObjectName(QStringLiteral("workloadAutosave"));
    workloadAutosave_->setSingleShot(true);
    workloadAutosave_->setInterval(1000);
    connect(workloadAutosave_, &QTimer::timeout, this, [this] {
        QSettings s;
        saveWorkloadSession(s);
    });
    connect(workload_, &WorkloadPage::configChanged, workloadAutosave_, qOverload<>(&QTimer::start));
    connect(run_, &RunPage::resultsWritten, this, &MainWindow::addResultsFolder);
    // A collocation's folder (its workloads' invocation or benchmark folders) joins the library as the Run page's do.
    connect(collocate_, &CollocationPage::resultsWritten, this, [this](const QString& dir) { addResultsFolder(dir); });
    connect(loader_, &ResultsLibraryLoader::loaded, model_, &ResultsTreeModel::setLibrary);
    connect(loader_, &ResultsLibraryLoader::loaded, collocate_, &CollocationPage::setLibrary);
    connect(loader_, &ResultsLibraryLoader::foldersChanged, this, [this](const QStringList& folders) {
        for (const QString& f : folders) rememberRecent(QStringLiteral("recent/results"), f);
    });
    connect(model_, &ResultsTreeModel::checkedChanged, this, &MainWindow::updateCompare);
    // The checked items come back after a restart (QSettings "library/checked").
    model_->restoreChecked(QSettings().value(QStringLiteral("library/checked")).toStringList());
    connect(model_, &ResultsTreeModel::checkedChanged, this,
            [this] { QSettings().setValue(QStringLiteral("library/checked"), model_->checkedKeys()); });
    connect(model_, &QAbstractItemModel::modelReset, this, &MainWindow::updateCompare);

    buildMenus();
    sidebar_->setCurrentRow(0);
    if (run_->mpiControls()->isChecked()) // remembered from the last session
        workload_->setDerivedAccelerators(true, run_->mpiControls()->totalAccelerators());
    syncWorkload();
    resize(1440, 900);
    fitToScreen();
}

void MainWindow::fitToScreen() {
    if (isMaximized() || isFullScreen()) return;
    QScreen* s = screen();
    if (!s) return;
    const QRect room = s->availableGeometry();
    // The window manager's frame, where there is one yet (none before the first show).
    const QRect inner = geometry();
    const QRect outer = frameGeometry();
    const QMargins frame(inner.left() - outer.left(), inner.top() - outer.top(), outer.right() - inner.right(),
                         outer.bottom() - inner.bottom());
    const QSize size = inner.size().boundedTo(room.size().shrunkBy(frame));
    QPoint at = inner.topLeft();
    at.setX(std::clamp(at.x(), room.left() + frame.left(), std::max(room.left() + frame.left(), room.right() + 1 - frame.right() - size.width())));
    at.setY(std::clamp(at.y(), room.top() + frame.top(), std::max(room.top() + frame.top(), room.bottom() + 1 - frame.bottom() - size.height())));
    if (QRect(at, size) != inner) setGeometry(QRect(at, size));
}

void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    fitToScreen();
}

MainWindow::~MainWindow() = default;

void MainWindow::addResultsFolder(const QString& dir, std::shared_ptr<const store::WrittenFiles> written) {
    QString why;
    if (written) {
        if (!loader_->addWritten(dir, std::move(written), &why)) notifications_->post(Severity::Warning, why);
    } else if (loader_->folderHolding(dir).isEmpty() && !loader_->addFolder(dir, &why)) {
        notifications_->post(Severity::Warning, why);
    } else {
        loader_->reload();
    }
}

QWidget* MainWindow::pageWidget(Page page) const {
    auto* area = qobject_cast<QScrollArea*>(stack_->widget(page));
    return area ? area->widget() : nullptr;
}
int MainWindow::currentPage() const { return stack_->currentIndex(); }
void MainWindow::showPage(int page) { sidebar_->setCurrentRow(std::clamp(page, 0, PageCount - 1)); }

QAction* MainWindow::action(const QString& objectName) const { return findChild<QAction*>(objectName); }

void MainWindow::buildMenus() {
    auto make = [this](QMenu* menu, const QString& name, const QString& text, QList<QKeySequence> keys,
                       auto&& slot, QStyle::StandardPixmap icon = QStyle::SP_CustomBase) {
        auto* a = new QAction(text, this);
        a->setObjectName(name);
        a->setShortcuts(keys);
        if (icon != QStyle::SP_CustomBase) a->setIcon(style()->standardIcon(icon));
        connect(a, &QAction::triggered, this, slot);
        menu->addAction(a);
        addAction(a); // shortcuts work whichever page has focus
        return a;
    };

    QMenu* file = menuBar()->addMenu(tr("&File"));
    make(file, QStringLiteral("openConfig"), tr("&Open workload…"), {QKeySequence::Open}, [this] { workload_->openWithDialog(); }, QStyle::SP_DialogOpenButton);
    make(file, QStringLiteral("saveConfig"), tr("&Save workload"), {QKeySequence::Save}, [this] { workload_->saveWithDialog(); }, QStyle::SP_DialogSaveButton);
    make(file, QStringLiteral("saveConfigAs"), tr("Save workload &as…"), {QKeySequence(tr("Ctrl+Shift+S"))}, [this] { workload_->saveAsWithDialog(); });
    recentConfigs_ = file->addMenu(tr("Recent workloads"));
    // A captured job's trace (trainio-cli capture) as a workload, its observation report beside the form.
    make(file, QStringLiteral("importTrace"), tr("&Import a trace…"), {}, [this] {
        showPage(WorkloadPageIndex);
        traceImport_->importWithDialog();
    });
    file->addSeparator();
    make(file, QStringLiteral("addResults"), tr("&Add results folder…"), {QKeySequence(tr("Ctrl+Shift+O"))}, [this] { results_->addFolderWithDialog(); }, QStyle::SP_DirOpenIcon);
    recentResults_ = file->addMenu(tr("Recent results folders"));
    make(file, QStringLiteral("openSweep"), tr("Open s&weep…"), {}, [this] {
        const QString dir = existingFolder(this, QStringLiteral("sweep"), tr("Sweep folder (holds sweep.json)"));
        if (!dir.isEmpty()) showSweep(dir);
    });
    make(file, QStringLiteral("replay"), tr("&Replay a recorded run…"), {}, [this] {
        const QString dir = existingFolder(this, QStringLiteral("replay"), tr("A recorded run to replay (its folder, or its benchmark's)"));
        QString error;
        if (!dir.isEmpty() && !replay({dir}, 1.0, &error)) notifications_->post(Severity::Error, error);
    });
    file->addSeparator();
    make(file, QStringLiteral("exportReport"), tr("&Export report (PDF)…"), {QKeySequence(tr("Ctrl+E"))}, [this] {
        const ReportSelection sel = reportSelection();
        if (sel.items.empty()) {
            notifications_->post(Severity::Error, tr("The results library is empty: add a results folder first."));
            return;
        }
        std::unique_ptr<ReportExportDialog> dialog(makeReportDialog(sel));
        if (dialog->exec() != QDialog::Accepted) return;
        dialog->remember();
        const QString path = saveFileName(this, QStringLiteral("report"), tr("Export report"), QStringLiteral("trainio-report.pdf"), tr("PDF (*.pdf)"));
        if (!path.isEmpty()) exportReport(path, dialog->options());
    });
    make(file, QStringLiteral("exportPlot"), tr("Export current &plot…"), {QKeySequence(tr("Ctrl+Shift+P"))}, [this] {
        const QString path = saveFileName(this, QStringLiteral("plot"), tr("Export plot"), QStringLiteral("trainio-plot.svg"),
                                          tr("SVG (*.svg);;PNG (*.png);;PDF (*.pdf)"));
        if (!path.isEmpty()) exportCurrentPlot(path);
    });
    make(file, QStringLiteral("exportData"), tr("Export &data (CSV / JSON)…"), {}, [this] {
        const QString path = saveFileName(this, QStringLiteral("data"), tr("Export data"), QStringLiteral("trainio-aggregate.json"),
                                          tr("JSON (*.json);;CSV (*.csv)"));
        if (!path.isEmpty()) exportData(path);
    });
    file->addSeparator();
    make(file, QStringLiteral("resultsRoot"), tr("Results root folder…"), {}, [this] { chooseResultsRoot(); });
    file->addSeparator();
    // Ctrl+Q on every platform (Qt's Quit binding is empty where the platform theme follows Windows').
    QList<QKeySequence> quitKeys = QKeySequence::keyBindings(QKeySequence::Quit);
    if (!quitKeys.contains(QKeySequence(tr("Ctrl+Q")))) quitKeys << QKeySequence(tr("Ctrl+Q"));
    make(file, QStringLiteral("quit"), tr("&Quit"), quitKeys, [this] { close(); });

    QMenu* runMenu = menuBar()->addMenu(tr("&Run"));
    make(runMenu, QStringLiteral("runOnce"), tr("&Run once"), {QKeySequence(tr("Ctrl+R"))}, [this] {
        showPage(RunPageIndex);
        run_->startInvocation();
    }, QStyle::SP_MediaPlay);
    make(runMenu, QStringLiteral("runBenchmark"), tr("&Benchmark"), {QKeySequence(tr("Ctrl+B"))}, [this] {
        showPage(RunPageIndex);
        run_->startBenchmark();
    }, QStyle::SP_MediaSeekForward);
    make(runMenu, QStringLiteral("cancel"), tr("&Cancel"), {QKeySequence(Qt::Key_Escape), QKeySequence(tr("Ctrl+."))}, [this] {
        run_->cancel();
        data_->cancel();
    }, QStyle::SP_MediaStop);
    runMenu->addSeparator();
    make(runMenu, QStringLiteral("generateData"), tr("&Generate dataset"), {QKeySequence(tr("Ctrl+G"))}, [this] {
        if (!workloadFieldsAccepted()) return;
        showPage(DataPageIndex);
        data_->generate();
    });
    make(runMenu, QStringLiteral("verifyData"), tr("&Verify dataset"), {}, [this] {
        showPage(DataPageIndex);
        data_->verify();
    });

    QMenu* view = menuBar()->addMenu(tr("&View"));
    const QString names[] = {tr("&Workload"), tr("&Data"), tr("R&un"), tr("&Results"), tr("&Compare"), tr("C&ollocate")};
    for (int i = 0; i < PageCount; ++i)
        make(view, QStringLiteral("page%1").arg(i + 1), names[i], {QKeySequence(QStringLiteral("Ctrl+%1").arg(i + 1))}, [this, i] { showPage(i); });
    view->addSeparator();
    // The run full screen for an audience (RunPage::presentation()); Esc or F11 there comes back.
    make(view, QStringLiteral("presentation"), tr("&Presentation view"), {QKeySequence(Qt::Key_F11)}, [this] {
        showPage(RunPageIndex);
        if (run_->presentation()->isVisible()) run_->presentation()->leave(); // F11 toggles
        else run_->showPresentation();
    });
    view->addSeparator();
    QMenu* themeMenu = view->addMenu(tr("Theme"));
    auto* group = new QActionGroup(this);
    const std::pair<QString, Theme> themes[] = {{tr("System"), Theme::System}, {tr("Light"), Theme::Light}, {tr("Dark"), Theme::Dark}};
    for (const auto& [label, theme] : themes) {
        QAction* a = make(themeMenu, QStringLiteral("theme%1").arg(label), label, {}, [this, t = theme] { setTheme(t); });
        a->setCheckable(true);
        a->setChecked(theme == Theme::System);
        group->addAction(a);
    }

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    buildWorkloadActions(file, help);
    make(help, QStringLiteral("about"), tr("About TrainIO"), {}, [this] {
        auto* box = new QMessageBox(QMessageBox::Information, tr("About TrainIO"),
                                    tr("<b>TrainIO %1</b><br/>Deep-learning training I/O workbench: emulates training reads and "
                                       "measures accelerator utilization and bandwidth exactly as DLIO and MLPerf Storage do.")
                                        .arg(QApplication::applicationVersion()),
                                    QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    });
}

void MainWindow::syncWorkload() {
    data_->setWorkload(workload_->config());
    run_->setWorkload(workload_->config(), workload_->accelerators(), workload_->semantics(), workload_->isValid());
}

void MainWindow::updateCompare() {
    const auto lib = model_->library();
    if (!lib) return;
    compare_->setItems(lib, compareItems(*lib, model_->checkedNodes()));
}

MainWindow::ReportSelection MainWindow::reportSelection() const {
    ReportSelection sel;
    sel.library = model_->library();
    if (!sel.library) return sel;
    const auto checked = model_->checkedNodes();
    sel.items = reportItems(*sel.library, checked);
    sel.what = checked.empty() ? tr("the whole library") : tr("%n checked item(s)", nullptr, static_cast<int>(sel.items.size()));
    return sel;
}

ReportExportDialog* MainWindow::makeReportDialog(const ReportSelection& sel) {
    QStringList names;
    std::set<std::int64_t> accelerators;
    for (const auto* n : sel.items) {
        names << QString::fromStdString(n->itemName.empty() ? n->label : n->itemName);
        accelerators.insert(n->accelerators);
    }
    return new ReportExportDialog(names, accelerators.size() > 1, this);
}

ReportExporter* MainWindow::exportReport(const QString& pdfPath) {
    const ReportSelection sel = reportSelection();
    if (sel.items.empty()) return exportReport(pdfPath, ReportOptions{});
    const std::unique_ptr<ReportExportDialog> remembered(makeReportDialog(sel));
    return exportReport(pdfPath, remembered->options());
}

ReportExporter* MainWindow::exportReport(const QString& pdfPath, const ReportOptions& options) {
    const ReportSelection sel = reportSelection();
    if (sel.items.empty()) {
        notifications_->post(Severity::Error, tr("The results library is empty: add a results folder first."));
        return nullptr;
    }
    auto* exporter = new ReportExporter(sel.library, sel.items, options, pdfPath, this);
    connect(exporter, &ReportExporter::finished, this, [this, exporter, what = sel.what, pdfPath](bool ok, const QString& error) {
        if (ok) notifications_->post(Severity::Info, tr("Report of %1 written to %2").arg(what, pdfPath));
        else if (exporter->wasCancelled()) notifications_->post(Severity::Warning, error);
        else notifications_->post(Severity::Error, tr("Report not written: %1").arg(error));
        exporter->deleteLater();
    });
    exporter->start();
    return exporter;
}

bool MainWindow::exportCurrentPlot(const QString& path) {
    QCustomPlot* plot = nullptr;
    if (currentPage() == ComparePageIndex) plot = compare_->currentPlot();
    else {
        for (int i = 0; i < LivePlots::PlotCount && !plot; ++i)
            if (run_->plots()->plot(static_cast<LivePlots::PlotId>(i))->underMouse()) plot = run_->plots()->plot(static_cast<LivePlots::PlotId>(i));
        if (!plot) plot = run_->plots()->plot(LivePlots::EpochAu);
    }
    QString error;
    if (!savePlot(plot, path, &error)) {
        notifications_->post(Severity::Error, error);
        return false;
    }
    notifications_->post(Severity::Info, tr("Plot saved to %1").arg(path));
    return true;
}

bool MainWindow::exportData(const QString& path) {
    const ReportSelection sel = reportSelection();
    if (sel.items.empty()) {
        notifications_->post(Severity::Error, tr("The results library is empty: add a results folder first."));
        return false;
    }
    QString error;
    const bool csv = QFileInfo(path).suffix().compare(QLatin1String("csv"), Qt::CaseInsensitive) == 0;
    const bool ok = csv ? exportItemsCsv(*sel.library, sel.items, path, &error) : exportItemsJson(*sel.library, sel.items, path, &error);
    if (ok) notifications_->post(Severity::Info, tr("Aggregate of %1 written to %2").arg(sel.what, path));
    else notifications_->post(Severity::Error, tr("Export failed: %1").arg(error));
    return ok;
}

bool MainWindow::openResultsFolder(const QString& path) { return results_->addFolder(path); }

bool MainWindow::replay(const QStringList& folders, double speed, QString* error) {
    RaceView* race = run_->raceView();
    race->clear();
    race->setSpeed(speed);
    for (const QString& folder : folders)
        if (!race->addReplayFolder(folder, error)) return false;
    race->start();
    race->present();
    return true;
}

void MainWindow::setTheme(Theme theme) {
    theme_ = theme;
    switch (theme) {
    case Theme::System:
        QApplication::setStyle(systemStyle_);
        QApplication::setPalette(systemPalette_);
        break;
    case Theme::Light:
        QApplication::setStyle(QStringLiteral("Fusion"));
        QApplication::setPalette(lightPalette());
        break;
    case Theme::Dark:
        QApplication::setStyle(QStringLiteral("Fusion"));
        QApplication::setPalette(darkPalette());
        break;
    }
    const QString name = theme == Theme::Dark ? QStringLiteral("Dark") : theme == Theme::Light ? QStringLiteral("Light") : QStringLiteral("System");
    if (QAction* a = action(QStringLiteral("theme") + name)) a->setChecked(true);
    QSettings().setValue(QStringLiteral("ui/theme"), name);
}

void MainWindow::rememberRecent(const QString& key, const QString& path) {
    QSettings s;
    pushRecent(s, key, path, kMaxRecent);
    rebuildRecentMenus();
}

void MainWindow::rebuildRecentMenus() {
    QSettings s;
    recentConfigs_->clear();
    for (const QString& p : s.value(QStringLiteral("recent/configs")).toStringList())
        recentConfigs_->addAction(p, this, [this, p] { workload_->requestOpenFile(p); });
    recentConfigs_->setEnabled(!recentConfigs_->isEmpty());
    recentResults_->clear();
    for (const QString& p : s.value(QStringLiteral("recent/results")).toStringList())
        recentResults_->addAction(p, this, [this, p] {
            showPage(ResultsPageIndex);
            results_->addFolder(p);
        });
    recentResults_->setEnabled(!recentResults_->isEmpty());
}

void MainWindow::chooseResultsRoot() {
    QSettings s;
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Results root folder"), s.value(QStringLiteral("run/resultsRoot")).toString());
    if (dir.isEmpty()) return;
    s.setValue(QStringLiteral("run/resultsRoot"), dir);
    run_->setResultsRoot(dir);
    collocate_->setResultsRoot(dir);
}

void MainWindow::restoreSession() {
    QSettings s;
    restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
    fitToScreen(); // saved on a larger screen, perhaps
    restoreState(s.value(QStringLiteral("window/state")).toByteArray());
    const QString themeName = s.value(QStringLiteral("ui/theme"), QStringLiteral("System")).toString();
    setTheme(themeName == QLatin1String("Dark") ? Theme::Dark : themeName == QLatin1String("Light") ? Theme::Light : Theme::System);
    QString root = s.value(QStringLiteral("run/resultsRoot")).toString();
    if (root.isEmpty()) root = trainioDataPath(QStringLiteral("results"));
    run_->setResultsRoot(root);
    collocate_->setResultsRoot(root);
    restoreWorkloadSession(s);
    loader_->restore();
    rebuildRecentMenus();
    showPage(s.value(QStringLiteral("window/page"), 0).toInt());
    if (!s.value(QStringLiteral("ui/quickStartShown")).toBool()) {
        s.setValue(QStringLiteral("ui/quickStartShown"), true);
        // Once the event loop runs, so that it opens over the shown window rather than before it.
        QTimer::singleShot(0, this, [this] { showQuickStart(); });
    }
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!confirmUnsavedWorkload(event)) return;
    // A run in progress: the Run page asks, and closes the window again once the engine has stopped.
    // Cancelled there, quitting is off: the workload's edits stay as they are, unsaved.
    if (!run_->confirmClose([this] { close(); }, [this] { quitDiscardsWorkloadEdits_ = false; })) {
        event->ignore();
        return;
    }
    // Only now that the window closes are discarded edits dropped, so the next session starts without them.
    if (std::exchange(quitDiscardsWorkloadEdits_, false) && workload_->isModified()) workload_->revertEdits();
    QSettings s;
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState());
    s.setValue(QStringLiteral("window/page"), currentPage());
    saveWorkloadSession(s);
    loader_->save();
    event->accept();
}

void MainWindow::buildWorkloadActions(QMenu* fileMenu, QMenu* helpMenu) {
    auto* shrink = new QAction(tr("Shrink workload to fit this machine"), this);
    shrink->setObjectName(QStringLiteral("shrinkToFit"));
    shrink->setToolTip(tr("Fewer training files so that the dataset fits this machine and an epoch takes about a minute"));
    connect(shrink, &QAction::triggered, this, &MainWindow::shrinkWorkloadToMachine);
    // After "Save workload as…": it edits the workload.
    const QList<QAction*> fileActions = fileMenu->actions();
    fileMenu->insertAction(fileActions.size() > 3 ? fileActions.at(3) : nullptr, shrink);

    auto* guide = new QAction(tr("User guide"), this);
    guide->setObjectName(QStringLiteral("userGuide"));
    QList<QKeySequence> keys = QKeySequence::keyBindings(QKeySequence::HelpContents);
    if (!keys.contains(QKeySequence(Qt::Key_F1))) keys << QKeySequence(Qt::Key_F1); // F1 on every platform
    guide->setShortcuts(keys);
    connect(guide, &QAction::triggered, this, [this] { showHelp(); });
    helpMenu->addAction(guide);
    addAction(guide); // F1 works whichever page has focus
    auto* quick = new QAction(tr("Quick start…"), this);
    quick->setObjectName(QStringLiteral("quickStartAction"));
    connect(quick, &QAction::triggered, this, [this] { showQuickStart(); });
    helpMenu->addAction(quick);
}

HelpWindow* MainWindow::showHelp(const QString& document) {
    if (!help_) help_ = new HelpWindow(this);
    if (!document.isEmpty()) help_->showDocument(document);
    help_->show();
    help_->raise();
    help_->activateWindow();
    return help_;
}

SweepDialog* MainWindow::showSweep(const QString& folder) {
    try {
        auto* dialog = new SweepDialog(store::readSweepJson(folder.toStdString()), this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
        // Its trial folders are ordinary results: the library shows them beside it.
        if (loader_->folderHolding(folder).isEmpty()) openResultsFolder(folder);
        return dialog;
    } catch (const InputError& e) {
        notifications_->post(Severity::Error, tr("Sweep: %1").arg(QString::fromUtf8(e.what())));
        return nullptr;
    }
}

QuickStartDialog* MainWindow::showQuickStart() {
    if (!quickStart_) {
        quickStart_ = new QuickStartDialog(this);
        connect(quickStart_, &QuickStartDialog::demoRequested, this, [this] {
            workload_->requestPreset(QStringLiteral("demo"));
            showPage(WorkloadPageIndex);
        });
        connect(quickStart_, &QuickStartDialog::shrinkRequested, this, &MainWindow::shrinkWorkloadToMachine);
        connect(quickStart_, &QuickStartDialog::guideRequested, this, [this] { showHelp(); });
    }
    quickStart_->show();
    quickStart_->raise();
    return quickStart_;
}

void MainWindow::shrinkWorkloadToMachine() {
    const ShrinkResult r = workload_->shrinkToFitThisMachine();
    showPage(WorkloadPageIndex);
    if (quickStart_) quickStart_->showOutcome(QString::fromStdString(r.summary));
}

void MainWindow::restoreWorkloadSession(const QSettings& s) {
    if (!workload_->restoreSession(s)) {
        // Sessions of older versions remembered only where the workload came from.
        const QString last = s.value(QStringLiteral("workload/last")).toString();
        if (last.startsWith(QLatin1String("preset:"))) workload_->loadPresetNamed(last.mid(7));
        else if (last.startsWith(QLatin1String("file:")) && QFileInfo::exists(last.mid(5))) workload_->openFile(last.mid(5));
        workload_->setAccelerators(static_cast<std::uint64_t>(std::max(1, s.value(QStringLiteral("workload/accelerators"), 1).toInt())));
    }
}

void MainWindow::saveWorkloadSession(QSettings& s) { workload_->saveSession(s); }

bool MainWindow::workloadFieldsAccepted() {
    const auto errors = workload_->fieldErrors();
    if (errors.isEmpty()) return true;
    // The last accepted values are not what the form shows: nothing is generated from them.
    notifications_->post(Severity::Error, tr("Fix the workload first: %1").arg(errors.begin().value()));
    showPage(WorkloadPageIndex);
    return false;
}

bool MainWindow::confirmUnsavedWorkload(QCloseEvent* event) {
    if (quitDiscardsWorkloadEdits_ || !workload_->isModified()) return true;
    event->ignore();
    // Saved or discarded, the form is left as it is here: a later question (a run in progress) may still
    // be cancelled, and then nothing may have changed. closeEvent drops the edits once the window closes.
    workload_->confirmDiscard(tr("quitting"), [this] {
        quitDiscardsWorkloadEdits_ = true;
        close();
    });
    return false;
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    bool any = false;
    for (const QUrl& url : event->mimeData()->urls()) {
        if (!url.isLocalFile()) continue;
        const QString path = url.toLocalFile();
        const QString suffix = QFileInfo(path).suffix().toLower();
        if (QFileInfo(path).isFile() && (suffix == QLatin1String("yaml") || suffix == QLatin1String("yml"))) {
            workload_->requestOpenFile(path);
            showPage(WorkloadPageIndex);
        } else {
            any = results_->addFolder(path) || any;
        }
    }
    if (any) showPage(ResultsPageIndex);
    event->acceptProposedAction();
}

} // namespace trainio::ui
