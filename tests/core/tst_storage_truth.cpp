// The storage side of a run, end to end through trainio-cli (issue "Storage truth"): trainio_io.json says
// how much came from the page cache (keep: page-cached data is served by the cache; fadvise: epochs read
// from storage; odirect: from storage), emulated storage caps the bandwidth the run sees, telemetry rows
// cover the run, and a cache drop without root is refused before anything is measured. The emulated
// device is recorded with its profile (run and benchmark, by name and by file), and a file O_DIRECT cannot
// read is read buffered with a warning (a ramfs in a private mount namespace refuses O_DIRECT).
//
// fadvise and odirect need a data folder on a block device: on a tmpfs the page cache is the storage.
// When the temporary folder is a tmpfs or ramfs (statfs), their dataset is generated under the build
// folder instead; only when that is in memory too do they skip, saying so.
#include "testsupport.h"

#include "config/config_loader.h"
#include "io/io_engines.h"
#include "session/storage_session.h"

#include <nlohmann/json.hpp>

#include <QCoreApplication>
#include <QDir>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <filesystem>
#include <memory>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// 32 files of 1 MiB, 3 epochs of 8 steps (batch 4), short compute: a few seconds per run.
QString writeWorkload(const QTemporaryDir& tmp) {
    const QString path = tmp.filePath(QStringLiteral("w.yaml"));
    testsupport::writeText(path.toStdString(),
                           "model: {name: truth}\nframework: pytorch\nworkflow: {generate_data: false, train: true}\n"
                           "dataset: {data_folder: " + tmp.filePath(QStringLiteral("data")).toStdString() +
                               ", format: npz, num_files_train: 32, num_samples_per_file: 1, record_length_bytes: 1048576}\n"
                               "reader: {batch_size: 4, read_threads: 2, data_loader: pytorch}\n"
                               "train: {epochs: 3, computation_time: 0.005}\n"
                               "trainio: {telemetry_interval_s: 0.02}\n");
    return path;
}

json readJson(const fs::path& p) { return json::parse(testsupport::readText(p)); }

// The file system of `path` when it keeps its files in memory (no block device behind it: neither
// fadvise nor O_DIRECT can make a read come from storage there); "" otherwise.
QString memoryFileSystem(const QString& path) {
    struct statfs s {};
    if (::statfs(path.toLocal8Bit().constData(), &s) != 0) return {};
    if (s.f_type == TMPFS_MAGIC) return QStringLiteral("tmpfs");
    if (s.f_type == RAMFS_MAGIC) return QStringLiteral("ramfs");
    return {};
}

// For sh -c: one single-quoted word.
QString shellWord(const QString& s) {
    QString q = s;
    q.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + q + QLatin1Char('\'');
}

// An O_DIRECT engine that refused some files (as a file system without O_DIRECT makes it): reads go to
// buffered POSIX, stats() reports the fallbacks, as IoEngineStats documents them.
class FallbackEngine final : public trainio::IoEngineBackend {
public:
    const char* name() const override { return "odirect"; }
    trainio::IoEngine engine() const override { return trainio::IoEngine::ODirect; }
    trainio::IoEngineStats stats() const override {
        trainio::IoEngineStats s;
        s.directFallbackFiles = 3;
        s.fallbackReason = "/data/img_1.npz: O_DIRECT refused by the file system (Invalid argument); read buffered";
        return s;
    }
    int open(const std::string& path, const trainio::OpenOptions& o) override { return posix_->open(path, o); }
    ssize_t pread(int h, void* b, std::size_t n, std::uint64_t off) override { return posix_->pread(h, b, n, off); }
    ssize_t pwrite(int h, const void* b, std::size_t n, std::uint64_t off) override { return posix_->pwrite(h, b, n, off); }
    std::int64_t size(int h) override { return posix_->size(h); }
    int fsync(int h) override { return posix_->fsync(h); }
    int close(int h) override { return posix_->close(h); }

private:
    std::shared_ptr<trainio::IoBackend> posix_ = trainio::makePosixBackend();
};

// Sums over ranks of one epoch entry.
std::pair<double, double> deliveredAndFromStorage(const json& epoch) {
    double delivered = 0, storage = 0;
    for (const auto& r : epoch.at("ranks")) {
        delivered += r.at("bytes_delivered").get<double>();
        storage += r.at("bytes_from_storage").get<double>();
    }
    return {delivered, storage};
}

} // namespace

