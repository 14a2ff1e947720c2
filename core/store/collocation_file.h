// A collocation's trainio_collocation.json (docs/collocation.md), its writer and its one reader: plain
// structs, so that the importer's result (aggregate::ImportResult::collocations) can carry the
// collocations it finds without the session. The collocation itself is session/collocation.h.
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace trainio::store {

struct CollocationInvocationEntry {
    std::string label;           // "invocation", "warm-up", "run 2/3"
    std::filesystem::path path;
    double start = 0, end = 0;   // seconds since the Unix epoch
    std::string status;          // complete | cancelled | failed
    double auPercent = NAN;
    std::uint64_t bytesRead = 0;
};

struct CollocationMember {
    std::string name;
    std::filesystem::path path;  // DIR/<name>: an invocation or a benchmark folder (written relative to DIR,
                                 // read back absolute)
    std::string config;
    std::uint64_t accelerators = 0;
    double startAfterS = 0;
    double start = NAN, end = NAN;
    std::string status;
    std::vector<CollocationInvocationEntry> invocations;
};

// One workload together against itself alone (collocate --alone).
struct CollocationInterference {
    std::string name;
    std::filesystem::path alonePath;
    std::string unit, rule;
    std::size_t nAlone = 0, nTogether = 0;
    double auAlone = NAN, auTogether = NAN, auPointsLost = NAN, auPointsLostLow = NAN, auPointsLostHigh = NAN;
    double mibAlone = NAN, mibTogether = NAN, slowdownPercent = NAN, slowdownLowPercent = NAN, slowdownHighPercent = NAN;
};

struct CollocationFile {
    std::filesystem::path file;  // the trainio_collocation.json (when read)
    std::string plan, commandLine;
    std::string status = "running"; // running | complete | cancelled | failed
    std::string error;
    double start = NAN, end = NAN;
    std::uint64_t runs = 0, warmups = 0;
    std::vector<CollocationMember> workloads;
    nlohmann::ordered_json sharedStorage = nlohmann::ordered_json::object(); // {} = the real storage
    std::uint64_t trainingThreads = 0, readerThreads = 0, cpus = 0;
    nlohmann::ordered_json processIo = nlohmann::ordered_json::object();
    // Under mpirun: {"processes", "hosts", "device_scope", "note"}; {} (not written) for one process.
    nlohmann::ordered_json mpi = nlohmann::ordered_json::object();
    bool hasInterference = false;
    std::vector<CollocationInterference> interference;
    std::string lostMost;
};

nlohmann::ordered_json collocationJson(const CollocationFile& c);
// One workload's interference as the file writes it ("name", "alone_path", "unit", "n_alone", "n_together",
// "au_alone_percent", …, "rule"; docs/collocation.md); NaN as null. Also the library's (aggregate/interference.h).
nlohmann::ordered_json interferenceJson(const CollocationInterference& x);
// DIR/trainio_collocation.json, atomically (run_folder.h writeFileAtomic). Returns the file.
std::filesystem::path writeCollocationFile(const CollocationFile& c, const std::filesystem::path& dir);
// Reads one under the store's bound and link rule (run_folder.h; `canonicalRoot` empty: the file's own
// folder is the tree). Member and alone paths are made absolute against the file's folder when relative.
// Throws InputError naming the file and the key that is missing or of the wrong type.
CollocationFile readCollocationFile(const std::filesystem::path& file, const std::filesystem::path& canonicalRoot = {});

} // namespace trainio::store
