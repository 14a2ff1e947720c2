// core/store, the run folder's one home (docs/formats.md, "The run folder"): every file the store reads is
// refused past the one size bound and under the one link rule (a link leaving the tree, a link loop) with
// an error naming the file; what the store writes reads back equal; an atomic write that fails (the write,
// the rename) leaves no partial file; the systems file is never read above the imported root; config.yaml
// is read by the config loader.
#include "testsupport.h"

#include "aggregate/results_import.h"
#include "config/config_loader.h"
#include "io/fault_injection.h"
#include "store/benchmark_manifest.h"
#include "results/journal.h"
#include "store/labels.h"
#include "store/run_files.h"
#include "store/run_folder.h"
#include "store/collocation_file.h"
#include "store/sweep_file.h"
#include "util/errors.h"

#include <QTemporaryDir>
#include <QtTest>

#include <functional>

namespace fs = std::filesystem;
using namespace trainio;

namespace {

fs::path tempRoot(const QTemporaryDir& tmp) { return fs::path(tmp.path().toStdString()); }

std::string joined(const std::vector<std::string>& notes) {
    std::string all;
    for (const auto& n : notes) all += n + "\n";
    return all;
}

// What a reader says about the folder `dir` (the imported tree is `root`): "" when it read the file.
using Reader = std::function<std::string(const fs::path& dir, const fs::path& root)>;

template <typename F>
std::string thrown(F&& f) {
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

std::string recordNotes(void (*read)(const fs::path&, const fs::path&, const store::ReadBounds&, aggregate::InvocationRecord&,
                                     const store::FileSource&),
                        const fs::path& dir, const fs::path& root) {
    aggregate::InvocationRecord r;
    read(dir, root, store::ReadBounds{}, r, store::diskFiles());
    return joined(r.notes);
}

void copyTree(const fs::path& from, const fs::path& to) {
    fs::copy(from, to, fs::copy_options::recursive);
    for (const auto& e : fs::recursive_directory_iterator(to))
        fs::permissions(e.path(), e.is_directory() ? fs::perms::owner_all : fs::perms::owner_read | fs::perms::owner_write,
                        fs::perm_options::add);
}

struct Case {
    const char* file;    // relative to the folder
    std::string valid;   // a file the reader accepts
    std::uintmax_t bound; // the store's bound for it
    Reader read;
};

std::vector<Case> cases() {
    const store::ReadBounds b;
    const std::string summary =
        R"({"num_accelerators": 1, "num_files_train": 8, "num_samples_per_file": 1, "metric": {"train_au_mean_percentage": 95.0,
            "train_throughput_mean_samples_per_second": 10.0, "train_io_mean_MB_per_second": 1.0}})";
    return {
        {"summary.json", summary, b.maxFileBytes,
         [](const fs::path& d, const fs::path&) {
             // What the user sees: the importer's list of skipped files, each with its path and the reason.
             const aggregate::ImportResult r = aggregate::importResults({d});
             std::string out;
             for (const auto& sk : r.skipped) out += sk.path.string() + ": " + sk.reason + "\n";
             return r.runs.size() == 1 ? std::string() : out + "(not imported)";
         }},
        {"configs/config.yaml", "workload:\n  model: {name: unet3d}\n  reader: {batch_size: 4}\n", b.maxFileBytes,
         [](const fs::path& d, const fs::path& root) {
             const auto rc = store::readRunConfig({d}, root, store::ReadBounds{});
             return rc.configFile ? std::string() : joined(rc.notes) + "(no config read)";
         }},
        {"configs/overrides.yaml", "- workload=unet3d_h100\n", b.maxFileBytes,
         [](const fs::path& d, const fs::path& root) {
             const auto rc = store::readRunConfig({d}, root, store::ReadBounds{});
             return rc.workload == "unet3d_h100" ? std::string() : joined(rc.notes) + "(no workload read)";
         }},
        {"trainio_run.json", R"({"status": "complete", "semantics": "v2", "steps_per_epoch": 3})", b.maxFileBytes,
         [](const fs::path& d, const fs::path& root) { return store::readRunRecord(d, root, store::ReadBounds{}).unreadable; }},
        {"trainio_io.json", R"({"engine": "posix", "cache": "drop"})", b.maxFileBytes,
         [](const fs::path& d, const fs::path& root) { return recordNotes(&store::readIoFile, d, root); }},
        {"trainio_model.json", R"({"predicted_au_percentage": 80})", b.maxFileBytes,
         [](const fs::path& d, const fs::path& root) { return recordNotes(&store::readModelFile, d, root); }},
        {"telemetry.json",
         R"({"format": "trainio-telemetry", "version": 1, "interval_s": 1, "notes": [], "columns": [{"name": "time_s"}],
             "rows": [[0], [1]]})",
         b.maxFileBytes,
         [](const fs::path& d, const fs::path& root) {
             aggregate::InvocationRecord r;
             store::readTelemetryFile(d, root, store::ReadBounds{}, true, r);
             return joined(r.notes);
         }},
        {"training_20250101_000000_metadata.json", R"({"accelerator": "h100", "num_processes": 8})", b.maxFileBytes,
         [](const fs::path& d, const fs::path& root) { return recordNotes(&store::readMetadataFiles, d, root); }},
        {"trainio_labels.json", R"({"system": "lab-01"})", b.maxFileBytes,
         [](const fs::path& d, const fs::path& root) { return thrown([&] { (void)store::readLabelsFile(d, root); }); }},
        {"trainio_benchmark.json", R"({"format": "trainio-benchmark", "runs": ["runs/run-1"]})", b.maxFileBytes,
         [](const fs::path& d, const fs::path& root) { return thrown([&] { (void)store::readBenchmarkManifest(d, root); }); }},
        {"sweep.json", R"({"max_passing_accelerators": null, "trials": []})", b.maxFileBytes,
         [](const fs::path& d, const fs::path& root) { return thrown([&] { (void)store::readSweepJson(d, root); }); }},
        {"trainio_collocation.json", R"({"status": "complete", "workloads": [{"name": "a", "path": "a"}]})", b.maxFileBytes,
         [](const fs::path& d, const fs::path& root) {
             return thrown([&] { (void)store::readCollocationFile(d / store::kCollocationFile, root); });
         }},
        {"systems/sys.json", R"({"storage_system": {"vendor_name": "Acme"}})", b.maxFileBytes,
         [](const fs::path& d, const fs::path& root) {
             const std::string text = store::describeSystemFile(d / "systems" / "sys.json", root);
             return text.find("unreadable") != std::string::npos ? text : std::string();
         }},
        {"mlperf_storage_report.json", R"({"overall": {}})", b.maxFileBytes,
         [](const fs::path& d, const fs::path& root) {
             // As the importer reads it (group_aggregate's comparison then says "<file> could not be read (why)").
             std::string why;
             const fs::path file = d / store::kMlperfReportFile;
             return store::readFolderJson(file, root, store::ReadBounds{}.maxFileBytes, store::ReadBounds{}.maxJsonDepth, why)
                        ? std::string()
                        : file.string() + ": " + why;
         }},
    };
}

} // namespace

