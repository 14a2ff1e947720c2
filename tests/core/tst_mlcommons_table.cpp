// MLCommons' table (issue 33): `trainio-cli aggregate … --format mlcommons` writes the results schema of
// mlpstorage's `reports reportgen` (results.csv, the table MLPerf Storage's results website is made from), and
// such a table imports back as a results source — each row a benchmark with no runs, only the row's figures.
// The schema below is written out by hand from mlcommons/storage, mlpstorage_py/report_generator.py at commit
// 0366ccfc9fc629dde3379a8022cb4c4ff8285b53 (_SUT_FINAL_COLUMNS, then _TRAINING_BLOCK, _CHECKPOINTING_BLOCK,
// _VDB_BLOCK, _KVCACHE_SHARED_BLOCK with their "<Workload> - " prefixes, then _KVCACHE_GROUPS ×
// _KVCACHE_GROUP_METRICS, as _build_final_schema assembles them). Every expected figure is worked out here
// from the fixtures' numbers (the published mlperf_storage_report.json files, the v3.0 summary.json files),
// never from the code under test.
#include "testsupport.h"

#include "aggregate/compare.h"
#include "aggregate/mlcommons_table.h"
#include "aggregate/results_import.h"
#include "aggregate/results_library.h"
#include "util/errors.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace fs = std::filesystem;
using nlohmann::json;
using namespace trainio;

namespace {

const fs::path kV1 = fs::path(TRAINIO_TEST_DATA) / "mlperf-storage-v1.0/Closed";
const fs::path kV3Samsung = fs::path(TRAINIO_TEST_DATA) / "mlperf-storage-v3.0/closed/SAMSUNG";

const std::vector<std::string> kSchema = {
    "Public ID", "Organization", "Division", "Benchmark Type", "Model", "Name", "Description", "Type",
    "Access Protocol", "Availability", "RU's", "Integrated Client Storage (TiB)", "Usable Capacity (TiB)",
    "Provisioned Power (W)",
    "Training - Accelerator Type", "Training - # Client Nodes", "Training - Code", "Training - Logs",
    "Training - # Simulated Accelerators", "Training - Read B/W (GiB/s)",
    "Checkpointing - Checkpoint Mode", "Checkpointing - # Client Nodes", "Checkpointing - DP Instances",
    "Checkpointing - Code", "Checkpointing - Logs", "Checkpointing - Write B/W (GiB/s)",
    "Checkpointing - Write Duration (secs)", "Checkpointing - Read B/W (GiB/s)", "Checkpointing - Read Duration (secs)",
    "VDB - # Client Nodes", "VDB - Code", "VDB - Logs", "VDB - Vector Count", "VDB - Vector Dimension",
    "VDB - Index Type", "VDB - Queries per Sec", "VDB - Query Latency (ms)", "VDB - Recall Percentage",
    "VDB - Storage IOPs", "VDB - Read B/W (GiB/s)",
    "KVCache - # Client Nodes", "KVCache - Code", "KVCache - Logs",
    "KVCache llama3.1-8b Storage Only - Throughput (tok/s)", "KVCache llama3.1-8b Storage Only - Read B/W (GiB/s)",
    "KVCache llama3.1-8b Storage Only - Write B/W (GiB/s)", "KVCache llama3.1-8b Storage Only - P95 Read Latency (ms)",
    "KVCache llama3.1-8b Storage + Mem - Throughput (tok/s)", "KVCache llama3.1-8b Storage + Mem - Read B/W (GiB/s)",
    "KVCache llama3.1-8b Storage + Mem - Write B/W (GiB/s)", "KVCache llama3.1-8b Storage + Mem - P95 Read Latency (ms)",
    "KVCache llama3.1-70b Storage Only - Throughput (tok/s)", "KVCache llama3.1-70b Storage Only - Read B/W (GiB/s)",
    "KVCache llama3.1-70b Storage Only - Write B/W (GiB/s)", "KVCache llama3.1-70b Storage Only - P95 Read Latency (ms)",
};

QString q(const fs::path& p) { return QString::fromStdString(p.string()); }

// The fixtures' cells hold no comma or quote: a plain split is the reading by hand.
std::vector<std::string> splitLine(const std::string& line) {
    std::vector<std::string> out;
    std::string cell;
    std::istringstream in(line);
    while (std::getline(in, cell, ',')) out.push_back(cell);
    if (!line.empty() && line.back() == ',') out.emplace_back();
    return out;
}

// Each data row as column → cell.
std::vector<std::map<std::string, std::string>> rowsOf(const std::string& csv) {
    std::vector<std::map<std::string, std::string>> rows;
    std::istringstream in(csv);
    std::string line;
    std::getline(in, line);
    const auto header = splitLine(line);
    while (std::getline(in, line)) {
        const auto cells = splitLine(line);
        std::map<std::string, std::string> r;
        for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i) r[header[i]] = cells[i];
        rows.push_back(std::move(r));
    }
    return rows;
}

