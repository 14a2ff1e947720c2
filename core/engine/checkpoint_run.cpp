#include "engine/checkpoint_run.h"

#include "checkpoint/checkpoint_slot.h"
#include "config/config_keys.h"
#include "engine/compute_emulator.h"
#include "engine/step_barrier.h"
#include "io/cache_control.h"
#include "io/s3_backend.h"
#include "util/clock.h"
#include "util/errors.h"

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <thread>
#include <unistd.h>

namespace trainio::checkpoint {
namespace fs = std::filesystem;

namespace {

std::string gib(double bytes) {
    char buf[64];
    const double g = bytes / 1024.0 / 1024.0 / 1024.0;
    std::snprintf(buf, sizeof buf, g >= 100 ? "%.1f GiB" : "%.4g GiB", g);
    return buf;
}

} // namespace

std::uint64_t checkpointsToWrite(const WorkloadConfig& cfg) {
    return cfg.checkpoint.numCheckpointsWrite > 0 ? static_cast<std::uint64_t>(cfg.checkpoint.numCheckpointsWrite) : 0;
}

std::uint64_t checkpointsToRead(const WorkloadConfig& cfg) {
    return cfg.checkpoint.numCheckpointsRead > 0 ? static_cast<std::uint64_t>(cfg.checkpoint.numCheckpointsRead) : 0;
}

std::string checkpointSizeLine(const CheckpointPlan& plan) {
    char scale[32];
    std::snprintf(scale, sizeof scale, "%g", plan.scale);
    return "checkpoint: real " + gib(static_cast<double>(plan.realTotalBytes)) + ", writing " +
           gib(static_cast<double>(plan.totalBytes)) + " (scale " + scale + ")";
}

namespace {

// storage.storage_type s3 (docs/s3.md): the checkpoint is objects of the bucket under the folder's key
// prefix. Nothing to create and no free space to measure; the endpoint, the keys and the bucket must
// answer (the dataset's probe), and a read-only run finds every object of the plan with its size.
void checkpointPreflightS3(const WorkloadConfig& cfg, const CheckpointPlan& plan, std::uint64_t writes, std::uint64_t reads,
                           const std::string& where) {
    std::shared_ptr<S3Backend> s3;
    try {
        s3 = makeS3Backend(cfg);
        s3ObjectKey(cfg.checkpoint.folder + "/x", cfg.storage.root);
    } catch (const InputError& e) {
        throw InputError(describeProblem(where, "checkpoint.checkpoint_folder", cfg.checkpoint.folder, e.what()));
    }
    S3Client& c = s3->client();
    if (const std::string why = c.probe(); !why.empty())
        throw InputError(describeProblem(where, "storage.storage_options.endpoint_url", why,
                                         "an S3 endpoint that answers, a bucket that exists and keys that may use it"));
    if (writes > 0 || reads == 0) return;
    for (std::uint64_t i = 1; i <= reads; ++i)
        for (const auto& rp : plan.perRank)
            for (const auto& f : rp.files) {
                const std::string key =
                    s3ObjectKey((fs::path(cfg.checkpoint.folder) / checkpointFolderName(1, i) / f.relativePath).string(), c.options().bucket);
                const std::int64_t size = c.head(key);
                if (size != static_cast<std::int64_t>(f.bytes))
                    throw InputError(describeProblem(
                        where, "checkpoint.num_checkpoints_read", std::to_string(reads),
                        "checkpoints to read back, but " + c.url(key) +
                            (size < 0 ? (size == -ENOENT ? std::string(" is missing") : " cannot be read (" + c.lastError() + ")")
                                      : " has " + std::to_string(size) + " bytes, not the planned " + std::to_string(f.bytes)) +
                            "; write them first with the same model, ranks and scale"));
            }
}

} // namespace

void checkpointPreflight(const WorkloadConfig& cfg, const CheckpointPlan& plan, std::uint64_t checkpoints) {
    const std::string where = cfg.sourcePath.empty() ? "checkpoint" : cfg.sourcePath;
    const std::uint64_t writes = checkpointsToWrite(cfg);
    const std::uint64_t reads = checkpointsToRead(cfg);
    // The fork's utils/config.py validate(), lines 468-470.
    if (writes > 0 && reads > writes)
        throw InputError(describeProblem(where, "checkpoint.num_checkpoints_read", std::to_string(reads),
                                         "at most checkpoint.num_checkpoints_write (" + std::to_string(writes) + ")"));
    // MLPerf Storage Rules.md 4.3.4 (mlpstorage_py/rules/run_checkers/checkpointing.py
    // check_accelerator_memory): ranks × accelerator memory >= the model's checkpoint size (GiB, the real
    // size: a scaled run still models that model).
    if (const double mem = config_keys::acceleratorMemoryGB(cfg.accelerator); mem > 0) {
        const double aggregate = mem * static_cast<double>(plan.ranks);
        if (aggregate < plan.dlioCheckpointSizeGiB) {
            char buf[256];
            std::snprintf(buf, sizeof buf,
                          "aggregate emulated accelerator memory %.0f GB (%llu × %s at %.0f GB) is below the checkpoint "
                          "size %.2f GiB (MLPerf Storage Rules.md 4.3.4): use more accelerators",
                          aggregate, static_cast<unsigned long long>(plan.ranks), cfg.accelerator.c_str(), mem,
                          plan.dlioCheckpointSizeGiB);
            throw InputError(where + ": " + buf);
        }
    }
    if (cfg.storage.isS3()) return checkpointPreflightS3(cfg, plan, writes, reads, where);
    const fs::path folder = cfg.checkpoint.folder;
    std::error_code ec;
    // A read-only run reads what an earlier run wrote (DLIO main.py line 549-551 counts the folders):
    // every file of the plan must be there with its size, else nothing is measured.
    if (writes == 0 && reads > 0)
        for (std::uint64_t i = 1; i <= reads; ++i)
            for (const auto& rp : plan.perRank)
                for (const auto& f : rp.files) {
                    const fs::path p = folder / checkpointFolderName(1, i) / f.relativePath;
                    const auto size = fs::file_size(p, ec);
                    if (ec || size != f.bytes)
                        throw InputError(describeProblem(
                            where, "checkpoint.num_checkpoints_read", std::to_string(reads),
                            "checkpoints to read back, but " + p.string() +
                                (ec ? " is missing (" + ec.message() + ")"
                                    : " has " + std::to_string(size) + " bytes, not the planned " + std::to_string(f.bytes)) +
                                "; write them first with the same model, ranks and scale"));
                }
    if (checkpoints == 0 || plan.totalBytes == 0) return;
    fs::create_directories(folder, ec);
    if (ec)
        throw InputError(describeProblem(where, "checkpoint.checkpoint_folder", folder.string(),
                                         "a folder that can be created (" + ec.message() + ")"));
    if (::access(folder.c_str(), W_OK | X_OK) != 0)
        throw InputError(describeProblem(where, "checkpoint.checkpoint_folder", folder.string(),
                                         "a writable folder (" + errnoText(errno) + ")"));
    const fs::space_info sp = fs::space(folder, ec);
    const double needed = static_cast<double>(plan.totalBytes) * static_cast<double>(checkpoints);
    if (!ec && static_cast<double>(sp.available) < needed)
        throw InputError(describeProblem(
            where, "checkpoint.checkpoint_folder", folder.string(),
            "room for " + std::to_string(checkpoints) + " checkpoints of " + gib(static_cast<double>(plan.totalBytes)) +
                " (" + gib(needed) + "), but " + gib(static_cast<double>(sp.available)) +
                " are free; lower trainio.checkpoint_scale, model.num_layers or num_checkpoints_write"));
}

RunOutcome runCheckpointOnly(const WorkloadConfig& cfg, const CheckpointRunOptions& options) {
    const std::uint64_t K = std::max<std::uint64_t>(1, options.accelerators); // this process's ranks
    dist::Communicator* comm = options.comm;
    const std::uint64_t P = comm ? static_cast<std::uint64_t>(comm->size()) : 1;
    const std::uint64_t first = comm ? static_cast<std::uint64_t>(comm->rank()) * K : 0;
    const std::uint64_t R = K * P;
    CheckpointPlan plan = planCheckpoint(cfg, R);
    const std::uint64_t writes = checkpointsToWrite(cfg);
    const std::uint64_t reads = checkpointsToRead(cfg);
    // Under mpirun every process made this check in the session, and they agreed (a check failing on one
    // process only, here, would leave the others waiting at the first barrier).
    if (!comm) checkpointPreflight(cfg, plan, writes);

    RunOutcome out;
    dist::WaitLimits limits;
    limits.timeoutSeconds = options.commTimeoutSeconds;
    limits.hurry = options.cancel;
    if (comm) {
        std::uint64_t seed = cfg.train.seed;
        if (!meetProcesses(*comm, K, limits, options.observer, seed, out)) return out;
    }
    Checkpointer::Options co;
    co.io = options.io;
    co.cancel = options.cancel;
    co.onEvent = options.onEvent;
    Checkpointer ckpt(cfg, std::move(plan), co);
    WallClock clock;
    StepBarrier barrier(K);
    std::atomic<bool> stop{false};
    // Under mpirun DLIO's comm.barrier() spans every process: the threads of this one meet, and the last of
    // them meets the other processes (dist::ProcessSync). Each meeting carries the record each rank finished
    // since its last one, so process 0 holds every rank's records as they are made (checkpoint_slot.h).
    std::unique_ptr<dist::ProcessSync> sync;
    std::vector<std::optional<CheckpointRecord>> pending(K);
    if (comm) {
        sync = std::make_unique<dist::ProcessSync>(*comm, K, stop, limits);
        if (out.writesResults)
            sync->onMeeting = [&](const std::vector<dist::SyncSlot>& slots) {
                for (std::uint64_t g = 0; g < slots.size(); ++g)
                    if (g < first || g >= first + K)
                        if (const auto rec = takeRecord(slots[g], g)) {
                            ckpt.record(*rec);
                            if (options.onRecord) options.onRecord(*rec);
                        }
            };
    }
    auto meet = [&](std::uint64_t rank) {
        if (!sync) return barrier.arriveAndWait();
        dist::SyncSlot slot;
        slot.kind = dist::SyncSlot::Other;
        auto& mine = pending[rank - first];
        if (mine) putRecord(slot, *mine);
        mine.reset();
        return sync->arriveAndWait(rank - first, slot);
    };
    auto halt = [&](const std::string& error) {
        stop.store(true);
        barrier.abort();
        if (sync) sync->requestStop(error);
    };
    const double between = cfg.checkpoint.timeBetweenCheckpoints;
    auto stopped = [&] { return stop.load() || ckpt.failed() || (options.cancel && options.cancel->load()); };

    out.ranks.resize(R);
    for (std::uint64_t r = 0; r < R; ++r) out.ranks[r].rank = r;
    out.start = clock.now();
    const double cpu0 = processCpuSeconds();
    std::atomic<double> phaseEnd{0};

    // One phase (the fork's _checkpoint_write / _checkpoint_read, main.py lines 557-597): per checkpoint
    // i (block i+1, step i+1, epoch 1): compute time_between_checkpoints, barrier (line 567 / 587), start,
    // save/load, [barrier if rank_sync (lines 570-571 / 590-591)], end.
    auto phase = [&](std::uint64_t rank, Operation op, std::uint64_t count) {
        for (std::uint64_t i = 0; i < count; ++i) {
            if (stopped()) return false;
            if (between > 0 && !ComputeEmulator::wait(between, &stop)) return false;
            if (!meet(rank)) return false;
            CheckpointRecord rec;
            rec.block = i + 1;
            rec.start = clock.now();
            const bool ok = op == Operation::Write ? ckpt.write(rank, i, 1, i + 1, rec) : ckpt.read(rank, i, 1, i + 1, rec);
            if (!ok) return false;
            if (cfg.checkpoint.rankSync && !meet(rank)) return false;
            rec.end = clock.now();
            ckpt.record(rec);
            if (options.onRecord && out.writesResults) options.onRecord(rec);
            if (sync) pending[rank - first] = rec;
        }
        return true;
    };
    auto runRank = [&](std::uint64_t rank) {
        if (!phase(rank, Operation::Write, writes)) return false;
        if (reads > 0) {
            // The fork's file backend reads with fadvise(DONTNEED) so that a read-back is served by the
            // storage, not by the pages the writes left: done here, outside every timed checkpoint, by each
            // process for its own ranks' files (its host's page cache).
            if (!meet(rank)) return false;
            if (rank == first && !cfg.storage.isS3()) { // no page cache holds what was PUT to an object store
                std::vector<std::string> files;
                for (std::uint64_t i = 0; i < reads; ++i)
                    for (auto& f : ckpt.files(1, i + 1, first, K))
                        if (fs::exists(f)) files.push_back(std::move(f));
                applyCacheControl(CacheMode::Fadvise, files);
            }
            if (!meet(rank)) return false;
        }
        if (!phase(rank, Operation::Read, reads)) return false;
        // The last record to process 0 (every rank of every process makes this meeting alike). DLIO's
        // finalize() ends with a barrier too (main.py line 846).
        return !sync || meet(rank);
    };

    std::vector<std::thread> threads;
    threads.reserve(K);
    std::mutex errorMutex;
    std::string threadError;
    for (std::uint64_t r = first; r < first + K; ++r)
        threads.emplace_back([&, r] {
            bool ok = false;
            try {
                ok = runRank(r);
            } catch (const std::exception& e) {
                std::lock_guard lock(errorMutex);
                if (threadError.empty()) threadError = e.what();
            }
            if (!ok) {
                // Release every rank waiting at a barrier for this one (and, under mpirun, tell the others).
                std::string why = ckpt.error();
                if (why.empty()) {
                    std::lock_guard lock(errorMutex);
                    why = threadError;
                }
                halt(why);
            }
            if (sync) sync->leave(r - first, ok);
            if (r == 0) phaseEnd.store(clock.now());
        });
    std::atomic<bool> joined{false};
    std::thread watcher([&] {
        while (!joined.load()) {
            if (options.cancel && options.cancel->load()) {
                halt("");
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    });
    for (auto& t : threads) t.join();
    joined.store(true);
    watcher.join();

    out.end = clock.now();
    out.cpuSeconds = processCpuSeconds() - cpu0;
    out.checkpoints = ckpt.results();
    out.checkpoints.phaseStart = out.start;
    out.checkpoints.phaseEnd = phaseEnd.load();
    for (const auto& rank : out.checkpoints.perRank)
        for (const auto& rec : rank)
            if (rec.op == Operation::Read) out.bytesRead += rec.bytes;
    out.error = ckpt.error();
    if (out.error.empty()) out.error = threadError;
    if (out.error.empty() && sync && (sync->broken() || !sync->remoteError().empty())) out.error = sync->remoteError();
    if (!out.error.empty()) {
        out.status = RunStatus::Failed;
    } else {
        // Complete when every rank this process knows of (process 0: all of them) did every checkpoint.
        bool complete = true;
        for (std::uint64_t r = out.writesResults ? 0 : first; r < (out.writesResults ? R : first + K); ++r) {
            std::uint64_t w = 0, rd = 0;
            for (const auto& rec : out.checkpoints.perRank[r]) (rec.op == Operation::Write ? w : rd) += rec.complete ? 1 : 0;
            complete = complete && w == writes && rd == reads;
        }
        if (!complete) out.status = RunStatus::Cancelled;
    }
    return out;
}

} // namespace trainio::checkpoint
