// The multi-process engine path (docs/mpi.md) without MPI: "processes" are threads of this test, each
// calling runTraining with its own Communicator over an in-memory exchange (LoopbackCommunicator below,
// written here, independent of the Open MPI one). Runs under TSan and ASan with the engine tests: the
// per-step meetings (core/dist/process_sync), process 0's rebuilding of the other processes' records,
// a failure on one process stopping every process at the same meeting, a process that never comes
// (the meeting gives up), and a cancel. Expected values come from the config and from each process's
// own records, never from process 0's rebuilt ones.
#include "testsupport.h"

#include "config/config_loader.h"
#include "dataset/dataset_generator.h"
#include "dist/communicator.h"
#include "engine/training_engine.h"
#include "io/fault_injection.h"

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

using namespace trainio;

namespace {

// An allgather among threads: round k of every communicator meets round k of the others.
class LoopbackHub {
public:
    explicit LoopbackHub(int n) : n_(n) {}
    int size() const { return n_; }
    bool exchange(int rank, std::uint64_t round, const std::string& mine, std::vector<std::string>& out,
                  const dist::WaitLimits& limits) {
        std::unique_lock lock(mutex_);
        Round& r = rounds_[round];
        if (r.contrib.empty()) r.contrib.resize(static_cast<std::size_t>(n_));
        r.contrib[static_cast<std::size_t>(rank)] = mine;
        if (++r.arrived == n_) cv_.notify_all();
        const auto start = std::chrono::steady_clock::now();
        auto hurried = std::chrono::steady_clock::time_point::max();
        while (r.arrived < n_) {
            cv_.wait_for(lock, std::chrono::milliseconds(1));
            const auto now = std::chrono::steady_clock::now();
            if (limits.hurry && limits.hurry->load()) {
                if (hurried == std::chrono::steady_clock::time_point::max()) hurried = now;
                if (std::chrono::duration<double>(now - hurried).count() > limits.hurryGraceSeconds) return false;
            }
            if (std::chrono::duration<double>(now - start).count() > limits.timeoutSeconds) return false;
        }
        out = r.contrib;
        if (++r.read == n_) rounds_.erase(round);
        return true;
    }

private:
    struct Round {
        std::vector<std::string> contrib;
        int arrived = 0, read = 0;
    };
    const int n_;
    std::mutex mutex_;
    std::condition_variable cv_;
    std::map<std::uint64_t, Round> rounds_;
};

class LoopbackCommunicator final : public dist::Communicator {
public:
    LoopbackCommunicator(LoopbackHub& hub, int rank) : hub_(hub), rank_(rank) {}
    int rank() const override { return rank_; }
    int size() const override { return hub_.size(); }
    bool allgather(const void* local, std::size_t bytes, void* all, const dist::WaitLimits& limits) override {
        std::vector<std::string> parts;
        if (!allgatherStrings(std::string(static_cast<const char*>(local), bytes), parts, limits)) return false;
        char* dst = static_cast<char*>(all);
        for (const auto& p : parts) {
            if (p.size() != bytes) return false;
            std::memcpy(dst, p.data(), bytes);
            dst += bytes;
        }
        return true;
    }
    bool allgatherStrings(const std::string& local, std::vector<std::string>& all, const dist::WaitLimits& limits) override {
        if (broken_) return false;
        if (!hub_.exchange(rank_, round_++, local, all, limits)) broken_ = true;
        return !broken_;
    }
    bool broken() const override { return broken_; }

private:
    LoopbackHub& hub_;
    const int rank_;
    std::uint64_t round_ = 0;
    bool broken_ = false;
};

WorkloadConfig tinyConfig(const std::string& folder, int epochs) {
    const std::string yaml = "model: tiny\nframework: pytorch\nworkflow:\n  generate_data: False\n  train: True\n"
                             "dataset:\n  data_folder: " + folder +
                             "\n  format: npz\n  num_files_train: 24\n  num_samples_per_file: 2\n  record_length_bytes: 65536\n"
                             "reader:\n  data_loader: pytorch\n  batch_size: 2\n  read_threads: 1\n  file_shuffle: seed\n"
                             "  sample_shuffle: seed\ntrain:\n  epochs: " + std::to_string(epochs) +
                             "\n  computation_time: 0.001\nmetric:\n  au: 0.5\n";
    return loadWorkloadConfigFromString(yaml, "tiny.yaml").config;
}

// Runs P "processes" of K accelerators each; process p's options are adjusted by `tweak`.
std::vector<RunOutcome> runProcesses(const WorkloadConfig& cfg, int P, std::uint64_t K,
                                     const std::function<void(int, EngineOptions&)>& tweak = {}, int absent = -1) {
    LoopbackHub hub(P);
    std::vector<std::unique_ptr<LoopbackCommunicator>> comms;
    for (int p = 0; p < P; ++p) comms.push_back(std::make_unique<LoopbackCommunicator>(hub, p));
    std::vector<RunOutcome> outs(static_cast<std::size_t>(P));
    std::vector<std::thread> threads;
    for (int p = 0; p < P; ++p) {
        if (p == absent) continue; // a process that never comes
        threads.emplace_back([&, p] {
            EngineOptions o;
            o.accelerators = K;
            o.comm = comms[static_cast<std::size_t>(p)].get();
            if (tweak) tweak(p, o);
            outs[static_cast<std::size_t>(p)] = runTraining(cfg, o);
        });
    }
    for (auto& t : threads) t.join();
    return outs;
}

std::uint64_t stepsOf(const RankRecord& r) {
    std::uint64_t n = 0;
    for (const auto& e : r.epochs) n += e.steps();
    return n;
}

} // namespace

