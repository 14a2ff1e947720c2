// Labels a user gives to results (docs/aggregation.md, "Labels"): a small JSON file,
// trainio_labels.json, in a benchmark or invocation folder (or any folder above them): it applies to
// everything below it; the nearest file wins key by key. Written by `trainio-cli label` and the GUI's
// label editor, read back by the importer. Read under the store's bound and link rule (run_folder.h),
// written atomically.
//
//   {"system": "lab-nvme-01", "description": "ext4 on 1x Samsung PM9A3 3.84 TB, noatime; 1 client",
//    "notes": "after firmware 1.2", "name": "baseline"}
#pragma once

#include "store/invocation_record.h"
#include "io/io_backend.h"
#include "store/run_folder.h"

#include <filesystem>
#include <optional>
#include <string>

namespace trainio::store {

using aggregate::Labels;

// Reads DIR/trainio_labels.json, inside the tree `canonicalRoot` (DIR itself when empty). nullopt when
// absent; throws InputError naming the file and the key for a file that is not a JSON object of strings
// (unknown keys are refused too), larger than the bound, or a link leaving the tree.
std::optional<Labels> readLabelsFile(const std::filesystem::path& dir, const std::filesystem::path& canonicalRoot = {},
                                     const FileSource& files = diskFiles());

// The labels that apply to `dir`: merged from `dir` up to (and including) `stopAt`, nearest first.
// A bad file is reported in *why (when given) and ignored.
Labels labelsFor(const std::filesystem::path& dir, const std::filesystem::path& stopAt, std::string* why = nullptr,
                 const FileSource& files = diskFiles());

// Writes DIR/trainio_labels.json atomically, keeping keys of an existing file that `labels` leaves
// empty unless `replace` is set. Throws RunError naming the file when it cannot be written. `record`:
// run_folder.h writeFileAtomic.
void writeLabelsFile(const std::filesystem::path& dir, const Labels& labels, bool replace = false,
                     IoBackend* io = nullptr, WrittenFiles* record = nullptr);

// MLPerf Storage system descriptions: systems/<name>.json (v1.0, trailing commas accepted) or .yaml
// (v3.0), found by run_files.h findSystemFile. A short description (storage product, file system, network,
// client hosts) built from the known keys. A file that cannot be read (the bound, the link rule — inside
// `canonicalRoot`, the file's folder when empty —, its syntax) makes the description say so, naming the file.
std::string describeSystemFile(const std::filesystem::path& file, const std::filesystem::path& canonicalRoot = {});

} // namespace trainio::store
