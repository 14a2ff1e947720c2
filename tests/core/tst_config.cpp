// The workload configuration: DLIO YAML as it is (both key generations, both root shapes), JSON,
// presets, overrides, unknown-key warnings, the bad-config corpus, serialisation and sizing.
#include "config/config_loader.h"
#include "util/errors.h"

#include "testsupport.h"

#include <QTemporaryDir>
#include <yaml-cpp/yaml.h>
#include <QTest>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <set>

using namespace trainio;
namespace fs = std::filesystem;

namespace {

fs::path workloads() { return testsupport::fixtures() / "dlio-workloads-v1.0"; }

// The InputError message for loading `path`, or "" when it loads.
std::string loadError(const std::string& path, const std::vector<std::string>& overrides = {}) {
    try {
        loadWorkloadConfig(path, overrides);
    } catch (const InputError& e) {
        return e.what();
    }
    return {};
}

std::string loadErrorFromString(const std::string& text, const std::string& name,
                                const std::vector<std::string>& overrides = {}) {
    try {
        loadWorkloadConfigFromString(text, name, overrides);
    } catch (const InputError& e) {
        return e.what();
    }
    return {};
}

bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

std::vector<std::string> lines(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string l; std::getline(ss, l);) out.push_back(l);
    return out;
}

// 1-based line of the first line of `text` that contains `needle`.
int lineOf(const std::string& text, const std::string& needle) {
    auto ls = lines(text);
    for (std::size_t i = 0; i < ls.size(); ++i)
        if (contains(ls[i], needle)) return static_cast<int>(i + 1);
    return -1;
}

const char* kMinimal = R"(model: unet3d
framework: pytorch
dataset:
  format: npz
  num_files_train: 16
  record_length: 1048576
reader:
  data_loader: pytorch
  batch_size: 2
train:
  computation_time: 0.01
)";

// A workload file's settings as dotted keys and scalar text, read with yaml-cpp alone and brought to
// the current DLIO spellings that docs/configuration.md lists: the Hydra `workload:` root, `model:
// name` (v1.0 string), `record_length_bytes*` (v1.0 record_length*), `model.model_size_bytes` (v1.0
// checkpoint.model_size), `reader` (data_reader); a single compute time is the distribution's mean.
void flattenInto(const YAML::Node& n, const std::string& key, std::map<std::string, std::string>& out) {
    if (n.IsMap()) {
        for (const auto& kv : n) flattenInto(kv.second, key.empty() ? kv.first.as<std::string>() : key + "." + kv.first.as<std::string>(), out);
    } else if (n.IsSequence()) {
        std::string joined;
        for (const auto& e : n) joined += (joined.empty() ? "" : ",") + e.as<std::string>();
        out[key] = "[" + joined + "]";
    } else if (n.IsScalar()) {
        out[key] = n.Scalar();
    }
}

std::map<std::string, std::string> settingsOf(const YAML::Node& doc) {
    const YAML::Node root = doc["workload"] ? doc["workload"] : doc;
    std::map<std::string, std::string> flat, out;
    flattenInto(root, "", flat);
    const std::pair<std::string, std::string> renames[] = {
        {"model", "model.name"},
        {"dataset.record_length", "dataset.record_length_bytes"},
        {"dataset.record_length_stdev", "dataset.record_length_bytes_stdev"},
        {"dataset.record_length_resize", "dataset.record_length_bytes_resize"},
        {"checkpoint.model_size", "model.model_size_bytes"},
        {"train.computation_time", "train.computation_time.mean"},
        {"evaluation.eval_time", "evaluation.eval_time.mean"}};
    for (const auto& [flatKey, value] : flat) {
        std::string key = flatKey;
        if (key.rfind("data_reader.", 0) == 0) key = "reader." + key.substr(12);
        for (const auto& [from, to] : renames)
            if (key == from) key = to;
        out[key] = value;
    }
    return out;
}

// The keys docs/configuration.md lists as "known to DLIO, not used by TrainIO".
bool unusedDlioKey(const std::string& key) {
    static const std::set<std::string> exact = {
        "workflow.debug", "dataset.generation_buffer_size", "dataset.enable_chunking", "dataset.chunk_size",
        "dataset.compression", "dataset.compression_level", "dataset.record_element_bytes", "dataset.record_dims",
        "dataset.num_dataset_per_record", "reader.dont_use_mmap", "reader.reader_classname",
        "reader.multiprocessing_context", "reader.data_loader_classname", "reader.data_loader_sampler",
        "reader.file_access", "reader.read_type",
        "reader.pin_memory", "reader.transformed_record_dims", "reader.transformed_record_element_type",
        "reader.transformed_sample", "reader.transformed_sample_type", "train.eval_time", "train.eval_after_epoch",
        "train.do_eval", "evaluation.eval_after_epoch", "checkpoint.type", "checkpoint.checkpoint_mechanism_classname",
        "checkpoint.time_between_checkpoints", "checkpoint.num_checkpoints_write", "checkpoint.num_checkpoints_read",
        "checkpoint.recovery_rank_shift", "checkpoint.rank_sync", "checkpoint.mode", "checkpoint.randomize_tensor",
        "checkpoint.ksm", "checkpoint.optimization_groups", "checkpoint.num_layers", "checkpoint.layer_parameters",
        "checkpoint.tensor_parallelism", "checkpoint.pipeline_parallelism", "checkpoint.do_checkpoint",
        "checkpoint.output_folder", "model.model_datatype", "model.optimizer_datatype", "model.optimization_groups",
        "model.num_layers", "model.layer_parameters", "output.folder", "output.log_file", "profiling.profiler",
        "profiling.iostat_devices"};
    for (const char* prefix : {"storage.", "dataset.hdf5.", "model.parallelism.", "model.transformer.",
                               "hydra.", "defaults"})
        if (key.rfind(prefix, 0) == 0) return true;
    return exact.count(key) > 0;
}

