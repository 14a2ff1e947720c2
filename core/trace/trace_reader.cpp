#include "trace/trace_reader.h"

#include "util/errors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <unordered_map>

namespace fs = std::filesystem;
using nlohmann::json;

namespace trainio::trace {

namespace {

std::string joinList(const std::vector<std::string>& v) {
    std::string out;
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i];
    return out;
}

std::vector<std::string> stringList(const json& j, const std::string& where, const char* key) {
    std::vector<std::string> out;
    if (!j.contains(key)) return out;
    if (!j.at(key).is_array()) throw InputError(where + ": " + key + ": expected a list of strings");
    for (const auto& s : j.at(key)) {
        if (!s.is_string()) throw InputError(where + ": " + key + ": expected a list of strings");
        out.push_back(s.get<std::string>());
    }
    return out;
}

// A member that must be a whole number >= 0.
std::uint64_t whole(const json& j, const char* key, const std::string& where, bool required = true) {
    auto it = j.find(key);
    if (it == j.end()) {
        if (required) throw InputError(where + ": no \"" + key + "\": expected a whole number");
        return 0;
    }
    if (!it->is_number_unsigned() && !(it->is_number_integer() && it->get<std::int64_t>() >= 0))
        throw InputError(where + ": \"" + key + "\" = " + it->dump() + ": expected a whole number >= 0");
    return it->get<std::uint64_t>();
}

int integer(const json& j, const char* key, const std::string& where) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number_integer()) throw InputError(where + ": \"" + key + "\": expected an integer");
    return it->get<int>();
}

std::string text(const json& j, const char* key, const std::string& where) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_string()) throw InputError(where + ": \"" + key + "\": expected a string");
    return it->get<std::string>();
}

bool opFromString(const std::string& s, Op& op) {
    static const std::map<std::string, Op> ops = {{"open", Op::Open},     {"read", Op::Read},   {"pread", Op::Pread},
                                                  {"readv", Op::Readv},   {"preadv", Op::Preadv}, {"mmap", Op::Mmap},
                                                  {"munmap", Op::Munmap}, {"close", Op::Close}, {"fread", Op::Fread}};
    auto it = ops.find(s);
    if (it == ops.end()) return false;
    op = it->second;
    return true;
}

// Calls `each(json, where)` for every line of a JSON-lines file, bounded in line length.
template <class F>
void forEachLine(const fs::path& file, F each) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw InputError(file.string() + ": cannot open: " + errnoText(errno));
    std::string line;
    std::uint64_t no = 0;
    while (std::getline(in, line)) {
        ++no;
        const std::string where = file.string() + ":" + std::to_string(no);
        if (line.size() > kMaxLineBytes)
            throw InputError(where + ": a line of " + std::to_string(line.size()) + " bytes: expected at most " +
                             std::to_string(kMaxLineBytes));
        if (line.empty()) continue;
        json j = json::parse(line, nullptr, false);
        if (j.is_discarded() || !j.is_object()) {
            // The last line of a process killed while its writer wrote is cut short: tolerated there only.
            if (in.peek() == std::char_traits<char>::eof()) break;
            throw InputError(where + ": not a JSON object: expected one event a line");
        }
        each(j, where);
    }
}

} // namespace

std::string joinColon(const std::vector<std::string>& items) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ":" : "") + items[i];
    return out;
}

FilterRule defaultFilterRule() {
    FilterRule r;
    r.prefixes = {"/usr/lib/", "/usr/lib64/", "/usr/local/lib/", "/usr/share/", "/usr/include/", "/lib/", "/lib64/",
                  "/proc/",    "/sys/",       "/dev/",           "/etc/",       "/run/",         "/var/lib/", "/var/cache/"};
    // Programs and the trees of interpreter managers: a launcher (a pyenv or conda shim, a wrapper script)
    // runs shell scripts and reads its version files before the job starts; they are never training data.
    r.parts = {"/site-packages/", "/dist-packages/", "/lib/python", "/lib64/python", "/__pycache__/", ".dist-info/",
               ".egg-info/",      "/bin/",           "/sbin/",      "/libexec/",     "/.pyenv/",      "/.conda/",
               "/.rbenv/"};
    r.suffixes = {".py", ".pyc", ".pyo", ".pyi", ".pth", ".so", ".sh", ".bash"};
    return r;
}

