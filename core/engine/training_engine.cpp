#include "engine/training_engine.h"

#include "checkpoint/checkpoint_slot.h"
#include "dataset/dataset_layout.h"
#include "dist/process_sync.h"
#include "engine/batch_prefetcher.h"
#include "engine/compute_emulator.h"
#include "engine/event_pump.h"
#include "loader/sample_order.h"
#include "engine/step_barrier.h"
#include "loader/thread_tuning.h"
#include "format/format_writer.h"
#include "util/clock.h"
#include "util/errors.h"
#include "util/host_info.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

namespace trainio {

const char* toString(RunStatus s) {
    switch (s) {
    case RunStatus::Complete: return "complete";
    case RunStatus::Cancelled: return "cancelled";
    case RunStatus::Failed: return "failed";
    case RunStatus::Interrupted: return "interrupted";
    }
    return "?";
}

namespace {

// One step's record travels as a StepEvent (to the observers) and, under MPI, inside a SyncSlot (to process
// 0): the fields are filled once, in the StepEvent, and the slot and the relayed event are made from it.
dist::SyncSlot stepSlot(const StepEvent& e, std::uint64_t samplesRead, double epochStart, std::uint64_t block,
                        double blockStart, double end) {
    dist::SyncSlot s;
    s.kind = dist::SyncSlot::Step;
    s.epoch = e.epoch;
    s.step = e.step;
    s.stepsPerEpoch = e.stepsPerEpoch;
    s.load = e.load;
    s.compute = e.compute;
    s.proc = e.proc;
    s.wall = e.wallTime;
    s.bytesRead = e.bytesRead;
    s.samplesRead = samplesRead;
    s.queueDepth = e.queueDepth;
    s.epochStart = epochStart;
    s.block = block;
    s.blockStart = blockStart;
    s.blockEnd = s.epochEnd = end;
    return s;
}

StepEvent stepEvent(std::uint64_t rank, const dist::SyncSlot& s) {
    StepEvent e;
    e.rank = rank;
    e.epoch = s.epoch;
    e.step = s.step;
    e.stepsPerEpoch = s.stepsPerEpoch;
    e.load = s.load;
    e.compute = s.compute;
    e.proc = s.proc;
    e.wallTime = s.wall;
    e.queueDepth = s.queueDepth;
    e.bytesRead = s.bytesRead;
    return e;
}

struct SharedRun {
    const WorkloadConfig& cfg;
    const EngineOptions& opt;
    MetricOptions metricOptions;
    std::uint64_t ranks;     // every rank of the job (all processes)
    std::uint64_t local;     // this process's ranks: firstRank … firstRank + local − 1
    std::uint64_t firstRank;
    std::uint64_t runSeed;
    WallClock clock;
    StepBarrier barrier;
    std::atomic<bool> stop{false}; // cancel requested or a rank failed
    std::mutex errorMutex;
    std::string error;
    // perEpoch[e][r], filled by rank r at the end of epoch e (preallocated: no reallocation races).
    std::vector<std::vector<EpochRankMetrics>> perEpoch;
    // epochBytes[e][l]: bytes this process's rank firstRank + l delivered in epoch e (EngineOptions::afterEpoch).
    std::vector<std::vector<std::uint64_t>> epochBytes;
    std::atomic<std::uint64_t> bytesRead{0}, samplesRead{0};
    // Each local rank's loader counters and placement, written by that rank's thread when it ends.
    std::vector<std::vector<loader::EpochTally>> loaderTallies;
    std::vector<loader::PlacementSummary> loaderPlacement;
    // epochLoader[e][g] / epochStall[e][g]: rank g's loader counters and summed step loads of epoch e + 1,
    // stored by that rank as the epoch ends (for the live epoch event); under MPI process 0 has the other
    // processes' from their epoch-end slots.
    std::vector<std::vector<loader::EpochTally>> epochLoader;
    std::vector<std::vector<double>> epochStall;
    // Multi-process runs: the meeting of every rank of the job (null in a single process).
    std::unique_ptr<dist::ProcessSync> sync;
    // Where the accelerators leave their live events (the observer is called from its thread, never
    // between a step's compute and its meeting).
    EventPump* pump = nullptr;
    // This process writes the results (one process, or process 0): it feeds the journal.
    bool recordsResults = true;
    // pendingCheckpoint[l]: the checkpoint record local rank l finished since its last meeting; the next
    // meeting carries it to process 0 (checkpoint/checkpoint_slot.h). Touched only by that rank's thread.
    std::vector<std::optional<checkpoint::CheckpointRecord>> pendingCheckpoint;

