// Every key DLIO knows (both generations) and the few TrainIO adds, so that unknown keys can be told
// apart from keys DLIO uses and TrainIO does not, and so that a misspelt key gets a suggestion.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace trainio::config_schema {

enum class KeyKind {
    Section,     // a map of further keys
    Used,        // read by TrainIO
    Ignored,     // known to DLIO, not used by TrainIO (accepted silently)
    OpenIgnored, // a DLIO map whose contents are free-form (storage_options, checkpoint.ksm, …)
    TimeSpec,    // computation_time / eval_time: a number or a distribution map
};

struct KeyInfo {
    std::string path; // dotted, relative to the workload root
    KeyKind kind;
};

// nullopt when the dotted path is not a known key. The section "data_reader" is DLIO's other name for
// "reader" and is looked up as such.
std::optional<KeyKind> lookup(const std::string& path);

// The known key nearest to an unknown one, or "" when nothing is close enough to be a useful hint.
std::string suggest(const std::string& unknownPath);

// Keys a computation_time / eval_time map may hold.
const std::vector<std::string>& timeSpecKeys();

// Levenshtein distance (exposed for the tests of suggestion quality).
std::size_t editDistance(const std::string& a, const std::string& b);

} // namespace trainio::config_schema