std::string FilterRule::describe() const {
    return "a data file is a regular file opened read-only whose absolute path starts with none of [" +
           joinList(prefixes) + "], contains none of [" + joinList(parts) + "], ends with none of [" +
           joinList(suffixes) + "] and is not inside the trace folder";
}

const char* toString(Op op) {
    switch (op) {
    case Op::Open: return "open";
    case Op::Read: return "read";
    case Op::Pread: return "pread";
    case Op::Readv: return "readv";
    case Op::Preadv: return "preadv";
    case Op::Mmap: return "mmap";
    case Op::Munmap: return "munmap";
    case Op::Close: return "close";
    case Op::Fread: return "fread";
    }
    return "?";
}

std::string headerJson(const TraceHeader& h) {
    nlohmann::ordered_json j;
    j["format"] = h.format;
    j["version"] = h.version;
    j["command"] = h.command;
    j["cwd"] = h.cwd;
    j["start"] = h.start;
    j["start_monotonic_ns"] = h.startNs;
    j["end_monotonic_ns"] = h.endNs;
    j["exit_code"] = h.exitCode;
    j["job_pid"] = h.jobPid;
    j["python_marks"] = h.pythonMarks;
    j["filter_rule"] = {{"text", h.rule.describe()},
                        {"exclude_prefixes", h.rule.prefixes},
                        {"exclude_parts", h.rule.parts},
                        {"exclude_suffixes", h.rule.suffixes}};
    return j.dump(2) + "\n";
}

void writeHeader(const fs::path& dir, const TraceHeader& h) {
    const fs::path file = dir / kHeaderFile;
    const fs::path tmp = dir / (std::string(kHeaderFile) + ".tmp");
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << headerJson(h);
        if (!out.flush()) throw RunError(tmp.string() + ": cannot write: " + errnoText(errno));
    }
    std::error_code ec;
    fs::rename(tmp, file, ec);
    if (ec) throw RunError(file.string() + ": cannot rename into place: " + ec.message());
}

