// Destructive and trusting actions stay inside their tree (docs/reliability.md): `clean` and dataset
// (re)generation never delete or write outside a TrainIO-marked folder nor through a symlink out of
// it; result import never follows a symlink out of the imported tree and bounds what it reads (file
// size, JSON nesting, folder depth); `metrics DIR` refuses oversized and over-nested files.
#include "testsupport.h"

#include "aggregate/results_import.h"
#include "config/config_loader.h"
#include "dataset/dataset_generator.h"
#include "session/benchmark_runner.h"
#include "results/invocation_files.h"
#include "store/run_files.h"
#include "util/errors.h"

#include <nlohmann/json.hpp>

#include <set>
#include <unistd.h>

using namespace trainio;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

WorkloadConfig tiny(const fs::path& data, const std::string& format = "npz") {
    const std::string yaml = "model: tiny\nframework: pytorch\nworkflow:\n  generate_data: False\n  train: True\n"
                             "dataset:\n  data_folder: " + data.string() + "\n  format: " + format +
                             "\n  num_files_train: 6\n  num_samples_per_file: 1\n  record_length_bytes: 4096\n"
                             "reader:\n  batch_size: 2\n  read_threads: 1\ntrain:\n  epochs: 1\n  computation_time: 0.0\n";
    return loadWorkloadConfigFromString(yaml, "tiny.yaml").config;
}

GenerationResult generate(const WorkloadConfig& cfg) {
    GenerateOptions o;
    o.threads = 2;
    return generateDataset(cfg, o);
}

std::set<std::string> filesUnder(const fs::path& dir) {
    std::set<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (!e.is_directory()) out.insert(fs::relative(e.path(), dir).string());
    return out;
}

template <class E, class F>
std::string errorOf(F&& f) {
    try {
        f();
    } catch (const E& e) {
        return e.what();
    }
    return "<no exception>";
}

const std::string kPrecious = "user data, not TrainIO's";

// The fixtures are read-only; their copies must be editable (also when the tests do not run as root).
void copyWritable(const fs::path& from, const fs::path& to) {
    fs::copy(from, to, fs::copy_options::recursive);
    fs::permissions(to, fs::perms::owner_all, fs::perm_options::add);
    for (const auto& e : fs::recursive_directory_iterator(to))
        fs::permissions(e.path(), e.is_directory() ? fs::perms::owner_all : fs::perms::owner_read | fs::perms::owner_write,
                        fs::perm_options::add);
}

} // namespace

