// The PDF report and the data exports, built from an in-memory ResultsLibrary and the selected items:
// published MLPerf Storage v1.0 benchmarks and TrainIO benchmarks generated here (one run made to fail
// with the CLI's fault-injection hook), read back with poppler's pdftotext / pdfinfo / pdfimages.
// Expected numbers are computed in the test from the summary.json files; labels are written by hand.
#include "testsupport.h"

// moc sees /usr/include/c++/12 here (QCustomPlot's include directory is /usr/include) and cannot parse
// <compare>, which the core headers use; moc needs none of them.
#ifndef Q_MOC_RUN
#include "aggregate/compare.h"
#include "aggregate/results_import.h"
#include "aggregate/results_library.h"
#include "config/config_loader.h"
#include "gui_arguments.h"
#include "io/emulated_storage.h"
#include "report/report_writer.h"
#include "session/benchmark_runner.h"
#include "report_pdf_support.h"

#include <qcustomplot.h>

#include <nlohmann/json.hpp>
#endif

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>

#include <cmath>
#include <functional>
#include <map>
#include <set>

namespace fs = std::filesystem;
using namespace trainio;

using namespace reporttest;

namespace {

const char* kTinyConfig = "model:\n  name: tinyreport\nframework: pytorch\nworkflow:\n  generate_data: False\n"
                          "  train: True\ndataset:\n  data_folder: %1\n  format: npz\n  num_files_train: 16\n"
                          "  num_samples_per_file: 1\n  record_length_bytes: 65536\nreader:\n  data_loader: pytorch\n"
                          "  batch_size: 2\n  read_threads: 2\ntrain:\n  epochs: 2\n  computation_time: %2\nmetric:\n  au: 0.5\n";

const QString kSystem = QStringLiteral("lab-nvme-01");
const QString kDescription = QStringLiteral("ext4 on 1x Samsung PM9A3 3.84 TB, noatime; 1 client");
const QString kOtherName = QStringLiteral("zz-unselected-probe");

} // namespace

class TestReport : public QObject {
    Q_OBJECT

    QTemporaryDir work_;
    fs::path lab_, bench_, other_;

private slots:
    void initTestCase() {
        QVERIFY(work_.isValid());
        keepFilesIfAsked(work_);
        for (const char* tool : {"pdftotext", "pdfinfo", "pdfimages"})
            QVERIFY2(!QStandardPaths::findExecutable(QString::fromLatin1(tool)).isEmpty(),
                     "poppler-utils is needed to read the reports back");
        lab_ = fs::path(work_.path().toStdString()) / "lab";
        bench_ = lab_ / "bench";
        other_ = lab_ / "other";
        const QString data = work_.filePath(QStringLiteral("data"));
        const QString cfg = work_.filePath(QStringLiteral("tiny.yaml"));
        testsupport::writeText(cfg.toStdString(), QString::fromLatin1(kTinyConfig).arg(data, QStringLiteral("0.002")).toStdString());
        const QString cfg2 = work_.filePath(QStringLiteral("tiny2.yaml"));
        testsupport::writeText(cfg2.toStdString(), QString::fromLatin1(kTinyConfig).arg(data, QStringLiteral("0.004")).toStdString());
        auto gen = testsupport::runCli({QStringLiteral("datagen"), QStringLiteral("--config"), cfg, QStringLiteral("--quiet")});
        QVERIFY2(gen.exitCode == 0, qPrintable(gen.err));
        // 1 warm-up + 3 runs; each run reads the 16 files once per epoch, so skipping 3 × 32 + 20 reads
        // makes the 3rd run fail with EIO in its second epoch (docs/reliability.md, TRAINIO_FAULTS).
        const auto r = testsupport::runCli({QStringLiteral("benchmark"), QStringLiteral("--config"), cfg, QStringLiteral("--output"),
                                            QString::fromStdString(bench_.string()), QStringLiteral("--runs"), QStringLiteral("3"),
                                            QStringLiteral("--quiet")},
                                           300000, {{QStringLiteral("TRAINIO_FAULTS"), QStringLiteral("read:EIO:%1:skip=116:count=1").arg(data)}});
        QVERIFY2(r.exitCode == 0 || r.exitCode == 1, qPrintable(r.err));
        const auto run3 = nlohmann::json::parse(testsupport::readText(bench_ / "runs" / "run-3" / "trainio_run.json"));
        QCOMPARE(QString::fromStdString(run3["status"].get<std::string>()), QStringLiteral("failed"));
        const auto o = testsupport::runCli({QStringLiteral("run"), QStringLiteral("--config"), cfg2, QStringLiteral("--output"),
                                            QString::fromStdString(other_.string()), QStringLiteral("--quiet")});
        QVERIFY2(o.exitCode == 0, qPrintable(o.err));
        // Labels as docs/aggregation.md describes them, written by hand.
        testsupport::writeText(lab_ / "trainio_labels.json",
                               nlohmann::json{{"system", kSystem.toStdString()}, {"description", kDescription.toStdString()},
                                              {"notes", "rack 4, firmware 1.2"}}.dump());
        testsupport::writeText(other_ / "trainio_labels.json", nlohmann::json{{"name", kOtherName.toStdString()}}.dump());
    }

    void headlessReportHoldsTitleSystemAndStatus() {
        const QString notesFile = work_.filePath(QStringLiteral("notes.txt"));
        testsupport::writeText(notesFile.toStdString(), "Measured for Müller GmbH.\nSecond line: 3 × NVMe.\n");
        ui::ReportRequest request;
        request.paths = {lab_};
        request.options.title = QStringLiteral("Storage qualification Q4");
        request.options.subtitle = QStringLiteral("lab NVMe against the published reference");
        QString error;
        QVERIFY2(ui::readNotesFile(notesFile, &request.options.notes, &error), qPrintable(error));
        const QString pdf = work_.filePath(QStringLiteral("out/headless.pdf"));
        QVERIFY(QDir().mkpath(QFileInfo(pdf).path()));
        QVERIFY2(ui::writeReportPdf(request, pdf, &error), qPrintable(error));
        QVERIFY(noTemporaryFilesIn(QFileInfo(pdf).path(), QStringLiteral("headless.pdf")));
        const PdfText text = pdfText(pdf);
        QVERIFY(!text.spaced.isEmpty());
        QVERIFY(text.hasWords(request.options.title));
        QVERIFY(text.hasWords(request.options.subtitle));
        QVERIFY(text.hasWords(QStringLiteral("Measured for Müller GmbH.")));
        QVERIFY(text.hasWords(QStringLiteral("Second line: 3 × NVMe.")));
        QVERIFY(text.hasIdentifier(kSystem));
        QVERIFY(text.hasWords(kDescription));
        QVERIFY(text.hasWords(QStringLiteral("rack 4, firmware 1.2")));
        QVERIFY(text.hasWords(QStringLiteral("Read GiB/s")));
        QVERIFY(text.hasWords(QStringLiteral("± is the population standard deviation")));

        // Read B/W of the benchmark: the mean over its complete runs (run-1, run-2) of
        // train_io_mean_MB_per_second ÷ 1024, from the summary.json files.
        std::vector<double> mib;
        for (const char* run : {"run-1", "run-2"})
            mib.push_back(nlohmann::json::parse(testsupport::readText(bench_ / "runs" / run / "summary.json"))["metric"]["train_io_mean_MB_per_second"].get<double>());
        QVERIFY2(text.hasNumber(fixed(testsupport::meanOf(mib) / 1024.0, 3)), qPrintable(fixed(testsupport::meanOf(mib) / 1024.0, 3)));

        // The failed run: listed, marked excluded, with the error the run wrote.
        QVERIFY(text.hasIdentifier(QStringLiteral("run-3")));
        QVERIFY(text.hasWords(QStringLiteral("failed")));
        QVERIFY(text.hasWords(QStringLiteral("(excluded)")));
        QVERIFY(text.hasWords(QStringLiteral("Input/output error")));
        QVERIFY(text.hasWords(QStringLiteral("run-3 (failed, excluded)"))); // its line in the per-epoch plots
        // Per step and per accelerator, from the median run's records.
        QVERIFY(text.hasWords(QStringLiteral("Load time per step")));
        QVERIFY(text.hasWords(QStringLiteral("is the median of the 2 complete runs")));
        QVERIFY(text.hasWords(QStringLiteral("Accelerator (rank)")));
        // Figures are vectors: no raster image in the file.
        QCOMPARE(pdfRasterImages(pdf), 0);
        QVERIFY(pdfPages(pdf) >= 2);
    }

