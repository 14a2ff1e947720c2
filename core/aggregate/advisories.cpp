#include "aggregate/advisories.h"

#include "trainio_source_dir.h"
#include "util/errors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

namespace fs = std::filesystem;
using nlohmann::json;

namespace trainio::aggregate {

namespace {

const std::regex kDate(R"(\d{4}-\d{2}-\d{2})");
const std::regex kVersion(R"(\d+(\.\d+)*)");

std::string textAt(const json& o, const std::string& file, const std::string& where, const char* key, bool required,
                   const std::regex* shape = nullptr, const char* expected = "text") {
    const auto it = o.find(key);
    if (it == o.end()) {
        if (required) throw InputError(describeProblem(file, where + key, "(missing)", expected));
        return {};
    }
    if (!it->is_string()) throw InputError(describeProblem(file, where + key, it->dump(), expected));
    const std::string v = it->get<std::string>();
    if ((required && v.empty()) || (shape && !v.empty() && !std::regex_match(v, *shape)))
        throw InputError(describeProblem(file, where + key, v, expected));
    return v;
}

// The start date of a run: its start time ("2026-07-10T07:27:16…", "2026-07-10 07:27:16") or, for an
// MLPerf Storage run folder, its name ("20260710_072716").
std::string runDate(const InvocationRecord& r) {
    std::smatch m;
    if (std::regex_search(r.start, m, kDate) && m.position(0) == 0) return m.str(0);
    static const std::regex folder(R"((\d{4})(\d{2})(\d{2})_\d{6})");
    if (std::regex_match(r.runName, m, folder)) return m.str(1) + "-" + m.str(2) + "-" + m.str(3);
    return {};
}

bool applies(const Advisory& a, const RunProvenance& run) {
    const std::string type = benchmarkTypeName(run.type);
    if (a.appliesTo == type) return true;
    const auto colon = a.appliesTo.find(':');
    if (colon == std::string::npos || a.appliesTo.substr(0, colon) != type) return false;
    const std::string what = a.appliesTo.substr(colon + 1);
    if (what == "s3") return run.s3;
    if (what == "captured") return run.captured;
    return what == run.model;
}

std::string refsText(const std::vector<std::string>& refs) {
    std::string out;
    for (const auto& r : refs) out += (out.empty() ? "" : ", ") + r;
    return out;
}

} // namespace

int compareVersions(const std::string& a, const std::string& b) {
    std::istringstream sa(a), sb(b);
    std::string pa, pb;
    while (true) {
        const bool ha = static_cast<bool>(std::getline(sa, pa, '.')), hb = static_cast<bool>(std::getline(sb, pb, '.'));
        if (!ha && !hb) return 0;
        const long va = ha ? std::strtol(pa.c_str(), nullptr, 10) : 0, vb = hb ? std::strtol(pb.c_str(), nullptr, 10) : 0;
        if (va != vb) return va < vb ? -1 : 1;
    }
}

AdvisoryLedger readAdvisoryLedger(const fs::path& file) {
    const std::string name = file.string();
    std::ifstream in(file);
    if (!in) throw InputError(name + ": cannot be read (the advisory ledger)");
    json j;
    try {
        j = json::parse(in);
    } catch (const json::parse_error& e) {
        throw InputError(name + ": not JSON: " + e.what());
    }
    if (!j.is_object()) throw InputError(describeProblem(name, "", j.dump().substr(0, 40), "an object with \"tools\" and \"advisories\""));
    AdvisoryLedger ledger;
    const auto tools = j.find("tools");
    if (tools == j.end() || !tools->is_object()) throw InputError(describeProblem(name, "tools", tools == j.end() ? "(missing)" : tools->dump(), "an object of tool lines"));
    for (const auto& [tool, line] : tools->items()) {
        if (!line.is_object()) throw InputError(describeProblem(name, "tools." + tool, line.dump(), "an object"));
        const std::string where = "tools." + tool + ".";
        ledger.tools[tool] = ToolLine{textAt(line, name, where, "line", true, &kVersion, "a version line such as 3.0"),
                                      textAt(line, name, where, "line_first_release", false, &kDate, "a date YYYY-MM-DD"),
                                      textAt(line, name, where, "source", true)};
    }
    const auto list = j.find("advisories");
    if (list == j.end() || !list->is_array()) throw InputError(describeProblem(name, "advisories", list == j.end() ? "(missing)" : list->dump().substr(0, 40), "a list"));
    static const std::regex appliesShape(R"((training|checkpointing)(:[a-z0-9_]+)?)");
    for (std::size_t i = 0; i < list->size(); ++i) {
        const json& e = (*list)[i];
        const std::string where = "advisories[" + std::to_string(i) + "].";
        if (!e.is_object()) throw InputError(describeProblem(name, "advisories[" + std::to_string(i) + "]", e.dump(), "an object"));
        Advisory a;
        a.tool = textAt(e, name, where, "tool", true);
        if (!ledger.tools.count(a.tool)) throw InputError(describeProblem(name, where + "tool", a.tool, "a tool listed under \"tools\""));
        a.fixedIn = textAt(e, name, where, "fixed_in", true, &kVersion, "a version such as 3.0.14");
        a.fixedReleased = textAt(e, name, where, "fixed_released", true, &kDate, "a date YYYY-MM-DD");
        a.appliesTo = textAt(e, name, where, "applies_to", true, &appliesShape, "training, checkpointing, training:<model>, training:s3 or training:captured");
        a.effect = textAt(e, name, where, "effect", true);
        a.detail = textAt(e, name, where, "detail", false);
        const auto refs = e.find("refs");
        if (refs == e.end() || !refs->is_array() || refs->empty())
            throw InputError(describeProblem(name, where + "refs", refs == e.end() ? "(missing)" : refs->dump(), "a non-empty list of issues or pull requests: each entry is cited"));
        for (const auto& r : *refs) {
            if (!r.is_string()) throw InputError(describeProblem(name, where + "refs", r.dump(), "text"));
            a.refs.push_back(r.get<std::string>());
        }
        ledger.advisories.push_back(std::move(a));
    }
    return ledger;
}

fs::path advisoryLedgerPath() {
    if (const char* env = std::getenv("TRAINIO_ADVISORY_LEDGER"); env && *env) return env;
    std::error_code ec;
    // Installed layout: <prefix>/bin/trainio-cli and <prefix>/share/trainio/advisories/ledger.json.
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const fs::path installed = exe.parent_path() / ".." / "share" / "trainio" / "advisories" / "ledger.json";
        if (fs::is_regular_file(installed, ec)) return fs::weakly_canonical(installed);
    }
    return fs::path(TRAINIO_SOURCE_DIR) / "resources" / "advisories" / "ledger.json";
}