std::string exportTable(const QStringList& paths) {
    QStringList args{QStringLiteral("aggregate")};
    args << paths << QStringLiteral("--format") << QStringLiteral("mlcommons");
    const auto r = testsupport::runCli(args);
    if (r.exitCode != 0) qWarning("%s", qPrintable(r.err));
    return r.exitCode == 0 ? r.out.toStdString() : std::string();
}

bool near(double a, double b) { return std::fabs(a - b) <= 1e-12 * std::max(1.0, std::fabs(b)); }

json readJson(const fs::path& p) { return json::parse(testsupport::readText(p)); }

} // namespace

class TestMlcommonsTable : public QObject {
    Q_OBJECT

private slots:
    // (a) The export's header is the reportgen schema, column for column.
    void headerIsTheReportgenSchema() {
        const std::string csv = exportTable({q(kV3Samsung)});
        QVERIFY(!csv.empty());
        const std::string header = csv.substr(0, csv.find('\n'));
        QCOMPARE(splitLine(header).size(), kSchema.size());
        QCOMPARE(splitLine(header), kSchema);
        QCOMPARE(aggregate::mlcommonsTableColumns(), kSchema);
    }

    // (b) v1.0: every published mlperf_storage_report.json against its row — Read B/W (GiB/s) is the report's
    // mean MB/s (MiB/s) ÷ 1024, # Simulated Accelerators its train_num_accelerators, Accelerator Type its accelerator.
    void v1RowsEqualThePublishedReports() {
        int checked = 0;
        for (const auto& e : fs::recursive_directory_iterator(kV1)) {
            if (e.path().filename() != "mlperf_storage_report.json") continue;
            const json overall = readJson(e.path())["overall"];
            const auto rows = rowsOf(exportTable({q(e.path().parent_path())}));
            QCOMPARE(rows.size(), std::size_t(1));
            const auto& r = rows.front();
            const double expected = overall["train_throughput_mean_MB_per_second"].get<double>() / 1024.0;
            const double got = std::stod(r.at("Training - Read B/W (GiB/s)"));
            if (!near(got, expected)) qWarning("%s: %.17g vs %.17g", e.path().c_str(), got, expected);
            QVERIFY(near(got, expected));
            QCOMPARE(r.at("Training - # Simulated Accelerators"), overall["train_num_accelerators"].get<std::string>());
            QCOMPARE(r.at("Training - Accelerator Type"), overall["accelerator"].get<std::string>());
            const std::string model = overall["model"].get<std::string>();
            QCOMPARE(r.at("Model"), model == "unet3d" ? std::string("Unet3D") : model); // reportgen's display label
            QCOMPARE(r.at("Benchmark Type"), std::string("training"));
            QCOMPARE(r.at("Division"), std::string("CLOSED"));
            const std::string org = e.path().lexically_relative(kV1).begin()->string();
            QCOMPARE(r.at("Organization"), org);
            for (const char* empty : {"Public ID", "Type", "Availability", "Training - Code", "Checkpointing - Write B/W (GiB/s)",
                                      "VDB - Read B/W (GiB/s)", "Provisioned Power (W)"})
                QVERIFY2(r.at(empty).empty(), empty);
            ++checked;
        }
        QVERIFY(checked >= 30); // 39 workload groups in the fixture, each with its report
    }

