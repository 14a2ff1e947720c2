// What runs on S3 besides the unet3d workload of tst_s3 (issue 22, docs/s3.md), against the same real
// server (tests/tools/s3-server.sh: Ceph's RADOS Gateway on loopback, every signature checked), each
// function a few seconds on shrunk workloads:
//   - every format TrainIO generates: datagen writes DLIO's keys (side objects included), verify checks
//     them, a run reads them — and says nothing about a page cache, which no object passes through;
//   - the three loader policies: plain reads every epoch from the bucket, lru and nopfs serve the second
//     epoch from their RAM tier (the GETs the bucket saw say so);
//   - checkpoints: DLIO's checkpoint layout as object keys, each object the size of the file the same run
//     writes on a file system, written (multipart) and read back with their GiB/s in summary.json;
//   - two MPI processes, each with its own connections to its own endpoint (entry rank mod N of DLIO's
//     endpoint list): process 1 reads through a proxy that throttles it, process 0 directly;
//   - verify and clean of a dataset on S3: a missing object named, only TrainIO's objects removed;
//   - the memory budget told before a unet3d-shaped run against the process's peak, measured here by the
//     kernel (wait4's rusage of that one child), within 20 %.
#include "s3support.h"
#include "testsupport.h"

#include "io/s3_backend.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QElapsedTimer>
#include <QProcessEnvironment>
#include <QStandardPaths>

#include <map>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const QString kProxy = QStringLiteral(TRAINIO_SOURCE_DIR "/tests/tools/s3-fault-proxy.py");

json readJson(const QString& path) { return json::parse(testsupport::readText(path.toStdString())); }

// The output of a command, for a failure message.
QString said(const testsupport::CliResult& r) { return QString::number(r.exitCode) + "\n" + r.out + "\n" + r.err; }

// A proxy in front of the server (tests/tools/s3-fault-proxy.py) answering 503 SlowDown to the first GET of
// each object whose path contains `match`.
struct FaultProxy {
    QProcess process;
    QString port, countFile;
    bool start(const QString& upstream, const QString& match, const QString& count) {
        countFile = count;
        process.start(QStringLiteral("python3"), {kProxy, QStringLiteral("--upstream"), upstream, QStringLiteral("--fail"),
                                                   QStringLiteral("1"), QStringLiteral("--match"), match,
                                                   QStringLiteral("--count-file"), count});
        QElapsedTimer t;
        t.start();
        while (!process.canReadLine() && t.elapsed() < 30000) process.waitForReadyRead(1000);
        const QString line = QString::fromUtf8(process.readLine()).trimmed();
        if (!line.startsWith(QLatin1String("port "))) return false;
        port = line.section(' ', 1);
        return true;
    }
    std::uint64_t injected() const {
        const std::string text = testsupport::readText(countFile.toStdString());
        return text.empty() ? 0 : std::stoull(text);
    }
    ~FaultProxy() {
        process.kill();
        process.waitForFinished();
    }
};

// Runs trainio-cli as a child of its own and returns its exit code, output and peak resident memory as the
// kernel accounts it (wait4's rusage of exactly that child: no other process of the suite counts).
struct Measured {
    int exitCode = -1;
    std::string out, err;
    std::uint64_t peakBytes = 0;
};
Measured runMeasured(const QStringList& args, const QList<QPair<QString, QString>>& extraEnv, const QString& dir) {
    std::vector<std::string> argStore{TRAINIO_CLI}, envStore;
    for (const auto& a : args) argStore.push_back(a.toStdString());
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    for (const auto& [k, v] : extraEnv) e.insert(k, v);
    for (const auto& kv : e.toStringList()) envStore.push_back(kv.toStdString());
    std::vector<char*> argv, envp;
    for (auto& a : argStore) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& kv : envStore) envp.push_back(kv.data());
    envp.push_back(nullptr);
    const std::string outPath = (dir + "/measured.out").toStdString(), errPath = (dir + "/measured.err").toStdString();
    Measured m;
    const pid_t pid = ::fork();
    if (pid == 0) { // only async-signal-safe calls until exec
        const int o = ::open(outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int r = ::open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (o < 0 || r < 0 || ::dup2(o, 1) < 0 || ::dup2(r, 2) < 0) ::_exit(126);
        ::execve(argv[0], argv.data(), envp.data());
        ::_exit(127);
    }
    if (pid < 0) return m;
    int status = 0;
    rusage ru{};
    if (::wait4(pid, &status, 0, &ru) != pid) return m;
    m.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    m.peakBytes = static_cast<std::uint64_t>(ru.ru_maxrss) * 1024;
    m.out = testsupport::readText(outPath);
    m.err = testsupport::readText(errPath);
    return m;
}

} // namespace

class TestS3Workloads : public QObject {
    Q_OBJECT

