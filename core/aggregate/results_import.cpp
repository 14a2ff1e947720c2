#include "aggregate/results_import.h"
#include "aggregate/mlcommons_table.h"

#include "aggregate/invocation_assembly.h"
#include "results/journal.h"

#include "aggregate/identity.h"
#include "aggregate/step_digest.h"
#include "io/storage_profile.h"
#include "store/benchmark_manifest.h"
#include "store/labels.h"
#include "store/run_files.h"
#include "store/sweep_file.h"
#include "telemetry/telemetry_table.h"
#include "util/errors.h"
#include "util/text.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <iomanip>
#include <limits>
#include <map>
#include <sstream>
#include <set>
#include <tuple>

#include <yaml-cpp/yaml.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace trainio::aggregate {

namespace {

bool isWarmupName(const std::string& name) {
    const std::string n = lower(name);
    return n == "warmup" || n == "warm-up" || n == "warm_up";
}

struct Found {
    fs::path summary;
    fs::path canonicalRoot;
    std::string importRootName;
    fs::path root; // the imported root as given (absolute): labels are looked up to here
};

} // namespace

// (runs/run-N, warmup/warmup-N), only when the manifest names the folder.
struct ManifestPlace {
    fs::path benchmarkDir;
    store::BenchmarkManifest manifest;
    bool warmup = false;
};

// Manifests already read, by benchmark folder: every run of a benchmark asks for the same one.
struct ManifestRead {
    std::optional<store::BenchmarkManifest> manifest;
    std::string error; // a malformed manifest: noted on each run that would have belonged to it
};
using ManifestCache = std::map<fs::path, ManifestRead>;

std::optional<ManifestPlace> manifestFor(const fs::path& runDir, const fs::path& root, const fs::path& canonicalRoot,
                                        std::vector<std::string>& notes, bool& manifestNearby, ManifestCache& cache,
                                        const store::FileSource& files) {
    for (const fs::path& bench : {runDir.parent_path(), runDir.parent_path().parent_path()}) {
        // Nothing is read outside the imported tree: a benchmark's runs/ imported alone is a folder of runs.
        const auto rel = bench.lexically_relative(root);
        if (bench.empty() || rel.empty() || *rel.begin() == "..") continue;
        auto [it, fresh] = cache.try_emplace(bench);
        if (fresh) {
            try {
                it->second.manifest = store::readBenchmarkManifest(bench, canonicalRoot, files);
            } catch (const InputError& e) {
                it->second.error = e.what();
            }
        }
        const ManifestRead& read = it->second;
        if (!read.error.empty()) notes.push_back(read.error);
        if (!read.manifest) continue;
        manifestNearby = true;
        const std::string runRel = runDir.lexically_relative(bench).generic_string();
        for (const auto& w : read.manifest->warmups)
            if (w == runRel) return ManifestPlace{bench, *read.manifest, true};
        for (const auto& r : read.manifest->runs)
            if (r == runRel) return ManifestPlace{bench, *read.manifest, false};
    }
    return std::nullopt;
}


std::string mlperfCheckpointModel(const std::string& name) {
    for (const char* prefix : {"llama3_", "llama3-", "llama_", "llama-"}) {
        const std::string p = prefix;
        if (name.size() <= p.size() || name.compare(0, p.size(), p) != 0) continue;
        const std::string size = name.substr(p.size());
        const bool digits = std::all_of(size.begin(), size.end() - 1, [](unsigned char c) { return std::isdigit(c); });
        if (digits && std::isdigit(static_cast<unsigned char>(size.front())) && (size.back() == 'b' || size.back() == 't'))
            return "llama3-" + size;
    }
    return name;
}

bool isMlperfV3TrainingFolder(const fs::path& dir) {
    return dir.filename() == "run" && dir.parent_path().parent_path().filename() == "training";
}

std::string benchmarkTypeName(BenchmarkType t) { return t == BenchmarkType::Checkpointing ? "checkpointing" : "training"; }

std::string statusName(InvocationStatus s) {
    switch (s) {
    case InvocationStatus::Complete: return "complete";
    case InvocationStatus::Incomplete: return "incomplete";
    case InvocationStatus::Cancelled: return "cancelled";
    case InvocationStatus::Failed: return "failed";
    }
    return "unknown";
}

