// The one table of configuration keys. Every key is defined here once — its dotted path, DLIO's other
// spelling, kind, type, DLIO's default, accepted range or values, unit, meaning and the WorkloadConfig
// field it binds to — and the loader, the writer, the validator, config_schema's known-key list and
// suggestions, the numeric ranges (value_ranges / key_ranges), docs/configuration.md
// (`trainio-cli config-keys`) and the GUI's form are derived from it.
// What cannot be said in a row stays as code beside the table: the v1.0 scalar `model:`, the
// computation_time distribution maps, shuffle's YAML-1.1 `false`, cross-field checks (uniform min <=
// max, a latency type's required parameters) and the model/accelerator label rules.
#pragma once

#include "config/config_schema.h"
#include "config/value_ranges.h"
#include "config/workload_config.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace trainio::config_keys {

enum class Type {
    Section,   // a map of further keys
    Bool,
    Whole,     // a whole number >= 0
    Integer,   // a whole number that may be negative (DLIO's -1 = unset)
    Number,
    Text,
    Choice,    // one of `choices`
    Bytes,
    Seconds,
    Milliseconds,
    Fraction,
    TimeSpec,  // a number of seconds or a distribution map (computation_time, eval_time)
    WholeList, // a list of whole numbers >= 0
    Map,       // a free-form map (DLIO's storage_options, checkpoint.ksm, …)
    Any,       // a value DLIO reads and TrainIO does not (its type is DLIO's business)
};

// A field's value as the loader, the writer and the form pass it around.
using Value = std::variant<bool, std::uint64_t, std::int64_t, double, std::string, std::vector<std::uint64_t>>;

// Reads and writes one WorkloadConfig field; empty for keys TrainIO does not use.
struct Binding {
    std::function<Value(const WorkloadConfig&)> get;
    std::function<void(WorkloadConfig&, const Value&)> set;
    explicit operator bool() const { return static_cast<bool>(get); }
};

enum Flag : unsigned {
    CustomRead = 1u << 0,      // the loader reads it by code beside the table
    CustomWrite = 1u << 1,     // the writer writes it by code beside the table
    NotWritten = 1u << 2,      // never written (another key says it)
    MinusOneIsZero = 1u << 3,  // DLIO's -1 ("off", "whole dataset") is TrainIO's 0, and written back as -1
    OmitWhenEmpty = 1u << 4,   // an empty string (a false Bool) is not written
    CaseInsensitive = 1u << 5, // a choice read in lower case
    CustomCheck = 1u << 6,     // the validator checks it by code beside the table
    NotAKey = 1u << 7,         // a distribution member or a run setting: ranges, docs, form only
    Bookkeeping = 1u << 8,     // how verbosely, how often a recorder samples, where a record came from:
                               // never changes what is measured (and so never splits a benchmark)
};

// What a key is to a result's identity (docs/aggregation.md, "Identity"). Every row says one; a key the table
// does not know gets one from roleOf's rules (its name, the row above it).
enum class Role {
    Unclassified, // no row may stay so (tst_config_keys::everyKeyHasAnIdentityRole)
    Workload,     // defines the workload: compared in the workload identity (aggregate/identity.cpp workloadFields)
    Setting,      // how the workload is run: part of the benchmark identity unless it is bookkeeping (flag
                  // Bookkeeping) or a setting of a feature that is off (`gate`)
    Location,     // names a place — a folder, path, file name, bucket, prefix, endpoint, host: where files
                  // are written or read, not what the workload does; part of no identity, whatever feature it
                  // belongs to and whether that feature is on; runs that differ in it list it beside the group
};

