// The clairvoyant loader's planning (issue 13, core/loader/access_plan): the access string, the frequency
// ranking, tier placement and the cache simulations. Expected values are worked out by hand here or come
// from the textbook (Silberschatz, Galvin, Gagne, Operating System Concepts, 9th ed., §9.4: the reference
// string 7 0 1 2 0 3 0 4 2 3 0 3 2 1 2 0 1 7 0 1 with 3 frames gives 9 faults under OPT, 12 under LRU).
#include "testsupport.h"

#include "loader/sample_order.h"
#include "loader/access_plan.h"
#include "util/errors.h"

#include <set>
#include <vector>

using namespace trainio;
using namespace trainio::loader;

namespace {

AccessString stringOf(std::vector<std::vector<std::uint64_t>> epochs) {
    AccessString s;
    s.epochs = std::move(epochs);
    return s;
}

const SampleBytes kOneByte = [](std::uint64_t) { return std::uint64_t(1); };

WorkloadConfig shuffled(std::uint64_t samples, std::uint64_t epochs) {
    WorkloadConfig cfg;
    cfg.dataset.numFilesTrain = samples;
    cfg.dataset.numSamplesPerFile = 1;
    cfg.dataset.recordLength = 4096;
    cfg.reader.batchSize = 4;
    cfg.reader.sampleShuffle = ShuffleMode::Seed;
    cfg.reader.fileShuffle = ShuffleMode::Seed;
    cfg.train.epochs = epochs;
    cfg.train.seed = 123;
    cfg.train.seedChangeEpoch = true;
    return cfg;
}

} // namespace

class TestLoaderPlan : public QObject {
    Q_OBJECT
private slots:
    void textbookBeladyAndLru() {
        const auto s = stringOf({{7, 0, 1, 2, 0, 3, 0, 4, 2, 3, 0, 3, 2, 1, 2, 0, 1, 7, 0, 1}});
        const auto opt = simulateBelady(s, 3, kOneByte);
        QCOMPARE(opt.accesses, std::uint64_t(20));
        QCOMPARE(opt.accesses - opt.hits, std::uint64_t(9));
        QCOMPARE(opt.bytesFromStorage, std::uint64_t(9));
        const auto lru = simulateLru(s, 3, kOneByte);
        QCOMPARE(lru.accesses - lru.hits, std::uint64_t(12));
        // Split over two "epochs", the same string gives the same totals, counted per epoch.
        const auto split = simulateBelady(stringOf({{7, 0, 1, 2, 0, 3, 0, 4, 2, 3}, {0, 3, 2, 1, 2, 0, 1, 7, 0, 1}}), 3, kOneByte);
        QCOMPARE(split.hits, opt.hits);
        QCOMPARE(split.hitsPerEpoch.size(), std::size_t(2));
        QCOMPARE(split.hitsPerEpoch[0] + split.hitsPerEpoch[1], opt.hits);
        // 7 0 1 2 0 3 0 4 2 3 with 3 frames under OPT: hits at the 2nd 0, the 3rd 0, the 2nd 2, the 2nd 3.
        QCOMPARE(split.hitsPerEpoch[0], std::uint64_t(4));
    }

    void byteCapacity() {
        // Sizes: sample 1 is 3 bytes, the others 1. Capacity 3: 1 never shares the cache.
        const SampleBytes sizes = [](std::uint64_t id) { return id == 1 ? std::uint64_t(3) : std::uint64_t(1); };
        const auto s = stringOf({{1, 2, 1, 2, 5, 1}});
        const auto lru = simulateLru(s, 3, sizes);
        // 1 miss (in), 2 miss (evicts 1), 1 miss (evicts 2), 2 miss (evicts 1), 5 miss (2 + 5), 1 miss.
        QCOMPARE(lru.hits, std::uint64_t(0));
        QCOMPARE(lru.bytesFromStorage, std::uint64_t(3 + 1 + 3 + 1 + 1 + 3));
        // A sample larger than the cache is never cached, and costs its bytes every time.
        const auto tiny = simulateBelady(stringOf({{1, 1, 2, 2}}), 2, sizes);
        QCOMPARE(tiny.hits, std::uint64_t(1)); // the second 2
        QCOMPARE(tiny.bytesFromStorage, std::uint64_t(3 + 3 + 1));
    }

    void frequencyRankingByHand() {
        const auto s = stringOf({{5, 3, 9}, {3, 7}});
        const auto r = frequencyRanking(s, [](std::uint64_t id) { return id * 10; });
        QCOMPARE(r.size(), std::size_t(4));
        const std::vector<std::uint64_t> order{r[0].sample, r[1].sample, r[2].sample, r[3].sample};
        QVERIFY(order == (std::vector<std::uint64_t>{3, 5, 9, 7})); // 3 twice; then by first access
        QCOMPARE(r[0].accesses, std::uint64_t(2));
        QCOMPARE(r[0].firstAccess, std::uint64_t(1));
        QCOMPARE(r[3].firstAccess, std::uint64_t(4));
        QCOMPARE(r[2].bytes, std::uint64_t(90));
    }

