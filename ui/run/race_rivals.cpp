#include "run/race_rivals.h"

#include "run/race_view.h"

#include "io/emulated_storage.h"
#include "session/profile_rival.h"
#include "util/clock.h"

#include <algorithm>

namespace trainio::ui {

using Severity = NotificationPanel::Severity;

namespace {
// A rival lane's title: the page's run's, and the profile.
QString rivalTitle(const QString& title, const QString& profile) {
    return RaceRivals::tr("%1 · %2 profile").arg(title, profile);
}
} // namespace

RaceRivals::RaceRivals(RaceView* race, QObject* parent) : QObject(parent), race_(race) {
    // A cleared race view has no lanes for the rivals: they are forgotten (a rival still running ends as
    // any run and goes to the library, its steps shown nowhere).
    connect(race_, &RaceView::cleared, this, &RaceRivals::forget);
    limits_.setInterval(1000);
    connect(&limits_, &QTimer::timeout, this, &RaceRivals::pollLimits);
}

RaceRivals::~RaceRivals() = default; // the controllers (children) cancel and join their workers

QStringList RaceRivals::profiles() const {
    QStringList out;
    for (const Rival& r : rivals_) out << r.profile;
    return out;
}

bool RaceRivals::isRunning() const {
    return std::any_of(rivals_.begin(), rivals_.end(), [](const Rival& r) { return r.controller->isRunning(); });
}

bool RaceRivals::add(const QString& profile, const QString& title, std::uint64_t ranks, double auThresholdPercent,
                     const RunRequest* runningRequest, QString* error) {
    auto fail = [&](const QString& why) {
        if (error) *error = why;
        return false;
    };
    if (runningRequest && runningRequest->mpi)
        return fail(tr("A live rival runs in this process, beside the page's run: not beside an MPI run over client hosts"));
    if (profiles().contains(profile)) return fail(tr("The %1 profile already races this run").arg(profile));
    std::string words;
    try {
        // The profile checked now (its file read), not when the run starts.
        WorkloadConfig probe;
        words = session::emulatedStorageWords(session::profileRival(probe, "rival", profile.toStdString()).config);
    } catch (const std::exception& e) {
        return fail(QString::fromUtf8(e.what()));
    }
    const int lane = race_->addLive(rivalTitle(title, profile),
                                    tr("live: measured now · %1").arg(QString::fromStdString(words)),
                                    tr("live on %1").arg(profile), ranks, auThresholdPercent);
    if (lane < 0) return fail(race_->message());
    Rival r;
    r.profile = profile;
    r.lane = lane;
    r.controller = new RunController(this);
    RunController* c = r.controller;
    connect(c, &RunController::steps, this, [this, lane](const std::vector<StepEvent>& batch) { race_->addLiveSteps(batch, lane); });
    connect(c, &RunController::epochFinished, this, [this, lane](const EpochEvent& e) { race_->addLiveEpoch(e, lane); });
    connect(c, &RunController::invocationStarted, this, [this, lane] { race_->liveInvocation(lane); });
    connect(c, &RunController::finished, this, [this, c, profile](const RunFinish& f) {
        QString what = tr("The %1 profile's rival run").arg(profile);
        if (!f.preflightProblems.empty() || f.failed())
            emit notify(Severity::Error, tr("%1 failed: %2 (folder %3)").arg(what, f.error, f.outputDir));
        else
            emit notify(f.complete ? Severity::Info : Severity::Warning,
                        tr("%1 %2: %3").arg(what, f.complete ? tr("ended") : tr("was cancelled"), f.outputDir));
        if (f.written) emit resultsWritten(f.outputDir, f.written);
        // A rival forgotten while it ran (its race cleared) has no place left.
        if (std::none_of(rivals_.begin(), rivals_.end(), [c](const Rival& x) { return x.controller == c; })) c->deleteLater();
    });
    rivals_.push_back(r);
    if (runningRequest) run(rivals_.back(), *runningRequest);
    return true;
}

void RaceRivals::start(const RunRequest& request, const QString& title, bool fresh) {
    for (Rival& r : rivals_) {
        if (fresh) race_->resetLive(r.lane, rivalTitle(title, r.profile), request.accelerators,
                                    request.config.metric.au * 100.0);
        run(r, request);
    }
}

void RaceRivals::run(Rival& r, const RunRequest& request) {
    if (r.controller->isRunning()) {
        emit notify(Severity::Warning, tr("The %1 profile's rival is still running its last run: not started again").arg(r.profile));
        return;
    }
    if (request.mpi) {
        emit notify(Severity::Warning, tr("The %1 profile's rival not started: a live rival does not race an MPI run").arg(r.profile));
        return;
    }
    RunRequest req = request;
    try {
        session::ProfileRival p = session::profileRival(request.config, request.outputDir, r.profile.toStdString());
        req.config = std::move(p.config);
        req.outputDir = std::move(p.output);
    } catch (const std::exception& e) {
        emit notify(Severity::Error, tr("The %1 profile's rival not started: %2").arg(r.profile, QString::fromUtf8(e.what())));
        return;
    }
    req.io = nullptr; // the page's own backend (a test's fault injector) is the page's run's
    r.device = nullptr;
    r.lastStats = {};
    r.lastStatsTime = WallClock().now();
    if (!r.controller->start(req)) return; // finished() said why
    limits_.start();
}

void RaceRivals::cancel() {
    for (const Rival& r : rivals_) r.controller->cancel();
}

void RaceRivals::pollLimits() {
    // Each rival's own device says which of its limits held its readers back over the last second.
    const double now = WallClock().now();
    bool any = false;
    for (Rival& r : rivals_) {
        const std::shared_ptr<EmulatedStorageBackend>& device = r.controller->storage();
        if (!device) continue;
        any = true;
        if (device.get() != r.device) { // a new invocation's device counts from zero
            r.device = device.get();
            r.lastStats = {};
        }
        const EmulationStats stats = device->stats();
        race_->setLaneLimit(r.lane, QString::fromStdString(bindingLimit(r.lastStats, stats, now - r.lastStatsTime)));
        r.lastStats = stats;
        r.lastStatsTime = now;
    }
    if (!any && !isRunning()) limits_.stop();
}

void RaceRivals::forget() {
    limits_.stop();
    for (Rival& r : rivals_) {
        if (r.controller->isRunning()) continue; // deleted when it ends (finished, above)
        r.controller->deleteLater();
    }
    rivals_.clear();
}

} // namespace trainio::ui
