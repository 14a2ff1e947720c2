#include "config/config_schema.h"

#include "config/config_keys.h"

#include <algorithm>
#include <map>

namespace trainio::config_schema {

namespace {

// Derived from the one table of keys (config_keys.cpp): every key and its DLIO 1.0 spelling, except
// distribution members and run settings, which are not keys of a workload file.
const std::vector<KeyInfo>& table() {
    static const std::vector<KeyInfo> keys = [] {
        std::vector<KeyInfo> out;
        for (const auto& k : config_keys::all()) {
            if (k.has(config_keys::NotAKey)) continue;
            out.push_back({k.path, k.kind});
            if (!k.oldPath.empty()) out.push_back({k.oldPath, k.kind});
        }
        return out;
    }();
    return keys;
}

const std::map<std::string, KeyKind>& index() {
    static const std::map<std::string, KeyKind> m = [] {
        std::map<std::string, KeyKind> out;
        for (const auto& k : table()) out.emplace(k.path, k.kind);
        return out;
    }();
    return m;
}

std::string canonicalSection(const std::string& path) {
    static const std::string alias = "data_reader";
    if (path.compare(0, alias.size(), alias) == 0 && (path.size() == alias.size() || path[alias.size()] == '.'))
        return "reader" + path.substr(alias.size());
    return path;
}

std::string parentOf(const std::string& path) {
    auto dot = path.rfind('.');
    return dot == std::string::npos ? std::string() : path.substr(0, dot);
}

std::string leafOf(const std::string& path) {
    auto dot = path.rfind('.');
    return dot == std::string::npos ? path : path.substr(dot + 1);
}

} // namespace

std::optional<KeyKind> lookup(const std::string& path) {
    const auto& m = index();
    auto it = m.find(canonicalSection(path));
    if (it == m.end()) return std::nullopt;
    return it->second;
}

const std::vector<std::string>& timeSpecKeys() {
    static const std::vector<std::string> keys = {"mean", "stdev", "min", "max", "shape", "scale", "type", "lam"};
    return keys;
}

std::size_t editDistance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
        }
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

std::string suggest(const std::string& unknownPath) {
    const std::string path = canonicalSection(unknownPath);
    const std::string parent = parentOf(path);
    const std::string leaf = leafOf(path);
    // A key in the right section with a small typo is the likeliest intent; a key with exactly this
    // name in another section (reader.epochs → train.epochs) comes next; then a typo in the section.
    std::string best;
    std::size_t bestScore = std::string::npos;
    for (const auto& k : table()) {
        std::size_t score;
        if (parentOf(k.path) == parent) {
            score = editDistance(leaf, leafOf(k.path));
        } else if (leafOf(k.path) == leaf) {
            score = 1;
        } else {
            score = editDistance(path, k.path) + 1;
        }
        if (score < bestScore) {
            bestScore = score;
            best = k.path;
        }
    }
    const std::size_t limit = std::max<std::size_t>(2, leaf.size() / 3);
    return bestScore <= limit ? best : std::string();
}

} // namespace trainio::config_schema
