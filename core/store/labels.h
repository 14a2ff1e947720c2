// Labels a user gives to results (docs/aggregation.md, "Labels"): a small JSON file,
// trainio_labels.json, in a benchmark or invocation folder (or any folder above them): it applies to
// everything below it; the nearest file wins key by key. Written by `trainio-cli label` and the GUI's
// label editor, read back by the importer. Read under the store's bound and link rule (run_folder.h),
// written atomically.
//
//   {"system": "lab-nvme-01", "description": "ext4 on 1x Samsung PM9A3 3.84 TB, noatime; 1 client",
//    "notes": "after firmware 1.2", "name": "baseline",
//    "usable_capacity_GiB": 7150, "power_kw": 0.8, "rack_units": 1}
// The three numbers describe the system for its efficiency (docs/aggregation.md, "Efficiency"): each a
// positive number, and each wins over what an MLPerf systems file says.
#pragma once

#include "store/invocation_record.h"
#include "io/io_backend.h"
#include "store/run_folder.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

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

// The system figures a labels file may give, in the order they are written: the key (also the figure's
// key in `aggregate --format json`), the member of SystemFigures it fills, and its unit.
struct SystemFigureKey {
    const char* key;  // "usable_capacity_GiB", "power_kw", "rack_units"
    aggregate::SystemFigure aggregate::SystemFigures::*member;
    const char* unit; // "GiB", "kW", "rack units"
};
const std::vector<SystemFigureKey>& systemFigureKeys();
// `text` as the value of figure `key`: a finite number above 0, else InputError "<where>: <key> must be a
// positive number (<unit>), found "<text>"".
double parseSystemFigure(const std::string& where, const std::string& key, const std::string& text);
// Fills the figures of `into` that have no value from `from` (nearest first: `into` is nearer).
void fillMissingFigures(aggregate::SystemFigures& into, const aggregate::SystemFigures& from);

// The usable capacity, power and rack units an MLPerf systems file gives (docs/aggregation.md, "Efficiency",
// has the rule for each version), each with the file and the key it came from; no value for what the file does
// not say (a 0 or a text such as "Inf" says nothing). A file that cannot be read gives none, and *why says so.
aggregate::SystemFigures readSystemFigures(const std::filesystem::path& file, const std::filesystem::path& canonicalRoot = {},
                                           std::string* why = nullptr);

// MLPerf Storage system descriptions: systems/<name>.json (v1.0, trailing commas accepted) or .yaml
// (v3.0), found by run_files.h findSystemFile. A short description (storage product, file system, network,
// client hosts) built from the known keys. A file that cannot be read (the bound, the link rule — inside
// `canonicalRoot`, the file's folder when empty —, its syntax) makes the description say so, naming the file.
std::string describeSystemFile(const std::filesystem::path& file, const std::filesystem::path& canonicalRoot = {});

} // namespace trainio::store
