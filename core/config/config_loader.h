// Reading a workload: DLIO workload YAML (either key generation, either root shape), the same
// structure as JSON, MLPerf Storage presets, Hydra-style overrides; checking it; writing it back in
// DLIO's resolved-Hydra shape; sizing a dataset as MLPerf Storage does.
// Every message starts with the source (file name, with the line where known), names the key as the
// user wrote it, the value found and what was expected. See docs/configuration.md for every key.
#pragma once

#include "config/workload_config.h"
#include "util/page_cache_verdict.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace trainio {

struct ConfigDiagnostic {
    std::string key;     // dotted path inside the workload, as written ("dataset.record_length")
    std::string value;   // the value found, as text ("" when the problem is not about one value)
    std::string message; // the whole sentence: "<file>:<line>: <key> = <value>: expected …"
};

struct LoadedConfig {
    WorkloadConfig config;
    std::vector<ConfigDiagnostic> warnings; // unknown keys (with the nearest known one), DLIO quirks
};

// Loads a DLIO workload YAML (or JSON with the same structure, by content or .json extension), applies
// Hydra-style overrides ("++workload.reader.read_threads=8", "+workload.…", "workload.…", "~workload.…"
// to delete), validates. Throws InputError whose what() lists every error, one per line.
LoadedConfig loadWorkloadConfig(const std::string& path, const std::vector<std::string>& overrides = {});
LoadedConfig loadWorkloadConfigFromString(const std::string& text, const std::string& sourceName,
                                          const std::vector<std::string>& overrides = {});

// A run folder's configs/config.yaml (Hydra's resolved config, DLIO's or TrainIO's toYaml; either root
// shape) as the results reader keeps it: every scalar flattened to a dotted key with the leading
// "workload." removed ("dataset.record_length" → "146600628"), a list as its YAML flow text ("[a, b]"), a
// null as "null". Parsed with yaml-cpp, nesting at most 64 levels. Throws InputError naming sourceName (and
// the line) for text that is not YAML or not a map. Nothing is validated: published results carry keys
// of other DLIO versions.
std::vector<std::pair<std::string, std::string>> flattenConfigYaml(const std::string& text, const std::string& sourceName);
// A run folder's configs/overrides.yaml: Hydra's list of override strings ("workload=unet3d_h100",
// "++workload.dataset.num_files_train=28000"), in order. An empty file is an empty list. Throws
// InputError naming sourceName for text that is not a YAML list of strings.
std::vector<std::string> readOverrideList(const std::string& text, const std::string& sourceName);
// One Hydra override split as the loader applies it: leading '+'/'++' dropped, "workload." removed from
// the key, the value unquoted; "workload=<label>" has key "workload"; "~key" (a deletion) has remove set.
// nullopt for an item with no key or (not a deletion) no '='.
struct OverrideItem {
    std::string key;       // "dataset.num_files_train", or "workload" for the workload choice
    std::string valueText; // after '=', as written
    std::string value;     // trimmed, a quoted value unquoted as YAML reads it
    bool remove = false;   // "~key"
};
std::optional<OverrideItem> splitOverride(const std::string& raw);

// The shipped presets (resources/presets/<name>.yaml), sorted: "cosmoflow_a100", …, "unet3d_h100".
std::vector<std::string> presetNames();
// $TRAINIO_PRESET_DIR, else <exe dir>/../share/trainio/presets, else <source>/resources/presets.
std::string presetDirectory();
LoadedConfig loadPreset(const std::string& name, const std::vector<std::string>& overrides = {});
// "--config X": X is a file path, or a preset name when no such file exists.
LoadedConfig loadConfigOrPreset(const std::string& pathOrPreset, const std::vector<std::string>& overrides = {});

// Range and consistency checks on a resolved config: errors only (empty = valid). Keys are the
// canonical DLIO names (dataset.record_length_bytes, …); messages start with cfg.sourcePath.
std::vector<ConfigDiagnostic> validateConfig(const WorkloadConfig& cfg);

// A WorkloadConfig holding DLIO's own defaults (the plain struct's defaults differ in a few places,
// e.g. DLIO's framework and data_loader default to tensorflow, checkpoint_after_epoch to 1).
WorkloadConfig dlioDefaultConfig();

// Serialisation in DLIO's resolved-Hydra shape: a top-level "workload:" map with model{name,type,
// model_size_bytes}, framework, workflow, dataset (record_length_bytes…), reader, train, checkpoint,
// evaluation, output.metric, metric — and TrainIO's "accelerator" when known. Loads back equal.
std::string toYaml(const WorkloadConfig& cfg);
nlohmann::json toJson(const WorkloadConfig& cfg);
// MLPerf Storage configs/overrides.yaml: "- workload=<model>_<accelerator>" then one "- ++workload.…"
// line per override applied.
std::string overridesYaml(const WorkloadConfig& cfg);

// The accelerator written when neither the preset, the config's `accelerator` key, --accelerator-type
// nor the GUI names one (docs/configuration.md). Not a real device: it says "not stated".
inline constexpr const char* kDefaultAccelerator = "generic";
// MLPerf Storage v1.0's report.py splits "workload=<model>_<accelerator>" at the first '_', so the model
// part must have none of its own: '_' is written as '-' (unet3d → unet3d, tiny_tf → tiny-tf). The real
// name stays in configs/config.yaml (model.name).
std::string mlperfModelLabel(const std::string& modelName);
// "<model label>_<accelerator or kDefaultAccelerator>".
std::string mlperfWorkloadLabel(const WorkloadConfig& cfg);

// Dataset sizing as MLPerf Storage does it (SPEC §2):
//   filesForRam   = ceil(5 × clientRamBytes ÷ mean file size)      (mean file size = record × samples/file)
//   filesForSteps = ceil(500 × accelerators × batch ÷ samples_per_file)
//   filesNeeded   = max of the two
// datasetBytes is the configured dataset (num_files_train × mean file size); fitsInRam says whether
// the page cache could hold it (then AU says nothing about the storage).
struct SizingAdvice {
    std::uint64_t filesNeeded = 0;
    std::uint64_t filesForRam = 0;
    std::uint64_t filesForSteps = 0;
    double datasetBytes = 0;
    double clientRamBytes = 0;
    bool fitsInRam = false; // false with storage.storage_type s3: no page cache holds objects read over HTTP
    std::string text; // a short human summary of the above
};
SizingAdvice sizingAdvice(const WorkloadConfig& cfg, std::uint64_t accelerators, double clientRamBytes);
// For a dataset that fits in RAM, before it is run: whether the page cache can serve it (a warning) and the
// sentence saying so, from what the workload configures — trainio.cache (keep: yes; fadvise and drop: what
// they do before each epoch instead), an emulated device (trainio.storage: it shapes every read whatever the
// cache holds) or an object store (no page cache between the readers and the objects). One decision and its
// words for every front (util/page_cache_verdict.h).
PageCacheVerdict pageCacheBeforeRun(const WorkloadConfig& cfg);

} // namespace trainio