Trace readTrace(const fs::path& dir) {
    Trace tr;
    tr.dir = dir;
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw InputError(dir.string() + ": not a folder: expected a trace folder written by trainio-cli capture");
    const fs::path headerFile = dir / kHeaderFile;
    {
        std::ifstream in(headerFile, std::ios::binary);
        if (!in)
            throw InputError(headerFile.string() + ": missing: expected the header trainio-cli capture writes");
        std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (content.size() > kMaxLineBytes * 16) throw InputError(headerFile.string() + ": larger than 1 MiB: not a trace header");
        json j = json::parse(content, nullptr, false);
        const std::string where = headerFile.string();
        if (j.is_discarded() || !j.is_object()) throw InputError(where + ": not a JSON object");
        auto& h = tr.header;
        h.format = text(j, "format", where);
        if (h.format != kFormatName) throw InputError(where + ": format = \"" + h.format + "\": expected \"" + kFormatName + "\"");
        h.version = integer(j, "version", where);
        if (h.version != kFormatVersion)
            throw InputError(where + ": version = " + std::to_string(h.version) + ": expected " + std::to_string(kFormatVersion));
        h.command = stringList(j, where, "command");
        if (j.contains("cwd") && j["cwd"].is_string()) h.cwd = j["cwd"].get<std::string>();
        if (j.contains("start") && j["start"].is_string()) h.start = j["start"].get<std::string>();
        h.startNs = whole(j, "start_monotonic_ns", where);
        h.endNs = whole(j, "end_monotonic_ns", where, false);
        h.exitCode = j.contains("exit_code") && j["exit_code"].is_number_integer() ? j["exit_code"].get<int>() : -1;
        h.jobPid = j.contains("job_pid") && j["job_pid"].is_number_integer() ? j["job_pid"].get<int>() : 0;
        h.pythonMarks = j.value("python_marks", true);
        if (j.contains("filter_rule") && j["filter_rule"].is_object()) {
            const json& r = j["filter_rule"];
            h.rule.prefixes = stringList(r, where + ": filter_rule", "exclude_prefixes");
            h.rule.parts = stringList(r, where + ": filter_rule", "exclude_parts");
            h.rule.suffixes = stringList(r, where + ": filter_rule", "exclude_suffixes");
        }
    }

    std::vector<fs::path> eventFiles, markFiles;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        const bool events = name.rfind("events.", 0) == 0 && it->path().extension() == ".jsonl";
        const bool marks = name.rfind("marks.", 0) == 0 && it->path().extension() == ".jsonl";
        if (!events && !marks) continue;
        if (eventFiles.size() + markFiles.size() >= kMaxFiles)
            throw InputError(dir.string() + ": more than " + std::to_string(kMaxFiles) + " event and mark files");
        (events ? eventFiles : markFiles).push_back(it->path());
    }
    if (ec) throw InputError(dir.string() + ": cannot list: " + ec.message());
    std::sort(eventFiles.begin(), eventFiles.end());
    std::sort(markFiles.begin(), markFiles.end());

    std::unordered_map<std::string, std::uint32_t> pathIndex;
    for (const auto& f : eventFiles) {
        forEachLine(f, [&](const json& j, const std::string& where) {
            const std::string opName = text(j, "op", where);
            if (opName == "process") {
                ProcessInfo p;
                p.pid = integer(j, "pid", where);
                p.ppid = integer(j, "ppid", where);
                p.t = whole(j, "t", where);
                if (j.contains("exe") && j["exe"].is_string()) p.exe = j["exe"].get<std::string>();
                tr.processes.push_back(p);
                return;
            }
            IoEvent e;
            if (!opFromString(opName, e.op))
                throw InputError(where + ": op = \"" + opName + "\": expected open, read, pread, readv, preadv, mmap, munmap, close, fread or process");
            if (tr.events.size() >= kMaxEvents)
                throw InputError(where + ": more than " + std::to_string(kMaxEvents) + " events: the reader's bound");
            e.t = whole(j, "t", where);
            e.dur = whole(j, "dur", where, false);
            e.pid = integer(j, "pid", where);
            e.tid = static_cast<std::uint32_t>(whole(j, "tid", where, false));
            e.fd = integer(j, "fd", where);
            e.off = whole(j, "off", where, false);
            e.n = whole(j, "n", where, false);
            e.addr = whole(j, "addr", where, false);
            if (e.op == Op::Close) e.cpu = whole(j, "cpu", where, false);
            if (e.op == Op::Open) {
                e.size = whole(j, "size", where);
                e.cpu = whole(j, "cpu", where, false);
                if (j.contains("wait")) e.runWait = whole(j, "wait", where) + 1;
                const std::string p = text(j, "path", where);
                auto [it, added] = pathIndex.emplace(p, static_cast<std::uint32_t>(tr.paths.size()));
                if (added) tr.paths.push_back(p);
                e.path = it->second;
            }
            tr.events.push_back(e);
        });
    }
    for (const auto& f : markFiles) {
        forEachLine(f, [&](const json& j, const std::string& where) {
            const std::string opName = text(j, "op", where);
            Mark m;
            if (opName == "epoch_begin") m.op = MarkOp::EpochBegin;
            else if (opName == "ask") m.op = MarkOp::Ask;
            else if (opName == "batch") m.op = MarkOp::Batch;
            else if (opName == "epoch_end") m.op = MarkOp::EpochEnd;
            else throw InputError(where + ": op = \"" + opName + "\": expected epoch_begin, ask, batch or epoch_end");
            m.t = whole(j, "t", where);
            m.pid = integer(j, "pid", where);
            m.epoch = whole(j, "epoch", where);
            m.step = m.op == MarkOp::EpochEnd ? whole(j, "steps", where) : whole(j, "step", where, m.op != MarkOp::EpochBegin);
            if (auto it = j.find("size"); it != j.end()) {
                if (!it->is_number_integer()) throw InputError(where + ": \"size\": expected a whole number of samples");
                m.size = it->get<std::int64_t>();
            }
            tr.marks.push_back(m);
        });
    }
    auto byTime = [](const auto& a, const auto& b) { return a.t < b.t; };
    std::stable_sort(tr.events.begin(), tr.events.end(), byTime);
    std::stable_sort(tr.marks.begin(), tr.marks.end(), byTime);
    std::sort(tr.processes.begin(), tr.processes.end(), [](const auto& a, const auto& b) { return a.pid < b.pid; });
    return tr;
}

} // namespace trainio::trace
