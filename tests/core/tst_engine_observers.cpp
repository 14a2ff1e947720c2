// What watches a run stays out of its measured window (issue 19, docs/engine.md "What watches a run"):
// the accelerators hand their step events to lock-free rings and an event pump calls the observer from its
// own thread. Checked structurally, not by timing: an observer that blocks inside onStep until the run's
// last epoch has ended would hold the run forever if it were called from an accelerator's thread (the
// old path: every step waited for it), and costs the run nothing now. Also: every step reaches the
// observer before its epoch, a full ring drops live events (never measured ones), and the live JSON
// stream carries every field of an epoch event, NaN as "not known".
#include "testsupport.h"

#include "config/config_loader.h"
#include "dataset/dataset_generator.h"
#include "engine/event_pump.h"
#include "engine/live_json.h"
#include "engine/training_engine.h"

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <thread>

using namespace trainio;

namespace {

WorkloadConfig tinyConfig(const std::string& folder) {
    const std::string yaml = "model: tiny\nframework: pytorch\nworkflow:\n  generate_data: False\n  train: True\n"
                             "dataset:\n  data_folder: " + folder +
                             "\n  format: npz\n  num_files_train: 16\n  num_samples_per_file: 2\n"
                             "  record_length_bytes: 16384\nreader:\n  data_loader: pytorch\n  batch_size: 2\n"
                             "  read_threads: 2\n  file_shuffle: seed\n  sample_shuffle: seed\ntrain:\n  epochs: 3\n"
                             "  computation_time: 0.001\n";
    return loadWorkloadConfigFromString(yaml, "tiny.yaml").config;
}

// Blocks in onStep until told that the run's last epoch ended (or the hang bound passes, so that a
// regression fails the test instead of hanging it: the bound only has to outlast a slow run).
class BlockingObserver final : public EngineObserver {
public:
    void onStep(const StepEvent& e) override {
        std::unique_lock lock(mutex_);
        if (!released_) {
            ++blockedCalls;
            if (!cv_.wait_for(lock, std::chrono::milliseconds(testsupport::kHangMs), [&] { return released_; })) {
                timedOut = true;
                released_ = true; // once: a regression fails at the bound rather than hanging for every step
            }
        }
        steps.push_back(e);
    }
    void onEpoch(const EpochEvent& e) override {
        std::lock_guard lock(mutex_);
        epochs.push_back(e);
        stepsBeforeEpoch.push_back(steps.size());
    }
    void onMessage(const std::string& text) override {
        std::lock_guard lock(mutex_);
        messages.push_back(text);
    }
    void release() {
        {
            std::lock_guard lock(mutex_);
            released_ = true;
        }
        cv_.notify_all();
    }
    std::vector<StepEvent> steps;
    std::vector<EpochEvent> epochs;
    std::vector<std::size_t> stepsBeforeEpoch;
    std::vector<std::string> messages;
    int blockedCalls = 0;
    bool timedOut = false;

private:
    std::mutex mutex_;
    std::condition_variable cv_;
    bool released_ = false;
};

} // namespace

class TestEngineObservers : public QObject {
    Q_OBJECT
private slots:
    void aBlockedObserverDoesNotHoldTheRun() {
        QTemporaryDir tmp;
        const WorkloadConfig c = tinyConfig(tmp.filePath("data").toStdString());
        generateDataset(c, GenerateOptions{});
        BlockingObserver obs;
        EngineOptions o;
        o.accelerators = 2;
        o.observer = &obs;
        int lastEpochEnded = 0;
        // Called by the engine on a rank thread after each epoch's last step: reaching the last one while the
        // observer is still blocked in its first onStep proves the steps did not wait for it.
        o.afterEpoch = [&](std::uint64_t epoch, const std::vector<std::uint64_t>&) {
            if (epoch == c.train.epochs) {
                lastEpochEnded = static_cast<int>(epoch);
                obs.release();
            }
        };
        const RunOutcome r = runTraining(c, o);
        QCOMPARE(r.status, RunStatus::Complete);
        QCOMPARE(lastEpochEnded, 3);
        // The last epoch released the observer, not the hang bound (no duration asserted: issue 29).
        QVERIFY2(!obs.timedOut, "the run waited for the observer");
        QCOMPARE(obs.blockedCalls, 1);
        // Every step still reached the observer (16 files × 2 samples ÷ batch 2 ÷ 2 ranks = 8 steps), and
        // every epoch after all of its steps.
        QCOMPARE(obs.steps.size(), std::size_t(2 * 3 * 8));
        QCOMPARE(obs.epochs.size(), std::size_t(3));
        for (std::size_t e = 0; e < obs.epochs.size(); ++e) {
            QCOMPARE(obs.epochs[e].epoch, std::uint64_t(e + 1));
            std::size_t ofThisEpochOrEarlier = 0;
            for (std::size_t i = 0; i < obs.stepsBeforeEpoch[e]; ++i)
                if (obs.steps[i].epoch <= e + 1) ++ofThisEpochOrEarlier;
            QCOMPARE(ofThisEpochOrEarlier, std::size_t(2 * 8 * (e + 1)));
        }
        // The plain loader reads every sample from storage: a measured hit ratio of 0, and a stall that was
        // measured (summed step loads, mean over the 2 ranks) — not a default.
        for (const auto& ep : obs.epochs) {
            QCOMPARE(ep.hitRatio, 0.0);
            QVERIFY(std::isfinite(ep.stallSeconds));
            double sum = 0;
            for (const auto& rank : r.ranks) sum += rank.epochs[ep.epoch - 1].loadSeconds();
            QVERIFY(std::abs(ep.stallSeconds - sum / 2) < 1e-12);
        }
    }

