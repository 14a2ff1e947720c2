// The PDF report and the aggregate exports: reports for published MLPerf Storage v1.0 groups and for a
// TrainIO benchmark run here, read back with poppler's pdftotext / pdfinfo / pdfimages and compared
// with core's aggregate computed independently in the test; bad input; CSV and JSON exports.
#include "testsupport.h"

// moc sees /usr/include/c++/12 here (QCustomPlot's include directory is /usr/include) and cannot parse
// <compare>, which the core headers use; moc needs none of them.
#ifndef Q_MOC_RUN
#include "aggregate/group_aggregate.h"
#include "aggregate/results_import.h"
#include "report/report_writer.h"

#include <nlohmann/json.hpp>
#endif

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QSysInfo>

#include <cmath>
#include <set>

namespace fs = std::filesystem;
using namespace trainio;

namespace {

fs::path mlperfFixtures() { return testsupport::fixtures() / "mlperf-storage-v1.0"; }

// Runs a poppler tool; an empty result with `ok` false when it is missing or fails.
QString runTool(const QString& program, const QStringList& args, bool* ok) {
    *ok = false;
    const QString exe = QStandardPaths::findExecutable(program);
    if (exe.isEmpty()) return {};
    QProcess p;
    p.start(exe, args);
    if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) return {};
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

PdfText pdfText(const QString& pdf) {
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

int pdfPages(const QString& pdf) {
    bool ok = false;
    const QString info = runTool(QStringLiteral("pdfinfo"), {pdf}, &ok);
    const auto m = QRegularExpression(QStringLiteral("Pages:\\s+(\\d+)")).match(info);
    return ok && m.hasMatch() ? m.captured(1).toInt() : -1;
}

// Rows of `pdfimages -list` after its two header lines: every raster image in the file.
int pdfRasterImages(const QString& pdf) {
    bool ok = false;
    const QString list = runTool(QStringLiteral("pdfimages"), {QStringLiteral("-list"), pdf}, &ok);
    if (!ok) return -1;
    const QStringList lines = list.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    return static_cast<int>(lines.size()) - 2;
}

QString f2(double v) { return std::isfinite(v) ? QString::number(v, 'f', 2) : QStringLiteral("n/a"); }

QString workload(const aggregate::WorkloadIdentity& id) {
    return QString::fromStdString(id.model) + (id.accelerator.empty() ? QString() : QStringLiteral("_") + QString::fromStdString(id.accelerator));
}

// Every number the report tables print for a group, formatted as the report formats them.
void verifyGroupNumbers(const PdfText& text, const aggregate::ImportResult& imp, const aggregate::GroupAggregate& a) {
    for (const auto* m : {&a.au, &a.samplesPerSecond, &a.mibPerSecond}) {
        for (double v : {m->mean.value, m->populationStdev.value, m->sampleStdev.value, m->median.value, m->min.value,
                         m->max.value, m->geomean.value, m->ci95.low, m->ci95.high, m->ci95.halfWidth})
            QVERIFY2(text.hasNumber(f2(v)), qPrintable(QStringLiteral("%1 of %2 (%3) not in the PDF")
                                                           .arg(f2(v), QString::fromStdString(m->key), workload(a.group.identity))));
        QVERIFY2(text.hasNumber(QString::number(m->cv.value, 'f', 4)), qPrintable(QString::number(m->cv.value, 'f', 4)));
    }
    for (const auto& e : a.perEpoch)
        for (double v : {e.au.mean.value, e.samplesPerSecond.mean.value, e.mibPerSecond.mean.value})
            QVERIFY2(text.hasNumber(f2(v)), qPrintable(QStringLiteral("epoch %1 value %2").arg(e.epoch).arg(f2(v))));
    for (std::size_t i : a.group.runs) {
        const auto& r = imp.runs[i];
        for (double v : {r.auMeanPercent, r.samplesPerSecond, r.mbPerSecond})
            QVERIFY2(text.hasNumber(f2(v)), qPrintable(QStringLiteral("run %1 value %2").arg(QString::fromStdString(r.runName), f2(v))));
    }
    for (const auto& c : a.checks) QVERIFY2(text.hasIdentifier(QString::fromStdString(c)), c.c_str());
}

void verifyLegendAndRules(const PdfText& text, const aggregate::GroupAggregate& a) {
    QVERIFY(text.hasWords(QStringLiteral("1 MiB/s = 2^20 bytes/s")));
    QVERIFY(text.hasWords(QStringLiteral("train_io_mean_MB_per_second")));
    QVERIFY(text.hasWords(QStringLiteral("Units and rules")));
    QVERIFY(text.hasWords(QStringLiteral("MLPerf Storage rule")));
    for (const auto& rule : {a.au.mean.rule, a.au.populationStdev.rule, a.au.sampleStdev.rule, a.au.median.rule,
                             a.au.geomean.rule, a.au.cv.rule, a.au.ci95.rule})
        QVERIFY2(text.hasWords(QString::fromStdString(rule)), rule.c_str());
}

bool noTemporaryFilesIn(const QString& dir, const QString& keep) {
    const auto entries = QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot);
    for (const auto& e : entries)
        if (e != keep) return false;
    return true;
}

} // namespace

