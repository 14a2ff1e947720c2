// The MLPerf Storage v3.0 closed-division rules for checkpointing that depend on the job's processes and
// hosts (mlcommons/storage Rules.md 4.3.5, 4.6.1, 4.6.2, 4.7.1 and Table 3), checked before a checkpoint-only
// run starts and said with its result (docs/checkpointing.md, "Closed division: processes and hosts"). They
// never refuse a run — TrainIO runs open experiments too —; a submission fails on them later (aggregate's
// rule checks).
#pragma once

#include "config/workload_config.h"

#include <cstdint>
#include <string>
#include <vector>

namespace trainio::checkpoint {

struct ClosedDivisionCheck {
    std::vector<std::string> findings; // what the closed division would not accept, each naming its rule
    std::vector<std::string> notes;    // what holds, and the reading of a disputed rule
};

// The ranks the closed division requires for the workload's model (8, 64, 512, 1024 for llama3-8b, -70b,
// -405b, -1t: Table 2, rule 4.6.1); 0 for another model.
std::uint64_t closedDivisionRanks(const WorkloadConfig& cfg);

// `ranksPerHost`: the ranks each host of the job runs (one entry per host; one process: {ranks}).
ClosedDivisionCheck checkClosedDivision(const WorkloadConfig& cfg, std::uint64_t ranks,
                                        const std::vector<std::pair<std::string, std::uint64_t>>& ranksPerHost);

} // namespace trainio::checkpoint