// Two YAML scalars that mean the same setting: equal numbers, equal booleans (True, yes, on, …) or
// equal text.
bool sameSetting(const std::string& a, const std::string& b) {
    const YAML::Node x = YAML::Load(a), y = YAML::Load(b);
    double dx = 0, dy = 0;
    if (YAML::convert<double>::decode(x, dx) && YAML::convert<double>::decode(y, dy)) return dx == dy;
    bool bx = false, by = false;
    if (YAML::convert<bool>::decode(x, bx) && YAML::convert<bool>::decode(y, by)) return bx == by;
    return a == b;
}

std::string messages(const std::vector<ConfigDiagnostic>& ds) {
    std::string out;
    for (const auto& d : ds) out += d.message + "\n";
    return out;
}

} // namespace

class TestConfig : public QObject {
    Q_OBJECT

private slots:
    void fixtureWorkloadsLoad_data();
    void fixtureWorkloadsLoad();
    void fixtureValues();
    void hydraRunConfigs();
    void mlperfResultConfigsLoad();
    void presetsMatchSpec_data();
    void presetsMatchSpec();
    void presetDirectoryFromEnvironment();
    void configOrPreset();
    void overrideTypes();
    void overrideNestedAndDelete();
    void overrideErrors();
    void overridesReproduceRealRuns();
    void jsonEquivalent();
    void unknownKeyWarnings();
    void computationTimeForms();
    void shuffleAndBooleanSpellings();
    void accelerator();
    void roundTrip();
    void overridesYamlContent();
    void sizingAdviceNumbers();
    void badCorpus_data();
    void badCorpus();
    void errorsAreCollected();
    void unreadableFile();
    void validateConfigOnStruct();
};

void TestConfig::fixtureWorkloadsLoad_data() {
    QTest::addColumn<QString>("file");
    for (const auto& e : fs::directory_iterator(workloads()))
        if (e.path().extension() == ".yaml") QTest::newRow(e.path().filename().string().c_str()) << QString::fromStdString(e.path().string());
}

void TestConfig::fixtureWorkloadsLoad() {
    QFETCH(QString, file);
    LoadedConfig l = loadWorkloadConfig(file.toStdString());
    // Every key in the real MLPerf files is known to DLIO, so nothing to warn about.
    QVERIFY2(l.warnings.empty(), messages(l.warnings).c_str());
    QCOMPARE(QString::fromStdString(l.config.sourcePath), file);
    const std::string stem = fs::path(file.toStdString()).stem().string();
    QCOMPARE(l.config.model.name + "_" + l.config.accelerator, stem);
}

void TestConfig::fixtureValues() {
    auto r = loadWorkloadConfig((workloads() / "resnet50_h100.yaml").string()).config;
    QCOMPARE(r.model.name, std::string("resnet50"));
    QCOMPARE(r.framework, std::string("tensorflow"));
    QCOMPARE(r.dataset.format, DataFormat::Tfrecord);
    QCOMPARE(r.dataset.numFilesTrain, 1024u);
    QCOMPARE(r.dataset.numSamplesPerFile, 1251u);
    QCOMPARE(r.dataset.recordLength, 114660.07);
    QCOMPARE(r.dataset.recordLengthResize, 150528.0);
    QCOMPARE(r.dataset.dataFolder, std::string("data/resnet50"));
    QCOMPARE(r.reader.batchSize, 400u);
    QCOMPARE(r.reader.readThreads, 8u);
    QCOMPARE(r.reader.computationThreads, 8u);
    QCOMPARE(r.reader.dataLoader, std::string("tensorflow"));
    QCOMPARE(r.train.computationTime.distribution, ComputeDistribution::Constant);
    QCOMPARE(r.train.computationTime.mean, 0.224);
    QCOMPARE(r.train.epochs, 5u);
    QCOMPARE(r.metric.au, 0.90);
    QCOMPARE(r.workflow.generateData, false);
    QCOMPARE(r.workflow.train, true);
    QCOMPARE(r.accelerator, std::string("h100"));

    auto u = loadWorkloadConfig((workloads() / "unet3d_a100.yaml").string()).config;
    QCOMPARE(u.dataset.format, DataFormat::Npz);
    QCOMPARE(u.dataset.recordLength, 146600628.0);
    QCOMPARE(u.dataset.recordLengthStdev, 68341808.0);
    QCOMPARE(u.dataset.recordLengthResize, 2097152.0);
    QCOMPARE(u.reader.readThreads, 32u);
    QCOMPARE(u.reader.fileShuffle, ShuffleMode::Seed);
    QCOMPARE(u.reader.sampleShuffle, ShuffleMode::Seed);
    QCOMPARE(u.workflow.checkpoint, true);
    QCOMPARE(u.checkpoint.folder, std::string("checkpoints/unet3d"));
    QCOMPARE(u.checkpoint.afterEpoch, 5u);
    QCOMPARE(u.checkpoint.epochsBetween, 2u);
    QCOMPARE(u.checkpoint.modelSize, 499153191.0);
    QCOMPARE(u.train.computationTime.mean, 0.636);

    auto uh = loadWorkloadConfig((workloads() / "unet3d_h100.yaml").string()).config;
    QCOMPARE(uh.reader.readThreads, 28u);
    QCOMPARE(uh.train.epochs, 1u);
    QCOMPARE(uh.train.computationTime.mean, 0.323);

    auto c = loadWorkloadConfig((workloads() / "cosmoflow_a100.yaml").string()).config;
    QCOMPARE(c.metric.au, 0.70);
    QCOMPARE(c.dataset.numFilesTrain, 524288u);
    QCOMPARE(c.dataset.recordLength, 2828486.0);
    QCOMPARE(c.dataset.recordLengthStdev, 71311.0);
    QCOMPARE(c.reader.shuffleSize, 2u);
    QCOMPARE(c.train.computationTime.mean, 0.00551);
    // Keys the file leaves out keep DLIO's defaults.
    QCOMPARE(c.train.seed, 123u);
    QCOMPARE(c.reader.prefetchSize, 2u);
    QCOMPARE(c.dataset.filePrefix, std::string("img"));
    QCOMPARE(c.checkpoint.afterEpoch, 1u);
    QCOMPARE(c.metric.excludeStartSteps, 1u);
}

