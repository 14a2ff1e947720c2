// DLIO's model and checkpoint keys and TrainIO's mlperf_round / checkpoint_scale: read from the round's
// real MLPerf Storage v3.0 workload configs without a warning, refused with the key and what is allowed,
// written back and read again. Expected values are copied by hand from the fixture files and from the
// fork's utils/config.py ConfigArguments defaults (mlcommons/DLIO_local_changes f6796ed, lines 177-208).
#include "config/config_keys.h"
#include "config/config_loader.h"
#include "config/config_schema.h"
#include "util/errors.h"

#include "testsupport.h"

#include <QTest>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>

using namespace trainio;
namespace fs = std::filesystem;

namespace {

fs::path v3Configs() { return testsupport::fixtures() / "configs" / "mlperf-v3.0"; }

std::string loadErrorFromString(const std::string& text, const std::string& name) {
    try {
        loadWorkloadConfigFromString(text, name);
    } catch (const InputError& e) {
        return e.what();
    }
    return {};
}

bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

std::string allWarnings(const LoadedConfig& lc) {
    std::string s;
    for (const auto& w : lc.warnings) s += w.message + "\n";
    return s;
}

} // namespace

class TestConfigKeys : public QObject {
    Q_OBJECT
private slots:
    void checkpointingConfigOfTheRound();
    void trainingConfigOfTheRound();
    void dlioDefaultsWhenAbsent();
    void newKeysWriteAndReadBack();
    void parquetIsRefused();
    void dataParallelismInDefaultModeWarns();
    void defaultLoaderIsNotWrittenWithPytorch();
    void badNewKeys_data();
    void badNewKeys();
    void committedDocIsTheGeneratedOne();
    void everyUsedKeyIsReadAndWritten();
    void cliPrintsTheTable();
    void acceleratorsAreOneTable();
    void everyKeyHasAnIdentityRole();
};

// SAMSUNG's llama3-8b checkpointing run (write and read in one folder).
void TestConfigKeys::checkpointingConfigOfTheRound() {
    const auto lc = loadWorkloadConfig((v3Configs() / "llama3-8b-samsung-config.yaml").string());
    QVERIFY2(lc.warnings.empty(), allWarnings(lc).c_str());
    const auto& c = lc.config;
    QCOMPARE(c.model.name, std::string("llama_8b"));
    QCOMPARE(c.model.type, std::string("transformer"));
    QCOMPARE(c.model.numLayers, std::int64_t(32));
    QCOMPARE(c.model.modelDatatype, std::string("fp16"));
    QCOMPARE(c.model.optimizerDatatype, std::string("fp32"));
    QCOMPARE(c.model.parallelism.pipeline, std::int64_t(1));
    QCOMPARE(c.model.parallelism.tensor, std::int64_t(1));
    QCOMPARE(c.model.parallelism.zeroStage, std::int64_t(3));
    QCOMPARE(c.model.parallelism.data, std::int64_t(-1)); // not in the file: DLIO's default
    QCOMPARE(c.model.transformer.vocabSize, std::uint64_t(128256));
    QCOMPARE(c.model.transformer.hiddenSize, std::uint64_t(4096));
    QCOMPARE(c.model.transformer.ffnHiddenSize, std::uint64_t(14336));
    QCOMPARE(c.model.transformer.numAttentionHeads, std::uint64_t(32));
    QCOMPARE(c.model.transformer.numKvHeads, std::uint64_t(8));
    QCOMPARE(c.framework, std::string("pytorch"));
    QCOMPARE(c.workflow.generateData, false);
    QCOMPARE(c.workflow.train, false);
    QCOMPARE(c.workflow.checkpoint, true);
    QCOMPARE(c.checkpoint.folder, std::string("/mnt/mlps_nvme/checkpoint/llama3-8b/llama3-8b"));
    QCOMPARE(c.checkpoint.timeBetweenCheckpoints, 5.0);
    QCOMPARE(c.checkpoint.numCheckpointsWrite, std::int64_t(10));
    QCOMPARE(c.checkpoint.numCheckpointsRead, std::int64_t(10));
    QCOMPARE(c.checkpoint.fsync, true);
    QCOMPARE(c.checkpoint.type, std::string("rank_zero"));
    QCOMPARE(c.checkpoint.mode, std::string("default"));
}

