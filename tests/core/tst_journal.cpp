// Nothing lost (issue 20): a run killed at any instant leaves every epoch it completed. The real
// trainio-cli is killed with SIGKILL — before its first epoch ends, and after several — and its folder is
// read back as interrupted by `trainio-cli metrics` and by the importer; a copy of a folder taken
// mid-run (what power loss leaves: no summary, no lock, maybe a torn last line) likewise; a folder whose
// run is alive is not taken for an interrupted one; the journal reader keeps its bounds and link rule.
// Expected epoch counts come from the journal lines the test itself counts, not from the reader.
#include "testsupport.h"

#include "aggregate/results_import.h"
#include "results/journal.h"
#include "util/errors.h"

#include <nlohmann/json.hpp>

#include <QElapsedTimer>
#include <QFile>

#include <csignal>
#include <fstream>

using nlohmann::json;
namespace fs = std::filesystem;
using namespace trainio;

namespace {

std::string yamlFor(const fs::path& data, int epochs, double compute) {
    return "model:\n  name: journal\nframework: pytorch\nworkflow:\n  generate_data: False\n  train: True\n"
           "dataset:\n  data_folder: " + data.string() +
           "\n  format: npz\n  num_files_train: 16\n  num_samples_per_file: 1\n  record_length_bytes: 65536\n"
           "reader:\n  data_loader: pytorch\n  batch_size: 2\n  read_threads: 2\n  file_shuffle: seed\n"
           "  sample_shuffle: seed\ntrain:\n  epochs: " + std::to_string(epochs) + "\n  computation_time: " +
           std::to_string(compute) + "\nmetric:\n  au: 0.5\n";
}

QString q(const fs::path& p) { return QString::fromStdString(p.string()); }

// Complete lines of the journal (header included) and, among them, the epoch records of each rank.
struct Lines {
    int total = 0;
    std::map<std::uint64_t, int> epochsOfRank;
};
Lines journalLines(const fs::path& file) {
    Lines out;
    std::ifstream in(file);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::size_t pos = 0;
    for (std::size_t nl; (nl = text.find('\n', pos)) != std::string::npos; pos = nl + 1) {
        ++out.total;
        const json j = json::parse(text.substr(pos, nl - pos), nullptr, false);
        if (j.is_object() && j.contains("rank") && j.value("complete", false)) ++out.epochsOfRank[j["rank"].get<std::uint64_t>()];
    }
    return out;
}

json readJson(const fs::path& p) { return json::parse(testsupport::readText(p)); }

} // namespace

