// A live rival (issue 33's race: "the same workload on two storage profiles"): the workload of the Run page's
// run, run at the same time in this process on another emulated storage profile, its lane beside the run's.
// Both read the same dataset and run on the same machine (they share its cores and its storage, as two
// hosts of a demo would not): the race view says both lanes are live, and each run is a run of its own,
// written to its own folder and kept in the library as any other.
#pragma once

#include "config/workload_config.h"

#include <filesystem>
#include <string>

namespace trainio::session {

struct ProfileRival {
    WorkloadConfig config;          // the run's workload on the profile
    std::filesystem::path output;   // beside the run's folder: "<folder>-<profile>"
    std::string profile;            // the profile's name ("hdd")
    std::string description;        // the profile file's description
};

// The rival of a run of `base` into `output` on `profile` (a name from storageProfileNames() or a profile
// file): the same workload with trainio.storage replaced by the profile alone (the run's own bandwidth,
// latency, IOPS keys would blur what the profile stands for); no dataset generation (the run it races
// prepares the dataset before the rival starts: two writers of one dataset would spoil both); checkpoints,
// when the workload writes them, to "<checkpoint folder>-<profile>" (two runs overwriting each other's
// checkpoints would read back what the other wrote). Throws InputError naming the profile (an unknown
// name lists the known ones) or a bad value of its file.
ProfileRival profileRival(const WorkloadConfig& base, const std::filesystem::path& output, const std::string& profile);

// Where a live run's bytes come from, in the results library's words: "emulated hdd" (a profile, a profile
// file by its stem), "emulated storage" (limits without a profile), "" for the storage as it is.
std::string emulatedStorageWords(const WorkloadConfig& config);

} // namespace trainio::session
