#include "run/collocation_page.h"
#include "run/interference_chart.h"

#include "widgets/notification_panel.h"
#include "plots/plot_theme.h"
#include "run/mpi_controls.h"
#include "run/run_controller.h"
#include "run/storage_controls.h"

#include "config/config_loader.h"
#include "dist/mpi_launch.h"
#include "engine/engine_observer.h"
#include "session/mpi_job.h"
#include "store/collocation_file.h"
#include "store/run_folder.h"
#include "telemetry/gpu_query.h"
#include "io/storage_profile.h"
#include "util/clock.h"
#include "util/errors.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMetaObject>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>
#include <unistd.h>
#include <deque>
#include <mutex>

namespace trainio::ui {
namespace {

using Severity = NotificationPanel::Severity;

enum Column { NameCol, ConfigCol, AccelCol, StartCol, ColumnCount };

// YAML's double-quoted scalar: the plan's values are written so that any name or path reads back as written.
QString quoted(const QString& s) {
    QString out = QStringLiteral("\"");
    for (QChar c : s) {
        if (c == QLatin1Char('"') || c == QLatin1Char('\\')) out += QLatin1Char('\\');
        out += c;
    }
    return out + QLatin1Char('"');
}

// A workload name the plan accepts ([A-Za-z0-9_-]) from a preset or file name.
QString folderName(const QString& s) {
    return QString(s).replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_-]")), QStringLiteral("_"));
}

} // namespace

// What the worker thread shares with the page: the collocation's start, each workload's rolling AU
// (compute ÷ (load + compute) over its last steps, all ranks), each invocation's offset on the time axis.
struct CollocationPage::Live {
    std::atomic<double> t0{0}; // the wall clock when the first workload's together invocation started (0: not yet)
    struct Workload final : EngineObserver {
        CollocationPage* page = nullptr;
        int index = 0;
        std::atomic<double> offset{0};
        std::mutex m;
        std::deque<std::pair<double, double>> window; // (compute, load + compute) of the last steps
        double lastPlotted = -1;
        void onStep(const StepEvent& e) override {
            double t = 0, au = 0;
            {
                std::lock_guard lock(m);
                window.emplace_back(e.compute, e.load + e.compute);
                while (window.size() > 32) window.pop_front();
                t = offset.load() + e.wallTime;
                if (t - lastPlotted < 0.1) return; // ten points a second is plenty for a plot
                lastPlotted = t;
                double c = 0, s = 0;
                for (const auto& [ci, si] : window) c += ci, s += si;
                au = s > 0 ? 100.0 * c / s : 0.0;
            }
            QMetaObject::invokeMethod(page, [p = page, i = index, t, au] { p->addPoint(i, t, au); }, Qt::QueuedConnection);
        }
    };
    std::vector<std::unique_ptr<Workload>> workloads;
};

namespace {

class PageObserver final : public session::CollocationObserver {
public:
    PageObserver(std::function<void(Severity, const QString&)> post, std::function<void(const std::string&)> started)
        : post_(std::move(post)), started_(std::move(started)) {}
    void onMessage(const std::string& workload, const std::string& text) override {
        post_(text.rfind("warning", 0) == 0 ? Severity::Warning : Severity::Info,
              QString::fromStdString((workload.empty() ? "" : workload + ": ") + text));
    }
    void onInvocationStart(const std::string& workload, const std::string& label, const std::filesystem::path&) override {
        started_(workload);
        post_(Severity::Info, QString::fromStdString(workload + " " + label + ": started"));
    }
    void onInvocationDone(const std::string& workload, const std::string& label, const std::filesystem::path&,
                          const RunOutcome& out) override {
        post_(out.status == RunStatus::Complete ? Severity::Info : Severity::Warning,
              QStringLiteral("%1 %2: AU %3 %, %4 MiB/s — %5")
                  .arg(QString::fromStdString(workload), QString::fromStdString(label))
                  .arg(out.metrics.auMean, 0, 'f', 2)
                  .arg(out.metrics.ioMeanMiB, 0, 'f', 1)
                  .arg(QString::fromUtf8(toString(out.status))));
    }

private:
    std::function<void(Severity, const QString&)> post_;
    std::function<void(const std::string&)> started_;
};

} // namespace

