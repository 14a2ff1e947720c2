#include "aggregate_command.h"

#include "cli_args.h"

#include "aggregate/group_aggregate.h"
#include "aggregate/results_import.h"
#include "util/errors.h"

#include <filesystem>
#include <iostream>

namespace trainio::cli {

namespace {

constexpr const char* kHelp =
    R"(Usage: trainio-cli aggregate PATH... [--format json|table|csv] [--reduce mean|median|min|geomean]
                           [--system LABEL]

Finds every summary.json below the PATHs (DLIO / MLPerf Storage result folders, TrainIO benchmark
folders), groups the runs by workload (model, accelerator, accelerators, files, samples per file)
within the folder they were found in, and prints one entry per group:

  the MLPerf Storage v1.0 reduction (mean of the per-run means, population stdev; MB/s is MiB/s),
  min, max, median, geometric mean, sample stdev, coefficient of variation and a 95 % confidence
  interval of the mean (Student t), and the MLPerf Storage closed-division checks.

  --format json    one JSON object {"groups": [...], "skipped": [{"path", "reason"}]} (default)
  --format table   an aligned table, then the failed checks and skipped files
  --format csv     one row per group
  --reduce R       the headline reduction in table and csv, and "reduced" in json (default mean)
  --system LABEL   system name for runs outside an MLPerf <org>/results/<system>/ tree

Files that cannot be read are listed as skipped with the reason; the rest still imports.
Exit codes: 0 ok, 2 bad input.
)";

} // namespace

int runAggregateCommand(const std::vector<std::string>& args) {
    try {
        const ParsedArgs parsed =
            parseArgs(args, OptionSpec{{"--format", "--reduce", "--system"}, {"--help", "-h"}, false, true});
        if (parsed.has("--help") || parsed.has("-h")) {
            std::cout << kHelp;
            return 0;
        }
        const std::string format = parsed.value("--format").value_or("json");
        if (format != "json" && format != "table" && format != "csv")
            throw InputError(describeProblem("--format", "", format, "one of json, table, csv"));
        const aggregate::Reduction reduction = aggregate::parseReduction(parsed.value("--reduce").value_or("mean"));
        if (parsed.positionals.empty()) throw InputError("aggregate needs at least one PATH (see --help)");
        std::vector<std::filesystem::path> roots;
        for (const auto& p : parsed.positionals) {
            std::error_code ec;
            if (!std::filesystem::exists(p, ec))
                throw InputError(describeProblem(p, "", "", "an existing file or folder"));
            roots.emplace_back(p);
        }
        aggregate::ImportOptions options;
        options.systemLabel = parsed.value("--system").value_or("");
        const aggregate::ImportResult imported = aggregate::importResults(roots, options);
        if (format == "json") std::cout << aggregate::toJson(imported, reduction).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
        else if (format == "table") std::cout << aggregate::formatTable(imported, reduction);
        else std::cout << aggregate::formatCsv(imported, reduction);
        return 0;
    } catch (const InputError& e) {
        std::cerr << "trainio-cli aggregate: " << e.what() << '\n';
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "trainio-cli aggregate: " << e.what() << '\n';
        return 1;
    }
}

} // namespace trainio::cli