bool looksLikeRunFolder(const std::string& name) {
    const std::string n = lower(name);
    std::size_t i = 0;
    if (n.rfind("run", 0) == 0) {
        i = 3;
        if (i < n.size() && (n[i] == '-' || n[i] == '_' || n[i] == ' ')) ++i;
        return i < n.size() && std::all_of(n.begin() + static_cast<long>(i), n.end(),
                                           [](unsigned char c) { return std::isdigit(c); });
    }
    // Timestamps: at least 8 digits, only digits and separators.
    std::size_t digits = 0;
    for (char c : n) {
        if (std::isdigit(static_cast<unsigned char>(c))) ++digits;
        else if (c != '-' && c != '_' && c != ':' && c != 't' && c != '.') return false;
    }
    return digits >= 8;
}

bool naturalLess(const std::string& a, const std::string& b) {
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
            std::size_t ie = i, je = j;
            while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
            while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
            std::string na = a.substr(i, ie - i), nb = b.substr(j, je - j);
            na.erase(0, std::min(na.find_first_not_of('0'), na.size()));
            nb.erase(0, std::min(nb.find_first_not_of('0'), nb.size()));
            if (na.size() != nb.size()) return na.size() < nb.size();
            if (na != nb) return na < nb;
            i = ie;
            j = je;
        } else {
            if (a[i] != b[j]) return a[i] < b[j];
            ++i;
            ++j;
        }
    }
    return a.size() - i < b.size() - j;
}

// MLPerf Storage v3.0 training keeps the warm-up beside the five measured runs:
// <system>/training/<model>/run/<YYYYMMDD_HHMMSS>/. mlpstorage finds it as its report generator does
// (mlpstorage_py/report_generator.py, ReportGenerator._process_single_run and
// _process_workload_groups; Rules.md 2.1.17): tier 1, two runs with the same summary "start" (the
// retired --loops orchestrator stamped the warm-up with the first real run's start) — the one whose
// folder name sorts first is the warm-up; tier 2, when tier 1 finds none, a folder of exactly six
// invocations — the one whose folder name sorts first (the earliest timestamp) is the warm-up.
template <typename Place>
void markV3Warmups(std::vector<InvocationRecord>& runs, const std::vector<Place>& places) {
    std::map<fs::path, std::vector<std::size_t>> folders;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const fs::path& dir = places[i].groupDir;
        if (places[i].kind != GroupKind::Folder || runs[i].type != BenchmarkType::Training || runs[i].warmup) continue;
        if (!isMlperfV3TrainingFolder(dir)) continue;
        folders[dir].push_back(i);
    }
    for (const auto& [dir, members] : folders) {
        bool found = false;
        for (std::size_t a = 0; a < members.size(); ++a)
            for (std::size_t b = a + 1; b < members.size(); ++b) {
                auto& ra = runs[members[a]];
                auto& rb = runs[members[b]];
                if (ra.start.empty() || ra.start != rb.start) continue;
                auto& warm = ra.runName < rb.runName ? ra : rb;
                const auto& real = ra.runName < rb.runName ? rb : ra;
                warm.warmup = found = true;
                warm.notes.push_back("warm-up: same summary start as " + real.runName +
                                     " (mlpstorage: the earlier folder of two with one start is the warm-up)");
            }
        if (found || members.size() != 6) continue;
        const std::size_t first = *std::min_element(members.begin(), members.end(), [&](std::size_t x, std::size_t y) {
            return runs[x].runName < runs[y].runName;
        });
        runs[first].warmup = true;
        runs[first].notes.push_back("warm-up: the earliest of the six timestamped runs (mlpstorage, Rules.md 2.1.17)");
    }
}