CollocationPage::CollocationPage(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);

    auto* plan = new QGroupBox(tr("Workloads running at once"), this);
    auto* planLayout = new QVBoxLayout(plan);
    table_ = new QTableWidget(0, ColumnCount, plan);
    table_->setObjectName(QStringLiteral("collocationTable"));
    table_->setHorizontalHeaderLabels({tr("Name"), tr("Config (preset or file)"), tr("Accelerators"), tr("Start after (s)")});
    table_->horizontalHeader()->setSectionResizeMode(ConfigCol, QHeaderView::Stretch);
    table_->verticalHeader()->hide();
    table_->setMinimumHeight(120);
    planLayout->addWidget(table_);
    auto* adders = new QHBoxLayout;
    preset_ = new QComboBox(plan);
    for (const auto& n : presetNames()) preset_->addItem(QString::fromStdString(n));
    add_ = new QPushButton(tr("Add preset"), plan);
    addFile_ = new QPushButton(tr("Add workload file…"), plan);
    remove_ = new QPushButton(tr("Remove"), plan);
    adders->addWidget(preset_, 1);
    adders->addWidget(add_);
    adders->addWidget(addFile_);
    adders->addWidget(remove_);
    planLayout->addLayout(adders);
    layout->addWidget(plan);

    auto* shared = new QGroupBox(tr("Shared storage and output"), this);
    auto* form = new QFormLayout(shared);
    profile_ = new QComboBox(shared);
    profile_->addItem(tr("the real storage (no emulated device)"), QString());
    for (const auto& n : storageProfileNames()) profile_->addItem(QString::fromStdString(n), QString::fromStdString(n));
    profile_->addItem(tr("a bandwidth cap only"), QStringLiteral("-"));
    form->addRow(tr("Shared device:"), profile_);
    bandwidth_ = new QDoubleSpinBox(shared);
    bandwidth_->setRange(0, 1e7);
    bandwidth_->setDecimals(0);
    bandwidth_->setSuffix(tr(" MiB/s"));
    bandwidth_->setSpecialValueText(tr("the profile's"));
    form->addRow(tr("Bandwidth:"), bandwidth_);
    auto* outRow = new QHBoxLayout;
    output_ = new QLineEdit(shared);
    output_->setPlaceholderText(tr("a new folder for DIR/<name>/ and trainio_collocation.json"));
    auto* browse = new QPushButton(tr("Browse…"), shared);
    outRow->addWidget(output_, 1);
    outRow->addWidget(browse);
    form->addRow(tr("Output folder:"), outRow);
    auto* roundsRow = new QHBoxLayout;
    runs_ = new QSpinBox(shared);
    runs_->setRange(0, 100);
    runs_->setSpecialValueText(tr("one invocation each"));
    alone_ = new QCheckBox(tr("each workload alone first (interference)"), shared);
    roundsRow->addWidget(runs_);
    roundsRow->addWidget(alone_);
    roundsRow->addStretch(1);
    form->addRow(tr("Rounds:"), roundsRow);
    layout->addWidget(shared);
    mpi_ = new MpiControls(this, QStringLiteral("collocate/mpi/enabled"));
    mpi_->setProcessesOnly();
    layout->addWidget(mpi_);

    auto* buttons = new QHBoxLayout;
    run_ = new QPushButton(tr("Run together"), this);
    run_->setObjectName(QStringLiteral("collocateRun"));
    cancel_ = new QPushButton(tr("Cancel all"), this);
    cancel_->setEnabled(false);
    status_ = new QLabel(this);
    buttons->addWidget(run_);
    buttons->addWidget(cancel_);
    buttons->addWidget(status_, 1);
    layout->addLayout(buttons);

    storage_ = new StorageControls(this);
    layout->addWidget(storage_);

    plot_ = new QCustomPlot(this);
    plot_->setObjectName(QStringLiteral("collocationPlot"));
    plot_->setMinimumHeight(220);
    applyPlotTheme(plot_, palette());
    plot_->xAxis->setLabel(tr("time together (s)"));
    plot_->yAxis->setLabel(tr("AU % (last 32 steps)"));
    plot_->yAxis->setRange(0, 105);
    syncLegendBelow(plot_, 1); // under the axes once it has entries
    plot_->legend->setWrap(6);
    // The live AU over time, and once the collocation has its figures, beside it the answer: each workload
    // alone against together with what it lost (hidden until then, the time plot takes the width).
    chart_ = new InterferenceChart(this);
    auto* plots = new QHBoxLayout;
    plots->addWidget(plot_, 1);
    plots->addWidget(chart_, 1);
    layout->addLayout(plots, 1);

    summary_ = new QPlainTextEdit(this);
    summary_->setReadOnly(true);
    summary_->setMinimumHeight(summary_->fontMetrics().lineSpacing() * 6);
    summary_->setMaximumHeight(summary_->fontMetrics().lineSpacing() * 12);
    summary_->setPlaceholderText(tr("When the collocation ends: each workload's AU and MiB/s, and what it lost to the others "
                                    "against itself alone (\"alone first\", or alone runs of the same benchmark in the results "
                                    "library)."));
    layout->addWidget(summary_);

    connect(add_, &QPushButton::clicked, this, &CollocationPage::addRowFromPicker);
    connect(addFile_, &QPushButton::clicked, this, [this] {
        const QString f = QFileDialog::getOpenFileName(this, tr("Workload file"), QString(), tr("Workloads (*.yaml *.yml *.json)"));
        if (!f.isEmpty()) addWorkload(folderName(QFileInfo(f).completeBaseName()), f, 1);
    });
    connect(remove_, &QPushButton::clicked, this, &CollocationPage::removeSelected);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString d = QFileDialog::getExistingDirectory(this, tr("Output folder"));
        if (!d.isEmpty()) setOutputFolder(d);
    });
    connect(output_, &QLineEdit::textEdited, this, [this] { outputChosenByUser_ = true; });
    output_->setText(suggestedFolder());
    connect(run_, &QPushButton::clicked, this, [this] { start(); });
    connect(cancel_, &QPushButton::clicked, this, &CollocationPage::cancel);
    connect(storage_, &StorageControls::changed, this, [this](const QString& what) { post(Severity::Info, tr("shared device: %1").arg(what)); });
}

