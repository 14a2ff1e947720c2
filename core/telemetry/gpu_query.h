// GPU utilisation and memory from nvidia-smi, run as a child process with an argument vector (never a
// shell) and a time limit, so that a hung driver cannot stall the sampler. Where the program is absent
// there are no GPU columns and the table's notes say so.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace trainio::telemetry {

struct GpuReading {
    double utilPct = 0;
    double memUsedMiB = 0;
    double memTotalMiB = 0;
};

// The arguments after the program name; nvidia-smi prints one line "util, used, total" per GPU.
std::vector<std::string> nvidiaSmiArguments();

// Parses nvidia-smi's "--format=csv,noheader,nounits" output. "[N/A]" or "[Not Supported]" in a field
// gives NaN for that field (some boards report no utilisation). Throws InputError naming the line.
std::vector<GpuReading> parseNvidiaSmi(std::string_view text, std::string_view source = "nvidia-smi");

// Resolves a program as execvp would: a name with a '/' is taken as a path, anything else is searched
// in $PATH. Returns the executable's path, or empty when there is none.
std::string findExecutable(const std::string& program);

struct ProcessOutput {
    bool ran = false;      // the child started and exited (or was killed) — false: could not start
    bool timedOut = false; // killed after the time limit
    int exitStatus = -1;   // exit code when it exited normally
    std::string out;       // its standard output (standard error goes to /dev/null)
    std::string error;     // what went wrong, for a note: "… timed out after 2 s", "exit status 9", …
};

// Runs `path args…` and collects its standard output, killing it after timeoutS seconds. Uses
// posix_spawn: safe in a multithreaded process, unlike fork followed by anything but exec.
ProcessOutput runProcess(const std::string& path, const std::vector<std::string>& args, double timeoutS);

} // namespace trainio::telemetry
