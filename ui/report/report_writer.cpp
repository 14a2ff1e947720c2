#include "report/report_writer.h"

#include "aggregate/group_aggregate.h"
#include "aggregate/results_import.h"
#include "report/report_page_flow.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QBuffer>
#include <QFile>
#include <QFileInfo>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <QSaveFile>
#include <QStringDecoder>

#include <algorithm>
#include <exception>
#include <stdexcept>

namespace trainio::ui {

namespace {

using aggregate::LibraryNode;
using aggregate::NodeKind;

constexpr int kResolutionDpi = 300; // QPdfWriter's default of 1200 dpi only inflates coordinates

void setError(QString* error, const QString& text) {
    if (error) *error = text;
}

bool openTarget(QSaveFile& file, const QString& path, QString* error) {
    if (path.isEmpty()) {
        setError(error, QStringLiteral("No output file was given."));
        return false;
    }
    if (!file.open(QIODevice::WriteOnly)) {
        setError(error, QStringLiteral("Cannot write %1: %2").arg(path, file.errorString()));
        return false;
    }
    return true;
}

bool commitTarget(QSaveFile& file, const QString& path, QString* error) {
    if (!file.commit()) {
        setError(error, QStringLiteral("Cannot write %1: %2").arg(path, file.errorString()));
        return false;
    }
    return true;
}

bool writeText(const QString& path, const QByteArray& bytes, QString* error) {
    QSaveFile file(path);
    if (!openTarget(file, path, error)) return false;
    if (file.write(bytes) != bytes.size()) {
        setError(error, QStringLiteral("Cannot write %1: %2").arg(path, file.errorString()));
        file.cancelWriting();
        return false;
    }
    return commitTarget(file, path, error);
}

// Items must be benchmark or invocation nodes of this library: anything else is a caller's mistake
// that would otherwise print an empty section.
bool checkItems(const std::vector<const LibraryNode*>& items, const QString& target, QString* error) {
    if (items.empty()) {
        setError(error, QStringLiteral("Cannot write %1: no benchmark or invocation is selected.").arg(target));
        return false;
    }
    for (const auto* n : items)
        if (!n || (n->kind != NodeKind::Benchmark && n->kind != NodeKind::Invocation)) {
            setError(error, QStringLiteral("Cannot write %1: only benchmarks and invocations can be reported (got %2).")
                                .arg(target, n ? QString::fromStdString(aggregate::nodeKindName(n->kind)) : QStringLiteral("nothing")));
            return false;
        }
    return true;
}

// The runs of one item as a group core's aggregate functions understand: a benchmark is its own group;
// an invocation becomes a group of that one run (counted only when it is complete).
aggregate::RunGroup itemGroup(const aggregate::ImportResult& imp, const ReportItem& item) {
    aggregate::RunGroup g;
    if (item.group) g = imp.groups.at(*item.group);
    if (item.node->kind == NodeKind::Invocation) {
        g.kind = aggregate::GroupKind::Single;
        g.path = item.node->path;
        g.warmups.clear();
        g.existingReport.reset(); // the folder's report is about the whole benchmark, not this run
        g.plannedRuns = 1;
        g.status = item.node->status;
        g.statusReason = item.node->statusReason;
    }
    g.runs = item.runs;
    g.excluded = item.excluded;
    return g;
}

// Thrown from the page flow's progress hook: the job was cancelled.
struct ReportCancelled : std::runtime_error {
    ReportCancelled() : std::runtime_error("cancelled") {}
};

void setUpWriter(QPdfWriter& writer, const QString& title) {
    writer.setResolution(kResolutionDpi);
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
    writer.setTitle(title);
    writer.setCreator(QStringLiteral("TrainIO " TRAINIO_VERSION));
}

} // namespace

ReportPdfJob::ReportPdfJob(const aggregate::ResultsLibrary& library, std::vector<const LibraryNode*> items,
                           ReportOptions options, QString pdfPath, ReportPageFlow::PlotObserver observer)
    : library_(library), nodes_(std::move(items)), pdfPath_(std::move(pdfPath)), observer_(std::move(observer)) {
    data_.options = std::move(options);
}

void ReportPdfJob::setProgress(double from, double span, double fraction) {
    if (cancelled_) throw ReportCancelled();
    const int permille = static_cast<int>(from + span * std::clamp(fraction, 0.0, 1.0));
    if (permille > progress_) progress_ = permille;
}

bool ReportPdfJob::layOut(QString* error) {
    // QCustomPlot is a QWidget: without a QApplication constructing one aborts the process.
    if (!qobject_cast<QApplication*>(QCoreApplication::instance())) {
        setError(error, QStringLiteral("Cannot write %1: the PDF report needs a QApplication (QT_QPA_PLATFORM=offscreen "
                                       "works headless).")
                            .arg(pdfPath_));
        return false;
    }
    if (!checkItems(nodes_, pdfPath_, error)) return false;
    const ReportOptions& options = data_.options;
    if (options.baseline >= nodes_.size()) {
        setError(error, QStringLiteral("Cannot write %1: baseline %2 is not one of the %3 selected items.")
                            .arg(pdfPath_)
                            .arg(options.baseline + 1)
                            .arg(nodes_.size()));
        return false;
    }
    data_.title = options.title.trimmed().isEmpty() ? QStringLiteral("TrainIO report") : options.title.trimmed();
    data_.generated = QDateTime::currentDateTime();
    data_.library = &library_;
    for (const auto* n : nodes_) data_.items.push_back(makeReportItem(library_, n));
    nameReportItems(data_.items);

    chrome_.headerLeft = data_.title;
    chrome_.headerRight = QStringLiteral("TrainIO %1 · %2")
                              .arg(QStringLiteral(TRAINIO_VERSION), data_.generated.toString(QStringLiteral("yyyy-MM-dd HH:mm")));
    chrome_.footerLeft = QStringLiteral("Generated on %1 · %2").arg(hostDescription(), osDescription());
    // The dry run needs only the writer's metrics: nothing is painted, so nothing reaches the buffer.
    QBuffer nowhere;
    nowhere.open(QIODevice::WriteOnly);
    QPdfWriter writer(&nowhere);
    setUpWriter(writer, data_.title);
    try {
        ReportPageFlow counting(writer, nullptr, chrome_);
        counting.setProgress([this](double f) { setProgress(0, 400, f); });
        composeReport(counting, data_);
        chrome_.totalPages = counting.pageCount();
    } catch (const std::exception& e) {
        setError(error, cancelled_ ? QStringLiteral("Cancelled: %1 was not written.").arg(pdfPath_)
                                   : QStringLiteral("Cannot write %1: %2").arg(pdfPath_, QString::fromUtf8(e.what())));
        return false;
    }
    progress_ = 400;
    return true;
}

bool ReportPdfJob::write(QString* error, ReportPageFlow::PlotPainter plotPainter) {
    const QString cancelled = QStringLiteral("Cancelled: %1 was not written.").arg(pdfPath_);
    if (cancelled_) {
        setError(error, cancelled);
        return false;
    }
    QSaveFile file(pdfPath_);
    if (!openTarget(file, pdfPath_, error)) return false;
    QPdfWriter writer(&file);
    setUpWriter(writer, data_.title);
    QCPPainter painter;
    if (!painter.begin(&writer)) {
        file.cancelWriting();
        setError(error, QStringLiteral("Cannot write %1: the PDF writer could not start.").arg(pdfPath_));
        return false;
    }
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNoCaching);
    painter.setMode(QCPPainter::pmNonCosmetic);
    try {
        if (!plotPainter)
            plotPainter = [this](const PlotRequest& r, QCPPainter& p) { paintPlot(r, p, observer_); };
        ReportPageFlow flow(writer, &painter, chrome_, std::move(plotPainter));
        flow.setProgress([this](double f) { setProgress(400, 600, f); });
        composeReport(flow, data_);
    } catch (const std::exception& e) {
        painter.end();
        file.cancelWriting(); // the temporary file goes, the target is untouched
        setError(error, cancelled_ ? cancelled : QStringLiteral("Cannot write %1: %2").arg(pdfPath_, QString::fromUtf8(e.what())));
        return false;
    }
    painter.end();
    if (cancelled_) {
        file.cancelWriting();
        setError(error, cancelled);
        return false;
    }
    if (!commitTarget(file, pdfPath_, error)) return false;
    progress_ = 1000;
    return true;
}

