// The resolved workload configuration: DLIO's workload sections as plain values with DLIO's defaults.
// Produced by ConfigLoader (YAML / JSON / presets + overrides), checked by validateConfig().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace trainio {

enum class DataFormat { Npz, Npy, Tfrecord, Hdf5, IndexedBinary, Raw, Jpeg, Png };
enum class ShuffleMode { Off, Seed, Random };
enum class ComputeDistribution { Constant, Normal, Uniform, Gamma, Exponential };
// v1: DLIO 1.0 (MLPerf Storage v1.0); v2: upstream DLIO >= 2.0; v3: MLCommons' DLIO fork behind MLPerf
// Storage v3.0 (mlcommons/DLIO_local_changes), see metrics/dlio_metrics.h.
enum class MetricSemantics { DlioV2, DlioV1, DlioV3 };

struct ComputeTime {
    ComputeDistribution distribution = ComputeDistribution::Constant;
    double mean = 0.0;  // constant value, or normal/… mean (seconds)
    double stdev = 0.0; // normal
    double min = 0.0;   // uniform
    double max = 0.0;   // uniform
    double shape = 0.0; // gamma
    double scale = 0.0; // gamma, exponential
    // The value DLIO 1.0 records as "compute": the configured mean of the distribution.
    double expectedSeconds() const;
};

// DLIO's model.parallelism (utils/config.py ConfigArguments: tensor_parallelism, …).
struct ParallelismSection {
    std::int64_t tensor = 1;
    std::int64_t pipeline = 1;
    std::int64_t data = -1; // -1: derived from the rank count (DLIO: must not be set in default mode)
    std::int64_t zeroStage = 0;
};

// DLIO's model.transformer (defaults as ConfigArguments).
struct TransformerSection {
    std::uint64_t vocabSize = 32000;
    std::uint64_t hiddenSize = 2048;
    std::uint64_t ffnHiddenSize = 8192;
    std::uint64_t numAttentionHeads = 32;
    std::uint64_t numKvHeads = 8;
};

struct ModelSection {
    std::string name = "default";
    std::string type; // cnn, transformer, … (informational)
    double modelSizeBytes = 0;                      // model.model_size_bytes (v1: checkpoint.model_size → CheckpointSection::modelSize)
    std::string modelDatatype = "fp16";             // fp16, bf16, fp32, fp64, int8, uint8
    std::string optimizerDatatype = "fp32";
    std::int64_t numLayers = -1;                    // -1: not a layered model
    std::vector<std::uint64_t> layerParameters;     // model.layer_parameters
    std::vector<std::uint64_t> optimizationGroups;  // model.optimization_groups
    ParallelismSection parallelism;
    TransformerSection transformer;
};

struct WorkflowSection {
    bool generateData = false;
    bool train = true;
    bool checkpoint = false;
    bool evaluation = false;
    bool profiling = false;
};

struct DatasetSection {
    std::string dataFolder = "./data/";
    DataFormat format = DataFormat::Tfrecord;
    std::uint64_t numFilesTrain = 8;
    std::uint64_t numFilesEval = 0;
    std::uint64_t numSamplesPerFile = 1;
    double recordLength = 65536;      // bytes, mean (record_length or record_length_bytes)
    double recordLengthStdev = 0;     // bytes
    double recordLengthResize = 0;    // bytes (informational: what the loader resizes to)
    std::uint64_t numSubfoldersTrain = 0;
    std::uint64_t numSubfoldersEval = 0;
    std::string filePrefix = "img";
    std::string recordElementType = "uint8";
    bool keepFiles = true;
    // The training files as a list (the key trainio.file_list, TrainIO's; docs/capture.md): a text file of
    // paths, one a line, relative ones to the list's own folder; they replace DLIO's names under
    // data_folder (a captured job's own files where they are). Empty: DLIO's names.
    std::string fileList;
};

struct ReaderSection {
    std::string dataLoader = "pytorch"; // pytorch, tensorflow, dali, native_dali, …
    std::uint64_t batchSize = 1;
    std::uint64_t batchSizeEval = 1;
    std::uint64_t readThreads = 1;
    std::uint64_t computationThreads = 1;
    std::uint64_t prefetchSize = 2; // batches buffered ahead per rank
    ShuffleMode fileShuffle = ShuffleMode::Off;
    ShuffleMode sampleShuffle = ShuffleMode::Off;
    std::uint64_t shuffleSize = 1024;
    std::uint64_t transferSize = 262144; // bytes per read() call; numpy reads npz in 256 KiB calls
    bool odirect = false;
    // DLIO's reader.preprocess_time: slept per sample by the reader thread after reading it (a number or
    // a distribution, as train.computation_time; reader/reader_handler.py preprocess()).
    ComputeTime preprocessTime;
};