CollocationPage::~CollocationPage() {
    cancelFlag_ = true;
    mpiCancels_ = 2; // mpirun killed at once: nobody is left to read its folder
    if (worker_.joinable()) worker_.join();
}

bool CollocationPage::addWorkload(const QString& name, const QString& config, int accelerators, double startAfterS) {
    // A workload that brings its own emulated device is refused here, in the page's words (in a collocation the
    // device is the page's Shared device), not later in the plan's.
    try {
        const WorkloadConfig cfg = loadConfigOrPreset(config.toStdString(), {}).config;
        if (cfg.trainio.storage.any()) {
            const QString profile = QString::fromStdString(cfg.trainio.storage.profile);
            post(Severity::Error,
                 tr("%1 was not added: it brings its own emulated storage (%2), and the workloads of a collocation share one "
                    "device. Choose that device under \u201cShared device\u201d, and add a copy of the workload without "
                    "its storage profile.")
                     .arg(QFileInfo(config).fileName(), profile.isEmpty() ? tr("its own limits") : tr("profile %1").arg(profile)));
            return false;
        }
    } catch (const std::exception&) {
        // Anything else is said when the plan is checked (Run together).
    }
    const int row = table_->rowCount();
    table_->insertRow(row);
    QString unique = name;
    for (int k = 2;; ++k) {
        bool taken = false;
        for (int r = 0; r < row; ++r) taken = taken || table_->item(r, NameCol)->text() == unique;
        if (!taken) break;
        unique = name + QStringLiteral("_%1").arg(k);
    }
    table_->setItem(row, NameCol, new QTableWidgetItem(unique));
    table_->setItem(row, ConfigCol, new QTableWidgetItem(config));
    auto* acc = new QSpinBox(table_);
    acc->setRange(1, 4096);
    acc->setValue(accelerators);
    table_->setCellWidget(row, AccelCol, acc);
    auto* st = new QDoubleSpinBox(table_);
    st->setRange(0, 86400);
    st->setDecimals(1);
    st->setValue(startAfterS);
    table_->setCellWidget(row, StartCol, st);
    return true;
}

void CollocationPage::addRowFromPicker() {
    const QString p = preset_->currentText();
    if (p.isEmpty()) return;
    addWorkload(folderName(p), p, 1);
}