class TestRunStore : public QObject {
    Q_OBJECT
private slots:
    // Every file the store reads: read when valid; refused past the bound, through a link leaving the tree,
    // and through a link loop — each with a message naming the file.
    void boundsAndLinkRuleForEveryFile() {
        QTemporaryDir tmp;
        const fs::path base = tempRoot(tmp);
        for (const Case& c : cases()) {
            const std::string tag = c.file;
            auto fresh = [&](const std::string& kind) {
                const fs::path dir = base / (fs::path(c.file).filename().string() + "-" + kind) / "tree";
                fs::create_directories((dir / c.file).parent_path());
                return dir;
            };
            {   // valid: read
                const fs::path dir = fresh("ok");
                testsupport::writeText(dir / c.file, c.valid);
                const std::string e = c.read(dir, store::treeOf(dir));
                QVERIFY2(e.empty(), (tag + ": " + e).c_str());
            }
            {   // one byte past the bound (sparse: no disk): refused unread, naming the file and the bound
                const fs::path dir = fresh("big");
                testsupport::writeText(dir / c.file, c.valid);
                fs::resize_file(dir / c.file, c.bound + 1);
                const std::string e = c.read(dir, store::treeOf(dir));
                QVERIFY2(e.find(fs::path(c.file).filename().string()) != std::string::npos &&
                             e.find(std::to_string(c.bound + 1) + " bytes") != std::string::npos &&
                             e.find(std::to_string(c.bound >> 20) + " MiB read limit") != std::string::npos,
                         (tag + ": " + e).c_str());
            }
            {   // a link to a file outside the tree: refused, the outside file is never read
                const fs::path dir = fresh("outside");
                testsupport::writeText(dir.parent_path() / "elsewhere", c.valid);
                fs::create_symlink(dir.parent_path() / "elsewhere", dir / c.file);
                const std::string e = c.read(dir, store::treeOf(dir));
                QVERIFY2(e.find(fs::path(c.file).filename().string()) != std::string::npos &&
                             e.find("outside the imported tree") != std::string::npos,
                         (tag + ": " + e).c_str());
            }
            {   // a link loop: refused as one
                const fs::path dir = fresh("loop");
                fs::create_symlink(dir / (std::string(c.file) + ".other"), dir / c.file);
                fs::create_symlink(dir / c.file, dir / (std::string(c.file) + ".other"));
                const std::string e = c.read(dir, store::treeOf(dir));
                QVERIFY2(e.find(fs::path(c.file).filename().string()) != std::string::npos && e.find("loop") != std::string::npos,
                         (tag + ": " + e).c_str());
            }
            {   // a link that stays inside the tree is followed (the rule is about leaving it)
                const fs::path dir = fresh("inside");
                testsupport::writeText(dir / "real-copy", c.valid);
                fs::create_symlink(dir / "real-copy", dir / c.file);
                const std::string e = c.read(dir, store::treeOf(dir));
                QVERIFY2(e.empty(), (tag + " (link inside the tree): " + e).c_str());
            }
        }
    }