// Alluxio's retinanet_b200 run: jpeg, and the fork's skip_listing / listing_validation_interval /
// multiprocessing_context keys, which TrainIO knows and does not use.
void TestConfigKeys::trainingConfigOfTheRound() {
    const auto lc = loadWorkloadConfig((v3Configs() / "retinanet_b200-alluxio-config.yaml").string());
    QVERIFY2(lc.warnings.empty(), allWarnings(lc).c_str());
    const auto& c = lc.config;
    QCOMPARE(c.model.name, std::string("retinanet"));
    QCOMPARE(c.model.type, std::string("cnn"));
    QCOMPARE(c.dataset.dataFolder, std::string("/mnt/alluxio/mlperf/retinanet"));
    QCOMPARE(c.dataset.format, DataFormat::Jpeg);
    QCOMPARE(c.dataset.numFilesTrain, std::uint64_t(6500000));
    QCOMPARE(c.dataset.numSamplesPerFile, std::uint64_t(1));
    QCOMPARE(c.dataset.recordLength, 322957.0);
    QCOMPARE(c.dataset.numSubfoldersTrain, std::uint64_t(650));
    QCOMPARE(c.reader.dataLoader, std::string("pytorch"));
    QCOMPARE(c.reader.batchSize, std::uint64_t(24));
    QCOMPARE(c.reader.readThreads, std::uint64_t(4));
    QCOMPARE(c.reader.fileShuffle, ShuffleMode::Seed);
    QCOMPARE(c.reader.sampleShuffle, ShuffleMode::Seed);
    QCOMPARE(c.train.epochs, std::uint64_t(8));
    QCOMPARE(c.train.computationTime.mean, 0.04755);
    QCOMPARE(c.metric.au, 0.85);

    // The unet3d configs of the round carry model.model_size, which DLIO does not read: known, silent.
    const std::string unet = "workload:\n  model:\n    name: unet3d\n    type: cnn\n    model_size: 499153191\n"
                             "  framework: pytorch\n  dataset:\n    format: npz\n    skip_listing: true\n"
                             "    listing_validation_interval: 10\n  reader:\n    data_loader: pytorch\n";
    const auto u = loadWorkloadConfigFromString(unet, "unet3d_b200.yaml");
    QVERIFY2(u.warnings.empty(), allWarnings(u).c_str());
}

void TestConfigKeys::dlioDefaultsWhenAbsent() {
    const auto c = loadWorkloadConfigFromString("model: tiny\nframework: pytorch\nreader: {data_loader: pytorch}\n"
                                                "dataset: {format: npz}\n", "tiny.yaml")
                       .config;
    // ConfigArguments: checkpoint_type RANK_ZERO, checkpoint_mode DEFAULT, model_datatype fp16,
    // optimizer_datatype fp32, recovery_rank_shift False, time_between_checkpoints -1, rank_sync False,
    // num_checkpoints_write/read -1, randomize_tensor True, vocab 32000, hidden 2048, heads 32, kv 8,
    // ffn 8192, zero_stage 0, num_layers -1, tensor/pipeline 1, data -1.
    QCOMPARE(c.checkpoint.type, std::string("rank_zero"));
    QCOMPARE(c.checkpoint.mode, std::string("default"));
    QCOMPARE(c.model.modelDatatype, std::string("fp16"));
    QCOMPARE(c.model.optimizerDatatype, std::string("fp32"));
    QCOMPARE(c.checkpoint.recoveryRankShift, false);
    QCOMPARE(c.checkpoint.timeBetweenCheckpoints, -1.0);
    QCOMPARE(c.checkpoint.rankSync, false);
    QCOMPARE(c.checkpoint.numCheckpointsWrite, std::int64_t(-1));
    QCOMPARE(c.checkpoint.numCheckpointsRead, std::int64_t(-1));
    QCOMPARE(c.checkpoint.randomizeTensor, true);
    QCOMPARE(c.model.transformer.vocabSize, std::uint64_t(32000));
    QCOMPARE(c.model.transformer.hiddenSize, std::uint64_t(2048));
    QCOMPARE(c.model.transformer.numAttentionHeads, std::uint64_t(32));
    QCOMPARE(c.model.transformer.numKvHeads, std::uint64_t(8));
    QCOMPARE(c.model.transformer.ffnHiddenSize, std::uint64_t(8192));
    QCOMPARE(c.model.parallelism.zeroStage, std::int64_t(0));
    QCOMPARE(c.model.numLayers, std::int64_t(-1));
    QCOMPARE(c.model.parallelism.tensor, std::int64_t(1));
    QCOMPARE(c.model.parallelism.pipeline, std::int64_t(1));
    QCOMPARE(c.model.parallelism.data, std::int64_t(-1));
    QCOMPARE(c.model.modelSizeBytes, 10240.0); // model_size: int = 10240
    QCOMPARE(c.trainio.checkpointScale, 1.0);
    QCOMPARE(c.trainio.mlperfRound, std::string());
}

