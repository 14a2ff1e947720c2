// Faults in the I/O layer (docs/reliability.md): the FaultInjectingBackend itself, then the engine,
// the result writer and the generator under read errors, short reads, latency spikes, files deleted
// or truncated during a run, a full disk and denied permissions — in process (what the RunOutcome and
// the folder say) and through the real trainio-cli with the TRAINIO_FAULTS hook (exit code 1, never a
// signal; the message names the file and the operation).
#include "testsupport.h"

#include "config/config_loader.h"
#include "dataset/dataset_generator.h"
#include "io/fault_injection.h"
#include "session/benchmark_runner.h"
#include "util/errors.h"

#include <nlohmann/json.hpp>

#include <QProcessEnvironment>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

using namespace trainio;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// 16 npz files of ~128 KiB, one sample each, batch 2, 2 reader threads. transfer_size above the file
// size makes a file one pread (cut in two by an after=65536 rule), so skip counts are exact.
std::string tinyYaml(const fs::path& data, int epochs = 3, const std::string& format = "npz") {
    return "model:\n  name: tiny\nframework: pytorch\nworkflow:\n  generate_data: False\n  train: True\n"
           "dataset:\n  data_folder: " + data.string() + "\n  format: " + format +
           "\n  num_files_train: 16\n  num_samples_per_file: 1\n  record_length_bytes: 131072\n"
           "  record_length_bytes_stdev: 8192\nreader:\n  data_loader: pytorch\n  batch_size: 2\n  read_threads: 2\n"
           "  transfer_size: 1048576\n  file_shuffle: seed\n  sample_shuffle: seed\ntrain:\n  epochs: " +
           std::to_string(epochs) + "\n  computation_time: 0.001\nmetric:\n  au: 0.5\n";
}

WorkloadConfig tinyConfig(const fs::path& data, int epochs = 3, const std::string& format = "npz") {
    return loadWorkloadConfigFromString(tinyYaml(data, epochs, format), "tiny.yaml").config;
}

void generate(const WorkloadConfig& cfg) {
    GenerateOptions o;
    o.threads = 2;
    generateDataset(cfg, o);
}

std::shared_ptr<FaultInjectingBackend> faults(const std::string& spec) {
    return std::make_shared<FaultInjectingBackend>(makePosixBackend(), parseFaultRules(spec));
}

json readJson(const fs::path& p) { return json::parse(testsupport::readText(p)); }

// Any TrainIO temporary (".<name>.tmp-<pid>") below dir.
std::vector<std::string> temporariesUnder(const fs::path& dir) {
    std::vector<std::string> out;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::recursive_directory_iterator(); it.increment(ec)) {
        const std::string n = it->path().filename().string();
        if (n.find(".tmp-") != std::string::npos) out.push_back(it->path().string());
    }
    return out;
}

RunOutcome runWith(const WorkloadConfig& cfg, const fs::path& out, std::shared_ptr<IoBackend> io, std::uint64_t ranks = 1) {
    InvocationOptions o;
    o.accelerators = ranks;
    o.io = std::move(io);
    return runInvocation(cfg, out, o);
}

testsupport::CliResult runCliWithFaults(const QStringList& args, const QString& faultSpec) {
    return testsupport::runCli(args, 300000, {{QStringLiteral("TRAINIO_FAULTS"), faultSpec}});
}

QString q(const fs::path& p) { return QString::fromStdString(p.string()); }

} // namespace

