// Checkpointing as DLIO does it: the plan (files and sizes per rank) against an independent Python
// implementation of the DLIO fork's formula (tests/tools/checkpoint_oracle.py) and the published
// MLPerf Storage v3.0 llama3-8b checkpoint_size_GB; writing and reading the files for real.
#include "testsupport.h"

#include "checkpoint/checkpoint_plan.h"
#include "engine/checkpoint_run.h"
#include "config/config_loader.h"
#include "dataset/dataset_generator.h"
#include "io/fault_injection.h"
#include "session/benchmark_runner.h"
#include "results/invocation_files.h"
#include "util/errors.h"

#include <nlohmann/json.hpp>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

#include <atomic>
#include <cmath>
#include <map>
#include <mutex>

using namespace trainio;
using namespace trainio::checkpoint;

namespace {

struct Llama {
    const char* name;
    int layers;
    std::uint64_t hidden, ffn, heads, kv;
    int tp, pp, zero;
    std::uint64_t ranks; // the accelerator count MLPerf Storage v3.0 runs this model with
};

// mlcommons/storage configs/dlio/workload/llama3_*.yaml (vocabulary 128256, fp16 model, fp32 optimizer)
const Llama kLlamas[] = {
    {"llama3_8b", 32, 4096, 14336, 32, 8, 1, 1, 3, 8},
    {"llama3_70b", 80, 8192, 28672, 128, 8, 8, 1, 3, 64},
    {"llama3_405b", 126, 16384, 53248, 128, 8, 8, 32, 1, 512},
    {"llama3_1t", 128, 25872, 98304, 192, 32, 8, 64, 1, 1024},
};

WorkloadConfig llamaConfig(const Llama& l) {
    WorkloadConfig c;
    c.model.name = l.name;
    c.model.type = "transformer";
    c.model.numLayers = l.layers;
    c.model.modelDatatype = "fp16";
    c.model.optimizerDatatype = "fp32";
    c.model.parallelism.tensor = l.tp;
    c.model.parallelism.pipeline = l.pp;
    c.model.parallelism.zeroStage = l.zero;
    c.model.transformer.vocabSize = 128256;
    c.model.transformer.hiddenSize = l.hidden;
    c.model.transformer.ffnHiddenSize = l.ffn;
    c.model.transformer.numAttentionHeads = l.heads;
    c.model.transformer.numKvHeads = l.kv;
    c.workflow.train = false;
    c.workflow.checkpoint = true;
    return c;
}

// A workstation-sized llama (vocabulary 1000) for layout tests.
WorkloadConfig smallConfig(const Llama& l) {
    WorkloadConfig c = llamaConfig(l);
    c.model.transformer.vocabSize = 1000;
    return c;
}

QJsonObject runOracle(const WorkloadConfig& c, std::uint64_t ranks) {
    const auto& t = c.model.transformer;
    const auto& p = c.model.parallelism;
    QStringList args{QStringLiteral(TRAINIO_SOURCE_DIR "/tests/tools/checkpoint_oracle.py")};
    for (std::uint64_t v : {static_cast<std::uint64_t>(c.model.numLayers), t.vocabSize, t.hiddenSize, t.ffnHiddenSize,
                            t.numAttentionHeads, t.numKvHeads, static_cast<std::uint64_t>(p.tensor),
                            static_cast<std::uint64_t>(p.pipeline), static_cast<std::uint64_t>(p.zeroStage), ranks})
        args << QString::number(v);
    args << QString::fromStdString(c.model.modelDatatype) << QString::fromStdString(c.model.optimizerDatatype);
    QProcess proc;
    proc.start(QStringLiteral("/usr/bin/python3"), args);
    if (!proc.waitForFinished(120000) || proc.exitCode() != 0) {
        QTest::qFail(qPrintable(QStringLiteral("oracle failed: ") + QString::fromUtf8(proc.readAllStandardError())),
                     __FILE__, __LINE__);
        return {};
    }
    return QJsonDocument::fromJson(proc.readAllStandardOutput()).object();
}

void comparePlanWithOracle(const CheckpointPlan& plan, const QJsonObject& oracle) {
    const QJsonArray ranks = oracle.value(QStringLiteral("ranks")).toArray();
    QCOMPARE(plan.perRank.size(), static_cast<std::size_t>(ranks.size()));
    std::uint64_t total = 0;
    for (qsizetype r = 0; r < ranks.size(); ++r) {
        const QJsonArray files = ranks[r].toArray();
        const auto& rp = plan.perRank[static_cast<std::size_t>(r)];
        QCOMPARE(rp.rank, static_cast<std::uint64_t>(r));
        QCOMPARE(rp.files.size(), static_cast<std::size_t>(files.size()));
        for (qsizetype i = 0; i < files.size(); ++i) {
            const QJsonArray f = files[i].toArray();
            QCOMPARE(QString::fromStdString(rp.files[static_cast<std::size_t>(i)].relativePath), f[0].toString());
            const auto expected = static_cast<std::uint64_t>(f[1].toDouble());
            QCOMPARE(rp.files[static_cast<std::size_t>(i)].realBytes, expected);
            total += expected;
        }
    }
    QCOMPARE(plan.realTotalBytes, total);
    QCOMPARE(plan.dlioCheckpointSizeGiB, oracle.value(QStringLiteral("checkpoint_size_gib")).toDouble());
}

// Counts fsync calls (and the bytes written) on the way to POSIX.
class CountingBackend final : public IoBackend {
public:
    std::shared_ptr<IoBackend> inner = makePosixBackend();
    std::atomic<std::uint64_t> fsyncs{0}, written{0};
    const char* name() const override { return "counting"; }
    int open(const std::string& path, const OpenOptions& o) override { return inner->open(path, o); }
    ssize_t pread(int h, void* buf, std::size_t len, std::uint64_t off) override { return inner->pread(h, buf, len, off); }
    ssize_t pwrite(int h, const void* buf, std::size_t len, std::uint64_t off) override {
        const ssize_t n = inner->pwrite(h, buf, len, off);
        if (n > 0) written += static_cast<std::uint64_t>(n);
        return n;
    }
    std::int64_t size(int h) override { return inner->size(h); }
    int fsync(int h) override {
        ++fsyncs;
        return inner->fsync(h);
    }
    int close(int h) override { return inner->close(h); }
};

// Checkpoint-only mode of a config into `dir`, its checkpoints under dir/ckpt.
WorkloadConfig checkpointOnly(WorkloadConfig c, const std::filesystem::path& dir, std::int64_t writes, std::int64_t reads) {
    c.workflow.train = false;
    c.workflow.checkpoint = true;
    c.checkpoint.folder = (dir / "ckpt").string();
    c.checkpoint.numCheckpointsWrite = writes;
    c.checkpoint.numCheckpointsRead = reads;
    c.checkpoint.timeBetweenCheckpoints = -1;
    return c;
}

// Training on 16 small npz files (1 sample each, batch 2, 2 ranks: 4 steps per epoch, 2 epochs) with a
// small llama checkpointed during training; checkpoints under dir/ckpt.
WorkloadConfig trainingWithCheckpoints(const std::filesystem::path& dir) {
    const std::string yaml = "model:\n  name: tiny_llama\n  type: transformer\n  num_layers: 2\n"
                             "  parallelism:\n    zero_stage: 3\n"
                             "  transformer:\n    vocab_size: 1000\n    hidden_size: 64\n    ffn_hidden_size: 256\n"
                             "    num_attention_heads: 4\n    num_kv_heads: 2\n"
                             "framework: pytorch\nworkflow:\n  generate_data: False\n  train: True\n  checkpoint: True\n"
                             "dataset:\n  data_folder: " + (dir / "data").string() + "\n  format: npz\n"
                             "  num_files_train: 16\n  num_samples_per_file: 1\n  record_length_bytes: 4096\n"
                             "reader:\n  data_loader: pytorch\n  batch_size: 2\n  read_threads: 1\n"
                             "train:\n  epochs: 2\n  computation_time: 0.001\n"
                             "checkpoint:\n  checkpoint_folder: " + (dir / "ckpt").string() + "\n";
    WorkloadConfig c = loadWorkloadConfigFromString(yaml, "tiny_llama.yaml").config;
    generateDataset(c, GenerateOptions{});
    return c;
}

// The training above on 2 ranks into dir/run, with `adjust` applied to its checkpoint keys.
template <class F>
RunOutcome trainTwoRanks(const std::filesystem::path& dir, F adjust) {
    WorkloadConfig c = trainingWithCheckpoints(dir);
    adjust(c);
    InvocationOptions opt;
    opt.accelerators = 2;
    return runInvocation(c, dir / "run", opt);
}

std::vector<std::string> keysOf(const nlohmann::ordered_json& j) {
    std::vector<std::string> k;
    for (const auto& [key, v] : j.items()) k.push_back(key);
    return k;
}

nlohmann::ordered_json readJson(const std::filesystem::path& p) { return nlohmann::ordered_json::parse(testsupport::readText(p)); }

} // namespace

