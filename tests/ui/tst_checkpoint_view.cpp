// The checkpoint view: synthetic events (two ranks, 3 writes + 3 reads) give the bars, the summary and
// the per-rank table computed by hand below from DLIO's definitions (the MLCommons fork's main.py
// _checkpoint_write/_checkpoint_read and statscounter.py end_save_ckpt/end_run); events posted from a
// non-GUI thread reach the view on the GUI thread; the Run page shows the view when the workload
// checkpoints, alone in checkpoint-only mode.
#include "run/checkpoint_view.h"
#include "gui_test_support.h"
#include "plots/live_plots.h"
#include "run/run_controller.h"
#include "run/run_page.h"
#include "testsupport.h"

#include "config/config_loader.h"
#include "dataset/dataset_generator.h"

#include <qcustomplot.h>

#include <nlohmann/json.hpp>

#include <QApplication>
#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QLabel>
#include <QSignalSpy>
#include <QTabBar>
#include <QTabWidget>
#include <QItemSelectionModel>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QThread>

#include <cmath>
#include <thread>

using namespace trainio::ui;
using trainio::checkpoint::CheckpointEvent;
using trainio::checkpoint::Operation;

namespace {

constexpr std::uint64_t kGiB = 1ull << 30;
constexpr std::uint64_t kMiB = 1ull << 20;

CheckpointEvent ckpt(CheckpointEvent::Phase phase, Operation op, std::uint64_t index, std::uint64_t rank,
                      std::uint64_t bytes = 0, double seconds = 0) {
    CheckpointEvent e;
    e.phase = phase;
    e.op = op;
    e.index = index;
    e.rank = rank;
    e.epoch = 1;
    e.step = index + 1;
    e.bytes = bytes;
    e.realBytes = bytes * 100; // a checkpoint written at checkpoint_scale 0.01
    e.seconds = seconds;
    return e;
}

// Rank shares of the synthetic run: {rank 0 bytes, rank 0 s, rank 1 bytes, rank 1 s} per checkpoint.
struct Share {
    std::uint64_t bytes0;
    double s0;
    std::uint64_t bytes1;
    double s1;
};
const Share kWrites[3] = {{kGiB, 0.5, kGiB, 1.0}, {kGiB, 0.25, kGiB, 0.5}, {kGiB, 1.0, kGiB, 0.25}};
const Share kReads[3] = {{512 * kMiB, 0.25, 512 * kMiB, 0.5}, {512 * kMiB, 0.5, 512 * kMiB, 0.25}, {512 * kMiB, 0.5, 512 * kMiB, 0.5}};

// Every rank starts, then rank 1 finishes before rank 0 (the order must not matter).
std::vector<CheckpointEvent> syntheticRun() {
    std::vector<CheckpointEvent> events;
    for (const auto& [op, shares] : {std::pair{Operation::Write, kWrites}, std::pair{Operation::Read, kReads}})
        for (std::uint64_t i = 0; i < 3; ++i) {
            const Share& s = shares[i];
            events.push_back(ckpt(CheckpointEvent::Phase::Started, op, i, 0));
            events.push_back(ckpt(CheckpointEvent::Phase::Started, op, i, 1));
            events.push_back(ckpt(CheckpointEvent::Phase::Completed, op, i, 1, s.bytes1, s.s1));
            events.push_back(ckpt(CheckpointEvent::Phase::Completed, op, i, 0, s.bytes0, s.s0));
        }
    return events;
}

// A ZeRO 3 transformer as mlcommons/storage's llama3 configs describe one.
struct Llama {
    std::int64_t layers;
    std::uint64_t vocab, hidden, ffn, heads, kvHeads;
};
void setLlama(trainio::WorkloadConfig& cfg, const std::string& name, const Llama& l) {
    cfg.model.name = name;
    cfg.model.type = "transformer";
    cfg.model.numLayers = l.layers;
    cfg.model.parallelism.zeroStage = 3;
    cfg.model.transformer.vocabSize = l.vocab;
    cfg.model.transformer.hiddenSize = l.hidden;
    cfg.model.transformer.ffnHiddenSize = l.ffn;
    cfg.model.transformer.numAttentionHeads = l.heads;
    cfg.model.transformer.numKvHeads = l.kvHeads;
}

QVector<double> values(QCPBars* bars) {
    QVector<double> out;
    for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it) out << it->value;
    return out;
}
QVector<double> keys(QCPBars* bars) {
    QVector<double> out;
    for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it) out << it->key;
    return out;
}

