#include "config/key_ranges.h"

#include <cmath>

namespace trainio::key_ranges {

namespace {

using quantity::Kind;
using quantity::Limits;

// Upper limits are far beyond any real workload but low enough that every integer in range is exact
// in a double (< 2^53), so a value never changes on its way through the form, YAML and JSON.
constexpr double kMaxFiles = 1e9;
constexpr double kMaxSteps = 1e12;
constexpr double kMaxEpochs = 100000;
constexpr double kMaxThreads = 1024;
constexpr double kMaxSampleBytes = 0x1p40;  // 1 TiB
constexpr double kMaxModelBytes = 0x1p50;   // 1 PiB
constexpr double kMaxTransferBytes = 0x1p30; // 1 GiB: Linux read() moves at most ~2 GiB per call
constexpr double kMaxSeconds = 86400;        // one day of emulated compute per step

KeyRange count(const char* key, double min, double max) { return {key, Kind::Count, Limits{min, max, true, false}}; }
KeyRange bytes(const char* key, double min, double max, bool integer = false, bool minExclusive = false) {
    return {key, Kind::Bytes, Limits{min, max, integer, minExclusive}};
}
KeyRange seconds(const char* key) { return {key, Kind::Seconds, Limits{0, kMaxSeconds, false, false}}; }

std::vector<KeyRange> build() {
    return {
        count("dataset.num_files_train", 1, kMaxFiles),
        count("dataset.num_files_eval", 0, kMaxFiles),
        count("dataset.num_samples_per_file", 1, kMaxFiles),
        bytes("dataset.record_length_bytes", 0, kMaxSampleBytes, false, true),
        bytes("dataset.record_length_bytes_stdev", 0, kMaxSampleBytes),
        bytes("dataset.record_length_bytes_resize", 0, kMaxSampleBytes),
        count("dataset.num_subfolders_train", 0, 1e6),
        count("dataset.num_subfolders_eval", 0, 1e6),
        count("reader.batch_size", 1, 1e7),
        count("reader.batch_size_eval", 1, 1e7),
        count("reader.read_threads", 1, kMaxThreads),
        count("reader.computation_threads", 1, kMaxThreads),
        count("reader.prefetch_size", 0, 1e6),
        count("reader.shuffle_size", 1, kMaxFiles),
        bytes("reader.transfer_size", 0, kMaxTransferBytes, true),
        count("train.epochs", 1, kMaxEpochs),
        count("train.seed", 0, 4294967295.0), // numpy's seed range
        count("train.total_training_steps", 0, kMaxSteps),
        seconds("train.computation_time"),
        seconds("train.computation_time.mean"),
        seconds("train.computation_time.stdev"),
        seconds("train.computation_time.min"),
        seconds("train.computation_time.max"),
        // Shape and scale are 0 while the distribution does not use them; validateConfig asks for > 0
        // when it does.
        {"train.computation_time.shape", Kind::Real, Limits{0, 1e6, false, false}},
        seconds("train.computation_time.scale"),
        count("checkpoint.checkpoint_after_epoch", 0, kMaxEpochs),
        count("checkpoint.epochs_between_checkpoints", 1, kMaxEpochs),
        count("checkpoint.steps_between_checkpoints", 0, kMaxSteps),
        bytes("model.model_size_bytes", 0, kMaxModelBytes),
        count("evaluation.epochs_between_evals", 1, kMaxEpochs),
        count("output.metric.exclude_start_steps", 0, kMaxSteps),
        count("output.metric.exclude_end_steps", 0, kMaxSteps),
        {"metric.au", Kind::Fraction, Limits{0, 1, false, true}},
        // Not a workload key: the number of emulated accelerators (--accelerators, the GUI's field).
        count("accelerators", 1, 4096),
    };
}

} // namespace

const std::vector<KeyRange>& all() {
    static const std::vector<KeyRange> table = build();
    return table;
}

const KeyRange* find(std::string_view key) {
    for (const KeyRange& r : all())
        if (r.key == key) return &r;
    return nullptr;
}

std::string expectation(std::string_view key) {
    const KeyRange* r = find(key);
    return r ? quantity::describe(r->kind, r->limits) : std::string();
}

quantity::Result parseKey(std::string_view key, std::string_view text) {
    const KeyRange* r = find(key);
    if (!r) return {std::nullopt, std::string(key) + ": not a numeric key"};
    quantity::Result res = quantity::parse(text, r->kind, r->limits);
    if (!res.ok()) res.error = std::string(key) + ": " + res.error;
    return res;
}

std::string checkValue(std::string_view key, double value) {
    const KeyRange* r = find(key);
    if (!r) return std::string(key) + ": not a numeric key";
    const auto& l = r->limits;
    const bool whole = !(r->kind == Kind::Count || l.integer) || value == std::floor(value);
    const bool aboveMin = l.minExclusive ? value > l.min : value >= l.min;
    if (std::isfinite(value) && whole && aboveMin && value <= l.max) return {};
    return std::string(key) + " = " + quantity::format(value, r->kind) + ": expected " + quantity::describe(r->kind, l);
}

std::string acceleratorNameProblem(std::string_view name) {
    const std::string q = "'" + std::string(name) + "'";
    if (name.empty()) return {};
    if (name.size() > 32) return "accelerator: " + q + " is longer than 32 characters";
    for (char c : name) {
        if (c == '_')
            return "accelerator: " + q + " contains '_': MLPerf Storage splits workload=<model>_<accelerator> on '_' "
                   "(use '-', e.g. h100-sxm)";
        if (c == ' ' || c == '\t') return "accelerator: " + q + " contains a blank: expected one word such as a100, h100, b200";
        if (c >= 'A' && c <= 'Z') return "accelerator: " + q + " has upper-case letters: expected lower case (a100, h100, b200)";
    }
    for (char c : name) {
        if (static_cast<unsigned char>(c) >= 0x80)
            return "accelerator: " + q + " contains a non-ASCII character: expected lower-case letters, digits, '-' or '.'";
        const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
        if (!ok) return "accelerator: " + q + " contains '" + std::string(1, c) + "': expected lower-case letters, digits, '-' or '.'";
    }
    if (name.front() == '-' || name.front() == '.')
        return "accelerator: " + q + " must start with a letter or a digit";
    return {};
}

const std::vector<std::string>& suggestedAccelerators() {
    static const std::vector<std::string> v = {"a100", "h100", "b200"};
    return v;
}

} // namespace trainio::key_ranges