class TestCheckpoint : public QObject {
    Q_OBJECT
private slots:
    void fullSizeMatchesDlioFormula_data() {
        QTest::addColumn<int>("which");
        for (int i = 0; i < 4; ++i) QTest::newRow(kLlamas[i].name) << i;
    }
    void fullSizeMatchesDlioFormula() {
        QFETCH(int, which);
        const Llama& l = kLlamas[which];
        const WorkloadConfig c = llamaConfig(l);
        const CheckpointPlan plan = planCheckpoint(c, l.ranks);
        QCOMPARE(plan.scale, 1.0);
        QCOMPARE(plan.totalBytes, plan.realTotalBytes);
        comparePlanWithOracle(plan, runOracle(c, l.ranks));
    }

    // The published v3.0 llama3-8b runs (8 accelerators): summary.json checkpoint_size_GB 104.70452117919922
    // (SAMSUNG MEMORY_AE 20260721_000424 and Alluxio aws_r5n24xlarge_i3en12xlarge_1c_1s_8h).
    void llama8bMatchesPublishedSize() {
        const CheckpointPlan plan = planCheckpoint(llamaConfig(kLlamas[0]), 8);
        QCOMPARE(plan.dlioCheckpointSizeGiB, 104.70452117919922);
        // ZeRO 3 with 8 ranks: each rank writes its model and optimizer shard; every byte is written.
        QCOMPARE(static_cast<double>(plan.realTotalBytes) / 1024. / 1024. / 1024., 104.70452117919922);
        for (const auto& rp : plan.perRank) {
            QCOMPARE(rp.files.size(), std::size_t{2});
            const std::string prefix = "zero_pp_rank_" + std::to_string(rp.rank) + "_mp_rank_0_";
            QCOMPARE(rp.files[0].relativePath, prefix + "model_states.pt");
            QCOMPARE(rp.files[1].relativePath, prefix + "optim_states.pt");
        }
    }

