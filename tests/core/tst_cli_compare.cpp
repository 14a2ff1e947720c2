// `trainio-cli aggregate --tree`, `trainio-cli compare` and `trainio-cli label` end to end, as a user
// runs them: real processes on the published MLPerf Storage v1.0 tree and on folders made here.
// Expected numbers come from the published mlperf_storage_report.json files, not from TrainIO.
#include "testsupport.h"

#include "store/labels.h"

#include <nlohmann/json.hpp>

#include <functional>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path hpe() { return testsupport::fixtures() / "mlperf-storage-v1.0" / "Closed" / "HPE" / "results"; }
QString q(const fs::path& p) { return QString::fromStdString(p.string()); }

json published(const fs::path& benchmark) {
    return json::parse(testsupport::readText(benchmark / "mlperf_storage_report.json"))["overall"];
}

void copyTree(const fs::path& from, const fs::path& to) {
    fs::create_directories(to);
    fs::copy(from, to, fs::copy_options::recursive);
    for (const auto& e : fs::recursive_directory_iterator(to)) // fixtures are read-only
        fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
}

std::string tinyWorkload(const fs::path& data, std::uint64_t recordBytes) {
    return "model:\n  name: tiny\nframework: pytorch\nworkflow: {generate_data: false, train: true}\n"
           "dataset: {data_folder: " + data.string() + ", format: npz, num_files_train: 8, num_samples_per_file: 2, "
           "record_length_bytes: " + std::to_string(recordBytes) + "}\n"
           "reader: {data_loader: pytorch, batch_size: 2, read_threads: 1}\ntrain: {epochs: 2, computation_time: 0.001}\n";
}

void cli(const QStringList& args, int expected, const QList<QPair<QString, QString>>& env = {}) {
    const auto r = testsupport::runCli(args, 300000, env);
    if (r.exitCode != expected) QFAIL(qPrintable(args.join(' ') + " -> " + QString::number(r.exitCode) + "\n" + r.err));
}

} // namespace

class TestCliCompare : public QObject {
    Q_OBJECT
private slots:
    void aggregateTreeJson() {
        const auto r = testsupport::runCli({"aggregate", q(hpe()), "--tree", "--format", "json"});
        QCOMPARE(r.exitCode, 0);
        const json out = json::parse(r.out.toStdString());
        QVERIFY(out.contains("tree"));
        QCOMPARE(out["tree"].size(), std::size_t(4)); // the four HPE systems
        std::size_t benchmarks = 0;
        std::function<void(const json&)> walk = [&](const json& n) {
            for (const char* key : {"level", "label", "status", "workload_identity", "metrics", "children"})
                QVERIFY2(n.contains(key), key);
            const std::string level = n["level"];
            if (level == "system" || level == "workload") QVERIFY2(n["metrics"].is_null(), n["label"].dump().c_str());
            if (level == "benchmark") {
                ++benchmarks;
                QCOMPARE(n["metrics"]["au_mean_percentage"]["n"].get<int>(), 5);
            }
            for (const auto& c : n["children"]) walk(c);
        };
        for (const auto& s : out["tree"]) walk(s);
        QCOMPARE(benchmarks, std::size_t(8));
        // Cray_C500_4xHDR200_1host → its UNet3D workload → the benchmark: Read GiB/s is the published
        // train_throughput_mean_MB_per_second / 1024.
        const json* unet = nullptr;
        for (const auto& s : out["tree"])
            if (s["label"] == "Cray_C500_4xHDR200_1host")
                for (const auto& w : s["children"])
                    if (w["label"].get<std::string>().rfind("unet3d_h100", 0) == 0) unet = &w["children"][0];
        QVERIFY(unet);
        const double mib = published(hpe() / "Cray_C500_4xHDR200_1host" / "unet3d_h100")["train_throughput_mean_MB_per_second"];
        QVERIFY(std::fabs((*unet)["metrics"]["read_gib_per_second"]["value"].get<double>() - mib / 1024.0) < 1e-9 * mib);
    }