bool writeReportPdf(const aggregate::ResultsLibrary& library, const std::vector<const LibraryNode*>& items,
                    const ReportOptions& options, const QString& pdfPath, QString* error,
                    const ReportPageFlow::PlotObserver& observer) {
    ReportPdfJob job(library, items, options, pdfPath, observer);
    return job.layOut(error) && job.write(error);
}

bool writeReportPdf(const ReportRequest& request, const QString& pdfPath, QString* error) {
    QStringList roots;
    for (const auto& p : request.paths) roots << QString::fromStdString(p.string());
    if (request.paths.empty()) {
        setError(error, QStringLiteral("No folder to import was given."));
        return false;
    }
    aggregate::ImportResult imported;
    try {
        aggregate::ImportOptions options;
        options.stepDigests = true; // the report's per-step plots
        imported = aggregate::importResults(request.paths, options);
    } catch (const std::exception& e) {
        setError(error, QStringLiteral("Could not import %1: %2").arg(roots.join(QStringLiteral(", ")), QString::fromUtf8(e.what())));
        return false;
    }
    if (imported.groups.empty()) {
        QString detail = QStringLiteral("%1 summary.json found").arg(imported.summariesFound);
        if (!imported.skipped.empty()) {
            const auto& s = imported.skipped.front();
            detail += QStringLiteral(", %1 skipped (%2: %3)")
                          .arg(imported.skipped.size())
                          .arg(QString::fromStdString(s.path.string()), QString::fromStdString(s.reason));
        }
        setError(error, QStringLiteral("No importable results in %1 (%2).").arg(roots.join(QStringLiteral(", ")), detail));
        return false;
    }
    const aggregate::ResultsLibrary library(std::move(imported));
    return writeReportPdf(library, reportItems(library, {}), request.options, pdfPath, error);
}