    // The per-step records and the journal, on a real DLIO folder: bound, link out, loop.
    void stepRecordsAndJournal() {
        QTemporaryDir tmp;
        const fs::path base = tempRoot(tmp);
        const fs::path src = testsupport::fixtures() / "dlio-runs" / "unet3d_256_np1";
        copyTree(src, base / "ok");
        QVERIFY(!store::readInvocationFolder(base / "ok").ranks.empty());
        copyTree(src, base / "big");
        fs::resize_file(base / "big" / "0_output.json", store::ReadBounds{}.maxStepFileBytes + 1);
        std::string e = thrown([&] { store::readInvocationFolder(base / "big"); });
        QVERIFY2(e.find("0_output.json") != std::string::npos && e.find("256 MiB read limit") != std::string::npos, e.c_str());
        copyTree(src, base / "loop");
        fs::remove(base / "loop" / "0_per_epoch_stats.json");
        fs::create_symlink(base / "loop" / "x", base / "loop" / "0_per_epoch_stats.json");
        fs::create_symlink(base / "loop" / "0_per_epoch_stats.json", base / "loop" / "x");
        e = thrown([&] { store::readInvocationFolder(base / "loop"); });
        QVERIFY2(e.find("0_per_epoch_stats.json") != std::string::npos && e.find("loop") != std::string::npos, e.c_str());
        copyTree(src, base / "cfg-out");
        fs::rename(base / "cfg-out" / ".hydra", base / "hydra-elsewhere");
        fs::create_directory_symlink(base / "hydra-elsewhere", base / "cfg-out" / ".hydra"); // a linked folder, not a file
        e = thrown([&] { store::readInvocationFolder(base / "cfg-out"); });
        QVERIFY2(e.find("config.yaml") != std::string::npos && e.find("outside the imported tree") != std::string::npos, e.c_str());

        // The journal is stricter (reading it back writes the folder): never through a link, within its bound.
        fs::create_directories(base / "j");
        testsupport::writeText(base / "j" / store::kJournalFile, std::string(100, 'x') + "\n");
        e = thrown([&] { store::readJournal(base / "j", 50); });
        QVERIFY2(e.find(store::kJournalFile) != std::string::npos && e.find("50") != std::string::npos, e.c_str());
        fs::remove(base / "j" / store::kJournalFile);
        fs::create_symlink(base / "j" / "loop", base / "j" / store::kJournalFile);
        fs::create_symlink(base / "j" / store::kJournalFile, base / "j" / "loop");
        e = thrown([&] { store::readJournal(base / "j"); });
        QVERIFY2(e.find(store::kJournalFile) != std::string::npos && e.find("symbolic link") != std::string::npos, e.c_str());
    }