    void aggregateTreeTable() {
        const auto r = testsupport::runCli({"aggregate", q(hpe()), "--tree", "--format", "table"});
        QCOMPARE(r.exitCode, 0);
        const QStringList lines = r.out.split('\n');
        QVERIFY(lines[0].startsWith("Cray_C500_4xHDR200_1host  [complete]  —")); // a system: no numbers
        // A benchmark row has the default item name (system · workload · accelerators), not its folder's.
        QVERIFY2(r.out.contains("    Cray_C500_4xHDR200_1host · unet3d_h100 · 2 accelerators  [complete]  AU "), qPrintable(r.out.left(600)));
        QVERIFY(r.out.contains("      run-1  [complete]  AU "));
        QCOMPARE(testsupport::runCli({"aggregate", q(hpe()), "--tree", "--format", "csv"}).exitCode, 2);
    }

    void compareRowsInOrderWithJudgement() {
        const fs::path one = hpe() / "Cray_C500_4xHDR200_1host" / "unet3d_h100";    // 2 accelerators
        const fs::path three = hpe() / "Cray_C500_4xHDR200_3hosts" / "unet3d_h100"; // 3 accelerators
        const fs::path resnet = hpe() / "Cray_C500_4xHDR200_1host" / "resnet50_h100";
        const auto r = testsupport::runCli({"compare", q(one), q(three), q(resnet), "--baseline", "1", "--format", "json"});
        QCOMPARE(r.exitCode, 0);
        const json out = json::parse(r.out.toStdString());
        QCOMPARE(out["rows"].size(), std::size_t(3));
        QCOMPARE(out["per_accelerator"].get<bool>(), true); // 2, 3 and 20 accelerators
        for (const auto& row : out["rows"])
            for (const char* key : {"label", "comparable", "reason", "delta"}) QVERIFY2(row.contains(key), key);
        QCOMPARE(out["rows"][0]["label"].get<std::string>(), std::string("Cray_C500_4xHDR200_1host · unet3d_h100 · 2 accelerators"));
        QVERIFY(out["rows"][0]["delta"].is_null()); // the baseline
        QCOMPARE(out["rows"][1]["comparable"].get<bool>(), true);
        // Per accelerator, from the published reports: 3 hosts' samples/s ÷ 3 − 1 host's ÷ 2.
        const double sps1 = published(one)["train_throughput_mean_samples_per_second"];
        const double sps3 = published(three)["train_throughput_mean_samples_per_second"];
        const double delta = out["rows"][1]["delta"]["samples_per_second"]["absolute"];
        QVERIFY2(std::fabs(delta - (sps3 / 3 - sps1 / 2)) < 1e-9 * sps1, std::to_string(delta).c_str());
        QVERIFY(out["rows"][1]["delta"]["samples_per_second"]["ci95_low"].is_number());
        // MiB/s per accelerator beside samples/s (the published report's MB/s are MiB/s): 2 and 3 accelerators.
        const double mib1 = published(one)["train_throughput_mean_MB_per_second"];
        const double mib3 = published(three)["train_throughput_mean_MB_per_second"];
        const json& mibValue = out["rows"][1]["values"]["mib_per_second"];
        QVERIFY2(std::fabs(mibValue["value"].get<double>() - mib3 / 3) < 1e-9 * mib3, mibValue.dump().c_str());
        QCOMPARE(mibValue["unit"].get<std::string>(), std::string("MiB/s per accelerator"));
        const double mibDelta = out["rows"][1]["delta"]["mib_per_second"]["absolute"];
        QVERIFY2(std::fabs(mibDelta - (mib3 / 3 - mib1 / 2)) < 1e-9 * mib1, std::to_string(mibDelta).c_str());
        QVERIFY(out["rows"][0]["values"].contains("read_gib_per_second")); // the GiB/s key stays
        QCOMPARE(out["rows"][2]["comparable"].get<bool>(), false);
        QVERIFY(out["rows"][2]["delta"].is_null());
        QVERIFY(!out["rows"][2]["reason"].get<std::string>().empty());

        QVERIFY(out["rows"][2]["values"].is_null()); // hidden…
        const auto anyway = testsupport::runCli({"compare", q(one), q(resnet), "--compare-anyway", "--format", "json"});
        QCOMPARE(anyway.exitCode, 0);
        const json a = json::parse(anyway.out.toStdString())["rows"][1];
        QCOMPARE(a["comparable"].get<bool>(), false);
        QVERIFY(a["delta"].is_null()); // …shown on request, never with a delta
        const double resnetSps = published(resnet)["train_throughput_mean_samples_per_second"];
        QVERIFY(std::fabs(a["values"]["samples_per_second"]["value"].get<double>() - resnetSps / 20) < 1e-9 * resnetSps);

        // Totals on request; the baseline elsewhere.
        const auto totals = testsupport::runCli({"compare", q(one), q(three), "--baseline", "2", "--format", "json", "--no-per-accelerator"});
        QCOMPARE(totals.exitCode, 0);
        const json t = json::parse(totals.out.toStdString());
        QCOMPARE(t["baseline"].get<int>(), 2);
        const double d = t["rows"][0]["delta"]["samples_per_second"]["absolute"];
        QVERIFY(std::fabs(d - (sps1 - sps3)) < 1e-9 * sps3);

        // The runs/ of a benchmark, and one invocation folder, name items too; table is the default.
        const auto table = testsupport::runCli({"compare", q(one), q(one / "run-3")});
        QCOMPARE(table.exitCode, 0);
        QVERIFY(table.out.contains("baseline"));
        QVERIFY(table.out.contains("· run-3"));
        const auto perAcc = testsupport::runCli({"compare", q(one), q(three)});
        QCOMPARE(perAcc.exitCode, 0);
        QVERIFY2(perAcc.out.contains("Read GiB/s per acc.") && perAcc.out.contains("MiB/s per acc."), qPrintable(perAcc.out));
    }

