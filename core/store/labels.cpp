#include "store/labels.h"

#include "store/run_files.h"
#include "util/errors.h"
#include "util/text.h"

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using nlohmann::json;
using nlohmann::ordered_json;

namespace trainio::store {

namespace {

// The four keys in the order they are written; the member each one fills.
struct LabelKey {
    const char* key;
    std::string Labels::*member;
};
constexpr LabelKey kLabelKeys[] = {{"system", &Labels::system},
                                   {"description", &Labels::description},
                                   {"notes", &Labels::notes},
                                   {"name", &Labels::name}};

using aggregate::SystemFigure;
using aggregate::SystemFigures;

// Published MLPerf v1.0 system files carry trailing commas ("count_of_this_type": 1, }) that strict
// JSON refuses; the submitters' tools accepted them, so they are dropped here (outside strings only).
std::string withoutTrailingCommas(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            out += c;
            if (c == '\\' && i + 1 < text.size()) out += text[++i];
            else if (c == '"') inString = false;
            continue;
        }
        if (c == '"') inString = true;
        if (c == ',') {
            std::size_t j = i + 1;
            while (j < text.size() && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r')) ++j;
            if (j < text.size() && (text[j] == '}' || text[j] == ']')) continue;
        }
        out += c;
    }
    return out;
}

std::string joined(const std::vector<std::string>& parts, const std::string& sep) {
    std::string out;
    for (const auto& p : parts) {
        if (p.empty()) continue;
        out += (out.empty() ? "" : sep) + p;
    }
    return out;
}

// A JSON scalar as text ("" for anything else): system files mix numbers and strings freely.
std::string text(const json& j, const char* key) {
    if (!j.is_object() || !j.contains(key)) return {};
    const json& v = j.at(key);
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_integer()) return std::to_string(v.get<long long>());
    if (v.is_number()) {
        std::ostringstream os;
        os << v.get<double>();
        return os.str();
    }
    return {};
}

std::string describeV1(const json& doc) {
    std::vector<std::string> storage;
    if (doc.contains("storage_system") && doc["storage_system"].is_object()) {
        const json& s = doc["storage_system"];
        std::string product = text(s, "vendor_name");
        const std::string solution = text(s, "solution_name");
        if (!solution.empty() && product.find(solution) == std::string::npos) product += " " + solution;
        if (!text(s, "version").empty()) product += " " + text(s, "version");
        storage.push_back(product);
        storage.push_back(text(s, "solution_type"));
        if (s.contains("client_mount_options") && s["client_mount_options"].is_array()) {
            std::vector<std::string> opts;
            for (const auto& o : s["client_mount_options"])
                if (o.is_string()) opts.push_back(o.get<std::string>());
            if (!opts.empty()) storage.push_back("mount " + joined(opts, ", "));
        }
    }
    // Local-storage submissions (no storage_system) name the device under test among the drives.
    if (storage.empty() && doc.contains("nodes") && doc["nodes"].is_array()) {
        for (const auto& n : doc["nodes"]) {
            if (!n.contains("drives") || !n["drives"].is_array()) continue;
            for (const auto& d : n["drives"]) {
                const std::string purpose = d.contains("purpose") ? lower(d["purpose"].dump()) : "";
                if (purpose.find("under test") == std::string::npos) continue;
                std::string drive = text(d, "count_of_this_type");
                drive = (drive.empty() ? "" : drive + "× ") + joined({text(d, "interface"), text(d, "drive_type")}, " ");
                if (!text(d, "capacity_GiB").empty()) drive += " " + text(d, "capacity_GiB") + " GiB";
                storage.push_back(drive + " (device under test)");
            }
        }
    }
    std::vector<std::string> network;
    if (doc.contains("networks") && doc["networks"].is_array()) {
        for (const auto& n : doc["networks"]) {
            std::string line = joined({text(n, "network_type"), text(n, "bitrate").empty() ? "" : text(n, "bitrate") + " Gb/s"}, " ");
            if (n.contains("protocols") && n["protocols"].is_array() && !n["protocols"].empty()) {
                std::vector<std::string> protocols;
                for (const auto& p : n["protocols"])
                    if (p.is_string()) protocols.push_back(p.get<std::string>());
                line += " (" + joined(protocols, ", ") + ")";
            }
            network.push_back(line);
        }
    }
    std::vector<std::string> clients, hosts;
    if (doc.contains("benchmark_hosts") && doc["benchmark_hosts"].is_array()) {
        for (const auto& h : doc["benchmark_hosts"]) {
            hosts.push_back(text(h, "node_name"));
            if (lower(text(h, "node_type_name")).find("client") != std::string::npos) clients.push_back(text(h, "node_name"));
        }
    }
    // Hosts of other node types (metadata servers, storage servers) run the storage, not the benchmark.
    const std::vector<std::string>& who = clients.empty() ? hosts : clients;
    std::string line2 = network.empty() ? "" : "network " + joined(network, "; ");
    if (!who.empty()) {
        line2 += std::string(line2.empty() ? "" : "; ") + std::to_string(who.size()) + " client host" +
                 (who.size() == 1 ? "" : "s") + " (" + joined(who, ", ") + ")";
    }
    return joined({joined(storage, "; "), line2}, "\n");
}