    // The published SAMSUNG llama3-8b checkpointing run (tests/data, written by the v3.0 fork): the planned
    // size is its checkpoint_size_GB, and TrainIO's summary keys computed from its rank-0 records
    // (0_per_epoch_stats.json durations) are its summary.json values.
    void metricsReproducePublishedSummary() {
        const std::filesystem::path run = TRAINIO_TEST_DATA "/mlperf-storage-v3.0/closed/SAMSUNG/results/MEMORY_AE/"
                                          "checkpointing/llama3-8b/20260721_000424";
        const nlohmann::ordered_json summary = readJson(run / "summary.json");
        const nlohmann::ordered_json& published = summary.at("metric");
        const nlohmann::ordered_json stats = readJson(run / "0_per_epoch_stats.json").at("1");
        checkpoint::CheckpointResults r;
        r.enabled = true;
        r.plan = planCheckpoint(loadPreset("llama3_8b").config, summary.at("num_accelerators").get<std::uint64_t>());
        r.sizeGiB = r.plan.dlioCheckpointSizeGiB;
        QCOMPARE(r.sizeGiB, published.at("checkpoint_size_GB").get<double>());
        r.perRank.resize(1);
        for (const auto& [key, e] : stats.items()) {
            const bool save = key.rfind("save_ckpt", 0) == 0, load = key.rfind("load_ckpt", 0) == 0;
            if (!save && !load) continue;
            checkpoint::CheckpointRecord rec;
            rec.op = save ? checkpoint::Operation::Write : checkpoint::Operation::Read;
            rec.block = std::stoull(key.substr(9));
            rec.end = e.at("duration").get<double>();
            QVERIFY(std::abs(checkpoint::recordThroughputGiBs(r, rec) - e.at("throughput").get<double>()) <=
                    1e-12 * e.at("throughput").get<double>());
            r.perRank[0].push_back(rec);
        }
        QCOMPARE(r.perRank[0].size(), std::size_t{20});
        const nlohmann::ordered_json mine = checkpointMetricJson(r);
        QCOMPARE(keysOf(mine), keysOf(published));
        for (const auto& [key, v] : published.items())
            QVERIFY2(std::abs(mine.at(key).get<double>() - v.get<double>()) <= 1e-9 * std::abs(v.get<double>()), key.c_str());
    }

    void zeroOneWithPipelineNamesLayers() {
        // Small 405b-shaped model: ZeRO 1, tensor 2, pipeline 2, 8 ranks → 2 data-parallel ranks; the
        // model is written layer by layer (layer_<i>-model_<mp>_model_states.pt) by data-parallel rank 0.
        const WorkloadConfig c = smallConfig({"small", 4, 64, 256, 4, 2, 2, 2, 1, 8});
        const CheckpointPlan plan = planCheckpoint(c, 8);
        comparePlanWithOracle(plan, runOracle(c, 8));
        // rank 0: pipeline stage 0 holds layers 0 (embedding), 1, 2; rank 5 (dp 1) writes only optimizer state
        QCOMPARE(plan.perRank[0].files.front().relativePath, std::string("layer_0-model_0_model_states.pt"));
        QCOMPARE(plan.perRank[5].files.size(), std::size_t{1});
        QCOMPARE(plan.perRank[5].files[0].relativePath, std::string("zero_pp_rank_1_mp_rank_1_optim_states.pt"));
    }

    void scaleShrinksEveryFile() {
        WorkloadConfig c = llamaConfig(kLlamas[0]);
        c.trainio.checkpointScale = 0.001;
        const CheckpointPlan plan = planCheckpoint(c, 8);
        QCOMPARE(plan.scale, 0.001);
        std::uint64_t sum = 0;
        for (const auto& rp : plan.perRank)
            for (const auto& f : rp.files) {
                QCOMPARE(f.bytes, static_cast<std::uint64_t>(std::llround(static_cast<double>(f.realBytes) * 0.001)));
                sum += f.bytes;
            }
        QCOMPARE(plan.totalBytes, sum);
        QCOMPARE(plan.dlioCheckpointSizeGiB, 104.70452117919922); // the real size is still what DLIO reports
    }

    void rankZeroVersusAllRanks() {
        // No ZeRO, no model parallelism, 4 ranks: the fork writes rank 0 only; all_ranks (DLIO until 2025) every rank.
        WorkloadConfig c = smallConfig({"small", 2, 64, 256, 4, 2, 1, 1, 0, 4});
        const CheckpointPlan zero = planCheckpoint(c, 4);
        comparePlanWithOracle(zero, runOracle(c, 4));
        QCOMPARE(zero.perRank[0].files.size(), std::size_t{2});
        for (int r = 1; r < 4; ++r) QVERIFY(zero.perRank[static_cast<std::size_t>(r)].files.empty());
        c.checkpoint.type = "all_ranks";
        const CheckpointPlan all = planCheckpoint(c, 4);
        for (int r = 0; r < 4; ++r) {
            const auto& files = all.perRank[static_cast<std::size_t>(r)].files;
            QCOMPARE(files.size(), std::size_t{2});
            QCOMPARE(files[0].relativePath, "zero_pp_rank_" + std::to_string(r) + "_mp_rank_0_model_states.pt");
            QCOMPARE(files[0].realBytes, zero.perRank[0].files[0].realBytes);
        }
        QCOMPARE(all.realTotalBytes, 4 * zero.realTotalBytes);
    }