void TestConfig::hydraRunConfigs() {
    const std::map<std::string, std::uint64_t> files = {{"unet3d_256_np1", 256}, {"unet3d_small_np2", 32}};
    for (const auto& [run, numFiles] : files) {
        const auto path = testsupport::fixtures() / "dlio-runs" / run / ".hydra" / "config.yaml";
        LoadedConfig l = loadWorkloadConfig(path.string());
        QVERIFY2(l.warnings.empty(), messages(l.warnings).c_str());
        const auto& c = l.config;
        QCOMPARE(c.model.name, std::string("unet3d_small"));
        QCOMPARE(c.model.type, std::string("cnn"));
        QCOMPARE(c.dataset.numFilesTrain, numFiles);
        QCOMPARE(c.dataset.recordLength, 10485760.0);
        QCOMPARE(c.dataset.recordLengthStdev, 3145728.0);
        QCOMPARE(c.dataset.recordLengthResize, 2097152.0);
        QCOMPARE(c.dataset.keepFiles, true);
        QCOMPARE(c.reader.batchSize, 4u);
        QCOMPARE(c.reader.readThreads, 2u);
        QCOMPARE(c.train.epochs, 3u);
        QCOMPARE(c.train.computationTime.mean, 0.05);
        QCOMPARE(c.metric.au, 0.9);
        QCOMPARE(c.workflow.checkpoint, false);
        // Its overrides.yaml says workload=peer_unet3d_small: no accelerator in that label.
        QCOMPARE(c.accelerator, std::string());
    }
}

// Every configs/config.yaml of the published MLPerf Storage v1.0 results loads cleanly, and the
// accelerator comes from the sibling overrides.yaml.
void TestConfig::mlperfResultConfigsLoad() {
    int loaded = 0;
    for (const auto& e : fs::recursive_directory_iterator(testsupport::fixtures() / "mlperf-storage-v1.0")) {
        if (e.path().filename() != "config.yaml") continue;
        const std::string text = testsupport::readText(e.path());
        if (!contains(text, "workload:") || contains(text, "defaults:")) {
            // DLIO's top-level Hydra config, not a workload: refused.
            QVERIFY(contains(loadError(e.path().string()), e.path().string()));
            continue;
        }
        LoadedConfig l;
        try {
            l = loadWorkloadConfig(e.path().string());
        } catch (const InputError& err) {
            QFAIL(err.what());
        }
        QVERIFY2(l.warnings.empty(), messages(l.warnings).c_str());
        const std::string ov = testsupport::readText(e.path().parent_path() / "overrides.yaml");
        std::smatch m;
        QVERIFY(std::regex_search(ov, m, std::regex("workload=([a-z0-9]+)_([a-z0-9]+)")));
        QCOMPARE(l.config.model.name, m[1].str());
        QCOMPARE(l.config.accelerator, m[2].str());
        ++loaded;
    }
    QVERIFY(loaded > 100);
}

void TestConfig::presetsMatchSpec_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("format");
    QTest::addColumn<double>("record");
    QTest::addColumn<double>("stdev");
    QTest::addColumn<qulonglong>("samplesPerFile");
    QTest::addColumn<qulonglong>("batch");
    QTest::addColumn<double>("compute");
    QTest::addColumn<qulonglong>("readThreads");
    QTest::addColumn<double>("au");
    QTest::addColumn<qulonglong>("files");
    // SPEC section 2's table.
    QTest::newRow("unet3d_a100") << "unet3d_a100" << "npz" << 146600628.0 << 68341808.0 << 1ull << 7ull << 0.636 << 4ull << 0.90 << 168ull;
    QTest::newRow("unet3d_h100") << "unet3d_h100" << "npz" << 146600628.0 << 68341808.0 << 1ull << 7ull << 0.323 << 4ull << 0.90 << 168ull;
    QTest::newRow("unet3d_b200") << "unet3d_b200" << "npz" << 146600628.0 << 68341808.0 << 1ull << 7ull << 0.162 << 4ull << 0.90 << 168ull;
    QTest::newRow("resnet50_a100") << "resnet50_a100" << "tfrecord" << 114660.07 << 0.0 << 1251ull << 400ull << 0.435 << 8ull << 0.90 << 1024ull;
    QTest::newRow("resnet50_h100") << "resnet50_h100" << "tfrecord" << 114660.07 << 0.0 << 1251ull << 400ull << 0.224 << 8ull << 0.90 << 1024ull;
    QTest::newRow("cosmoflow_a100") << "cosmoflow_a100" << "tfrecord" << 2828486.0 << 71311.0 << 1ull << 1ull << 0.00551 << 4ull << 0.70 << 524288ull;
    QTest::newRow("cosmoflow_h100") << "cosmoflow_h100" << "tfrecord" << 2828486.0 << 71311.0 << 1ull << 1ull << 0.00350 << 4ull << 0.70 << 524288ull;
}