std::string yamlText(const YAML::Node& n, const char* key) {
    if (!n.IsMap() || !n[key] || !n[key].IsScalar()) return {};
    return n[key].as<std::string>();
}

std::string describeV3(const YAML::Node& doc) {
    const YAML::Node sut = doc["system_under_test"] ? doc["system_under_test"] : doc;
    std::vector<std::string> storage;
    if (sut["solution"]) {
        const YAML::Node s = sut["solution"];
        std::string what = yamlText(s, "friendly_description");
        if (!what.empty() && what.back() == '.') what.pop_back(); // the next part follows after "; "
        storage.push_back(what);
        if (s["architecture"]) {
            const std::string where = yamlText(s["architecture"], "storage_location");
            const std::string api = yamlText(s["architecture"], "product_API");
            if (!where.empty()) storage.push_back(where + " storage" + (api.empty() ? "" : ", " + api + " API"));
        }
    }
    std::vector<std::string> clients, network;
    if (sut["clients"] && sut["clients"].IsSequence()) {
        for (const auto& c : sut["clients"]) {
            std::string qty = yamlText(c, "quantity");
            std::string line = (qty.empty() ? "1" : qty) + "× ";
            const YAML::Node chassis = c["chassis"];
            line += chassis ? yamlText(chassis, "model_name") : "client";
            if (chassis && !yamlText(chassis, "memory_capacity").empty())
                line += " (" + yamlText(chassis, "memory_capacity") + " GB memory)";
            clients.push_back(line);
            if (c["networking"] && c["networking"].IsSequence()) {
                for (const auto& n : c["networking"]) {
                    if (yamlText(n, "state") == "down") continue;
                    const std::string speed = yamlText(n, "speed");
                    network.push_back(joined({yamlText(n, "unit_count").empty() ? "" : yamlText(n, "unit_count") + "×",
                                              yamlText(n, "type"), speed.empty() ? "" : speed + " Gb/s"},
                                             " "));
                }
            }
        }
    }
    std::string line2;
    if (!clients.empty()) line2 = "clients " + joined(clients, ", ");
    if (!network.empty()) line2 += std::string(line2.empty() ? "" : "; ") + "network " + joined(network, ", ");
    return joined({joined(storage, "; "), line2}, "\n");
}

} // namespace