void compareAll(const QVector<double>& actual, const QVector<double>& expected) {
    QCOMPARE(actual.size(), expected.size());
    for (int i = 0; i < actual.size(); ++i)
        QVERIFY2(std::abs(actual[i] - expected[i]) < 1e-9,
                 qPrintable(QStringLiteral("[%1] %2 != %3").arg(i).arg(actual[i], 0, 'g', 12).arg(expected[i], 0, 'g', 12)));
}

} // namespace

class TestCheckpointView : public QObject {
    Q_OBJECT
    QTemporaryDir settingsDir_;

private slots:
    void initTestCase() { uitest::isolateSettings(settingsDir_); }

    void barsAndSummaryAreDliosNumbers() {
        CheckpointView view;
        view.resize(1000, 600);
        view.show();
        view.reset(3, 3, /*rankSync=*/false);
        for (const CheckpointEvent& e : syntheticRun()) view.add(e);

        // Without rank_sync the fork stops the clock when rank 0 is done (main.py:568-572): write
        // durations 0.5, 0.25, 1.0 s; the whole checkpoint is 2 GiB, so 4, 8, 2 GiB/s.
        // Reads: 1 GiB in 0.25, 0.5, 0.5 s: 4, 2, 2 GiB/s.
        compareAll(keys(view.bars(CheckpointView::Bandwidth, Operation::Write)), {1, 2, 3});
        compareAll(values(view.bars(CheckpointView::Bandwidth, Operation::Write)), {4, 8, 2});
        compareAll(values(view.bars(CheckpointView::Duration, Operation::Write)), {0.5, 0.25, 1.0});
        compareAll(keys(view.bars(CheckpointView::Bandwidth, Operation::Read)), {1, 2, 3});
        compareAll(values(view.bars(CheckpointView::Bandwidth, Operation::Read)), {4, 2, 2});
        compareAll(values(view.bars(CheckpointView::Duration, Operation::Read)), {0.25, 0.5, 0.5});

        // Summary as statscounter.py:178-186: np.mean and np.std (population) of the lists.
        // Write GiB/s: mean 14/3 = 4.667; deviations -2/3, 10/3, -8/3 → variance (4+100+64)/27 = 56/9, sd 2.494.
        // Write s: mean 1.75/3 = 0.583; deviations -1/12, -1/3, 5/12 → variance (1+16+25)/432 = 7/72, sd 0.312.
        // Read GiB/s: mean 8/3 = 2.667; deviations 4/3, -2/3, -2/3 → variance 24/27, sd 0.943.
        // Read s: mean 1.25/3 = 0.417; deviations -1/6, 1/12, 1/12 → variance (4+1+1)/432 = 1/72, sd 0.118.
        const CheckpointSummary w = view.tally().summary(Operation::Write);
        QCOMPARE(w.gibPerSecond.count, std::size_t(3));
        QVERIFY(std::abs(w.gibPerSecond.mean - 14.0 / 3) < 1e-12);
        QVERIFY(std::abs(w.gibPerSecond.stdev - std::sqrt(56.0 / 9)) < 1e-12);
        QVERIFY(std::abs(w.seconds.mean - 1.75 / 3) < 1e-12);
        QVERIFY(std::abs(w.seconds.stdev - std::sqrt(7.0 / 72)) < 1e-12);
        const CheckpointSummary r = view.tally().summary(Operation::Read);
        QVERIFY(std::abs(r.gibPerSecond.mean - 8.0 / 3) < 1e-12);
        QVERIFY(std::abs(r.gibPerSecond.stdev - std::sqrt(24.0 / 27)) < 1e-12);
        QVERIFY(std::abs(r.seconds.mean - 1.25 / 3) < 1e-12);
        QVERIFY(std::abs(r.seconds.stdev - std::sqrt(1.0 / 72)) < 1e-12);
        const QString summary = view.summaryText();
        QVERIFY2(summary.contains(QStringLiteral("Write: 4.667 ± 2.494 GiB/s, 0.583 ± 0.312 s (3 checkpoints)")), qPrintable(summary));
        QVERIFY2(summary.contains(QStringLiteral("Read: 2.667 ± 0.943 GiB/s, 0.417 ± 0.118 s (3 checkpoints)")), qPrintable(summary));
        QVERIFY2(summary.contains(QStringLiteral("population standard deviation")), qPrintable(summary));
        QVERIFY2(view.statusText().startsWith(QStringLiteral("Checkpoints written 3/3, read 3/3")), qPrintable(view.statusText()));

        // Per rank, each rank's own bytes / own seconds. Rank 1 wrote 1 GiB in 1.0, 0.5, 0.25 s: 1, 2, 4 GiB/s
        // (mean 7/3 = 2.333, sd sqrt(((-4/3)^2 + (-1/3)^2 + (5/3)^2)/3) = sqrt(14/9) = 1.247); 3 GiB in all.
        const CheckpointRankModel* table = view.rankModel();
        QCOMPARE(table->rowCount(), 2);
        QVERIFY(view.rankTable()->model() == table);
        QCOMPARE(table->index(1, CheckpointRankModel::RankCol).data().toString(), QStringLiteral("1"));
        QCOMPARE(table->index(1, CheckpointRankModel::WritesCol).data().toString(), QStringLiteral("3"));
        QCOMPARE(table->index(1, CheckpointRankModel::WriteGibCol).data().toString(), QStringLiteral("3.000"));
        QCOMPARE(table->index(1, CheckpointRankModel::WriteSecondsCol).data().toString(), QStringLiteral("0.583 ± 0.312"));
        QCOMPARE(table->index(1, CheckpointRankModel::WriteRateCol).data().toString(), QStringLiteral("2.333 ± 1.247"));
        // Rank 0 read 0.5 GiB in 0.25, 0.5, 0.5 s: 2, 1, 1 GiB/s (mean 4/3, sd sqrt(2/9) = 0.471).
        QCOMPARE(table->index(0, CheckpointRankModel::ReadsCol).data().toString(), QStringLiteral("3"));
        QCOMPARE(table->index(0, CheckpointRankModel::ReadRateCol).data().toString(), QStringLiteral("1.333 ± 0.471"));
    }

