// Binary byte units, as doubles for rates and sizes in figures (MiB/s, GiB/s), and the NaN that marks a
// figure nobody measured: one definition for the core, the UI, the tests and the benchmarks.
#pragma once

#include <limits>

namespace trainio {

inline constexpr double kKiB = 1024.0;
inline constexpr double kMiB = 1024.0 * 1024.0;
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

} // namespace trainio
