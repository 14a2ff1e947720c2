#include "telemetry/gpu_query.h"

#include "util/errors.h"
#include "util/text.h"

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <limits>
#include <poll.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace trainio::telemetry {
namespace {

double gpuField(std::string_view field, std::string_view source, std::size_t lineNo, std::string_view line) {
    field = trimView(field);
    if (!field.empty() && field.front() == '[') return std::numeric_limits<double>::quiet_NaN(); // [N/A]
    double v = 0;
    const auto [p, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
    if (ec != std::errc() || p != field.data() + field.size())
        throw InputError(std::string(source) + " line " + std::to_string(lineNo) + " \"" + std::string(line) +
                         "\": value \"" + std::string(field) + "\": expected a number or [N/A]");
    return v;
}

bool isExecutableFile(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

} // namespace

std::vector<std::string> nvidiaSmiArguments() {
    return {"--query-gpu=utilization.gpu,memory.used,memory.total", "--format=csv,noheader,nounits"};
}

std::vector<GpuReading> parseNvidiaSmi(std::string_view text, std::string_view source) {
    std::vector<GpuReading> out;
    std::size_t lineNo = 0;
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        const std::string_view line = trimView(text.substr(0, nl));
        text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
        ++lineNo;
        if (line.empty()) continue;
        const std::size_t c1 = line.find(',');
        const std::size_t c2 = c1 == std::string_view::npos ? c1 : line.find(',', c1 + 1);
        if (c2 == std::string_view::npos || line.find(',', c2 + 1) != std::string_view::npos)
            throw InputError(std::string(source) + " line " + std::to_string(lineNo) + " \"" +
                             std::string(line) +
                             "\": expected \"utilization.gpu, memory.used, memory.total\"");
        out.push_back({gpuField(line.substr(0, c1), source, lineNo, line),
                       gpuField(line.substr(c1 + 1, c2 - c1 - 1), source, lineNo, line),
                       gpuField(line.substr(c2 + 1), source, lineNo, line)});
    }
    return out;
}

std::string findExecutable(const std::string& program) {
    if (program.empty()) return {};
    if (program.find('/') != std::string::npos) return isExecutableFile(program) ? program : std::string{};
    const char* path = std::getenv("PATH");
    std::string_view dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
    while (true) {
        const std::size_t colon = dirs.find(':');
        std::string dir(dirs.substr(0, colon));
        if (dir.empty()) dir = ".";
        const std::string candidate = dir + "/" + program;
        if (isExecutableFile(candidate)) return candidate;
        if (colon == std::string_view::npos) return {};
        dirs.remove_prefix(colon + 1);
    }
}

ProcessOutput runProcess(const std::string& path, const std::vector<std::string>& args, double timeoutS) {
    ProcessOutput r;
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
        r.error = "pipe: " + errnoText(errno);
        return r;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(path.c_str()));
    for (const auto& a : args)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, path.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    if (rc != 0) {
        ::close(fds[0]);
        r.error = "cannot run " + path + ": " + errnoText(rc);
        return r;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutS);
    char buf[4096];
    while (true) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            r.timedOut = true;
            break;
        }
        pollfd p{fds[0], POLLIN, 0};
        const int n = ::poll(&p, 1, static_cast<int>(left.count()));
        if (n < 0 && errno == EINTR) continue;
        if (n == 0) {
            r.timedOut = true;
            break;
        }
        const ssize_t got = ::read(fds[0], buf, sizeof buf);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break; // end of output: the child closed stdout (normally by exiting)
        r.out.append(buf, static_cast<std::size_t>(got));
    }
    ::close(fds[0]);
    if (r.timedOut) ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    r.ran = true;
    if (r.timedOut) {
        r.error = path + " timed out after " + std::to_string(timeoutS) + " s and was killed";
    } else if (WIFEXITED(status)) {
        r.exitStatus = WEXITSTATUS(status);
        if (r.exitStatus != 0) r.error = path + " exited with status " + std::to_string(r.exitStatus);
    } else if (WIFSIGNALED(status)) {
        r.error = path + " was killed by signal " + std::to_string(WTERMSIG(status));
    }
    return r;
}

} // namespace trainio::telemetry
