// What DLIO records about the host in summary.json / <rank>_output.json (psutil, /proc).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace trainio {

struct HostInfo {
    std::string hostname;
    unsigned cpuCount = 0;
    std::string processorName;      // platform.processor(): usually empty on Linux
    double memoryGiB = 0;           // MemTotal in GiB (psutil.virtual_memory().total / 2^30)
    nlohmann::ordered_json cpuinfo; // DLIO's lines_to_dict(/proc/cpuinfo): the last processor's fields
    nlohmann::ordered_json meminfo; // lines_to_dict(/proc/meminfo)
    std::string os;                 // uname: sysname release machine
};

HostInfo readHostInfo();
// DLIO's lines_to_dict: "key : value" lines into a dict (keys and values stripped; "processor" skipped).
nlohmann::ordered_json linesToDict(const std::string& text);

} // namespace trainio