void TestConfigKeys::newKeysWriteAndReadBack() {
    const std::string text = "model:\n  name: llama_70b\n  type: transformer\n  model_size_bytes: 123456\n"
                             "  model_datatype: bf16\n  optimizer_datatype: fp64\n  num_layers: 80\n"
                             "  layer_parameters: [10, 20, 30]\n  optimization_groups: [1, 2]\n"
                             "  parallelism: {tensor: 8, pipeline: 4, data: 2, zero_stage: 1}\n"
                             "  transformer: {vocab_size: 128256, hidden_size: 8192, ffn_hidden_size: 28672,"
                             " num_attention_heads: 64, num_kv_heads: 8}\n"
                             "framework: pytorch\nreader: {data_loader: pytorch}\nworkflow: {train: false, checkpoint: true}\n"
                             "checkpoint:\n  checkpoint_folder: ck\n  type: all_ranks\n  mode: subset\n"
                             "  checkpoint_mechanism_classname: my.Mechanism\n  time_between_checkpoints: 2.5\n"
                             "  num_checkpoints_write: 3\n  num_checkpoints_read: 2\n  rank_sync: true\n"
                             "  recovery_rank_shift: true\n  randomize_tensor: false\n"
                             "trainio: {mlperf_round: v3.0, checkpoint_scale: 0.25}\n";
    const auto first = loadWorkloadConfigFromString(text, "llama.yaml");
    QVERIFY2(first.warnings.empty(), allWarnings(first).c_str());
    const std::string yaml = toYaml(first.config);
    const auto lc = loadWorkloadConfigFromString(yaml, "written.yaml");
    QVERIFY2(lc.warnings.empty(), allWarnings(lc).c_str());
    for (const auto* cp : {&first.config, &lc.config}) {
        const auto& c = *cp;
        QCOMPARE(c.model.modelSizeBytes, 123456.0);
        QCOMPARE(c.checkpoint.modelSize, 123456.0);
        QCOMPARE(c.model.modelDatatype, std::string("bf16"));
        QCOMPARE(c.model.optimizerDatatype, std::string("fp64"));
        QCOMPARE(c.model.numLayers, std::int64_t(80));
        QCOMPARE(c.model.layerParameters, (std::vector<std::uint64_t>{10, 20, 30}));
        QCOMPARE(c.model.optimizationGroups, (std::vector<std::uint64_t>{1, 2}));
        QCOMPARE(c.model.parallelism.tensor, std::int64_t(8));
        QCOMPARE(c.model.parallelism.pipeline, std::int64_t(4));
        QCOMPARE(c.model.parallelism.data, std::int64_t(2));
        QCOMPARE(c.model.parallelism.zeroStage, std::int64_t(1));
        QCOMPARE(c.model.transformer.vocabSize, std::uint64_t(128256));
        QCOMPARE(c.model.transformer.hiddenSize, std::uint64_t(8192));
        QCOMPARE(c.model.transformer.ffnHiddenSize, std::uint64_t(28672));
        QCOMPARE(c.model.transformer.numAttentionHeads, std::uint64_t(64));
        QCOMPARE(c.model.transformer.numKvHeads, std::uint64_t(8));
        QCOMPARE(c.checkpoint.type, std::string("all_ranks"));
        QCOMPARE(c.checkpoint.mode, std::string("subset"));
        QCOMPARE(c.checkpoint.mechanismClassname, std::string("my.Mechanism"));
        QCOMPARE(c.checkpoint.timeBetweenCheckpoints, 2.5);
        QCOMPARE(c.checkpoint.numCheckpointsWrite, std::int64_t(3));
        QCOMPARE(c.checkpoint.numCheckpointsRead, std::int64_t(2));
        QCOMPARE(c.checkpoint.rankSync, true);
        QCOMPARE(c.checkpoint.recoveryRankShift, true);
        QCOMPARE(c.checkpoint.randomizeTensor, false);
        QCOMPARE(c.trainio.mlperfRound, std::string("v3.0"));
        QCOMPARE(c.trainio.checkpointScale, 0.25);
    }
    // DLIO reads the written file too: its spellings, in its sections.
    QVERIFY2(contains(yaml, "num_checkpoints_write: 3"), yaml.c_str());
    QVERIFY2(contains(yaml, "zero_stage: 1"), yaml.c_str());
    QVERIFY2(contains(yaml, "mlperf_round: v3.0"), yaml.c_str());
}

