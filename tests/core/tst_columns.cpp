// The group writers' one column table: keys unique, every column documented in docs/aggregation.md
// ("Columns"), the CSV header exactly the CSV columns in order, and the JSON keys present.
#include "testsupport.h"

#include "aggregate/compare.h"
#include "aggregate/group_aggregate.h"
#include "aggregate/results_import.h"

#include <nlohmann/json.hpp>

#include <set>

using namespace trainio::aggregate;

class TestColumns : public QObject {
    Q_OBJECT
private slots:
    void everyColumnDocumentedOnce() {
        const std::string doc = testsupport::readText(testsupport::fixtures() / ".." / ".." / "docs" / "aggregation.md");
        const auto at = doc.find("## Columns");
        QVERIFY(at != std::string::npos);
        const std::string section = doc.substr(at, doc.find("\n## ", at + 1) - at);
        std::set<std::string> keys;
        for (const auto& c : groupColumns()) {
            QVERIFY2(keys.insert(c.key).second, c.key.c_str());
            QVERIFY2(!c.description.empty(), c.key.c_str());
            QVERIFY2(c.table || c.csv || c.json, c.key.c_str());
            QVERIFY2(section.find("| `" + c.key + "` |") != std::string::npos, c.key.c_str());
        }
    }

    // Every metric compare() gives a row (the keys of `trainio-cli compare`'s JSON) is documented under
    // "Compare columns", with its per-accelerator unit.
    void compareColumnsDocumented() {
        const std::string doc = testsupport::readText(testsupport::fixtures() / ".." / ".." / "docs" / "aggregation.md");
        const auto at = doc.find("### Compare columns");
        QVERIFY(at != std::string::npos);
        const std::string section = doc.substr(at, doc.find("\n## ", at + 1) - at);
        LibraryNode a, b;
        for (LibraryNode* n : {&a, &b}) {
            n->kind = NodeKind::Benchmark;
            n->hasMetrics = true;
            n->workloadKey = "wl";
        }
        a.accelerators = 1;
        b.accelerators = 2;
        const CompareResult r = compare({&a, &b}, CompareOptions{});
        QVERIFY(r.perAccelerator);
        QCOMPARE(r.rows[0].metrics.size(), std::size_t(4));
        for (const auto& m : r.rows[0].metrics) {
            const auto row = section.find("| `" + m.key + "` |");
            QVERIFY2(row != std::string::npos, m.key.c_str());
            const std::string line = section.substr(row, section.find('\n', row) - row);
            if (m.key != "au_mean_percentage") QVERIFY2(line.find(m.unit) != std::string::npos, (m.key + ": " + m.unit).c_str());
        }
    }

    void writersUseTheColumns() {
        const ImportResult imp = importResults({testsupport::fixtures() / "mlperf-storage-v1.0" / "Closed" / "Micron"});
        const std::string csv = formatCsv(imp);
        std::string header;
        for (const auto& c : groupColumns())
            if (c.csv) header += (header.empty() ? "" : ",") + c.key;
        QCOMPARE(csv.substr(0, csv.find('\n')), header);
        // The keys other tools read, in their historical order, still lead the header.
        QVERIFY(header.rfind("path,system,model,accelerator,train_num_accelerators,num_files_train,num_samples_per_file,"
                             "num_runs,train_throughput_mean_samples_per_second",
                             0) == 0);
        const auto j = toJson(imp);
        for (const auto& g : j["groups"])
            for (const auto& c : groupColumns())
                if (c.json) QVERIFY2(g.contains(c.key), c.key.c_str());
        const std::string table = formatTable(imp, Reduction::Median);
        for (const auto& c : groupColumns()) {
            if (!c.table) continue;
            std::string header = c.header;
            if (const auto p = header.find("{reduce}"); p != std::string::npos) header.replace(p, 8, "median");
            QVERIFY2(table.substr(0, table.find('\n')).find(header) != std::string::npos, header.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestColumns)
#include "tst_columns.moc"
