// "Import a trace…" (issue 24, docs/capture.md), driven as a user does: a real job is captured here
// (trainio-cli capture around tests/tools/capture_job.py: a Python loop reading 12 files of its own names
// with plain open()/read(), 3 samples a step, 10 ms of compute, inside trainio_capture.steps), File → Import a trace… opens
// the derived workload on the Workload page with the observation report beside it, derived on a worker
// thread. The workload, replayed by `trainio-cli run` on the job's own files (its file list), shows the
// real job beside the replay in the Results page. Expected values come from the job's own parameters.
// With TRAINIO_SCREENSHOT_DIR set, the window is saved there as workload-trace.png (docs/screenshots).
#include "gui_test_support.h"
#include "testsupport.h"

#include "widgets/file_dialogs.h"
#include "main_window.h"
#include "widgets/notification_panel.h"
#include "workload/trace_import_panel.h"
#include "workload/workload_page.h"

#include "config/config_loader.h"
#include "dataset/dataset_layout.h"

#include <nlohmann/json.hpp>

#include <QAction>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTextBrowser>
#include <QtTest>

#include <map>
#include <set>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;
using namespace trainio::ui;

namespace {

constexpr int kFiles = 12;
constexpr int kBytes = 48 * 1024;

QString editorText(WorkloadPage* page, const char* key) {
    QWidget* w = page->editorFor(QString::fromLatin1(key));
    if (auto* e = qobject_cast<QLineEdit*>(w)) return e->text();
    if (w)
        if (auto* e = w->findChild<QLineEdit*>()) return e->text();
    return QStringLiteral("(no editor for %1)").arg(QString::fromLatin1(key));
}

// Mean of (next "ask" − "batch") over the steps of every epoch in the trace's marks files.
double markedComputeMean(const QString& trace) {
    std::map<std::uint64_t, std::vector<std::pair<std::uint64_t, std::string>>> byEpoch;
    for (const QFileInfo& f : QDir(trace).entryInfoList({QStringLiteral("marks.*.jsonl")}, QDir::Files)) {
        std::istringstream in(testsupport::readText(f.absoluteFilePath().toStdString()));
        for (std::string line; std::getline(in, line);) {
            const auto j = nlohmann::json::parse(line);
            const std::string op = j["op"].get<std::string>();
            if (op == "ask" || op == "batch") byEpoch[j["epoch"].get<std::uint64_t>()].emplace_back(j["t"].get<std::uint64_t>(), op);
        }
    }
    double sum = 0;
    int n = 0;
    for (auto& [epoch, marks] : byEpoch) {
        std::sort(marks.begin(), marks.end());
        for (std::size_t i = 0; i + 1 < marks.size(); ++i)
            if (marks[i].second == "batch" && marks[i + 1].second == "ask") {
                sum += static_cast<double>(marks[i + 1].first - marks[i].first) * 1e-9;
                ++n;
            }
    }
    return n ? sum / n : -1;
}

} // namespace

