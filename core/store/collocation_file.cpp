#include "store/collocation_file.h"

#include "store/run_folder.h"
#include "util/errors.h"

namespace trainio::store {
namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace {

ordered_json num(double v) { return std::isfinite(v) ? ordered_json(v) : ordered_json(); }

} // namespace

ordered_json interferenceJson(const CollocationInterference& x) {
    return {{"name", x.name},
            {"alone_path", x.alonePath.string()},
            {"unit", x.unit},
            {"n_alone", x.nAlone},
            {"n_together", x.nTogether},
            {"au_alone_percent", num(x.auAlone)},
            {"au_together_percent", num(x.auTogether)},
            {"au_points_lost", num(x.auPointsLost)},
            {"au_points_lost_ci95", {num(x.auPointsLostLow), num(x.auPointsLostHigh)}},
            {"mib_s_alone", num(x.mibAlone)},
            {"mib_s_together", num(x.mibTogether)},
            {"slowdown_percent", num(x.slowdownPercent)},
            {"slowdown_ci95_percent", {num(x.slowdownLowPercent), num(x.slowdownHighPercent)}},
            {"rule", x.rule}};
}

ordered_json collocationJson(const CollocationFile& c) {
    ordered_json j;
    j["version"] = 1;
    j["plan"] = c.plan;
    j["command_line"] = c.commandLine;
    j["status"] = c.status;
    if (!c.error.empty()) j["error"] = c.error;
    j["times"] = "seconds since the Unix epoch (UTC)";
    j["start"] = num(c.start);
    j["end"] = num(c.end);
    j["runs"] = c.runs;
    j["warmups"] = c.warmups;
    ordered_json ws = ordered_json::array();
    for (const auto& w : c.workloads) {
        ordered_json invs = ordered_json::array();
        for (const auto& i : w.invocations)
            invs.push_back({{"label", i.label}, {"path", i.path.string()}, {"start", num(i.start)}, {"end", num(i.end)},
                            {"status", i.status}, {"au_percent", num(i.auPercent)}, {"bytes_read", i.bytesRead}});
        ws.push_back({{"name", w.name},
                      {"path", w.path.string()},
                      {"config", w.config},
                      {"accelerators", w.accelerators},
                      {"start_after_s", w.startAfterS},
                      {"start", num(w.start)},
                      {"end", num(w.end)},
                      {"status", w.status},
                      {"invocations", invs}});
    }
    j["workloads"] = ws;
    j["shared_storage"] = c.sharedStorage;
    j["threads"] = {{"training", c.trainingThreads}, {"readers", c.readerThreads}, {"cpus", c.cpus}};
    j["process_io"] = c.processIo;
    if (!c.mpi.empty()) j["mpi"] = c.mpi;
    if (c.hasInterference) {
        ordered_json list = ordered_json::array();
        for (const auto& x : c.interference) list.push_back(interferenceJson(x));
        j["interference"] = {{"workloads", list}, {"lost_most", c.lostMost.empty() ? ordered_json() : ordered_json(c.lostMost)}};
    }
    return j;
}

fs::path writeCollocationFile(const CollocationFile& c, const fs::path& dir) {
    const fs::path file = dir / kCollocationFile;
    writeFileAtomic(file, collocationJson(c).dump(2) + "\n");
    return file;
}

CollocationFile readCollocationFile(const fs::path& file, const fs::path& canonicalRoot) {
    CollocationFile c;
    c.file = file;
    const fs::path dir = file.parent_path();
    const ReadBounds bounds;
    const nlohmann::json j = readFolderJsonOrThrow(file, canonicalRoot.empty() ? treeOf(dir) : canonicalRoot, bounds.maxFileBytes,
                                                   bounds.maxJsonDepth);
    auto fail = [&](const std::string& key, const std::string& expected) {
        throw InputError(describeProblem(file.string(), key, "", expected));
    };
    if (!j.is_object()) fail("(top level)", "a JSON object (trainio-cli collocate writes it)");
    auto text = [&](const nlohmann::json& o, const char* key, const std::string& at, bool required) -> std::string {
        const auto it = o.find(key);
        if (it == o.end() || it->is_null()) {
            if (required) fail(at + key, "a string");
            return {};
        }
        if (!it->is_string()) fail(at + key, "a string");
        return it->get<std::string>();
    };
    auto number = [&](const nlohmann::json& o, const char* key, const std::string& at) -> double {
        const auto it = o.find(key);
        if (it == o.end() || it->is_null()) return NAN;
        if (!it->is_number()) fail(at + key, "a number or null");
        return it->get<double>();
    };
    auto count = [&](const nlohmann::json& o, const char* key, const std::string& at) -> std::uint64_t {
        const auto it = o.find(key);
        if (it == o.end() || it->is_null()) return 0;
        if (!it->is_number_unsigned()) fail(at + key, "a whole number");
        return it->get<std::uint64_t>();
    };
    auto absolute = [&](const std::string& p) { return fs::path(p).is_absolute() ? fs::path(p) : dir / p; };
    c.plan = text(j, "plan", "", false);
    c.commandLine = text(j, "command_line", "", false);
    c.status = text(j, "status", "", true);
    c.error = text(j, "error", "", false);
    c.start = number(j, "start", "");
    c.end = number(j, "end", "");
    c.runs = count(j, "runs", "");
    c.warmups = count(j, "warmups", "");
    const auto ws = j.find("workloads");
    if (ws == j.end() || !ws->is_array() || ws->empty()) fail("workloads", "a list of the collocated workloads");
    for (std::size_t i = 0; i < ws->size(); ++i) {
        const auto& w = (*ws)[i];
        const std::string at = "workloads[" + std::to_string(i) + "].";
        if (!w.is_object()) fail(at.substr(0, at.size() - 1), "an object");
        CollocationMember m;
        m.name = text(w, "name", at, true);
        m.path = absolute(text(w, "path", at, true));
        m.config = text(w, "config", at, false);
        m.accelerators = count(w, "accelerators", at);
        m.startAfterS = number(w, "start_after_s", at);
        m.start = number(w, "start", at);
        m.end = number(w, "end", at);
        m.status = text(w, "status", at, false);
        if (const auto invs = w.find("invocations"); invs != w.end() && invs->is_array())
            for (std::size_t k = 0; k < invs->size(); ++k) {
                const auto& v = (*invs)[k];
                const std::string at2 = at + "invocations[" + std::to_string(k) + "].";
                if (!v.is_object()) fail(at2.substr(0, at2.size() - 1), "an object");
                CollocationInvocationEntry e;
                e.label = text(v, "label", at2, false);
                e.path = absolute(text(v, "path", at2, true));
                e.start = number(v, "start", at2);
                e.end = number(v, "end", at2);
                e.status = text(v, "status", at2, false);
                e.auPercent = number(v, "au_percent", at2);
                e.bytesRead = count(v, "bytes_read", at2);
                m.invocations.push_back(std::move(e));
            }
        c.workloads.push_back(std::move(m));
    }
    if (const auto s = j.find("shared_storage"); s != j.end() && s->is_object()) c.sharedStorage = *s;
    if (const auto t = j.find("threads"); t != j.end() && t->is_object()) {
        c.trainingThreads = count(*t, "training", "threads.");
        c.readerThreads = count(*t, "readers", "threads.");
        c.cpus = count(*t, "cpus", "threads.");
    }
    if (const auto p = j.find("process_io"); p != j.end() && p->is_object()) c.processIo = *p;
    if (const auto m = j.find("mpi"); m != j.end() && m->is_object()) c.mpi = *m;
    if (const auto in = j.find("interference"); in != j.end() && in->is_object()) {
        c.hasInterference = true;
        c.lostMost = text(*in, "lost_most", "interference.", false);
        if (const auto list = in->find("workloads"); list != in->end() && list->is_array())
            for (std::size_t i = 0; i < list->size(); ++i) {
                const auto& x = (*list)[i];
                const std::string at = "interference.workloads[" + std::to_string(i) + "].";
                if (!x.is_object()) fail(at.substr(0, at.size() - 1), "an object");
                CollocationInterference r;
                r.name = text(x, "name", at, true);
                r.alonePath = absolute(text(x, "alone_path", at, false));
                r.unit = text(x, "unit", at, false);
                r.rule = text(x, "rule", at, false);
                r.nAlone = count(x, "n_alone", at);
                r.nTogether = count(x, "n_together", at);
                r.auAlone = number(x, "au_alone_percent", at);
                r.auTogether = number(x, "au_together_percent", at);
                r.auPointsLost = number(x, "au_points_lost", at);
                r.mibAlone = number(x, "mib_s_alone", at);
                r.mibTogether = number(x, "mib_s_together", at);
                r.slowdownPercent = number(x, "slowdown_percent", at);
                auto pair = [&](const char* key, double& lo, double& hi) {
                    const auto it = x.find(key);
                    if (it == x.end() || it->is_null()) return;
                    if (!it->is_array() || it->size() != 2) fail(at + key, "[low, high]");
                    lo = (*it)[0].is_number() ? (*it)[0].get<double>() : NAN;
                    hi = (*it)[1].is_number() ? (*it)[1].get<double>() : NAN;
                };
                pair("au_points_lost_ci95", r.auPointsLostLow, r.auPointsLostHigh);
                pair("slowdown_ci95_percent", r.slowdownLowPercent, r.slowdownHighPercent);
                c.interference.push_back(std::move(r));
            }
    }
    return c;
}

} // namespace trainio::store
