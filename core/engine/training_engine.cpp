#include "engine/training_engine.h"

#include "dataset/dataset_layout.h"
#include "engine/batch_prefetcher.h"
#include "engine/compute_emulator.h"
#include "engine/sample_order.h"
#include "engine/step_barrier.h"
#include "engine/thread_tuning.h"
#include "format/format_writer.h"
#include "util/clock.h"
#include "util/errors.h"

#include <algorithm>
#include <mutex>
#include <random>
#include <thread>

namespace trainio {

const char* toString(RunStatus s) {
    switch (s) {
    case RunStatus::Complete: return "complete";
    case RunStatus::Cancelled: return "cancelled";
    case RunStatus::Failed: return "failed";
    }
    return "?";
}

namespace {

struct SharedRun {
    const WorkloadConfig& cfg;
    const EngineOptions& opt;
    MetricOptions metricOptions;
    std::uint64_t ranks;
    std::uint64_t runSeed;
    WallClock clock;
    StepBarrier barrier;
    std::atomic<bool> stop{false}; // cancel requested or a rank failed
    std::mutex errorMutex;
    std::string error;
    // perEpoch[e][r], filled by rank r at the end of epoch e (preallocated: no reallocation races).
    std::vector<std::vector<EpochRankMetrics>> perEpoch;
    // epochBytes[e][r]: bytes rank r's readers delivered in epoch e (for EngineOptions::afterEpoch).
    std::vector<std::vector<std::uint64_t>> epochBytes;
    std::atomic<std::uint64_t> bytesRead{0}, samplesRead{0};

    SharedRun(const WorkloadConfig& c, const EngineOptions& o, std::uint64_t r, std::uint64_t seed)
        : cfg(c), opt(o), ranks(r), runSeed(seed), barrier(r),
          perEpoch(c.train.epochs, std::vector<EpochRankMetrics>(r)),
          epochBytes(c.train.epochs, std::vector<std::uint64_t>(r, 0)) {}

    // Runs a between-epochs hook on rank 0 while the other ranks wait at the barrier; false if the run
    // stops (a failing hook fails the run).
    template <class F>
    bool betweenEpochs(std::uint64_t rank, F&& hook) {
        if (!barrier.arriveAndWait()) return false;
        if (rank == 0) {
            try {
                hook();
            } catch (const std::exception& e) {
                fail(e.what());
            }
        }
        return barrier.arriveAndWait();
    }

    bool cancelled() const { return opt.cancel && opt.cancel->load(std::memory_order_relaxed); }
    void fail(const std::string& what) {
        {
            std::lock_guard lock(errorMutex);
            if (error.empty()) error = what;
        }
        stop.store(true);
        barrier.abort();
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
    ComputeEmulator::tightenTimerSlack();
    // Only a thread that sleeps through compute steps needs to preempt on wake-up; with no compute the
    // training loop would preempt a reader at every batch for nothing.
    if (cfg.train.computationTime.expectedSeconds() > 0) askShortSlice();
    const ShardPlan plan = planShard(cfg, rank, run.ranks);
    DatasetLayout layout(cfg.dataset);
    // run.stop follows the external cancel (see the watcher in runTraining) and any rank's failure.
    BatchPrefetcher prefetcher(cfg, io, layout, run.stop);
    ComputeEmulator compute(cfg.train.computationTime, mixSeed(cfg.train.seed, 0xC0117E, rank));
    std::vector<std::uint64_t> order;
    const StopFlag shouldStop{run};
    const bool v1 = run.opt.semantics == MetricSemantics::DlioV1;
    EngineObserver* obs = run.opt.observer;
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
        return true;
    };