    void compareRefusesAmbiguousOrEmptyPaths() {
        const fs::path one = hpe() / "Cray_C500_4xHDR200_1host" / "unet3d_h100";
        const auto several = testsupport::runCli({"compare", q(hpe() / "Cray_C500_4xHDR200_1host"), q(one)});
        QCOMPARE(several.exitCode, 2);
        QVERIFY2(several.err.contains(q(hpe() / "Cray_C500_4xHDR200_1host") + ": holds 2 benchmarks"), qPrintable(several.err));
        QVERIFY(several.err.contains("resnet50_h100"));
        QTemporaryDir tmp;
        const auto none = testsupport::runCli({"compare", tmp.path(), q(one)});
        QCOMPARE(none.exitCode, 2);
        QVERIFY2(none.err.contains(tmp.path() + ": holds no benchmark"), qPrintable(none.err));
        QCOMPARE(testsupport::runCli({"compare", q(one), q(one), "--baseline", "3"}).exitCode, 2);
        QCOMPARE(testsupport::runCli({"compare", q(one), "--baseline", "0"}).exitCode, 2);
        QCOMPARE(testsupport::runCli({"compare", q(one), "--format", "csv"}).exitCode, 2);
        QCOMPARE(testsupport::runCli({"compare", "/nonexistent/results"}).exitCode, 2);
        QCOMPARE(testsupport::runCli({"compare"}).exitCode, 2);
        QCOMPARE(testsupport::runCli({"compare", "--help"}).exitCode, 0);
    }

