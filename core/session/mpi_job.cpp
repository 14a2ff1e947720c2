#include "session/mpi_job.h"

#include "engine/live_json.h"
#include "util/errors.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace trainio::dist {

namespace {

constexpr std::size_t kOtherOutputBytes = 16 * 1024;

void keepTail(std::string& into, std::string_view text) {
    into.append(text);
    if (into.size() > kOtherOutputBytes) into.erase(0, into.size() - kOtherOutputBytes);
}

// Splits a stream into lines as bytes arrive. A pipe ends at end of file; a followed file (`follow`) only
// has nothing more yet.
struct LineReader {
    int fd = -1;
    bool follow = false;
    std::string pending;
    bool open() const { return fd >= 0; }
    // Reads what is there; calls line(text) for every complete line. A pipe is closed at end of file.
    template <class F>
    void read(F&& line) {
        char buf[16384];
        while (true) {
            const ssize_t got = ::read(fd, buf, sizeof buf);
            if (got < 0 && errno == EINTR) continue;
            if (got < 0 && errno == EAGAIN) return;
            if (got <= 0) {
                if (follow && got == 0) return;
                if (!pending.empty()) line(std::string_view(pending));
                pending.clear();
                ::close(fd);
                fd = -1;
                return;
            }
            pending.append(buf, static_cast<std::size_t>(got));
            std::size_t start = 0;
            for (std::size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1)
                line(std::string_view(pending).substr(start, nl - start));
            pending.erase(0, start);
            if (!follow) return; // one read per poll() readiness
        }
    }
};

// Hands one live line to the observer; returns true for the end of an invocation that did not complete
// (after a cancel: process 0 has written what there is to write).
bool dispatch(const MpiJobOptions& o, std::string_view text) {
    const auto e = live::parseLine(text);
    if (!e) return false;
    EngineObserver* obs = o.observer;
    // A workload's own lines (a collocation): to its observer.
    EngineObserver* own = o.observerFor ? o.observerFor(e->label) : obs;
    using K = live::Event::Kind;
    switch (e->kind) {
    case K::Phase: if (own) own->onPhase(e->text); break;
    case K::Step: if (own) own->onStep(e->step); break;
    case K::Epoch: if (own) own->onEpoch(e->epoch); break;
    case K::Hosts: if (obs) obs->onHosts(e->hosts); break;
    case K::Message: if (obs) obs->onMessage(e->text); break;
    case K::InvocationStarted: if (o.onInvocationStart) o.onInvocationStart(e->label, e->dir); break;
    case K::InvocationFinished:
        if (o.onInvocationDone) o.onInvocationDone(e->label, e->dir, e->text, e->auPercent);
        return e->text != "complete";
    }
    return false;
}

} // namespace

MpiJobResult runMpiJob(const MpiJobOptions& o) {
    MpiJobResult r;
    int out[2], err[2];
    if (::pipe2(out, O_CLOEXEC) != 0) {
        r.startError = "pipe: " + errnoText(errno);
        return r;
    }
    if (::pipe2(err, O_CLOEXEC) != 0) {
        r.startError = "pipe: " + errnoText(errno);
        ::close(out[0]);
        ::close(out[1]);
        return r;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
    // mpirun forwards its standard input to process 0: give it none.
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    // The caller's signal mask and ignored signals must not reach mpirun: it has to see our signals.
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD, SIGUSR1}) sigaddset(&defaults, s);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(o.mpirun.c_str()));
    for (const auto& a : o.arguments) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, o.mpirun.c_str(), &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(out[1]);
    ::close(err[1]);
    if (rc != 0) {
        ::close(out[0]);
        ::close(err[0]);
        r.startError = "cannot run " + o.mpirun + ": " + errnoText(rc);
        return r;
    }
    r.started = true;

    LineReader stdoutLines{out[0], false, {}}, stderrLines{err[0], false, {}}, live{-1, true, {}};
    auto keepOutput = [&](std::string_view line) {
        keepTail(r.otherOutput, line);
        keepTail(r.otherOutput, "\n");
    };
    using Clock = std::chrono::steady_clock;
    const auto since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
    Clock::time_point cancelledAt{}, endedAfterCancelAt{}, exitedAt{};
    bool endedAfterCancel = false, sigint = false, exited = false;
    int status = 0;
    auto followLive = [&] {
        if (!live.open() && !o.liveJson.empty()) live.fd = ::open(o.liveJson.c_str(), O_RDONLY | O_CLOEXEC);
        if (!live.open()) return;
        live.read([&](std::string_view line) {
            if (dispatch(o, line) && r.interrupted && !endedAfterCancel) {
                endedAfterCancel = true;
                endedAfterCancelAt = Clock::now();
            }
        });
    };
    // Until mpirun has exited and its pipes are closed — but not forever after its exit: a process it left
    // behind may still hold them open.
    while (stdoutLines.open() || stderrLines.open() || !exited) {
        const int requests = o.cancelRequests ? o.cancelRequests->load() : 0;
        if (!exited) {
            if (requests >= 1 && !r.interrupted) {
                ::kill(pid, SIGUSR1);
                r.interrupted = true;
                cancelledAt = Clock::now();
            }
            if (r.interrupted && !sigint && !endedAfterCancel && since(cancelledAt) > o.interruptAfterSeconds) {
                ::kill(pid, SIGINT);
                sigint = true;
            }
            const bool kill = requests >= 2 || (r.interrupted && since(cancelledAt) > o.killAfterSeconds) ||
                              (endedAfterCancel && since(endedAfterCancelAt) > o.endGraceSeconds);
            if (kill && !r.killed) {
                ::kill(pid, SIGKILL);
                r.killed = true;
            }
            if (::waitpid(pid, &status, WNOHANG) == pid) {
                exited = true;
                exitedAt = Clock::now();
            }
        }
        if (exited && since(exitedAt) > 3) break;
        pollfd fds[2];
        nfds_t n = 0;
        if (stdoutLines.open()) fds[n++] = {stdoutLines.fd, POLLIN, 0};
        if (stderrLines.open()) fds[n++] = {stderrLines.fd, POLLIN, 0};
        if (n == 0) ::usleep(static_cast<useconds_t>(o.pollMs) * 1000);
        else if (::poll(fds, n, o.pollMs) > 0)
            for (nfds_t i = 0; i < n; ++i) {
                if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
                (fds[i].fd == stdoutLines.fd ? stdoutLines : stderrLines).read(keepOutput);
            }
        followLive();
        if (o.onPoll) o.onPoll();
    }
    followLive(); // the last lines process 0 wrote
    if (!live.pending.empty()) dispatch(o, live.pending);
    if (o.onPoll) o.onPoll();
    for (LineReader* reader : {&stdoutLines, &stderrLines, &live})
        if (reader->open()) ::close(reader->fd);
    if (!exited) {
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
    }
    if (WIFEXITED(status)) r.exitCode = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
    return r;
}

} // namespace trainio::dist