    // Issue 30 (the first run says only what is true): a TrainIO benchmark not meant as a submission (2 of 3
    // runs complete, a dataset far below 5 × the memory) is not failed by MLPerf Storage's submission rules in
    // the checks appendix: they are listed under "not a submission", and the same benchmark marked as a
    // submission (its runs' configs say trainio.submission: true) fails them.
    void checksOfABenchmarkNotMeantAsASubmission() {
        ui::ReportRequest request;
        request.paths = {bench_};
        QString error;
        const QString pdf = work_.filePath(QStringLiteral("issue30/not-a-submission.pdf"));
        QVERIFY(QDir().mkpath(QFileInfo(pdf).path()));
        QVERIFY2(ui::writeReportPdf(request, pdf, &error), qPrintable(error));
        const PdfText text = pdfText(pdf);
        QVERIFY2(text.hasWords(QStringLiteral("not a submission: 2 MLPerf Storage rules would not allow it as one")), qPrintable(text.spaced));

        const fs::path marked = fs::path(work_.path().toStdString()) / "marked";
        fs::copy(bench_, marked, fs::copy_options::recursive);
        for (const auto& e : fs::recursive_directory_iterator(marked))
            if (e.path().filename() == "config.yaml")
                // The trainio section is the last of config.yaml's workload (workload: → trainio: → its keys).
                testsupport::writeText(e.path(), testsupport::readText(e.path()) + "    submission: true\n");
        request.paths = {marked};
        const QString pdf2 = work_.filePath(QStringLiteral("issue30/submission.pdf"));
        QVERIFY2(ui::writeReportPdf(request, pdf2, &error), qPrintable(error));
        const PdfText text2 = pdfText(pdf2);
        QVERIFY2(text2.hasWords(QStringLiteral("FAIL")), qPrintable(text2.spaced));
        QVERIFY2(!text2.hasWords(QStringLiteral("not a submission")), qPrintable(text2.spaced));
    }