class TestEngineProcesses : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;
    std::string data_;

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        data_ = (std::filesystem::path(tmp_.path().toStdString()) / "data").string();
        GenerateOptions g;
        generateDataset(tinyConfig(data_, 1), g);
    }

    // 3 processes × 2 accelerators: process 0 holds all 6 ranks, each with every step of every epoch,
    // and its copies of the other processes' ranks equal what those processes recorded themselves.
    void processZeroHoldsEveryRank() {
        const WorkloadConfig cfg = tinyConfig(data_, 2);
        const auto outs = runProcesses(cfg, 3, 2);
        // 48 samples / batch 2 / 6 ranks = 4 steps per epoch.
        const RunOutcome& zero = outs[0];
        QCOMPARE(zero.status, RunStatus::Complete);
        QVERIFY(zero.writesResults);
        QCOMPARE(zero.ranks.size(), std::size_t(6));
        QCOMPARE(zero.processes, std::uint64_t(3));
        QCOMPARE(zero.rankHost.size(), std::size_t(6));
        for (std::uint64_t g = 0; g < 6; ++g) {
            QCOMPARE(zero.ranks[g].rank, g);
            QCOMPARE(zero.ranks[g].epochs.size(), std::size_t(2));
            for (const auto& e : zero.ranks[g].epochs) {
                QVERIFY(e.complete);
                QCOMPARE(e.steps(), std::uint64_t(4));
                QVERIFY(e.end >= e.start && e.start > 0);
            }
        }
        for (int p = 1; p < 3; ++p) {
            const RunOutcome& o = outs[static_cast<std::size_t>(p)];
            QCOMPARE(o.status, RunStatus::Complete);
            QVERIFY(!o.writesResults);
            QCOMPARE(o.ranks.size(), std::size_t(2));
            for (const RankRecord& own : o.ranks) {
                const RankRecord& copy = zero.ranks[own.rank];
                QCOMPARE(copy.epochs.size(), own.epochs.size());
                for (std::size_t e = 0; e < own.epochs.size(); ++e) {
                    QCOMPARE(copy.epochs[e].blocks[0].load, own.epochs[e].blocks[0].load);
                    QCOMPARE(copy.epochs[e].blocks[0].proc, own.epochs[e].blocks[0].proc);
                    QCOMPARE(copy.epochs[e].start, own.epochs[e].start);
                    QCOMPARE(copy.epochs[e].end, own.epochs[e].end);
                }
            }
        }
        // Samples: every rank read 4 steps × 2 samples × 2 epochs.
        QCOMPARE(zero.samplesRead, std::uint64_t(6 * 4 * 2 * 2));
        QCOMPARE(zero.metrics.auPerEpoch.size(), std::size_t(2));
    }

    // Reads failing on process 2 stop every process at the same meeting: process 0 fails naming it, and
    // no rank ran more than one step past another.
    void aFailureStopsEveryProcess() {
        const WorkloadConfig cfg = tinyConfig(data_, 50);
        const auto outs = runProcesses(cfg, 3, 1, [&](int p, EngineOptions& o) {
            if (p == 2) o.io = withFaults(makePosixBackend(), "read:EIO:img_:skip=30");
        });
        QCOMPARE(outs[2].status, RunStatus::Failed);
        QCOMPARE(outs[0].status, RunStatus::Failed);
        QVERIFY2(QString::fromStdString(outs[0].error).startsWith(QStringLiteral("process 2: ")), outs[0].error.c_str());
        std::uint64_t lo = UINT64_MAX, hi = 0;
        for (const auto& r : outs[0].ranks) {
            lo = std::min(lo, stepsOf(r));
            hi = std::max(hi, stepsOf(r));
        }
        QVERIFY2(hi - lo <= 1, qPrintable(QStringLiteral("%1..%2").arg(lo).arg(hi)));
        QVERIFY(hi < 50 * 8);
    }

    // A process that never comes: the first meeting gives up after the timeout and the run fails.
    void aMissingProcessFailsTheRun() {
        const WorkloadConfig cfg = tinyConfig(data_, 2);
        const auto outs = runProcesses(
            cfg, 2, 1, [](int, EngineOptions& o) { o.commTimeoutSeconds = 0.5; }, /*absent=*/1);
        QCOMPARE(outs[0].status, RunStatus::Failed);
        QVERIFY2(QString::fromStdString(outs[0].error).contains(QStringLiteral("did not")), outs[0].error.c_str());
    }

    // Process 0 relays every remote rank's steps to its observer after the meeting has released the
    // accelerators (issue 19): an observer blocked in onStep until the run's last epoch has ended does not
    // hold the meetings. Its epoch events carry the loader's figures over every rank of the job: the
    // stall is the mean of all 4 ranks' summed step loads, as each process recorded them itself.
    void processZeroRelaysOutsideTheMeetings() {
        const WorkloadConfig cfg = tinyConfig(data_, 2);
        struct Blocking final : EngineObserver {
            std::mutex m;
            std::condition_variable cv;
            bool released = false, timedOut = false;
            std::uint64_t remoteSteps = 0;
            std::vector<EpochEvent> epochs;
            void onStep(const StepEvent& e) override {
                std::unique_lock lock(m);
                if (e.rank >= 2 && !released &&
                    !cv.wait_for(lock, std::chrono::milliseconds(testsupport::kHangMs), [&] { return released; }))
                    timedOut = released = true;
                if (e.rank >= 2) ++remoteSteps;
            }
            void onEpoch(const EpochEvent& e) override {
                std::lock_guard lock(m);
                epochs.push_back(e);
            }
            void release() {
                {
                    std::lock_guard lock(m);
                    released = true;
                }
                cv.notify_all();
            }
        } obs;
        bool lastEpochEnded = false;
        // Every process has the hook (its meetings are collective); process 0's releases the observer.
        const auto outs = runProcesses(cfg, 2, 2, [&](int p, EngineOptions& o) {
            if (p == 0) o.observer = &obs;
            o.afterEpoch = [&, p](std::uint64_t epoch, const std::vector<std::uint64_t>&) {
                if (p == 0 && epoch == 2) {
                    lastEpochEnded = true;
                    obs.release();
                }
            };
        });
        QVERIFY2(outs[0].status == RunStatus::Complete, outs[0].error.c_str());
        QVERIFY2(outs[1].status == RunStatus::Complete, outs[1].error.c_str());
        QVERIFY(lastEpochEnded);
        QVERIFY2(!obs.timedOut, "the meetings waited for process 0's observer");
        // 48 samples / batch 2 / 4 ranks = 6 steps per epoch; ranks 2 and 3 are process 1's.
        QCOMPARE(obs.remoteSteps, std::uint64_t(2 * 2 * 6));
        QCOMPARE(obs.epochs.size(), std::size_t(2));
        for (const auto& ev : obs.epochs) {
            double sum = 0;
            for (const auto& r : outs[0].ranks)
                if (r.rank < 2) sum += r.epochs[ev.epoch - 1].loadSeconds();
            for (const auto& r : outs[1].ranks) sum += r.epochs[ev.epoch - 1].loadSeconds(); // its own records
            QVERIFY2(std::abs(ev.stallSeconds - sum / 4) < 1e-9,
                     qPrintable(QStringLiteral("%1 vs %2").arg(ev.stallSeconds).arg(sum / 4)));
            QCOMPARE(ev.hitRatio, 0.0); // plain loader: every access read from storage, on every rank
            QCOMPARE(ev.rankAu.size(), std::size_t(4));
        }
    }

    // A cancel on every process (the forwarded SIGUSR1): all stop at the same meeting, none broken,
    // process 0 marks the run cancelled and keeps the epochs measured.
    void aCancelStopsEveryProcessCleanly() {
        const WorkloadConfig cfg = tinyConfig(data_, 200);
        std::atomic<bool> cancel{false};
        // The cancel comes once process 0 has seen a few steps go by (mid-epoch, as a signal would), not
        // after a fixed sleep: a slow machine had then not made its first step yet (issue 29).
        struct CancelAfterSteps final : EngineObserver {
            std::atomic<bool>* cancel = nullptr;
            std::atomic<int> seen{0};
            void onStep(const StepEvent&) override {
                if (++seen == 3) cancel->store(true);
            }
        } canceller;
        canceller.cancel = &cancel;
        const auto outs = runProcesses(cfg, 2, 2, [&](int p, EngineOptions& o) {
            o.cancel = &cancel;
            if (p == 0) o.observer = &canceller;
        });
        QCOMPARE(outs[0].status, RunStatus::Cancelled);
        QVERIFY2(outs[0].error.empty(), outs[0].error.c_str());
        QCOMPARE(outs[0].ranks.size(), std::size_t(4));
        std::uint64_t lo = UINT64_MAX, hi = 0;
        for (const auto& r : outs[0].ranks) {
            lo = std::min(lo, stepsOf(r));
            hi = std::max(hi, stepsOf(r));
        }
        QVERIFY(lo > 0);
        QVERIFY2(hi - lo <= 1, qPrintable(QStringLiteral("%1..%2").arg(lo).arg(hi)));
    }
};

QTEST_GUILESS_MAIN(TestEngineProcesses)
#include "tst_engine_processes.moc"
