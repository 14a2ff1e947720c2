// What the report tests share: reading a written PDF back with poppler's tools (pdftotext, pdfinfo,
// pdfimages), finding items in a library, and the test folders kept for a look when asked.
#pragma once

#include "testsupport.h"

#include "aggregate/results_import.h"
#include "aggregate/results_library.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace reporttest {

using namespace trainio;
namespace fs = std::filesystem;

// TRAINIO_KEEP_TEST_FILES=1 keeps a suite's reports for a look (pdftoppm -png -r 60 ...).
inline void keepFilesIfAsked(QTemporaryDir& work) {
    if (qEnvironmentVariableIsEmpty("TRAINIO_KEEP_TEST_FILES")) return;
    work.setAutoRemove(false);
    qInfo("test files kept in %s", qPrintable(work.path()));
}

// Runs a poppler tool; an empty result with `ok` false when it is missing or fails.
inline QString runTool(const QString& program, const QStringList& args, bool* ok) {
    *ok = false;
    const QString exe = QStandardPaths::findExecutable(program);
    if (exe.isEmpty()) return {};
    QProcess p;
    p.start(exe, args);
    if (!p.waitForFinished(testsupport::kHangMs) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) return {};
    *ok = true;
    return QString::fromUtf8(p.readAllStandardOutput());
}

// The report's text as pdftotext reads it, in two forms: whitespace collapsed to single spaces (for
// numbers and sentences) and with all whitespace removed (for identifiers that may wrap in a cell).
struct PdfText {
    QString spaced;
    QString squeezed;

    bool hasNumber(const QString& number) const {
        // A whole token: "72.44" must not match inside "172.445".
        const QRegularExpression re(QStringLiteral("(^|[\\s(])") + QRegularExpression::escape(number) +
                                    QStringLiteral("($|[\\s),%])"));
        return re.match(spaced).hasMatch();
    }
    bool hasWords(const QString& words) const { return spaced.contains(words.simplified()); }
    // pdftotext joins a word hyphenated at a line end, dropping the hyphen, so hyphens are ignored too.
    bool hasIdentifier(const QString& text) const {
        QString s = text;
        s.remove(QRegularExpression(QStringLiteral("[\\s-]")));
        return squeezed.contains(s);
    }
};

inline PdfText pdfText(const QString& pdf) {
    bool ok = false;
    QString raw = runTool(QStringLiteral("pdftotext"), {pdf, QStringLiteral("-")}, &ok);
    if (!ok) return {};
    raw.replace(QChar(0x00A0), QLatin1Char(' '));
    PdfText t;
    t.spaced = raw.simplified();
    t.squeezed = raw;
    t.squeezed.remove(QRegularExpression(QStringLiteral("[\\s-]")));
    return t;
}

inline int pdfPages(const QString& pdf) {
    bool ok = false;
    const QString info = runTool(QStringLiteral("pdfinfo"), {pdf}, &ok);
    const auto m = QRegularExpression(QStringLiteral("Pages:\\s+(\\d+)")).match(info);
    return ok && m.hasMatch() ? m.captured(1).toInt() : -1;
}

// Rows of `pdfimages -list` after its two header lines: every raster image in the file.
// Rows of `pdfimages -list` after its two header lines: every raster image in the file.
inline int pdfRasterImages(const QString& pdf) {
    bool ok = false;
    const QString list = runTool(QStringLiteral("pdfimages"), {QStringLiteral("-list"), pdf}, &ok);
    if (!ok) return -1;
    const QStringList lines = list.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    return static_cast<int>(lines.size()) - 2;
}

inline bool noTemporaryFilesIn(const QString& dir, const QString& keep) {
    const auto entries = QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot);
    for (const auto& e : entries)
        if (e != keep) return false;
    return true;
}

inline QString fixed(double v, int precision) { return QString::number(v, 'f', precision); }

// metric.<key> of every summary.json directly below `benchmark`'s run folders, read here, not by core.
inline std::vector<double> summaryMetric(const fs::path& benchmark, const std::string& key) {
    std::vector<double> values;
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(benchmark))
        if (e.path().filename() == "summary.json" && e.path().parent_path().filename() != "warmup") files.push_back(e.path());
    for (const auto& f : files) values.push_back(nlohmann::json::parse(testsupport::readText(f))["metric"][key].get<double>());
    return values;
}

inline const aggregate::LibraryNode* findNode(const aggregate::LibraryNode& n, const std::function<bool(const aggregate::LibraryNode&)>& match) {
    if (match(n)) return &n;
    for (const auto& c : n.children)
        if (const auto* hit = findNode(*c, match)) return hit;
    return nullptr;
}

// The benchmark node of a benchmark folder: a TrainIO benchmark's node may name the folder or its runs/.
inline const aggregate::LibraryNode* benchmarkAt(const aggregate::ResultsLibrary& lib, const fs::path& folder) {
    const fs::path want = fs::weakly_canonical(folder);
    return findNode(lib.root(), [&](const aggregate::LibraryNode& n) {
        if (n.kind != aggregate::NodeKind::Benchmark) return false;
        const fs::path p = fs::weakly_canonical(n.path);
        return p == want || p == want / "runs";
    });
}

// The library as the GUI loads it: with the per-step records and telemetry the report plots.
inline aggregate::ImportOptions withSteps() {
    aggregate::ImportOptions o;
    o.stepDigests = true;
    return o;
}

inline QString nameOf(const aggregate::LibraryNode& n) { return QString::fromStdString(n.itemName.empty() ? n.label : n.itemName); }

} // namespace reporttest