    // The per-rank table is a view over a model: rows appear when a rank first reports (rank 0, then rank 1:
    // two resets); every later event changes figures in place, so a row the user selected stays selected.
    void rankRowsChangeInPlace() {
        CheckpointView view;
        view.reset(3, 3, /*rankSync=*/false);
        const auto events = syntheticRun();
        QSignalSpy resets(view.rankModel(), &QAbstractItemModel::modelReset);
        QSignalSpy changes(view.rankModel(), &QAbstractItemModel::dataChanged);
        view.add(events[0]);
        view.add(events[1]);
        QCOMPARE(resets.count(), 2);
        QCOMPARE(view.rankModel()->rowCount(), 2);
        view.rankTable()->selectRow(1);
        for (std::size_t i = 2; i < events.size(); ++i) view.add(events[i]);
        QCOMPARE(resets.count(), 2);
        QCOMPARE(changes.count(), static_cast<int>(events.size()) - 2);
        const QModelIndexList selected = view.rankTable()->selectionModel()->selectedRows();
        QCOMPARE(selected.size(), 1);
        QCOMPARE(selected.front().data().toString(), QStringLiteral("1"));
        QCOMPARE(view.rankModel()->index(1, CheckpointRankModel::ReadsCol).data().toString(), QStringLiteral("3"));
        // A new run empties the table.
        view.reset(3, 3, false);
        QCOMPARE(view.rankModel()->rowCount(), 0);
    }