// mlcommons/storage's llama3_8b.yaml (some versions) sets parallelism.data: 1 in default mode, which
// the fork's validate() refuses (utils/config.py:458): it loads, with a warning that says so.
void TestConfigKeys::dataParallelismInDefaultModeWarns() {
    const auto lc = loadWorkloadConfigFromString(
        "model:\n  name: llama_8b\n  parallelism: {pipeline: 1, tensor: 1, zero_stage: 3, data: 1}\n"
        "framework: pytorch\nworkflow: {train: false, checkpoint: true}\n", "llama3_8b.yaml");
    QCOMPARE(lc.warnings.size(), std::size_t(1));
    QVERIFY2(contains(lc.warnings[0].message, "llama3_8b.yaml:3: model.parallelism.data = 1: DLIO refuses a data "
                                              "parallelism in checkpoint.mode default"),
             lc.warnings[0].message.c_str());
    QCOMPARE(lc.config.model.parallelism.data, std::int64_t(1));
}

// The round's checkpointing configs have no reader: DLIO's default data_loader (the string
// "tensorflow") passes its framework check, the same value written out would not. The written file
// leaves it out, reads back to the same loader, and warns about nothing.
void TestConfigKeys::defaultLoaderIsNotWrittenWithPytorch() {
    const auto lc = loadWorkloadConfig((v3Configs() / "llama3-8b-samsung-config.yaml").string());
    QCOMPARE(lc.config.reader.dataLoader, std::string("tensorflow"));
    const std::string yaml = toYaml(lc.config);
    QVERIFY2(!contains(yaml, "data_loader"), yaml.c_str());
    const auto back = loadWorkloadConfigFromString(yaml, "written.yaml");
    QVERIFY2(back.warnings.empty(), allWarnings(back).c_str());
    QCOMPARE(back.config.reader.dataLoader, std::string("tensorflow"));
}

void TestConfigKeys::parquetIsRefused() {
    const std::string text = "model: flux\nframework: pytorch\ndataset:\n  format: parquet\nreader: {data_loader: pytorch}\n";
    const std::string e = loadErrorFromString(text, "flux_b200.yaml");
    QVERIFY2(contains(e, "flux_b200.yaml:4: dataset.format = 'parquet': Parquet is not supported"), e.c_str());
    QVERIFY2(contains(e, "Debian 12 has no Parquet/Arrow library"), e.c_str());
}

