#include "config/config_keys.h"

#include "config/config_internal.h"

#include <cctype>
#include <map>
#include <set>
#include <stdexcept>
#include <type_traits>

namespace trainio::config_keys {

namespace {

using K = config_schema::KeyKind;

// ---- values ----

template <class T>
Value toValue(const T& v) {
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, double> || std::is_same_v<T, std::string> ||
                  std::is_same_v<T, std::vector<std::uint64_t>>)
        return Value(v);
    else if constexpr (std::is_unsigned_v<T>)
        return Value(static_cast<std::uint64_t>(v));
    else
        return Value(static_cast<std::int64_t>(v));
}

template <class T>
void assign(T& dst, const Value& v) {
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::string> || std::is_same_v<T, std::vector<std::uint64_t>>) {
        if (const T* p = std::get_if<T>(&v)) {
            dst = *p;
            return;
        }
        throw std::logic_error("config_keys: a value of the wrong type for a field");
    } else {
        std::visit(
            [&](const auto& x) {
                using X = std::decay_t<decltype(x)>;
                if constexpr (std::is_arithmetic_v<X> && !std::is_same_v<X, bool>)
                    dst = static_cast<T>(x);
                else
                    throw std::logic_error("config_keys: a value of the wrong type for a numeric field");
            },
            v);
    }
}

// A binding to a member: `field([](auto& c) -> auto& { return c.reader.batchSize; })`.
template <class F>
Binding field(F f) {
    using T = std::remove_cvref_t<decltype(f(std::declval<WorkloadConfig&>()))>;
    return {[f](const WorkloadConfig& c) { return toValue<T>(f(c)); },
            [f](WorkloadConfig& c, const Value& v) { assign<T>(f(c), v); }};
}

// An enum field shown and written by name.
template <class E, class F>
Binding named(F f, std::optional<E> (*parse)(const std::string&)) {
    return {[f](const WorkloadConfig& c) { return Value(std::string(toString(f(c)))); },
            [f, parse](WorkloadConfig& c, const Value& v) {
                if (auto e = parse(std::get<std::string>(v))) f(c) = *e;
            }};
}

std::optional<ComputeDistribution> parseDistributionOrConstant(const std::string& s) {
    if (s == "constant") return ComputeDistribution::Constant;
    return config_detail::parseDistribution(s);
}

// ---- ranges ----

// Upper limits: far beyond any real training job, small enough that sizes, counts and their products
// stay exact in the engine's 64-bit arithmetic and that an absurd value ("99999999999999999999999" bytes)
// is caught here instead of at generation time.
constexpr double kTiB = 1099511627776.0; // 2^40
constexpr double kMaxFiles = 1e9;
constexpr double kMaxSeconds = 86400.0; // one day per step

ValueRange whole(double min, double max, const char* note = nullptr) {
    ValueRange r;
    r.min = min;
    r.max = max;
    r.whole = true;
    r.note = note;
    return r;
}

ValueRange real(double min, double max, bool exclusive = false, ValueUnit unit = ValueUnit::None, const char* note = nullptr) {
    ValueRange r;
    r.min = min;
    r.max = max;
    r.minExclusive = exclusive;
    r.unit = unit;
    r.note = note;
    return r;
}

ValueRange bytes(double min, double max, bool exclusive = false, bool isWhole = false) {
    ValueRange r = real(min, max, exclusive, ValueUnit::Bytes);
    r.whole = isWhole;
    return r;
}

ValueRange seconds(double min, double max, bool exclusive = false, const char* note = nullptr) {
    return real(min, max, exclusive, ValueUnit::Seconds, note);
}

// ---- rows ----

// A row under construction: `key("reader.batch_size", Type::Whole).def("1").range(…).unit("samples")…`.
struct Row {
    KeyDef k;
    Row& old(const char* p) { k.oldPath = p; return *this; }
    Row& def(const char* d) { k.dlioDefault = d; return *this; }
    Row& range(const ValueRange& r) { k.range = r; return *this; }
    Row& choices(std::vector<std::string> c) { k.choices = std::move(c); return *this; }
    Row& known(std::vector<std::string> v) { k.known = std::move(v); return *this; }
    Row& unit(const char* u) { k.unit = u; return *this; }
    Row& means(const char* m) { k.meaning = m; return *this; }
    Row& origin(const char* o) { k.origin = o; return *this; }
    Row& expect(const char* e) { k.expected = e; return *this; }
    Row& bind(Binding b) { k.field = std::move(b); return *this; }
    Row& flags(unsigned f) { k.flags |= f; return *this; }
    Row& gate(const char* g) { k.gate = g; return *this; }
    Row& bookkeeping() { k.flags |= Bookkeeping; return *this; }
    // Its role in a result's identity (config_keys.h Role): every row says one.
    Row& workload() { k.role = Role::Workload; return *this; }
    Row& setting() { k.role = Role::Setting; return *this; }
    Row& location() { k.role = Role::Location; return *this; }
};

Row key(const char* path, Type type, K kind = K::Used) {
    Row r;
    r.k.path = path;
    r.k.type = type;
    r.k.kind = kind;
    r.k.origin = "DLIO";
    return r;
}
Row section(const char* path) { return key(path, Type::Section, K::Section); }
// Known to DLIO, not used by TrainIO: accepted silently.
Row ignored(const char* path, const char* meaning, Type type = Type::Any) {
    return key(path, type, K::Ignored).means(meaning);
}

// MLPerf Storage Rules.md 4.3.4, Table 3 "Simulated accelerator memory" (mlcommons/storage; enforced by
// mlpstorage_py/rules/run_checkers/checkpointing.py check_accelerator_memory): b200 180 GB and mi355
// 288 GB in the CLOSED and OPEN divisions. The table's a100 and h100 (80 GB) are for `whatif` runs
// only, so they carry no memory here and are not checked, like the names the rule does not list.
const std::vector<Accelerator> kAccelerators = {
    {"a100", 0}, {"h100", 0}, {"h200", 0}, {"b200", 180}, {"gb200", 0}, {"mi300x", 0}, {"mi355", 288},
};

std::vector<std::string> namesOf(const std::vector<Accelerator>& v) {
    std::vector<std::string> out;
    for (const auto& a : v) out.push_back(a.name);
    return out;
}

const std::vector<std::string> kShuffles = {"off", "seed", "random"};
const std::vector<std::string> kDatatypes = {"fp16", "bf16", "fp32", "fp64", "int8", "uint8"};

