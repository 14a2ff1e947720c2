// Storage profiles: the parameters of an emulated device (io/emulated_storage.h) as data files,
// resources/storage-profiles/NAME.yaml, each with a comment saying where its numbers come from.
//
// File format (every key optional except where noted; unknown keys are errors):
//   description: "…"                      text for pickers and reports
//   bandwidth_mib_s: 3000                 aggregate cap, MiB/s; 0 or absent = unlimited
//   latency_ms: 0.08                      constant latency in ms, or a map:
//     {type: constant, value: MS} | {type: normal, mean: MS, stdev: MS}
//     | {type: lognormal, median: MS, sigma: S} | {type: exponential, mean: MS} | {type: none}
//   iops: 500000                          requests per second; 0 or absent = unlimited
//   max_inflight: 64                      requests in flight at once; 0 or absent = unlimited
//   shape_writes: false                   also shape writes
// Numbers are read strictly (util/quantity.h): "3000", "1e3"; no trailing text. The spread of a normal
// latency is `stdev` (as trainio.storage.latency_ms.stdev); the old spelling `stddev` is refused naming it.
//
// The `trainio.storage` section of a workload has the same keys plus `profile: NAME|FILE`; the config
// loader applies it with parseStorageShape(node, where, loadStorageProfile(profile).shape).
#pragma once

#include "config/workload_config.h"
#include "io/emulated_storage.h"

#include <string>
#include <vector>

namespace YAML {
class Node;
}

namespace trainio {

struct StorageProfile {
    std::string name; // the file's stem ("nvme")
    std::string path; // the file it was read from
    std::string description;
    StorageShape shape;
};

// $TRAINIO_STORAGE_PROFILE_DIR, else <exe>/../share/trainio/storage-profiles when installed, else the
// source tree's resources/storage-profiles (as presetDirectory() finds presets).
std::string storageProfileDirectory();
// The profile names found there, sorted.
std::vector<std::string> storageProfileNames();

// `nameOrPath` is a path to a YAML file (when such a file exists or the text contains '/' or ends in
// .yaml) or a profile name from storageProfileDirectory(). Throws InputError naming the file, the key,
// the value and what was expected (unknown names list the known ones).
StorageProfile loadStorageProfile(const std::string& nameOrPath);

// Reads the keys above from a YAML map onto `base` (keys absent keep base's values) and validates the
// result. `where` names the file or section in errors. `profile` is ignored here: the caller resolves it
// first to obtain `base`. Throws InputError.
StorageShape parseStorageShape(const YAML::Node& node, const std::string& where, StorageShape base = {});

// The emulated-storage parameters of a workload: the profile's, then the section's own non-zero keys.
// Throws InputError naming the key (or the profile file) for a bad value.
StorageShape storageShapeFor(const StorageEmulationSection& section);

} // namespace trainio
