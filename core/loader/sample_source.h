// Where one emulated accelerator's samples come from (issue 13, docs/loader.md): the loader policy between
// the reader threads and the storage.
//
//   plain  every sample is read from storage through the calling reader's SampleReader (DLIO's loader).
//   lru    a RAM cache of trainio.ram_tier_mib in front of the storage: a hit copies the sample out of RAM,
//          a miss reads it from storage and keeps a copy, evicting the least recently read.
//   nopfs  NoPFS (Dryden et al., SC21): before the first epoch the rank's whole access string is computed
//          from the seed (access_plan.h — the same planShard + sampleOrder the engine then reads), samples
//          are ranked by how often they will be read and placed in that order into the RAM tier, then the
//          SSD tier (a file in trainio.ssd_tier.path); prefetch threads fill both tiers from storage in
//          first-access order; each access is served by the fastest tier that holds the sample, and a
//          placed sample is read from storage once for the whole run (by whichever of the prefetcher or a
//          reader gets to it first). The staging buffer is the reader's window of batch slots (sized by
//          trainio.staging_mib): a sample leaves it when its batch is consumed.
//
// Every access is counted per epoch: the samples read from storage (readers and prefetchers), the bytes
// delivered from each tier, and — for the same capacity — what Belady's optimal eviction would have hit
// (the bound the nopfs placement is judged by). hit_ratio = 1 − storage reads / accesses in the epoch, so
// that a sample a prefetcher brought in during the epoch counts as the miss it is.
//
// Thread-safety: fetch() from any number of reader threads at once; beginEpoch() from the rank's thread
// while no reader is inside fetch() (between the prefetcher's epochs); tallies() at any time.
#pragma once

#include "config/workload_config.h"
#include "dataset/dataset_layout.h"
#include "format/sample_reader.h"
#include "io/io_backend.h"
#include "loader/access_plan.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace trainio::loader {

enum class Policy { Plain, Lru, Nopfs };
const char* toString(Policy p); // "plain", "lru", "nopfs"
// Throws InputError naming `where` for anything but plain, lru or nopfs.
Policy parsePolicy(const std::string& text, const std::string& where);

// The reader options a workload's readers use (the transfer size, O_DIRECT, samples per file).
SampleReaderOptions sampleReaderOptions(const WorkloadConfig& cfg);

// One rank's counters for one epoch.
struct EpochTally {
    std::uint64_t accesses = 0;         // samples delivered to the training loop
    std::uint64_t storageReads = 0;     // samples read from storage (by readers and prefetchers)
    std::uint64_t storageBytesRead = 0; // bytes those reads moved through the I/O backend
    std::uint64_t bytesStorage = 0;     // bytes delivered, by where the access was served from
    std::uint64_t bytesRam = 0;
    std::uint64_t bytesSsd = 0;
    std::uint64_t beladyAccesses = 0; // Belady's MIN for the same capacity over the same access string
    std::uint64_t beladyHits = 0;
    EpochTally& operator+=(const EpochTally& o); // summing ranks
};

// 1 − storage reads / accesses (a read a prefetcher made counts as the miss it is); NaN without accesses.
double hitRatio(const EpochTally& t);
// Belady's hits / accesses for the same capacity; 0 without a tier (no capacity, no hit); NaN without accesses.
double beladyHitRatio(const EpochTally& t);

// What the nopfs placement put where (per rank).
struct PlacementSummary {
    std::uint64_t ramSamples = 0, ssdSamples = 0, storageSamples = 0;
    std::uint64_t ramBytes = 0, ssdBytes = 0, storageBytes = 0;
    PlacementSummary& operator+=(const PlacementSummary& o);
};

class SampleSource {
public:
    // Plans (nopfs: access string, ranking, placement, the SSD tier file) and, for nopfs, computes the Belady
    // bound. Throws InputError / RunError (an SSD tier folder that cannot hold its capacity, …) before
    // anything is measured. `cancel` stops the prefetchers and waiting readers.
    SampleSource(const WorkloadConfig& cfg, IoBackend& io, std::uint64_t rank, std::uint64_t ranks, std::uint64_t runSeed,
                 const std::atomic<bool>& cancel);
    ~SampleSource();
    SampleSource(const SampleSource&) = delete;
    SampleSource& operator=(const SampleSource&) = delete;

    Policy policy() const { return policy_; }
    // The window of batch slots the reader should keep (nopfs' staging buffer), 0 = the reader's default.
    std::uint64_t stagingBatches() const { return stagingBatches_; }

    // Accesses from now on count to `epoch` (1-based); 0 = outside every epoch (DLIO v3's reader warm-up),
    // not counted. The first epoch ≥ 1 starts the nopfs prefetchers.
    void beginEpoch(std::uint64_t epoch);

    // Delivers sample `id` (a global sample id) to the calling reader thread: from a tier, or from storage
    // through `reader` (that thread's). Returns the bytes this call read through the I/O backend. Throws
    // RunError on a read error (also one a prefetcher met).
    std::uint64_t fetch(std::uint64_t id, SampleReader& reader);

    std::vector<EpochTally> tallies() const; // [e − 1] for epoch e
    const PlacementSummary& placement() const { return placement_; }

private:
    struct Counters;
    struct Entry;
    enum : int { Empty = 0, Filling = 1, Ready = 2 };

    std::uint64_t readFromStorage(std::uint64_t id, SampleReader& reader, std::uint64_t& sampleBytes);
    std::uint64_t fetchLru(std::uint64_t id, SampleReader& reader, Counters& c);
    std::uint64_t fetchNopfs(std::uint64_t id, SampleReader& reader, Counters& c);
    void store(Entry& e); // writes a freshly read sample into its tier
    void serve(const Entry& e, Counters& c);
    void prefetchLoop();
    Counters& counters(std::uint64_t epoch);
    void fail(const std::string& what);

    const WorkloadConfig& cfg_;
    IoBackend& io_;
    const std::atomic<bool>& cancel_;
    const Policy policy_;
    DatasetLayout layout_;
    const std::uint64_t spf_;
    std::uint64_t stagingBatches_ = 0;
    std::vector<std::unique_ptr<Counters>> counters_; // [0] outside epochs, [e] epoch e
    std::atomic<std::uint64_t> epoch_{0};
    std::atomic<std::uint64_t> prefetchEpoch_{1}; // the last epoch begun: what the prefetchers count to

    mutable std::mutex mutex_;
    std::condition_variable filled_;

    // lru
    std::uint64_t lruCapacity_ = 0, lruUsed_ = 0;
    std::list<std::uint64_t> lruOrder_; // front = most recently read
    struct LruEntry {
        std::list<std::uint64_t>::iterator at;
        std::shared_ptr<std::vector<char>> data;
    };
    std::unordered_map<std::uint64_t, LruEntry> lru_;

    // nopfs
    std::unordered_map<std::uint64_t, std::unique_ptr<Entry>> entries_; // the placed samples
    std::vector<Entry*> fillOrder_;                                      // placed samples by first access
    std::size_t fillCursor_ = 0;
    PlacementSummary placement_;
    int ssdFd_ = -1;
    std::vector<std::thread> prefetchers_;
    bool prefetchStarted_ = false;
    std::atomic<bool> shutdown_{false};
    std::atomic<bool> failed_{false};
    std::string error_;
};

} // namespace trainio::loader
