// Advisories (issue 33): the ledger of known score-affecting defects (resources/advisories/ledger.json,
// from mlcommons/storage's BugsFixedInVersions.md) read and matched against how a result was made: a
// recorded version older than a fix is affected; a folder with no recorded version is "possibly affected"
// only when it was made between the tool line's first release and the fix's release.
#include "testsupport.h"

#include "aggregate/advisories.h"
#include "store/invocation_record.h"
#include "util/errors.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <regex>
#include <set>

namespace fs = std::filesystem;
using nlohmann::json;
using namespace trainio;
using namespace trainio::aggregate;

namespace {

std::set<std::string> fixes(const std::vector<AdvisoryMatch>& matches) {
    std::set<std::string> out;
    for (const auto& m : matches) out.insert(m.advisory->fixedIn + " " + m.advisory->effect);
    return out;
}

const fs::path kSamsungRun = fs::path(TRAINIO_TEST_DATA) / "mlperf-storage-v3.0/closed/SAMSUNG/results/MEMORY_AE/training/unet3d/run/20260720_153950";

} // namespace

class TestAdvisories : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    fs::path tmp() const { return fs::path(dir_.path().toStdString()); }

private slots:
    void ledgerReadsAndCitesEveryEntry() {
        const AdvisoryLedger ledger = readAdvisoryLedger(advisoryLedgerPath());
        QVERIFY(ledger.tools.count("mlpstorage"));
        QVERIFY(ledger.tools.at("mlpstorage").source.find("BugsFixedInVersions.md") != std::string::npos);
        QVERIFY(ledger.advisories.size() >= 5);
        for (const auto& a : ledger.advisories) {
            QVERIFY2(!a.refs.empty(), a.effect.c_str());
            QVERIFY2(a.fixedReleased >= ledger.tools.at(a.tool).firstRelease, a.fixedIn.c_str());
        }
    }

    void versionsCompareAsNumbers() {
        QCOMPARE(compareVersions("3.0.9", "3.0.14"), -1);
        QCOMPARE(compareVersions("3.0.14", "3.0.14"), 0);
        QCOMPARE(compareVersions("3.1", "3.0.34"), 1);
        QCOMPARE(compareVersions("3.0", "3.0.0"), 0);
    }

    // A recorded version: affected by every fix after it, none before; only the benchmark kind and model
    // the entry names.
    void aRecordedVersionIsAffectedUntilItsFix() {
        const AdvisoryLedger& ledger = defaultAdvisoryLedger();
        RunProvenance run;
        run.tool = "mlpstorage";
        run.version = "3.0.12";
        run.model = "unet3d";
        const auto old = matchAdvisories(ledger, run);
        QCOMPARE(fixes(old), (std::set<std::string>{"3.0.14 AU of epochs ≥ 2 overstated", "3.0.33 required dataset size doubled (rule 3.1.2)",
                                                    "3.0.34 training file-count check skipped (rule 3.3.1)"}));
        for (const auto& m : old) QVERIFY(m.certain);
        QVERIFY2(old.front().text.rfind("measured with mlpstorage 3.0.12: AU of epochs ≥ 2 overstated, fixed in 3.0.14 (mlcommons/storage#464", 0) == 0,
                 old.front().text.c_str());
        run.version = "3.0.14";
        QVERIFY(!fixes(matchAdvisories(ledger, run)).count("3.0.14 AU of epochs ≥ 2 overstated"));
        run.version = "3.0.34";
        QVERIFY(matchAdvisories(ledger, run).empty());
        // RetinaNet's threshold and S3's short objects touch only those runs.
        run.version = "3.0.19";
        QVERIFY(!fixes(matchAdvisories(ledger, run)).count("3.0.20 RetinaNet's AU line was 90 %, the rules say 85 %"));
        run.model = "retinanet";
        QVERIFY(fixes(matchAdvisories(ledger, run)).count("3.0.20 RetinaNet's AU line was 90 %, the rules say 85 %"));
        run.s3 = true;
        QVERIFY(fixes(matchAdvisories(ledger, run)).count("3.0.28 S3 objects stored short by multipart uploads"));
        // Checkpointing runs get the checkpointing entries only.
        run.type = BenchmarkType::Checkpointing;
        run.version = "3.0.27";
        QCOMPARE(fixes(matchAdvisories(ledger, run)),
                 (std::set<std::string>{"3.0.28 checkpointing runs shown as INVALID", "3.0.33 host count wrong in the capacity check"}));
        // Another tool's recorded version says nothing about mlpstorage's defects.
        run.tool = "trainio";
        run.version = "0.1.0";
        QVERIFY(matchAdvisories(ledger, run).empty());
    }

    // Published folders record no version: a run dated inside the window is possibly affected, one dated
    // after the fix or before the line existed (MLPerf Storage v1.0, 2024) is not. Through the CLI's
    // aggregate JSON, per run and per group.
    void anUnrecordedVersionIsJudgedByItsDate() {
        const fs::path root = tmp() / "results";
        const fs::path early = root / "early/MEMORY_AE/training/unet3d/run/20260610_153950";
        fs::create_directories(early.parent_path());
        fs::copy(kSamsungRun, early, fs::copy_options::recursive);
        std::string summary = testsupport::readText(early / "summary.json");
        summary = std::regex_replace(summary, std::regex("2026-07-20T"), "2026-06-10T");
        testsupport::writeText(early / "summary.json", summary);
        const fs::path late = root / "late/MEMORY_AE/training/unet3d/run/20260720_153950";
        fs::create_directories(late.parent_path());
        fs::copy(kSamsungRun, late, fs::copy_options::recursive);

        auto r = testsupport::runCli({QStringLiteral("aggregate"), QString::fromStdString(root.string()), QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(r.exitCode, 0);
        const json out = json::parse(r.out.toStdString());
        std::map<std::string, json> byDate;
        for (const auto& g : out["groups"])
            for (const char* list : {"runs", "warmup", "excluded"})
                for (const auto& run : g[list]) byDate[run["provenance"]["date"].get<std::string>()] = run;
        QVERIFY2(byDate.count("2026-06-10") && byDate.count("2026-07-20"), out.dump().substr(0, 400).c_str());
        const json& e = byDate["2026-06-10"];
        QCOMPARE(e["provenance"]["tool"].get<std::string>(), std::string("dlio"));
        QVERIFY(e["provenance"]["version"].is_null());
        std::set<std::string> seen;
        for (const auto& a : e["advisories"]) {
            QVERIFY(!a["certain"].get<bool>());
            seen.insert(a["fixed_in"].get<std::string>());
        }
        // 2026-06-10 is before 3.0.14 (2026-06-19), 3.0.33 and 3.0.34 (July); unet3d on a file system.
        QCOMPARE(seen, (std::set<std::string>{"mlpstorage 3.0.14", "mlpstorage 3.0.33", "mlpstorage 3.0.34"}));
        QVERIFY2(e["advisories"][0]["text"].get<std::string>().rfind("possibly affected: made on 2026-06-10 by DLIO", 0) == 0,
                 e["advisories"][0]["text"].dump().c_str());
        QVERIFY(byDate["2026-07-20"]["advisories"].empty());

        // MLPerf Storage v1.0's published runs (2024): before the 3.0 line, nothing said.
        r = testsupport::runCli({QStringLiteral("aggregate"), QStringLiteral(TRAINIO_TEST_DATA "/mlperf-storage-v1.0"), QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(r.exitCode, 0);
        const json v1 = json::parse(r.out.toStdString());  // kept: a range-for over a temporary's member dangles
        for (const auto& g : v1["groups"]) {
            QVERIFY(g["advisories"].empty());
            for (const auto& run : g["runs"]) QVERIFY(run["advisories"].empty());
        }
    }

    // A broken ledger is refused, naming the file, the entry and what was expected.
    // TrainIO's own score-affecting fixes (issue 33): a run of a trace-derived workload made before the
    // replay fix is flagged, one made after it or of any other workload is not; its provenance says
    // "captured" from the resolved trainio.captured_job.* keys the importer read.
    void trainiosOwnFixFlagsCapturedRunsMadeBeforeIt() {
        const AdvisoryLedger ledger = readAdvisoryLedger(advisoryLedgerPath());
        InvocationRecord r;
        r.ioEngine = "posix"; // a TrainIO run
        r.toolVersion = "0.1.0";
        r.resolved = {{"dataset.num_files_train", "64"}, {"trainio.captured_job.trace", "/data/trace"}};
        RunProvenance run = provenanceOf(r);
        QCOMPARE(run.tool, std::string("trainio"));
        QVERIFY(run.captured);
        const auto matches = matchAdvisories(ledger, run);
        QCOMPARE(matches.size(), std::size_t(1));
        QVERIFY(matches.front().certain);
        QVERIFY2(matches.front().text.rfind("measured with trainio 0.1.0: a captured job's replay missed the job's AU", 0) == 0,
                 matches.front().text.c_str());
        QVERIFY2(matches.front().text.find("fixed in 0.1.1 (TrainIO issue #30, TrainIO commit d558f1b)") != std::string::npos,
                 matches.front().text.c_str());
        run.version = "0.1.1";
        QVERIFY(matchAdvisories(ledger, run).empty());
        r.resolved = {{"dataset.num_files_train", "64"}};
        QVERIFY(!provenanceOf(r).captured);
        QVERIFY(matchAdvisories(ledger, provenanceOf(r)).empty());
    }

    // Each TrainIO entry of the ledger is in CHANGELOG.md under its version's "Score-affecting fixes", and
    // no version fixes what this build's version has not reached.
    void trainiosLedgerAndChangelogAgree() {
        const AdvisoryLedger ledger = readAdvisoryLedger(advisoryLedgerPath());
        const std::string changelog = testsupport::readText(fs::path(TRAINIO_SOURCE_DIR) / "CHANGELOG.md");
        std::size_t own = 0;
        for (const Advisory& a : ledger.advisories) {
            if (a.tool != "trainio") continue;
            ++own;
            const auto version = changelog.find("\n## " + a.fixedIn + " ");
            QVERIFY2(version != std::string::npos, ("CHANGELOG.md has no section for " + a.fixedIn).c_str());
            const auto next = changelog.find("\n## ", version + 1);
            const std::string section = changelog.substr(version, next == std::string::npos ? std::string::npos : next - version);
            const auto fixesAt = section.find("### Score-affecting fixes");
            QVERIFY2(fixesAt != std::string::npos, a.fixedIn.c_str());
            const std::string fixesText = section.substr(fixesAt, section.find("\n### ", fixesAt + 1) - fixesAt);
            // The effect as the ledger words it (its first clause), and the applies_to key.
            const std::string clause = a.effect.substr(0, a.effect.find(" ("));
            QVERIFY2(fixesText.find(clause.substr(2)) != std::string::npos, ("the changelog does not say: " + clause).c_str());
            QVERIFY2(fixesText.find(a.appliesTo) != std::string::npos, a.appliesTo.c_str());
            QVERIFY2(compareVersions(TRAINIO_VERSION, a.fixedIn) >= 0, a.fixedIn.c_str());
        }
        QVERIFY(own >= 1);
    }

    void aBadLedgerIsNamed() {
        const fs::path bad = tmp() / "ledger.json";
        testsupport::writeText(bad, "{\"tools\": {\"mlpstorage\": {\"line\": \"3.0\", \"source\": \"x\"}}, \"advisories\": [{\"tool\": \"mlpstorage\", "
                                   "\"fixed_in\": \"3.0.14\", \"fixed_released\": \"2026-06-19\", \"applies_to\": \"training\", \"effect\": \"e\"}]}");
        try {
            readAdvisoryLedger(bad);
            QFAIL("a ledger entry without refs was read");
        } catch (const InputError& e) {
            const std::string what = e.what();
            QVERIFY2(what.find(bad.string()) != std::string::npos && what.find("advisories[0].refs") != std::string::npos, what.c_str());
        }
        testsupport::writeText(bad, "{\"tools\": {\"mlpstorage\": {\"line\": \"3.0\", \"source\": \"x\"}}, \"advisories\": [{\"tool\": \"mlpstorage\", "
                                   "\"fixed_in\": \"soon\", \"fixed_released\": \"2026-06-19\", \"applies_to\": \"training\", \"effect\": \"e\", "
                                   "\"refs\": [\"#1\"]}]}");
        try {
            readAdvisoryLedger(bad);
            QFAIL("a ledger entry with fixed_in 'soon' was read");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("advisories[0].fixed_in = soon") != std::string::npos, e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestAdvisories)
#include "tst_advisories.moc"