void TestConfig::presetsMatchSpec() {
    QFETCH(QString, name);
    QFETCH(QString, format);
    QFETCH(double, record);
    QFETCH(double, stdev);
    QFETCH(qulonglong, samplesPerFile);
    QFETCH(qulonglong, batch);
    QFETCH(double, compute);
    QFETCH(qulonglong, readThreads);
    QFETCH(double, au);
    QFETCH(qulonglong, files);
    const auto names = presetNames();
    QVERIFY(std::find(names.begin(), names.end(), name.toStdString()) != names.end());
    LoadedConfig l = loadPreset(name.toStdString());
    QVERIFY2(l.warnings.empty(), messages(l.warnings).c_str());
    const auto& c = l.config;
    QCOMPARE(QString(toString(c.dataset.format)), format);
    QCOMPARE(c.dataset.recordLength, record);
    QCOMPARE(c.dataset.recordLengthStdev, stdev);
    QCOMPARE(c.dataset.numSamplesPerFile, std::uint64_t(samplesPerFile));
    QCOMPARE(c.reader.batchSize, std::uint64_t(batch));
    QCOMPARE(c.train.computationTime.distribution, ComputeDistribution::Constant);
    QCOMPARE(c.train.computationTime.mean, compute);
    QCOMPARE(c.reader.readThreads, std::uint64_t(readThreads));
    QCOMPARE(c.metric.au, au);
    QCOMPARE(c.dataset.numFilesTrain, std::uint64_t(files));
    QCOMPARE(c.train.epochs, 5u);
    QCOMPARE(c.model.name + "_" + c.accelerator, name.toStdString());
    // The preset file says what it is built from.
    const std::string text = testsupport::readText(fs::path(presetDirectory()) / (name.toStdString() + ".yaml"));
    QVERIFY(text.rfind("# ", 0) == 0);
    QVERIFY(contains(text, "record_length_bytes"));
}

void TestConfig::presetDirectoryFromEnvironment() {
    const char* old = std::getenv("TRAINIO_PRESET_DIR");
    const std::string saved = old ? old : "";
    QTemporaryDir dir;
    testsupport::writeText(fs::path(dir.path().toStdString()) / "tiny_h100.yaml", kMinimal);
    qputenv("TRAINIO_PRESET_DIR", dir.path().toUtf8());
    QCOMPARE(presetDirectory(), dir.path().toStdString());
    QCOMPARE(presetNames(), std::vector<std::string>{"tiny_h100"});
    QCOMPARE(loadPreset("tiny_h100").config.accelerator, std::string("h100"));
    std::string err;
    try {
        loadPreset("tiny_h10");
    } catch (const InputError& e) {
        err = e.what();
    }
    QVERIFY2(contains(err, "tiny_h10") && contains(err, "did you mean tiny_h100?"), err.c_str());
    if (old) qputenv("TRAINIO_PRESET_DIR", QByteArray::fromStdString(saved));
    else qunsetenv("TRAINIO_PRESET_DIR");
}

void TestConfig::configOrPreset() {
    // A file path wins; a preset name otherwise; neither is bad input naming both possibilities.
    auto f = loadConfigOrPreset((workloads() / "unet3d_a100.yaml").string());
    QCOMPARE(f.config.reader.readThreads, 32u);
    auto p = loadConfigOrPreset("unet3d_a100");
    QCOMPARE(p.config.reader.readThreads, 4u);
    std::string err;
    try {
        loadConfigOrPreset("no_such_workload");
    } catch (const InputError& e) {
        err = e.what();
    }
    QVERIFY2(contains(err, "no_such_workload") && contains(err, "unet3d_a100"), err.c_str());
}

void TestConfig::overrideTypes() {
    auto l = loadWorkloadConfigFromString(kMinimal, "mini.yaml",
                                          {"++workload.reader.read_threads=8", "++workload.metric.au=0.5",
                                           "++workload.workflow.generate_data=True", "++workload.dataset.format=tfrecord",
                                           "workload.reader.batch_size=3", "+workload.dataset.record_length=2.5e6",
                                           "++workload.dataset.data_folder=/mnt/x y"});
    const auto& c = l.config;
    QCOMPARE(c.reader.readThreads, 8u);
    QCOMPARE(c.metric.au, 0.5);
    QCOMPARE(c.workflow.generateData, true);
    QCOMPARE(c.dataset.format, DataFormat::Tfrecord);
    QCOMPARE(c.reader.batchSize, 3u);
    QCOMPARE(c.dataset.recordLength, 2.5e6);
    QCOMPARE(c.dataset.dataFolder, std::string("/mnt/x y"));
    QCOMPARE(c.overrides.size(), std::size_t(7));
    QCOMPARE(c.overrides[0], std::string("++workload.reader.read_threads=8"));
}

void TestConfig::overrideNestedAndDelete() {
    auto c = loadWorkloadConfigFromString(kMinimal, "mini.yaml",
                                          {"++workload.train.computation_time.stdev=0.002", "++workload.model.type=cnn",
                                           "++workload.evaluation.eval_time=0.1", "~workload.reader.batch_size",
                                           "++workload.model.model_size_bytes=1000"})
                 .config;
    // computation_time: 0.01 became {mean: 0.01, stdev: 0.002}; model: unet3d became {name, type}.
    QCOMPARE(c.train.computationTime.distribution, ComputeDistribution::Normal);
    QCOMPARE(c.train.computationTime.mean, 0.01);
    QCOMPARE(c.train.computationTime.stdev, 0.002);
    QCOMPARE(c.model.name, std::string("unet3d"));
    QCOMPARE(c.model.type, std::string("cnn"));
    QCOMPARE(c.evaluation.evalTime.mean, 0.1);
    QCOMPARE(c.reader.batchSize, 1u); // deleted: DLIO's default
    QCOMPARE(c.checkpoint.modelSize, 1000.0);
}

void TestConfig::overrideErrors() {
    std::string e = loadErrorFromString(kMinimal, "mini.yaml", {"++workload.reader"});
    QVERIFY2(contains(e, "mini.yaml") && contains(e, "++workload.reader") && contains(e, "expected ++workload."), e.c_str());

    e = loadErrorFromString(kMinimal, "mini.yaml", {"++workload.reader.read_thread=8"});
    QVERIFY2(contains(e, "reader.read_thread") && contains(e, "did you mean reader.read_threads?"), e.c_str());

    e = loadErrorFromString(kMinimal, "mini.yaml", {"++workload.nosuchsection.key=1"});
    QVERIFY2(contains(e, "nosuchsection.key: unknown key"), e.c_str());

    e = loadErrorFromString(kMinimal, "mini.yaml", {"++workload.reader.batch_size=abc"});
    QVERIFY2(contains(e, "mini.yaml (override): reader.batch_size = 'abc': expected a whole number 1 … 10000000"), e.c_str());

    e = loadErrorFromString(kMinimal, "mini.yaml", {"++workload.reader.batch_size=[1, 2"});
    QVERIFY2(contains(e, "reader.batch_size") && contains(e, "not valid YAML"), e.c_str());

    // Two bad overrides: both reported.
    e = loadErrorFromString(kMinimal, "mini.yaml", {"++workload.reader.batch_size=0", "++workload.metric.au=2"});
    QCOMPARE(lines(e).size(), std::size_t(2));
    QVERIFY(contains(e, "reader.batch_size = 0") && contains(e, "metric.au = 2"));

    // A Hydra workload selection must name this workload.
    e = loadErrorFromString(kMinimal, "mini.yaml", {"workload=resnet50_h100"});
    QVERIFY2(contains(e, "workload=resnet50_h100"), e.c_str());
}