    void subsetMode() {
        // 8b in subset mode: target data parallelism 8, only 2 ranks run → each writes a 1/8 shard.
        WorkloadConfig c = llamaConfig(kLlamas[0]);
        c.checkpoint.mode = "subset";
        c.model.parallelism.data = 8;
        const CheckpointPlan subset = planCheckpoint(c, 2);
        const CheckpointPlan full = planCheckpoint(llamaConfig(kLlamas[0]), 8);
        QCOMPARE(subset.perRank.size(), std::size_t{2});
        for (int r = 0; r < 2; ++r)
            QCOMPARE(subset.perRank[static_cast<std::size_t>(r)].realBytes(), full.perRank[static_cast<std::size_t>(r)].realBytes());
        c.model.parallelism.data = 1;
        QVERIFY_THROWS_EXCEPTION(InputError, planCheckpoint(c, 2)); // 2 ranks > 1 × 1 × 1
    }

    void refusesWhatDlioRefuses() {
        auto message = [](const WorkloadConfig& c, std::uint64_t ranks) -> std::string {
            try {
                planCheckpoint(c, ranks);
            } catch (const InputError& e) {
                return e.what();
            }
            return {};
        };
        WorkloadConfig c = llamaConfig(kLlamas[1]); // tensor 8
        QVERIFY(message(c, 12).find("ranks") != std::string::npos);
        QVERIFY(message(c, 12).find("multiple of tensor × pipeline = 8") != std::string::npos);
        c.model.parallelism.data = 8;
        QVERIFY(message(c, 64).find("model.parallelism.data") != std::string::npos);
        WorkloadConfig p = llamaConfig(kLlamas[2]);
        p.model.parallelism.zeroStage = 3;
        QVERIFY(message(p, 512).find("zero_stage") != std::string::npos);
        WorkloadConfig d = llamaConfig(kLlamas[0]);
        d.model.modelDatatype = "fp8";
        QVERIFY(message(d, 8).find("model.model_datatype = fp8") != std::string::npos);
        d = llamaConfig(kLlamas[0]);
        d.trainio.checkpointScale = 0;
        QVERIFY(message(d, 8).find("trainio.checkpoint_scale") != std::string::npos);
    }