void TestConfigKeys::badNewKeys_data() {
    QTest::addColumn<QString>("yaml");
    QTest::addColumn<QString>("expect");
    auto row = [](const char* name, const char* yaml, const char* expect) {
        QTest::newRow(name) << QString::fromUtf8(yaml) << QString::fromUtf8(expect);
    };
    row("mode", "checkpoint: {mode: partial}", "checkpoint.mode = 'partial': expected one of default or subset");
    row("optimizer datatype", "model: {name: m, optimizer_datatype: float}",
        "model.optimizer_datatype = 'float': expected one of fp16, bf16, fp32, fp64, int8 or uint8");
    row("zero stage negative", "model: {name: m, parallelism: {zero_stage: -1}}",
        "model.parallelism.zero_stage = -1: expected a whole number 0 … 3");
    row("tensor zero", "model: {name: m, parallelism: {tensor: 0}}", "model.parallelism.tensor = 0: expected a whole number 1 … 1000000");
    row("data zero", "model: {name: m, parallelism: {data: 0}}",
        "model.parallelism.data = 0: expected -1 (derived from the number of ranks) or a whole number >= 1");
    row("layers", "model: {name: m, num_layers: -2}", "model.num_layers = -2: expected a whole number -1 … 1000000");
    row("layer list", "model: {name: m, layer_parameters: 5}",
        "model.layer_parameters = 5: expected a list of whole numbers >= 0");
    row("layer list item", "model: {name: m, layer_parameters: [1, x]}",
        "model.layer_parameters = [1, x]: expected a list of whole numbers >= 0, such as [4096, 1024] ('x' is not)");
    row("heads", "model: {name: m, transformer: {num_kv_heads: 0}}", "model.transformer.num_kv_heads = 0: expected a whole number 1 … 1000000000");
    row("writes", "checkpoint: {num_checkpoints_write: -5}", "checkpoint.num_checkpoints_write = -5: expected a whole number -1 … 1000000");
    row("time between", "checkpoint: {time_between_checkpoints: -3}",
        "checkpoint.time_between_checkpoints = -3: expected a number of seconds -1 … 1000000");
    row("rank sync", "checkpoint: {rank_sync: maybe}", "checkpoint.rank_sync = 'maybe': expected true or false");
    row("scale above 1", "trainio: {checkpoint_scale: 1.5}", "trainio.checkpoint_scale = 1.5: expected a number > 0 and <= 1");
    row("round", "trainio: {mlperf_round: v4.0}", "trainio.mlperf_round = 'v4.0': expected one of v1.0, v2.0 or v3.0");
    // DLIO's own cross-field refusals (the fork's utils/config.py validate(), lines 452-470).
    row("layers below pipeline", "model: {name: m, num_layers: 2, parallelism: {pipeline: 4}}",
        "model.num_layers = 2: expected at least model.parallelism.pipeline (4) layers");
    row("zero 3 with pipeline", "model: {name: m, parallelism: {pipeline: 2, zero_stage: 3}}",
        "model.parallelism.zero_stage = 3: expected 0, 1 or 2 with pipeline parallelism 2");
    row("subset without data", "checkpoint: {mode: subset}",
        "checkpoint.mode = 'subset': expected a target model.parallelism.data >= 1 for subset checkpointing");
    row("read more than written", "checkpoint: {num_checkpoints_write: 2, num_checkpoints_read: 3}",
        "checkpoint.num_checkpoints_read = 3: expected at most checkpoint.num_checkpoints_write (2)");
}

void TestConfigKeys::badNewKeys() {
    QFETCH(QString, yaml);
    QFETCH(QString, expect);
    std::string text = "framework: pytorch\n" + yaml.toStdString() + "\n";
    if (!contains(text, "model:")) text = "model: m\n" + text;
    const std::string e = loadErrorFromString(text, "bad.yaml");
    QVERIFY2(contains(e, expect.toStdString()), e.c_str());
    QVERIFY2(e.rfind("bad.yaml", 0) == 0, e.c_str());
}

