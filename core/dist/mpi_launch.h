// How a front end starts a multi-process run (docs/mpi.md, "From the GUI"): the client hosts (a host
// list or an Open MPI hostfile), processes per host and accelerators per process, checked and turned
// into mpirun's argument vector — an argv for posix_spawn, never a shell string.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace trainio::dist {

struct HostSlots {
    std::string name;
    std::uint64_t slotCount = 0; // 0: not given (Open MPI counts the host's cores)
};

// A host name as Open MPI is given it here: letters, digits, '.' and '-', not starting with '-' or '.'
// (so that it can never be taken for an option), at most 253 characters.
bool isHostName(std::string_view name);

// "host[:slots]" entries separated by commas (blanks around them ignored): "node1:4, node2:4". A host
// named twice is one host with the slots of both, as Open MPI takes it. Throws InputError naming the entry
// and what was expected.
std::vector<HostSlots> parseHostList(std::string_view text);

// An Open MPI hostfile: one host per line, "name [slots=N] [max_slots=N]", '#' comments, blank lines; a
// host on several lines is one host with their slots. Throws InputError naming the file, the line and what
// was expected; also when it names no host or cannot be read.
std::vector<HostSlots> readHostfile(const std::filesystem::path& file);

struct MpiLaunch {
    std::filesystem::path hostfile;       // not empty: mpirun --hostfile FILE
    std::vector<HostSlots> hosts;         // otherwise: mpirun --host a:P,b:P
    std::uint64_t processesPerHost = 1;   // --npernode P
    std::uint64_t acceleratorsPerProcess = 1; // trainio-cli --accelerators-per-process K
    bool oversubscribe = false;           // more processes than a host has slots (cores)
    bool allowRunAsRoot = false;          // Open MPI refuses to start as root without it
    // Open MPI's grace between its SIGTERM and SIGKILL on a cancel: process 0 writes the folder in it.
    unsigned sigkillTimeoutSeconds = 10;
};

// The hosts of the launch: the host list, or the hostfile read (throws InputError as readHostfile).
std::vector<HostSlots> launchHosts(const MpiLaunch& launch);

// What stops the launch, one sentence each (empty: it can start): no host, P or K zero, a host whose
// slots are fewer than P without oversubscription.
std::vector<std::string> launchProblems(const MpiLaunch& launch, const std::vector<HostSlots>& hosts);

// hosts × P × K.
std::uint64_t totalAccelerators(const MpiLaunch& launch, std::size_t hostCount);

// The trainio-cli command every process runs.
struct CliCommand {
    std::filesystem::path program;   // trainio-cli, by absolute path (every host must have it there)
    bool benchmark = false;          // benchmark (warm-up + runs) or run (one invocation)
    std::filesystem::path config;    // the workload YAML, readable at this path on every host
    std::filesystem::path output;    // the invocation or benchmark folder, written by process 0
    std::string liveJson;            // --live-json target (process 0 writes it)
    std::uint64_t runs = 5, warmups = 1; // benchmark only
    std::string system;              // --system NAME ("" : none)
    std::string semantics = "v2";    // --semantics v1|v2|v3
};

// mpirun's own options, before the program it starts:
//   [--allow-run-as-root] [--oversubscribe] --mca odls_base_sigkill_timeout T
//   (--hostfile F | --host a:S,b:S) --npernode P -np H×P
// A host without slots is given P slots. The GUI's launch and the sweep's trials both start with these.
std::vector<std::string> mpirunOptions(const MpiLaunch& launch, std::size_t hostCount);

// mpirun's arguments after the program name: mpirunOptions, then
//   <cli> run|benchmark --config FILE --output DIR --accelerators-per-process K --quiet --live-json L
//   [--runs N --warmup W] [--system NAME] --semantics S
std::vector<std::string> mpirunArguments(const MpiLaunch& launch, std::size_t hostCount, const CliCommand& command);

} // namespace trainio::dist
