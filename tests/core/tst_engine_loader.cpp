// The loader policies in the engine (issue 13, core/loader/sample_source.h, docs/loader.md): the access
// string computed before training is what the engine then reads, every epoch; nopfs reads each placed
// sample from storage once and every other sample once per epoch; lru hits exactly where an LRU cache over
// the same string hits; trainio_io.json carries hit_ratio, belady_hit_ratio, stall_seconds, bytes_per_tier.
// Expected values are worked out from the access string and the capacities, never from the loader.
#include "testsupport.h"

#include "aggregate/results_import.h"
#include "config/config_loader.h"
#include "dataset/dataset_generator.h"
#include "dataset/dataset_layout.h"
#include "engine/training_engine.h"
#include "loader/access_plan.h"
#include "preflight/preflight.h"
#include "session/benchmark_runner.h"
#include "util/errors.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

using namespace trainio;
using namespace trainio::loader;

namespace {

// A sample of record_length 32768 holds d × d bytes, d = int(sqrt(32768)) = 181 (DLIO's dimension).
constexpr std::uint64_t kSample = 181 * 181;

// Records every file opened for reading, in order, with the epoch it was opened in.
class RecordingBackend final : public IoBackend {
public:
    explicit RecordingBackend(std::shared_ptr<IoBackend> inner) : inner_(std::move(inner)) {}
    const char* name() const override { return "recording"; }
    int open(const std::string& path, const OpenOptions& opts) override {
        {
            std::lock_guard lock(mutex_);
            if (!opts.write) opens.emplace_back(epoch, path);
        }
        return inner_->open(path, opts);
    }
    ssize_t pread(int h, void* buf, std::size_t len, std::uint64_t off) override { return inner_->pread(h, buf, len, off); }
    ssize_t pwrite(int h, const void* buf, std::size_t len, std::uint64_t off) override {
        return inner_->pwrite(h, buf, len, off);
    }
    std::int64_t size(int h) override { return inner_->size(h); }
    int fsync(int h) override { return inner_->fsync(h); }
    int close(int h) override { return inner_->close(h); }

    void setEpoch(std::uint64_t e) {
        std::lock_guard lock(mutex_);
        epoch = e;
    }
    // How many times each file was opened in epoch e.
    std::map<std::string, int> opensIn(std::uint64_t e) const {
        std::lock_guard lock(mutex_);
        std::map<std::string, int> m;
        for (const auto& [ep, path] : opens)
            if (ep == e) ++m[path];
        return m;
    }
    std::vector<std::string> sequenceOf(std::uint64_t e) const {
        std::lock_guard lock(mutex_);
        std::vector<std::string> v;
        for (const auto& [ep, path] : opens)
            if (ep == e) v.push_back(path);
        return v;
    }
    std::vector<std::pair<std::uint64_t, std::string>> opens;

private:
    std::shared_ptr<IoBackend> inner_;
    mutable std::mutex mutex_;
    std::uint64_t epoch = 0;
};

// 32 files × 1 sample of exactly 32 KiB (npz), batch 4, 1 reader: 8 steps per epoch; the order is shuffled
// anew every epoch from the seed.
WorkloadConfig smallConfig(const std::string& folder, const std::string& trainioSection, int readThreads = 1) {
    const std::string yaml = "model: tiny\nframework: pytorch\nworkflow:\n  generate_data: False\n  train: True\n"
                             "dataset:\n  data_folder: " + folder +
                             "\n  format: npz\n  num_files_train: 32\n  num_samples_per_file: 1\n"
                             "  record_length_bytes: 32768\nreader:\n  data_loader: pytorch\n  batch_size: 4\n"
                             "  read_threads: " + std::to_string(readThreads) +
                             "\n  file_shuffle: seed\n  sample_shuffle: seed\ntrain:\n  epochs: 3\n  seed: 7\n"
                             "  computation_time: 0.0005\n" + trainioSection;
    return loadWorkloadConfigFromString(yaml, "small.yaml").config;
}

struct Run {
    RunOutcome outcome;
    std::shared_ptr<RecordingBackend> io;
};

Run runEngine(const WorkloadConfig& cfg) {
    Run r;
    r.io = std::make_shared<RecordingBackend>(makePosixBackend());
    EngineOptions eo;
    eo.accelerators = 1;
    eo.io = r.io;
    eo.beforeEpoch = [&r](std::uint64_t e) { r.io->setEpoch(e); };
    r.outcome = runTraining(cfg, eo);
    return r;
}

std::vector<std::string> pathsOf(const WorkloadConfig& cfg, const std::vector<std::uint64_t>& ids) {
    const DatasetLayout layout(cfg.dataset);
    std::vector<std::string> out;
    for (auto id : ids) out.push_back(layout.filePath(Split::Train, id));
    return out;
}

nlohmann::json readJson(const std::filesystem::path& p) {
    std::ifstream in(p);
    return nlohmann::json::parse(in);
}

} // namespace

