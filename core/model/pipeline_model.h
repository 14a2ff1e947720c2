// An analytical input-pipeline model (issue 13, part 2; docs/model.md): from a workload and a storage
// description, predict what `trainio-cli run` would measure — per-epoch AU and samples/s — and the largest
// accelerator count whose predicted AU stays at or above the AU line (metric.au).
//
// The model, per emulated accelerator (rank) of R, each with T = read_threads readers and a window of
// W = max(prefetch_size, read_threads) batches (engine/batch_prefetcher.h):
//   1. the reader side's sustained rate ρ (samples/s, all ranks together; the device is shared) is the
//      smallest of the roofs (mlsysim style) — latency N/Z with N = R·T readers and Z one reader's time per
//      sample, bandwidth BW/b, IOPS I/n, in-flight Q/(n·L), client CPU cores/cpu — and names the bottleneck;
//   2. a fluid simulation of one rank's steps: batch k is ready B/(ρ/R) after batch k−1 (or after its slot
//      was freed, k−W taken), but never sooner than ceil(B/T) reader turns after its slot was free; each
//      step waits for its batch (load), computes (computation_time), meets the barrier; the first step
//      pays the whole first batch (unhidden);
//   3. the predicted step records are put into an EpochRecord and DLIO's formulas are applied by the very
//      functions the engine's results use (metrics/dlio_metrics.h: epochRankMetrics, invocationMetrics —
//      dlio_benchmark/utils/statscounter.py compute_metrics_train() for a block, end_train() for the
//      step-weighted epoch, end_run() for the mean over ranks and epochs; v3: the fork's
//      statscounter.py:436-470, as cited there). Nothing of the formulas is re-implemented here.
// What it ignores is listed in docs/model.md ("Where the model is wrong").
#pragma once

#include "config/workload_config.h"
#include "io/emulated_storage.h"
#include "metrics/step_records.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace trainio::model {

// Where the storage parameters came from.
enum class StorageSource { Probe, StorageProfile, ConfigStorage };
const char* toString(StorageSource s);

// One point of the probe's bandwidth-vs-readers curve.
struct ProbePoint {
    unsigned threads = 0;
    double bytesPerSecond = 0;
    double requestLatencySeconds = 0; // mean time of one transfer_size pread at this concurrency
};

// The storage as the model sees it.
struct StorageParameters {
    StorageSource source = StorageSource::ConfigStorage;
    std::string origin;  // the profile's name or file, the probed folder, "trainio.storage"
    StorageShape shape;  // emulated device (0 = unlimited); for a probe: bandwidth and a constant latency
    // Probe only: the measured curve; the model interpolates bandwidth at R·T readers in it.
    std::vector<ProbePoint> curve;
    // Probe only (< 0 otherwise): the measured client CPU seconds per sample of page-cached data (read +
    // format parsing), which replaces ModelConstants' per-byte and per-sample defaults.
    double clientSecondsPerSample = -1;
    bool fromProbe() const { return source == StorageSource::Probe; }
};

// The constants of the model that are not in the workload or the storage. Defaults are documented in
// docs/model.md: the client costs were measured on the development VM (page-cached npz, posix); the
// step overheads were fitted on the anchors marked "fit" in tests/data/model_anchors.json.
struct ModelConstants {
    double clientSecondsPerByte = 1.0 / (4.0 * 1024 * 1024 * 1024); // copy out of the page cache, 4 GiB/s
    double clientSecondsPerSample = 40e-6;  // reader wake-up, ticket, open/close, format parse
    double loadOverheadSeconds = 30e-6;     // a step's batch hand-over when the batch is ready
    double computeOverheadSeconds = 20e-6;  // the compute sleep's late wake-up
    double barrierSecondsPerStep = 40e-6;   // barrier release and the rank's wake-up, in no step's time
    double latencySpinSeconds = 100e-6;     // the emulated latency spins its last 100 µs (CPU)
    // A slot of max_inflight is idle this long between two requests (fitted on the inflight-bound anchor:
    // 4 readers, 2 slots of 4 ms measured 5.0 ms per request with both cores busy; docs/model.md).
    double inflightHandoffSeconds = 0.3e-3;
    unsigned cores = 0;                     // client cores for readers; 0 = std::thread::hardware_concurrency
    // Other processes' load on the client, in cores busy (0 = a quiet machine). Readers run as SCHED_BATCH:
    // a reader whose latency sleep ends while every core is busy waits for a slice to end. The share of time
    // no core is free is taken as clamp(otherCores − (cores − 1), 0, 1), and the wait as busyWakeDelaySeconds
    // (fitted on the latency-bound anchor, which records the other processes' cores during each run;
    // docs/model.md).
    double otherCores = 0;
    double busyWakeDelaySeconds = 0.8e-3;
    std::uint64_t maxAccelerators = 4096;   // the search for max_passing_accelerators stops here
};

struct RoofLine {
    std::string name;          // compute | bandwidth | latency | iops | inflight | client CPU
    double samplesPerSecond;   // aggregate over all ranks; infinity when the roof does not apply
};

// The sample and request figures of the workload, from the format's real file sizes.
struct SampleFigures {
    double bytesPerSample = 0;      // bytes read from storage per sample (whole files ÷ samples per file)
    double bytesStdev = 0;          // spread of the per-file bytes
    double requestsPerSample = 0;   // pread calls per sample: ceil(file / transfer_size) ÷ samples per file
    std::uint64_t filesExamined = 0;
};