// The published results were made by DLIO from the v1.0 workload plus overrides.yaml: applying the
// same overrides to TrainIO's preset gives the same dataset/reader settings, and overridesYaml()
// writes the overrides.yaml back byte for byte.
void TestConfig::overridesReproduceRealRuns() {
    int checked = 0;
    for (const auto& e : fs::recursive_directory_iterator(testsupport::fixtures() / "mlperf-storage-v1.0")) {
        if (e.path().filename() != "overrides.yaml") continue;
        const std::string text = testsupport::readText(e.path());
        auto ls = lines(text);
        if (ls.empty() || ls[0].rfind("- workload=", 0) != 0) continue;
        const std::string label = ls[0].substr(11);
        const auto names = presetNames();
        if (std::find(names.begin(), names.end(), label) == names.end()) continue;
        std::vector<std::string> ov;
        for (std::size_t i = 1; i < ls.size(); ++i)
            if (ls[i].rfind("- ", 0) == 0) ov.push_back(ls[i].substr(2));
        const auto fromPreset = loadPreset(label, ov).config;
        QCOMPARE(overridesYaml(fromPreset), text);

        const auto real = loadWorkloadConfig((e.path().parent_path() / "config.yaml").string()).config;
        QCOMPARE(fromPreset.dataset.dataFolder, real.dataset.dataFolder);
        QCOMPARE(fromPreset.dataset.numFilesTrain, real.dataset.numFilesTrain);
        QCOMPARE(fromPreset.dataset.numSubfoldersTrain, real.dataset.numSubfoldersTrain);
        QCOMPARE(fromPreset.dataset.recordLength, real.dataset.recordLength);
        QCOMPARE(fromPreset.dataset.numSamplesPerFile, real.dataset.numSamplesPerFile);
        QCOMPARE(fromPreset.reader.batchSize, real.reader.batchSize);
        QCOMPARE(fromPreset.reader.prefetchSize, real.reader.prefetchSize);
        QCOMPARE(fromPreset.reader.transferSize, real.reader.transferSize);
        QCOMPARE(fromPreset.train.computationTime.mean, real.train.computationTime.mean);
        QCOMPARE(fromPreset.metric.au, real.metric.au);
        QCOMPARE(fromPreset.workflow.generateData, real.workflow.generateData);
        if (contains(text, "read_threads=")) QCOMPARE(fromPreset.reader.readThreads, real.reader.readThreads);
        ++checked;
    }
    QVERIFY(checked > 100);
}

void TestConfig::jsonEquivalent() {
    const auto y = loadWorkloadConfig((workloads() / "resnet50_h100.yaml").string());
    const auto j = loadWorkloadConfig((testsupport::fixtures() / "configs" / "resnet50_h100.json").string());
    QVERIFY(j.warnings.empty());
    QCOMPARE(toJson(j.config).dump(), toJson(y.config).dump());
    QCOMPARE(j.config.dataset.recordLength, 114660.07);

    // JSON by content, under any name; and JSON errors name the file and the place.
    const auto k = loadWorkloadConfigFromString(R"({"model": "m", "dataset": {"format": "npy", "num_files_train": 3}})", "inline");
    QCOMPARE(k.config.dataset.format, DataFormat::Npy);
    QCOMPARE(k.config.dataset.numFilesTrain, 3u);
    const std::string e = loadErrorFromString("{\"model\": \"m\",\n \"dataset\": {\"format\": }}", "broken.json");
    QVERIFY2(contains(e, "broken.json: JSON syntax error") && contains(e, "line 2"), e.c_str());
}

void TestConfig::unknownKeyWarnings() {
    std::string text = kMinimal;
    text += "profiling:\n  profiler: none\n";
    text.replace(text.find("num_files_train"), 15, "num_file_train");
    text.replace(text.find("reader:\n"), 8, "reader:\n  epochs: 3\n  dont_use_mmap: True\n");
    const auto l = loadWorkloadConfigFromString(text, "w.yaml");
    QCOMPARE(l.warnings.size(), std::size_t(2));
    const std::string all = messages(l.warnings);
    QVERIFY2(contains(all, "w.yaml:" + std::to_string(lineOf(text, "num_file_train")) +
                               ": dataset.num_file_train = 16: unknown key, ignored (did you mean dataset.num_files_train?)"),
             all.c_str());
    QVERIFY2(contains(all, "reader.epochs = 3: unknown key, ignored (did you mean train.epochs?)"), all.c_str());
    QCOMPARE(l.warnings[0].key + l.warnings[1].key, std::string("dataset.num_file_trainreader.epochs"));
    // The misspelt key is not used: DLIO's default stays.
    QCOMPARE(l.config.dataset.numFilesTrain, 8u);
}