std::vector<KeyDef> build() {
    std::vector<Row> t;
    auto add = [&](Row r) { t.push_back(std::move(r)); };
    // TrainIO's own top-level key.
    add(key("accelerator", Type::Text).workload()
            .origin("TrainIO")
            .expect("an accelerator name such as a100, h100, b200")
            .means("accelerator generation the compute time stands for (a100, h100, b200, …; no '_')")
            .known(namesOf(kAccelerators))
            .bind(field([](auto& c) -> auto& { return c.accelerator; }))
            .flags(CustomRead | CustomWrite | CustomCheck));

    add(section("model").workload().means("the model: v1.0 writes a plain name (model: unet3d), later DLIO a map"));
    add(key("model.name", Type::Text).workload()
            .def("default").expect("a model name")
            .means("workload name; with the accelerator it forms the MLPerf label (unet3d_a100)")
            .bind(field([](auto& c) -> auto& { return c.model.name; }))
            .flags(CustomRead | CustomCheck));
    add(key("model.type", Type::Text).setting()
            .expect("a model type such as cnn or transformer")
            .means("informational (cnn, transformer, …)")
            .bind(field([](auto& c) -> auto& { return c.model.type; }))
            .flags(CustomRead | OmitWhenEmpty));
    add(key("model.model_size_bytes", Type::Bytes).setting().gate("workflow.checkpoint")
            .old("checkpoint.model_size").def("10240").range(bytes(0, 1024 * kTiB)).unit("bytes")
            .means("checkpoint size of a model without layers (v1.0: checkpoint.model_size)")
            // Two fields say it (the checkpoint section's, older, and the model's): one binding keeps them equal.
            .bind({[](const WorkloadConfig& c) { return Value(c.checkpoint.modelSize); },
                   [](WorkloadConfig& c, const Value& v) {
                       assign<double>(c.checkpoint.modelSize, v);
                       c.model.modelSizeBytes = c.checkpoint.modelSize;
                   }})
            .flags(CustomRead));
    add(ignored("model.model_size", "MLPerf Storage v3.0's unet3d configs carry it; DLIO reads only model_size_bytes").setting().gate("workflow.checkpoint")
            .origin("MLPerf Storage v3.0"));
    add(key("model.model_datatype", Type::Choice).setting().gate("workflow.checkpoint")
            .def("fp16").choices(kDatatypes).origin("DLIO (MLPerf v3.0 fork)")
            .means("data type of the model's tensors in a checkpoint")
            .bind(field([](auto& c) -> auto& { return c.model.modelDatatype; })));
    add(key("model.optimizer_datatype", Type::Choice).setting().gate("workflow.checkpoint")
            .def("fp32").choices(kDatatypes).origin("DLIO (MLPerf v3.0 fork)")
            .means("data type of the optimizer state in a checkpoint")
            .bind(field([](auto& c) -> auto& { return c.model.optimizerDatatype; })));
    add(key("model.optimization_groups", Type::WholeList).setting().gate("workflow.checkpoint")
            .def("[]").origin("DLIO (MLPerf v3.0 fork)").unit("parameters")
            .means("optimizer parameter groups of a layered model without transformer sizes")
            .bind(field([](auto& c) -> auto& { return c.model.optimizationGroups; })));
    add(key("model.num_layers", Type::Integer).setting().gate("workflow.checkpoint")
            .def("-1").range(whole(-1, 1e6, "-1 for a model without layers")).origin("DLIO (MLPerf v3.0 fork)").unit("layers")
            .means("transformer layers; the checkpoint is sized from the layers when > 0")
            .bind(field([](auto& c) -> auto& { return c.model.numLayers; })));
    add(key("model.layer_parameters", Type::WholeList).setting().gate("workflow.checkpoint")
            .def("[]").origin("DLIO (MLPerf v3.0 fork)").unit("parameters")
            .means("parameters of each layer of a layered model without transformer sizes")
            .bind(field([](auto& c) -> auto& { return c.model.layerParameters; })));
    add(section("model.parallelism").setting().gate("workflow.checkpoint").origin("DLIO (MLPerf v3.0 fork)").means("how the model is split over the ranks"));
    add(key("model.parallelism.tensor", Type::Integer).setting()
            .def("1").range(whole(1, 1e6)).origin("DLIO (MLPerf v3.0 fork)").unit("ranks")
            .means("tensor parallelism")
            .bind(field([](auto& c) -> auto& { return c.model.parallelism.tensor; })));
    add(key("model.parallelism.pipeline", Type::Integer).setting()
            .def("1").range(whole(1, 1e6)).origin("DLIO (MLPerf v3.0 fork)").unit("ranks")
            .means("pipeline parallelism")
            .bind(field([](auto& c) -> auto& { return c.model.parallelism.pipeline; })));
    add(key("model.parallelism.data", Type::Integer).setting()
            .def("-1").range(whole(-1, 1e9, "-1 for the number of ranks")).origin("DLIO (MLPerf v3.0 fork)").unit("ranks")
            .means("data parallelism: set only in subset mode (DLIO derives it from the ranks otherwise)")
            .bind(field([](auto& c) -> auto& { return c.model.parallelism.data; })));
    add(key("model.parallelism.zero_stage", Type::Integer).setting()
            .def("0").range(whole(0, 3)).origin("DLIO (MLPerf v3.0 fork)")
            .means("DeepSpeed ZeRO stage (0 … 3): how optimizer state and parameters are sharded")
            .bind(field([](auto& c) -> auto& { return c.model.parallelism.zeroStage; })));
    add(section("model.transformer").setting().gate("workflow.checkpoint").origin("DLIO (MLPerf v3.0 fork)").means("transformer sizes (llama3 presets)"));
    const ValueRange dim = whole(1, 1e9);
    add(key("model.transformer.vocab_size", Type::Whole).setting().def("32000").range(dim).origin("DLIO (MLPerf v3.0 fork)")
            .unit("tokens").means("vocabulary size")
            .bind(field([](auto& c) -> auto& { return c.model.transformer.vocabSize; })));
    add(key("model.transformer.hidden_size", Type::Whole).setting().def("2048").range(dim).origin("DLIO (MLPerf v3.0 fork)")
            .means("hidden size").bind(field([](auto& c) -> auto& { return c.model.transformer.hiddenSize; })));
    add(key("model.transformer.ffn_hidden_size", Type::Whole).setting().def("8192").range(dim).origin("DLIO (MLPerf v3.0 fork)")
            .means("feed-forward hidden size")
            .bind(field([](auto& c) -> auto& { return c.model.transformer.ffnHiddenSize; })));
    add(key("model.transformer.num_attention_heads", Type::Whole).setting().def("32").range(dim).origin("DLIO (MLPerf v3.0 fork)")
            .unit("heads").means("attention heads")
            .bind(field([](auto& c) -> auto& { return c.model.transformer.numAttentionHeads; })));
    add(key("model.transformer.num_kv_heads", Type::Whole).setting().def("8").range(dim).origin("DLIO (MLPerf v3.0 fork)")
            .unit("heads").means("key/value heads (grouped-query attention)")
            .bind(field([](auto& c) -> auto& { return c.model.transformer.numKvHeads; })));

    add(key("framework", Type::Choice).setting()
            .def("tensorflow").choices({"tensorflow", "pytorch"}).expect("tensorflow or pytorch")
            .means("the framework DLIO emulates")
            .bind(field([](auto& c) -> auto& { return c.framework; }))
            .flags(CustomCheck));

    add(section("workflow").setting().means("what a run does"));
    add(key("workflow.generate_data", Type::Bool).setting().def("false").means("generate the dataset before training")
            .bind(field([](auto& c) -> auto& { return c.workflow.generateData; })));
    add(key("workflow.train", Type::Bool).setting().def("true").means("run the training emulation")
            .bind(field([](auto& c) -> auto& { return c.workflow.train; })));
    add(key("workflow.checkpoint", Type::Bool).setting().def("false")
            .means("write checkpoints (with train: false, the checkpoint-only mode)")
            .bind(field([](auto& c) -> auto& { return c.workflow.checkpoint; })));
    add(key("workflow.evaluation", Type::Bool).setting().def("false").means("run evaluation steps")
            .bind(field([](auto& c) -> auto& { return c.workflow.evaluation; })));
    add(key("workflow.profiling", Type::Bool).setting().def("false").means("DLIO's profiling switch (recorded)")
            .bind(field([](auto& c) -> auto& { return c.workflow.profiling; })));
    add(ignored("workflow.debug", "DLIO's debug logging").setting().bookkeeping());

    add(section("storage").setting().means("DLIO's storage backend: the local file system or an S3 bucket (docs/s3.md)"));
    add(key("storage.storage_type", Type::Choice).setting().def("local_fs").choices({"local_fs", "parallel_fs", "s3"})
            .means("where the dataset and checkpoints live: files (local_fs, parallel_fs) or objects of an S3 bucket (s3)")
            .bind(field([](auto& c) -> auto& { return c.storage.type; })));
    add(key("storage.storage_root", Type::Text).location().expect("a bucket name")
            .means("s3: the bucket holding the dataset (and checkpoints)")
            .bind(field([](auto& c) -> auto& { return c.storage.root; })).flags(OmitWhenEmpty));
    add(key("storage.storage_options", Type::Map, K::OpenIgnored).setting().means("backend options (the S3 keys below are read; others are free-form)"));
    add(key("storage.storage_options.endpoint_url", Type::Text).location().expect("an http:// or https:// URL")
            .means("s3: the endpoint (comma-separated: process r uses entry r mod N)")
            .bind(field([](auto& c) -> auto& { return c.storage.endpointUrl; })).flags(OmitWhenEmpty));
    add(key("storage.storage_options.region", Type::Text).location().def("us-east-1").expect("a region name")
            .means("s3: the region the requests are signed for (SigV4)")
            .bind(field([](auto& c) -> auto& { return c.storage.region; })));
    add(key("storage.storage_options.access_key_id", Type::Text).setting().expect("an access key id")
            .means("s3: the access key (better: AWS_ACCESS_KEY_ID or AWS_PROFILE)")
            .bind(field([](auto& c) -> auto& { return c.storage.accessKeyId; })).flags(OmitWhenEmpty));
    add(key("storage.storage_options.secret_access_key", Type::Text).setting().expect("a secret key")
            .means("s3: the secret key (better: AWS_SECRET_ACCESS_KEY or AWS_PROFILE); written nowhere, shown as ***")
            .bind(field([](auto& c) -> auto& { return c.storage.secretAccessKey; })).flags(OmitWhenEmpty));
    add(key("storage.storage_options.profile", Type::Text).setting().origin("TrainIO").expect("a profile name")
            .means("s3: the AWS profile (~/.aws/credentials or ~/.aws/config) whose keys to use; empty: "
                   "AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, else AWS_PROFILE or the default profile")
            .bind(field([](auto& c) -> auto& { return c.storage.profile; })).flags(OmitWhenEmpty));
    add(key("storage.storage_options.s3_force_path_style", Type::Bool).setting().def("false")
            .means("s3: address the bucket in the path (http://endpoint/bucket/key) instead of the host name")
            .bind(field([](auto& c) -> auto& { return c.storage.forcePathStyle; })));
    add(key("storage.storage_options.s3_max_attempts", Type::Whole).setting().def("5").range(whole(1, 100)).unit("attempts")
            .means("s3: attempts per request (retried with backoff on 5xx, throttling and connection errors)")
            .bind(field([](auto& c) -> auto& { return c.storage.maxAttempts; })));
    add(key("storage.storage_options.ca_bundle", Type::Text).location().origin("TrainIO").expect("a PEM file")
            .means("s3 over HTTPS: the CA certificates to verify the endpoint with (default: the system's)")
            .bind(field([](auto& c) -> auto& { return c.storage.caBundle; })).flags(OmitWhenEmpty));
    add(key("storage.storage_options.verify_tls", Type::Bool).setting().origin("TrainIO").def("true")
            .means("s3 over HTTPS: verify the endpoint's certificate (false is recorded in the result)")
            .bind(field([](auto& c) -> auto& { return c.storage.verifyTls; })));
    add(ignored("storage.storage_library", "S3 client library").setting().origin("DLIO (MLPerf v3.0 fork)"));
    add(ignored("storage.post_generation_settle_seconds", "pause after data generation", Type::Number).setting()
            .origin("DLIO (MLPerf v3.0 fork)"));

    add(section("dataset").setting().means("the dataset: where, which format, how many files of what size"));
    add(key("dataset.data_folder", Type::Text).location().def("./data/").unit("path").expect("a folder path")
            .means("dataset root; train/ and valid/ are created below it")
            .bind(field([](auto& c) -> auto& { return c.dataset.dataFolder; }))
            .flags(CustomCheck));
    add(key("dataset.format", Type::Choice).workload()
            .def("tfrecord").choices({"npz", "npy", "tfrecord", "hdf5", "indexed_binary", "raw", "jpeg", "png"})
            .means("file format of the dataset (DLIO's csv, parquet, hdf5_opt, … are refused: TrainIO cannot write them)")
            .bind(named<DataFormat>([](auto& c) -> auto& { return c.dataset.format; }, &config_detail::parseFormat))
            .flags(CustomRead));
    add(key("dataset.num_files_train", Type::Whole).setting().def("8").range(whole(1, kMaxFiles)).unit("files")
            .means("number of training files").bind(field([](auto& c) -> auto& { return c.dataset.numFilesTrain; })));
    add(key("dataset.num_files_eval", Type::Whole).setting().gate("workflow.evaluation").def("0").range(whole(0, kMaxFiles)).unit("files")
            .means("number of evaluation files").bind(field([](auto& c) -> auto& { return c.dataset.numFilesEval; })));
    add(key("dataset.num_samples_per_file", Type::Whole).workload().def("1").range(whole(1, 1e9)).unit("samples")
            .means("samples in each file").bind(field([](auto& c) -> auto& { return c.dataset.numSamplesPerFile; })));
    add(key("dataset.record_length_bytes", Type::Bytes).workload().old("dataset.record_length").def("65536")
            .range(bytes(0, kTiB, true)).unit("bytes").means("mean sample size (may be fractional)")
            .bind(field([](auto& c) -> auto& { return c.dataset.recordLength; })).flags(CustomRead));
    add(key("dataset.record_length_bytes_stdev", Type::Bytes).workload().old("dataset.record_length_stdev").def("0")
            .range(bytes(0, kTiB)).unit("bytes").means("standard deviation of the sample size")
            .bind(field([](auto& c) -> auto& { return c.dataset.recordLengthStdev; })).flags(CustomRead));
    add(key("dataset.record_length_bytes_resize", Type::Bytes).setting().old("dataset.record_length_resize").def("0")
            .range(bytes(0, kTiB)).unit("bytes").means("size the loader resizes samples to (informational)")
            .bind(field([](auto& c) -> auto& { return c.dataset.recordLengthResize; })).flags(CustomRead));
    add(key("dataset.num_subfolders_train", Type::Whole).setting().def("0").range(whole(0, 1e6)).unit("folders")
            .means("spread training files over this many subfolders (0 or 1 = none)")
            .bind(field([](auto& c) -> auto& { return c.dataset.numSubfoldersTrain; })));
    add(key("dataset.num_subfolders_eval", Type::Whole).setting().gate("workflow.evaluation").def("0").range(whole(0, 1e6)).unit("folders")
            .means("spread evaluation files over this many subfolders")
            .bind(field([](auto& c) -> auto& { return c.dataset.numSubfoldersEval; })));
    add(key("dataset.file_prefix", Type::Text).location().def("img").expect("a file name prefix")
            .means("prefix of every data file name").bind(field([](auto& c) -> auto& { return c.dataset.filePrefix; }))
            .flags(CustomCheck));
    add(key("dataset.record_element_type", Type::Choice).setting().def("uint8")
            .choices({"uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64", "float16", "float32", "float64"})
            .means("numpy dtype of one record element")
            .bind(field([](auto& c) -> auto& { return c.dataset.recordElementType; })));
    add(key("dataset.keep_files", Type::Bool).setting().def("true").means("keep the dataset after the run")
            .bind(field([](auto& c) -> auto& { return c.dataset.keepFiles; })));
    add(ignored("dataset.generation_buffer_size", "DLIO's generator buffer", Type::Bytes).setting());
    add(ignored("dataset.enable_chunking", "HDF5 chunking", Type::Bool).setting());
    add(ignored("dataset.chunk_size", "HDF5 chunk size", Type::Bytes).setting());
    add(ignored("dataset.compression", "compression of generated files").setting());
    add(ignored("dataset.compression_level", "compression level").setting());
    add(ignored("dataset.record_element_bytes", "bytes per record element").setting());
    add(ignored("dataset.record_dims", "record dimensions").setting());
    add(ignored("dataset.num_dataset_per_record", "HDF5 datasets per record").setting());
    add(ignored("dataset.skip_listing", "skip listing the dataset folder", Type::Bool).setting().origin("DLIO (MLPerf v3.0 fork)"));
    add(ignored("dataset.listing_validation_interval", "files checked when listing is skipped", Type::Whole).setting()
            .origin("DLIO (MLPerf v3.0 fork)"));
    add(ignored("dataset.data_gen_method", "the generator's method (dgen or numpy)").setting().origin("DLIO (MLPerf v3.0 fork)"));
    add(key("dataset.parquet", Type::Map, K::OpenIgnored).setting().origin("DLIO (MLPerf v3.0 fork)")
            .means("Parquet options (Parquet itself is refused: Debian 12 has no Parquet/Arrow library)"));
    add(section("dataset.hdf5").setting().means("HDF5 layout"));
    add(ignored("dataset.hdf5.chunk_dims", "HDF5 chunk dimensions").setting());
    add(ignored("dataset.hdf5.num_dset_per_record", "HDF5 datasets per record").setting());
    add(ignored("dataset.hdf5.max_shape", "HDF5 maximum shape").setting());

    add(section("reader").setting().means("how the data is read (DLIO also calls it data_reader)"));
    add(key("reader.data_loader", Type::Choice).setting().def("tensorflow")
            .choices({"pytorch", "tensorflow", "dali", "native_dali", "custom", "none", "synthetic", "daos_pytorch"})
            .means("the data loader DLIO emulates")
            .bind(field([](auto& c) -> auto& { return c.reader.dataLoader; })));
    add(key("reader.batch_size", Type::Whole).workload().def("1").range(whole(1, 1e7)).unit("samples")
            .means("samples per training step per accelerator")
            .bind(field([](auto& c) -> auto& { return c.reader.batchSize; })));
    add(key("reader.batch_size_eval", Type::Whole).setting().gate("workflow.evaluation").def("1").range(whole(1, 1e7)).unit("samples")
            .means("samples per evaluation step").bind(field([](auto& c) -> auto& { return c.reader.batchSizeEval; })));
    add(key("reader.read_threads", Type::Whole).setting().def("1").range(whole(0, 1024)).unit("threads")
            .means("reader threads per accelerator; 0: the training loop loads each batch itself when it asks for it, "
                   "nothing ahead (DLIO's pytorch: DataLoader num_workers 0)")
            .bind(field([](auto& c) -> auto& { return c.reader.readThreads; })));
    add(key("reader.computation_threads", Type::Whole).setting().def("1").range(whole(1, 1024)).unit("threads")
            .means("preprocessing threads").bind(field([](auto& c) -> auto& { return c.reader.computationThreads; })));
    add(key("reader.prefetch_size", Type::Whole).setting().def("2").range(whole(0, 1e6)).unit("batches")
            .means("batches buffered ahead per accelerator (0 allowed, as in MLPerf results)")
            .bind(field([](auto& c) -> auto& { return c.reader.prefetchSize; })));
    add(key("reader.file_shuffle", Type::Choice).setting().def("off").choices(kShuffles)
            .means("file order: off, seed (reproducible) or random (false = off: YAML 1.1 turns off into false)")
            .bind(named<ShuffleMode>([](auto& c) -> auto& { return c.reader.fileShuffle; }, &config_detail::parseShuffle))
            .flags(CustomRead));
    add(key("reader.sample_shuffle", Type::Choice).setting().def("off").choices(kShuffles)
            .means("sample order: off, seed (reproducible) or random")
            .bind(named<ShuffleMode>([](auto& c) -> auto& { return c.reader.sampleShuffle; }, &config_detail::parseShuffle))
            .flags(CustomRead));
    add(key("reader.shuffle_size", Type::Whole).setting().def("1024").range(whole(1, 1e12)).unit("samples")
            .means("shuffle buffer size").bind(field([](auto& c) -> auto& { return c.reader.shuffleSize; })));
    add(key("reader.transfer_size", Type::Bytes).setting().def("262144").range(bytes(0, 4294967296.0, false, true)).unit("bytes")
            .means("bytes per read() call (DLIO's null keeps TrainIO's 256 KiB)")
            .bind(field([](auto& c) -> auto& { return c.reader.transferSize; })).flags(CustomRead));
    add(key("reader.odirect", Type::Bool).setting().def("false").means("read with O_DIRECT, bypassing the page cache")
            .bind(field([](auto& c) -> auto& { return c.reader.odirect; })));
    add(ignored("reader.write_threads", "generator threads", Type::Whole).setting());
    add(ignored("reader.dont_use_mmap", "DLIO's mmap switch", Type::Bool).setting());
    add(ignored("reader.reader_classname", "a custom reader class").setting());
    add(ignored("reader.multiprocessing_context", "fork, spawn or forkserver").setting());
    add(ignored("reader.data_loader_classname", "a custom data loader class").setting());
    add(ignored("reader.data_loader_sampler", "iterative or index").setting());
    add(ignored("reader.file_access", "multi or shared").setting());
    add(ignored("reader.read_type", "on_demand or memory").setting());
    add(key("reader.preprocess_time", Type::TimeSpec, K::TimeSpec).workload().def("0").range(seconds(0, kMaxSeconds)).unit("s")
            .means("emulated preprocessing per sample, slept by the reader thread after each read: a number, or a "
                   "distribution map as train.computation_time")
            .bind(field([](auto& c) -> auto& { return c.reader.preprocessTime.mean; }))
            .flags(CustomRead | CustomWrite | CustomCheck));
    add(key("reader.preprocess_time_stdev", Type::Seconds).workload().def("0").unit("s")
            .means("DLIO's separate stdev: makes the time normal(mean, stdev)")
            .flags(CustomRead | NotWritten | CustomCheck));
    add(ignored("reader.pin_memory", "pytorch's pin_memory", Type::Bool).setting());
    add(ignored("reader.transformed_record_dims", "dimensions after the transform").setting());
    add(ignored("reader.transformed_record_element_type", "element type after the transform").setting());
    add(ignored("reader.transformed_sample", "the transform").setting());
    add(ignored("reader.transformed_sample_type", "the transform's type").setting());

    add(section("train").setting().means("the training loop"));
    add(key("train.epochs", Type::Whole).setting().def("1").range(whole(1, 1e6)).unit("epochs").means("passes over the dataset")
            .bind(field([](auto& c) -> auto& { return c.train.epochs; })));
    add(key("train.computation_time", Type::TimeSpec, K::TimeSpec).workload().def("0").range(seconds(0, kMaxSeconds)).unit("s")
            .means("emulated accelerator compute per step: a number, or a distribution map (below)")
            .bind(field([](auto& c) -> auto& { return c.train.computationTime.mean; }))
            .flags(CustomRead | CustomWrite | CustomCheck));
    add(key("train.computation_time.type", Type::Choice).workload().def("constant")
            .choices({"constant", "normal", "uniform", "gamma", "exponential"})
            .means("distribution of the compute time per step (DLIO's sleep())")
            .bind(named<ComputeDistribution>([](auto& c) -> auto& { return c.train.computationTime.distribution; },
                                             &parseDistributionOrConstant))
            .flags(NotAKey));
    const ValueRange secs = seconds(0, kMaxSeconds);
    add(key("train.computation_time.mean", Type::Seconds).workload().def("0").range(secs).unit("s").means("mean (constant, normal)")
            .bind(field([](auto& c) -> auto& { return c.train.computationTime.mean; })).flags(NotAKey));
    add(key("train.computation_time.stdev", Type::Seconds).workload().def("0").range(secs).unit("s").means("standard deviation (normal)")
            .bind(field([](auto& c) -> auto& { return c.train.computationTime.stdev; })).flags(NotAKey));
    add(key("train.computation_time.min", Type::Seconds).workload().def("0").range(secs).unit("s").means("lower bound (uniform)")
            .bind(field([](auto& c) -> auto& { return c.train.computationTime.min; })).flags(NotAKey));
    add(key("train.computation_time.max", Type::Seconds).workload().def("0").range(secs).unit("s").means("upper bound (uniform, >= min)")
            .bind(field([](auto& c) -> auto& { return c.train.computationTime.max; })).flags(NotAKey));
    // 0 while the distribution does not use it; the validator asks > 0 for gamma.
    add(key("train.computation_time.shape", Type::Number).workload().def("0").range(real(0, 1e6, false, ValueUnit::None, "> 0 for gamma"))
            .means("shape k (gamma)")
            .bind(field([](auto& c) -> auto& { return c.train.computationTime.shape; })).flags(NotAKey));
    add(key("train.computation_time.scale", Type::Seconds).workload().def("0").range(seconds(0, kMaxSeconds, true)).unit("s")
            .means("scale θ (gamma, exponential)")
            .bind(field([](auto& c) -> auto& { return c.train.computationTime.scale; })).flags(NotAKey));
    add(key("train.computation_time_stdev", Type::Seconds).workload().def("0").unit("s")
            .means("DLIO's separate stdev: makes the time normal(mean, stdev)")
            .flags(CustomRead | NotWritten | CustomCheck));
    add(key("train.seed", Type::Whole).setting().def("123").range(whole(0, 18446744073709551615.0)).means("shuffle seed")
            .bind(field([](auto& c) -> auto& { return c.train.seed; })));
    add(key("train.seed_change_epoch", Type::Bool).setting().def("true").means("use seed + epoch in every epoch")
            .bind(field([](auto& c) -> auto& { return c.train.seedChangeEpoch; })));
    add(key("train.total_training_steps", Type::Whole).setting().def("-1").range(whole(0, 1e15, "0 or -1 for the whole dataset"))
            .unit("steps").means("stop after this many steps (-1 or 0 = the whole dataset)")
            .bind(field([](auto& c) -> auto& { return c.train.totalTrainingSteps; })).flags(MinusOneIsZero));
    add(ignored("train.eval_time", "old spelling of evaluation.eval_time").setting());
    add(ignored("train.eval_after_epoch", "old spelling of evaluation.eval_after_epoch").setting());
    add(ignored("train.do_eval", "old spelling of workflow.evaluation").setting());

    add(section("evaluation").setting().means("evaluation steps").gate("workflow.evaluation"));
    add(key("evaluation.eval_time", Type::TimeSpec, K::TimeSpec).setting().def("0").range(secs).unit("s")
            .means("emulated compute per evaluation step (a number or a distribution map)")
            .bind(field([](auto& c) -> auto& { return c.evaluation.evalTime.mean; }))
            .flags(CustomRead | CustomWrite | CustomCheck));
    add(key("evaluation.eval_time_stdev", Type::Seconds).setting().def("0").unit("s")
            .means("DLIO's separate stdev of eval_time").flags(CustomRead | NotWritten | CustomCheck));
    add(key("evaluation.epochs_between_evals", Type::Whole).setting().def("1").range(whole(1, 1e6)).unit("epochs")
            .means("evaluate every N epochs").bind(field([](auto& c) -> auto& { return c.evaluation.epochsBetweenEvals; })));
    add(ignored("evaluation.eval_after_epoch", "first epoch that evaluates").setting());

    add(section("checkpoint").setting().means("checkpoints: during training, or alone with workflow.train: false").gate("workflow.checkpoint"));
    add(key("checkpoint.checkpoint_folder", Type::Text).location().def("./checkpoints/").unit("path").expect("a folder path")
            .means("where checkpoints go").bind(field([](auto& c) -> auto& { return c.checkpoint.folder; }))
            .flags(CustomCheck));
    add(key("checkpoint.checkpoint_after_epoch", Type::Whole).setting().def("1").range(whole(0, 1e6)).unit("epoch")
            .means("first epoch that checkpoints").bind(field([](auto& c) -> auto& { return c.checkpoint.afterEpoch; })));
    add(key("checkpoint.epochs_between_checkpoints", Type::Whole).setting().def("1").range(whole(1, 1e6)).unit("epochs")
            .means("checkpoint every N epochs").bind(field([](auto& c) -> auto& { return c.checkpoint.epochsBetween; })));
    add(key("checkpoint.steps_between_checkpoints", Type::Whole).setting().def("-1").range(whole(0, 1e15, "0 or -1 for off"))
            .unit("steps").means("checkpoint every N steps (-1 = off)")
            .bind(field([](auto& c) -> auto& { return c.checkpoint.stepsBetween; })).flags(MinusOneIsZero));
    add(key("checkpoint.fsync", Type::Bool).setting().def("false").means("fsync every checkpoint file after writing it")
            .bind(field([](auto& c) -> auto& { return c.checkpoint.fsync; })));
    add(key("checkpoint.type", Type::Choice).setting().def("rank_zero").choices({"rank_zero", "all_ranks"})
            .origin("DLIO (MLPerf v3.0 fork)").means("which ranks write: rank 0 only, or every rank")
            .bind(field([](auto& c) -> auto& { return c.checkpoint.type; })));
    add(key("checkpoint.mode", Type::Choice).setting().def("default").choices({"default", "subset"})
            .origin("DLIO (MLPerf v3.0 fork)")
            .means("subset: only model.parallelism.data ranks' share is written (MLPerf allows it for llama3 8B only)")
            .bind(field([](auto& c) -> auto& { return c.checkpoint.mode; })));
    add(key("checkpoint.checkpoint_mechanism_classname", Type::Text).setting().origin("DLIO (MLPerf v3.0 fork)")
            .expect("a Python class name").means("a custom checkpoint class (informational)")
            .bind(field([](auto& c) -> auto& { return c.checkpoint.mechanismClassname; })).flags(OmitWhenEmpty));
    add(key("checkpoint.time_between_checkpoints", Type::Seconds).setting().def("-1")
            .range(seconds(-1, 1e6, false, "-1 for none")).unit("s").origin("DLIO (MLPerf v3.0 fork)")
            .means("pause between checkpoints in checkpoint-only mode (-1 = none)")
            .bind(field([](auto& c) -> auto& { return c.checkpoint.timeBetweenCheckpoints; })));
    add(key("checkpoint.num_checkpoints_write", Type::Integer).setting().def("-1")
            .range(whole(-1, 1e6, "-1 for DLIO's default")).unit("checkpoints").origin("DLIO (MLPerf v3.0 fork)")
            .means("checkpoints written in checkpoint-only mode")
            .bind(field([](auto& c) -> auto& { return c.checkpoint.numCheckpointsWrite; })));
    add(key("checkpoint.num_checkpoints_read", Type::Integer).setting().def("-1")
            .range(whole(-1, 1e6, "-1 for DLIO's default")).unit("checkpoints").origin("DLIO (MLPerf v3.0 fork)")
            .means("checkpoints read back in checkpoint-only mode (<= num_checkpoints_write)")
            .bind(field([](auto& c) -> auto& { return c.checkpoint.numCheckpointsRead; })));
    add(key("checkpoint.recovery_rank_shift", Type::Bool).setting().def("false").origin("DLIO (MLPerf v3.0 fork)")
            .means("read another rank's checkpoint, so that no rank reads its own from the page cache")
            .bind(field([](auto& c) -> auto& { return c.checkpoint.recoveryRankShift; })));
    add(key("checkpoint.rank_sync", Type::Bool).setting().def("false").origin("DLIO (MLPerf v3.0 fork)")
            .means("barrier between the ranks around each checkpoint")
            .bind(field([](auto& c) -> auto& { return c.checkpoint.rankSync; })));
    add(key("checkpoint.randomize_tensor", Type::Bool).setting().def("true").origin("DLIO (MLPerf v3.0 fork)")
            .means("fill tensors with random bytes (false: zeros)")
            .bind(field([](auto& c) -> auto& { return c.checkpoint.randomizeTensor; })));
    add(key("checkpoint.ksm", Type::Map, K::OpenIgnored).setting().origin("DLIO (MLPerf v3.0 fork)")
            .means("kernel same-page merging of the tensors (free-form)"));
    add(ignored("checkpoint.optimization_groups", "old place of model.optimization_groups").setting());
    add(ignored("checkpoint.num_layers", "old place of model.num_layers").setting());
    add(ignored("checkpoint.layer_parameters", "old place of model.layer_parameters").setting());
    add(ignored("checkpoint.tensor_parallelism", "old place of model.parallelism.tensor").setting());
    add(ignored("checkpoint.pipeline_parallelism", "old place of model.parallelism.pipeline").setting());
    add(ignored("checkpoint.do_checkpoint", "old spelling of workflow.checkpoint").setting());
    add(ignored("checkpoint.output_folder", "old spelling of checkpoint_folder").location());

    add(section("output").setting().means("DLIO's output folder and metric window"));
    add(ignored("output.folder", "DLIO's output folder (TrainIO's is --output)").location());
    add(ignored("output.log_file", "DLIO's log file").location());
    add(section("output.metric").setting().means("the steps the metrics leave out"));
    add(key("output.metric.exclude_start_steps", Type::Whole).setting().def("1").range(whole(0, 1e9)).unit("steps")
            .means("steps left out of AU at the start of each epoch (DLIO's name; not under metric)")
            .bind(field([](auto& c) -> auto& { return c.metric.excludeStartSteps; })));
    add(key("output.metric.exclude_end_steps", Type::Whole).setting().def("0").range(whole(0, 1e9)).unit("steps")
            .means("steps left out of AU at the end of each epoch")
            .bind(field([](auto& c) -> auto& { return c.metric.excludeEndSteps; })));

    add(section("profiling").setting().means("DLIO's profiler").gate("workflow.profiling"));
    add(ignored("profiling.profiler", "iostat, darshan, …").setting());
    add(ignored("profiling.iostat_devices", "devices iostat watches").setting());

    add(section("metric").setting().means("the pass threshold"));
    add(key("metric.au", Type::Fraction).workload().def("0.90").range(real(0, 1, true, ValueUnit::Fraction)).unit("fraction")
            .means("a run passes when its AU is at least this")
            .bind(field([](auto& c) -> auto& { return c.metric.au; })));

    // TrainIO's own section (DLIO ignores it): I/O engine, cache control, emulated storage, telemetry.
    add(section("trainio").setting().origin("TrainIO").means("TrainIO's own settings (DLIO ignores the section)"));
    add(key("trainio.io_engine", Type::Choice).setting()
            .origin("TrainIO").def("posix").choices({"posix", "odirect", "mmap", "io_uring"})
            .means("how readers read: posix (buffered pread), odirect (O_DIRECT, bypasses the page cache), mmap "
                   "(map and touch every byte), io_uring (queued requests); reader.odirect: true means odirect")
            .bind(field([](auto& c) -> auto& { return c.trainio.ioEngine; }))
            .flags(CaseInsensitive));
    add(key("trainio.io_depth", Type::Whole).setting()
            .origin("TrainIO").def("32").range(whole(1, 4096)).unit("requests")
            .means("io_uring requests in flight per reader")
            .bind(field([](auto& c) -> auto& { return c.trainio.ioDepth; })));
    add(key("trainio.cache", Type::Choice).setting()
            .origin("TrainIO").def("keep").choices({"keep", "fadvise", "drop"})
            .means("before each epoch: keep (nothing), fadvise (POSIX_FADV_DONTNEED on every file, no privilege "
                   "needed), drop (drop_caches, needs root)")
            .bind(field([](auto& c) -> auto& { return c.trainio.cache; }))
            .flags(CaseInsensitive));
    add(section("trainio.storage").setting().origin("TrainIO").means("the emulated storage device the reads go through"));
    add(key("trainio.storage.profile", Type::Text).setting()
            .origin("TrainIO").expect("a storage profile name or file")
            .means("an emulated-storage profile (resources/storage-profiles/<name>.yaml) or a file; empty: none")
            .bind(field([](auto& c) -> auto& { return c.trainio.storage.profile; }))
            .flags(OmitWhenEmpty));
    add(key("trainio.storage.bandwidth_mib_s", Type::Number).setting()
            .origin("TrainIO").def("0").range(real(0, 1e9, false, ValueUnit::None, "0 for no cap")).unit("MiB/s")
            .means("aggregate read bandwidth of the emulated device (0 = no cap; overrides the profile's)")
            .bind(field([](auto& c) -> auto& { return c.trainio.storage.bandwidthMiBs; })));
    add(key("trainio.storage.latency_ms", Type::Section, K::Section).setting()
            .origin("TrainIO").unit("ms")
            .means("per-request latency: a number (constant), or {type, value, mean, stdev, median, sigma} in ms")
            .flags(CustomRead | CustomWrite));
    add(key("trainio.storage.latency_ms.type", Type::Choice).setting()
            .origin("TrainIO").def("none").choices({"none", "constant", "normal", "lognormal", "exponential"})
            .means("per-request latency distribution of the emulated device")
            .bind(field([](auto& c) -> auto& { return c.trainio.storage.latencyMs.type; }))
            .flags(CustomRead | CustomWrite | CaseInsensitive));
    const ValueRange ms = real(0, 600000, false, ValueUnit::Milliseconds); // ten minutes per request
    add(key("trainio.storage.latency_ms.value", Type::Milliseconds).setting().origin("TrainIO").def("0").range(ms).unit("ms")
            .means("latency (constant)").bind(field([](auto& c) -> auto& { return c.trainio.storage.latencyMs.value; }))
            .flags(CustomRead | CustomWrite));
    add(key("trainio.storage.latency_ms.mean", Type::Milliseconds).setting().origin("TrainIO").def("0").range(ms).unit("ms")
            .means("mean latency (normal, exponential)")
            .bind(field([](auto& c) -> auto& { return c.trainio.storage.latencyMs.mean; }))
            .flags(CustomRead | CustomWrite));
    add(key("trainio.storage.latency_ms.stdev", Type::Milliseconds).setting().origin("TrainIO").def("0").range(ms).unit("ms")
            .means("latency standard deviation (normal)")
            .bind(field([](auto& c) -> auto& { return c.trainio.storage.latencyMs.stdev; }))
            .flags(CustomRead | CustomWrite));
    add(key("trainio.storage.latency_ms.median", Type::Milliseconds).setting().origin("TrainIO").def("0").range(ms).unit("ms")
            .means("median latency (lognormal)")
            .bind(field([](auto& c) -> auto& { return c.trainio.storage.latencyMs.median; }))
            .flags(CustomRead | CustomWrite));
    add(key("trainio.storage.latency_ms.sigma", Type::Number).setting().origin("TrainIO").def("0").range(real(0, 10))
            .means("sigma of the latency's logarithm (lognormal)")
            .bind(field([](auto& c) -> auto& { return c.trainio.storage.latencyMs.sigma; }))
            .flags(CustomRead | CustomWrite));
    add(key("trainio.storage.iops", Type::Number).setting()
            .origin("TrainIO").def("0").range(real(0, 1e9, false, ValueUnit::None, "0 for no cap")).unit("requests/s")
            .means("requests per second (0 = no cap)")
            .bind(field([](auto& c) -> auto& { return c.trainio.storage.iops; })));
    add(key("trainio.storage.max_inflight", Type::Whole).setting()
            .origin("TrainIO").def("0").range(whole(0, 1e6, "0 for no limit")).unit("requests")
            .means("requests in flight at once on the device (0 = no limit)")
            .bind(field([](auto& c) -> auto& { return c.trainio.storage.maxInflight; })));
    add(key("trainio.handover_time", Type::TimeSpec, K::TimeSpec).workload().origin("TrainIO").def("0")
            .range(seconds(0, kMaxSeconds)).unit("s")
            .means("the training loop's time to receive a batch its loader has ready (a captured PyTorch job's unpickling "
                   "from a worker's queue), per step, counted as waiting for data: a number, or a distribution map as "
                   "train.computation_time")
            .bind(field([](auto& c) -> auto& { return c.trainio.handoverTime.mean; }))
            .flags(CustomRead | CustomWrite | CustomCheck));
    add(key("trainio.preprocess_cpu_time", Type::TimeSpec, K::TimeSpec).workload().origin("TrainIO").def("0")
            .range(seconds(0, kMaxSeconds)).unit("s")
            .means("CPU work per sample run on a core by the reader after each read, before reader.preprocess_time is "
                   "slept (a captured job's decode and collation): a number, or a distribution map as train.computation_time")
            .bind(field([](auto& c) -> auto& { return c.trainio.preprocessCpuTime.mean; }))
            .flags(CustomRead | CustomWrite | CustomCheck));
    add(key("trainio.whole_batches", Type::Bool).setting().origin("TrainIO").def("false")
            .means("each reader builds whole batches, handed out in turn (reader k of W: batches k, k + W, ...), as "
                   "PyTorch's DataLoader workers do; false: the readers share every batch's samples")
            .bind(field([](auto& c) -> auto& { return c.trainio.wholeBatches; }))
            .flags(OmitWhenEmpty));
    // The loader policy (issue 13, docs/loader.md); capacities are per emulated accelerator.
    add(key("trainio.loader", Type::Choice).setting()
            .origin("TrainIO").def("plain").choices({"plain", "lru", "nopfs"})
            .means("how samples reach the training loop: plain (DLIO's reader), lru (a RAM cache of ram_tier_mib), "
                   "nopfs (clairvoyant: tiers filled from the known access order, NoPFS)")
            .bind(field([](auto& c) -> auto& { return c.trainio.loader.policy; }))
            .flags(CaseInsensitive));
    add(key("trainio.ram_tier_mib", Type::Number).setting()
            .origin("TrainIO").def("0").range(real(0, 1e9)).unit("MiB")
            .means("per accelerator: the RAM cache (lru) or RAM tier (nopfs); 0 = none")
            .bind(field([](auto& c) -> auto& { return c.trainio.loader.ramTierMiB; })));
    add(key("trainio.staging_mib", Type::Number).setting()
            .origin("TrainIO").def("0").range(real(0, 1e9)).unit("MiB")
            .means("nopfs: the staging buffer each accelerator reads ahead into (0 = reader.prefetch_size batches)")
            .bind(field([](auto& c) -> auto& { return c.trainio.loader.stagingMiB; })));
    add(section("trainio.ssd_tier").setting().origin("TrainIO").means("nopfs: a local-SSD tier below the RAM tier"));
    add(key("trainio.ssd_tier.path", Type::Text).location()
            .origin("TrainIO").expect("a local folder")
            .means("nopfs: the folder of the SSD tier (a local disk, not the storage under test); empty: none")
            .bind(field([](auto& c) -> auto& { return c.trainio.loader.ssdTier.path; }))
            .flags(OmitWhenEmpty));
    add(key("trainio.ssd_tier.capacity_mib", Type::Number).setting()
            .origin("TrainIO").def("0").range(real(0, 1e9)).unit("MiB")
            .means("nopfs: per accelerator, MiB of the SSD tier")
            .bind(field([](auto& c) -> auto& { return c.trainio.loader.ssdTier.capacityMiB; })));
    add(key("trainio.telemetry_interval_s", Type::Seconds).setting().bookkeeping()
            .origin("TrainIO").def("1").range(seconds(0.01, 3600)).unit("s")
            .means("how often the telemetry sampler records CPU, memory, devices and network")
            .bind(field([](auto& c) -> auto& { return c.trainio.telemetryIntervalS; })));
    add(key("trainio.mlperf_round", Type::Choice).setting()
            .origin("TrainIO").choices({"v1.0", "v2.0", "v3.0"})
            .means("the MLPerf Storage round a preset belongs to; empty for your own workloads")
            .bind(field([](auto& c) -> auto& { return c.trainio.mlperfRound; }))
            .flags(OmitWhenEmpty | CaseInsensitive));
    // Issue 30: what a benchmark is for. MLPerf Storage's rules are checks of a submission: they fail a run
    // marked as one (and DLIO's or MLPerf's own results), and are shown as "not a submission" otherwise.
    add(key("trainio.submission", Type::Bool).setting().bookkeeping()
            .origin("TrainIO").def("false")
            .means("the run is an MLPerf Storage submission attempt: the submission rules (5 runs and a warm-up, a "
                   "dataset of 5 x the clients' memory, only the closed division's parameters changed) fail it when not "
                   "met; false: they are listed as \"not a submission\" (trainio-cli benchmark/run --submission)")
            .bind(field([](auto& c) -> auto& { return c.trainio.submission; }))
            .flags(OmitWhenEmpty));
    add(key("trainio.checkpoint_scale", Type::Number).setting().gate("workflow.checkpoint")
            .origin("TrainIO").def("1").range(real(0, 1, true))
            .means("checkpoint size factor for a workstation: 1 writes the real size, 0.01 writes 1 % of every tensor")
            .bind(field([](auto& c) -> auto& { return c.trainio.checkpointScale; })));
    // A captured job's own files where they are (docs/capture.md): the list replaces DLIO's names.
    add(key("trainio.file_list", Type::Text).location()
            .origin("TrainIO").unit("file").expect("a text file of data file paths, one a line")
            .means("the training files as a list (one path a line, relative ones to the list's folder) instead of "
                   "DLIO's names under dataset.data_folder: a captured job's own files where they are; num_files_train "
                   "is the number of lines; empty: DLIO's names")
            .bind(field([](auto& c) -> auto& { return c.dataset.fileList; }))
            .flags(OmitWhenEmpty));
    // Where a workload derived from a trace came from and the job's own figures (trainio-cli workload
    // --from-trace): a replay's result folder carries them, the library and the report set them beside it.
    add(section("trainio.captured_job").setting().origin("TrainIO").bookkeeping()
            .means("the captured job the workload was derived from (trainio-cli workload --from-trace): its trace and "
                   "its own figures, shown beside a replay's"));
    add(key("trainio.captured_job.trace", Type::Text).location()
            .origin("TrainIO").expect("a trace folder").means("the trace folder (trainio-cli capture --output)")
            .bind(field([](auto& c) -> auto& { return c.trainio.capturedJob.trace; }))
            .flags(OmitWhenEmpty));
    add(key("trainio.captured_job.steps", Type::Choice).setting()
            .origin("TrainIO").choices({"marks", "inferred"})
            .means("how the job's steps are known: marks (trainio_capture.steps) or inferred (no job AU then)")
            .bind(field([](auto& c) -> auto& { return c.trainio.capturedJob.steps; }))
            .flags(OmitWhenEmpty));
    add(key("trainio.captured_job.derived", Type::Text).setting()
            .origin("TrainIO").expect("key=value pairs joined by ';'")
            .means("the trace-decided keys of the workload as derived (format, files, samples, record size, batch, "
                   "readers, transfer, shuffle, compute and preprocess time, I/O engine, accelerators): a replay whose "
                   "values differ was edited, and is shown without the job's figures beside it")
            .bind(field([](auto& c) -> auto& { return c.trainio.capturedJob.derived; }))
            .flags(OmitWhenEmpty));
    add(key("trainio.captured_job.au_percent", Type::Number).setting()
            .origin("TrainIO").def("0").range(real(0, 100)).unit("%")
            .means("the job's own AU from its step marks (DLIO >= 2 semantics)")
            .bind(field([](auto& c) -> auto& { return c.trainio.capturedJob.auPercent; }))
            .flags(CustomWrite));
    add(key("trainio.captured_job.samples_per_second", Type::Number).setting()
            .origin("TrainIO").def("0").range(real(0, 1e12)).unit("samples/s")
            .means("the job's own samples/s from its step marks (DLIO >= 2 semantics)")
            .bind(field([](auto& c) -> auto& { return c.trainio.capturedJob.samplesPerSecond; }))
            .flags(CustomWrite));
    // Not a workload key: the emulated accelerators of a run (CLI --accelerators, the GUI's field).
    add(key("accelerators", Type::Whole).setting()
            .origin("TrainIO").def("1").range(whole(1, 4096)).unit("ranks")
            .means("emulated accelerators (ranks) of a run: trainio-cli --accelerators, not a workload key")
            .flags(NotAKey));

    std::vector<KeyDef> out;
    out.reserve(t.size());
    for (auto& r : t) out.push_back(std::move(r.k));
    return out;
}

