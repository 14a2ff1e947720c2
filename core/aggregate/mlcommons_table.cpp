#include "aggregate/mlcommons_table.h"

#include "aggregate/results_import.h"
#include "util/errors.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace trainio::aggregate {

namespace mlcommons_table_detail {

// The blocks as reportgen assembles them (report_generator.py _build_final_schema): the left edge and the
// shared System-Under-Test block, then each workload block with its "<Workload> - " prefix.
constexpr std::array kSutColumns = {"Public ID", "Organization", "Division", "Benchmark Type", "Model", "Name",
                                    "Description", "Type", "Access Protocol", "Availability", "RU's",
                                    "Integrated Client Storage (TiB)", "Usable Capacity (TiB)", "Provisioned Power (W)"};
constexpr std::array kTrainingBlock = {"Accelerator Type", "# Client Nodes", "Code", "Logs", "# Simulated Accelerators",
                                       "Read B/W (GiB/s)"};
constexpr std::array kCheckpointingBlock = {"Checkpoint Mode", "# Client Nodes", "DP Instances", "Code", "Logs",
                                            "Write B/W (GiB/s)", "Write Duration (secs)", "Read B/W (GiB/s)",
                                            "Read Duration (secs)"};
constexpr std::array kVdbBlock = {"# Client Nodes", "Code", "Logs", "Vector Count", "Vector Dimension", "Index Type",
                                  "Queries per Sec", "Query Latency (ms)", "Recall Percentage", "Storage IOPs",
                                  "Read B/W (GiB/s)"};
constexpr std::array kKvcacheShared = {"# Client Nodes", "Code", "Logs"};
constexpr std::array kKvcacheGroups = {"llama3.1-8b Storage Only", "llama3.1-8b Storage + Mem", "llama3.1-70b Storage Only"};
constexpr std::array kKvcacheMetrics = {"Throughput (tok/s)", "Read B/W (GiB/s)", "Write B/W (GiB/s)", "P95 Read Latency (ms)"};

// reportgen's Model cell: _MODEL_DISPLAY_LABELS, any other model as it is named.
constexpr std::array<std::pair<const char*, const char*>, 6> kModelLabels = {{{"unet3d", "Unet3D"},
                                                                             {"retinanet", "RetinaNet"},
                                                                             {"llama3-8b", "8B"},
                                                                             {"llama3-70b", "70B"},
                                                                             {"llama3-405b", "405B"},
                                                                             {"llama3-1t", "1250B"}}};

std::vector<std::string> buildColumns() {
    std::vector<std::string> cols(kSutColumns.begin(), kSutColumns.end());
    for (const char* c : kTrainingBlock) cols.push_back(std::string("Training - ") + c);
    for (const char* c : kCheckpointingBlock) cols.push_back(std::string("Checkpointing - ") + c);
    for (const char* c : kVdbBlock) cols.push_back(std::string("VDB - ") + c);
    for (const char* c : kKvcacheShared) cols.push_back(std::string("KVCache - ") + c);
    for (const char* g : kKvcacheGroups)
        for (const char* m : kKvcacheMetrics) cols.push_back(std::string("KVCache ") + g + " - " + m);
    return cols;
}

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string modelLabel(const std::string& model) {
    for (const auto& [name, label] : kModelLabels)
        if (model == name) return label;
    return model;
}

std::string modelFromLabel(const std::string& label) {
    for (const auto& [name, shown] : kModelLabels)
        if (label == shown) return name;
    return lower(label);
}

// Python's repr of a float (what csv.DictWriter writes): the shortest text that reads back as the same double;
// whole numbers of an integer column as integers.
std::string number(double v, bool integral = false) {
    if (!std::isfinite(v)) return "";
    if (integral && v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
    std::array<char, 64> buf{};
    const auto res = std::to_chars(buf.data(), buf.data() + buf.size(), v);
    std::string s(buf.data(), res.ptr);
    if (s.find_first_of(".en") == std::string::npos) s += ".0"; // repr(2100.0) is "2100.0"
    return s;
}


// <division>/<org>/results/<system>/…: the division (reportgen's category, upper-cased as its Division cell
// is) and the organisation of a benchmark folder inside a published MLPerf Storage tree; empty outside one.
std::pair<std::string, std::string> divisionAndOrg(const fs::path& folder) {
    std::vector<std::string> parts;
    for (const auto& p : folder) parts.push_back(p.string());
    for (std::size_t i = 0; i + 2 < parts.size(); ++i) {
        const std::string d = lower(parts[i]);
        if ((d == "closed" || d == "open") && parts[i + 2] == "results") {
            std::string up = d;
            for (char& c : up) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
            return {up, parts[i + 1]};
        }
    }
    return {};
}

struct OutRow {
    std::map<std::string, std::string> cells;
    std::tuple<std::string, std::string, std::string, std::string, std::string, std::string> sortKey;
};

OutRow rowOfGroup(const ImportResult& imp, const RunGroup& g, const GroupAggregate& a, const MlcommonsTableOptions& o) {
    OutRow out;
    const bool checkpointing = g.type == BenchmarkType::Checkpointing;
    const std::string model = checkpointing ? mlperfCheckpointModel(g.identity.model) : g.identity.model;
    auto [division, org] = divisionAndOrg(g.path);
    if (org.empty()) org = o.organization;
    auto& c = out.cells;
    c["Organization"] = org;
    c["Division"] = division;
    c["Benchmark Type"] = benchmarkTypeName(g.type);
    c["Model"] = modelLabel(model);
    c["Name"] = g.system;
    // The benchmark API: S3 when its runs read objects of a bucket, else a file system (reportgen: POSIX for
    // benchmark_API "file", S3 for "object").
    bool s3 = false;
    std::int64_t hosts = 0;
    for (std::size_t i : g.runs) {
        s3 = s3 || !imp.runs[i].s3Bucket.empty();
        if (hosts == 0 && imp.runs[i].numHosts > 0) hosts = imp.runs[i].numHosts;
    }
    c["Access Protocol"] = s3 ? "S3" : "POSIX";
    const SystemFigures& f = g.systemFigures;
    // Each figure only where it means what reportgen's column means (report_generator.py _sut_columns):
    // usable capacity as given; rack units as the systems file's total_rack_units or the user's label, not
    // TrainIO's sum over node types; power only as the user's label (power_kw), since TrainIO's figure from a
    // systems file (min_psus_active × nameplate over the node types) is not reportgen's provisioned power
    // (every configured PSU of the product nodes and switches).
    const std::string& ruKey = f.rackUnits.key;
    const bool totalRu = ruKey == "rack_units" ||
                         (ruKey.size() >= 16 && ruKey.compare(ruKey.size() - 16, 16, "total_rack_units") == 0);
    if (f.rackUnits.value && totalRu) c["RU's"] = number(*f.rackUnits.value, true);
    if (f.usableCapacityGiB.value) c["Usable Capacity (TiB)"] = number(*f.usableCapacityGiB.value / 1024.0);
    if (f.powerKw.value && f.powerKw.key == "power_kw")
        c["Provisioned Power (W)"] = number(std::round(*f.powerKw.value * 1e6) / 1e3, true);
    const std::string nodes = hosts > 0 ? std::to_string(hosts) : "";
    if (checkpointing) {
        bool subset = false;
        for (std::size_t i : g.runs) subset = subset || lower(imp.runs[i].checkpointMode) == "subset";
        c["Checkpointing - Checkpoint Mode"] = subset ? "Subset" : "Full"; // reportgen: anything but subset is Full
        c["Checkpointing - # Client Nodes"] = nodes;
        auto fig = [](const MetricAggregate& m) { return m.values.empty() ? std::string() : number(m.mean.value); };
        c["Checkpointing - Write B/W (GiB/s)"] = fig(a.checkpointWriteGiBps);
        c["Checkpointing - Write Duration (secs)"] = fig(a.checkpointWriteSeconds);
        c["Checkpointing - Read B/W (GiB/s)"] = fig(a.checkpointReadGiBps);
        c["Checkpointing - Read Duration (secs)"] = fig(a.checkpointReadSeconds);
    } else {
        c["Training - Accelerator Type"] = g.identity.accelerator;
        c["Training - # Client Nodes"] = nodes;
        if (g.identity.accelerators > 0) c["Training - # Simulated Accelerators"] = std::to_string(g.identity.accelerators);
        // report_generator.py _aggregate_training: fmean of each run's train_io_mean_MB_per_second (MiB/s) / 1024.
        if (!a.mibPerSecond.values.empty()) c["Training - Read B/W (GiB/s)"] = number(a.mibPerSecond.mean.value / 1024.0);
    }
    out.sortKey = {lower(division), org, g.system, benchmarkTypeName(g.type), model, g.identity.accelerator};
    return out;
}

// The text of a cell that reportgen wrote as a hyperlink (<a href="…">text</a>); any other cell unchanged.
std::string linkText(const std::string& cell) {
    if (cell.rfind("<a ", 0) != 0) return cell;
    const std::size_t open = cell.find('>');
    const std::size_t close = cell.rfind("</a>");
    if (open == std::string::npos || close == std::string::npos || close < open) return cell;
    return cell.substr(open + 1, close - open - 1);
}

// RFC 4180 as Python's csv module reads it: quoted cells may hold commas, doubled quotes and line breaks.
std::vector<std::vector<std::string>> splitCsv(const std::string& text, const fs::path& file) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row;
    std::string cell;
    bool quoted = false, any = false;
    std::size_t i = text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;
    for (; i < text.size(); ++i) {
        const char ch = text[i];
        if (quoted) {
            if (ch == '"' && i + 1 < text.size() && text[i + 1] == '"') cell += text[++i];
            else if (ch == '"') quoted = false;
            else cell += ch;
            continue;
        }
        if (ch == '"' && cell.empty()) quoted = any = true;
        else if (ch == ',') row.push_back(std::move(cell)), cell.clear(), any = true;
        else if (ch == '\r' && i + 1 < text.size() && text[i + 1] == '\n') continue;
        else if (ch == '\n' || ch == '\r') {
            row.push_back(std::move(cell));
            cell.clear();
            rows.push_back(std::move(row));
            row.clear();
            any = false;
        } else cell += ch, any = true;
    }
    if (quoted) throw InputError(describeProblem(file.string(), "", "", "a closing quote: the last quoted cell never ends"));
    if (any || !cell.empty() || !row.empty()) {
        row.push_back(std::move(cell));
        rows.push_back(std::move(row));
    }
    return rows;
}

} // namespace mlcommons_table_detail

