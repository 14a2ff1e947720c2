// Collocated workloads (issue 23): `trainio-cli collocate --plan PLAN.yaml --output DIR` runs the real CLI
// here. Checked: the plan's errors (exit 2 naming the plan, the workload and the key), two and three
// workloads whose measured windows overlap, one shared emulated device whose bandwidth their delivered
// MiB/s add up to at most (+5 %) while each gets less than alone, staggered starts, rounds that start
// together with --runs, a cancel (SIGINT) and a SIGKILL mid-collocation, and each workload's result saying
// its process counters were shared. Expected figures come from the plan and the device, not from the code.
#include "collocation_support.h"
#include "testsupport.h"

#include "model/collocation_model.h"
#include "results/journal.h"

#include <nlohmann/json.hpp>

#include <QElapsedTimer>

#include <cmath>
#include <csignal>

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

using collocationtest::mibPerSecond;
using collocationtest::workloadYaml;

json readJson(const fs::path& p) { return json::parse(testsupport::readText(p)); }
QString q(const fs::path& p) { return QString::fromStdString(p.string()); }

double meanOf(const json& list) {
    double sum = 0;
    for (const auto& v : list) sum += v.get<double>();
    return list.empty() ? NAN : sum / static_cast<double>(list.size());
}

// The mean AU over the epochs of one invocation, from its summary.json.
double epochAuMean(const fs::path& invocation) {
    return meanOf(readJson(invocation / "summary.json")["metric"]["train_au_percentage"]);
}

// The collocation node of `aggregate --tree --format json` (the first), or null.
const json* collocationNode(const json& tree) {
    for (const auto& sys : tree["tree"])
        for (const auto& n : sys["children"])
            if (n["level"] == "collocation") return &n;
    return nullptr;
}

const json* interferenceOf(const json& node, const std::string& name) {
    for (const auto& w : node["interference"]["workloads"])
        if (w["name"] == name) return &w;
    return nullptr;
}

} // namespace