struct Prediction {
    std::uint64_t accelerators = 1;
    std::uint64_t stepsPerEpoch = 0;
    double auPercent = 0;            // invocationMetrics().auMean
    double samplesPerSecond = 0;     // invocationMetrics().throughputMean (sum over ranks)
    double ioMiBPerSecond = 0;
    bool pass = false;
    // The steady state: the reader side's rate and what limits it, the step's parts.
    std::vector<RoofLine> roofs;     // every roof, the limiting one first
    std::string bottleneck;          // compute, or the smallest reader roof
    double readerSamplesPerSecond = 0;   // all ranks together
    double computeSamplesPerSecond = 0;  // all ranks together: R·B ÷ (compute + overheads)
    double firstLoadSeconds = 0;
    double steadyLoadSeconds = 0;        // the last step's predicted load
    double computeSeconds = 0;
    double readerSecondsPerSample = 0;   // Z: one reader, one sample, no queueing
    double meanLatencySeconds = 0;
    double clientSecondsPerSample = 0;   // CPU per sample (copy, parse, latency spin)
    EpochRecord epoch;                   // one rank's predicted epoch (what DLIO's formulas were given)
    double loaderHitFraction = 0;        // the last epoch's share of accesses the loader's tiers serve
};

// The whole answer: the prediction at `accelerators`, the largest passing count and the bandwidth one
// accelerator needs.
struct ModelResult {
    Prediction atAccelerators;
    std::uint64_t maxPassingAccelerators = 0; // 0: not even one passes
    bool maxLimitedBySearch = false;          // every count up to the search's limit passed
    std::uint64_t searchLimit = 0;
    double requiredMiBPerSecondPerAccelerator = 0; // at the AU line: au × B × b ÷ computation_time
    double requiredMiBPerSecondPerAcceleratorFullAu = 0; // B × b ÷ computation_time
    SampleFigures sample;
    StorageParameters storage;
    ModelConstants constants;
    MetricSemantics semantics = MetricSemantics::DlioV2;
    double auLinePercent = 90;
    std::vector<std::string> assumptions;
    // What makes the prediction (and the run it predicts) mean little: an epoch too short for the
    // semantics' formulas (metricWindowWarning). JSON "warnings".
    std::vector<std::string> warnings;
    std::string loaderPolicy;               // trainio.loader
    std::vector<double> loaderHitFractions; // per epoch at `accelerators` (loaderHitFractions)
};

// Per epoch, the share of sample accesses the loader's tiers will serve (trainio.loader lru or nopfs; all 0
// for plain): the engine's planning (loader/access_plan.h — LRU simulation, nopfs' static placement) on
// rank 0's access string at `accelerators` ranks.
std::vector<double> loaderHitFractions(const WorkloadConfig& cfg, std::uint64_t accelerators);

// The sample figures from expectedDatasetFileSize of (up to `maxFiles` evenly spaced) train files.
SampleFigures sampleFigures(const WorkloadConfig& cfg, std::uint64_t maxFiles = 4096);

// The mean of a latency distribution in seconds (a normal truncated at 0 as the emulator draws it).
double meanLatencySeconds(const LatencyDistribution& latency);

// Predicts one accelerator count. Throws InputError naming the key for an impossible workload (batch 0,
// no compute time and no storage limits is fine: AU is 0 then, as DLIO's formula gives).
Prediction predictAt(const WorkloadConfig& cfg, std::uint64_t accelerators, const StorageParameters& storage,
                     const SampleFigures& sample, const ModelConstants& constants, MetricSemantics semantics);

// predictAt at `accelerators`, the search for the largest passing count (counts 1, 2, … while every one
// passes; the dataset must give each rank a step), the required bandwidth and the assumptions.
ModelResult runModel(const WorkloadConfig& cfg, std::uint64_t accelerators, const StorageParameters& storage,
                     const ModelConstants& constants = {}, MetricSemantics semantics = MetricSemantics::DlioV2);

// The prediction as the CLI's `model --format json` prints it (and the GUI and the report show it):
// {"predicted_au_percentage", "predicted_samples_per_second", "max_passing_accelerators",
//  "required_mib_s_per_accelerator", …} — docs/model.md lists every key.
nlohmann::ordered_json modelResultJson(const ModelResult& r);
// runModel + modelResultJson in one call: the pure function the GUI and the report call.
nlohmann::ordered_json predictionJson(const WorkloadConfig& cfg, std::uint64_t accelerators,
                                      const StorageParameters& storage, const ModelConstants& constants = {},
                                      MetricSemantics semantics = MetricSemantics::DlioV2);
// The human-readable form (`model --format text`).
std::string modelResultText(const ModelResult& r);

// The storage from the workload's trainio.storage keys (profile and/or own keys), as a run would use it.
// Throws InputError when the section describes no device (no profile, no limit).
StorageParameters storageFromConfig(const WorkloadConfig& cfg);
// The storage from a profile name or file (`--storage-profile`), with the section's own non-zero keys
// on top, as `run --storage-profile` would use it.
StorageParameters storageFromProfile(const WorkloadConfig& cfg, const std::string& profile);

} // namespace trainio::model
