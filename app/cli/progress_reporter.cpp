#include "progress_reporter.h"

#include "engine/live_json.h"
#include "util/errors.h"

#include <unistd.h>

namespace trainio::cli {

namespace {
std::string hms(double s) {
    if (s < 0 || s > 1e7) return "--:--";
    const auto t = static_cast<long>(s + 0.5);
    char buf[32];
    if (t >= 3600)
        std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, (t / 60) % 60, t % 60);
    else
        std::snprintf(buf, sizeof buf, "%ld:%02ld", t / 60, t % 60);
    return buf;
}
} // namespace

ProgressReporter::ProgressReporter(bool quiet, const std::string& liveJsonPath, double recordLength,
                                   std::uint64_t batchSize, std::uint64_t epochs)
    : quiet_(quiet), tty_(!quiet && isatty(STDERR_FILENO)), recordLength_(recordLength), batch_(batchSize),
      epochs_(epochs) {
    if (!liveJsonPath.empty()) {
        live_ = std::fopen(liveJsonPath.c_str(), "w");
        if (!live_) throw InputError("--live-json " + liveJsonPath + ": cannot create: " + errnoText(errno));
    }
    if (tty_) ticker_ = std::thread([this] {
        std::unique_lock lock(mutex_);
        while (!stop_) {
            cv_.wait_for(lock, std::chrono::milliseconds(250));
            if (!stop_) tick();
        }
    });
}

ProgressReporter::~ProgressReporter() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    cv_.notify_all();
    if (ticker_.joinable()) ticker_.join();
    finishLine();
    if (live_) std::fclose(live_);
}

void ProgressReporter::setLabel(const std::string& label) {
    std::lock_guard lock(mutex_);
    label_ = label;
    genLine_.clear();
}

void ProgressReporter::writeJson(const std::string& line) {
    if (!live_) return;
    std::fputs(line.c_str(), live_);
    std::fputc('\n', live_);
    std::fflush(live_);
}

void ProgressReporter::onPhase(const std::string& phase) {
    std::lock_guard lock(mutex_);
    phase_ = phase;
    epoch_ = step_ = stepsSeen_ = 0;
    computeSum_ = procSum_ = 0;
    writeJson(live::phaseLine(label_, phase));
}

void ProgressReporter::onStep(const StepEvent& e) {
    std::lock_guard lock(mutex_);
    if (live_) writeJson(live::stepLine(label_, e));
    if (e.rank != 0) return;
    if (e.epoch != epoch_) {
        epoch_ = e.epoch;
        epochStartWall_ = e.wallTime - e.proc;
        computeSum_ = procSum_ = 0;
        stepsSeen_ = 0;
    }
    step_ = e.step;
    stepsPerEpoch_ = e.stepsPerEpoch;
    lastWall_ = e.wallTime;
    queueDepth_ = e.queueDepth;
    ++stepsSeen_;
    if (e.step > 1) { // like DLIO, the first step (pipeline warm-up) is left out
        computeSum_ += e.compute;
        procSum_ += e.proc;
    }
}

void ProgressReporter::onEpoch(const EpochEvent& e) {
    std::lock_guard lock(mutex_);
    if (live_) writeJson(live::epochLine(label_, e));
    if (quiet_) return;
    if (lineOpen_) {
        std::fputs("\r\033[K", stderr);
        lineOpen_ = false;
    }
    std::fprintf(stderr, "%s%sepoch %llu/%llu: AU %.2f %%  %.1f samples/s  %.1f MiB/s  (%.2f s)\n",
                 label_.c_str(), label_.empty() ? "" : ": ", static_cast<unsigned long long>(e.epoch),
                 static_cast<unsigned long long>(e.epochs), e.auPercent, e.throughput, e.mibPerSecond, e.seconds);
}

void ProgressReporter::setSilent() {
    std::lock_guard lock(mutex_);
    quiet_ = silent_ = true;
    if (live_) {
        std::fclose(live_);
        live_ = nullptr;
    }
}

