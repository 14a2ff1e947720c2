#include "workload_fields.h"

#include "config/key_ranges.h"
#include "io/storage_profile.h"
#include <QObject>

#include <array>

namespace trainio::ui {

namespace {

using Kind = WorkloadField::Kind;

template <typename E, std::size_t N>
QStringList namesOf(const std::array<E, N>& values) {
    QStringList out;
    for (E v : values) out << QString::fromUtf8(toString(v));
    return out;
}

template <typename E, std::size_t N>
E valueOf(const std::array<E, N>& values, const QString& name) {
    for (E v : values)
        if (name == QString::fromUtf8(toString(v))) return v;
    return values[0];
}

constexpr std::array kFormats = {DataFormat::Npz, DataFormat::Npy, DataFormat::Tfrecord, DataFormat::Hdf5,
                                 DataFormat::IndexedBinary, DataFormat::Raw, DataFormat::Jpeg, DataFormat::Png};
constexpr std::array kShuffles = {ShuffleMode::Off, ShuffleMode::Seed, ShuffleMode::Random};
constexpr std::array kDistributions = {ComputeDistribution::Constant, ComputeDistribution::Normal,
                                       ComputeDistribution::Uniform, ComputeDistribution::Gamma,
                                       ComputeDistribution::Exponential};

WorkloadField base(QString section, QString key, QString label, QString unit, QString meaning, Kind kind) {
    WorkloadField f;
    f.section = std::move(section);
    f.dlioKey = std::move(key);
    f.label = std::move(label);
    f.unit = std::move(unit);
    f.meaning = std::move(meaning);
    f.kind = kind;
    return f;
}

std::string str(const QVariant& v) { return v.toString().toStdString(); }
QString qs(const std::string& s) { return QString::fromStdString(s); }

// The accepted range is not repeated here: the form looks it up by key in core's key_ranges.
WorkloadField integer(QString section, QString key, QString label, QString unit, QString meaning,
                      std::function<std::uint64_t&(WorkloadConfig&)> ref) {
    WorkloadField f = base(section, key, label, unit, meaning, Kind::Quantity);
    // qulonglong both ways: a seed beyond 2^53 must not pass through a double.
    f.get = [ref](const WorkloadConfig& c) {
        return QVariant::fromValue(static_cast<qulonglong>(ref(const_cast<WorkloadConfig&>(c))));
    };
    f.set = [ref](WorkloadConfig& c, const QVariant& v) {
        ref(c) = v.typeId() == QMetaType::ULongLong ? v.toULongLong() : static_cast<std::uint64_t>(v.toDouble());
    };
    return f;
}

WorkloadField real(QString section, QString key, QString label, QString unit, QString meaning,
                   std::function<double&(WorkloadConfig&)> ref) {
    WorkloadField f = base(section, key, label, unit, meaning, Kind::Quantity);
    f.get = [ref](const WorkloadConfig& c) { return QVariant(ref(const_cast<WorkloadConfig&>(c))); };
    f.set = [ref](WorkloadConfig& c, const QVariant& v) { ref(c) = v.toDouble(); };
    return f;
}

WorkloadField text(QString section, QString key, QString label, QString meaning,
                   std::function<std::string&(WorkloadConfig&)> ref, Kind kind = Kind::Text) {
    WorkloadField f = base(section, key, label, {}, meaning, kind);
    f.get = [ref](const WorkloadConfig& c) { return QVariant(qs(ref(const_cast<WorkloadConfig&>(c)))); };
    f.set = [ref](WorkloadConfig& c, const QVariant& v) { ref(c) = str(v); };
    return f;
}

WorkloadField boolean(QString section, QString key, QString label, QString meaning,
                      std::function<bool&(WorkloadConfig&)> ref) {
    WorkloadField f = base(section, key, label, {}, meaning, Kind::Bool);
    f.get = [ref](const WorkloadConfig& c) { return QVariant(ref(const_cast<WorkloadConfig&>(c))); };
    f.set = [ref](WorkloadConfig& c, const QVariant& v) { ref(c) = v.toBool(); };
    return f;
}

WorkloadField choiceText(QString section, QString key, QString label, QString meaning, QStringList choices,
                         std::function<std::string&(WorkloadConfig&)> ref) {
    WorkloadField f = text(section, key, label, meaning, ref, Kind::Choice);
    f.choices = choices;
    return f;
}

template <typename E, std::size_t N>
WorkloadField choiceEnum(QString section, QString key, QString label, QString meaning,
                         const std::array<E, N>& values, std::function<E&(WorkloadConfig&)> ref) {
    WorkloadField f = base(section, key, label, {}, meaning, Kind::Choice);
    f.choices = namesOf(values);
    f.get = [ref](const WorkloadConfig& c) { return QVariant(QString::fromUtf8(toString(ref(const_cast<WorkloadConfig&>(c))))); };
    f.set = [ref, values](WorkloadConfig& c, const QVariant& v) { ref(c) = valueOf(values, v.toString()); };
    return f;
}

// "none" stands for the empty profile (no emulation unless the caps below are set); each profile's own
// description is its choice's tooltip, so the picker says what an "hdd" is without opening the file.
WorkloadField storageProfileField(const QString& section) {
    WorkloadField f = base(section, "trainio.storage.profile", "Storage profile", {},
                           "Emulated device the reads go through (resources/storage-profiles); none: the real storage.",
                           Kind::Choice);
    f.choices << QStringLiteral("none");
    f.choiceToolTips << QObject::tr("No emulated device: reads go to the real storage.");
    for (const std::string& name : storageProfileNames()) {
        f.choices << qs(name);
        try {
            f.choiceToolTips << qs(loadStorageProfile(name).description);
        } catch (const std::exception& e) {
            f.choiceToolTips << QObject::tr("This profile cannot be read: %1").arg(QString::fromUtf8(e.what()));
        }
    }
    f.get = [](const WorkloadConfig& c) {
        return QVariant(c.trainio.storage.profile.empty() ? QStringLiteral("none") : qs(c.trainio.storage.profile));
    };
    f.set = [](WorkloadConfig& c, const QVariant& v) {
        c.trainio.storage.profile = v.toString() == QLatin1String("none") ? std::string() : str(v);
    };
    return f;
}

std::vector<WorkloadField> buildFields() {
    using C = WorkloadConfig;
    std::vector<WorkloadField> f;
    const QString m = QStringLiteral("model");
    f.push_back(text(m, "model.name", "Model", "Workload name; with the accelerator it forms the MLPerf label (unet3d_a100).",
                     [](C& c) -> std::string& { return c.model.name; }));
    f.push_back(text(m, "model.type", "Model type", "Informational (cnn, transformer, …).",
                     [](C& c) -> std::string& { return c.model.type; }));
    f.push_back(choiceText(m, "framework", "Framework", "tensorflow or pytorch (DLIO's framework key).",
                           {"pytorch", "tensorflow"}, [](C& c) -> std::string& { return c.framework; }));
    f.push_back(text(m, "accelerator", "Accelerator type",
                     "Accelerator the compute time stands for: a100, h100, b200 or your own lower-case name without '_' "
                     "(results label the workload <model>_<accelerator>, which MLPerf Storage splits on '_'). "
                     "Empty: the workload has none of its own.",
                     [](C& c) -> std::string& { return c.accelerator; }, Kind::Accelerator));

    const QString w = QStringLiteral("workflow");
    f.push_back(boolean(w, "workflow.generate_data", "Generate data", "Generate the dataset before training.",
                        [](C& c) -> bool& { return c.workflow.generateData; }));
    f.push_back(boolean(w, "workflow.train", "Train", "Run the training emulation.", [](C& c) -> bool& { return c.workflow.train; }));
    f.push_back(boolean(w, "workflow.checkpoint", "Checkpoint", "Write checkpoints (recorded; not emulated yet).",
                        [](C& c) -> bool& { return c.workflow.checkpoint; }));
    f.push_back(boolean(w, "workflow.evaluation", "Evaluation", "Run evaluation steps (recorded; not emulated yet).",
                        [](C& c) -> bool& { return c.workflow.evaluation; }));

    const QString d = QStringLiteral("dataset");
    f.push_back(text(d, "dataset.data_folder", "Data folder", "Dataset root; train/ and valid/ are created below it.",
                     [](C& c) -> std::string& { return c.dataset.dataFolder; }, Kind::Folder));
    f.push_back(choiceEnum(d, "dataset.format", "Format", "File format of the dataset.", kFormats,
                           std::function<DataFormat&(C&)>([](C& c) -> DataFormat& { return c.dataset.format; })));
    f.push_back(integer(d, "dataset.num_files_train", "Training files", "files", "Number of training files (>= 1).",
                        [](C& c) -> std::uint64_t& { return c.dataset.numFilesTrain; }));
    f.push_back(integer(d, "dataset.num_files_eval", "Evaluation files", "files", "Number of evaluation files.",
                        [](C& c) -> std::uint64_t& { return c.dataset.numFilesEval; }));
    f.push_back(integer(d, "dataset.num_samples_per_file", "Samples per file", "samples", "Samples in each file (>= 1).",
                        [](C& c) -> std::uint64_t& { return c.dataset.numSamplesPerFile; }));
    f.push_back(real(d, "dataset.record_length_bytes", "Sample size (mean)", "bytes",
                     "Mean sample size (record_length_bytes; record_length in DLIO 1.0).",
                     [](C& c) -> double& { return c.dataset.recordLength; }));
    f.push_back(real(d, "dataset.record_length_bytes_stdev", "Sample size stdev", "bytes",
                     "Standard deviation of the sample size (record_length_stdev in DLIO 1.0).",
                     [](C& c) -> double& { return c.dataset.recordLengthStdev; }));
    f.push_back(real(d, "dataset.record_length_bytes_resize", "Resize to", "bytes",
                     "Size the loader resizes samples to (informational).",
                     [](C& c) -> double& { return c.dataset.recordLengthResize; }));
    f.push_back(integer(d, "dataset.num_subfolders_train", "Train subfolders", "folders",
                        "Spread training files over this many subfolders (0 or 1 = none).",
                        [](C& c) -> std::uint64_t& { return c.dataset.numSubfoldersTrain; }));
    f.push_back(text(d, "dataset.file_prefix", "File prefix", "Prefix of every data file name.",
                     [](C& c) -> std::string& { return c.dataset.filePrefix; }));
    f.push_back(choiceText(d, "dataset.record_element_type", "Element type", "numpy dtype of one record element.",
                           {"uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64", "float16", "float32", "float64"},
                           [](C& c) -> std::string& { return c.dataset.recordElementType; }));
    f.push_back(boolean(d, "dataset.keep_files", "Keep files", "Keep the dataset after the run.",
                        [](C& c) -> bool& { return c.dataset.keepFiles; }));

    const QString r = QStringLiteral("reader");
    f.push_back(choiceText(r, "reader.data_loader", "Data loader", "Loader DLIO emulates: pytorch, tensorflow, dali…",
                           {"pytorch", "tensorflow", "dali", "native_dali", "custom", "none", "synthetic", "daos_pytorch"},
                           [](C& c) -> std::string& { return c.reader.dataLoader; }));
    f.push_back(integer(r, "reader.batch_size", "Batch size", "samples", "Samples per training step per accelerator (>= 1).",
                        [](C& c) -> std::uint64_t& { return c.reader.batchSize; }));
    f.push_back(integer(r, "reader.read_threads", "Read threads", "threads", "Reader threads per accelerator (>= 1).",
                        [](C& c) -> std::uint64_t& { return c.reader.readThreads; }));
    f.push_back(integer(r, "reader.computation_threads", "Computation threads", "threads", "Preprocessing threads (>= 1).",
                        [](C& c) -> std::uint64_t& { return c.reader.computationThreads; }));
    f.push_back(integer(r, "reader.prefetch_size", "Prefetch", "batches", "Batches buffered ahead per accelerator.",
                        [](C& c) -> std::uint64_t& { return c.reader.prefetchSize; }));
    f.push_back(choiceEnum(r, "reader.file_shuffle", "File shuffle", "off, seed (reproducible) or random.", kShuffles,
                           std::function<ShuffleMode&(C&)>([](C& c) -> ShuffleMode& { return c.reader.fileShuffle; })));
    f.push_back(choiceEnum(r, "reader.sample_shuffle", "Sample shuffle", "off, seed (reproducible) or random.", kShuffles,
                           std::function<ShuffleMode&(C&)>([](C& c) -> ShuffleMode& { return c.reader.sampleShuffle; })));
    f.push_back(integer(r, "reader.shuffle_size", "Shuffle buffer", "samples", "Shuffle buffer size (>= 1).",
                        [](C& c) -> std::uint64_t& { return c.reader.shuffleSize; }));
    f.push_back(integer(r, "reader.transfer_size", "Transfer size", "bytes", "Bytes per read() call.",
                        [](C& c) -> std::uint64_t& { return c.reader.transferSize; }));
    f.push_back(boolean(r, "reader.odirect", "O_DIRECT", "Read with O_DIRECT, bypassing the page cache.",
                        [](C& c) -> bool& { return c.reader.odirect; }));

    const QString t = QStringLiteral("train");
    f.push_back(integer(t, "train.epochs", "Epochs", "epochs", "Passes over the dataset (>= 1).",
                        [](C& c) -> std::uint64_t& { return c.train.epochs; }));
    f.push_back(choiceEnum(t, "train.computation_time.type", "Compute distribution",
                           "Distribution of the emulated compute time per step (DLIO's sleep()).", kDistributions,
                           std::function<ComputeDistribution&(C&)>([](C& c) -> ComputeDistribution& { return c.train.computationTime.distribution; })));
    f.push_back(real(t, "train.computation_time", "Compute time (mean)", "s",
                     "Emulated accelerator compute per step: the constant, or the mean of normal.",
                     [](C& c) -> double& { return c.train.computationTime.mean; }));
    f.push_back(real(t, "train.computation_time.stdev", "Compute stdev", "s", "Standard deviation (normal).",
                     [](C& c) -> double& { return c.train.computationTime.stdev; }));
    f.push_back(real(t, "train.computation_time.min", "Compute min", "s", "Lower bound (uniform).",
                     [](C& c) -> double& { return c.train.computationTime.min; }));
    f.push_back(real(t, "train.computation_time.max", "Compute max", "s", "Upper bound (uniform).",
                     [](C& c) -> double& { return c.train.computationTime.max; }));
    f.push_back(real(t, "train.computation_time.shape", "Compute shape", "", "Shape k (gamma).",
                     [](C& c) -> double& { return c.train.computationTime.shape; }));
    f.push_back(real(t, "train.computation_time.scale", "Compute scale", "s", "Scale θ (gamma, exponential).",
                     [](C& c) -> double& { return c.train.computationTime.scale; }));
    f.push_back(integer(t, "train.seed", "Seed", "", "Shuffle seed.", [](C& c) -> std::uint64_t& { return c.train.seed; }));
    f.push_back(boolean(t, "train.seed_change_epoch", "Seed changes each epoch", "Use seed + epoch in every epoch.",
                        [](C& c) -> bool& { return c.train.seedChangeEpoch; }));
    f.push_back(integer(t, "train.total_training_steps", "Total training steps", "steps",
                        "Stop after this many steps (0 = the whole dataset).",
                        [](C& c) -> std::uint64_t& { return c.train.totalTrainingSteps; }));

    const QString k = QStringLiteral("checkpoint");
    f.push_back(text(k, "checkpoint.checkpoint_folder", "Checkpoint folder", "Where checkpoints go.",
                     [](C& c) -> std::string& { return c.checkpoint.folder; }, Kind::Folder));
    f.push_back(integer(k, "checkpoint.checkpoint_after_epoch", "After epoch", "epoch", "First epoch that checkpoints.",
                        [](C& c) -> std::uint64_t& { return c.checkpoint.afterEpoch; }));
    f.push_back(integer(k, "checkpoint.epochs_between_checkpoints", "Epochs between", "epochs", "Checkpoint every N epochs (>= 1).",
                        [](C& c) -> std::uint64_t& { return c.checkpoint.epochsBetween; }));
    f.push_back(real(k, "model.model_size_bytes", "Model size", "bytes", "Checkpoint size (checkpoint.model_size in DLIO 1.0).",
                     [](C& c) -> double& { return c.checkpoint.modelSize; }));

    const QString e = QStringLiteral("metric");
    f.push_back(real(e, "metric.au", "AU pass threshold", "fraction", "A run passes when its AU is at least this (0 … 1].",
                     [](C& c) -> double& { return c.metric.au; }));
    f.push_back(integer(e, "output.metric.exclude_start_steps", "Exclude start steps", "steps",
                        "Steps left out of AU at the start of each epoch (DLIO's output.metric key).",
                        [](C& c) -> std::uint64_t& { return c.metric.excludeStartSteps; }));
    f.push_back(integer(e, "output.metric.exclude_end_steps", "Exclude end steps", "steps",
                        "Steps left out of AU at the end of each epoch.",
                        [](C& c) -> std::uint64_t& { return c.metric.excludeEndSteps; }));

    const QString s = QStringLiteral("trainio");
    f.push_back(choiceText(s, "trainio.io_engine", "I/O engine",
                           "How readers read: posix (buffered pread), odirect (O_DIRECT, bypasses the page cache), "
                           "mmap (map and touch every byte), io_uring (queued requests).",
                           {"posix", "odirect", "mmap", "io_uring"}, [](C& c) -> std::string& { return c.trainio.ioEngine; }));
    f.push_back(integer(s, "trainio.io_depth", "I/O depth", "requests", "io_uring requests in flight per reader.",
                        [](C& c) -> std::uint64_t& { return c.trainio.ioDepth; }));
    f.push_back(choiceText(s, "trainio.cache", "Cache control",
                           "Before each epoch: keep (nothing), fadvise (POSIX_FADV_DONTNEED on every file, no privilege "
                           "needed), drop (drop_caches, needs root).",
                           {"keep", "fadvise", "drop"}, [](C& c) -> std::string& { return c.trainio.cache; }));
    f.push_back(storageProfileField(s));
    f.push_back(real(s, "trainio.storage.bandwidth_mib_s", "Bandwidth cap", "MiB/s",
                     "Aggregate read bandwidth of the emulated device (0 = no cap; overrides the profile's).",
                     [](C& c) -> double& { return c.trainio.storage.bandwidthMiBs; }));
    f.push_back(choiceText(s, "trainio.storage.latency_ms.type", "Latency", "Per-request latency distribution of the emulated device.",
                           {"none", "constant", "normal", "lognormal", "exponential"},
                           [](C& c) -> std::string& { return c.trainio.storage.latencyMs.type; }));
    f.push_back(real(s, "trainio.storage.latency_ms.median", "Latency median", "ms", "Median latency (lognormal).",
                     [](C& c) -> double& { return c.trainio.storage.latencyMs.median; }));
    f.push_back(real(s, "trainio.storage.latency_ms.mean", "Latency mean", "ms", "Mean latency (normal, exponential).",
                     [](C& c) -> double& { return c.trainio.storage.latencyMs.mean; }));
    f.push_back(real(s, "trainio.storage.iops", "IOPS cap", "requests/s", "Requests per second (0 = no cap).",
                     [](C& c) -> double& { return c.trainio.storage.iops; }));
    f.push_back(integer(s, "trainio.storage.max_inflight", "Max in flight", "requests",
                        "Requests in flight at once on the device (0 = no limit).",
                        [](C& c) -> std::uint64_t& { return c.trainio.storage.maxInflight; }));
    f.push_back(real(s, "trainio.telemetry_interval_s", "Telemetry interval", "s",
                     "How often the telemetry sampler records CPU, memory, devices and network.",
                     [](C& c) -> double& { return c.trainio.telemetryIntervalS; }));
    return f;
}

} // namespace

QString WorkloadField::toolTip() const {
    QString tip = QStringLiteral("<b>%1</b><br/>%2").arg(label.toHtmlEscaped(), meaning.toHtmlEscaped());
    if (!unit.isEmpty()) tip += QStringLiteral("<br/>Unit: %1").arg(unit.toHtmlEscaped());
    if (kind == Kind::Quantity)
        tip += QStringLiteral("<br/>Accepted: %1").arg(QString::fromStdString(key_ranges::expectation(dlioKey.toStdString())).toHtmlEscaped());
    tip += QStringLiteral("<br/>DLIO key: <code>%1</code>").arg(dlioKey.toHtmlEscaped());
    return tip;
}

const std::vector<WorkloadField>& workloadFields() {
    static const std::vector<WorkloadField> fields = buildFields();
    return fields;
}

QStringList workloadSections() {
    return {QStringLiteral("model"), QStringLiteral("dataset"), QStringLiteral("reader"), QStringLiteral("train"),
            QStringLiteral("metric"), QStringLiteral("workflow"), QStringLiteral("checkpoint"),
            QStringLiteral("trainio")};
}

} // namespace trainio::ui