    // What the store writes, it reads back equal.
    void roundTrips() {
        QTemporaryDir tmp;
        const fs::path base = tempRoot(tmp);
        // Labels.
        aggregate::Labels l;
        l.system = "lab-nvme-01";
        l.description = "ext4 on 1x NVMe";
        l.notes = "after firmware 1.2";
        l.name = "baseline";
        store::writeLabelsFile(base / "labels", l);
        const auto lb = store::readLabelsFile(base / "labels");
        QVERIFY(lb);
        QCOMPARE(lb->system, l.system);
        QCOMPARE(lb->description, l.description);
        QCOMPARE(lb->notes, l.notes);
        QCOMPARE(lb->name, l.name);
        // Benchmark manifest.
        store::BenchmarkManifest m;
        m.status = "incomplete";
        m.reason = "run 3 failed";
        m.plannedRuns = 5;
        m.plannedWarmups = 1;
        m.warmups = {"warmup"};
        m.runs = {"runs/run-1", "runs/run-2"};
        m.accelerators = 4;
        m.system = "sys";
        m.started = "2026-01-02T03:04:05";
        store::writeBenchmarkManifest(base / "bench", m);
        const auto mb = store::readBenchmarkManifest(base / "bench");
        QVERIFY(mb);
        QCOMPARE(mb->status, m.status);
        QCOMPARE(mb->reason, m.reason);
        QCOMPARE(mb->plannedRuns, m.plannedRuns);
        QCOMPARE(mb->plannedWarmups, m.plannedWarmups);
        QCOMPARE(mb->warmups, m.warmups);
        QCOMPARE(mb->runs, m.runs);
        QCOMPARE(mb->accelerators, m.accelerators);
        QCOMPARE(mb->system, m.system);
        QCOMPARE(mb->started, m.started);
        // sweep.json.
        SweepOutcome o;
        SweepTrial t;
        t.accelerators = 4;
        t.auMeanPercent = 91.5;
        t.samplesPerSecond = 120.25;
        t.readGibPerSecond = 0.5;
        t.passed = true;
        t.path = base / "sweep" / "trial-4-accelerators";
        o.trials.push_back(t);
        o.maxPassing = 4;
        o.complete = true;
        SweepDescription d;
        d.config = "unet3d_h100";
        d.range = {1, 8, 1};
        d.auThresholdPercent = 90;
        fs::create_directories(base / "sweep");
        store::writeSweepJson(o, d, base / "sweep");
        const SweepFile sf = store::readSweepJson(base / "sweep");
        QCOMPARE(sf.outcome.maxPassing, std::optional<std::uint64_t>(4));
        QCOMPARE(sf.outcome.trials.size(), std::size_t(1));
        QCOMPARE(sf.outcome.trials[0].accelerators, std::uint64_t(4));
        QCOMPARE(sf.outcome.trials[0].auMeanPercent, 91.5);
        QCOMPARE(sf.outcome.trials[0].samplesPerSecond, 120.25);
        QCOMPARE(sf.outcome.trials[0].path, t.path);
        QCOMPARE(sf.description.config, d.config);
        QCOMPARE(sf.description.range.max, std::uint64_t(8));
        // configs/config.yaml + overrides.yaml as TrainIO writes them, read by the config loader.
        LoadedConfig lc = loadPreset("unet3d_h100", {"++workload.reader.batch_size=3", "++workload.dataset.num_files_train=123"});
        const fs::path run = base / "run";
        store::writeFileAtomic(run / "configs" / store::kConfigFile, toYaml(lc.config));
        store::writeFileAtomic(run / "configs" / store::kOverridesFile, overridesYaml(lc.config));
        const store::RunConfig rc = store::readRunConfig({run}, store::treeOf(run), store::ReadBounds{});
        QVERIFY2(rc.notes.empty(), joined(rc.notes).c_str());
        QCOMPARE(rc.merged.at("reader.batch_size"), std::string("3"));
        QCOMPARE(rc.merged.at("dataset.num_files_train"), std::string("123"));
        QCOMPARE(rc.model, std::string("unet3d"));
        QCOMPARE(rc.accelerator, std::string("h100"));
        // The config loader itself reads the written config.yaml back to the same configuration.
        const LoadedConfig back = loadWorkloadConfig((run / "configs" / store::kConfigFile).string());
        QCOMPARE(back.config.reader.batchSize, std::uint64_t(3));
        QCOMPARE(back.config.dataset.numFilesTrain, std::uint64_t(123));
    }