    // llama3-8b at 1e-5 of its size, 8 ranks, 2 checkpoints written and read: the files DLIO's layout names,
    // each llround(real × 1e-5) bytes with the real sizes from the oracle, and summary.json's DLIO keys
    // recomputed from 0_per_epoch_stats.json.
    void smallScaleWritesThePlan() {
        QTemporaryDir tmp;
        const std::filesystem::path dir = tmp.path().toStdString();
        WorkloadConfig c = checkpointOnly(llamaConfig(kLlamas[0]), dir, 2, 2);
        c.trainio.checkpointScale = 1e-5;
        const QJsonObject oracle = runOracle(llamaConfig(kLlamas[0]), 8);
        auto counting = std::make_shared<CountingBackend>();
        InvocationOptions opt;
        opt.accelerators = 8;
        opt.io = counting;
        std::mutex m;
        std::map<std::string, int> events;
        opt.onCheckpoint = [&](const checkpoint::CheckpointEvent& ev) {
            std::lock_guard lock(m);
            const char* phase = ev.phase == checkpoint::CheckpointEvent::Phase::Started     ? "started"
                                : ev.phase == checkpoint::CheckpointEvent::Phase::Completed ? "completed"
                                                                                            : "failed";
            ++events[std::string(checkpoint::operationName(ev.op)) + " " + phase];
        };
        const RunOutcome out = runInvocation(c, dir / "run", opt);
        QCOMPARE(toString(out.status), "complete");
        std::uint64_t expectedTotal = 0;
        const QJsonArray ranks = oracle.value(QStringLiteral("ranks")).toArray();
        for (int step = 1; step <= 2; ++step)
            for (const auto& rank : ranks)
                for (const auto& f : rank.toArray()) {
                    const auto real = static_cast<double>(static_cast<std::uint64_t>(f.toArray()[1].toDouble()));
                    const auto expected = static_cast<std::uint64_t>(std::llround(real * 1e-5));
                    const auto path = dir / "ckpt" / ("global_epoch1_step" + std::to_string(step)) /
                                      f.toArray()[0].toString().toStdString();
                    QVERIFY2(std::filesystem::exists(path), path.c_str());
                    QCOMPARE(static_cast<std::uint64_t>(std::filesystem::file_size(path)), expected);
                    expectedTotal += expected;
                }
        // Nothing else in the checkpoint folder: exactly the two step folders of 16 files.
        std::size_t files = 0;
        for (const auto& e : std::filesystem::recursive_directory_iterator(dir / "ckpt")) files += e.is_regular_file() ? 1 : 0;
        QCOMPARE(files, std::size_t{32});
        QVERIFY(counting->written.load() >= expectedTotal); // plus the result files
        QCOMPARE(out.bytesRead, expectedTotal);             // read back all of it
        QCOMPARE(events["write started"], 16);
        QCOMPARE(events["write completed"], 16);
        QCOMPARE(events["read completed"], 16);
        QCOMPARE(events["write failed"] + events["read failed"], 0);

        const nlohmann::ordered_json summary = readJson(dir / "run" / "summary.json");
        const nlohmann::ordered_json& metric = summary.at("metric");
        std::vector<std::string> keys;
        for (const auto& [k, v] : metric.items()) keys.push_back(k);
        const std::vector<std::string> dlioKeys{
            "save_checkpoint_io_mean_GB_per_second", "save_checkpoint_io_stdev_GB_per_second",
            "save_checkpoint_duration_mean_seconds", "save_checkpoint_duration_stdev_seconds",
            "load_checkpoint_io_mean_GB_per_second", "load_checkpoint_io_stdev_GB_per_second",
            "load_checkpoint_duration_mean_seconds", "load_checkpoint_duration_stdev_seconds", "checkpoint_size_GB"};
        QCOMPARE(keys, dlioKeys);
        const double size = 104.70452117919922 * 1e-5;
        QCOMPARE(metric.at("checkpoint_size_GB").get<double>(), size);
        QCOMPARE(summary.at("num_accelerators").get<int>(), 8);
        QCOMPARE(summary.at("epochs").get<int>(), 0);
        QVERIFY(!summary.contains("trainio_status"));
        const nlohmann::ordered_json stats = readJson(dir / "run" / "0_per_epoch_stats.json");
        for (const char* op : {"save", "load"}) {
            std::vector<double> durations, rates;
            for (int b = 1; b <= 2; ++b) {
                const auto& e = stats.at("1").at(std::string(op) + "_ckpt" + std::to_string(b));
                durations.push_back(e.at("duration").get<double>());
                rates.push_back(size / durations.back());
                QCOMPARE(e.at("throughput").get<double>(), rates.back());
            }
            const std::string prefix = std::string(op) + "_checkpoint_";
            QCOMPARE(metric.at(prefix + "duration_mean_seconds").get<double>(), testsupport::meanOf(durations));
            QCOMPARE(metric.at(prefix + "duration_stdev_seconds").get<double>(), testsupport::populationStdevOf(durations));
            QCOMPARE(metric.at(prefix + "io_mean_GB_per_second").get<double>(), testsupport::meanOf(rates));
        }
        const nlohmann::ordered_json records = readJson(dir / "run" / "trainio_checkpoint.json");
        QCOMPARE(records.at("records").size(), std::size_t{32});
        QCOMPARE(records.at("scale").get<double>(), 1e-5);
        QCOMPARE(records.at("dlio_checkpoint_size_GiB").get<double>(), 104.70452117919922);
        QCOMPARE(records.at("bytes").get<std::uint64_t>() * 2, expectedTotal);
    }

    void rankZeroWritesAloneAllRanksEveryRank() {
        for (const char* type : {"rank_zero", "all_ranks"}) {
            QTemporaryDir tmp;
            const std::filesystem::path dir = tmp.path().toStdString();
            WorkloadConfig c = checkpointOnly(smallConfig({"small", 2, 64, 256, 4, 2, 1, 1, 0, 4}), dir, 1, 0);
            c.checkpoint.type = type;
            InvocationOptions opt;
            opt.accelerators = 4;
            QCOMPARE(toString(runInvocation(c, dir / "run", opt).status), "complete");
            for (int r = 0; r < 4; ++r) {
                const auto f = dir / "ckpt" / "global_epoch1_step1" / ("zero_pp_rank_" + std::to_string(r) + "_mp_rank_0_optim_states.pt");
                QCOMPARE(std::filesystem::exists(f), r == 0 || std::string(type) == "all_ranks");
            }
        }
    }

    void fsyncFlagHonoured() {
        for (bool fsync : {false, true}) {
            QTemporaryDir tmp;
            const std::filesystem::path dir = tmp.path().toStdString();
            WorkloadConfig c = checkpointOnly(smallConfig({"small", 2, 64, 256, 4, 2, 1, 1, 3, 2}), dir, 3, 0);
            c.checkpoint.fsync = fsync;
            auto counting = std::make_shared<CountingBackend>();
            checkpoint::CheckpointRunOptions opt;
            opt.accelerators = 2;
            opt.io = counting;
            const RunOutcome out = checkpoint::runCheckpointOnly(c, opt);
            QCOMPARE(toString(out.status), "complete");
            // 3 checkpoints × 2 ranks × (model + optimizer file)
            QCOMPARE(counting->fsyncs.load(), fsync ? std::uint64_t{12} : std::uint64_t{0});
        }
    }

