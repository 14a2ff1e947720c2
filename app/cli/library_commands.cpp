#include "library_commands.h"

#include "aggregate_command.h"
#include "cli_args.h"

#include "aggregate/compare.h"
#include "store/labels.h"
#include "aggregate/results_import.h"
#include "aggregate/results_library.h"
#include "util/errors.h"

#include <filesystem>
#include <iostream>

namespace fs = std::filesystem;

namespace trainio::cli {

namespace {

constexpr const char* kCompareHelp =
    R"(Usage: trainio-cli compare PATH... [--baseline N] [--per-accelerator | --no-per-accelerator]
                         [--compare-anyway] [--format table|json] [--system LABEL]

Imports every PATH (in one import, so a folder reached twice counts once), takes from each PATH the
one benchmark (or run-once invocation) it names — a benchmark folder, its runs/ folder, an invocation
folder, or a folder holding exactly one of them — and prints one row per PATH, in order, against the
baseline:

  AU %, samples/s and Read GiB/s (train_io_mean_MB_per_second / 1024), mean ± standard deviation over
  the item's sample (a benchmark's complete runs; an invocation's epochs), and for every row of the
  same workload identity as the baseline the difference, in % of the baseline, with its 95 %
  confidence interval (Welch) and "within noise" when that interval holds 0. A row of another
  workload says why it is not comparable and shows no numbers (no deltas ever).

  --baseline N          the baseline's 1-based position among the PATHs (default 1)
  --per-accelerator     samples/s and GiB/s divided by each item's accelerators (AU never is); on by
                        default when the items' accelerator counts differ
  --no-per-accelerator  totals even when accelerator counts differ
  --compare-anyway      show the values of not-comparable rows (still no deltas)
  --format table|json   an aligned table (default), or {"baseline", "per_accelerator", "rows": [{"label",
                        "path", "comparable", "reason", "values", "delta"}]} (delta null when not comparable)
  --system LABEL        system name for runs outside an MLPerf <org>/results/<system>/ tree

Exit codes: 0 ok, 2 bad input (a PATH that holds no benchmark or several, N out of range).
)";

constexpr const char* kLabelHelp =
    R"(Usage: trainio-cli label DIR [--system NAME] [--description TEXT] [--notes TEXT] [--name TEXT]
                       [--usable-capacity-gib N] [--power-kw N] [--rack-units N] [--replace]

Writes DIR/trainio_labels.json, the labels the importer reads back for everything below DIR (the
nearest file wins key by key; --name names DIR's own item only):

  --system NAME         the system: the storage under test plus its client hosts
  --description TEXT    the storage under test: file system, device or array, mount options,
                        network, client hosts
  --notes TEXT          free text
  --name TEXT           the item's own name in tables, plots and reports (default
                        "system · workload · N accelerators")
  --usable-capacity-gib N  the system's usable capacity in GiB (key usable_capacity_GiB)
  --power-kw N          the system's power in kW (key power_kw)
  --rack-units N        the rack units the system takes (key rack_units)
                        These three make the efficiency (docs/aggregation.md, "Efficiency": Read GiB/s per
                        usable TiB, per kW, per rack unit) and win over an MLPerf systems file's; each a
                        positive number, else nothing is written (exit code 2).
  --replace             drop the keys not given (default: keep what the file already says)

DIR must exist and hold results (a summary.json at or below it). Prints the file written.
Exit codes: 0 written, 2 bad input, 1 the file could not be written.
)";

// The label flags of the system's figures and the labels file keys they set.
constexpr std::pair<const char*, const char*> kFigureFlags[] = {
    {"--usable-capacity-gib", "usable_capacity_GiB"}, {"--power-kw", "power_kw"}, {"--rack-units", "rack_units"}};

std::string describeItem(const aggregate::LibraryNode& n) {
    return n.itemName + " (" + aggregate::nodeKindName(n.kind) + ", " + n.path.string() + ")";
}

std::string listItems(const std::vector<const aggregate::LibraryNode*>& items) {
    std::string out;
    constexpr std::size_t kShown = 8;
    for (std::size_t i = 0; i < items.size() && i < kShown; ++i) out += "\n  " + describeItem(*items[i]);
    if (items.size() > kShown) out += "\n  … and " + std::to_string(items.size() - kShown) + " more";
    return out;
}

// The one item a PATH names: the benchmark or invocation at that folder, else the only one below it.
const aggregate::LibraryNode* itemFor(const aggregate::ResultsLibrary& library, const std::string& path) {
    auto found = library.findAllByPath(path);
    if (found.empty()) found = library.itemsBelow(path);
    if (found.size() == 1) return found.front();
    if (found.empty()) {
        const auto& imp = library.imported();
        std::string detail;
        for (const auto& s : imp.skipped)
            if (s.path.string().rfind(path, 0) == 0) detail += "\n  skipped " + s.path.string() + ": " + s.reason;
        throw InputError(path + ": holds no benchmark or invocation with results (no readable summary.json at or below it)" + detail);
    }
    throw InputError(path + ": holds " + std::to_string(found.size()) +
                     " benchmarks or invocations; name one folder per item to compare:" + listItems(found));
}

