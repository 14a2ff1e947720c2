#include "run/engine_bridge.h"

namespace trainio::ui {

EngineBridge::EngineBridge(QObject* parent) : QObject(parent) {
    qRegisterMetaType<trainio::EpochEvent>();
}

void EngineBridge::onPhase(const std::string& phase) { emit phaseChanged(QString::fromStdString(phase)); }

void EngineBridge::onStep(const StepEvent& e) {
    std::lock_guard lock(mutex_);
    if (held_.empty() || held_.back().invocation != invocation_) held_.push_back({invocation_, {}});
    held_.back().steps.push_back(e);
}

std::uint64_t EngineBridge::beginInvocation() {
    std::lock_guard lock(mutex_);
    return ++invocation_;
}

void EngineBridge::onEpoch(const EpochEvent& e) { emit epochFinished(e); }

void EngineBridge::onMessage(const std::string& text) { emit message(QString::fromStdString(text)); }

std::vector<StepEvent> EngineBridge::takeSteps(std::uint64_t through) {
    std::vector<StepEvent> out;
    std::lock_guard lock(mutex_);
    while (!held_.empty() && held_.front().invocation <= through) {
        if (out.empty())
            out.swap(held_.front().steps);
        else
            out.insert(out.end(), held_.front().steps.begin(), held_.front().steps.end());
        held_.pop_front();
    }
    return out;
}

} // namespace trainio::ui
