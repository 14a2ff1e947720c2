#include "aggregate_command.h"

#include "cli_args.h"

#include "aggregate/group_aggregate.h"
#include "aggregate/mlcommons_table.h"
#include "aggregate/results_import.h"
#include "aggregate/results_library.h"
#include "util/errors.h"

#include <filesystem>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace trainio::cli {

namespace {

constexpr const char* kHelp =
    R"(Usage: trainio-cli aggregate PATH... [--format json|table|csv|mlcommons] [--reduce mean|median|min|geomean]
                           [--system LABEL] [--organization NAME] [--tree]

Finds every summary.json below the PATHs (DLIO / MLPerf Storage result folders, TrainIO benchmark
folders), groups the runs by workload (model, accelerator, accelerators, files, samples per file)
within the folder they were found in, and prints one entry per group:

  the MLPerf Storage v1.0 reduction (mean of the per-run means, population stdev; MB/s is MiB/s),
  min, max, median, geometric mean, sample stdev, coefficient of variation and a 95 % confidence
  interval of the mean (Student t), and the MLPerf Storage closed-division checks. The submission
  rules fail a submission attempt (DLIO or MLPerf Storage results; TrainIO runs made with
  --submission); TrainIO's other benchmarks list them as "not a submission", not as failures.

  --format json    one JSON object {"groups": [...], "skipped": [{"path", "reason"}]} (default)
  --format table   an aligned table, then the failed checks, the rules a benchmark that is not a
                   submission would not meet, and skipped files
  --format csv     one row per group
  --format mlcommons
                   MLCommons' table: the results schema MLPerf Storage's results website is made from
                   (mlpstorage reports reportgen results.csv, mlcommons/storage report_generator.py), one
                   row per group with a complete run, TrainIO's and imported alike; a column TrainIO does
                   not know stays empty. Such a table (or a published results.csv) given as a PATH, or
                   found below one as results.csv, imports: each row a benchmark with no runs, only the
                   row's figures.
  --organization NAME
                   the table's Organization for groups outside an MLPerf <division>/<org>/results/ tree
  --reduce R       the headline reduction in table and csv, and "reduced" in json (default mean)
  --system LABEL   system name for runs outside an MLPerf <org>/results/<system>/ tree
  --tree           the results library instead: system > workload > benchmark > invocation, with
                   status on every level and numbers only where an aggregate means something.
                   --format json prints {"tree": [node...]}, each node with "level", "label",
                   "item_name", "status", "status_reason", "workload_identity", "metrics" (null, or
                   au_mean_percentage / samples_per_second / read_gib_per_second, each with value,
                   stdev, ci95 half width, n) and "children"; --format table an indented tree.

Files that cannot be read are listed as skipped with the reason; the rest still imports.
Exit codes: 0 ok, 2 bad input.
)";

std::string fmt(double v, int precision) {
    if (!std::isfinite(v)) return "n/a";
    std::ostringstream os;
    os << std::fixed << std::setprecision(precision) << v;
    return os.str();
}

void printNode(std::ostream& os, const aggregate::LibraryNode& n, int depth) {
    const std::string indent(static_cast<std::size_t>(depth) * 2, ' ');
    os << indent << n.label << "  [" << aggregate::statusName(n.status);
    if (!n.statusReason.empty()) os << ": " << n.statusReason;
    os << "]";
    if (n.warmup) os << "  warm-up, not counted";
    if (n.hasMetrics) {
        os << "  AU " << fmt(n.au.mean, 2) << " %  " << fmt(n.samplesPerSecond.mean, 1) << " samples/s  "
           << fmt(n.readGibPerSecond.mean, 3) << " GiB/s";
        if (n.au.n > 1) os << "  (n = " << n.au.n << ")";
    } else {
        os << "  —";
    }
    os << '\n';
    if (n.kind == aggregate::NodeKind::System) {
        std::istringstream lines(n.description);
        for (std::string line; std::getline(lines, line);) os << indent << "  | " << line << '\n';
    }
    for (const auto& line : n.summary) os << indent << "  = " << line << '\n';
    for (const auto& c : n.children)
        if (c->kind != aggregate::NodeKind::Epoch) printNode(os, *c, depth + 1);
}

// The library as an indented text tree: numbers only on benchmarks and invocations ("—" elsewhere),
// a status on every line, the workload and system summaries under their nodes.
std::string formatTree(const aggregate::ResultsLibrary& library) {
    std::ostringstream os;
    for (const auto& sys : library.root().children) printNode(os, *sys, 0);
    os << "AU, samples/s and GiB/s: a benchmark's mean over its complete runs, an invocation's over its epochs.\n";
    return os.str();
}

} // namespace

std::vector<std::filesystem::path> existingRoots(const std::vector<std::string>& positionals, const std::string& command) {
    if (positionals.empty()) throw InputError(command + " needs at least one PATH (see --help)");
    std::vector<std::filesystem::path> roots;
    for (const auto& p : positionals) {
        std::error_code ec;
        if (!std::filesystem::exists(p, ec)) throw InputError(describeProblem(p, "", "", "an existing file or folder"));
        roots.emplace_back(p);
    }
    return roots;
}

int runAggregateCommand(const std::vector<std::string>& args) {
    try {
        const ParsedArgs parsed =
            parseArgs(args, OptionSpec{{"--format", "--reduce", "--system", "--organization"}, {"--help", "-h", "--tree"}, false, true});
        if (parsed.has("--help") || parsed.has("-h")) {
            std::cout << kHelp;
            return 0;
        }
        const std::string format = parsed.value("--format").value_or("json");
        if (format != "json" && format != "table" && format != "csv" && format != "mlcommons")
            throw InputError(describeProblem("--format", "", format, "one of json, table, csv, mlcommons"));
        const aggregate::Reduction reduction = aggregate::parseReduction(parsed.value("--reduce").value_or("mean"));
        const std::vector<std::filesystem::path> roots = existingRoots(parsed.positionals, "aggregate");
        aggregate::ImportOptions options;
        options.systemLabel = parsed.value("--system").value_or("");
        const bool tree = parsed.has("--tree");
        if (tree && (format == "csv" || format == "mlcommons")) throw InputError(describeProblem("--format", "", format, "json or table with --tree"));
        aggregate::ImportResult imported = aggregate::importResults(roots, options);
        if (tree) {
            const aggregate::ResultsLibrary library(std::move(imported));
            if (format == "json") std::cout << aggregate::treeJson(library).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
            else std::cout << formatTree(library);
            return 0;
        }
        if (format == "json") std::cout << aggregate::toJson(imported, reduction).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
        else if (format == "table") std::cout << aggregate::formatTable(imported, reduction);
        else if (format == "mlcommons")
            std::cout << aggregate::formatMlcommonsTable(imported, {parsed.value("--organization").value_or("")}, reduction);
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
