#include "config/value_ranges.h"

#include "config/config_keys.h"

#include <charconv>
#include <cmath>

namespace trainio {
namespace {

std::string boundText(double v) {
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e19) {
        char buf[32];
        auto r = std::to_chars(buf, buf + sizeof buf, static_cast<unsigned long long>(std::fabs(v)));
        return (v < 0 ? "-" : "") + std::string(buf, r.ptr);
    }
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

} // namespace

bool ValueRange::contains(long double v) const {
    if (std::isnan(static_cast<double>(v))) return false;
    if (minExclusive ? !(v > min) : !(v >= min)) return false;
    if (!(v <= static_cast<long double>(max))) return false;
    return !whole || v == std::floor(v);
}

std::string ValueRange::describe() const {
    std::string what;
    switch (unit) {
    case ValueUnit::None: what = whole ? "a whole number" : "a number"; break;
    case ValueUnit::Bytes: what = whole ? "a whole number of bytes" : "a number of bytes"; break;
    case ValueUnit::Seconds: what = "a number of seconds"; break;
    case ValueUnit::Milliseconds: what = "a number of milliseconds"; break;
    case ValueUnit::Fraction: what = "a fraction"; break;
    }
    std::string s = minExclusive ? what + " > " + boundText(min) + " and <= " + boundText(max)
                                 : what + " " + boundText(min) + " … " + boundText(max);
    if (unit == ValueUnit::Fraction) s += " (0.90 = 90 %)";
    if (note) s += std::string(", ") + note;
    return s;
}

std::optional<ValueRange> valueRange(const std::string& canonicalKey) {
    // The ranges live in the one table of keys (config_keys.cpp).
    const auto* k = config_keys::find(canonicalKey);
    if (!k || !k->range) return std::nullopt;
    return k->range;
}

} // namespace trainio
