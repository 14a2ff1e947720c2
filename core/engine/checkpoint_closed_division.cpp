#include "engine/checkpoint_closed_division.h"

#include "engine/checkpoint_run.h"

#include <string>

namespace trainio::checkpoint {

namespace {

// Table 2 of Rules.md: the model's DLIO name (the presets' model.name) and its closed process count.
struct ClosedModel {
    const char* dlioName;
    const char* ruleName;
    std::uint64_t ranks;
};
constexpr ClosedModel kModels[] = {
    {"llama_8b", "llama3-8b", 8}, {"llama_70b", "llama3-70b", 64}, {"llama_405b", "llama3-405b", 512}, {"llama_1t", "llama3-1t", 1024}};

const ClosedModel* modelOf(const WorkloadConfig& cfg) {
    for (const auto& m : kModels)
        if (cfg.model.name == m.dlioName) return &m;
    return nullptr;
}

// Rules.md Table 3: --ppn "YES (minimal 4)"; rule 4.6.2: "each host uses more than 4 simulated
// accelerators". The two disagree on a host of exactly 4; TrainIO reads the table's "minimal 4" (at least 4),
// and says so when a host has exactly 4.
constexpr std::uint64_t kMinRanksPerHost = 4;
constexpr std::uint64_t kRequired = 10; // num_checkpoints_write / _read (Table 3, rule 4.7.1)

} // namespace

std::uint64_t closedDivisionRanks(const WorkloadConfig& cfg) {
    const ClosedModel* m = modelOf(cfg);
    return m ? m->ranks : 0;
}

ClosedDivisionCheck checkClosedDivision(const WorkloadConfig& cfg, std::uint64_t ranks,
                                        const std::vector<std::pair<std::string, std::uint64_t>>& ranksPerHost) {
    ClosedDivisionCheck c;
    const ClosedModel* m = modelOf(cfg);
    if (!m) {
        c.findings.push_back("model.name = " + cfg.model.name +
                             ": not a closed-division checkpoint model (llama_8b, llama_70b, llama_405b, llama_1t: Rules.md Table 2)");
    } else if (cfg.checkpoint.mode == "subset") {
        // Rule 4.3.5: a subset run is the 8B model on exactly 8 accelerators.
        if (std::string(m->ruleName) != "llama3-8b")
            c.findings.push_back(std::string("checkpoint.mode = subset with ") + m->ruleName +
                                 ": subset mode is defined only for llama3-8b (Rules.md 4.3.5)");
        else if (ranks != 8)
            c.findings.push_back(std::to_string(ranks) + " ranks in subset mode: it requires exactly 8 (Rules.md 4.3.5)");
    } else if (ranks != m->ranks) {
        c.findings.push_back(std::to_string(ranks) + " ranks: the closed division requires " + std::to_string(m->ranks) + " for " +
                             m->ruleName + " (Rules.md 4.6.1, Table 2; more only in the open division, in multiples of TP×PP: 4.6.4)");
    } else {
        c.notes.push_back(std::to_string(ranks) + " ranks, as the closed division requires for " + m->ruleName + " (Rules.md 4.6.1)");
    }
    // Processes per host (Rules.md 4.6.2 and Table 3's --ppn).
    bool exactlyFour = false;
    for (const auto& [host, n] : ranksPerHost) {
        if (n < kMinRanksPerHost)
            c.findings.push_back("host " + host + " runs " + std::to_string(n) + " rank" + (n == 1 ? "" : "s") +
                                 ": the closed division requires at least " + std::to_string(kMinRanksPerHost) +
                                 " per host (Rules.md Table 3 --ppn \"minimal 4\"; 4.6.2)");
        exactlyFour = exactlyFour || n == kMinRanksPerHost;
    }
    if (exactlyFour)
        c.notes.push_back("a host with exactly 4 ranks: accepted here by Rules.md Table 3 (--ppn \"minimal 4\"); rule 4.6.2's "
                          "text says \"more than 4\", which would refuse it (TrainIO reads the table)");
    // Write then read: together (10 + 10), or two invocations (10 + 0, then 0 + 10) within 30 s (Rules.md 4.7.1).
    const std::uint64_t w = checkpointsToWrite(cfg), r = checkpointsToRead(cfg);
    if (w == kRequired && r == kRequired)
        c.notes.push_back("10 writes then 10 reads in one invocation (Rules.md 4.7.1: a storage system that hands the "
                          "checkpoint from client to client without an external callout)");
    else if (w == kRequired && r == 0)
        c.notes.push_back("the write phase of a split submission: the read phase (0 writes, 10 reads) must start within 30 s of "
                          "this invocation's end (Rules.md 4.7.1)");
    else if (w == 0 && r == kRequired)
        c.notes.push_back("the read phase of a split submission: it must start within 30 s of the write phase's end (Rules.md 4.7.1)");
    else
        c.findings.push_back(std::to_string(w) + (w == 1 ? " write and " : " writes and ") + std::to_string(r) +
                             (r == 1 ? " read" : " reads") + ": the closed division takes 10 and 10 in one invocation, or 10 and 0 then 0 and 10 in two "
                             "(Rules.md Table 3, 4.7.1)");
    return c;
}

} // namespace trainio::checkpoint
