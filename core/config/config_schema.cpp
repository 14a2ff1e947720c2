#include "config/config_schema.h"

#include <algorithm>
#include <map>

namespace trainio::config_schema {

namespace {

// Built from DLIO's utils/config.py (LoadConfig, current and v1.0) and docs/source/config.rst.
// Keys DLIO reads but TrainIO has no use for are Ignored: DLIO YAMLs carry them and must load quietly.
const std::vector<KeyInfo>& table() {
    using K = KeyKind;
    static const std::vector<KeyInfo> keys = {
        // TrainIO's own: which accelerator generation the compute time stands for.
        {"accelerator", K::Used},

        // TrainIO's own section (DLIO ignores it): I/O engine, cache control, emulated storage, telemetry.
        {"trainio", K::Section},
        {"trainio.io_engine", K::Used},
        {"trainio.io_depth", K::Used},
        {"trainio.cache", K::Used},
        {"trainio.storage", K::Section},
        {"trainio.storage.profile", K::Used},
        {"trainio.storage.bandwidth_mib_s", K::Used},
        {"trainio.storage.latency_ms", K::Section},
        {"trainio.storage.latency_ms.type", K::Used},
        {"trainio.storage.latency_ms.value", K::Used},
        {"trainio.storage.latency_ms.mean", K::Used},
        {"trainio.storage.latency_ms.stdev", K::Used},
        {"trainio.storage.latency_ms.median", K::Used},
        {"trainio.storage.latency_ms.sigma", K::Used},
        {"trainio.storage.iops", K::Used},
        {"trainio.storage.max_inflight", K::Used},
        {"trainio.telemetry_interval_s", K::Used},
        {"trainio.mlperf_round", K::Used},
        {"trainio.checkpoint_scale", K::Used},

        {"model", K::Section}, // v1.0: a plain string; later: a map
        {"model.name", K::Used},
        {"model.type", K::Used},
        {"model.model_size_bytes", K::Used},
        {"model.model_size", K::Ignored}, // MLPerf Storage v3.0 unet3d configs carry it; DLIO reads only model_size_bytes
        {"model.model_datatype", K::Used},
        {"model.optimizer_datatype", K::Used},
        {"model.optimization_groups", K::Used},
        {"model.num_layers", K::Used},
        {"model.layer_parameters", K::Used},
        {"model.parallelism", K::Section},
        {"model.parallelism.tensor", K::Used},
        {"model.parallelism.pipeline", K::Used},
        {"model.parallelism.data", K::Used},
        {"model.parallelism.zero_stage", K::Used},
        {"model.transformer", K::Section},
        {"model.transformer.vocab_size", K::Used},
        {"model.transformer.hidden_size", K::Used},
        {"model.transformer.ffn_hidden_size", K::Used},
        {"model.transformer.num_attention_heads", K::Used},
        {"model.transformer.num_kv_heads", K::Used},

        {"framework", K::Used},

        {"workflow", K::Section},
        {"workflow.generate_data", K::Used},
        {"workflow.train", K::Used},
        {"workflow.checkpoint", K::Used},
        {"workflow.evaluation", K::Used},
        {"workflow.profiling", K::Used},
        {"workflow.debug", K::Ignored},

        {"storage", K::Section},
        {"storage.storage_type", K::Ignored},
        {"storage.storage_root", K::Ignored},
        {"storage.storage_options", K::OpenIgnored},
        {"storage.storage_library", K::Ignored},
        {"storage.post_generation_settle_seconds", K::Ignored},

        {"dataset", K::Section},
        {"dataset.data_folder", K::Used},
        {"dataset.format", K::Used},
        {"dataset.num_files_train", K::Used},
        {"dataset.num_files_eval", K::Used},
        {"dataset.num_samples_per_file", K::Used},
        {"dataset.record_length", K::Used},
        {"dataset.record_length_bytes", K::Used},
        {"dataset.record_length_stdev", K::Used},
        {"dataset.record_length_bytes_stdev", K::Used},
        {"dataset.record_length_resize", K::Used},
        {"dataset.record_length_bytes_resize", K::Used},
        {"dataset.num_subfolders_train", K::Used},
        {"dataset.num_subfolders_eval", K::Used},
        {"dataset.file_prefix", K::Used},
        {"dataset.record_element_type", K::Used},
        {"dataset.keep_files", K::Used},
        {"dataset.generation_buffer_size", K::Ignored},
        {"dataset.enable_chunking", K::Ignored},
        {"dataset.chunk_size", K::Ignored},
        {"dataset.compression", K::Ignored},
        {"dataset.compression_level", K::Ignored},
        {"dataset.record_element_bytes", K::Ignored},
        {"dataset.record_dims", K::Ignored},
        {"dataset.num_dataset_per_record", K::Ignored},
        {"dataset.skip_listing", K::Ignored},
        {"dataset.listing_validation_interval", K::Ignored},
        {"dataset.data_gen_method", K::Ignored},
        {"dataset.parquet", K::OpenIgnored},
        {"dataset.hdf5", K::Section},
        {"dataset.hdf5.chunk_dims", K::Ignored},
        {"dataset.hdf5.num_dset_per_record", K::Ignored},
        {"dataset.hdf5.max_shape", K::Ignored},

        {"reader", K::Section},
        {"reader.data_loader", K::Used},
        {"reader.batch_size", K::Used},
        {"reader.batch_size_eval", K::Used},
        {"reader.read_threads", K::Used},
        {"reader.computation_threads", K::Used},
        {"reader.prefetch_size", K::Used},
        {"reader.file_shuffle", K::Used},
        {"reader.sample_shuffle", K::Used},
        {"reader.shuffle_size", K::Used},
        {"reader.transfer_size", K::Used},
        {"reader.odirect", K::Used},
        {"reader.write_threads", K::Ignored},
        {"reader.dont_use_mmap", K::Ignored},
        {"reader.reader_classname", K::Ignored},
        {"reader.multiprocessing_context", K::Ignored},
        {"reader.data_loader_classname", K::Ignored},
        {"reader.data_loader_sampler", K::Ignored},
        {"reader.file_access", K::Ignored},
        {"reader.read_type", K::Ignored},
        {"reader.preprocess_time", K::OpenIgnored},
        {"reader.preprocess_time_stdev", K::Ignored},
        {"reader.pin_memory", K::Ignored},
        {"reader.transformed_record_dims", K::Ignored},
        {"reader.transformed_record_element_type", K::Ignored},
        {"reader.transformed_sample", K::Ignored},
        {"reader.transformed_sample_type", K::Ignored},

        {"train", K::Section},
        {"train.epochs", K::Used},
        {"train.computation_time", K::TimeSpec},
        {"train.computation_time_stdev", K::Used},
        {"train.seed", K::Used},
        {"train.seed_change_epoch", K::Used},
        {"train.total_training_steps", K::Used},
        // v0.x/v1.0 spellings DLIO once read from train:
        {"train.eval_time", K::Ignored},
        {"train.eval_after_epoch", K::Ignored},
        {"train.do_eval", K::Ignored},

        {"evaluation", K::Section},
        {"evaluation.eval_time", K::TimeSpec},
        {"evaluation.eval_time_stdev", K::Used},
        {"evaluation.epochs_between_evals", K::Used},
        {"evaluation.eval_after_epoch", K::Ignored},

        {"checkpoint", K::Section},
        {"checkpoint.checkpoint_folder", K::Used},
        {"checkpoint.checkpoint_after_epoch", K::Used},
        {"checkpoint.epochs_between_checkpoints", K::Used},
        {"checkpoint.steps_between_checkpoints", K::Used},
        {"checkpoint.model_size", K::Used}, // v1.0 (later: model.model_size_bytes)
        {"checkpoint.fsync", K::Used},
        {"checkpoint.type", K::Used},
        {"checkpoint.checkpoint_mechanism_classname", K::Used},
        {"checkpoint.time_between_checkpoints", K::Used},
        {"checkpoint.num_checkpoints_write", K::Used},
        {"checkpoint.num_checkpoints_read", K::Used},
        {"checkpoint.recovery_rank_shift", K::Used},
        {"checkpoint.rank_sync", K::Used},
        {"checkpoint.mode", K::Used},
        {"checkpoint.randomize_tensor", K::Used},
        {"checkpoint.ksm", K::OpenIgnored},
        {"checkpoint.optimization_groups", K::Ignored},
        {"checkpoint.num_layers", K::Ignored},
        {"checkpoint.layer_parameters", K::Ignored},
        {"checkpoint.tensor_parallelism", K::Ignored},
        {"checkpoint.pipeline_parallelism", K::Ignored},
        {"checkpoint.do_checkpoint", K::Ignored},
        {"checkpoint.output_folder", K::Ignored},

        {"output", K::Section},
        {"output.folder", K::Ignored},
        {"output.log_file", K::Ignored},
        {"output.metric", K::Section},
        {"output.metric.exclude_start_steps", K::Used},
        {"output.metric.exclude_end_steps", K::Used},

        {"profiling", K::Section},
        {"profiling.profiler", K::Ignored},
        {"profiling.iostat_devices", K::Ignored},

        {"metric", K::Section},
        {"metric.au", K::Used},
    };
    return keys;
}

const std::map<std::string, KeyKind>& index() {
    static const std::map<std::string, KeyKind> m = [] {
        std::map<std::string, KeyKind> out;
        for (const auto& k : table()) out.emplace(k.path, k.kind);
        return out;
    }();
    return m;
}

std::string canonicalSection(const std::string& path) {
    static const std::string alias = "data_reader";
    if (path.compare(0, alias.size(), alias) == 0 && (path.size() == alias.size() || path[alias.size()] == '.'))
        return "reader" + path.substr(alias.size());
    return path;
}

std::string parentOf(const std::string& path) {
    auto dot = path.rfind('.');
    return dot == std::string::npos ? std::string() : path.substr(0, dot);
}

std::string leafOf(const std::string& path) {
    auto dot = path.rfind('.');
    return dot == std::string::npos ? path : path.substr(dot + 1);
}

} // namespace

std::optional<KeyKind> lookup(const std::string& path) {
    const auto& m = index();
    auto it = m.find(canonicalSection(path));
    if (it == m.end()) return std::nullopt;
    return it->second;
}

const std::vector<std::string>& timeSpecKeys() {
    static const std::vector<std::string> keys = {"mean", "stdev", "min", "max", "shape", "scale", "type", "lam"};
    return keys;
}

std::size_t editDistance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
        }
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

std::string suggest(const std::string& unknownPath) {
    const std::string path = canonicalSection(unknownPath);
    const std::string parent = parentOf(path);
    const std::string leaf = leafOf(path);
    // A key in the right section with a small typo is the likeliest intent; a key with exactly this
    // name in another section (reader.epochs → train.epochs) comes next; then a typo in the section.
    std::string best;
    std::size_t bestScore = std::string::npos;
    for (const auto& k : table()) {
        std::size_t score;
        if (parentOf(k.path) == parent) {
            score = editDistance(leaf, leafOf(k.path));
        } else if (leafOf(k.path) == leaf) {
            score = 1;
        } else {
            score = editDistance(path, k.path) + 1;
        }
        if (score < bestScore) {
            bestScore = score;
            best = k.path;
        }
    }
    const std::size_t limit = std::max<std::size_t>(2, leaf.size() / 3);
    return bestScore <= limit ? best : std::string();
}

} // namespace trainio::config_schema
