// Fuzzes every reader of core/store, the run folder's one home: readInvocationFolder (trainio-cli metrics),
// the readers of each file (store/run_files.h: configs via the config loader, summary.json, trainio_run.json,
// trainio_io.json, trainio_model.json, telemetry.json, *_metadata.json; store/labels.h with the systems
// file; store/benchmark_manifest.h; store/sweep_file.h; store/collocation_file.h), the run journal of an
// interrupted run (results/journal.h) and the importer that walks and groups them. The input is a folder
// (fuzz_support.h); its files are written into a scratch folder, which both readers then read. readInvocationFolder may only throw InputError; importResults never throws (bad files are
// listed as skipped). The metrics of what was read are computed too, as `metrics DIR` does. And the
// records made in memory from what this process wrote (store/written_files.h, importWritten) must be what
// an import of the folder makes: the same files written through the store's writer and held, then made
// into records both ways — any difference aborts.
#include "fuzz_support.h"

#include "aggregate/group_aggregate.h"
#include "aggregate/results_import.h"
#include "metrics/dlio_metrics.h"
#include "store/run_files.h"
#include "store/benchmark_manifest.h"
#include "results/journal.h"
#include "store/labels.h"
#include "store/collocation_file.h"
#include "store/sweep_file.h"
#include "store/written_files.h"
#include "util/errors.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

// The names a result folder holds (DLIO's, MLPerf Storage's, TrainIO's); anything else is ignored so
// that the fuzzer cannot write outside the scratch folder.
constexpr const char* kNames[] = {"summary.json",
                                  "0_output.json",
                                  "1_output.json",
                                  "0_per_epoch_stats.json",
                                  "1_per_epoch_stats.json",
                                  "per_epoch_stats.json",
                                  "trainio_run.json",
                                  "configs/config.yaml",
                                  "configs/overrides.yaml",
                                  ".hydra/config.yaml",
                                  ".hydra/overrides.yaml",
                                  "dlio_config/config.yaml",
                                  "dlio_config/overrides.yaml",
                                  "host1/summary.json",
                                  "trainio_journal.jsonl", // an interrupted run (results/journal.h)
                                  "trainio_io.json",
                                  "trainio_model.json",
                                  "telemetry.json",
                                  "training_20250101_000000_metadata.json",
                                  "trainio_labels.json",
                                  "trainio_benchmark.json",
                                  "sweep.json",
                                  "trainio_collocation.json", // a collocation (store/collocation_file.h)
                                  "mlperf_storage_report.json",
                                  "systems/sys.json",
                                  "systems/sys.yaml"};

// One scratch folder per process, removed at exit (libFuzzer leaves through exit(), so static
// destructors run) so that CI runs do not pile folders up in /tmp.
struct Scratch {
    fs::path dir, held;
    Scratch() {
        const char* base = std::getenv("TMPDIR");
        dir = fs::path(base && *base ? base : "/tmp") / ("trainio-fuzz-results-" + std::to_string(::getpid()));
        held = dir.string() + "-held";
    }
    ~Scratch() {
        std::error_code ec;
        fs::remove_all(dir, ec);
        fs::remove_all(held, ec);
    }
};

const Scratch& scratchFolders() {
    static const Scratch s;
    return s;
}
const fs::path& scratch() { return scratchFolders().dir; }

