// Dataset sizing as MLPerf Storage's benchmark script does it (SPEC section 2).
#include "config/config_internal.h"
#include "config/config_loader.h"
#include "util/page_cache_verdict.h"

#include <algorithm>
#include <cmath>

namespace trainio {

PageCacheVerdict pageCacheBeforeRun(const WorkloadConfig& cfg) {
    // Before a run nothing is measured: what the workload configures decides.
    return pageCacheVerdict(PageCacheEvidence{cfg.trainio.cache, {}, cfg.storage.isS3(), cfg.trainio.storage.any()});
}

SizingAdvice sizingAdvice(const WorkloadConfig& cfg, std::uint64_t accelerators, double clientRamBytes) {
    SizingAdvice a;
    const double samplesPerFile = static_cast<double>(std::max<std::uint64_t>(1, cfg.dataset.numSamplesPerFile));
    const double fileBytes = cfg.dataset.recordLength * samplesPerFile;
    a.clientRamBytes = clientRamBytes;
    // MLPerf Storage: the dataset must be 5× the clients' RAM so that the page cache cannot serve it,
    // and long enough for 500 steps of every accelerator.
    a.filesForRam = fileBytes > 0 ? static_cast<std::uint64_t>(std::ceil(5.0 * clientRamBytes / fileBytes)) : 0;
    a.filesForSteps = static_cast<std::uint64_t>(
        std::ceil(500.0 * static_cast<double>(accelerators) * static_cast<double>(cfg.reader.batchSize) / samplesPerFile));
    a.filesNeeded = std::max(a.filesForRam, a.filesForSteps);
    a.datasetBytes = static_cast<double>(cfg.dataset.numFilesTrain) * fileBytes;
    // Objects of a bucket are read over HTTP into the readers' buffers: the page cache never holds them, so
    // a dataset smaller than RAM is still read from the storage every epoch (MLPerf's 5 x RAM rule stands).
    a.fitsInRam = !cfg.storage.isS3() && a.datasetBytes <= clientRamBytes;

    auto gb = [](double bytes) { return config_detail::formatNumber(std::round(bytes / 1e7) / 100.0) + " GB"; };
    a.text = "files needed: " + std::to_string(a.filesNeeded) + " (5 x RAM: " + std::to_string(a.filesForRam) +
             ", 500 steps x " + std::to_string(accelerators) + " accelerators: " + std::to_string(a.filesForSteps) +
             "); configured: " + std::to_string(cfg.dataset.numFilesTrain) + " files, " + gb(a.datasetBytes) +
             ", client RAM " + gb(clientRamBytes) + ".";
    if (cfg.dataset.numFilesTrain < a.filesNeeded)
        a.text += " The configured dataset is smaller than MLPerf Storage requires.";
    if (a.fitsInRam) a.text += " The dataset fits in RAM. " + pageCacheBeforeRun(cfg).text;
    return a;
}

} // namespace trainio
