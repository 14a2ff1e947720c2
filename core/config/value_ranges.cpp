#include "config/value_ranges.h"

#include <charconv>
#include <cmath>
#include <map>

namespace trainio {
namespace {

std::string number(double v) {
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e19) {
        char buf[32];
        auto r = std::to_chars(buf, buf + sizeof buf, static_cast<unsigned long long>(std::fabs(v)));
        return (v < 0 ? "-" : "") + std::string(buf, r.ptr);
    }
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

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

ValueRange bytes(double min, double max, bool exclusive = false, bool isWhole = false) {
    ValueRange r;
    r.min = min;
    r.max = max;
    r.minExclusive = exclusive;
    r.whole = isWhole;
    r.unit = ValueUnit::Bytes;
    return r;
}

ValueRange seconds(double min, double max, bool exclusive = false) {
    ValueRange r;
    r.min = min;
    r.max = max;
    r.minExclusive = exclusive;
    r.unit = ValueUnit::Seconds;
    return r;
}

const std::map<std::string, ValueRange>& table() {
    static const std::map<std::string, ValueRange> m = [] {
        std::map<std::string, ValueRange> t;
        t["dataset.num_files_train"] = whole(1, kMaxFiles);
        t["dataset.num_files_eval"] = whole(0, kMaxFiles);
        t["dataset.num_samples_per_file"] = whole(1, 1e9);
        t["dataset.record_length_bytes"] = bytes(0, kTiB, true);
        t["dataset.record_length_bytes_stdev"] = bytes(0, kTiB);
        t["dataset.record_length_bytes_resize"] = bytes(0, kTiB);
        t["dataset.num_subfolders_train"] = whole(0, 1e6);
        t["dataset.num_subfolders_eval"] = whole(0, 1e6);
        t["reader.batch_size"] = whole(1, 1e7);
        t["reader.batch_size_eval"] = whole(1, 1e7);
        t["reader.read_threads"] = whole(1, 1024);
        t["reader.computation_threads"] = whole(1, 1024);
        t["reader.prefetch_size"] = whole(0, 1e6);
        t["reader.shuffle_size"] = whole(1, 1e12);
        t["reader.transfer_size"] = bytes(0, 4294967296.0, false, true);
        t["train.epochs"] = whole(1, 1e6);
        t["train.seed"] = whole(0, 18446744073709551615.0);
        t["train.total_training_steps"] = whole(0, 1e15, "0 or -1 for the whole dataset");
        t["train.computation_time"] = seconds(0, kMaxSeconds);
        t["train.computation_time.mean"] = seconds(0, kMaxSeconds);
        t["train.computation_time.stdev"] = seconds(0, kMaxSeconds);
        t["train.computation_time.min"] = seconds(0, kMaxSeconds);
        t["train.computation_time.max"] = seconds(0, kMaxSeconds);
        t["train.computation_time.scale"] = seconds(0, kMaxSeconds, true);
        ValueRange shape; // 0 while the distribution does not use it; validateConfig asks > 0 for gamma
        shape.min = 0;
        shape.max = 1e6;
        shape.note = "> 0 for gamma";
        t["train.computation_time.shape"] = shape;
        t["trainio.io_depth"] = whole(1, 4096);
        ValueRange mibs;
        mibs.min = 0;
        mibs.max = 1e9;
        mibs.note = "0 for no cap";
        t["trainio.storage.bandwidth_mib_s"] = mibs;
        ValueRange iops = mibs;
        t["trainio.storage.iops"] = iops;
        t["trainio.storage.max_inflight"] = whole(0, 1e6, "0 for no limit");
        ValueRange ms;
        ms.min = 0;
        ms.max = 600000; // ten minutes per request
        ms.unit = ValueUnit::Milliseconds;
        for (const char* k : {"value", "mean", "stdev", "median"}) t[std::string("trainio.storage.latency_ms.") + k] = ms;
        ValueRange sigma;
        sigma.min = 0;
        sigma.max = 10;
        t["trainio.storage.latency_ms.sigma"] = sigma;
        t["trainio.telemetry_interval_s"] = seconds(0.01, 3600);
        // Not a workload key: the emulated accelerators of a run (CLI --accelerators, the GUI's field).
        t["accelerators"] = whole(1, 4096);
        t["evaluation.eval_time"] = seconds(0, kMaxSeconds);
        t["evaluation.epochs_between_evals"] = whole(1, 1e6);
        t["checkpoint.checkpoint_after_epoch"] = whole(0, 1e6);
        t["checkpoint.epochs_between_checkpoints"] = whole(1, 1e6);
        t["checkpoint.steps_between_checkpoints"] = whole(0, 1e15, "0 or -1 for off");
        t["model.model_size_bytes"] = bytes(0, 1024 * kTiB);
        // DLIO's model and checkpoint keys (the fork's utils/config.py ConfigArguments and LoadConfig).
        t["model.num_layers"] = whole(-1, 1e6, "-1 for a model without layers");
        t["model.parallelism.tensor"] = whole(1, 1e6);
        t["model.parallelism.pipeline"] = whole(1, 1e6);
        t["model.parallelism.data"] = whole(-1, 1e9, "-1 for the number of ranks");
        t["model.parallelism.zero_stage"] = whole(0, 3);
        for (const char* k : {"vocab_size", "hidden_size", "ffn_hidden_size", "num_attention_heads", "num_kv_heads"})
            t[std::string("model.transformer.") + k] = whole(1, 1e9);
        ValueRange between = seconds(-1, 1e6);
        between.note = "-1 for none";
        t["checkpoint.time_between_checkpoints"] = between;
        t["checkpoint.num_checkpoints_write"] = whole(-1, 1e6, "-1 for DLIO's default");
        t["checkpoint.num_checkpoints_read"] = whole(-1, 1e6, "-1 for DLIO's default");
        ValueRange scale;
        scale.min = 0;
        scale.max = 1;
        scale.minExclusive = true;
        t["trainio.checkpoint_scale"] = scale;
        t["output.metric.exclude_start_steps"] = whole(0, 1e9);
        t["output.metric.exclude_end_steps"] = whole(0, 1e9);
        ValueRange au;
        au.min = 0;
        au.max = 1;
        au.minExclusive = true;
        au.unit = ValueUnit::Fraction;
        t["metric.au"] = au;
        return t;
    }();
    return m;
}

} // namespace

bool ValueRange::contains(long double v) const {
    if (std::isnan(static_cast<double>(v))) return false;
    if (minExclusive ? !(v > min) : !(v >= min)) return false;
    if (!(v <= static_cast<long double>(max))) return false;
    return !whole || v == std::floor(v);
}

std::string ValueRange::describe() const {
    std::string what;
    switch (unit) {
    case ValueUnit::None: what = whole ? "a whole number" : "a number"; break;
    case ValueUnit::Bytes: what = whole ? "a whole number of bytes" : "a number of bytes"; break;
    case ValueUnit::Seconds: what = "a number of seconds"; break;
    case ValueUnit::Milliseconds: what = "a number of milliseconds"; break;
    case ValueUnit::Fraction: what = "a fraction"; break;
    }
    std::string s = minExclusive ? what + " > " + number(min) + " and <= " + number(max)
                                 : what + " " + number(min) + " … " + number(max);
    if (unit == ValueUnit::Fraction) s += " (0.90 = 90 %)";
    if (note) s += std::string(", ") + note;
    return s;
}

std::optional<ValueRange> valueRange(const std::string& canonicalKey) {
    const auto& t = table();
    auto it = t.find(canonicalKey);
    if (it == t.end()) return std::nullopt;
    return it->second;
}

} // namespace trainio