    void aFullRingDropsLiveEventsOnly() {
        StepEventRing ring(4);
        StepEvent e;
        for (std::uint64_t i = 0; i < 4; ++i) {
            e.step = i;
            QVERIFY(ring.push(e));
        }
        e.step = 99;
        QVERIFY(!ring.push(e)); // full: dropped, never blocks
        std::vector<std::uint64_t> got;
        QCOMPARE(ring.drain([&](const StepEvent& s) { got.push_back(s.step); }), std::size_t(4));
        QCOMPARE(got, (std::vector<std::uint64_t>{0, 1, 2, 3}));
        // Wraps around.
        for (std::uint64_t i = 10; i < 13; ++i) {
            e.step = i;
            QVERIFY(ring.push(e));
        }
        got.clear();
        ring.drain([&](const StepEvent& s) { got.push_back(s.step); });
        QCOMPARE(got, (std::vector<std::uint64_t>{10, 11, 12}));

        // Through the pump: the drops are counted and said once the pump finishes.
        BlockingObserver obs;
        {
            EventPump pump(&obs, {8}, 1);
            for (std::uint64_t i = 0; i < 1000; ++i) {
                e.step = i;
                pump.step(0, e);
            }
            obs.release();
            pump.finish();
            QVERIFY(pump.dropped() > 0);
            QCOMPARE(obs.steps.size() + pump.dropped(), std::size_t(1000));
        }
        QCOMPARE(obs.messages.size(), std::size_t(1));
        QVERIFY2(obs.messages[0].find("skipped") != std::string::npos, obs.messages[0].c_str());
    }

    void liveJsonCarriesEveryEpochField() {
        EpochEvent e;
        e.epoch = 2;
        e.epochs = 5;
        e.auPercent = 91.5;
        e.throughput = 1234.5;
        e.mibPerSecond = 321.25;
        e.rankAu = {90.0, 93.0};
        e.rankThroughput = {600.0, 634.5};
        e.seconds = 3.5;
        e.hitRatio = 0.5;
        e.beladyHitRatio = 0.625;
        e.stallSeconds = 0.75;
        auto parsed = live::parseLine(live::epochLine("run 1/3", e));
        QVERIFY(parsed.has_value());
        QCOMPARE(parsed->kind, live::Event::Kind::Epoch);
        QCOMPARE(parsed->label, std::string("run 1/3"));
        QCOMPARE(parsed->epoch.hitRatio, 0.5);
        QCOMPARE(parsed->epoch.beladyHitRatio, 0.625);
        QCOMPARE(parsed->epoch.stallSeconds, 0.75);
        QCOMPARE(parsed->epoch.auPercent, 91.5);
        QCOMPARE(parsed->epoch.rankThroughput, e.rankThroughput);
        // Not known: written as null, read back as NaN — never as a measured 0.
        EpochEvent unknown;
        unknown.epoch = 1;
        unknown.epochs = 1;
        const std::string line = live::epochLine("", unknown);
        QVERIFY2(line.find("\"hit_ratio\":null") != std::string::npos, line.c_str());
        parsed = live::parseLine(line);
        QVERIFY(parsed.has_value());
        QVERIFY(std::isnan(parsed->epoch.hitRatio));
        QVERIFY(std::isnan(parsed->epoch.beladyHitRatio));
        QVERIFY(std::isnan(parsed->epoch.stallSeconds));
        // A line of an older version, without the loader's fields, is still read: they are not known.
        parsed = live::parseLine(R"({"event":"epoch","label":"","epoch":1,"epochs":2,"au_percent":50,)"
                                 R"("samples_per_second":10,"MiB_per_second":1,"rank_au":[50],)"
                                 R"("rank_samples_per_second":[10],"seconds":1})");
        QVERIFY(parsed.has_value());
        QVERIFY(std::isnan(parsed->epoch.hitRatio));
        QVERIFY(std::isnan(parsed->epoch.stallSeconds));
        // A default-constructed event says nothing about the loader.
        QVERIFY(std::isnan(EpochEvent{}.hitRatio));
        QVERIFY(std::isnan(EpochEvent{}.stallSeconds));
    }
};

QTEST_GUILESS_MAIN(TestEngineObservers)
#include "tst_engine_observers.moc"
