#include "engine/live_json.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace trainio::live {

namespace {

using nlohmann::json;

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// Readers of one field; a missing or mistyped field makes the whole line unreadable (std::nullopt).
struct Fields {
    const json& j;
    bool ok = true;
    std::string text(const char* key) {
        const auto it = j.find(key);
        if (it == j.end() || !it->is_string()) return ok = false, std::string{};
        return it->get<std::string>();
    }
    std::string optionalText(const char* key) {
        const auto it = j.find(key);
        return it != j.end() && it->is_string() ? it->get<std::string>() : std::string{};
    }
    double number(const char* key) {
        const auto it = j.find(key);
        if (it != j.end() && it->is_null()) return std::nan(""); // how the writer spells NaN
        if (it == j.end() || !it->is_number()) return ok = false, 0.0;
        return it->get<double>();
    }
    std::uint64_t count(const char* key) {
        const auto it = j.find(key);
        if (it == j.end() || !it->is_number_unsigned()) return ok = false, 0;
        return it->get<std::uint64_t>();
    }
    std::vector<double> numbers(const char* key) {
        std::vector<double> out;
        const auto it = j.find(key);
        if (it == j.end() || !it->is_array()) return ok = false, out;
        for (const json& v : *it) {
            if (v.is_null()) out.push_back(std::nan(""));
            else if (!v.is_number()) return ok = false, out;
            else out.push_back(v.get<double>());
        }
        return out;
    }
};

// The fields of the step and epoch lines: one list, read by the writer and the parser alike, so that a
// field the writer adds is a field the parser reads (an MPI run followed through the stream must carry
// what an in-process run's events carry). Numbers are written as JSON numbers, NaN ("not known") as null.
struct CountField {
    const char* key;
    std::uint64_t StepEvent::*member;
};
struct NumberField {
    const char* key;
    double StepEvent::*member;
};
constexpr CountField kStepCounts[] = {{"rank", &StepEvent::rank},
                                      {"epoch", &StepEvent::epoch},
                                      {"step", &StepEvent::step},
                                      {"steps_per_epoch", &StepEvent::stepsPerEpoch},
                                      {"queue_depth", &StepEvent::queueDepth},
                                      {"bytes_read", &StepEvent::bytesRead}};
constexpr NumberField kStepNumbers[] = {{"load", &StepEvent::load},
                                        {"compute", &StepEvent::compute},
                                        {"proc", &StepEvent::proc},
                                        {"time", &StepEvent::wallTime}};

struct EpochCount {
    const char* key;
    std::uint64_t EpochEvent::*member;
};
struct EpochNumber {
    const char* key;
    double EpochEvent::*member;
    bool required; // absent in lines of older versions: read as NaN (not known)
};
struct EpochSeries {
    const char* key;
    std::vector<double> EpochEvent::*member;
};
constexpr EpochCount kEpochCounts[] = {{"epoch", &EpochEvent::epoch}, {"epochs", &EpochEvent::epochs}};
constexpr EpochNumber kEpochNumbers[] = {{"au_percent", &EpochEvent::auPercent, true},
                                         {"samples_per_second", &EpochEvent::throughput, true},
                                         {"MiB_per_second", &EpochEvent::mibPerSecond, true},
                                         {"seconds", &EpochEvent::seconds, true},
                                         {"hit_ratio", &EpochEvent::hitRatio, false},
                                         {"belady_hit_ratio", &EpochEvent::beladyHitRatio, false},
                                         {"stall_seconds", &EpochEvent::stallSeconds, false}};
constexpr EpochSeries kEpochSeries[] = {{"rank_au", &EpochEvent::rankAu},
                                        {"rank_samples_per_second", &EpochEvent::rankThroughput}};

} // namespace

std::string phaseLine(const std::string& label, const std::string& phase) {
    return dump(json{{"event", "phase"}, {"phase", phase}, {"label", label}});
}

std::string stepLine(const std::string& label, const StepEvent& e) {
    json j{{"event", "step"}, {"label", label}};
    for (const auto& f : kStepCounts) j[f.key] = e.*f.member;
    for (const auto& f : kStepNumbers) j[f.key] = e.*f.member;
    return dump(j);
}

