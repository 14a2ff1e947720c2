#include "aggregate/results_import.h"
#include "store/journal.h"

#include "aggregate/identity.h"
#include "aggregate/step_digest.h"
#include "io/storage_profile.h"
#include "store/benchmark_manifest.h"
#include "store/labels.h"
#include "store/run_files.h"
#include "store/sweep_file.h"
#include "telemetry/telemetry_table.h"
#include "util/errors.h"

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

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}


bool isWarmupName(const std::string& name) {
    const std::string n = lower(name);
    return n == "warmup" || n == "warm-up" || n == "warm_up";
}

store::ReadBounds boundsOf(const ImportOptions& options) {
    store::ReadBounds b;
    b.maxFileBytes = options.maxFileBytes;
    b.maxStepFileBytes = options.maxStepFileBytes;
    b.maxJsonDepth = options.maxJsonDepth;
    return b;
}

// The AU lines of the MLPerf Storage workloads, used only when no config names one: v1.0 (unet3d and
// resnet50 90 %, cosmoflow 70 %) and v3.0's retinanet (mlcommons/storage configs/dlio/workload/
// retinanet_{b200,mi355}.yaml metric.au: 0.85; unet3d_b200.yaml keeps 0.90).
std::optional<double> knownAuThreshold(const std::string& model) {
    if (model == "unet3d" || model == "resnet50") return 90.0;
    if (model == "retinanet") return 85.0;
    if (model == "cosmoflow") return 70.0;
    return std::nullopt;
}

struct Found {
    fs::path summary;
    fs::path canonicalRoot;
    std::string importRootName;
    fs::path root; // the imported root as given (absolute): labels are looked up to here
};