void CollocationPage::removeSelected() {
    const int row = table_->currentRow();
    if (row >= 0) table_->removeRow(row);
}

void CollocationPage::setOutputFolder(const QString& dir) {
    output_->setText(dir.isEmpty() ? dir : QDir(dir).absolutePath());
    outputChosenByUser_ = true;
}
void CollocationPage::setSharedProfile(const QString& profile) {
    const int i = profile_->findData(profile);
    profile_->setCurrentIndex(i >= 0 ? i : 0);
}
void CollocationPage::setBandwidthMiBs(double mibs) { bandwidth_->setValue(mibs); }
void CollocationPage::setRounds(int runs, bool alone) {
    runs_->setValue(runs);
    alone_->setChecked(alone);
}

QString CollocationPage::planYaml() const {
    QString y = QStringLiteral("# written by the TrainIO window (Collocate page); run it again with\n"
                               "# trainio-cli collocate --plan plan.yaml --output DIR\nworkloads:\n");
    for (int r = 0; r < table_->rowCount(); ++r) {
        const auto* acc = qobject_cast<QSpinBox*>(table_->cellWidget(r, AccelCol));
        const auto* st = qobject_cast<QDoubleSpinBox*>(table_->cellWidget(r, StartCol));
        y += QStringLiteral("  - name: %1\n    config: %2\n    accelerators: %3\n")
                 .arg(quoted(table_->item(r, NameCol)->text()), quoted(table_->item(r, ConfigCol)->text()))
                 .arg(acc ? acc->value() : 1);
        if (st && st->value() > 0) y += QStringLiteral("    start_after_s: %1\n").arg(st->value());
    }
    const QString profile = profile_->currentData().toString();
    if (!profile.isEmpty() || bandwidth_->value() > 0) {
        y += QStringLiteral("storage:\n");
        if (!profile.isEmpty() && profile != QStringLiteral("-")) y += QStringLiteral("  profile: %1\n").arg(quoted(profile));
        if (bandwidth_->value() > 0) y += QStringLiteral("  bandwidth_mib_s: %1\n").arg(bandwidth_->value());
    }
    return y;
}

void CollocationPage::post(Severity severity, const QString& text) { emit notify(severity, text); }