    SharedRun(const WorkloadConfig& c, const EngineOptions& o, std::uint64_t total, std::uint64_t localRanks,
              std::uint64_t first, std::uint64_t seed)
        : cfg(c), opt(o), ranks(total), local(localRanks), firstRank(first), runSeed(seed), barrier(localRanks),
          perEpoch(c.train.epochs, std::vector<EpochRankMetrics>(total)),
          epochBytes(c.train.epochs, std::vector<std::uint64_t>(localRanks, 0)), loaderTallies(localRanks),
          loaderPlacement(localRanks), epochLoader(c.train.epochs, std::vector<loader::EpochTally>(total)),
          epochStall(c.train.epochs, std::vector<double>(total, std::numeric_limits<double>::quiet_NaN())),
          pendingCheckpoint(localRanks) {}

    // Every rank meets (the emulated all-reduce): the threads of this process, and with MPI every process.
    bool meet(std::uint64_t rank, const dist::SyncSlot& slot = {}) {
        if (!sync) return barrier.arriveAndWait();
        auto& pending = pendingCheckpoint[rank - firstRank];
        if (!pending) return sync->arriveAndWait(rank - firstRank, slot);
        dist::SyncSlot carrying = slot;
        checkpoint::putRecord(carrying, *pending);
        pending.reset();
        return sync->arriveAndWait(rank - firstRank, carrying);
    }
    void leave(std::uint64_t rank, bool finished) {
        if (sync) sync->leave(rank - firstRank, finished);
    }

    // Runs a between-epochs hook on this process's first rank while the other ranks wait; false if the
    // run stops (a failing hook fails the run).
    template <class F>
    bool betweenEpochs(std::uint64_t rank, F&& hook) {
        if (!meet(rank)) return false;
        if (rank == firstRank) {
            try {
                hook();
            } catch (const std::exception& e) {
                fail(e.what());
            }
        }
        return meet(rank);
    }