    void labelWritesTheFile() {
        QTemporaryDir tmp;
        const fs::path dir = fs::path(tmp.path().toStdString()) / "bench";
        copyTree(hpe() / "Cray_C500_4xHDR200_1host" / "unet3d_h100", dir);
        const auto r = testsupport::runCli({"label", q(dir), "--system", "lab-nvme-01", "--description",
                                            "Lustre on ClusterStor E1000, 4× HDR200; 1 client", "--notes", "firmware 1.2"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains(q(dir / "trainio_labels.json")));
        QVERIFY(r.out.contains("system: lab-nvme-01"));
        const json j = json::parse(testsupport::readText(dir / "trainio_labels.json"));
        QCOMPARE(j["system"].get<std::string>(), std::string("lab-nvme-01"));
        QCOMPARE(j["description"].get<std::string>(), std::string("Lustre on ClusterStor E1000, 4× HDR200; 1 client"));
        // A second call changes what it is given and keeps the rest.
        QCOMPARE(testsupport::runCli({"label", q(dir), "--name", "baseline"}).exitCode, 0);
        const json k = json::parse(testsupport::readText(dir / "trainio_labels.json"));
        QCOMPARE(k["system"].get<std::string>(), std::string("lab-nvme-01"));
        QCOMPARE(k["name"].get<std::string>(), std::string("baseline"));
    }

    // What `label` writes, the importer reads back: the tree shows the system name, the description
    // and the item's name instead of the folder names.
    void labelRoundTripThroughTheImporter() {
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / "results";
        const fs::path bench = root / "unet3d_h100";
        copyTree(hpe() / "Cray_C500_4xHDR200_1host" / "unet3d_h100", bench);
        QCOMPARE(testsupport::runCli({"label", q(root), "--system", "lab-lustre-01", "--description",
                                      "Lustre 2.15 on 2× E1000, 4× HDR200 IB; 1 client"}).exitCode, 0);
        QCOMPARE(testsupport::runCli({"label", q(bench), "--name", "before tuning"}).exitCode, 0);
        const auto r = testsupport::runCli({"aggregate", q(root), "--tree", "--format", "json"});
        QCOMPARE(r.exitCode, 0);
        const json tree = json::parse(r.out.toStdString())["tree"];
        QCOMPARE(tree.size(), std::size_t(1));
        QCOMPARE(tree[0]["label"].get<std::string>(), std::string("lab-lustre-01"));
        QCOMPARE(tree[0]["description"].get<std::string>(), std::string("Lustre 2.15 on 2× E1000, 4× HDR200 IB; 1 client"));
        const json& b = tree[0]["children"][0]["children"][0];
        QCOMPARE(b["level"].get<std::string>(), std::string("benchmark"));
        QCOMPARE(b["item_name"].get<std::string>(), std::string("before tuning"));
        // Its runs keep default names built from the labelled system, not the benchmark's name.
        QCOMPARE(b["children"][0]["item_name"].get<std::string>(), std::string("lab-lustre-01 · unet3d_h100 · 2 accelerators · run-1"));
    }

    // Folders TrainIO writes itself: two run-once invocations of a "tiny" model with different sample
    // sizes and one that failed (fault injection), all in one output folder.
    void generatedFoldersThroughTreeAndCompare() {
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString());
        testsupport::writeText(root / "small.yaml", tinyWorkload(root / "data-small", 65536));
        testsupport::writeText(root / "big.yaml", tinyWorkload(root / "data-big", 1 << 20));
        cli({"datagen", "--config", q(root / "small.yaml"), "--quiet"}, 0);
        cli({"datagen", "--config", q(root / "big.yaml"), "--quiet"}, 0);
        const fs::path out = root / "out";
        cli({"run", "--config", q(root / "small.yaml"), "--output", q(out / "small"), "--quiet"}, 0);
        cli({"run", "--config", q(root / "big.yaml"), "--output", q(out / "big"), "--quiet"}, 0);
        cli({"run", "--config", q(root / "small.yaml"), "--output", q(out / "failed"), "--quiet"}, 1,
            {{"TRAINIO_FAULTS", "read:EIO:img_3_of_8"}});

        const auto r = testsupport::runCli({"aggregate", q(out), "--tree", "--format", "json", "--system", "lab"});
        QCOMPARE(r.exitCode, 0);
        const json tree = json::parse(r.out.toStdString())["tree"];
        QCOMPARE(tree.size(), std::size_t(1));
        QVERIFY(tree[0]["metrics"].is_null());
        QCOMPARE(tree[0]["status"].get<std::string>(), std::string("failed")); // the worst below it
        // Same model name, different record lengths: two workloads, each holding run-once invocations
        // directly (no benchmark node), none with numbers at workload level.
        QCOMPARE(tree[0]["children"].size(), std::size_t(2));
        std::size_t invocations = 0;
        const json* failed = nullptr;
        for (const auto& w : tree[0]["children"]) {
            QCOMPARE(w["level"].get<std::string>(), std::string("workload"));
            QVERIFY(w["metrics"].is_null());
            for (const auto& item : w["children"]) {
                QCOMPARE(item["level"].get<std::string>(), std::string("invocation"));
                ++invocations;
                if (item["path"].get<std::string>() == (out / "failed").string()) failed = &item;
            }
        }
        QCOMPARE(invocations, std::size_t(3));
        for (const auto& line : tree[0]["summary"]) // a run-once invocation is never a "passing benchmark"
            QVERIFY2(line.get<std::string>().find("no benchmark, run-once invocations only") != std::string::npos, line.dump().c_str());
        QVERIFY(failed);
        QCOMPARE((*failed)["status"].get<std::string>(), std::string("failed"));
        QVERIFY((*failed)["excluded"].get<bool>());
        QVERIFY((*failed)["metrics"].is_null()); // counted in no statistic
        QVERIFY2((*failed)["status_reason"].get<std::string>().find("img_3_of_8") != std::string::npos,
                 (*failed)["status_reason"].dump().c_str());

        const auto c = testsupport::runCli({"compare", q(out / "small"), q(out / "big"), q(out / "failed"), "--format", "json"});
        QCOMPARE(c.exitCode, 0);
        const json rows = json::parse(c.out.toStdString())["rows"];
        QCOMPARE(rows.size(), std::size_t(3));
        QCOMPARE(rows[1]["comparable"].get<bool>(), false);
        QVERIFY2(rows[1]["reason"].get<std::string>().find("record length") != std::string::npos, rows[1]["reason"].dump().c_str());
        QVERIFY(rows[1]["delta"].is_null());
        QCOMPARE(rows[2]["comparable"].get<bool>(), false); // same workload, but no complete run
        QVERIFY2(rows[2]["reason"].get<std::string>().find("no complete run") != std::string::npos, rows[2]["reason"].dump().c_str());
        QVERIFY(rows[2]["values"].is_null());
    }

    void labelRefusesFoldersWithoutResults() {
        QTemporaryDir tmp;
        const auto empty = testsupport::runCli({"label", tmp.path(), "--system", "x"});
        QCOMPARE(empty.exitCode, 2);
        QVERIFY2(empty.err.contains(tmp.path()) && empty.err.contains("summary.json"), qPrintable(empty.err));
        QVERIFY(!fs::exists(fs::path(tmp.path().toStdString()) / "trainio_labels.json"));
        QCOMPARE(testsupport::runCli({"label", "/nonexistent/dir", "--system", "x"}).exitCode, 2);
        const fs::path one = hpe() / "Cray_C500_4xHDR200_1host" / "unet3d_h100";
        QCOMPARE(testsupport::runCli({"label", q(one)}).exitCode, 2); // nothing to write
        QCOMPARE(testsupport::runCli({"label", "--help"}).exitCode, 0);
    }
};

QTEST_GUILESS_MAIN(TestCliCompare)
#include "tst_cli_compare.moc"