bool CollocationPage::start() {
    if (running_) return false;
    const QString dir = output_->text().trimmed();
    if (dir.isEmpty()) {
        post(Severity::Error, tr("Choose an output folder for the collocation first."));
        return false;
    }
    if (table_->rowCount() < 2) {
        post(Severity::Error, tr("A collocation runs two or more workloads: add another."));
        return false;
    }
    system_.clear();
    if (systemSource_) {
        const std::optional<QString> system = systemSource_();
        if (!system) return false; // the question was cancelled: nothing starts
        system_ = system->trimmed();
    }
    const QString abs = QDir(dir).absolutePath();
    QDir().mkpath(abs);
    const QString planFile = QDir(abs).filePath(QStringLiteral("plan.yaml"));
    QFile f(planFile);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(planYaml().toUtf8()) < 0) {
        post(Severity::Error, tr("Cannot write %1: %2").arg(planFile, f.errorString()));
        return false;
    }
    f.close();
    session::CollocationPlan plan;
    try {
        plan = session::loadCollocationPlan(planFile.toStdString());
    } catch (const InputError& e) {
        post(Severity::Error, QString::fromStdString(e.what()));
        return false;
    }
    const QString mpiProblem = mpi_->isChecked() ? mpiLaunchProblem(plan) : QString();
    if (!mpiProblem.isEmpty()) {
        post(Severity::Error, mpiProblem);
        return false;
    }
    // The live side: one plot series and one step observer per workload.
    plot_->clearGraphs();
    live_ = std::make_shared<Live>();
    for (std::size_t i = 0; i < plan.workloads.size(); ++i) {
        auto* g = plot_->addGraph();
        g->setName(QString::fromStdString(plan.workloads[i].name));
        g->setPen(QPen(seriesColor(static_cast<int>(i), palette()), 2));
        auto w = std::make_unique<Live::Workload>();
        w->page = this;
        w->index = static_cast<int>(i);
        live_->workloads.push_back(std::move(w));
    }
    syncLegendBelow(plot_, 1);
    plot_->replot();
    summary_->clear();
    chart_->setWorkloads({});
    cancelFlag_ = false;
    running_ = true;
    run_->setEnabled(false);
    cancel_->setEnabled(true);
    // With "alone first" they do not run together yet: the status follows each start (showStarted).
    status_->setText(alone_->isChecked() ? tr("checking the workloads; each runs alone first…")
                                         : tr("running %1 workloads together…").arg(plan.workloads.size()));

    if (mpi_->isChecked()) {
        startUnderMpi(plan, planFile, abs);
        return true;
    }
    session::CollocationOptions opt;
    opt.runs = static_cast<std::uint64_t>(runs_->value());
    opt.warmups = opt.runs > 0 ? 1 : 0;
    opt.alone = alone_->isChecked();
    opt.labels.system = system_.toStdString();
    opt.cancel = &cancelFlag_;
    opt.commandLine = "trainio (desktop): collocate --plan " + planFile.toStdString();
    auto live = live_;
    opt.liveObserver = [live](std::size_t w) -> EngineObserver* { return live->workloads[w].get(); };
    opt.onStorage = [this](std::shared_ptr<EmulatedStorageBackend> device) {
        QMetaObject::invokeMethod(this, [this, device] { storage_->setDevice(device); }, Qt::QueuedConnection);
    };
    if (worker_.joinable()) worker_.join();
    worker_ = std::thread([this, plan, opt, abs, live] {
        const WallClock clock;
        std::vector<std::string> names;
        for (const auto& w : plan.workloads) names.push_back(w.name);
        PageObserver obs(
            [this](Severity s, const QString& t) { QMetaObject::invokeMethod(this, [this, s, t] { post(s, t); }, Qt::QueuedConnection); },
            [this, live, names, clock](const std::string& workload) {
                QMetaObject::invokeMethod(this, [this, w = QString::fromStdString(workload)] { showStarted(w); }, Qt::QueuedConnection);
                for (std::size_t i = 0; i < names.size(); ++i)
                    if (names[i] == workload) { // a together invocation ("<name> (alone)" ones are not plotted)
                        const double now = clock.now();
                        double unset = 0;
                        live->t0.compare_exchange_strong(unset, now);
                        live->workloads[i]->offset = now - live->t0.load();
                    }
            });
        session::CollocationResult r;
        QString error;
        try {
            r = session::runCollocation(plan, abs.toStdString(), opt, obs);
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(this, [this, r, error] { onFinished(r, error); }, Qt::QueuedConnection);
    });
    return true;
}

void CollocationPage::cancel() {
    if (!running_) return;
    cancelFlag_ = true;
    ++mpiCancels_;
    status_->setText(tr("cancelling every workload…"));
}