    // The real program, as a user runs it headless: `trainio --report PATH --output F.pdf --title T
    // --subtitle S --notes FILE` (the GUI binary; it picks the offscreen platform itself).
    void realProgramWritesTheReportHeadless() {
        const QString notesFile = work_.filePath(QStringLiteral("binary-notes.txt"));
        testsupport::writeText(notesFile.toStdString(), "Handed to Müller GmbH after the firmware update.\n");
        const QString pdf = work_.filePath(QStringLiteral("binary/report.pdf"));
        QVERIFY(QDir().mkpath(QFileInfo(pdf).path()));
        QProcess p;
        p.start(QStringLiteral(TRAINIO_GUI),
                {QStringLiteral("--report"), QString::fromStdString(lab_.string()), QStringLiteral("--output"), pdf,
                 QStringLiteral("--title"), QStringLiteral("Qualification of lab NVMe"), QStringLiteral("--subtitle"),
                 QStringLiteral("UNet3D-like tiny workload, 2 runs"), QStringLiteral("--notes"), notesFile});
        QVERIFY2(p.waitForStarted(testsupport::kHangMs), qPrintable(p.errorString()));
        QVERIFY(p.waitForFinished(300000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QVERIFY2(p.exitCode() == 0, qPrintable(err));
        QCOMPARE(QString::fromUtf8(p.readAllStandardOutput()).trimmed(), QFileInfo(pdf).absoluteFilePath());
        const PdfText text = pdfText(pdf);
        QVERIFY(!text.spaced.isEmpty());
        QVERIFY(text.hasIdentifier(kSystem));
        // Title, subtitle, notes, the system's description, Read GiB/s, and the per-step plots that come
        // with the library the program imported.
        for (const QString& words : {QStringLiteral("Qualification of lab NVMe"), QStringLiteral("UNet3D-like tiny workload, 2 runs"),
                                     QStringLiteral("Handed to Müller GmbH after the firmware update."), kDescription,
                                     QStringLiteral("GiB/s"), QStringLiteral("Load time per step")})
            QVERIFY2(text.hasWords(words), qPrintable(words));
        // A notes file that is not text: refused, exit 2, nothing written.
        const QString bad = work_.filePath(QStringLiteral("binary-notes.bin"));
        testsupport::writeText(bad.toStdString(), std::string("\x00\x01binary", 8));
        const QString never = work_.filePath(QStringLiteral("binary/never.pdf"));
        p.start(QStringLiteral(TRAINIO_GUI), {QStringLiteral("--report"), QString::fromStdString(lab_.string()),
                                               QStringLiteral("--output"), never, QStringLiteral("--notes"), bad});
        QVERIFY(p.waitForFinished(testsupport::kHangMs));
        QCOMPARE(p.exitCode(), 2);
        QVERIFY(!QFileInfo::exists(never));
    }

    // Every figure of a report as it is drawn on its page: bar value axes start at zero (two published
    // benchmarks whose AU differ by a fraction of a percent once made an axis of 18.50–18.58), and every
    // legend, with its entries at their full width, lies inside its figure (no "pass thresholc").
    void barAxesFromZeroAndNoLegendClipped() {
        const fs::path juice = testsupport::fixtures() / "mlperf-storage-v1.0" / "Closed" / "Juicedata" / "results" /
                               "JuiceFS-cloud-nvme-distributed-cache";
        const aggregate::ResultsLibrary lib(aggregate::importResults({lab_, juice / "unet3d-1acc", juice / "unet3d-2acc"}, withSteps()));
        const auto* one = benchmarkAt(lib, juice / "unet3d-1acc");
        const auto* two = benchmarkAt(lib, juice / "unet3d-2acc");
        const auto* bench = benchmarkAt(lib, bench_);
        QVERIFY(one && two && bench);
        int bars = 0, legends = 0;
        QStringList problems;
        const auto observe = [&](QCustomPlot& plot, int w, int h) {
            // Laid out again at the size it had on the page.
            plot.setViewport(QRect(0, 0, w, h));
            plot.replot(QCustomPlot::rpImmediateRefresh);
            const QString title = plot.plotLayout()->elementCount() > 0 && qobject_cast<QCPTextElement*>(plot.plotLayout()->element(0, 0))
                                      ? qobject_cast<QCPTextElement*>(plot.plotLayout()->element(0, 0))->text()
                                      : QStringLiteral("(untitled)");
            for (int i = 0; i < plot.plottableCount(); ++i)
                if (auto* b = qobject_cast<QCPBars*>(plot.plottable(i))) {
                    ++bars;
                    if (b->valueAxis()->range().lower != 0.0)
                        problems << QStringLiteral("%1: value axis from %2").arg(title).arg(b->valueAxis()->range().lower);
                }
            if (!plot.legend->visible() || plot.legend->itemCount() == 0) return;
            ++legends;
            const QRect figure(0, 0, w, h);
            if (!figure.contains(plot.legend->outerRect()))
                problems << QStringLiteral("%1: legend %2,%3 %4×%5 outside the %6×%7 figure")
                                .arg(title)
                                .arg(plot.legend->outerRect().x())
                                .arg(plot.legend->outerRect().y())
                                .arg(plot.legend->outerRect().width())
                                .arg(plot.legend->outerRect().height())
                                .arg(w)
                                .arg(h);
            for (int k = 0; k < plot.plottableCount(); ++k) {
                // Through the base class: QCPPlottableLegendItem makes its size hint protected.
                const QCPLayoutElement* item = plot.legend->itemWithPlottable(plot.plottable(k));
                if (!item) continue;
                const QString name = plot.plottable(k)->name();
                if (!figure.contains(item->outerRect()) || item->outerRect().width() < item->minimumOuterSizeHint().width())
                    problems << QStringLiteral("%1: legend entry \"%2\" clipped (%3 px of %4)")
                                    .arg(title, name)
                                    .arg(item->outerRect().width())
                                    .arg(item->minimumOuterSizeHint().width());
            }
        };
        ui::ReportOptions options;
        options.title = QStringLiteral("Figures");
        const QString pdf = work_.filePath(QStringLiteral("figures.pdf"));
        QString error;
        QVERIFY2(ui::writeReportPdf(lib, {one, two, bench}, options, pdf, &error, observe), qPrintable(error));
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
        QVERIFY2(bars >= 2, qPrintable(QString::number(bars))); // AU and Read B/W of the unet3d pair
        QVERIFY2(legends >= 4, qPrintable(QString::number(legends))); // per-epoch and per-step plots
        // The published AU of the two benchmarks (their reports' runs): close to each other, far from 0 —
        // the case a zoomed axis would exaggerate.
        const double au1 = testsupport::meanOf(summaryMetric(juice / "unet3d-1acc", "train_au_mean_percentage"));
        const double au2 = testsupport::meanOf(summaryMetric(juice / "unet3d-2acc", "train_au_mean_percentage"));
        QVERIFY2(std::fabs(au1 - au2) < 0.1 * au1, qPrintable(QStringLiteral("%1 %2").arg(au1).arg(au2)));
    }

    // The report is built from the library in memory: with the run folders' step records and telemetry
    // gone after the import, the per-step plots and the telemetry are still in it.
    void reportReadsNoRunFolder() {
        // One run with telemetry sampled every 50 ms (16 steps of 30 ms).
        const fs::path copy = fs::path(work_.path().toStdString()) / "memory";
        const QString cfg = work_.filePath(QStringLiteral("memory.yaml"));
        testsupport::writeText(cfg.toStdString(),
                               QString::fromLatin1(kTinyConfig).arg(work_.filePath(QStringLiteral("data")), QStringLiteral("0.03")).toStdString());
        const auto o = testsupport::runCli({QStringLiteral("run"), QStringLiteral("--config"), cfg, QStringLiteral("--output"),
                                            QString::fromStdString((copy / "run").string()), QStringLiteral("--quiet"),
                                            QStringLiteral("++trainio.telemetry_interval_s=0.05")});
        QVERIFY2(o.exitCode == 0, qPrintable(o.err));
        const aggregate::ResultsLibrary lib(aggregate::importResults({copy}, withSteps()));
        const auto items = ui::reportItems(lib, {});
        QCOMPARE(items.size(), std::size_t(1));
        std::vector<fs::path> records;
        for (const auto& e : fs::directory_iterator(copy / "run")) {
            const std::string name = e.path().filename().string();
            if (name.find("_output.json") != std::string::npos || name.find("per_epoch_stats.json") != std::string::npos ||
                name == "telemetry.json" || name == "telemetry.csv")
                records.push_back(e.path());
        }
        QVERIFY(records.size() >= 3);
        for (const auto& f : records) QVERIFY(fs::remove(f));
        const QString pdf = work_.filePath(QStringLiteral("from-memory.pdf"));
        QString error;
        QVERIFY2(ui::writeReportPdf(lib, items, {}, pdf, &error), qPrintable(error));
        const PdfText text = pdfText(pdf);
        QVERIFY(text.hasWords(QStringLiteral("Load time per step")));
        QVERIFY(text.hasWords(QStringLiteral("Accelerator (rank)")));
        QVERIFY(!text.hasWords(QStringLiteral("not readable")));
        QVERIFY(text.hasWords(QStringLiteral("Client CPU busy")));
        // A library imported without them says so instead of reading the folders.
        const aggregate::ResultsLibrary plain(aggregate::importResults({copy}));
        QVERIFY2(ui::writeReportPdf(plain, ui::reportItems(plain, {}), {}, pdf, &error), qPrintable(error));
        QVERIFY(pdfText(pdf).hasWords(QStringLiteral("per-step records were not loaded with the library")));
    }

    void onlySelectedItemsAppear() {
        const aggregate::ResultsLibrary lib(aggregate::importResults({lab_}));
        const auto* bench = benchmarkAt(lib, bench_);
        QVERIFY(bench);
        const auto* other = findNode(lib.root(), [&](const aggregate::LibraryNode& n) {
            return (n.kind == aggregate::NodeKind::Benchmark || n.kind == aggregate::NodeKind::Invocation) &&
                   fs::weakly_canonical(n.path) == fs::weakly_canonical(other_);
        });
        QVERIFY(other);
        QCOMPARE(nameOf(*other), kOtherName); // the label names the item
        const auto items = ui::reportItems(lib, {bench});
        QCOMPARE(items.size(), std::size_t(1));
        const QString pdf = work_.filePath(QStringLiteral("selected.pdf"));
        QString error;
        QVERIFY2(ui::writeReportPdf(lib, items, {}, pdf, &error), qPrintable(error));
        const PdfText text = pdfText(pdf);
        QVERIFY(text.hasIdentifier(nameOf(*bench)));
        QVERIFY(text.hasWords(QStringLiteral("TrainIO report"))); // the default title
        QVERIFY2(!text.hasIdentifier(kOtherName), "an unselected item is in the report");
        // Provenance names the item's folder, not the library's other folders.
        QVERIFY(text.hasIdentifier(QString::fromStdString(bench->path.string())));
        QVERIFY(!text.hasIdentifier(QString::fromStdString(other_.string())));

        // The exports hold the same single item.
        const QString json = work_.filePath(QStringLiteral("selected.json"));
        QVERIFY2(ui::exportItemsJson(lib, items, json, &error), qPrintable(error));
        const auto j = nlohmann::json::parse(testsupport::readText(json.toStdString()));
        QCOMPARE(j["items"].size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(j["items"][0]["name"].get<std::string>()), nameOf(*bench));
        QCOMPARE(j["items"][0]["excluded"].size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(j["items"][0]["excluded"][0]["status"].get<std::string>()), QStringLiteral("failed"));
        const QString csv = work_.filePath(QStringLiteral("selected.csv"));
        QVERIFY2(ui::exportItemsCsv(lib, items, csv, &error), qPrintable(error));
        const QString csvText = QString::fromStdString(testsupport::readText(csv.toStdString()));
        QCOMPARE(csvText.count(QLatin1Char('\n')), 2); // header + one row
        QVERIFY(!csvText.contains(QString::fromStdString(other_.string())));
    }

    void mlperfComparisonWithBaseline() {
        const fs::path root = testsupport::fixtures() / "mlperf-storage-v1.0" / "Closed" / "Hammerspace";
        const fs::path one = root / "results" / "Hammerspace_unet3d_1Client_H100";
        const fs::path five = root / "results" / "Hammerspace_unet3d_5Client_H100";
        const fs::path resnet = root / "results" / "Hammerspace_resnet50_1Client_H100";
        const aggregate::ResultsLibrary lib(aggregate::importResults({root}, withSteps()));
        const auto* a = benchmarkAt(lib, one);
        const auto* b = benchmarkAt(lib, five);
        const auto* c = benchmarkAt(lib, resnet);
        QVERIFY(a && b && c);
        ui::ReportOptions options;
        options.title = QStringLiteral("Hammerspace v1.0");
        options.baseline = 0;
        const QString pdf = work_.filePath(QStringLiteral("mlperf.pdf"));
        QString error;
        QVERIFY2(ui::writeReportPdf(lib, {a, b, c}, options, pdf, &error), qPrintable(error));
        const PdfText text = pdfText(pdf);
        for (const auto* n : {a, b, c}) QVERIFY2(text.hasIdentifier(nameOf(*n)), qPrintable(nameOf(*n)));
        // An unselected benchmark of the same tree is absent.
        const auto* unselected = benchmarkAt(lib, root / "results" / "Hammerspace_resnet50_5Client_A100");
        QVERIFY(unselected);
        QVERIFY(!text.hasIdentifier(QString::fromStdString(unselected->path.string())));

        // Read B/W (GiB/s) of each unet3d benchmark, from its summary.json files.
        const auto mibA = summaryMetric(one, "train_io_mean_MB_per_second");
        const auto mibB = summaryMetric(five, "train_io_mean_MB_per_second");
        QCOMPARE(mibA.size(), std::size_t(5));
        QVERIFY(text.hasNumber(fixed(testsupport::meanOf(mibA) / 1024.0, 3)));
        QVERIFY(text.hasNumber(fixed(testsupport::meanOf(mibB) / 1024.0, 3)));
        // Δ AU of the 5-client benchmark against the 1-client baseline, in percentage points.
        const double dAu = testsupport::meanOf(summaryMetric(five, "train_au_mean_percentage")) -
                           testsupport::meanOf(summaryMetric(one, "train_au_mean_percentage"));
        QVERIFY2(text.hasNumber((dAu >= 0 ? QStringLiteral("+") : QString()) + fixed(dAu, 2)), qPrintable(fixed(dAu, 2)));
        // Accelerator counts differ (2 vs 10): per-accelerator values by default.
        QVERIFY(text.hasWords(QStringLiteral("per accelerator")));
        // ResNet-50 is another workload: its own comparison, against its own first item, never beside unet3d.
        QVERIFY(text.hasWords(QStringLiteral("Δ against #1")));
        QVERIFY(text.hasIdentifier(QString::fromStdString(c->workloadTitle)));
        QVERIFY(text.hasIdentifier(QString::fromStdString(a->workloadTitle)));
        QVERIFY(c->workloadTitle != a->workloadTitle);
        // MLPerf v1.0 folders have no <rank>_output.json.
        QVERIFY(text.hasWords(QStringLiteral("no per-step records in this folder")));
        // The system's description, from systems/*.json, is on the title page.
        const aggregate::LibraryNode* system = a->parent;
        while (system && system->kind != aggregate::NodeKind::System) system = system->parent;
        QVERIFY(system);
        QVERIFY(!system->description.empty());
        QVERIFY2(text.hasIdentifier(QString::fromStdString(system->description).left(40)), system->description.c_str());
        QCOMPARE(pdfRasterImages(pdf), 0);

        // Issue 19, item 7: one of the baseline's own invocations (its epochs) beside it (its run means):
        // the Δ without a CI, and the report says the two differ in kind.
        const aggregate::LibraryNode* run = nullptr;
        for (const auto& ch : a->children)
            if (ch->kind == aggregate::NodeKind::Invocation && ch->hasMetrics && !ch->warmup) run = ch.get();
        QVERIFY(run);
        const QString kindPdf = work_.filePath(QStringLiteral("mlperf-kind.pdf"));
        QVERIFY2(ui::writeReportPdf(lib, {a, run}, options, kindPdf, &error), qPrintable(error));
        const PdfText kind = pdfText(kindPdf);
        const QString words = QStringLiteral("no CI: differ in kind: %1 epochs of one invocation vs %2 run means")
                                  .arg(run->au.values.size()).arg(a->au.values.size());
        QVERIFY2(kind.hasWords(words), qPrintable(words + QStringLiteral(" not in: ") +
                                                  kind.spaced.mid(kind.spaced.indexOf(QStringLiteral("Comparison per workload")), 1500)));
    }

    void badInputFailsClearly() {
        QString error;
        const aggregate::ResultsLibrary lib(aggregate::importResults({lab_}));
        const auto* bench = benchmarkAt(lib, bench_);
        QVERIFY(bench);
        // No item, a bad baseline, an unwritable path: false with a message naming the file; nothing written.
        const QString pdf = work_.filePath(QStringLiteral("bad/never.pdf"));
        QVERIFY(!ui::writeReportPdf(lib, {}, {}, pdf, &error));
        QVERIFY(error.contains(pdf));
        ui::ReportOptions badBaseline;
        badBaseline.baseline = 3;
        QVERIFY(!ui::writeReportPdf(lib, {bench}, badBaseline, pdf, &error));
        QVERIFY(error.contains(QStringLiteral("baseline 4")));
        QVERIFY(!ui::writeReportPdf(lib, {&lib.root()}, {}, pdf, &error));
        QVERIFY(error.contains(QStringLiteral("only benchmarks and invocations")));
        QVERIFY(!QFileInfo::exists(pdf));
        ui::ReportRequest nothing;
        nothing.paths = {fs::path(work_.path().toStdString()) / "data"};
        QVERIFY(!ui::writeReportPdf(nothing, work_.filePath(QStringLiteral("n.pdf")), &error));
        QVERIFY(error.contains(QStringLiteral("No importable results")));
    }

    void notesFileIsCheckedAndNamed() {
        QString notes, error;
        const QString missing = work_.filePath(QStringLiteral("no-such-notes.txt"));
        QVERIFY(!ui::readNotesFile(missing, &notes, &error));
        QVERIFY(error.contains(missing));
        QVERIFY(error.contains(QStringLiteral("no such file")));
        const QString binary = work_.filePath(QStringLiteral("binary.txt"));
        testsupport::writeText(binary.toStdString(), std::string("PK\x03\x04\x00\x00zip", 9));
        QVERIFY(!ui::readNotesFile(binary, &notes, &error));
        QVERIFY(error.contains(binary));
        QVERIFY(error.contains(QStringLiteral("not a text file")));
        const QString latin1 = work_.filePath(QStringLiteral("latin1.txt"));
        testsupport::writeText(latin1.toStdString(), "M\xfcller\n");
        QVERIFY(!ui::readNotesFile(latin1, &notes, &error));
        QVERIFY(error.contains(QStringLiteral("UTF-8")));
        const QString big = work_.filePath(QStringLiteral("big.txt"));
        testsupport::writeText(big.toStdString(), std::string(100, 'x'));
        QVERIFY(!ui::readNotesFile(big, &notes, &error, 64));
        QVERIFY(error.contains(QStringLiteral("100 bytes")));
        QVERIFY(!ui::readNotesFile(work_.path(), &notes, &error));
        QVERIFY(error.contains(QStringLiteral("not a regular file")));
        const QString good = work_.filePath(QStringLiteral("good.txt"));
        testsupport::writeText(good.toStdString(), "\xef\xbb\xbf" "Zeile 1 — ü\r\nZeile 2\n");
        QVERIFY2(ui::readNotesFile(good, &notes, &error), qPrintable(error));
        QCOMPARE(notes, QStringLiteral("Zeile 1 — ü\nZeile 2\n"));
    }

    // The telemetry of a run in its item section: the caption, the two plots' titles and the client-bound
    // verdict, whose counts are worked out here from telemetry.json with the documented rule (a row is
    // saturated at cpu_busy_pct >= 90 or proc_cpu_pct >= 90 × allowed_cores; rows after the first).
    void telemetryCaptionAndVerdict() {
        const fs::path run = fs::path(work_.path().toStdString()) / "telem" / "run";
        // 16 steps of 30 ms: about half a second, some ten samples at 50 ms.
        const QString cfg = work_.filePath(QStringLiteral("telem.yaml"));
        testsupport::writeText(cfg.toStdString(),
                               QString::fromLatin1(kTinyConfig).arg(work_.filePath(QStringLiteral("data")), QStringLiteral("0.03")).toStdString());
        const auto o = testsupport::runCli({QStringLiteral("run"), QStringLiteral("--config"), cfg, QStringLiteral("--output"),
                                            QString::fromStdString(run.string()), QStringLiteral("--quiet"),
                                            QStringLiteral("++trainio.telemetry_interval_s=0.05")});
        QVERIFY2(o.exitCode == 0, qPrintable(o.err));
        const auto t = nlohmann::json::parse(testsupport::readText(run / "telemetry.json"));
        std::map<std::string, std::size_t> col;
        for (std::size_t i = 0; i < t["columns"].size(); ++i) col[t["columns"][i]["name"].get<std::string>()] = i;
        const auto& rows = t["rows"];
        QVERIFY(rows.size() >= 3);
        std::size_t saturated = 0;
        for (std::size_t i = 1; i < rows.size(); ++i) {
            const auto& r = rows[i];
            const auto& busy = r[col.at("cpu_busy_pct")];
            const auto& proc = r[col.at("proc_cpu_pct")];
            if ((!busy.is_null() && busy.get<double>() >= 90.0) ||
                (!proc.is_null() && proc.get<double>() >= 90.0 * r[col.at("allowed_cores")].get<double>()))
                ++saturated;
        }
        const std::size_t window = rows.size() - 1;
        const QString pdf = work_.filePath(QStringLiteral("out/telemetry.pdf"));
        QVERIFY(QDir().mkpath(QFileInfo(pdf).path()));
        ui::ReportRequest request;
        request.paths = {run};
        QString error;
        QVERIFY2(ui::writeReportPdf(request, pdf, &error), qPrintable(error));
        const PdfText text = pdfText(pdf);
        QVERIFY(text.hasWords(QStringLiteral("client CPU busy and the data device's reads over the run, sampled every 0.05 s")));
        QVERIFY(text.hasWords(QStringLiteral("Client CPU busy")));
        QVERIFY(text.hasWords(QStringLiteral("Storage reads (")));
        const QString verdict = QStringLiteral("%1: %2 of %3 samples had the client CPU at or above 90 % busy")
                                    .arg(saturated * 2 >= window ? QStringLiteral("Client-bound") : QStringLiteral("Not client-bound"))
                                    .arg(saturated)
                                    .arg(window);
        QVERIFY2(text.hasWords(verdict), qPrintable(verdict + QStringLiteral(" not in: ") + text.spaced.right(3000)));
        // The item's summary line beside the AU, too.
        QVERIFY(text.hasWords(QStringLiteral("Telemetry: Client CPU busy: mean")));
        QCOMPARE(pdfRasterImages(pdf), 0);
    }

    // Where the bytes came from, in an item's section: a page-cached run says so with its epochs' shares
    // (trainio_io.json) and that the numbers describe memory; a run through emulated storage names the
    // device instead and is not flagged, and the live changes of its device are listed under its step
    // plots with their time and values (trainio_io.json storage.changes).
    void bytesSourceAndStorageChanges() {
        const aggregate::ResultsLibrary cachedLib(aggregate::importResults({other_}));
        const auto cachedItems = cachedLib.nodes(aggregate::NodeKind::Invocation);
        QCOMPARE(cachedItems.size(), std::size_t(1));
        QString error;
        const QString cachedPdf = work_.filePath(QStringLiteral("out/cached.pdf"));
        QVERIFY(QDir().mkpath(QFileInfo(cachedPdf).path()));
        QVERIFY2(ui::writeReportPdf(cachedLib, cachedItems, {}, cachedPdf, &error), qPrintable(error));
        const auto io = nlohmann::json::parse(testsupport::readText(other_ / "trainio_io.json"));
        QStringList shares;
        double most = 0;
        for (const auto& e : io.at("epochs")) {
            const double p = e.at("percent_from_cache").get<double>();
            most = std::max(most, p);
            shares << QString::asprintf("%.0f %%", p);
        }
        const PdfText cached = pdfText(cachedPdf);
        const QString cachedLine = QStringLiteral("Bytes from the page cache, per epoch: %1 (cache: keep, engine: posix)").arg(shares.join(QStringLiteral(", ")));
        QVERIFY2(cached.hasWords(cachedLine), qPrintable(cachedLine + QStringLiteral(" not in: ") + cached.spaced.left(3000)));
        // Its dataset was generated and read just before: the cache served it, and the report says what that means.
        QVERIFY2(most > 50.0, io.dump().c_str());
        QVERIFY(cached.hasWords(QStringLiteral("Most bytes of some epochs came from the page cache: those numbers describe memory, not the storage")));
        QVERIFY(!cached.hasWords(QStringLiteral("emulated storage")));

        // The same tiny workload through the hdd profile; as the run starts, its device is changed as the
        // Run page's live controls change it.
        const fs::path run = fs::path(work_.path().toStdString()) / "emulated" / "run";
        WorkloadConfig cfg = loadWorkloadConfigFromString(
                                 QString::fromLatin1(kTinyConfig).arg(work_.filePath(QStringLiteral("data")), QStringLiteral("0.002")).toStdString(),
                                 "tiny.yaml", {"++trainio.storage.profile=hdd"})
                                 .config;
        InvocationOptions opt;
        opt.onStorage = [](std::shared_ptr<EmulatedStorageBackend> device) {
            if (!device) return;
            device->setBandwidth(100 * 1048576.0);
            device->setLatency({LatencyKind::Constant, 1.0, 0.0});
        };
        QVERIFY(runInvocation(cfg, run, opt).status == RunStatus::Complete);
        const auto changes = nlohmann::json::parse(testsupport::readText(run / "trainio_io.json")).at("storage").at("changes");
        QCOMPARE(changes.size(), std::size_t(2));
        aggregate::ImportOptions withSteps;
        withSteps.stepDigests = true; // the per-step plots, where the changes are marked
        const aggregate::ResultsLibrary lib(aggregate::importResults({run}, withSteps));
        const auto items = lib.nodes(aggregate::NodeKind::Invocation);
        QCOMPARE(items.size(), std::size_t(1));
        const QString pdf = work_.filePath(QStringLiteral("out/emulated.pdf"));
        QVERIFY2(ui::writeReportPdf(lib, items, {}, pdf, &error), qPrintable(error));
        const PdfText text = pdfText(pdf);
        const QString line = QStringLiteral("Bytes came through emulated storage hdd (250 MiB/s, lognormal(median 8 ms, sigma 0.5), "
                                            "200 IOPS, 32 in flight), changed 2 time(s) during the run: the numbers describe that "
                                            "device, not the page cache beneath it. From the page cache beneath it, per epoch:");
        QVERIFY2(text.hasWords(line), qPrintable(line + QStringLiteral(" not in: ") + text.spaced.left(3000)));
        QVERIFY2(!text.hasWords(QStringLiteral("describe memory")), "an emulated run is not flagged as measuring the page cache");
        QVERIFY(text.hasWords(QStringLiteral("Emulated storage (hdd) changed during this run (time in s since the run's start; # as marked on the per-step plots)")));
        // Numbered as marked on the per-step plots, each with its step: both were made as the run started, so
        // at step 1 (before the first step). (pdftotext reads the two-line header's cells out of order.)
        const QString table = text.spaced.mid(text.spaced.indexOf(QStringLiteral("as marked on the per-step plots")), 500);
        auto param = [&](std::size_t c) { return QString::fromStdString(changes[c].at("parameter").get<std::string>()); };
        QVERIFY2(table.contains(QStringLiteral("Step")) && table.contains(QStringLiteral(" 1 ") + param(0)) &&
                     table.contains(QStringLiteral("2 ") + fixed(changes[1].at("seconds_since_start").get<double>(), 2) + QStringLiteral(" 1 ") + param(1)),
                 qPrintable(table));
        QVERIFY2(text.hasWords(QStringLiteral("AU per step")), "the per-step plots, where the changes are marked, are in the report");
        for (const auto& c : changes) {
            QVERIFY2(text.hasNumber(fixed(c.at("seconds_since_start").get<double>(), 2)), c.dump().c_str());
            QVERIFY2(text.hasIdentifier(QString::fromStdString(c.at("parameter").get<std::string>())), c.dump().c_str());
            QVERIFY2(text.hasIdentifier(QString::fromStdString(c.at("old_text").get<std::string>())), c.dump().c_str());
            QVERIFY2(text.hasIdentifier(QString::fromStdString(c.at("new_text").get<std::string>())), c.dump().c_str());
        }
        QVERIFY(text.hasWords(QStringLiteral("250 MiB/s")) && text.hasWords(QStringLiteral("100 MiB/s")));
        QVERIFY(text.hasIdentifier(QStringLiteral("lognormal(median 8 ms, sigma 0.5)")) && text.hasWords(QStringLiteral("constant 1 ms")));
        // A run without changes has no such table (the cached report above).
        QVERIFY(!cached.hasWords(QStringLiteral("changed during this run")));
        // Issue 19, item 6: the item's name says the device and its live changes; the cached run's does not.
        QVERIFY2(QString::fromStdString(items[0]->itemName).endsWith(QStringLiteral(" · emulated hdd · changed live ×2")),
                 items[0]->itemName.c_str());
        QVERIFY2(text.hasWords(QStringLiteral("emulated hdd · changed live ×2")), qPrintable(text.spaced.left(3000)));
        QVERIFY(!cached.hasWords(QStringLiteral("changed live")));
    }

    // Issue 13: three runs of one workload that differ only in the loader policy get a "Loader policies"
    // section: one row per policy with the figures recomputed here from each run's trainio_io.json and
    // summary.json, and bars of them (the hit ratio's with the Belady bound as its line). A run of another
    // workload is never put beside them, and a report with one policy has no such section.
    // A run on emulated storage recorded the model's prediction before it (trainio_model.json): the report
    // shows it beside what was measured; a run without emulated storage has none and no such row.
    void modelPredictionBesideMeasurement() {
        const fs::path root = fs::path(work_.path().toStdString()) / "model";
        const std::string yaml =
            QString::fromLatin1(kTinyConfig).arg(work_.filePath(QStringLiteral("data")), QStringLiteral("0.002")).toStdString();
        const WorkloadConfig shaped =
            loadWorkloadConfigFromString(yaml, "tiny.yaml", {"++trainio.storage.bandwidth_mib_s=20", "++train.epochs=2"}).config;
        const fs::path run = root / "shaped";
        QVERIFY(runInvocation(shaped, run, {}).status == RunStatus::Complete);
        const WorkloadConfig free = loadWorkloadConfigFromString(yaml, "tiny.yaml", {"++train.epochs=2"}).config;
        const fs::path plainRun = root / "unshaped";
        QVERIFY(runInvocation(free, plainRun, {}).status == RunStatus::Complete);
        QVERIFY(!fs::exists(plainRun / "trainio_model.json"));

        const aggregate::ResultsLibrary lib(aggregate::importResults({run, plainRun}));
        const QString pdf = work_.filePath(QStringLiteral("out/model.pdf"));
        QVERIFY(QDir().mkpath(QFileInfo(pdf).path()));
        QString error;
        QVERIFY2(ui::writeReportPdf(lib, lib.nodes(aggregate::NodeKind::Invocation), {}, pdf, &error), qPrintable(error));
        const PdfText text = pdfText(pdf);
        QVERIFY2(text.hasWords(QStringLiteral("Model prediction vs measurement")), qPrintable(text.spaced.left(2000)));
        const auto model = nlohmann::json::parse(testsupport::readText(run / "trainio_model.json"));
        const auto summary = nlohmann::json::parse(testsupport::readText(run / "summary.json"));
        const double predicted = model.at("predicted_au_percentage").get<double>();
        const double measured = summary.at("metric").at("train_au_mean_percentage").get<double>();
        // The row (pdftotext reads the headers of the wrapped columns in between): the limit the model named,
        // then predicted, measured, their difference and the samples/s of both.
        QVERIFY(text.hasWords(QStringLiteral("1 ") + QString::fromStdString(model.at("bottleneck").get<std::string>())));
        const QStringList cells = {fixed(predicted, 1), fixed(measured, 1),
                                   (measured >= predicted ? QStringLiteral("+") : QString()) + fixed(measured - predicted, 1),
                                   fixed(model.at("predicted_samples_per_second").get<double>(), 1),
                                   fixed(summary.at("metric").at("train_throughput_mean_samples_per_second").get<double>(), 1)};
        QStringList escaped;
        for (const QString& c : cells) escaped << QRegularExpression::escape(c);
        const QRegularExpression row(escaped.join(QStringLiteral("\\s+")));
        QVERIFY2(row.match(text.spaced).hasMatch(),
                 qPrintable(row.pattern() + QStringLiteral(" not in: ") + text.spaced.mid(text.spaced.indexOf(QStringLiteral("Model prediction vs")), 1200)));

        // Issue 19, item 6: the same run with its device changed live twice (as the Run page's strip records
        // it): not compared with the prediction, and the report says why instead of blaming the model.
        const fs::path live = root / "live";
        fs::copy(run, live, fs::copy_options::recursive);
        auto io = nlohmann::json::parse(testsupport::readText(live / "trainio_io.json"));
        io["storage"]["changes"] = nlohmann::json::parse(R"([
            {"seconds_since_start": 0.3, "parameter": "bandwidth_mib_s", "old": 20, "new": 5},
            {"seconds_since_start": 0.5, "parameter": "bandwidth_mib_s", "old": 5, "new": 20}])");
        testsupport::writeText(live / "trainio_io.json", io.dump());
        const aggregate::ResultsLibrary liveLib(aggregate::importResults({live}));
        const QString livePdf = work_.filePath(QStringLiteral("out/model-live.pdf"));
        QVERIFY2(ui::writeReportPdf(liveLib, liveLib.nodes(aggregate::NodeKind::Invocation), {}, livePdf, &error), qPrintable(error));
        const PdfText liveText = pdfText(livePdf);
        QVERIFY2(liveText.hasWords(QStringLiteral("Not compared with the prediction")) &&
                     liveText.hasWords(QStringLiteral("its storage was changed live 2 times (first at 0.3 s)")),
                 qPrintable(liveText.spaced.mid(liveText.spaced.indexOf(QStringLiteral("Model prediction vs")), 1200)));
        QVERIFY(!row.match(liveText.spaced).hasMatch());

        // Only the run without emulated storage: no prediction, no section.
        const QString none = work_.filePath(QStringLiteral("out/model-none.pdf"));
        const aggregate::ResultsLibrary one(aggregate::importResults({plainRun}));
        QVERIFY2(ui::writeReportPdf(one, one.nodes(aggregate::NodeKind::Invocation), {}, none, &error), qPrintable(error));
        QVERIFY(!pdfText(none).hasWords(QStringLiteral("Model prediction vs measurement")));
    }

    // Issue 32 items 1–3: one tiny workload on 2 accelerators, run on this machine (real storage) and through
    // the emulated nvme profile; copies of them made S3 runs by hand as TrainIO writes them (trainio_io.json
    // "s3": endpoint and bucket; no page cache share) — one straight from the object store, one through the
    // emulated device. Expected figures come from the summary.json files.
    void perAcceleratorFiguresAndHowTheAnswerWasObtained() {
        const fs::path root = fs::path(work_.path().toStdString()) / "issue32";
        const std::string yaml =
            QString::fromLatin1(kTinyConfig).arg(work_.filePath(QStringLiteral("data")), QStringLiteral("0.002")).toStdString();
        InvocationOptions two;
        two.accelerators = 2;
        const WorkloadConfig realCfg = loadWorkloadConfigFromString(yaml, "tiny.yaml", {"++metric.au=0.05"}).config;
        const WorkloadConfig nvmeCfg =
            loadWorkloadConfigFromString(yaml, "tiny.yaml", {"++metric.au=0.05", "++trainio.storage.profile=nvme"}).config;
        const fs::path real = root / "real", nvme = root / "nvme", s3 = root / "s3", s3nvme = root / "s3-nvme";
        QVERIFY(runInvocation(realCfg, real, two).status == RunStatus::Complete);
        QVERIFY(runInvocation(nvmeCfg, nvme, two).status == RunStatus::Complete);
        const std::string endpoint = "http://127.0.0.1:9000";
        for (const auto& [from, to] : {std::pair{real, s3}, std::pair{nvme, s3nvme}}) {
            fs::copy(from, to, fs::copy_options::recursive);
            auto io = nlohmann::json::parse(testsupport::readText(to / "trainio_io.json"));
            io["s3"] = {{"endpoint", endpoint}, {"bucket", "demo"}};
            for (auto& e : io["epochs"]) e["percent_from_cache"] = nullptr;
            testsupport::writeText(to / "trainio_io.json", io.dump());
        }
        const aggregate::ResultsLibrary lib(aggregate::importResults({real, nvme, s3, s3nvme}));
        auto item = [&](const fs::path& dir) {
            return findNode(lib.root(), [&](const aggregate::LibraryNode& n) {
                return n.kind == aggregate::NodeKind::Invocation && fs::weakly_canonical(n.path) == fs::weakly_canonical(dir);
            });
        };
        const aggregate::LibraryNode *realItem = item(real), *nvmeItem = item(nvme), *s3Item = item(s3), *s3NvmeItem = item(s3nvme);
        QVERIFY(realItem && nvmeItem && s3Item && s3NvmeItem);
        QCOMPARE(realItem->accelerators, std::int64_t(2));

        // Item 3: the S3 run through the emulated device is named with both, in the library and in Compare.
        const QString both = QString::fromStdString("S3 at " + endpoint + " through emulated nvme");
        QVERIFY2(nameOf(*s3NvmeItem).endsWith(QStringLiteral(" · ") + both), qPrintable(nameOf(*s3NvmeItem)));
        QVERIFY2(nameOf(*nvmeItem).endsWith(QStringLiteral(" · emulated nvme")), qPrintable(nameOf(*nvmeItem)));
        QCOMPARE(QString::fromStdString(s3Item->s3), QString::fromStdString("S3 at " + endpoint));
        aggregate::CompareOptions co;
        co.baseline = 0;
        const auto cmp = aggregate::compare({realItem, s3NvmeItem}, co);
        QVERIFY2(QString::fromStdString(cmp.rows[1].label).contains(both), cmp.rows[1].label.c_str());
        QVERIFY2(QString::fromStdString(cmp.rows[1].reason).contains(both), cmp.rows[1].reason.c_str());
        // Beside the same device over a file system: not compared either (the store's requests are in one only).
        const auto devices = aggregate::compare({nvmeItem, s3NvmeItem}, co);
        QVERIFY2(!devices.rows[1].comparable && QString::fromStdString(devices.rows[1].reason).startsWith(QStringLiteral("S3 beneath one emulated device only")),
                 devices.rows[1].reason.c_str());
        QVERIFY(aggregate::compare({nvmeItem, nvmeItem}, co).rows[1].comparable);

        // Item 1: per accelerator on, the emulated run (not compared with the real one) shows per-accelerator
        // figures too, in the comparison and in the appendix; no total beside them.
        ui::ReportOptions options;
        options.perAccelerator = true;
        options.itemDetail = false; // the per-item sections print the totals under their own headers
        const QString pdf = work_.filePath(QStringLiteral("out/issue32-per-acc.pdf"));
        QVERIFY(QDir().mkpath(QFileInfo(pdf).path()));
        QString error;
        QVERIFY2(ui::writeReportPdf(lib, {realItem, nvmeItem}, options, pdf, &error), qPrintable(error));
        const PdfText text = pdfText(pdf);
        QVERIFY(text.hasWords(QStringLiteral("not compared")));
        QVERIFY(text.hasWords(QStringLiteral("Read GiB/s per acc.")));
        QVERIFY(text.hasWords(QStringLiteral("samples/s per acc.")) && text.hasWords(QStringLiteral("MiB/s per acc.")));
        for (const fs::path& dir : {real, nvme}) {
            const auto metric = nlohmann::json::parse(testsupport::readText(dir / "summary.json")).at("metric");
            const double mib = metric.at("train_io_mean_MB_per_second").get<double>();
            const double sps = metric.at("train_throughput_mean_samples_per_second").get<double>();
            // "value ± sd" in the tables: the value followed by ±.
            auto cell = [&](double v, int precision) { return QRegularExpression(QStringLiteral("(^|\\s)") + QRegularExpression::escape(fixed(v, precision)) + QStringLiteral(" ±")); };
            QVERIFY2(cell(mib / 1024.0 / 2, 3).match(text.spaced).hasMatch(), qPrintable(QString::fromStdString(dir.string()) + QStringLiteral(" Read GiB/s per acc. ") + fixed(mib / 1024.0 / 2, 3)));
            QVERIFY2(!cell(mib / 1024.0, 3).match(text.spaced).hasMatch(), qPrintable(QString::fromStdString(dir.string()) + QStringLiteral(" total Read GiB/s ") + fixed(mib / 1024.0, 3)));
            QVERIFY2(cell(mib / 2, 2).match(text.spaced).hasMatch(), qPrintable(QString::fromStdString(dir.string()) + QStringLiteral(" MiB/s per acc. ") + fixed(mib / 2, 2)));
            QVERIFY2(cell(sps / 2, 2).match(text.spaced).hasMatch(), qPrintable(QString::fromStdString(dir.string()) + QStringLiteral(" samples/s per acc. ") + fixed(sps / 2, 2)));
        }

        auto squeeze = [](QString t) { return t.remove(QRegularExpression(QStringLiteral("[\\s\\x{00A0}\\x{200B}-]"))); };
        // Item 10: the same reason for several items is said once, naming them all ("#2, #3: …").
        {
            const fs::path nvme2 = root / "nvme2";
            QVERIFY(runInvocation(nvmeCfg, nvme2, two).status == RunStatus::Complete);
            const aggregate::ResultsLibrary three(aggregate::importResults({real, nvme, nvme2}));
            auto in = [&](const fs::path& dir) {
                return findNode(three.root(), [&](const aggregate::LibraryNode& n) {
                    return aggregate::isLibraryItem(n) && fs::weakly_canonical(n.path) == fs::weakly_canonical(dir);
                });
            };
            const aggregate::LibraryNode *r = in(real), *a = in(nvme), *b = in(nvme2);
            QVERIFY(r && a && b && a != b);
            const auto rows = aggregate::compare({r, a, b}, co).rows;
            QVERIFY(!rows[1].comparable && !rows[2].comparable);
            // Core names both items in each reason; the report says it once for both.
            const QString first = QString::fromStdString(rows[1].reason);
            QVERIFY2(first.startsWith(QStringLiteral("emulated vs real storage: ")) && first.contains(QString::fromStdString(a->itemName)),
                     qPrintable(first));
            const QString once = work_.filePath(QStringLiteral("out/issue32-once.pdf"));
            QVERIFY2(ui::writeReportPdf(three, {r, a, b}, {}, once, &error), qPrintable(error));
            const QString all = squeeze(pdfText(once).spaced), reason = squeeze(QStringLiteral(
                "#2, #3: emulated vs real storage: each went through emulated nvme, #1 through real storage"));
            QVERIFY2(all.count(reason) == 1, qPrintable(QStringLiteral("%1 times: %2 in %3").arg(all.count(reason)).arg(reason, all.mid(all.indexOf(QStringLiteral("Notcompared")), 600))));
            QCOMPARE(all.count(squeeze(QStringLiteral("emulated vs real storage"))), 1);
        }

        // Item 2: page 1's answer names how its number was obtained, in the same sentence (compared without
        // white space: the sentence wraps where the page wants, a URL at its zero-width break points).
        auto answer = [&](const aggregate::LibraryNode* n, const QString& name) {
            const QString file = work_.filePath(QStringLiteral("out/issue32-answer-%1.pdf").arg(name));
            QString why;
            if (!ui::writeReportPdf(lib, {n}, {}, file, &why)) return QStringLiteral("no report: ") + why;
            bool ok = false;
            const QString page1 = runTool(QStringLiteral("pdftotext"), {QStringLiteral("-f"), QStringLiteral("1"), QStringLiteral("-l"),
                                                                        QStringLiteral("1"), file, QStringLiteral("-")}, &ok);
            return squeeze(page1);
        };
        const QString keeps = QStringLiteral(" keeps 2 accelerators above the 5 % AU line");
        const QString emulatedAnswer = answer(nvmeItem, QStringLiteral("nvme"));
        QVERIFY2(emulatedAnswer.contains(squeeze(QStringLiteral("emulated nvme (a device TrainIO emulated, not the storage under test)") + keeps)),
                 qPrintable(emulatedAnswer.left(1500)));
        QVERIFY2(!emulatedAnswer.contains(squeeze(QStringLiteral("the storage keeps"))), qPrintable(emulatedAnswer.left(1500)));
        const QString s3Answer = answer(s3Item, QStringLiteral("s3"));
        QVERIFY2(s3Answer.contains(squeeze(QString::fromStdString("S3 at " + endpoint) + keeps)), qPrintable(s3Answer.left(1500)));
        const QString s3NvmeAnswer = answer(s3NvmeItem, QStringLiteral("s3-nvme"));
        QVERIFY2(s3NvmeAnswer.contains(squeeze(both + QStringLiteral(" (a device TrainIO emulated, not the storage under test)") + keeps)),
                 qPrintable(s3NvmeAnswer.left(1500)));

        // Item 3: the report names the S3 run through the device with both, and its model prediction (made for
        // the emulated device over a local file system) is not held against what it measured.
        const QString s3Pdf = work_.filePath(QStringLiteral("out/issue32-s3.pdf"));
        QVERIFY2(ui::writeReportPdf(lib, {s3NvmeItem}, {}, s3Pdf, &error), qPrintable(error));
        const PdfText s3Text = pdfText(s3Pdf);
        QVERIFY2(squeeze(s3Text.spaced).contains(squeeze(both)), qPrintable(s3Text.spaced.left(2000)));
        QVERIFY(fs::exists(s3nvme / "trainio_model.json"));
        QVERIFY2(s3Text.hasWords(QStringLiteral("Not compared with the prediction")) &&
                     squeeze(s3Text.spaced).contains(squeeze(QString::fromStdString("its reads went to S3 at " + endpoint + " through the emulated device"))),
                 qPrintable(s3Text.spaced.mid(s3Text.spaced.indexOf(QStringLiteral("Model prediction vs")), 1200)));
    }

    void loaderPoliciesSideBySide() {
        const fs::path root = fs::path(work_.path().toStdString()) / "loader";
        const std::string yaml =
            QString::fromLatin1(kTinyConfig).arg(work_.filePath(QStringLiteral("data")), QStringLiteral("0.002")).toStdString();
        const std::vector<std::pair<std::string, std::vector<std::string>>> policies = {
            {"plain", {}},
            {"lru", {"++trainio.loader=lru", "++trainio.ram_tier_mib=0.5"}},
            {"nopfs", {"++trainio.loader=nopfs", "++trainio.ram_tier_mib=0.5"}}};
        std::vector<fs::path> runs;
        for (const auto& [name, overrides] : policies) {
            std::vector<std::string> o = overrides;
            o.push_back("++train.epochs=3");
            const WorkloadConfig cfg = loadWorkloadConfigFromString(yaml, "tiny.yaml", o).config;
            runs.push_back(root / name);
            QVERIFY(runInvocation(cfg, runs.back(), {}).status == RunStatus::Complete);
        }
        // Another workload (twice the compute per step), run with nopfs: never in the same table.
        const WorkloadConfig slower =
            loadWorkloadConfigFromString(QString::fromLatin1(kTinyConfig).arg(work_.filePath(QStringLiteral("data")), QStringLiteral("0.004")).toStdString(),
                                         "tiny2.yaml", {"++trainio.loader=nopfs", "++trainio.ram_tier_mib=0.5", "++train.epochs=3"})
                .config;
        const fs::path other = root / "other-workload-nopfs";
        QVERIFY(runInvocation(slower, other, {}).status == RunStatus::Complete);

        std::vector<fs::path> all = runs;
        all.push_back(other);
        const aggregate::ResultsLibrary lib(aggregate::importResults(all));
        const auto items = lib.nodes(aggregate::NodeKind::Invocation);
        QCOMPARE(items.size(), std::size_t(4));
        std::map<std::string, int> barsByTitle;
        std::vector<double> hitBars, boundLines;
        const auto observe = [&](QCustomPlot& plot, int, int) {
            auto* title = plot.plotLayout()->elementCount() > 0 ? qobject_cast<QCPTextElement*>(plot.plotLayout()->element(0, 0)) : nullptr;
            if (!title) return;
            for (int i = 0; i < plot.plottableCount(); ++i)
                if (auto* b = qobject_cast<QCPBars*>(plot.plottable(i))) {
                    barsByTitle[title->text().toStdString()] = b->data()->size();
                    if (title->text() == QStringLiteral("Hit ratio, epochs 2–3"))
                        for (auto it = b->data()->constBegin(); it != b->data()->constEnd(); ++it) hitBars.push_back(it->value);
                }
            if (title->text() == QStringLiteral("Hit ratio, epochs 2–3"))
                for (int i = 0; i < plot.itemCount(); ++i)
                    if (auto* line = qobject_cast<QCPItemLine*>(plot.item(i))) boundLines.push_back(line->start->coords().x());
        };
        const QString pdf = work_.filePath(QStringLiteral("out/loader.pdf"));
        QVERIFY(QDir().mkpath(QFileInfo(pdf).path()));
        QString error;
        QVERIFY2(ui::writeReportPdf(lib, items, {}, pdf, &error, observe), qPrintable(error));
        const PdfText text = pdfText(pdf);
        QVERIFY2(text.hasWords(QStringLiteral("Loader policies")), qPrintable(text.spaced.left(2000)));
        QVERIFY(text.hasWords(QStringLiteral("Epoch 1 fills the tiers, so it is shown apart")));

        auto mean = [](const nlohmann::json& epochs, const std::function<double(const nlohmann::json&)>& f) {
            double sum = 0;
            for (std::size_t e = 1; e < epochs.size(); ++e) sum += f(epochs.at(e));
            return sum / double(epochs.size() - 1);
        };
        std::vector<double> expectedHit, expectedBound;
        for (std::size_t p = 0; p < runs.size(); ++p) {
            const auto io = nlohmann::json::parse(testsupport::readText(runs[p] / "trainio_io.json"));
            const auto summary = nlohmann::json::parse(testsupport::readText(runs[p] / "summary.json"));
            const auto& ep = io.at("epochs");
            QCOMPARE(ep.size(), std::size_t(3));
            QCOMPARE(io.at("loader").at("policy").get<std::string>(), policies[p].first);
            const double hitLater = 100.0 * mean(ep, [](const nlohmann::json& e) { return e.at("hit_ratio").get<double>(); });
            const double boundLater = 100.0 * mean(ep, [](const nlohmann::json& e) { return e.at("belady_hit_ratio").get<double>(); });
            expectedHit.push_back(hitLater);
            expectedBound.push_back(boundLater);
            const auto& sps = summary.at("metric").at("train_throughput_samples_per_second");
            QCOMPARE(sps.size(), std::size_t(3));
            // The row from the policy on: the cells pdftotext reads in order on one line.
            const QStringList cells = {
                QString::fromStdString(policies[p].first),
                p == 0 ? QStringLiteral("0") : QStringLiteral("0.5"),
                // Epoch s: the 16 samples of an epoch ÷ its samples/s, mean of epochs 2 and 3.
                fixed((16.0 / sps.at(1).get<double>() + 16.0 / sps.at(2).get<double>()) / 2.0, 3),
                fixed(summary.at("metric").at("train_au_mean_percentage").get<double>(), 2),
                fixed(100.0 * ep.at(0).at("hit_ratio").get<double>(), 1),
                fixed(hitLater, 1),
                fixed(boundLater, 1),
                fixed(ep.at(0).at("stall_seconds").get<double>(), 3),
                fixed(mean(ep, [](const nlohmann::json& e) { return e.at("stall_seconds").get<double>(); }), 3)};
            QStringList escaped;
            for (const QString& c : cells) escaped << QRegularExpression::escape(c);
            const QRegularExpression row(escaped.join(QStringLiteral("\\s+")));
            QVERIFY2(row.match(text.spaced).hasMatch(), qPrintable(row.pattern() + QStringLiteral(" not in: ") + text.spaced));
        }
        // What the policies do: plain reads everything from storage; nopfs reaches its bound.
        QCOMPARE(expectedHit[0], 0.0);
        QVERIFY2(std::fabs(expectedHit[2] - expectedBound[2]) < 5.0, qPrintable(QStringLiteral("%1 %2").arg(expectedHit[2]).arg(expectedBound[2])));
        QVERIFY(expectedHit[2] > 0.0);
        // Bars: three policies (not the other workload), the hit ratios with their bounds as lines.
        QCOMPARE(barsByTitle["Epoch time, epochs 2–3"], 3);
        QCOMPARE(barsByTitle["Stall, epochs 2–3"], 3);
        QCOMPARE(hitBars.size(), std::size_t(3));
        std::vector<double> sortedHit = hitBars, sortedExpected = expectedHit;
        std::sort(sortedHit.begin(), sortedHit.end());
        std::sort(sortedExpected.begin(), sortedExpected.end());
        for (std::size_t i = 0; i < 3; ++i) QVERIFY(std::fabs(sortedHit[i] - sortedExpected[i]) < 1e-9);
        std::vector<double> sortedBound = expectedBound;
        std::sort(sortedBound.begin(), sortedBound.end());
        std::sort(boundLines.begin(), boundLines.end());
        QCOMPARE(boundLines.size(), std::size_t(3));
        for (std::size_t i = 0; i < 3; ++i) QVERIFY(std::fabs(boundLines[i] - sortedBound[i]) < 1e-9);
        QVERIFY(!text.hasWords(QStringLiteral("other-workload-nopfs (differs")));

        // One policy per workload: no section.
        const QString single = work_.filePath(QStringLiteral("out/loader-single.pdf"));
        const aggregate::ResultsLibrary two(aggregate::importResults({runs[0], other}));
        QVERIFY2(ui::writeReportPdf(two, two.nodes(aggregate::NodeKind::Invocation), {}, single, &error), qPrintable(error));
        QVERIFY(!pdfText(single).hasWords(QStringLiteral("Loader policies")));
    }

    // A max-accelerators sweep (issue 12 item 4): `trainio --report SWEEP_DIR` finds sweep.json through the
    // importer and gives it a section: the largest passing count, AU by count with the pass line, and every
    // trial with its numbers as sweep.json (written by trainio-cli, read here) holds them. A report without a
    // sweep has no such section.
    void sweepSection() {
        const QString cfg = work_.filePath(QStringLiteral("tiny.yaml"));
        const QString dir = work_.filePath(QStringLiteral("sweep"));
        const auto r = testsupport::runCli({QStringLiteral("sweep"), QStringLiteral("--config"), cfg, QStringLiteral("--accelerators"),
                                            QStringLiteral("1:2"), QStringLiteral("--quick"), QStringLiteral("--output"), dir,
                                            QStringLiteral("--quiet")},
                                           300000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const auto sweep = nlohmann::json::parse(testsupport::readText(fs::path(dir.toStdString()) / "sweep.json"));
        QCOMPARE(sweep["trials"].size(), std::size_t(2));

        // The importer finds it, through the folder or its sweep.json, once.
        for (const fs::path& root : {fs::path(dir.toStdString()), fs::path(dir.toStdString()) / "sweep.json"}) {
            const auto imp = aggregate::importResults({root, fs::path(dir.toStdString())});
            QCOMPARE(imp.sweeps.size(), std::size_t(1));
            QCOMPARE(imp.sweeps[0].outcome.trials.size(), std::size_t(2));
            QCOMPARE(imp.runs.size(), std::size_t(2)); // the two trials' invocations
        }

        const QString pdf = work_.filePath(QStringLiteral("sweep-report/report.pdf"));
        QVERIFY(QDir().mkpath(QFileInfo(pdf).path()));
        QProcess p;
        p.start(QStringLiteral(TRAINIO_GUI), {QStringLiteral("--report"), dir, QStringLiteral("--output"), pdf});
        QVERIFY2(p.waitForStarted(testsupport::kHangMs), qPrintable(p.errorString()));
        QVERIFY(p.waitForFinished(300000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const PdfText text = pdfText(pdf);
        QVERIFY(text.hasWords(QStringLiteral("Max-accelerators sweep")));
        QVERIFY(text.hasWords(QStringLiteral("AU by accelerator count")));
        const QString head = sweep["max_passing_accelerators"].is_null()
                                 ? QStringLiteral("No count passed")
                                 : sweep["max_passing_accelerators"].get<int>() == 1
                                       ? QStringLiteral("Largest count that passes: 1 accelerator")
                                       : QStringLiteral("Largest count that passes: %1 accelerators").arg(sweep["max_passing_accelerators"].get<int>());
        QVERIFY2(text.hasWords(head), qPrintable(head + QStringLiteral(" in ") + text.spaced));
        QVERIFY(text.hasWords(QStringLiteral("AU threshold 50 %")));
        for (const auto& t : sweep["trials"]) {
            QVERIFY(text.hasIdentifier(QString::fromStdString("trial-" + std::to_string(t["accelerators"].get<int>()) + "-accelerators")));
            QVERIFY2(text.hasNumber(fixed(t["au_mean_percentage"].get<double>(), 2)), qPrintable(fixed(t["au_mean_percentage"].get<double>(), 2)));
            QVERIFY(text.hasNumber(fixed(t["samples_per_second"].get<double>(), 1)));
            QVERIFY(text.hasWords(t["passed"].get<bool>() ? QStringLiteral("passed") : QStringLiteral("below the AU line")));
        }

        // The lab folder holds no sweep: no sweep section.
        ui::ReportRequest request;
        request.paths = {lab_};
        QString error;
        const QString plain = work_.filePath(QStringLiteral("sweep-report/plain.pdf"));
        QVERIFY2(ui::writeReportPdf(request, plain, &error), qPrintable(error));
        QVERIFY(!pdfText(plain).hasWords(QStringLiteral("Max-accelerators sweep")));

        // A damaged sweep.json: the importer skips it naming the file and the key, and still imports the trials.
        const fs::path broken = fs::path(work_.path().toStdString()) / "broken-sweep";
        fs::create_directories(broken);
        fs::copy(fs::path(dir.toStdString()) / "trial-1-accelerators", broken / "trial-1-accelerators", fs::copy_options::recursive);
        testsupport::writeText(broken / "sweep.json", R"({"max_passing_accelerators": 1, "trials": [{"accelerators": "one"}]})");
        const auto imp = aggregate::importResults({broken});
        QCOMPARE(imp.sweeps.size(), std::size_t(0));
        QCOMPARE(imp.runs.size(), std::size_t(1));
        bool named = false;
        for (const auto& s : imp.skipped)
            named = named || (s.path == broken / "sweep.json" && s.reason.find("trials[0].accelerators") != std::string::npos);
        QVERIFY(named);
    }

    void headlessArguments() {
        const QString dir = work_.path();
        auto a = ui::parseGuiArguments({QStringLiteral("--report"), dir, QStringLiteral("--output"), QStringLiteral("x.pdf"),
                                        QStringLiteral("--title"), QStringLiteral("T"), QStringLiteral("--subtitle"),
                                        QStringLiteral("S"), QStringLiteral("--notes"), QStringLiteral("n.txt")});
        QVERIFY2(a.error.isEmpty(), qPrintable(a.error));
        QCOMPARE(a.mode, ui::GuiArguments::Mode::Report);
        QCOMPARE(a.title, QStringLiteral("T"));
        QCOMPARE(a.subtitle, QStringLiteral("S"));
        QCOMPARE(a.notesFile, QStringLiteral("n.txt"));
        QCOMPARE(a.paths, QStringList{dir});
        a = ui::parseGuiArguments({QStringLiteral("--report"), dir, QStringLiteral("--output"), QStringLiteral("x.pdf"), QStringLiteral("--notes")});
        QCOMPARE(a.error, QStringLiteral("--notes needs a value"));
        a = ui::parseGuiArguments({dir, QStringLiteral("--subtitle"), QStringLiteral("S")});
        QVERIFY(a.error.contains(QStringLiteral("only used with --report")));
    }
};

QTEST_MAIN(TestReport)
#include "tst_report.moc"
