#include "aggregate/efficiency.h"

#include "util/text.h"

#include <algorithm>
#include <cmath>

using nlohmann::ordered_json;

namespace trainio::aggregate {

namespace {

constexpr double kGiBPerTiB = 1024.0;

// One figure of the system, its efficiency key and how it is shown.
struct FigureInfo {
    const char* figureKey;     // the figure in JSON ("usable_capacity_GiB")
    const char* efficiencyKey; // GiB/s over it ("gib_per_s_per_usable_tib")
    const char* name;          // "usable capacity"
    const char* per;           // "per usable TiB"
    const char* labelsKey;     // where a user gives it (trainio_labels.json / trainio-cli label)
    SystemFigure SystemFigures::*figure;
    std::optional<double> Efficiency::*efficiency;
    double divisor;            // figure ÷ divisor = the unit the efficiency is per (GiB → TiB)
    const char* unit;
    const char* shortUnit;     // compact text: "/TiB"
};
const FigureInfo kFigures[] = {
    {"usable_capacity_GiB", "gib_per_s_per_usable_tib", "usable capacity", "per usable TiB", "usable_capacity_GiB",
     &SystemFigures::usableCapacityGiB, &Efficiency::perUsableTiB, kGiBPerTiB, "GiB", "TiB"},
    {"power_kw", "gib_per_s_per_kw", "power", "per kW", "power_kw", &SystemFigures::powerKw, &Efficiency::perKw, 1.0, "kW", "kW"},
    {"rack_units", "gib_per_s_per_rack_unit", "rack units", "per U", "rack_units", &SystemFigures::rackUnits,
     &Efficiency::perRackUnit, 1.0, "U", "U"},
};

bool given(const SystemFigure& f) { return f.value && std::isfinite(*f.value) && *f.value > 0; }

// Three significant digits: efficiencies range from 0.001 to thousands.
std::string significant(double v) {
    if (v == std::round(v) && std::fabs(v) < 1e9) return fixedNumber(v, 0); // 1 U, 37339 GiB: whole as given
    const double mag = v != 0 ? std::floor(std::log10(std::fabs(v))) : 0;
    return fixedNumber(v, static_cast<int>(std::clamp(2.0 - mag, 0.0, 6.0)));
}

ordered_json orNull(const std::optional<double>& v) { return v ? ordered_json(*v) : ordered_json(); }

} // namespace

Efficiency efficiencyOf(double gibPerSecond, const SystemFigures& figures) {
    Efficiency e;
    e.gibPerSecond = gibPerSecond;
    for (const FigureInfo& f : kFigures) {
        const SystemFigure& figure = figures.*(f.figure);
        if (!given(figure)) continue; // nothing said: no value, no source
        e.figures.*(f.figure) = figure;
        if (std::isfinite(gibPerSecond)) e.*(f.efficiency) = gibPerSecond / (*figure.value / f.divisor);
    }
    return e;
}

ordered_json efficiencyJson(const Efficiency& e) {
    ordered_json j;
    for (const FigureInfo& f : kFigures) j[f.efficiencyKey] = orNull(e.*(f.efficiency));
    ordered_json sources = ordered_json::object();
    for (const FigureInfo& f : kFigures) {
        const SystemFigure& figure = e.figures.*(f.figure);
        j[f.figureKey] = orNull(figure.value);
        sources[f.figureKey] = figure.value ? ordered_json{{"file", figure.file.string()}, {"key", figure.key}} : ordered_json();
    }
    j["read_gib_per_second"] = std::isfinite(e.gibPerSecond) ? ordered_json(e.gibPerSecond) : ordered_json();
    j["sources"] = std::move(sources);
    return j;
}

std::string efficiencyText(const Efficiency& e, bool compact) {
    std::string out;
    for (const FigureInfo& f : kFigures)
        if (const auto& v = e.*(f.efficiency))
            out += (out.empty() ? "" : " · ") + significant(*v) + (compact ? std::string("/") + f.shortUnit : std::string(" GiB/s ") + f.per);
    return out;
}

std::vector<std::string> efficiencySources(const Efficiency& e, const std::filesystem::path& below) {
    std::vector<std::string> out;
    for (const FigureInfo& f : kFigures) {
        const SystemFigure& figure = e.figures.*(f.figure);
        if (!figure.value) {
            out.push_back(std::string(f.name) + ": not given (" + f.labelsKey + " in trainio_labels.json, or the MLPerf systems file)");
            continue;
        }
        std::string line = std::string(f.name) + " " + significant(*figure.value) + " " + f.unit;
        if (f.divisor != 1.0) line += " (" + significant(*figure.value / f.divisor) + " TiB)";
        const auto rel = below.empty() ? std::filesystem::path() : figure.file.lexically_relative(below);
        const bool inside = !rel.empty() && *rel.begin() != "..";
        out.push_back(line + ", from " + (inside ? rel : figure.file).string() + (figure.key.empty() ? "" : ": " + figure.key));
    }
    return out;
}

} // namespace trainio::aggregate