// docs/configuration.md's key reference is `trainio-cli config-keys --format markdown`: a change to the
// table without regenerating the page fails here (regenerate: replace the part between the markers).
void TestConfigKeys::committedDocIsTheGeneratedOne() {
    const fs::path doc = testsupport::fixtures().parent_path().parent_path() / "docs" / "configuration.md";
    const std::string text = testsupport::readText(doc);
    const std::string begin = std::string(config_keys::kDocBegin) + "\n";
    const auto a = text.find(begin);
    const auto b = text.find(config_keys::kDocEnd);
    QVERIFY2(a != std::string::npos && b != std::string::npos && b > a, "markers missing in docs/configuration.md");
    const std::string committed = text.substr(a + begin.size(), b - a - begin.size());
    if (committed != config_keys::markdown()) {
        // Name the first line that differs, so that the failure says what to regenerate.
        std::stringstream x(committed), y(config_keys::markdown());
        std::string l1, l2;
        int n = 0;
        while (true) {
            const bool more1 = static_cast<bool>(std::getline(x, l1));
            const bool more2 = static_cast<bool>(std::getline(y, l2));
            ++n;
            if (!more1 || !more2 || l1 != l2) break;
        }
        QFAIL(("docs/configuration.md differs from `trainio-cli config-keys --format markdown` at generated line " +
               std::to_string(n) + ":\n  committed: " + l1 + "\n  generated: " + l2)
                  .c_str());
    }
}

// Every key the table says TrainIO reads is a known key, and a file setting it to a value other than
// the default loads to that value and writes it back (so no key is known but silently dropped).
void TestConfigKeys::everyUsedKeyIsReadAndWritten() {
    int checked = 0;
    for (const auto& k : config_keys::all()) {
        if (k.has(config_keys::NotAKey)) {
            QVERIFY2(!config_schema::lookup(k.path), k.path.c_str());
            continue;
        }
        QVERIFY2(config_schema::lookup(k.path) == k.kind, k.path.c_str());
        if (!k.oldPath.empty()) QVERIFY2(config_schema::lookup(k.oldPath) == k.kind, k.oldPath.c_str());
        if (k.kind != config_schema::KeyKind::Used || !k.field) continue;
        // A value that differs from the default, chosen from the key's type and range (not from the loader).
        std::string text;
        using T = config_keys::Type;
        switch (k.type) {
        case T::Bool: text = k.dlioDefault == "true" ? "false" : "true"; break;
        case T::Whole:
        case T::Integer: text = k.range && k.range->max >= 3 ? "3" : "1"; break;
        case T::Number:
        case T::Bytes:
        case T::Seconds:
        case T::Milliseconds:
        case T::Fraction: text = k.range && k.range->whole ? "3" : "0.5"; break;
        case T::Text: text = "value-x"; break;
        case T::Choice: text = k.choices.back() == k.dlioDefault ? k.choices.front() : k.choices.back(); break;
        case T::WholeList: text = "[7, 8]"; break;
        default: continue;
        }
        if (k.path == "accelerator") text = "h200";
        if (k.path == "model.name" || k.path == "model.type") text = "modelx";
        if (k.path == "dataset.format") text = "npy";
        if (k.path == "trainio.io_engine") text = "mmap"; // odirect would also follow reader.odirect
        // A map path from the dotted key: a.b.c = v → a: {b: {c: v}}.
        std::string yaml;
        std::string rest = k.path;
        int depth = 0;
        for (auto dot = rest.find('.'); dot != std::string::npos; dot = rest.find('.')) {
            yaml += std::string(2 * depth, ' ') + rest.substr(0, dot) + ":\n";
            rest.erase(0, dot + 1);
            ++depth;
        }
        yaml += std::string(2 * depth, ' ') + rest + ": " + text + "\n";
        // The loader's capacities are refused without the policy that uses them (and the SSD tier's two keys
        // go together): nested under trainio:, right after the key.
        if (k.path == "trainio.ram_tier_mib" || k.path == "trainio.staging_mib") yaml += "  loader: nopfs\n";
        if (k.path == "trainio.ssd_tier.path") yaml += "    capacity_mib: 1\n  loader: nopfs\n";
        if (k.path == "trainio.ssd_tier.capacity_mib") yaml += "    path: /tmp\n  loader: nopfs\n";
        // A captured job's figures are written with the job they are of (a trace whose steps are marked).
        if (k.path == "trainio.captured_job.au_percent") yaml += "    trace: /t\n    steps: marks\n    samples_per_second: 1\n";
        if (k.path == "trainio.captured_job.samples_per_second") yaml += "    trace: /t\n    steps: marks\n";
        // An S3 workload names its bucket (docs/s3.md): nested under storage:, right after the key.
        if (k.path == "storage.storage_type") yaml += "  storage_root: b\n";
        // Subset checkpointing and a target data parallelism go together (DLIO refuses one without the other).
        if (k.path == "checkpoint.mode") yaml += "model: {name: m, parallelism: {data: 2}}\n";
        else if (k.path.rfind("model.", 0) != 0) yaml += "model: m\n";
        if (k.path == "model.parallelism.data") yaml += "checkpoint: {mode: subset}\n";
        if (k.path.rfind("trainio.storage.latency_ms.", 0) == 0)
            continue; // their meaning depends on the type: tst_trainio_section covers them
        if (k.path == "workflow.checkpoint" || k.path == "workflow.train") yaml += "checkpoint: {checkpoint_folder: ck}\n";
        const std::string source = "key-" + k.path + ".yaml";
        LoadedConfig lc;
        try {
            lc = loadWorkloadConfigFromString(yaml, source);
        } catch (const InputError& e) {
            QFAIL((k.path + ": " + e.what() + "\n" + yaml).c_str());
        }
        const config_keys::Value got = k.field.get(lc.config);
        if (isSecretKey(k.path)) {
            // A secret is read but never written: the copy says *** (docs/s3.md).
            QCOMPARE(std::get<std::string>(got), text);
            const std::string written = toYaml(lc.config);
            QVERIFY2(written.find("***") != std::string::npos && written.find(text) == std::string::npos, written.c_str());
            continue;
        }
        const auto back = loadWorkloadConfigFromString(toYaml(lc.config), "back.yaml").config;
        QVERIFY2(k.field.get(back) == got, (k.path + ": not written back").c_str());
        const config_keys::Value defaults = k.field.get(dlioDefaultConfig());
        QVERIFY2(got != defaults, (k.path + " = " + text + ": the default was kept\n" + yaml).c_str());
        ++checked;
    }
    QVERIFY2(checked >= 60, std::to_string(checked).c_str());
}

