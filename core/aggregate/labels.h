// Labels a user gives to results (docs/aggregation.md, "Labels"): a small JSON file,
// trainio_labels.json, in a benchmark or invocation folder (or any folder above them): it applies to
// everything below it; the nearest file wins key by key. Written by `trainio-cli label` and the GUI's
// label editor, read back by the importer.
//
//   {"system": "lab-nvme-01", "description": "ext4 on 1x Samsung PM9A3 3.84 TB, noatime; 1 client",
//    "notes": "after firmware 1.2", "name": "baseline"}
#pragma once

#include "aggregate/invocation_record.h"
#include "io/io_backend.h"

#include <filesystem>
#include <optional>
#include <string>

namespace trainio::aggregate {

inline constexpr const char* kLabelsFileName = "trainio_labels.json";

// Reads DIR/trainio_labels.json. nullopt when absent; throws InputError naming the file and the key
// for a file that is not a JSON object of strings (unknown keys are refused too).
std::optional<Labels> readLabelsFile(const std::filesystem::path& dir);

// The labels that apply to `dir`: merged from `dir` up to (and including) `stopAt`, nearest first.
// A bad file is reported in *why (when given) and ignored.
Labels labelsFor(const std::filesystem::path& dir, const std::filesystem::path& stopAt, std::string* why = nullptr);

// Writes DIR/trainio_labels.json atomically, keeping keys of an existing file that `labels` leaves
// empty unless `replace` is set. Throws RunError naming the file when it cannot be written.
void writeLabelsFile(const std::filesystem::path& dir, const Labels& labels, bool replace = false,
                     IoBackend* io = nullptr);

// MLPerf Storage system descriptions: systems/<name>.json (v1.0) or .yaml (v3.0). A short
// description (storage product, file system, network, client hosts) built from the known keys.
std::string describeSystemFile(const std::filesystem::path& file);

} // namespace trainio::aggregate
