#include "util/quantity.h"
#include "util/text.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <charconv>
#include <cmath>
#include <string>

namespace trainio::quantity {

namespace {

bool isBlank(char c) { return c == ' ' || c == '\t'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }

// A unit scales the number by 10^decimalExponent (exact: applied to the decimal text before rounding,
// so "1.1 MB" is exactly 1100000) and then by `factor` (powers of two and 60/3600: exact or harmless).
struct Unit {
    const char* name; // lower case
    int decimalExponent;
    double factor;
};

constexpr std::array kByteUnits = {
    Unit{"b", 0, 1},           Unit{"kb", 3, 1},          Unit{"mb", 6, 1},          Unit{"gb", 9, 1},
    Unit{"tb", 12, 1},         Unit{"pb", 15, 1},         Unit{"eb", 18, 1},         Unit{"kib", 0, 0x1p10},
    Unit{"mib", 0, 0x1p20},    Unit{"gib", 0, 0x1p30},    Unit{"tib", 0, 0x1p40},    Unit{"pib", 0, 0x1p50},
    Unit{"eib", 0, 0x1p60},
};
constexpr const char* kByteUnitList = "B, kB, MB, GB, TB, PB, EB, KiB, MiB, GiB, TiB, PiB, EiB";

constexpr std::array kSecondUnits = {
    Unit{"ns", -9, 1}, Unit{"us", -6, 1}, Unit{"\xc2\xb5s", -6, 1} /* µs, micro sign */,
    Unit{"\xce\xbcs", -6, 1} /* μs, Greek mu */, Unit{"ms", -3, 1}, Unit{"s", 0, 1}, Unit{"min", 0, 60},
    Unit{"h", 0, 3600},
};
constexpr const char* kSecondUnitList = "ns, us, ms, s, min, h";

template <std::size_t N>
const Unit* findUnit(const std::array<Unit, N>& units, std::string_view text) {
    const std::string l = lower(text);
    for (const Unit& u : units)
        if (l == u.name) return &u;
    return nullptr;
}

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

constexpr double kExactDoubleLimit = 0x1p53; // every whole number below is exact in a double

std::string shortest(double v) {
    if (v == 0) return "0";
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
        return std::to_string(static_cast<long long>(v));
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

} // namespace

Result parse(std::string_view raw, Kind kind, const Limits& limits, std::string_view expectation) {
    const std::string expected = expectation.empty() ? describe(kind, limits) : std::string(expectation);
    auto failure = [&](std::string_view text, const std::string& why, Kind, const Limits&) {
        return Result{std::nullopt, std::nullopt, quoted(text) + " " + why + ": expected " + expected};
    };
    const std::string_view s = trimView(raw);
    if (s.empty()) return failure(raw, "is empty", kind, limits);

    // The number: [+-] digits [. digits] [e [+-] digits]. Scanned by hand because from_chars and strtod
    // also take "inf", "nan" and hexadecimal, and stop silently at the first character they do not know.
    std::size_t pos = 0;
    bool negative = false;
    if (s[pos] == '+' || s[pos] == '-') negative = s[pos++] == '-';
    const std::size_t mantissaBegin = pos;
    std::size_t digits = 0;
    while (pos < s.size() && isDigit(s[pos])) ++pos, ++digits;
    if (pos < s.size() && s[pos] == '.') {
        ++pos;
        while (pos < s.size() && isDigit(s[pos])) ++pos, ++digits;
    }
    if (digits == 0) return failure(raw, "is not a number", kind, limits);
    const std::string_view mantissa = s.substr(mantissaBegin, pos - mantissaBegin);
    long long exponent = 0;
    if (pos < s.size() && (s[pos] == 'e' || s[pos] == 'E')) {
        std::size_t e = pos + 1;
        if (e < s.size() && s[e] == '+') ++e; // from_chars takes '-' but not '+'
        const std::size_t expBegin = e;
        if (e < s.size() && s[e] == '-') ++e;
        const std::size_t expDigitsBegin = e;
        while (e < s.size() && isDigit(s[e])) ++e;
        if (e == expDigitsBegin) return failure(raw, "is not a number (incomplete exponent)", kind, limits);
        const auto [p, ec] = std::from_chars(s.data() + expBegin, s.data() + e, exponent);
        if (ec != std::errc() || p != s.data() + e) return failure(raw, "is out of range", kind, limits);
        pos = e;
    }
    std::size_t unitBegin = pos;
    while (unitBegin < s.size() && isBlank(s[unitBegin])) ++unitBegin;
    const std::string_view unitText = s.substr(unitBegin);

    Unit unit{"", 0, 1};
    if (!unitText.empty()) {
        const Unit* found = nullptr;
        switch (kind) {
        case Kind::Bytes:
            found = findUnit(kByteUnits, unitText);
            if (!found)
                return failure(raw, "has an unknown unit " + quoted(unitText) + " (units: " + kByteUnitList + ")", kind, limits);
            break;
        case Kind::Seconds:
            found = findUnit(kSecondUnits, unitText);
            if (!found)
                return failure(raw, "has an unknown unit " + quoted(unitText) + " (units: " + kSecondUnitList + ")", kind, limits);
            break;
        case Kind::Fraction:
            if (unitText != "%") return failure(raw, "is not a number (unexpected " + quoted(unitText) + ")", kind, limits);
            unit = Unit{"%", -2, 1};
            break;
        case Kind::Count:
        case Kind::Real:
            return failure(raw, "is not a number (unexpected " + quoted(unitText) + ")", kind, limits);
        }
        if (found) unit = *found;
    }

    // Exponents far outside double's range saturate here; from_chars then reports the range error.
    const long long totalExponent = std::clamp<long long>(exponent, -100000, 100000) + unit.decimalExponent;
    const std::string decimal = std::string(mantissa) + "e" + std::to_string(totalExponent);
    double value = 0;
    const auto [p, ec] = std::from_chars(decimal.data(), decimal.data() + decimal.size(), value);
    if (ec == std::errc::result_out_of_range) {
        // Underflow of a non-zero mantissa (1e-400) is as wrong as overflow: the value cannot be held.
        return failure(raw, "is out of range", kind, limits);
    }
    if (ec != std::errc() || p != decimal.data() + decimal.size()) return failure(raw, "is not a number", kind, limits);
    value *= unit.factor;
    if (!std::isfinite(value)) return failure(raw, "is out of range", kind, limits);
    if (negative) value = -value;
    if (value == 0) value = 0; // no negative zero

    // First against the limits as a double: "1e99" and 23-digit numbers are refused as out of the range.
    auto outside = [&](long double v) {
        const long double lo = limits.min, hi = limits.max;
        return (limits.minExclusive ? !(v > lo) : !(v >= lo)) || !(v <= hi);
    };
    const bool wantWhole = kind == Kind::Count || limits.integer;
    if (wantWhole && value != std::floor(value)) return failure(raw, "is not a whole number", kind, limits);
    if (outside(value)) return failure(raw, "is not allowed", kind, limits);
    std::optional<std::uint64_t> whole;
    if (wantWhole) {
        const bool plainDigits = mantissa.find('.') == std::string_view::npos && exponent == 0 &&
                                 unit.decimalExponent == 0 && unit.factor >= 1 && unit.factor == std::floor(unit.factor) &&
                                 (static_cast<std::uint64_t>(unit.factor) & (static_cast<std::uint64_t>(unit.factor) - 1)) == 0;
        if (value == 0) {
            whole = 0;
        } else if (!negative && plainDigits) {
            // Integer arithmetic: a double would round 18446744073709551615 up to 2^64.
            std::uint64_t n = 0;
            const auto [q, e] = std::from_chars(mantissa.data(), mantissa.data() + mantissa.size(), n);
            if (e != std::errc() || q != mantissa.data() + mantissa.size()) return failure(raw, "is out of range", kind, limits);
            const int shift = std::ilogb(unit.factor);
            if (shift > 0 && n > (UINT64_MAX >> shift)) return failure(raw, "is out of range", kind, limits);
            whole = n << shift;
        } else if (!negative) {
            if (value >= kExactDoubleLimit)
                return failure(raw, "is too large to be read exactly (write all its digits)", kind, limits);
            whole = static_cast<std::uint64_t>(value);
        }
        // Then exactly: 2^64 − 1 must not pass for 2^64, nor 2^53 + 1 for 2^53.
        if (whole && outside(static_cast<long double>(*whole))) return failure(raw, "is not allowed", kind, limits);
    }
    return Result{value, whole, {}};
}

Result parse(std::string_view text, Kind kind, double min, double max) {
    return parse(text, kind, Limits{min, max, kind == Kind::Count, false});
}

std::string describe(Kind kind, const Limits& limits) {
    const std::string lo = format(limits.min, kind), hi = format(limits.max, kind);
    const std::string range = limits.minExclusive ? "more than " + lo + " and at most " + hi : lo + " … " + hi;
    switch (kind) {
    case Kind::Count: return "a whole number " + range;
    case Kind::Bytes:
        return std::string(limits.integer ? "a whole number of bytes " : "a number of bytes ") + range +
               " (e.g. 4 MiB, 128 KiB, 1.5 GB)";
    case Kind::Seconds: return "a number of seconds " + range + " (e.g. 150 ms, 2 s, 300 us)";
    case Kind::Fraction: return "a fraction " + range + " (e.g. 0.9 or 90 %)";
    case Kind::Real: return (limits.integer ? "a whole number " : "a number ") + range;
    }
    return range;
}

// 1024^1 … 1024^6, one table for the writers below.
constexpr std::array<const char*, 6> kBinaryUnits = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};

std::string formatWhole(std::uint64_t value, Kind kind) {
    if (kind == Kind::Bytes && value >= 1024)
        for (int k = 6; k >= 1; --k) {
            const std::uint64_t unit = std::uint64_t{1} << (10 * k);
            if (value % unit == 0) return std::to_string(value / unit) + " " + kBinaryUnits[static_cast<std::size_t>(k - 1)];
        }
    return std::to_string(value);
}

std::string format(double value, Kind kind) {
    if (kind == Kind::Bytes && value >= 1024 && value == std::floor(value) && value < 0x1p60) {
        for (int k = 5; k >= 1; --k) {
            const double unit = std::ldexp(1.0, 10 * k);
            const double n = value / unit;
            if (n == std::floor(n)) return shortest(n) + " " + kBinaryUnits[static_cast<std::size_t>(k - 1)];
        }
    }
    return shortest(value);
}

std::string formatForReading(double value, Kind kind, bool* exact) {
    if (exact) *exact = true;
    const std::string plain = format(value, kind);
    if (kind == Kind::Bytes) {
        // A bare number is bytes to the parser, but not to a reader: the unit is said.
        const bool hasUnit = plain.find(' ') != std::string::npos;
        return hasUnit || !std::isfinite(value) ? plain : plain + " B";
    }
    if (kind != Kind::Seconds || !std::isfinite(value) || value == 0) return plain;
    std::size_t digits = 0;
    for (char c : plain) {
        if (c == 'e' || c == 'E') break;
        if (c >= '1' && c <= '9') ++digits;
        else if (c == '0' && digits > 0) ++digits;
    }
    if (digits <= 6) return plain; // "0.05", "0.002", "1.5": as typed and exact
    if (exact) *exact = false;
    const double a = std::fabs(value);
    const char* unit = a >= 1 ? "s" : a >= 1e-3 ? "ms" : "\xc2\xb5s"; // µs
    const double scaled = a >= 1 ? value : a >= 1e-3 ? value * 1e3 : value * 1e6;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4g", scaled);
    std::string text = buf;
    if (text.find('e') != std::string::npos) return plain; // beyond 10^4 of the unit: the plain form
    return text + " " + unit;
}

std::string approximateBytes(double bytes) {
    if (!std::isfinite(bytes) || bytes < 1024) return {};
    int k = 0;
    while (k < 5 && bytes >= std::ldexp(1.0, 10 * (k + 2))) ++k;
    char buf[64];
    std::snprintf(buf, sizeof buf, "\xe2\x89\x88 %.1f %s", bytes / std::ldexp(1.0, 10 * (k + 1)), kBinaryUnits[static_cast<std::size_t>(k)]); // ≈
    return buf;
}

} // namespace trainio::quantity