std::string canonical(std::string_view path) {
    static const std::string alias = "data_reader";
    if (path.substr(0, alias.size()) == alias && (path.size() == alias.size() || path[alias.size()] == '.'))
        return "reader" + std::string(path.substr(alias.size()));
    return std::string(path);
}

} // namespace

const std::vector<KeyDef>& all() {
    static const std::vector<KeyDef> keys = build();
    return keys;
}

const KeyDef* find(std::string_view path) {
    static const std::map<std::string, const KeyDef*, std::less<>> index = [] {
        std::map<std::string, const KeyDef*, std::less<>> m;
        for (const auto& k : all()) {
            m.emplace(k.path, &k);
            if (!k.oldPath.empty()) m.emplace(k.oldPath, &k);
        }
        return m;
    }();
    auto it = index.find(canonical(path));
    return it == index.end() ? nullptr : it->second;
}

namespace {
// The rows at and above a dotted path, nearest first ("checkpoint.model_size" → checkpoint).
template <class Pred>
const KeyDef* nearestRow(std::string_view path, Pred pred) {
    for (std::string p = canonical(path);;) {
        if (const KeyDef* k = find(p); k && pred(*k)) return k;
        const auto dot = p.rfind('.');
        if (dot == std::string::npos) return nullptr;
        p.resize(dot);
    }
}
} // namespace

