// MLCommons' table (issue 33; docs/aggregation.md, "MLCommons' table"): the results schema MLPerf Storage's
// results website is made from, written for TrainIO's benchmarks and imported ones alike, and read back as a
// results source.
//
// The schema is mlpstorage's fixed `reports reportgen` output, results.csv — taken from mlcommons/storage,
// mlpstorage_py/report_generator.py at commit 0366ccfc9fc629dde3379a8022cb4c4ff8285b53 (_SUT_FINAL_COLUMNS,
// _TRAINING_BLOCK, _CHECKPOINTING_BLOCK, _VDB_BLOCK, _KVCACHE_SHARED_BLOCK, _KVCACHE_GROUPS ×
// _KVCACHE_GROUP_METRICS, assembled by _build_final_schema; the fixed contract of mlcommons/storage PRs #826
// and #829). reportgen writes the same columns to results.json; the CSV is the form the website's tables are
// cut from (a MLCommons staff member reduces results.csv to each web table, PR #829), so the CSV is the one
// written and read here.
#pragma once

#include "aggregate/group_aggregate.h"
#include "store/invocation_record.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace trainio::aggregate {

// The schema's 55 columns, in its order.
const std::vector<std::string>& mlcommonsTableColumns();

struct MlcommonsTableOptions {
    std::string organization; // "Organization" for benchmarks outside an MLPerf <division>/<org>/results/ tree
};

// The table (CSV, "\n" line ends, quoted only where a cell needs it — Python's csv.DictWriter as reportgen
// uses it): the header, then one row per benchmark group that has a figure (a complete run, or a table row
// read back), ordered as reportgen orders its rows. Every column TrainIO does not know is empty.
std::string formatMlcommonsTable(const ImportResult& imported, const MlcommonsTableOptions& options = {},
                                 Reduction reduction = Reduction::Mean);

// True when `text` starts with the schema's header line (a byte-order mark and a trailing "\r" allowed).
bool isMlcommonsTable(const std::string& text);

// The rows of a table in the schema. Throws InputError naming the file, the row (1-based, the header not
// counted) and the column, with the value and what was expected, for the first cell that is not what the
// schema holds: a header that differs, a row with a different number of cells, a number column that is not
// a number ≥ 0, a Division or Benchmark Type outside reportgen's values. Published cells that are
// hyperlinks (<a href="…">text</a>, as reportgen writes Name, Description, Code and Logs) keep their text.
std::vector<TableRow> parseMlcommonsTable(const std::string& text, const std::filesystem::path& file);

// Adds a group (GroupKind::Table) for each training or checkpointing row; vector_database and kv_cache rows
// are listed in `imported.skipped` with why (TrainIO has no such benchmarks).
void addTableRows(ImportResult& imported, const std::vector<TableRow>& rows);

// A table group's aggregate: the row's figures as the only value of each metric it publishes (Read B/W;
// checkpoint Write/Read B/W and durations), nothing for the ones it does not (AU, samples/s), no checks.
GroupAggregate aggregateTableRow(const RunGroup& group, Reduction reduction);

// {"file", "row", "public_id", "division", "organization"} of a table group, for `aggregate --format json`.
nlohmann::ordered_json tableRowJson(const TableRow& row);
// "row 3 of results.csv (MLCommons' table): no runs, only the row's figures".
std::string tableRowText(const TableRow& row);

} // namespace trainio::aggregate
