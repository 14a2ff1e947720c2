// The presentation view (issue 21): the running benchmark full screen, readable from the back of a room —
// total and per-accelerator AU as large bars against the pass line, the bytes delivered per second, the
// emulated device's limits as large sliders, and the storage changes marked on a step chart. Themed for a
// projector (dark background, fonts sized to the screen). Opened from the Run page (F11 or its button),
// closed with Esc or F11.
//
// It draws what the Run page already receives (the controller's step batches and epoch events, relayed
// by the page: no core calls on the GUI thread), and its sliders set the Run page's "Emulated storage"
// strip's boxes: a limit dragged here goes through the strip's own live-change path (the device applies
// and logs it, the plots mark it) exactly as one typed there.
#pragma once

#include "engine/engine_observer.h"
#include "run/live_figures.h"
#include "run/projector_window.h"
#include "plots/series_envelope.h"
#include "plots/step_series.h"

#include <QLabel>
#include <QStringList>
#include <QWidget>

#include <array>
#include <optional>
#include <vector>

class QCustomPlot;
class QDoubleSpinBox;
class QGridLayout;
class QPushButton;
class QSlider;
class QTimer;

namespace trainio::ui {

class StorageControls;

// A one-line label that never clips its text: horizontally it takes the width its layout gives, and its
// font shrinks from the requested pixel size until the widest text it is meant to show (the current text
// and `sample`, e.g. "100 %") fits that width.
class FitLabel final : public QLabel {
    Q_OBJECT
public:
    explicit FitLabel(QWidget* parent = nullptr, const QString& sample = {});
    void setPixelSize(int px);
    void setSample(const QString& sample);
    void setText(const QString& text);
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void fit();
    int wanted_ = 20;
    QString sample_;
};

// A vertical AU bar: the value filled from the bottom, green at or above the pass line, orange below,
// the pass line across it.
class AuBar final : public QWidget {
    Q_OBJECT
public:
    explicit AuBar(QWidget* parent = nullptr);
    void setThreshold(double percent);
    void setValue(std::optional<double> percent);
    std::optional<double> value() const { return value_; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    double threshold_ = 90;
    std::optional<double> value_;
};

class PresentationView final : public ProjectorWindow {
    Q_OBJECT
public:
    // Limits the view's sliders change, each the strip's box of the same name.
    enum Limit { Bandwidth, Latency, Iops, Inflight, LimitCount };
    // Ranks beyond this many are shown as their minimum, median and maximum.
    static constexpr std::uint64_t kMaxRankBars = 16;

    explicit PresentationView(StorageControls* strip, QWidget* parent = nullptr);

    // A new run: `title` e.g. "lab-nvme-01 · unet3d_b200 · 8 accelerators".
    void reset(std::uint64_t ranks, std::uint64_t batchSize, double auThresholdPercent, const QString& title);
    void beginInvocation(const QString& label);
    void addSteps(const std::vector<StepEvent>& events);
    void addEpoch(const EpochEvent& e);
    // A storage change at step `x` of the run's step axis (the Run page's plots' numbering).
    void addMarker(const QString& label, double x);
    void setStatus(const QString& text);

    // For tests and the screenshot tour.
    QSlider* slider(Limit limit) const { return sliders_[limit]; }
    QLabel* sliderValue(Limit limit) const { return sliderValues_[limit]; }
    AuBar* totalBar() const { return totalBar_; }
    QLabel* totalText() const { return totalValue_; }
    QLabel* deliveredText() const { return delivered_; }
    QLabel* bindingText() const { return binding_; }
    // The figures of the last seconds' steps (AU, bytes/s): also what the strip's "limited by" weighs.
    const LiveFigures& liveFigures() const { return figures_; }
    std::vector<AuBar*> rankBars() const;
    const QStringList& markers() const { return markers_; }
    QCustomPlot* chart() const { return chart_; }
    // The storage profiles' buttons (one click to a profile's exact limits), in name order.
    const std::vector<QPushButton*>& profileButtons() const { return profileButtons_; }
    FitLabel* sliderName(Limit limit) const { return sliderNames_[limit]; }
    // The slider position of a limit's value, and the value at a position (log scales; an end stands for
    // "unlimited" / "none").
    static int positionOf(Limit limit, double value);
    static double valueAt(Limit limit, int position);
    static constexpr int kSliderSteps = 1000;

protected:
    void scaleFonts() override;
    void beforePresent() override { refresh(); }

private:
    QDoubleSpinBox* box(Limit limit) const;
    void syncSliders();
    void applySlider(Limit limit);
    void showSliderValue(Limit limit, double value);
    void rebuildRankBars();
    void refresh(); // the figures' labels and bars, a few times a second
    void drawMarker(double x, const QString& label);

    StorageControls* strip_;
    LiveFigures figures_;
    StepSeries steps_;
    SeriesEnvelope auLine_;
    std::uint64_t ranks_ = 1;
    double threshold_ = 90;
    std::vector<double> epochRankAu_;
    std::optional<double> epochAu_;
    QStringList markers_;
    bool dirty_ = false;

    FitLabel* title_;
    FitLabel* hint_;
    FitLabel* status_;
    FitLabel* totalCaption_;
    AuBar* totalBar_;
    FitLabel* totalValue_;
    FitLabel* totalEpoch_;
    FitLabel* ranksCaption_;
    QWidget* rankArea_;
    QGridLayout* rankGrid_;
    struct RankGauge {
        FitLabel* name;
        AuBar* bar;
        FitLabel* value;
    };
    std::vector<RankGauge> rankGauges_;
    FitLabel* deliveredCaption_;
    FitLabel* delivered_;
    FitLabel* deliveredMib_;
    FitLabel* binding_;
    QCustomPlot* chart_;
    FitLabel* slidersCaption_;
    std::array<FitLabel*, LimitCount> sliderNames_{};
    std::array<FitLabel*, LimitCount> sliderValues_{};
    std::array<QSlider*, LimitCount> sliders_{};
    FitLabel* profilesCaption_;
    std::vector<QPushButton*> profileButtons_;
    QTimer* refreshTimer_;
};

} // namespace trainio::ui
