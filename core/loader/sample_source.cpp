#include "loader/sample_source.h"

#include "loader/thread_tuning.h"
#include "util/errors.h"
#include "util/units.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

namespace trainio::loader {

const char* toString(Policy p) {
    switch (p) {
    case Policy::Lru: return "lru";
    case Policy::Nopfs: return "nopfs";
    case Policy::Plain: break;
    }
    return "plain";
}

Policy parsePolicy(const std::string& text, const std::string& where) {
    if (text == "plain") return Policy::Plain;
    if (text == "lru") return Policy::Lru;
    if (text == "nopfs") return Policy::Nopfs;
    throw InputError(where + " = '" + text + "': expected plain, lru or nopfs");
}

EpochTally& EpochTally::operator+=(const EpochTally& o) {
    accesses += o.accesses;
    storageReads += o.storageReads;
    storageBytesRead += o.storageBytesRead;
    bytesStorage += o.bytesStorage;
    bytesRam += o.bytesRam;
    bytesSsd += o.bytesSsd;
    beladyAccesses += o.beladyAccesses;
    beladyHits += o.beladyHits;
    return *this;
}

double hitRatio(const EpochTally& t) {
    if (t.accesses == 0) return std::numeric_limits<double>::quiet_NaN();
    return std::max(0.0, 1.0 - static_cast<double>(t.storageReads) / static_cast<double>(t.accesses));
}

double beladyHitRatio(const EpochTally& t) {
    if (t.beladyAccesses > 0) return static_cast<double>(t.beladyHits) / static_cast<double>(t.beladyAccesses);
    return t.accesses ? 0.0 : std::numeric_limits<double>::quiet_NaN();
}

PlacementSummary& PlacementSummary::operator+=(const PlacementSummary& o) {
    ramSamples += o.ramSamples;
    ssdSamples += o.ssdSamples;
    storageSamples += o.storageSamples;
    ramBytes += o.ramBytes;
    ssdBytes += o.ssdBytes;
    storageBytes += o.storageBytes;
    return *this;
}

SampleReaderOptions sampleReaderOptions(const WorkloadConfig& cfg) {
    SampleReaderOptions ro;
    ro.transferSize = cfg.reader.transferSize;
    // io_uring splits one call into transfer_size requests, io_depth in flight: hand it whole samples,
    // or it can only ever have one request in flight (docs/io-engines.md).
    if (cfg.trainio.ioEngine == "io_uring") ro.transferSize = std::size_t{1} << 40;
    // The S3 backend likewise splits a call into transfer_size ranged GETs, io_depth in flight (docs/s3.md).
    if (cfg.storage.isS3() && cfg.trainio.ioDepth > 1) ro.transferSize = std::size_t{1} << 40;
    ro.samplesPerFile = std::max<std::uint64_t>(1, cfg.dataset.numSamplesPerFile);
    ro.odirect = cfg.reader.odirect || cfg.trainio.ioEngine == "odirect";
    return ro;
}

struct SampleSource::Counters {
    std::atomic<std::uint64_t> accesses{0}, storageReads{0}, storageBytesRead{0};
    std::atomic<std::uint64_t> bytesStorage{0}, bytesRam{0}, bytesSsd{0};
    std::uint64_t beladyAccesses = 0, beladyHits = 0; // set before the run
    void storageRead(std::uint64_t moved) {
        storageReads.fetch_add(1, std::memory_order_relaxed);
        storageBytesRead.fetch_add(moved, std::memory_order_relaxed);
    }
};

// A placed sample (nopfs). `state` is guarded by the source's mutex; the tier's copy is written before
// the state becomes Ready and only read after, so it needs no lock of its own.
struct SampleSource::Entry {
    std::uint64_t id = 0;
    Tier tier = Tier::Storage;
    std::uint64_t bytes = 0;
    std::uint64_t offset = 0; // in the SSD tier's file
    std::unique_ptr<char[]> data;
    int state = Empty;
};

namespace {


std::uint64_t mibToBytes(double mib) { return static_cast<std::uint64_t>(std::llround(mib * kMiB)); }

// A per-thread buffer the tiers copy samples into (the staging copy a real loader makes).
std::vector<char>& scratch(std::uint64_t bytes) {
    thread_local std::vector<char> buf;
    if (buf.size() < bytes) buf.resize(bytes);
    return buf;
}

void fillSample(char* dst, std::uint64_t bytes, std::uint64_t id) {
    // The bytes a tier holds stand for the sample read from storage; writing them costs what a real
    // copy of that size costs.
    std::memset(dst, static_cast<int>(id & 0xff), bytes);
}

} // namespace

SampleSource::SampleSource(const WorkloadConfig& cfg, IoBackend& io, std::uint64_t rank, std::uint64_t ranks,
                           std::uint64_t runSeed, const std::atomic<bool>& cancel)
    : cfg_(cfg), io_(io), cancel_(cancel), policy_(parsePolicy(cfg.trainio.loader.policy, "trainio.loader")),
      layout_(cfg.dataset), spf_(std::max<std::uint64_t>(1, cfg.dataset.numSamplesPerFile)) {
    for (std::uint64_t e = 0; e <= cfg.train.epochs; ++e) counters_.push_back(std::make_unique<Counters>());
    const auto& ld = cfg.trainio.loader;
    const std::uint64_t ramBytes = mibToBytes(ld.ramTierMiB);
    const std::uint64_t ssdBytes = policy_ == Policy::Nopfs && !ld.ssdTier.path.empty() ? mibToBytes(ld.ssdTier.capacityMiB) : 0;
    if (policy_ == Policy::Lru) lruCapacity_ = ramBytes;
    if (policy_ == Policy::Nopfs && ld.stagingMiB > 0) {
        // The staging buffer holds whole batches of mean-sized samples; at least one batch per reader so
        // that every reader has work in flight.
        const double batchBytes = std::max(1.0, static_cast<double>(std::max<std::uint64_t>(1, cfg.reader.batchSize)) *
                                                    std::max(1.0, cfg.dataset.recordLength));
        const auto fit = static_cast<std::uint64_t>(static_cast<double>(mibToBytes(ld.stagingMiB)) / batchBytes);
        stagingBatches_ = std::max<std::uint64_t>({fit, cfg.reader.readThreads, 1});
    }
    if (policy_ == Policy::Plain || ramBytes + ssdBytes == 0) return; // no tier: Belady's bound is 0 hits

    const AccessString string = accessString(cfg, rank, ranks, runSeed);
    const SampleBytes bytesOf = [&cfg](std::uint64_t id) { return sampleBytes(cfg, id); };
    // The bound for the same capacity, over the same string (per epoch).
    const CacheSimulation bound = simulateBelady(string, ramBytes + ssdBytes, bytesOf);
    for (std::size_t e = 0; e < bound.accessesPerEpoch.size(); ++e) {
        counters_[e + 1]->beladyAccesses = bound.accessesPerEpoch[e];
        counters_[e + 1]->beladyHits = bound.hitsPerEpoch[e];
    }
    if (policy_ != Policy::Nopfs) return;

    const Placement placed = placeSamples(frequencyRanking(string, bytesOf), TierCapacity{ramBytes, ssdBytes});
    placement_ = {placed.ramSamples, placed.ssdSamples, placed.storageSamples, placed.ramBytes, placed.ssdBytes, placed.storageBytes};
    std::uint64_t offset = 0;
    std::vector<std::pair<std::uint64_t, Entry*>> byFirstAccess;
    for (std::size_t i = 0; i < placed.ranking.size(); ++i) {
        if (placed.tier[i] == Tier::Storage) continue;
        auto e = std::make_unique<Entry>();
        e->id = placed.ranking[i].sample;
        e->tier = placed.tier[i];
        e->bytes = placed.ranking[i].bytes;
        if (e->tier == Tier::Ssd) {
            e->offset = offset;
            offset += e->bytes;
        }
        byFirstAccess.emplace_back(placed.ranking[i].firstAccess, e.get());
        entries_.emplace(e->id, std::move(e));
    }
    std::sort(byFirstAccess.begin(), byFirstAccess.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& fe : byFirstAccess) fillOrder_.push_back(fe.second);

    if (placed.ssdSamples > 0) {
        const std::string& dir = ld.ssdTier.path;
        struct statvfs vfs{};
        if (::statvfs(dir.c_str(), &vfs) != 0)
            throw InputError("trainio.ssd_tier.path = " + dir + ": " + std::strerror(errno) + " (expected an existing local folder)");
        const auto freeBytes = static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize;
        if (freeBytes < placed.ssdBytes)
            throw InputError("trainio.ssd_tier.path = " + dir + ": " + std::to_string(freeBytes / 1048576) +
                             " MiB free, the SSD tier of rank " + std::to_string(rank) + " needs " +
                             std::to_string(placed.ssdBytes / 1048576) + " MiB (lower trainio.ssd_tier.capacity_mib)");
        // One file per rank, removed at once: it lives as long as the descriptor, even if the run is killed.
        std::string file = dir + "/.trainio-ssd-tier-" + std::to_string(::getpid()) + "-" + std::to_string(rank);
        ssdFd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (ssdFd_ < 0)
            throw InputError("trainio.ssd_tier.path = " + dir + ": cannot create the tier file " + file + ": " + std::strerror(errno));
        ::unlink(file.c_str());
    }
}

SampleSource::~SampleSource() {
    shutdown_.store(true);
    filled_.notify_all();
    for (auto& t : prefetchers_) t.join();
    if (ssdFd_ >= 0) ::close(ssdFd_);
}

SampleSource::Counters& SampleSource::counters(std::uint64_t epoch) {
    return *counters_[std::min<std::uint64_t>(epoch, counters_.size() - 1)];
}

void SampleSource::beginEpoch(std::uint64_t epoch) {
    epoch_.store(epoch);
    if (epoch == 0) return;
    prefetchEpoch_.store(epoch);
    if (policy_ != Policy::Nopfs || prefetchStarted_ || fillOrder_.empty()) return;
    prefetchStarted_ = true;
    // As many prefetch threads as readers: NoPFS's prefetchers run beside the loader's workers.
    const std::uint64_t n = std::max<std::uint64_t>(1, cfg_.reader.readThreads);
    for (std::uint64_t i = 0; i < n; ++i) prefetchers_.emplace_back([this] { prefetchLoop(); });
}

std::uint64_t SampleSource::readFromStorage(std::uint64_t id, SampleReader& reader, std::uint64_t& sampleBytes) {
    thread_local std::string path;
    layout_.filePath(Split::Train, id / spf_, path);
    const SampleReadResult r = reader.read(path, id % spf_);
    sampleBytes = r.sampleBytes;
    return r.bytesFromStorage;
}

void SampleSource::fail(const std::string& what) {
    {
        std::lock_guard lock(mutex_);
        if (error_.empty()) error_ = what;
        failed_.store(true);
    }
    filled_.notify_all();
}

std::uint64_t SampleSource::fetch(std::uint64_t id, SampleReader& reader) {
    Counters& c = counters(epoch_.load(std::memory_order_relaxed));
    c.accesses.fetch_add(1, std::memory_order_relaxed);
    if (policy_ == Policy::Lru) return fetchLru(id, reader, c);
    if (policy_ == Policy::Nopfs) return fetchNopfs(id, reader, c);
    std::uint64_t sb = 0;
    const std::uint64_t moved = readFromStorage(id, reader, sb);
    c.storageRead(moved);
    c.bytesStorage.fetch_add(sb, std::memory_order_relaxed);
    return moved;
}

std::uint64_t SampleSource::fetchLru(std::uint64_t id, SampleReader& reader, Counters& c) {
    {
        std::unique_lock lock(mutex_);
        if (const auto it = lru_.find(id); it != lru_.end()) {
            lruOrder_.splice(lruOrder_.begin(), lruOrder_, it->second.at);
            const std::shared_ptr<std::vector<char>> data = it->second.data; // kept alive while copied
            lock.unlock();
            std::memcpy(scratch(data->size()).data(), data->data(), data->size());
            c.bytesRam.fetch_add(data->size(), std::memory_order_relaxed);
            return 0;
        }
    }
    std::uint64_t sb = 0;
    const std::uint64_t moved = readFromStorage(id, reader, sb);
    c.storageRead(moved);
    c.bytesStorage.fetch_add(sb, std::memory_order_relaxed);
    if (sb == 0 || sb > lruCapacity_) return moved;
    std::shared_ptr<std::vector<char>> buf;
    {
        std::lock_guard lock(mutex_);
        if (lru_.count(id)) return moved; // another reader brought it in meanwhile
        // Evict the least recently read until it fits and reserve its room; reuse a victim's buffer of the
        // same size that no reader is copying from.
        while (lruUsed_ + sb > lruCapacity_ && !lruOrder_.empty()) {
            const std::uint64_t victim = lruOrder_.back();
            const auto v = lru_.find(victim);
            lruUsed_ -= v->second.data->size();
            if (!buf && v->second.data->size() == sb && v->second.data.use_count() == 1) buf = std::move(v->second.data);
            lruOrder_.pop_back();
            lru_.erase(v);
        }
        if (lruUsed_ + sb > lruCapacity_) return moved; // the room is reserved by copies being made
        lruUsed_ += sb;
    }
    // The copy is made outside the lock and becomes visible only when complete.
    if (!buf) buf = std::make_shared<std::vector<char>>(sb);
    fillSample(buf->data(), sb, id);
    std::lock_guard lock(mutex_);
    if (lru_.count(id)) {
        lruUsed_ -= sb;
        return moved;
    }
    lruOrder_.push_front(id);
    lru_.emplace(id, LruEntry{lruOrder_.begin(), std::move(buf)});
    return moved;
}

void SampleSource::store(Entry& e) {
    if (e.tier == Tier::Ram) {
        e.data = std::make_unique<char[]>(e.bytes);
        fillSample(e.data.get(), e.bytes, e.id);
        return;
    }
    std::vector<char>& buf = scratch(e.bytes);
    fillSample(buf.data(), e.bytes, e.id);
    std::uint64_t done = 0;
    while (done < e.bytes) {
        const ssize_t n = ::pwrite(ssdFd_, buf.data() + done, e.bytes - done, static_cast<off_t>(e.offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
            throw RunError("write the SSD tier in " + cfg_.trainio.loader.ssdTier.path + ": " +
                           (n < 0 ? std::strerror(errno) : std::string("no space written")));
        done += static_cast<std::uint64_t>(n);
    }
}

void SampleSource::serve(const Entry& e, Counters& c) {
    std::vector<char>& buf = scratch(e.bytes);
    if (e.tier == Tier::Ram) {
        std::memcpy(buf.data(), e.data.get(), e.bytes);
        c.bytesRam.fetch_add(e.bytes, std::memory_order_relaxed);
        return;
    }
    std::uint64_t done = 0;
    while (done < e.bytes) {
        const ssize_t n = ::pread(ssdFd_, buf.data() + done, e.bytes - done, static_cast<off_t>(e.offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
            throw RunError("read the SSD tier in " + cfg_.trainio.loader.ssdTier.path + ": " +
                           (n < 0 ? std::strerror(errno) : std::string("end of file")));
        done += static_cast<std::uint64_t>(n);
    }
    c.bytesSsd.fetch_add(e.bytes, std::memory_order_relaxed);
}

std::uint64_t SampleSource::fetchNopfs(std::uint64_t id, SampleReader& reader, Counters& c) {
    const auto it = entries_.find(id); // entries_ does not change after construction
    if (it == entries_.end()) {
        std::uint64_t sb = 0;
        const std::uint64_t moved = readFromStorage(id, reader, sb);
        c.storageRead(moved);
        c.bytesStorage.fetch_add(sb, std::memory_order_relaxed);
        return moved;
    }
    Entry& e = *it->second;
    {
        std::unique_lock lock(mutex_);
        for (;;) {
            if (failed_.load()) throw RunError(error_);
            if (e.state == Ready) {
                lock.unlock();
                serve(e, c);
                return 0;
            }
            if (e.state == Empty) {
                e.state = Filling; // this reader reads it from storage and fills its tier
                break;
            }
            // A prefetcher is reading it: wait for it (re-checking cancel, which a signal handler may set).
            if (cancel_.load(std::memory_order_relaxed) || shutdown_.load()) return 0;
            filled_.wait_for(lock, std::chrono::milliseconds(20));
        }
    }
    std::uint64_t moved = 0, sb = 0;
    try {
        moved = readFromStorage(id, reader, sb);
        store(e);
    } catch (...) {
        {
            std::lock_guard lock(mutex_);
            e.state = Empty;
        }
        filled_.notify_all();
        throw;
    }
    c.storageRead(moved);
    c.bytesStorage.fetch_add(sb, std::memory_order_relaxed);
    {
        std::lock_guard lock(mutex_);
        e.state = Ready;
    }
    filled_.notify_all();
    return moved;
}

void SampleSource::prefetchLoop() {
    runAsBatch(); // like the readers: never preempt the training loop
    std::unique_ptr<SampleReader> reader;
    try {
        reader = makeSampleReader(cfg_.dataset.format, io_, sampleReaderOptions(cfg_));
    } catch (const std::exception& ex) {
        fail(ex.what());
        return;
    }
    for (;;) {
        Entry* e = nullptr;
        {
            std::lock_guard lock(mutex_);
            while (fillCursor_ < fillOrder_.size() && fillOrder_[fillCursor_]->state != Empty) ++fillCursor_;
            if (fillCursor_ == fillOrder_.size() || shutdown_.load() || failed_.load() ||
                cancel_.load(std::memory_order_relaxed))
                return;
            e = fillOrder_[fillCursor_++];
            e->state = Filling;
        }
        std::uint64_t moved = 0, sb = 0;
        try {
            moved = readFromStorage(e->id, *reader, sb);
            store(*e);
        } catch (const std::exception& ex) {
            {
                std::lock_guard lock(mutex_);
                e->state = Empty;
            }
            fail(std::string("nopfs prefetcher: ") + ex.what());
            return;
        }
        counters(prefetchEpoch_.load()).storageRead(moved);
        {
            std::lock_guard lock(mutex_);
            e->state = Ready;
        }
        filled_.notify_all();
    }
}

std::vector<EpochTally> SampleSource::tallies() const {
    std::vector<EpochTally> out;
    for (std::size_t e = 1; e < counters_.size(); ++e) {
        const Counters& c = *counters_[e];
        EpochTally t;
        t.accesses = c.accesses.load();
        t.storageReads = c.storageReads.load();
        t.storageBytesRead = c.storageBytesRead.load();
        t.bytesStorage = c.bytesStorage.load();
        t.bytesRam = c.bytesRam.load();
        t.bytesSsd = c.bytesSsd.load();
        t.beladyAccesses = c.beladyAccesses;
        t.beladyHits = c.beladyHits;
        out.push_back(t);
    }
    return out;
}

} // namespace trainio::loader