void TestConfig::computationTimeForms() {
    auto withTime = [](const std::string& yaml) {
        std::string t = kMinimal;
        t.replace(t.find("  computation_time: 0.01\n"), 25, yaml);
        return t;
    };
    auto c = loadWorkloadConfigFromString(withTime("  computation_time:\n    mean: 0.2\n    stdev: 0.05\n"), "n.yaml").config;
    QCOMPARE(c.train.computationTime.distribution, ComputeDistribution::Normal);
    QCOMPARE(c.train.computationTime.stdev, 0.05);
    c = loadWorkloadConfigFromString(withTime("  computation_time:\n    mean: 0.2\n"), "m.yaml").config;
    QCOMPARE(c.train.computationTime.distribution, ComputeDistribution::Constant);
    QCOMPARE(c.train.computationTime.mean, 0.2);
    c = loadWorkloadConfigFromString(withTime("  computation_time:\n    type: uniform\n    min: 0.1\n    max: 0.3\n"), "u.yaml").config;
    QCOMPARE(c.train.computationTime.distribution, ComputeDistribution::Uniform);
    QCOMPARE(c.train.computationTime.expectedSeconds(), 0.2);
    c = loadWorkloadConfigFromString(withTime("  computation_time:\n    type: gamma\n    shape: 2\n    scale: 0.1\n"), "g.yaml").config;
    QCOMPARE(c.train.computationTime.distribution, ComputeDistribution::Gamma);
    QCOMPARE(c.train.computationTime.shape, 2.0);
    c = loadWorkloadConfigFromString(withTime("  computation_time:\n    type: exponential\n    scale: 0.4\n"), "e.yaml").config;
    QCOMPARE(c.train.computationTime.distribution, ComputeDistribution::Exponential);
    QCOMPARE(c.train.computationTime.scale, 0.4);
    // DLIO's separate computation_time_stdev key.
    c = loadWorkloadConfigFromString(withTime("  computation_time: 0.3\n  computation_time_stdev: 0.01\n"), "s.yaml").config;
    QCOMPARE(c.train.computationTime.distribution, ComputeDistribution::Normal);
    QCOMPARE(c.train.computationTime.stdev, 0.01);
    // min/max without type: inferred, with a warning (DLIO would not sleep at all).
    auto l = loadWorkloadConfigFromString(withTime("  computation_time:\n    min: 0.1\n    max: 0.3\n"), "i.yaml");
    QCOMPARE(l.config.train.computationTime.distribution, ComputeDistribution::Uniform);
    QCOMPARE(l.warnings.size(), std::size_t(1));
    QVERIFY(contains(l.warnings[0].message, "type: uniform"));
    // A type without its parameters, and DLIO's poisson which TrainIO does not emulate.
    std::string e = loadErrorFromString(withTime("  computation_time:\n    type: normal\n    mean: 0.1\n"), "x.yaml");
    QVERIFY2(contains(e, "expected stdev for type: normal"), e.c_str());
    e = loadErrorFromString(withTime("  computation_time:\n    type: poisson\n    lam: 1\n"), "p.yaml");
    QVERIFY2(contains(e, "train.computation_time.type = 'poisson'") && contains(e, "poisson"), e.c_str());
}

void TestConfig::shuffleAndBooleanSpellings() {
    std::string t = kMinimal;
    t += "  file_shuffle: off\n  sample_shuffle: random\n  odirect: True\n";
    t.replace(t.find("train:\n  computation_time: 0.01\n"), 32, "");
    t += "train:\n  computation_time: 0.01\n  seed_change_epoch: False\ndataset_extra: 1\n";
    auto l = loadWorkloadConfigFromString(t, "b.yaml");
    QCOMPARE(l.config.reader.fileShuffle, ShuffleMode::Off);
    QCOMPARE(l.config.reader.sampleShuffle, ShuffleMode::Random);
    QCOMPARE(l.config.reader.odirect, true);
    QCOMPARE(l.config.train.seedChangeEpoch, false);
    // A YAML 1.1 loader turns "off" into False, which also means off; True is no shuffle mode.
    std::string f = kMinimal;
    f += "  file_shuffle: False\n";
    f.replace(f.find("train:\n  computation_time: 0.01\n"), 32, "");
    QCOMPARE(loadWorkloadConfigFromString(f, "f.yaml").config.reader.fileShuffle, ShuffleMode::Off);
    f.replace(f.find("False"), 5, "True");
    QVERIFY(contains(loadErrorFromString(f, "t.yaml"), "reader.file_shuffle = True: expected off, seed or random"));
    // Whole numbers written as floats.
    std::string w = kMinimal;
    w.replace(w.find("num_files_train: 16"), 19, "num_files_train: 1.024e3");
    QCOMPARE(loadWorkloadConfigFromString(w, "w.yaml").config.dataset.numFilesTrain, 1024u);
}

void TestConfig::accelerator() {
    QCOMPARE(loadWorkloadConfigFromString(kMinimal, "x/unet3d_b200.yaml").config.accelerator, std::string("b200"));
    QCOMPARE(loadWorkloadConfigFromString(kMinimal, "mine.yaml").config.accelerator, std::string());
    QCOMPARE(loadWorkloadConfigFromString(std::string(kMinimal) + "accelerator: H100\n", "mine.yaml").config.accelerator,
             std::string("h100"));
    QCOMPARE(loadWorkloadConfigFromString(kMinimal, "unet3d_a100.yaml", {"++workload.accelerator=b200"}).config.accelerator,
             std::string("b200"));
    QCOMPARE(loadWorkloadConfigFromString(kMinimal, "mine.yaml", {"workload=unet3d_h100"}).config.accelerator,
             std::string("h100"));
}

