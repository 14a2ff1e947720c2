#include "aggregate/labels.h"

#include "aggregate/results_import.h"
#include "util/atomic_file.h"
#include "util/errors.h"

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <set>

namespace trainio::aggregate {

namespace fs = std::filesystem;

namespace {

constexpr std::uintmax_t kMaxLabelsBytes = 1 << 20;

std::string* field(Labels& l, const std::string& key) {
    if (key == "system") return &l.system;
    if (key == "description") return &l.description;
    if (key == "notes") return &l.notes;
    if (key == "name") return &l.name;
    return nullptr;
}

// Text from a YAML node (v3.0 systems files quote everything), "" for anything else.
std::string text(const YAML::Node& n) {
    if (!n || !n.IsScalar()) return {};
    return n.as<std::string>();
}

std::string joinNonEmpty(const std::vector<std::string>& parts, const std::string& sep) {
    std::string s;
    for (const auto& p : parts)
        if (!p.empty()) s += (s.empty() ? "" : sep) + p;
    return s;
}

} // namespace

std::optional<Labels> readLabelsFile(const fs::path& dir) {
    const fs::path file = dir / kLabelsFileName;
    std::error_code ec;
    if (!fs::exists(file, ec)) return std::nullopt;
    std::string why;
    const auto content = readBoundedFile(file, kMaxLabelsBytes, why);
    if (!content) throw InputError(file.string() + ": " + why);
    const auto j = parseBoundedJson(*content, 4, why);
    if (!j) throw InputError(file.string() + ": " + why);
    if (!j->is_object()) throw InputError(file.string() + ": expected a JSON object of strings (system, description, notes, name)");
    Labels l;
    for (const auto& [key, value] : j->items()) {
        std::string* f = field(l, key);
        if (!f) throw InputError(file.string() + ": unknown key \"" + key + "\": expected system, description, notes or name");
        if (!value.is_string()) throw InputError(file.string() + ": " + key + " must be a string");
        *f = value.get<std::string>();
    }
    l.file = file;
    return l;
}

Labels labelsFor(const fs::path& dir, const fs::path& stopAt, std::string* why) {
    Labels merged;
    const fs::path stop = stopAt.lexically_normal();
    for (fs::path d = dir.lexically_normal();; d = d.parent_path()) {
        try {
            if (auto l = readLabelsFile(d)) {
                for (const char* key : {"system", "description", "notes", "name"}) {
                    std::string* mine = field(merged, key);
                    // A name belongs to the folder that has it, never to the folders below it.
                    if (std::string(key) == "name" && d != dir.lexically_normal()) continue;
                    if (mine->empty()) *mine = *field(*l, key);
                }
                if (!merged.file) merged.file = l->file;
            }
        } catch (const InputError& e) {
            if (why) *why = e.what();
        }
        if (d == stop || !d.has_parent_path() || d == d.parent_path() || d.native().size() <= stop.native().size()) break;
    }
    return merged;
}

void writeLabelsFile(const fs::path& dir, const Labels& labels, bool replace, IoBackend* io) {
    Labels out;
    if (!replace) {
        if (auto existing = readLabelsFile(dir)) out = *existing;
    }
    Labels in = labels;
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (const char* key : {"system", "description", "notes", "name"}) {
        std::string* o = field(out, key);
        const std::string* n = field(in, key);
        if (!n->empty() || replace) *o = *n;
        if (!o->empty()) j[key] = *o;
    }
    writeFileAtomic(dir / kLabelsFileName, j.dump(2) + "\n", io);
}

std::string describeSystemFile(const fs::path& file) {
    YAML::Node root;
    try {
        root = YAML::LoadFile(file.string()); // JSON is YAML: one parser for v1.0's .json and v3.0's .yaml
    } catch (const std::exception&) {
        return {};
    }
    if (!root.IsMap()) return {};
    std::vector<std::string> parts;
    if (const auto sut = root["system_under_test"]; sut && sut.IsMap()) {
        // MLPerf Storage v3.0: system_under_test.solution, .clients
        const auto sol = sut["solution"];
        if (sol && sol.IsMap()) {
            parts.push_back(text(sol["friendly_description"]));
            if (const auto arch = sol["architecture"]; arch && arch.IsMap())
                parts.push_back(joinNonEmpty({text(arch["storage_location"]).empty() ? "" : text(arch["storage_location"]) + " storage",
                                              text(arch["product_API"]).empty() ? "" : text(arch["product_API"]) + " API"},
                                             ", "));
        }
        if (const auto clients = sut["clients"]; clients && clients.IsSequence() && clients.size() > 0) {
            std::string c = std::to_string(clients.size()) + (clients.size() == 1 ? " client" : " clients");
            if (clients[0].IsMap() && clients[0]["chassis"] && clients[0]["chassis"].IsMap())
                c += " (" + text(clients[0]["chassis"]["model_name"]) + ")";
            parts.push_back(c);
        }
        return joinNonEmpty(parts, "; ");
    }
    // MLPerf Storage v1.0: storage_system, networks, benchmark_hosts
    if (const auto ss = root["storage_system"]; ss && ss.IsMap()) {
        parts.push_back(joinNonEmpty({text(ss["vendor_name"]), text(ss["model_name"])}, " "));
        parts.push_back(text(ss["solution_type"]));
        if (const auto mo = ss["client_mount_options"]; mo && mo.IsSequence() && mo.size() > 0)
            parts.push_back("mount: " + text(mo[0]));
    }
    if (const auto nets = root["networks"]; nets && nets.IsSequence()) {
        std::vector<std::string> n;
        for (const auto& net : nets)
            if (net.IsMap()) n.push_back(joinNonEmpty({text(net["network_type"]), text(net["bitrate"]).empty() ? "" : text(net["bitrate"]) + " Gb/s"}, " "));
        parts.push_back(joinNonEmpty(n, ", "));
    }
    if (const auto hosts = root["benchmark_hosts"]; hosts && hosts.IsSequence()) {
        std::size_t clients = 0;
        for (const auto& h : hosts)
            if (h.IsMap() && text(h["node_type_name"]) == "Client") ++clients;
        if (clients) parts.push_back(std::to_string(clients) + (clients == 1 ? " client host" : " client hosts"));
    }
    return joinNonEmpty(parts, "; ");
}

} // namespace trainio::aggregate