    bool cancelled() const { return opt.cancel && opt.cancel->load(std::memory_order_relaxed); }
    void fail(const std::string& what) {
        {
            std::lock_guard lock(errorMutex);
            if (error.empty()) error = what;
        }
        stop.store(true);
        barrier.abort();
        if (sync) sync->requestStop(what);
    }
    void cancel() {
        stop.store(true);
        barrier.abort();
        if (sync) sync->requestStop("");
    }
};

// MLPerf Storage v3.0's DLIO warms its reader workers before every epoch, outside the timed window
// (mlcommons/DLIO_local_changes f6796ed, main.py:705-717 before epoch 1 and :811-820 after each
// epoch): it draws the epoch's first batch from a throw-away loader iterator, before the page-cache
// drop (:738-788), so the epoch itself still reads that batch from storage. TrainIO's readers are
// threads that live for the whole run, so the warm-up is that same first-batch read, discarded.
// False when the read failed or the run was cancelled.
bool warmReaders(BatchPrefetcher& prefetcher, const std::vector<std::uint64_t>& order) {
    prefetcher.startEpoch(order, 1);
    const bool ok = prefetcher.takeBatch(0);
    prefetcher.endEpoch();
    return ok;
}

struct StopFlag {
    SharedRun& run;
    bool operator()() const { return run.stop.load(std::memory_order_relaxed) || run.cancelled(); }
};

void runRank(SharedRun& run, std::uint64_t rank, RankRecord& record, IoBackend& io) {
    const WorkloadConfig& cfg = run.cfg;
    tightenTimerSlack();
    // Only a thread that sleeps through compute steps needs to preempt on wake-up; with no compute the
    // training loop would preempt a reader at every batch for nothing.
    if (cfg.train.computationTime.expectedSeconds() > 0) askShortSlice();
    const ShardPlan plan = planShard(cfg, rank, run.ranks);
    // run.stop follows the external cancel (see the watcher in runTraining) and any rank's failure. The
    // loader policy plans here (nopfs: the whole access string from the seed), before any epoch.
    loader::SampleSource source(cfg, io, rank, run.ranks, run.runSeed, run.stop);
    BatchPrefetcher prefetcher(cfg, io, source, run.stop);
    ComputeEmulator compute(cfg.train.computationTime, mixSeed(cfg.train.seed, 0xC0117E, rank));
    // trainio.handover_time: the loop's time to receive a batch that is ready (a captured PyTorch job's
    // unpickling), slept after the batch is taken, so it is in the step's load (waiting for data), not compute.
    const bool handsOver = cfg.trainio.handoverTime.expectedSeconds() > 0;
    ComputeEmulator handover(cfg.trainio.handoverTime, mixSeed(cfg.train.seed, 0x4A4D0, rank));
    std::vector<std::uint64_t> order;
    const StopFlag shouldStop{run};
    const bool v1 = run.opt.semantics == MetricSemantics::DlioV1;
    EventPump& pump = *run.pump;
    record.rank = rank;
    record.epochs.reserve(cfg.train.epochs);
    // Checkpoints as the fork's main.py _train (lines 632-658): every K steps of an epoch (the step's
    // barrier met, the block ends, the checkpoint is written, a new block starts), or after the epochs
    // checkpoint_after_epoch, + epochs_between_checkpoints, ...
    checkpoint::Checkpointer* ckpt = run.opt.checkpointer;
    const std::uint64_t ckptEvery = ckpt ? cfg.checkpoint.stepsBetween : 0;
    std::uint64_t nextCkptEpoch = cfg.checkpoint.afterEpoch;
    std::uint64_t ckptIndex = 0;
    auto saveCheckpoint = [&](std::uint64_t epoch, std::uint64_t step, std::uint64_t block) {
        checkpoint::CheckpointRecord rec;
        rec.block = block;
        rec.start = run.clock.now();
        if (!ckpt->write(rank, ckptIndex++, epoch, step, rec)) {
            if (ckpt->failed()) run.fail(ckpt->error());
            return false;
        }
        rec.end = run.clock.now();
        ckpt->record(rec);
        if (run.sync) run.pendingCheckpoint[rank - run.firstRank] = rec; // to process 0 with the next meeting
        return true;
    };

    for (std::uint64_t epoch = 1; epoch <= cfg.train.epochs; ++epoch) {
        if (shouldStop()) break;
        sampleOrder(cfg, plan, rank, epoch, run.runSeed, order);
        source.beginEpoch(0); // the warm-up read is in no epoch (as in DLIO, outside the timed window)
        if (run.opt.semantics == MetricSemantics::DlioV3 && !warmReaders(prefetcher, order)) {
            if (prefetcher.failed()) run.fail(prefetcher.error());
            break;
        }
        if (run.opt.beforeEpoch && !run.betweenEpochs(rank, [&] { run.opt.beforeEpoch(epoch); })) break;
        const std::uint64_t bytesBefore = prefetcher.bytesRead();
        source.beginEpoch(epoch);
        prefetcher.startEpoch(order, plan.stepsPerEpoch);
        if (!run.meet(rank)) {
            prefetcher.endEpoch();
            break;
        }
        EpochRecord& ep = record.epochs.emplace_back();
        ep.epoch = epoch;
        ep.start = run.clock.now();
        // Blocks end at checkpoints: reserved so that `block` stays valid as they are added.
        ep.blocks.reserve(ckptEvery > 0 ? plan.stepsPerEpoch / ckptEvery + 1 : 1);
        BlockRecord* blockp = &ep.blocks.emplace_back();
        blockp->block = 1;
        blockp->load.reserve(plan.stepsPerEpoch);
        blockp->compute.reserve(plan.stepsPerEpoch);
        blockp->proc.reserve(plan.stepsPerEpoch);
        blockp->start = run.clock.now();
        double t0 = blockp->start;
        std::uint64_t step = 0;
        for (; step < plan.stepsPerEpoch; ++step) {
            if (shouldStop()) break;
            if (!prefetcher.takeBatch(step)) {
                if (prefetcher.failed()) run.fail(prefetcher.error());
                break;
            }
            if (handsOver && !ComputeEmulator::wait(handover.draw(), &run.stop)) break; // cancelled: not recorded
            const double t1 = run.clock.now();
            const double drawn = compute.draw();
            const bool finished = ComputeEmulator::wait(drawn, &run.stop);
            const double t2 = run.clock.now();
            if (!finished) break; // cancelled mid-compute: the step is not recorded
            blockp->load.push_back(t1 - t0);
            blockp->compute.push_back(v1 ? drawn : t2 - t1);
            blockp->proc.push_back(t2 - t0);
            // Between compute and the meeting: clock reads (above), the step's fields filled once, and one
            // lock-free store, nothing else.
            StepEvent ev;
            ev.rank = rank;
            ev.epoch = epoch;
            ev.step = step + 1;
            ev.stepsPerEpoch = plan.stepsPerEpoch;
            ev.load = t1 - t0;
            ev.compute = blockp->compute.back();
            ev.proc = t2 - t0;
            ev.wallTime = t2 - run.clock.origin();
            ev.queueDepth = prefetcher.readyAfterTake();
            ev.bytesRead = prefetcher.bytesRead();
            pump.step(rank - run.firstRank, ev);
            // The emulated all-reduce (DLIO has none). t0 is taken after it, so its wait is in no step's
            // load or compute but in the block's wall time T, which AU divides by (SPEC §5, docs/engine.md).
            dist::SyncSlot slot;
            if (run.sync) slot = stepSlot(ev, prefetcher.samplesRead(), ep.start, blockp->block, blockp->start, t2);
            if (!run.meet(rank, slot)) {
                ++step;
                break;
            }
            if (ckptEvery > 0 && (step + 1) % ckptEvery == 0) {
                blockp->end = run.clock.now();
                if (!saveCheckpoint(epoch, step + 1, blockp->block)) {
                    ++step;
                    break;
                }
                if (step + 1 < plan.stepsPerEpoch) {
                    const std::uint64_t next = blockp->block + 1;
                    blockp = &ep.blocks.emplace_back();
                    blockp->block = next;
                    // Reserved before the block starts, as the epoch's first block is: no step of it
                    // reallocates inside the measured window.
                    const std::uint64_t left = plan.stepsPerEpoch - (step + 1);
                    blockp->load.reserve(left);
                    blockp->compute.reserve(left);
                    blockp->proc.reserve(left);
                    blockp->start = run.clock.now();
                }
            }
            t0 = run.clock.now();
        }
        if (blockp->steps() == 0 && ep.blocks.size() > 1)
            ep.blocks.pop_back(); // stopped right after a checkpoint: no step in the new block
        else if (!(blockp->end > 0))
            blockp->end = run.clock.now(); // (a block a checkpoint ended has its end already)
        prefetcher.endEpoch();
        ep.end = run.clock.now();
        run.epochBytes[epoch - 1][rank - run.firstRank] = prefetcher.bytesRead() - bytesBefore;
        ep.complete = ep.steps() == plan.stepsPerEpoch;
        if (prefetcher.failed()) run.fail(prefetcher.error());
        if (!ep.complete) break;
        run.perEpoch[epoch - 1][rank] = epochRankMetrics(ep, run.metricOptions);
        if (run.opt.onEpochRecorded && run.recordsResults) run.opt.onEpochRecorded(rank, ep);
        run.epochStall[epoch - 1][rank] = ep.loadSeconds();
        run.epochLoader[epoch - 1][rank] = source.tallies()[epoch - 1];
        dist::SyncSlot endSlot;
        if (run.sync) {
            endSlot.kind = dist::SyncSlot::EpochEnd;
            endSlot.complete = 1;
            endSlot.epoch = epoch;
            endSlot.stepsPerEpoch = plan.stepsPerEpoch;
            endSlot.bytesRead = prefetcher.bytesRead();
            endSlot.samplesRead = prefetcher.samplesRead();
            endSlot.epochStart = ep.start;
            endSlot.epochEnd = ep.end;
            endSlot.block = ep.blocks.back().block;
            endSlot.blockStart = ep.blocks.back().start;
            endSlot.blockEnd = ep.blocks.back().end;
            const loader::EpochTally& t = run.epochLoader[epoch - 1][rank];
            endSlot.loaderAccesses = t.accesses;
            endSlot.loaderStorageReads = t.storageReads;
            endSlot.beladyAccesses = t.beladyAccesses;
            endSlot.beladyHits = t.beladyHits;
            endSlot.stallSeconds = run.epochStall[epoch - 1][rank];
        }
        if (!run.meet(rank, endSlot)) break;
        if (ckpt && ckptEvery == 0 && epoch == nextCkptEpoch) {
            nextCkptEpoch += cfg.checkpoint.epochsBetween;
            // DLIO names it after the step counter past the epoch's last step (save_checkpoint(epoch, overall_step)).
            if (!saveCheckpoint(epoch, plan.stepsPerEpoch + 1, ep.blocks.back().block)) break;
        }
        if (run.opt.afterEpoch &&
            !run.betweenEpochs(rank, [&] { run.opt.afterEpoch(epoch, run.epochBytes[epoch - 1]); }))
            break;
        if (rank == 0 && pump.active()) {
            EpochEvent ev;
            ev.epoch = epoch;
            ev.epochs = cfg.train.epochs;
            for (const auto& m : run.perEpoch[epoch - 1]) {
                ev.rankAu.push_back(m.auPercent);
                ev.rankThroughput.push_back(m.throughput);
                ev.auPercent += m.auPercent;
                ev.throughput += m.throughput;
            }
            ev.auPercent /= static_cast<double>(run.ranks);
            ev.mibPerSecond = ev.throughput * cfg.dataset.recordLength / 1024.0 / 1024.0;
            ev.seconds = ep.end - ep.start;
            loader::EpochTally sum;
            for (const auto& t : run.epochLoader[epoch - 1]) sum += t;
            ev.hitRatio = loader::hitRatio(sum);
            ev.beladyHitRatio = loader::beladyHitRatio(sum);
            // Mean over every rank of the job (under MPI the others' from their epoch-end slots); NaN if
            // a rank's is not known.
            ev.stallSeconds = 0;
            for (const double st : run.epochStall[epoch - 1]) ev.stallSeconds += st;
            ev.stallSeconds /= static_cast<double>(run.ranks);
            pump.epoch(ev);
        }
    }
    // Every epoch ran: one more meeting, made by every rank of every process alike, carries the record of a
    // checkpoint written after the last epoch (checkpoint_after_epoch) to process 0.
    if (run.sync && ckpt && record.epochs.size() == cfg.train.epochs && !record.epochs.empty() &&
        record.epochs.back().complete && !shouldStop())
        run.meet(rank);
    run.bytesRead.fetch_add(prefetcher.bytesRead());
    run.samplesRead.fetch_add(prefetcher.samplesRead());
    run.loaderTallies[rank - run.firstRank] = source.tallies();
    run.loaderPlacement[rank - run.firstRank] = source.placement();
    // Every epoch ran to its end: the thread finished; else it stopped (and the other processes must hear).
    const bool finished = record.epochs.size() == cfg.train.epochs && !record.epochs.empty() && record.epochs.back().complete &&
                          !shouldStop();
    run.leave(rank, finished);
}

// Process 0 of a multi-process run rebuilds every other process's ranks from the slots of each meeting
// (docs/mpi.md): the step times as they were recorded, the epoch and block bounds from each rank's own
// clock, and emits their steps and epochs as live events like its own.
class RemoteRanks {
public:
    RemoteRanks(SharedRun& run, std::vector<RankRecord>& records) : run_(run), records_(records) {}