int fail(const std::string& command, const std::exception& e, int code) {
    std::cerr << "trainio-cli " << command << ": " << e.what() << '\n';
    return code;
}

} // namespace

int runCompareCommand(const std::vector<std::string>& args) {
    try {
        const ParsedArgs parsed = parseArgs(args, OptionSpec{{"--format", "--baseline", "--system"},
                                                             {"--help", "-h", "--per-accelerator", "--no-per-accelerator", "--compare-anyway"},
                                                             false,
                                                             true});
        if (parsed.has("--help") || parsed.has("-h")) {
            std::cout << kCompareHelp;
            return 0;
        }
        const std::string format = parsed.value("--format").value_or("table");
        if (format != "json" && format != "table")
            throw InputError(describeProblem("--format", "", format, "one of table, json"));
        if (parsed.has("--per-accelerator") && parsed.has("--no-per-accelerator"))
            throw InputError("--per-accelerator and --no-per-accelerator contradict each other: give one");
        const std::vector<fs::path> roots = existingRoots(parsed.positionals, "compare");
        const auto baseline = parsed.unsignedValue("--baseline", 1, roots.size()).value_or(1);

        aggregate::ImportOptions options;
        options.systemLabel = parsed.value("--system").value_or("");
        const aggregate::ResultsLibrary library(aggregate::importResults(roots, options));
        std::vector<const aggregate::LibraryNode*> items;
        for (const auto& p : parsed.positionals) items.push_back(itemFor(library, p));

        aggregate::CompareOptions co;
        co.baseline = static_cast<std::size_t>(baseline - 1);
        if (parsed.has("--per-accelerator")) co.perAccelerator = true;
        if (parsed.has("--no-per-accelerator")) co.perAccelerator = false;
        co.compareAnyway = parsed.has("--compare-anyway");
        const aggregate::CompareResult result = aggregate::compare(items, co);
        if (format == "json")
            std::cout << aggregate::toJson(result).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
        else
            std::cout << aggregate::formatTable(result);
        return 0;
    } catch (const InputError& e) {
        return fail("compare", e, 2);
    } catch (const std::exception& e) {
        return fail("compare", e, 1);
    }
}

int runLabelCommand(const std::vector<std::string>& args) {
    try {
        const ParsedArgs parsed = parseArgs(
            args, OptionSpec{{"--system", "--description", "--notes", "--name", "--usable-capacity-gib", "--power-kw", "--rack-units"},
                             {"--help", "-h", "--replace"},
                             false,
                             true});
        if (parsed.has("--help") || parsed.has("-h")) {
            std::cout << kLabelHelp;
            return 0;
        }
        if (parsed.positionals.size() != 1)
            throw InputError("label needs exactly one DIR, got " + std::to_string(parsed.positionals.size()) + " (see --help)");
        const fs::path dir = parsed.positionals.front();
        std::error_code ec;
        if (!fs::is_directory(dir, ec)) throw InputError(describeProblem(dir.string(), "", "", "an existing folder"));
        bool holdsResults = false;
        for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
            if (it->path().filename() == store::kSummaryFile) {
                holdsResults = true;
                break;
            }
        }
        if (!holdsResults)
            throw InputError(dir.string() + ": holds no results (no summary.json at or below it); label a result folder");
        aggregate::Labels labels;
        labels.system = parsed.value("--system").value_or("");
        labels.description = parsed.value("--description").value_or("");
        labels.notes = parsed.value("--notes").value_or("");
        labels.name = parsed.value("--name").value_or("");
        bool anyFigure = false;
        for (const auto& [flag, key] : kFigureFlags) {
            const auto text = parsed.value(flag);
            if (!text) continue;
            for (const auto& k : store::systemFigureKeys())
                if (std::string(k.key) == key)
                    labels.figures.*(k.member) = aggregate::SystemFigure{
                        store::parseSystemFigure((dir / store::kLabelsFile).string() + " (" + flag + ")", key, *text), {}, key};
            anyFigure = true;
        }
        if (labels.system.empty() && labels.description.empty() && labels.notes.empty() && labels.name.empty() && !anyFigure)
            throw InputError("label needs at least one of --system, --description, --notes, --name, --usable-capacity-gib, "
                             "--power-kw, --rack-units with a value");
        store::writeLabelsFile(dir, labels, parsed.has("--replace"));
        const auto written = store::readLabelsFile(dir);
        std::cout << "wrote " << (dir / store::kLabelsFile).string() << '\n';
        if (written) {
            for (const auto& [key, value] : {std::pair<const char*, const std::string*>{"system", &written->system},
                                             {"description", &written->description},
                                             {"notes", &written->notes},
                                             {"name", &written->name}})
                if (!value->empty()) std::cout << "  " << key << ": " << *value << '\n';
            for (const auto& k : store::systemFigureKeys())
                if (const auto& v = (written->figures.*(k.member)).value) std::cout << "  " << k.key << ": " << *v << '\n';
        }
        return 0;
    } catch (const InputError& e) {
        return fail("label", e, 2);
    } catch (const std::exception& e) {
        return fail("label", e, 1);
    }
}

} // namespace trainio::cli
