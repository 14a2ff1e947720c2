// What the page cache did to a measurement, decided in one place and said in one set of words for every
// front that speaks of it: the sizing advice before a run (CLI validate, the GUI's Workload page), a run's
// own warning (trainio_run.json "warnings", the CLI, the GUI's Run page), the rule check of a dataset
// smaller than 5 × the clients' memory (aggregate table, aggregate.json, the GUI's Results, the report) and
// a result's "bytes from the page cache" line (Results, report).
//
// It weighs what was measured — the share of each epoch's delivered bytes that did not come from the
// storage (trainio_io.json percent_from_cache; docs/cache-honesty.md) — before the cache control the run
// used (trainio.cache): a run whose epochs were read from the storage is told so, never that its AU "says
// little about the storage". Only without a measurement (DLIO and MLPerf folders record none, and a run
// not made yet has none) does the cache control, or the dataset's size alone, decide.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace trainio {

// An epoch with more than this share from the page cache describes memory, not the storage: a warning.
inline constexpr double kCacheServedPercent = 50.0;

struct PageCacheEvidence {
    std::string cacheControl;                  // trainio.cache: "keep", "fadvise", "drop"; "" when not recorded
    std::vector<double> epochPercentFromCache; // per epoch in order (index e = epoch e + 1); NaN: not measured
    bool objectStore = false;                  // storage.storage_type s3: no page cache between readers and data
    bool emulatedDevice = false;               // an emulated device shaped every read (whatever the cache held)
};

struct PageCacheVerdict {
    bool warning = false;    // the page cache served (or, unmeasured, can serve) the numbers: say it as a warning
    bool measured = false;   // at least one epoch's share was measured
    double maxPercent = NAN; // the highest measured share (NaN when none was measured)
    std::vector<std::size_t> servedEpochs; // 1-based epochs above kCacheServedPercent
    std::string text;        // one or two sentences, capitalised, ending with a period
};

// For a dataset the page cache could hold (it fits in the clients' memory, or is smaller than MLPerf's 5 ×).
PageCacheVerdict pageCacheVerdict(const PageCacheEvidence& evidence);

} // namespace trainio
