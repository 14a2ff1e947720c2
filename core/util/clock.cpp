#include "util/clock.h"

#include <sys/prctl.h>

#include <cmath>
#include <cstdio>
#include <ctime>
#include <sys/resource.h>

namespace trainio {

WallClock::WallClock()
    : originSteady_(std::chrono::steady_clock::now()),
      originWall_(std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count()) {}

double WallClock::now() const { return at(std::chrono::steady_clock::now()); }

double WallClock::at(std::chrono::steady_clock::time_point t) const {
    return originWall_ + std::chrono::duration<double>(t - originSteady_).count();
}

std::string isoTimestamp(double unixSeconds) {
    double whole = std::floor(unixSeconds);
    auto micros = static_cast<long>(std::llround((unixSeconds - whole) * 1e6));
    if (micros >= 1000000) {
        whole += 1;
        micros -= 1000000;
    }
    const auto t = static_cast<std::time_t>(whole);
    std::tm tm{};
    localtime_r(&t, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06ld", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, micros);
    return buf;
}

bool parseIsoTimestamp(const std::string& text, double& unixSeconds) {
    std::tm tm{};
    int year = 0, mon = 0, day = 0, hour = 0, min = 0, consumed = 0;
    double sec = 0;
    if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%lf%n", &year, &mon, &day, &hour, &min, &sec, &consumed) < 6)
        return false;
    tm.tm_year = year - 1900;
    tm.tm_mon = mon - 1;
    tm.tm_mday = day;
    tm.tm_hour = hour;
    tm.tm_min = min;
    tm.tm_sec = 0;
    tm.tm_isdst = -1;
    const std::time_t t = std::mktime(&tm);
    if (t == static_cast<std::time_t>(-1)) return false;
    unixSeconds = static_cast<double>(t) + sec;
    return true;
}

double processCpuSeconds() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

double threadCpuSeconds() {
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

void tightenTimerSlack() { prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); }

} // namespace trainio