std::string featureGate(std::string_view path) {
    const KeyDef* k = nearestRow(path, [](const KeyDef& d) { return !d.gate.empty(); });
    return k ? k->gate : std::string();
}

bool isBookkeeping(std::string_view path) {
    return nearestRow(path, [](const KeyDef& d) { return d.has(Bookkeeping); }) != nullptr;
}

bool namesAPlace(std::string_view path) {
    const auto dot = path.rfind('.');
    std::string last(dot == std::string_view::npos ? path : path.substr(dot + 1));
    for (char& c : last) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::vector<std::string> words;
    for (std::size_t b = 0;;) {
        const auto e = last.find('_', b);
        words.push_back(last.substr(b, e == std::string::npos ? std::string::npos : e - b));
        if (e == std::string::npos) break;
        b = e + 1;
    }
    static const std::set<std::string> counts = {"num", "n", "max", "min"};
    if (words.size() > 1 && counts.count(words.front())) return false; // num_hosts: how many, not where
    static const std::set<std::string> places = {
        "folder", "folders", "dir", "dirs", "directory", "path", "paths", "file", "filename", "root", "url", "urls", "uri",
        "bucket", "prefix", "endpoint", "endpoints", "host", "hosts", "hostname", "hostnames", "mount", "mountpoint",
        "address", "server", "servers"};
    if (places.count(words.back())) return true;
    static const std::set<std::string> named = {"bucket", "host", "file", "folder", "dir", "endpoint", "server"};
    return words.size() > 1 && words.back() == "name" && named.count(words[words.size() - 2]);
}

Role roleOf(std::string_view path) {
    if (const KeyDef* k = find(path)) return k->role;
    if (namesAPlace(path)) return Role::Location;
    // A member of a map or a distribution the table describes as one row (reader.preprocess_time.mean).
    if (const KeyDef* k = nearestRow(path, [](const KeyDef& d) { return d.type != Type::Section; })) return k->role;
    return Role::Setting;
}

std::string roleName(const KeyDef& k) {
    switch (k.role) {
    case Role::Workload: return "workload";
    case Role::Location: return "location";
    case Role::Setting: return isBookkeeping(k.path) ? "bookkeeping" : "setting";
    case Role::Unclassified: break;
    }
    return "unclassified";
}

std::string choiceText(const KeyDef& k) { return "one of " + config_detail::joinNames(k.choices); }

const std::vector<Accelerator>& accelerators() { return kAccelerators; }

const std::vector<std::string>& acceleratorNames() {
    const KeyDef* k = find("accelerator");
    if (!k) throw std::logic_error("config_keys: no key accelerator");
    return k->known;
}

double acceleratorMemoryGB(std::string_view name) {
    for (const auto& a : kAccelerators)
        if (a.name == name) return a.memoryGB;
    return 0;
}

} // namespace trainio::config_keys
