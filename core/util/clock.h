// One wall clock for a run: wall time derived from a steady clock anchored once, so that block times
// (end − start) are monotonic and precise while still being real timestamps in the result files.
#pragma once

#include <chrono>
#include <string>

namespace trainio {

class WallClock {
public:
    WallClock();
    // Seconds since the Unix epoch.
    double now() const;
    // A steady-clock instant on this clock (seconds since the Unix epoch).
    double at(std::chrono::steady_clock::time_point t) const;
    double origin() const { return originWall_; }

private:
    std::chrono::steady_clock::time_point originSteady_;
    double originWall_;
};

// DLIO's timestamp text: local time "YYYY-MM-DDTHH:MM:SS.ffffff" (datetime.now().isoformat()).
std::string isoTimestamp(double unixSeconds);
// Parses isoTimestamp()'s text (with or without fraction); returns false on malformed text.
bool parseIsoTimestamp(const std::string& text, double& unixSeconds);
// User + system CPU seconds of this process.
double processCpuSeconds();
// CPU seconds of the calling thread (CLOCK_THREAD_CPUTIME_ID).
double threadCpuSeconds();
// Raises the calling thread's timer precision (PR_SET_TIMERSLACK to 1 ns), so that a sleep to a deadline wakes
// within microseconds; per thread (the compute emulator's and the emulated device's precise waits).
void tightenTimerSlack();

} // namespace trainio
