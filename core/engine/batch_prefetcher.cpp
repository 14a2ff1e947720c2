#include "engine/batch_prefetcher.h"

#include "engine/compute_emulator.h"
#include "loader/thread_tuning.h"
#include "util/errors.h"

#include <algorithm>
#include <chrono>

namespace trainio {

BatchPrefetcher::BatchPrefetcher(const WorkloadConfig& cfg, IoBackend& io, loader::SampleSource& source,
                                 const std::atomic<bool>& cancel)
    : cfg_(cfg), io_(io), source_(source), cancel_(cancel), batch_(std::max<std::uint64_t>(1, cfg.reader.batchSize)),
      window_(source.stagingBatches() > 0 ? source.stagingBatches()
                                          : std::max<std::uint64_t>({cfg.reader.prefetchSize, cfg.reader.readThreads, 1})),
      synchronous_(cfg.reader.readThreads == 0), wholeBatches_(cfg.trainio.wholeBatches && cfg.reader.readThreads > 1),
      ownTicket_(std::max<std::uint64_t>(1, cfg.reader.readThreads), 0), remaining_(window_, 0), slotBatch_(window_, UINT64_MAX) {
    const unsigned n = static_cast<unsigned>(std::max<std::uint64_t>(1, cfg.reader.readThreads));
    threads_.reserve(n);
    for (unsigned i = 0; i < n; ++i) threads_.emplace_back([this, i] { readerLoop(i); });
}

BatchPrefetcher::~BatchPrefetcher() {
    {
        std::lock_guard lock(mutex_);
        shutdown_ = true;
    }
    workCv_.notify_all();
    for (auto& t : threads_) t.join();
}

void BatchPrefetcher::startEpoch(const std::vector<std::uint64_t>& order, std::uint64_t steps) {
    std::lock_guard lock(mutex_);
    order_ = &order;
    steps_ = steps;
    nextTicket_ = 0;
    for (std::size_t r = 0; r < ownTicket_.size(); ++r) ownTicket_[r] = r * batch_;
    taken_ = 0;
    requested_ = 0;
    for (std::uint64_t s = 0; s < window_; ++s) {
        slotBatch_[s] = s < steps ? s : UINT64_MAX;
        remaining_[s] = batch_;
    }
    active_ = true;
    ++epochGen_;
    workCv_.notify_all();
}

bool BatchPrefetcher::ticketAvailable(unsigned id) const {
    if (!active_ || failed_.load()) return false;
    const std::uint64_t total = steps_ * batch_;
    const std::uint64_t next = wholeBatches_ ? ownTicket_[id] : nextTicket_;
    if (next >= total) return false;
    if (synchronous_ && next / batch_ >= requested_) return false;
    return next / batch_ < taken_ + window_;
}

std::uint64_t BatchPrefetcher::takeTicket(unsigned id) {
    if (!wholeBatches_) return nextTicket_++;
    const std::uint64_t t = ownTicket_[id]++;
    // Past its batch's last sample: on to its next batch, W batches on.
    if (ownTicket_[id] % batch_ == 0) ownTicket_[id] += (ownTicket_.size() - 1) * batch_;
    return t;
}

void BatchPrefetcher::readerLoop(unsigned id) {
    std::unique_ptr<SampleReader> reader;
    std::string initError;
    try {
        reader = makeSampleReader(cfg_.dataset.format, io_, loader::sampleReaderOptions(cfg_));
    } catch (const std::exception& e) {
        initError = e.what();
    }
    // reader.preprocess_time: DLIO's FormatReader.preprocess() sleeps a draw of it after every sample, in
    // the reader that read it. Each reader draws from its own stream (the seed and its index).
    const ComputeTime& pre = cfg_.reader.preprocessTime;
    const ComputeTime& preCpu = cfg_.trainio.preprocessCpuTime; // run on a core first (a captured job's CPU work)
    const bool burns = preCpu.expectedSeconds() > 0;
    const bool preprocesses = burns || pre.distribution != ComputeDistribution::Constant || pre.mean > 0;
    ComputeEmulator preprocess(pre, cfg_.train.seed ^ (0x9e3779b97f4a7c15ull * (id + 1)));
    ComputeEmulator preprocessCpu(preCpu, cfg_.train.seed ^ (0xc2b2ae3d27d4eb4full * (id + 1)));
    // Readers run as SCHED_BATCH with the default slice: they do not preempt the training loop when
    // they wake up, so the emulator's own reading does not steal the emulated accelerator's time. A reader
    // that emulates preprocessing stands for a loader worker that sleeps and wakes per sample: as
    // SCHED_BATCH its wake-up would wait up to a scheduler tick (4 ms at HZ=250) on a busy machine, longer
    // than a typical preprocess time; it stays SCHED_OTHER, as a DataLoader's worker processes are.
    if (!preprocesses) runAsBatch();
    std::uint64_t seenGen = 0;
    for (;;) {
        std::uint64_t ticket = 0;
        bool newEpoch = false;
        {
            std::unique_lock lock(mutex_);
            workCv_.wait(lock, [&] { return shutdown_ || ticketAvailable(id); });
            if (shutdown_) return;
            ticket = takeTicket(id);
            ++busy_;
            newEpoch = seenGen != epochGen_;
            seenGen = epochGen_;
        }
        if (newEpoch && reader) reader->reset();
        bool ok = true;
        std::string err;
        if (!reader) {
            ok = false;
            err = initError;
        } else if (!cancel_.load(std::memory_order_relaxed)) {
            const std::uint64_t sample = (*order_)[ticket];
            try {
                bytesRead_.fetch_add(source_.fetch(sample, *reader), std::memory_order_relaxed);
                samplesRead_.fetch_add(1, std::memory_order_relaxed);
                if (burns) ComputeEmulator::burn(preprocessCpu.draw(), &cancel_);
                if (preprocesses) ComputeEmulator::wait(preprocess.draw(), &cancel_);
            } catch (const std::exception& e) {
                ok = false;
                err = e.what();
            }
        }
        {
            std::lock_guard lock(mutex_);
            --busy_;
            if (!ok && !failed_.load()) {
                error_ = err;
                failed_.store(true);
            }
            const std::uint64_t b = ticket / batch_;
            const std::uint64_t slot = b % window_;
            if (slotBatch_[slot] == b && remaining_[slot] > 0 && --remaining_[slot] == 0) readyCv_.notify_all();
            if (!ok) {
                readyCv_.notify_all();
                workCv_.notify_all();
            }
            if (busy_ == 0) idleCv_.notify_all();
        }
    }
}

bool BatchPrefetcher::takeBatch(std::uint64_t b) {
    std::unique_lock lock(mutex_);
    const std::uint64_t slot = b % window_;
    if (synchronous_ && requested_ <= b) {
        requested_ = b + 1;
        workCv_.notify_all();
    }
    // The cancel flag may be set from a signal handler, which cannot notify: re-check it periodically.
    // A failed read still counts its sample off (so waiters wake), which can make the batch look
    // loaded: the failure is checked first, or a batch whose sample was never read would be trained
    // on and, as the epoch's last, would make a failed epoch count as complete.
    for (;;) {
        if (failed_.load() || cancel_.load(std::memory_order_relaxed)) return false;
        if (slotBatch_[slot] == b && remaining_[slot] == 0) break;
        readyCv_.wait_for(lock, std::chrono::milliseconds(20));
    }
    // Free the slot for batch b + window: the loader may now prefetch it.
    const std::uint64_t next = b + window_;
    slotBatch_[slot] = next < steps_ ? next : UINT64_MAX;
    remaining_[slot] = batch_;
    taken_ = b + 1;
    // The queue depth after this batch was taken, counted while the lock is held anyway, so that the
    // training loop can report it without taking the lock again inside its measured window.
    std::uint64_t ready = 0;
    for (std::uint64_t s = 0; s < window_; ++s)
        if (slotBatch_[s] != UINT64_MAX && remaining_[s] == 0) ++ready;
    readyAfterTake_ = ready;
    lock.unlock();
    // Wake only as many readers as there are new samples to read: waking them all makes a herd that
    // preempts the training loop on small machines, and every µs it loses is an AU point lost.
    if (next < steps_) {
        if (batch_ >= threads_.size() || wholeBatches_) workCv_.notify_all(); // whole batches: one reader's turn
        else
            for (std::uint64_t i = 0; i < batch_; ++i) workCv_.notify_one();
    }
    return true;
}

void BatchPrefetcher::endEpoch() {
    std::unique_lock lock(mutex_);
    active_ = false;
    idleCv_.wait(lock, [&] { return busy_ == 0; });
    order_ = nullptr;
}

std::uint64_t BatchPrefetcher::readyBatches() const {
    std::lock_guard lock(mutex_);
    std::uint64_t n = 0;
    for (std::uint64_t s = 0; s < window_; ++s)
        if (slotBatch_[s] != UINT64_MAX && remaining_[s] == 0) ++n;
    return n;
}

std::string BatchPrefetcher::error() const {
    std::lock_guard lock(mutex_);
    return error_;
}

void BatchPrefetcher::wake() {
    readyCv_.notify_all();
    workCv_.notify_all();
}

} // namespace trainio