    void onMeeting(const std::vector<dist::SyncSlot>& slots) {
        for (std::uint64_t g = 0; g < slots.size(); ++g) {
            if (g >= run_.firstRank && g < run_.firstRank + run_.local) continue; // this process's own
            const dist::SyncSlot& s = slots[g];
            RankRecord& r = records_[g];
            r.rank = g;
            // First the checkpoint the rank finished since its last meeting: it ended a block (DLIO's
            // end_block then start_save_ckpt, the fork's main.py lines 633-635), whose end is its start.
            if (const auto rec = checkpoint::takeRecord(s, g)) {
                if (run_.opt.checkpointer) run_.opt.checkpointer->record(*rec);
                for (auto& e : r.epochs)
                    if (e.epoch == rec->epoch)
                        for (auto& b : e.blocks)
                            if (b.block == rec->block && run_.cfg.checkpoint.stepsBetween > 0) b.end = rec->start;
            }
            if (s.kind != dist::SyncSlot::Step && s.kind != dist::SyncSlot::EpochEnd) continue;
            if (r.epochs.empty() || r.epochs.back().epoch != s.epoch) {
                EpochRecord& e = r.epochs.emplace_back();
                e.epoch = s.epoch;
                e.blocks.emplace_back().block = s.block;
            }
            EpochRecord& e = r.epochs.back();
            if (e.blocks.back().block != s.block) e.blocks.emplace_back().block = s.block; // after a checkpoint
            BlockRecord& b = e.blocks.back();
            e.start = s.epochStart;
            e.end = s.epochEnd;
            b.start = s.blockStart;
            b.end = s.blockEnd;
            bytes_[g] = s.bytesRead;
            samples_[g] = s.samplesRead;
            if (s.kind == dist::SyncSlot::Step) {
                b.load.push_back(s.load);
                b.compute.push_back(s.compute);
                b.proc.push_back(s.proc);
                if (run_.pump->active()) run_.pump->step(run_.local, stepEvent(g, s)); // the relay's own ring (one meeting at a time)
            } else {
                e.complete = s.complete != 0 && e.steps() == s.stepsPerEpoch;
                if (e.complete) {
                    run_.perEpoch[s.epoch - 1][g] = epochRankMetrics(e, run_.metricOptions);
                    if (run_.opt.onEpochRecorded) run_.opt.onEpochRecorded(g, e);
                    loader::EpochTally& t = run_.epochLoader[s.epoch - 1][g];
                    t.accesses = s.loaderAccesses;
                    t.storageReads = s.loaderStorageReads;
                    t.beladyAccesses = s.beladyAccesses;
                    t.beladyHits = s.beladyHits;
                    run_.epochStall[s.epoch - 1][g] = s.stallSeconds;
                }
            }
        }
    }
    std::uint64_t bytes() const { return sum(bytes_); }
    std::uint64_t samples() const { return sum(samples_); }

private:
    static std::uint64_t sum(const std::map<std::uint64_t, std::uint64_t>& m) {
        std::uint64_t n = 0;
        for (const auto& [g, v] : m) n += v;
        return n;
    }
    SharedRun& run_;
    std::vector<RankRecord>& records_;
    std::map<std::uint64_t, std::uint64_t> bytes_, samples_;
};

// What each process tells the others before the run: its host (summary.json's per-host arrays) and, from
// process 0, the seed of "random" shuffles (every rank must shuffle the same way).
struct HostSlot {
    char hostname[256] = {};
    std::uint32_t cpuCount = 0;
    std::uint32_t pad = 0;
    double memoryGiB = 0;
    std::uint64_t runSeed = 0;
};

} // namespace

bool meetProcesses(dist::Communicator& comm, std::uint64_t accelerators, const dist::WaitLimits& limits,
                   EngineObserver* observer, std::uint64_t& runSeed, RunOutcome& out) {
    const auto P = static_cast<std::uint64_t>(comm.size());
    const HostInfo host = readHostInfo();
    HostSlot mine;
    std::strncpy(mine.hostname, host.hostname.c_str(), sizeof mine.hostname - 1);
    mine.cpuCount = host.cpuCount;
    mine.memoryGiB = host.memoryGiB;
    mine.runSeed = runSeed;
    std::vector<HostSlot> all(P);
    out.processes = P;
    out.writesResults = comm.rank() == 0;
    if (!comm.allgather(&mine, sizeof mine, all.data(), limits)) {
        // Nothing was measured; a runtime failure, not bad input.
        out.status = RunStatus::Failed;
        char waited[32];
        std::snprintf(waited, sizeof waited, "%g", limits.timeoutSeconds);
        out.error = std::string("the processes of the MPI job did not meet before the run (a process is missing, hung "
                                "or was killed; waited ") + waited + " s)";
        out.start = out.end = WallClock().now();
        return false;
    }
    runSeed = all[0].runSeed;
    for (std::uint64_t p = 0; p < P; ++p) {
        const std::string name(all[p].hostname, strnlen(all[p].hostname, sizeof all[p].hostname));
        std::uint32_t index = 0;
        while (index < out.hosts.size() && out.hosts[index].hostname != name) ++index;
        if (index == out.hosts.size()) out.hosts.push_back(HostSummary{name, all[p].cpuCount, all[p].memoryGiB});
        for (std::uint64_t l = 0; l < accelerators; ++l) out.rankHost.push_back(index);
    }
    if (out.writesResults && observer) {
        std::vector<std::string> hostOfRank;
        for (auto h : out.rankHost) hostOfRank.push_back(out.hosts[h].hostname);
        observer->onHosts(hostOfRank);
    }
    return true;
}

RunOutcome runTraining(const WorkloadConfig& cfg, const EngineOptions& options) {
    const std::uint64_t K = std::max<std::uint64_t>(1, options.accelerators); // this process's ranks
    dist::Communicator* comm = options.comm;
    const std::uint64_t P = comm ? static_cast<std::uint64_t>(comm->size()) : 1;
    const std::uint64_t first = comm ? static_cast<std::uint64_t>(comm->rank()) * K : 0;
    const std::uint64_t R = K * P;
    // Validate the plan up front so that bad input is an InputError before any thread starts.
    const ShardPlan plan0 = planShard(cfg, 0, R);
    for (std::uint64_t r = 1; r < R; ++r) planShard(cfg, r, R);
    // The readers read what the generator writes (core/format/format_writer.h).
    if (!formatWritable(cfg.dataset.format))
        throw InputError(std::string("dataset.format = ") + toString(cfg.dataset.format) +
                         ": expected one of npz, npy, tfrecord, hdf5, indexed_binary, raw, jpeg, png (the formats this build reads)");

    std::uint64_t runSeed = cfg.train.seed;
    if (cfg.reader.sampleShuffle == ShuffleMode::Random || cfg.reader.fileShuffle == ShuffleMode::Random) {
        std::random_device rd;
        runSeed = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
    }
    RunOutcome out;
    if (comm) {
        dist::WaitLimits limits;
        limits.timeoutSeconds = options.commTimeoutSeconds;
        limits.hurry = options.cancel;
        if (!meetProcesses(*comm, K, limits, options.observer, runSeed, out)) return out;
    }
    SharedRun run(cfg, options, R, K, first, runSeed);
    // One ring per local accelerator (a few thousand steps between two 20 ms drains), and one for process 0's
    // relay of the other processes' steps: each meeting adds R − K events, the ring holds a few hundred meetings.
    std::vector<std::size_t> rings(K, 4096);
    rings.push_back(comm ? std::max<std::size_t>(4096, 256 * (R - K)) : 2);
    EventPump pump(options.observer, rings);
    run.pump = &pump;
    run.recordsResults = out.writesResults;
    run.metricOptions.semantics = options.semantics;
    run.metricOptions.excludeStartSteps = cfg.metric.excludeStartSteps;
    run.metricOptions.excludeEndSteps = cfg.metric.excludeEndSteps;
    run.metricOptions.expectedSteps = plan0.stepsPerEpoch;
    run.metricOptions.batchSize = cfg.reader.batchSize;

    std::shared_ptr<IoBackend> io = options.io ? options.io : makePosixBackend();
    // Process 0 keeps every rank (the others' rebuilt from the meetings); another process only its own.
    std::vector<RankRecord> records(out.writesResults ? R : K);
    for (std::uint64_t i = 0; i < records.size(); ++i) records[i].rank = out.writesResults ? i : first + i;
    std::unique_ptr<RemoteRanks> remote;
    if (comm) {
        dist::WaitLimits limits;
        limits.timeoutSeconds = options.commTimeoutSeconds;
        limits.hurry = options.cancel;
        run.sync = std::make_unique<dist::ProcessSync>(*comm, K, run.stop, limits);
        if (out.writesResults) {
            remote = std::make_unique<RemoteRanks>(run, records);
            run.sync->onMeeting = [&remote](const std::vector<dist::SyncSlot>& slots) { remote->onMeeting(slots); };
        }
        run.sync->start();
    }
    auto recordOf = [&](std::uint64_t globalRank) -> RankRecord& {
        return out.writesResults ? records[globalRank] : records[globalRank - first];
    };
    out.start = run.clock.now();
    const double cpu0 = processCpuSeconds();
    if (options.observer) options.observer->onPhase("train");

    std::vector<std::thread> threads;
    threads.reserve(K);
    for (std::uint64_t r = first; r < first + K; ++r)
        threads.emplace_back([&, r] {
            try {
                runRank(run, r, recordOf(r), *io);
            } catch (const std::exception& e) {
                run.fail(e.what());
                run.leave(r, false);
            }
        });
    // Forward an external cancel to ranks blocked at the barrier.
    std::atomic<bool> joined{false};
    std::thread watcher([&] {
        while (!joined.load()) {
            if (run.cancelled()) {
                run.cancel();
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    });
    for (auto& t : threads) t.join();
    joined.store(true);
    watcher.join();
    if (run.sync) run.sync->join();
    pump.finish(); // every live event is delivered before the outcome is returned

    out.end = run.clock.now();
    out.cpuSeconds = processCpuSeconds() - cpu0;
    out.stepsPerEpoch = plan0.stepsPerEpoch;
    out.runSeed = runSeed;
    out.metricOptions = run.metricOptions;
    out.bytesRead = run.bytesRead.load() + (remote ? remote->bytes() : 0);
    out.samplesRead = run.samplesRead.load() + (remote ? remote->samples() : 0);
    out.error = run.error;
    if (out.error.empty() && run.sync && (run.sync->broken() || !run.sync->remoteError().empty()))
        out.error = run.sync->remoteError();
    out.ranks = std::move(records);
    out.loaderTallies = std::move(run.loaderTallies);
    out.loaderPlacement = std::move(run.loaderPlacement);
    bool allComplete = true;
    for (const auto& r : out.ranks) {
        allComplete = allComplete && r.epochs.size() == cfg.train.epochs;
        for (const auto& e : r.epochs) allComplete = allComplete && e.complete;
    }
    if (!out.error.empty())
        out.status = RunStatus::Failed;
    else if (!allComplete)
        out.status = RunStatus::Cancelled;
    out.metrics = invocationMetrics(out.ranks, out.metricOptions, cfg.dataset.recordLength, cfg.metric.au);
    return out;
}

} // namespace trainio
