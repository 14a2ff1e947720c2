// The one place engine threads meet Qt: implements trainio::EngineObserver and turns its calls into
// queued signals for the GUI thread. Step events are far too frequent to signal one by one (tens of
// thousands per second on a fast disk), so they go into a mutex-protected buffer that the GUI thread
// drains on a timer; epochs, phases and messages are rare and are signalled directly.
// A benchmark's invocations follow each other faster than the GUI thread may drain: the steps are held per
// invocation, and the GUI thread takes an invocation's steps only once it has announced that invocation
// (the plots key them from its start), so no drain mixes the steps of two invocations.
#pragma once

#include "engine/engine_observer.h"

#include <QObject>
#include <QString>

#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

Q_DECLARE_METATYPE(trainio::EpochEvent)

namespace trainio::ui {

class EngineBridge final : public QObject, public trainio::EngineObserver {
    Q_OBJECT
public:
    explicit EngineBridge(QObject* parent = nullptr);

    // EngineObserver: called from engine threads.
    void onPhase(const std::string& phase) override;
    void onStep(const StepEvent& e) override;
    void onEpoch(const EpochEvent& e) override;
    void onMessage(const std::string& text) override;

    // Worker thread, before an invocation's engine starts (the previous one's steps have all arrived): the
    // steps from now on belong to a new invocation, whose number (1, 2, …) is returned.
    std::uint64_t beginInvocation();
    // GUI thread: takes the step events buffered since the last call that belong to invocations up to
    // `through` (0: those posted before any beginInvocation), in arrival order; later ones stay held.
    std::vector<StepEvent> takeSteps(std::uint64_t through = UINT64_MAX);

signals:
    // Emitted from engine threads; connect with the default (auto) connection from GUI-thread objects,
    // which Qt makes queued.
    void phaseChanged(const QString& phase);
    void epochFinished(const trainio::EpochEvent& e);
    void message(const QString& text);

private:
    struct Held {
        std::uint64_t invocation = 0;
        std::vector<StepEvent> steps;
    };
    std::mutex mutex_;
    std::uint64_t invocation_ = 0; // the invocation onStep's events belong to
    std::deque<Held> held_;        // oldest invocation first
};

} // namespace trainio::ui