class TestTraceImport : public QObject {
    Q_OBJECT
    QTemporaryDir settings_, work_;
    QString trace_;
    std::set<std::string> jobFiles_;

private slots:
    void initTestCase() {
        uitest::isolateSettings(settings_);
        QVERIFY(work_.isValid());
        // The job's data: raw files under names of its own (no DLIO name, no magic).
        const QString data = work_.filePath(QStringLiteral("clips"));
        QVERIFY(QDir().mkpath(data));
        for (int i = 0; i < kFiles; ++i) {
            QByteArray bytes(kBytes, Qt::Uninitialized);
            for (auto& b : bytes) b = static_cast<char>(QRandomGenerator::global()->bounded(256));
            const QString path = QDir(data).filePath(QStringLiteral("clip-%1.bin").arg(i, 3, 10, QLatin1Char('0')));
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly) && f.write(bytes) == kBytes);
            jobFiles_.insert(path.toStdString());
        }
        trace_ = work_.filePath(QStringLiteral("trace"));
        const auto c = testsupport::runCli({QStringLiteral("capture"), QStringLiteral("--output"), trace_, QStringLiteral("--"),
                                            QStringLiteral("/usr/bin/python3"), QStringLiteral(TRAINIO_SOURCE_DIR "/tests/tools/capture_job.py"),
                                            QStringLiteral("--data"), data, QStringLiteral("--loader"), QStringLiteral("python"),
                                            QStringLiteral("--read"), QStringLiteral("plain"), QStringLiteral("--marker"),
                                            QStringLiteral("--batch"), QStringLiteral("3"), QStringLiteral("--epochs"), QStringLiteral("2"),
                                            QStringLiteral("--compute-ms"), QStringLiteral("10")},
                                           120000);
        QVERIFY2(c.exitCode == 0, qPrintable(c.err + c.out));
    }

    void cleanup() { setFileDialogHook({}); }

    // File → Import a trace…: the derived workload on the Workload page, the report beside the form.
    void importThroughTheMenu() {
        MainWindow w;
        w.resize(1800, 1000);
        w.show();
        w.showPage(MainWindow::RunPageIndex);
        QAction* action = w.action(QStringLiteral("importTrace"));
        QVERIFY(action);
        QCOMPARE(action->text(), QStringLiteral("&Import a trace…"));
        QString asked;
        setFileDialogHook([&](const QString& caption, const QString&) {
            asked = caption;
            return trace_;
        });
        TraceImportPanel* panel = w.traceImport();
        QVERIFY(panel && !panel->isVisible());
        QSignalSpy done(panel, &TraceImportPanel::imported);
        action->trigger();
        QVERIFY(asked.contains(QStringLiteral("Trace folder")));
        QCOMPARE(w.currentPage(), int(MainWindow::WorkloadPageIndex));
        QVERIFY(done.wait(testsupport::kHangMs));
        // Derived on a worker, shown by the GUI thread.
        QVERIFY(panel->lastDerivationThread() != std::thread::id());
        QVERIFY(panel->lastDerivationThread() != std::this_thread::get_id());

        WorkloadPage* page = w.workloadPage();
        const trainio::WorkloadConfig& c = page->config();
        QCOMPARE(c.reader.batchSize, 3u);
        // The job's loop reads its batches itself on its main thread (--loader python): it loads each batch when
        // it asks for it, replayed with read_threads 0 (DLIO's pytorch num_workers 0; issue 30).
        QCOMPARE(c.reader.readThreads, 0u);
        QCOMPARE(c.dataset.numFilesTrain, std::uint64_t(kFiles));
        QCOMPARE(c.dataset.numSamplesPerFile, 1u);
        QCOMPARE(c.dataset.format, trainio::DataFormat::Raw);
        QVERIFY2(std::abs(c.dataset.recordLength - kBytes) < 1, qPrintable(QString::number(c.dataset.recordLength)));
        QCOMPARE(c.train.epochs, 2u);
        // The compute per step as the job's marks say it (each batch's arrival to the next request), read here
        // from marks.<pid>.jsonl: the job slept 10 ms a step, more on a loaded machine, never less.
        const double marked = markedComputeMean(trace_);
        QVERIFY2(marked >= 0.010 && marked < 0.030, qPrintable(QString::number(marked)));
        QVERIFY2(std::abs(c.train.computationTime.mean - marked) <= 1e-6,
                 qPrintable(QStringLiteral("%1 vs %2").arg(c.train.computationTime.mean).arg(marked)));
        // The job's own files, where they are: the file list (written into the trace folder) names them all.
        QCOMPARE(QString::fromStdString(c.dataset.fileList), QDir(trace_).filePath(QStringLiteral("trainio_files.txt")));
        const auto listed = trainio::readFileList(c.dataset.fileList);
        QCOMPARE(std::set<std::string>(listed.begin(), listed.end()), jobFiles_);
        QCOMPARE(QString::fromStdString(c.trainio.capturedJob.trace), QDir(trace_).absolutePath());
        QCOMPARE(c.trainio.capturedJob.steps, std::string("marks"));
        QVERIFY(c.trainio.capturedJob.auPercent > 0 && c.trainio.capturedJob.auPercent <= 100);
        // The form shows it, and where it came from.
        QCOMPARE(editorText(page, "reader.batch_size"), QStringLiteral("3"));
        QCOMPARE(editorText(page, "trainio.file_list"), QString::fromStdString(c.dataset.fileList));
        QVERIFY(page->findChild<QLabel*>(QStringLiteral("sourceLabel"))->text().contains(trace_));
        QVERIFY2(page->isValid(), page->errors().empty() ? "" : page->errors().front().message.c_str());
        QVERIFY(page->currentFile().isEmpty()); // Save… asks where: nothing is overwritten

        // The observation report beside the form: observed and assumed values, each with its figures.
        QVERIFY(panel->isVisible());
        QVERIFY(page->isAncestorOf(panel));
        const QString report = panel->reportView()->toPlainText();
        for (const QString& words : {QStringLiteral("What the trace shows"), QStringLiteral("Steps: from the trainio_capture.steps marks"),
                                     QStringLiteral("The job's own figures"), QStringLiteral("reader.batch_size"),
                                     QStringLiteral("the size of"), // the batch marks behind the batch size
                                     QStringLiteral("dataset.num_files_train"),
                                     QStringLiteral("distinct data files read in the training loop"),
                                     QStringLiteral("observed"), QStringLiteral("assumed"),
                                     QStringLiteral("nothing ahead") /* prefetch_size 0: the loop reads its own batches */, QStringLiteral("trainio.file_list")})
            QVERIFY2(report.contains(words), qPrintable(words + QStringLiteral(" not in: ") + report));
        QVERIFY(report.contains(QStringLiteral("AU %1 %").arg(c.trainio.capturedJob.auPercent, 0, 'f', 2)));

        if (const QString shots = qEnvironmentVariable("TRAINIO_SCREENSHOT_DIR"); !shots.isEmpty()) {
            QTest::qWait(200);
            QVERIFY(w.grab().save(QDir(shots).filePath(QStringLiteral("workload-trace.png"))));
        }
    }

    // Not a trace: an error naming the file and what was expected; the workload stays.
    void notATrace() {
        MainWindow w;
        WorkloadPage* page = w.workloadPage();
        const auto before = page->config().reader.batchSize;
        QSignalSpy failed(w.traceImport(), &TraceImportPanel::failed);
        w.traceImport()->importTrace(work_.filePath(QStringLiteral("clips")));
        QVERIFY(failed.wait(testsupport::kHangMs));
        const QString why = failed.first().at(1).toString();
        QVERIFY2(why.contains(QStringLiteral("trainio_trace.json")), qPrintable(why));
        QCOMPARE(w.notifications()->count(NotificationPanel::Severity::Error), 1);
        QCOMPARE(page->config().reader.batchSize, before);
        QVERIFY(!w.traceImport()->isVisible());
    }

    // Issue 32 item 11: a workload derived from a trace is in no file: Ctrl+Q asks before quitting (Cancel
    // keeps the window and the workload); once saved, Ctrl+Q quits without a question.
    void quittingAsksWhileTheDerivedWorkloadIsUnsaved() {
        MainWindow w;
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QSignalSpy done(w.traceImport(), &TraceImportPanel::imported);
        w.traceImport()->importTrace(trace_);
        QVERIFY(done.wait(testsupport::kHangMs));
        WorkloadPage* page = w.workloadPage();
        QVERIFY(page->isModified());
        QTest::keyClick(&w, Qt::Key_Q, Qt::ControlModifier);
        QTRY_VERIFY_WITH_TIMEOUT(page->pendingDiscardPrompt() != nullptr, testsupport::kHangMs);
        QTest::mouseClick(page->pendingDiscardPrompt()->button(QMessageBox::Cancel), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!page->pendingDiscardPrompt(), testsupport::kHangMs);
        QVERIFY(w.isVisible());
        QCOMPARE(page->config().reader.batchSize, 3u);
        QVERIFY(page->saveFile(work_.filePath(QStringLiteral("quit.yaml"))));
        QTest::keyClick(&w, Qt::Key_Q, Qt::ControlModifier);
        QTRY_VERIFY_WITH_TIMEOUT(!w.isVisible(), testsupport::kHangMs);
        QVERIFY(!page->pendingDiscardPrompt());
    }

    // Unsaved edits are asked about before the derived workload replaces them.
    void unsavedEditsAreAskedAbout() {
        MainWindow w;
        WorkloadPage* page = w.workloadPage();
        auto* prefix = qobject_cast<QLineEdit*>(page->editorFor(QStringLiteral("dataset.file_prefix")));
        QVERIFY(prefix);
        prefix->setText(QStringLiteral("edited"));
        emit prefix->textEdited(prefix->text());
        QVERIFY(page->isModified());
        QSignalSpy done(w.traceImport(), &TraceImportPanel::imported);
        w.traceImport()->importTrace(trace_);
        QTRY_VERIFY_WITH_TIMEOUT(page->pendingDiscardPrompt() != nullptr, testsupport::kHangMs);
        QVERIFY(done.isEmpty());
        QCOMPARE(page->config().dataset.filePrefix, std::string("edited"));
        page->pendingDiscardPrompt()->button(QMessageBox::Discard)->click();
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, testsupport::kHangMs);
        QCOMPARE(page->config().reader.batchSize, 3u);
    }

    // The workload, saved and replayed on the job's own files: the Results page shows the real job beside
    // the replay (the job's AU from its marks, the replay's from its summary).
    void libraryShowsTheJobBesideTheReplay() {
        MainWindow w;
        QSignalSpy done(w.traceImport(), &TraceImportPanel::imported);
        w.traceImport()->importTrace(trace_);
        QVERIFY(done.wait(testsupport::kHangMs));
        const QString yaml = work_.filePath(QStringLiteral("derived.yaml"));
        QVERIFY(w.workloadPage()->saveFile(yaml));
        const double jobAu = w.workloadPage()->config().trainio.capturedJob.auPercent;
        const QString run = work_.filePath(QStringLiteral("replay"));
        const auto r = testsupport::runCli({QStringLiteral("run"), QStringLiteral("--config"), yaml, QStringLiteral("--output"), run,
                                            QStringLiteral("--quiet")});
        QVERIFY2(r.exitCode == 0 || r.exitCode == 1, qPrintable(r.err));
        const double replayAu = nlohmann::json::parse(testsupport::readText((run + QStringLiteral("/summary.json")).toStdString()))
                                    ["metric"]["train_au_mean_percentage"].get<double>();
        const uitest::InvocationDetails d = uitest::invocationDetails(run);
        QVERIFY2(!d.text.isEmpty(), qPrintable(d.why));
        QVERIFY2(d.text.contains(QStringLiteral("Real job vs replay")), qPrintable(d.text));
        QVERIFY2(d.text.contains(trace_), qPrintable(d.text));
        QVERIFY2(d.text.contains(QString::number(jobAu, 'f', 2)), qPrintable(d.text));
        QVERIFY2(d.text.contains(QString::number(replayAu, 'f', 2)), qPrintable(d.text));
        QVERIFY2(d.text.contains(QStringLiteral("%1%2 points").arg(replayAu >= jobAu ? QStringLiteral("+") : QString(),
                                                                   QString::number(replayAu - jobAu, 'f', 2))),
                 qPrintable(d.text));
    }
};

QTEST_MAIN(TestTraceImport)
#include "tst_trace_import.moc"