std::optional<Labels> readLabelsFile(const fs::path& dir, const fs::path& canonicalRoot, const FileSource& files) {
    const fs::path file = dir / kLabelsFile;
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(file, ec))) return std::nullopt;
    const ReadBounds bounds;
    // A labels file is one flat object: its values are checked to be strings below.
    const auto parsed = std::optional<json>(files.jsonOrThrow(file, canonicalRoot.empty() ? treeOf(dir) : canonicalRoot,
                                                              bounds.maxFileBytes, bounds.maxJsonDepth));
    const json& j = *parsed;
    if (!j.is_object())
        throw InputError(file.string() + ": expected a JSON object {\"system\", \"description\", \"notes\", \"name\" (strings), "
                                         "\"usable_capacity_GiB\", \"power_kw\", \"rack_units\" (positive numbers)}");
    Labels labels;
    for (const auto& [key, value] : j.items()) {
        const LabelKey* k = nullptr;
        for (const auto& candidate : kLabelKeys)
            if (key == candidate.key) k = &candidate;
        const SystemFigureKey* figure = nullptr;
        for (const auto& candidate : systemFigureKeys())
            if (key == candidate.key) figure = &candidate;
        if (figure) {
            // A number, as written: a text ("7150") or 0 would be guessed at, so both are refused.
            if (!value.is_number() || !(value.get<double>() > 0) || !std::isfinite(value.get<double>()))
                throw InputError(file.string() + ": " + key + " must be a positive number (" + figure->unit + "), found " + value.dump());
            labels.figures.*(figure->member) = SystemFigure{value.get<double>(), file, key};
            continue;
        }
        if (!k)
            throw InputError(file.string() + ": unknown key \"" + key +
                             "\": expected system, description, notes, name, usable_capacity_GiB, power_kw or rack_units");
        if (!value.is_string())
            throw InputError(file.string() + ": " + key + " must be a string, found " + value.dump());
        labels.*(k->member) = value.get<std::string>();
    }
    labels.file = file;
    return labels;
}

Labels labelsFor(const fs::path& dir, const fs::path& stopAt, std::string* why, const FileSource& files) {
    std::error_code ec;
    const fs::path start = fs::weakly_canonical(dir, ec);
    const fs::path stop = fs::weakly_canonical(stopAt, ec);
    // Only folders inside the imported root count: a labels file above it belongs to something else.
    const auto rel = start.lexically_relative(stop);
    const bool inside = !rel.empty() && *rel.begin() != "..";
    Labels merged;
    fs::path here = start;
    while (true) {
        try {
            if (const auto found = readLabelsFile(here, inside ? stop : start, files)) {
                for (const auto& k : kLabelKeys) {
                    // A name belongs to the folder that has it, never to the folders below it.
                    if (k.member == &Labels::name && here != start) continue;
                    if ((merged.*(k.member)).empty()) merged.*(k.member) = (*found).*(k.member);
                }
                fillMissingFigures(merged.figures, found->figures);
                if (!merged.file) merged.file = found->file;
            }
        } catch (const InputError& e) {
            if (why) *why += std::string(why->empty() ? "" : "; ") + e.what() + " (ignored)";
        }
        if (!inside || here == stop || !here.has_parent_path() || here.parent_path() == here) break;
        here = here.parent_path();
    }
    return merged;
}

void writeLabelsFile(const fs::path& dir, const Labels& labels, bool replace, IoBackend* io, WrittenFiles* record) {
    Labels out = labels;
    if (!replace) {
        if (const auto existing = readLabelsFile(dir)) {
            for (const auto& k : kLabelKeys)
                if ((out.*(k.member)).empty()) out.*(k.member) = (*existing).*(k.member);
            fillMissingFigures(out.figures, existing->figures);
        }
    }
    ordered_json j = ordered_json::object();
    for (const auto& k : kLabelKeys) {
        const std::string& value = out.*(k.member);
        if (value.empty()) continue;
        try {
            (void)ordered_json(value).dump(); // strict: refuses bytes that are not UTF-8
        } catch (const ordered_json::type_error&) {
            throw InputError((dir / kLabelsFile).string() + ": " + k.key +
                             " is not valid UTF-8 text; nothing was written (no character is dropped silently)");
        }
        j[k.key] = value;
    }
    for (const auto& k : systemFigureKeys()) {
        const auto& value = (out.figures.*(k.member)).value;
        if (!value) continue;
        // The reader refuses what is not a positive number; nothing it would refuse is written.
        if (!(*value > 0) || !std::isfinite(*value))
            throw InputError((dir / kLabelsFile).string() + ": " + k.key + " must be a positive number (" + k.unit +
                             "), found " + std::to_string(*value) + "; nothing was written");
        j[k.key] = *value;
    }
    store::writeFileAtomic(dir / kLabelsFile, j.dump(2) + "\n", io, record);
}