// MLPerf Storage v3.0 names its checkpointing workloads llama3_8b … llama3_1t in overrides.yaml and
// llama3-8b … llama3-1t everywhere else (mlpstorage_py/config.py LLM_MODELS, the results folders): the
// generator's split at '_' would make "8b" an accelerator. The folder <system>/checkpointing/<model>/
// names the model where it exists; otherwise the llama3_<size> spelling is mapped.
void checkpointModel(const fs::path& runDir, const std::string& workload, std::string& model, std::string& accelerator) {
    if (workload.rfind("llama3_", 0) == 0) {
        const auto rest = workload.substr(7);
        const auto us = rest.find('_');
        model = "llama3-" + rest.substr(0, us);
        accelerator = us == std::string::npos ? std::string() : rest.substr(us + 1); // "8b" is a size, not an accelerator
    }
    if (runDir.has_parent_path() && runDir.parent_path().has_parent_path() &&
        runDir.parent_path().parent_path().filename() == "checkpointing")
        model = runDir.parent_path().filename().string();
    model = mlperfCheckpointModel(model);
}

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
                                        std::vector<std::string>& notes, bool& manifestNearby, ManifestCache& cache) {
    for (const fs::path& bench : {runDir.parent_path(), runDir.parent_path().parent_path()}) {
        // Nothing is read outside the imported tree: a benchmark's runs/ imported alone is a folder of runs.
        const auto rel = bench.lexically_relative(root);
        if (bench.empty() || rel.empty() || *rel.begin() == "..") continue;
        auto [it, fresh] = cache.try_emplace(bench);
        if (fresh) {
            try {
                it->second.manifest = store::readBenchmarkManifest(bench, canonicalRoot);
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

ImportResult importResults(const std::vector<fs::path>& roots, const ImportOptions& options) {
    ImportResult result;
    std::vector<Found> found;
    std::vector<std::pair<fs::path, fs::path>> sweepFiles; // sweep.json files below the roots, with their tree
    std::vector<std::pair<fs::path, fs::path>> collocationFiles; // trainio_collocation.json files, with their tree
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
        fs::path canonicalRoot = fs::weakly_canonical(root, ec);
        if (ec) canonicalRoot = fs::absolute(root);
        const fs::path absRoot = fs::absolute(root).lexically_normal();
        if (fs::is_regular_file(root, ec)) {
            const fs::path parent = absRoot.parent_path();
            addFound(absRoot, fs::weakly_canonical(parent, ec), parent.filename().string(), parent);
            continue;
        }
        std::string rootName = absRoot.filename().string();
        if (rootName.empty()) rootName = absRoot.parent_path().filename().string();
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
            if (it->path().filename() == store::kCollocationFile && !it->is_directory(ec)) {
                collocationFiles.push_back({it->path().lexically_normal(), canonicalRoot});
                continue;
            }
            if (it->path().filename() == store::kJournalFile && it->is_regular_file(ec) && !it->is_symlink(ec)) {
                // A run folder with a journal and no summary.json: a run that died (read back as interrupted,
                // its DLIO files written from the journal: store/journal.h), or one still running (skipped).
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

    // Read every summary; collect host summaries per run folder.
    struct PendingRun {
        fs::path runDir;
        fs::path canonicalRoot;
        std::string importRootName;
        fs::path root;
        std::vector<store::HostSummary> hosts;
    };
    std::map<fs::path, PendingRun> pending;
    for (const auto& f : found) {
        std::string why;
        auto hs = store::readSummary(f.summary, f.canonicalRoot, boundsOf(options), why);
        if (!hs) {
            result.skipped.push_back({f.summary, why});
            continue;
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

    // Build invocations.
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
        std::sort(pr.hosts.begin(), pr.hosts.end(), [](const store::HostSummary& a, const store::HostSummary& b) { return a.file < b.file; });
        InvocationRecord r;
        r.path = runDir;
        r.runName = runDir.filename().string();
        const store::HostSummary& first = pr.hosts.front();
        bool consistent = true;
        for (const auto& h : pr.hosts) {
            r.summaryFiles.push_back(h.file);
            r.accelerators += h.accelerators;
            r.samplesPerSecond += h.sps;
            r.mbPerSecond += h.mbps;
            r.hostMemoryGiB += h.hostMemoryGiB;
            r.hostnames.push_back(h.hostname);
            for (const auto& n : h.notes)
                if (std::find(r.notes.begin(), r.notes.end(), n) == r.notes.end()) r.notes.push_back(n);
            consistent = consistent && h.checkpoint == first.checkpoint && h.filesTrain == first.filesTrain && h.samplesPerFile == first.samplesPerFile &&
                         h.epochAu.size() == first.epochAu.size() && h.epochSps.size() == first.epochSps.size();
        }
        if (!consistent) {
            for (const auto& h : pr.hosts)
                result.skipped.push_back({h.file, "the host summaries of run " + runDir.string() +
                                                      " disagree on files, samples per file or epochs"});
            continue;
        }
        const double hosts = static_cast<double>(pr.hosts.size());
        r.filesTrain = first.filesTrain;
        r.samplesPerFile = first.samplesPerFile;
        r.epochs = first.epochs;
        r.start = first.start;
        r.end = first.end;
        r.auMeetExpectation = first.meet;
        if (first.checkpoint) {
            r.type = BenchmarkType::Checkpointing;
            r.checkpointWriteGiBps = first.saveGiBps;
            r.checkpointWriteSeconds = first.saveSeconds;
            r.checkpointReadGiBps = first.loadGiBps;
            r.checkpointReadSeconds = first.loadSeconds;
            r.checkpointSizeGiB = first.sizeGiB;
            if (pr.hosts.size() > 1) r.notes.push_back("checkpointing run of several host folders: the first host's numbers are used");
        }
        if (pr.hosts.size() == 1) {
            r.numHosts = first.numHosts;
            r.auMeanPercent = first.au;
            r.auStdevPercent = first.auStdev;
            r.samplesPerSecondStdev = first.spsStdev;
            r.mbPerSecondStdev = first.mbpsStdev;
            r.epochAuPercent = first.epochAu;
            r.epochSamplesPerSecond = first.epochSps;
        } else {
            // Hosts are ranks of one job: AU averages, throughput adds up.
            r.numHosts = static_cast<std::int64_t>(pr.hosts.size());
            r.notes.push_back("run of " + std::to_string(pr.hosts.size()) + " host folders: throughput summed, AU averaged");
            r.epochAuPercent.assign(first.epochAu.size(), 0.0);
            r.epochSamplesPerSecond.assign(first.epochSps.size(), 0.0);
            for (const auto& h : pr.hosts) {
                r.auMeanPercent += h.au / hosts;
                if (h.meet == "fail") r.auMeetExpectation = "fail";
                if (h.start < r.start) r.start = h.start;
                if (h.end > r.end) r.end = h.end;
                for (std::size_t e = 0; e < h.epochAu.size(); ++e) r.epochAuPercent[e] += h.epochAu[e] / hosts;
                for (std::size_t e = 0; e < h.epochSps.size(); ++e) r.epochSamplesPerSecond[e] += h.epochSps[e];
            }
            r.auStdevPercent = r.samplesPerSecondStdev = r.mbPerSecondStdev = NAN;
        }
        std::vector<fs::path> configDirs{first.file.parent_path()};
        if (runDir != first.file.parent_path()) configDirs.push_back(runDir);
        store::RunConfig rc = store::readRunConfig(configDirs, pr.canonicalRoot, boundsOf(options));
        r.model = rc.model;
        r.accelerator = rc.accelerator;
        store::readMetadataFiles(runDir, pr.canonicalRoot, boundsOf(options), r);
        if (r.type == BenchmarkType::Checkpointing) {
            checkpointModel(runDir, rc.workload, r.model, r.accelerator);
            if (r.accelerator.empty()) r.accelerator = r.metadataAccelerator;
            auto count = [&](const char* key) -> std::int64_t {
                auto it = rc.merged.find(key);
                const auto d = it == rc.merged.end() ? std::nullopt : store::parseFiniteNumber(it->second);
                return d && *d >= 0 ? static_cast<std::int64_t>(*d) : -1;
            };
            r.checkpointsWritten = count("checkpoint.num_checkpoints_write");
            r.checkpointsRead = count("checkpoint.num_checkpoints_read");
            if (auto it = rc.merged.find("checkpoint.mode"); it != rc.merged.end()) r.checkpointMode = it->second;
        }
        r.recordLengthBytes = rc.recordLength;
        r.overrides = rc.overrides;
        for (const auto& n : rc.notes) r.notes.push_back(n);
        if (r.model.empty()) r.notes.push_back("no configs/overrides.yaml or config.yaml names the workload");
        if (rc.auFraction) {
            r.auThresholdPercent = *rc.auFraction * 100.0;
            r.auThresholdSource = "metric.au in config.yaml";
        } else if (auto known = knownAuThreshold(r.model)) {
            r.auThresholdPercent = known;
            r.auThresholdSource = std::string(r.model == "retinanet" ? "MLPerf Storage v3.0" : "MLPerf Storage v1.0") +
                                  " threshold for " + r.model;
        }
        r.resolved.assign(rc.merged.begin(), rc.merged.end());
        r.configFile = rc.configFile;
        r.workloadOverride = rc.workload;
        auto cfgValue = [&](std::initializer_list<const char*> keys) -> std::string {
            for (const char* k : keys)
                if (auto it = rc.merged.find(k); it != rc.merged.end()) return it->second;
            return {};
        };
        r.format = cfgValue({"dataset.format"});
        if (auto d = store::parseFiniteNumber(cfgValue({"dataset.record_length_bytes_stdev", "dataset.record_length_stdev"}))) r.recordLengthStdevBytes = *d;
        if (auto d = store::parseFiniteNumber(cfgValue({"reader.batch_size"})); d && *d > 0) r.batchSize = static_cast<std::int64_t>(*d);
        if (auto d = store::parseFiniteNumber(cfgValue({"train.epochs"})); d && *d > 0) r.plannedEpochs = static_cast<std::int64_t>(*d);
        {
            std::error_code cec;
            r.canonicalPath = fs::weakly_canonical(runDir, cec);
            if (cec) r.canonicalPath = runDir;
        }

        // Status: TrainIO says so in trainio_run.json; otherwise a summary with fewer epochs than the
        // config asked for is incomplete.
        const store::RunRecord tr = store::readRunRecord(runDir, pr.canonicalRoot, boundsOf(options));
        r.status = tr.status;
        r.statusReason = tr.reason;
        r.warnings = tr.warnings;
        store::readIoFile(runDir, pr.canonicalRoot, boundsOf(options), r);
        store::readModelFile(runDir, pr.canonicalRoot, boundsOf(options), r);
        store::readTelemetryFile(runDir, pr.canonicalRoot, boundsOf(options), options.stepDigests, r);
        const auto measuredEpochs = static_cast<std::int64_t>(std::max(r.epochAuPercent.size(), r.epochSamplesPerSecond.size()));
        if (r.type == BenchmarkType::Training && r.status == InvocationStatus::Complete && r.plannedEpochs > 0 &&
            measuredEpochs < r.plannedEpochs) {
            r.status = InvocationStatus::Incomplete;
            r.statusReason = "measured " + std::to_string(measuredEpochs) + " of " + std::to_string(r.plannedEpochs) +
                             " configured epochs (train.epochs)";
        }

        std::string labelWhy;
        r.labels = store::labelsFor(runDir, pr.root, &labelWhy);
        if (!labelWhy.empty()) r.notes.push_back(labelWhy + " (labels ignored)");
        const Identity id = identityOf(r);
        r.workloadKey = id.workloadKey;
        r.benchmarkKey = id.benchmarkKey;
        r.workloadTitle = id.workloadTitle;

        // Where the invocation belongs: the benchmark whose manifest names it; else, for a TrainIO run
        // outside any manifest, nowhere (a run once is its own item); else the folder holding the run
        // folders (warm-ups: <benchmark>/warmup[/<x>] belongs to <benchmark>/runs when that exists).
        std::vector<std::string> manifestNotes;
        bool manifestNearby = false;
        const auto place = manifestFor(runDir, pr.root, pr.canonicalRoot, manifestNotes, manifestNearby, manifests);
        for (auto& n : manifestNotes) r.notes.push_back(std::move(n));
        RunPlace rp;
        rp.importRootName = pr.importRootName;
        rp.root = pr.root;
        rp.canonicalRoot = pr.canonicalRoot;
        rp.oneHostFolder = pr.hosts.size() == 1 && first.file.parent_path() == runDir;
        if (options.stepDigests) rp.config = std::move(rc);
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
            if (tr.present && !oldBenchmark) {
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
            if (const auto sys = store::findSystemFile(g.path, rp.root)) {
                g.systemFile = *sys;
                if (g.systemDescription.empty()) g.systemDescription = store::describeSystemFile(*sys, rp.canonicalRoot);
            }
            if (g.system.empty()) g.system = !options.systemLabel.empty() ? options.systemLabel : rp.importRootName;
            std::string labelWhy;
            g.labels = rp.kind == GroupKind::Single ? r.labels : store::labelsFor(g.path.filename() == "runs" ? g.path.parent_path() : g.path, rp.root, &labelWhy);
            if (const auto rep = store::findMlperfReport(g.path, rp.root)) {
                g.existingReport = *rep;
                std::string why;
                if (auto j = store::readFolderJson(*rep, rp.canonicalRoot, options.maxFileBytes, options.maxJsonDepth, why))
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
        for (const auto& g : result.groups) {
            if (g.type != BenchmarkType::Training) continue;
            for (std::size_t i : g.runs) {
                InvocationRecord& r = result.runs[i];
                const RunPlace& rp = places[i];
                r.stepsRead = true;
                if (!rp.oneHostFolder || !store::hasStepRecords(r.path)) continue;
                try {
                    r.steps = std::make_shared<const StepDigest>(
                        digestStepRecords(store::readStepRecords(r.path, rp.canonicalRoot, boundsOf(options), &rp.config)));
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
    std::sort(result.groups.begin(), result.groups.end(), [](const RunGroup& a, const RunGroup& b) {
        return std::tie(a.path, a.identity) < std::tie(b.path, b.identity);
    });
    // A collocation's members: the groups in its DIR/<name>/ (an invocation, or a benchmark's runs/).
    for (auto& g : result.groups)
        for (std::size_t c = 0; c < result.collocations.size(); ++c)
            for (const auto& m : result.collocations[c].workloads) {
                const fs::path member = canonicalKey(m.path);
                const fs::path at = canonicalKey(g.path);
                if (at == member || at.parent_path() == member) {
                    g.collocation = c;
                    g.collocatedAs = m.name;
                }
            }
    std::sort(result.skipped.begin(), result.skipped.end(),
              [](const SkippedFile& a, const SkippedFile& b) { return a.path < b.path; });
    return result;
}

} // namespace trainio::aggregate
