// Binary byte units, as doubles for rates and sizes in figures (MiB/s, GiB/s): one definition for the core,
// the UI, the tests and the benchmarks.
#pragma once

namespace trainio {

inline constexpr double kKiB = 1024.0;
inline constexpr double kMiB = 1024.0 * 1024.0;
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

} // namespace trainio
