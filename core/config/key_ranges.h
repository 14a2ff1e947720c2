// What the GUI's fields need to parse a key as typed: the unit kind and the limits of every numeric
// configuration key, taken from the one range table of the configuration (config/value_ranges.h) —
// never a second table — and the configuration's own wording of the range for the messages. Also the
// rule for accelerator names, which become the second half of MLPerf Storage's
// "workload=<model>_<accelerator>" label.
#pragma once

#include "util/quantity.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainio::key_ranges {

struct KeyRange {
    std::string key; // canonical dotted DLIO key, as validateConfig names it
    quantity::Kind kind;
    quantity::Limits limits;
    std::string expectation; // "a whole number 1 … 1000000" (+ the units the field takes)
};

// A numeric configuration key (from value_ranges), or "accelerators" (the run's accelerator count,
// 1 … 4096 as the CLI's --accelerators); nullopt for anything else.
std::optional<KeyRange> find(std::string_view key);

// The range in words; "" for a key that is not numeric.
std::string expectation(std::string_view key);

// Parses typed text for a key. The error names the key: "train.epochs: '-3' is not allowed: expected a
// whole number 1 … 1000000". A key that is not numeric is an error too (never a silent default).
quantity::Result parseKey(std::string_view key, std::string_view text);

// "" when `name` can be written as the accelerator half of "<model>_<accelerator>" (lower-case letters,
// digits, '.' and '-', starting with a letter or digit: validateConfig's rule); else why not, naming
// the offending character. An empty name is accepted: the default accelerator is then written.
std::string acceleratorNameProblem(std::string_view name);

} // namespace trainio::key_ranges