    void rankSyncTakesTheSlowestRank() {
        CheckpointView view;
        view.reset(3, 3, /*rankSync=*/true);
        for (const CheckpointEvent& e : syntheticRun()) view.add(e);
        // The barrier before end_save_ckpt (main.py:570-572): the slowest rank, 1.0, 0.5, 1.0 s → 2, 4, 2 GiB/s.
        compareAll(values(view.bars(CheckpointView::Duration, Operation::Write)), {1.0, 0.5, 1.0});
        compareAll(values(view.bars(CheckpointView::Bandwidth, Operation::Write)), {2, 4, 2});
        QVERIFY(std::abs(view.tally().summary(Operation::Write).gibPerSecond.mean - 8.0 / 3) < 1e-12);
    }

    void dliosSizeIsTheNumerator() {
        // DLIO divides every duration by its checkpoint_size_GB (statscounter.py:381), not by the bytes
        // moved: with 3 GiB and rank 0's durations 0.5, 0.25, 1.0 s → 6, 12, 3 GiB/s.
        CheckpointView view;
        view.reset(3, 3, false, 3.0);
        for (const CheckpointEvent& e : syntheticRun()) view.add(e);
        compareAll(values(view.bars(CheckpointView::Bandwidth, Operation::Write)), {6, 12, 3});
        QVERIFY(std::abs(view.tally().summary(Operation::Write).gibPerSecond.mean - 7.0) < 1e-12);
    }

    void inFlightAndFailuresAreShown() {
        CheckpointView view;
        view.reset(3, 0, false);
        view.add(ckpt(CheckpointEvent::Phase::Started, Operation::Write, 0, 0));
        view.add(ckpt(CheckpointEvent::Phase::Started, Operation::Write, 0, 1));
        view.add(ckpt(CheckpointEvent::Phase::Completed, Operation::Write, 0, 1, kGiB, 2.0));
        QVERIFY2(view.statusText().contains(QStringLiteral("writing checkpoint 1: 1 of 2 ranks done")), qPrintable(view.statusText()));
        QVERIFY2(view.statusText().startsWith(QStringLiteral("Checkpoints written 1/3")), qPrintable(view.statusText()));
        // Until rank 0 reports, the bar is what the ranks so far took: 1 GiB in 2 s.
        compareAll(values(view.bars(CheckpointView::Bandwidth, Operation::Write)), {0.5});
        CheckpointEvent failed = ckpt(CheckpointEvent::Phase::Failed, Operation::Write, 0, 0);
        failed.error = "/tmp/ckpt/global_epoch1_step1/zero_pp_rank_0_mp_rank_00_model_states.pt: No space left on device";
        view.add(failed);
        QVERIFY2(view.statusText().contains(QStringLiteral("failed: /tmp/ckpt/global_epoch1_step1/zero_pp_rank_0_mp_rank_00_model_states.pt: No space")),
                 qPrintable(view.statusText()));
        QVERIFY2(view.statusText().startsWith(QStringLiteral("Checkpoints written 0/3")), qPrintable(view.statusText()));
        QCOMPARE(view.tally().summary(Operation::Write).gibPerSecond.count, std::size_t(0)); // a failed one is no measurement
    }

    void benchmarkInvocationsContinueTheAxis() {
        CheckpointView view;
        view.reset(2, 0, false);
        view.beginInvocation(QStringLiteral("warm-up"));
        view.add(ckpt(CheckpointEvent::Phase::Completed, Operation::Write, 0, 0, kGiB, 1.0));
        view.add(ckpt(CheckpointEvent::Phase::Completed, Operation::Write, 1, 0, kGiB, 0.5));
        view.beginInvocation(QStringLiteral("run 1/1"));
        view.add(ckpt(CheckpointEvent::Phase::Completed, Operation::Write, 0, 0, kGiB, 0.25));
        compareAll(keys(view.bars(CheckpointView::Bandwidth, Operation::Write)), {1, 2, 3});
        compareAll(values(view.bars(CheckpointView::Bandwidth, Operation::Write)), {1, 2, 4});
        // The summary is the running invocation's: one checkpoint at 4 GiB/s.
        const CheckpointSummary s = view.tally().summary(Operation::Write);
        QCOMPARE(s.gibPerSecond.count, std::size_t(1));
        QCOMPARE(s.gibPerSecond.mean, 4.0);
    }

