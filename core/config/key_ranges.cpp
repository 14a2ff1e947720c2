#include "config/key_ranges.h"

#include "config/value_ranges.h"

namespace trainio::key_ranges {

namespace {

quantity::Kind kindOf(const ValueRange& r) {
    switch (r.unit) {
    case ValueUnit::Bytes: return quantity::Kind::Bytes;
    case ValueUnit::Seconds: return quantity::Kind::Seconds;
    case ValueUnit::Fraction: return quantity::Kind::Fraction;
    case ValueUnit::Milliseconds: // a plain number of milliseconds (the key's unit), no suffixes
    case ValueUnit::None: break;
    }
    return r.whole ? quantity::Kind::Count : quantity::Kind::Real;
}

std::string unitsHint(quantity::Kind kind) {
    switch (kind) {
    case quantity::Kind::Bytes: return " (e.g. 4 MiB, 128 KiB, 1.5 GB)";
    case quantity::Kind::Seconds: return " (e.g. 150 ms, 2 s, 300 us)";
    case quantity::Kind::Fraction: return ", or a percentage (90 %)";
    default: return {};
    }
}

} // namespace

std::optional<KeyRange> find(std::string_view key) {
    // Shape and scale hold 0 while the chosen distribution does not use them, so the form accepts 0;
    // validateConfig asks for > 0 when the distribution (gamma, exponential) uses them.
    std::optional<ValueRange> r = valueRange(std::string(key));
    if (!r) return std::nullopt;
    if (key == "train.computation_time.scale") r->minExclusive = false;
    const quantity::Kind kind = kindOf(*r);
    return KeyRange{std::string(key), kind, quantity::Limits{r->min, r->max, r->whole, r->minExclusive},
                    r->describe() + unitsHint(kind)};
}

std::string expectation(std::string_view key) {
    const auto r = find(key);
    return r ? r->expectation : std::string();
}

quantity::Result parseKey(std::string_view key, std::string_view text) {
    const auto r = find(key);
    if (!r) return {std::nullopt, std::nullopt, std::string(key) + ": not a numeric key"};
    quantity::Result res = quantity::parse(text, r->kind, r->limits, r->expectation);
    if (!res.ok()) res.error = std::string(key) + ": " + res.error;
    return res;
}

std::string acceleratorNameProblem(std::string_view name) {
    const std::string q = "'" + std::string(name) + "'";
    if (name.empty()) return {};
    const std::string allowed = ": expected lower-case letters, digits, '-' or '.' (a100, h100, b200)";
    for (char c : name) {
        if (c == '_')
            return "accelerator: " + q + " contains '_': MLPerf Storage splits workload=<model>_<accelerator> on '_' "
                   "(use '-', e.g. h100-sxm)";
        if (c == ' ' || c == '\t') return "accelerator: " + q + " contains a blank" + allowed;
        if (c >= 'A' && c <= 'Z') return "accelerator: " + q + " has upper-case letters" + allowed;
        if (static_cast<unsigned char>(c) >= 0x80) return "accelerator: " + q + " contains a non-ASCII character" + allowed;
        const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
        if (!ok) return "accelerator: " + q + " contains '" + std::string(1, c) + "'" + allowed;
    }
    if (name.front() == '-' || name.front() == '.') return "accelerator: " + q + " must start with a letter or a digit";
    return {};
}

} // namespace trainio::key_ranges
