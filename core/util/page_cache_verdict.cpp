#include "util/page_cache_verdict.h"

#include <algorithm>
#include <cstdio>

namespace trainio {

PageCacheVerdict pageCacheVerdict(const PageCacheEvidence& e) {
    PageCacheVerdict v;
    for (std::size_t i = 0; i < e.epochPercentFromCache.size(); ++i) {
        const double p = e.epochPercentFromCache[i];
        if (std::isnan(p)) continue;
        v.measured = true;
        v.maxPercent = std::isnan(v.maxPercent) ? p : std::max(v.maxPercent, p);
        if (p > kCacheServedPercent) v.servedEpochs.push_back(i + 1);
    }
    const std::string& cache = e.cacheControl;
    // No page cache in the way: an object store's bytes come over the network into the readers' buffers,
    // and an emulated device serves every read as that device would, whatever the cache holds beneath it.
    if (e.objectStore) {
        v.text = "Objects of a bucket do not pass through the page cache: every epoch reads them from the storage.";
        return v;
    }
    if (e.emulatedDevice) {
        v.text = "An emulated device shapes every read as that device would serve it, whatever the page cache holds beneath it.";
        return v;
    }
    char buf[160];
    if (v.measured) {
        // What was measured decides, whatever the cache control promised.
        if (!v.servedEpochs.empty()) {
            v.warning = true;
            std::string list;
            for (std::size_t k = 0; k < v.servedEpochs.size(); ++k) list += (k ? ", " : "") + std::to_string(v.servedEpochs[k]);
            std::snprintf(buf, sizeof buf, " (up to %.1f %% from cache)", v.maxPercent);
            v.text = "Most bytes came from the page cache, not from storage, in epoch" + std::string(v.servedEpochs.size() > 1 ? "s " : " ") +
                     list + buf + ": bandwidth and AU describe memory, not the storage.";
            if (cache == "fadvise" || cache == "drop")
                v.text += " trainio.cache " + cache + " did not keep the files out of it; a dataset larger than RAM does.";
            else
                v.text += " Use cache: fadvise or cache: drop, or a dataset larger than RAM, to measure the storage.";
            return v;
        }
        const std::string control = cache.empty() ? std::string() : " (trainio.cache " + cache + ")";
        std::snprintf(buf, sizeof buf, "%.0f %%", v.maxPercent);
        v.text = v.maxPercent < 10.0
                     ? "The storage was read: at most " + std::string(buf) + " of an epoch came from the page cache" + control + "."
                     : "Up to " + std::string(buf) + " of an epoch came from the page cache" + control + ", the rest from the storage.";
        return v;
    }
    // Not measured (a run not made yet, or DLIO and MLPerf folders, which record no cache share): what
    // the cache control does, or what the page cache can do.
    if (cache == "fadvise") {
        v.text = "With trainio.cache fadvise, TrainIO asks the kernel before each epoch to evict its files from the page "
                 "cache (POSIX_FADV_DONTNEED), so each epoch reads them from the storage again; the kernel may keep pages "
                 "it cannot evict, and the run's per-epoch \"from page cache\" share says how much it served.";
    } else if (cache == "drop") {
        v.text = "With trainio.cache drop, the whole page cache is emptied before each epoch (drop_caches, needs root), so "
                 "each epoch reads the dataset from the storage again.";
    } else if (cache == "keep") {
        v.warning = true;
        v.text = "The page cache can serve it, so AU would say little about the storage.";
    } else {
        v.warning = true;
        v.text = "The page cache can hold much of it, so AU says little about the storage (unless the clients' memory was "
                 "limited; the results do not record how much came from the page cache).";
    }
    return v;
}

} // namespace trainio