class TestCollocation : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    fs::path base_;

    // A workload file w<name>.yaml in the test folder, its dataset beside it.
    std::string workload(const std::string& name, int files = 16, int recordKiB = 256, int epochs = 2, double compute = 0.005) {
        testsupport::writeText(base_ / (name + ".yaml"), workloadYaml(base_ / ("data_" + name), files, recordKiB, epochs, compute));
        return name + ".yaml";
    }
    fs::path plan(const std::string& file, const std::string& text) {
        testsupport::writeText(base_ / file, text);
        return base_ / file;
    }
    testsupport::CliResult collocate(const fs::path& planFile, const fs::path& out, const QStringList& extra = {}) {
        return testsupport::runCli(QStringList{QStringLiteral("collocate"), QStringLiteral("--plan"), q(planFile),
                                               QStringLiteral("--output"), q(out), QStringLiteral("--quiet")} +
                                   extra);
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        base_ = tmp_.path().toStdString();
    }

    // Every plan error is exit 2, names the plan file and what is wrong, and measures nothing.
    void badPlansAreRefused() {
        const std::string a = workload("pa"), b = workload("pb");
        const auto check = [&](const std::string& text, std::initializer_list<const char*> words) {
            const fs::path p = plan("bad.yaml", text);
            const fs::path out = base_ / "bad-out";
            const auto r = collocate(p, out);
            QVERIFY2(r.exitCode == 2, qPrintable(QString::fromStdString(text) + " -> " + r.err));
            QVERIFY2(r.err.contains(q(p)), qPrintable(r.err));
            for (const char* w : words) QVERIFY2(r.err.contains(QString::fromUtf8(w)), qPrintable(r.err + " lacks " + w));
            QVERIFY(!fs::exists(out / "trainio_collocation.json"));
        };
        check("workloads:\n  - {name: a, config: " + a + "}\n", {"two or more"});
        check("workloads:\n  - {name: a, config: " + a + "}\n  - {name: a, config: " + b + "}\n", {"'a'", "unique"});
        check("workloads:\n  - {name: 'a b', config: " + a + "}\n  - {name: c, config: " + b + "}\n", {"'a b'", "folder name"});
        check("workloads:\n  - {name: a, config: " + a + ", acelerators: 2}\n  - {name: c, config: " + b + "}\n",
              {"unknown key 'acelerators'", "accelerators"});
        check("workload:\n  - {name: a, config: " + a + "}\n", {"unknown key 'workload'"});
        check("workloads:\n  - {name: a, config: " + a + ", accelerators: 0}\n  - {name: c, config: " + b + "}\n",
              {"workload 'a'", "accelerators"});
        check("workloads:\n  - {name: a, config: " + a + "}\n  - {name: c, config: " + b +
                  "}\nstorage: {bandwith_mib_s: 10}\n",
              {"bandwith_mib_s"});
        check("workloads:\n  - {name: a, config: " + a +
                  ", overrides: ['++workload.trainio.storage.bandwidth_mib_s=50']}\n  - {name: c, config: " + b + "}\n",
              {"workload 'a'", "trainio.storage", "storage:"});
        check("workloads:\n  - {name: a, config: " + a + ", overrides: ['++workload.trainio.cache=drop']}\n  - {name: c, config: " +
                  b + "}\n",
              {"workload 'a'", "trainio.cache = drop"});
        // `hosts` (placement under mpirun): a list of host names, each once.
        check("workloads:\n  - {name: a, config: " + a + ", hosts: node1}\n  - {name: c, config: " + b + "}\n",
              {"workload 'a'", "hosts", "list of one or more host names"});
        check("workloads:\n  - {name: a, config: " + a + ", hosts: []}\n  - {name: c, config: " + b + "}\n",
              {"workload 'a'", "hosts", "list of one or more host names"});
        check("workloads:\n  - {name: a, config: " + a + ", hosts: ['node 1']}\n  - {name: c, config: " + b + "}\n",
              {"workload 'a'", "hosts: 'node 1'", "expected a host name"});
        check("workloads:\n  - {name: a, config: " + a + ", hosts: [n1, n1]}\n  - {name: c, config: " + b + "}\n",
              {"workload 'a'", "hosts: 'n1'", "named twice"});
        // A workload that cannot form a step: 16 files, batch 2, 16 accelerators → no step per accelerator.
        check("workloads:\n  - {name: big, config: " + a + ", accelerators: 16}\n  - {name: c, config: " + b + "}\n",
              {"workload 'big'"});
    }

    // `hosts` places a workload under mpirun only: in one process every workload runs here, and that is said.
    void hostsInOneProcessAreSaid() {
        const std::string a = workload("ha"), b = workload("hb");
        const fs::path p = plan("hosts.yaml", "workloads:\n  - {name: a, config: " + a + ", hosts: [node7]}\n"
                                              "  - {name: b, config: " + b + "}\n");
        const fs::path out = base_ / "hosts-one";
        const auto r = testsupport::runCli(QStringList{QStringLiteral("collocate"), QStringLiteral("--plan"), q(p),
                                                       QStringLiteral("--output"), q(out)});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("a: hosts: not used in one process (every workload runs here)")), qPrintable(r.err));
        const json c = readJson(out / "trainio_collocation.json");
        QCOMPARE(c["status"].get<std::string>(), std::string("complete"));
        QVERIFY2(!c.contains("mpi") || c["mpi"].empty(), c.dump().c_str());
    }

    // Two workloads on one emulated 100 MiB/s device: their windows overlap, their delivered MiB/s add up
    // to at most the device's bandwidth (+5 %), and each gets less than it gets alone on the same device.
    void twoWorkloadsShareOneDevice() {
        const std::string a = workload("sa", 32, 1024, 3, 0.002), b = workload("sb", 32, 1024, 3, 0.002);
        const double bandwidth = 100;
        const fs::path p = plan("shared.yaml", "workloads:\n  - {name: a, config: " + a + ", accelerators: 2}\n"
                                               "  - {name: b, config: " + b + ", accelerators: 2}\n"
                                               "storage: {bandwidth_mib_s: " + std::to_string(bandwidth) + "}\n");
        const fs::path out = base_ / "shared";
        const auto r = collocate(p, out);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(r.out.trimmed(), q(out / "trainio_collocation.json"));
        const json c = readJson(out / "trainio_collocation.json");
        QCOMPARE(c["status"].get<std::string>(), std::string("complete"));
        QCOMPARE(c["workloads"].size(), std::size_t(2));
        QCOMPARE(c["shared_storage"]["bandwidth_mib_s"].get<double>(), bandwidth);
        const json& wa = c["workloads"][0];
        const json& wb = c["workloads"][1];
        QVERIFY(wa["start"].get<double>() < wb["end"].get<double>() && wb["start"].get<double>() < wa["end"].get<double>());
        const double sum = mibPerSecond(out / "a") + mibPerSecond(out / "b");
        QVERIFY2(sum <= bandwidth * 1.05, qPrintable(QStringLiteral("%1 MiB/s together on a %2 MiB/s device").arg(sum).arg(bandwidth)));
        const double wall = c["end"].get<double>() - c["start"].get<double>();
        const double total = c["process_io"]["bytes_delivered"].get<double>() / 1048576.0 / wall;
        QVERIFY2(total <= bandwidth * 1.05, qPrintable(QStringLiteral("%1 MiB/s over the collocation").arg(total)));
        // Alone on the same device.
        const auto alone = testsupport::runCli({QStringLiteral("run"), QStringLiteral("--config"), q(base_ / a),
                                                QStringLiteral("--output"), q(base_ / "alone-a"), QStringLiteral("--quiet"),
                                                QStringLiteral("--accelerators"), QStringLiteral("2"),
                                                QStringLiteral("++workload.trainio.storage.bandwidth_mib_s=100")});
        QVERIFY2(alone.exitCode == 0, qPrintable(alone.err));
        const double aloneMiB = mibPerSecond(base_ / "alone-a");
        QVERIFY2(mibPerSecond(out / "a") < 0.8 * aloneMiB && mibPerSecond(out / "b") < 0.8 * aloneMiB,
                 qPrintable(QStringLiteral("collocated %1 and %2 MiB/s against %3 alone")
                                .arg(mibPerSecond(out / "a"))
                                .arg(mibPerSecond(out / "b"))
                                .arg(aloneMiB)));
        // Each workload's folder is an ordinary invocation that says its process counters were shared.
        const json io = readJson(out / "a" / "trainio_io.json");
        QVERIFY(io["epochs"][0]["percent_from_cache"].is_null());
        QCOMPARE(io["storage"]["bandwidth_mib_s"].get<double>(), bandwidth);
        QCOMPARE(io["storage"]["shared_with"].get<std::string>(), std::string("b"));
        bool said = false;
        const json run = readJson(out / "a" / "trainio_run.json");
        for (const auto& w : run["warnings"])
            said = said || w.get<std::string>().find("collocated with b") != std::string::npos;
        QVERIFY(said);
        QVERIFY(!c["process_io"]["bytes_from_storage"].is_null() || !fs::exists("/proc/self/io"));
    }

    // Three workloads on the real storage, the third starting 0.5 s after the others.
    void threeWorkloadsWithAStaggeredStart() {
        const std::string a = workload("ta", 16, 256, 12, 0.01), b = workload("tb", 16, 256, 30, 0.01), c3 = workload("tc", 16, 256, 4, 0.01);
        const fs::path p = plan("three.yaml", "workloads:\n  - {name: a, config: " + a + "}\n  - {name: b, config: " + b +
                                                  ", accelerators: 2}\n  - {name: c, config: " + c3 + ", start_after_s: 0.5}\n");
        const fs::path out = base_ / "three";
        const auto r = collocate(p, out);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const json c = readJson(out / "trainio_collocation.json");
        QCOMPARE(c["workloads"].size(), std::size_t(3));
        QVERIFY(c["shared_storage"].empty());
        const double startA = c["workloads"][0]["start"].get<double>(), startC = c["workloads"][2]["start"].get<double>();
        QVERIFY2(startC - startA >= 0.45, qPrintable(QStringLiteral("c started %1 s after a").arg(startC - startA)));
        // All three at once: the latest start before the earliest end (a runs 12 epochs of 8 steps at 10 ms, about
        // 1 s; b 30 epochs of 4 steps, about 1.2 s; c 4 epochs of 8 steps from 0.5 s).
        double latestStart = 0, earliestEnd = INFINITY;
        for (const auto& w : c["workloads"]) {
            latestStart = std::max(latestStart, w["start"].get<double>());
            earliestEnd = std::min(earliestEnd, w["end"].get<double>());
        }
        QVERIFY2(latestStart < earliestEnd, qPrintable(QStringLiteral("the last started %1 s after the first ended").arg(latestStart - earliestEnd)));
        for (const char* n : {"a", "b", "c"}) {
            QVERIFY(fs::exists(out / n / "summary.json"));
            // Real storage stays "storage": {} (what the importer reads as real), shared or not.
            QVERIFY(readJson(out / n / "trainio_io.json")["storage"].empty());
        }
    }

    // --runs 2 --warmup 1: three rounds, each started together; every workload's folder is a benchmark.
    void roundsStartTogether() {
        const std::string a = workload("ra"), b = workload("rb", 16, 256, 3, 0.01);
        const fs::path p = plan("rounds.yaml", "workloads:\n  - {name: a, config: " + a + "}\n  - {name: b, config: " + b + "}\n");
        const fs::path out = base_ / "rounds";
        const auto r = collocate(p, out, {QStringLiteral("--runs"), QStringLiteral("2"), QStringLiteral("--warmup"), QStringLiteral("1")});
        collocationtest::checkRoundsStartTogether(r, out, 3); // b is slower (10 ms compute)
        if (QTest::currentTestFailed()) return;
        for (const char* n : {"a", "b"}) {
            QVERIFY(fs::exists(out / n / "runs" / "run-2" / "summary.json"));
            QVERIFY(fs::exists(out / n / "warmup" / "summary.json"));
        }
    }

    // --alone: each workload alone first, then together; the interference compares like with like.
    void interferenceAgainstAlone() {
        const std::string a = workload("ia", 32, 1024, 2, 0.002), b = workload("ib", 32, 1024, 2, 0.002);
        const fs::path p = plan("alone.yaml", "workloads:\n  - {name: a, config: " + a + ", accelerators: 2}\n"
                                              "  - {name: b, config: " + b + ", accelerators: 1}\nstorage: {bandwidth_mib_s: 100}\n");
        for (const bool runs : {true, false}) {
            const fs::path out = base_ / (runs ? "alone-runs" : "alone-once");
            QStringList extra{QStringLiteral("--alone")};
            if (runs) extra << QStringLiteral("--runs") << QStringLiteral("2") << QStringLiteral("--warmup") << QStringLiteral("0");
            const auto r = collocate(p, out, extra);
            json c;
            std::string lost;
            collocationtest::readInterference(r, out, 2, c, lost);
            if (QTest::currentTestFailed()) return;
            for (const auto& x : c["interference"]["workloads"]) {
                const std::string name = x["name"].get<std::string>();
                QCOMPARE(x["unit"].get<std::string>(), std::string(runs ? "runs" : "epochs of one invocation"));
                QCOMPARE(x["n_alone"].get<std::size_t>(), std::size_t(2)); // 2 runs, or 2 epochs
                // Sharing a 100 MiB/s device that each fills alone costs both of them read rate. Their AU falls
                // too only when the device binds: on a client the sanitizers slow to ~5 % AU the client's CPU
                // binds alone and together alike, so the AU points lost are checked as what they are (alone −
                // together), not for their sign.
                QVERIFY2(x["slowdown_percent"].get<double>() > 10, x.dump().c_str());
                QVERIFY2(std::abs(x["au_points_lost"].get<double>() -
                                  (x["au_alone_percent"].get<double>() - x["au_together_percent"].get<double>())) < 1e-9,
                         x.dump().c_str());
                QVERIFY(x["au_points_lost_ci95"][0].get<double>() <= x["au_points_lost"].get<double>());
                QVERIFY(x["au_points_lost_ci95"][1].get<double>() >= x["au_points_lost"].get<double>());
                QVERIFY(x["rule"].get<std::string>().find(runs ? "Welch" : "not independent runs") != std::string::npos);
                QVERIFY(fs::exists(out / "alone" / name / (runs ? "trainio_benchmark.json" : "summary.json")));
            }
            QVERIFY(r.err.contains(QStringLiteral("lost most: ") + QString::fromStdString(lost)));

            // The library: one collocation item holding the two workloads' items (named with whom they ran);
            // the alone runs stay under their workloads.
            const auto tree = testsupport::runCli({QStringLiteral("aggregate"), q(out), QStringLiteral("--tree"), QStringLiteral("--format"),
                                                   QStringLiteral("json")});
            QVERIFY2(tree.exitCode == 0, qPrintable(tree.err));
            const json t = json::parse(tree.out.toStdString());
            QCOMPARE(t["tree"].size(), std::size_t(1));
            int collocations = 0, aloneItems = 0;
            for (const auto& n : t["tree"][0]["children"]) {
                if (n["level"] == "collocation") {
                    ++collocations;
                    QCOMPARE(n["children"].size(), std::size_t(2));
                    for (const auto& item : n["children"]) {
                        const std::string label = item["label"].get<std::string>();
                        QVERIFY2(label.find("collocated with") != std::string::npos, label.c_str());
                        QCOMPARE(item["level"].get<std::string>(), std::string(runs ? "benchmark" : "invocation"));
                    }
                } else {
                    QCOMPARE(n["level"].get<std::string>(), std::string("workload"));
                    for (const auto& item : n["children"]) {
                        QVERIFY(item["label"].get<std::string>().find("collocated") == std::string::npos);
                        ++aloneItems;
                    }
                }
            }
            QCOMPARE(collocations, 1);
            QCOMPARE(aloneItems, 2);
            // The library compares with the collocation's own alone runs and finds what the collocation found.
            const json* node = collocationNode(t);
            QVERIFY(node);
            for (const auto& x : c["interference"]["workloads"]) {
                const json* w = interferenceOf(*node, x["name"].get<std::string>());
                QVERIFY2(w && (*w)["compared"].get<bool>(), node->dump().c_str());
                QVERIFY((*w)["alone_from_collocate"].get<bool>());
                QVERIFY2((*w)["source"].get<std::string>().find("collocate --alone") != std::string::npos, w->dump().c_str());
                for (const char* key : {"au_alone_percent", "au_together_percent", "au_points_lost", "mib_s_alone", "slowdown_percent"})
                    QVERIFY2(std::abs((*w)[key].get<double>() - x[key].get<double>()) < 1e-6 * std::max(1.0, std::abs(x[key].get<double>())),
                             qPrintable(QStringLiteral("%1: library %2, file %3").arg(key).arg((*w)[key].get<double>()).arg(x[key].get<double>())));
            }
            QVERIFY((*node)["interference"]["lost_most"] == c["interference"]["lost_most"]);
        }
    }

    // Without --alone, the library compares each collocated workload with alone runs of the same benchmark
    // identity it holds (same workload, accelerators, emulated device; same system), says which it used, and
    // refuses the others with the reason. Where a run's data lies is a location, not part of the identity
    // (issue 30): b is another workload by its compute time (5.1 ms), not by its data folder.
    void theLibraryFindsAloneRunsOfTheSameBenchmark() {
        const std::string a = workload("la", 32, 256, 3, 0.005), b = workload("lb", 32, 256, 3, 0.0051);
        const fs::path root = base_ / "lib";
        const fs::path p = plan("lib.yaml", "workloads:\n  - {name: a, config: " + a + ", accelerators: 2}\n"
                                            "  - {name: b, config: " + b + ", accelerators: 1}\nstorage: {bandwidth_mib_s: 100}\n");
        QCOMPARE(collocate(p, root / "together").exitCode, 0);
        const auto alone = [&](const std::string& cfg, const char* accelerators, const char* bandwidth, const char* folder) {
            const auto r = testsupport::runCli({QStringLiteral("run"), QStringLiteral("--config"), q(base_ / cfg), QStringLiteral("--output"),
                                                q(root / folder), QStringLiteral("--quiet"), QStringLiteral("--accelerators"),
                                                QString::fromLatin1(accelerators),
                                                QStringLiteral("++workload.trainio.storage.bandwidth_mib_s=%1").arg(QString::fromLatin1(bandwidth))});
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        };
        alone(a, "2", "100", "solo-a");     // a's benchmark: the one to compare with
        alone(a, "2", "50", "solo-a-50");   // a on another device: not it
        alone(b, "2", "100", "solo-b-2x");  // b with two accelerators: not b's benchmark
        alone(b, "1", "50", "solo-b-50");   // b on another device: not b's benchmark either
        const auto tree = [&](const QStringList& roots, const QStringList& extra = {}) {
            const auto r = testsupport::runCli(QStringList{QStringLiteral("aggregate")} + roots +
                                               QStringList{QStringLiteral("--tree"), QStringLiteral("--format"), QStringLiteral("json")} + extra);
            return r.exitCode == 0 ? json::parse(r.out.toStdString()) : json();
        };
        const json t = tree({q(root)});
        const json* node = collocationNode(t);
        QVERIFY2(node, t.dump().c_str());
        const json* wa = interferenceOf(*node, "a");
        const json* wb = interferenceOf(*node, "b");
        QVERIFY(wa && wb);
        QVERIFY2((*wa)["compared"].get<bool>(), wa->dump().c_str());
        QVERIFY(!(*wa)["alone_from_collocate"].get<bool>());
        QVERIFY2((*wa)["source"].get<std::string>().find("solo-a,") != std::string::npos, wa->dump().c_str());
        QVERIFY((*wa)["alone_path"].get<std::string>().find("solo-a-50") == std::string::npos);
        // Epochs of one invocation each side, from the two summary.json files.
        QCOMPARE((*wa)["unit"].get<std::string>(), std::string("epochs of one invocation"));
        QCOMPARE((*wa)["n_alone"].get<std::size_t>(), std::size_t(3));
        const double auAlone = epochAuMean(root / "solo-a"), auTogether = epochAuMean(root / "together" / "a");
        QVERIFY2(std::abs((*wa)["au_alone_percent"].get<double>() - auAlone) < 1e-9, wa->dump().c_str());
        QVERIFY2(std::abs((*wa)["au_points_lost"].get<double>() - (auAlone - auTogether)) < 1e-9, wa->dump().c_str());
        // b: refused, naming what differs.
        QVERIFY(!(*wb)["compared"].get<bool>());
        const std::string why = (*wb)["why"].get<std::string>();
        QVERIFY2(why.find("accelerators: 2 vs 1") != std::string::npos, why.c_str());
        QVERIFY2(why.find("bandwidth_mib_s: 50 vs 100") != std::string::npos, why.c_str());
        QCOMPARE((*node)["interference"]["lost_most"].get<std::string>(), std::string("a"));
        // The text tree says the same, under the collocation.
        const auto text = testsupport::runCli({QStringLiteral("aggregate"), q(root), QStringLiteral("--tree"), QStringLiteral("--format"),
                                               QStringLiteral("table")});
        QVERIFY2(text.out.contains(QStringLiteral("b: not compared")) && text.out.contains(QStringLiteral("against alone runs found in the library")),
                 qPrintable(text.out));
        // Another system is another storage under test: refused, until both are labelled one system.
        const json apart = tree({q(root / "together"), q(root / "solo-a")});
        const json* wApart = collocationNode(apart) ? interferenceOf(*collocationNode(apart), "a") : nullptr;
        QVERIFY2(wApart && !(*wApart)["compared"].get<bool>() && (*wApart)["why"].get<std::string>().find("system") != std::string::npos,
                 apart.dump().c_str());
        const json labelled = tree({q(root / "together"), q(root / "solo-a")}, {QStringLiteral("--system"), QStringLiteral("lab")});
        const json* wLab = collocationNode(labelled) ? interferenceOf(*collocationNode(labelled), "a") : nullptr;
        QVERIFY2(wLab && (*wLab)["compared"].get<bool>(), labelled.dump().c_str());
    }

    // trainio_collocation.json is read under the store's rules: a broken one is skipped with its reason, and
    // its workloads import as ordinary items.
    void aBrokenCollocationFileIsSkippedWithItsReason() {
        const std::string a = workload("ba"), b = workload("bb");
        const fs::path p = plan("broken.yaml", "workloads:\n  - {name: a, config: " + a + "}\n  - {name: b, config: " + b + "}\n");
        const fs::path out = base_ / "broken";
        QCOMPARE(collocate(p, out).exitCode, 0);
        testsupport::writeText(out / "trainio_collocation.json", "{\"status\": \"complete\", \"workloads\": 3}");
        const auto r = testsupport::runCli({QStringLiteral("aggregate"), q(out), QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const json j = json::parse(r.out.toStdString());
        bool named = false;
        for (const auto& sk : j["skipped"])
            named = named || (sk["path"].get<std::string>().find("trainio_collocation.json") != std::string::npos &&
                              sk["reason"].get<std::string>().find("workloads") != std::string::npos);
        QVERIFY2(named, j["skipped"].dump().c_str());
        QCOMPARE(j["groups"].size(), std::size_t(2));
    }

    // The device divided by weighted max-min fairness: shares worked out by hand.
    void waterFillingSharesTheDevice() {
        using trainio::model::waterFill;
        const auto near = [](const std::vector<double>& got, const std::vector<double>& want) {
            if (got.size() != want.size()) return false;
            for (std::size_t i = 0; i < got.size(); ++i)
                if (std::abs(got[i] - want[i]) > 1e-9) return false;
            return true;
        };
        QVERIFY(near(waterFill({1, 1}, {1, 2}), {1.0 / 3, 2.0 / 3}));     // both want all: by weight
        QVERIFY(near(waterFill({0.2, 1}, {1, 1}), {0.2, 0.8}));           // the modest one is met, the rest to the other
        QVERIFY(near(waterFill({0.3, 0.3}, {1, 5}), {0.3, 0.3}));         // room for both
        QVERIFY(near(waterFill({0.2, 0.5, 1}, {1, 1, 1}), {0.2, 0.4, 0.4})); // met, then an even split of 0.8
        QVERIFY(near(waterFill({0, 1}, {4, 1}), {0, 1}));                 // an idle workload takes nothing
    }

    // `model --plan`: each workload alone and on its share of the plan's device; refused without a device.
    void modelPredictsAPlan() {
        const std::string a = workload("ma", 32, 1024, 2, 0.002), b = workload("mb", 32, 1024, 2, 0.002);
        const fs::path p = plan("model.yaml", "workloads:\n  - {name: a, config: " + a + ", accelerators: 2}\n"
                                              "  - {name: b, config: " + b + ", accelerators: 2}\nstorage: {bandwidth_mib_s: 100}\n");
        const auto r = testsupport::runCli({QStringLiteral("model"), QStringLiteral("--plan"), q(p), QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j["workloads"].size(), std::size_t(2));
        double shares = 0, mib = 0;
        for (const auto& w : j["workloads"]) {
            shares += w["device_share"].get<double>();
            mib += w["collocated"]["predicted_mib_per_second"].get<double>();
            QVERIFY(w["collocated"]["predicted_au_percentage"].get<double>() <= w["alone"]["predicted_au_percentage"].get<double>());
        }
        QVERIFY(std::abs(shares - 1.0) < 1e-9); // both want the whole device
        QVERIFY2(mib <= 100 * 1.001, qPrintable(QString::number(mib)));
        // Two equal workloads: an even split.
        QVERIFY(std::abs(j["workloads"][0]["device_share"].get<double>() - 0.5) < 1e-9);
        const fs::path none = plan("model-none.yaml", "workloads:\n  - {name: a, config: " + a + "}\n  - {name: b, config: " + b + "}\n");
        const auto refused = testsupport::runCli({QStringLiteral("model"), QStringLiteral("--plan"), q(none)});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains(QStringLiteral("storage")), qPrintable(refused.err));
    }

    // SIGINT stops every workload; SIGKILL leaves each workload's folder interrupted (its journal) and the
    // collocation file saying it was running.
    void cancelAndKill() {
        const std::string a = workload("ka", 16, 256, 200, 0.01), b = workload("kb", 16, 256, 200, 0.01);
        const fs::path p = plan("kill.yaml", "workloads:\n  - {name: a, config: " + a + "}\n  - {name: b, config: " + b + "}\n");
        for (int sig : {SIGINT, SIGKILL}) {
            const fs::path out = base_ / (sig == SIGINT ? "cancelled" : "killed");
            QProcess proc;
            proc.start(QStringLiteral(TRAINIO_CLI), {QStringLiteral("collocate"), QStringLiteral("--plan"), q(p), QStringLiteral("--output"),
                                                     q(out), QStringLiteral("--quiet")});
            QVERIFY(proc.waitForStarted());
            // Until both workloads have journalled a completed epoch.
            QElapsedTimer t;
            t.start();
            auto epochDone = [&](const char* n) {
                const fs::path j = out / n / "trainio_journal.jsonl";
                return fs::exists(j) && testsupport::readText(j).find("\"complete\":true") != std::string::npos;
            };
            while (!(epochDone("a") && epochDone("b")) && t.elapsed() < 60000 && proc.state() == QProcess::Running)
                proc.waitForFinished(20);
            QVERIFY2(proc.state() == QProcess::Running, qPrintable(QString::fromLocal8Bit(proc.readAllStandardError())));
            ::kill(static_cast<pid_t>(proc.processId()), sig);
            QVERIFY(proc.waitForFinished(testsupport::kHangMs));
            const json c = readJson(out / "trainio_collocation.json");
            if (sig == SIGINT) {
                QCOMPARE(proc.exitCode(), 1);
                QCOMPARE(c["status"].get<std::string>(), std::string("cancelled"));
                for (const char* n : {"a", "b"})
                    QCOMPARE(readJson(out / n / "trainio_run.json")["status"].get<std::string>(), std::string("cancelled"));
            } else {
                QCOMPARE(c["status"].get<std::string>(), std::string("running"));
                for (const char* n : {"a", "b"}) {
                    QVERIFY2(trainio::store::isInterrupted(out / n), n);
                    const auto m = testsupport::runCli({QStringLiteral("metrics"), q(out / n)});
                    QVERIFY2(m.exitCode == 0, qPrintable(m.err));
                    QVERIFY2(m.err.contains(QStringLiteral("interrupted")), qPrintable(m.err));
                }
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestCollocation)
#include "tst_collocation.moc"