    // (b) v3.0 SAMSUNG MEMORY_AE: training unet3d — 5 measured runs after the warm-up 20260720_152622, Read B/W
    // (GiB/s) = mean train_io_mean_MB_per_second ÷ 1024, 5 accelerators, 1 host; checkpointing llama3-8b — the
    // invocation's save/load GiB/s and seconds as its summary.json gives them; usable_capacity_tib 16.
    void v3RowsEqualTheSummaries() {
        const auto rows = rowsOf(exportTable({q(kV3Samsung)}));
        QCOMPARE(rows.size(), std::size_t(2));
        const auto& ckpt = rows[0].at("Benchmark Type") == "checkpointing" ? rows[0] : rows[1];
        const auto& train = rows[0].at("Benchmark Type") == "training" ? rows[0] : rows[1];
        const double mib[] = {27229.60585699703, 27234.535341052324, 27238.67337436259, 27224.981638261324, 27231.990955893933};
        const double gib = (mib[0] + mib[1] + mib[2] + mib[3] + mib[4]) / 5.0 / 1024.0;
        QVERIFY(std::fabs(std::stod(train.at("Training - Read B/W (GiB/s)")) - gib) < 1e-12 * gib);
        QCOMPARE(train.at("Training - # Simulated Accelerators"), std::string("5"));
        QCOMPARE(train.at("Training - # Client Nodes"), std::string("1"));
        QCOMPARE(train.at("Training - Accelerator Type"), std::string("b200"));
        QCOMPARE(train.at("Model"), std::string("Unet3D"));
        QCOMPARE(train.at("Organization"), std::string("SAMSUNG"));
        QCOMPARE(train.at("Name"), std::string("MEMORY_AE"));
        QCOMPARE(train.at("Usable Capacity (TiB)"), std::string("16.0"));
        QVERIFY(train.at("RU's").empty());                // total_rack_units 0: says nothing
        QVERIFY(train.at("Provisioned Power (W)").empty()); // no product nodes: reportgen leaves it blank too
        QCOMPARE(ckpt.at("Model"), std::string("8B"));
        QCOMPARE(std::stod(ckpt.at("Checkpointing - Write B/W (GiB/s)")), 15.91369658349501);
        QCOMPARE(std::stod(ckpt.at("Checkpointing - Read B/W (GiB/s)")), 17.768773315490236);
        QCOMPARE(std::stod(ckpt.at("Checkpointing - Write Duration (secs)")), 6.6093582);
        QCOMPARE(std::stod(ckpt.at("Checkpointing - Read Duration (secs)")), 8.201375500000001);
        QCOMPARE(ckpt.at("Checkpointing - Checkpoint Mode"), std::string("Full"));
        QVERIFY(ckpt.at("Training - Read B/W (GiB/s)").empty());
    }