using namespace mlcommons_table_detail;

const std::vector<std::string>& mlcommonsTableColumns() {
    static const std::vector<std::string> cols = buildColumns();
    return cols;
}

namespace {
// The header line as reportgen's csv.DictWriter writes it (no line end): written, and what a table is known by.
const std::string& headerLine() {
    static const std::string header = [] {
        std::string h;
        const auto& cols = mlcommonsTableColumns();
        for (std::size_t i = 0; i < cols.size(); ++i) h += (i ? "," : "") + csvField(cols[i]);
        return h;
    }();
    return header;
}
} // namespace

std::string formatMlcommonsTable(const ImportResult& imported, const MlcommonsTableOptions& options, Reduction reduction) {
    const auto& cols = mlcommonsTableColumns();
    std::string out = headerLine() + '\n';
    std::vector<OutRow> rows;
    for (const RunGroup& g : imported.groups) {
        if (g.tableRow) { // a row read back: written as it was read, every cell
            OutRow r;
            for (const auto& [k, v] : g.tableRow->cells) r.cells[k] = v;
            const TableRow& t = *g.tableRow;
            r.sortKey = {lower(t.division), t.organization, t.name, t.benchmarkType, g.identity.model, t.accelerator};
            rows.push_back(std::move(r));
            continue;
        }
        if (g.runs.empty()) continue; // no complete run: no figure (reportgen withholds metric-less rows too)
        rows.push_back(rowOfGroup(imported, g, aggregateGroup(imported, g, reduction), options));
    }
    std::stable_sort(rows.begin(), rows.end(), [](const OutRow& a, const OutRow& b) { return a.sortKey < b.sortKey; });
    for (const OutRow& r : rows) {
        for (std::size_t i = 0; i < cols.size(); ++i) {
            const auto it = r.cells.find(cols[i]);
            out += (i ? "," : "") + (it == r.cells.end() ? std::string() : csvField(it->second));
        }
        out += '\n';
    }
    return out;
}

