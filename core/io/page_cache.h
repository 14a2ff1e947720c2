// The page-cache honesty meter (docs/cache-honesty.md): how many of the bytes the readers delivered
// the storage really supplied, and how many the page cache served.
//
// Integration (one object per run, all calls outside the measured epoch):
//   PageCacheMeter meter(dataFolder, trainFiles);        // dataset.data_folder; the DatasetLayout's
//                                                          // train file paths (the files an epoch reads)
//   meter.device();                                        // the folder's block device, or none + why
//   meter.beginEpoch();                                    // before the epoch's first read (and after
//                                                          // applyCacheControl, so residency shows it)
//   EpochIoRecord r = meter.endEpoch(epoch, deliveredPerRank);  // after the epoch's last read
//   IoReport report{engine, cache, storageJson, {r, ...}};
//   store::writeIoReport(invocationFolder, report);         // trainio_io.json (store/run_files.h)
//   cacheWarning(report)                                    // non-empty: show it with the result
// deliveredPerRank is what the engine already counts (BatchPrefetcher::bytesRead deltas per rank),
// so the meter adds nothing to the hot path. beginEpoch reads /proc/self/io and /proc/diskstats and
// runs mincore over at most 64 files × 16 MiB (the defaults: under 1 ms for small files, tens of ms
// for the full 1 GiB sample); endEpoch reads the two /proc files (~0.05 ms). A PageCacheMeter is not
// thread-safe: call it from the thread that runs the epochs. The free functions are thread-safe.
//
// What is measured where (Linux):
// - bytes_from_storage: /proc/self/io read_bytes — bytes this process caused to be fetched from the
//   storage layer: all its threads, readahead included, O_DIRECT included, page-cache hits excluded.
//   rchar counts every byte read()/pread() returned, cache hits included, so it says nothing about
//   the storage; it is kept only for context. The counter is per process: the split per rank is an
//   apportionment (apportionByShare), not a measurement.
// - device_read_bytes: sectors read on the data folder's block device (/proc/diskstats) × 512. The
//   device is shared: other processes' reads count too. None for tmpfs, overlayfs, NFS, btrfs
//   (anonymous st_dev) and other file systems without one block device behind them.
// - cache_resident_fraction: mincore over a bounded, evenly spread sample of the dataset's files at
//   epoch start.
#pragma once

#include "util/page_cache_verdict.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace trainio {

// ---- (a) this process's I/O counters -------------------------------------------------------------

struct ProcessIoSnapshot {
    bool available = false;
    std::string unavailableReason; // e.g. the kernel has no task I/O accounting
    std::uint64_t rchar = 0;       // bytes returned by read-like calls, page-cache hits included
    std::uint64_t readBytes = 0;   // bytes fetched from the storage layer (the storage figure)
};

// Reads /proc/self/io (the path is injectable for tests). Never throws: an unreadable or malformed
// file gives available = false and a reason naming the file.
ProcessIoSnapshot readProcessIo(const std::filesystem::path& procIo = "/proc/self/io");

// after − before, 0 where a counter went backwards (it never does within one process).
std::uint64_t readBytesDelta(const ProcessIoSnapshot& before, const ProcessIoSnapshot& after);

// ---- (b) the block device behind a folder --------------------------------------------------------

struct SystemPaths {
    std::filesystem::path sysDevBlock = "/sys/dev/block";
    std::filesystem::path diskstats = "/proc/diskstats";
};

struct BlockDevice {
    bool found = false;
    std::string reason; // when !found: why there is none (file system type, st_dev, …)
    unsigned major = 0, minor = 0;
    std::string name;       // the kernel's name, as in /proc/diskstats: "nvme0n1p2", "dm-0", "md0"
    std::string parentDisk; // for a partition, its disk ("nvme0n1"); otherwise empty
    std::string mapperName; // for device-mapper, /sys/…/dm/name ("vg-root"); otherwise empty
    std::string fsType;     // file system type of the folder ("ext4", "tmpfs", … or "0x…")
};

// The block device holding folder: stat(folder).st_dev, named through /sys/dev/block/<maj>:<min>.
// Gives found = false with a reason — never a wrong device — for file systems without one block
// device (anonymous st_dev major 0: tmpfs, overlayfs, NFS, btrfs, FUSE…), and when the device has no
// entry in sysfs or diskstats.
BlockDevice findBlockDevice(const std::filesystem::path& folder, const SystemPaths& paths = {});
// The same from a device number and a file system type name (for tests with a fake sysfs tree).
BlockDevice findBlockDeviceByNumber(unsigned major, unsigned minor, const std::string& fsType,
                                    const SystemPaths& paths = {});