void ProgressReporter::onHosts(const std::vector<std::string>& hostOfRank) {
    std::lock_guard lock(mutex_);
    if (live_) writeJson(live::hostsLine(label_, hostOfRank));
}

void ProgressReporter::onInvocationStart(const std::string& dir) {
    std::lock_guard lock(mutex_);
    writeJson(live::invocationStartedLine(label_, dir));
}

void ProgressReporter::onInvocationDone(const std::string& dir, const std::string& status, double auPercent) {
    std::lock_guard lock(mutex_);
    writeJson(live::invocationFinishedLine(label_, dir, status, auPercent));
}

void ProgressReporter::onMessage(const std::string& text) {
    std::lock_guard lock(mutex_);
    if (silent_) return;
    if (lineOpen_) {
        std::fputs("\r\033[K", stderr);
        lineOpen_ = false;
    }
    std::fprintf(stderr, "%s\n", text.c_str());
    writeJson(live::messageLine(text));
}

void ProgressReporter::onGeneration(std::uint64_t filesDone, std::uint64_t filesTotal, std::uint64_t bytesDone,
                                    std::uint64_t bytesTotal, double seconds) {
    std::lock_guard lock(mutex_);
    const double rate = seconds > 0 ? static_cast<double>(bytesDone) / seconds / 1048576.0 : 0.0;
    const double eta = bytesDone > 0 ? seconds * (static_cast<double>(bytesTotal) / static_cast<double>(bytesDone) - 1) : -1;
    char buf[256];
    std::snprintf(buf, sizeof buf, "[datagen] %llu/%llu files  %.1f/%.1f MiB  %.1f MiB/s  ETA %s",
                  static_cast<unsigned long long>(filesDone), static_cast<unsigned long long>(filesTotal),
                  static_cast<double>(bytesDone) / 1048576.0, static_cast<double>(bytesTotal) / 1048576.0, rate,
                  hms(eta).c_str());
    genLine_ = buf;
    phase_ = "datagen";
    writeJson(live::datagenLine(filesDone, filesTotal, bytesDone, bytesTotal, seconds));
}

void ProgressReporter::tick() {
    std::string line;
    if (phase_ == "datagen") {
        line = genLine_;
    } else if (stepsSeen_ > 0) {
        const double elapsed = lastWall_ - epochStartWall_;
        const double sps = elapsed > 0 ? static_cast<double>(stepsSeen_ * batch_) / elapsed : 0.0;
        const double au = procSum_ > 0 ? 100.0 * computeSum_ / procSum_ : 0.0;
        const double perStep = stepsSeen_ > 0 ? elapsed / static_cast<double>(stepsSeen_) : 0.0;
        const double remaining = static_cast<double>((stepsPerEpoch_ - step_) +
                                                     (epochs_ > epoch_ ? (epochs_ - epoch_) * stepsPerEpoch_ : 0));
        char buf[320];
        std::snprintf(buf, sizeof buf,
                      "%s%s[%s] epoch %llu/%llu step %llu/%llu | %.1f samples/s | %.1f MiB/s | AU %.1f %% | queue %llu | ETA %s",
                      label_.c_str(), label_.empty() ? "" : " ", phase_.c_str(), static_cast<unsigned long long>(epoch_),
                      static_cast<unsigned long long>(epochs_), static_cast<unsigned long long>(step_),
                      static_cast<unsigned long long>(stepsPerEpoch_), sps, sps * recordLength_ / 1048576.0, au,
                      static_cast<unsigned long long>(queueDepth_), hms(remaining * perStep).c_str());
        line = buf;
    }
    if (line.empty()) return;
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    std::fflush(stderr);
    lineOpen_ = true;
}

void ProgressReporter::finishLine() {
    if (lineOpen_) {
        std::fputs("\r\033[K", stderr);
        std::fflush(stderr);
        lineOpen_ = false;
    }
}

} // namespace trainio::cli
