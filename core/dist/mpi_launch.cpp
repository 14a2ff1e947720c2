#include "dist/mpi_launch.h"

#include "util/errors.h"
#include "util/text.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <fstream>
#include <sstream>

namespace trainio::dist {

namespace {

// A positive count ("4"); 0 when it is not one.
std::uint64_t positiveCount(std::string_view s) {
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || end != s.data() + s.size() || s.empty()) return 0;
    return v;
}

// A host named again adds its slots, as Open MPI merges it (a host with no slots given on any line stays
// without). Keeps the order of first mention.
void addHost(std::vector<HostSlots>& hosts, HostSlots h) {
    for (HostSlots& known : hosts)
        if (known.name == h.name) {
            known.slotCount += h.slotCount;
            return;
        }
    hosts.push_back(std::move(h));
}

} // namespace

bool isHostName(std::string_view name) {
    if (name.empty() || name.size() > 253 || name.front() == '-' || name.front() == '.') return false;
    return std::all_of(name.begin(), name.end(), [](unsigned char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
    });
}

std::vector<HostSlots> parseHostList(std::string_view text) {
    std::vector<HostSlots> hosts;
    if (trimView(text).empty()) throw InputError("host list is empty: expected host[:slots] entries separated by commas");
    while (true) {
        const auto comma = text.find(',');
        const std::string_view entry = trimView(text.substr(0, comma));
        const std::string where = "host list entry '" + std::string(entry) + "'";
        if (entry.empty()) throw InputError("host list has an empty entry: expected host[:slots] entries separated by commas");
        const auto colon = entry.find(':');
        HostSlots h;
        h.name = std::string(entry.substr(0, colon));
        if (!isHostName(h.name))
            throw InputError(where + ": expected a host name of letters, digits, '.' and '-' (optionally :slots)");
        if (colon != std::string_view::npos) {
            h.slotCount = positiveCount(entry.substr(colon + 1));
            if (h.slotCount == 0) throw InputError(where + ": expected a whole number of slots of at least 1 after ':'");
        }
        addHost(hosts, std::move(h));
        if (comma == std::string_view::npos) break;
        text.remove_prefix(comma + 1);
    }
    return hosts;
}

std::vector<HostSlots> readHostfile(const std::filesystem::path& file) {
    std::ifstream in(file);
    if (!in) throw InputError("hostfile " + file.string() + ": cannot be read: " + errnoText(errno));
    std::vector<HostSlots> hosts;
    std::string line;
    for (int lineNo = 1; std::getline(in, line); ++lineNo) {
        std::string_view content = line;
        content = trimView(content.substr(0, content.find('#')));
        if (content.empty()) continue;
        const std::string where = "hostfile " + file.string() + " line " + std::to_string(lineNo);
        std::istringstream words{std::string(content)};
        HostSlots h;
        words >> h.name;
        if (!isHostName(h.name))
            throw InputError(where + ": host '" + h.name + "': expected a host name of letters, digits, '.' and '-'");
        for (std::string word; words >> word;) {
            const auto eq = word.find('=');
            const std::string key = word.substr(0, eq);
            const std::uint64_t n = eq == std::string::npos ? 0 : positiveCount(std::string_view(word).substr(eq + 1));
            if ((key != "slots" && key != "max_slots" && key != "max-slots") || n == 0)
                throw InputError(where + ": '" + word + "': expected slots=N or max_slots=N (N at least 1)");
            if (key == "slots") h.slotCount = n;
        }
        addHost(hosts, std::move(h));
    }
    if (in.bad()) throw InputError("hostfile " + file.string() + ": read error: " + errnoText(errno));
    if (hosts.empty()) throw InputError("hostfile " + file.string() + ": names no host: expected one host per line");
    return hosts;
}

std::vector<HostSlots> launchHosts(const MpiLaunch& launch) {
    return launch.hostfile.empty() ? launch.hosts : readHostfile(launch.hostfile);
}

std::vector<std::string> launchProblems(const MpiLaunch& launch, const std::vector<HostSlots>& hosts) {
    std::vector<std::string> problems;
    if (hosts.empty()) problems.push_back("no client host given: expected a host list or a hostfile");
    if (launch.processesPerHost == 0) problems.push_back("processes per host = 0: expected at least 1");
    if (launch.acceleratorsPerProcess == 0) problems.push_back("accelerators per process = 0: expected at least 1");
    if (!launch.oversubscribe)
        for (const HostSlots& h : hosts)
            if (h.slotCount != 0 && h.slotCount < launch.processesPerHost)
                problems.push_back("host " + h.name + " has " + std::to_string(h.slotCount) + " slot(s) for " +
                                   std::to_string(launch.processesPerHost) +
                                   " processes per host: expected at least as many slots, or oversubscription allowed");
    return problems;
}

std::uint64_t totalAccelerators(const MpiLaunch& launch, std::size_t hostCount) {
    return static_cast<std::uint64_t>(hostCount) * launch.processesPerHost * launch.acceleratorsPerProcess;
}

std::vector<std::string> mpirunOptions(const MpiLaunch& launch, std::size_t hostCount) {
    std::vector<std::string> a;
    if (launch.allowRunAsRoot) a.emplace_back("--allow-run-as-root");
    if (launch.oversubscribe) a.emplace_back("--oversubscribe");
    a.insert(a.end(), {"--mca", "odls_base_sigkill_timeout", std::to_string(launch.sigkillTimeoutSeconds)});
    if (!launch.hostfile.empty()) {
        a.insert(a.end(), {"--hostfile", launch.hostfile.string()});
    } else {
        std::string list;
        for (const HostSlots& h : launch.hosts) {
            if (!list.empty()) list += ',';
            list += h.name + ':' + std::to_string(h.slotCount != 0 ? h.slotCount : launch.processesPerHost);
        }
        a.insert(a.end(), {"--host", list});
    }
    a.insert(a.end(), {"--npernode", std::to_string(launch.processesPerHost), "-np",
                       std::to_string(static_cast<std::uint64_t>(hostCount) * launch.processesPerHost)});
    return a;
}

std::vector<std::string> mpirunArguments(const MpiLaunch& launch, std::size_t hostCount, const CliCommand& command) {
    std::vector<std::string> a = mpirunOptions(launch, hostCount);
    a.insert(a.end(), {command.program.string(), command.benchmark ? "benchmark" : "run", "--config",
                       command.config.string(), "--output", command.output.string(), "--accelerators-per-process",
                       std::to_string(launch.acceleratorsPerProcess), "--quiet", "--live-json", command.liveJson});
    if (command.benchmark)
        a.insert(a.end(), {"--runs", std::to_string(command.runs), "--warmup", std::to_string(command.warmups)});
    if (!command.system.empty()) a.insert(a.end(), {"--system", command.system});
    a.insert(a.end(), {"--semantics", command.semantics});
    return a;
}

} // namespace trainio::dist