    void placementFillsTheFastestTierThatFits() {
        std::vector<RankedSample> ranking;
        const std::uint64_t sizes[] = {6, 6, 3, 5, 2};
        for (std::uint64_t i = 0; i < 5; ++i) ranking.push_back({i, 5 - i, i, sizes[i]});
        const Placement p = placeSamples(ranking, {10, 5});
        // 6 → RAM (6); 6 fits neither (12 > 10, 6 > 5) → storage; 3 → RAM (9); 5 → SSD (5); 2 → neither.
        QVERIFY(p.tier == (std::vector<Tier>{Tier::Ram, Tier::Storage, Tier::Ram, Tier::Ssd, Tier::Storage}));
        QCOMPARE(p.ramBytes, std::uint64_t(9));
        QCOMPARE(p.ssdBytes, std::uint64_t(5));
        QCOMPARE(p.storageBytes, std::uint64_t(8));
        QCOMPARE(p.ramSamples, std::uint64_t(2));
        QCOMPARE(QString::fromLatin1(toString(Tier::Ssd)), QStringLiteral("ssd"));
    }

    // The engine's order: every epoch of every rank is what sampleOrder gives, the ranks' shards are
    // disjoint, and with total_training_steps an epoch reads steps × batch samples.
    void accessStringIsTheEngineOrder() {
        WorkloadConfig cfg = shuffled(64, 3);
        std::set<std::uint64_t> seen;
        for (std::uint64_t rank = 0; rank < 2; ++rank) {
            const AccessString s = accessString(cfg, rank, 2, 0);
            QCOMPARE(s.epochs.size(), std::size_t(3));
            QCOMPARE(s.accesses(), std::uint64_t(3 * 32));
            const ShardPlan plan = planShard(cfg, rank, 2);
            std::vector<std::uint64_t> order;
            for (std::uint64_t e = 0; e < 3; ++e) {
                sampleOrder(cfg, plan, rank, e + 1, 0, order);
                QVERIFY(s.epochs[e] == order);
                // each epoch a permutation of the rank's half: 32 distinct ids in [32·rank, 32·rank + 32)
                const std::set<std::uint64_t> ids(s.epochs[e].begin(), s.epochs[e].end());
                QCOMPARE(ids.size(), std::size_t(32));
                QCOMPARE(*ids.begin(), 32 * rank);
                QCOMPARE(*ids.rbegin(), 32 * rank + 31);
                if (e == 0) seen.insert(ids.begin(), ids.end());
            }
            QVERIFY(s.epochs[0] != s.epochs[1]); // seed_change_epoch: another order each epoch
        }
        QCOMPARE(seen.size(), std::size_t(64));
        cfg.train.totalTrainingSteps = 3;
        QCOMPARE(accessString(cfg, 0, 2, 0).epochs[1].size(), std::size_t(3 * 4));
        cfg.train.totalTrainingSteps = 9; // 32 samples / batch 4 = 8 steps at most
        QVERIFY_THROWS_EXCEPTION(InputError, accessString(cfg, 0, 2, 0));
    }

    // Each epoch reads every sample of the shard once. With room for C of the N samples, no policy can hit
    // more than C times in an epoch after the first (only what is cached when the epoch starts can hit, once
    // each), so the bound is (E − 1)·C hits. The static placement reaches it exactly and reads each placed
    // sample from storage once; Belady's MIN (which must bring in every miss) and LRU stay at or below it,
    // LRU clearly below.
    void staticPlacementReachesTheBoundOnShuffledEpochs() {
        const WorkloadConfig cfg = shuffled(64, 4);
        const AccessString s = accessString(cfg, 0, 1, 0);
        const SampleBytes bytes = [&](std::uint64_t id) { return sampleBytes(cfg, id); };
        QCOMPARE(bytes(5), std::uint64_t(64 * 64)); // d = int(sqrt(4096)) = 64
        const std::uint64_t b = 4096, C = 32, N = 64, E = 4;
        const Placement p = placeSamples(frequencyRanking(s, bytes), {C * b, 0});
        QCOMPARE(p.ramSamples, C);
        const auto nopfs = simulateStatic(s, p);
        QCOMPARE(nopfs.hits, (E - 1) * C);
        QCOMPARE(nopfs.bytesFromStorage, (N + (E - 1) * (N - C)) * b);
        QCOMPARE(nopfs.hitsPerEpoch[0], std::uint64_t(0));
        const auto belady = simulateBelady(s, C * b, bytes);
        const auto lru = simulateLru(s, C * b, bytes);
        QVERIFY(belady.hits <= (E - 1) * C);
        QVERIFY(lru.hits <= belady.hits);
        QVERIFY2(lru.hits < nopfs.hits, qPrintable(QStringLiteral("LRU %1, static %2").arg(lru.hits).arg(nopfs.hits)));
        qInfo("N %llu, C %llu, E %llu: hit ratio static %.3f, Belady (MIN) %.3f, LRU %.3f", static_cast<unsigned long long>(N),
              static_cast<unsigned long long>(C), static_cast<unsigned long long>(E), nopfs.hitRatio(), belady.hitRatio(),
              lru.hitRatio());
    }
};

QTEST_GUILESS_MAIN(TestLoaderPlan)
#include "tst_loader_plan.moc"