class TestEngineLoader : public QObject {
    Q_OBJECT
private slots:
    // What the nopfs planner computes before training (accessString) is, file for file and in order, what
    // the engine's reader then reads in every epoch (plain loader, one reader: the read order is the order).
    void accessStringIsWhatTheEngineReads() {
        QTemporaryDir tmp;
        const WorkloadConfig cfg = smallConfig(tmp.filePath("data").toStdString(), "");
        generateDataset(cfg, GenerateOptions{});
        const Run r = runEngine(cfg);
        QCOMPARE(r.outcome.status, RunStatus::Complete);
        const AccessString s = accessString(cfg, 0, 1, r.outcome.runSeed);
        QCOMPARE(s.epochs.size(), std::size_t(3));
        for (std::uint64_t e = 1; e <= 3; ++e) {
            const auto expected = pathsOf(cfg, s.epochs[e - 1]);
            QCOMPARE(expected.size(), std::size_t(32));
            QVERIFY2(r.io->sequenceOf(e) == expected, qPrintable(QStringLiteral("epoch %1").arg(e)));
        }
        QVERIFY(s.epochs[0] != s.epochs[1]);
        // plain: every access from storage, no tier, no bound.
        QCOMPARE(r.outcome.loaderTallies.size(), std::size_t(1));
        for (const auto& t : r.outcome.loaderTallies[0]) {
            QCOMPARE(t.accesses, std::uint64_t(32));
            QCOMPARE(t.storageReads, std::uint64_t(32));
            QCOMPARE(t.bytesStorage, std::uint64_t(32 * kSample));
            QCOMPARE(t.bytesRam + t.bytesSsd, std::uint64_t(0));
            QCOMPARE(t.beladyHits, std::uint64_t(0));
        }
    }

    // RAM tier for the whole shard: after epoch 1 nothing is read from storage again.
    void nopfsWithRoomForEverythingReadsEachFileOnce() {
        QTemporaryDir tmp;
        const WorkloadConfig cfg =
            smallConfig(tmp.filePath("data").toStdString(), "trainio:\n  loader: nopfs\n  ram_tier_mib: 2\n", 2);
        generateDataset(cfg, GenerateOptions{});
        const Run r = runEngine(cfg);
        QCOMPARE(r.outcome.status, RunStatus::Complete);
        std::map<std::string, int> total;
        for (std::uint64_t e = 0; e <= 3; ++e)
            for (const auto& [path, n] : r.io->opensIn(e)) total[path] += n;
        QCOMPARE(total.size(), std::size_t(32));
        for (const auto& [path, n] : total) QVERIFY2(n == 1, qPrintable(QString::fromStdString(path) + ": " + QString::number(n)));
        const auto& t = r.outcome.loaderTallies[0];
        QCOMPARE(t[0].storageReads, std::uint64_t(32));
        QCOMPARE(t[1].storageReads + t[2].storageReads, std::uint64_t(0));
        QCOMPARE(t[1].bytesRam, std::uint64_t(32 * kSample));
        QCOMPARE(r.outcome.loaderPlacement[0].ramSamples, std::uint64_t(32));
        // Belady with room for all: only the first access of each sample misses.
        QCOMPARE(t[0].beladyHits, std::uint64_t(0));
        QCOMPARE(t[1].beladyHits, std::uint64_t(32));
    }