// Sectors read × 512 (diskstats counts 512-byte sectors whatever the device's sector size), or
// nullopt when the device is not in the diskstats file.
std::optional<std::uint64_t> deviceReadBytes(const std::string& deviceName,
                                             const std::filesystem::path& diskstats = "/proc/diskstats");

// ---- (c) page-cache residency of a dataset -------------------------------------------------------

struct ResidencyOptions {
    std::size_t maxFiles = 64;                   // files sampled, evenly spread over the list
    std::uint64_t maxBytesPerFile = 16ull << 20; // bytes sampled per file, in windows spread evenly
    std::size_t windowsPerFile = 16;             // windows a larger file's sample is cut into
};

struct Residency {
    std::optional<double> residentFraction; // resident pages ÷ sampled pages; nullopt if nothing measurable
    std::uint64_t filesInDataset = 0;
    std::uint64_t filesSampled = 0; // files whose pages were counted
    std::uint64_t pagesSampled = 0;
    std::uint64_t pagesResident = 0;
    std::vector<std::string> problems; // files that could not be measured, each with why
};

// mmap + mincore (no page is touched or faulted in). Linux reports residency of a file only to a
// process that owns it or could open it for writing (or has CAP_FOWNER); other files are listed in
// problems, not counted as "not resident".
Residency measureResidency(const std::vector<std::string>& files, const ResidencyOptions& options = {});

// ---- (d) per-epoch, per-rank records and trainio_io.json ------------------------------------------

struct RankIoRecord {
    std::uint64_t bytesDelivered = 0;
    std::optional<std::uint64_t> bytesFromStorage; // apportioned share of the process's read_bytes;
                                                   // nullopt where /proc/self/io is unavailable
    std::optional<std::uint64_t> deviceReadBytes;  // apportioned share; nullopt without a device
    std::optional<double> cacheResidentFraction;   // the dataset's, at epoch start (same for all ranks)
};

struct EpochIoRecord {
    std::uint64_t epoch = 1;
    std::vector<RankIoRecord> ranks;
};

// 100 × (1 − fromStorage ÷ delivered) clamped to [0, 100]; nullopt when nothing was delivered.
// Clamped because read_bytes counts readahead beyond what was delivered and any other file the
// process read, so it can exceed delivered.
std::optional<double> percentFromCache(std::uint64_t delivered, std::uint64_t fromStorage);
// The epoch's figure: the same formula over the sums of its ranks (nullopt if a rank has no figure).
std::optional<double> percentFromCache(const EpochIoRecord& epoch);

// Splits total by each rank's share of delivered bytes (largest remainder: the parts sum to total
// exactly). With nothing delivered, the split is even.
std::vector<std::uint64_t> apportionByShare(std::uint64_t total, const std::vector<std::uint64_t>& delivered);

struct IoReport {
    std::string engine;                                // io_engine: posix | odirect | mmap | io_uring
    std::string cache;                                 // keep | fadvise | drop
    nlohmann::json storage = nlohmann::json::object(); // the emulated-storage settings, {} when none
    std::vector<EpochIoRecord> epochs;
};

nlohmann::json ioReportJson(const IoReport& report);

// A warning naming the epochs where more than kCacheServedPercent of the delivered bytes came from the page
// cache, or "" if none (pageCacheVerdict over the report's epochs, util/page_cache_verdict.h).
std::string cacheWarning(const IoReport& report);

// ---- the meter -----------------------------------------------------------------------------------

class PageCacheMeter {
public:
    PageCacheMeter(const std::filesystem::path& dataFolder, std::vector<std::string> datasetFiles,
                   ResidencyOptions residency = {}, SystemPaths paths = {});
    const BlockDevice& device() const { return device_; }
    // Snapshots the counters and measures residency. Returns the residency for callers that show it.
    const Residency& beginEpoch();
    // Deltas since beginEpoch, apportioned to ranks by deliveredPerRank.
    EpochIoRecord endEpoch(std::uint64_t epoch, const std::vector<std::uint64_t>& deliveredPerRank);
    // Other workloads read in this process at the same time (a collocation): the process's and the
    // device's counters are theirs too, so no rank gets a share of them (nullopt: not measured); the
    // residency of this workload's own files is still measured.
    void shareProcessWithOtherWorkloads() { processShared_ = true; }

private:
    bool processShared_ = false;
    std::vector<std::string> files_;
    ResidencyOptions residencyOptions_;
    SystemPaths paths_;
    BlockDevice device_;
    Residency residency_;
    ProcessIoSnapshot processStart_;
    std::optional<std::uint64_t> deviceStart_;
};

} // namespace trainio
