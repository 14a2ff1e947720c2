// The accepted range of a numeric configuration key (the ranges themselves are rows of the one table
// of keys, config_keys.cpp): the loader's type checks, the
// validator's range checks, their messages and the GUI's fields all read it, so that a value is refused
// with the same words everywhere ("train.epochs = -3: expected a whole number 1 … 1000000").
#pragma once

#include <optional>
#include <string>

namespace trainio {

enum class ValueUnit { None, Bytes, Seconds, Milliseconds, Fraction };

struct ValueRange {
    double min = 0;
    double max = 0;
    bool minExclusive = false; // > min rather than >= min
    bool whole = false;        // a whole number (the loader also accepts 5.0 / 1e3 as DLIO's OmegaConf does)
    ValueUnit unit = ValueUnit::None;
    const char* note = nullptr; // extra accepted values, e.g. "or -1 for the whole dataset"

    bool contains(long double v) const;
    std::string describe() const; // "a whole number 1 … 1000000", "a number of bytes > 0 and <= 1099511627776"
};

// The range of a canonical DLIO key (dataset.record_length_bytes, reader.batch_size, …); nullopt for
// keys that are not numeric.
std::optional<ValueRange> valueRange(const std::string& canonicalKey);

} // namespace trainio