class TestStorageTruth : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    QString cfg_;
    // Where fadvise and odirect read: the workload's data folder, or a copy on a block device when the
    // temporary folder is in memory. noBlockDevice_: why there is none (then they skip, saying so).
    std::unique_ptr<QTemporaryDir> blockTmp_;
    QStringList onBlockDevice_;
    QString noBlockDevice_;

    testsupport::CliResult run(const QString& out, const QStringList& extra, const QString& command = QStringLiteral("run")) {
        QStringList args{command, QStringLiteral("--config"), cfg_, QStringLiteral("--output"),
                         tmp_.filePath(out), QStringLiteral("--quiet"), QStringLiteral("--accelerators"), QStringLiteral("2")};
        args << extra;
        return testsupport::runCli(args);
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        cfg_ = writeWorkload(tmp_);
        const auto r = testsupport::datagen(cfg_);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString memory = memoryFileSystem(tmp_.path());
        if (memory.isEmpty()) return;
        // The build folder is on the developer's disk in practice: the dataset of fadvise and odirect goes there.
        const QString build = QCoreApplication::applicationDirPath();
        blockTmp_ = std::make_unique<QTemporaryDir>(build + QStringLiteral("/tst_storage_truth-XXXXXX"));
        if (!blockTmp_->isValid() || !memoryFileSystem(blockTmp_->path()).isEmpty()) {
            noBlockDevice_ = QStringLiteral("the temporary folder %1 is on %2 and the build folder %3 is %4: no block device "
                                            "here, and on a file system in memory fadvise and O_DIRECT cannot make reads come "
                                            "from storage")
                                 .arg(tmp_.path(), memory, build,
                                      blockTmp_->isValid() ? QStringLiteral("in memory too") : QStringLiteral("not writable"));
            qWarning("%s", qPrintable(noBlockDevice_));
            return;
        }
        onBlockDevice_ = {QStringLiteral("++dataset.data_folder=") + blockTmp_->filePath(QStringLiteral("data"))};
        const auto g = testsupport::runCli(QStringList{QStringLiteral("datagen"), QStringLiteral("--config"), cfg_, QStringLiteral("--quiet")} +
                                           onBlockDevice_);
        QVERIFY2(g.exitCode == 0, qPrintable(g.err));
        qInfo("the temporary folder %s is on %s: fadvise and odirect read a dataset generated in %s",
              qPrintable(tmp_.path()), qPrintable(memory), qPrintable(blockTmp_->path()));
    }

    // keep on page-cached data: the cache serves (>= 95 %), and the result says so.
    void keepIsServedByTheCache() {
        // Read the dataset once so that it is cached whatever happened before.
        QVERIFY(run(QStringLiteral("warm"), {}).exitCode == 0);
        const auto r = run(QStringLiteral("keep"), {});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const json io = readJson(tmp_.filePath(QStringLiteral("keep/trainio_io.json")).toStdString());
        QCOMPARE(io.at("engine").get<std::string>(), std::string("posix"));
        QCOMPARE(io.at("cache").get<std::string>(), std::string("keep"));
        QCOMPARE(io.at("epochs").size(), std::size_t(3));
        for (const auto& e : io.at("epochs")) {
            const auto [delivered, storage] = deliveredAndFromStorage(e);
            QVERIFY(delivered >= 8 * 4 * 1048576.0); // 8 steps × batch 4 × 2 ranks / 2 … at least one rank's share
            QVERIFY2(e.at("percent_from_cache").get<double>() >= 95.0, e.dump().c_str());
            QVERIFY2(storage <= 0.05 * delivered, e.dump().c_str());
        }
        QVERIFY2(r.err.contains(QStringLiteral("Most bytes came from the page cache")), qPrintable(r.err));
        const json meta = readJson(tmp_.filePath(QStringLiteral("keep/trainio_run.json")).toStdString());
        QVERIFY(!meta.at("warnings").empty());
    }

    // fadvise: every epoch (2+ in the words; here all, as the files are advised before each) reads
    // >= 90 % of what it delivers from storage, measured by /proc/self/io read_bytes.
    void fadviseReadsFromStorage() {
        if (!noBlockDevice_.isEmpty()) QSKIP(qPrintable(noBlockDevice_));
        const auto r = run(QStringLiteral("fadvise"), QStringList{QStringLiteral("++trainio.cache=fadvise")} + onBlockDevice_);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const json io = readJson(tmp_.filePath(QStringLiteral("fadvise/trainio_io.json")).toStdString());
        QCOMPARE(io.at("cache").get<std::string>(), std::string("fadvise"));
        for (const auto& e : io.at("epochs")) QVERIFY2(e.at("cache_control_seconds").get<double>() > 0, e.dump().c_str());
        for (std::size_t i = 1; i < io.at("epochs").size(); ++i) {
            const auto [delivered, storage] = deliveredAndFromStorage(io.at("epochs")[i]);
            QVERIFY2(storage >= 0.90 * delivered, io.at("epochs")[i].dump().c_str());
        }
        QVERIFY2(!r.err.contains(QStringLiteral("Most bytes came from the page cache")), qPrintable(r.err));
    }

    // odirect: the reads bypass the cache (>= 95 % of delivered bytes from storage).
    void odirectReadsFromStorage() {
        if (!noBlockDevice_.isEmpty()) QSKIP(qPrintable(noBlockDevice_));
        const auto r = run(QStringLiteral("odirect"), QStringList{QStringLiteral("++trainio.io_engine=odirect")} + onBlockDevice_);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const json io = readJson(tmp_.filePath(QStringLiteral("odirect/trainio_io.json")).toStdString());
        QCOMPARE(io.at("engine").get<std::string>(), std::string("odirect"));
        for (const auto& e : io.at("epochs")) {
            const auto [delivered, storage] = deliveredAndFromStorage(e);
            QVERIFY2(storage >= 0.95 * delivered, e.dump().c_str());
        }
        // Every file was read with O_DIRECT: no fallback warning.
        QVERIFY2(!r.err.contains(QStringLiteral("were read buffered")), qPrintable(r.err));
    }

    // A file system that refuses O_DIRECT (ramfs: open fails with EINVAL) is read buffered, file by file,
    // and the run says so: on stderr and in trainio_run.json's warnings, naming the file system's refusal.
    // The ramfs is mounted in a private mount namespace of a child (gone with it); that needs root.
    void odirectFallbackIsWarned() {
        if (::geteuid() != 0) QSKIP("mounting a ramfs (which refuses O_DIRECT) needs root; StorageSession's own test covers the warning");
        const QString unshare = QStandardPaths::findExecutable(QStringLiteral("unshare"));
        if (unshare.isEmpty()) QSKIP("no unshare(1) to mount a ramfs in a private mount namespace");
        const QString mnt = tmp_.filePath(QStringLiteral("ramfs"));
        QVERIFY(QDir().mkpath(mnt));
        const QString data = QStringLiteral("++dataset.data_folder=") + mnt + QStringLiteral("/data");
        const QString out = tmp_.filePath(QStringLiteral("fallback"));
        const QString cli = shellWord(QStringLiteral(TRAINIO_CLI));
        const QString script =
            // A ramfs reports no free space, which datagen's pre-flight refuses: the dataset is copied in.
            QStringLiteral("mount -t ramfs tst_storage_truth %1 || exit 77; cp -a %6 %1/data || exit 1; "
                           "exec %2 run --config %3 %4 ++trainio.io_engine=odirect --output %5 --quiet --accelerators 2")
                .arg(shellWord(mnt), cli, shellWord(cfg_), shellWord(data), shellWord(out), shellWord(tmp_.filePath(QStringLiteral("data"))));
        QProcess p;
        p.start(unshare, {QStringLiteral("--mount"), QStringLiteral("--propagation"), QStringLiteral("private"), QStringLiteral("sh"),
                          QStringLiteral("-c"), script});
        QVERIFY2(p.waitForFinished(300000), "the ramfs run did not finish");
        const QString err = QString::fromUtf8(p.readAllStandardError());
        // unshare(1) itself refused (no privilege for a mount namespace here: chroots, some containers say
        // "unshare failed" or "cannot change root filesystem propagation"), or the ramfs mount did (77): a
        // counted skip with the reason, never a failure of the product.
        if (p.exitCode() == 77 || (p.exitCode() != 0 && (err.contains(QStringLiteral("unshare failed")) ||
                                                         err.trimmed().startsWith(QStringLiteral("unshare:")))))
            QSKIP(qPrintable(QStringLiteral("this sandbox forbids a ramfs in a private mount namespace: ") + err.trimmed()));
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, qPrintable(err));
        // Each of the 32 files once, although every epoch opened each again.
        const QString expected = QStringLiteral("32 file(s) could not be read with odirect and were read buffered (through the page cache): ");
        QVERIFY2(err.contains(expected) && err.contains(QStringLiteral("O_DIRECT refused by the file system (Invalid argument)")),
                 qPrintable(err));
        const json meta = readJson((out + QStringLiteral("/trainio_run.json")).toStdString());
        bool recorded = false;
        for (const auto& w : meta.at("warnings")) {
            const QString text = QString::fromStdString(w.get<std::string>());
            // The refused file is one of the dataset's, on the ramfs.
            recorded = recorded || (text.contains(expected) && text.contains(mnt + QStringLiteral("/data/")));
        }
        QVERIFY2(recorded, meta.at("warnings").dump().c_str());
        // The run read every sample all the same.
        const json keep = readJson(tmp_.filePath(QStringLiteral("keep/trainio_run.json")).toStdString());
        QCOMPARE(meta.at("bytes_read").get<std::uint64_t>(), keep.at("bytes_read").get<std::uint64_t>());
    }

    // The same warning at the StorageSession level, from an engine that reports fallbacks (any machine):
    // StorageSession::stop() turns IoEngineStats into one warning with the count and the first reason,
    // and says nothing for an engine without fallbacks or a backend that is no engine.
    void storageSessionWarnsOfFallbacks() {
        trainio::WorkloadConfig cfg = trainio::loadWorkloadConfig(cfg_.toStdString(), {"++trainio.io_engine=odirect"}).config;
        {
            trainio::StorageSession session(cfg, std::make_shared<FallbackEngine>());
            const auto warnings = session.stop();
            QCOMPARE(warnings.size(), std::size_t(1));
            QCOMPARE(warnings[0], std::string("3 file(s) could not be read with odirect and were read buffered (through the page "
                                              "cache): /data/img_1.npz: O_DIRECT refused by the file system (Invalid argument); "
                                              "read buffered"));
        }
        {
            trainio::StorageSession session(cfg, trainio::makePosixBackend());
            for (const auto& w : session.stop()) QVERIFY2(w.find("read buffered") == std::string::npos, w.c_str());
        }
    }

    // Every engine reads the same run (same steps, same bytes) and says which it was; mmap and io_uring
    // go through the page cache and O_DIRECT respectively as documented (docs/io-engines.md).
    void everyEngineRunsTheWorkload() {
        for (const char* engine : {"mmap", "io_uring"}) {
            const QString out = QStringLiteral("engine-") + QLatin1String(engine);
            const auto r = run(out, {QStringLiteral("++trainio.io_engine=") + QLatin1String(engine)});
            if (r.exitCode == 2 && r.err.contains(QStringLiteral("io_uring_setup"))) {
                // The kernel or a seccomp filter refuses io_uring here: the refusal must be this clear error.
                qWarning("io_uring refused on this machine: %s", qPrintable(r.err));
                continue;
            }
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            const json io = readJson(tmp_.filePath(out + QStringLiteral("/trainio_io.json")).toStdString());
            QCOMPARE(io.at("engine").get<std::string>(), std::string(engine));
            const json meta = readJson(tmp_.filePath(out + QStringLiteral("/trainio_run.json")).toStdString());
            const json keep = readJson(tmp_.filePath(QStringLiteral("keep/trainio_run.json")).toStdString());
            QCOMPARE(meta.at("samples_read").get<std::uint64_t>(), keep.at("samples_read").get<std::uint64_t>());
            QCOMPARE(meta.at("bytes_read").get<std::uint64_t>(), keep.at("bytes_read").get<std::uint64_t>());
        }
    }

    // Emulated storage: a 40 MiB/s cap on cached data that the machine reads at hundreds of MiB/s. The
    // run's bytes over its wall time may not exceed the cap by more than 5 % (a cap is an upper bound:
    // a busy machine may be slower, never faster).
    void emulatedBandwidthCapsTheRun() {
        const auto r = run(QStringLiteral("capped"), {QStringLiteral("++trainio.storage.bandwidth_mib_s=40")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const json io = readJson(tmp_.filePath(QStringLiteral("capped/trainio_io.json")).toStdString());
        QCOMPARE(io.at("storage").at("bandwidth_mib_s").get<double>(), 40.0);
        // No profile was named: the device is the section's own keys.
        QVERIFY2(io.at("storage").contains("profile") && io.at("storage").at("profile").is_null(), io.at("storage").dump().c_str());
        const json meta = readJson(tmp_.filePath(QStringLiteral("capped/trainio_run.json")).toStdString());
        const double mib = meta.at("bytes_read").get<double>() / 1048576.0;
        const double seconds = meta.at("wall_seconds").get<double>();
        QVERIFY2(mib / seconds <= 40.0 * 1.05, qPrintable(QStringLiteral("%1 MiB in %2 s").arg(mib).arg(seconds)));
        // And it is the storage, not the compute, that limits the run: AU well below the uncapped run's.
        const json capped = readJson(tmp_.filePath(QStringLiteral("capped/summary.json")).toStdString());
        QVERIFY2(capped.at("metric").at("train_au_mean_percentage").get<double>() < 50.0, capped.dump().c_str());
    }

    // The demo: the same workload through the shipped HDD profile (250 MiB/s, 8 ms lognormal, 200 IOPS)
    // starves the accelerators; the profile is recorded with the result.
    void storageProfileOption() {
        const auto r = run(QStringLiteral("hdd"), {QStringLiteral("--storage-profile"), QStringLiteral("hdd")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const json io = readJson(tmp_.filePath(QStringLiteral("hdd/trainio_io.json")).toStdString());
        QCOMPARE(io.at("storage").at("bandwidth_mib_s").get<double>(), 250.0);
        QCOMPARE(io.at("storage").at("iops").get<double>(), 200.0);
        QCOMPARE(io.at("storage").at("profile").get<std::string>(), std::string("hdd"));
        const json s = readJson(tmp_.filePath(QStringLiteral("hdd/summary.json")).toStdString());
        const json k = readJson(tmp_.filePath(QStringLiteral("keep/summary.json")).toStdString());
        const double au = s.at("metric").at("train_au_mean_percentage").get<double>();
        QVERIFY2(au < 50.0 && au < k.at("metric").at("train_au_mean_percentage").get<double>() - 30.0, s.dump().c_str());
        QVERIFY2(!r.err.contains(QStringLiteral("Most bytes came from the page cache")), qPrintable(r.err));
        QVERIFY(testsupport::readText(tmp_.filePath(QStringLiteral("hdd/configs/config.yaml")).toStdString()).find("profile: hdd") !=
                std::string::npos);
        // An unknown profile is bad input before anything is measured.
        const auto bad = run(QStringLiteral("floppy"), {QStringLiteral("--storage-profile"), QStringLiteral("floppy")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains(QStringLiteral("no such storage profile")), qPrintable(bad.err));
        QVERIFY(!fs::exists(tmp_.filePath(QStringLiteral("floppy")).toStdString()));
    }

    // --storage-profile FILE: the file as given is the profile recorded, with its parameters in the
    // configuration's keys (a normal latency's spread is `stdev`); benchmark records the profile in every
    // run, the warm-up included; a run without emulation records an empty storage object.
    void storageProfileByFileAndOnBenchmark() {
        const QString file = tmp_.filePath(QStringLiteral("profiles/lab-ssd.yaml"));
        testsupport::writeText(file.toStdString(), "description: a lab SSD\nbandwidth_mib_s: 2000\n"
                                                   "latency_ms: {type: normal, mean: 0.2, stdev: 0.05}\nmax_inflight: 16\n");
        const auto r = run(QStringLiteral("by-file"), {QStringLiteral("--storage-profile"), file});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const json st = readJson(tmp_.filePath(QStringLiteral("by-file/trainio_io.json")).toStdString()).at("storage");
        QCOMPARE(st.at("profile").get<std::string>(), file.toStdString());
        QCOMPARE(st.at("bandwidth_mib_s").get<double>(), 2000.0);
        QCOMPARE(st.at("max_inflight").get<int>(), 16);
        QCOMPARE(st.at("latency_ms").at("type").get<std::string>(), std::string("normal"));
        QCOMPARE(st.at("latency_ms").at("mean").get<double>(), 0.2);
        QCOMPARE(st.at("latency_ms").at("stdev").get<double>(), 0.05);
        QVERIFY2(!st.at("latency_ms").contains("stddev"), st.dump().c_str());
        QVERIFY(testsupport::readText(tmp_.filePath(QStringLiteral("by-file/configs/config.yaml")).toStdString())
                    .find("profile: " + file.toStdString()) != std::string::npos);

        const auto b = run(QStringLiteral("bench-nvme"),
                           {QStringLiteral("--storage-profile"), QStringLiteral("nvme"), QStringLiteral("--runs"), QStringLiteral("2"),
                            QStringLiteral("--warmup"), QStringLiteral("1")},
                           QStringLiteral("benchmark"));
        QVERIFY2(b.exitCode == 0, qPrintable(b.err));
        int folders = 0; // the warm-up and the two runs, wherever the benchmark puts them
        for (const auto& e : fs::recursive_directory_iterator(tmp_.filePath(QStringLiteral("bench-nvme")).toStdString())) {
            if (e.path().filename() != "trainio_io.json") continue;
            const json s2 = readJson(e.path()).at("storage");
            QCOMPARE(s2.at("profile").get<std::string>(), std::string("nvme"));
            QCOMPARE(s2.at("bandwidth_mib_s").get<double>(), 6500.0);
            ++folders;
        }
        QCOMPARE(folders, 3);

        const json none = readJson(tmp_.filePath(QStringLiteral("keep/trainio_io.json")).toStdString()).at("storage");
        QVERIFY2(none.is_object() && none.empty(), none.dump().c_str());
    }

    // Telemetry rows cover the run: the first row within two intervals of the start, the last at its end.
    void telemetryCoversTheRun() {
        const fs::path dir = tmp_.filePath(QStringLiteral("keep")).toStdString();
        QVERIFY(fs::exists(dir / "telemetry.csv"));
        const json t = readJson(dir / "telemetry.json");
        const json meta = readJson(dir / "trainio_run.json");
        const auto& rows = t.at("rows");
        QVERIFY(rows.size() >= 2);
        const double wall = meta.at("wall_seconds").get<double>();
        QVERIFY2(rows.front()[0].get<double>() <= 0.25, rows.front().dump().c_str());
        QVERIFY2(rows.back()[0].get<double>() >= wall - 0.25, qPrintable(QString::number(rows.back()[0].get<double>())));
    }

    // drop needs root: refused before anything is measured, with the key and what is needed. Run as an
    // unprivileged user (setpriv to nobody when the suite runs as root, as CI does).
    void dropWithoutRootIsRefused() {
        QTemporaryDir open;
        QVERIFY(open.isValid());
        fs::permissions(open.path().toStdString(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                                       fs::perms::others_read | fs::perms::others_exec);
        const QString cfg = open.filePath(QStringLiteral("w.yaml"));
        testsupport::writeText(cfg.toStdString(), testsupport::readText(cfg_.toStdString()));
        fs::permissions(cfg.toStdString(), fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                                               fs::perms::others_read);
        QStringList args{QStringLiteral("validate"), QStringLiteral("--config"), cfg, QStringLiteral("++trainio.cache=drop")};
        QProcess p;
        if (::geteuid() == 0) {
            args.prepend(QStringLiteral(TRAINIO_CLI));
            args = QStringList{QStringLiteral("--reuid=65534"), QStringLiteral("--regid=65534"), QStringLiteral("--clear-groups")} + args;
            p.start(QStringLiteral("setpriv"), args);
        } else {
            p.start(QStringLiteral(TRAINIO_CLI), args);
        }
        QVERIFY2(p.waitForFinished(testsupport::kHangMs), "validate did not finish");
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QCOMPARE(p.exitCode(), 2);
        QVERIFY2(err.contains(QStringLiteral("trainio.cache: drop; expected")) && err.contains(QStringLiteral("root")),
                 qPrintable(err));
    }
};

QTEST_GUILESS_MAIN(TestStorageTruth)
#include "tst_storage_truth.moc"
