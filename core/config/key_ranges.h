// The accepted range and unit kind of every numeric configuration key, in one table: the GUI's form
// parses what is typed against it, and the config validator can check loaded values against the same
// limits (one key, one place). Also the rule for accelerator names, which become the second half of
// MLPerf Storage's "workload=<model>_<accelerator>" label.
#pragma once

#include "util/quantity.h"

#include <string>
#include <string_view>
#include <vector>

namespace trainio::key_ranges {

struct KeyRange {
    std::string key; // canonical dotted DLIO key, as validateConfig names it
    quantity::Kind kind;
    quantity::Limits limits;
};

// Every numeric key; nullptr for a key that is not numeric (or not known).
const KeyRange* find(std::string_view canonicalKey);
const std::vector<KeyRange>& all();

// "an integer 1 … 100000"; "" for a key that is not numeric.
std::string expectation(std::string_view canonicalKey);

// Parses typed text for a key. The error names the key: "train.epochs: '-3' is not allowed: expected an
// integer 1 … 100000". A key that is not in the table is an error too (never a silent default).
quantity::Result parseKey(std::string_view canonicalKey, std::string_view text);

// Checks a value already held (from YAML, JSON, a preset) against the key's limits: "" when it is
// accepted, else "train.epochs = 0: expected an integer 1 … 100000".
std::string checkValue(std::string_view canonicalKey, double value);

// "" when `name` can be written as the accelerator half of "<model>_<accelerator>" (lower-case letters,
// digits, '.' and '-'; no '_', which MLPerf's report.py splits on; no blanks); else why not. An empty
// name is accepted: the workload then has no accelerator of its own.
std::string acceleratorNameProblem(std::string_view name);

// The accelerators the GUI offers in its list (any other name that passes the rule above is accepted).
const std::vector<std::string>& suggestedAccelerators();

} // namespace trainio::key_ranges
