// The live plots of a run: per step (AU, load time, samples/s, MiB/s, prefetch-queue depth) and per
// epoch (AU with the pass threshold, MiB/s), one line per emulated accelerator and one for the total.
// Fed on the GUI thread by RunController's step batches and epoch events; draws with queued replots.
// Step lines go through a SeriesEnvelope each, so a run of a million steps holds and draws a few thousand
// points per line (recent steps exact, older ones as min/max per bucket); epoch lines are exact.
// Beside them, the host's telemetry on the run's time axis (seconds, continuing across a benchmark's
// invocations): client CPU busy % (all processes, and TrainIO's own, as % of all CPUs) and the data
// device's read MiB/s on a second axis — so a fall in AU can be read against a saturated client or an
// idle disk. And per epoch, the loader policy's (issue 13, docs/loader.md): hit ratio % with the Belady
// bound % for the same capacity, and the stall (seconds the accelerators waited for batches, the sum of
// the per-step waits of the "Batch load time per step" plot).
#pragma once

#include "engine/engine_observer.h"
#include "plots/series_envelope.h"
#include "plots/step_series.h"
#include "telemetry/telemetry_summary.h"

#include <QStringList>
#include <QWidget>

#include <array>
#include <vector>

class QCustomPlot;
class QCPGraph;
class QCPItemStraightLine;

namespace trainio::ui {

class LivePlots final : public QWidget {
    Q_OBJECT
public:
    enum PlotId { StepAu, StepLoad, StepSamples, StepMib, StepQueue, EpochAu, EpochMib, Telemetry, EpochHit, EpochStall, PlotCount };
    // The EpochHit plot's graphs.
    enum HitGraph { HitRatio, BeladyBound };
    // The Telemetry plot's graphs.
    enum TelemetryGraph { CpuBusy, ProcessCpu, DeviceRead };

    explicit LivePlots(QWidget* parent = nullptr);

    // Clears every plot for a new run of `ranks` emulated accelerators.
    void reset(std::uint64_t ranks, std::uint64_t batchSize, double auThresholdPercent);
    // Keys continue across the invocations of a benchmark.
    void beginInvocation(const QString& label);
    // A labelled vertical line on the step plots at the latest step: something changed there (a storage
    // setting during a run). Returns the step key it was drawn at.
    double addMarker(const QString& label);
    // Labels of the markers added since the last reset, in order.
    const QStringList& markers() const { return markers_; }

    void addSteps(const std::vector<StepEvent>& events);
    void addEpoch(const EpochEvent& e);
    void addTelemetry(const telemetry::TelemetryPoint& p);
    // Rows the telemetry plot has received since the last reset.
    int telemetryPointCount() const;

    QCustomPlot* plot(PlotId id) const { return plots_[static_cast<std::size_t>(id)]; }
    static QString plotTitle(PlotId id);
    // Points in the "total" line of the epoch AU plot, and steps the total line of the step plots has
    // received (every step, however many are drawn).
    int epochPointCount() const;
    static QString plotToolTip(PlotId id);
    int stepPointCount() const;
    // Points the total line of the step AU plot draws: bounded, whatever the run's length.
    int stepPointsDrawn() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    QCPGraph* addGraph(PlotId id, const QString& name, int colorIndex, bool total);
    void rebuildGraphs();
    void applyTheme();
    void replotAll();
    // Copies what an envelope draws into its graph: the line is bounded, so replacing it whole is cheaper
    // than patching the buckets that changed.
    void syncGraph(QCPGraph* graph, const SeriesEnvelope& envelope);
    // A vertical line at x with its label on text row `row` (from the top of the axes), the text to the
    // right (AlignLeft) or to the left (AlignRight) of the line.
    void drawMark(QCustomPlot* p, double x, const QString& label, const QColor& color, Qt::PenStyle style,
                  Qt::Alignment side);
    // Lays every mark label out clear of the others and above the data (layOutMarkLabels, before each replot).
    void placeMarkLabels(QCustomPlot* p);
    // Sets the legend's entries per row to what the plot's width holds at full names (before each replot).
    void fitLegend(QCustomPlot* p);

    static constexpr int kStepPlots = StepQueue + 1; // the step plots come first in PlotId
    std::array<QCustomPlot*, PlotCount> plots_{};
    // Per step plot, one envelope per graph (graph 0 the total, then the ranks).
    std::array<std::vector<SeriesEnvelope>, kStepPlots> stepLines_;
    StepSeries series_;
    std::uint64_t ranks_ = 1;
    bool perRankSteps_ = true; // per-rank step lines only for a few ranks: beyond, they are unreadable
    double threshold_ = 90.0;
    double epochOffset_ = 0;
    double lastEpochKey_ = 0;
    QCPItemStraightLine* thresholdLine_ = nullptr;
    class ThresholdLegendItem* thresholdItem_ = nullptr; // in the AU-per-epoch legend
    QStringList markers_;
    double timeOffset_ = 0;  // telemetry: the previous invocations' length, so a benchmark's axis continues
    double lastTimeKey_ = 0;
    QString deviceLabel_;
};

} // namespace trainio::ui
