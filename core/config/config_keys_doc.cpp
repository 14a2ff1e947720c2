// The key reference derived from the table: docs/configuration.md's generated part (a test compares
// the committed file with this) and `trainio-cli config-keys --format markdown|json`.
#include "config/config_keys.h"

#include "config/config_internal.h"

#include <map>

namespace trainio::config_keys {

namespace {

const char* typeName(Type t) {
    switch (t) {
    case Type::Section: return "section";
    case Type::Bool: return "bool";
    case Type::Whole: return "whole number";
    case Type::Integer: return "integer";
    case Type::Number: return "number";
    case Type::Text: return "string";
    case Type::Choice: return "choice";
    case Type::Bytes: return "byte size";
    case Type::Seconds: return "duration";
    case Type::Milliseconds: return "duration";
    case Type::Fraction: return "fraction";
    case Type::TimeSpec: return "time distribution";
    case Type::WholeList: return "list of whole numbers";
    case Type::Map: return "map";
    case Type::Any: return "any";
    }
    return "any";
}

const char* useName(const KeyDef& k) {
    if (k.has(NotAKey)) return "member";
    switch (k.kind) {
    case config_schema::KeyKind::Section: return "section";
    case config_schema::KeyKind::Used: return "read";
    case config_schema::KeyKind::TimeSpec: return "read";
    case config_schema::KeyKind::Ignored: return "ignored";
    case config_schema::KeyKind::OpenIgnored: return "ignored";
    }
    return "read";
}

std::string accepted(const KeyDef& k) {
    if (k.range) return k.range->describe();
    if (!k.choices.empty()) return choiceText(k);
    if (!k.known.empty()) return "any name; known: " + config_detail::joinNames(k.known, " and ");
    return {};
}

// Markdown table cells: '|' would end the cell.
std::string cell(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '|') out += "\\|";
        else out += c;
    }
    return out;
}

std::string code(const std::string& s) { return s.empty() ? std::string() : "`" + s + "`"; }

std::string topSection(const std::string& path) {
    auto dot = path.find('.');
    return dot == std::string::npos ? std::string() : path.substr(0, dot);
}

} // namespace

std::string markdown() {
    std::string out;
    out += "Every key TrainIO knows, from the one table in `core/config/config_keys.cpp`. *Use*: `read` — TrainIO\n"
           "reads it; `ignored` — DLIO reads it, TrainIO accepts it silently; `member` — a member of a\n"
           "distribution map or a run setting. *Default* is DLIO's (TrainIO uses the same). A key's DLIO 1.0\n"
           "spelling, where it differs, is accepted too. *Identity*: what the key is to a result's identity\n"
           "([aggregation](aggregation.md#identity)) — `workload` defines the workload; `setting` is how it is run\n"
           "and splits a benchmark when runs differ in it (unless its feature is off); `bookkeeping` a setting that\n"
           "never changes what is measured; `location` names a place (a folder, path, file name, bucket, prefix,\n"
           "endpoint, host) and never splits, whatever feature it belongs to. A key not listed here is a\n"
           "`location` when its name names a place (`*_folder`, `*_dir`, `*_path`, `*_file`, `*_root`, `*_url`,\n"
           "`*_prefix`, `*_bucket`, `*_endpoint`, `*_host`, `hosts`, …), else it takes the role of the row it is a\n"
           "member of, else it is a `setting`.\n";
    // One table per top-level section, in the table's order; the top-level keys (accelerator, framework,
    // the run's accelerators) first.
    std::vector<std::string> order = {""};
    std::map<std::string, std::string> rows;
    for (const auto& k : all()) {
        const std::string sec = k.type == Type::Section && topSection(k.path).empty() ? k.path : topSection(k.path);
        if (!rows.count(sec) && sec != "") order.push_back(sec);
        rows[sec] += "| " + code(k.path) + " | " + code(k.oldPath) + " | " + typeName(k.type) + " | " +
                     code(k.dlioDefault) + " | " + cell(accepted(k)) + " | " + cell(k.unit) + " | " + cell(k.meaning) +
                     " | " + useName(k) + " | " + roleName(k) + " | " + cell(k.origin) + " |\n";
    }
    for (const auto& sec : order) {
        out += "\n### " + (sec.empty() ? std::string("Top-level keys") : "`" + sec + "`") + "\n\n";
        out += "| Key | DLIO 1.0 name | Type | Default | Accepted | Unit | Meaning | Use | Identity | From |\n";
        out += "|---|---|---|---|---|---|---|---|---|---|\n";
        out += rows[sec];
    }
    return out;
}

nlohmann::ordered_json json() {
    nlohmann::ordered_json keys = nlohmann::ordered_json::array();
    for (const auto& k : all()) {
        nlohmann::ordered_json j;
        j["key"] = k.path;
        j["dlio_v1_key"] = k.oldPath.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(k.oldPath);
        j["type"] = typeName(k.type);
        j["use"] = useName(k);
        j["identity"] = roleName(k);
        j["default"] = k.dlioDefault.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(k.dlioDefault);
        if (k.range) {
            j["min"] = k.range->min;
            j["max"] = k.range->max;
            j["min_exclusive"] = k.range->minExclusive;
            j["whole"] = k.range->whole;
        }
        if (!k.choices.empty()) j["choices"] = k.choices;
        if (!k.known.empty()) j["known"] = k.known;
        j["accepted"] = accepted(k);
        j["unit"] = k.unit;
        j["meaning"] = k.meaning;
        j["from"] = k.origin;
        keys.push_back(std::move(j));
    }
    return nlohmann::ordered_json{{"keys", std::move(keys)}};
}

} // namespace trainio::config_keys