namespace {

// The run folders and their host summaries, by folder.
struct PendingRun {
    fs::path runDir;
    fs::path canonicalRoot;
    std::string importRootName;
    fs::path root;
    std::vector<store::HostSummary> hosts;
};
using PendingRuns = std::map<fs::path, PendingRun>;

// Reads a summary found (or written) and adds it to its run folder (a host folder's to the run above it);
// one that cannot be read is skipped with the reason.
void readSummary(PendingRuns& pending, const Found& f, const store::FileSource& files, const ImportOptions& options,
                 ImportResult& result) {
    std::string why;
    auto hs = store::readSummary(f.summary, f.canonicalRoot, boundsOf(options), why, files);
    if (!hs) {
        result.skipped.push_back({f.summary, why});
        return;
    }
    const fs::path dir = f.summary.parent_path();
    fs::path runDir = dir;
    // <run>/<host>/summary.json (multi-host layout of the earlier MLPerf Storage scripts).
    if (!looksLikeRunFolder(dir.filename().string()) && !isWarmupName(dir.filename().string()) &&
        dir.has_parent_path() && looksLikeRunFolder(dir.parent_path().filename().string())) {
        runDir = dir.parent_path();
    }
    auto& pr = pending[runDir];
    pr.runDir = runDir;
    pr.canonicalRoot = f.canonicalRoot;
    pr.importRootName = f.importRootName;
    pr.root = f.root;
    pr.hosts.push_back(std::move(*hs));
}

// A root as the importer takes it: its name, the tree the link rule keeps to, and its absolute spelling.
Found rootOf(const fs::path& root) {
    std::error_code ec;
    Found f;
    f.canonicalRoot = fs::weakly_canonical(root, ec);
    if (ec) f.canonicalRoot = fs::absolute(root);
    f.root = fs::absolute(root).lexically_normal();
    f.importRootName = f.root.filename().string();
    if (f.importRootName.empty()) f.importRootName = f.root.parent_path().filename().string();
    return f;
}

// A group's collocation (the last one naming its folder): the groups in a collocation's DIR/<name>/ (an
// invocation, or a benchmark's runs/).
void markCollocated(ImportResult& result) {
    auto canonicalKey = [](const fs::path& p) {
        std::error_code cec;
        fs::path key = fs::weakly_canonical(p, cec);
        return cec ? p : key;
    };
    for (auto& g : result.groups) {
        g.collocation.reset();
        g.collocatedAs.clear();
        for (std::size_t c = 0; c < result.collocations.size(); ++c)
            for (const auto& m : result.collocations[c].workloads) {
                const fs::path member = canonicalKey(m.path);
                const fs::path at = canonicalKey(g.path);
                if (at == member || at.parent_path() == member) {
                    g.collocation = c;
                    g.collocatedAs = m.name;
                }
            }
    }
}

void sortGroupsAndSkipped(ImportResult& result) {
    std::sort(result.groups.begin(), result.groups.end(), [](const RunGroup& a, const RunGroup& b) {
        const std::size_t ra = a.tableRow ? a.tableRow->row : 0, rb = b.tableRow ? b.tableRow->row : 0;
        return std::tie(a.path, a.identity, ra) < std::tie(b.path, b.identity, rb);
    });
    std::sort(result.skipped.begin(), result.skipped.end(),
              [](const SkippedFile& a, const SkippedFile& b) { return a.path < b.path; });
}

// Every pending run folder's record (invocation_assembly.h), placed — in the benchmark whose manifest
// names it, on its own, or in the folder holding it — and grouped; the per-step records read when asked.
// The importer's and importWritten's: every file through `files`.
void assembleAndGroup(PendingRuns& pending, const store::FileSource& files, const ImportOptions& options,
                      ImportResult& result) {
    struct RunPlace {
        fs::path groupDir;
        std::string importRootName;
        fs::path root;
        fs::path canonicalRoot;
        store::RunConfig config; // for the step records (ImportOptions::stepDigests)
        bool oneHostFolder = true; // the run's summary.json is in the run folder itself
        GroupKind kind = GroupKind::Folder;
        std::size_t plannedRuns = 0;
        std::string manifestStatus, manifestReason;
    };
    std::vector<RunPlace> places;
    ManifestCache manifests;
    for (auto& [runDir, pr] : pending) {
        std::optional<AssembledRun> assembled =
            assembleInvocation(RunFolder{runDir, std::move(pr.hosts), pr.canonicalRoot, pr.root}, files, options, result.skipped);
        if (!assembled) continue;
        InvocationRecord& r = assembled->record;
        // Where the invocation belongs: the benchmark whose manifest names it; else, for a TrainIO run
        // outside any manifest, nowhere (a run once is its own item); else the folder holding the run
        // folders (warm-ups: <benchmark>/warmup[/<x>] belongs to <benchmark>/runs when that exists).
        std::vector<std::string> manifestNotes;
        bool manifestNearby = false;
        const auto place = manifestFor(runDir, pr.root, pr.canonicalRoot, manifestNotes, manifestNearby, manifests, files);
        for (auto& n : manifestNotes) r.notes.push_back(std::move(n));
        RunPlace rp;
        rp.importRootName = pr.importRootName;
        rp.root = pr.root;
        rp.canonicalRoot = pr.canonicalRoot;
        rp.oneHostFolder = assembled->oneHostFolder;
        if (options.stepDigests) rp.config = std::move(assembled->config);
        if (place) {
            r.manifest = place->benchmarkDir / store::kBenchmarkManifestFile;
            r.warmup = place->warmup;
            rp.kind = GroupKind::Manifest;
            std::error_code ec;
            rp.groupDir = fs::is_directory(place->benchmarkDir / "runs", ec) ? place->benchmarkDir / "runs" : place->benchmarkDir;
            rp.plannedRuns = place->manifest.plannedRuns;
            rp.manifestStatus = place->manifest.status;
            rp.manifestReason = place->manifest.reason;
        } else {
            rp.groupDir = runDir.parent_path();
            for (const fs::path& candidate : {runDir, runDir.parent_path()}) {
                if (isWarmupName(candidate.filename().string())) {
                    r.warmup = true;
                    std::error_code ec;
                    const fs::path runs = candidate.parent_path() / "runs";
                    rp.groupDir = fs::is_directory(runs, ec) ? runs : candidate.parent_path();
                    break;
                }
            }
            // TrainIO benchmarks written before manifests existed keep their runs/ + warmup/ layout.
            // A run a manifest beside it does not name is not one of that benchmark's.
            // So do TrainIO's MLPerf Storage v3.0 trees (benchmark --layout mlperf-v3) without their manifest:
            // they import as the published ones do.
            const fs::path parent = runDir.parent_path();
            const bool v3Tree = isMlperfV3TrainingFolder(parent) || parent.parent_path().filename() == "checkpointing";
            const bool oldBenchmark = !manifestNearby && (r.warmup || parent.filename() == "runs" || v3Tree);
            if (assembled->trainioRun && !oldBenchmark) {
                r.runOnce = true;
                rp.kind = GroupKind::Single;
                rp.groupDir = runDir;
            }
        }
        places.push_back(std::move(rp));
        result.runs.push_back(std::move(r));
    }

    markV3Warmups(result.runs, places);

    // Group: a manifest's invocations by the manifest; a run once alone; the rest by (folder, benchmark identity).
    struct GroupKey {
        fs::path dir;
        std::string benchmarkKey;
        auto operator<=>(const GroupKey&) const = default;
    };
    std::map<GroupKey, std::size_t> index;
    for (std::size_t i = 0; i < result.runs.size(); ++i) {
        const auto& r = result.runs[i];
        const RunPlace& rp = places[i];
        const GroupKey key{rp.groupDir, rp.kind == GroupKind::Folder ? r.benchmarkKey : std::string()};
        auto it = index.find(key);
        if (it == index.end()) {
            RunGroup g;
            g.path = rp.groupDir;
            g.type = r.type;
            g.kind = rp.kind;
            g.plannedRuns = rp.plannedRuns;
            g.identity = WorkloadIdentity{r.model, r.accelerator, r.accelerators, r.filesTrain, r.samplesPerFile,
                                          r.workloadKey, r.benchmarkKey};
            // System: the labels' system name; else <org>/results/<system>/… beside <org>/systems/, as
            // MLPerf submissions are laid out; else the user's label or the imported folder's name.
            g.system = r.labels.system;
            g.systemDescription = r.labels.description;
            if (g.system.empty()) g.system = store::mlperfSystemName(g.path);
            // The system's figures (efficiency): each from the labels, else from the systems file.
            g.systemFigures = r.labels.figures;
            if (const auto sys = store::findSystemFile(g.path, rp.root)) {
                g.systemFile = *sys;
                if (g.systemDescription.empty()) g.systemDescription = store::describeSystemFile(*sys, rp.canonicalRoot);
                store::fillMissingFigures(g.systemFigures, store::readSystemFigures(*sys, rp.canonicalRoot));
            }
            if (g.system.empty()) g.system = !options.systemLabel.empty() ? options.systemLabel : rp.importRootName;
            std::string labelWhy;
            g.labels = rp.kind == GroupKind::Single ? r.labels : store::labelsFor(g.path.filename() == "runs" ? g.path.parent_path() : g.path, rp.root, &labelWhy, files);
            if (const auto rep = store::findMlperfReport(g.path, rp.root)) {
                g.existingReport = *rep;
                std::string why;
                if (auto j = files.json(*rep, rp.canonicalRoot, options.maxFileBytes, options.maxJsonDepth, why))
                    g.existingReportContent = std::make_shared<const nlohmann::json>(std::move(*j));
                else
                    g.existingReportError = why;
            }
            it = index.emplace(key, result.groups.size()).first;
            result.groups.push_back(std::move(g));
        }
        auto& g = result.groups[it->second];
        // mlpstorage's own record of the clients (any run's *_metadata.json): after what the labels or the
        // systems file say about the storage, since it describes only the hosts.
        if (!r.systemInfo.empty() && g.systemDescription.find(r.systemInfo) == std::string::npos)
            g.systemDescription += (g.systemDescription.empty() ? "" : "\n") + r.systemInfo;
        if (r.warmup) g.warmups.push_back(i);
        else if (r.status == InvocationStatus::Complete) g.runs.push_back(i);
        else g.excluded.push_back(i);
    }
    for (std::size_t gi = 0; gi < result.groups.size(); ++gi) {
        auto& g = result.groups[gi];
        auto byName = [&](std::size_t a, std::size_t b) { return naturalLess(result.runs[a].runName, result.runs[b].runName); };
        std::sort(g.runs.begin(), g.runs.end(), byName);
        std::sort(g.warmups.begin(), g.warmups.end(), byName);
        std::sort(g.excluded.begin(), g.excluded.end(), byName);
        // A benchmark is complete when every run it planned is; what is missing is said.
        std::string manifestStatus, manifestReason;
        for (std::size_t i = 0; i < places.size(); ++i)
            if (places[i].kind == GroupKind::Manifest && places[i].groupDir == g.path) { // the manifest's own status
                manifestStatus = places[i].manifestStatus;
                manifestReason = places[i].manifestReason;
                break;
            }
        const std::size_t complete = g.runs.size();
        std::string why;
        for (std::size_t i : g.excluded)
            why += (why.empty() ? "" : "; ") + result.runs[i].runName + " " + statusName(result.runs[i].status) + ": " + result.runs[i].statusReason;
        if (g.kind == GroupKind::Single) {
            const std::size_t only = !g.runs.empty() ? g.runs.front() : !g.excluded.empty() ? g.excluded.front() : g.warmups.front();
            g.status = result.runs[only].status;
            g.statusReason = result.runs[only].statusReason;
        } else if (complete == 0) {
            g.status = InvocationStatus::Incomplete;
            g.statusReason = "no complete measured run" + (why.empty() ? std::string() : " (" + why + ")");
            for (std::size_t i : g.excluded)
                if (result.runs[i].status == InvocationStatus::Failed || result.runs[i].status == InvocationStatus::Cancelled) {
                    g.status = result.runs[i].status;
                    break;
                }
        } else if (g.plannedRuns > 0 && complete < g.plannedRuns) {
            g.status = InvocationStatus::Incomplete;
            g.statusReason = std::to_string(complete) + " of " + std::to_string(g.plannedRuns) + " planned runs complete";
            if (!why.empty()) g.statusReason += " (" + why + ")";
            else if (manifestStatus == "running") g.statusReason += " (the benchmark was interrupted or is still running)";
            else if (!manifestReason.empty()) g.statusReason += " (" + manifestReason + ")";
        } else if (!g.excluded.empty()) {
            g.status = InvocationStatus::Incomplete;
            g.statusReason = std::to_string(g.excluded.size()) + " measured run(s) not complete, excluded: " + why;
        }
    }
    // The per-step records of every complete measured run, summarised for the report, when asked for: read
    // here (the GUI imports in a worker thread), so that the report never reads a run folder itself.
    if (options.stepDigests) {
        // What a run just wrote may hold its digests already (store/written_files.h), made with the
        // default bounds: taken when the import's are those.
        const auto* held = dynamic_cast<const store::WrittenFiles*>(&files);
        const ImportOptions defaults;
        if (options.maxStepFileBytes != defaults.maxStepFileBytes || options.maxFileBytes != defaults.maxFileBytes ||
            options.maxJsonDepth != defaults.maxJsonDepth)
            held = nullptr;
        for (const auto& g : result.groups) {
            if (g.type != BenchmarkType::Training) continue;
            for (std::size_t i : g.runs) {
                InvocationRecord& r = result.runs[i];
                const RunPlace& rp = places[i];
                r.stepsRead = true;
                if (!rp.oneHostFolder || !store::hasStepRecords(r.path)) continue;
                if (held && (r.steps = held->stepDigest(r.path))) continue;
                try {
                    r.steps = std::make_shared<const StepDigest>(
                        digestStepRecords(store::readStepRecords(r.path, rp.canonicalRoot, boundsOf(options), &rp.config, files)));
                } catch (const std::exception& e) { // InputError naming the file; a folder that cannot be listed
                    r.stepsError = e.what();
                }
            }
        }
    }
    // Runs of one benchmark that differ in settings that cannot change what is measured: listed, not split.
    for (auto& g : result.groups) {
        std::vector<std::size_t> members(g.runs);
        members.insert(members.end(), g.excluded.begin(), g.excluded.end());
        for (std::size_t m = 1; m < members.size(); ++m)
            for (const auto& d : settingDifferences(result.runs[members.front()], result.runs[members[m]]))
                g.settingDifferences.push_back(d + " (" + result.runs[members.front()].runName + " vs " +
                                               result.runs[members[m]].runName + ")");
    }
    // Runs of one folder that are not one benchmark: say what differs, never average them.
    for (std::size_t gi = 0; gi < result.groups.size(); ++gi) {
        auto& g = result.groups[gi];
        if (g.kind != GroupKind::Folder) continue;
        for (std::size_t gj = 0; gj < result.groups.size(); ++gj) {
            const auto& o = result.groups[gj];
            if (gj == gi || o.kind != GroupKind::Folder || o.path != g.path) continue;
            auto firstOf = [&](const RunGroup& x) {
                return !x.runs.empty() ? x.runs.front() : !x.excluded.empty() ? x.excluded.front() : x.warmups.front();
            };
            for (const auto& d : identityDifferences(result.runs[firstOf(g)], result.runs[firstOf(o)]))
                g.differences.push_back(d + " (here vs " + result.runs[firstOf(o)].runName + ")");
        }
    }
    sortGroupsAndSkipped(result);
    markCollocated(result);
}

} // namespace