bool isMlcommonsTable(const std::string& text) {
    std::size_t from = text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;
    std::size_t end = text.find('\n', from);
    std::string first = text.substr(from, end == std::string::npos ? std::string::npos : end - from);
    if (!first.empty() && first.back() == '\r') first.pop_back();
    return first == headerLine();
}

std::vector<TableRow> parseMlcommonsTable(const std::string& text, const fs::path& file) {
    const auto& cols = mlcommonsTableColumns();
    const auto lines = splitCsv(text, file);
    const std::string where = file.string();
    if (lines.empty()) throw InputError(describeProblem(where, "", "", "a header line with the reportgen results columns"));
    if (lines.front() != cols) {
        for (std::size_t i = 0; i < std::max(cols.size(), lines.front().size()); ++i) {
            const std::string got = i < lines.front().size() ? lines.front()[i] : "(none)";
            const std::string want = i < cols.size() ? cols[i] : "(no more columns)";
            if (got != want)
                throw InputError(where + ": header, column " + std::to_string(i + 1) + ": \"" + got + "\": expected \"" + want +
                                 "\" (the reportgen results schema, docs/aggregation.md \"MLCommons' table\")");
        }
    }
    std::vector<TableRow> out;
    for (std::size_t li = 1; li < lines.size(); ++li) {
        const auto& cells = lines[li];
        if (cells.size() == 1 && cells.front().empty()) continue; // an empty line
        const std::string rowWhere = where + ": row " + std::to_string(li);
        if (cells.size() != cols.size())
            throw InputError(rowWhere + ": " + std::to_string(cells.size()) + " cells: expected " + std::to_string(cols.size()) +
                             ", one per column of the header");
        TableRow r;
        r.file = file;
        r.row = li;
        for (std::size_t i = 0; i < cols.size(); ++i) r.cells.emplace_back(cols[i], cells[i]);
        auto cell = [&](const std::string& col) -> std::string {
            return cells[static_cast<std::size_t>(std::find(cols.begin(), cols.end(), col) - cols.begin())];
        };
        auto num = [&](const std::string& col, bool integral) -> std::optional<double> {
            const std::string v = cell(col);
            if (v.empty()) return std::nullopt;
            double d = 0;
            const auto res = std::from_chars(v.data(), v.data() + v.size(), d);
            const bool ok = res.ec == std::errc() && res.ptr == v.data() + v.size() && std::isfinite(d) && d >= 0 &&
                            (!integral || d == std::floor(d));
            if (!ok)
                throw InputError(rowWhere + ", column \"" + col + "\": \"" + v + "\": expected " +
                                 (integral ? "a whole number ≥ 0" : "a number ≥ 0") + ", or an empty cell where the row has no value");
            return d;
        };
        auto oneOf = [&](const std::string& col, std::initializer_list<const char*> allowed, bool folded) {
            const std::string v = cell(col);
            std::string list;
            for (const char* a : allowed) {
                if ((folded ? lower(v) : v) == a) return v;
                list += (list.empty() ? "" : ", ") + std::string(a);
            }
            throw InputError(rowWhere + ", column \"" + col + "\": \"" + v + "\": expected one of " + list);
        };
        r.publicId = cell("Public ID");
        r.organization = linkText(cell("Organization"));
        r.division = oneOf("Division", {"closed", "open", "whatif", "invalid", ""}, true);
        r.benchmarkType = oneOf("Benchmark Type", {"training", "checkpointing", "vector_database", "kv_cache"}, false);
        r.model = modelFromLabel(cell("Model"));
        r.name = linkText(cell("Name"));
        r.rackUnits = num("RU's", false);
        r.usableCapacityTiB = num("Usable Capacity (TiB)", false);
        r.provisionedPowerW = num("Provisioned Power (W)", false);
        num("Integrated Client Storage (TiB)", false);
        if (r.benchmarkType == "training") {
            r.accelerator = lower(cell("Training - Accelerator Type"));
            r.clientNodes = num("Training - # Client Nodes", true);
            r.accelerators = num("Training - # Simulated Accelerators", true);
            r.readGiBps = num("Training - Read B/W (GiB/s)", false);
        } else if (r.benchmarkType == "checkpointing") {
            r.checkpointMode = cell("Checkpointing - Checkpoint Mode");
            r.clientNodes = num("Checkpointing - # Client Nodes", true);
            num("Checkpointing - DP Instances", true);
            r.checkpointWriteGiBps = num("Checkpointing - Write B/W (GiB/s)", false);
            r.checkpointWriteSeconds = num("Checkpointing - Write Duration (secs)", false);
            r.checkpointReadGiBps = num("Checkpointing - Read B/W (GiB/s)", false);
            r.checkpointReadSeconds = num("Checkpointing - Read Duration (secs)", false);
        }
        out.push_back(std::move(r));
    }
    return out;
}

