#include "preflight/memory_budget.h"

#include "dataset/dataset_generator.h"
#include "io/aligned_buffer.h"
#include "telemetry/proc_parsers.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace trainio {
namespace {

// What AlignedBuffer::reserve(bytes) makes resident once written.
double buffered(double bytes) {
    if (bytes <= 0) return 0;
    const double align = bytes >= static_cast<double>(AlignedBuffer::kHugeFrom) ? static_cast<double>(AlignedBuffer::kHugePage)
                                                                                 : static_cast<double>(AlignedBuffer::kAlignment);
    return std::ceil(bytes / align) * align;
}

double mib(double bytes) { return bytes / 1048576.0; }

// The largest train file as generated (sizes are reproducible from the configuration): every file when
// the sizes vary, at most 200,000 of them spread over the split.
double largestFile(const WorkloadConfig& cfg) {
    const std::uint64_t n = cfg.dataset.numFilesTrain;
    if (n == 0) return 0;
    if (cfg.dataset.recordLengthStdev <= 0) return static_cast<double>(expectedDatasetFileSize(cfg, Split::Train, 0));
    const std::uint64_t look = std::min<std::uint64_t>(n, 200000);
    std::uint64_t largest = 0;
    for (std::uint64_t k = 0; k < look; ++k)
        largest = std::max(largest, expectedDatasetFileSize(cfg, Split::Train, look == n ? k : k * (n - 1) / (look - 1)));
    return static_cast<double>(largest);
}

} // namespace

std::uint64_t processResidentBytes() {
    std::ifstream in("/proc/self/statm");
    std::stringstream text;
    text << in.rdbuf();
    try {
        return telemetry::parseStatmResidentPages(text.str()) * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    } catch (...) {
        return 0; // unreadable: the budget then leaves the process out, and says 0
    }
}

std::uint64_t processPeakResidentBytes() {
    rusage ru{};
    if (::getrusage(RUSAGE_SELF, &ru) != 0) return 0;
    return static_cast<std::uint64_t>(ru.ru_maxrss) * 1024; // KiB on Linux
}

MemoryBudget memoryBudget(const WorkloadConfig& cfg, std::uint64_t accelerators) {
    MemoryBudget b;
    accelerators = std::max<std::uint64_t>(1, accelerators);
    b.readers = std::max<std::uint64_t>(1, cfg.reader.readThreads) * accelerators;
    const double transfer = static_cast<double>(std::max<std::uint64_t>(1, cfg.reader.transferSize));
    const std::uint64_t depth = std::max<std::uint64_t>(1, cfg.trainio.ioDepth);
    const DataFormat f = cfg.dataset.format;
    const bool fileFormat = f == DataFormat::Npz || f == DataFormat::Npy || f == DataFormat::Jpeg || f == DataFormat::Png;
    const bool wholeAlways = f == DataFormat::Jpeg || f == DataFormat::Png; // decoded: every byte looked at
    char why[256];
    if (fileFormat && (depth > 1 || wholeAlways)) {
        const double largest = largestFile(cfg);
        b.perReaderBytes = buffered(largest);
        std::snprintf(why, sizeof why, "the largest file, %.1f MiB, read whole (%llu requests of %.0f KiB in flight land in it)",
                      mib(largest), static_cast<unsigned long long>(depth), transfer / 1024.0);
    } else if (fileFormat) {
        // The framing windows' chunks in the file-sized buffer (the head's; the tail's, which may straddle
        // two pages) and one transfer_size chunk for the payload.
        b.perReaderBytes = 3 * buffered(std::max(transfer, 131072.0)) + buffered(transfer);
        std::snprintf(why, sizeof why, "the framing's head and tail chunks and one %.0f KiB transfer", transfer / 1024.0);
    } else {
        const double record = cfg.dataset.recordLength + 4.0 * cfg.dataset.recordLengthStdev;
        b.perReaderBytes = buffered(record) + buffered(transfer);
        std::snprintf(why, sizeof why, "one record (mean + 4 stdev: %.1f MiB) and one %.0f KiB transfer", mib(record), transfer / 1024.0);
    }
    b.perReaderWhy = why;
    const auto& ld = cfg.trainio.loader;
    if (ld.policy != "plain") b.tierBytes = (ld.ramTierMiB + ld.stagingMiB) * 1048576.0 * static_cast<double>(accelerators);
    b.processBytes = static_cast<double>(processResidentBytes());
    return b;
}

std::string MemoryBudget::text() const {
    char s[512];
    std::snprintf(s, sizeof s, "S3 memory budget: %llu readers x %.1f MiB (%s) + loader tiers %.1f MiB + this process %.1f MiB = %.1f MiB",
                  static_cast<unsigned long long>(readers), mib(perReaderBytes), perReaderWhy.c_str(), mib(tierBytes),
                  mib(processBytes), mib(totalBytes()));
    return s;
}

} // namespace trainio