ImportResult importResults(const std::vector<fs::path>& roots, const ImportOptions& options, const store::FileSource& files) {
    ImportResult result;
    std::vector<Found> found;
    std::vector<std::pair<fs::path, fs::path>> sweepFiles; // sweep.json files below the roots, with their tree
    std::vector<std::pair<fs::path, fs::path>> collocationFiles; // trainio_collocation.json files, with their tree
    std::vector<std::pair<fs::path, fs::path>> tableFiles; // MLCommons' tables: a .csv root, a results.csv below one
    // One run folder reached twice — the same root given twice, a symlink, a root inside another — is
    // imported once: summaries are keyed by their folder with symlinks resolved.
    std::map<fs::path, fs::path> seen; // canonical summary → the spelling kept
    // A file's identity: its path with symlinks resolved (the spelling itself when that fails).
    auto canonicalKey = [](const fs::path& p) {
        std::error_code cec;
        fs::path key = fs::weakly_canonical(p, cec);
        return cec ? p : key;
    };
    auto addFound = [&](const fs::path& p, const fs::path& canonicalRoot, const std::string& rootName, const fs::path& absRoot) {
        auto [it, fresh] = seen.emplace(canonicalKey(p), p);
        if (fresh) found.push_back({p, canonicalRoot, rootName, absRoot});
        else if (it->second != p) result.duplicates.push_back({p.parent_path(), it->second.parent_path()});
    };

    for (const auto& given : roots) {
        std::error_code ec;
        // A sweep's sweep.json stands for its folder: the sweep and its trials.
        const fs::path root = given.filename() == store::kSweepFile && fs::is_regular_file(given, ec) ? fs::absolute(given).parent_path() : given;
        if (!fs::exists(fs::symlink_status(root, ec))) {
            result.skipped.push_back({root, "no such file or folder"});
            continue;
        }
        const Found tree = rootOf(root);
        const fs::path& canonicalRoot = tree.canonicalRoot;
        const fs::path& absRoot = tree.root;
        if (fs::is_regular_file(root, ec) && root.extension() == ".csv") {
            tableFiles.push_back({absRoot, fs::weakly_canonical(absRoot.parent_path(), ec)});
            continue;
        }
        if (fs::is_regular_file(root, ec)) {
            const fs::path parent = absRoot.parent_path();
            addFound(absRoot, fs::weakly_canonical(parent, ec), parent.filename().string(), parent);
            continue;
        }
        const std::string& rootName = tree.importRootName;
        // Directory symlinks are not followed: they can leave the tree or loop.
        fs::recursive_directory_iterator it(absRoot, fs::directory_options::skip_permission_denied, ec), end;
        if (ec) {
            result.skipped.push_back({root, "cannot list folder: " + ec.message()});
            continue;
        }
        bool depthNoted = false;
        for (; it != end; it.increment(ec)) {
            if (ec) {
                result.skipped.push_back({it->path(), "cannot list folder: " + ec.message()});
                ec.clear();
                continue;
            }
            // Result trees are a few levels deep; a pathological one must not make the walk unbounded.
            if (it.depth() >= options.maxFolderDepth && it->is_directory(ec) && !it->is_symlink(ec)) {
                it.disable_recursion_pending();
                if (!depthNoted)
                    result.skipped.push_back({it->path(), "folder nested deeper than " +
                                                              std::to_string(options.maxFolderDepth) +
                                                              " levels below the imported root; not searched"});
                depthNoted = true;
                continue;
            }
            if (it->path().filename() == store::kSweepFile && !it->is_directory(ec)) {
                sweepFiles.push_back({it->path().lexically_normal(), canonicalRoot});
                continue;
            }
            if (it->path().filename() == "results.csv" && it->is_regular_file(ec)) { // reportgen's name for its table
                tableFiles.push_back({it->path().lexically_normal(), canonicalRoot});
                continue;
            }
            if (it->path().filename() == store::kCollocationFile && !it->is_directory(ec)) {
                collocationFiles.push_back({it->path().lexically_normal(), canonicalRoot});
                continue;
            }
            if (it->path().filename() == store::kJournalFile && it->is_regular_file(ec) && !it->is_symlink(ec)) {
                // A run folder with a journal and no summary.json: a run that died (read back as interrupted,
                // its DLIO files written from the journal: results/journal.h), or one still running (skipped).
                const fs::path runDir = it->path().parent_path();
                if (store::isInterrupted(runDir)) {
                    try {
                        store::completeInterrupted(runDir);
                        addFound((runDir / store::kSummaryFile).lexically_normal(), canonicalRoot, rootName, absRoot);
                    } catch (const std::exception& e) {
                        result.skipped.push_back({runDir, std::string("an interrupted run whose journal could not be read back: ") + e.what()});
                    }
                } else if (store::isRunning(runDir)) {
                    result.skipped.push_back({runDir, "a run is still writing this folder (not imported until it ends)"});
                }
                continue;
            }
            if (it->path().filename() != store::kSummaryFile) continue;
            if (it->is_directory(ec)) continue;
            const fs::path p = it->path().lexically_normal();
            addFound(p, canonicalRoot, rootName, absRoot);
        }
    }
    result.summariesFound = found.size();

    // Sweeps (trainio-cli sweep) and collocations (trainio-cli collocate): each file once, however many
    // roots reach it; one that cannot be read is skipped with the reason.
    auto readEach = [&](const std::vector<std::pair<fs::path, fs::path>>& files, auto read, auto& out) {
        std::set<fs::path> seenFiles;
        for (const auto& [f, tree] : files) {
            if (!seenFiles.insert(canonicalKey(f)).second) continue;
            try {
                out.push_back(read(f, tree));
            } catch (const std::exception& e) {
                result.skipped.push_back({f, e.what()});
            }
        }
    };
    readEach(sweepFiles, [](const fs::path& f, const fs::path& t) { return store::readSweepJson(f, t); }, result.sweeps);
    readEach(collocationFiles, [](const fs::path& f, const fs::path& t) { return store::readCollocationFile(f, t); },
             result.collocations);

    PendingRuns pending;
    for (const auto& f : found) readSummary(pending, f, files, options, result);
    assembleAndGroup(pending, files, options, result);
    // MLCommons' tables (aggregate/mlcommons_table.h): each row a group of its own, with no runs. A table that
    // cannot be read, or is not in the schema, or has a bad cell, is skipped with the reason (file, row, column).
    std::set<fs::path> seenTables;
    for (const auto& [f, tree] : tableFiles) {
        if (!seenTables.insert(canonicalKey(f)).second) continue;
        std::string why;
        const std::optional<std::string> text = files.text(f, tree, options.maxFileBytes, why);
        try {
            if (!text) throw InputError(f.string() + ": " + why);
            if (!isMlcommonsTable(*text)) parseMlcommonsTable(*text, f); // throws naming the header column that differs
            addTableRows(result, parseMlcommonsTable(*text, f));
        } catch (const std::exception& e) {
            result.skipped.push_back({f, std::string("not imported as MLCommons' table: ") + e.what()});
        }
    }
    if (!tableFiles.empty()) sortGroupsAndSkipped(result);
    return result;
}