void TestConfig::roundTrip() {
    // Every real workload file: presets, MLPerf's v1.0 workloads, DLIO's Hydra configs and the
    // published results' configs/config.yaml. Each is parsed here with yaml-cpp directly, and each
    // of its keys must be in what toYaml() writes, with the same value.
    std::vector<fs::path> inputs;
    for (const auto& e : fs::directory_iterator(TRAINIO_PRESET_DIR)) inputs.push_back(e.path());
    for (const auto& e : fs::directory_iterator(workloads())) inputs.push_back(e.path());
    for (const char* run : {"unet3d_256_np1", "unet3d_small_np2"})
        inputs.push_back(testsupport::fixtures() / "dlio-runs" / run / ".hydra" / "config.yaml");
    for (const auto& e : fs::recursive_directory_iterator(testsupport::fixtures() / "mlperf-storage-v1.0"))
        if (e.path().filename() == "config.yaml" && !contains(testsupport::readText(e.path()), "defaults:"))
            inputs.push_back(e.path());
    std::sort(inputs.begin(), inputs.end());
    QVERIFY(inputs.size() > 100);
    int keysChecked = 0;
    for (const auto& path : inputs) {
        const LoadedConfig loaded = loadWorkloadConfig(path.string());
        const std::string yaml = toYaml(loaded.config);
        QVERIFY(yaml.rfind("workload:\n", 0) == 0);
        const auto written = settingsOf(YAML::Load(yaml));
        QVERIFY2(!written.empty(), path.c_str());
        for (const auto& [key, value] : settingsOf(YAML::LoadFile(path.string()))) {
            // Keys DLIO knows and TrainIO does not use are dropped by design, unknown ones with a warning.
            if (unusedDlioKey(key) || contains(messages(loaded.warnings), key)) continue;
            const auto it = written.find(key);
            QVERIFY2(it != written.end(), qPrintable(QString::fromStdString(path.string() + ": " + key + " = " + value +
                                                                            " is missing from the written config:\n" + yaml)));
            QVERIFY2(sameSetting(value, it->second),
                     qPrintable(QString::fromStdString(path.string() + ": " + key + " = " + value + " was written as " +
                                                       it->second)));
            ++keysChecked;
        }
        // What was written reads back without warnings to the same settings.
        const auto back = loadWorkloadConfigFromString(yaml, "roundtrip.yaml");
        QVERIFY2(back.warnings.empty(), messages(back.warnings).c_str());
        QCOMPARE(toYaml(back.config), yaml);
    }
    QVERIFY(keysChecked > 1000);

    // Every distribution and the non-default switches survive too (values given here as overrides).
    const auto custom = loadWorkloadConfigFromString(kMinimal, "r.yaml",
                                                     {"++workload.train.computation_time={type: gamma, shape: 2, scale: 0.25}",
                                                      "++workload.evaluation.eval_time={type: uniform, min: 0.1, max: 0.2}",
                                                      "++workload.train.total_training_steps=77",
                                                      "++workload.checkpoint.steps_between_checkpoints=9",
                                                      "++workload.dataset.file_prefix=true", "++workload.dataset.data_folder=123",
                                                      "++workload.reader.odirect=true", "++workload.output.metric.exclude_end_steps=2"})
                            .config;
    const auto& last = loadWorkloadConfigFromString(toYaml(custom), "rt.yaml").config;
    QCOMPARE(last.train.computationTime.distribution, ComputeDistribution::Gamma);
    QCOMPARE(last.train.computationTime.scale, 0.25);
    QCOMPARE(last.evaluation.evalTime.max, 0.2);
    QCOMPARE(last.train.totalTrainingSteps, 77u);
    QCOMPARE(last.checkpoint.stepsBetween, 9u);
    QCOMPARE(last.dataset.filePrefix, std::string("true"));
    QCOMPARE(last.dataset.dataFolder, std::string("123"));
    QCOMPARE(last.metric.excludeEndSteps, 2u);
    const auto j = toJson(last);
    QCOMPARE(j["workload"]["dataset"]["record_length_bytes"].get<double>(), 1048576.0);
    QCOMPARE(j["workload"]["model"]["name"].get<std::string>(), std::string("unet3d"));
}

void TestConfig::overridesYamlContent() {
    auto c = loadPreset("unet3d_a100", {"++workload.reader.read_threads=8", "workload.dataset.num_files_train=24500",
                                        "+workload.dataset.data_folder=/mnt/u"})
                 .config;
    QCOMPARE(overridesYaml(c), std::string("- workload=unet3d_a100\n"
                                           "- ++workload.reader.read_threads=8\n"
                                           "- ++workload.dataset.num_files_train=24500\n"
                                           "- ++workload.dataset.data_folder=/mnt/u\n"));
    c.accelerator.clear();
    c.overrides.clear();
    // No accelerator named anywhere: the documented default, so that report.py's split at '_' works.
    QCOMPARE(overridesYaml(c), std::string("- workload=unet3d_generic\n"));
    // A model name with '_' of its own: written with '-', the accelerator after the only '_'.
    c.model.name = "tiny_tf_v2";
    c.accelerator = "b200";
    QCOMPARE(overridesYaml(c), std::string("- workload=tiny-tf-v2_b200\n"));
}