const AdvisoryLedger& defaultAdvisoryLedger() {
    static const auto loaded = []() -> std::pair<AdvisoryLedger, std::string> {
        try {
            return {readAdvisoryLedger(advisoryLedgerPath()), {}};
        } catch (const InputError& e) {
            return {{}, e.what()};
        }
    }();
    if (!loaded.second.empty()) throw InputError(loaded.second);
    return loaded.first;
}

RunProvenance provenanceOf(const InvocationRecord& r) {
    RunProvenance p;
    p.tool = isTrainioRun(r) ? "trainio" : r.metadataRead ? "mlpstorage" : "dlio";
    p.version = r.toolVersion;
    p.date = runDate(r);
    p.type = r.type;
    p.model = r.model;
    p.s3 = !r.s3Endpoint.empty();
    for (const auto& [k, v] : r.resolved) {
        if ((k == "storage.storage_type" && v == "s3") || (k == "dataset.data_folder" && v.rfind("s3://", 0) == 0)) p.s3 = true;
        if (k.rfind("trainio.captured_job.", 0) == 0 && !v.empty()) p.captured = true;
    }
    return p;
}

std::vector<AdvisoryMatch> matchAdvisories(const AdvisoryLedger& ledger, const RunProvenance& run) {
    std::vector<AdvisoryMatch> out;
    for (const Advisory& a : ledger.advisories) {
        if (!applies(a, run)) continue;
        const ToolLine& line = ledger.tools.at(a.tool);
        const std::string cite = " (" + refsText(a.refs) + ")";
        if (run.tool == a.tool && !run.version.empty()) {
            // Recorded: affected when of this line and older than the fix.
            const bool ofLine = run.version == line.line || run.version.rfind(line.line + ".", 0) == 0;
            if (!ofLine || compareVersions(run.version, a.fixedIn) >= 0) continue;
            out.push_back({&a, true,
                           "measured with " + a.tool + " " + run.version + ": " + a.effect + ", fixed in " + a.fixedIn + cite});
            continue;
        }
        // Not recorded (published MLPerf Storage and DLIO folders carry no version): by date, within the
        // line's life before the fix. A TrainIO run always records its version; a DLIO folder may have
        // been made by mlpstorage, which runs DLIO.
        const bool mayBeTool = run.tool == a.tool || (a.tool == "mlpstorage" && run.tool == "dlio");
        if (!mayBeTool || !run.version.empty() || line.firstRelease.empty() || run.date.empty()) continue;
        if (run.date < line.firstRelease || run.date >= a.fixedReleased) continue;
        out.push_back({&a, false,
                       "possibly affected: made on " + run.date + " by " + (run.tool == "dlio" ? "DLIO (perhaps under mlpstorage)" : a.tool) +
                           " of no recorded version, before " + a.tool + " " + a.fixedIn + " (released " + a.fixedReleased +
                           "): " + a.effect + cite});
    }
    return out;
}

std::vector<RunsAdvisory> matchAdvisoriesOfRuns(const AdvisoryLedger& ledger, const std::vector<RunProvenance>& runs) {
    std::vector<RunsAdvisory> out;
    for (const RunProvenance& run : runs)
        for (AdvisoryMatch& m : matchAdvisories(ledger, run)) {
            auto same = std::find_if(out.begin(), out.end(), [&](const RunsAdvisory& x) { return x.match.advisory == m.advisory; });
            if (same == out.end()) {
                out.push_back({std::move(m), 1});
            } else {
                ++same->runs;
                same->match.certain = same->match.certain || m.certain;
            }
        }
    return out;
}

} // namespace trainio::aggregate
