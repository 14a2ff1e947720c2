// The one place engine threads meet Qt: implements trainio::EngineObserver and turns its calls into
// queued signals for the GUI thread. Step events are far too frequent to signal one by one (tens of
// thousands per second on a fast disk), so they go into a mutex-protected buffer that the GUI thread
// drains on a timer; epochs, phases and messages are rare and are signalled directly.
#pragma once

#include "engine/engine_observer.h"

#include <QObject>
#include <QString>

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

    // GUI thread: takes every step event buffered since the last call, in arrival order.
    std::vector<StepEvent> takeSteps();

signals:
    // Emitted from engine threads; connect with the default (auto) connection from GUI-thread objects,
    // which Qt makes queued.
    void phaseChanged(const QString& phase);
    void epochFinished(const trainio::EpochEvent& e);
    void message(const QString& text);

private:
    std::mutex mutex_;
    std::vector<StepEvent> steps_;
};

} // namespace trainio::ui
