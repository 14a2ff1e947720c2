// Fuzzes what reads result folders: readInvocationFolder (trainio-cli metrics) and the importer
// (core/aggregate: summary.json, <rank>_output.json, per_epoch_stats.json, configs/*.yaml) and the run
// journal of an interrupted run (store/journal.h). The input
// is a folder (fuzz_support.h); its files are written into a scratch folder, which both readers then
// read. readInvocationFolder may only throw InputError; importResults never throws (bad files are
// listed as skipped). The metrics of what was read are computed too, as `metrics DIR` does.
#include "fuzz_support.h"

#include "aggregate/group_aggregate.h"
#include "aggregate/results_import.h"
#include "metrics/dlio_metrics.h"
#include "store/run_files.h"
#include "store/journal.h"
#include "util/errors.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
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
                                  "host1/summary.json",
                                  "trainio_journal.jsonl"}; // an interrupted run (store/journal.h)

// One scratch folder per process, removed at exit (libFuzzer leaves through exit(), so static
// destructors run) so that CI runs do not pile folders up in /tmp.
struct Scratch {
    fs::path dir;
    Scratch() {
        const char* base = std::getenv("TMPDIR");
        dir = fs::path(base && *base ? base : "/tmp") / ("trainio-fuzz-results-" + std::to_string(::getpid()));
    }
    ~Scratch() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};

const fs::path& scratch() {
    static const Scratch s;
    return s.dir;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const fs::path& dir = scratch();
    std::error_code ec;
    fs::remove_all(dir, ec);
    fs::create_directories(dir / "configs", ec);
    fs::create_directories(dir / ".hydra", ec);
    fs::create_directories(dir / "host1", ec);
    bool any = false;
    for (const auto& [name, body] : fuzzsupport::splitSections(std::string_view(reinterpret_cast<const char*>(data), size))) {
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

    const trainio::aggregate::ImportResult imp = trainio::aggregate::importResults({dir});
    (void)trainio::aggregate::formatTable(imp);
    (void)trainio::aggregate::formatCsv(imp);
    return 0;
}
