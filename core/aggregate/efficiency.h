// Efficiency (issue 33; docs/aggregation.md, "Efficiency"): a benchmark's Read GiB/s per usable TiB, per kW and
// per rack unit of the system that delivered it. The system's numbers come from the user's trainio_labels.json
// or from an MLPerf systems file (store/labels.h readSystemFigures), each figure on its own; a figure nothing
// gives leaves its efficiency unknown (JSON null), never 0. Per benchmark (one system): never across systems.
#pragma once

#include "store/invocation_record.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace trainio::aggregate {

struct Efficiency {
    double gibPerSecond = NAN;  // the benchmark's Read GiB/s (mean train_io_mean_MB_per_second / 1024); NaN: none
    SystemFigures figures;      // what the efficiency is over, with where each came from
    std::optional<double> perUsableTiB, perKw, perRackUnit; // GiB/s ÷ (usable GiB / 1024), ÷ kW, ÷ U

    bool any() const { return perUsableTiB || perKw || perRackUnit; }
};

// GiB/s over each figure the system gives (a figure ≤ 0 or not finite counts as not given).
Efficiency efficiencyOf(double gibPerSecond, const SystemFigures& figures);

// The `efficiency` object of a group in `aggregate --format json`: gib_per_s_per_usable_tib,
// gib_per_s_per_kw, gib_per_s_per_rack_unit, usable_capacity_GiB, power_kw, rack_units (null where the
// system does not say), read_gib_per_second (the GiB/s used) and sources {figure: {"file", "key"} | null}.
nlohmann::ordered_json efficiencyJson(const Efficiency& e);

// "0.412 GiB/s per usable TiB · 2.10 GiB/s per kW · 1.70 GiB/s per U" (compact: "0.412/TiB · 2.10/kW · 1.70/U",
// for a table cell); "" when no efficiency is known.
std::string efficiencyText(const Efficiency& e, bool compact = false);
// One line per figure, with its source: "usable capacity 37339 GiB (36.5 TiB), from <file>: <key>" (the file
// relative to `below` when it lies inside it); a figure not given says so ("power: not given (power_kw in
// trainio_labels.json, or the MLPerf systems file)").
std::vector<std::string> efficiencySources(const Efficiency& e, const std::filesystem::path& below = {});

} // namespace trainio::aggregate