std::string tableRowText(const TableRow& row) {
    return "row " + std::to_string(row.row) + " of " + row.file.filename().string() +
           " (MLCommons' table): no runs, only the row's figures";
}

void addTableRows(ImportResult& imported, const std::vector<TableRow>& rows) {
    for (const TableRow& t : rows) {
        if (t.benchmarkType != "training" && t.benchmarkType != "checkpointing") {
            imported.skipped.push_back({t.file, "row " + std::to_string(t.row) + ": a " + t.benchmarkType +
                                                    " row: TrainIO imports the training and checkpointing rows of a table"});
            continue;
        }
        RunGroup g;
        g.path = t.file;
        g.kind = GroupKind::Table;
        g.type = t.benchmarkType == "checkpointing" ? BenchmarkType::Checkpointing : BenchmarkType::Training;
        g.identity.model = t.model;
        g.identity.accelerator = t.accelerator;
        g.identity.accelerators = t.accelerators ? static_cast<std::int64_t>(*t.accelerators) : 0;
        g.system = !t.name.empty() ? t.name : !t.organization.empty() ? t.organization : "(no system named)";
        g.systemDescription = (t.organization.empty() ? "" : t.organization + ", ") +
                              (t.division.empty() ? "" : t.division + " division, ") + "from " + tableRowText(t);
        if (t.usableCapacityTiB) g.systemFigures.usableCapacityGiB = {*t.usableCapacityTiB * 1024.0, t.file, "Usable Capacity (TiB)"};
        if (t.provisionedPowerW) g.systemFigures.powerKw = {*t.provisionedPowerW / 1000.0, t.file, "Provisioned Power (W)"};
        if (t.rackUnits) g.systemFigures.rackUnits = {*t.rackUnits, t.file, "RU's"};
        g.labels.name = (t.publicId.empty() ? "" : t.publicId + " · ") + "table row " + std::to_string(t.row);
        g.labels.description = tableRowText(t);
        g.status = InvocationStatus::Complete;
        g.tableRow = std::make_shared<const TableRow>(t);
        imported.groups.push_back(std::move(g));
    }
}