class TestFault : public QObject {
    Q_OBJECT
private slots:
    // ---- the backend and its textual form -------------------------------------------------------
    void parsesRules() {
        const auto rules = parseFaultRules("read:EIO:img_3_of:after=65536; write:ENOSPC:summary.json;"
                                           "read:short:max=7;open:delay:ms=25:count=2;open:truncate:img_1:to=10:skip=1");
        QCOMPARE(rules.size(), std::size_t(5));
        QVERIFY(rules[0].op == FaultOp::Read && rules[0].action == FaultAction::Fail && rules[0].error == EIO);
        QCOMPARE(rules[0].pathContains, std::string("img_3_of"));
        QCOMPARE(rules[0].afterBytes, std::uint64_t(65536));
        QVERIFY(rules[1].op == FaultOp::Write && rules[1].error == ENOSPC);
        QVERIFY(rules[2].action == FaultAction::ShortIo && rules[2].maxBytes == 7 && rules[2].pathContains.empty());
        QVERIFY(rules[3].action == FaultAction::Delay && rules[3].delay == std::chrono::milliseconds(25));
        QCOMPARE(rules[3].count, std::uint64_t(2));
        QVERIFY(rules[4].action == FaultAction::Truncate && rules[4].truncateTo == 10 && rules[4].skip == 1);
        QCOMPARE(rules[4].count, std::uint64_t(1)); // changing the file is a one-off unless asked
        QVERIFY(parseFaultRules("").empty());
        QVERIFY(parseFaultRules(" ; ").empty());
    }
    void badRulesNameWhatIsWrong() {
        const std::pair<const char*, const char*> cases[] = {
            {"read", "op:action"},       {"rename:EIO", "operation = rename"}, {"read:EWHAT", "action = EWHAT"},
            {"read:EIO:after=x", "after = x"}, {"read:EIO:a:b", "path = b"}, {"read:EIO:bogus=1", "option = bogus"},
            {"open:short", "read or write"}, {"fsync:EIO:after=3", "read or write"}};
        for (const auto& [spec, expected] : cases) {
            try {
                parseFaultRules(spec);
                QFAIL(spec);
            } catch (const InputError& e) {
                QVERIFY2(std::strstr(e.what(), expected) && std::strstr(e.what(), spec), e.what());
            }
        }
    }
    void afterBytesCutsTheStraddlingReadThenFails() {
        QTemporaryDir tmp;
        const fs::path f = fs::path(tmp.path().toStdString()) / "f.bin";
        testsupport::writeText(f, std::string(100, 'x'));
        auto io = faults("read:EIO:f.bin:after=40");
        const int h = io->open(f.string(), {});
        QVERIFY(h >= 0);
        char buf[100];
        QCOMPARE(io->pread(h, buf, 30, 0), ssize_t(30));        // wholly before the boundary
        QCOMPARE(io->pread(h, buf, 30, 30), ssize_t(10));       // cut at byte 40
        QCOMPARE(io->pread(h, buf, 30, 40), ssize_t(-EIO));     // at the boundary: the fault
        QCOMPARE(readFully(*io, h, buf, 100, 0, 100), ssize_t(-EIO));
        QCOMPARE(io->close(h), 0);
        QVERIFY(io->fired(0) >= 2);
        // Other files are untouched.
        testsupport::writeText(f.parent_path() / "g.bin", std::string(100, 'y'));
        const int g = io->open((f.parent_path() / "g.bin").string(), {});
        QCOMPARE(readFully(*io, g, buf, 100, 0, 100), ssize_t(100));
        io->close(g);
    }
    void shortReadsAndWritesAreRetriedToTheSameBytes() {
        QTemporaryDir tmp;
        const fs::path f = fs::path(tmp.path().toStdString()) / "s.bin";
        std::string data(10000, '\0');
        for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7);
        auto io = faults("write:short:max=333;read:short:max=100");
        int h = io->open(f.string(), OpenOptions{true, false});
        QCOMPARE(writeFully(*io, h, data.data(), data.size(), 0), 0);
        io->close(h);
        QCOMPARE(testsupport::readText(f), data);
        h = io->open(f.string(), {});
        std::string back(data.size(), '\0');
        QCOMPARE(readFully(*io, h, back.data(), back.size(), 0, 4096), ssize_t(data.size()));
        io->close(h);
        QCOMPARE(back, data);
        QVERIFY(io->fired(0) >= 30 && io->fired(1) >= 100);
    }
    void skipCountAndFailingCloseReleaseTheHandle() {
        QTemporaryDir tmp;
        const fs::path f = fs::path(tmp.path().toStdString()) / "c.bin";
        testsupport::writeText(f, "abc");
        auto io = faults("open:EACCES:c.bin:skip=1:count=1;close:EIO");
        const int h1 = io->open(f.string(), {});
        QVERIFY(h1 >= 0);
        QCOMPARE(io->open(f.string(), {}), -EACCES);
        QCOMPARE(io->close(h1), -EIO);
        // The descriptor was really closed (POSIX close releases it even when it reports an error).
        QCOMPARE(::fcntl(h1, F_GETFD), -1);
        const int h3 = io->open(f.string(), {});
        QVERIFY(h3 >= 0);
        io->close(h3);
        QCOMPARE(io->fired(0), std::uint64_t(1));
    }

    // ---- the engine and the invocation folder ------------------------------------------------
    void readErrorInEpochTwoKeepsEpochOneAndMarksTheFolder() {
        for (std::uint64_t ranks : {1u, 2u}) {
            QTemporaryDir tmp;
            const fs::path base = tmp.path().toStdString();
            const WorkloadConfig cfg = tinyConfig(base / "data");
            generate(cfg);
            // One pread per file and epoch reaches past 64 KiB: skip=1 lets epoch 1's through.
            auto io = faults("read:EIO:img_05_of:after=65536:skip=1");
            const RunOutcome out = runWith(cfg, base / "run", io, ranks);
            QCOMPARE(out.status, RunStatus::Failed);
            QCOMPARE(io->fired(0), std::uint64_t(1));
            QVERIFY2(out.error.find("read " + (base / "data" / "train").string()) == 0 &&
                         out.error.find("img_05_of_16.npz at offset ") != std::string::npos &&
                         out.error.find(errnoText(EIO)) != std::string::npos,
                     out.error.c_str());
            QCOMPARE(out.metrics.auPerEpoch.size(), std::size_t(1));
            const json s = readJson(base / "run" / "summary.json");
            QCOMPARE(s["trainio_status"].get<std::string>(), std::string("failed"));
            QCOMPARE(s["epochs"].get<int>(), 1);
            const json meta = readJson(base / "run" / "trainio_run.json");
            QCOMPARE(meta["status"].get<std::string>(), std::string("failed"));
            QCOMPARE(meta["error"].get<std::string>(), out.error);
            for (std::uint64_t r = 0; r < ranks; ++r) {
                const json o = readJson(base / "run" / (std::to_string(r) + "_output.json"));
                QVERIFY(o.contains("1"));
                QCOMPARE(o["1"]["proc"]["block1"].size(), std::size_t(out.stepsPerEpoch));
            }
            QVERIFY(temporariesUnder(base).empty());
        }
    }
    void shortReadsChangeNothing() {
        QTemporaryDir tmp;
        const fs::path base = tmp.path().toStdString();
        const WorkloadConfig cfg = tinyConfig(base / "data", 2);
        generate(cfg);
        const RunOutcome clean = runWith(cfg, base / "clean", nullptr);
        auto io = faults("read:short:max=4000");
        const RunOutcome out = runWith(cfg, base / "short", io);
        QCOMPARE(out.status, RunStatus::Complete);
        QVERIFY(io->fired(0) > 100);
        QCOMPARE(out.bytesRead, clean.bytesRead);
        QCOMPARE(out.samplesRead, clean.samplesRead);
    }
    void latencySpikeShowsInTheLoadTime() {
        QTemporaryDir tmp;
        const fs::path base = tmp.path().toStdString();
        const WorkloadConfig cfg = tinyConfig(base / "data", 2);
        generate(cfg);
        // The first read of the run stalls 300 ms: it belongs to batch 0, which step 1 waits for.
        auto io = faults("read:delay:img_:ms=300:count=1");
        const RunOutcome out = runWith(cfg, base / "run", io);
        QCOMPARE(out.status, RunStatus::Complete);
        QCOMPARE(io->fired(0), std::uint64_t(1));
        const auto& load = out.ranks[0].epochs[0].blocks[0].load;
        QVERIFY2(load.front() >= 0.29, qPrintable(QString::number(load.front())));
        QVERIFY(out.ranks[0].epochs[1].blocks[0].load.front() < 0.29);
    }
    void fileDeletedBetweenEpochs() {
        QTemporaryDir tmp;
        const fs::path base = tmp.path().toStdString();
        const WorkloadConfig cfg = tinyConfig(base / "data");
        generate(cfg);
        // Another process deletes the file right before epoch 2 opens it.
        auto io = faults("open:unlink:img_07_of:skip=1");
        const RunOutcome out = runWith(cfg, base / "run", io, 2);
        QCOMPARE(out.status, RunStatus::Failed);
        QVERIFY2(out.error.find("open ") == 0 && out.error.find("img_07_of_16.npz") != std::string::npos &&
                     out.error.find(errnoText(ENOENT)) != std::string::npos,
                 out.error.c_str());
        QCOMPARE(readJson(base / "run" / "summary.json")["epochs"].get<int>(), 1);
    }
    void fileTruncatedWhileBeingRead() {
        QTemporaryDir tmp;
        const fs::path base = tmp.path().toStdString();
        for (const char* format : {"npz", "tfrecord"}) {
            const WorkloadConfig cfg = tinyConfig(base / (std::string("data-") + format), 3, format);
            generate(cfg);
            // The file shrinks to 64 KiB after its first 64 KiB were read (size already taken at open).
            auto io = faults("read:truncate:img_03_of:after=65536:to=65536");
            const RunOutcome out = runWith(cfg, base / (std::string("run-") + format), io);
            QCOMPARE(out.status, RunStatus::Failed);
            QVERIFY2(out.error.find("img_03_of_16") != std::string::npos &&
                         (out.error.find("unexpected end of file") != std::string::npos ||
                          out.error.find("parse ") == 0),
                     out.error.c_str());
        }
        // Truncated between epochs: the reader sees a short file and says it cannot parse it.
        const WorkloadConfig cfg = tinyConfig(base / "data-between");
        generate(cfg);
        auto io = faults("open:truncate:img_09_of:skip=1:to=100");
        const RunOutcome out = runWith(cfg, base / "run-between", io);
        QCOMPARE(out.status, RunStatus::Failed);
        QVERIFY2(out.error.find("parse ") == 0 && out.error.find("img_09_of_16.npz") != std::string::npos, out.error.c_str());
        // Regression: the failed read was in the epoch's last batch, which used to be handed over as
        // loaded, so epoch 2 counted as complete.
        QCOMPARE(out.ranks[0].epochs.size(), std::size_t(2));
        QVERIFY(!out.ranks[0].epochs[1].complete);
        QCOMPARE(out.metrics.auPerEpoch.size(), std::size_t(1));
    }
    void resultWriteErrorsLeaveNoHalfFileAndSaySo() {
        QTemporaryDir tmp;
        const fs::path base = tmp.path().toStdString();
        const WorkloadConfig cfg = tinyConfig(base / "data", 1);
        generate(cfg);
        // Disk full while writing summary.json (the last file): no summary, no temporary, the reason recorded.
        for (const char* spec : {"write:ENOSPC:summary.json:after=100", "fsync:EIO:summary.json", "open:EACCES:summary.json"}) {
            const fs::path dir = base / "run" / std::to_string(std::hash<std::string>{}(spec));
            try {
                runWith(cfg, dir, faults(spec));
                QFAIL(spec);
            } catch (const RunError& e) {
                QVERIFY2(std::strstr(e.what(), "summary.json"), e.what());
            }
            QVERIFY(!fs::exists(dir / "summary.json"));
            QVERIFY(temporariesUnder(dir).empty());
            const json meta = readJson(dir / "trainio_run.json");
            QCOMPARE(meta["status"].get<std::string>(), std::string("failed"));
            QVERIFY(meta["error"].get<std::string>().find("summary.json") != std::string::npos);
        }
        // Disk full from the first file on: nothing that looks like a result, no temporaries.
        const fs::path full = base / "run" / "full";
        QVERIFY_THROWS_EXCEPTION(RunError, runWith(cfg, full, faults("write:ENOSPC")));
        QVERIFY(!fs::exists(full / "summary.json"));
        QVERIFY(temporariesUnder(full).empty());
        for (const auto& e : fs::recursive_directory_iterator(full))
            QVERIFY2(!e.is_regular_file(), e.path().c_str());
    }
    void benchmarkReportWritesGoThroughTheBackend() {
        QTemporaryDir tmp;
        const fs::path base = tmp.path().toStdString();
        const WorkloadConfig cfg = tinyConfig(base / "data", 1);
        generate(cfg);
        BenchmarkOptions bo;
        bo.runs = 2;
        bo.warmups = 0;
        auto io = faults("write:ENOSPC:mlperf_storage_report.json");
        bo.invocation.io = io;
        QVERIFY_THROWS_EXCEPTION(RunError, runBenchmark(cfg, base / "bench", bo));
        QCOMPARE(io->fired(0), std::uint64_t(1));
        QVERIFY(fs::exists(base / "bench" / "runs" / "run-2" / "summary.json"));
        QVERIFY(!fs::exists(base / "bench" / "runs" / "mlperf_storage_report.json"));
        QVERIFY(temporariesUnder(base / "bench").empty());
    }

    // ---- generation -----------------------------------------------------------------------------
    void generationFaultsLeaveNoCompleteLookingFileAndResume() {
        QTemporaryDir tmp;
        const fs::path base = tmp.path().toStdString();
        for (const char* spec : {"write:ENOSPC:img_06_of:after=65536", "open:EACCES:img_06_of", "close:EIO:img_06_of",
                                 "write:EIO:index/train"}) {
            const fs::path data = base / std::to_string(std::hash<std::string>{}(spec));
            const WorkloadConfig cfg = tinyConfig(data, 1, std::strstr(spec, "index") ? "tfrecord" : "npz");
            GenerateOptions o;
            o.threads = 2;
            auto io = faults(spec);
            o.io = io;
            bool threw = false;
            try {
                generateDataset(cfg, o);
            } catch (const RunError& e) {
                threw = true;
                QVERIFY2(std::strstr(e.what(), data.c_str()), e.what());
            }
            QVERIFY2(threw, spec);
            QVERIFY(io->fired(0) > 0);
            QVERIFY(temporariesUnder(data).empty());
            // No file under a final name is partial: verify reads back every present file whole.
            const VerifyResult v = verifyDataset(cfg);
            QVERIFY2(v.filesBad == 0, v.problems.empty() ? spec : v.problems.front().c_str());
            // Resuming without the fault completes the dataset and keeps what was complete.
            GenerateOptions again;
            again.threads = 2;
            const GenerationResult r = generateDataset(cfg, again);
            QCOMPARE(r.filesWritten + r.filesSkipped, std::uint64_t(16));
            QCOMPARE(r.filesSkipped, v.filesOk);
            const VerifyResult v2 = verifyDataset(cfg);
            QCOMPARE(v2.filesOk, std::uint64_t(16));
        }
    }

    // ---- the real binary: exit code 1, the file and the operation on stderr ----------------------
    void cliRunReadErrorExitsOne() {
        QTemporaryDir tmp;
        const fs::path base = tmp.path().toStdString();
        testsupport::writeText(base / "tiny.yaml", tinyYaml(base / "data"));
        const QString cfg = q(base / "tiny.yaml");
        auto r = testsupport::runCli({QStringLiteral("datagen"), QStringLiteral("--config"), cfg, QStringLiteral("--quiet")});
        QCOMPARE(r.exitCode, 0);
        r = runCliWithFaults({QStringLiteral("run"), QStringLiteral("--config"), cfg, QStringLiteral("--output"),
                              q(base / "run"), QStringLiteral("--quiet"), QStringLiteral("--accelerators"), QStringLiteral("2")},
                             QStringLiteral("read:EIO:img_05_of:after=65536:skip=1"));
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("error: read ")) && r.err.contains(QStringLiteral("img_05_of_16.npz")) &&
                     r.err.contains(QString::fromStdString(errnoText(EIO))),
                 qPrintable(r.err));
        const json s = readJson(base / "run" / "summary.json");
        QCOMPARE(s["trainio_status"].get<std::string>(), std::string("failed"));
        QCOMPARE(s["epochs"].get<int>(), 1);
    }
    void cliResultWriteErrorsExitOne() {
        QTemporaryDir tmp;
        const fs::path base = tmp.path().toStdString();
        testsupport::writeText(base / "tiny.yaml", tinyYaml(base / "data", 1));
        const QString cfg = q(base / "tiny.yaml");
        QCOMPARE(testsupport::runCli({QStringLiteral("datagen"), QStringLiteral("--config"), cfg, QStringLiteral("--quiet")}).exitCode, 0);
        const std::pair<const char*, const char*> cases[] = {{"write:ENOSPC:summary.json", "summary.json"},
                                                             {"open:EACCES:0_output.json", "0_output.json"}};
        int n = 0;
        for (const auto& [spec, file] : cases) {
            const fs::path out = base / ("run" + std::to_string(n++));
            const auto r = runCliWithFaults({QStringLiteral("run"), QStringLiteral("--config"), cfg, QStringLiteral("--output"),
                                             q(out), QStringLiteral("--quiet")},
                                            QLatin1String(spec));
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains(QLatin1String(file)), qPrintable(r.err));
            QVERIFY(!fs::exists(out / "summary.json"));
            QVERIFY(temporariesUnder(out).empty());
        }
        // A malformed hook is bad input.
        const auto bad = runCliWithFaults({QStringLiteral("run"), QStringLiteral("--config"), cfg, QStringLiteral("--output"),
                                           q(base / "bad"), QStringLiteral("--quiet")},
                                          QStringLiteral("read:EWHAT"));
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains(QStringLiteral("TRAINIO_FAULTS")), qPrintable(bad.err));
    }
    void cliDatagenDiskFullExitsOneAndResumes() {
        QTemporaryDir tmp;
        const fs::path base = tmp.path().toStdString();
        int n = 0;
        for (const char* spec : {"write:ENOSPC:img_11_of:after=65536", "open:EACCES:img_02_of"}) {
            const fs::path data = base / ("data" + std::to_string(n));
            const fs::path yaml = base / ("tiny" + std::to_string(n++) + ".yaml");
            testsupport::writeText(yaml, tinyYaml(data));
            const QString cfg = q(yaml);
            auto r = runCliWithFaults({QStringLiteral("datagen"), QStringLiteral("--config"), cfg, QStringLiteral("--quiet")},
                                      QLatin1String(spec));
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains(QString::fromStdString((data / "train").string())), qPrintable(r.err));
            QVERIFY(temporariesUnder(data).empty());
            r = testsupport::runCli({QStringLiteral("verify"), QStringLiteral("--config"), cfg});
            QCOMPARE(r.exitCode, 1); // files are missing …
            QVERIFY2(!r.err.contains(QStringLiteral("bytes, expected")), qPrintable(r.err)); // … never partial
            r = testsupport::runCli({QStringLiteral("datagen"), QStringLiteral("--config"), cfg, QStringLiteral("--quiet")});
            QVERIFY2(r.exitCode == 0, qPrintable(QStringLiteral("resumed datagen exited %1: %2").arg(r.exitCode).arg(r.err)));
            QCOMPARE(testsupport::runCli({QStringLiteral("verify"), QStringLiteral("--config"), cfg}).exitCode, 0);
        }
    }
};

QTEST_GUILESS_MAIN(TestFault)
#include "tst_fault.moc"