struct TrainSection {
    std::uint64_t epochs = 1;
    ComputeTime computationTime;
    std::uint64_t seed = 123;
    bool seedChangeEpoch = true;
    std::uint64_t totalTrainingSteps = 0; // 0 = derived from the dataset
};

// DLIO's checkpoint section (the fork's utils/config.py LoadConfig and ConfigArguments defaults).
struct CheckpointSection {
    std::string folder = "./checkpoints/";
    std::uint64_t afterEpoch = 0;
    std::uint64_t epochsBetween = 1;
    std::uint64_t stepsBetween = 0;
    double modelSize = 0; // bytes
    bool fsync = false;
    std::string type = "rank_zero";        // rank_zero, all_ranks (CheckpointLocationType)
    std::string mode = "default";          // default, subset (CheckpointModeType)
    std::string mechanismClassname;        // checkpoint_mechanism_classname (informational)
    double timeBetweenCheckpoints = -1;    // seconds between checkpoint-only writes; -1: none
    std::int64_t numCheckpointsWrite = -1; // checkpoint-only mode; -1: DLIO's default
    std::int64_t numCheckpointsRead = -1;
    bool rankSync = false;
    bool recoveryRankShift = false;
    bool randomizeTensor = true;
};

struct EvaluationSection {
    std::uint64_t epochsBetweenEvals = 1;
    ComputeTime evalTime;
};

struct MetricSection {
    double au = 0.90;                 // pass threshold, fraction
    std::uint64_t excludeStartSteps = 1;
    std::uint64_t excludeEndSteps = 0;
};

// TrainIO's own section (`trainio:` beside DLIO's sections; DLIO ignores it): how the storage is read,
// emulated and observed. Values are validated names and numbers; core/io maps them onto backends.
struct LatencySpec {
    std::string type = "none"; // none, constant, normal, lognormal, exponential
    double value = 0;          // constant (ms)
    double mean = 0;           // normal, exponential (ms)
    double stdev = 0;          // normal (ms)
    double median = 0;         // lognormal (ms)
    double sigma = 0;          // lognormal (of the log)
};

struct StorageEmulationSection {
    std::string profile;        // resources/storage-profiles/<name>.yaml or a file; empty: none
    double bandwidthMiBs = 0;   // aggregate cap, MiB/s; 0: no cap
    LatencySpec latencyMs;      // per request
    double iops = 0;            // 0: no cap
    std::uint64_t maxInflight = 0; // 0: no limit
    bool any() const {
        return !profile.empty() || bandwidthMiBs > 0 || latencyMs.type != "none" || iops > 0 || maxInflight > 0;
    }
};

// The loader policy (issue 13, docs/loader.md): how samples reach the training loop. Capacities are per
// emulated accelerator (each rank has its own tiers, as NoPFS's workers do).
struct SsdTierSection {
    std::string path;          // a local folder for the SSD tier; empty: none
    double capacityMiB = 0;    // MiB of it the tier may use
};

struct LoaderSection {
    std::string policy = "plain"; // plain (DLIO's reader), lru (a RAM cache), nopfs (clairvoyant tiers)
    double ramTierMiB = 0;        // lru: the cache; nopfs: the RAM tier
    double stagingMiB = 0;        // nopfs: the staging buffer (read-ahead window); 0 = reader.prefetch_size batches
    SsdTierSection ssdTier;       // nopfs only
};

// The captured job a workload was derived from (trainio-cli workload --from-trace, docs/capture.md): its
// trace folder and its own figures from the step marks, carried into every result folder of a replay
// (configs/config.yaml) so that the library and the report show the real job beside the replay.
// Bookkeeping: never changes what is measured.
struct CapturedJobSection {
    std::string trace;           // the trace folder; empty: not a captured job's workload
    std::string steps;           // "marks" (trainio_capture.steps) or "inferred" (no marks: no job AU)
    double auPercent = 0;        // the job's AU, DLIO >= 2 semantics (steps "marks" only)
    double samplesPerSecond = 0; // the job's samples/s, same window
    std::string derived;         // the trace-decided keys as derived (trace::derivedFingerprint): a replay
                                 // whose keys differ was edited and is no longer the job
    bool hasFigures() const { return !trace.empty() && steps == "marks" && samplesPerSecond > 0; }
};

