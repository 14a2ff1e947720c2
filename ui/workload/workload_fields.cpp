#include "workload/workload_fields.h"

#include "config/config_keys.h"
#include "config/key_ranges.h"
#include "io/s3_client.h"
#include "io/storage_profile.h"
#include <QObject>

#include <stdexcept>
#include <type_traits>

namespace trainio::ui {

namespace {

using Kind = WorkloadField::Kind;

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

const config_keys::KeyDef& keyDef(const char* key) {
    const config_keys::KeyDef* k = config_keys::find(key);
    if (!k || !k->field) throw std::logic_error(std::string("workload field ") + key + " is not a bound key of config_keys");
    return *k;
}

// The table's one-line meaning as a tooltip sentence.
QString sentence(const std::string& meaning) {
    QString s = qs(meaning);
    if (!s.isEmpty()) s[0] = s[0].toUpper();
    return s.endsWith(QLatin1Char('.')) ? s : s + QLatin1Char('.');
}

Kind kindOf(const config_keys::KeyDef& k) {
    using T = config_keys::Type;
    if (k.unit == "path") return Kind::Folder;
    switch (k.type) {
    case T::Bool: return Kind::Bool;
    case T::Choice: return Kind::Choice;
    case T::Text: return Kind::Text;
    default: break;
    }
    return k.range ? Kind::Quantity : Kind::Text;
}

// qulonglong for whole numbers: a seed beyond 2^53 must not pass through a double.
QVariant toVariant(const config_keys::Value& v) {
    return std::visit(
        [](const auto& x) -> QVariant {
            using X = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<X, bool>) return QVariant(x);
            else if constexpr (std::is_same_v<X, std::uint64_t>) return QVariant::fromValue(static_cast<qulonglong>(x));
            else if constexpr (std::is_same_v<X, std::int64_t>) return QVariant(static_cast<double>(x));
            else if constexpr (std::is_same_v<X, double>) return QVariant(x);
            else if constexpr (std::is_same_v<X, std::string>) return QVariant(qs(x));
            else {
                QStringList parts;
                for (auto n : x) parts << QString::number(n);
                return QVariant(parts.join(QStringLiteral(", ")));
            }
        },
        v);
}

// The form's value in the field's own type (the current value says which).
config_keys::Value fromVariant(const config_keys::Value& current, const QVariant& v) {
    const bool whole = v.typeId() == QMetaType::ULongLong;
    return std::visit(
        [&](const auto& x) -> config_keys::Value {
            using X = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<X, bool>) return v.toBool();
            else if constexpr (std::is_same_v<X, std::uint64_t>)
                return whole ? static_cast<std::uint64_t>(v.toULongLong()) : static_cast<std::uint64_t>(v.toDouble());
            else if constexpr (std::is_same_v<X, std::int64_t>)
                return whole ? static_cast<std::int64_t>(v.toULongLong()) : static_cast<std::int64_t>(v.toDouble());
            else if constexpr (std::is_same_v<X, double>) return v.toDouble();
            else if constexpr (std::is_same_v<X, std::string>) return str(v);
            else return x; // lists are not edited in the form
        },
        current);
}

// A form field for a key of the one table (config_keys): its unit, meaning, choices, range (through
// key_ranges) and binding come from the table; the form adds only the label, the group and the order.
WorkloadField fromTable(const QString& section, const char* key, const QString& label) {
    const config_keys::KeyDef& k = keyDef(key);
    const Kind kind = kindOf(k);
    WorkloadField f = base(section, qs(k.path), label, kind == Kind::Folder ? QString() : qs(k.unit), sentence(k.meaning), kind);
    if (k.type == config_keys::Type::Choice && k.has(config_keys::OmitWhenEmpty)) f.choices << QString(); // "not set"
    for (const auto& c : k.choices) f.choices << qs(c);
    const config_keys::Binding b = k.field;
    f.get = [b](const WorkloadConfig& c) { return toVariant(b.get(c)); };
    f.set = [b](WorkloadConfig& c, const QVariant& v) { b.set(c, fromVariant(b.get(c), v)); };
    return f;
}