    // (c) Export, import the table, export again: the same figures in the library, the same table.
    void roundTripKeepsTheFigures() {
        QTemporaryDir tmp;
        const fs::path table = fs::path(tmp.path().toStdString()) / "results.csv";
        const fs::path hammerspace = kV1 / "Hammerspace";
        const std::string csv = exportTable({q(hammerspace), q(kV3Samsung)});
        QVERIFY(!csv.empty());
        testsupport::writeText(table, csv);
        const auto published = rowsOf(csv);

        const aggregate::ResultsLibrary library(aggregate::importResults({table}));
        QVERIFY(library.imported().runs.empty()); // a table has no runs
        const auto benches = library.nodes(aggregate::NodeKind::Benchmark);
        QCOMPARE(benches.size(), published.size());
        std::size_t training = 0;
        for (const auto* b : benches) {
            QVERIFY(!b->fromTable.empty());
            QVERIFY(b->children.empty()); // no invocations, no epochs
            const auto& row = *library.imported().groups.at(*b->group).tableRow;
            const auto& cells = published.at(row.row - 1);
            if (b->type == aggregate::BenchmarkType::Training) {
                ++training;
                QCOMPARE(b->readGibPerSecond.n, std::size_t(1)); // the row's figure, not 5 runs
                QCOMPARE(b->readGibPerSecond.mean, std::stod(cells.at("Training - Read B/W (GiB/s)")));
                QCOMPARE(b->accelerators, static_cast<std::int64_t>(std::stoll(cells.at("Training - # Simulated Accelerators"))));
                QCOMPARE(b->au.n, std::size_t(0)); // the table has no AU
            } else {
                QCOMPARE(b->checkpointWriteGibPerSecond.mean, 15.91369658349501);
                QCOMPARE(b->checkpointReadGibPerSecond.mean, 17.768773315490236);
            }
        }
        QCOMPARE(training, published.size() - 1);
        // The imported table's figures equal the runs' own aggregate in a library of the folders.
        const aggregate::ResultsLibrary direct(aggregate::importResults({hammerspace, kV3Samsung}));
        std::size_t matched = 0;
        for (const auto* d : direct.nodes(aggregate::NodeKind::Benchmark)) {
            if (d->type != aggregate::BenchmarkType::Training || !d->hasMetrics) continue;
            for (const auto* b : benches)
                if (b->type == d->type && b->accelerators == d->accelerators &&
                    std::fabs(b->readGibPerSecond.mean - d->readGibPerSecond.mean) <= 1e-12 * d->readGibPerSecond.mean)
                    ++matched;
        }
        QVERIFY(matched >= training);
        // The table written again from its import is the table.
        QCOMPARE(aggregate::formatMlcommonsTable(aggregate::importResults({table})), csv);
        // And through the CLI, as a user gives it.
        QCOMPARE(exportTable({q(table)}), csv);
        // Two table rows of one workload compare: a Δ, no CI (one figure each).
        std::vector<const aggregate::LibraryNode*> pair;
        for (const auto* b : benches)
            if (b->type == aggregate::BenchmarkType::Training && pair.size() < 2 &&
                (pair.empty() || pair.front()->workloadKey == b->workloadKey))
                pair.push_back(b);
        if (pair.size() == 2) {
            const auto c = aggregate::compare(pair, {});
            QVERIFY(c.rows[1].comparable);
            QCOMPARE(c.rows[1].replication, std::string("table row"));
            QVERIFY(!std::isfinite(c.rows[1].metrics[2].delta->ci95.halfWidth));
            QCOMPARE(c.rows[1].metrics[2].delta->absolute, pair[1]->readGibPerSecond.mean - pair[0]->readGibPerSecond.mean);
        }
    }