void TestConfig::sizingAdviceNumbers() {
    // unet3d, 8 accelerators, 128 GiB: 5 × 137438953472 ÷ 146600628 = 4687.6 → 4688 files;
    // 500 × 8 × 7 ÷ 1 = 28000 files; the 168-file dataset (24628905504 bytes) fits in RAM.
    auto u = sizingAdvice(loadPreset("unet3d_a100").config, 8, 137438953472.0);
    QCOMPARE(u.filesForRam, 4688u);
    QCOMPARE(u.filesForSteps, 28000u);
    QCOMPARE(u.filesNeeded, 28000u);
    QCOMPARE(u.datasetBytes, 24628905504.0);
    QCOMPARE(u.fitsInRam, true);
    QVERIFY(contains(u.text, "28000") && contains(u.text, "fits in RAM"));
    // resnet50, 2 accelerators, 64 GB: a file is 114660.07 × 1251 = 143439747.57 bytes;
    // 5 × 64e9 ÷ that = 2230.9 → 2231; 500 × 2 × 400 ÷ 1251 = 319.7 → 320; 1024 files do not fit.
    auto r = sizingAdvice(loadPreset("resnet50_h100").config, 2, 64e9);
    QCOMPARE(r.filesForRam, 2231u);
    QCOMPARE(r.filesForSteps, 320u);
    QCOMPARE(r.filesNeeded, 2231u);
    QCOMPARE(r.fitsInRam, false);
    QVERIFY(qFuzzyCompare(r.datasetBytes, 1024 * 114660.07 * 1251));
    QVERIFY(!contains(r.text, "fits in RAM"));
    // With trainio.cache fadvise or drop the page cache is evicted before each epoch: the advice says what
    // that means instead of "the page cache can serve it" (issue 21).
    WorkloadConfig evicting = loadPreset("unet3d_a100").config;
    evicting.trainio.cache = "fadvise";
    const std::string fadvise = sizingAdvice(evicting, 8, 137438953472.0).text;
    QVERIFY2(!contains(fadvise, "can serve it") && contains(fadvise, "POSIX_FADV_DONTNEED") &&
                 contains(fadvise, "reads them from the storage again"), fadvise.c_str());
    evicting.trainio.cache = "drop";
    const std::string drop = sizingAdvice(evicting, 8, 137438953472.0).text;
    QVERIFY2(!contains(drop, "can serve it") && contains(drop, "drop_caches"), drop.c_str());
    QVERIFY(contains(u.text, "can serve it")); // keep (the default)
    // An emulated device (a storage profile, or a cap of its own) shapes every read whatever the page cache
    // holds: under keep too, the advice says so instead of "can serve it" (issue 32 item 11).
    for (const char* which : {"profile", "bandwidth"}) {
        WorkloadConfig emulated = loadPreset("unet3d_a100").config;
        emulated.trainio.cache = "keep";
        if (std::string(which) == "profile") emulated.trainio.storage.profile = "nvme";
        else emulated.trainio.storage.bandwidthMiBs = 500;
        const std::string text = sizingAdvice(emulated, 8, 137438953472.0).text;
        QVERIFY2(!contains(text, "can serve it") && contains(text, "emulated device"), text.c_str());
        QVERIFY(!pageCacheBeforeRun(emulated).warning);
    }
}

void TestConfig::badCorpus_data() {
    QTest::addColumn<QString>("file");
    int n = 0;
    for (const auto& e : fs::directory_iterator(testsupport::fixtures() / "configs" / "bad")) {
        if (e.path().extension() != ".yaml") continue;
        QTest::newRow(e.path().filename().string().c_str()) << QString::fromStdString(e.path().string());
        ++n;
    }
    QVERIFY(n >= 15);
}

void TestConfig::badCorpus() {
    QFETCH(QString, file);
    const std::string path = file.toStdString();
    const std::string first = lines(testsupport::readText(path)).at(0);
    QVERIFY2(first.rfind("# expect: ", 0) == 0, first.c_str());
    const std::string expect = first.substr(10);
    const std::string err = loadError(path);
    QVERIFY2(!err.empty(), ("loaded without error: " + path).c_str());
    QVERIFY2(contains(err, expect), (err + "\n  does not mention: " + expect).c_str());
    for (const auto& l : lines(err)) QVERIFY2(l.rfind(path, 0) == 0, l.c_str()); // every line starts with the file
}

void TestConfig::errorsAreCollected() {
    std::string t = kMinimal;
    t.replace(t.find("batch_size: 2"), 13, "batch_size: 0");
    t.replace(t.find("format: npz"), 11, "format: csv");
    t += "metric:\n  au: 1.5\n";
    const std::string e = loadErrorFromString(t, "many.yaml");
    QCOMPARE(lines(e).size(), std::size_t(3));
    QVERIFY2(contains(e, "many.yaml:" + std::to_string(lineOf(t, "batch_size")) + ": reader.batch_size = 0: expected a whole number 1 … 10000000"), e.c_str());
    QVERIFY2(contains(e, "dataset.format = 'csv': expected one of npz, npy, tfrecord"), e.c_str());
    QVERIFY2(contains(e, "metric.au = 1.5: expected a fraction > 0 and <= 1"), e.c_str());
    // The syntax error names line and column.
    const std::string s = loadErrorFromString("dataset:\n  format: [npz\n", "syn.yaml");
    QVERIFY2(std::regex_search(s, std::regex("^syn\\.yaml: YAML syntax error at line [0-9]+, column [0-9]+")), s.c_str());
}

void TestConfig::unreadableFile() {
    QTemporaryDir dir;
    const std::string missing = dir.path().toStdString() + "/nope.yaml";
    std::string e = loadError(missing);
    QVERIFY2(contains(e, missing) && contains(e, "No such file or directory"), e.c_str());
    e = loadError(dir.path().toStdString());
    QVERIFY2(contains(e, dir.path().toStdString()) && contains(e, "Is a directory"), e.c_str());
}

void TestConfig::validateConfigOnStruct() {
    WorkloadConfig c = dlioDefaultConfig();
    QVERIFY(validateConfig(c).empty());
    c.reader.readThreads = 1025;
    c.train.computationTime.distribution = ComputeDistribution::Normal;
    c.train.computationTime.stdev = -1;
    c.sourcePath = "built.yaml";
    const auto d = validateConfig(c);
    QCOMPARE(d.size(), std::size_t(2));
    QCOMPARE(d[0].key, std::string("reader.read_threads"));
    QCOMPARE(d[0].message, std::string("built.yaml: reader.read_threads = 1025: expected a whole number 0 … 1024"));
    QCOMPARE(d[1].key, std::string("train.computation_time.stdev"));

    // Very long names are checked without recursion (std::regex overflowed the stack at ~20,000
    // characters: fuzz_config/crash-long-accelerator-name).
    WorkloadConfig l = dlioDefaultConfig();
    l.accelerator = std::string(100000, 'a');
    l.model.name = std::string(100000, 'm');
    QVERIFY(validateConfig(l).empty());
    l.accelerator += "_x";
    l.model.name += " x";
    const auto e = validateConfig(l);
    QCOMPARE(e.size(), std::size_t(2));
    QCOMPARE(e[0].key, std::string("accelerator"));
    QCOMPARE(e[1].key, std::string("model.name"));
    l.accelerator = "-a100";
    l.model.name = "_unet";
    QCOMPARE(validateConfig(l).size(), std::size_t(2));
}

QTEST_APPLESS_MAIN(TestConfig)
#include "tst_config.moc"
