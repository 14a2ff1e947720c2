#include "workload/trace_import_panel.h"

#include "widgets/qt_text.h"
#include "widgets/file_dialogs.h"
#include "workload/workload_page.h"

#include "trace/derive_workload.h"
#include "trace/trace_reader.h"
#include "util/errors.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMetaObject>
#include <QPushButton>
#include <QSplitter>
#include <QStandardPaths>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <cmath>
#include <filesystem>

namespace trainio::ui {

namespace {

using Severity = NotificationPanel::Severity;

QString esc(const std::string& s) { return q(s).toHtmlEscaped(); }

// Where the file list of a trace goes when the trace folder cannot take it: TrainIO's data folder, one
// file per trace folder (its name and a hash of its path).
QString fallbackListPath(const QString& dir) {
    const QString base = trainioDataFolder();
    const QString hash = QString::fromLatin1(QCryptographicHash::hash(dir.toUtf8(), QCryptographicHash::Sha1).toHex().left(10));
    return QDir(base).filePath(QStringLiteral("traces/%1-%2.files.txt").arg(QFileInfo(dir).fileName(), hash));
}

} // namespace

TraceImportPanel::TraceImportPanel(WorkloadPage* page, QWidget* parent) : QWidget(parent), page_(page) {
    setObjectName(QStringLiteral("traceImportPanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* top = new QHBoxLayout;
    title_ = new QLabel(this);
    title_->setObjectName(QStringLiteral("traceTitle"));
    title_->setWordWrap(true);
    title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    top->addWidget(title_, 1);
    auto* hide = new QPushButton(tr("Hide"), this);
    hide->setToolTip(tr("Hide the observation report (File → Import a trace… shows a trace again)"));
    top->addWidget(hide, 0, Qt::AlignTop);
    layout->addLayout(top);
    report_ = new QTextBrowser(this);
    report_->setObjectName(QStringLiteral("traceReport"));
    report_->setOpenLinks(false);
    layout->addWidget(report_, 1);
    connect(hide, &QPushButton::clicked, this, &QWidget::hide);
    page_->addSidePane(this);
    QWidget::hide();
}

TraceImportPanel::~TraceImportPanel() {
    ++generation_; // nothing a worker still delivers is shown
    for (auto& w : workers_) w.thread.join();
}

void TraceImportPanel::importWithDialog() {
    const QString dir = existingFolder(this, QStringLiteral("trace"),
                                       tr("Trace folder (trainio-cli capture --output; holds trainio_trace.json)"));
    if (!dir.isEmpty()) importTrace(dir);
}

void TraceImportPanel::importTrace(const QString& dirIn) {
    joinFinishedWorkers();
    const QString dir = QDir(dirIn).absolutePath();
    const quint64 generation = ++generation_;
    busy_ = true;
    emit notify(Severity::Info, tr("Reading the trace %1…").arg(dir));
    const std::string traceDir = dir.toStdString();
    const std::string ownList = (std::filesystem::path(traceDir) / "trainio_files.txt").string();
    const std::string otherList = fallbackListPath(dir).toStdString();
    auto done = std::make_shared<std::atomic<bool>>(false);
    std::thread t([this, traceDir, ownList, otherList, generation, done] {
        std::shared_ptr<trace::DerivedWorkload> derived;
        QString error;
        try {
            auto d = std::make_shared<trace::DerivedWorkload>(trace::deriveWorkload(trace::readTrace(traceDir)));
            if (!d->dlioNames) {
                try {
                    trace::attachFileList(*d, ownList);
                } catch (const InputError&) { // a read-only trace (a shared or packaged one)
                    std::error_code ec;
                    std::filesystem::create_directories(std::filesystem::path(otherList).parent_path(), ec);
                    trace::attachFileList(*d, otherList);
                }
            }
            derived = std::move(d);
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
        }
        const std::thread::id self = std::this_thread::get_id();
        QMetaObject::invokeMethod(
            this,
            [this, derived, error, generation, self, dir = QString::fromStdString(traceDir)] {
                if (generation != generation_) return; // a newer import is under way
                busy_ = false;
                lastThread_ = self;
                if (!derived) {
                    emit notify(Severity::Error, tr("Cannot import the trace %1: %2").arg(dir, error));
                    emit failed(dir, error);
                    return;
                }
                page_->confirmDiscard(tr("importing the trace"), [this, dir, derived] { present(dir, derived); },
                                      [this, dir] { emit failed(dir, tr("cancelled: the workload's edits were kept")); });
            },
            Qt::QueuedConnection);
        done->store(true);
    });
    workers_.push_back(Worker{std::move(t), done});
}

void TraceImportPanel::present(const QString& dir, const std::shared_ptr<const trace::DerivedWorkload>& d) {
    traceFolder_ = dir;
    page_->setDerivedConfig(d->config, tr("derived from the trace %1 (not saved: Save… writes it as a DLIO workload YAML)").arg(dir));
    title_->setText(tr("<b>Imported trace</b> %1<br/>%2").arg(dir.toHtmlEscaped(), esc(d->summary)));
    report_->setHtml(reportHtml(*d));
    // The first time: room to read the report (the form keeps most of the page).
    if (auto* splitter = qobject_cast<QSplitter*>(parentWidget()); splitter && isHidden()) {
        QList<int> sizes = splitter->sizes();
        int total = 0;
        for (int v : sizes) total += v;
        const int at = splitter->indexOf(this);
        if (total > 0 && at >= 0 && sizes.size() == 3) sizes = {total * 52 / 100, total * 16 / 100, total * 32 / 100};
        if (at >= 0 && sizes.size() == 3) splitter->setSizes(sizes);
    }
    QWidget::show();
    emit notify(Severity::Info, tr("Derived a workload from the trace %1: %2").arg(dir, q(d->summary)));
    emit imported(dir);
}

void TraceImportPanel::joinFinishedWorkers() {
    std::erase_if(workers_, [](Worker& w) {
        if (!w.done->load()) return false;
        w.thread.join();
        return true;
    });
}

QString TraceImportPanel::reportHtml(const trace::DerivedWorkload& d) {
    QString h;
    h += tr("<p><b>What the trace shows</b></p><ul>");
    for (const auto& line : d.observations) {
        // The filter rule is long and rarely read: small, last.
        const bool rule = line.rfind("Filter rule:", 0) == 0;
        h += rule ? QStringLiteral("<li><small>%1</small></li>").arg(esc(line)) : QStringLiteral("<li>%1</li>").arg(esc(line));
    }
    h += QStringLiteral("</ul>");
    h += tr("<p><b>The job's own figures</b> (from its step marks, DLIO ≥ 2 semantics, first step of each epoch left out)</p>");
    if (std::isnan(d.jobAuPercent))
        h += tr("<p>AU and samples/s: unknown — the job has no trainio_capture.steps marks, its steps were inferred.</p>");
    else
        h += tr("<p>AU <b>%1 %</b>, <b>%2</b> samples/s. A replay of this workload shows them beside its own in the "
                "results library and the report.</p>")
                 .arg(d.jobAuPercent, 0, 'f', 2)
                 .arg(d.jobSamplesPerSecond, 0, 'f', 1);
    h += tr("<p><b>Derived values</b> — observed unless marked <i>assumed</i>; below each, the figures behind it</p>");
    for (const auto& f : d.figures) {
        const QString kind = f.assumed ? tr(" <span style=\"color:#b9770e\"><i>assumed</i></span>") : tr(" <i>observed</i>");
        h += QStringLiteral("<p style=\"margin-top:6px; margin-bottom:0px\"><code>%1</code> = <b>%2</b>%3<br/><small>%4</small></p>")
                 .arg(esc(f.key), esc(f.value), kind, esc(f.basis));
    }
    h += tr("<p><b>Replay</b></p><ul>");
    if (d.dlioNames)
        h += tr("<li>On the job's own files: Run (dataset.data_folder is the job's folder).</li>");
    else
        h += tr("<li>On the job's own files: Run — trainio.file_list lists them (<code>%1</code>).</li>")
                 .arg(esc(d.config.dataset.fileList.empty() ? std::string("written on import") : d.config.dataset.fileList));
    h += tr("<li>On another storage: %1set dataset.data_folder to a folder there, Generate dataset, then Run.</li>")
             .arg(d.dlioNames ? QString() : tr("clear the file list, "));
    h += QStringLiteral("</ul>");
    return h;
}

} // namespace trainio::ui
