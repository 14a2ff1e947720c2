// The race and the replay (issue 33): 2–3 runs side by side on one scale, readable from the back of a room —
// per run its AU against the pass line, the bytes it delivers per second (one scale for all lanes), the
// limit that binds now and its storage changes, and below them every lane's AU over time on one chart.
//
// A lane is either the Run page's live run (fed the step batches the page already receives), a live rival
// of it (the same workload run at the same time on another storage profile, session/profile_rival.h), or a recorded
// run played from its folder's per-step records (session/recorded_run.h) at 1× or faster: nothing of its
// dataset is read, and the lane says "replay of <run>, recorded <date>" so that no one takes it for a live
// measurement. A live run with a recorded lane beside it is a race: the recording's clock starts with the
// live run. Opened by `trainio --replay DIR…`, File → Replay… and the Run page's "Race…".
#pragma once

#include "engine/engine_observer.h"
#include "run/live_figures.h"
#include "run/projector_window.h"
#include "session/recorded_run.h"

#include <QElapsedTimer>
#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class QComboBox;
class QCustomPlot;
class QGridLayout;
class QPushButton;
class QTimer;

namespace trainio::ui {

class AuBar;
class FitLabel;
class RateBar;

class RaceView final : public ProjectorWindow {
    Q_OBJECT
public:
    static constexpr int kMaxLanes = 3;

    explicit RaceView(QWidget* parent = nullptr);
    ~RaceView() override;

    // A recorded run in a lane of its own; its clock starts with start() (or with the live run). Returns
    // false, saying why on the view, when three lanes are taken.
    bool addReplay(std::shared_ptr<const session::RecordedRun> run);
    // Reads `folder` (loadRecordedRun) and adds it; false with the reason on the view (and in *error).
    bool addReplayFolder(const QString& folder, QString* error = nullptr);
    // The live lane (first, at most one): the Run page's run, its title and pass line, and where its bytes
    // come from ("emulated nvme"; empty: the storage as it is). Called again, the lane starts over for a new
    // run (nothing of the last one stays).
    void setLive(const QString& title, std::uint64_t ranks, double auThresholdPercent, const QString& storage = {});
    bool hasLive() const { return live_ >= 0; }
    // Another live lane beside the page's run (which must have its lane): a rival run, fed through the
    // calls below with the id returned; -1 (said on the view) when three lanes are taken or the page's
    // run has no lane. `name` is its short name in the title ("live on hdd").
    int addLive(const QString& title, const QString& caption, const QString& name, std::uint64_t ranks,
                double auThresholdPercent);
    // A live lane (by id) starts over for a new run of the same rival.
    void resetLive(int lane, const QString& title, std::uint64_t ranks, double auThresholdPercent);
    // The live run started (a benchmark's first invocation): every lane's clock starts now, so the recordings
    // race it from its first step.
    void liveStarted();
    // The calls that feed a live lane: `lane` is addLive()'s id, -1 the page's run. An id the view no
    // longer has (cleared since) is ignored.
    void liveInvocation(int lane = -1);
    void addLiveSteps(const std::vector<StepEvent>& events, int lane = -1);
    void addLiveEpoch(const EpochEvent& e, int lane = -1);
    void addLiveMarker(const QString& label);
    // The emulated device's binding limit (StorageControls::bindingChanged); "" when the device names none.
    void setLiveLimit(const QString& limit);
    // A live rival's device's binding limit (RaceRivals reads it from the rival's device).
    void setLaneLimit(int lane, const QString& limit);
    // Every recording from its start, at `speed`× (1, 2, 5, 10, …).
    void start();
    void setSpeed(double speed);
    double speed() const { return speed_; }
    // No lanes (cleared() says so: a rival's feeder stops).
    void clear();

    // For tests and the screenshot tour.
    int laneCount() const { return static_cast<int>(lanes_.size()); }
    QString laneTitle(int lane) const;
    QString laneCaption(int lane) const;
    QString laneAu(int lane) const;
    QString laneDelivered(int lane) const;
    QString laneLimit(int lane) const;
    std::optional<double> laneAuValue(int lane) const;
    QStringList laneMarkers(int lane) const;
    // The last epoch figure a lane shows ("last epoch 93.1 % (DLIO)"), from the run's summary for a recording.
    QString laneEpoch(int lane) const;
    bool replaysFinished() const;
    QCustomPlot* chart() const { return chart_; }
    QString message() const;
    // Advances every recording to `seconds` of the view's clock at once (tests: a replay without waiting).
    void advanceTo(double seconds);

signals:
    void cleared();

protected:
    void scaleFonts() override;
    void beforePresent() override;
    void closeEvent(QCloseEvent* event) override;

private:
    struct Lane;
    Lane& makeLane(const QString& title, const QString& caption, const QString& name, double threshold, std::uint64_t ranks,
                   bool replay);
    Lane* laneById(int id);
    void tick();
    void feed(Lane& lane, const std::vector<StepEvent>& events, std::optional<double> at);
    void mark(Lane& lane, const QString& label, double x);
    void refresh();
    void setMessage(const QString& text, bool error);
    void addFromDialog();

    std::vector<std::unique_ptr<Lane>> lanes_;
    int live_ = -1;   // the page's run's lane id
    int nextId_ = 0;
    double speed_ = 1.0;
    QElapsedTimer clock_;
    bool running_ = false;
    double peakBytesPerSecond_ = 0; // the GiB/s bars' shared scale: the highest rate any lane showed

    FitLabel* title_;
    FitLabel* hint_;
    FitLabel* message_;
    QGridLayout* laneRow_;
    QCustomPlot* chart_;
    QPushButton* addButton_;
    QPushButton* restartButton_;
    QComboBox* speedBox_;
    QTimer* timer_;
};

} // namespace trainio::ui
