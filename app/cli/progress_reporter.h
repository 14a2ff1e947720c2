// The CLI's view of a running job: a live progress line on a terminal (phase, epoch, step,
// samples/s, MiB/s, AU so far, ETA), one line per finished epoch, and an optional --live-json stream
// (one JSON object per step, epoch and generation tick) for other tools to follow.
#pragma once

#include "engine/engine_observer.h"

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace trainio::cli {

class ProgressReporter final : public EngineObserver {
public:
    ProgressReporter(bool quiet, const std::string& liveJsonPath, double recordLength, std::uint64_t batchSize,
                     std::uint64_t epochs);
    ~ProgressReporter() override;
    void setLabel(const std::string& label); // e.g. "run 2/5"
    void onPhase(const std::string& phase) override;
    void onStep(const StepEvent& e) override;
    void onEpoch(const EpochEvent& e) override;
    void onMessage(const std::string& text) override;
    // --live-json only: an invocation's folder before it runs, and its status and AU once it is written
    // (what a front end following the stream needs to list invocations; label: the current setLabel).
    void onInvocationStart(const std::string& dir);
    void onInvocationDone(const std::string& dir, const std::string& status, double auPercent);
    // Dataset generation progress.
    void onGeneration(std::uint64_t filesDone, std::uint64_t filesTotal, std::uint64_t bytesDone,
                      std::uint64_t bytesTotal, double seconds);
    void finishLine();
    // A process other than 0 of an MPI job: no progress line, no messages, no --live-json (process 0
    // reports for every rank).
    void setSilent();
    void onHosts(const std::vector<std::string>& hostOfRank) override;

private:
    void tick();
    void writeJson(const std::string& line);

    bool quiet_;
    bool silent_ = false;
    const bool tty_;
    const double recordLength_;
    const std::uint64_t batch_;
    const std::uint64_t epochs_;
    std::FILE* live_ = nullptr;
    std::mutex mutex_;
    std::condition_variable cv_;
    bool stop_ = false;
    bool lineOpen_ = false;
    std::string label_, phase_ = "start";
    std::string genLine_;
    // rank 0's progress
    std::uint64_t epoch_ = 0, step_ = 0, stepsPerEpoch_ = 0;
    double epochStartWall_ = 0, lastWall_ = 0, computeSum_ = 0, procSum_ = 0;
    std::uint64_t stepsSeen_ = 0, queueDepth_ = 0;
    std::thread ticker_;
};

} // namespace trainio::cli
