// A small, strict option parser shared by the CLI commands: --opt VALUE and --opt=VALUE, flags,
// ++workload.k=v overrides and positionals. Unknown options are bad input (exit 2).
#pragma once

#include "store/invocation_record.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace trainio::cli {

struct OptionSpec {
    std::set<std::string> valued; // options that take a value, e.g. "--config"
    std::set<std::string> flags;  // options without a value, e.g. "--quiet"
    bool overrides = false;       // accept ++workload.… arguments
    bool positionals = false;     // accept bare arguments
};

struct ParsedArgs {
    std::map<std::string, std::vector<std::string>> values; // option → every value given
    std::set<std::string> flags;
    std::vector<std::string> overrides;
    std::vector<std::string> positionals;

    bool has(const std::string& opt) const { return values.count(opt) || flags.count(opt); }
    std::optional<std::string> value(const std::string& opt) const; // last value given
    // The last value parsed as an unsigned integer; throws InputError naming the option otherwise.
    // The option's value as a whole number in [min, max]; anything else (text, a sign, a fraction,
    // spaces, out of range) is InputError naming the option and the range.
    std::optional<unsigned long long> unsignedValue(const std::string& opt, unsigned long long min,
                                                    unsigned long long max) const;
};

// Throws trainio::InputError with a message naming the offending argument.
ParsedArgs parseArgs(const std::vector<std::string>& args, const OptionSpec& spec);

// --system NAME / --description TEXT (run, benchmark, collocate): written to trainio_labels.json beside the
// results (docs/aggregation.md). InputError for an empty name or a control character.
aggregate::Labels labelsFrom(const ParsedArgs& p);

} // namespace trainio::cli