    s3support::Server server_;
    QTemporaryDir tmp_;

    QList<QPair<QString, QString>> env() const { return server_.env(tmp_.path()); }
    trainio::S3Client client() const { return trainio::S3Client(server_.options()); }

    // A small workload whose dataset is objects under s3://<bucket>/<prefix>, as DLIO's S3 YAMLs spell it.
    QString workload(const QString& name, const std::string& prefix, const std::string& format, int files, int samplesPerFile,
                     int recordBytes, int epochs, const std::string& endpoints, const std::string& extra = {}) const {
        const std::string yaml =
            "model:\n  name: s3w\nframework: pytorch\nworkflow:\n  generate_data: False\n  train: True\n"
            "dataset:\n  data_folder: s3://" + server_.bucket + "/" + prefix + "\n  format: " + format +
            "\n  num_files_train: " + std::to_string(files) + "\n  num_samples_per_file: " + std::to_string(samplesPerFile) +
            "\n  record_length_bytes: " + std::to_string(recordBytes) + "\n"
            "storage:\n  storage_type: s3\n  storage_root: " + server_.bucket + "\n  storage_options:\n"
            "    endpoint_url: " + endpoints + "\n    s3_force_path_style: True\n"
            "reader:\n  data_loader: pytorch\n  batch_size: 1\n  read_threads: 2\n  file_shuffle: seed\n"
            "  sample_shuffle: seed\ntrain:\n  epochs: " + std::to_string(epochs) + "\n  computation_time: 0.001\n"
            "metric:\n  au: 0.1\n" + extra;
        const QString path = tmp_.filePath(name);
        testsupport::writeText(path.toStdString(), yaml);
        return path;
    }
    std::map<std::string, std::uint64_t> objectsUnder(const std::string& prefix) const {
        auto c = client();
        std::string error;
        const auto listed = c.list(prefix, 1000, &error);
        if (!listed) qWarning("list %s: %s", prefix.c_str(), error.c_str());
        std::map<std::string, std::uint64_t> out;
        if (listed)
            for (const auto& o : *listed) out[o.key] = o.size;
        return out;
    }
    testsupport::CliResult cli(const QStringList& args) const { return testsupport::runCli(args, 120000, env()); }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        if (!s3support::start(server_, "trainio-tsw")) return;
    }

    void everyFormatOnS3_data() {
        QTest::addColumn<QString>("format");
        QTest::addColumn<int>("samplesPerFile");
        for (const char* f : {"npz", "npy", "tfrecord", "hdf5", "indexed_binary", "raw", "jpeg", "png"})
            QTest::newRow(f) << QString::fromLatin1(f) << (std::string(f) == "tfrecord" || std::string(f) == "hdf5" ? 2 : 1);
    }
    void everyFormatOnS3() {
        if (!server_.skipReason.isEmpty()) QSKIP(qPrintable(server_.skipReason));
        QFETCH(QString, format);
        QFETCH(int, samplesPerFile);
        const std::string fmt = format.toStdString();
        const std::string prefix = "fmt-" + fmt;
        const int files = 4, record = 16384;
        const QString cfg = workload(format + ".yaml", prefix, fmt, files, samplesPerFile, record, 1, server_.endpoint.toStdString());
        QDir::setCurrent(tmp_.path());
        auto r = cli({QStringLiteral("datagen"), QStringLiteral("--config"), cfg, QStringLiteral("--quiet")});
        QVERIFY2(r.exitCode == 0, qPrintable(said(r)));
        // DLIO's names as keys: <prefix>/train/img_<i>_of_4.<ext> (SPEC Appendix A), and the side objects.
        const auto train = objectsUnder(prefix + "/train/");
        std::uint64_t dataBytes = 0;
        int dataObjects = 0;
        for (int i = 0; i < files; ++i) {
            const std::string key = prefix + "/train/img_" + std::to_string(i) + "_of_4." + (fmt == "indexed_binary" ? "indexed_binary" : fmt);
            QVERIFY2(train.count(key) == 1, key.c_str());
            QVERIFY(train.at(key) > 0);
            dataBytes += train.at(key);
            ++dataObjects;
            if (fmt == "tfrecord") QVERIFY2(objectsUnder(prefix + "/index/train/").count(prefix + "/index/train/img_" + std::to_string(i) + "_of_4.tfrecord.idx") == 1, key.c_str());
            if (fmt == "indexed_binary") {
                QVERIFY2(train.count(key + ".off.idx") == 1, key.c_str());
                QVERIFY2(train.count(key + ".sz.idx") == 1, key.c_str());
            }
        }
        QCOMPARE(dataObjects, files);
        QVERIFY2(!QFileInfo::exists(tmp_.filePath(QStringLiteral("s3:"))), "datagen wrote a local folder named s3:");

        r = cli({QStringLiteral("verify"), QStringLiteral("--config"), cfg});
        QVERIFY2(r.exitCode == 0, qPrintable(said(r)));
        QVERIFY2(r.out.contains(QStringLiteral("verify: 4 files ok, 0 missing, 0 bad")), qPrintable(said(r)));

        const QString out = tmp_.filePath(QStringLiteral("run-") + format);
        r = cli({QStringLiteral("run"), QStringLiteral("--config"), cfg, QStringLiteral("--output"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(said(r)));
        // No page cache holds objects read over HTTP: neither the sizing advice nor the run speaks of one.
        QVERIFY2(!r.err.contains(QLatin1String("page cache")) && !r.out.contains(QLatin1String("page cache")), qPrintable(said(r)));
        QVERIFY2(!r.err.contains(QLatin1String("fits in RAM")), qPrintable(said(r)));
        const json io = readJson(out + "/trainio_io.json");
        QVERIFY(io.at("data_device").at("name").is_null());
        const json& e = io.at("s3").at("epochs").at(0);
        // Every sample of every file is read in the epoch (batch 1, one rank): the samples' bytes at least
        // (record × samples; JPEG and PNG, whose files are encoded, are read whole).
        const std::uint64_t samplesBytes = std::uint64_t(files) * std::uint64_t(samplesPerFile) * std::uint64_t(record);
        const std::uint64_t floor = fmt == "jpeg" || fmt == "png" ? dataBytes : samplesBytes;
        QVERIFY2(e.at("bytes_delivered").get<std::uint64_t>() >= floor, e.dump().c_str());
        QVERIFY2(e.at("gets").get<std::uint64_t>() >= std::uint64_t(files), e.dump().c_str());
        QCOMPARE(e.at("failed_requests").get<std::uint64_t>(), std::uint64_t{0});
        const json summary = readJson(out + "/summary.json");
        QCOMPARE(summary.at("num_files_train").get<int>(), files);
        server_.removeUnder(prefix + "/");
    }

    // plain reads every epoch from the bucket; lru and nopfs, whose RAM tier holds the whole dataset, serve
    // the second epoch from it (docs/loader.md): the bucket sees (almost) no GET then.
    void loaderPoliciesOnS3_data() {
        QTest::addColumn<QString>("policy");
        QTest::newRow("plain") << QStringLiteral("plain");
        QTest::newRow("lru") << QStringLiteral("lru");
        QTest::newRow("nopfs") << QStringLiteral("nopfs");
    }
    void loaderPoliciesOnS3() {
        if (!server_.skipReason.isEmpty()) QSKIP(qPrintable(server_.skipReason));
        QFETCH(QString, policy);
        const int files = 8;
        const std::string prefix = "loaders";
        std::string extra = "trainio:\n  loader: " + policy.toStdString() + "\n";
        if (policy != QLatin1String("plain")) extra += "  ram_tier_mib: 16\n";
        const QString cfg = workload(QStringLiteral("loader-") + policy + ".yaml", prefix, "npz", files, 1, 65536, 2,
                                     server_.endpoint.toStdString(), extra);
        auto r = cli({QStringLiteral("datagen"), QStringLiteral("--config"), cfg, QStringLiteral("--quiet")}); // resumes: once
        QVERIFY2(r.exitCode == 0, qPrintable(said(r)));
        const QString out = tmp_.filePath(QStringLiteral("loader-run-") + policy);
        r = cli({QStringLiteral("run"), QStringLiteral("--config"), cfg, QStringLiteral("--output"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(said(r)));
        const json io = readJson(out + "/trainio_io.json");
        QCOMPARE(io.at("loader").at("policy").get<std::string>(), policy.toStdString());
        const json& epochs = io.at("s3").at("epochs");
        QCOMPARE(epochs.size(), std::size_t{2});
        const std::uint64_t first = epochs.at(0).at("gets").get<std::uint64_t>();
        const std::uint64_t second = epochs.at(1).at("gets").get<std::uint64_t>();
        QVERIFY2(first >= std::uint64_t(files), epochs.dump().c_str());
        if (policy == QLatin1String("plain")) {
            QVERIFY2(second >= std::uint64_t(files), epochs.dump().c_str());
        } else {
            // The RAM tier (16 MiB) holds all 8 files of 64 KiB: the second epoch needs none from the bucket.
            QVERIFY2(second == 0, epochs.dump().c_str());
            const json& e2 = io.at("epochs").at(1);
            QVERIFY2(e2.at("hit_ratio").get<double>() == 1.0, e2.dump().c_str());
        }
    }

    // Checkpoint-only llama3-8b (2 ranks, scaled to 0.1 GiB): the objects are DLIO's files as keys under the
    // checkpoint folder's prefix, each the size the same run writes on a file system; both directions
    // have their GiB/s in summary.json; nothing is written to a local folder of that name.
    void checkpointWriteAndReadOnS3() {
        if (!server_.skipReason.isEmpty()) QSKIP(qPrintable(server_.skipReason));
        const QString base = tmp_.filePath(QStringLiteral("ckpt"));
        QDir().mkpath(base);
        QDir::setCurrent(base);
        const QStringList common{QStringLiteral("--config"), QStringLiteral("llama3_8b"), QStringLiteral("--accelerators"),
                                 QStringLiteral("2"), QStringLiteral("++workload.trainio.checkpoint_scale=0.001"),
                                 QStringLiteral("++workload.checkpoint.time_between_checkpoints=0"),
                                 QStringLiteral("++workload.checkpoint.num_checkpoints_write=1"),
                                 QStringLiteral("++workload.checkpoint.num_checkpoints_read=1"),
                                 QStringLiteral("++workload.checkpoint.checkpoint_folder=ckpt/llama")};
        // The same run on files: the sizes every object must have.
        const auto onFiles = cli(QStringList{QStringLiteral("run")} + common + QStringList{QStringLiteral("--output"), base + "/files-run"});
        QVERIFY2(onFiles.exitCode == 0, qPrintable(said(onFiles)));
        std::map<std::string, std::uint64_t> fileSizes;
        for (const auto& e : fs::recursive_directory_iterator(base.toStdString() + "/ckpt/llama"))
            if (e.is_regular_file()) fileSizes[fs::relative(e.path(), base.toStdString()).string()] = e.file_size();
        QCOMPARE(fileSizes.size(), std::size_t{4}); // 2 ranks × model and optimizer states
        fs::remove_all(base.toStdString() + "/ckpt");

        const QStringList s3{QStringLiteral("++workload.storage.storage_type=s3"),
                             QStringLiteral("++workload.storage.storage_root=") + QString::fromStdString(server_.bucket),
                             QStringLiteral("++workload.storage.storage_options.endpoint_url=") + server_.endpoint};
        const QString out = base + "/s3-run";
        const auto r = cli(QStringList{QStringLiteral("run")} + common + s3 + QStringList{QStringLiteral("--output"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(said(r)));
        QVERIFY2(!QFileInfo::exists(base + "/ckpt"), "the checkpoint went to a local folder");
        const auto objects = objectsUnder("ckpt/llama/");
        QCOMPARE(objects.size(), fileSizes.size());
        std::uint64_t largest = 0;
        for (const auto& [key, size] : fileSizes) {
            QVERIFY2(objects.count(key) == 1, key.c_str());
            QCOMPARE(objects.at(key), size);
            largest = std::max(largest, size);
        }
        // At least one object above the multipart batch (4 parts of 8 MiB): the streamed upload is exercised.
        QVERIFY2(largest > trainio::S3Backend::kStreamPartBytes * trainio::S3Backend::kStreamDepth, std::to_string(largest).c_str());
        const json summary = readJson(out + "/summary.json");
        const json& m = summary.at("metric");
        QVERIFY2(m.at("save_checkpoint_io_mean_GB_per_second").get<double>() > 0, m.dump().c_str());
        QVERIFY2(m.at("load_checkpoint_io_mean_GB_per_second").get<double>() > 0, m.dump().c_str());
        // What went over the wire: one object per file each way, its bytes delivered back.
        const json io = readJson(out + "/trainio_io.json");
        QVERIFY2(io.at("s3").contains("checkpoints"), io.at("s3").dump().c_str());
        const json& k = io.at("s3").at("checkpoints");
        std::uint64_t total = 0;
        for (const auto& [key, size] : fileSizes) total += size;
        QVERIFY2(k.at("bytes_delivered").get<std::uint64_t>() == total, k.dump().c_str());
        QVERIFY2(k.at("wire_bytes_out").get<std::uint64_t>() >= total, k.dump().c_str());
        QVERIFY2(k.at("puts").get<std::uint64_t>() >= fileSizes.size(), k.dump().c_str());
        server_.removeUnder("ckpt/");
    }

    // The same checkpoint under mpirun -np 2 (docs/mpi.md, "Checkpoints"): each process writes its rank's
    // objects through its own client, with the keys and sizes 2 ranks as threads write, and process 0 has
    // both directions' GiB/s.
    void checkpointUnderMpirunOnS3() {
        if (!server_.skipReason.isEmpty()) QSKIP(qPrintable(server_.skipReason));
        const QString mpirun = QStandardPaths::findExecutable(QStringLiteral("mpirun"));
        QVERIFY2(!mpirun.isEmpty(), "mpirun not found: install openmpi-bin (packaging/setup-debian.sh)");
        const QString base = tmp_.filePath(QStringLiteral("ckpt-mpi"));
        QDir().mkpath(base);
        auto common = [&](const QString& prefix) {
            return QStringList{QStringLiteral("run"), QStringLiteral("--config"), QStringLiteral("llama3_8b"),
                               QStringLiteral("++workload.trainio.checkpoint_scale=0.0005"),
                               QStringLiteral("++workload.checkpoint.time_between_checkpoints=0"),
                               QStringLiteral("++workload.checkpoint.num_checkpoints_write=1"),
                               QStringLiteral("++workload.checkpoint.num_checkpoints_read=1"),
                               QStringLiteral("++workload.checkpoint.checkpoint_folder=") + prefix,
                               QStringLiteral("++workload.storage.storage_type=s3"),
                               QStringLiteral("++workload.storage.storage_root=") + QString::fromStdString(server_.bucket),
                               QStringLiteral("++workload.storage.storage_options.endpoint_url=") + server_.endpoint,
                               QStringLiteral("--quiet")};
        };
        const auto threads = cli(common(QStringLiteral("mpi/threads")) +
                                 QStringList{QStringLiteral("--accelerators"), QStringLiteral("2"), QStringLiteral("--output"), base + "/threads"});
        QVERIFY2(threads.exitCode == 0, qPrintable(said(threads)));
        QStringList mpiArgs{QStringLiteral("--allow-run-as-root"), QStringLiteral("--oversubscribe"), QStringLiteral("-np"), QStringLiteral("2")};
        for (const auto& [k, v] : env()) mpiArgs += QStringList{QStringLiteral("-x"), k + "=" + v};
        const auto r = testsupport::runProgram(mpirun, mpiArgs + QStringList{QStringLiteral(TRAINIO_CLI)} + common(QStringLiteral("mpi/procs")) +
                                                           QStringList{QStringLiteral("--output"), base + "/procs"},
                                               120000, testsupport::mpiEnvironment());
        QVERIFY2(r.exitCode == 0, qPrintable(said(r)));
        auto relative = [](const std::map<std::string, std::uint64_t>& objects, const std::string& prefix) {
            std::map<std::string, std::uint64_t> out;
            for (const auto& [key, size] : objects) out[key.substr(prefix.size())] = size;
            return out;
        };
        const auto expected = relative(objectsUnder("mpi/threads/"), "mpi/threads/");
        QCOMPARE(expected.size(), std::size_t{4}); // 2 ranks × model and optimizer states
        QCOMPARE(relative(objectsUnder("mpi/procs/"), "mpi/procs/"), expected);
        const json summary = readJson(base + "/procs/summary.json");
        QCOMPARE(summary.at("num_accelerators").get<int>(), 2);
        const json& m = summary.at("metric");
        QVERIFY2(m.at("save_checkpoint_io_mean_GB_per_second").get<double>() > 0, m.dump().c_str());
        QVERIFY2(m.at("load_checkpoint_io_mean_GB_per_second").get<double>() > 0, m.dump().c_str());
    }

    // Pre-flight on every rank (issue 31): under mpirun -np 2, rank 1's environment lacks the credentials (a
    // wrapper unsets them for OMPI_COMM_WORLD_RANK=1 only). Training and checkpointing on S3 both stop before
    // anything runs (exit 2, said once by process 0), the problem naming process 1 and its host, and nothing is
    // written: no result folder, no checkpoint object.
    void preflightOnEveryRankNamesTheRankWithoutCredentials() {
        if (!server_.skipReason.isEmpty()) QSKIP(qPrintable(server_.skipReason));
        const QString mpirun = QStandardPaths::findExecutable(QStringLiteral("mpirun"));
        QVERIFY2(!mpirun.isEmpty(), "mpirun not found: install openmpi-bin (packaging/setup-debian.sh)");
        const QString wrapper = tmp_.filePath(QStringLiteral("rank1-without-credentials.sh"));
        testsupport::writeText(wrapper.toStdString(),
                               std::string("#!/bin/sh\nif [ \"$OMPI_COMM_WORLD_RANK\" = 1 ]; then\n"
                                           "  unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN AWS_PROFILE\nfi\n"
                                           "exec \"") + TRAINIO_CLI + "\" \"$@\"\n");
        QVERIFY(QFile::setPermissions(wrapper, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner));
        QStringList mpiArgs{QStringLiteral("--allow-run-as-root"), QStringLiteral("--oversubscribe"), QStringLiteral("-np"), QStringLiteral("2")};
        for (const auto& [k, v] : env()) mpiArgs += QStringList{QStringLiteral("-x"), k + "=" + v};
        const QString host = QString::fromStdString(testsupport::readText("/proc/sys/kernel/hostname")).trimmed();
        const QString cfg = workload(QStringLiteral("creds.yaml"), "creds", "npz", 8, 1, 4096, 1, server_.endpoint.toStdString());
        const auto gen = cli({QStringLiteral("datagen"), QStringLiteral("--config"), cfg, QStringLiteral("--quiet")});
        QVERIFY2(gen.exitCode == 0, qPrintable(said(gen))); // with the keys: rank 0's checks pass
        const QString runOut = tmp_.filePath(QStringLiteral("creds-run")), ckptOut = tmp_.filePath(QStringLiteral("creds-ckpt"));
        const QList<QPair<QStringList, QString>> cases{
            {{QStringLiteral("run"), QStringLiteral("--config"), cfg, QStringLiteral("--output"), runOut}, runOut},
            {{QStringLiteral("run"), QStringLiteral("--config"), QStringLiteral("llama3_8b"),
              QStringLiteral("++workload.trainio.checkpoint_scale=0.0005"), QStringLiteral("++workload.checkpoint.num_checkpoints_write=1"),
              QStringLiteral("++workload.checkpoint.num_checkpoints_read=0"),
              QStringLiteral("++workload.checkpoint.checkpoint_folder=creds/ckpt"), QStringLiteral("++workload.storage.storage_type=s3"),
              QStringLiteral("++workload.storage.storage_root=") + QString::fromStdString(server_.bucket),
              QStringLiteral("++workload.storage.storage_options.endpoint_url=") + server_.endpoint, QStringLiteral("--output"), ckptOut},
             ckptOut}};
        for (const auto& [args, out] : cases) {
            const auto r = testsupport::runProgram(mpirun, mpiArgs + QStringList{wrapper} + args + QStringList{QStringLiteral("--quiet")},
                                                   120000, env() + testsupport::mpiEnvironment());
            QVERIFY2(r.exitCode == 2, qPrintable(said(r)));
            QCOMPARE(r.err.count(QStringLiteral("error:")), 1);
            QVERIFY2(r.err.contains(QStringLiteral("process 1: ")) && r.err.contains(QStringLiteral("(host ") + host + QStringLiteral(")")),
                     qPrintable(said(r)));
            QVERIFY2(r.err.contains(QStringLiteral("AWS_ACCESS_KEY_ID")), qPrintable(said(r)));
            QVERIFY2(!r.err.contains(QStringLiteral("process 0: ")), qPrintable(said(r))); // process 0 had its keys
            QVERIFY(!QFileInfo::exists(out + QStringLiteral("/summary.json")));
        }
        QVERIFY(objectsUnder("creds/ckpt").empty());
    }

    // A streamed object (OpenOptions::streaming, as checkpoints write) is a multipart upload of 8 MiB parts,
    // never whole in memory, and reads back byte for byte; out-of-order writes are refused.
    void streamedObjectIsMultipart() {
        if (!server_.skipReason.isEmpty()) QSKIP(qPrintable(server_.skipReason));
        auto c = std::make_shared<trainio::S3Client>(server_.options());
        trainio::S3Backend be(c, 262144, 1);
        const std::size_t total = 40u << 20, chunk = 3u << 20; // 40 MiB in 3 MiB writes
        std::string data(total, '\0');
        std::uint64_t x = 0x9E3779B97F4A7C15ULL;
        for (auto& ch : data) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            ch = static_cast<char>(x);
        }
        trainio::OpenOptions w;
        w.write = true;
        w.streaming = true;
        const int h = be.open("s3://" + server_.bucket + "/stream/one.bin", w);
        QVERIFY(h >= 0);
        c->takeStats();
        for (std::size_t at = 0; at < total; at += chunk)
            QCOMPARE(be.pwrite(h, data.data() + at, std::min(chunk, total - at), at), static_cast<ssize_t>(std::min(chunk, total - at)));
        QCOMPARE(be.pwrite(h, data.data(), 16, 0), static_cast<ssize_t>(-ESPIPE)); // behind what was sent
        QCOMPARE(be.close(h), 0);
        const auto st = c->takeStats();
        QCOMPARE(st.puts, std::uint64_t{5});   // parts of 8 MiB
        QCOMPARE(st.others, std::uint64_t{2}); // initiate + complete
        QCOMPARE(c->head("stream/one.bin"), static_cast<std::int64_t>(total));
        trainio::OpenOptions rd;
        rd.streaming = true;
        const int r = be.open("stream/one.bin", rd);
        QVERIFY(r >= 0);
        std::string back(total, '\0');
        QCOMPARE(be.pread(r, back.data(), total, 0), static_cast<ssize_t>(total));
        QVERIFY(back == data);
        const auto rs = c->takeStats();
        QCOMPARE(rs.gets, std::uint64_t{5}); // ranged GETs of the part size
        be.close(r);
        c->remove("stream/one.bin");
    }

    // mpirun -np 2 with two endpoints (DLIO's comma-separated endpoint_url: process r uses entry r mod N):
    // process 0 talks to the server, process 1 through a proxy that answers 503 to the first GET of each
    // object. Process 0's own figures (trainio_io.json) show no retry; the proxy throttled process 1's
    // reads — each process had its own connections to its own endpoint.
    void mpiTwoProcessesOnS3() {
        if (!server_.skipReason.isEmpty()) QSKIP(qPrintable(server_.skipReason));
        const QString mpirun = QStandardPaths::findExecutable(QStringLiteral("mpirun"));
        QVERIFY2(!mpirun.isEmpty(), "mpirun not found: install openmpi-bin (packaging/setup-debian.sh)");
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty()) QSKIP("python3 is not installed (the fault proxy)");
        FaultProxy proxy;
        QVERIFY2(proxy.start(server_.endpoint, QStringLiteral("/mpi/train/"), tmp_.filePath(QStringLiteral("mpi-injected.txt"))),
                 qPrintable(QString::fromUtf8(proxy.process.readAllStandardError())));
        const std::string endpoints = server_.endpoint.toStdString() + ",http://127.0.0.1:" + proxy.port.toStdString();
        const int files = 8;
        const QString cfg = workload(QStringLiteral("mpi.yaml"), "mpi", "npz", files, 1, 65536, 1, endpoints);
        auto mpi = [&](const QStringList& args) {
            return testsupport::runProgram(mpirun,
                                           QStringList{QStringLiteral("--allow-run-as-root"), QStringLiteral("--oversubscribe"),
                                                       QStringLiteral("-np"), QStringLiteral("2"), QStringLiteral(TRAINIO_CLI)} + args,
                                           180000, env() + testsupport::mpiEnvironment());
        };
        auto r = mpi({QStringLiteral("datagen"), QStringLiteral("--config"), cfg, QStringLiteral("--quiet")});
        QVERIFY2(r.exitCode == 0, qPrintable(said(r)));
        QVERIFY2(r.err.contains(QStringLiteral("by 2 processes")), qPrintable(said(r)));
        QCOMPARE(objectsUnder("mpi/train/").size(), std::size_t(files));
        QCOMPARE(proxy.injected(), std::uint64_t{0}); // datagen PUTs: nothing throttled
        const QString out = tmp_.filePath(QStringLiteral("mpi-run"));
        r = mpi({QStringLiteral("run"), QStringLiteral("--config"), cfg, QStringLiteral("--output"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(said(r)));
        const json summary = readJson(out + "/summary.json");
        QCOMPARE(summary.at("num_accelerators").get<int>(), 2);
        const json io = readJson(out + "/trainio_io.json");
        const json& e = io.at("s3").at("epochs").at(0);
        QCOMPARE(io.at("s3").at("endpoint").get<std::string>(), server_.endpoint.toStdString());
        QVERIFY2(e.at("retries_503_or_429").get<std::uint64_t>() == 0, e.dump().c_str());
        // Process 1 read its shard (half the files) through the proxy: one 503 per object it read.
        QVERIFY2(proxy.injected() >= std::uint64_t(files / 2) && proxy.injected() < std::uint64_t(files), std::to_string(proxy.injected()).c_str());
        QVERIFY2(e.at("gets").get<std::uint64_t>() >= std::uint64_t(files / 2), e.dump().c_str());
        server_.removeUnder("mpi/");
    }

    // verify names a missing object; clean removes exactly TrainIO's objects (the marker last) and leaves a
    // user's object under the same prefix; a prefix without a marker is not cleaned.
    void verifyAndCleanOnS3() {
        if (!server_.skipReason.isEmpty()) QSKIP(qPrintable(server_.skipReason));
        const int files = 6;
        const QString cfg = workload(QStringLiteral("clean.yaml"), "cleanme", "tfrecord", files, 2, 8192, 1, server_.endpoint.toStdString());
        auto r = cli({QStringLiteral("datagen"), QStringLiteral("--config"), cfg, QStringLiteral("--quiet")});
        QVERIFY2(r.exitCode == 0, qPrintable(said(r)));
        auto c = client();
        const std::string mine = "a note the user keeps here";
        QCOMPARE(c.put("cleanme/train/user-notes.txt", mine.data(), mine.size()), 0);
        QCOMPARE(c.remove("cleanme/train/img_3_of_6.tfrecord"), 0);
        r = cli({QStringLiteral("verify"), QStringLiteral("--config"), cfg});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains(QStringLiteral("verify: 5 files ok, 1 missing, 0 bad")), qPrintable(said(r)));
        QVERIFY2(r.err.contains(QString::fromStdString("s3://" + server_.bucket + "/cleanme/train/img_3_of_6.tfrecord: missing")),
                 qPrintable(said(r)));
        const std::size_t before = objectsUnder("cleanme/").size();
        QCOMPARE(before, std::size_t(1 + 2 * files)); // marker, 6 data + 6 index objects, the user's note, one removed
        r = cli({QStringLiteral("clean"), QStringLiteral("--config"), cfg});
        QVERIFY2(r.exitCode == 0, qPrintable(said(r)));
        QVERIFY2(r.out.contains(QStringLiteral("removed 11 files")), qPrintable(said(r))); // 5 data + 6 index
        const auto left = objectsUnder("cleanme/");
        QCOMPARE(left.size(), std::size_t{1});
        QCOMPARE(left.begin()->first, std::string("cleanme/train/user-notes.txt"));
        r = cli({QStringLiteral("clean"), QStringLiteral("--config"), cfg});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("marker")), qPrintable(said(r)));
        server_.removeUnder("cleanme/");
    }

    // unet3d's shape (npz, one sample per file of varying size, batch 7, 4 reader threads), shrunk to 32
    // files of 8 MiB (stdev 2 MiB), 2 accelerators, 2 epochs, io_depth as shipped: the budget the pre-flight
    // prints is within 20 % of the peak resident memory the kernel measured for the process (issue 22's
    // target; the formula is in preflight/memory_budget.h).
    void memoryBudgetMatchesPeak() {
        if (!server_.skipReason.isEmpty()) QSKIP(qPrintable(server_.skipReason));
        const QString cfg = workload(QStringLiteral("unet3d-mem.yaml"), "mem", "npz", 32, 1, 8388608, 2,
                                     server_.endpoint.toStdString());
        std::string yaml = testsupport::readText(cfg.toStdString());
        yaml.replace(yaml.find("  record_length_bytes: 8388608\n"), std::string("  record_length_bytes: 8388608\n").size(),
                     "  record_length_bytes: 8388608\n  record_length_bytes_stdev: 2097152\n");
        yaml.replace(yaml.find("batch_size: 1"), std::string("batch_size: 1").size(), "batch_size: 7");
        yaml.replace(yaml.find("read_threads: 2"), std::string("read_threads: 2").size(), "read_threads: 4");
        testsupport::writeText(cfg.toStdString(), yaml);
        auto r = cli({QStringLiteral("datagen"), QStringLiteral("--config"), cfg, QStringLiteral("--quiet")});
        QVERIFY2(r.exitCode == 0, qPrintable(said(r)));
        const QString out = tmp_.filePath(QStringLiteral("mem-run"));
        const Measured m = runMeasured({QStringLiteral("run"), QStringLiteral("--config"), cfg, QStringLiteral("--output"), out,
                                        QStringLiteral("--accelerators"), QStringLiteral("2")},
                                       env(), tmp_.path());
        QVERIFY2(m.exitCode == 0, (m.out + m.err).c_str());
        // "S3 memory budget: 8 readers x … = 113.5 MiB (available: …)", said before the run.
        const auto at = m.err.find("S3 memory budget: ");
        QVERIFY2(at != std::string::npos, m.err.c_str());
        const std::string line = m.err.substr(at, m.err.find('\n', at) - at);
        QVERIFY2(line.find("8 readers") != std::string::npos, line.c_str());
        const auto eq = line.rfind(" = ");
        QVERIFY2(eq != std::string::npos, line.c_str());
        const double budget = std::stod(line.substr(eq + 3)) * 1048576.0;
        const double peak = static_cast<double>(m.peakBytes);
        qInfo("%s; measured peak %.1f MiB (budget/peak %.3f)", line.c_str(), peak / 1048576.0, budget / peak);
        // The run's own record says the same (its peak is getrusage's in the process).
        const json mem = readJson(out + "/trainio_io.json").at("s3").at("memory");
        QVERIFY2(std::abs(mem.at("peak_resident_bytes").get<double>() - peak) <= 0.05 * peak, mem.dump().c_str());
        server_.removeUnder("mem/");
        if (testsupport::kAddressSanitizer)
            QSKIP(qPrintable(QStringLiteral("budget vs peak not compared under AddressSanitizer (its shadow memory and quarantine "
                                            "are in the peak: %1 MiB against a budget of %2 MiB); the ci stage compares them")
                                 .arg(peak / 1048576.0, 0, 'f', 1)
                                 .arg(budget / 1048576.0, 0, 'f', 1)));
        QVERIFY2(std::abs(budget - peak) <= 0.2 * peak, line.c_str());
    }

    void cleanupTestCase() {
        if (!server_.skipReason.isEmpty() || server_.bucket.empty()) return;
        server_.removeBucket();
    }
};

QTEST_GUILESS_MAIN(TestS3Workloads)
#include "tst_s3_workloads.moc"
