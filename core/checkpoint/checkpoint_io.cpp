#include "checkpoint/checkpoint_io.h"

#include "metrics/dlio_metrics.h"
#include "util/clock.h"
#include "util/errors.h"
#include "util/prng.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

namespace trainio::checkpoint {
namespace fs = std::filesystem;

namespace {

double seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

} // namespace

double recordThroughputGiBs(const CheckpointResults& r, const CheckpointRecord& rec) {
    const double d = rec.duration();
    return d > 0 ? r.sizeGiB / d : 0.0;
}

CheckpointMetrics checkpointMetrics(const CheckpointResults& r, Operation op) {
    CheckpointMetrics m;
    if (r.perRank.empty()) return m;
    std::vector<double> io, dur;
    for (const auto& rec : r.perRank[0]) {
        if (rec.op != op || !rec.complete) continue;
        io.push_back(recordThroughputGiBs(r, rec));
        dur.push_back(rec.duration());
    }
    m.count = io.size();
    if (io.empty()) return m;
    // numpy mean and std (ddof 0), as statscounter.py end_run
    m.ioMeanGiBs = mean(io);
    m.ioStdevGiBs = populationStdev(io);
    m.durationMean = mean(dur);
    m.durationStdev = populationStdev(dur);
    return m;
}

Checkpointer::Checkpointer(const WorkloadConfig& cfg, CheckpointPlan plan, Options options)
    : plan_(std::move(plan)), opt_(std::move(options)), folder_(cfg.checkpoint.folder), objectStore_(cfg.storage.isS3()),
      fsync_(cfg.checkpoint.fsync),
      sizeGiB_(plan_.dlioCheckpointSizeGiB * plan_.scale), readBuffers_(plan_.ranks), records_(plan_.ranks) {
    if (!opt_.io) opt_.io = makePosixBackend();
    if (opt_.chunkBytes == 0) opt_.chunkBytes = 1;
    std::uint64_t largest = 0;
    for (const auto& rp : plan_.perRank)
        for (const auto& f : rp.files) largest = std::max(largest, f.bytes);
    const std::size_t chunk = static_cast<std::size_t>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(largest, opt_.chunkBytes)));
    pattern_.reserve(chunk);
    // The fork writes random tensors unless checkpoint.randomize_tensor is False (then zeros, which a
    // compressing or deduplicating store would flatter).
    if (cfg.checkpoint.randomizeTensor) {
        Xoshiro256StarStar g(mixSeed(cfg.train.seed, 0xC4EC4B01));
        g.fill(pattern_.data(), pattern_.capacity());
    } else {
        std::memset(pattern_.data(), 0, pattern_.capacity());
    }
}

std::vector<std::string> Checkpointer::files(std::uint64_t epoch, std::uint64_t step, std::uint64_t first,
                                             std::uint64_t count) const {
    std::vector<std::string> out;
    const fs::path dir = folder_ / checkpointFolderName(epoch, step);
    for (const auto& rp : plan_.perRank)
        if (rp.rank >= first && rp.rank - first < count)
            for (const auto& f : rp.files) out.push_back((dir / f.relativePath).string());
    return out;
}

bool Checkpointer::fail(const std::string& message) {
    {
        std::lock_guard lock(errorMutex_);
        if (error_.empty()) error_ = message;
    }
    failed_.store(true, std::memory_order_release);
    return false;
}

std::string Checkpointer::error() const {
    std::lock_guard lock(errorMutex_);
    return error_;
}

void Checkpointer::record(const CheckpointRecord& rec) {
    records_.at(static_cast<std::size_t>(rec.rank)).push_back(rec);
}

bool Checkpointer::write(std::uint64_t rank, std::uint64_t index, std::uint64_t epoch, std::uint64_t step,
                         CheckpointRecord& rec) {
    return transfer(Operation::Write, rank, index, epoch, step, rec);
}

bool Checkpointer::read(std::uint64_t rank, std::uint64_t index, std::uint64_t epoch, std::uint64_t step,
                        CheckpointRecord& rec) {
    return transfer(Operation::Read, rank, index, epoch, step, rec);
}