class TestReport : public QObject {
    Q_OBJECT

    QTemporaryDir work_;
    QString benchDir_;

private slots:
    void initTestCase() {
        QVERIFY(work_.isValid());
        // TRAINIO_KEEP_TEST_FILES=1 keeps the reports for a look (pdftoppm -png -r 60 ...).
        if (!qEnvironmentVariableIsEmpty("TRAINIO_KEEP_TEST_FILES")) {
            work_.setAutoRemove(false);
            qInfo("test files kept in %s", qPrintable(work_.path()));
        }
        for (const char* tool : {"pdftotext", "pdfinfo", "pdfimages"})
            QVERIFY2(!QStandardPaths::findExecutable(QString::fromLatin1(tool)).isEmpty(),
                     "poppler-utils is needed to read the reports back");
        // A tiny TrainIO benchmark: 1 warm-up + 5 measured runs of 16 npz files of 64 KiB.
        const QString cfg = work_.filePath(QStringLiteral("tiny.yaml"));
        testsupport::writeText(cfg.toStdString(),
                               "model:\n  name: tinyreport\nframework: pytorch\nworkflow:\n  generate_data: False\n"
                               "  train: True\ndataset:\n  data_folder: " +
                                   work_.filePath(QStringLiteral("data")).toStdString() +
                                   "\n  format: npz\n  num_files_train: 16\n  num_samples_per_file: 1\n"
                                   "  record_length_bytes: 65536\nreader:\n  data_loader: pytorch\n  batch_size: 2\n"
                                   "  read_threads: 2\ntrain:\n  epochs: 2\n  computation_time: 0.002\nmetric:\n  au: 0.5\n");
        benchDir_ = work_.filePath(QStringLiteral("bench"));
        const auto r = testsupport::runCli({QStringLiteral("benchmark"), QStringLiteral("--config"), cfg,
                                            QStringLiteral("++workload.workflow.generate_data=True"), QStringLiteral("--output"),
                                            benchDir_, QStringLiteral("--runs"), QStringLiteral("5"), QStringLiteral("--quiet")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }

    void groupKeysAreDistinctAndStable() {
        const auto a = aggregate::importResults({mlperfFixtures()});
        const auto b = aggregate::importResults({mlperfFixtures()});
        QCOMPARE(a.groups.size(), std::size_t(39));
        std::set<QString> keys;
        for (std::size_t i = 0; i < a.groups.size(); ++i) {
            QCOMPARE(ui::groupKey(a.groups[i]), ui::groupKey(b.groups[i]));
            keys.insert(ui::groupKey(a.groups[i]));
        }
        QCOMPARE(keys.size(), a.groups.size());
    }

    void mlperfGroupsReport() {
        const auto imp = aggregate::importResults({mlperfFixtures()});
        // One group of each of three workloads, plus the first group whose checks fail, if any.
        std::vector<std::size_t> chosen;
        std::set<QString> workloads;
        for (std::size_t i = 0; i < imp.groups.size() && workloads.size() < 3; ++i)
            if (workloads.insert(QString::fromStdString(imp.groups[i].identity.model)).second) chosen.push_back(i);
        for (std::size_t i = 0; i < imp.groups.size(); ++i) {
            if (!aggregate::aggregateGroup(imp, imp.groups[i]).checks.empty()) {
                if (std::find(chosen.begin(), chosen.end(), i) == chosen.end()) chosen.push_back(i);
                break;
            }
        }
        QCOMPARE(workloads.size(), std::size_t(3));

        ui::ReportRequest request;
        request.paths = {mlperfFixtures()};
        request.title = QStringLiteral("Published MLPerf Storage v1.0 groups");
        std::set<QString> chosenWorkloads;
        for (std::size_t i : chosen) {
            request.checkedGroupKeys << ui::groupKey(imp.groups[i]);
            chosenWorkloads.insert(workload(imp.groups[i].identity));
        }
        const QString pdf = work_.filePath(QStringLiteral("out/mlperf.pdf"));
        QVERIFY(QDir().mkpath(QFileInfo(pdf).path()));
        QString error;
        QVERIFY2(ui::writeReportPdf(request, pdf, &error), qPrintable(error));
        QVERIFY(noTemporaryFilesIn(QFileInfo(pdf).path(), QStringLiteral("mlperf.pdf")));

        const PdfText text = pdfText(pdf);
        QVERIFY(!text.spaced.isEmpty());
        QVERIFY(text.hasWords(request.title));
        QVERIFY(text.hasWords(QStringLiteral("TrainIO version")));
        QVERIFY(text.hasNumber(QStringLiteral(TRAINIO_VERSION)));
        QVERIFY(text.hasIdentifier(QSysInfo::machineHostName()));
        for (std::size_t i : chosen) {
            const auto a = aggregate::aggregateGroup(imp, imp.groups[i]);
            QVERIFY2(text.hasIdentifier(workload(a.group.identity)), qPrintable(workload(a.group.identity)));
            QVERIFY2(text.hasIdentifier(QString::fromStdString(a.group.system)), a.group.system.c_str());
            verifyGroupNumbers(text, imp, a);
            if (QTest::currentTestFailed()) return;
            QVERIFY(text.hasWords(a.checks.empty() ? QStringLiteral("PASS") : QStringLiteral("FAIL")));
        }
        verifyLegendAndRules(text, aggregate::aggregateGroup(imp, imp.groups[chosen.front()]));
        if (QTest::currentTestFailed()) return;
        // Only the checked groups: a workload none of them has does not appear.
        for (const auto& g : imp.groups) {
            const QString w = workload(g.identity);
            if (!chosenWorkloads.count(w)) QVERIFY2(!text.hasIdentifier(w), qPrintable(w + QStringLiteral(" was not checked")));
        }
        // The figures are vectors: their titles and axis labels are text, and the file holds no raster image.
        for (const char* words : {"AU per epoch", "Throughput per epoch", "Comparison across groups", "Bandwidth",
                                  "pass threshold"})
            QVERIFY2(text.hasWords(QString::fromLatin1(words)), words);
        QVERIFY(text.spaced.count(QStringLiteral("epoch")) >= static_cast<qsizetype>(2 * chosen.size()));
        QCOMPARE(pdfRasterImages(pdf), 0);
        QVERIFY(pdfPages(pdf) > static_cast<int>(chosen.size()));
    }

    void wholeFixtureTree() {
        // Every published group in one report: each gets its section, workloads with many groups get
        // stacked comparison figures, and the whole thing stays vector-only.
        const auto imp = aggregate::importResults({mlperfFixtures()});
        ui::ReportRequest request;
        request.paths = {mlperfFixtures()};
        const QString pdf = work_.filePath(QStringLiteral("all.pdf"));
        QString error;
        QVERIFY2(ui::writeReportPdf(request, pdf, &error), qPrintable(error));
        const PdfText text = pdfText(pdf);
        for (std::size_t i = 0; i < imp.groups.size(); ++i) {
            const auto& g = imp.groups[i];
            QVERIFY2(text.hasIdentifier(QString::fromStdString(g.system)), g.system.c_str());
            const auto a = aggregate::aggregateGroup(imp, g);
            QVERIFY(text.hasNumber(f2(a.samplesPerSecond.mean.value)));
        }
        QVERIFY(pdfPages(pdf) > static_cast<int>(imp.groups.size()));
        QCOMPARE(pdfRasterImages(pdf), 0);
    }

    void trainioBenchmarkReport() {
        const auto imp = aggregate::importResults({benchDir_.toStdString()});
        QCOMPARE(imp.groups.size(), std::size_t(1));
        const auto a = aggregate::aggregateGroup(imp, imp.groups.front());
        QCOMPARE(a.group.runs.size(), std::size_t(5));
        QCOMPARE(a.group.warmups.size(), std::size_t(1));

        ui::ReportRequest request;
        request.paths = {benchDir_.toStdString()};
        const QString pdf = work_.filePath(QStringLiteral("tiny.pdf"));
        QString error;
        QVERIFY2(ui::writeReportPdf(request, pdf, &error), qPrintable(error));
        const PdfText text = pdfText(pdf);
        QVERIFY(text.hasWords(QStringLiteral("TrainIO report"))); // the default title
        QVERIFY(text.hasIdentifier(QStringLiteral("tinyreport")));
        verifyGroupNumbers(text, imp, a);
        if (QTest::currentTestFailed()) return;
        verifyLegendAndRules(text, a);
        if (QTest::currentTestFailed()) return;
        // The warm-up is listed apart, with its own numbers, and said to be excluded.
        QVERIFY(text.hasWords(QStringLiteral("Warm-up — excluded from every statistic")));
        const auto& warm = imp.runs[a.group.warmups.front()];
        QVERIFY(text.hasNumber(f2(warm.auMeanPercent)));
        QVERIFY(text.hasNumber(f2(warm.samplesPerSecond)));
        QVERIFY(text.hasWords(QStringLiteral("warmup (excluded)"))); // its line in the per-epoch plots
        // A 1 MiB dataset fails MLPerf's dataset-size rule; the sentence is printed.
        QVERIFY(!a.checks.empty());
        QVERIFY(text.hasWords(QStringLiteral("FAIL")));
        // The run's configuration, from its configs/config.yaml.
        QVERIFY(text.hasIdentifier(QStringLiteral("train.computation_time")));
        QVERIFY(text.hasNumber(QStringLiteral("0.002")));
        QVERIFY(text.hasNumber(QStringLiteral("65536")));
        QCOMPARE(pdfRasterImages(pdf), 0);
        QVERIFY(pdfPages(pdf) > 1);
    }

    void badInputFailsWithThePath() {
        QString error;
        ui::ReportRequest empty;
        const QString emptyDir = work_.filePath(QStringLiteral("empty"));
        QVERIFY(QDir().mkpath(emptyDir));
        empty.paths = {emptyDir.toStdString()};
        const QString pdf = work_.filePath(QStringLiteral("bad.pdf"));
        QVERIFY(!ui::writeReportPdf(empty, pdf, &error));
        QVERIFY2(error.contains(emptyDir), qPrintable(error));
        QVERIFY(!QFileInfo::exists(pdf));

        // A summary.json that is not one.
        const QString junkDir = work_.filePath(QStringLiteral("junk/run1"));
        testsupport::writeText((junkDir + QStringLiteral("/summary.json")).toStdString(), "{ not json");
        ui::ReportRequest junk;
        junk.paths = {work_.filePath(QStringLiteral("junk")).toStdString()};
        error.clear();
        QVERIFY(!ui::writeReportPdf(junk, pdf, &error));
        QVERIFY2(error.contains(work_.filePath(QStringLiteral("junk"))), qPrintable(error));

        ui::ReportRequest good;
        good.paths = {benchDir_.toStdString()};
        for (const QString& target : {work_.filePath(QStringLiteral("no/such/dir/report.pdf")), work_.path()}) {
            error.clear();
            QVERIFY(!ui::writeReportPdf(good, target, &error));
            QVERIFY2(error.contains(target), qPrintable(error));
            error.clear();
            QVERIFY(!ui::exportAggregateCsv(good, target, &error));
            QVERIFY2(error.contains(target), qPrintable(error));
            error.clear();
            QVERIFY(!ui::exportAggregateJson(good, target, &error));
            QVERIFY2(error.contains(target), qPrintable(error));
        }

        // A failed write leaves an existing report untouched.
        testsupport::writeText(pdf.toStdString(), "previous report");
        QVERIFY(!ui::writeReportPdf(empty, pdf, &error));
        QCOMPARE(testsupport::readText(pdf.toStdString()), std::string("previous report"));

        ui::ReportRequest unknownKey = good;
        unknownKey.checkedGroupKeys = {QStringLiteral("no such group")};
        error.clear();
        QVERIFY(!ui::writeReportPdf(unknownKey, pdf, &error));
        QVERIFY2(error.contains(benchDir_), qPrintable(error));
    }

    void csvAndJsonExports() {
        const auto imp = aggregate::importResults({mlperfFixtures()});
        std::vector<std::size_t> chosen{0, imp.groups.size() / 2, imp.groups.size() - 1};
        ui::ReportRequest request;
        request.paths = {mlperfFixtures()};
        std::set<QString> keys;
        for (std::size_t i : chosen) {
            request.checkedGroupKeys << ui::groupKey(imp.groups[i]);
            keys.insert(ui::groupKey(imp.groups[i]));
        }

        const QString csv = work_.filePath(QStringLiteral("groups.csv"));
        QString error;
        QVERIFY2(ui::exportAggregateCsv(request, csv, &error), qPrintable(error));
        const QStringList lines = QString::fromStdString(testsupport::readText(csv.toStdString())).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), static_cast<qsizetype>(chosen.size() + 1));
        const QStringList header = lines.front().split(QLatin1Char(','));
        const auto column = [&](const char* name) { return header.indexOf(QString::fromLatin1(name)); };
        QVERIFY(column("path") == 0 && column("train_throughput_mean_samples_per_second") > 0);
        for (qsizetype l = 1; l < lines.size(); ++l) {
            const QStringList f = lines[l].split(QLatin1Char(','));
            QVERIFY(f.size() >= header.size());
            // The row's numbers are the group's aggregate.
            bool matched = false;
            for (std::size_t i : chosen) {
                const auto& g = imp.groups[i];
                if (QString::fromStdString(g.path.string()) != f[0] || workload(g.identity) != f[column("model")] + QStringLiteral("_") + f[column("accelerator")])
                    continue;
                const auto a = aggregate::aggregateGroup(imp, g);
                QCOMPARE(f[column("train_throughput_mean_samples_per_second")].toDouble(), a.samplesPerSecond.mean.value);
                QCOMPARE(f[column("train_throughput_mean_MB_per_second")].toDouble(), a.mibPerSecond.mean.value);
                QCOMPARE(f[column("train_au_mean_percentage")].toDouble(), a.au.mean.value);
                matched = true;
            }
            QVERIFY2(matched, qPrintable(lines[l]));
        }

        const QString jsonFile = work_.filePath(QStringLiteral("groups.json"));
        QVERIFY2(ui::exportAggregateJson(request, jsonFile, &error), qPrintable(error));
        const auto j = nlohmann::json::parse(testsupport::readText(jsonFile.toStdString()));
        QCOMPARE(j["groups"].size(), chosen.size());
        QVERIFY(j["skipped"].is_array());
        QCOMPARE(QString::fromStdString(j["generator"].get<std::string>()), QStringLiteral("TrainIO " TRAINIO_VERSION));
        for (const auto& g : j["groups"]) {
            const QString key = QString::fromStdString(g["group_key"].get<std::string>());
            QVERIFY2(keys.count(key), qPrintable(key));
            const auto it = std::find_if(imp.groups.begin(), imp.groups.end(),
                                         [&](const auto& rg) { return ui::groupKey(rg) == key; });
            QVERIFY(it != imp.groups.end());
            const auto a = aggregate::aggregateGroup(imp, *it);
            QCOMPARE(g["train_throughput_mean_samples_per_second"].get<double>(), a.samplesPerSecond.mean.value);
            QCOMPARE(g["statistics"]["train_au_percentage"]["ci95"]["low"].get<double>(), a.au.ci95.low);
            QCOMPARE(g["num_runs"].get<std::size_t>(), it->runs.size());
            QCOMPARE(g["checks"].size(), a.checks.size());
        }
    }
};

QTEST_MAIN(TestReport)
#include "tst_report.moc"