void CollocationPage::addPoint(int w, double t, double au) {
    if (w < 0 || w >= plot_->graphCount()) return;
    plot_->graph(w)->addData(t, au);
    plot_->xAxis->setRange(0, std::max(1.0, std::max(plot_->xAxis->range().upper, t * 1.05)));
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

int CollocationPage::pointCount(int w) const { return w >= 0 && w < plot_->graphCount() ? plot_->graph(w)->dataCount() : 0; }

QString CollocationPage::summaryText() const { return summary_->toPlainText(); }

void CollocationPage::onFinished(const session::CollocationResult& r, const QString& error) {
    if (worker_.joinable()) worker_.join();
    running_ = false;
    run_->setEnabled(true);
    cancel_->setEnabled(false);
    storage_->setDevice(nullptr);
    QStringList lines;
    if (!error.isEmpty()) {
        status_->setText(tr("not run"));
        post(Severity::Error, error);
        emit finished(false, QString());
        return;
    }
    for (std::size_t i = 0; i < r.invocations.size(); ++i)
        for (const auto& inv : r.invocations[i])
            if (!inv.warmup)
                lines << (std::isnan(inv.mibPerSecond) ? QStringLiteral("%1 %2: AU %3 %%4 (%5)") : QStringLiteral("%1 %2: AU %3 %, %4 MiB/s (%5)"))
                             .arg(inv.path.parent_path().filename() == "runs" ? QString::fromStdString(inv.path.parent_path().parent_path().filename().string())
                                                                              : QString::fromStdString(inv.path.filename().string()),
                                  QString::fromStdString(inv.label))
                             .arg(inv.auPercent, 0, 'f', 2)
                             .arg(std::isnan(inv.mibPerSecond) ? QString() : QString::number(inv.mibPerSecond, 'f', 1))
                             .arg(QString::fromStdString(inv.status));
    sessionInvocations_ = lines;
    for (const auto& x : r.interference)
        lines << QStringLiteral("%1: %2 AU points lost (95 % CI %3…%4) and %5 % slower than alone, over %6")
                     .arg(QString::fromStdString(x.name))
                     .arg(x.auPointsLost, 0, 'f', 2)
                     .arg(x.auPointsLostLow, 0, 'f', 2)
                     .arg(x.auPointsLostHigh, 0, 'f', 2)
                     .arg(x.slowdownPercent, 0, 'f', 1)
                     .arg(QString::fromStdString(x.unit));
    std::vector<InterferenceChart::Workload> bars;
    for (const auto& x : r.interference) bars.push_back(chartFigures(x, {}));
    chart_->setWorkloads(std::move(bars));
    if (!r.lostMost.empty()) lines << tr("lost most: %1").arg(QString::fromStdString(r.lostMost));
    if (!r.error.empty()) lines << tr("error: %1").arg(QString::fromStdString(r.error));
    sessionSummary_ = lines.join(QLatin1Char('\n'));
    summary_->setPlainText(sessionSummary_);
    if (plot_->graphCount() > 0) {
        plot_->xAxis->rescale();
        plot_->xAxis->setRangeLower(0);
        plot_->replot();
    }
    status_->setText(r.complete ? tr("complete") : r.cancelled ? tr("cancelled") : tr("failed"));
    const QString dir = r.file.empty() ? QString() : QString::fromStdString(r.file.parent_path().string());
    post(r.complete ? Severity::Info : Severity::Warning,
         tr("collocation %1: %2").arg(status_->text(), QString::fromStdString(r.file.string())));
    lastDir_ = dir;
    if (!outputChosenByUser_) output_->setText(suggestedFolder()); // the next collocation goes to a new folder
    if (!dir.isEmpty()) emit resultsWritten(dir);
    emit finished(r.complete, dir);
}

// One workload's figures as the chart draws them; not compared (`why` set): its together side only.
InterferenceChart::Workload CollocationPage::chartFigures(const store::CollocationInterference& x, const QString& why) {
    InterferenceChart::Workload w;
    w.name = QString::fromStdString(x.name);
    w.auTogether = x.auTogether;
    if (!why.isEmpty()) {
        w.why = why;
        return w;
    }
    w.auAlone = x.auAlone;
    w.pointsLost = x.auPointsLost;
    w.lostLow = x.auPointsLostLow;
    w.lostHigh = x.auPointsLostHigh;
    w.slowdownPercent = x.slowdownPercent;
    return w;
}

void CollocationPage::setLibrary(std::shared_ptr<const aggregate::ResultsLibrary> library) {
    if (!library || lastDir_.isEmpty() || running_) return;
    const auto& found = library->imported().collocations;
    std::error_code ec;
    const auto mine = std::filesystem::weakly_canonical(lastDir_.toStdString(), ec);
    for (std::size_t c = 0; c < found.size(); ++c) {
        if (std::filesystem::weakly_canonical(found[c].file.parent_path(), ec) != mine) continue;
        // The library's figures stand for the collocation's own (the same rule, --alone's runs found there first).
        QStringList lines = sessionInvocations_;
        const std::string& lost = library->interference(c).lostMost;
        lines << (lost.empty() ? tr("In the results library, against alone runs of the same benchmark identity:")
                               : tr("In the results library, against alone runs of the same benchmark identity (lost most: %1):")
                                     .arg(QString::fromStdString(lost)));
        std::vector<InterferenceChart::Workload> bars;
        for (const auto& w : library->interference(c).workloads) {
            lines << QString::fromStdString(aggregate::interferenceLine(w));
            bars.push_back(chartFigures(w.figures, w.compared ? QString() : QString::fromStdString(w.why)));
            bars.back().name = QString::fromStdString(w.name);
        }
        summary_->setPlainText(lines.join(QLatin1Char('\n')));
        chart_->setWorkloads(std::move(bars));
        return;
    }
}

// Under mpirun (docs/collocation.md, "Under mpirun"): what stops the launch, in the window's words.
QString CollocationPage::mpiLaunchProblem(const session::CollocationPlan& plan) const {
    QString problem;
    if (!mpi_->launch(&problem)) return tr("MPI (client hosts): %1").arg(problem);
    if (telemetry::findExecutable("mpirun").empty())
        return tr("mpirun was not found: install Open MPI (the openmpi-bin package) to run the collocation on client hosts");
    if (RunController::cliProgram().isEmpty())
        return tr("trainio-cli, which every MPI process runs, was not found beside this program");
    const std::uint64_t processes = mpi_->totalProcesses();
    for (const auto& w : plan.workloads)
        if (processes == 0 || w.accelerators % processes != 0)
            return tr("Workload %1 has %2 accelerators, which cannot be spread evenly over %3 MPI processes: give it a "
                      "multiple of %3")
                .arg(QString::fromStdString(w.name))
                .arg(w.accelerators)
                .arg(processes);
    return {};
}

// mpirun … trainio-cli collocate --plan PLAN --output DIR --live-json L on the worker thread; process 0's live
// lines drive the same plot as in one process (each line names its workload), and at the end the
// collocation's file, written by process 0, becomes the summary.
void CollocationPage::startUnderMpi(const session::CollocationPlan& plan, const QString& planFile, const QString& dir) {
    dist::MpiLaunch launch = *mpi_->launch();
    if (::geteuid() == 0) launch.allowRunAsRoot = true; // Open MPI refuses root without it
    const std::size_t hosts = dist::launchHosts(launch).size();
    std::vector<std::string> args = dist::mpirunOptions(launch, hosts);
    const std::string live = (std::filesystem::path(dir.toStdString()) / ".trainio-collocate-live.jsonl").string();
    std::error_code ec;
    std::filesystem::remove(live, ec);
    for (const std::string& a : {RunController::cliProgram().toStdString(), std::string("collocate"), std::string("--plan"),
                                 planFile.toStdString(), std::string("--output"), dir.toStdString(), std::string("--quiet"),
                                 std::string("--live-json"), live})
        args.push_back(a);
    if (runs_->value() > 0) {
        args.push_back("--runs");
        args.push_back(std::to_string(runs_->value()));
        args.push_back("--warmup");
        args.push_back("1");
    }
    if (alone_->isChecked()) args.push_back("--alone");
    if (!system_.isEmpty()) {
        args.push_back("--system");
        args.push_back(system_.toStdString());
    }
    mpiCancels_ = 0;
    status_->setText(tr("running %1 workloads together on %2 MPI processes…").arg(plan.workloads.size()).arg(mpi_->totalProcesses()));
    if (worker_.joinable()) worker_.join();
    auto liveSide = live_;
    worker_ = std::thread([this, plan, args, live, dir, liveSide] {
        std::vector<std::string> names;
        for (const auto& w : plan.workloads) names.push_back(w.name);
        auto indexOf = [names](const std::string& label) -> int {
            const std::string name = label.substr(0, label.find(" \u00b7 "));
            for (std::size_t i = 0; i < names.size(); ++i)
                if (names[i] == name) return static_cast<int>(i);
            return -1;
        };
        const WallClock clock;
        dist::MpiJobOptions o;
        o.mpirun = telemetry::findExecutable("mpirun");
        o.arguments = args;
        o.liveJson = live;
        o.cancelRequests = &mpiCancels_;
        o.observerFor = [liveSide, indexOf](const std::string& label) -> EngineObserver* {
            const int i = indexOf(label);
            return i < 0 ? nullptr : liveSide->workloads[static_cast<std::size_t>(i)].get();
        };
        o.onInvocationStart = [this, liveSide, indexOf, clock](const std::string& label, const std::string&) {
            if (const int i = indexOf(label); i >= 0) { // a together invocation ("<name> (alone)" ones are not plotted)
                const double now = clock.now();
                double unset = 0;
                liveSide->t0.compare_exchange_strong(unset, now);
                liveSide->workloads[static_cast<std::size_t>(i)]->offset = now - liveSide->t0.load();
            }
            const QString text = QString::fromStdString(label + ": started");
            const QString workload = QString::fromStdString(label.substr(0, label.find(" \u00b7 ")));
            QMetaObject::invokeMethod(this, [this, text, workload] { post(Severity::Info, text); showStarted(workload); },
                                      Qt::QueuedConnection);
        };
        o.onInvocationDone = [this](const std::string& label, const std::string&, const std::string& status, double au) {
            const QString text = QStringLiteral("%1: AU %2 % — %3").arg(QString::fromStdString(label)).arg(au, 0, 'f', 2).arg(QString::fromStdString(status));
            QMetaObject::invokeMethod(this, [this, text, status] { post(status == "complete" ? Severity::Info : Severity::Warning, text); },
                                      Qt::QueuedConnection);
        };
        const dist::MpiJobResult job = dist::runMpiJob(o);
        std::error_code ec;
        std::filesystem::remove(live, ec);
        // The collocation's file, as process 0 wrote it: the summary's figures.
        session::CollocationResult r;
        QString error;
        const std::filesystem::path file = std::filesystem::path(dir.toStdString()) / store::kCollocationFile;
        if (!job.started) {
            error = QString::fromStdString(job.startError);
        } else if (!std::filesystem::exists(file, ec)) {
            error = tr("mpirun ended (exit %1) before the collocation started:\n%2")
                        .arg(job.exitCode)
                        .arg(QString::fromStdString(job.otherOutput).trimmed());
        } else {
            try {
                const store::CollocationFile f = store::readCollocationFile(file);
                r.file = file;
                r.complete = job.exitCode == 0 && f.status == "complete";
                r.cancelled = !r.complete && (f.status == "cancelled" || job.interrupted);
                r.error = r.complete || r.cancelled ? std::string() : (f.error.empty() ? job.otherOutput : f.error);
                for (const auto& m : f.workloads) {
                    std::vector<session::CollocatedInvocation> invs;
                    for (const auto& e : m.invocations) {
                        session::CollocatedInvocation inv;
                        inv.label = e.label;
                        inv.path = e.path;
                        inv.start = e.start;
                        inv.end = e.end;
                        inv.status = e.status;
                        inv.auPercent = e.auPercent;
                        inv.mibPerSecond = NAN; // in each invocation's summary.json (the library reads it)
                        inv.bytesRead = e.bytesRead;
                        inv.warmup = e.label.rfind("warm-up", 0) == 0;
                        invs.push_back(std::move(inv));
                    }
                    r.invocations.push_back(std::move(invs));
                }
                r.interference = f.interference;
                r.lostMost = f.lostMost;
            } catch (const std::exception& e) {
                error = QString::fromStdString(e.what());
            }
        }
        QMetaObject::invokeMethod(this, [this, r, error] { onFinished(r, error); }, Qt::QueuedConnection);
    });
}

// The status line while it runs: which workload runs alone first (k of n), then all of them together.
void CollocationPage::showStarted(const QString& workload) {
    if (!running_) return;
    static const QString aloneTag = QStringLiteral(" (alone)");
    if (workload.endsWith(aloneTag)) {
        const QString name = workload.left(workload.size() - aloneTag.size());
        int k = 0;
        for (int r = 0; r < table_->rowCount(); ++r)
            if (table_->item(r, NameCol)->text() == name) k = r + 1;
        status_->setText(tr("%1 alone first (%2 of %3), before they run together…").arg(name).arg(k).arg(table_->rowCount()));
    } else {
        status_->setText(tr("running %1 workloads together…").arg(table_->rowCount()));
    }
}

QString CollocationPage::statusText() const { return status_->text(); }
QString CollocationPage::outputFolder() const { return output_->text(); }

// A new folder below the results root each time, until the user chooses one (as the Run page suggests its own).
void CollocationPage::setResultsRoot(const QString& root) {
    resultsRoot_ = root;
    if (!outputChosenByUser_ && !running_) output_->setText(suggestedFolder());
}

QString CollocationPage::suggestedFolder() const {
    return QDir(resultsRoot_.isEmpty() ? QDir::homePath() : resultsRoot_)
        .filePath(QStringLiteral("collocation-%1").arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"))));
}

} // namespace trainio::ui