    // config.yaml is YAML (yaml-cpp through the config loader): flow maps, lists, quoting and comments are
    // read as YAML reads them; text that is not YAML is a note naming the file and the line.
    void configYamlIsReadByTheConfigLoader() {
        QTemporaryDir tmp;
        const fs::path run = tempRoot(tmp) / "run";
        testsupport::writeText(run / ".hydra" / "config.yaml",
                               "workload:\n  model: {name: resnet50}\n  dataset:\n    record_length_bytes: 114660 # bytes\n"
                               "    data_folder: \"data/x: y\"\n  reader:\n    transformed_record_dims: [224, 224, 3]\n"
                               "  checkpoint:\n    checkpoint_folder: null\nhydra:\n  run: {dir: out}\n");
        store::RunConfig rc = store::readRunConfig({run}, store::treeOf(run), store::ReadBounds{});
        QCOMPARE(rc.merged.at("model.name"), std::string("resnet50"));
        QCOMPARE(rc.merged.at("dataset.record_length_bytes"), std::string("114660"));
        QCOMPARE(rc.merged.at("dataset.data_folder"), std::string("data/x: y"));
        QCOMPARE(rc.merged.at("reader.transformed_record_dims"), std::string("[224, 224, 3]"));
        QCOMPARE(rc.merged.at("checkpoint.checkpoint_folder"), std::string("null"));
        QCOMPARE(rc.merged.at("hydra.run.dir"), std::string("out"));
        QCOMPARE(rc.model, std::string("resnet50"));
        QVERIFY(rc.recordLength && *rc.recordLength == 114660.0);
        testsupport::writeText(run / ".hydra" / "config.yaml", "workload:\n  model: [unclosed\n");
        rc = store::readRunConfig({run}, store::treeOf(run), store::ReadBounds{});
        QVERIFY(!rc.configFile);
        const std::string n = joined(rc.notes);
        QVERIFY2(n.find("config.yaml") != std::string::npos && n.find("line") != std::string::npos, n.c_str());
        testsupport::writeText(run / ".hydra" / "overrides.yaml", "workload: not-a-list\n");
        rc = store::readRunConfig({run}, store::treeOf(run), store::ReadBounds{});
        QVERIFY2(joined(rc.notes).find("overrides.yaml") != std::string::npos, joined(rc.notes).c_str());
    }

