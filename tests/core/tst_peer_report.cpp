// MLPerf Storage v1.0's own report generator (report.py, unmodified, copied from ../shared/peers into tests/data/peers) run on the
// benchmark folders trainio-cli writes for a custom workload whose model name contains '_'. report.py
// splits `workload=` of configs/overrides.yaml on '_' into model and accelerator, so a folder that
// only looks right to TrainIO's own importer is caught here. Every expected figure comes from the
// summary.json files or the test's own config, never from TrainIO's report writer.
#include "testsupport.h"

#include "aggregate/group_aggregate.h"
#include "aggregate/results_import.h"

#include <nlohmann/json.hpp>

#include <QFileInfo>
#include <QProcess>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Debian's python, where python3-numpy and python3-dateutil live (a pyenv or venv python on PATH
// would not have them).
const char* kPython = "/usr/bin/python3";
const char* kReportPy = TRAINIO_TEST_DATA "/peers/mlperf-storage-v1.0/report.py";

constexpr int kRuns = 5; // report.py refuses any other count (REQUIRED_BENCHMARK_RUNS)
constexpr int kFiles = 8;
constexpr int kSamplesPerFile = 2;

struct ProcessResult {
    int exitCode = -1;
    QString output;
};

ProcessResult runProcess(const QString& program, const QStringList& args, const QString& cwd) {
    QProcess p;
    p.setWorkingDirectory(cwd);
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(program, args);
    ProcessResult r;
    if (!p.waitForStarted(testsupport::kHangMs)) {
        r.output = program + QStringLiteral(": cannot start (") + p.errorString() + QStringLiteral(")");
        return r;
    }
    if (!p.waitForFinished(120000)) {
        p.kill();
        p.waitForFinished();
        r.output = QStringLiteral("timeout after 120 s");
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.output = QString::fromUtf8(p.readAll());
    return r;
}

json readJson(const fs::path& p) {
    return json::parse(testsupport::readText(p));
}

bool relClose(double a, double b, double tol = 1e-9) {
    return std::abs(a - b) <= tol * std::max(1e-12, std::abs(b));
}

// report.py sums the accelerator counts with numpy and dumps with default=str, so the published
// reports hold "7", not 7 (as in tests/data/mlperf-storage-v1.0); accept either spelling of the number.
bool sameCount(const json& v, std::uint64_t expected) {
    if (v.is_number_integer()) return v.get<std::uint64_t>() == expected;
    return v.is_string() && v.get<std::string>() == std::to_string(expected);
}

QString writeWorkload(const QTemporaryDir& tmp, const std::string& model) {
    const QString path = tmp.filePath(QStringLiteral("custom.yaml"));
    // Tiny on purpose: 8 npz files of 2 samples, 3 ms of compute per step, 2 epochs: the 6 invocations
    // take about a second. The AU threshold is low so that a loaded CI machine still passes it —
    // report.py refuses a run whose AU failed, which is not what this test is about.
    testsupport::writeText(
        path.toStdString(),
        "model:\n  name: " + model +
            "\n  type: cnn\nframework: pytorch\nworkflow:\n  generate_data: True\n  train: True\n"
            "dataset:\n  data_folder: " +
            tmp.filePath(QStringLiteral("data")).toStdString() + "\n  format: npz\n  num_files_train: " +
            std::to_string(kFiles) + "\n  num_samples_per_file: " + std::to_string(kSamplesPerFile) +
            "\n  record_length_bytes: 4096\n  record_length_bytes_stdev: 512\n"
            "reader:\n  data_loader: pytorch\n  batch_size: 2\n  read_threads: 1\n"
            "train:\n  epochs: 2\n  computation_time: 0.003\nmetric:\n  au: 0.1\n");
    return path;
}

// report.py's mlperf_storage_report.json for `resultDir`, run from a scratch directory, as the peers README
// says (report.py writes into its cwd); null, with `failure` saying why, when report.py refuses.
json runReportPy(const fs::path& resultDir, QString& failure) {
    QTemporaryDir scratch;
    if (!scratch.isValid()) {
        failure = QStringLiteral("no scratch directory");
        return {};
    }
    const auto r = runProcess(QString::fromLatin1(kPython),
                              {QString::fromLatin1(kReportPy), QStringLiteral("--result-dir"),
                               QString::fromStdString(resultDir.string())},
                              scratch.path());
    const fs::path file = fs::path(scratch.path().toStdString()) / "mlperf_storage_report.json";
    if (r.exitCode != 0 || !fs::exists(file)) {
        failure = QStringLiteral("report.py exit %1:\n%2").arg(r.exitCode).arg(r.output);
        return {};
    }
    return readJson(file);
}

// "%1" → the run's number, "%2" → the test's scratch folder.
std::string perRunText(const QString& pattern, int run, const QTemporaryDir& tmp) {
    return QString(pattern).replace(QStringLiteral("%1"), QString::number(run)).replace(QStringLiteral("%2"), tmp.path()).toStdString();
}

} // namespace