ImportResult importWritten(const fs::path& root, const store::WrittenFiles& written, const ImportOptions& options) {
    ImportResult result;
    const Found tree = rootOf(root);
    PendingRuns pending;
    for (const fs::path& dir : written.runFolders()) {
        // The run folders below the root, spelt as a walk from the root spells them.
        const fs::path rel = dir.lexically_relative(tree.canonicalRoot);
        if (rel.empty() || *rel.begin() == "..") continue;
        Found f = tree;
        f.summary = (tree.root / rel / store::kSummaryFile).lexically_normal();
        ++result.summariesFound;
        readSummary(pending, f, written, options, result);
    }
    assembleAndGroup(pending, written, options, result);
    return result;
}

bool addImported(ImportResult& library, ImportResult added) {
    auto canonicalKey = [](const fs::path& p) {
        std::error_code ec;
        fs::path key = fs::weakly_canonical(p, ec);
        return ec ? p : key;
    };
    auto inside = [](const fs::path& p, const fs::path& dir) {
        const fs::path rel = p.lexically_relative(dir);
        return !rel.empty() && *rel.begin() != "..";
    };
    // The library's runs the added ones replace: the same folder imported before (a run into it again, or
    // one the library saw while it was still being written).
    std::set<fs::path> addedFolders;
    for (const auto& r : added.runs) addedFolders.insert(r.canonicalPath);
    std::vector<bool> replaced(library.runs.size(), false);
    for (std::size_t i = 0; i < library.runs.size(); ++i) replaced[i] = addedFolders.count(library.runs[i].canonicalPath) > 0;
    std::vector<bool> dropped(library.groups.size(), false);
    for (std::size_t gi = 0; gi < library.groups.size(); ++gi) {
        const RunGroup& g = library.groups[gi];
        std::size_t members = 0, gone = 0;
        for (const auto* list : {&g.runs, &g.warmups, &g.excluded})
            for (std::size_t i : *list) {
                ++members;
                gone += replaced[i];
            }
        if (gone > 0 && gone < members) return false; // part of a group: its status and statistics change
        dropped[gi] = gone > 0;
    }
    // A folder's runs are grouped together by the import: an added group beside a group the library keeps
    // would have to be grouped with it.
    for (const RunGroup& a : added.groups)
        for (std::size_t gi = 0; gi < library.groups.size(); ++gi)
            if (!dropped[gi] && canonicalKey(library.groups[gi].path) == canonicalKey(a.path)) return false;

    // The runs in path order, as the import's map of run folders holds them; every group's indices remapped.
    struct Entry {
        bool fromAdded;
        std::size_t index;
    };
    std::vector<Entry> order;
    for (std::size_t i = 0; i < library.runs.size(); ++i)
        if (!replaced[i]) order.push_back({false, i});
    for (std::size_t i = 0; i < added.runs.size(); ++i) order.push_back({true, i});
    auto pathOf = [&](const Entry& e) -> const fs::path& { return (e.fromAdded ? added.runs : library.runs)[e.index].path; };
    std::stable_sort(order.begin(), order.end(), [&](const Entry& a, const Entry& b) { return pathOf(a) < pathOf(b); });
    std::vector<std::size_t> fromLibrary(library.runs.size()), fromAdded(added.runs.size());
    std::vector<InvocationRecord> runs;
    runs.reserve(order.size());
    for (const Entry& e : order) {
        (e.fromAdded ? fromAdded : fromLibrary)[e.index] = runs.size();
        runs.push_back(std::move((e.fromAdded ? added.runs : library.runs)[e.index]));
    }
    std::vector<RunGroup> groups;
    auto keep = [&](RunGroup g, const std::vector<std::size_t>& map) {
        for (auto* list : {&g.runs, &g.warmups, &g.excluded})
            for (std::size_t& i : *list) i = map[i];
        groups.push_back(std::move(g));
    };
    for (std::size_t gi = 0; gi < library.groups.size(); ++gi)
        if (!dropped[gi]) keep(std::move(library.groups[gi]), fromLibrary);
    for (RunGroup& g : added.groups) keep(std::move(g), fromAdded);

    // What the library skipped inside an added run folder (it was still being written) is there no more.
    std::erase_if(library.skipped, [&](const SkippedFile& s) {
        const fs::path at = canonicalKey(s.path);
        return std::any_of(addedFolders.begin(), addedFolders.end(), [&](const fs::path& d) { return at == d || inside(at, d); });
    });
    std::size_t replacedSummaries = 0;
    for (std::size_t i = 0; i < replaced.size(); ++i)
        if (replaced[i]) replacedSummaries += library.runs[i].summaryFiles.size();
    library.summariesFound = library.summariesFound - std::min(library.summariesFound, replacedSummaries) + added.summariesFound;
    library.runs = std::move(runs);
    library.groups = std::move(groups);
    for (auto& s : added.skipped) library.skipped.push_back(std::move(s));
    for (auto& d : added.duplicates) library.duplicates.push_back(std::move(d));
    for (auto& sw : added.sweeps) library.sweeps.push_back(std::move(sw));
    for (auto& c : added.collocations) library.collocations.push_back(std::move(c));
    sortGroupsAndSkipped(library);
    markCollocated(library);
    return true;
}

} // namespace trainio::aggregate
