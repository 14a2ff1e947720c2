#include "model_command.h"

#include "cli_args.h"

#include "config/config_loader.h"
#include "config/value_ranges.h"
#include "metrics/dlio_metrics.h"
#include "model/collocation_model.h"
#include "model/pipeline_model.h"
#include "session/collocation.h"
#include "model/storage_probe.h"
#include "util/errors.h"
#include "util/quantity.h"

#include <cstdio>
#include <iostream>

namespace trainio::cli {

namespace {

const char* kModelHelp =
    "Usage: trainio-cli model --config FILE|PRESET [++workload.section.key=value ...] [--accelerators R]\n"
    "                         [--probe DIR | --storage-profile NAME|FILE] [--semantics v1|v2|v3]\n"
    "                         [--other-cores C] [--format text|json]\n"
    "Predicts, without running, what `run` would measure: per-epoch AU and samples/s at R accelerators\n"
    "(default 1), the largest accelerator count whose predicted AU is at or above the AU line (metric.au),\n"
    "and the MiB/s one accelerator needs (docs/model.md gives the equations and where the model is wrong).\n"
    "The storage comes from, in this order:\n"
    "  --probe DIR               measure the real storage under DIR (the workload's dataset, DLIO's layout:\n"
    "                            DIR/train/...): bandwidth vs reader threads and the per-request latency,\n"
    "                            after dropping the files from the page cache, and the client CPU per sample\n"
    "  --storage-profile P       an emulated device (resources/storage-profiles/ name, or a YAML file), with\n"
    "                            the workload's own trainio.storage keys on top, as `run` uses it\n"
    "  the workload's trainio.storage keys (profile, bandwidth_mib_s, latency_ms, iops, max_inflight)\n"
    "With none of the three there is nothing to predict from: exit 2 naming what is missing.\n"
    "--other-cores C: cores kept busy by other processes while the run would go (default 0, a quiet machine);\n"
    "  emulated latency sleeps then end late (docs/model.md).\n"
    "--format text (default) a summary; json one object {\"predicted_au_percentage\",\n"
    "  \"predicted_samples_per_second\", \"max_passing_accelerators\", \"required_mib_s_per_accelerator\",\n"
    "  \"bottleneck\", \"roofs_samples_per_second\", \"predicted_step\", \"storage\", \"assumptions\", ...}.\n"
    "Exit codes: 0 printed, 2 bad input, 1 the probe failed to read.\n"
    "\n"
    "Usage: trainio-cli model --plan PLAN.yaml [--semantics v1|v2|v3] [--other-cores C] [--format text|json]\n"
    "Predicts a collocation (`trainio-cli collocate`'s plan, whose `storage:` is the device the workloads\n"
    "share): each workload alone on the whole device, the share of the device it gets (weighted max-min\n"
    "fairness over the readers it keeps busy), and its AU and samples/s on that share (docs/collocation.md).\n";


int modelPlan(const std::string& planFile, const std::string& format, const std::optional<std::string>& semanticsWordGiven,
              const model::ModelConstants& constants) {
    const session::CollocationPlan plan = session::loadCollocationPlan(planFile);
    if (!plan.sharedDevice())
        throw InputError(planFile + ": no `storage:` section: the model predicts workloads sharing one emulated device "
                                    "(expected storage: {profile: …} or trainio.storage keys)");
    std::vector<WorkloadConfig> configs;
    std::vector<std::uint64_t> accelerators;
    for (const auto& w : plan.workloads) {
        configs.push_back(w.resolved);
        accelerators.push_back(w.accelerators);
    }
    const MetricSemantics semantics = resolveSemantics(semanticsWordGiven, configs.front());
    const model::StorageParameters storage = model::storageFromConfig(configs.front());
    const auto predicted = model::predictCollocation(configs, accelerators, storage, constants, semantics);
    nlohmann::ordered_json j;
    j["plan"] = planFile;
    j["storage"] = storageShapeJson(storage.shape);
    nlohmann::ordered_json ws = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < predicted.size(); ++i) {
        const auto& p = predicted[i];
        ws.push_back({{"name", plan.workloads[i].name},
                      {"accelerators", accelerators[i]},
                      {"device_share_alone", p.demandShare},
                      {"device_share", p.deviceShare},
                      {"alone", {{"predicted_au_percentage", p.alone.auPercent},
                                 {"predicted_samples_per_second", p.alone.samplesPerSecond},
                                 {"predicted_mib_per_second", p.alone.ioMiBPerSecond},
                                 {"bottleneck", p.alone.bottleneck}}},
                      {"collocated", {{"predicted_au_percentage", p.shared.auPercent},
                                      {"predicted_samples_per_second", p.shared.samplesPerSecond},
                                      {"predicted_mib_per_second", p.shared.ioMiBPerSecond},
                                      {"bottleneck", p.shared.bottleneck}}}});
    }
    j["workloads"] = ws;
    if (format == "json") {
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    std::printf("collocation %s on one device (%s)\n", planFile.c_str(), storageShapeJson(storage.shape).dump().c_str());
    std::printf("%-16s %5s %12s %12s %14s %14s %12s\n", "workload", "accel", "share alone", "share", "AU alone %",
                "AU together %", "MiB/s");
    for (std::size_t i = 0; i < predicted.size(); ++i) {
        const auto& p = predicted[i];
        std::printf("%-16s %5llu %12.2f %12.2f %14.2f %14.2f %12.1f\n", plan.workloads[i].name.c_str(),
                    static_cast<unsigned long long>(accelerators[i]), p.demandShare, p.deviceShare, p.alone.auPercent,
                    p.shared.auPercent, p.shared.ioMiBPerSecond);
    }
    return 0;
}


} // namespace

int runModelCommand(const std::vector<std::string>& args) {
    for (const auto& a : args)
        if (a == "--help" || a == "-h") {
            std::fputs(kModelHelp, stdout);
            return 0;
        }
    OptionSpec spec;
    spec.valued = {"--config", "--accelerators", "--probe", "--storage-profile", "--format", "--semantics", "--other-cores", "--plan"};
    spec.overrides = true;
    const ParsedArgs p = parseArgs(args, spec);
    model::ModelConstants constants;
    if (const auto other = p.value("--other-cores")) {
        const auto q = quantity::parse(*other, quantity::Kind::Real, 0, 4096);
        if (!q.ok()) throw InputError("--other-cores = '" + *other + "': " + q.error);
        constants.otherCores = *q.value;
    }
    if (const auto planFile = p.value("--plan")) {
        for (const char* other : {"--config", "--accelerators", "--probe", "--storage-profile"})
            if (p.value(other)) throw InputError(std::string("--plan and ") + other + ": the plan names each workload's config and accelerators");
        if (!p.overrides.empty()) throw InputError("--plan: overrides go into the plan (each workload's `overrides:`)");
        const std::string format = p.value("--format").value_or("text");
        if (format != "text" && format != "json") throw InputError(describeProblem("--format", "", format, "text or json"));
        return modelPlan(*planFile, format, p.value("--semantics"), constants);
    }
    const auto config = p.value("--config");
    if (!config) throw InputError("--config FILE is required (a DLIO workload YAML/JSON or a preset name)");
    const std::string format = p.value("--format").value_or("text");
    if (format != "text" && format != "json") throw InputError(describeProblem("--format", "", format, "text or json"));
    if (const auto chosen = p.value("--semantics")) semanticsWord(*chosen); // a bad word, before loading
    const ValueRange range = *valueRange("accelerators");
    const std::uint64_t accelerators =
        p.unsignedValue("--accelerators", static_cast<unsigned long long>(range.min), static_cast<unsigned long long>(range.max))
            .value_or(1);
    if (p.value("--probe") && p.value("--storage-profile"))
        throw InputError("--probe and --storage-profile: give one (the measured storage or an emulated profile)");

    const LoadedConfig lc = loadConfigOrPreset(*config, p.overrides);
    for (const auto& w : lc.warnings) std::fprintf(stderr, "warning: %s\n", w.message.c_str());
    const WorkloadConfig& cfg = lc.config;
    const MetricSemantics semantics = resolveSemantics(p.value("--semantics"), cfg);

    model::StorageParameters storage;
    if (const auto dir = p.value("--probe")) {
        if (dir->empty()) throw InputError("--probe = '': expected the data folder to measure");
        storage = model::probeStorage(cfg, *dir);
    } else if (const auto profile = p.value("--storage-profile")) {
        if (profile->find_first_not_of(" \t") == std::string::npos)
            throw InputError("--storage-profile = '" + *profile + "': expected a storage profile name or file");
        storage = model::storageFromProfile(cfg, *profile);
    } else {
        storage = model::storageFromConfig(cfg);
    }
    const model::ModelResult r = model::runModel(cfg, accelerators, storage, constants, semantics);
    if (format == "json") std::cout << model::modelResultJson(r).dump(2) << "\n";
    else std::cout << model::modelResultText(r);
    return 0;
}

} // namespace trainio::cli