    void eventsFromAnotherThreadArriveOnTheGuiThread() {
        RunController controller;
        CheckpointView view;
        view.reset(3, 3, false);
        int offThread = 0;
        connect(&controller, &RunController::checkpoint, &view, [&](const CheckpointEvent& e) {
            if (QThread::currentThread() != qApp->thread()) ++offThread;
            view.add(e);
        });
        QSignalSpy spy(&controller, &RunController::checkpoint);
        const std::vector<CheckpointEvent> events = syntheticRun();
        std::thread rank([&] {
            for (const CheckpointEvent& e : events) controller.postCheckpoint(e);
        });
        rank.join();
        QCOMPARE(spy.count(), 0); // queued: nothing is delivered until the GUI thread's loop runs
        QTRY_COMPARE_WITH_TIMEOUT(spy.count(), int(events.size()), testsupport::kHangMs);
        QCOMPARE(offThread, 0);
        // In order, with every field: the view computes the same bars as when fed directly.
        const auto last = spy.last().first().value<CheckpointEvent>();
        QCOMPARE(last.op, Operation::Read);
        QCOMPARE(last.index, std::uint64_t(2));
        QCOMPARE(last.bytes, 512 * kMiB);
        QCOMPARE(last.realBytes, 512 * kMiB * 100);
        compareAll(values(view.bars(CheckpointView::Bandwidth, Operation::Write)), {4, 8, 2});
        compareAll(values(view.bars(CheckpointView::Bandwidth, Operation::Read)), {4, 2, 2});
    }

    void runPageShowsTheViewTheWorkloadNeeds() {
        QTemporaryDir work;
        trainio::WorkloadConfig cfg = uitest::tinyWorkload(work.filePath(QStringLiteral("data")));
        RunPage page;
        page.resize(1200, 800);
        page.show();
        QTabWidget* tabs = page.views();
        const int training = tabs->indexOf(page.plots()), checkpoints = tabs->indexOf(page.checkpointView());
        auto* plan = page.findChild<QLabel*>(QStringLiteral("checkpointPlan"));
        QVERIFY(plan);

        page.setWorkload(cfg, 1, trainio::MetricSemantics::DlioV2, true); // trains, no checkpoints
        QVERIFY(tabs->isTabVisible(training));
        QVERIFY(!tabs->isTabVisible(checkpoints));
        QVERIFY(!tabs->tabBar()->isVisible());
        QVERIFY(plan->isHidden());

        cfg.workflow.checkpoint = true; // checkpoints during training: both, the training plots first
        page.setWorkload(cfg, 1, trainio::MetricSemantics::DlioV2, true);
        QVERIFY(tabs->isTabVisible(training));
        QVERIFY(tabs->isTabVisible(checkpoints));
        QVERIFY(tabs->tabBar()->isVisible());
        QCOMPARE(tabs->currentWidget(), page.plots());
        QVERIFY(!plan->isHidden());

        cfg.workflow.train = false; // checkpoint-only: no AU to plot, the checkpoint view alone
        cfg.checkpoint.numCheckpointsWrite = 4;
        cfg.checkpoint.numCheckpointsRead = 2;
        page.setWorkload(cfg, 2, trainio::MetricSemantics::DlioV2, true);
        QVERIFY(!tabs->isTabVisible(training));
        QVERIFY(tabs->isTabVisible(checkpoints));
        QCOMPARE(tabs->currentWidget(), page.checkpointView());
        QVERIFY(page.checkpointView()->isVisible());
        QVERIFY(!page.plots()->isVisible());
        QVERIFY2(plan->text().contains(QStringLiteral("4 written, then 2 read back")), qPrintable(plan->text()));

        // llama3-8b as mlcommons/storage configs/dlio/workload/llama3_8b.yaml, on 8 accelerators at 1/1000
        // of its size: the published v3.0 runs report checkpoint_size_GB 104.70452117919922 (GiB), so
        // 104.70 GiB real and 104.7045 × 1024 / 1000 = 107.2 MiB written.
        setLlama(cfg, "llama_8b", {32, 128256, 4096, 14336, 32, 8});
        cfg.model.modelDatatype = "fp16";
        cfg.model.optimizerDatatype = "fp32";
        cfg.model.parallelism.pipeline = 1;
        cfg.model.parallelism.tensor = 1;
        cfg.trainio.checkpointScale = 0.001;
        page.setWorkload(cfg, 8, trainio::MetricSemantics::DlioV2, true);
        QVERIFY2(plan->text().startsWith(QStringLiteral("Checkpoint: 104.70 GiB at full size; written at checkpoint_scale 0.001: 107.2 MiB")),
                 qPrintable(plan->text()));
        QVERIFY2(plan->text().contains(QStringLiteral("8 of 8 ranks write (ranks 0–7 each: 2 files, 13.09 GiB → 13.4 MiB)")), qPrintable(plan->text()));
        QVERIFY2(plan->text().contains(QStringLiteral("4 written, then 2 read back")), qPrintable(plan->text()));
        // A model DLIO would refuse: the error names the key instead of a size.
        cfg.model.parallelism.tensor = 3;
        page.setWorkload(cfg, 8, trainio::MetricSemantics::DlioV2, true);
        QVERIFY2(plan->text().startsWith(QStringLiteral("Checkpoint: cannot be planned")), qPrintable(plan->text()));
        QVERIFY2(plan->text().contains(QStringLiteral("tensor")), qPrintable(plan->text()));
    }