    // RAM tier of half the shard (16 × 32 KiB = 0.5 MiB): the 16 placed samples are read from storage once
    // in the whole run, the 16 others once in every epoch — so no sample more than once per epoch — and the
    // hits per epoch are Belady's: 0, 16, 16 of 32. Through runInvocation: trainio_io.json's fields.
    void nopfsHalfTierReadsEachSampleAtMostOncePerEpoch() {
        QTemporaryDir tmp;
        const WorkloadConfig cfg =
            smallConfig(tmp.filePath("data").toStdString(),
                        "trainio:\n  loader: nopfs\n  ram_tier_mib: 0.5\n  storage:\n    bandwidth_mib_s: 2000\n", 2);
        generateDataset(cfg, GenerateOptions{});
        auto io = std::make_shared<RecordingBackend>(makePosixBackend());
        InvocationOptions opt;
        opt.io = io;
        const std::filesystem::path dir = tmp.filePath("run").toStdString();
        const RunOutcome out = runInvocation(cfg, dir, opt);
        QCOMPARE(out.status, RunStatus::Complete);
        // The files of the run folder are opened too (for writing); count the dataset's only.
        std::map<std::string, int> perFile;
        std::uint64_t reads = 0;
        for (const auto& [e, path] : io->opens) {
            if (path.find("/data/") == std::string::npos) continue;
            ++perFile[path];
            ++reads;
        }
        QCOMPARE(perFile.size(), std::size_t(32));
        int once = 0, thrice = 0;
        for (const auto& [path, n] : perFile) {
            QVERIFY2(n == 1 || n == 3, qPrintable(QString::fromStdString(path) + ": " + QString::number(n)));
            (n == 1 ? once : thrice)++;
        }
        QCOMPARE(once, 16);
        QCOMPARE(thrice, 16);
        QCOMPARE(reads, std::uint64_t(16 + 3 * 16));
        // The 16 read once are the 16 first read in epoch 1 (placement by first access: equal frequencies).
        const AccessString s = accessString(cfg, 0, 1, out.runSeed);
        const auto first = pathsOf(cfg, std::vector<std::uint64_t>(s.epochs[0].begin(), s.epochs[0].begin() + 16));
        for (const auto& p : first) QCOMPARE(perFile[p], 1);

        const nlohmann::json io_ = readJson(dir / "trainio_io.json");
        QCOMPARE(io_["loader"]["policy"].get<std::string>(), std::string("nopfs"));
        QCOMPARE(io_["loader"]["placement"]["ram_samples"].get<std::uint64_t>(), std::uint64_t(16));
        const auto& epochs = io_["epochs"];
        QCOMPARE(epochs.size(), std::size_t(3));
        const double expectedHit[] = {0.0, 0.5, 0.5};
        for (std::size_t e = 0; e < 3; ++e) {
            QCOMPARE(epochs[e]["epoch"].get<std::uint64_t>(), e + 1);
            QCOMPARE(epochs[e]["hit_ratio"].get<double>(), expectedHit[e]);
            QCOMPARE(epochs[e]["belady_hit_ratio"].get<double>(), expectedHit[e]);
            QVERIFY(epochs[e]["stall_seconds"].get<double>() >= 0);
            const auto& tiers = epochs[e]["bytes_per_tier"];
            QCOMPARE(tiers["storage"].get<std::uint64_t>() + tiers["ram"].get<std::uint64_t>(), std::uint64_t(32 * kSample));
            QCOMPARE(tiers["ssd"].get<std::uint64_t>(), std::uint64_t(0));
            if (e > 0) QCOMPARE(tiers["ram"].get<std::uint64_t>(), std::uint64_t(16 * kSample));
        }
        // The importer (the one reader of result folders) carries them to the library and the report, with
        // the model's prediction made before the run (trainio_model.json: the run had emulated storage).
        const auto imported = aggregate::importResults({dir});
        QCOMPARE(imported.runs.size(), std::size_t(1));
        const auto& rec = imported.runs[0];
        QCOMPARE(rec.loaderPolicy, std::string("nopfs"));
        QCOMPARE(rec.epochHitRatio.size(), std::size_t(3));
        QCOMPARE(rec.epochHitRatio[1], 0.5);
        QCOMPARE(rec.epochBeladyHitRatio[2], 0.5);
        QCOMPARE(rec.epochBytesRam[1], double(16 * kSample));
        const nlohmann::json model = readJson(dir / "trainio_model.json");
        QCOMPARE(rec.predictedAuPercent, model["predicted_au_percentage"].get<double>());
        QVERIFY(rec.predictedAuPercent > 0 && rec.predictedAuPercent <= 100);
        // stall_seconds is the epoch's summed per-step load of the step records.
        double load = 0;
        for (double l : out.ranks[0].epochs[1].blocks[0].load) load += l;
        QVERIFY(std::abs(epochs[1]["stall_seconds"].get<double>() - load) < 1e-9);
    }

