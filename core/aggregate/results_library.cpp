#include "aggregate/results_library.h"
#include "aggregate/mlcommons_table.h"
#include "aggregate/advisories.h"
#include "util/errors.h"

#include "aggregate/identity.h"
#include "aggregate/results_import.h"
#include "util/text.h"
#include "util/page_cache_verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iomanip>
#include <map>
#include <sstream>
#include <tuple>

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace trainio::aggregate {

namespace {

constexpr double kMiBPerGiB = 1024.0;

NodeMetric metricOf(std::vector<double> values) {
    NodeMetric m;
    m.n = values.size();
    m.mean = mean(values).value;
    m.stdev = populationStdev(values).value;
    m.ci95 = ci95(values);
    m.values = std::move(values);
    return m;
}

NodeMetric fromAggregate(const MetricAggregate& a) {
    NodeMetric m;
    m.n = a.values.size();
    m.mean = a.mean.value;
    m.stdev = a.populationStdev.value;
    m.ci95 = a.ci95;
    m.values = a.values;
    return m;
}

std::vector<double> scaled(const std::vector<double>& values, double divisor) {
    std::vector<double> out;
    out.reserve(values.size());
    for (double v : values) out.push_back(v / divisor);
    return out;
}

LibraryNode& child(LibraryNode& parent, NodeKind kind, std::string label) {
    auto n = std::make_unique<LibraryNode>();
    n->kind = kind;
    n->label = std::move(label);
    n->parent = &parent;
    parent.children.push_back(std::move(n));
    return *parent.children.back();
}

// "unet3d_h100": the MLPerf workload name, as overrides.yaml spells it.
std::string workloadName(const std::string& model, const std::string& accelerator) {
    std::string wl = model.empty() ? "unknown workload" : model;
    if (!accelerator.empty()) wl += "_" + accelerator;
    return wl;
}

std::string acceleratorsText(std::int64_t n) { return std::to_string(n) + (n == 1 ? " accelerator" : " accelerators"); }

// "S3 at http://10.0.0.5:9000" for runs that read objects of a bucket ("… in 2 of 3 runs" when not all
// did); "" when none did (LibraryNode::s3).
std::string s3Of(const ImportResult& imported, const std::vector<std::size_t>& runs) {
    std::size_t count = 0;
    std::string endpoint;
    for (std::size_t ri : runs) {
        const InvocationRecord& r = imported.runs.at(ri);
        if (r.s3Endpoint.empty()) continue;
        ++count;
        if (endpoint.empty()) endpoint = r.s3Endpoint;
    }
    if (count == 0) return {};
    std::string text = "S3 at " + endpoint;
    if (count < runs.size()) text += " in " + std::to_string(count) + " of " + std::to_string(runs.size()) + " runs";
    return text;
}

// LibraryNode::storage and liveChanges of these runs (docs/emulated-storage.md, "In the results"). An
// emulated device over an object store is named with the store beneath it: "S3 at ENDPOINT through
// emulated nvme" — never just "emulated nvme", which would say a local file system was beneath it.
std::pair<std::string, std::size_t> storageOf(const ImportResult& imported, const std::vector<std::size_t>& runs) {
    std::size_t emulated = 0, changes = 0;
    std::string profile;
    std::vector<std::size_t> emulatedRuns;
    for (std::size_t ri : runs) {
        const InvocationRecord& r = imported.runs.at(ri);
        if (!r.storageEmulated) continue;
        ++emulated;
        emulatedRuns.push_back(ri);
        changes += r.storageChanges.size();
        // A profile file is named by its stem (profiles/slow-nas.yaml → slow-nas), a shipped one by its name.
        if (profile.empty()) profile = std::filesystem::path(r.storageProfile).stem().string();
    }
    if (emulated == 0) return {"", 0};
    std::string text = profile.empty() ? "emulated storage" : "emulated " + profile;
    if (const std::string s3 = s3Of(imported, emulatedRuns); !s3.empty()) text = s3 + " through " + text;
    if (emulated < runs.size()) text += " in " + std::to_string(emulated) + " of " + std::to_string(runs.size()) + " runs";
    return {text, changes};
}

// " · emulated nfs-10gbe · changed live ×4" for an item's name; "" for real storage without changes.
std::string storageSuffix(const std::string& storage, std::size_t changes) {
    std::string s = storage.empty() ? "" : " · " + storage;
    if (changes > 0) s += " · changed live ×" + std::to_string(changes);
    return s;
}

// Until every importer sets the identity keys, a workload falls back to its MLPerf name so that
// different models never share a node.
std::string workloadKeyOf(const std::string& key, const std::string& model, const std::string& accelerator) {
    return key.empty() ? "name:" + workloadName(model, accelerator) : key;
}

// A benchmark the user stopped is "cancelled", as its cancelled invocation is (one word for one thing):
// the import calls any benchmark with fewer complete runs than planned "incomplete", whatever the cause.
// With a failed run as well it stays "incomplete" (two causes), and so does one that was merely cut short.
InvocationStatus benchmarkStatus(const ImportResult& imported, const RunGroup& g) {
    if (g.status != InvocationStatus::Incomplete) return g.status;
    bool cancelled = false, failed = false;
    for (std::size_t i : g.excluded) {
        if (i >= imported.runs.size()) continue;
        cancelled = cancelled || imported.runs[i].status == InvocationStatus::Cancelled;
        failed = failed || imported.runs[i].status == InvocationStatus::Failed;
    }
    return cancelled && !failed ? InvocationStatus::Cancelled : g.status;
}

int severity(InvocationStatus s) { return static_cast<int>(s); } // Complete < Incomplete < Cancelled < Failed

// The worst status among `items` (benchmarks and run-once invocations; warm-ups never count), with the
// first worst item's reason.
void worstStatus(LibraryNode& node, const std::vector<const LibraryNode*>& items) {
    node.status = InvocationStatus::Complete;
    node.statusReason.clear();
    for (const LibraryNode* c : items) {
        if (c->warmup) continue;
        if (severity(c->status) > severity(node.status)) {
            node.status = c->status;
            node.statusReason = c->itemName + ": " + (c->statusReason.empty() ? statusName(c->status) : c->statusReason);
        }
    }
}

void badgeFromChildren(LibraryNode& node) {
    node.badge = NodeBadge{};
    bool allPassed = true;
    for (const auto& c : node.children) {
        if (c->warmup || c->excluded) continue;
        node.badge.violations += c->badge.violations;
        if (c->badge.evaluated) {
            node.badge.evaluated = true;
            allPassed = allPassed && c->badge.passed;
        }
    }
    node.badge.passed = node.badge.evaluated && allPassed;
}

// The items a workload node compares: its benchmarks and its run-once invocations.
bool isItem(const LibraryNode& n) { return isLibraryItem(n); }

std::string verdict(const LibraryNode& n) {
    if (n.status != InvocationStatus::Complete)
        return statusName(n.status) + (n.statusReason.empty() ? "" : " (" + n.statusReason + ")");
    if (!n.badge.evaluated) return "not checked";
    if (n.badge.passed) return n.notSubmission.empty() ? "pass" : "pass (" + notSubmissionText(n.notSubmission.size()) + ")";
    // An invocation is judged by its AU alone; a benchmark by the rule checks.
    if (n.kind != NodeKind::Benchmark) return "fail (AU below the threshold)";
    return "fail (" + std::to_string(n.badge.violations) + (n.badge.violations == 1 ? " check)" : " checks)");
}

// A benchmark's folder as its name's last resort: "bench/runs" for TrainIO's and MLPerf's runs/ folders.
std::string folderLabel(const fs::path& p) {
    std::string label = p.filename().string();
    if (label == "runs" && p.has_parent_path()) label = p.parent_path().filename().string() + "/runs";
    return label;
}

// "4 accelerators: AU 95.10 %, 2.312 GiB/s, pass" — one item of a workload, its headline numbers.
// `name` (its own name or its folder) is added for benchmarks that share an accelerator count.
std::string itemSummary(const LibraryNode& n, const std::string& name = {}) {
    std::string line = acceleratorsText(n.accelerators);
    if (n.kind == NodeKind::Invocation) line += " (run once, " + n.label + ")";
    else if (!name.empty()) line += " (" + name + ")";
    if (!n.hasMetrics) return line + ": no complete run, " + verdict(n);
    if (n.type == BenchmarkType::Checkpointing) {
        auto phase = [](const char* what, const NodeMetric& bw, const NodeMetric& s) {
            return bw.n ? std::string(what) + " " + fixedNumber(bw.mean, 3) + " GiB/s (" + fixedNumber(s.mean, 1) + " s)"
                        : std::string(what) + " not measured";
        };
        return line + ": checkpoint " + phase("write", n.checkpointWriteGibPerSecond, n.checkpointWriteSeconds) + ", " +
               phase("read", n.checkpointReadGibPerSecond, n.checkpointReadSeconds) + ", " + verdict(n);
    }
    return line + ": AU " + fixedNumber(n.au.mean, 2) + " %, " + fixedNumber(n.readGibPerSecond.mean, 3) + " GiB/s, " + verdict(n);
}

bool sameFolder(const fs::path& a, const fs::path& b) {
    if (a.empty() || b.empty()) return false;
    std::error_code ec;
    if (fs::equivalent(a, b, ec)) return true;
    return fs::weakly_canonical(a, ec) == fs::weakly_canonical(b, ec);
}

bool isBelow(const fs::path& inner, const fs::path& outer) {
    std::error_code ec;
    const fs::path i = fs::weakly_canonical(inner, ec);
    const fs::path o = fs::weakly_canonical(outer, ec);
    const fs::path rel = i.lexically_relative(o);
    return !rel.empty() && *rel.begin() != "..";
}

// A benchmark is reached by its folder, by its runs/ folder, or (imported trees, whose group folder
// is the runs/ folder) by the folder above runs/.
bool benchmarkMatches(const LibraryNode& n, const fs::path& folder) {
    if (sameFolder(n.path, folder) || sameFolder(n.path / "runs", folder)) return true;
    return n.path.filename() == "runs" && sameFolder(n.path.parent_path(), folder);
}

ordered_json metricJson(const NodeMetric& m) {
    return ordered_json{{"value", m.mean}, {"stdev", m.stdev}, {"ci95", m.ci95.halfWidth}, {"n", m.n}};
}

ordered_json nodeJson(const LibraryNode& n, const ResultsLibrary& library) {
    ordered_json j;
    j["level"] = nodeKindName(n.kind);
    j["label"] = n.label;
    j["item_name"] = n.itemName;
    j["path"] = n.path.string();
    j["status"] = statusName(n.status);
    j["status_reason"] = n.statusReason;
    j["workload_identity"] = n.workloadKey;
    j["workload_title"] = n.workloadTitle;
    j["emulated_storage"] = n.storage; // "" for real storage
    j["s3"] = n.s3;                    // "" unless its runs read objects of a bucket
    j["live_storage_changes"] = n.liveChanges;
    j["accelerators"] = n.accelerators;
    j["warmup"] = n.warmup;
    j["excluded"] = n.excluded;
    j["description"] = n.description;
    j["summary"] = n.summary;
    if (n.kind == NodeKind::Collocation && n.collocation) j["interference"] = interferenceJson(library.interference(*n.collocation));
    j["best_passing"] = n.bestPassing ? ordered_json(*n.bestPassing) : ordered_json();
    j["bytes_source"] = n.bytesSource;
    j["telemetry_summary"] = n.telemetrySummary;
    j["client_bound"] = n.clientBound;
    j["max_percent_from_cache"] = n.maxPercentFromCache ? ordered_json(*n.maxPercentFromCache) : ordered_json();
    j["cache_served"] = n.cacheServed;
    j["kind"] = benchmarkTypeName(n.type);
    j["from_table"] = n.fromTable; // "" unless a row of MLCommons' table (no runs: each metric's n is 1, the row's figure)
    if (isLibraryItem(n)) j["efficiency"] = efficiencyJson(n.efficiency);
    if (n.hasMetrics && n.type == BenchmarkType::Checkpointing) {
        auto orNull = [](const NodeMetric& m) { return m.n ? metricJson(m) : ordered_json(); };
        j["metrics"] = ordered_json{{"checkpoint_write_gib_per_second", orNull(n.checkpointWriteGibPerSecond)},
                                    {"checkpoint_read_gib_per_second", orNull(n.checkpointReadGibPerSecond)},
                                    {"checkpoint_write_seconds", orNull(n.checkpointWriteSeconds)},
                                    {"checkpoint_read_seconds", orNull(n.checkpointReadSeconds)}};
    } else if (n.hasMetrics) {
        j["metrics"] = ordered_json{{"au_mean_percentage", metricJson(n.au)},
                                    {"samples_per_second", metricJson(n.samplesPerSecond)},
                                    {"read_gib_per_second", metricJson(n.readGibPerSecond)}};
    } else {
        j["metrics"] = nullptr;
    }
    ordered_json children = ordered_json::array();
    for (const auto& c : n.children)
        if (c->kind != NodeKind::Epoch) children.push_back(nodeJson(*c, library));
    j["children"] = std::move(children);
    return j;
}

} // namespace

std::string nodeKindName(NodeKind kind) {
    switch (kind) {
    case NodeKind::Root: return "root";
    case NodeKind::System: return "system";
    case NodeKind::Workload: return "workload";
    case NodeKind::Benchmark: return "benchmark";
    case NodeKind::Invocation: return "invocation";
    case NodeKind::Epoch: return "epoch";
    case NodeKind::Collocation: return "collocation";
    }
    return "node";
}

bool isLibraryItem(const LibraryNode& n) {
    return n.kind == NodeKind::Benchmark ||
           (n.kind == NodeKind::Invocation && n.parent &&
            (n.parent->kind == NodeKind::Workload || n.parent->kind == NodeKind::Collocation));
}

int LibraryNode::row() const {
    if (!parent) return 0;
    for (std::size_t i = 0; i < parent->children.size(); ++i)
        if (parent->children[i].get() == this) return static_cast<int>(i);
    return 0;
}

std::unique_ptr<ResultsLibrary> ResultsLibrary::withAdded(ImportResult added) const {
    ImportResult merged = imported_;
    if (!addImported(merged, std::move(added))) return nullptr;
    return std::make_unique<ResultsLibrary>(std::move(merged));
}

ResultsLibrary::ResultsLibrary(ImportResult imported) : imported_(std::move(imported)) {
    root_->kind = NodeKind::Root;
    root_->label = "All results";
    std::map<std::string, LibraryNode*> systems;
    std::map<std::pair<std::string, std::string>, LibraryNode*> workloads;

    // An invocation: DLIO's headline numbers (the mean over epochs it computed), the spread and the
    // sample over its epochs. Not complete → shown with its reason and no metrics.
    // Default names (docs/aggregation.md, "Item names"): "system · workload · N accelerators", the workload
    // named by its MLPerf name plus, where other workload identities share that name in the library, what
    // sets it apart (workloadDistinction: "2.9 MiB/sample"); benchmarks that would still share a name add
    // their folder. Every view (tree, compare, report) shows these names.
    std::map<std::string, std::vector<std::string>> keysByName;
    auto groupKey = [&](const RunGroup& g) { return workloadKeyOf(g.identity.workloadKey, g.identity.model, g.identity.accelerator); };
    for (const RunGroup& g : imported_.groups) {
        auto& keys = keysByName[workloadName(g.identity.model, g.identity.accelerator)];
        if (std::find(keys.begin(), keys.end(), groupKey(g)) == keys.end()) keys.push_back(groupKey(g));
    }
    auto distinction = [&](const RunGroup& g) {
        return workloadDistinction(groupKey(g), keysByName[workloadName(g.identity.model, g.identity.accelerator)]);
    };
    auto workloadDefaultName = [&](const RunGroup& g) {
        const std::string d = distinction(g);
        return workloadName(g.identity.model, g.identity.accelerator) + (d.empty() ? "" : " · " + d);
    };
    std::vector<std::string> benchmarkNames(imported_.groups.size());
    std::map<std::string, std::size_t> nameCount;
    for (std::size_t gi = 0; gi < imported_.groups.size(); ++gi) {
        const RunGroup& g = imported_.groups[gi];
        const auto [storage, changes] = storageOf(imported_, !g.runs.empty() ? g.runs : g.excluded);
        benchmarkNames[gi] = g.system + " · " + workloadDefaultName(g) + " · " + acceleratorsText(g.identity.accelerators) +
                             (g.kind == GroupKind::Single ? "" : storageSuffix(storage, changes));
        if (g.kind != GroupKind::Single) ++nameCount[benchmarkNames[gi]];
    }
    for (std::size_t gi = 0; gi < imported_.groups.size(); ++gi)
        if (imported_.groups[gi].kind != GroupKind::Single && nameCount[benchmarkNames[gi]] > 1)
            benchmarkNames[gi] += " (" + folderLabel(imported_.groups[gi].path) + ")";
    // A collocated item says with whom it ran: it is not the same measurement as the workload alone.
    auto collocatedSuffix = [&](const RunGroup& g) -> std::string {
        if (!g.collocation) return "";
        std::string others;
        for (const auto& m : imported_.collocations[*g.collocation].workloads)
            if (m.name != g.collocatedAs) others += (others.empty() ? "" : ", ") + m.name;
        return " · collocated with " + others;
    };
    for (std::size_t gi = 0; gi < imported_.groups.size(); ++gi)
        if (imported_.groups[gi].kind != GroupKind::Single) benchmarkNames[gi] += collocatedSuffix(imported_.groups[gi]);
    for (std::size_t c = 0; c < imported_.collocations.size(); ++c) interference_.push_back(collocationInterference(imported_, c));
    std::map<std::pair<std::string, std::size_t>, LibraryNode*> collocationNodes;
    auto collocationNode = [&](LibraryNode& sys, std::size_t c) -> LibraryNode& {
        LibraryNode*& node = collocationNodes[{sys.label, c}];
        if (node) return *node;
        const store::CollocationFile& f = imported_.collocations[c];
        std::string names;
        for (const auto& m : f.workloads) names += (names.empty() ? "" : " + ") + m.name;
        std::string device = "the real storage";
        if (!f.sharedStorage.empty()) {
            const auto p = f.sharedStorage.find("profile");
            device = "one emulated " + (p != f.sharedStorage.end() && p->is_string() ? p->get<std::string>() + " device" : std::string("device"));
        }
        node = &child(sys, NodeKind::Collocation, "collocation: " + names + " (" + folderLabel(f.file.parent_path()) + ")");
        node->path = f.file.parent_path();
        node->collocation = c;
        node->itemName = sys.label + " · " + node->label;
        node->description = "ran at the same time on " + device;
        node->status = f.status == "complete" ? InvocationStatus::Complete
                       : f.status == "cancelled" ? InvocationStatus::Cancelled
                       : f.status == "failed" ? InvocationStatus::Failed
                                              : InvocationStatus::Incomplete;
        if (f.status == "running") node->statusReason = "the collocation did not end (killed?): each workload's folder says what it kept";
        // Against alone runs of the same benchmark identity in the library (the collocation's own --alone ones first).
        for (const auto& w : interference_[c].workloads) node->summary.push_back(interferenceLine(w));
        if (!interference_[c].lostMost.empty()) node->summary.push_back("lost most: " + interference_[c].lostMost);
        return *node;
    };
    std::map<const LibraryNode*, std::string> summaryNames; // benchmarks: own name, else folder

    // `base`: the name of what the invocation belongs to ("system · workload · N accelerators").
    auto addInvocation = [&](LibraryNode& parent, std::size_t ri, const std::string& base) -> LibraryNode& {
        const InvocationRecord& r = imported_.runs[ri];
        LibraryNode& inv = child(parent, NodeKind::Invocation, r.warmup ? r.runName + " (warm-up)" : r.runName);
        inv.path = r.path;
        inv.run = ri;
        inv.warmup = r.warmup;
        inv.status = r.status;
        inv.statusReason = r.statusReason;
        inv.excluded = r.status != InvocationStatus::Complete;
        inv.hasMetrics = !inv.excluded;
        inv.accelerators = r.accelerators;
        inv.workloadKey = workloadKeyOf(r.workloadKey, r.model, r.accelerator);
        inv.workloadTitle = r.workloadTitle.empty() ? workloadName(r.model, r.accelerator) : r.workloadTitle;
        inv.description = r.labels.description;
        inv.notes = r.labels.notes;
        inv.bytesSource = bytesSourceText(imported_, {ri}, &inv.maxPercentFromCache, &inv.cacheServed);
        inv.telemetrySummary = telemetrySummaryText(imported_, {ri}, &inv.clientBound);
        inv.advisories = advisoryTexts(imported_, {ri});
        std::tie(inv.storage, inv.liveChanges) = storageOf(imported_, {ri});
        inv.s3 = s3Of(imported_, {ri});
        // Under a benchmark the base names the device already; the run adds its own live changes.
        const bool alone = parent.kind != NodeKind::Benchmark;
        inv.itemName = (!r.labels.name.empty() ? r.labels.name : base + " · " + r.runName) +
                       storageSuffix(alone ? inv.storage : std::string(), inv.liveChanges);
        if (alone) inv.label += storageSuffix(inv.storage, inv.liveChanges);
        const double mibPerSample = r.samplesPerSecond > 0 ? r.mbPerSecond / r.samplesPerSecond : NAN;
        std::vector<double> epochMib;
        for (std::size_t e = 0; e < std::max(r.epochAuPercent.size(), r.epochSamplesPerSecond.size()); ++e) {
            LibraryNode& ep = child(inv, NodeKind::Epoch, "epoch " + std::to_string(e + 1));
            ep.path = r.path;
            ep.run = ri;
            ep.epoch = e;
            ep.warmup = r.warmup;
            ep.excluded = inv.excluded;
            ep.hasMetrics = true;
            ep.accelerators = r.accelerators;
            ep.workloadKey = inv.workloadKey;
            ep.workloadTitle = inv.workloadTitle;
            ep.status = r.status;
            ep.itemName = inv.itemName + " · epoch " + std::to_string(e + 1);
            if (e < r.epochAuPercent.size()) ep.au = metricOf({r.epochAuPercent[e]});
            if (e < r.epochSamplesPerSecond.size()) {
                ep.samplesPerSecond = metricOf({r.epochSamplesPerSecond[e]});
                if (std::isfinite(mibPerSample)) {
                    const double mib = r.epochSamplesPerSecond[e] * mibPerSample;
                    epochMib.push_back(mib);
                    ep.mibPerSecond = metricOf({mib});
                    ep.readGibPerSecond = metricOf({mib / kMiBPerGiB});
                }
            }
            if (r.auThresholdPercent && e < r.epochAuPercent.size()) {
                ep.badge.evaluated = true;
                ep.badge.passed = r.epochAuPercent[e] >= *r.auThresholdPercent;
            }
        }
        inv.type = r.type;
        if (inv.hasMetrics && r.type == BenchmarkType::Checkpointing) {
            // summary.json's own means (over the checkpoints of each direction); the per-checkpoint values
            // are in the per-epoch stats, which the importer does not read.
            auto one = [](double v) { return std::isfinite(v) ? metricOf({v}) : NodeMetric{}; };
            inv.checkpointWriteGibPerSecond = one(r.checkpointWriteGiBps);
            inv.checkpointReadGibPerSecond = one(r.checkpointReadGiBps);
            inv.checkpointWriteSeconds = one(r.checkpointWriteSeconds);
            inv.checkpointReadSeconds = one(r.checkpointReadSeconds);
        } else if (inv.hasMetrics) {
            inv.au = metricOf(r.epochAuPercent);
            inv.samplesPerSecond = metricOf(r.epochSamplesPerSecond);
            inv.mibPerSecond = metricOf(epochMib);
            inv.readGibPerSecond = metricOf(scaled(epochMib, kMiBPerGiB));
            // The headline is DLIO's own (it may weigh epochs differently from a plain mean), so the
            // numbers match summary.json; n counts at least the headline itself.
            inv.au.mean = r.auMeanPercent;
            inv.samplesPerSecond.mean = r.samplesPerSecond;
            inv.mibPerSecond.mean = r.mbPerSecond;
            inv.readGibPerSecond.mean = r.mbPerSecond / kMiBPerGiB;
            for (NodeMetric* m : {&inv.au, &inv.samplesPerSecond, &inv.mibPerSecond, &inv.readGibPerSecond})
                m->n = std::max<std::size_t>(m->n, 1);
        }
        // A checkpointing invocation has no AU to judge (its AU threshold is the config's default);
        // its benchmark is judged by the checkpointing rules.
        if (r.auThresholdPercent && !inv.excluded && r.type != BenchmarkType::Checkpointing) {
            inv.badge.evaluated = true;
            inv.badge.passed = r.auMeanPercent >= *r.auThresholdPercent && r.auMeetExpectation != "fail";
        }
        return inv;
    };

    for (std::size_t gi = 0; gi < imported_.groups.size(); ++gi) {
        const RunGroup& g = imported_.groups[gi];
        aggregates_.push_back(aggregateGroup(imported_, g));
        const GroupAggregate& agg = aggregates_.back();

        LibraryNode*& sys = systems[g.system];
        if (!sys) {
            sys = &child(*root_, NodeKind::System, g.system);
            sys->itemName = g.system;
            if (g.systemFile) sys->path = *g.systemFile;
        }
        if (sys->description.empty()) sys->description = g.systemDescription;

        // The runs' own identity (the group's is the same by construction; a group of only excluded
        // runs still names its workload through them).
        const InvocationRecord* first = nullptr;
        for (const auto* list : {&g.runs, &g.excluded, &g.warmups})
            if (!first && !list->empty()) first = &imported_.runs[list->front()];
        const std::string wlKey = workloadKeyOf(g.identity.workloadKey, g.identity.model, g.identity.accelerator);
        const std::string wlTitle = first && !first->workloadTitle.empty()
                                        ? first->workloadTitle
                                        : workloadName(g.identity.model, g.identity.accelerator);
        // A collocated item sits under its collocation, not beside the workload's items measured alone:
        // a workload node only for items that ran alone.
        LibraryNode* placeholder = nullptr;
        LibraryNode*& work = g.collocation ? placeholder : workloads[{g.system, wlKey}];
        if (!work && !g.collocation) {
            // The title names format and record size; add what else sets this workload apart from another
            // of the same name ("batch 4"), so that no two workload rows read alike.
            std::string title = wlTitle;
            const std::string d = distinction(g);
            std::size_t from = 0;
            while (from < d.size()) {
                const std::size_t to = std::min(d.find(" · ", from), d.size());
                const std::string part = d.substr(from, to - from);
                if (title.find(part) == std::string::npos) title += " · " + part;
                from = to + 3;
            }
            work = &child(*sys, NodeKind::Workload, title);
            work->workloadKey = wlKey;
            work->workloadTitle = wlTitle;
            work->itemName = g.system + " · " + title;
        }

        LibraryNode& parent = g.collocation ? collocationNode(*sys, *g.collocation) : *work;

        // A run-once invocation stays a single item: no benchmark node above it.
        if (g.kind == GroupKind::Single && first) {
            const std::size_t ri = !g.runs.empty() ? g.runs.front() : !g.excluded.empty() ? g.excluded.front() : g.warmups.front();
            LibraryNode& inv = addInvocation(parent, ri, g.system + " · " + workloadDefaultName(g) + " · " +
                                                             acceleratorsText(imported_.runs[ri].accelerators) + collocatedSuffix(g));
            inv.efficiency = agg.efficiency;
            if (g.collocation) {
                inv.collocation = g.collocation;
                inv.label = g.collocatedAs + collocatedSuffix(g) + storageSuffix(inv.storage, inv.liveChanges);
            }
            continue;
        }

        LibraryNode& bench = child(parent, NodeKind::Benchmark, !g.labels.name.empty() ? g.labels.name : benchmarkNames[gi]);
        summaryNames[&bench] = !g.labels.name.empty() ? g.labels.name : folderLabel(g.path);
        bench.path = g.path;
        bench.group = gi;
        bench.collocation = g.collocation;
        if (g.collocation) bench.label = g.collocatedAs + ": " + bench.label;
        bench.checks = agg.checks;
        bench.notSubmission = agg.notSubmission;
        bench.accelerators = g.identity.accelerators;
        bench.workloadKey = wlKey;
        bench.workloadTitle = wlTitle;
        bench.status = benchmarkStatus(imported_, g);
        bench.statusReason = g.statusReason;
        bench.description = g.labels.description;
        bench.notes = g.labels.notes;
        bench.itemName = bench.label;
        std::tie(bench.storage, bench.liveChanges) = storageOf(imported_, !g.runs.empty() ? g.runs : g.excluded);
        bench.s3 = s3Of(imported_, !g.runs.empty() ? g.runs : g.excluded);
        if (!g.labels.name.empty()) bench.itemName += storageSuffix(bench.storage, bench.liveChanges);

        bench.bytesSource = bytesSourceText(imported_, g.runs, &bench.maxPercentFromCache, &bench.cacheServed);
        bench.telemetrySummary = telemetrySummaryText(imported_, g.runs, &bench.clientBound);
        bench.advisories = advisoryTexts(imported_, g.runs);
        bench.efficiency = agg.efficiency;
        for (std::size_t ri : g.warmups) addInvocation(bench, ri, benchmarkNames[gi]);
        // Measured runs and the excluded ones side by side, by name, as the folder lists them.
        std::vector<std::size_t> measured = g.runs;
        measured.insert(measured.end(), g.excluded.begin(), g.excluded.end());
        std::stable_sort(measured.begin(), measured.end(),
                         [&](std::size_t a, std::size_t b) { return imported_.runs[a].runName < imported_.runs[b].runName; });
        for (std::size_t ri : measured) addInvocation(bench, ri, benchmarkNames[gi]);

        // The benchmark's numbers are exactly the group aggregate over its complete runs (MLPerf's
        // mean of means and population stdev).
        bench.hasMetrics = !g.runs.empty();
        if (g.tableRow) { // MLCommons' table: the row's figures (one value each), no runs, nothing checked
            bench.fromTable = tableRowText(*g.tableRow);
            bench.hasMetrics = !agg.mibPerSecond.values.empty() || !agg.checkpointWriteGiBps.values.empty() ||
                               !agg.checkpointReadGiBps.values.empty();
        }
        bench.type = g.type;
        if (bench.hasMetrics && g.type == BenchmarkType::Checkpointing) {
            bench.checkpointWriteGibPerSecond = fromAggregate(agg.checkpointWriteGiBps);
            bench.checkpointReadGibPerSecond = fromAggregate(agg.checkpointReadGiBps);
            bench.checkpointWriteSeconds = fromAggregate(agg.checkpointWriteSeconds);
            bench.checkpointReadSeconds = fromAggregate(agg.checkpointReadSeconds);
        } else if (bench.hasMetrics) {
            bench.au = fromAggregate(agg.au);
            bench.samplesPerSecond = fromAggregate(agg.samplesPerSecond);
            bench.mibPerSecond = fromAggregate(agg.mibPerSecond);
            bench.readGibPerSecond = metricOf(scaled(agg.mibPerSecond.values, kMiBPerGiB));
        }
        bench.badge.evaluated = !g.tableRow;
        bench.badge.passed = agg.checks.empty() && g.status == InvocationStatus::Complete;
        bench.badge.violations = agg.checks.size();
    }

    for (auto& sys : root_->children) {
        std::vector<const LibraryNode*> systemItems;
        for (auto& work : sys->children) {
            std::vector<const LibraryNode*> items;
            for (const auto& c : work->children) items.push_back(c.get());
            worstStatus(*work, items);
            badgeFromChildren(*work);
            if (work->kind == NodeKind::Collocation) {
                // Several workloads: no best item across them; each item's line, then the system's line.
                for (const auto& c : work->children) work->summary.push_back(itemSummary(*c, std::string()));
                const std::string& lost = interference_[*work->collocation].lostMost;
                sys->summary.push_back(work->label + (lost.empty() ? "" : " — lost most: " + lost));
                systemItems.insert(systemItems.end(), items.begin(), items.end());
                continue;
            }
            // The best passing item: most accelerators, then the higher Read GiB/s. Only a benchmark
            // can pass: MLPerf's rules are about a benchmark's runs, never one invocation.
            for (std::size_t i = 0; i < work->children.size(); ++i) {
                const LibraryNode& c = *work->children[i];
                if (c.kind != NodeKind::Benchmark || !c.hasMetrics || !c.badge.passed) continue;
                if (!work->bestPassing) {
                    work->bestPassing = i;
                    continue;
                }
                const LibraryNode& best = *work->children[*work->bestPassing];
                if (c.accelerators > best.accelerators ||
                    (c.accelerators == best.accelerators && c.readGibPerSecond.mean > best.readGibPerSecond.mean))
                    work->bestPassing = i;
            }
            for (const auto& c : work->children) {
                const bool shared = std::count_if(work->children.begin(), work->children.end(), [&](const auto& o) {
                                        return o->kind == NodeKind::Benchmark && o->accelerators == c->accelerators;
                                    }) > 1;
                work->summary.push_back(itemSummary(*c, shared ? summaryNames[c.get()] : std::string()));
            }
            const bool anyBenchmark = std::any_of(work->children.begin(), work->children.end(),
                                                  [](const auto& c) { return c->kind == NodeKind::Benchmark; });
            const std::string line = work->bestPassing ? work->label + " — best passing " + itemSummary(*work->children[*work->bestPassing], summaryNames[work->children[*work->bestPassing].get()])
                                     : anyBenchmark    ? work->label + " — none passes"
                                                       : work->label + " — no benchmark, run-once invocations only";
            sys->summary.push_back(line);
            systemItems.insert(systemItems.end(), items.begin(), items.end());
        }
        worstStatus(*sys, systemItems);
        badgeFromChildren(*sys);
    }
    std::vector<const LibraryNode*> all;
    for (auto& sys : root_->children)
        for (auto& work : sys->children)
            for (const auto& c : work->children) all.push_back(c.get());
    worstStatus(*root_, all);
    badgeFromChildren(*root_);
}

std::vector<const LibraryNode*> ResultsLibrary::nodes(NodeKind kind) const {
    std::vector<const LibraryNode*> out;
    std::function<void(const LibraryNode&)> walk = [&](const LibraryNode& n) {
        if (n.kind == kind) out.push_back(&n);
        for (const auto& c : n.children) walk(*c);
    };
    walk(*root_);
    return out;
}

std::vector<const LibraryNode*> ResultsLibrary::findAllByPath(const fs::path& folder) const {
    std::vector<const LibraryNode*> out;
    for (const LibraryNode* b : nodes(NodeKind::Benchmark))
        if (benchmarkMatches(*b, folder)) out.push_back(b);
    if (!out.empty()) return out;
    for (const LibraryNode* i : nodes(NodeKind::Invocation))
        if (sameFolder(i->path, folder)) out.push_back(i);
    return out;
}

const LibraryNode* ResultsLibrary::findByPath(const fs::path& folder) const {
    const auto found = findAllByPath(folder);
    return found.empty() ? nullptr : found.front();
}

std::vector<const LibraryNode*> ResultsLibrary::itemsBelow(const fs::path& folder) const {
    std::vector<const LibraryNode*> out;
    std::function<void(const LibraryNode&)> walk = [&](const LibraryNode& n) {
        if (isItem(n)) {
            if (!n.path.empty() && (sameFolder(n.path, folder) || isBelow(n.path, folder))) out.push_back(&n);
            return;
        }
        for (const auto& c : n.children) walk(*c);
    };
    walk(*root_);
    return out;
}

ordered_json treeJson(const ResultsLibrary& library) {
    ordered_json tree = ordered_json::array();
    for (const auto& sys : library.root().children) tree.push_back(nodeJson(*sys, library));
    return ordered_json{{"tree", std::move(tree)}};
}

namespace {

// "emulated storage hdd (250 MiB/s, …)", "emulated storage without a profile (40 MiB/s)"; over an object
// store "emulated storage nvme (…) over S3 at http://10.0.0.5:9000".
std::string emulatedDeviceText(const InvocationRecord& r) {
    std::string text = "emulated storage " + (r.storageProfile.empty() ? std::string("without a profile") : r.storageProfile);
    if (!r.storageShape.empty()) text += " (" + r.storageShape + ")";
    if (!r.s3Endpoint.empty()) text += " over S3 at " + r.s3Endpoint;
    return text;
}

} // namespace

std::string bytesSourceText(const ImportResult& imported, const std::vector<std::size_t>& runs,
                            std::optional<double>* maxPercent, bool* cacheServed) {
    std::vector<double> all;    // every measured epoch
    double servedMax = -1;      // the highest of the runs that read the page cache unshaped
    std::string epochs, cache, engine;
    const InvocationRecord* emulated = nullptr;
    std::size_t withFile = 0, emulatedRuns = 0, changes = 0;
    for (std::size_t ri : runs) {
        const InvocationRecord& r = imported.runs.at(ri);
        if (r.epochPercentFromCache.empty() && !r.storageEmulated) continue;
        ++withFile;
        if (r.storageEmulated) {
            ++emulatedRuns;
            changes += r.storageChanges.size();
            if (!emulated) emulated = &r;
        }
        if (cache.empty()) cache = r.cacheControl;
        if (engine.empty()) engine = r.ioEngine;
        for (double p : r.epochPercentFromCache) {
            char buf[32];
            if (std::isnan(p)) {
                std::snprintf(buf, sizeof buf, "not measured");
            } else {
                all.push_back(p);
                if (!r.storageEmulated) servedMax = std::max(servedMax, p);
                std::snprintf(buf, sizeof buf, "%.0f %%", p);
            }
            epochs += (epochs.empty() ? "" : ", ") + std::string(buf);
        }
        if (runs.size() > 1) epochs += ";";
    }
    if (withFile == 0) return {};
    if (!all.empty() && maxPercent) *maxPercent = *std::max_element(all.begin(), all.end());
    // An emulated device shapes every read as that device would serve it, whatever the page cache holds
    // beneath it (the run itself does not warn then): the numbers are about the emulated device.
    std::string text;
    if (emulated) {
        text = "Bytes came through " + emulatedDeviceText(*emulated);
        if (runs.size() > 1) text += " in " + std::to_string(emulatedRuns) + " of " + std::to_string(withFile) + " runs";
        if (changes > 0) text += ", changed " + std::to_string(changes) + " time(s) during the run" + (runs.size() > 1 ? "s" : "");
        text += ": the numbers describe that device, not the page cache beneath it. ";
    }
    const std::string prefix = emulated ? "From the page cache beneath it" : "Bytes from the page cache";
    if (runs.size() == 1) {
        text += prefix + ", per epoch: " + (epochs.empty() ? std::string("no epoch measured") : epochs);
    } else if (all.empty()) {
        text += prefix + ": not measured in " + std::to_string(withFile) + " runs";
    } else {
        char buf[160];
        const double mn = *std::min_element(all.begin(), all.end()), mx = *std::max_element(all.begin(), all.end());
        if (std::lround(mn) == std::lround(mx))
            std::snprintf(buf, sizeof buf, ": %.0f %% in every measured epoch of %zu runs", mx, runs.size());
        else
            std::snprintf(buf, sizeof buf, ": %.0f %% to %.0f %% per epoch over %zu runs", mn, mx, runs.size());
        text += prefix + buf;
    }
    text += " (cache: " + (cache.empty() ? std::string("?") : cache) + ", engine: " + (engine.empty() ? std::string("?") : engine) + ")";
    // The runs that read the page cache unshaped, weighed as their own warning weighs them.
    PageCacheEvidence unshaped;
    unshaped.cacheControl = cache;
    if (servedMax >= 0) unshaped.epochPercentFromCache.push_back(servedMax);
    const bool served = servedMax >= 0 && pageCacheVerdict(unshaped).warning;
    if (cacheServed) *cacheServed = served;
    if (served)
        text += std::string(". Most bytes of some epochs") + (emulated ? " of the runs without emulated storage" : "") +
                " came from the page cache: those numbers describe memory, not the storage";
    return text;
}

std::string predictionNotComparable(const InvocationRecord& r) {
    // The model knows the emulated device's limits, not the object store's requests beneath it.
    if (r.storageEmulated && !r.s3Endpoint.empty())
        return "its reads went to S3 at " + r.s3Endpoint + " through the emulated device; the prediction is for the "
               "emulated device over a local file system";
    if (r.storageChanges.empty()) return {};
    char first[48];
    std::snprintf(first, sizeof first, "%.1f s", r.storageChanges.front().secondsSinceStart);
    const std::size_t n = r.storageChanges.size();
    return "its storage was changed live " + std::to_string(n) + (n == 1 ? " time" : " times") + " (first at " + first +
           "); the prediction is for the device it started with";
}

std::vector<std::string> advisoryTexts(const ImportResult& imported, const std::vector<std::size_t>& runs) {
    const AdvisoryLedger* ledger = nullptr;
    try {
        ledger = &defaultAdvisoryLedger();
    } catch (const InputError& e) {
        return {std::string("advisories unknown: ") + e.what()};
    }
    std::vector<RunProvenance> made;
    for (std::size_t ri : runs) made.push_back(provenanceOf(imported.runs.at(ri)));
    std::vector<std::string> out;
    for (const RunsAdvisory& a : matchAdvisoriesOfRuns(*ledger, made))
        out.push_back(a.runs == runs.size() ? a.match.text
                                            : "in " + std::to_string(a.runs) + " of " + std::to_string(runs.size()) + " runs: " + a.match.text);
    return out;
}

std::string telemetrySummaryText(const ImportResult& imported, const std::vector<std::size_t>& runs, bool* clientBound) {
    std::vector<const telemetry::TelemetrySummary*> with;
    for (std::size_t ri : runs)
        if (imported.runs.at(ri).telemetry.rows > 0) with.push_back(&imported.runs.at(ri).telemetry);
    if (with.empty()) return {};
    std::size_t bound = 0;
    for (const auto* t : with) bound += t->clientBound ? 1 : 0;
    if (clientBound) *clientBound = bound > 0;
    if (runs.size() == 1) return "Telemetry: " + telemetry::summaryText(*with.front());
    // Several runs: the spread of their means, NaN (never measured) left out.
    const auto range = [&](double telemetry::TelemetrySummary::*field, const char* format) {
        double lo = NAN, hi = NAN;
        for (const auto* t : with) {
            const double v = t->*field;
            if (std::isnan(v)) continue;
            lo = std::isnan(lo) ? v : std::min(lo, v);
            hi = std::isnan(hi) ? v : std::max(hi, v);
        }
        if (std::isnan(lo)) return std::string("not measured");
        const auto fmt = [&](double v) {
            char buf[96];
            std::snprintf(buf, sizeof buf, format, v);
            return std::string(buf);
        };
        const std::string a = fmt(lo), b = fmt(hi);
        return a == b ? a : a + " to " + b;
    };
    std::string device = with.front()->deviceLabel;
    for (const auto* t : with)
        if (t->deviceLabel != device) device = "per run's device";
    char tail[128];
    std::snprintf(tail, sizeof tail, "; client-bound in %zu of %zu runs with telemetry", bound, with.size());
    return "Telemetry over " + std::to_string(with.size()) + " runs: client CPU busy, mean per run " +
           range(&telemetry::TelemetrySummary::meanCpuBusyPct, "%.0f %%") + " (TrainIO process " +
           range(&telemetry::TelemetrySummary::meanProcCpuPct, "%.0f %%") + " of all CPUs); storage reads (" +
           (device.empty() ? std::string("no block device") : device) + "), mean per run " +
           range(&telemetry::TelemetrySummary::meanDeviceReadMiBs, "%.1f MiB/s") + tail;
}

} // namespace trainio::aggregate