    void checkpointOnlyRunThroughTheRunPage() {
        // The llama3-8b preset (MLPerf Storage v3.0) on 2 accelerators at 1/100,000 of its size, 3 writes then
        // 3 reads, run as the window runs it: RunPage → RunController → core → CheckpointEvents → the view.
        QTemporaryDir work;
        trainio::WorkloadConfig cfg = trainio::loadPreset("llama3_8b").config;
        QVERIFY(!cfg.workflow.train && cfg.workflow.checkpoint);
        const QString ckpt = work.filePath(QStringLiteral("ckpt"));
        cfg.checkpoint.folder = ckpt.toStdString();
        cfg.checkpoint.numCheckpointsWrite = 3;
        cfg.checkpoint.numCheckpointsRead = 3;
        cfg.checkpoint.timeBetweenCheckpoints = 0;
        cfg.checkpoint.fsync = false;
        cfg.trainio.checkpointScale = 1e-5;
        RunPage page;
        page.resize(1200, 800);
        page.show();
        page.setWorkload(cfg, 2, trainio::MetricSemantics::DlioV3, true);
        QCOMPARE(page.views()->currentWidget(), page.checkpointView());
        // Pre-flight checks the checkpoint, not a dataset (there is none): reading more than was written
        // is refused as DLIO's config.py refuses it, before anything is written.
        {
            trainio::WorkloadConfig tooManyReads = cfg;
            tooManyReads.checkpoint.numCheckpointsRead = 4;
            page.setWorkload(tooManyReads, 2, trainio::MetricSemantics::DlioV3, true);
            page.setOutputFolder(work.filePath(QStringLiteral("refused")));
            QSignalSpy refused(page.controller(), &RunController::finished);
            QVERIFY(page.startInvocation());
            QVERIFY(refused.wait(testsupport::kHangMs));
            const auto r = refused.first().first().value<RunFinish>();
            QCOMPARE(r.preflightProblems.size(), std::size_t(1));
            QVERIFY2(r.preflightProblems[0].found.find("checkpoint.num_checkpoints_read") != std::string::npos,
                     r.preflightProblems[0].found.c_str());
            QVERIFY(!QFileInfo::exists(ckpt));
            page.setWorkload(cfg, 2, trainio::MetricSemantics::DlioV3, true);
        }
        const QString out = work.filePath(QStringLiteral("run"));
        page.setOutputFolder(out);
        QSignalSpy events(page.controller(), &RunController::checkpoint);
        QSignalSpy finished(page.controller(), &RunController::finished);
        QVERIFY(page.startInvocation());
        QVERIFY(finished.wait(120000));
        const auto result = finished.first().first().value<RunFinish>();
        QVERIFY2(result.complete, qPrintable(result.error));

        // 2 ranks × (3 writes + 3 reads) × (started, completed).
        QCOMPARE(events.count(), 2 * 6 * 2);
        const CheckpointView* view = page.checkpointView();
        QCOMPARE(view->bars(CheckpointView::Bandwidth, Operation::Write)->dataCount(), 3);
        QCOMPARE(view->bars(CheckpointView::Bandwidth, Operation::Read)->dataCount(), 3);
        QCOMPARE(view->bars(CheckpointView::Duration, Operation::Write)->dataCount(), 3);
        QCOMPARE(view->bars(CheckpointView::Duration, Operation::Read)->dataCount(), 3);
        QVERIFY2(view->statusText().startsWith(QStringLiteral("Checkpoints written 3/3, read 3/3")), qPrintable(view->statusText()));
        QCOMPARE(view->rankModel()->rowCount(), 2);
        for (int r = 0; r < 2; ++r) {
            QCOMPARE(view->rankModel()->index(r, CheckpointRankModel::WritesCol).data().toString(), QStringLiteral("3"));
            QCOMPARE(view->rankModel()->index(r, CheckpointRankModel::ReadsCol).data().toString(), QStringLiteral("3"));
        }
        // Each bar's bytes are the files on disk: the first checkpoint's folder, every rank's files.
        qint64 onDisk = 0;
        QDirIterator files(ckpt + QStringLiteral("/global_epoch1_step1"), QDir::Files);
        while (files.hasNext()) onDisk += QFileInfo(files.next()).size();
        QVERIFY(onDisk > 0);
        for (const CheckpointBar& b : view->tally().bars(Operation::Write)) QCOMPARE(b.bytes, std::uint64_t(onDisk));
        for (const CheckpointBar& b : view->tally().bars(Operation::Read)) QCOMPARE(b.bytes, std::uint64_t(onDisk));
        // The numerator is the size core reports as DLIO's checkpoint_size_GB in summary.json.
        const auto summary = nlohmann::json::parse(testsupport::readText((out + QStringLiteral("/summary.json")).toStdString()));
        const double sizeGiB = summary.at("metric").at("checkpoint_size_GB").get<double>();
        QVERIFY(sizeGiB > 0);
        for (const CheckpointBar& b : view->tally().bars(Operation::Write))
            QVERIFY2(std::abs(b.gibPerSecond * b.seconds - sizeGiB) < 1e-12 * sizeGiB, qPrintable(QString::number(b.gibPerSecond * b.seconds)));
    }

