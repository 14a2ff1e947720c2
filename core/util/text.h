// Small text helpers shared by every parser of the core (config, quantities, /proc and nvidia-smi text,
// mpirun host lists, S3 responses, run folders, labels): one implementation each.
#pragma once

#include <string>
#include <string_view>

namespace trainio {

// `s` without the white space (space, tab, CR, LF, VT, FF) at either end; a view into `s`.
std::string_view trimView(std::string_view s);
// The same, as a string of its own.
std::string trim(std::string_view s);
// A number with `precision` decimals ("12.35"; "+0.50" with sign), "n/a" when it is not finite: the text of
// the CLI's tables and the library's rule and comparison sentences.
std::string fixedNumber(double v, int precision = 2, bool sign = false);
// A number that reads back to the same double ("%.17g": CSV cells, the published report against the runs);
// "" when it is not finite.
std::string exactNumber(double v);
// A number to `digits` significant digits ("%.*g": "0.001669", "1.2e+04"): the capture's reports and YAML comments.
std::string significantNumber(double v, int digits);
// ASCII lower case (names, units, enum words; other bytes as they are).
std::string lower(std::string_view s);

} // namespace trainio
