// `trainio-cli compare PATH... --baseline N [--per-accelerator] [--compare-anyway] [--format table|json]`
// and `trainio-cli label DIR --system NAME [--description TEXT] [--notes TEXT] [--name TEXT]`:
// the Compare page's table and the label editor, headless.
#pragma once

#include <string>
#include <vector>

namespace trainio::cli {

// Exit codes: 0 ok, 2 bad input (no PATH, a PATH holding no or several benchmarks, --baseline out of
// range, an unknown --format), 1 anything else.
int runCompareCommand(const std::vector<std::string>& args);
// Exit codes: 0 written, 2 bad input (DIR missing or holding no summary.json, no label given, an
// unreadable existing labels file), 1 the file could not be written.
int runLabelCommand(const std::vector<std::string>& args);

} // namespace trainio::cli
