// Cache control before an epoch (docs/cache-honesty.md): make the next epoch read from storage
// instead of the page cache, as MLPerf Storage v3.0's DLIO does by dropping caches before every epoch.
//
// Integration: mode = parseCacheMode(trainio.cache, "<config file>: trainio.cache") when the config
// is read; before each epoch (outside the measured window, before PageCacheMeter::beginEpoch):
//   CacheControlResult r = applyCacheControl(mode, trainFiles);   // the DatasetLayout's train files
// and report r.seconds with the epoch. applyCacheControl throws RunError (file, operation, what is
// needed); cacheControlProblem(mode) lets a preflight refuse `drop` before the run starts. Thread-safe
// (no shared state); it costs nothing on the hot path because it runs between epochs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace trainio {

enum class CacheMode {
    Keep,    // nothing: later epochs are served from the page cache when the dataset fits in RAM
    Fadvise, // posix_fadvise(POSIX_FADV_DONTNEED) on every dataset file; needs no privilege
    Drop,    // sync, then "3" into /proc/sys/vm/drop_caches (all clean caches, system-wide); needs root
};

// "keep" | "fadvise" | "drop". Throws InputError naming where, the value and the expected words.
CacheMode parseCacheMode(const std::string& text, const std::string& where);
const char* toString(CacheMode mode);

struct CacheControlOptions {
    std::filesystem::path dropCachesFile = "/proc/sys/vm/drop_caches"; // injectable for tests
};

struct CacheControlResult {
    CacheMode mode = CacheMode::Keep;
    double seconds = 0;      // wall time the control took (outside the measured epoch)
    std::uint64_t files = 0; // files advised (fadvise)
    std::uint64_t bytes = 0; // their total size (fadvise)
};

// Applies mode. Keep returns at once. Fadvise opens each file read-only, writes back any of its dirty
// pages (sync_file_range: pages of a just-generated file are dirty and DONTNEED keeps dirty pages) and
// advises DONTNEED over the whole file. Drop calls sync() and writes "3" to dropCachesFile, opened
// without blocking; no sudo, no prompt. Throws RunError naming the file and what is needed.
CacheControlResult applyCacheControl(CacheMode mode, const std::vector<std::string>& files,
                                     const CacheControlOptions& options = {});

// Why mode cannot work here (e.g. `drop` without write access to drop_caches), or nullopt. A cheap
// check for a preflight; applyCacheControl remains the authority.
std::optional<std::string> cacheControlProblem(CacheMode mode, const CacheControlOptions& options = {});

} // namespace trainio