class TestSafety : public QObject {
    Q_OBJECT
private slots:
    // ---- clean and regeneration --------------------------------------------------------------
    void cleanNeverLeavesAMarkedTreeThroughFileLinks() {
        QTemporaryDir tmp;
        const fs::path base = tmp.path().toStdString();
        const WorkloadConfig cfg = tiny(base / "data");
        generate(cfg);
        // A data file and a stale-temporary name that are links to user files outside.
        testsupport::writeText(base / "outside" / "a.npz", kPrecious);
        testsupport::writeText(base / "outside" / "b", kPrecious);
        const fs::path data2 = base / "data" / "train" / "img_2_of_6.npz";
        fs::remove(data2);
        fs::create_symlink(base / "outside" / "a.npz", data2);
        fs::create_symlink(base / "outside" / "b", base / "data" / "train" / ".img_3_of_6.npz.tmp-77");
        const CleanResult r = cleanDataset(cfg);
        QCOMPARE(r.filesRemoved, std::uint64_t(5 + 1)); // the 5 real data files + the marker
        QCOMPARE(testsupport::readText(base / "outside" / "a.npz"), kPrecious);
        QCOMPARE(testsupport::readText(base / "outside" / "b"), kPrecious);
        QVERIFY(fs::is_symlink(data2)); // left alone, and so its folder stays
    }
    void cleanRefusesUnmarkedFoldersOnTheCommandLine() {
        QTemporaryDir tmp;
        const fs::path base = tmp.path().toStdString();
        // The user's folder holds files with exactly our names but no marker.
        testsupport::writeText(base / "mine" / "train" / "img_0_of_6.npz", kPrecious);
        const std::string yaml = "model: tiny\ndataset:\n  data_folder: " + (base / "mine").string() +
                                 "\n  format: npz\n  num_files_train: 6\n  record_length_bytes: 4096\n";
        testsupport::writeText(base / "c.yaml", yaml);
        const auto r = testsupport::runCli({QStringLiteral("clean"), QStringLiteral("--config"),
                                            QString::fromStdString((base / "c.yaml").string())});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("marker")), qPrintable(r.err));
        QCOMPARE(testsupport::readText(base / "mine" / "train" / "img_0_of_6.npz"), kPrecious);
    }
    void regenerationRefusesALinkedFolderInsideTheTree() {
        QTemporaryDir tmp;
        const fs::path base = tmp.path().toStdString();
        const WorkloadConfig cfg = tiny(base / "data", "tfrecord");
        generate(cfg);
        // index/train replaced by a link to a user folder holding a file named like a stale temporary.
        fs::create_directories(base / "outside");
        const std::string stale = ".img_1_of_6.tfrecord.idx.tmp-99";
        testsupport::writeText(base / "outside" / stale, kPrecious);
        fs::remove_all(base / "data" / "index" / "train");
        fs::create_directory_symlink(base / "outside", base / "data" / "index" / "train");
        const std::string e = errorOf<InputError>([&] { generate(cfg); });
        QVERIFY2(e.find((base / "data" / "index" / "train").string()) == 0 && e.find("symbolic link") != std::string::npos,
                 e.c_str());
        QCOMPARE(filesUnder(base / "outside"), std::set<std::string>{stale});
        QCOMPARE(testsupport::readText(base / "outside" / stale), kPrecious);
    }
    void generationNeverWritesThroughAPlantedTemporary() {
        QTemporaryDir tmp;
        const fs::path base = tmp.path().toStdString();
        const WorkloadConfig cfg = tiny(base / "data");
        generate(cfg);
        fs::remove(base / "data" / "train" / "img_4_of_6.npz");
        // Someone links the exact temporary name this process will use to a user file.
        testsupport::writeText(base / "outside" / "victim", kPrecious);
        const fs::path planted = base / "data" / "train" / (".img_4_of_6.npz.tmp-" + std::to_string(::getpid()));
        fs::create_symlink(base / "outside" / "victim", planted);
        const std::string e = errorOf<RunError>([&] { generate(cfg); });
        QVERIFY2(e.find(planted.string()) != std::string::npos, e.c_str());
        QCOMPARE(testsupport::readText(base / "outside" / "victim"), kPrecious);
        // With the link gone, generation resumes.
        fs::remove(planted);
        const GenerationResult r = generate(cfg);
        QCOMPARE(r.filesWritten, std::uint64_t(1));
        QCOMPARE(r.filesSkipped, std::uint64_t(5));
    }

    // ---- bad input that used to lose results -------------------------------------------------------
    void invalidUtf8InTheConfigDoesNotLoseTheResults() {
        // Regression (fuzz_config, corpus crash-invalid-utf8-model-name): the loader accepts a model name
        // that is not UTF-8; the result writer's JSON dump threw on it after the whole run, so the run's
        // summary was never written.
        QTemporaryDir tmp;
        const fs::path base = tmp.path().toStdString();
        // Since the first-hour fixes the loader refuses such a name up front (it must become
        // workload=<model>_<accelerator>), naming the key; the writer must still survive one set by code.
        const std::string yaml = "model:\n  name: co\x8d\x92low\nframework: pytorch\ndataset:\n  data_folder: " +
                                 (base / "data").string() +
                                 "\n  format: npz\n  num_files_train: 4\n  num_samples_per_file: 1\n"
                                 "  record_length_bytes: 4096\nreader:\n  batch_size: 1\n  read_threads: 1\n"
                                 "train:\n  epochs: 1\n  computation_time: 0.0\n";
        try {
            loadWorkloadConfigFromString(yaml, "bad-utf8.yaml");
            QFAIL("a model name that is not UTF-8 was accepted");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("model.name") != std::string::npos, e.what());
        }
        std::string good = yaml;
        good.replace(good.find("co\x8d\x92low"), 7, "cosmoflow");
        WorkloadConfig cfg = loadWorkloadConfigFromString(good, "good.yaml").config;
        cfg.model.name = "co\x8d\x92low";
        generate(cfg);
        const RunOutcome out = runInvocation(cfg, base / "run", InvocationOptions{});
        QCOMPARE(out.status, RunStatus::Complete);
        const json meta = json::parse(testsupport::readText(base / "run" / "trainio_run.json"));
        QCOMPARE(meta["status"].get<std::string>(), std::string("complete"));
        QVERIFY(meta["workload"].get<std::string>().rfind("co", 0) == 0); // the bad bytes replaced, not fatal
        QVERIFY(json::parse(testsupport::readText(base / "run" / "summary.json")).contains("metric"));
    }

    // ---- import ----------------------------------------------------------------------------------
    void importDoesNotReadThroughALinkedConfigFolder() {
        QTemporaryDir tmp;
        const fs::path base = tmp.path().toStdString();
        const fs::path run = base / "tree" / "run1";
        json s = json::parse(testsupport::readText(testsupport::fixtures() / "dlio-runs" / "unet3d_256_np1" / "summary.json"));
        testsupport::writeText(run / "summary.json", s.dump(4));
        testsupport::writeText(base / "outside" / "configs" / "overrides.yaml", "- workload=secret_h100\n");
        testsupport::writeText(base / "outside" / "configs" / "config.yaml", "workload:\n  model:\n    name: secret\n");
        fs::create_directory_symlink(base / "outside" / "configs", run / "configs");
        const aggregate::ImportResult r = aggregate::importResults({base / "tree"});
        QCOMPARE(r.runs.size(), std::size_t(1));
        QVERIFY2(r.runs[0].model != "secret", r.runs[0].model.c_str());
        bool noted = false;
        for (const auto& n : r.runs[0].notes) noted = noted || n.find("outside the imported tree") != std::string::npos;
        QVERIFY(noted);
    }
    void importBoundsFolderDepth() {
        QTemporaryDir tmp;
        const fs::path base = tmp.path().toStdString();
        const std::string summary = testsupport::readText(testsupport::fixtures() / "dlio-runs" / "unet3d_256_np1" / "summary.json");
        fs::path deep = base / "tree";
        for (int i = 0; i < 40; ++i) deep /= "d";
        testsupport::writeText(deep / "run1" / "summary.json", summary);
        testsupport::writeText(base / "tree" / "run1" / "summary.json", summary);
        const aggregate::ImportResult r = aggregate::importResults({base / "tree"});
        QCOMPARE(r.runs.size(), std::size_t(1));
        bool noted = false;
        for (const auto& sk : r.skipped) noted = noted || sk.reason.find("deeper than 32") != std::string::npos;
        QVERIFY(noted);
        aggregate::ImportOptions o;
        o.maxFolderDepth = 64;
        QCOMPARE(aggregate::importResults({base / "tree"}, o).runs.size(), std::size_t(2));
    }
    void metricsReaderBoundsWhatItReads() {
        QTemporaryDir tmp;
        const fs::path base = tmp.path().toStdString();
        const fs::path src = testsupport::fixtures() / "dlio-runs" / "unet3d_256_np1";
        copyWritable(src, base / "ok");
        QVERIFY(!store::readInvocationFolder(base / "ok").ranks.empty());
        // Deep nesting: refused with a message, not a stack overflow.
        copyWritable(src, base / "deep");
        testsupport::writeText(base / "deep" / "0_output.json", std::string(100000, '[') + std::string(100000, ']'));
        std::string e = errorOf<InputError>([&] { store::readInvocationFolder(base / "deep"); });
        QVERIFY2(e.find("0_output.json") != std::string::npos && e.find("nested deeper") != std::string::npos, e.c_str());
        // Oversized (sparse, costs no disk): refused unread.
        copyWritable(src, base / "big");
        fs::resize_file(base / "big" / "0_per_epoch_stats.json", (256ull << 20) + 1);
        e = errorOf<InputError>([&] { store::readInvocationFolder(base / "big"); });
        QVERIFY2(e.find("0_per_epoch_stats.json") != std::string::npos && e.find("MiB read limit") != std::string::npos,
                 e.c_str());
        // Regression (fuzz_results, corpus crash-epoch-key-overflow / crash-block-key-not-a-number):
        // keys that are not small whole numbers were std::stoull exceptions, not InputError.
        for (const auto& [from, to] : {std::pair<std::string, std::string>{"\"1\": {", "\"99999999999999999999999\": {"},
                                       std::pair<std::string, std::string>{"\"block1\"", "\"blockx\""}}) {
            const fs::path d = base / ("keys" + std::to_string(from.size()));
            copyWritable(src, d);
            std::string text = testsupport::readText(d / "0_output.json");
            for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
                text.replace(at, from.size(), to);
            testsupport::writeText(d / "0_output.json", text);
            e = errorOf<InputError>([&] { store::readInvocationFolder(d); });
            QVERIFY2(e.find("0_output.json") != std::string::npos && e.find("expected a whole number") != std::string::npos,
                     e.c_str());
        }
        // A step record linked to a file outside the folder is not read.
        copyWritable(src, base / "linked");
        fs::rename(base / "linked" / "0_output.json", base / "elsewhere.json");
        fs::create_symlink(base / "elsewhere.json", base / "linked" / "0_output.json");
        e = errorOf<InputError>([&] { store::readInvocationFolder(base / "linked"); });
        QVERIFY2(e.find("symbolic link") != std::string::npos, e.c_str());
    }
};

QTEST_GUILESS_MAIN(TestSafety)
#include "tst_safety.moc"
