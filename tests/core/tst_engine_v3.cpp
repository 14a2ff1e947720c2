// The engine under MLPerf Storage v3.0's semantics (--semantics v3) on real generated files: before
// every epoch each rank's readers read the epoch's first batch and throw it away, outside the timed
// window and before the cache-control hook (the fork's worker pre-warm, then its page-cache drop);
// under v2 nothing is read before the hook. And a v3 run's result folder has the fork's shape.
#include "testsupport.h"

#include "config/config_loader.h"
#include "dataset/dataset_generator.h"
#include "engine/training_engine.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <cmath>
#include <filesystem>

using namespace trainio;

namespace {

// Counts the bytes the engine reads, so that the test can see what was read before each hook call.
class CountingBackend final : public IoBackend {
public:
    explicit CountingBackend(std::shared_ptr<IoBackend> inner) : inner_(std::move(inner)) {}
    const char* name() const override { return "counting"; }
    int open(const std::string& path, const OpenOptions& opts) override { return inner_->open(path, opts); }
    ssize_t pread(int h, void* buf, std::size_t len, std::uint64_t off) override {
        const ssize_t n = inner_->pread(h, buf, len, off);
        if (n > 0) bytes.fetch_add(static_cast<std::uint64_t>(n));
        return n;
    }
    ssize_t pwrite(int h, const void* buf, std::size_t len, std::uint64_t off) override {
        return inner_->pwrite(h, buf, len, off);
    }
    std::int64_t size(int h) override { return inner_->size(h); }
    int fsync(int h) override { return inner_->fsync(h); }
    int close(int h) override { return inner_->close(h); }
    std::atomic<std::uint64_t> bytes{0};

private:
    std::shared_ptr<IoBackend> inner_;
};

WorkloadConfig tinyConfig(const std::string& folder) {
    // 16 files × 1 sample of exactly 32 KiB (no stdev), batch 2, 2 ranks: 4 steps per rank and epoch.
    const std::string yaml = "model: tiny\nframework: pytorch\nworkflow:\n  generate_data: False\n  train: True\n"
                             "dataset:\n  data_folder: " + folder +
                             "\n  format: npz\n  num_files_train: 16\n  num_samples_per_file: 1\n"
                             "  record_length_bytes: 32768\nreader:\n  data_loader: pytorch\n  batch_size: 2\n"
                             "  read_threads: 2\n  file_shuffle: seed\n  sample_shuffle: seed\ntrain:\n  epochs: 3\n"
                             "  computation_time: 0.001\nmetric:\n  au: 0.5\n";
    return loadWorkloadConfigFromString(yaml, "tiny.yaml").config;
}

struct Observed {
    RunOutcome outcome;
    std::vector<std::uint64_t> bytesAtHook; // bytes read when beforeEpoch(e) was called
};

Observed run(const WorkloadConfig& c, MetricSemantics sem) {
    auto io = std::make_shared<CountingBackend>(makePosixBackend());
    Observed o;
    EngineOptions eo;
    eo.accelerators = 2;
    eo.semantics = sem;
    eo.io = io;
    eo.beforeEpoch = [&](std::uint64_t) { o.bytesAtHook.push_back(io->bytes.load()); };
    o.outcome = runTraining(c, eo);
    return o;
}

} // namespace

