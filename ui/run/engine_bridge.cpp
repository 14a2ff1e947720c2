#include "run/engine_bridge.h"

namespace trainio::ui {

EngineBridge::EngineBridge(QObject* parent) : QObject(parent) {
    qRegisterMetaType<trainio::EpochEvent>();
}

void EngineBridge::onPhase(const std::string& phase) { emit phaseChanged(QString::fromStdString(phase)); }

void EngineBridge::onStep(const StepEvent& e) {
    std::lock_guard lock(mutex_);
    steps_.push_back(e);
}

void EngineBridge::onEpoch(const EpochEvent& e) { emit epochFinished(e); }

void EngineBridge::onMessage(const std::string& text) { emit message(QString::fromStdString(text)); }

std::vector<StepEvent> EngineBridge::takeSteps() {
    std::vector<StepEvent> out;
    {
        std::lock_guard lock(mutex_);
        out.swap(steps_);
    }
    return out;
}

} // namespace trainio::ui