void TestConfigKeys::cliPrintsTheTable() {
    const auto md = testsupport::runCli({"config-keys", "--format", "markdown"});
    QCOMPARE(md.exitCode, 0);
    QCOMPARE(md.out.toStdString(), config_keys::markdown());
    const auto js = testsupport::runCli({"config-keys", "--format", "json"});
    QCOMPARE(js.exitCode, 0);
    const auto j = nlohmann::json::parse(js.out.toStdString());
    bool found = false;
    for (const auto& k : j.at("keys"))
        if (k.at("key") == "checkpoint.type") {
            found = true;
            QVERIFY2(k.at("choices") == (nlohmann::json{"rank_zero", "all_ranks"}), k.dump().c_str());
            QVERIFY2(k.at("default") == nlohmann::json("rank_zero"), k.dump().c_str());
        }
    QVERIFY(found);
    const auto bad = testsupport::runCli({"config-keys", "--format", "xml"});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains(QStringLiteral("--format xml: expected markdown or json")), qPrintable(bad.err));
}

// One list of accelerator names (the `accelerator` row's) serves the loader and the GUI, and one memory
// table serves the checkpoint refusal and the import check. The memories are MLPerf Storage's, typed in
// from mlcommons/storage Rules.md 4.3.4, Table 3 "Simulated accelerator memory": b200 180 GB, mi355
// 288 GB (CLOSED and OPEN); a100 and h100 are listed there for `whatif` runs only and are not checked.
void TestConfigKeys::acceleratorsAreOneTable() {
    QCOMPARE(config_keys::acceleratorMemoryGB("b200"), 180.0);
    QCOMPARE(config_keys::acceleratorMemoryGB("mi355"), 288.0);
    for (const char* unchecked : {"a100", "h100", "mi300x", "generic", ""})
        QVERIFY2(config_keys::acceleratorMemoryGB(unchecked) == 0, unchecked);
    const config_keys::KeyDef* row = config_keys::find("accelerator");
    QVERIFY(row);
    QCOMPARE(&config_keys::acceleratorNames(), &row->known);
    QCOMPARE(config_keys::acceleratorNames().size(), config_keys::accelerators().size());
    for (const char* name : {"a100", "h100", "b200", "mi355"})
        QVERIFY2(std::find(row->known.begin(), row->known.end(), name) != row->known.end(), name);
    // The loader recognises every name of the list in a file name and in a workload= label.
    const std::string minimal = "model: unet3d\nframework: pytorch\ndataset:\n  format: npz\n  num_files_train: 16\n"
                                "  record_length: 1048576\nreader:\n  batch_size: 2\ntrain:\n  computation_time: 0.01\n";
    for (const auto& name : row->known) {
        QCOMPARE(loadWorkloadConfigFromString(minimal, "x/unet3d_" + name + ".yaml").config.accelerator, name);
        QCOMPARE(loadWorkloadConfigFromString(minimal, "mine.yaml", {"workload=unet3d_" + name}).config.accelerator, name);
    }
    // The reference says which names are known.
    QVERIFY2(contains(config_keys::markdown(), "known: a100, h100, h200, b200, gb200, mi300x and mi355"),
             "docs: the accelerator row lists its names");
}

