// The Run page's live rivals (issue 33's race: "the same workload on two storage profiles"): up to two runs of
// the page's workload on other emulated storage profiles, each in a race lane of its own beside the page's
// run (session/profile_rival.h says what a rival changes). A rival starts when the page's run has passed
// its pre-flight and prepared the dataset, in this process and on this machine, and writes its own folder
// beside the run's; when it ends its results go to the library as any run's. Each lane says what it is
// ("live: measured now · emulated hdd"), and names the limit its own device says binds.
#pragma once

#include "run/run_controller.h"
#include "widgets/notification_panel.h"

#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <memory>
#include <vector>

namespace trainio::ui {

class RaceView;

class RaceRivals final : public QObject {
    Q_OBJECT
public:
    RaceRivals(RaceView* race, QObject* parent);
    ~RaceRivals() override;

    // A rival on `profile` (a storage profile's name): its lane now, beside the page's run's (which the
    // caller has given a lane), titled `title`; its run with the page's next run, or at once when
    // `runningRequest` is the request of the page's run already under way. False, with the reason in
    // *error, for an unknown profile, a full race, or a workload that cannot have a rival (MPI).
    bool add(const QString& profile, const QString& title, std::uint64_t ranks, double auThresholdPercent,
             const RunRequest* runningRequest, QString* error);
    int count() const { return static_cast<int>(rivals_.size()); }
    QStringList profiles() const;
    // Whether a rival's run is still going (the page's next run waits for it: two runs of one rival at once
    // cannot be).
    bool isRunning() const;
    // The page's run is measuring (its pre-flight passed, its dataset is there): every rival runs `request`'s
    // workload on its profile. `fresh`: a new run of the page's, whose lanes start over (titled `title`).
    void start(const RunRequest& request, const QString& title, bool fresh);
    void cancel();
    // For tests: a rival's controller, its lane id.
    RunController* controller(int i) const { return rivals_.at(static_cast<std::size_t>(i)).controller; }
    int lane(int i) const { return rivals_.at(static_cast<std::size_t>(i)).lane; }

signals:
    void notify(trainio::ui::NotificationPanel::Severity severity, const QString& text);
    void resultsWritten(const QString& dir, std::shared_ptr<const trainio::store::WrittenFiles> written);

private:
    struct Rival {
        QString profile;
        int lane = -1;
        RunController* controller = nullptr;
        const EmulatedStorageBackend* device = nullptr; // whose counters lastStats are (one per invocation)
        EmulationStats lastStats;
        double lastStatsTime = 0;
    };
    void run(Rival& r, const RunRequest& request);
    void pollLimits();
    void forget();

    RaceView* race_;
    std::vector<Rival> rivals_;
    QTimer limits_;
};

} // namespace trainio::ui