const std::vector<SystemFigureKey>& systemFigureKeys() {
    static const std::vector<SystemFigureKey> keys{{"usable_capacity_GiB", &SystemFigures::usableCapacityGiB, "GiB"},
                                                   {"power_kw", &SystemFigures::powerKw, "kW"},
                                                   {"rack_units", &SystemFigures::rackUnits, "rack units"}};
    return keys;
}

double parseSystemFigure(const std::string& where, const std::string& key, const std::string& text) {
    const auto v = parseFiniteNumber(trim(text));
    std::string unit = "?";
    for (const auto& k : systemFigureKeys())
        if (key == k.key) unit = k.unit;
    if (!v || !(*v > 0)) throw InputError(where + ": " + key + " must be a positive number (" + unit + "), found \"" + text + "\"");
    return *v;
}

void fillMissingFigures(SystemFigures& into, const SystemFigures& from) {
    for (const auto& k : systemFigureKeys())
        if (!(into.*(k.member)).value) into.*(k.member) = from.*(k.member);
}

namespace {

// A systems file read and parsed — v1.0 JSON (trailing commas accepted) or v3.0 YAML — and handed to the
// reader of its version; InputError names the file for any problem.
template <class R>
R readSystemFile(const fs::path& file, const fs::path& canonicalRoot, R (*onJson)(const json&), R (*onYaml)(const YAML::Node&)) {
    const std::string ext = lower(file.extension().string());
    const std::string content =
        readFolderTextOrThrow(file, canonicalRoot.empty() ? treeOf(file.parent_path()) : canonicalRoot, ReadBounds{}.maxFileBytes);
    if (ext == ".json") {
        json doc;
        try {
            doc = json::parse(withoutTrailingCommas(content));
        } catch (const json::parse_error& e) {
            throw InputError(file.string() + ": not valid JSON (" + e.what() + ")");
        }
        if (!doc.is_object()) throw InputError(file.string() + ": expected an MLPerf Storage system description object");
        return onJson(doc);
    }
    if (ext == ".yaml" || ext == ".yml") {
        try {
            const YAML::Node doc = YAML::Load(content);
            if (!doc.IsMap()) throw InputError(file.string() + ": expected an MLPerf Storage system description mapping");
            return onYaml(doc);
        } catch (const YAML::Exception& e) {
            throw InputError(file.string() + ": not valid YAML or not the expected layout (" + e.what() + ")");
        }
    }
    throw InputError(file.string() + ": expected a systems/<name>.json or .yaml file");
}

// A positive finite number from a JSON number or a numeric text ("37339"); nullopt for anything else ("Inf", 0).
std::optional<double> positive(const json& v) {
    std::optional<double> n;
    if (v.is_number()) n = v.get<double>();
    else if (v.is_string()) n = parseFiniteNumber(trim(v.get<std::string>()));
    if (n && std::isfinite(*n) && *n > 0) return n;
    return std::nullopt;
}
std::optional<double> positive(const YAML::Node& n) {
    if (!n || !n.IsScalar()) return std::nullopt;
    return positive(json(n.as<std::string>()));
}

// v1.0: usable_capacity_GiB of storage_system (where the schema puts it), else at the top; v1.0 files say
// nothing of power or rack units.
SystemFigures figuresV1(const json& doc) {
    SystemFigures f;
    if (doc.contains("storage_system") && doc["storage_system"].is_object() && doc["storage_system"].contains("usable_capacity_GiB"))
        f.usableCapacityGiB = {positive(doc["storage_system"]["usable_capacity_GiB"]), {}, "storage_system.usable_capacity_GiB"};
    else if (doc.contains("usable_capacity_GiB"))
        f.usableCapacityGiB = {positive(doc["usable_capacity_GiB"]), {}, "usable_capacity_GiB"};
    return f;
}

// A node's nameplate watts (v3.0 chassis.power): min_psus_active supplies of the largest configured one (the
// supplies it runs on; redundant ones add no power), else every configured supply (unit_count × watts).
std::optional<double> nodeWatts(const YAML::Node& node) {
    const YAML::Node power = node["chassis"] ? node["chassis"]["power"] : YAML::Node();
    if (!power || !power.IsMap() || !power["psus_configured"] || !power["psus_configured"].IsSequence()) return std::nullopt;
    double all = 0, largest = 0;
    for (const auto& psu : power["psus_configured"]) {
        const auto watts = positive(psu["nameplate_power_watts"]);
        if (!watts) return std::nullopt;
        all += positive(psu["unit_count"]).value_or(1) * *watts;
        largest = std::max(largest, *watts);
    }
    if (const auto active = positive(power["min_psus_active"])) return *active * largest;
    return all > 0 ? std::optional<double>(all) : std::nullopt;
}
std::optional<double> nodeRackUnits(const YAML::Node& node) { return node["chassis"] ? positive(node["chassis"]["rack_units"]) : std::nullopt; }

// Σ over the node types of system_under_test (each list of nodes with a chassis: clients, storage servers, …)
// of quantity × the node's figure; nullopt when any node type does not say (a partial sum would flatter).
std::optional<double> sumOverNodes(const YAML::Node& sut, std::optional<double> (*of)(const YAML::Node&)) {
    double total = 0;
    bool anyNode = false;
    for (const auto& entry : sut) {
        if (!entry.second.IsSequence()) continue;
        for (const auto& node : entry.second) {
            if (!node.IsMap() || !node["chassis"]) continue;
            const auto each = of(node);
            if (!each) return std::nullopt;
            anyNode = true;
            total += positive(node["quantity"]).value_or(1) * *each;
        }
    }
    return anyNode && total > 0 ? std::optional<double>(total) : std::nullopt;
}

// v3.0 (docs/aggregation.md, "Efficiency"): usable capacity = solution.usable_capacity_tib × 1024; rack units =
// total_rack_units when above 0, else Σ quantity × chassis.rack_units over the node types; power = Σ quantity ×
// nodeWatts over the node types, in kW.
SystemFigures figuresV3(const YAML::Node& doc) {
    const bool nested = static_cast<bool>(doc["system_under_test"]);
    const YAML::Node sut = nested ? doc["system_under_test"] : doc;
    const std::string at = nested ? "system_under_test." : "";
    const std::string nodes = nested ? "system_under_test" : "the file";
    SystemFigures f;
    if (sut["solution"])
        if (const auto tib = positive(sut["solution"]["usable_capacity_tib"]))
            f.usableCapacityGiB = {*tib * 1024.0, {}, at + "solution.usable_capacity_tib × 1024"};
    if (const auto total = positive(sut["total_rack_units"]))
        f.rackUnits = {total, {}, at + "total_rack_units"};
    else if (const auto sum = sumOverNodes(sut, nodeRackUnits))
        f.rackUnits = {sum, {}, "Σ quantity × chassis.rack_units over the node types of " + nodes + " (" + at + "total_rack_units says none)"};
    if (const auto watts = sumOverNodes(sut, nodeWatts))
        f.powerKw = {*watts / 1000.0, {}, "Σ quantity × chassis.power (min_psus_active × nameplate_power_watts) over the node types of " +
                                              nodes + ", ÷ 1000"};
    return f;
}

} // namespace

aggregate::SystemFigures readSystemFigures(const fs::path& file, const fs::path& canonicalRoot, std::string* why) {
    try {
        SystemFigures f = readSystemFile<SystemFigures>(file, canonicalRoot, figuresV1, figuresV3);
        for (const auto& k : systemFigureKeys()) {
            SystemFigure& figure = f.*(k.member);
            if (figure.value) figure.file = file;
            else figure = {};
        }
        return f;
    } catch (const InputError& e) {
        if (why) *why = e.what();
        return {};
    }
}

namespace {

std::string describeOrThrow(const fs::path& file, const fs::path& canonicalRoot) {
    return readSystemFile<std::string>(file, canonicalRoot, describeV1, describeV3);
}

} // namespace

std::string describeSystemFile(const fs::path& file, const fs::path& canonicalRoot) {
    // The importer shows this as the system's description: a bad file must not stop the import, and
    // must not pass for "no description" either, so the problem becomes the text.
    try {
        return describeOrThrow(file, canonicalRoot);
    } catch (const InputError& e) {
        return std::string("(system description unreadable: ") + e.what() + ")";
    }
}

} // namespace trainio::store
