#include "report/report_writer.h"

#include "aggregate/group_aggregate.h"
#include "aggregate/results_import.h"
#include "report/report_content.h"
#include "report/report_page_flow.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSet>

#include <algorithm>
#include <exception>

namespace trainio::ui {

namespace {

constexpr int kResolutionDpi = 300; // QPdfWriter's default of 1200 dpi only inflates coordinates

void setError(QString* error, const QString& text) {
    if (error) *error = text;
}

QString rootsText(const std::vector<std::filesystem::path>& paths) {
    QStringList list;
    for (const auto& p : paths) list << QString::fromStdString(p.string());
    return list.join(QStringLiteral(", "));
}

// Imports, filters by the checked keys and aggregates; orders groups by workload, then system, so the
// report and its comparison figures read workload by workload.
bool prepare(const ReportRequest& request, ReportData& data, QString* error) {
    const QString roots = rootsText(request.paths);
    if (request.paths.empty()) {
        setError(error, QStringLiteral("No folder to import was given."));
        return false;
    }
    try {
        data.imported = aggregate::importResults(request.paths);
    } catch (const std::exception& e) {
        setError(error, QStringLiteral("Could not import %1: %2").arg(roots, QString::fromUtf8(e.what())));
        return false;
    }
    const auto& imp = data.imported;
    if (imp.groups.empty()) {
        QString detail = QStringLiteral("%1 summary.json found").arg(imp.summariesFound);
        if (!imp.skipped.empty()) {
            const auto& s = imp.skipped.front();
            detail += QStringLiteral(", %1 skipped (%2: %3)")
                          .arg(imp.skipped.size())
                          .arg(QString::fromStdString(s.path.string()), QString::fromStdString(s.reason));
        }
        setError(error, QStringLiteral("No importable results in %1 (%2).").arg(roots, detail));
        return false;
    }
    const QSet<QString> wanted(request.checkedGroupKeys.begin(), request.checkedGroupKeys.end());
    for (std::size_t i = 0; i < imp.groups.size(); ++i)
        if (wanted.isEmpty() || wanted.contains(groupKey(imp.groups[i]))) data.groups.push_back(i);
    if (data.groups.empty()) {
        setError(error, QStringLiteral("None of the %1 checked groups is among the %2 groups found in %3.")
                            .arg(wanted.size())
                            .arg(imp.groups.size())
                            .arg(roots));
        return false;
    }
    std::stable_sort(data.groups.begin(), data.groups.end(), [&](std::size_t a, std::size_t b) {
        const auto& ga = imp.groups[a];
        const auto& gb = imp.groups[b];
        const QString wa = workloadName(ga.identity), wb = workloadName(gb.identity);
        if (wa != wb) return wa < wb;
        return ga.system < gb.system;
    });
    for (std::size_t i : data.groups) data.aggregates.push_back(aggregate::aggregateGroup(imp, imp.groups[i]));
    data.title = request.title.trimmed().isEmpty() ? QStringLiteral("TrainIO report") : request.title.trimmed();
    data.generated = QDateTime::currentDateTime();
    for (const auto& p : request.paths) data.roots << QString::fromStdString(p.string());
    return true;
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

// Splits core's CSV into records, honouring quoted fields that may hold newlines.
QStringList csvRecords(const QString& text) {
    QStringList records;
    QString current;
    bool quoted = false;
    for (QChar c : text) {
        if (c == QLatin1Char('"')) quoted = !quoted;
        if (c == QLatin1Char('\n') && !quoted) {
            records << current;
            current.clear();
            continue;
        }
        current += c;
    }
    if (!current.isEmpty()) records << current;
    return records;
}

} // namespace

QString groupKey(const aggregate::RunGroup& group) {
    const auto& id = group.identity;
    return QStringLiteral("%1|%2|%3|%4|%5|%6")
        .arg(QString::fromStdString(group.path.string()), QString::fromStdString(id.model),
             QString::fromStdString(id.accelerator))
        .arg(id.accelerators)
        .arg(id.filesTrain)
        .arg(id.samplesPerFile);
}

bool writeReportPdf(const ReportRequest& request, const QString& pdfPath, QString* error) {
    // QCustomPlot is a QWidget: without a QApplication constructing one aborts the process.
    if (!qobject_cast<QApplication*>(QCoreApplication::instance())) {
        setError(error, QStringLiteral("Cannot write %1: the PDF report needs a QApplication (QT_QPA_PLATFORM=offscreen "
                                       "works headless).")
                            .arg(pdfPath));
        return false;
    }
    ReportData data;
    if (!prepare(request, data, error)) return false;

    QSaveFile file(pdfPath);
    if (!openTarget(file, pdfPath, error)) return false;
    QPdfWriter writer(&file);
    writer.setResolution(kResolutionDpi);
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
    writer.setTitle(data.title);
    writer.setCreator(QStringLiteral("TrainIO " TRAINIO_VERSION));

    ReportPageFlow::Chrome chrome;
    chrome.headerLeft = data.title;
    chrome.headerRight = QStringLiteral("TrainIO %1 · %2")
                             .arg(QStringLiteral(TRAINIO_VERSION), data.generated.toString(QStringLiteral("yyyy-MM-dd HH:mm")));
    chrome.footerLeft = QStringLiteral("Generated on %1 · %2").arg(hostDescription(), osDescription());
    {
        ReportPageFlow counting(writer, nullptr, chrome);
        composeReport(counting, data);
        chrome.totalPages = counting.pageCount();
    }
    QCPPainter painter;
    if (!painter.begin(&writer)) {
        file.cancelWriting();
        setError(error, QStringLiteral("Cannot write %1: the PDF writer could not start.").arg(pdfPath));
        return false;
    }
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNoCaching);
    painter.setMode(QCPPainter::pmNonCosmetic);
    {
        ReportPageFlow flow(writer, &painter, chrome);
        composeReport(flow, data);
    }
    painter.end();
    return commitTarget(file, pdfPath, error);
}

bool exportAggregateCsv(const ReportRequest& request, const QString& csvPath, QString* error) {
    ReportData data;
    if (!prepare(request, data, error)) return false;
    // Core writes one record per imported group, in import order, after the header; keep the selected.
    const QStringList records = csvRecords(QString::fromStdString(aggregate::formatCsv(data.imported)));
    if (records.size() != static_cast<qsizetype>(data.imported.groups.size()) + 1) {
        setError(error, QStringLiteral("Cannot write %1: the aggregate CSV has %2 records for %3 groups.")
                            .arg(csvPath)
                            .arg(records.size())
                            .arg(data.imported.groups.size()));
        return false;
    }
    QString out = records.front() + QLatin1Char('\n');
    for (std::size_t i : data.groups) out += records[static_cast<qsizetype>(i) + 1] + QLatin1Char('\n');
    return writeText(csvPath, out.toUtf8(), error);
}

bool exportAggregateJson(const ReportRequest& request, const QString& jsonPath, QString* error) {
    ReportData data;
    if (!prepare(request, data, error)) return false;
    nlohmann::ordered_json out;
    out["generator"] = "TrainIO " TRAINIO_VERSION;
    out["generated"] = data.generated.toString(Qt::ISODate).toStdString();
    out["host"] = hostDescription().toStdString();
    out["os"] = osDescription().toStdString();
    nlohmann::ordered_json roots = nlohmann::ordered_json::array();
    for (const auto& p : request.paths) roots.push_back(p.string());
    out["paths"] = std::move(roots);
    nlohmann::ordered_json groups = nlohmann::ordered_json::array();
    for (std::size_t k = 0; k < data.groups.size(); ++k) {
        // Checks compare a group with the others in its folder, so each is aggregated against the whole import.
        nlohmann::ordered_json g;
        g["group_key"] = groupKey(data.imported.groups[data.groups[k]]).toStdString();
        g.update(aggregate::toJson(data.aggregates[k], data.imported));
        groups.push_back(std::move(g));
    }
    out["groups"] = std::move(groups);
    nlohmann::ordered_json skipped = nlohmann::ordered_json::array();
    for (const auto& s : data.imported.skipped)
        skipped.push_back(nlohmann::ordered_json{{"path", s.path.string()}, {"reason", s.reason}});
    out["skipped"] = std::move(skipped);
    return writeText(jsonPath, QByteArray::fromStdString(out.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n"), error);
}

} // namespace trainio::ui