// The same files written by the store's writer into their own folder and held (as a run's writers hold
// what they write); the records importWritten makes from them must be importResults' of the folder. The
// journal, sweep.json and trainio_collocation.json stay out: only a walk looks for them.
void checkRecordsFromMemory(const std::vector<std::pair<std::string, std::string>>& sections) {
    namespace store = trainio::store;
    namespace aggregate = trainio::aggregate;
    const fs::path& held = scratchFolders().held;
    std::error_code ec;
    fs::remove_all(held, ec);
    fs::create_directories(held, ec);
    store::WrittenFiles written(store::WrittenFiles::Options{true, false});
    for (const auto& [name, body] : sections) {
        if (name == "trainio_journal.jsonl" || name == "sweep.json" || name == "trainio_collocation.json") continue;
        for (const char* known : kNames)
            if (name == known) {
                try {
                    store::writeFileAtomic(held / name, body, nullptr, &written);
                } catch (const trainio::RunError&) {
                    return;
                }
            }
    }
    aggregate::ImportOptions options;
    options.stepDigests = true;
    const auto dump = [](const aggregate::ImportResult& r) {
        return aggregate::toJson(r).dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    };
    const std::string fromMemory = dump(aggregate::importWritten(held, written, options));
    const std::string fromDisk = dump(aggregate::importResults({held}, options));
    if (fromMemory != fromDisk) {
        std::fprintf(stderr, "importWritten differs from importResults:\n--- from memory\n%s\n--- from the disk\n%s\n",
                     fromMemory.c_str(), fromDisk.c_str());
        std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const fs::path& dir = scratch();
    std::error_code ec;
    fs::remove_all(dir, ec);
    fs::create_directories(dir / "configs", ec);
    fs::create_directories(dir / ".hydra", ec);
    fs::create_directories(dir / "host1", ec);
    fs::create_directories(dir / "dlio_config", ec);
    fs::create_directories(dir / "systems", ec);
    bool any = false;
    const auto sections = fuzzsupport::splitSections(std::string_view(reinterpret_cast<const char*>(data), size));
    for (const auto& [name, body] : sections) {
        for (const char* known : kNames)
            if (name == known) {
                std::ofstream(dir / name, std::ios::binary | std::ios::trunc) << body;
                any = true;
            }
    }
    if (!any) return 0;

    try {
        const trainio::store::InvocationData d = trainio::store::readInvocationFolder(dir);
        trainio::MetricOptions mo;
        mo.batchSize = d.batchSize;
        mo.expectedSteps = d.expectedSteps;
        mo.excludeStartSteps = d.excludeStartSteps;
        mo.excludeEndSteps = d.excludeEndSteps;
        (void)trainio::metricJson(trainio::invocationMetrics(d.ranks, mo, d.recordLength, d.auThreshold)).dump();
    } catch (const trainio::InputError&) {
    }

    // The journal reader on its own (the importer below also reads a folder with a journal and no
    // summary back as interrupted, writing its DLIO files into the scratch folder).
    try {
        (void)trainio::store::readJournal(dir);
    } catch (const trainio::InputError&) {
    }

    // Each reader of the store on its own (the importer below reaches them only for a readable summary).
    namespace store = trainio::store;
    const fs::path tree = store::treeOf(dir);
    const store::ReadBounds bounds;
    const store::RunConfig rc = store::readRunConfig({dir}, tree, bounds);
    (void)store::readRunRecord(dir, tree, bounds);
    std::string why;
    (void)store::readSummary(dir / store::kSummaryFile, tree, bounds, why);
    trainio::aggregate::InvocationRecord r;
    store::readIoFile(dir, tree, bounds, r);
    store::readModelFile(dir, tree, bounds, r);
    store::readTelemetryFile(dir, tree, bounds, true, r);
    store::readMetadataFiles(dir, tree, bounds, r);
    (void)store::readFolderJson(dir / store::kMlperfReportFile, tree, bounds.maxFileBytes, bounds.maxJsonDepth, why);
    (void)store::describeSystemFile(dir / "systems" / "sys.json", tree);
    (void)store::describeSystemFile(dir / "systems" / "sys.yaml", tree);
    for (const auto& read : {std::function<void()>([&] { (void)store::readLabelsFile(dir, tree); }),
                             std::function<void()>([&] { (void)store::labelsFor(dir / "host1", dir); }),
                             std::function<void()>([&] { (void)store::readBenchmarkManifest(dir, tree); }),
                             std::function<void()>([&] { (void)store::readSweepJson(dir, tree); }),
                             std::function<void()>([&] { (void)store::readCollocationFile(dir / store::kCollocationFile, tree); })}) {
        try {
            read();
        } catch (const trainio::InputError&) {
        }
    }

    const trainio::aggregate::ImportResult imp = trainio::aggregate::importResults({dir});
    (void)trainio::aggregate::formatTable(imp);
    (void)trainio::aggregate::formatCsv(imp);

    checkRecordsFromMemory(sections);
    return 0;
}
