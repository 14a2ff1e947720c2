// The checkpoint view of the Run page: per checkpoint, bars of the write and read bandwidth (GiB/s) and
// duration (s); per rank, a table of what each rank wrote and read; a summary line (mean ± population
// standard deviation over the checkpoints, as DLIO's summary.json); what is in flight. Fed on the GUI
// thread with CheckpointEvents (RunController::checkpoint); the numbers come from CheckpointTally.
// A benchmark's invocations continue along the x axis (one slot per checkpoint number), the summary and
// the table are the running invocation's.
#pragma once

#include "checkpoint/checkpoint_plan.h"
#include "run/checkpoint_rank_model.h"
#include "run/checkpoint_tally.h"
#include "config/workload_config.h"

#include <QString>
#include <QWidget>

class QCustomPlot;
class QCPBars;
class QCPBarsGroup;
class QLabel;
class QTableView;

namespace trainio::ui {

// What the run will write, before it starts: per checkpoint, the real size (as DLIO computes it) and the
// scaled size TrainIO writes (trainio.checkpoint_scale), with the files per rank.
QString checkpointPlanText(const checkpoint::CheckpointPlan& plan);
// The same for a workload on `ranks` accelerators, with how many checkpoints are written and read; the
// error (naming the key) when the model cannot be checkpointed as configured.
QString checkpointPlanSummary(const WorkloadConfig& cfg, std::uint64_t ranks);

class CheckpointView final : public QWidget {
    Q_OBJECT
public:
    enum PlotId { Bandwidth, Duration, PlotCount };

    explicit CheckpointView(QWidget* parent = nullptr);

    // A new run: `writes`/`reads` checkpoints expected per invocation (0: unknown), checkpoint.rank_sync,
    // DLIO's checkpoint size in GiB (CheckpointTally::reset; 0: the bytes the ranks report).
    void reset(std::uint64_t writes, std::uint64_t reads, bool rankSync, double sizeGiB = 0);
    // The next events belong to a new invocation of a benchmark: its bars go to the right of the last.
    void beginInvocation(const QString& label);
    void add(const checkpoint::CheckpointEvent& e);

    const CheckpointTally& tally() const { return tally_; }
    QCustomPlot* plot(PlotId id) const { return plots_[id]; }
    QCPBars* bars(PlotId id, checkpoint::Operation op) const;
    QString summaryText() const;
    QString statusText() const;
    // The per-rank table: a view over rankModel() (columns CheckpointRankModel::Column).
    QTableView* rankTable() const { return ranks_; }
    const CheckpointRankModel* rankModel() const { return rankModel_; }
    static QString plotTitle(PlotId id);

protected:
    void changeEvent(QEvent* event) override;

private:
    void rebuild();
    void applyTheme();
    void redraw();
    void updateTexts();

    CheckpointTally tally_;
    bool rankSync_ = false;
    double sizeGiB_ = 0;
    std::uint64_t writesExpected_ = 0, readsExpected_ = 0;
    // Bars of the invocations before the running one, with their x keys.
    struct Frozen {
        double key;
        CheckpointBar bar;
    };
    std::vector<Frozen> frozen_[2];
    double base_ = 0; // x key offset of the running invocation's checkpoints
    QCustomPlot* plots_[PlotCount] = {};
    QCPBars* bars_[PlotCount][2] = {};
    QCPBarsGroup* groups_[PlotCount] = {};
    QLabel* summary_;
    QLabel* status_;
    CheckpointRankModel* rankModel_;
    QTableView* ranks_;
};

} // namespace trainio::ui