QTEST_APPLESS_MAIN(TestConfigKeys)
#include "tst_config_keys.moc"

// Issue 30: the one table says, for every key, whether it defines the workload, is a setting, or is a
// location — a row added without saying it fails here. A row whose name names a place is a location (the
// rule for keys outside the table and the table agree), and keys the table does not know — as published
// configs and other DLIO versions carry them — get their role by that rule, by the row they are a member
// of, or are settings.
void TestConfigKeys::everyKeyHasAnIdentityRole() {
    using config_keys::Role;
    for (const auto& k : config_keys::all()) {
        QVERIFY2(k.role != Role::Unclassified,
                 ("no identity role for " + k.path + ": say .workload(), .setting() or .location() in its row").c_str());
        if (config_keys::namesAPlace(k.path))
            QVERIFY2(k.role == Role::Location, (k.path + " names a place but is not a location").c_str());
        QCOMPARE(int(config_keys::roleOf(k.path)), int(k.role));
    }
    const std::vector<std::pair<std::string, Role>> outside = {
        {"dataset.train_dir", Role::Location},
        {"dataset.data_path", Role::Location},
        {"storage.storage_options.bucket", Role::Location},
        {"storage.storage_options.bucket_name", Role::Location},
        {"storage.storage_options.s3_prefix", Role::Location},
        {"storage.storage_options.endpoints", Role::Location},
        {"storage.storage_options.host", Role::Location},
        {"hosts", Role::Location},
        {"checkpoint.checkpoint_file", Role::Location},
        {"output.trace_filename", Role::Location},
        {"data_reader.data_folder", Role::Location}, // under DLIO's other name for reader
        {"dataset.num_hosts", Role::Setting},        // how many, not where
        {"dataset.max_path", Role::Setting},
        {"dataset.num_subfolders_train", Role::Setting},
        {"reader.file_shuffle", Role::Setting},
        {"dataset.file_access", Role::Setting},
        {"storage.storage_options.prefetch_window", Role::Setting}, // a member of the storage_options map
        {"reader.preprocess_time.mean", Role::Workload},           // a member of the reader.preprocess_time distribution
        {"dataset.some_new_knob", Role::Setting},
    };
    for (const auto& [path, role] : outside)
        QVERIFY2(config_keys::roleOf(path) == role, (path + ": " + std::to_string(int(config_keys::roleOf(path)))).c_str());
    // The generated reference says it too.
    QVERIFY(config_keys::markdown().find("| Identity |") != std::string::npos);
    const auto doc = config_keys::json(); // held: a range over a temporary's member would dangle
    for (const auto& k : doc.at("keys"))
        QVERIFY2(k.contains("identity") && k.at("identity") != "unclassified", k.dump().c_str());
}