    // A write that fails leaves the old file (or none) and no temporary file: the write itself (the disk
    // fills mid-write), the fsync, and the rename.
    void atomicWriteLeavesNoPartialFile() {
        QTemporaryDir tmp;
        const fs::path dir = tempRoot(tmp) / "run";
        const fs::path file = dir / store::kSummaryFile;
        store::writeFileAtomic(file, "old contents\n");
        auto onlyTheFile = [&] {
            std::vector<std::string> names;
            for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
            return names;
        };
        const std::string big(1 << 20, 'n');
        for (const char* rule : {"write:ENOSPC:summary.json:after=65536", "fsync:EIO:summary.json"}) {
            auto io = std::make_shared<FaultInjectingBackend>(makePosixBackend(), parseFaultRules(rule));
            const std::string e = thrown([&] { store::writeFileAtomic(file, big, io.get()); });
            QVERIFY2(e.find("summary.json") != std::string::npos, (std::string(rule) + ": " + e).c_str());
            QCOMPARE(testsupport::readText(file), std::string("old contents\n"));
            QCOMPARE(onlyTheFile(), std::vector<std::string>{"summary.json"});
        }
        // The rename fails: the name is taken by a folder that is not empty.
        const fs::path taken = dir / store::kRunRecordFile;
        testsupport::writeText(taken / "inside", "x");
        const std::string e = thrown([&] { store::writeFileAtomic(taken, "{}\n"); });
        QVERIFY2(e.find("rename") != std::string::npos && e.find("trainio_run.json") != std::string::npos, e.c_str());
        QVERIFY(fs::is_directory(taken));
        std::vector<std::string> names = onlyTheFile();
        std::sort(names.begin(), names.end());
        QCOMPARE(names, (std::vector<std::string>{"summary.json", "trainio_run.json"}));
    }

    // The systems file: read when the imported tree holds <org>/systems/, never above the imported root —
    // and under the link rule.
    void systemsFileNotFoundAboveTheRoot() {
        QTemporaryDir tmp;
        const fs::path org = tempRoot(tmp) / "Acme";
        const fs::path run = org / "results" / "lab-01" / "training" / "unet3d" / "run1";
        testsupport::writeText(run / "summary.json", cases()[0].valid);
        testsupport::writeText(org / "systems" / "lab-01.json", R"({"storage_system": {"vendor_name": "Acme", "solution_name": "FastFS"}})");
        const aggregate::ImportResult whole = aggregate::importResults({org});
        QCOMPARE(whole.groups.size(), std::size_t(1));
        QVERIFY(whole.groups[0].systemFile);
        QVERIFY2(whole.groups[0].systemDescription.find("Acme FastFS") != std::string::npos, whole.groups[0].systemDescription.c_str());
        for (const fs::path& below : {org / "results", org / "results" / "lab-01", run.parent_path()}) {
            const aggregate::ImportResult r = aggregate::importResults({below});
            QCOMPARE(r.groups.size(), std::size_t(1));
            QVERIFY2(!r.groups[0].systemFile, below.c_str());
            QCOMPARE(r.groups[0].system, std::string("lab-01")); // from the path: nothing read
            QVERIFY(r.groups[0].systemDescription.find("Acme") == std::string::npos);
        }
        QVERIFY(!store::findSystemFile(run, org / "results"));
        QCOMPARE(*store::findSystemFile(run, org), org / "systems" / "lab-01.json");
        // A systems file that is a link out of the tree: named, never read.
        fs::rename(org / "systems" / "lab-01.json", tempRoot(tmp) / "elsewhere.json");
        fs::create_symlink(tempRoot(tmp) / "elsewhere.json", org / "systems" / "lab-01.json");
        const aggregate::ImportResult linked = aggregate::importResults({org});
        QVERIFY2(linked.groups[0].systemDescription.find("lab-01.json") != std::string::npos &&
                     linked.groups[0].systemDescription.find("outside the imported tree") != std::string::npos,
                 linked.groups[0].systemDescription.c_str());
    }

    // The file names are the store's: a run TrainIO writes has exactly the names run_folder.h lists.
    void namesAreTheStores() {
        QCOMPARE(store::rankOutputFile(3), std::string("3_output.json"));
        QCOMPARE(store::rankEpochStatsFile(0), std::string("0_per_epoch_stats.json"));
        QVERIFY(store::isMetadataFile("training_20250101_000000_metadata.json"));
        QVERIFY(!store::isMetadataFile("_metadata.json"));
        QCOMPARE(store::configFolders(), (std::vector<std::string>{"configs", ".hydra", "dlio_config"}));
    }
};

QTEST_GUILESS_MAIN(TestRunStore)
#include "tst_run_store.moc"