    for (std::uint64_t epoch = 1; epoch <= cfg.train.epochs; ++epoch) {
        if (shouldStop()) break;
        sampleOrder(cfg, plan, rank, epoch, run.runSeed, order);
        if (run.opt.semantics == MetricSemantics::DlioV3 && !warmReaders(prefetcher, order)) {
            if (prefetcher.failed()) run.fail(prefetcher.error());
            break;
        }
        if (run.opt.beforeEpoch && !run.betweenEpochs(rank, [&] { run.opt.beforeEpoch(epoch); })) break;
        const std::uint64_t bytesBefore = prefetcher.bytesRead();
        prefetcher.startEpoch(order, plan.stepsPerEpoch);
        if (!run.barrier.arriveAndWait()) {
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
            const double t1 = run.clock.now();
            const double drawn = compute.draw();
            const bool finished = ComputeEmulator::wait(drawn, &run.stop);
            const double t2 = run.clock.now();
            if (!finished) break; // cancelled mid-compute: the step is not recorded
            blockp->load.push_back(t1 - t0);
            blockp->compute.push_back(v1 ? drawn : t2 - t1);
            blockp->proc.push_back(t2 - t0);
            if (obs) {
                StepEvent ev;
                ev.rank = rank;
                ev.epoch = epoch;
                ev.step = step + 1;
                ev.stepsPerEpoch = plan.stepsPerEpoch;
                ev.load = t1 - t0;
                ev.compute = blockp->compute.back();
                ev.proc = t2 - t0;
                ev.wallTime = t2 - run.clock.origin();
                ev.queueDepth = prefetcher.readyBatches();
                ev.bytesRead = prefetcher.bytesRead();
                obs->onStep(ev);
            }
            // The emulated all-reduce (DLIO has none). t0 is taken after it, so its wait is in no step's
            // load or compute but in the block's wall time T, which AU divides by (SPEC §5, docs/engine.md).
            if (!run.barrier.arriveAndWait()) {
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
        run.epochBytes[epoch - 1][rank] = prefetcher.bytesRead() - bytesBefore;
        ep.complete = ep.steps() == plan.stepsPerEpoch;
        if (prefetcher.failed()) run.fail(prefetcher.error());
        if (!ep.complete) break;
        run.perEpoch[epoch - 1][rank] = epochRankMetrics(ep, run.metricOptions);
        if (!run.barrier.arriveAndWait()) break;
        if (ckpt && ckptEvery == 0 && epoch == nextCkptEpoch) {
            nextCkptEpoch += cfg.checkpoint.epochsBetween;
            // DLIO names it after the step counter past the epoch's last step (save_checkpoint(epoch, overall_step)).
            if (!saveCheckpoint(epoch, plan.stepsPerEpoch + 1, ep.blocks.back().block)) break;
        }
        if (run.opt.afterEpoch &&
            !run.betweenEpochs(rank, [&] { run.opt.afterEpoch(epoch, run.epochBytes[epoch - 1]); }))
            break;
        if (rank == 0 && obs) {
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
            obs->onEpoch(ev);
        }
    }
    run.bytesRead.fetch_add(prefetcher.bytesRead());
    run.samplesRead.fetch_add(prefetcher.samplesRead());
}

} // namespace

RunOutcome runTraining(const WorkloadConfig& cfg, const EngineOptions& options) {
    const std::uint64_t R = std::max<std::uint64_t>(1, options.accelerators);
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
    SharedRun run(cfg, options, R, runSeed);
    run.metricOptions.semantics = options.semantics;
    run.metricOptions.excludeStartSteps = cfg.metric.excludeStartSteps;
    run.metricOptions.excludeEndSteps = cfg.metric.excludeEndSteps;
    run.metricOptions.expectedSteps = plan0.stepsPerEpoch;
    run.metricOptions.batchSize = cfg.reader.batchSize;

    std::shared_ptr<IoBackend> io = options.io ? options.io : makePosixBackend();
    RunOutcome out;
    out.ranks.resize(R);
    out.start = run.clock.now();
    const double cpu0 = processCpuSeconds();
    if (options.observer) options.observer->onPhase("train");

    std::vector<std::thread> threads;
    threads.reserve(R);
    for (std::uint64_t r = 0; r < R; ++r)
        threads.emplace_back([&, r] {
            try {
                runRank(run, r, out.ranks[r], *io);
            } catch (const std::exception& e) {
                run.fail(e.what());
            }
        });
    // Forward an external cancel to ranks blocked at the barrier.
    std::atomic<bool> joined{false};
    std::thread watcher([&] {
        while (!joined.load()) {
            if (run.cancelled()) {
                run.stop.store(true);
                run.barrier.abort();
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    });
    for (auto& t : threads) t.join();
    joined.store(true);
    watcher.join();

    out.end = run.clock.now();
    out.cpuSeconds = processCpuSeconds() - cpu0;
    out.stepsPerEpoch = plan0.stepsPerEpoch;
    out.runSeed = runSeed;
    out.metricOptions = run.metricOptions;
    out.bytesRead = run.bytesRead.load();
    out.samplesRead = run.samplesRead.load();
    out.error = run.error;
    bool allComplete = true;
    for (const auto& r : out.ranks) {
        allComplete = allComplete && r.epochs.size() == cfg.train.epochs;
        for (const auto& e : r.epochs) allComplete = allComplete && e.complete;
    }
    if (!run.error.empty())
        out.status = RunStatus::Failed;
    else if (!allComplete)
        out.status = RunStatus::Cancelled;
    out.metrics = invocationMetrics(out.ranks, out.metricOptions, cfg.dataset.recordLength, cfg.metric.au);
    return out;
}

} // namespace trainio
