#include "config/shrink_to_fit.h"

#include "util/host_info.h"
#include "util/quantity.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <system_error>

namespace trainio {

namespace {

constexpr double kPerFileOverhead = 4096;

std::string bytesText(double b) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (b >= 1024 && u < 5) b /= 1024, ++u;
    char buf[32];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
    return buf;
}

std::string secondsText(double s) {
    char buf[32];
    if (s < 0.01) std::snprintf(buf, sizeof buf, "%.1f ms", s * 1e3);
    else if (s < 1) std::snprintf(buf, sizeof buf, "%.0f ms", s * 1e3);
    else std::snprintf(buf, sizeof buf, s < 10 ? "%.1f s" : "%.0f s", s);
    return buf;
}

} // namespace

double estimatedFileBytes(const DatasetSection& d) {
    return d.recordLength * static_cast<double>(std::max<std::uint64_t>(1, d.numSamplesPerFile)) + kPerFileOverhead;
}

MachineBudget measureMachine(const std::string& dataFolder, std::uint64_t accelerators) {
    MachineBudget b;
    b.accelerators = std::max<std::uint64_t>(1, accelerators);
    b.ramBytes = readHostInfo().memoryGiB * 1073741824.0;
    std::error_code ec;
    std::filesystem::path p = std::filesystem::absolute(dataFolder.empty() ? "." : dataFolder, ec);
    // The data folder usually does not exist before the first datagen: ask its nearest existing parent.
    while (!p.empty() && !std::filesystem::exists(p, ec) && p != p.parent_path()) p = p.parent_path();
    const auto space = std::filesystem::space(p, ec);
    b.freeBytes = ec ? 0 : static_cast<double>(space.available);
    return b;
}

ShrinkResult shrinkToFit(const WorkloadConfig& cfg, const MachineBudget& budget) {
    ShrinkResult r;
    r.config = cfg;
    DatasetSection& d = r.config.dataset;
    r.filesBefore = cfg.dataset.numFilesTrain;
    r.recordBefore = cfg.dataset.recordLength;

    const double spf = static_cast<double>(std::max<std::uint64_t>(1, d.numSamplesPerFile));
    const double batch = static_cast<double>(std::max<std::uint64_t>(1, cfg.reader.batchSize));
    const double ranks = static_cast<double>(std::max<std::uint64_t>(1, budget.accelerators));
    const double samplesPerStep = batch * ranks;
    const double evalFiles = static_cast<double>(d.numFilesEval);
    // DLIO: steps per epoch = floor(files × samples per file / batch / accelerators) must be >= 1.
    const double minFiles = std::ceil(samplesPerStep / spf);
    r.byteBudget = std::max(0.0, std::min(0.5 * budget.freeBytes, 0.25 * budget.ramBytes));

    // Only if the smallest runnable dataset does not fit: smaller records, the distribution scaled as one.
    if ((minFiles + evalFiles) * estimatedFileBytes(d) > r.byteBudget) {
        const double record = std::floor((r.byteBudget / (minFiles + evalFiles) - kPerFileOverhead) / spf);
        if (record < 1) {
            r.fits = false;
            r.filesAfter = r.filesBefore;
            r.recordAfter = r.recordBefore;
            r.config = cfg;
            r.summary = "Cannot shrink to fit: one step per accelerator (" + std::to_string(static_cast<long long>(minFiles)) +
                        " files) does not fit in " + bytesText(r.byteBudget) +
                        " (half the free space of the data folder's file system, at most a quarter of RAM).";
            return r;
        }
        const double factor = record / d.recordLength;
        d.recordLength = record;
        d.recordLengthStdev = std::floor(d.recordLengthStdev * factor);
        d.recordLengthResize = std::floor(d.recordLengthResize * factor);
    }

    const double stepSeconds = std::max(cfg.train.computationTime.expectedSeconds(),
                                        samplesPerStep * d.recordLength / std::max(1.0, budget.readBytesPerSecond));
    const double maxSteps = stepSeconds > 0 ? std::max(1.0, std::floor(budget.targetEpochSeconds / stepSeconds)) : 1e18;
    const double filesByTime = std::floor(maxSteps * samplesPerStep / spf);
    const double filesBySpace = std::floor((r.byteBudget - evalFiles * estimatedFileBytes(d)) / estimatedFileBytes(d));
    double files = std::min({static_cast<double>(d.numFilesTrain), filesByTime, filesBySpace});
    files = std::max(files, minFiles);
    d.numFilesTrain = static_cast<std::uint64_t>(files);
    if (d.numSubfoldersTrain > d.numFilesTrain) d.numSubfoldersTrain = d.numFilesTrain;

    r.filesAfter = d.numFilesTrain;
    r.recordAfter = d.recordLength;
    r.changed = r.filesAfter != r.filesBefore || r.recordAfter != r.recordBefore ||
                d.numSubfoldersTrain != cfg.dataset.numSubfoldersTrain;
    r.datasetBytes = (files + evalFiles) * estimatedFileBytes(d);
    r.stepsPerEpoch = static_cast<std::uint64_t>(std::floor(files * spf / samplesPerStep));
    r.epochSeconds = static_cast<double>(r.stepsPerEpoch) * stepSeconds;

    const std::string limits = "dataset " + bytesText(r.datasetBytes) + " within " + bytesText(r.byteBudget) +
                               " (half the free space, at most a quarter of RAM); one epoch ≈ " +
                               std::to_string(r.stepsPerEpoch) + " steps × " + secondsText(stepSeconds) + " ≈ " +
                               secondsText(r.epochSeconds) + " with " + std::to_string(budget.accelerators) +
                               " accelerator(s).";
    if (!r.changed) {
        r.summary = "Already fits this machine: " + limits;
    } else {
        r.summary = "num_files_train " + std::to_string(r.filesBefore) + " → " + std::to_string(r.filesAfter);
        if (r.recordAfter != r.recordBefore)
            r.summary += ", record_length_bytes " + quantity::format(r.recordBefore, quantity::Kind::Bytes) + " → " +
                         quantity::format(r.recordAfter, quantity::Kind::Bytes) + " (stdev scaled alike)";
        r.summary += ": " + limits;
    }
    if (r.epochSeconds > 1.5 * budget.targetEpochSeconds)
        r.summary += " The compute time alone makes an epoch longer than " + secondsText(budget.targetEpochSeconds) +
                     "; it is part of the workload's shape and is kept.";
    return r;
}

} // namespace trainio