class TestEngineV3 : public QObject {
    Q_OBJECT
private slots:
    void readersAreWarmedBeforeEachEpoch() {
        QTemporaryDir tmp;
        const WorkloadConfig c = tinyConfig(tmp.filePath("data").toStdString());
        generateDataset(c, GenerateOptions{});

        const Observed v3 = run(c, MetricSemantics::DlioV3);
        QCOMPARE(v3.outcome.status, RunStatus::Complete);
        QCOMPARE(v3.outcome.stepsPerEpoch, std::uint64_t(4)); // 16 ÷ 2 ÷ 2
        // Per epoch and rank: 4 steps × 2 samples trained on, plus the 2-sample warm-up batch.
        QCOMPARE(v3.outcome.samplesRead, std::uint64_t(3 * 2 * (4 * 2 + 2)));
        QCOMPARE(v3.bytesAtHook.size(), std::size_t(3));
        // Before the first hook: exactly the two ranks' warm-up batches were read (each sample file is
        // read whole: at least its 32 KiB of data).
        QVERIFY2(v3.bytesAtHook[0] >= 2 * 2 * 32768, qPrintable(QString::number(v3.bytesAtHook[0])));
        QVERIFY(v3.bytesAtHook[0] < 2 * 3 * 32768); // and not a third sample per rank
        // The epochs themselves are recorded exactly as under v2: every step, in one block.
        for (const auto& rank : v3.outcome.ranks) {
            QCOMPARE(rank.epochs.size(), std::size_t(3));
            for (const auto& e : rank.epochs) {
                QVERIFY(e.complete);
                QCOMPARE(e.blocks.size(), std::size_t(1));
                QCOMPARE(e.blocks[0].steps(), std::uint64_t(4));
            }
        }
        QCOMPARE(v3.outcome.metricOptions.semantics, MetricSemantics::DlioV3);
        // Its headline is v3's, recomputed here from the records: per rank, the 3 steps after the
        // first ÷ (block time − proc[0]) × batch 2, summed over the ranks.
        for (std::size_t e = 0; e < 3; ++e) {
            double expected = 0;
            for (const auto& rank : v3.outcome.ranks) {
                const BlockRecord& b = rank.epochs[e].blocks[0];
                expected += 3.0 / (b.end - b.start - b.proc[0]) * 2.0;
            }
            const double got = v3.outcome.metrics.throughputPerEpoch[e];
            QVERIFY2(std::abs(got - expected) <= 1e-9 * expected, qPrintable(QStringLiteral("%1 vs %2").arg(got).arg(expected)));
        }

        const Observed v2 = run(c, MetricSemantics::DlioV2);
        QCOMPARE(v2.outcome.status, RunStatus::Complete);
        QCOMPARE(v2.outcome.samplesRead, std::uint64_t(3 * 2 * 4 * 2));
        QCOMPARE(v2.bytesAtHook.size(), std::size_t(3));
        QCOMPARE(v2.bytesAtHook[0], std::uint64_t(0));
    }

    // `trainio-cli run --semantics v3` writes the fork's summary.json shape (the same keys in the same
    // order, top level and metric, as tests/data/dlio-v3-runs) and records "v3" in trainio_run.json;
    // `metrics` on the folder (no --semantics: the recorded one) reproduces its summary.
    void cliRunWritesTheForksSummary() {
        QTemporaryDir tmp;
        const QString cfg = tmp.filePath(QStringLiteral("w.yaml"));
        testsupport::writeText(cfg.toStdString(),
                               "model: tiny\nframework: pytorch\nworkflow:\n  generate_data: True\n  train: True\n"
                               "dataset:\n  data_folder: " + tmp.filePath(QStringLiteral("data")).toStdString() +
                                   "\n  format: npz\n  num_files_train: 8\n  num_samples_per_file: 1\n"
                                   "  record_length_bytes: 16384\nreader:\n  data_loader: pytorch\n  batch_size: 2\n"
                                   "  read_threads: 1\ntrain:\n  epochs: 2\n  computation_time: 0.005\n");
        const QString out = tmp.filePath(QStringLiteral("out"));
        const auto r = testsupport::runCli({QStringLiteral("run"), QStringLiteral("--config"), cfg, QStringLiteral("--output"),
                                            out, QStringLiteral("--semantics"), QStringLiteral("v3"), QStringLiteral("--quiet")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const std::filesystem::path dir = out.toStdString();
        const auto mine = nlohmann::ordered_json::parse(testsupport::readText(dir / "summary.json"));
        const auto fork = nlohmann::ordered_json::parse(
            testsupport::readText(testsupport::fixtures() / "dlio-v3-runs" / "v3_small_np1" / "summary.json"));
        const auto keys = [](const nlohmann::ordered_json& j) {
            std::vector<std::string> k;
            for (auto it = j.begin(); it != j.end(); ++it) k.push_back(it.key());
            return k;
        };
        QCOMPARE(keys(mine), keys(fork));
        QCOMPARE(keys(mine["metric"]), keys(fork["metric"]));
        const auto meta = nlohmann::json::parse(testsupport::readText(dir / "trainio_run.json"));
        QCOMPARE(meta["semantics"].get<std::string>(), std::string("v3"));
        const auto m = testsupport::runCli({QStringLiteral("metrics"), out});
        QVERIFY2(m.exitCode == 0, qPrintable(m.err));
        const auto again = nlohmann::json::parse(m.out.toStdString());
        const double want = mine["metric"]["train_throughput_mean_samples_per_second"].get<double>();
        // The records' timestamps are written to the µs: 1e-3 on these ~20 ms epochs.
        QVERIFY(std::abs(again["train_throughput_mean_samples_per_second"].get<double>() - want) <= 1e-3 * want);
    }
};

QTEST_GUILESS_MAIN(TestEngineV3)
#include "tst_engine_v3.moc"