    void checkpointsDuringTrainingThroughTheRunPage() {
        // Training and checkpointing: 16 npz files, batch 2, 2 accelerators → 4 steps per epoch, 2 epochs;
        // steps_between_checkpoints 2 → a checkpoint after steps 2 and 4 of each epoch (DLIO's main.py
        // _train), of a tiny llama (2 layers, hidden 64, ZeRO 3). Both views, the training plots first.
        QTemporaryDir work;
        trainio::WorkloadConfig cfg = uitest::tinyWorkload(work.filePath(QStringLiteral("data")), 16, 2);
        cfg.workflow.checkpoint = true;
        cfg.checkpoint.folder = work.filePath(QStringLiteral("ckpt")).toStdString();
        cfg.checkpoint.stepsBetween = 2;
        setLlama(cfg, "tiny_llama", {2, 1000, 64, 256, 4, 2});
        trainio::generateDataset(cfg, trainio::GenerateOptions{});
        RunPage page;
        page.resize(1200, 800);
        page.show();
        page.setWorkload(cfg, 2, trainio::MetricSemantics::DlioV3, true);
        QVERIFY(page.views()->isTabVisible(page.views()->indexOf(page.plots())));
        QVERIFY(page.views()->isTabVisible(page.views()->indexOf(page.checkpointView())));
        QCOMPARE(page.views()->currentWidget(), page.plots());
        QVERIFY2(page.checkpointPlanText().contains(QStringLiteral("during training, every 2 steps")), qPrintable(page.checkpointPlanText()));
        const QString out = work.filePath(QStringLiteral("run"));
        page.setOutputFolder(out);
        QSignalSpy finished(page.controller(), &RunController::finished);
        QVERIFY(page.startInvocation());
        QVERIFY(finished.wait(120000));
        const auto result = finished.first().first().value<RunFinish>();
        QVERIFY2(result.complete, qPrintable(result.error));
        QCOMPARE(page.plots()->epochPointCount(), 2);
        // 2 checkpoints × 2 epochs written, none read; both ranks in each.
        const CheckpointView* view = page.checkpointView();
        QCOMPARE(view->bars(CheckpointView::Bandwidth, Operation::Write)->dataCount(), 4);
        QCOMPARE(view->bars(CheckpointView::Bandwidth, Operation::Read)->dataCount(), 0);
        for (const CheckpointBar& b : view->tally().bars(Operation::Write)) QCOMPARE(b.ranksDone, std::uint64_t(2));
        QVERIFY2(view->statusText().startsWith(QStringLiteral("Checkpoints written 4, read 0")), qPrintable(view->statusText()));
        QVERIFY2(view->summaryText().contains(QStringLiteral("(4 checkpoints)")), qPrintable(view->summaryText()));
        QVERIFY2(view->summaryText().contains(QStringLiteral("Read: —")), qPrintable(view->summaryText()));
    }