std::string epochLine(const std::string& label, const EpochEvent& e) {
    json j{{"event", "epoch"}, {"label", label}};
    for (const auto& f : kEpochCounts) j[f.key] = e.*f.member;
    for (const auto& f : kEpochNumbers) j[f.key] = e.*f.member;
    for (const auto& f : kEpochSeries) j[f.key] = e.*f.member;
    return dump(j);
}

std::string hostsLine(const std::string& label, const std::vector<std::string>& hostOfRank) {
    json ranks = json::array();
    for (std::size_t r = 0; r < hostOfRank.size(); ++r) ranks.push_back({{"rank", r}, {"host", hostOfRank[r]}});
    return dump(json{{"event", "hosts"}, {"label", label}, {"ranks", ranks}});
}

std::string messageLine(const std::string& text) { return dump(json{{"event", "message"}, {"text", text}}); }

std::string datagenLine(std::uint64_t filesDone, std::uint64_t filesTotal, std::uint64_t bytesDone,
                        std::uint64_t bytesTotal, double seconds) {
    return dump(json{{"event", "datagen"}, {"files_done", filesDone}, {"files_total", filesTotal},
                     {"bytes_done", bytesDone}, {"bytes_total", bytesTotal}, {"seconds", seconds}});
}

std::string invocationStartedLine(const std::string& label, const std::string& dir) {
    return dump(json{{"event", "invocation"}, {"state", "started"}, {"label", label}, {"path", dir}});
}

std::string invocationFinishedLine(const std::string& label, const std::string& dir, const std::string& status,
                                   double auPercent) {
    return dump(json{{"event", "invocation"}, {"state", "finished"}, {"label", label}, {"path", dir},
                     {"status", status}, {"au_percent", auPercent}});
}

std::optional<Event> parseLine(std::string_view line) {
    const json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return std::nullopt;
    Fields f{j};
    const std::string event = f.text("event");
    if (!f.ok) return std::nullopt;
    Event e;
    e.label = f.optionalText("label");
    if (event == "phase") {
        e.kind = Event::Kind::Phase;
        e.text = f.text("phase");
    } else if (event == "message") {
        e.kind = Event::Kind::Message;
        e.text = f.text("text");
    } else if (event == "step") {
        e.kind = Event::Kind::Step;
        for (const auto& k : kStepCounts) e.step.*k.member = f.count(k.key);
        for (const auto& k : kStepNumbers) e.step.*k.member = f.number(k.key);
    } else if (event == "epoch") {
        e.kind = Event::Kind::Epoch;
        for (const auto& k : kEpochCounts) e.epoch.*k.member = f.count(k.key);
        for (const auto& k : kEpochNumbers)
            e.epoch.*k.member = k.required || j.contains(k.key) ? f.number(k.key) : std::nan("");
        for (const auto& k : kEpochSeries) e.epoch.*k.member = f.numbers(k.key);
    } else if (event == "hosts") {
        e.kind = Event::Kind::Hosts;
        const auto it = j.find("ranks");
        if (it == j.end() || !it->is_array()) return std::nullopt;
        for (const json& r : *it) {
            if (!r.is_object()) return std::nullopt;
            Fields rf{r};
            const std::uint64_t rank = rf.count("rank");
            std::string host = rf.text("host");
            if (!rf.ok || rank >= it->size()) return std::nullopt; // ranks are 0 … n−1
            if (e.hosts.size() <= rank) e.hosts.resize(rank + 1);
            e.hosts[rank] = std::move(host);
        }
    } else if (event == "invocation") {
        const std::string state = f.text("state");
        e.dir = f.text("path");
        if (state == "started") {
            e.kind = Event::Kind::InvocationStarted;
        } else if (state == "finished") {
            e.kind = Event::Kind::InvocationFinished;
            e.text = f.text("status");
            e.auPercent = f.number("au_percent");
        } else {
            return std::nullopt;
        }
    } else {
        return std::nullopt;
    }
    if (!f.ok) return std::nullopt;
    return e;
}

} // namespace trainio::live