    // RAM 8 samples, SSD 8 samples in a local folder: the ranking fills RAM first, then the SSD tier; from
    // epoch 2 on, 8 accesses come from each tier; the tier's file is gone after the run.
    void nopfsSsdTierServesWhatRamCannotHold() {
        QTemporaryDir tmp;
        const std::string ssd = tmp.filePath("ssd").toStdString();
        std::filesystem::create_directories(ssd);
        const WorkloadConfig cfg = smallConfig(tmp.filePath("data").toStdString(),
                                               "trainio:\n  loader: nopfs\n  ram_tier_mib: 0.25\n  ssd_tier:\n    path: " + ssd +
                                                   "\n    capacity_mib: 0.25\n");
        generateDataset(cfg, GenerateOptions{});
        const Run r = runEngine(cfg);
        QCOMPARE(r.outcome.status, RunStatus::Complete);
        QCOMPARE(r.outcome.loaderPlacement[0].ramSamples, std::uint64_t(8));
        QCOMPARE(r.outcome.loaderPlacement[0].ssdSamples, std::uint64_t(8));
        const auto& t = r.outcome.loaderTallies[0];
        for (std::size_t e = 1; e < 3; ++e) {
            QCOMPARE(t[e].bytesRam, std::uint64_t(8 * kSample));
            QCOMPARE(t[e].bytesSsd, std::uint64_t(8 * kSample));
            QCOMPARE(t[e].storageReads, std::uint64_t(16));
        }
        QVERIFY(std::filesystem::is_empty(ssd));
    }

    // lru with one reader reads in the access string's order, so it hits exactly where an LRU cache of the
    // same capacity over that string hits (access_plan's simulateLru, itself checked against the textbook).
    void lruHitsWhereAnLruCacheHits() {
        QTemporaryDir tmp;
        const WorkloadConfig cfg =
            smallConfig(tmp.filePath("data").toStdString(), "trainio:\n  loader: lru\n  ram_tier_mib: 0.5\n");
        generateDataset(cfg, GenerateOptions{});
        const Run r = runEngine(cfg);
        QCOMPARE(r.outcome.status, RunStatus::Complete);
        const AccessString s = accessString(cfg, 0, 1, r.outcome.runSeed);
        const SampleBytes bytes = [&cfg](std::uint64_t id) { return sampleBytes(cfg, id); };
        const CacheSimulation lru = simulateLru(s, 16 * kSample, bytes);
        const auto& t = r.outcome.loaderTallies[0];
        std::uint64_t hits = 0;
        for (std::size_t e = 0; e < 3; ++e) {
            QCOMPARE(t[e].accesses - t[e].storageReads, lru.hitsPerEpoch[e]);
            QCOMPARE(t[e].bytesRam, lru.hitsPerEpoch[e] * kSample);
            hits += lru.hitsPerEpoch[e];
        }
        QVERIFY(hits > 0); // the tail of one epoch meets the head of the next
        QVERIFY(hits < 2 * 16);

        // Four readers share the cache (the order within a window is then theirs): every access is a hit or
        // a storage read, and what the cache holds never exceeds its capacity of 16 samples.
        const WorkloadConfig four =
            smallConfig(tmp.filePath("data").toStdString(), "trainio:\n  loader: lru\n  ram_tier_mib: 0.5\n", 4);
        const Run r4 = runEngine(four);
        QCOMPARE(r4.outcome.status, RunStatus::Complete);
        for (const auto& t4 : r4.outcome.loaderTallies[0]) {
            QCOMPARE(t4.accesses, std::uint64_t(32));
            QCOMPARE(t4.bytesStorage + t4.bytesRam, std::uint64_t(32 * kSample));
            QCOMPARE(t4.bytesRam, (t4.accesses - t4.storageReads) * kSample);
        }
        QCOMPARE(r4.outcome.loaderTallies[0][0].storageReads, std::uint64_t(32)); // nothing cached yet
    }