    // (d) A malformed table is refused, naming the file, the row and the column, with what was expected.
    void malformedTableIsRefused() {
        QTemporaryDir tmp;
        const fs::path table = fs::path(tmp.path().toStdString()) / "team.csv";
        std::string header;
        for (std::size_t i = 0; i < kSchema.size(); ++i) header += (i ? "," : "") + kSchema[i];
        auto rowWith = [&](const std::string& column, const std::string& value) {
            std::string line;
            for (std::size_t i = 0; i < kSchema.size(); ++i) {
                std::string cell = kSchema[i] == "Benchmark Type" ? "training" : kSchema[i] == "Name" ? "sys" : "";
                if (kSchema[i] == column) cell = value;
                line += (i ? "," : "") + cell;
            }
            return line + "\n";
        };
        testsupport::writeText(table, header + "\n" + rowWith("Training - Read B/W (GiB/s)", "1.5") +
                                          rowWith("Training - Read B/W (GiB/s)", "fast"));
        try {
            aggregate::parseMlcommonsTable(testsupport::readText(table), table);
            QFAIL("a number column holding \"fast\" was accepted");
        } catch (const InputError& e) {
            const std::string m = e.what();
            QVERIFY2(m.find(table.string()) != std::string::npos, e.what());
            QVERIFY2(m.find("row 2") != std::string::npos, e.what());
            QVERIFY2(m.find("Training - Read B/W (GiB/s)") != std::string::npos, e.what());
            QVERIFY2(m.find("\"fast\"") != std::string::npos && m.find("expected a number") != std::string::npos, e.what());
        }
        // The importer lists it as skipped with that reason and imports nothing of it.
        const auto imported = aggregate::importResults({table});
        QVERIFY(imported.groups.empty());
        QCOMPARE(imported.skipped.size(), std::size_t(1));
        QVERIFY(imported.skipped[0].reason.find("row 2") != std::string::npos);
        // The CLI says so too.
        const auto r = testsupport::runCli({QStringLiteral("aggregate"), q(table), QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY(r.out.contains(QStringLiteral("Training - Read B/W (GiB/s)")));

        // A header that is not the schema: the column named.
        testsupport::writeText(table, "Public ID,Org\n");
        try {
            aggregate::parseMlcommonsTable(testsupport::readText(table), table);
            QFAIL("a foreign header was accepted");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("column 2") != std::string::npos &&
                         std::string(e.what()).find("\"Organization\"") != std::string::npos, e.what());
        }
        // A row of another width, and a Division reportgen never writes.
        testsupport::writeText(table, header + "\nv3.0-0001,x\n");
        QVERIFY_THROWS_EXCEPTION(InputError, aggregate::parseMlcommonsTable(testsupport::readText(table), table));
        testsupport::writeText(table, header + "\n" + rowWith("Division", "premium"));
        try {
            aggregate::parseMlcommonsTable(testsupport::readText(table), table);
            QFAIL("Division premium was accepted");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("row 1, column \"Division\"") != std::string::npos, e.what());
        }
    }

    // The published form: hyperlink cells (reportgen writes Name as <a href="…">system</a>) keep their text; a
    // kv_cache row is listed as skipped, not imported.
    void publishedFormImports() {
        QTemporaryDir tmp;
        const fs::path table = fs::path(tmp.path().toStdString()) / "results.csv";
        std::string header, train, kv;
        for (std::size_t i = 0; i < kSchema.size(); ++i) {
            const std::string& c = kSchema[i];
            header += (i ? "," : "") + c;
            std::string t = c == "Public ID" ? "v3.0-0042" : c == "Organization" ? "Acme" : c == "Division" ? "CLOSED"
                          : c == "Benchmark Type" ? "training" : c == "Model" ? "RetinaNet"
                          : c == "Name" ? "\"<a href=\"\"closed/Acme/systems/box.yaml\"\">box</a>\""
                          : c == "Provisioned Power (W)" ? "2400" : c == "Training - Accelerator Type" ? "b200"
                          : c == "Training - # Simulated Accelerators" ? "16" : c == "Training - Read B/W (GiB/s)" ? "12.5" : "";
            std::string k = c == "Benchmark Type" ? "kv_cache" : c == "Name" ? "box" : "";
            train += (i ? "," : "") + t;
            kv += (i ? "," : "") + k;
        }
        testsupport::writeText(table, header + "\r\n" + train + "\r\n" + kv + "\r\n");
        const aggregate::ResultsLibrary library(aggregate::importResults({tmp.path().toStdString()}));
        const auto benches = library.nodes(aggregate::NodeKind::Benchmark);
        QCOMPARE(benches.size(), std::size_t(1));
        QCOMPARE(benches[0]->parent->parent->label, std::string("box"));
        QCOMPARE(benches[0]->readGibPerSecond.mean, 12.5);
        QCOMPARE(benches[0]->accelerators, std::int64_t(16));
        QVERIFY(benches[0]->label.find("v3.0-0042") != std::string::npos);
        // 2400 W → 2.4 kW: 12.5 GiB/s ÷ 2.4 kW
        QVERIFY(benches[0]->efficiency.perKw && std::fabs(*benches[0]->efficiency.perKw - 12.5 / 2.4) < 1e-12);
        QCOMPARE(library.imported().skipped.size(), std::size_t(1));
        QVERIFY(library.imported().skipped[0].reason.find("kv_cache") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestMlcommonsTable)
#include "tst_mlcommons_table.moc"