    void planTextGivesRealAndScaledSizes() {
        // Three ranks: 0 and 1 each model 3 GiB + optimizer 6 GiB, 2 only an optimizer shard of 6 GiB; scale 0.01.
        trainio::checkpoint::CheckpointPlan plan;
        plan.ranks = 3;
        plan.scale = 0.01;
        for (std::uint64_t r = 0; r < 3; ++r) {
            trainio::checkpoint::RankPlan rp;
            rp.rank = r;
            if (r < 2) rp.files.push_back({"zero_pp_rank_" + std::to_string(r) + "_mp_rank_0_model_states.pt", 3 * kGiB, 3 * kGiB / 100});
            rp.files.push_back({"zero_pp_rank_" + std::to_string(r) + "_mp_rank_0_optim_states.pt", 6 * kGiB, 6 * kGiB / 100});
            plan.perRank.push_back(rp);
        }
        plan.realTotalBytes = 24 * kGiB;
        plan.totalBytes = 2 * (3 * kGiB / 100) + 3 * (6 * kGiB / 100);
        plan.dlioCheckpointSizeGiB = 24.0;
        plan.notes.push_back("data parallelism 3 derived from 3 ranks / (tp 1 × pp 1)");
        const QString text = checkpointPlanText(plan);
        // 24 GiB real; 2 × 32212254 + 3 × 64424509 = 257698035 bytes = 245.76 MiB written; ranks 0 and 1
        // 9 GiB → 92.16 MiB each, rank 2 6 GiB → 61.44 MiB. DLIO's size equals the real one: not repeated.
        QVERIFY2(text.startsWith(QStringLiteral("Checkpoint: 24.00 GiB at full size; written at checkpoint_scale 0.01: 245.8 MiB · 3 of 3")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("3 of 3 ranks write (ranks 0–1 each: 2 files, 9.00 GiB → 92.2 MiB; rank 2: 1 file, 6.00 GiB → 61.4 MiB)")), qPrintable(text));
        QVERIFY2(text.endsWith(QStringLiteral("data parallelism 3 derived from 3 ranks / (tp 1 × pp 1)")), qPrintable(text));
        // ZeRO 2 and the like: DLIO divides by more than is written, and the line says so.
        plan.dlioCheckpointSizeGiB = 30.0;
        QVERIFY2(checkpointPlanText(plan).contains(QStringLiteral(" · DLIO's checkpoint_size_GB: 30.00 GiB · ")), qPrintable(checkpointPlanText(plan)));
    }
};

QTEST_MAIN(TestCheckpointView)
#include "tst_checkpoint_view.moc"