    // The keys: a capacity the policy ignores, a policy without its capacity and an unknown policy are
    // refused naming the key; nopfs' staging buffer sizes the reader's window.
    void keysAreCheckedAndStagingSizesTheWindow() {
        auto problem = [](const std::string& trainio) -> QString {
            try {
                smallConfig("/tmp/x", trainio);
            } catch (const InputError& e) {
                return QString::fromStdString(e.what());
            }
            return {};
        };
        QVERIFY(problem("trainio:\n  ram_tier_mib: 8\n").contains("trainio.ram_tier_mib"));
        QVERIFY(problem("trainio:\n  loader: lru\n").contains("trainio.ram_tier_mib"));
        QVERIFY(problem("trainio:\n  loader: belady\n").contains("trainio.loader"));
        QVERIFY(problem("trainio:\n  loader: lru\n  ram_tier_mib: 1\n  staging_mib: 4\n").contains("trainio.staging_mib"));
        QVERIFY(problem("trainio:\n  loader: nopfs\n  ssd_tier:\n    capacity_mib: 4\n").contains("trainio.ssd_tier.path"));
        QVERIFY(problem("trainio:\n  loader: nopfs\n  ram_tier_mib: 1\n  staging_mib: 1\n").isEmpty());

        // Before anything is measured: the SSD tier's folder must exist (preflight, as the CLI and GUI call it).
        QTemporaryDir tmp;
        const std::string missing = tmp.filePath("no-such-folder").toStdString();
        const WorkloadConfig ssd = smallConfig(tmp.filePath("data").toStdString(),
                                               "trainio:\n  loader: nopfs\n  ssd_tier:\n    path: " + missing + "\n    capacity_mib: 1\n");
        PreflightRequest req;
        req.generateFirst = true;
        const PreflightResult pre = preflight(ssd, req);
        QVERIFY(!pre.ok());
        QVERIFY2(QString::fromStdString(pre.text()).contains(QStringLiteral("trainio.ssd_tier.path: ") + QString::fromStdString(missing)),
                 pre.text().c_str());

        const std::atomic<bool> no{false};
        auto posix = makePosixBackend();
        // batch 4 × 32 KiB = 128 KiB per batch: 1 MiB of staging holds 8 batches.
        const WorkloadConfig staged = smallConfig("/tmp/x", "trainio:\n  loader: nopfs\n  staging_mib: 1\n");
        QCOMPARE(SampleSource(staged, *posix, 0, 1, 0, no).stagingBatches(), std::uint64_t(8));
        const WorkloadConfig plain = smallConfig("/tmp/x", "");
        QCOMPARE(SampleSource(plain, *posix, 0, 1, 0, no).stagingBatches(), std::uint64_t(0));
    }
};

QTEST_GUILESS_MAIN(TestEngineLoader)
#include "tst_engine_loader.moc"
