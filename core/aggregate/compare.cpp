#include "aggregate/compare.h"

#include "aggregate/identity.h"
#include "util/errors.h"
#include "util/units.h"
#include "util/text.h"

#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

using nlohmann::ordered_json;

namespace trainio::aggregate {

namespace {


struct MetricSpec {
    const char* key;
    const char* unit;
    const char* perAcceleratorUnit; // nullptr: never divided (AU is already a fraction of each accelerator)
    NodeMetric LibraryNode::*member;
    int precision;
};
constexpr MetricSpec kMetrics[] = {
    {"au_mean_percentage", "%", nullptr, &LibraryNode::au, 2},
    {"samples_per_second", "samples/s", "samples/s per accelerator", &LibraryNode::samplesPerSecond, 1},
    {"read_gib_per_second", "GiB/s", "GiB/s per accelerator", &LibraryNode::readGibPerSecond, 3},
    // Issue 9 item 4: "samples/s and MiB/s per accelerator"; appended, so the first three keep their places.
    {"mib_per_second", "MiB/s", "MiB/s per accelerator", &LibraryNode::mibPerSecond, 1},
};

NodeMetric dividedBy(const NodeMetric& m, double by) {
    NodeMetric out = m;
    out.mean /= by;
    out.stdev /= by;
    out.ci95.low /= by;
    out.ci95.high /= by;
    out.ci95.halfWidth /= by;
    for (double& v : out.values) v /= by;
    return out;
}

double sampleVariance(const std::vector<double>& v, double m) {
    double s = 0.0;
    for (double x : v) s += (x - m) * (x - m);
    return s / static_cast<double>(v.size() - 1);
}

std::string whyNot(const LibraryNode& item, const LibraryNode& base) {
    for (const LibraryNode* n : {&item, &base}) {
        if (n->kind != NodeKind::Benchmark && n->kind != NodeKind::Invocation)
            return n->itemName + " is a " + nodeKindName(n->kind) + ": only benchmarks and invocations have numbers to compare";
        if (!n->hasMetrics)
            return n->itemName + " has no complete run (" + statusName(n->status) +
                   (n->statusReason.empty() ? "" : ": " + n->statusReason) + ")";
        // The compared metrics are training's; a checkpointing item has none of them (its write/read GiB/s and
        // durations are in the Results details, the report's item section and `aggregate`).
        if (n->type == BenchmarkType::Checkpointing)
            return n->itemName + " is checkpointing: no training numbers to compare";
    }
    // An emulated device measures the emulation, not the storage beneath it: never a delta against real storage.
    if (item.storage.empty() != base.storage.empty()) {
        const LibraryNode& emulated = item.storage.empty() ? base : item;
        return "emulated vs real storage: " + emulated.itemName + " went through " + emulated.storage + ", " +
               (item.storage.empty() ? item : base).itemName + " through real storage";
    }
    // Two emulated devices, one over an object store and one over a file system: the store's requests
    // beneath one of them are part of its numbers, not of the other's.
    if (!item.storage.empty() && !base.storage.empty() && item.s3.empty() != base.s3.empty()) {
        const LibraryNode& over = item.s3.empty() ? base : item;
        return "S3 beneath one emulated device only: " + over.itemName + " went through " + over.storage + ", " +
               (item.s3.empty() ? item : base).itemName + " through " + (item.s3.empty() ? item : base).storage +
               " over a file system";
    }
    if (item.workloadKey != base.workloadKey) {
        std::string why = whyNotComparable(item.workloadKey, base.workloadKey);
        if (why.empty()) why = "different workload: " + item.workloadTitle + " vs " + base.workloadTitle;
        return why;
    }
    return {};
}

// "3 run means" / "30 epochs of one invocation".
std::string sampleText(const LibraryNode& n, std::size_t count) {
    if (!n.fromTable.empty()) return "a table row's published figures (no runs)";
    return std::to_string(count) + (n.kind == NodeKind::Benchmark ? " run means" : " epochs of one invocation");
}

std::string deltaText(const MetricDelta& d, int precision) {
    std::string s = fixedNumber(d.absolute, precision, true);
    if (std::isfinite(d.percent)) s += " (" + fixedNumber(d.percent, 1, true) + " %)";
    if (std::isfinite(d.ci95.low))
        s += " [" + fixedNumber(d.ci95.low, precision, true) + ", " + fixedNumber(d.ci95.high, precision, true) + "]";
    if (d.withinNoise && *d.withinNoise) s += " within noise";
    if (!d.ciNote.empty()) s += " no CI";
    return s;
}

// samples/s span 0.5 (one UNet3D accelerator) to 50,000 (ResNet-50), MiB/s alike: keep about four significant digits.
int precisionFor(const MetricSpec& spec, double value) {
    if (std::string(spec.key) != "samples_per_second" && std::string(spec.key) != "mib_per_second") return spec.precision;
    const double a = std::fabs(value);
    return a >= 100.0 ? 1 : a >= 1.0 ? 2 : 3;
}

std::size_t displayWidth(const std::string& s) {
    std::size_t w = 0;
    for (unsigned char c : s) w += (c & 0xC0) != 0x80; // UTF-8 code points, not bytes
    return w;
}

} // namespace

NodeMetric perAccelerator(const NodeMetric& m, std::int64_t accelerators) {
    return dividedBy(m, accelerators > 0 ? static_cast<double>(accelerators) : kNaN);
}

bool perAcceleratorByDefault(const std::vector<const LibraryNode*>& items) {
    for (const LibraryNode* n : items)
        for (const LibraryNode* m : items)
            if (n && m && n->hasMetrics && m->hasMetrics && n->accelerators != m->accelerators) return true;
    return false;
}

std::string unitOfReplication(const LibraryNode& n) {
    if (!n.fromTable.empty()) return "table row"; // MLCommons' table: the row's figures, no runs behind them here
    return n.kind == NodeKind::Benchmark ? "runs" : n.kind == NodeKind::Invocation ? "epochs" : "";
}

ConfidenceInterval welchCi95(const std::vector<double>& a, const std::vector<double>& b) {
    ConfidenceInterval ci;
    ci.rule = "Welch t (unequal variances, Welch-Satterthwaite df), 95 %";
    if (a.size() < 2 || b.size() < 2) {
        ci.low = ci.high = ci.halfWidth = kNaN;
        ci.rule += ": undefined, each side needs at least 2 values";
        return ci;
    }
    const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
    const double ma = mean(a).value, mb = mean(b).value;
    const double qa = sampleVariance(a, ma) / na, qb = sampleVariance(b, mb) / nb;
    const double diff = ma - mb;
    const double se2 = qa + qb;
    if (se2 == 0.0) {
        // Both sides without spread: the difference is exact.
        ci.low = ci.high = diff;
        ci.halfWidth = 0.0;
        return ci;
    }
    const double df = se2 * se2 / (qa * qa / (na - 1.0) + qb * qb / (nb - 1.0));
    ci.halfWidth = studentTQuantile(0.975, df) * std::sqrt(se2);
    ci.low = diff - ci.halfWidth;
    ci.high = diff + ci.halfWidth;
    std::ostringstream os;
    os << std::setprecision(4) << df;
    ci.rule += ", df = " + os.str();
    return ci;
}

CompareResult compare(const std::vector<const LibraryNode*>& items, const CompareOptions& options) {
    if (items.empty()) throw InputError("compare: no items to compare");
    if (options.baseline >= items.size())
        throw InputError("compare: baseline " + std::to_string(options.baseline + 1) + " is out of range: expected 1 to " +
                         std::to_string(items.size()));
    for (const LibraryNode* n : items)
        if (!n) throw InputError("compare: an item is missing");
    CompareResult result;
    result.baseline = options.baseline;
    result.perAccelerator = options.perAccelerator ? *options.perAccelerator : perAcceleratorByDefault(items);
    const LibraryNode& base = *items[options.baseline];

    auto valuesOf = [&](const LibraryNode& n) {
        std::vector<CompareMetric> out;
        for (const auto& spec : kMetrics) {
            CompareMetric m;
            m.key = spec.key;
            const bool divide = result.perAccelerator && spec.perAcceleratorUnit;
            m.unit = divide ? spec.perAcceleratorUnit : spec.unit;
            m.value = n.*(spec.member);
            if (divide) m.value = perAccelerator(m.value, n.accelerators);
            out.push_back(std::move(m));
        }
        return out;
    };
    const std::vector<CompareMetric> baseValues = valuesOf(base);

    for (std::size_t i = 0; i < items.size(); ++i) {
        const LibraryNode& n = *items[i];
        CompareRow row;
        row.node = &n;
        row.label = n.itemName.empty() ? n.label : n.itemName;
        row.baseline = i == options.baseline;
        row.reason = row.baseline ? whyNot(n, n) : whyNot(n, base);
        row.comparable = row.reason.empty();
        row.valuesShown = n.hasMetrics && (row.comparable || options.compareAnyway);
        row.metrics = valuesOf(n);
        row.replication = unitOfReplication(n);
        const bool sameKind = row.replication == unitOfReplication(base);
        if (row.comparable && !row.baseline && !sameKind)
            row.kindNote = "differs in kind from the baseline: " + sampleText(n, n.au.values.size()) + " vs " +
                           sampleText(base, base.au.values.size()) + "; Δ without CI (runs compare with runs, epochs with epochs)";
        if (row.comparable && !row.baseline) {
            for (std::size_t k = 0; k < row.metrics.size(); ++k) {
                const NodeMetric& a = row.metrics[k].value;
                const NodeMetric& b = baseValues[k].value;
                MetricDelta d;
                d.absolute = a.mean - b.mean;
                d.percent = b.mean != 0.0 ? 100.0 * d.absolute / b.mean : kNaN;
                // Welch's half width, centred on the headline difference: an invocation's headline is
                // DLIO's own mean, which need not be the plain mean of its epochs.
                if (!sameKind) {
                    // A run mean and an epoch are not draws of one quantity: no interval pretends they are.
                    d.ci95.low = d.ci95.high = d.ci95.halfWidth = kNaN;
                    d.ci95.rule = "none: the sides differ in kind (" + row.replication + " vs " + unitOfReplication(base) + ")";
                    d.ciNote = "differ in kind: " + sampleText(n, a.values.size()) + " vs " + sampleText(base, b.values.size());
                    row.metrics[k].delta = d;
                    continue;
                }
                d.ci95 = welchCi95(a.values, b.values);
                if (std::isfinite(d.ci95.halfWidth)) {
                    d.ci95.low = d.absolute - d.ci95.halfWidth;
                    d.ci95.high = d.absolute + d.ci95.halfWidth;
                    d.withinNoise = d.ci95.low <= 0.0 && d.ci95.high >= 0.0;
                }
                row.metrics[k].delta = d;
            }
        }
        result.rows.push_back(std::move(row));
    }
    return result;
}

ordered_json toJson(const CompareResult& result) {
    ordered_json j;
    j["baseline"] = result.baseline + 1;
    j["per_accelerator"] = result.perAccelerator;
    ordered_json rows = ordered_json::array();
    for (const auto& r : result.rows) {
        ordered_json row;
        row["label"] = r.label;
        row["path"] = r.node ? r.node->path.string() : std::string();
        row["level"] = r.node ? nodeKindName(r.node->kind) : std::string();
        row["baseline"] = r.baseline;
        row["comparable"] = r.comparable;
        row["reason"] = r.reason;
        row["unit_of_replication"] = r.replication;
        row["kind_note"] = r.kindNote;
        row["status"] = r.node ? statusName(r.node->status) : std::string();
        row["accelerators"] = r.node ? r.node->accelerators : 0;
        row["workload_identity"] = r.node ? r.node->workloadKey : std::string();
        if (r.valuesShown) {
            ordered_json values;
            for (const auto& m : r.metrics)
                values[m.key] = ordered_json{{"value", m.value.mean}, {"stdev", m.value.stdev}, {"ci95", m.value.ci95.halfWidth},
                                             {"n", m.value.n}, {"unit", m.unit}};
            row["values"] = std::move(values);
        } else {
            row["values"] = nullptr;
        }
        bool anyDelta = false;
        ordered_json delta;
        for (const auto& m : r.metrics) {
            if (!m.delta) continue;
            anyDelta = true;
            const MetricDelta& d = *m.delta;
            delta[m.key] = ordered_json{{"absolute", d.absolute}, {"percent", d.percent}, {"ci95_low", d.ci95.low},
                                        {"ci95_high", d.ci95.high},
                                        {"within_noise", d.withinNoise ? ordered_json(*d.withinNoise) : ordered_json()},
                                        {"ci_note", d.ciNote}};
        }
        row["delta"] = anyDelta ? std::move(delta) : ordered_json();
        rows.push_back(std::move(row));
    }
    j["rows"] = std::move(rows);
    return j;
}

std::string formatTable(const CompareResult& result) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> header{"#", "item"};
    const std::vector<CompareMetric>* units = result.rows.empty() ? nullptr : &result.rows.front().metrics;
    for (std::size_t k = 0; k < std::size(kMetrics); ++k) {
        const std::string unit = units ? (*units)[k].unit : kMetrics[k].unit;
        const bool perAcc = unit.find("per accelerator") != std::string::npos;
        static const char* const names[] = {"AU %", "samples/s", "Read GiB/s", "MiB/s"};
        header.push_back(std::string(names[k]) + (perAcc ? " per acc." : ""));
        header.push_back("Δ [95 % CI]");
    }
    header.push_back("note");
    rows.push_back(header);
    for (std::size_t i = 0; i < result.rows.size(); ++i) {
        const CompareRow& r = result.rows[i];
        std::vector<std::string> cells{std::to_string(i + 1), r.label};
        for (std::size_t k = 0; k < r.metrics.size(); ++k) {
            const CompareMetric& m = r.metrics[k];
            const int precision = precisionFor(kMetrics[k], r.valuesShown ? m.value.mean : 0.0);
            cells.push_back(r.valuesShown ? fixedNumber(m.value.mean, precision) + " ± " + fixedNumber(m.value.stdev, precision) : "—");
            cells.push_back(m.delta ? deltaText(*m.delta, precision) : "—");
        }
        std::string note = r.baseline ? "baseline" : "";
        if (!r.reason.empty()) note += std::string(note.empty() ? "" : "; ") + "not comparable: " + r.reason;
        if (!r.kindNote.empty()) note += std::string(note.empty() ? "" : "; ") + r.kindNote;
        cells.push_back(note);
        rows.push_back(std::move(cells));
    }
    std::vector<std::size_t> width(header.size(), 0);
    for (const auto& r : rows)
        for (std::size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], displayWidth(r[c]));
    std::ostringstream os;
    for (const auto& r : rows) {
        for (std::size_t c = 0; c < r.size(); ++c) {
            os << r[c];
            if (c + 1 < r.size()) os << std::string(width[c] - displayWidth(r[c]) + 2, ' ');
        }
        os << '\n';
    }
    os << (result.perAccelerator ? "samples/s, GiB/s and MiB/s are per accelerator (AU never is).\n"
                                 : "samples/s, GiB/s and MiB/s are totals over the item's accelerators.\n");
    os << "± is the standard deviation over the item's sample (a benchmark's complete runs, an invocation's epochs); "
          "Δ is item − baseline (in % of the baseline), […] the 95 % CI of the difference (Welch), given only between items "
          "of one kind (benchmark with benchmark over run means, invocation with invocation over epochs).\n";
    return os.str();
}

} // namespace trainio::aggregate