// "none" stands for the empty profile (no emulation unless the caps below are set); each profile's own
// description is its choice's tooltip, so the picker says what an "hdd" is without opening the file.
WorkloadField storageProfileField(const QString& section) {
    WorkloadField f = base(section, "trainio.storage.profile", "Storage profile", {},
                           sentence(keyDef("trainio.storage.profile").meaning), Kind::Choice);
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

// Where the S3 keys come from (storage.storage_options.profile): "environment" (AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY of TrainIO's environment, else AWS_PROFILE or the default profile) or a profile of
// ~/.aws/credentials or ~/.aws/config by name. The form never holds a secret.
WorkloadField credentialsField(const QString& section) {
    WorkloadField f = base(section, "storage.storage_options.profile", QObject::tr("Credentials"), {},
                           sentence(keyDef("storage.storage_options.profile").meaning) +
                               QObject::tr(" The secret is never shown, saved or written."),
                           Kind::Choice);
    f.choices << QStringLiteral("environment");
    f.choiceToolTips << QObject::tr("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY of TrainIO's environment (else "
                                    "AWS_PROFILE, or the default profile)");
    for (const std::string& name : awsProfileNames()) {
        f.choices << qs(name);
        f.choiceToolTips << QObject::tr("The keys of profile %1 (~/.aws/credentials or ~/.aws/config)").arg(qs(name));
    }
    f.get = [](const WorkloadConfig& c) {
        return QVariant(c.storage.profile.empty() ? QStringLiteral("environment") : qs(c.storage.profile));
    };
    f.set = [](WorkloadConfig& c, const QVariant& v) {
        c.storage.profile = v.toString() == QLatin1String("environment") ? std::string() : str(v);
    };
    return f;
}

std::vector<WorkloadField> buildFields() {
    std::vector<WorkloadField> f;
    // The groups, the order and the labels are the form's; everything else is the key table's.
    auto add = [&](const QString& section, std::initializer_list<std::pair<const char*, const char*>> keys) {
        for (const auto& [key, label] : keys) f.push_back(fromTable(section, key, QObject::tr(label)));
    };
    // Where the data lives (issue 22, docs/s3.md): files, or objects of an S3 bucket. First, so that the form
    // reads the storage type before the folders (an S3 data folder is a key prefix, not a local path).
    const QString st = QStringLiteral("storage");
    add(st, {{"storage.storage_type", "Storage type"}});
    f.back().choiceToolTips << QObject::tr("Files on a local file system") << QObject::tr("Files on a parallel file system")
                            << QObject::tr("Objects of an S3 bucket (the keys below; the data folder is then a key prefix "
                                           "or s3://bucket/prefix)");
    add(st, {{"storage.storage_root", "Bucket"}});
    add(st, {{"storage.storage_options.endpoint_url", "Endpoint"},
             {"storage.storage_options.region", "Region"},
             {"storage.storage_options.s3_force_path_style", "Path style"}});
    f.push_back(credentialsField(st));
    add(st, {{"storage.storage_options.s3_max_attempts", "Attempts per request"}});
    const QString m = QStringLiteral("model");
    add(m, {{"model.name", "Model"}, {"model.type", "Model type"}, {"framework", "Framework"}});
    WorkloadField acc = fromTable(m, "accelerator", QObject::tr("Accelerator type"));
    acc.kind = Kind::Accelerator;
    acc.meaning += QObject::tr(" Results label the workload <model>_<accelerator>, which MLPerf Storage splits on '_'. "
                               "Empty: the workload has none of its own.");
    f.push_back(acc);
    add(QStringLiteral("workflow"), {{"workflow.generate_data", "Generate data"},
                                     {"workflow.train", "Train"},
                                     {"workflow.checkpoint", "Checkpoint"},
                                     {"workflow.evaluation", "Evaluation"}});

    add(QStringLiteral("dataset"), {{"dataset.data_folder", "Data folder"},
                                    {"trainio.file_list", "File list (instead of DLIO names)"},
                                    {"dataset.format", "Format"},
                                    {"dataset.num_files_train", "Training files"},
                                    {"dataset.num_files_eval", "Evaluation files"},
                                    {"dataset.num_samples_per_file", "Samples per file"},
                                    {"dataset.record_length_bytes", "Sample size (mean)"},
                                    {"dataset.record_length_bytes_stdev", "Sample size stdev"},
                                    {"dataset.record_length_bytes_resize", "Resize to"},
                                    {"dataset.num_subfolders_train", "Train subfolders"},
                                    {"dataset.file_prefix", "File prefix"},
                                    {"dataset.record_element_type", "Element type"},
                                    {"dataset.keep_files", "Keep files"}});

    add(QStringLiteral("reader"), {{"reader.data_loader", "Data loader"},
                                   {"reader.batch_size", "Batch size"},
                                   {"reader.read_threads", "Read threads"},
                                   {"reader.computation_threads", "Computation threads"},
                                   {"reader.prefetch_size", "Prefetch"},
                                   {"reader.file_shuffle", "File shuffle"},
                                   {"reader.sample_shuffle", "Sample shuffle"},
                                   {"reader.shuffle_size", "Shuffle buffer"},
                                   {"reader.transfer_size", "Transfer size"},
                                   {"reader.preprocess_time", "Preprocess per sample"},
                                   {"reader.odirect", "O_DIRECT"}});

    add(QStringLiteral("train"), {{"train.epochs", "Epochs"},
                                  {"train.computation_time.type", "Compute distribution"},
                                  {"train.computation_time", "Compute time (mean)"},
                                  {"train.computation_time.stdev", "Compute stdev"},
                                  {"train.computation_time.min", "Compute min"},
                                  {"train.computation_time.max", "Compute max"},
                                  {"train.computation_time.shape", "Compute shape"},
                                  {"train.computation_time.scale", "Compute scale"},
                                  {"train.seed", "Seed"},
                                  {"train.seed_change_epoch", "Seed changes each epoch"},
                                  {"train.total_training_steps", "Total training steps"}});

    const QString k = QStringLiteral("checkpoint");
    add(k, {{"checkpoint.checkpoint_folder", "Checkpoint folder"},
                                       {"checkpoint.checkpoint_after_epoch", "After epoch"},
                                       {"checkpoint.epochs_between_checkpoints", "Epochs between"},
                                       {"checkpoint.steps_between_checkpoints", "Steps between"},
                                       {"model.model_size_bytes", "Model size"},
                                       {"checkpoint.type", "Who writes"},
                                       {"checkpoint.mode", "Mode"},
                                       {"checkpoint.num_checkpoints_write", "Checkpoints written"},
                                       {"checkpoint.num_checkpoints_read", "Checkpoints read"},
                                       {"checkpoint.time_between_checkpoints", "Time between"},
                                       {"checkpoint.fsync", "fsync"},
                                       {"checkpoint.randomize_tensor", "Random tensors"},
                                       {"trainio.checkpoint_scale", "Size factor"}});

    // The model as DLIO sizes its checkpoint (llama3 presets): shown with the checkpoint settings.
    add(k, {{"model.model_datatype", "Model data type"},
            {"model.optimizer_datatype", "Optimizer data type"},
            {"model.num_layers", "Layers"},
            {"model.parallelism.tensor", "Tensor parallelism"},
            {"model.parallelism.pipeline", "Pipeline parallelism"},
            {"model.parallelism.data", "Data parallelism"},
            {"model.parallelism.zero_stage", "ZeRO stage"},
            {"model.transformer.vocab_size", "Vocabulary"},
            {"model.transformer.hidden_size", "Hidden size"},
            {"model.transformer.ffn_hidden_size", "FFN hidden size"},
            {"model.transformer.num_attention_heads", "Attention heads"},
            {"model.transformer.num_kv_heads", "KV heads"}});

    add(QStringLiteral("metric"), {{"metric.au", "AU pass threshold"},
                                   {"output.metric.exclude_start_steps", "Exclude start steps"},
                                   {"output.metric.exclude_end_steps", "Exclude end steps"}});

    const QString s = QStringLiteral("trainio");
    add(s, {{"trainio.io_engine", "I/O engine"}, {"trainio.io_depth", "I/O depth"}, {"trainio.cache", "Cache control"},
            {"trainio.preprocess_cpu_time", "Preprocess CPU per sample"}, {"trainio.handover_time", "Batch hand-over"}});
    f.push_back(storageProfileField(s));
    add(s, {{"trainio.storage.bandwidth_mib_s", "Bandwidth cap"},
            {"trainio.storage.latency_ms.type", "Latency"},
            {"trainio.storage.latency_ms.median", "Latency median"},
            {"trainio.storage.latency_ms.mean", "Latency mean"},
            {"trainio.storage.iops", "IOPS cap"},
            {"trainio.storage.max_inflight", "Max in flight"},
            {"trainio.telemetry_interval_s", "Telemetry interval"},
            {"trainio.mlperf_round", "MLPerf round"}});

    // The loader policy and its tiers (issue 13, docs/loader.md): which keys a policy uses is core's
    // validation's to say (a RAM tier with plain is refused naming the key), not the form's.
    const QString l = QStringLiteral("loader");
    add(l, {{"trainio.loader", "Loader policy"},
            {"trainio.ram_tier_mib", "RAM tier"},
            {"trainio.staging_mib", "Staging buffer"}});
    WorkloadField ssd = fromTable(l, "trainio.ssd_tier.path", QObject::tr("SSD tier folder"));
    ssd.kind = Kind::Folder; // a local folder: with the folder picker
    f.push_back(ssd);
    add(l, {{"trainio.ssd_tier.capacity_mib", "SSD tier capacity"}});
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
    return {QStringLiteral("model"), QStringLiteral("dataset"), QStringLiteral("reader"), QStringLiteral("loader"),
            QStringLiteral("train"),
            QStringLiteral("metric"), QStringLiteral("workflow"), QStringLiteral("storage"), QStringLiteral("checkpoint"),
            QStringLiteral("trainio")};
}

} // namespace trainio::ui
