#include "util/host_info.h"

#include <fstream>
#include <sstream>
#include <sys/utsname.h>
#include <thread>
#include <unistd.h>

namespace trainio {
namespace {

std::string strip(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return {};
    const auto e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
}

std::string slurp(const char* path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace

nlohmann::ordered_json linesToDict(const std::string& text) {
    nlohmann::ordered_json d = nlohmann::ordered_json::object();
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        const auto colon = line.find(':');
        if (colon == std::string::npos || line.find(':', colon + 1) != std::string::npos) continue;
        const std::string k = strip(line.substr(0, colon));
        if (k.empty() || k == "processor") continue;
        d[k] = strip(line.substr(colon + 1));
    }
    return d;
}

HostInfo readHostInfo() {
    HostInfo h;
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) == 0) h.hostname = name;
    h.cpuCount = std::thread::hardware_concurrency();
    h.cpuinfo = linesToDict(slurp("/proc/cpuinfo"));
    h.meminfo = linesToDict(slurp("/proc/meminfo"));
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && pageSize > 0)
        h.memoryGiB = static_cast<double>(pages) * static_cast<double>(pageSize) / 1024.0 / 1024.0 / 1024.0;
    utsname u{};
    if (uname(&u) == 0) h.os = std::string(u.sysname) + " " + u.release + " " + u.machine;
    return h;
}

} // namespace trainio
