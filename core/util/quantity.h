// Strict parsing of the numbers a user types: "4 MiB", "150 ms", "90 %", "1e3". The text is either read
// entirely or rejected with a sentence saying why and what is accepted — never truncated at the first
// character that does not fit (QSpinBox turned "abc-12x" into 12 and "1e99" into 199), never wrapped,
// never clamped. Qt-free so that the GUI, the CLI and the config reader can share it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace trainio::quantity {

enum class Kind {
    Count,    // a whole number, no unit
    Bytes,    // B, kB … EB (powers of 1000), KiB … EiB (powers of 1024); bare = bytes
    Seconds,  // ns, us (µs), ms, s, min, h; bare = seconds
    Fraction, // 0.9, or a percentage: 90 %
    Real,     // a plain number, no unit
};

struct Limits {
    double min = 0;
    double max = 0;
    bool integer = false;      // the value after units must be whole (Count is always whole)
    bool minExclusive = false; // min itself is not allowed (metric.au > 0)
};

struct Result {
    std::optional<double> value;
    // For whole numbers >= 0, the exact value, also beyond 2^53 where a double would round
    // ("18446744073709551615" seeds).
    std::optional<std::uint64_t> whole;
    std::string error; // "'-3' is not allowed: expected a whole number 1 … 1000000"; empty when value is set
    bool ok() const { return value.has_value(); }
};

// Leading and trailing blanks are ignored, as is one run of blanks between the number and its unit.
// Units are case-insensitive (TrainIO has no bits: "mb" is a megabyte).
// `expectation` replaces describe()'s text in the error (the configuration's own wording of the range).
Result parse(std::string_view text, Kind kind, const Limits& limits, std::string_view expectation = {});
// Shorthand: whole numbers for Count, any number for the other kinds.
Result parse(std::string_view text, Kind kind, double min, double max);

// What parse accepts, for messages and tooltips: "a whole number 1 … 1000000",
// "a number of bytes 1 … 1 TiB (e.g. 4 MiB, 128 KiB, 1.5 GB)".
std::string describe(Kind kind, const Limits& limits);

// Text that parses back to exactly `value`: integers without a decimal point, bytes in the largest
// binary unit that divides them ("256 KiB"), other numbers in their shortest round-trip form.
std::string format(double value, Kind kind);
std::string formatWhole(std::uint64_t value, Kind kind);

// Text for a person to read, which format() is not always: bytes always with a unit ("146600628 B" where no
// binary unit divides them: exact still), a time whose exact form is long ("0.05066255668571429") rounded to
// four significant digits in a unit that keeps it above 1 ("50.66 ms"); otherwise format()'s text. Equal to
// format() whenever that is short, so it parses back exactly; `exact`, when given, says whether it does.
std::string formatForReading(double value, Kind kind, bool* exact = nullptr);
// About how much `bytes` is, in the largest binary unit below it: "≈ 139.8 MiB"; empty below 1 KiB.
std::string approximateBytes(double bytes);

} // namespace trainio::quantity