bool exportItemsCsv(const aggregate::ResultsLibrary& library, const std::vector<const LibraryNode*>& items,
                    const QString& csvPath, QString* error) {
    if (!checkItems(items, csvPath, error)) return false;
    // Core's CSV over an import that holds just the selected items as groups: its columns, one row each.
    aggregate::ImportResult selected;
    selected.runs = library.imported().runs;
    for (const auto* n : items) selected.groups.push_back(itemGroup(library.imported(), makeReportItem(library, n)));
    try {
        return writeText(csvPath, QByteArray::fromStdString(aggregate::formatCsv(selected)), error);
    } catch (const std::exception& e) {
        setError(error, QStringLiteral("Cannot write %1: %2").arg(csvPath, QString::fromUtf8(e.what())));
        return false;
    }
}

bool exportItemsJson(const aggregate::ResultsLibrary& library, const std::vector<const LibraryNode*>& items,
                     const QString& jsonPath, QString* error) {
    if (!checkItems(items, jsonPath, error)) return false;
    const auto& imp = library.imported();
    nlohmann::ordered_json out;
    out["generator"] = "TrainIO " TRAINIO_VERSION;
    out["generated"] = QDateTime::currentDateTime().toString(Qt::ISODate).toStdString();
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    try {
        for (const auto* n : items) {
            const ReportItem item = makeReportItem(library, n);
            nlohmann::ordered_json j;
            j["name"] = n->itemName.empty() ? n->label : n->itemName;
            j["level"] = aggregate::nodeKindName(n->kind);
            j["path"] = n->path.string();
            j["status"] = aggregate::statusName(n->status);
            j["status_reason"] = n->statusReason;
            j["system"] = item.system ? item.system->label : std::string();
            j["system_description"] = item.system ? item.system->description : std::string();
            j["description"] = n->description;
            j["notes"] = n->notes;
            j["workload"] = n->workloadTitle;
            j["workload_identity"] = n->workloadKey;
            j["accelerators"] = n->accelerators;
            if (n->kind == NodeKind::Benchmark) {
                const aggregate::RunGroup g = itemGroup(imp, item);
                j["aggregate"] = aggregate::toJson(aggregate::aggregateGroup(imp, g), imp);
            } else if (n->run) {
                j["invocation"] = aggregate::toJson(imp.runs.at(*n->run));
            }
            nlohmann::ordered_json excluded = nlohmann::ordered_json::array();
            for (std::size_t i : item.excluded) {
                const auto& r = imp.runs.at(i);
                excluded.push_back(nlohmann::ordered_json{
                    {"path", r.path.string()}, {"status", aggregate::statusName(r.status)}, {"reason", r.statusReason}});
            }
            j["excluded"] = std::move(excluded);
            list.push_back(std::move(j));
        }
    } catch (const std::exception& e) {
        setError(error, QStringLiteral("Cannot write %1: %2").arg(jsonPath, QString::fromUtf8(e.what())));
        return false;
    }
    out["items"] = std::move(list);
    return writeText(jsonPath,
                     QByteArray::fromStdString(out.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n"),
                     error);
}

bool readNotesFile(const QString& path, QString* notes, QString* error, std::int64_t maxBytes) {
    const QFileInfo info(path);
    if (!info.exists()) {
        setError(error, QStringLiteral("--notes %1: no such file").arg(path));
        return false;
    }
    if (!info.isFile()) {
        setError(error, QStringLiteral("--notes %1: not a regular file").arg(path));
        return false;
    }
    if (info.size() > maxBytes) {
        setError(error, QStringLiteral("--notes %1: %2 bytes, more than the %3 bytes a report's notes may hold")
                            .arg(path)
                            .arg(info.size())
                            .arg(maxBytes));
        return false;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        setError(error, QStringLiteral("--notes %1: cannot read (%2)").arg(path, file.errorString()));
        return false;
    }
    const QByteArray bytes = file.read(maxBytes + 1);
    if (bytes.size() > maxBytes) {
        setError(error, QStringLiteral("--notes %1: more than %2 bytes").arg(path).arg(maxBytes));
        return false;
    }
    for (qsizetype i = 0; i < bytes.size(); ++i) {
        const auto c = static_cast<unsigned char>(bytes[i]);
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
            setError(error, QStringLiteral("--notes %1: not a text file (control byte 0x%2 at offset %3)")
                                .arg(path)
                                .arg(c, 2, 16, QLatin1Char('0'))
                                .arg(i));
            return false;
        }
    }
    QStringDecoder decoder(QStringDecoder::Utf8);
    QString text = decoder.decode(bytes);
    if (decoder.hasError()) {
        setError(error, QStringLiteral("--notes %1: not valid UTF-8 text").arg(path));
        return false;
    }
    if (text.startsWith(QChar(0xFEFF))) text.remove(0, 1);
    text.replace(QStringLiteral("\r\n"), QStringLiteral("\n"));
    *notes = text;
    return true;
}

} // namespace trainio::ui