    // A write that fails (ENOSPC on rank 1's optimizer file of the second checkpoint) ends the run as
    // failed, names the file, and keeps what was measured: summary.json with the first checkpoint.
    void writeFailureNamesTheFileAndKeepsResults() {
        QTemporaryDir tmp;
        const std::filesystem::path dir = tmp.path().toStdString();
        WorkloadConfig c = checkpointOnly(smallConfig({"small", 2, 64, 256, 4, 2, 1, 1, 3, 2}), dir, 3, 3);
        auto faulty = std::make_shared<FaultInjectingBackend>(
            makePosixBackend(), parseFaultRules("write:ENOSPC:global_epoch1_step2/zero_pp_rank_1_mp_rank_0_optim_states.pt"));
        InvocationOptions opt;
        opt.accelerators = 2;
        opt.io = faulty;
        std::atomic<int> failedEvents{0};
        opt.onCheckpoint = [&](const checkpoint::CheckpointEvent& ev) {
            if (ev.phase == checkpoint::CheckpointEvent::Phase::Failed) ++failedEvents;
        };
        const RunOutcome out = runInvocation(c, dir / "run", opt);
        QCOMPARE(toString(out.status), "failed");
        QCOMPARE(faulty->fired(0), std::uint64_t{1});
        QVERIFY2(out.error.find("global_epoch1_step2/zero_pp_rank_1_mp_rank_0_optim_states.pt") != std::string::npos, out.error.c_str());
        QVERIFY2(out.error.find("No space left on device") != std::string::npos, out.error.c_str());
        QCOMPARE(failedEvents.load(), 1);
        const nlohmann::ordered_json summary = readJson(dir / "run" / "summary.json");
        QCOMPARE(summary.at("trainio_status").get<std::string>(), std::string("failed"));
        QVERIFY(summary.at("metric").contains("save_checkpoint_duration_mean_seconds"));
        QVERIFY(!summary.at("metric").contains("load_checkpoint_duration_mean_seconds"));
        const nlohmann::ordered_json stats = readJson(dir / "run" / "0_per_epoch_stats.json");
        QVERIFY(stats.at("1").contains("save_ckpt1"));
        QVERIFY(!stats.at("1").contains("save_ckpt3"));
        const nlohmann::ordered_json meta = readJson(dir / "run" / "trainio_run.json");
        QVERIFY(meta.at("error").get<std::string>().find("zero_pp_rank_1_mp_rank_0_optim_states.pt") != std::string::npos);
    }

    // Reading back a checkpoint someone truncated: a read-only run refuses up front naming the file and
    // its size; truncated while a run reads it, the read fails naming the file and the byte it ended at.
    void readBackOfTruncatedFileFails() {
        QTemporaryDir tmp;
        const std::filesystem::path dir = tmp.path().toStdString();
        WorkloadConfig c = checkpointOnly(smallConfig({"small", 2, 64, 256, 4, 2, 1, 1, 3, 1}), dir, 1, 0);
        checkpoint::CheckpointRunOptions opt;
        QCOMPARE(toString(checkpoint::runCheckpointOnly(c, opt).status), "complete");
        const auto model = dir / "ckpt" / "global_epoch1_step1" / "zero_pp_rank_0_mp_rank_0_model_states.pt";
        const auto size = std::filesystem::file_size(model);
        // A read-only run of what is there (a separate invocation, as MLPerf's split write/read runs).
        c.checkpoint.numCheckpointsWrite = 0;
        c.checkpoint.numCheckpointsRead = 1;
        QCOMPARE(checkpoint::runCheckpointOnly(c, opt).bytesRead, static_cast<std::uint64_t>(
                     std::filesystem::file_size(model) +
                     std::filesystem::file_size(dir / "ckpt" / "global_epoch1_step1" / "zero_pp_rank_0_mp_rank_0_optim_states.pt")));
        std::filesystem::resize_file(model, size / 2);
        try {
            checkpoint::runCheckpointOnly(c, opt);
            QFAIL("a truncated checkpoint was not refused");
        } catch (const InputError& e) {
            const std::string msg = e.what();
            QVERIFY2(msg.find(model.string() + " has " + std::to_string(size / 2) + " bytes") != std::string::npos, msg.c_str());
        }
        // Truncated under a running read (fault injection truncates it at its first read).
        std::filesystem::resize_file(model, size);
        auto faulty = std::make_shared<FaultInjectingBackend>(
            makePosixBackend(), parseFaultRules("read:truncate:zero_pp_rank_0_mp_rank_0_model_states:to=" + std::to_string(size / 2)));
        opt.io = faulty;
        const RunOutcome out = checkpoint::runCheckpointOnly(c, opt);
        QCOMPARE(toString(out.status), "failed");
        QVERIFY2(out.error.find(model.string()) != std::string::npos, out.error.c_str());
        QVERIFY2(out.error.find("ended at byte " + std::to_string(size / 2)) != std::string::npos, out.error.c_str());
    }

    void cancelStopsBetweenCheckpoints() {
        QTemporaryDir tmp;
        const std::filesystem::path dir = tmp.path().toStdString();
        WorkloadConfig c = checkpointOnly(smallConfig({"small", 2, 64, 256, 4, 2, 1, 1, 3, 2}), dir, 50, 0);
        std::atomic<bool> cancel{false};
        checkpoint::CheckpointRunOptions opt;
        opt.accelerators = 2;
        opt.cancel = &cancel;
        opt.onEvent = [&](const checkpoint::CheckpointEvent& ev) {
            if (ev.phase == checkpoint::CheckpointEvent::Phase::Completed && ev.index == 1) cancel.store(true);
        };
        const RunOutcome out = checkpoint::runCheckpointOnly(c, opt);
        QCOMPARE(toString(out.status), "cancelled");
        QVERIFY(out.checkpoints.perRank[0].size() < 50);
        QVERIFY(!std::filesystem::exists(dir / "ckpt" / "global_epoch1_step50"));
    }