class TestJournal : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    fs::path base_;
    QString cfg_;

    void startRun(QProcess& p, const fs::path& out, int accelerators = 2) {
        p.start(QStringLiteral(TRAINIO_CLI), {QStringLiteral("run"), QStringLiteral("--config"), cfg_, QStringLiteral("--output"),
                                              q(out), QStringLiteral("--accelerators"), QString::number(accelerators),
                                              QStringLiteral("--quiet")});
        QVERIFY(p.waitForStarted());
    }
    // Reads the killed run back with `trainio-cli metrics` and checks it against the journal as the test
    // counted it: every epoch that both ranks completed, and nothing else.
    void checkReadBack(const fs::path& out, int epochsBothRanks) {
        const auto m = testsupport::runCli({QStringLiteral("metrics"), q(out)});
        QVERIFY2(m.exitCode == 0, qPrintable(m.err));
        QVERIFY2(m.err.contains(QStringLiteral("interrupted")), qPrintable(m.err));
        const json metric = json::parse(m.out.toStdString());
        QCOMPARE(metric["train_au_percentage"].size(), std::size_t(epochsBothRanks));
        const json run = readJson(out / "trainio_run.json");
        QCOMPARE(run["status"].get<std::string>(), std::string("interrupted"));
        const json summary = readJson(out / "summary.json");
        QCOMPARE(summary["trainio_status"].get<std::string>(), std::string("interrupted"));
        QCOMPARE(summary["epochs"].get<int>(), epochsBothRanks); // the epochs measured
        for (int rank = 0; rank < 2; ++rank) {
            const json o = readJson(out / (std::to_string(rank) + "_output.json"));
            int epochs = 0;
            for (auto it = o.begin(); it != o.end(); ++it)
                if (it.value().is_object() && it.value().contains("proc")) ++epochs;
            QCOMPARE(epochs, epochsBothRanks);
        }
        // The importer shows it, excluded from statistics with its reason.
        const auto imported = aggregate::importResults({out});
        QCOMPARE(imported.runs.size(), std::size_t(1));
        QCOMPARE(imported.runs[0].status, aggregate::InvocationStatus::Incomplete);
        QVERIFY2(imported.runs[0].statusReason.find("interrupted") != std::string::npos, imported.runs[0].statusReason.c_str());
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        base_ = tmp_.path().toStdString();
        // 16 files, 2 ranks, 4 steps of 20 ms per epoch, 50 epochs: ~0.1 s an epoch, several seconds a run.
        testsupport::writeText(base_ / "j.yaml", yamlFor(base_ / "data", 50, 0.02));
        cfg_ = q(base_ / "j.yaml");
        QCOMPARE(testsupport::datagen(cfg_).exitCode, 0);
    }

    void sigkillAfterSeveralEpochs() {
        const fs::path out = base_ / "killed-late";
        QProcess p;
        startRun(p, out);
        const fs::path journal = out / store::kJournalFile;
        QVERIFY(testsupport::waitUntil(p, [&] { return journalLines(journal).total >= 1 + 2 * 5; }));
        ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
        QVERIFY(p.waitForFinished(testsupport::kHangMs));
        QCOMPARE(p.exitStatus(), QProcess::CrashExit);
        QVERIFY(!fs::exists(out / "summary.json")); // the process wrote nothing at its end
        QVERIFY(store::isInterrupted(out));
        const Lines l = journalLines(journal);
        const int both = std::min(l.epochsOfRank.count(0) ? l.epochsOfRank.at(0) : 0, l.epochsOfRank.count(1) ? l.epochsOfRank.at(1) : 0);
        QVERIFY(both >= 4);
        checkReadBack(out, both);
    }

    void sigkillBeforeTheFirstEpochEnds() {
        const fs::path out = base_ / "killed-early";
        QProcess p;
        startRun(p, out);
        const fs::path journal = out / store::kJournalFile;
        // The header is written (and synced) before the first step.
        QVERIFY(testsupport::waitUntil(p, [&] { return journalLines(journal).total >= 1; }));
        ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
        QVERIFY(p.waitForFinished(testsupport::kHangMs));
        const Lines l = journalLines(journal);
        const int both = std::min(l.epochsOfRank.count(0) ? l.epochsOfRank.at(0) : 0, l.epochsOfRank.count(1) ? l.epochsOfRank.at(1) : 0);
        checkReadBack(out, both);
    }

    // What power loss leaves: a copy of the folder taken while the run writes it (no summary.json, no
    // process holding the journal), its last line torn. The run itself ends normally and removes its journal.
    void powerLossCopyAndALiveRun() {
        const fs::path out = base_ / "live";
        QProcess p;
        startRun(p, out);
        const fs::path journal = out / store::kJournalFile;
        QVERIFY(testsupport::waitUntil(p, [&] { return journalLines(journal).total >= 1 + 2 * 3; }));
        // Alive: held, so neither interrupted nor read back by the importer.
        QVERIFY(store::isRunning(out));
        QVERIFY(!store::isInterrupted(out));
        const auto whileRunning = aggregate::importResults({out});
        QCOMPARE(whileRunning.runs.size(), std::size_t(0));
        QVERIFY(!whileRunning.skipped.empty());
        QVERIFY(whileRunning.skipped[0].reason.find("still writing") != std::string::npos);

        const fs::path copy = base_ / "power-loss";
        fs::copy(out, copy, fs::copy_options::recursive);
        QVERIFY(!fs::exists(copy / "summary.json"));
        {
            std::ofstream torn(copy / store::kJournalFile, std::ios::app);
            torn << R"({"rank":0,"epoch":99,"start":1.0,"end":2.0,"complete":tr)"; // cut mid-line
        }
        const Lines l = journalLines(copy / store::kJournalFile);
        const int both = std::min(l.epochsOfRank.count(0) ? l.epochsOfRank.at(0) : 0, l.epochsOfRank.count(1) ? l.epochsOfRank.at(1) : 0);
        QVERIFY(store::isInterrupted(copy));
        const RunOutcome r = store::completeInterrupted(copy);
        QCOMPARE(r.metrics.auPerEpoch.size(), std::size_t(both));
        const json run = readJson(copy / "trainio_run.json");
        QVERIFY2(run["warnings"].dump().find("cut off") != std::string::npos, run["warnings"].dump().c_str());

        ::kill(static_cast<pid_t>(p.processId()), SIGINT); // a graceful end: the folder is written, the journal goes
        QVERIFY(p.waitForFinished(testsupport::kHangMs));
        QCOMPARE(p.exitCode(), 1); // cancelled
        QVERIFY(fs::exists(out / "summary.json"));
        QVERIFY(!fs::exists(journal));
        QCOMPARE(readJson(out / "trainio_run.json")["status"].get<std::string>(), std::string("cancelled"));
    }

    void readerBoundsAndLinks() {
        const fs::path dir = base_ / "bad";
        fs::create_directories(dir);
        const fs::path real = base_ / "elsewhere.jsonl";
        testsupport::writeText(real, "{\"trainio_journal\":1}\n");
        fs::create_symlink(real, dir / store::kJournalFile);
        try {
            store::readJournal(dir);
            QFAIL("a symbolic link was read");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("symbolic link") != std::string::npos, e.what());
        }
        fs::remove(dir / store::kJournalFile);
        const std::string header = R"({"trainio_journal":1,"accelerators":1,"processes":1,"semantics":"v2","start":1.0,"host":{}})";
        testsupport::writeText(dir / store::kJournalFile, header + "\nnot json\n" + header + "\n");
        try {
            store::readJournal(dir);
            QFAIL("a bad line was accepted");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find(":2:") != std::string::npos, e.what());
        }
        testsupport::writeText(dir / store::kJournalFile, header + "\n" + R"({"rank":3,"epoch":1,"start":1,"end":2,"complete":true,"blocks":[]})" + "\n");
        try {
            store::readJournal(dir);
            QFAIL("a rank beyond the header was accepted");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("rank") != std::string::npos, e.what());
        }
        try {
            store::readJournal(dir, 16);
            QFAIL("the size bound was not applied");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("more than") != std::string::npos, e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestJournal)
#include "tst_journal.moc"