class TestPeerReport : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() {
        // Not a skip: packaging/setup-debian.sh installs these, so their absence is a broken set-up.
        QVERIFY2(fs::exists(kReportPy),
                 qPrintable(QStringLiteral(
                                "MLPerf Storage v1.0 report.py not found at %1: it is part of the repository "
                                "(tests/data/peers, copied unmodified from ../shared/peers)")
                                .arg(QString::fromLatin1(kReportPy))));
        QTemporaryDir cwd;
        const auto r =
            runProcess(QString::fromLatin1(kPython),
                       {QStringLiteral("-c"), QStringLiteral("import numpy, dateutil")}, cwd.path());
        QVERIFY2(
            r.exitCode == 0,
            qPrintable(QStringLiteral("%1 cannot import numpy and dateutil, which report.py needs; install "
                                      "Debian's python3 python3-numpy python3-dateutil (bash "
                                      "packaging/setup-debian.sh). Output: %2")
                           .arg(QString::fromLatin1(kPython), r.output)));
    }

    void reportPyAcceptsCustomWorkload_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QStringList>("extraArgs");
        QTest::addColumn<int>("accelerators");
        QTest::addColumn<QString>("expectedModel");
        QTest::addColumn<QString>("expectedAccelerator");
        // report.py takes the text before the first '_' as the model: TrainIO writes the model's '_' as '-'
        // and, when no accelerator is named, the documented default "generic" (docs/configuration.md).
        QTest::newRow("--accelerator-type h100, 2 accelerators")
            << QStringLiteral("tiny_tf")
            << QStringList{QStringLiteral("--accelerator-type"), QStringLiteral("h100")} << 2
            << QStringLiteral("tiny-tf") << QStringLiteral("h100");
        QTest::newRow("accelerator key in the config")
            << QStringLiteral("tiny_tf") << QStringList{QStringLiteral("++workload.accelerator=a100")} << 1
            << QStringLiteral("tiny-tf") << QStringLiteral("a100");
        QTest::newRow("default accelerator, two '_'")
            << QStringLiteral("my_tiny_tf") << QStringList{} << 1 << QStringLiteral("my-tiny-tf")
            << QStringLiteral("generic");
    }

    void reportPyAcceptsCustomWorkload() {
        QFETCH(QString, model);
        QFETCH(QStringList, extraArgs);
        QFETCH(int, accelerators);
        QFETCH(QString, expectedModel);
        QFETCH(QString, expectedAccelerator);

        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString cfg = writeWorkload(tmp, model.toStdString());
        const QString out = tmp.filePath(QStringLiteral("bench"));
        const auto bench = testsupport::runCli(
            QStringList{QStringLiteral("benchmark"), QStringLiteral("--config"), cfg,
                        QStringLiteral("--output"), out, QStringLiteral("--runs"), QString::number(kRuns),
                        QStringLiteral("--warmup"), QStringLiteral("1"), QStringLiteral("--accelerators"),
                        QString::number(accelerators), QStringLiteral("--quiet")} +
            extraArgs);
        QVERIFY2(
            bench.exitCode == 0,
            qPrintable(
                QStringLiteral("trainio-cli benchmark: exit %1\n%2").arg(bench.exitCode).arg(bench.err)));
        const fs::path runsDir = (out + QStringLiteral("/runs")).toStdString();

        // The expected figures, from the summary.json files alone.
        std::vector<json> summaries;
        for (int i = 1; i <= kRuns; ++i) {
            const fs::path s = runsDir / ("run-" + std::to_string(i)) / "summary.json";
            QVERIFY2(fs::exists(s), s.c_str());
            summaries.push_back(readJson(s));
            QCOMPARE(summaries.back()["num_accelerators"].get<int>(), accelerators);
            // report.py exits 1 on a failed AU; say so plainly if the machine was too slow for 10 %.
            QVERIFY2(summaries.back()["metric"]["train_au_meet_expectation"] == "success",
                     qPrintable(QStringLiteral("%1: AU below the 10 %% threshold (machine overloaded?): %2")
                                    .arg(QString::fromStdString(s.string()),
                                         QString::fromStdString(summaries.back()["metric"].dump()))));
        }

        QString failure;
        const json report = runReportPy(runsDir, failure);
        QVERIFY2(failure.isEmpty(), qPrintable(failure));

        const json& overall = report["overall"];
        QCOMPARE(QString::fromStdString(overall["model"].get<std::string>()), expectedModel);
        QCOMPARE(QString::fromStdString(overall["accelerator"].get<std::string>()), expectedAccelerator);
        QCOMPARE(overall["num_benchmark_runs"].get<int>(), kRuns);
        QVERIFY2(sameCount(overall["train_num_accelerators"], accelerators), overall.dump().c_str());
        QCOMPARE(overall["num_files_train"].get<int>(), kFiles);
        QCOMPARE(overall["num_samples_per_file"].get<int>(), kSamplesPerFile);

        std::set<std::string> runNames;
        std::vector<double> sps, mbps;
        for (int i = 1; i <= kRuns; ++i) {
            const std::string name = "run-" + std::to_string(i);
            runNames.insert(name);
            QVERIFY2(report["runs"].contains(name), report["runs"].dump().c_str());
            const json& run = report["runs"][name];
            const json& m = summaries[static_cast<std::size_t>(i - 1)]["metric"];
            sps.push_back(m["train_throughput_mean_samples_per_second"].get<double>());
            mbps.push_back(m["train_io_mean_MB_per_second"].get<double>());
            QVERIFY2(relClose(run["train_throughput_samples_per_second"].get<double>(), sps.back()),
                     name.c_str());
            QVERIFY2(relClose(run["train_throughput_MB_per_second"].get<double>(), mbps.back()),
                     name.c_str());
            QVERIFY2(sameCount(run["train_num_accelerators"], accelerators), run.dump().c_str());
            QVERIFY2(run["model"] == overall["model"] && run["accelerator"] == overall["accelerator"],
                     run.dump().c_str());
        }
        QCOMPARE(report["runs"].size(), runNames.size());

        // numpy's mean and std (population, ddof 0), recomputed here.
        auto meanStd = [](const std::vector<double>& v) {
            double mean = 0;
            for (double x : v)
                mean += x;
            mean /= static_cast<double>(v.size());
            double var = 0;
            for (double x : v)
                var += (x - mean) * (x - mean);
            return std::pair{mean, std::sqrt(var / static_cast<double>(v.size()))};
        };
        const auto [spsMean, spsStd] = meanStd(sps);
        const auto [mbpsMean, mbpsStd] = meanStd(mbps);
        QVERIFY(spsMean > 0 && mbpsMean > 0);
        QVERIFY(relClose(overall["train_throughput_mean_samples_per_second"].get<double>(), spsMean));
        QVERIFY(relClose(overall["train_throughput_stdev_samples_per_second"].get<double>(), spsStd, 1e-6));
        QVERIFY(relClose(overall["train_throughput_mean_MB_per_second"].get<double>(), mbpsMean));
        QVERIFY(relClose(overall["train_throughput_stdev_MB_per_second"].get<double>(), mbpsStd, 1e-6));

        // TrainIO writes its own runs/mlperf_storage_report.json: it must say what the real one says.
        const json own = readJson(runsDir / "mlperf_storage_report.json")["overall"];
        for (const char* k :
             {"model", "accelerator", "num_benchmark_runs", "num_files_train", "num_samples_per_file"})
            QVERIFY2(own[k] == overall[k],
                     qPrintable(QStringLiteral("%1: TrainIO %2, report.py %3")
                                    .arg(QLatin1String(k), QString::fromStdString(own[k].dump()),
                                         QString::fromStdString(overall[k].dump()))));
        QVERIFY2(sameCount(own["train_num_accelerators"], accelerators), own.dump().c_str());
        for (const char* k :
             {"train_throughput_mean_samples_per_second", "train_throughput_mean_MB_per_second"})
            QVERIFY2(relClose(own[k].get<double>(), overall[k].get<double>()), k);
    }

    // Issue 30, part 1: a location never splits a workload. Five runs of one submission that differ only in
    // where they write and read — checkpoint folders, data folders and their names, an S3 bucket, prefix,
    // endpoint, region, host, keys the key table does not know — are one group of 5 runs, each location
    // listed beside it with why it does not split, and its aggregate is what report.py writes for the same
    // folder. Published v1.0 runs with per-run locations appended to their overrides.yaml (what another
    // organisation's tree looks like), and TrainIO's own runs, each writing checkpoints to and reading data
    // from its own folder, with checkpointing on and off.
    void locationsNeverSplitAWorkload_data() {
        QTest::addColumn<QString>("source");     // a published v1.0 system folder, or "trainio" for TrainIO runs
        QTest::addColumn<QStringList>("perRun"); // override lines; %1 = the run's number, %2 = the scratch folder
        QTest::addColumn<QStringList>("listed"); // "key|why": listed once per run against run 1, with `why` in it
        const QString unet3d = QStringLiteral("Closed/Hammerspace/results/Hammerspace_unet3d_1Client_A100");
        const QString resnet = QStringLiteral("Closed/Hammerspace/results/Hammerspace_resnet50_1Client_H100");
        const QString loc = QStringLiteral("|a location");
        QTest::newRow("published unet3d, checkpointing on, each run its own checkpoint and data folder")
            << unet3d
            << QStringList{QStringLiteral("++workload.workflow.checkpoint=True"),
                           QStringLiteral("++workload.checkpoint.checkpoint_folder=/mnt/mlperf/checkpoints/run%1"),
                           QStringLiteral("++workload.dataset.data_folder=/mnt/mlperf/run%1/unet3d-a100")}
            << QStringList{QStringLiteral("checkpoint.checkpoint_folder") + loc, QStringLiteral("dataset.data_folder") + loc};
        QTest::newRow("published resnet50, checkpointing off, the dataset folder's name per run")
            << resnet
            << QStringList{QStringLiteral("++workload.workflow.checkpoint=False"),
                           QStringLiteral("++workload.checkpoint.checkpoint_folder=/mnt/ckpt/run%1"),
                           QStringLiteral("++workload.dataset.data_folder=/mnt/mlperf/resnet50-h100-take%1")}
            << QStringList{QStringLiteral("checkpoint.checkpoint_folder|workflow.checkpoint false"),
                           QStringLiteral("dataset.data_folder") + loc};
        QTest::newRow("published unet3d on S3: bucket, prefix, endpoint, region, host and unknown path keys per run")
            << unet3d
            << QStringList{QStringLiteral("++workload.storage.storage_type=s3"),
                           QStringLiteral("++workload.dataset.data_folder=s3://bucket-%1/unet3d"),
                           QStringLiteral("++workload.storage.storage_root=bucket-%1"),
                           QStringLiteral("++workload.storage.storage_options.endpoint_url=http://s3-node%1.example:9000"),
                           QStringLiteral("++workload.storage.storage_options.region=eu-west-%1"),
                           QStringLiteral("++workload.storage.storage_options.s3_prefix=take%1/"),
                           QStringLiteral("++workload.storage.storage_options.bucket_name=bucket-%1"),
                           QStringLiteral("++workload.dataset.train_dir=/scratch/run%1/train"),
                           QStringLiteral("++workload.checkpoint.checkpoint_file=ckpt-%1.pt"),
                           QStringLiteral("++workload.hosts=client%1")}
            << QStringList{QStringLiteral("dataset.data_folder") + loc, QStringLiteral("storage.storage_root") + loc,
                           QStringLiteral("storage.storage_options.endpoint_url") + loc,
                           QStringLiteral("storage.storage_options.region") + loc,
                           QStringLiteral("storage.storage_options.s3_prefix") + loc,
                           QStringLiteral("storage.storage_options.bucket_name") + loc,
                           QStringLiteral("dataset.train_dir") + loc, QStringLiteral("checkpoint.checkpoint_file") + loc,
                           QStringLiteral("hosts") + loc};
        QTest::newRow("TrainIO runs, checkpointing on, each run its own checkpoint and data folder")
            << QStringLiteral("trainio")
            << QStringList{QStringLiteral("++workload.workflow.checkpoint=True"),
                           QStringLiteral("++workload.checkpoint.checkpoint_folder=%2/run%1/checkpoints"),
                           QStringLiteral("++workload.dataset.data_folder=%2/run%1/data")}
            << QStringList{QStringLiteral("checkpoint.checkpoint_folder") + loc, QStringLiteral("dataset.data_folder") + loc};
        QTest::newRow("TrainIO runs, checkpointing off, the dataset folder's name per run")
            << QStringLiteral("trainio")
            << QStringList{QStringLiteral("++workload.workflow.checkpoint=False"),
                           QStringLiteral("++workload.checkpoint.checkpoint_folder=%2/checkpoints-%1"),
                           QStringLiteral("++workload.dataset.data_folder=%2/data-take%1")}
            << QStringList{QStringLiteral("checkpoint.checkpoint_folder|workflow.checkpoint false"),
                           QStringLiteral("dataset.data_folder") + loc};
    }

    void locationsNeverSplitAWorkload() {
        QFETCH(QString, source);
        QFETCH(QStringList, perRun);
        QFETCH(QStringList, listed);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        fs::path resultDir;
        if (source == QStringLiteral("trainio")) {
            // A small workload that generates its own data where its data folder says, and checkpoints after
            // every epoch when checkpointing is on (64 KiB each).
            const fs::path cfg = fs::path(tmp.path().toStdString()) / "tiny.yaml";
            testsupport::writeText(cfg, "model:\n  name: tiny\n  model_size_bytes: 65536\nframework: pytorch\n"
                                        "workflow:\n  generate_data: True\n  train: True\n"
                                        "dataset:\n  format: npz\n  num_files_train: " + std::to_string(kFiles) +
                                        "\n  num_samples_per_file: " + std::to_string(kSamplesPerFile) +
                                        "\n  record_length_bytes: 4096\n"
                                        "reader:\n  data_loader: pytorch\n  batch_size: 2\n  read_threads: 1\n"
                                        "train:\n  epochs: 2\n  computation_time: 0.003\n"
                                        "checkpoint:\n  checkpoint_after_epoch: 1\n  epochs_between_checkpoints: 1\n"
                                        "metric:\n  au: 0.01\n");
            resultDir = fs::path(tmp.path().toStdString()) / "runs";
            for (int i = 1; i <= kRuns; ++i) {
                QStringList args{QStringLiteral("run"), QStringLiteral("--config"), QString::fromStdString(cfg.string()),
                                 QStringLiteral("--output"), QString::fromStdString((resultDir / ("run-" + std::to_string(i))).string()),
                                 QStringLiteral("--quiet")};
                for (const auto& o : perRun) args << QString::fromStdString(perRunText(o, i, tmp));
                const auto run = testsupport::runCli(args);
                QVERIFY2(run.exitCode == 0, qPrintable(args.join(' ') + QStringLiteral(" -> exit %1\n").arg(run.exitCode) + run.err));
                // Each run read its own data and, with checkpointing on, wrote its own checkpoints.
                for (const auto& o : perRun) {
                    const std::string line = perRunText(o, i, tmp);
                    const auto eq = line.find('=');
                    const bool data = line.find("dataset.data_folder=") != std::string::npos;
                    const bool ckpt = line.find("checkpoint_folder=") != std::string::npos &&
                                      perRun.contains(QStringLiteral("++workload.workflow.checkpoint=True"));
                    if (!data && !ckpt) continue;
                    const fs::path folder = line.substr(eq + 1);
                    QVERIFY2(fs::is_directory(folder) && !fs::is_empty(folder), folder.c_str());
                }
            }
        } else {
            resultDir = fs::path(tmp.path().toStdString()) / "Org" / "results" / fs::path(source.toStdString()).filename();
            testsupport::copyWritable(testsupport::fixtures() / "mlperf-storage-v1.0" / source.toStdString(), resultDir);
            for (int i = 1; i <= kRuns; ++i) {
                const fs::path o = resultDir / ("run" + std::to_string(i)) / "configs" / "overrides.yaml";
                std::string text = testsupport::readText(o);
                if (!text.empty() && text.back() != '\n') text += '\n';
                for (const auto& line : perRun) text += "- " + perRunText(line, i, tmp) + "\n";
                testsupport::writeText(o, text);
            }
        }

        const trainio::aggregate::ImportResult imported = trainio::aggregate::importResults({resultDir});
        QCOMPARE(imported.runs.size(), std::size_t(kRuns));
        std::string groups;
        for (const auto& g : imported.groups)
            groups += g.path.string() + ": " + std::to_string(g.runs.size()) + " runs; " +
                      (g.differences.empty() ? std::string() : g.differences.front()) + "\n";
        QVERIFY2(imported.groups.size() == 1 && imported.groups.front().runs.size() == std::size_t(kRuns), groups.c_str());
        const auto& g = imported.groups.front();
        QVERIFY2(g.differences.empty(), groups.c_str());
        // Never silently: every location that differs is listed against run 1, with why it does not split.
        std::string all;
        for (const auto& d : g.settingDifferences) all += d + "\n";
        for (const auto& entry : listed) {
            const auto parts = entry.split(QLatin1Char('|'));
            const std::string key = parts[0].toStdString() + ": ", why = parts[1].toStdString();
            const auto n = std::count_if(g.settingDifferences.begin(), g.settingDifferences.end(), [&](const std::string& d) {
                return d.rfind(key, 0) == 0 && d.find(why) != std::string::npos;
            });
            QVERIFY2(n == kRuns - 1, qPrintable(QStringLiteral("%1 listed %2 times:\n%3").arg(entry).arg(n).arg(QString::fromStdString(all))));
        }

        QString failure;
        const json report = runReportPy(resultDir, failure);
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
        const json& overall = report["overall"];
        const auto agg = trainio::aggregate::aggregateGroup(imported, g);
        QCOMPARE(overall["num_benchmark_runs"].get<std::size_t>(), agg.samplesPerSecond.values.size());
        QCOMPARE(QString::fromStdString(overall["model"].get<std::string>()), QString::fromStdString(g.identity.model));
        QCOMPARE(QString::fromStdString(overall["accelerator"].get<std::string>()), QString::fromStdString(g.identity.accelerator));
        QVERIFY2(sameCount(overall["train_num_accelerators"], static_cast<std::uint64_t>(g.identity.accelerators)), overall.dump().c_str());
        QVERIFY2(sameCount(overall["num_files_train"], static_cast<std::uint64_t>(g.identity.filesTrain)), overall.dump().c_str());
        QVERIFY2(sameCount(overall["num_samples_per_file"], static_cast<std::uint64_t>(g.identity.samplesPerFile)), overall.dump().c_str());
        const std::pair<const char*, double> figures[] = {
            {"train_throughput_mean_samples_per_second", agg.samplesPerSecond.mean.value},
            {"train_throughput_stdev_samples_per_second", agg.samplesPerSecond.populationStdev.value},
            {"train_throughput_mean_MB_per_second", agg.mibPerSecond.mean.value},
            {"train_throughput_stdev_MB_per_second", agg.mibPerSecond.populationStdev.value}};
        for (const auto& [key, value] : figures)
            QVERIFY2(relClose(value, overall[key].get<double>()),
                     qPrintable(QStringLiteral("%1: TrainIO %2, report.py %3")
                                    .arg(QLatin1String(key)).arg(value, 0, 'g', 17).arg(overall[key].get<double>(), 0, 'g', 17)));
    }

    // An accelerator with '_' would be split again by report.py (tiny-tf_h_100 → accelerator "h"): it must
    // be refused before anything is measured, not turned into a folder the peer tool misreads.
    void acceleratorWithUnderscoreRefusedBeforeTheRun() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString cfg = writeWorkload(tmp, "tiny_tf");
        const QString out = tmp.filePath(QStringLiteral("bench"));
        const auto r = testsupport::runCli(
            {QStringLiteral("benchmark"), QStringLiteral("--config"), cfg, QStringLiteral("--output"), out,
             QStringLiteral("--accelerator-type"), QStringLiteral("h_100"), QStringLiteral("--quiet")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("accelerator")) && r.err.contains(QStringLiteral("h_100")),
                 qPrintable(r.err));
        QVERIFY2(!QFileInfo::exists(out), "an output folder was created for a run that cannot be reported");
    }
};

QTEST_GUILESS_MAIN(TestPeerReport)
#include "tst_peer_report.moc"