struct TrainioSection {
    std::string ioEngine = "posix"; // posix, odirect, mmap, io_uring (reader.odirect: true = odirect)
    std::uint64_t ioDepth = 32;     // io_uring requests in flight per reader
    std::string cache = "keep";     // keep, fadvise, drop (before each epoch)
    StorageEmulationSection storage;
    LoaderSection loader;
    double telemetryIntervalS = 1.0;
    // The MLPerf Storage round a preset belongs to ("v1.0", "v2.0", "v3.0"); empty for own workloads.
    std::string mlperfRound;
    // Checkpoint size factor for a workstation (1 = real size; 0.01 writes 1 % of every tensor).
    double checkpointScale = 1.0;
    // An MLPerf Storage submission attempt: its rules fail the result when not met (trainio.submission).
    bool submission = false;
    CapturedJobSection capturedJob;
    // The training loop's time to receive a batch its loader has ready (PyTorch's DataLoader: the batch
    // unpickled from a worker's queue, its shared-memory tensors mapped), per step, counted as waiting for
    // data: slept by the loop after each batch is taken. Derived from a captured job (docs/capture.md
    // "The batch hand-over"); 0 (none) otherwise, as in DLIO's own loop.
    ComputeTime handoverTime;
    // A captured job's CPU work per sample in its loader's workers (decode, transforms, the collation's
    // share), run on a core by the reader after each read, before it sleeps reader.preprocess_time (the
    // rest of the job's time per sample, blocked): on a machine whose cores the readers outnumber, the
    // replay waits for a core as the job did, no more (docs/capture.md "CPU time and waiting"). 0: none.
    ComputeTime preprocessCpuTime;
    // Each reader builds whole batches, handed out in turn (reader k of W: batches k, k + W, …), as PyTorch's
    // DataLoader workers do; false (DLIO-style here): the readers share every batch's samples.
    bool wholeBatches = false;
};

// DLIO's storage section (docs/s3.md): where the dataset and the checkpoints live. local_fs/parallel_fs
// read files; s3 reads objects of the bucket storage_root through the S3 backend (core/io/s3_backend.h).
struct StorageSection {
    std::string type = "local_fs"; // local_fs, parallel_fs, s3
    std::string root;              // s3: the bucket
    // storage.storage_options.* as DLIO spells them.
    std::string endpointUrl;       // http(s)://host:port; comma-separated list: process r uses entry r mod N
    std::string region = "us-east-1";
    std::string accessKeyId;       // discouraged in a YAML (warned); AWS_ACCESS_KEY_ID / AWS_PROFILE instead
    std::string secretAccessKey;   // never written anywhere: redacted as *** (docs/s3.md)
    std::string profile;           // TrainIO's: the AWS profile whose keys to use (empty: the environment's, AWS_PROFILE)
    bool forcePathStyle = false;   // http://endpoint/bucket/key instead of http://bucket.endpoint/key
    std::uint64_t maxAttempts = 5; // attempts per request (retries on 5xx, throttling, connection errors)
    // TrainIO's: a CA bundle for HTTPS, and the explicit (recorded) choice to skip certificate checks.
    std::string caBundle;
    bool verifyTls = true;
    bool isS3() const { return type == "s3"; }
};

struct WorkloadConfig {
    ModelSection model;
    std::string framework = "pytorch";
    WorkflowSection workflow;
    DatasetSection dataset;
    ReaderSection reader;
    TrainSection train;
    CheckpointSection checkpoint;
    EvaluationSection evaluation;
    MetricSection metric;
    StorageSection storage;
    TrainioSection trainio;

    // The workload label MLPerf Storage uses in overrides.yaml: "<model>_<accelerator>" (accelerator may be empty).
    std::string accelerator; // a100, h100, b200 — from the preset or the file name; empty when unknown
    std::string sourcePath;  // the file it was loaded from, for messages and provenance
    std::vector<std::string> overrides; // the ++workload.… overrides applied, verbatim
};

// Keys whose value is a secret, never written or shown (storage.storage_options.secret_access_key, session
// tokens): redacted as "***" in config copies, override lists and command lines (docs/s3.md).
bool isSecretKey(const std::string& dottedKey);
// The overrides with a secret's value replaced by "***" ("++workload.storage.storage_options.secret_access_key=***").
std::vector<std::string> redactSecretOverrides(const std::vector<std::string>& overrides);
// A command line or any text with the values of secret overrides (key=value) replaced by "***".
std::string redactSecretsInText(std::string text);

// Names as DLIO spells them in YAML.
const char* toString(DataFormat f);
const char* toString(ShuffleMode m);
const char* toString(ComputeDistribution d);
const char* fileExtension(DataFormat f); // npz, npy, tfrecord, hdf5, indexed_binary (.indexed_binary), …

} // namespace trainio