GroupAggregate aggregateTableRow(const RunGroup& group, Reduction reduction) {
    GroupAggregate a;
    a.group = group;
    a.reduction = reduction;
    const TableRow& t = *group.tableRow;
    auto one = [](const std::optional<double>& v) { return v ? std::vector<double>{*v} : std::vector<double>{}; };
    a.au = aggregateMetric("train_au_percentage", "%", {}, reduction);
    a.samplesPerSecond = aggregateMetric("train_throughput_samples_per_second", "samples/s", {}, reduction);
    // The row's Read B/W (GiB/s) in the unit the other groups' MiB/s carry (× 1024: exact).
    a.mibPerSecond = aggregateMetric("train_throughput_MB_per_second", "MiB/s",
                                     t.readGiBps ? std::vector<double>{*t.readGiBps * 1024.0} : std::vector<double>{}, reduction);
    a.checkpointWriteGiBps = aggregateMetric("save_checkpoint_io_mean_GB_per_second", "GiB/s", one(t.checkpointWriteGiBps), reduction);
    a.checkpointReadGiBps = aggregateMetric("load_checkpoint_io_mean_GB_per_second", "GiB/s", one(t.checkpointReadGiBps), reduction);
    a.checkpointWriteSeconds = aggregateMetric("save_checkpoint_duration_mean_seconds", "s", one(t.checkpointWriteSeconds), reduction);
    a.checkpointReadSeconds = aggregateMetric("load_checkpoint_duration_mean_seconds", "s", one(t.checkpointReadSeconds), reduction);
    a.checkpointSizeGiB = aggregateMetric("checkpoint_size_GB", "GiB", {}, reduction);
    a.notes.push_back(tableRowText(t) + " — no runs, epochs or checks; each figure is the one the row publishes");
    a.efficiency = efficiencyOf(t.readGiBps ? *t.readGiBps : NAN, group.systemFigures);
    return a;
}

ordered_json tableRowJson(const TableRow& row) {
    return ordered_json{{"file", row.file.string()}, {"row", row.row},           {"public_id", row.publicId},
                        {"division", row.division},  {"organization", row.organization}};
}

} // namespace trainio::aggregate
