#include "aggregate/interference.h"

#include "aggregate/compare.h"
#include "aggregate/identity.h"
#include "util/statistics.h"
#include "store/run_folder.h"

#include <algorithm>
#include <cstdio>
#include <tuple>

namespace trainio::aggregate {
namespace fs = std::filesystem;
using nlohmann::ordered_json;

store::CollocationInterference compareAloneTogether(const std::string& name, const std::vector<InterferenceRun>& alone,
                                                    const std::vector<InterferenceRun>& together) {
    store::CollocationInterference r;
    r.name = name;
    std::vector<double> auA, auT, mibA, mibT;
    if (alone.size() > 1 || together.size() > 1) { // runs with runs
        r.unit = "runs";
        for (const auto& i : alone) auA.push_back(i.auPercent), mibA.push_back(i.mibPerSecond);
        for (const auto& i : together) auT.push_back(i.auPercent), mibT.push_back(i.mibPerSecond);
    } else { // epochs with epochs, one invocation each side
        r.unit = "epochs of one invocation";
        if (!alone.empty()) auA = alone[0].auPerEpoch, mibA = alone[0].mibPerEpoch;
        if (!together.empty()) auT = together[0].auPerEpoch, mibT = together[0].mibPerEpoch;
    }
    r.nAlone = auA.size();
    r.nTogether = auT.size();
    r.auAlone = mean(auA).value;
    r.auTogether = mean(auT).value;
    r.mibAlone = mean(mibA).value;
    r.mibTogether = mean(mibT).value;
    r.auPointsLost = r.auAlone - r.auTogether;
    const auto auCi = welchCi95(auA, auT); // of alone − together
    r.auPointsLostLow = auCi.low;
    r.auPointsLostHigh = auCi.high;
    r.slowdownPercent = r.mibAlone > 0 ? 100.0 * (1.0 - r.mibTogether / r.mibAlone) : NAN;
    const auto mibCi = welchCi95(mibA, mibT); // of alone − together, in MiB/s
    r.slowdownLowPercent = r.mibAlone > 0 ? 100.0 * mibCi.low / r.mibAlone : NAN;
    r.slowdownHighPercent = r.mibAlone > 0 ? 100.0 * mibCi.high / r.mibAlone : NAN;
    r.rule = "means over " + r.unit + " (warm-ups and runs that did not complete left out); 95 % CI of alone − together: " +
             auCi.rule + "; the slowdown's CI is that of the MiB/s difference over the alone mean" +
             (r.unit == "runs" ? "" : "; epochs of one invocation are not independent runs: run --runs N for runs");
    return r;
}

std::string lostMost(const std::vector<store::CollocationInterference>& list) {
    double most = -INFINITY;
    std::string name;
    for (const auto& x : list)
        if (std::isfinite(x.auPointsLost) && x.auPointsLost > most) {
            most = x.auPointsLost;
            name = x.name;
        }
    return name;
}

InterferenceRun interferenceRunOf(const InvocationRecord& r) {
    InterferenceRun run;
    run.auPercent = r.auMeanPercent;
    run.mibPerSecond = r.mbPerSecond;
    run.auPerEpoch = r.epochAuPercent;
    // DLIO's MB/s is samples/s × the mean record length ÷ 2^20: the same factor turns each epoch's samples/s.
    const double mibPerSample = r.samplesPerSecond > 0 ? r.mbPerSecond / r.samplesPerSecond
                                : r.recordLengthBytes ? *r.recordLengthBytes / 1048576.0
                                                      : NAN;
    if (std::isfinite(mibPerSample))
        for (double sps : r.epochSamplesPerSecond) run.mibPerEpoch.push_back(sps * mibPerSample);
    return run;
}

bool CollocationInterferenceResult::any() const {
    return std::any_of(workloads.begin(), workloads.end(), [](const WorkloadInterference& w) { return w.compared; });
}

namespace {

bool atOrBelow(const fs::path& inner, const fs::path& outer) {
    std::error_code ec;
    const fs::path rel = fs::weakly_canonical(inner, ec).lexically_relative(fs::weakly_canonical(outer, ec));
    return !rel.empty() && *rel.begin() != "..";
}

// "alone/a", "runs of alone-a": a group's folder as the text names it (a benchmark's runs/ by its parent).
std::string folderText(const RunGroup& g) {
    fs::path p = g.path;
    if (p.filename() == "runs" && p.has_parent_path()) p = p.parent_path();
    return p.parent_path().filename().empty() ? p.string() : (p.parent_path().filename() / p.filename()).string();
}

std::string runsText(std::size_t n) { return std::to_string(n) + (n == 1 ? " run" : " runs"); }

std::string joinDifferences(const std::vector<std::string>& d, std::size_t max = 3) {
    std::string s;
    for (std::size_t i = 0; i < d.size() && i < max; ++i) s += (s.empty() ? "" : "; ") + d[i];
    if (d.size() > max) s += "; and " + std::to_string(d.size() - max) + " more";
    return s;
}

WorkloadInterference workloadInterference(const ImportResult& imp, std::size_t c, const store::CollocationMember& m) {
    const store::CollocationFile& file = imp.collocations[c];
    WorkloadInterference w;
    w.name = m.name;
    for (std::size_t gi = 0; gi < imp.groups.size(); ++gi)
        if (imp.groups[gi].collocation == c && imp.groups[gi].collocatedAs == m.name) w.togetherGroup = gi;
    if (!w.togetherGroup) {
        w.why = "its folder " + m.path.filename().string() + " holds no imported run";
        return w;
    }
    const RunGroup& together = imp.groups[*w.togetherGroup];
    if (together.runs.empty()) {
        w.why = "no complete run together (" + statusName(together.status) + ")";
        return w;
    }
    const InvocationRecord& t0 = imp.runs.at(together.runs.front());
    std::vector<InterferenceRun> t;
    for (std::size_t ri : together.runs) t.push_back(interferenceRunOf(imp.runs.at(ri)));
    w.figures = compareAloneTogether(m.name, {}, t); // the together side, whatever is found alone
    const fs::path ownAlone = file.file.parent_path() / store::kAloneFolder / m.name;

    // Alone items: outside every collocation, complete runs, training, the same benchmark identity and system.
    std::vector<std::size_t> same;
    std::vector<std::pair<std::size_t, std::string>> refusals; // near misses: how many keys differ, and why
    for (std::size_t gi = 0; gi < imp.groups.size(); ++gi) {
        const RunGroup& g = imp.groups[gi];
        if (g.collocation || g.runs.empty() || g.type != BenchmarkType::Training) continue;
        const InvocationRecord& a0 = imp.runs.at(g.runs.front());
        if (g.identity.workloadKey != together.identity.workloadKey) continue;
        if (g.identity.benchmarkKey != together.identity.benchmarkKey) {
            const auto d = identityDifferences(a0, t0);
            refusals.emplace_back(d.size(), folderText(g) + " differs: " + joinDifferences(d));
            continue;
        }
        if (g.system != together.system) {
            refusals.emplace_back(0, folderText(g) + " is on system " + g.system + ", not " + together.system +
                                         " (the system is the storage under test: label both with one system to compare)");
            continue;
        }
        same.push_back(gi);
    }
    if (same.empty()) {
        // The nearest misses first: what a user would most likely have meant to compare with.
        std::stable_sort(refusals.begin(), refusals.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
        std::vector<std::string> words;
        for (const auto& [n, text] : refusals) words.push_back(text);
        w.why = refusals.empty() ? "no alone run of the same benchmark identity in the library (run collocate --alone, "
                                   "or import an alone run of this workload on the same storage)"
                                 : "no alone run of the same benchmark identity; not comparable: " + joinDifferences(words, 3);
        return w;
    }
    const bool togetherOnce = together.kind == GroupKind::Single;
    auto rank = [&](std::size_t gi) {
        const RunGroup& g = imp.groups[gi];
        const bool own = atOrBelow(g.path, ownAlone);
        const bool sameKind = (g.kind == GroupKind::Single) == togetherOnce;
        return std::make_tuple(own, sameKind, g.runs.size(), imp.runs.at(g.runs.front()).start, g.path.string());
    };
    const std::size_t best = *std::max_element(same.begin(), same.end(), [&](std::size_t a, std::size_t b) { return rank(a) < rank(b); });
    const RunGroup& alone = imp.groups[best];
    w.aloneGroup = best;
    w.fromAloneFolder = atOrBelow(alone.path, ownAlone);
    w.otherAloneItems = same.size() - 1;

    std::vector<InterferenceRun> a;
    for (std::size_t ri : alone.runs) a.push_back(interferenceRunOf(imp.runs.at(ri)));
    w.figures = compareAloneTogether(m.name, a, t);
    w.figures.alonePath = alone.path;
    w.compared = true;
    w.source = (w.fromAloneFolder ? "alone runs of collocate --alone (" : "alone runs found in the library (") + folderText(alone) +
               ", " + runsText(alone.runs.size()) +
               (w.otherAloneItems ? "; " + std::to_string(w.otherAloneItems) + " more alone item(s) of this benchmark not used" : "") + ")";
    return w;
}

std::string fmt(double v, const char* format) {
    if (!std::isfinite(v)) return "n/a";
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

} // namespace

CollocationInterferenceResult collocationInterference(const ImportResult& imp, std::size_t collocation) {
    CollocationInterferenceResult r;
    if (collocation >= imp.collocations.size()) return r;
    std::vector<store::CollocationInterference> compared;
    for (const auto& m : imp.collocations[collocation].workloads) {
        r.workloads.push_back(workloadInterference(imp, collocation, m));
        if (r.workloads.back().compared) compared.push_back(r.workloads.back().figures);
    }
    r.lostMost = lostMost(compared);
    return r;
}

ordered_json interferenceJson(const CollocationInterferenceResult& r) {
    ordered_json list = ordered_json::array();
    for (const auto& w : r.workloads) {
        ordered_json j = w.compared ? store::interferenceJson(w.figures) : ordered_json{{"name", w.name}};
        j["compared"] = w.compared;
        j["why"] = w.why;
        j["source"] = w.source;
        j["alone_from_collocate"] = w.fromAloneFolder;
        list.push_back(std::move(j));
    }
    return {{"workloads", list}, {"lost_most", r.lostMost.empty() ? ordered_json() : ordered_json(r.lostMost)}};
}

std::string interferenceLine(const WorkloadInterference& w) {
    if (!w.compared) return w.name + ": not compared: " + w.why;
    const auto& x = w.figures;
    return x.name + ": AU " + fmt(x.auAlone, "%.2f") + " % alone, " + fmt(x.auTogether, "%.2f") + " % together — " +
           fmt(x.auPointsLost, "%.2f") + " points lost (95 % CI " + fmt(x.auPointsLostLow, "%.2f") + "…" +
           fmt(x.auPointsLostHigh, "%.2f") + "); " + fmt(x.mibAlone, "%.1f") + " → " + fmt(x.mibTogether, "%.1f") +
           " MiB/s, slowdown " + fmt(x.slowdownPercent, "%.1f") + " % (95 % CI " + fmt(x.slowdownLowPercent, "%.1f") + "…" +
           fmt(x.slowdownHighPercent, "%.1f") + "), over " + std::to_string(x.nAlone) + "/" + std::to_string(x.nTogether) + " " +
           x.unit + "; against " + w.source;
}

} // namespace trainio::aggregate