bool Checkpointer::transfer(Operation op, std::uint64_t rank, std::uint64_t index, std::uint64_t epoch,
                            std::uint64_t step, CheckpointRecord& rec) {
    const RankPlan& rp = plan_.perRank.at(static_cast<std::size_t>(rank));
    rec.op = op;
    rec.rank = rank;
    rec.index = index;
    rec.epoch = epoch;
    rec.step = step;
    rec.bytes = 0;
    rec.ioSeconds = 0;
    rec.storageSeconds = 0;
    rec.complete = false;
    CheckpointEvent ev;
    ev.phase = CheckpointEvent::Phase::Started;
    ev.op = op;
    ev.index = index;
    ev.rank = rank;
    ev.epoch = epoch;
    ev.step = step;
    ev.realBytes = rp.realBytes();
    if (opt_.onEvent) opt_.onEvent(ev);
    auto finish = [&](bool ok, const std::string& error) {
        ev.phase = ok ? CheckpointEvent::Phase::Completed : CheckpointEvent::Phase::Failed;
        ev.bytes = rec.bytes;
        ev.seconds = rec.ioSeconds;
        ev.storageSeconds = rec.storageSeconds;
        ev.error = error;
        if (opt_.onEvent) opt_.onEvent(ev);
        return ok;
    };

    const fs::path dir = folder_ / checkpointFolderName(epoch, step);
    IoBackend& io = *opt_.io;
    const auto t0 = std::chrono::steady_clock::now();
    // Every call into the storage is timed (rec.storageSeconds): what is left of the transfer is the
    // writer's own making of the bytes (generation-bound vs I/O-bound, mlcommons/storage#689).
    auto inStorage = [&rec](auto&& call) {
        const auto c0 = std::chrono::steady_clock::now();
        auto rc = call();
        rec.storageSeconds += seconds(c0, std::chrono::steady_clock::now());
        return rc;
    };
    if (op == Operation::Write && !rp.files.empty() && !objectStore_) {
        // DLIO's checkpoint_storage.create_node(checkpoint_id, exist_ok=True), by every writing rank (an
        // object store has no folders: the keys carry the layout).
        std::error_code ec;
        inStorage([&] { return fs::create_directories(dir, ec); });
        if (ec) {
            const std::string msg = "create checkpoint folder " + dir.string() + ": " + ec.message();
            fail(msg);
            return finish(false, msg);
        }
    }
    AlignedBuffer& readBuf = readBuffers_[static_cast<std::size_t>(rank)];
    for (const auto& f : rp.files) {
        const std::string path = (dir / f.relativePath).string();
        const char* verb = op == Operation::Write ? "write" : "read";
        auto ioError = [&](const char* what, long long err) {
            const std::string msg = std::string(verb) + " checkpoint " + path + ": " + what + ": " +
                                    errnoText(static_cast<int>(-err));
            fail(msg);
            rec.ioSeconds = seconds(t0, std::chrono::steady_clock::now());
            return finish(false, msg);
        };
        OpenOptions oo;
        oo.write = op == Operation::Write;
        oo.streaming = true; // start to end in chunks: an object store uploads parts as they come
        const int h = inStorage([&] { return io.open(path, oo); });
        if (h < 0) return ioError("open", h);
        const std::size_t chunk = pattern_.capacity() > 0 ? std::min<std::size_t>(pattern_.capacity(), opt_.chunkBytes) : 1;
        if (op == Operation::Read) readBuf.reserve(chunk);
        std::uint64_t done = 0;
        while (done < f.bytes) {
            if (cancelled()) {
                io.close(h);
                rec.ioSeconds = seconds(t0, std::chrono::steady_clock::now());
                return finish(false, "cancelled");
            }
            const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, f.bytes - done));
            if (op == Operation::Write) {
                const int rc = inStorage([&] { return writeFully(io, h, pattern_.data(), n, done); });
                if (rc < 0) {
                    io.close(h);
                    return ioError("write", rc);
                }
            } else {
                const ssize_t got = inStorage([&] { return readFully(io, h, readBuf.data(), n, done, n); });
                if (got < 0) {
                    io.close(h);
                    return ioError("read", got);
                }
                if (static_cast<std::size_t>(got) < n) {
                    io.close(h);
                    const std::string msg = "read checkpoint " + path + ": ended at byte " +
                                            std::to_string(done + static_cast<std::uint64_t>(got)) + ", expected " +
                                            std::to_string(f.bytes) + " bytes (written by another plan or truncated?)";
                    fail(msg);
                    return finish(false, msg);
                }
            }
            done += n;
            rec.bytes += n;
        }
        if (op == Operation::Write && fsync_) {
            const int rc = inStorage([&] { return io.fsync(h); });
            if (rc < 0) {
                io.close(h);
                return ioError("fsync", rc);
            }
        }
        const int rc = inStorage([&] { return io.close(h); });
        if (rc < 0) return ioError("close", rc);
    }
    rec.ioSeconds = seconds(t0, std::chrono::steady_clock::now());
    rec.complete = true;
    return finish(true, {});
}

CheckpointResults Checkpointer::results() const {
    CheckpointResults r;
    r.enabled = true;
    r.folder = folder_.string();
    r.plan = plan_;
    r.sizeGiB = sizeGiB_;
    r.perRank = records_;
    return r;
}

} // namespace trainio::checkpoint