struct KeyDef {
    std::string path;     // canonical dotted path: DLIO's newest spelling
    std::string oldPath;  // DLIO 1.0's spelling when it differs ("dataset.record_length"), else ""
    config_schema::KeyKind kind = config_schema::KeyKind::Used;
    Type type = Type::Any;
    std::string dlioDefault;          // as YAML would write it; "" when DLIO has none
    std::optional<ValueRange> range;  // numeric keys
    std::vector<std::string> choices; // Choice keys, in the order messages list them
    std::vector<std::string> known;   // Text keys: the values known by name (offered, recognised); others pass too
    std::string unit;                 // for the docs and the form: "bytes", "s", "files", …
    std::string meaning;              // one line
    std::string origin;               // "DLIO", "DLIO 1.0", "DLIO (MLPerf v3.0 fork)", "TrainIO"
    std::string expected;             // Text keys: what the messages say was expected ("a folder path")
    Binding field;
    unsigned flags = 0;
    // The Bool key that switches this key's feature on ("workflow.checkpoint" for checkpoint.*): while it
    // is false the key cannot change what is measured. A section's gate holds for every key below it.
    std::string gate;
    Role role = Role::Unclassified;

    bool has(Flag f) const { return (flags & f) != 0; }
    bool numeric() const { return range.has_value(); }
};

// Every key, sections first within their parent, in the order the docs list them.
const std::vector<KeyDef>& all();

// The definition of a canonical path (or DLIO 1.0's spelling, or under "data_reader"); nullptr when
// the table has no such key.
const KeyDef* find(std::string_view path);

// What the table says about a dotted path's effect on a measurement, from its own row or the nearest
// section above it (so a key the table does not know, checkpoint.model_size, inherits checkpoint's gate):
// the Bool key whose feature it belongs to ("" when none), and whether it is bookkeeping.
std::string featureGate(std::string_view path);
bool isBookkeeping(std::string_view path);

// A dotted path's role in a result's identity: its own row's; for a key the table does not know, Location
// when its name names a place (namesAPlace), else the role of the nearest row above it that is not a section
// (a member of a map or a distribution: reader.preprocess_time.mean is reader.preprocess_time's), else Setting
// (a key nobody classified may change what is measured).
Role roleOf(std::string_view path);
// The rule for keys outside the table, on the last component of a dotted path: it names a place when its last
// word is one of folder(s), dir(s), directory, path(s), file, filename, root, url(s), uri, bucket, prefix,
// endpoint(s), host(s), hostname(s), mount, mountpoint, address, server(s), or it ends in <one of bucket, host,
// file, folder, dir, endpoint, server>_name — and it is not a count or a bound (first word num, n, max or min:
// num_hosts is how many, not where). "data_folder", "s3_prefix", "storage_root", "endpoint_url", "hosts".
bool namesAPlace(std::string_view path);
// "workload", "setting", "location" (docs, `trainio-cli config-keys`); "bookkeeping" for a setting isBookkeeping says.
std::string roleName(const KeyDef& k);

// "one of a, b or c" for a Choice key's values.
std::string choiceText(const KeyDef& k);

// The accelerators TrainIO knows by name, in the `accelerator` row's order: the loader recognises them in a
// file name or a "workload=<model>_<accelerator>" label, the GUI offers them in its list (any other name
// that passes the name rule is accepted too). memoryGB is the emulated accelerator's memory in MLPerf
// Storage's checkpoint rule (Rules.md 4.3.4, Table 3), 0 where the rule gives none.
struct Accelerator {
    std::string name;
    double memoryGB = 0;
};
const std::vector<Accelerator>& accelerators();
// The names above: the `accelerator` row's `known`.
const std::vector<std::string>& acceleratorNames();
// Rules.md 4.3.4's memory of a named accelerator; 0 when the rule gives none (or the name is unknown).
double acceleratorMemoryGB(std::string_view name);

// The reference of every key: docs/configuration.md's generated part and `trainio-cli config-keys`.
std::string markdown();
nlohmann::ordered_json json();

// The markers around the generated part of docs/configuration.md.
inline constexpr const char* kDocBegin = "<!-- BEGIN: generated by `trainio-cli config-keys --format markdown`; edit core/config/config_keys.cpp -->";
inline constexpr const char* kDocEnd = "<!-- END: generated -->";

} // namespace trainio::config_keys