    // The shipped presets carry the round's numbers: loaded and planned at their CLOSED accelerator
    // counts they give the oracle's files and sizes for the numbers typed into kLlamas above.
    void presetsMatchTheRound_data() {
        QTest::addColumn<int>("which");
        for (int i = 0; i < 4; ++i) QTest::newRow(kLlamas[i].name) << i;
    }
    void presetsMatchTheRound() {
        QFETCH(int, which);
        const Llama& l = kLlamas[which];
        const LoadedConfig lc = loadPreset(l.name);
        const WorkloadConfig& c = lc.config;
        QVERIFY(validateConfig(c).empty());
        QCOMPARE(c.trainio.mlperfRound, std::string("v3.0"));
        QVERIFY(!c.workflow.train);
        QVERIFY(c.workflow.checkpoint);
        QCOMPARE(c.checkpoint.numCheckpointsWrite, std::int64_t{10});
        QCOMPARE(c.checkpoint.numCheckpointsRead, std::int64_t{10});
        QCOMPARE(c.checkpoint.timeBetweenCheckpoints, 5.0);
        QVERIFY(c.checkpoint.fsync);
        comparePlanWithOracle(planCheckpoint(c, l.ranks), runOracle(llamaConfig(l), l.ranks));
    }

    // The CLI's checkpoint-only run: the sizes printed before starting, DLIO's files, exit 0; a write
    // fault (TRAINIO_FAULTS) exits 1 naming the file.
    void cliRunsCheckpointOnly() {
        QTemporaryDir tmp;
        const QString dir = tmp.path();
        const QStringList base{QStringLiteral("run"), QStringLiteral("--config"), QStringLiteral("llama3_8b"),
                               QStringLiteral("++workload.trainio.checkpoint_scale=0.00001"),
                               QStringLiteral("++workload.checkpoint.time_between_checkpoints=0"),
                               QStringLiteral("++workload.checkpoint.num_checkpoints_write=2"),
                               QStringLiteral("++workload.checkpoint.num_checkpoints_read=1"),
                               QStringLiteral("++workload.checkpoint.checkpoint_folder=") + dir + QStringLiteral("/ckpt"),
                               QStringLiteral("--accelerators"), QStringLiteral("8")};
        const auto ok = testsupport::runCli(base + QStringList{QStringLiteral("--output"), dir + QStringLiteral("/run")});
        QCOMPARE(ok.exitCode, 0);
        QVERIFY2(ok.err.contains(QStringLiteral("checkpoint: real 104.7 GiB, writing 0.001047 GiB (scale 1e-05)")), qPrintable(ok.err));
        QVERIFY(QFile::exists(dir + QStringLiteral("/ckpt/global_epoch1_step2/zero_pp_rank_7_mp_rank_0_optim_states.pt")));
        QVERIFY(QFile::exists(dir + QStringLiteral("/run/summary.json")));
        const auto bad = testsupport::runCli(base + QStringList{QStringLiteral("--output"), dir + QStringLiteral("/bad")}, 300000,
                                             {{QStringLiteral("TRAINIO_FAULTS"),
                                               QStringLiteral("write:EIO:zero_pp_rank_3_mp_rank_0_model_states.pt")}});
        QCOMPARE(bad.exitCode, 1);
        QVERIFY2(bad.err.contains(QStringLiteral("global_epoch1_step1/zero_pp_rank_3_mp_rank_0_model_states.pt")), qPrintable(bad.err));
        QVERIFY(QFile::exists(dir + QStringLiteral("/bad/summary.json")));
        // DLIO refuses 12 ranks for tensor parallelism 8: exit 2 before anything is written.
        const auto refused = testsupport::runCli({QStringLiteral("run"), QStringLiteral("--config"), QStringLiteral("llama3_70b"),
                                                  QStringLiteral("--accelerators"), QStringLiteral("12"), QStringLiteral("--output"),
                                                  dir + QStringLiteral("/refused")});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains(QStringLiteral("multiple of tensor × pipeline = 8")), qPrintable(refused.err));
    }

    // steps_between_checkpoints 2: after steps 2 and 4 of each epoch a checkpoint ends the block (DLIO's
    // main.py _train), so each epoch has block1, save_ckpt1, block2, save_ckpt2 in that order and the
    // folders are global_epoch<E>_step2 and _step4.
    void checkpointsEveryKStepsEndBlocks() {
        QTemporaryDir tmp;
        const std::filesystem::path dir = tmp.path().toStdString();
        const RunOutcome out = trainTwoRanks(dir, [](WorkloadConfig& c) { c.checkpoint.stepsBetween = 2; });
        QVERIFY2(out.status == RunStatus::Complete, out.error.c_str());
        for (const char* folder : {"global_epoch1_step2", "global_epoch1_step4", "global_epoch2_step2", "global_epoch2_step4"})
            for (int r = 0; r < 2; ++r)
                QVERIFY(std::filesystem::exists(dir / "ckpt" / folder / ("zero_pp_rank_" + std::to_string(r) + "_mp_rank_0_optim_states.pt")));
        QCOMPARE(std::distance(std::filesystem::directory_iterator(dir / "ckpt"), std::filesystem::directory_iterator()), 4);
        for (const auto& rank : out.ranks)
            for (const auto& ep : rank.epochs) {
                QCOMPARE(ep.blocks.size(), std::size_t{2});
                QCOMPARE(ep.blocks[0].steps(), std::uint64_t{2});
                QCOMPARE(ep.blocks[1].steps(), std::uint64_t{2});
                QVERIFY(ep.blocks[0].end <= ep.blocks[1].start); // the checkpoint lies between the blocks
            }
        const nlohmann::ordered_json stats = readJson(dir / "run" / "1_per_epoch_stats.json");
        const std::vector<std::string> order{"start", "block1", "save_ckpt1", "block2", "save_ckpt2", "end", "duration"};
        QCOMPARE(keysOf(stats.at("2")), order);
        const nlohmann::ordered_json summary = readJson(dir / "run" / "summary.json");
        const auto keys = keysOf(summary.at("metric"));
        QCOMPARE(keys.front(), std::string("save_checkpoint_io_mean_GB_per_second"));
        QVERIFY(std::find(keys.begin(), keys.end(), "checkpoint_size_GB") != keys.end());
        QVERIFY(std::find(keys.begin(), keys.end(), "train_au_mean_percentage") != keys.end());
        QVERIFY(std::find(keys.begin(), keys.end(), "load_checkpoint_io_mean_GB_per_second") == keys.end());
    }

    // Without steps_between_checkpoints: after epoch checkpoint_after_epoch (here 2) and every
    // epochs_between_checkpoints after it, named after the step past the epoch's last (4 steps: step5).
    void checkpointsAfterEpochs() {
        QTemporaryDir tmp;
        const std::filesystem::path dir = tmp.path().toStdString();
        const RunOutcome out = trainTwoRanks(dir, [](WorkloadConfig& c) { c.checkpoint.afterEpoch = 2; });
        QVERIFY2(out.status == RunStatus::Complete, out.error.c_str());
        QVERIFY(!std::filesystem::exists(dir / "ckpt" / "global_epoch1_step5"));
        QVERIFY(std::filesystem::exists(dir / "ckpt" / "global_epoch2_step5" / "zero_pp_rank_1_mp_rank_0_model_states.pt"));
        QCOMPARE(out.checkpoints.perRank[0].size(), std::size_t{1});
        const nlohmann::ordered_json stats = readJson(dir / "run" / "0_per_epoch_stats.json");
        QVERIFY(!stats.at("1").contains("save_ckpt1"));
        QVERIFY(stats.at("2").contains("save_ckpt1"));
    }

    void refusesBeforeWriting() {
        QTemporaryDir tmp;
        const std::filesystem::path dir = tmp.path().toStdString();
        auto message = [](const WorkloadConfig& c, std::uint64_t ranks) -> std::string {
            checkpoint::CheckpointRunOptions opt;
            opt.accelerators = ranks;
            try {
                checkpoint::runCheckpointOnly(c, opt);
            } catch (const InputError& e) {
                return e.what();
            }
            return {};
        };
        // MLPerf Rules.md 4.3.4: 4 × b200 (720 GB) < llama3-70b's checkpoint; 8 × b200 = 1440 GB is enough for 8b.
        WorkloadConfig big = checkpointOnly(llamaConfig(kLlamas[1]), dir, 1, 0);
        big.accelerator = "b200";
        big.model.parallelism.tensor = 1;
        big.trainio.checkpointScale = 1e-6;
        QVERIFY(message(big, 4).find("aggregate emulated accelerator memory 720 GB") != std::string::npos);
        // mi355 has 288 GB (mlcommons/storage Rules.md 4.3.4, Table 3 "Simulated accelerator memory"): 3 × 288 =
        // 864 GB is below llama3-70b's 911.2 GiB, 4 × 288 = 1152 GB holds it (where 4 × b200 did not). The
        // 4-rank run is then stopped by its folder (below a regular file), before anything is written.
        big.accelerator = "mi355";
        QVERIFY(message(big, 3).find("aggregate emulated accelerator memory 864 GB (3 × mi355 at 288 GB)") != std::string::npos);
        testsupport::writeText(dir / "blocker", "x");
        big.checkpoint.folder = (dir / "blocker" / "ckpt").string();
        const std::string fits = message(big, 4);
        QVERIFY2(fits.find("accelerator memory") == std::string::npos && fits.find("checkpoint.checkpoint_folder") != std::string::npos,
                 fits.c_str());
        // Reads beyond writes (DLIO's config.py).
        WorkloadConfig c = checkpointOnly(smallConfig({"small", 2, 64, 256, 4, 2, 1, 1, 3, 1}), dir, 1, 2);
        QVERIFY(message(c, 1).find("checkpoint.num_checkpoints_read = 2") != std::string::npos);
        // A folder that cannot be written: below a regular file.
        testsupport::writeText(dir / "file", "x");
        c = checkpointOnly(smallConfig({"small", 2, 64, 256, 4, 2, 1, 1, 3, 1}), dir, 1, 0);
        c.checkpoint.folder = (dir / "file" / "ckpt").string();
        QVERIFY(message(c, 1).find("checkpoint.checkpoint_folder") != std::string::npos);
        // More than the free space: 8b at full size, 10 times.
        WorkloadConfig huge = checkpointOnly(llamaConfig(kLlamas[0]), dir, 10, 0);
        QVERIFY(message(huge, 8).find("are free") != std::string::npos);
        QVERIFY(!std::filesystem::exists(dir / "ckpt" / "global_epoch1_step1"));
    }
};

QTEST_GUILESS_MAIN(TestCheckpoint)
#include "tst_checkpoint.moc"
