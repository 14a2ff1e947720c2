#include "config/config_loader.h"

#include "config/config_internal.h"
#include "config/config_keys.h"
#include "config/config_schema.h"
#include "util/errors.h"
#include "util/text.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace trainio {

using config_detail::expectationFor;
using config_detail::formatNumber;
using config_schema::KeyKind;

namespace {

bool startsWith(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

std::optional<double> parseDouble(const std::string& text) {
    std::string s = trim(text);
    if (!s.empty() && s[0] == '+') s.erase(0, 1);
    if (s.empty()) return std::nullopt;
    double v = 0;
    auto res = std::from_chars(s.data(), s.data() + s.size(), v);
    if (res.ec != std::errc() || res.ptr != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

// Whole numbers may be written as floats ("5.0", "1e3"), as OmegaConf and Python allow.
std::optional<long double> parseWhole(const std::string& text) {
    std::string s = trim(text);
    if (!s.empty() && s[0] == '+') s.erase(0, 1);
    long long i = 0;
    auto res = std::from_chars(s.data(), s.data() + s.size(), i);
    if (!s.empty() && res.ec == std::errc() && res.ptr == s.data() + s.size()) return static_cast<long double>(i);
    unsigned long long ui = 0;
    res = std::from_chars(s.data(), s.data() + s.size(), ui);
    if (!s.empty() && res.ec == std::errc() && res.ptr == s.data() + s.size()) return static_cast<long double>(ui);
    auto d = parseDouble(s);
    if (!d || *d != std::floor(*d)) return std::nullopt;
    return static_cast<long double>(*d);
}

std::optional<bool> parseBool(const std::string& text) {
    const std::string s = lower(trim(text));
    if (s == "true" || s == "yes" || s == "on" || s == "y" || s == "1") return true;
    if (s == "false" || s == "no" || s == "off" || s == "n" || s == "0") return false;
    return std::nullopt;
}

// A value as the messages show it: numbers and booleans bare, strings quoted, maps and lists in flow style.
std::string display(const YAML::Node& n) {
    if (!n.IsDefined() || n.IsNull()) return "null";
    if (n.IsScalar()) {
        const std::string& s = n.Scalar();
        if (parseDouble(s) || parseBool(s)) return s;
        return "'" + s + "'";
    }
    YAML::Emitter e;
    e.SetMapFormat(YAML::Flow);
    e.SetSeqFormat(YAML::Flow);
    e << n;
    return e.c_str();
}

std::string nodeKindName(const YAML::Node& n) {
    if (n.IsSequence()) return "a list";
    if (n.IsScalar()) return "a single value";
    if (n.IsNull()) return "empty";
    return "a map";
}

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        const int err = errno;
        throw InputError(path + ": cannot read the workload configuration: " + errnoText(err ? err : ENOENT));
    }
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw InputError(path + ": cannot read the workload configuration: " + errnoText(EISDIR));
    std::stringstream ss;
    ss << in.rdbuf();
    if (in.bad()) throw InputError(path + ": cannot read the workload configuration: " + errnoText(errno ? errno : EIO));
    return ss.str();
}

YAML::Node jsonToYaml(const nlohmann::json& j) {
    switch (j.type()) {
    case nlohmann::json::value_t::object: {
        YAML::Node m(YAML::NodeType::Map);
        for (auto it = j.begin(); it != j.end(); ++it) m[it.key()] = jsonToYaml(it.value());
        return m;
    }
    case nlohmann::json::value_t::array: {
        YAML::Node s(YAML::NodeType::Sequence);
        for (const auto& v : j) s.push_back(jsonToYaml(v));
        return s;
    }
    case nlohmann::json::value_t::string: return YAML::Node(j.get<std::string>());
    case nlohmann::json::value_t::null: return YAML::Node(YAML::NodeType::Null);
    case nlohmann::json::value_t::boolean: return YAML::Node(j.get<bool>() ? "true" : "false");
    case nlohmann::json::value_t::number_float: return YAML::Node(formatNumber(j.get<double>()));
    default: return YAML::Node(j.dump());
    }
}

bool looksLikeJson(const std::string& text, const std::string& sourceName) {
    if (lower(std::filesystem::path(sourceName).extension().string()) == ".json") return true;
    auto b = text.find_first_not_of(" \t\r\n");
    return b != std::string::npos && text[b] == '{';
}

std::string fileStem(const std::string& sourceName) { return std::filesystem::path(sourceName).stem().string(); }

// "unet3d_a100" → "a100" when the suffix is an accelerator TrainIO knows.
std::string acceleratorFromLabel(const std::string& label) {
    auto us = label.rfind('_');
    if (us == std::string::npos) return {};
    std::string acc = lower(label.substr(us + 1));
    const auto& known = config_keys::acceleratorNames();
    return std::find(known.begin(), known.end(), acc) != known.end() ? acc : std::string();
}

// A results folder's configs/config.yaml has its label in the sibling overrides.yaml:
// "- workload=unet3d_a100".
std::string acceleratorFromSiblingOverrides(const std::string& sourceName) {
    std::error_code ec;
    auto sibling = std::filesystem::path(sourceName).parent_path() / "overrides.yaml";
    if (!std::filesystem::is_regular_file(sibling, ec)) return {};
    try {
        for (const auto& raw : readOverrideList(readFile(sibling.string()), sibling.string()))
            if (const auto item = splitOverride(raw); item && item->key == "workload" && raw.find("++") == std::string::npos)
                return acceleratorFromLabel(item->value);
    } catch (const InputError&) {
        // Not a list of overrides: no label from it (the config itself is what is loaded).
    }
    return {};
}

// yaml-cpp's const operator[] yields an "invalid" node for a missing key, which throws when rebound;
// looking the key up by iteration always yields a valid (possibly Undefined) node.
YAML::Node child(const YAML::Node& map, const std::string& key) {
    if (map.IsMap()) {
        for (auto it = map.begin(); it != map.end(); ++it)
            if (it->first.IsScalar() && it->first.Scalar() == key) return it->second;
    }
    return YAML::Node(YAML::NodeType::Undefined);
}

class Loader {
public:
    explicit Loader(std::string source) : source_(std::move(source)) {}

    LoadedConfig run(const std::string& text, const std::vector<std::string>& overrides) {
        YAML::Node doc;
        if (!parseDocument(text, doc)) fail();
        YAML::Node root;
        if (!findRoot(doc, root)) fail();
        if (!holdsWorkloadSections(root)) fail();
        applyOverrides(root, overrides);
        reportUnknownKeys(root, "");
        WorkloadConfig cfg = interpret(root);
        cfg.sourcePath = source_;
        cfg.overrides = redactSecretOverrides(overrides);
        resolveAccelerator(cfg);
        for (const auto& i : config_detail::checkRanges(cfg)) error(writtenAs(i.key), i.value, "expected " + i.expected);
        dlioQuirks(cfg);
        if (!errors_.empty()) fail();
        return LoadedConfig{std::move(cfg), std::move(warnings_)};
    }

private:
    std::string source_;
    std::vector<ConfigDiagnostic> errors_;
    std::vector<ConfigDiagnostic> warnings_;
    std::map<std::string, int> lines_;          // key as written → 1-based line
    std::set<std::string> overridden_;          // keys set by an override
    std::map<std::string, std::string> written_; // canonical key → key as written
    std::string selectedWorkload_;              // from a "workload=<label>" override
    std::string accelerator_;

    [[noreturn]] void fail() {
        std::string all;
        for (const auto& e : errors_) {
            if (!all.empty()) all += '\n';
            all += e.message;
        }
        throw InputError(all);
    }

    std::string where(const std::string& key) const {
        for (std::string k = key;;) {
            if (overridden_.count(k)) return source_ + " (override)";
            auto dot = k.rfind('.');
            if (dot == std::string::npos) break;
            k.erase(dot);
        }
        auto it = lines_.find(key);
        if (it != lines_.end()) return source_ + ":" + std::to_string(it->second);
        return source_;
    }

    static std::string sentence(const std::string& where, const std::string& key, const std::string& value,
                                const std::string& text) {
        std::string m = where;
        if (!key.empty()) m += ": " + key;
        if (!key.empty() && !value.empty()) m += " = " + value;
        return m + ": " + text;
    }

    void error(const std::string& key, const std::string& value, const std::string& text) {
        errors_.push_back({key, value, sentence(where(key), key, value, text)});
    }
    void warn(const std::string& key, const std::string& value, const std::string& text) {
        warnings_.push_back({key, value, sentence(where(key), key, value, text)});
    }
    void fileError(const std::string& text) { errors_.push_back({"", "", source_ + ": " + text}); }

    std::string writtenAs(const std::string& canonical) const {
        auto it = written_.find(canonical);
        return it == written_.end() ? canonical : it->second;
    }

    // ---- document and root ----

    bool parseDocument(const std::string& text, YAML::Node& doc) {
        if (looksLikeJson(text, source_)) {
            try {
                doc = jsonToYaml(nlohmann::json::parse(text));
                return true;
            } catch (const nlohmann::json::parse_error& e) {
                // A YAML flow map also starts with '{': only a .json file must be JSON.
                if (lower(std::filesystem::path(source_).extension().string()) == ".json") {
                    fileError(std::string("JSON syntax error: ") + e.what());
                    return false;
                }
            }
        }
        try {
            doc = YAML::Load(text);
            return true;
        } catch (const YAML::ParserException& e) {
            fileError("YAML syntax error at line " + std::to_string(e.mark.line + 1) + ", column " +
                      std::to_string(e.mark.column + 1) + ": " + e.msg);
        } catch (const YAML::Exception& e) {
            fileError(std::string("YAML error: ") + e.what());
        }
        return false;
    }

    bool findRoot(const YAML::Node& doc, YAML::Node& root) {
        const std::string expected = "expected a map of DLIO workload sections (model, framework, dataset, reader, train, …)";
        if (!doc.IsDefined() || doc.IsNull()) {
            fileError("the file holds no workload configuration (it is empty): " + expected);
            return false;
        }
        if (!doc.IsMap()) {
            fileError("the document is " + nodeKindName(doc) + " (" + display(doc) + "): " + expected);
            return false;
        }
        // A Hydra-resolved config.yaml holds the workload under "workload:", next to Hydra's own keys.
        if (YAML::Node w = child(doc, "workload"); w.IsDefined()) {
            if (!w.IsMap()) {
                lines_["workload"] = w.Mark().is_null() ? 0 : w.Mark().line + 1;
                error("workload", display(w), expected);
                return false;
            }
            recordLines(w, ""); // before cloning: clones carry no line marks
            root.reset(YAML::Clone(w));
            for (auto it = doc.begin(); it != doc.end(); ++it) {
                const std::string k = it->first.Scalar();
                if (k != "workload" && k != "hydra" && k != "defaults")
                    warn(k, "", "unknown top-level key next to workload:, ignored");
            }
            return true;
        }
        recordLines(doc, "");
        root.reset(YAML::Clone(doc));
        return true;
    }

    // A map with none of DLIO's sections is some other YAML (DLIO's own Hydra config.yaml, a
    // docker-compose file…), not a workload with every key misspelt.
    bool holdsWorkloadSections(const YAML::Node& root) {
        for (auto it = root.begin(); it != root.end(); ++it)
            if (it->first.IsScalar() && config_schema::lookup(it->first.Scalar())) return true;
        if (root.size() == 0) {
            fileError("the file holds no workload configuration (an empty map): expected a map of DLIO workload sections "
                      "(model, framework, dataset, reader, train, …)");
        } else {
            fileError("the file holds none of the DLIO workload sections (model, framework, dataset, reader, train, …): "
                      "expected a DLIO workload file");
        }
        return false;
    }

    void recordLines(const YAML::Node& map, const std::string& prefix) {
        if (!map.IsMap()) return;
        for (auto it = map.begin(); it != map.end(); ++it) {
            if (!it->first.IsScalar()) continue;
            const std::string path = prefix.empty() ? it->first.Scalar() : prefix + "." + it->first.Scalar();
            if (!it->first.Mark().is_null()) lines_[path] = it->first.Mark().line + 1;
            recordLines(it->second, path);
        }
    }

    // ---- overrides ----

    // Accepts ++workload.a.b=v, +workload.a.b=v, workload.a.b=v, ~workload.a.b (delete); the "workload."
    // prefix may be left out for a known section. "workload=<label>" picks the workload Hydra-style.
    void applyOverrides(YAML::Node& root, const std::vector<std::string>& overrides) {
        const std::string form = "expected ++workload.<section>.<key>=<value>";
        for (const auto& raw : overrides) {
            const auto item = splitOverride(raw);
            if (!item) {
                std::string s = trim(raw);
                while (!s.empty() && s[0] == '+') s.erase(0, 1);
                errors_.push_back({s, "", source_ + ": override '" + raw + "': missing '=<value>': " + form});
                continue;
            }
            const bool remove = item->remove;
            std::string key = item->key;
            const std::string& valueText = item->valueText;
            if (key == "workload") {
                selectedWorkload_ = trim(valueText);
                continue;
            }
            if (key.empty() || key.find("..") != std::string::npos || key.back() == '.' || key.front() == '.') {
                errors_.push_back({key, "", source_ + ": override '" + raw + "': malformed key: " + form});
                continue;
            }
            if (!knownPath(key)) {
                std::string hint = config_schema::suggest(key);
                errors_.push_back({key, "", source_ + ": override '" + raw + "': " + key + ": unknown key" +
                                                (hint.empty() ? "" : " (did you mean " + hint + "?)")});
                continue;
            }
            YAML::Node value;
            if (!remove) {
                if (trim(valueText).empty()) {
                    value = YAML::Node(std::string());
                } else {
                    try {
                        value = YAML::Load(valueText);
                    } catch (const YAML::Exception& e) {
                        errors_.push_back({key, valueText, source_ + ": override '" + raw + "': " + key + " = '" +
                                                               valueText + "': the value is not valid YAML: " + e.msg});
                        continue;
                    }
                }
            }
            std::string problem = setPath(root, key, value, remove);
            if (!problem.empty()) {
                errors_.push_back({key, valueText, source_ + ": override '" + raw + "': " + problem});
                continue;
            }
            overridden_.insert(key);
        }
    }

    static bool knownPath(const std::string& path) {
        if (config_schema::lookup(path)) return true;
        // Inside a free-form DLIO map or a computation_time distribution map.
        for (std::string p = path; p.find('.') != std::string::npos;) {
            p.erase(p.rfind('.'));
            auto kind = config_schema::lookup(p);
            if (!kind) continue;
            if (*kind == KeyKind::OpenIgnored) return true;
            if (*kind == KeyKind::TimeSpec) {
                const auto& keys = config_schema::timeSpecKeys();
                return std::find(keys.begin(), keys.end(), path.substr(p.size() + 1)) != keys.end();
            }
            return false;
        }
        return false;
    }

    static std::string setPath(YAML::Node& root, const std::string& path, const YAML::Node& value, bool remove) {
        std::vector<std::string> parts;
        std::stringstream ss(path);
        for (std::string p; std::getline(ss, p, '.');) parts.push_back(p);
        YAML::Node cur;
        cur.reset(root);
        std::string sofar;
        for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
            sofar += (sofar.empty() ? "" : ".") + parts[i];
            YAML::Node next = cur[parts[i]];
            if (!next.IsDefined() || next.IsNull()) {
                if (remove) return {};
                cur[parts[i]] = YAML::Node(YAML::NodeType::Map);
                next.reset(cur[parts[i]]);
            } else if (next.IsScalar() && (sofar == "model" || config_schema::lookup(sofar) == KeyKind::TimeSpec)) {
                // v1.0's "model: unet3d" and "computation_time: 0.5" become maps when a member is set.
                YAML::Node m(YAML::NodeType::Map);
                m[sofar == "model" ? "name" : "mean"] = next.Scalar();
                cur[parts[i]] = m;
                next.reset(cur[parts[i]]);
            } else if (!next.IsMap()) {
                return "cannot set " + path + ": " + sofar + " is " + nodeKindName(next) + ", not a map";
            }
            cur.reset(next);
        }
        if (remove) {
            cur.remove(parts.back());
        } else {
            cur[parts.back()] = value;
        }
        return {};
    }

    // ---- unknown keys ----

    void reportUnknownKeys(const YAML::Node& map, const std::string& prefix) {
        for (auto it = map.begin(); it != map.end(); ++it) {
            const std::string name = it->first.IsScalar() ? it->first.Scalar() : display(it->first);
            const std::string path = prefix.empty() ? name : prefix + "." + name;
            auto kind = config_schema::lookup(path);
            if (!kind) {
                std::string hint = config_schema::suggest(path);
                warn(path, display(it->second),
                     hint.empty() ? "unknown key, ignored" : "unknown key, ignored (did you mean " + hint + "?)");
                continue;
            }
            if (*kind == KeyKind::Section && it->second.IsMap()) {
                reportUnknownKeys(it->second, path);
            } else if (*kind == KeyKind::TimeSpec && it->second.IsMap()) {
                const auto& keys = config_schema::timeSpecKeys();
                for (auto jt = it->second.begin(); jt != it->second.end(); ++jt) {
                    const std::string sub = jt->first.Scalar();
                    if (std::find(keys.begin(), keys.end(), sub) == keys.end())
                        warn(path + "." + sub, display(jt->second),
                             "unknown key, ignored (expected one of " + config_detail::joinNames(keys) + ")");
                }
            }
        }
    }

    // ---- typed reads ----

    // The node for section.key, or an undefined node. Records which spelling the user chose.
    YAML::Node get(const YAML::Node& root, const std::string& path, const std::string& canonical = {}) {
        YAML::Node cur;
        cur.reset(root);
        // Every key of the table is looked up here: split without a stream (a load reads ~100 keys).
        for (std::size_t start = 0, i = 0; start <= path.size(); ++i) {
            std::size_t dot = path.find('.', start);
            if (dot == std::string::npos) dot = path.size();
            const std::string part = path.substr(start, dot - start);
            start = dot + 1;
            if (!cur.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
            YAML::Node next = child(cur, part);
            if (!next.IsDefined() && i == 0 && part == "reader") next.reset(child(cur, "data_reader"));
            if (!next.IsDefined()) return YAML::Node(YAML::NodeType::Undefined);
            cur.reset(next);
        }
        written_[canonical.empty() ? path : canonical] = path;
        return cur;
    }

    bool scalarOrError(const YAML::Node& n, const std::string& key, const std::string& expected) {
        if (n.IsScalar()) return true;
        error(key, display(n), "expected " + expected);
        return false;
    }

    std::optional<std::string> readString(const YAML::Node& root, const std::string& key, const std::string& expected) {
        YAML::Node n = get(root, key);
        if (!n.IsDefined()) return std::nullopt;
        if (!scalarOrError(n, key, expected)) return std::nullopt;
        return n.Scalar();
    }

    std::optional<bool> readBool(const YAML::Node& root, const std::string& key) {
        YAML::Node n = get(root, key);
        if (!n.IsDefined()) return std::nullopt;
        if (!scalarOrError(n, key, "true or false")) return std::nullopt;
        auto b = parseBool(n.Scalar());
        if (!b) error(key, display(n), "expected true or false");
        return b;
    }

    // A whole number; negative values are refused here because the fields are unsigned, except -1 where
    // DLIO uses it for "unset" (allowMinusOne → 0).
    std::optional<std::uint64_t> readWhole(const YAML::Node& root, const std::string& key,
                                           const std::string& canonical = {}, bool allowMinusOne = false) {
        const std::string canon = canonical.empty() ? key : canonical;
        YAML::Node n = get(root, key, canon);
        if (!n.IsDefined()) return std::nullopt;
        const std::string expected = "expected " + expectationFor(canon);
        if (!scalarOrError(n, key, expectationFor(canon))) return std::nullopt;
        auto v = parseWhole(n.Scalar());
        if (!v) {
            error(key, display(n), expected);
            return std::nullopt;
        }
        if (*v < 0) {
            if (allowMinusOne && *v == -1) return 0;
            error(key, display(n), expected);
            return std::nullopt;
        }
        if (*v > static_cast<long double>(std::numeric_limits<std::uint64_t>::max())) {
            error(key, display(n), expected + " (the value is too large)");
            return std::nullopt;
        }
        return static_cast<std::uint64_t>(*v);
    }

    std::optional<double> readNumber(const YAML::Node& root, const std::string& key, const std::string& canonical = {}) {
        const std::string canon = canonical.empty() ? key : canonical;
        YAML::Node n = get(root, key, canon);
        if (!n.IsDefined()) return std::nullopt;
        if (!scalarOrError(n, key, expectationFor(canon))) return std::nullopt;
        auto v = parseDouble(n.Scalar());
        if (!v) error(key, display(n), "expected " + expectationFor(canon));
        return v;
    }

    // A whole number that may be negative (DLIO's -1 = "unset"); the range check says what is allowed.
    std::optional<std::int64_t> readInteger(const YAML::Node& root, const std::string& key) {
        YAML::Node n = get(root, key);
        if (!n.IsDefined()) return std::nullopt;
        if (!scalarOrError(n, key, expectationFor(key))) return std::nullopt;
        auto v = parseWhole(n.Scalar());
        if (!v || *v < static_cast<long double>(std::numeric_limits<std::int64_t>::min()) ||
            *v > static_cast<long double>(std::numeric_limits<std::int64_t>::max())) {
            error(key, display(n), "expected " + expectationFor(key));
            return std::nullopt;
        }
        return static_cast<std::int64_t>(*v);
    }

    // A list of whole numbers >= 0 (model.layer_parameters, model.optimization_groups).
    std::optional<std::vector<std::uint64_t>> readWholeList(const YAML::Node& root, const std::string& key) {
        YAML::Node n = get(root, key);
        if (!n.IsDefined() || n.IsNull()) return std::nullopt;
        const std::string expected = "expected a list of whole numbers >= 0, such as [4096, 1024]";
        if (!n.IsSequence()) {
            error(key, display(n), expected);
            return std::nullopt;
        }
        std::vector<std::uint64_t> out;
        for (const auto& item : n) {
            std::optional<long double> v = item.IsScalar() ? parseWhole(item.Scalar()) : std::nullopt;
            if (!v || *v < 0 || *v > static_cast<long double>(std::numeric_limits<std::uint64_t>::max())) {
                error(key, display(n), expected + " (" + display(item) + " is not)");
                return std::nullopt;
            }
            out.push_back(static_cast<std::uint64_t>(*v));
        }
        return out;
    }

    // Every key of the table that has no reading of its own beside it: its type says how it is read.
    void readTableKeys(const YAML::Node& root, WorkloadConfig& c) {
        using config_keys::Type;
        for (const auto& k : config_keys::all()) {
            if (!k.field || k.kind != KeyKind::Used || k.has(config_keys::CustomRead) || k.has(config_keys::NotAKey))
                continue;
            std::optional<config_keys::Value> v;
            switch (k.type) {
            case Type::Bool:
                if (auto b = readBool(root, k.path)) v = *b;
                break;
            case Type::Whole:
                if (auto w = readWhole(root, k.path, {}, k.has(config_keys::MinusOneIsZero))) v = *w;
                break;
            case Type::Integer:
                if (auto i = readInteger(root, k.path)) v = *i;
                break;
            case Type::Number:
            case Type::Bytes:
            case Type::Seconds:
            case Type::Milliseconds:
            case Type::Fraction:
                if (auto x = readNumber(root, k.path)) v = *x;
                break;
            case Type::Text:
                if (auto s = readString(root, k.path, k.expected)) v = *s;
                break;
            case Type::Choice:
                // The validator checks the value against the table's choices.
                if (auto s = readString(root, k.path, config_keys::choiceText(k)))
                    v = k.has(config_keys::CaseInsensitive) ? lower(trim(*s)) : *s;
                break;
            case Type::WholeList:
                if (auto l = readWholeList(root, k.path)) v = *l;
                break;
            case Type::Section:
            case Type::TimeSpec:
            case Type::Map:
            case Type::Any: break;
            }
            if (v) k.field.set(c, *v);
        }
    }

    // trainio.storage.latency_ms: a bare number is a constant latency, a map names its distribution.
    void readLatency(const YAML::Node& root, LatencySpec& l) {
        const YAML::Node lat = get(root, "trainio.storage.latency_ms");
        if (lat.IsDefined() && lat.IsScalar()) {
            if (auto v = readNumber(root, "trainio.storage.latency_ms", "trainio.storage.latency_ms.value")) {
                l.type = "constant";
                l.value = *v;
            }
        } else if (lat.IsDefined()) {
            if (auto t = readString(root, "trainio.storage.latency_ms.type", "one of " + config_detail::joinNames(config_detail::latencyTypeNames())))
                l.type = lower(trim(*t));
            for (auto [name, field] : {std::pair{"value", &l.value}, {"mean", &l.mean}, {"stdev", &l.stdev},
                                       {"median", &l.median}, {"sigma", &l.sigma}}) {
                const std::string key = std::string("trainio.storage.latency_ms.") + name;
                set(*field, readNumber(root, key));
            }
        }
    }

    // Both key generations: record_length (v1.0) and record_length_bytes (later). The later one wins,
    // with a warning when both are there and disagree.
    std::optional<double> readEitherNumber(const YAML::Node& root, const std::string& oldKey, const std::string& newKey) {
        auto oldV = readNumber(root, oldKey, newKey);
        auto newV = readNumber(root, newKey, newKey);
        if (newV) {
            if (oldV && *oldV != *newV)
                warn(newKey, formatNumber(*newV), "also given as " + oldKey + " = " + formatNumber(*oldV) + "; using " + newKey);
            return newV;
        }
        return oldV;
    }

    void readShuffle(const YAML::Node& root, const std::string& key, ShuffleMode& out) {
        YAML::Node n = get(root, key);
        if (!n.IsDefined()) return;
        const std::string expected = "expected off, seed or random";
        if (!scalarOrError(n, key, "off, seed or random")) return;
        if (auto m = config_detail::parseShuffle(lower(trim(n.Scalar())))) {
            out = *m;
            return;
        }
        // YAML 1.1 loaders (PyYAML, OmegaConf) turn a bare "off" into false; DLIO then sees False.
        if (auto b = parseBool(n.Scalar()); b && !*b) {
            out = ShuffleMode::Off;
            return;
        }
        error(key, display(n), expected);
    }

    void readTime(const YAML::Node& root, const std::string& key, ComputeTime& out) {
        YAML::Node n = get(root, key);
        ComputeTime t;
        bool given = false;
        if (n.IsDefined() && !n.IsNull()) {
            given = true;
            if (n.IsScalar()) {
                auto v = parseDouble(n.Scalar());
                if (!v) {
                    error(key, display(n), "expected a number of seconds >= 0, or a distribution map (mean/stdev, "
                                           "type: uniform with min/max, type: gamma with shape/scale, type: exponential with scale)");
                    return;
                }
                t.mean = *v;
            } else if (n.IsMap()) {
                if (!readTimeMap(n, key, t)) return;
            } else {
                error(key, display(n), "expected a number of seconds or a distribution map");
                return;
            }
        }
        // DLIO's separate "<key>_stdev" adds a stdev to whatever computation_time gave.
        if (auto sd = readNumber(root, key + "_stdev", key + "_stdev")) {
            if (t.distribution == ComputeDistribution::Constant || t.distribution == ComputeDistribution::Normal) {
                t.stdev = *sd;
                written_[key + ".stdev"] = key + "_stdev";
                if (*sd != 0 || t.distribution == ComputeDistribution::Normal) t.distribution = ComputeDistribution::Normal;
            }
            given = true;
        }
        if (given) out = t;
    }

    bool readTimeMap(const YAML::Node& n, const std::string& key, ComputeTime& t) {
        auto num = [&](const char* member) -> std::optional<double> {
            YAML::Node v = child(n, member);
            if (!v.IsDefined()) return std::nullopt;
            const std::string k = key + "." + member;
            written_[k] = k;
            std::optional<double> d = v.IsScalar() ? parseDouble(v.Scalar()) : std::nullopt;
            if (!d) error(k, display(v), "expected a number");
            return d;
        };
        bool ok = true;
        auto need = [&](const char* member, const std::string& type, double& field) {
            if (!child(n, member).IsDefined()) {
                error(key, display(n), "expected " + std::string(member) + " for type: " + type);
                ok = false;
                return;
            }
            if (auto v = num(member)) field = *v; else ok = false;
        };
        const YAML::Node typeNode = child(n, "type");
        if (typeNode.IsDefined()) {
            const std::string type = typeNode.IsScalar() ? lower(trim(typeNode.Scalar())) : display(typeNode);
            auto dist = config_detail::parseDistribution(type);
            if (!dist) {
                written_[key + ".type"] = key + ".type";
                error(key + ".type", display(typeNode),
                      type == "poisson" ? "expected normal, uniform, gamma or exponential (TrainIO does not emulate DLIO's poisson)"
                                        : "expected normal, uniform, gamma or exponential");
                return false;
            }
            t.distribution = *dist;
            switch (*dist) {
            case ComputeDistribution::Normal: need("mean", type, t.mean); need("stdev", type, t.stdev); break;
            case ComputeDistribution::Uniform: need("min", type, t.min); need("max", type, t.max); break;
            case ComputeDistribution::Gamma: need("shape", type, t.shape); need("scale", type, t.scale); break;
            case ComputeDistribution::Exponential: need("scale", type, t.scale); break;
            case ComputeDistribution::Constant: break;
            }
            return ok;
        }
        // Without "type", DLIO knows only mean (constant) and mean + stdev (normal); it sleeps 0 for the
        // other shapes. TrainIO infers them and says so, because sleeping 0 is surely not what was meant.
        if (child(n, "mean").IsDefined()) {
            if (auto v = num("mean")) t.mean = *v; else return false;
            if (child(n, "stdev").IsDefined()) {
                if (auto v = num("stdev")) t.stdev = *v; else return false;
                t.distribution = ComputeDistribution::Normal;
            }
            return true;
        }
        if (child(n, "min").IsDefined() && child(n, "max").IsDefined()) {
            t.distribution = ComputeDistribution::Uniform;
            need("min", "uniform", t.min);
            need("max", "uniform", t.max);
            if (ok) warn(key, display(n), "no type given: read as type: uniform (DLIO itself needs type: uniform and would not sleep)");
            return ok;
        }
        if (child(n, "shape").IsDefined() && child(n, "scale").IsDefined()) {
            t.distribution = ComputeDistribution::Gamma;
            need("shape", "gamma", t.shape);
            need("scale", "gamma", t.scale);
            if (ok) warn(key, display(n), "no type given: read as type: gamma (DLIO itself needs type: gamma and would not sleep)");
            return ok;
        }
        error(key, display(n),
              "expected mean (with an optional stdev), or type: normal|uniform|gamma|exponential with its parameters");
        return false;
    }

    template <class T, class V>
    static void set(T& field, const std::optional<V>& v) {
        if (v) field = static_cast<T>(*v);
    }

    // ---- the sections ----

    WorkloadConfig interpret(const YAML::Node& root) {
        WorkloadConfig c = dlioDefaultConfig();
        for (const auto& k : config_keys::all()) {
            // v1.0's "model: unet3d" and a bare latency number are scalars of their own.
            if (k.kind != KeyKind::Section || k.path == "model" || k.path == "trainio.storage.latency_ms") continue;
            YAML::Node n = get(root, k.path);
            if (n.IsDefined() && !n.IsMap() && !n.IsNull())
                error(k.path, display(n), "expected a map of " + k.path + " keys");
        }

        readTableKeys(root, c);

        // What the table cannot say: the v1.0 scalar model, the format's refusals, both key generations,
        // shuffle's YAML-1.1 false, DLIO's null transfer size, the time distributions.
        YAML::Node model = get(root, "model");
        if (model.IsDefined()) {
            if (model.IsScalar()) {
                c.model.name = model.Scalar();
                written_["model.name"] = "model";
            } else if (model.IsMap()) {
                set(c.model.name, readString(root, "model.name", "a model name"));
                set(c.model.type, readString(root, "model.type", "a model type such as cnn or transformer"));
            } else {
                error("model", display(model), "expected a model name, or a map with name and type");
            }
        }
        if (auto a = readString(root, "accelerator", "an accelerator name such as a100, h100, b200")) accelerator_ = lower(trim(*a));

        auto& d = c.dataset;
        if (auto f = readString(root, "dataset.format", "a format name")) {
            if (auto fmt = config_detail::parseFormat(lower(trim(*f)))) {
                d.format = *fmt;
            } else if (lower(trim(*f)) == "parquet") {
                // MLPerf Storage v3.0's flux and dlrm workloads on b200/mi355 read Parquet.
                error("dataset.format", display(get(root, "dataset.format")),
                      "Parquet is not supported: Debian 12 has no Parquet/Arrow library to write and read it with "
                      "(expected one of " + config_detail::joinNames(config_detail::formatNames()) + ")");
            } else {
                error("dataset.format", display(get(root, "dataset.format")),
                      "expected one of " + config_detail::joinNames(config_detail::formatNames()) +
                          " (the formats TrainIO can write and read)");
            }
        }
        set(d.recordLength, readEitherNumber(root, "dataset.record_length", "dataset.record_length_bytes"));
        set(d.recordLengthStdev, readEitherNumber(root, "dataset.record_length_stdev", "dataset.record_length_bytes_stdev"));
        set(d.recordLengthResize, readEitherNumber(root, "dataset.record_length_resize", "dataset.record_length_bytes_resize"));

        auto& r = c.reader;
        readShuffle(root, "reader.file_shuffle", r.fileShuffle);
        readShuffle(root, "reader.sample_shuffle", r.sampleShuffle);
        // DLIO's default is None (the loader's own buffer); null keeps TrainIO's 256 KiB.
        if (YAML::Node ts = get(root, "reader.transfer_size"); ts.IsDefined() && !ts.IsNull())
            set(r.transferSize, readWhole(root, "reader.transfer_size"));

        for (auto [key, time] : {std::pair{"train.computation_time", &c.train.computationTime}, {"evaluation.eval_time", &c.evaluation.evalTime},
                                 {"reader.preprocess_time", &c.reader.preprocessTime}, {"trainio.handover_time", &c.trainio.handoverTime},
                                 {"trainio.preprocess_cpu_time", &c.trainio.preprocessCpuTime}})
            readTime(root, key, *time);
        // v1.0 spells the model size checkpoint.model_size; later DLIO model.model_size_bytes (which wins).
        auto& k = c.checkpoint;
        if (auto v = readNumber(root, "model.model_size_bytes", "model.model_size_bytes")) {
            k.modelSize = *v;
        } else if (auto old = readNumber(root, "checkpoint.model_size", "model.model_size_bytes")) {
            k.modelSize = *old;
        }
        c.model.modelSizeBytes = k.modelSize;
        readLatency(root, c.trainio.storage.latencyMs);
        // DLIO's reader.odirect keeps its meaning: the O_DIRECT engine.
        if (c.reader.odirect && c.trainio.ioEngine == "posix") c.trainio.ioEngine = "odirect";
        return c;
    }

    void resolveAccelerator(WorkloadConfig& cfg) {
        std::string fromFile = acceleratorFromLabel(fileStem(source_));
        if (fromFile.empty()) fromFile = acceleratorFromSiblingOverrides(source_);
        cfg.accelerator = !accelerator_.empty() ? accelerator_ : fromFile;
        if (!selectedWorkload_.empty()) {
            // "workload=<label>" from an MLPerf overrides.yaml: it must name this workload.
            const std::string acc = acceleratorFromLabel(selectedWorkload_);
            const std::string model = acc.empty() ? selectedWorkload_
                                                  : selectedWorkload_.substr(0, selectedWorkload_.size() - acc.size() - 1);
            if (model != cfg.model.name && model != mlperfModelLabel(cfg.model.name)) {
                errors_.push_back({"workload", selectedWorkload_,
                                   source_ + ": override 'workload=" + selectedWorkload_ + "': this file holds the " +
                                       cfg.model.name + " workload: expected workload=" + cfg.model.name +
                                       "[_<accelerator>] (use --config " + selectedWorkload_ + " to pick a preset)"});
            } else if (!acc.empty() && accelerator_.empty()) {
                cfg.accelerator = acc;
            }
        }
    }

    // Combinations DLIO itself refuses; TrainIO can emulate them, so it only warns.
    void dlioQuirks(const WorkloadConfig& c) {
        // Only when it reads the dataset (the fork's utils/config.py line 382: do_train or do_eval).
        if (c.dataset.format == DataFormat::Tfrecord && c.reader.dataLoader == "pytorch" &&
            (c.workflow.train || c.workflow.evaluation))
            warn(writtenAs("reader.data_loader"), "'pytorch'", "DLIO refuses tfrecord with the pytorch data loader");
        // Only a data_loader the file names: DLIO's default is the string "tensorflow", which its check
        // compares with the enum DataLoaderType.TENSORFLOW and so never refuses (the fork's utils/config.py,
        // lines 209 and 386-388) — the round's checkpointing configs have no reader section at all.
        const bool loaderGiven = written_.count("reader.data_loader") > 0;
        if (loaderGiven && ((c.framework == "tensorflow" && c.reader.dataLoader == "pytorch") ||
                            (c.framework == "pytorch" && c.reader.dataLoader == "tensorflow")))
            warn(writtenAs("reader.data_loader"), "'" + c.reader.dataLoader + "'",
                 "DLIO refuses data_loader " + c.reader.dataLoader + " with framework " + c.framework);
        // The fork's utils/config.py line 458; TrainIO takes the data parallelism from the rank count.
        if (c.model.parallelism.data > 0 && c.checkpoint.mode == "default")
            warn(writtenAs("model.parallelism.data"), std::to_string(c.model.parallelism.data),
                 "DLIO refuses a data parallelism in checkpoint.mode default (it is the number of ranks; set it "
                 "only with checkpoint.mode: subset)");
        if (c.reader.odirect && c.dataset.format != DataFormat::Npz && c.dataset.format != DataFormat::Npy)
            warn(writtenAs("reader.odirect"), "true", "DLIO supports odirect for npz and npy only");
    }
};

// The scalars of a resolved config, flattened (flattenConfigYaml).
void flattenNode(const YAML::Node& n, const std::string& key, int depth, const std::string& source,
                 std::vector<std::pair<std::string, std::string>>& out) {
    if (depth > 64) throw InputError(source + ": " + key + ": nested deeper than 64 levels");
    if (n.IsMap()) {
        for (auto it = n.begin(); it != n.end(); ++it) {
            if (!it->first.IsScalar()) continue; // a complex key: not something a config holds
            flattenNode(it->second, key.empty() ? it->first.Scalar() : key + "." + it->first.Scalar(), depth + 1, source, out);
        }
        return;
    }
    if (key.empty()) return;
    const std::string k = startsWith(key, "workload.") ? key.substr(9) : key;
    if (n.IsScalar()) {
        out.emplace_back(k, n.Scalar());
    } else if (n.IsNull()) {
        out.emplace_back(k, "null");
    } else if (n.IsSequence()) {
        YAML::Emitter e;
        e << YAML::Flow << n;
        out.emplace_back(k, e.c_str());
    }
}

// A run folder's YAML file parsed; InputError naming it and the line otherwise.
YAML::Node loadRunFolderYaml(const std::string& text, const std::string& sourceName) {
    try {
        return YAML::Load(text);
    } catch (const YAML::ParserException& e) {
        throw InputError(sourceName + ": YAML syntax error at line " + std::to_string(e.mark.line + 1) + ", column " +
                         std::to_string(e.mark.column + 1) + ": " + e.msg);
    } catch (const YAML::Exception& e) {
        throw InputError(sourceName + ": YAML error: " + e.what());
    }
}

} // namespace

std::vector<std::pair<std::string, std::string>> flattenConfigYaml(const std::string& text, const std::string& sourceName) {
    const YAML::Node doc = loadRunFolderYaml(text, sourceName);
    if (!doc.IsMap())
        throw InputError(sourceName + ": the document is " + nodeKindName(doc) + ": expected a map of configuration keys");
    std::vector<std::pair<std::string, std::string>> out;
    flattenNode(doc, "", 0, sourceName, out);
    return out;
}

std::vector<std::string> readOverrideList(const std::string& text, const std::string& sourceName) {
    const YAML::Node doc = loadRunFolderYaml(text, sourceName);
    std::vector<std::string> out;
    if (!doc.IsDefined() || doc.IsNull()) return out;
    if (!doc.IsSequence())
        throw InputError(sourceName + ": the document is " + nodeKindName(doc) + ": expected a list of overrides (- key=value)");
    for (std::size_t i = 0; i < doc.size(); ++i) {
        if (!doc[i].IsScalar())
            throw InputError(sourceName + ": item " + std::to_string(i + 1) + " is " + nodeKindName(doc[i]) +
                             ": expected an override string (key=value)");
        out.push_back(doc[i].Scalar());
    }
    return out;
}

std::optional<OverrideItem> splitOverride(const std::string& raw) {
    std::string s = trim(raw);
    OverrideItem item;
    if (startsWith(s, "~")) {
        item.remove = true;
        s.erase(0, 1);
    } else if (startsWith(s, "++")) {
        s.erase(0, 2);
    } else if (startsWith(s, "+")) {
        s.erase(0, 1);
    }
    const auto eq = s.find('=');
    if (eq == std::string::npos && !item.remove) return std::nullopt;
    item.key = trim(s.substr(0, eq == std::string::npos ? s.size() : eq));
    if (item.key != "workload" && startsWith(item.key, "workload.")) item.key.erase(0, 9);
    item.valueText = eq == std::string::npos ? std::string() : s.substr(eq + 1);
    item.value = trim(item.valueText);
    // A quoted value ('a b', "x") is the string inside, as YAML reads it.
    if (item.value.size() >= 2 && (item.value.front() == '"' || item.value.front() == '\'') && item.value.back() == item.value.front()) {
        try {
            const YAML::Node v = YAML::Load(item.value);
            if (v.IsScalar()) item.value = v.Scalar();
        } catch (const YAML::Exception&) {
            // Not valid YAML quoting: kept as written.
        }
    }
    return item;
}

WorkloadConfig dlioDefaultConfig() {
    WorkloadConfig c;
    // DLIO's ConfigArguments defaults where the plain struct differs.
    c.framework = "tensorflow";
    c.reader.dataLoader = "tensorflow";
    c.checkpoint.afterEpoch = 1;
    c.checkpoint.epochsBetween = 1;
    c.checkpoint.stepsBetween = 0; // DLIO's -1: off
    c.checkpoint.modelSize = 10240;
    c.model.modelSizeBytes = 10240;
    c.train.totalTrainingSteps = 0; // DLIO's -1: the whole dataset
    return c;
}

LoadedConfig loadWorkloadConfigFromString(const std::string& text, const std::string& sourceName,
                                          const std::vector<std::string>& overrides) {
    return Loader(sourceName).run(text, overrides);
}

LoadedConfig loadWorkloadConfig(const std::string& path, const std::vector<std::string>& overrides) {
    const std::string text = readFile(path);
    return Loader(path).run(text, overrides);
}

} // namespace trainio
