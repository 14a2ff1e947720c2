// The page-cache honesty meter and cache control (docs/cache-honesty.md), on real files in a folder
// on a real block device: residency and /proc/self/io read_bytes after cached reads, after fadvise and
// under O_DIRECT; the device found for a folder (checked against /proc/partitions) or "none" with its
// reason; `drop` refused without root (a child that becomes nobody) and working as root; the record
// formula, the apportionment and trainio_io.json's exact shape.
#include "store/run_files.h"
#include "testsupport.h"

#include "io/aligned_buffer.h"
#include "io/cache_control.h"
#include "io/page_cache.h"
#include "util/errors.h"

#include <nlohmann/json.hpp>

#include <QDir>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <grp.h>
#include <linux/magic.h>
#include <poll.h>
#include <random>
#include <sched.h>
#include <set>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace trainio;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::uint64_t kFileBytes = 4u << 20;
constexpr int kFileCount = 16;
constexpr std::uint64_t kDatasetBytes = kFileBytes * kFileCount;

// Writes count files of bytes random bytes each (incompressible, so no layer below can shortcut the
// reads) and returns their paths.
std::vector<std::string> writeFiles(const fs::path& dir, int count, std::uint64_t bytes) {
    std::mt19937_64 rng(42);
    std::vector<char> buf(bytes);
    std::vector<std::string> paths;
    for (int i = 0; i < count; ++i) {
        for (std::size_t k = 0; k + 8 <= buf.size(); k += 8) {
            const std::uint64_t v = rng();
            std::memcpy(buf.data() + k, &v, 8);
        }
        const fs::path p = dir / ("file_" + std::to_string(i) + ".bin");
        std::ofstream out(p, std::ios::binary);
        out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
        out.close();
        if (!out)
            QTest::qFail(qPrintable(QString::fromStdString("cannot write " + p.string())), __FILE__,
                         __LINE__);
        paths.push_back(p.string());
    }
    return paths;
}

// Reads the files whole with plain read(2), the test's own loop; returns the bytes read.
std::uint64_t readAll(const std::vector<std::string>& files, int extraFlags = 0) {
    AlignedBuffer buf(1u << 20);
    std::uint64_t total = 0;
    for (const auto& f : files) {
        int fd = ::open(f.c_str(), O_RDONLY | O_CLOEXEC | extraFlags);
        if (fd < 0) {
            QTest::qFail(qPrintable(QString::fromStdString("open " + f + ": " + std::strerror(errno))),
                         __FILE__, __LINE__);
            return total;
        }
        ssize_t n;
        while ((n = ::read(fd, buf.data(), buf.capacity())) > 0)
            total += static_cast<std::uint64_t>(n);
        ::close(fd);
    }
    return total;
}

// The test's own eviction of a byte range (independent of applyCacheControl).
void evict(const std::string& path, off_t offset, off_t len) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    QVERIFY(fd >= 0);
    QCOMPARE(::fdatasync(fd), 0);
    QCOMPARE(::posix_fadvise(fd, offset, len, POSIX_FADV_DONTNEED), 0);
    ::close(fd);
}

std::uint64_t storageReadDuring(const std::function<void()>& work) {
    const ProcessIoSnapshot before = readProcessIo();
    work();
    const ProcessIoSnapshot after = readProcessIo();
    if (!before.available || !after.available) QTest::qFail("/proc/self/io unavailable", __FILE__, __LINE__);
    return readBytesDelta(before, after);
}

// The name /proc/partitions gives the device major:minor (an independent source from sysfs).
std::string partitionsName(unsigned major, unsigned minor) {
    std::ifstream in("/proc/partitions");
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        unsigned ma = 0, mi = 0;
        std::uint64_t blocks = 0;
        std::string name;
        if (ls >> ma >> mi >> blocks >> name && ma == major && mi == minor) return name;
    }
    return {};
}

// Runs fn in a child process (which first becomes nobody, uid/gid 65534, if asked); returns what fn
// returned. Fails (never hangs) if the child does not answer within 30 s.
std::string runInChild(const std::function<std::string()>& fn, bool asNobody) {
    int fds[2];
    if (::pipe(fds) != 0) {
        QTest::qFail("pipe failed", __FILE__, __LINE__);
        return {};
    }
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(fds[0]);
        std::string out;
        if (asNobody && (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0))
            out = std::string("setuid failed: ") + std::strerror(errno);
        else
            out = fn();
        ssize_t ignored = ::write(fds[1], out.data(), out.size());
        (void)ignored;
        ::_exit(0);
    }
    ::close(fds[1]);
    std::string out;
    char buf[4096];
    pollfd pfd{fds[0], POLLIN, 0};
    bool timedOut = false;
    for (;;) {
        if (::poll(&pfd, 1, 30000) <= 0) {
            timedOut = true;
            break;
        }
        ssize_t n = ::read(fds[0], buf, sizeof buf);
        if (n <= 0) break;
        out.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fds[0]);
    if (timedOut) ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (timedOut) QTest::qFail("the child did not answer within 30 s (a hang)", __FILE__, __LINE__);
    return out;
}

std::string runAsNobody(const std::function<std::string()>& fn) {
    return runInChild(fn, true);
}

} // namespace

class TestCacheMeter : public QObject {
    Q_OBJECT

    // A folder on a block device (the build tree's temp folder or, if that is tmpfs/overlay, the
    // build dir on disk); empty with reasons in noDeviceReasons_ when there is none.
    QTemporaryDir* diskDir_ = nullptr;
    BlockDevice device_;
    std::string noDeviceReasons_;

    bool needDisk() {
        if (diskDir_) return true;
        // Visible reason: this machine has no folder on a block device, so nothing reads from storage.
        qWarning("SKIP: no folder on a block device here (%s); deviceNoneHasReason covers this case",
                 noDeviceReasons_.c_str());
        return false;
    }

private slots:
    void initTestCase() {
        for (const QString& base : {QDir::tempPath(), QCoreApplication::applicationDirPath()}) {
            auto* dir = new QTemporaryDir(base + QStringLiteral("/tst_cache_meter-XXXXXX"));
            QVERIFY2(dir->isValid(), qPrintable(dir->errorString()));
            BlockDevice d = findBlockDevice(dir->path().toStdString());
            if (d.found) {
                diskDir_ = dir;
                device_ = d;
                qInfo("test folder %s on block device %s (%u:%u, %s)", qPrintable(dir->path()),
                      d.name.c_str(), d.major, d.minor, d.fsType.c_str());
                return;
            }
            noDeviceReasons_ += d.reason + "; ";
            delete dir;
        }
    }
    void cleanupTestCase() { delete diskDir_; }

    // ---- cache modes -------------------------------------------------------------------------

    void cacheModeWords() {
        for (CacheMode m : {CacheMode::Keep, CacheMode::Fadvise, CacheMode::Drop})
            QCOMPARE(parseCacheMode(toString(m), "w.yaml: trainio.cache"), m);
        QCOMPARE(std::string(toString(CacheMode::Fadvise)), std::string("fadvise"));
        for (const char* bad : {"Drop", "drop ", "", "none"}) {
            try {
                parseCacheMode(bad, "w.yaml: trainio.cache");
                QFAIL("accepted a bad cache mode");
            } catch (const InputError& e) {
                const std::string msg = e.what();
                QVERIFY2(msg.find("w.yaml: trainio.cache") != std::string::npos, e.what());
                QVERIFY2(msg.find("'" + std::string(bad) + "'") != std::string::npos, e.what());
                QVERIFY2(msg.find("keep, fadvise, drop") != std::string::npos, e.what());
            }
        }
    }

    // ---- records, formula, JSON ---------------------------------------------------------------

    void percentFromCacheFormula() {
        QCOMPARE(*percentFromCache(1000, 250), 75.0);
        QCOMPARE(*percentFromCache(1000, 0), 100.0);
        QCOMPARE(*percentFromCache(1000, 1000), 0.0);
        QCOMPARE(*percentFromCache(1000, 3000), 0.0); // readahead beyond delivered: clamped
        QVERIFY(!percentFromCache(0, 10));
        EpochIoRecord e;
        e.ranks = {{600, 100, std::nullopt, 1.0}, {400, 200, std::nullopt, 1.0}};
        QCOMPARE(*percentFromCache(e), 70.0); // 1 − 300/1000
        e.ranks[1].bytesFromStorage.reset();
        QVERIFY(!percentFromCache(e));
    }

    void apportionSumsExactly() {
        QCOMPARE(apportionByShare(10, {1, 1, 1}), (std::vector<std::uint64_t>{4, 3, 3}));
        QCOMPARE(apportionByShare(100, {3, 1}), (std::vector<std::uint64_t>{75, 25}));
        QCOMPARE(apportionByShare(7, {0, 0}), (std::vector<std::uint64_t>{4, 3}));
        QCOMPARE(apportionByShare(5, {0, 9}), (std::vector<std::uint64_t>{0, 5}));
        // 2^63 × 3 overflows 64 bits: the split must still be exact.
        const std::uint64_t big = 1ull << 63;
        QCOMPARE(apportionByShare(big, {1ull << 40, 3ull << 40}),
                 (std::vector<std::uint64_t>{1ull << 61, 3ull << 61}));
        QVERIFY(apportionByShare(5, {}).empty());
    }

    void ioJsonExactShape() {
        IoReport rep;
        rep.engine = "posix";
        rep.cache = "fadvise";
        rep.storage = json{{"profile", "hdd"}};
        EpochIoRecord e1{1, {{1000, 1000, 2000, 0.0}, {1000, 900, std::nullopt, 0.0}}};
        EpochIoRecord e2{2, {{1000, 10, 0, 0.99}, {1000, std::nullopt, 0, std::nullopt}}};
        rep.epochs = {e1, e2};
        QTemporaryDir tmp;
        store::writeIoReport(tmp.path().toStdString(), rep);
        const json j =
            json::parse(testsupport::readText(fs::path(tmp.path().toStdString()) / "trainio_io.json"));
        auto keys = [](const json& o) {
            std::set<std::string> k;
            for (auto it = o.begin(); it != o.end(); ++it)
                k.insert(it.key());
            return k;
        };
        QCOMPARE(keys(j), (std::set<std::string>{"engine", "cache", "storage", "epochs"}));
        QCOMPARE(j["engine"].get<std::string>(), std::string("posix"));
        QCOMPARE(j["cache"].get<std::string>(), std::string("fadvise"));
        QCOMPARE(j["storage"]["profile"].get<std::string>(), std::string("hdd"));
        QCOMPARE(j["epochs"].size(), std::size_t(2));
        for (const auto& e : j["epochs"]) {
            QCOMPARE(keys(e), (std::set<std::string>{"epoch", "percent_from_cache", "ranks"}));
            for (const auto& r : e["ranks"])
                QCOMPARE(keys(r), (std::set<std::string>{"bytes_delivered", "bytes_from_storage",
                                                         "device_read_bytes", "cache_resident_fraction"}));
        }
        QCOMPARE(j["epochs"][0]["epoch"].get<int>(), 1);
        QCOMPARE(j["epochs"][0]["percent_from_cache"].get<double>(), 5.0); // 1 − 1900/2000
        QCOMPARE(j["epochs"][0]["ranks"][1]["bytes_from_storage"].get<std::uint64_t>(), std::uint64_t(900));
        QVERIFY(j["epochs"][0]["ranks"][1]["device_read_bytes"].is_null());
        QCOMPARE(j["epochs"][0]["ranks"][0]["device_read_bytes"].get<std::uint64_t>(), std::uint64_t(2000));
        QVERIFY(j["epochs"][1]["percent_from_cache"].is_null()); // a rank without a storage figure
        QVERIFY(j["epochs"][1]["ranks"][1]["cache_resident_fraction"].is_null());
        QCOMPARE(j["epochs"][1]["ranks"][0]["cache_resident_fraction"].get<double>(), 0.99);
    }

    void warningWhenMostlyFromCache() {
        IoReport rep;
        rep.epochs = {{1, {{1000, 1000, std::nullopt, 0.0}}},
                      {2, {{1000, 20, std::nullopt, 1.0}}},
                      {3, {{1000, 500, std::nullopt, 1.0}}},
                      {4, {{1000, 100, std::nullopt, 1.0}}}};
        const std::string w = cacheWarning(rep);
        QVERIFY2(w.find("page cache") != std::string::npos, w.c_str());
        QVERIFY2(w.find("in epochs 2, 4 (") != std::string::npos,
                 w.c_str()); // 98 % and 90 %; 3 is exactly half
        QVERIFY2(w.find("98.0 %") != std::string::npos, w.c_str());
        QVERIFY2(w.find("fadvise") != std::string::npos, w.c_str());
        rep.epochs.resize(1);
        QCOMPARE(cacheWarning(rep), std::string());
    }

    // ---- /proc and /sys readers on injected files ---------------------------------------------

    void processIoFileProblems() {
        const ProcessIoSnapshot real = readProcessIo();
        QVERIFY2(real.available, real.unavailableReason.c_str());
        QTemporaryDir tmp;
        const fs::path bad = fs::path(tmp.path().toStdString()) / "io";
        testsupport::writeText(bad, "rchar: 12\nwchar: 3\n");
        const ProcessIoSnapshot s = readProcessIo(bad);
        QVERIFY(!s.available);
        QVERIFY2(s.unavailableReason.find(bad.string()) != std::string::npos, s.unavailableReason.c_str());
        QVERIFY2(s.unavailableReason.find("read_bytes") != std::string::npos, s.unavailableReason.c_str());
        const ProcessIoSnapshot missing = readProcessIo(bad.string() + "-missing");
        QVERIFY(!missing.available);
        QVERIFY2(missing.unavailableReason.find("io-missing") != std::string::npos,
                 missing.unavailableReason.c_str());
        testsupport::writeText(
            bad, "rchar: 5000\nwchar: 0\nsyscr: 3\nsyscw: 0\nread_bytes: 4096\nwrite_bytes: 0\n");
        const ProcessIoSnapshot ok = readProcessIo(bad);
        QVERIFY(ok.available);
        QCOMPARE(ok.rchar, std::uint64_t(5000));
        QCOMPARE(ok.readBytes, std::uint64_t(4096));
    }

    // A fake sysfs tree and diskstats: a partition and its disk, a device-mapper volume, a device
    // sysfs does not list, one diskstats does not list.
    void deviceFromFakeSysfs() {
        QTemporaryDir tmp;
        const fs::path root = tmp.path().toStdString();
        const fs::path devices = root / "devices";
        fs::create_directories(devices / "nvme0n1" / "nvme0n1p2");
        testsupport::writeText(devices / "nvme0n1" / "nvme0n1p2" / "partition", "2\n");
        fs::create_directories(devices / "dm-3" / "dm");
        testsupport::writeText(devices / "dm-3" / "dm" / "name", "vg-data\n");
        fs::create_directories(devices / "sdz");
        fs::create_directories(root / "dev-block");
        fs::create_symlink(devices / "nvme0n1" / "nvme0n1p2", root / "dev-block" / "259:2");
        fs::create_symlink(devices / "nvme0n1", root / "dev-block" / "259:0");
        fs::create_symlink(devices / "dm-3", root / "dev-block" / "253:3");
        fs::create_symlink(devices / "sdz", root / "dev-block" / "65:144");
        testsupport::writeText(root / "diskstats",
                               " 259       0 nvme0n1 100 0 80000 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
                               " 259       2 nvme0n1p2 90 0 70000 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
                               " 253       3 dm-3 7 1 4096 3 0 0 0 0 0 0 0\n");
        SystemPaths sp{root / "dev-block", root / "diskstats"};

        BlockDevice part = findBlockDeviceByNumber(259, 2, "ext4", sp);
        QVERIFY2(part.found, part.reason.c_str());
        QCOMPARE(part.name, std::string("nvme0n1p2"));
        QCOMPARE(part.parentDisk, std::string("nvme0n1"));
        QCOMPARE(*deviceReadBytes(part.name, sp.diskstats), std::uint64_t(70000) * 512);

        BlockDevice disk = findBlockDeviceByNumber(259, 0, "ext4", sp);
        QVERIFY(disk.found);
        QCOMPARE(disk.name, std::string("nvme0n1"));
        QCOMPARE(disk.parentDisk, std::string());

        BlockDevice dm = findBlockDeviceByNumber(253, 3, "xfs", sp);
        QVERIFY2(dm.found, dm.reason.c_str());
        QCOMPARE(dm.name, std::string("dm-3"));
        QCOMPARE(dm.mapperName, std::string("vg-data"));
        QCOMPARE(dm.parentDisk, std::string());
        QCOMPARE(*deviceReadBytes("dm-3", sp.diskstats), std::uint64_t(4096) * 512);

        BlockDevice unlisted = findBlockDeviceByNumber(8, 17, "ext4", sp);
        QVERIFY(!unlisted.found);
        QVERIFY2(unlisted.reason.find("8:17") != std::string::npos, unlisted.reason.c_str());
        QVERIFY(unlisted.name.empty());

        BlockDevice noStats = findBlockDeviceByNumber(65, 144, "ext4", sp);
        QVERIFY(!noStats.found);
        QVERIFY2(noStats.reason.find("sdz") != std::string::npos, noStats.reason.c_str());
        QVERIFY2(noStats.reason.find("diskstats") != std::string::npos, noStats.reason.c_str());
        QVERIFY(!deviceReadBytes("sdz", sp.diskstats));
    }

    // ---- real folders --------------------------------------------------------------------------

    void deviceOfRealFolder() {
        if (!needDisk()) return;
        struct stat st {};
        QCOMPARE(::stat(diskDir_->path().toLocal8Bit().constData(), &st), 0);
        QCOMPARE(device_.major, ::major(st.st_dev));
        QCOMPARE(device_.minor, ::minor(st.st_dev));
        const std::string expected = partitionsName(device_.major, device_.minor);
        QVERIFY2(!expected.empty(), "the folder's device is not in /proc/partitions");
        QCOMPARE(device_.name, expected);
        QVERIFY(deviceReadBytes(device_.name).has_value());
    }

    void deviceNoneHasReason() {
        BlockDevice proc = findBlockDevice("/proc");
        QVERIFY(!proc.found);
        QVERIFY(proc.name.empty());
        QVERIFY2(proc.reason.find("/proc") != std::string::npos, proc.reason.c_str());
        QVERIFY2(proc.reason.find("anonymous") != std::string::npos, proc.reason.c_str());
        QCOMPARE(proc.fsType, std::string("proc"));

        struct statfs sf {};
        if (::statfs("/dev/shm", &sf) == 0 && sf.f_type == TMPFS_MAGIC) {
            BlockDevice shm = findBlockDevice("/dev/shm");
            QVERIFY(!shm.found);
            QVERIFY(shm.name.empty());
            QVERIFY2(shm.reason.find("tmpfs") != std::string::npos, shm.reason.c_str());
        } else {
            qWarning("/dev/shm is not a tmpfs here: the tmpfs case is checked only through /proc's path");
        }
        BlockDevice missing = findBlockDevice("/nonexistent-tst-cache-meter");
        QVERIFY(!missing.found);
        QVERIFY2(missing.reason.find("/nonexistent-tst-cache-meter") != std::string::npos,
                 missing.reason.c_str());
        if (!diskDir_) QVERIFY2(!noDeviceReasons_.empty(), "no block device, and no reason given");
    }

    // A tmpfs and an overlayfs mounted in a private mount namespace of a child process (gone with the
    // child): no device, and the reason names the file system.
    void deviceNoneOnTmpfsAndOverlay() {
        if (::geteuid() != 0) {
            QSKIP("mounting a tmpfs and an overlayfs needs root; this test runs as a normal user");
        }
        QTemporaryDir tmp;
        const std::string root = tmp.path().toStdString();
        const std::string out = runInChild(
            [&] {
                if (::unshare(CLONE_NEWNS) != 0)
                    return "cannot mount: unshare(CLONE_NEWNS): " + std::string(std::strerror(errno));
                if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
                    return "cannot mount: make / private: " + std::string(std::strerror(errno));
                if (::mount("tst", root.c_str(), "tmpfs", 0, nullptr) != 0)
                    return "cannot mount: tmpfs: " + std::string(std::strerror(errno));
                for (const char* d : {"/lower", "/upper", "/work", "/merged"})
                    ::mkdir((root + d).c_str(), 0700);
                const std::string opts =
                    "lowerdir=" + root + "/lower,upperdir=" + root + "/upper,workdir=" + root + "/work";
                std::string result = "tmpfs|" + findBlockDevice(root).reason + "\n";
                if (::mount("tst", (root + "/merged").c_str(), "overlay", 0, opts.c_str()) != 0)
                    return result + "overlay unavailable: " + std::strerror(errno);
                const BlockDevice ov = findBlockDevice(root + "/merged");
                return result + (ov.found ? "FOUND " + ov.name : "overlay|" + ov.reason);
            },
            false);
        if (out.rfind("cannot mount", 0) == 0) {
            QSKIP(qPrintable(
                QString::fromStdString("this sandbox forbids mounts in a private namespace: " + out)));
        }
        qInfo("%s", out.c_str());
        QVERIFY2(out.rfind("tmpfs|" + root + " is on tmpfs", 0) == 0, out.c_str());
        QVERIFY2(out.find("no storage is read") != std::string::npos, out.c_str());
        if (out.find("overlay unavailable") != std::string::npos) {
            qWarning("overlayfs cannot be mounted here (%s): only the tmpfs case was checked", out.c_str());
            return;
        }
        QVERIFY2(out.find("overlay|" + root + "/merged is on overlay") != std::string::npos, out.c_str());
        QVERIFY2(out.find("FOUND") == std::string::npos, out.c_str());
    }

    // Written files are cached: residency ≈ 1 and a re-read reads ≈ nothing from storage. After
    // fadvise: residency ≈ 0 and a re-read reads ≥ 90 % from storage and from the device.
    void cachedThenFadvised() {
        if (!needDisk()) return;
        const fs::path dir = fs::path(diskDir_->path().toStdString()) / "cached";
        fs::create_directories(dir);
        const auto files = writeFiles(dir, kFileCount, kDatasetBytes / kFileCount);
        QCOMPARE(readAll(files), kDatasetBytes);

        Residency warm = measureResidency(files);
        QVERIFY2(warm.problems.empty(), warm.problems.empty() ? "" : warm.problems.front().c_str());
        QCOMPARE(warm.filesSampled, std::uint64_t(kFileCount));
        QCOMPARE(warm.pagesSampled, kDatasetBytes / static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)));
        QVERIFY2(*warm.residentFraction >= 0.99, qPrintable(QString::number(*warm.residentFraction)));
        const std::uint64_t cachedRead = storageReadDuring([&] { QCOMPARE(readAll(files), kDatasetBytes); });
        qInfo("cached re-read of %llu bytes: read_bytes delta %llu (%.2f %% from storage), residency %.4f",
              static_cast<unsigned long long>(kDatasetBytes), static_cast<unsigned long long>(cachedRead),
              100.0 * double(cachedRead) / double(kDatasetBytes), *warm.residentFraction);
        QVERIFY(cachedRead <= kDatasetBytes / 100);

        const CacheControlResult fa = applyCacheControl(CacheMode::Fadvise, files);
        QCOMPARE(fa.files, std::uint64_t(kFileCount));
        QCOMPARE(fa.bytes, kDatasetBytes);
        QVERIFY(fa.seconds >= 0);
        Residency cold = measureResidency(files);
        QVERIFY2(*cold.residentFraction <= 0.01, qPrintable(QString::number(*cold.residentFraction)));

        const auto deviceBefore = deviceReadBytes(device_.name);
        const std::uint64_t coldRead = storageReadDuring([&] { QCOMPARE(readAll(files), kDatasetBytes); });
        const auto deviceAfter = deviceReadBytes(device_.name);
        const std::uint64_t deviceDelta = *deviceAfter - *deviceBefore;
        qInfo(
            "after fadvise (%.3f s for %llu files): residency %.4f, re-read: read_bytes %llu = %.1f %% from "
            "storage; device %s read %llu bytes (%.1f %%, other processes included)",
            fa.seconds, static_cast<unsigned long long>(fa.files), *cold.residentFraction,
            static_cast<unsigned long long>(coldRead), 100.0 * double(coldRead) / double(kDatasetBytes),
            device_.name.c_str(), static_cast<unsigned long long>(deviceDelta),
            100.0 * double(deviceDelta) / double(kDatasetBytes));
        QVERIFY(coldRead >= kDatasetBytes * 9 / 10);
        QVERIFY(deviceDelta >= kDatasetBytes * 9 / 10);
    }

    // The meter end to end with two reader threads as two ranks of unequal share: a fadvised epoch
    // is mostly from storage, a cached one mostly from cache, and the records add up.
    void meterOverEpochs() {
        if (!needDisk()) return;
        const fs::path dir = fs::path(diskDir_->path().toStdString()) / "meter";
        fs::create_directories(dir);
        const auto files = writeFiles(dir, kFileCount, kDatasetBytes / kFileCount);
        PageCacheMeter meter(dir, files);
        QVERIFY2(meter.device().found, meter.device().reason.c_str());
        QCOMPARE(meter.device().name, device_.name);

        // Rank 0 reads files 0..3, rank 1 files 4..15: a quarter and three quarters.
        const std::vector<std::string> rank0(files.begin(), files.begin() + 4),
            rank1(files.begin() + 4, files.end());
        auto epoch = [&](std::uint64_t n) {
            std::uint64_t d0 = 0, d1 = 0;
            std::thread t0([&] { d0 = readAll(rank0); });
            std::thread t1([&] { d1 = readAll(rank1); });
            t0.join();
            t1.join();
            return meter.endEpoch(n, {d0, d1});
        };
        IoReport rep{"posix", "fadvise", json::object(), {}};
        applyCacheControl(CacheMode::Fadvise, files);
        const Residency& r1 = meter.beginEpoch();
        QVERIFY(*r1.residentFraction <= 0.01);
        rep.epochs.push_back(epoch(1));
        meter.beginEpoch();
        rep.epochs.push_back(epoch(2));

        const EpochIoRecord& cold = rep.epochs[0];
        QCOMPARE(cold.ranks[0].bytesDelivered, kDatasetBytes / 4);
        QCOMPARE(cold.ranks[1].bytesDelivered, kDatasetBytes * 3 / 4);
        const std::uint64_t storage0 = *cold.ranks[0].bytesFromStorage,
                            storage1 = *cold.ranks[1].bytesFromStorage;
        QVERIFY(storage0 >= kDatasetBytes * 9 / 10 / 4);
        // The apportionment keeps the ranks' 1 : 3 share of delivered bytes (to within one byte).
        QVERIFY(storage1 + 3 >= 3 * storage0 && storage1 <= 3 * storage0 + 3);
        QVERIFY(*cold.ranks[0].deviceReadBytes + *cold.ranks[1].deviceReadBytes >= kDatasetBytes * 9 / 10);
        QVERIFY(*percentFromCache(cold) <= 10.0);
        QVERIFY(*rep.epochs[1].ranks[0].cacheResidentFraction >= 0.99);
        QVERIFY(*percentFromCache(rep.epochs[1]) >= 99.0);
        qInfo("meter: epoch 1 (after fadvise) %.1f %% from cache, epoch 2 (kept) %.1f %% from cache",
              *percentFromCache(cold), *percentFromCache(rep.epochs[1]));
        const std::string w = cacheWarning(rep);
        QVERIFY2(w.find("in epoch 2 (") != std::string::npos, w.c_str());
    }

    // O_DIRECT reads bypass the cache: all of them count as read from storage even when cached.
    void directReadsCountAsStorage() {
        if (!needDisk()) return;
        const fs::path dir = fs::path(diskDir_->path().toStdString()) / "direct";
        fs::create_directories(dir);
        const auto files = writeFiles(dir, 4, kFileBytes);
        readAll(files);
        QVERIFY(*measureResidency(files).residentFraction >= 0.99);
        int probe = ::open(files[0].c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
        if (probe < 0 && errno == EINVAL) {
            QSKIP(qPrintable(
                QStringLiteral("the file system of %1 refuses O_DIRECT (EINVAL)").arg(diskDir_->path())));
        }
        QVERIFY(probe >= 0);
        ::close(probe);
        const std::uint64_t fromStorage =
            storageReadDuring([&] { QCOMPARE(readAll(files, O_DIRECT), 4 * kFileBytes); });
        qInfo("O_DIRECT re-read of cached files: %.1f %% from storage",
              100.0 * double(fromStorage) / double(4 * kFileBytes));
        QVERIFY(fromStorage >= 4 * kFileBytes * 95 / 100);
    }

    // The sample: files evenly spread over the list, windows evenly spread over a large file.
    void residencySampling() {
        if (!needDisk()) return;
        const fs::path dir = fs::path(diskDir_->path().toStdString()) / "sample";
        fs::create_directories(dir);
        const auto files = writeFiles(dir, 10, 64 * 1024);
        for (int i = 1; i < 10; i += 2)
            evict(files[static_cast<std::size_t>(i)], 0, 0); // odd files out
        QCOMPARE(*measureResidency(files).residentFraction, 0.5);
        ResidencyOptions five;
        five.maxFiles = 5; // files 0, 2, 4, 6, 8: all resident
        Residency r5 = measureResidency(files, five);
        QCOMPARE(r5.filesSampled, std::uint64_t(5));
        QCOMPARE(r5.filesInDataset, std::uint64_t(10));
        QCOMPARE(*r5.residentFraction, 1.0);

        const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
        fs::create_directories(dir / "big");
        const auto big = writeFiles(dir / "big", 1, 8u << 20);
        evict(big[0], 4 << 20, 0); // second half out
        ResidencyOptions small;
        small.maxBytesPerFile = 1u << 20;
        small.windowsPerFile = 4; // windows at the start, a third, two thirds and the end
        Residency rb = measureResidency(big, small);
        QCOMPARE(rb.pagesSampled, std::uint64_t((1u << 20) / page));
        QCOMPARE(*rb.residentFraction, 0.5);

        Residency none = measureResidency({(dir / "missing.bin").string()});
        QVERIFY(!none.residentFraction);
        QCOMPARE(none.problems.size(), std::size_t(1));
        QVERIFY2(none.problems[0].find("missing.bin") != std::string::npos, none.problems[0].c_str());
    }

    // The kernel hides residency of files the process may not write: reported as a problem, never
    // as "not resident".
    void residencyOfOthersFiles() {
        if (::geteuid() != 0) {
            // A normal user: /etc/passwd is root's and read-only to others on every Linux system.
            struct stat st {};
            QCOMPARE(::stat("/etc/passwd", &st), 0);
            QVERIFY(st.st_uid != ::geteuid() && ::access("/etc/passwd", W_OK) != 0);
            Residency r = measureResidency({"/etc/passwd"});
            QVERIFY(!r.residentFraction);
            QCOMPARE(r.filesSampled, std::uint64_t(0));
            QVERIFY2(r.problems.size() == 1 && r.problems[0].find("owner") != std::string::npos,
                     r.problems.empty() ? "no problem listed" : r.problems[0].c_str());
            return;
        }
        if (!needDisk()) return;
        const fs::path dir = fs::path(diskDir_->path().toStdString()) / "others";
        fs::create_directories(dir);
        fs::permissions(diskDir_->path().toStdString(), fs::perms::others_exec, fs::perm_options::add);
        fs::permissions(dir, fs::perms::others_exec | fs::perms::others_read, fs::perm_options::add);
        const auto files = writeFiles(dir, 1, 64 * 1024);
        fs::permissions(files[0], fs::perms::others_read, fs::perm_options::add);
        const std::string out = runAsNobody([&] {
            Residency r = measureResidency(files);
            return std::string(r.residentFraction ? "fraction " : "nofraction ") +
                   std::to_string(r.filesSampled) + " " +
                   (r.problems.empty() ? std::string() : r.problems[0]);
        });
        QVERIFY2(out.rfind("nofraction 0 ", 0) == 0, out.c_str());
        QVERIFY2(out.find(files[0]) != std::string::npos, out.c_str());
        QVERIFY2(out.find("owner") != std::string::npos, out.c_str());
    }

    // ---- drop ----------------------------------------------------------------------------------

    void dropWithoutRootIsAClearError() {
        if (::geteuid() == 0) {
            const std::string out = runAsNobody([] {
                try {
                    applyCacheControl(CacheMode::Drop, {});
                    return std::string("no error");
                } catch (const RunError& e) {
                    const auto problem = cacheControlProblem(CacheMode::Drop);
                    return std::string(e.what()) + "\n" + problem.value_or("no problem");
                }
            });
            qInfo("drop as nobody: %s", out.c_str());
            QVERIFY2(out.find("/proc/sys/vm/drop_caches") != std::string::npos, out.c_str());
            QVERIFY2(out.find("needs root") != std::string::npos, out.c_str());
            QVERIFY2(out.find("no sudo") != std::string::npos, out.c_str());
            QVERIFY2(out.find("cache: fadvise") != std::string::npos, out.c_str());
            QVERIFY2(out.find("no problem") == std::string::npos, out.c_str()); // the preflight saw it too
        } else {
            try {
                applyCacheControl(CacheMode::Drop, {});
                QFAIL("a non-root process dropped the caches");
            } catch (const RunError& e) {
                QVERIFY2(std::string(e.what()).find("needs root") != std::string::npos, e.what());
            }
        }
    }

    // An injected target nobody reads (a FIFO) and one that does not exist: errors, never a hang.
    void dropOnInjectedPaths() {
        QTemporaryDir tmp;
        const fs::path fifo = fs::path(tmp.path().toStdString()) / "drop_caches";
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        try {
            applyCacheControl(CacheMode::Drop, {}, {fifo});
            QFAIL("writing to a FIFO without a reader succeeded");
        } catch (const RunError& e) {
            QVERIFY2(std::string(e.what()).find(fifo.string()) != std::string::npos, e.what());
        }
        const fs::path none = fs::path(tmp.path().toStdString()) / "no-such" / "drop_caches";
        try {
            applyCacheControl(CacheMode::Drop, {}, {none});
            QFAIL("dropping through a missing file succeeded");
        } catch (const RunError& e) {
            QVERIFY2(std::string(e.what()).find(none.string()) != std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find("fadvise") != std::string::npos, e.what());
        }
        QVERIFY(cacheControlProblem(CacheMode::Drop, {none}).has_value());
        QVERIFY(!cacheControlProblem(CacheMode::Fadvise, {none}).has_value());
    }

    // As root, drop empties the cache of our files (or, in a sandbox that forbids it, says so).
    void dropAsRoot() {
        if (::geteuid() != 0) {
            QSKIP(
                "drop needs root; this test runs as a normal user (dropWithoutRootIsAClearError covers it)");
        }
        if (!needDisk()) return;
        const fs::path dir = fs::path(diskDir_->path().toStdString()) / "drop";
        fs::create_directories(dir);
        const auto files = writeFiles(dir, 2, kFileBytes);
        readAll(files);
        QVERIFY(*measureResidency(files).residentFraction >= 0.99);
        try {
            const CacheControlResult r = applyCacheControl(CacheMode::Drop, files);
            qInfo("drop as root took %.3f s", r.seconds);
            QVERIFY(r.seconds > 0);
            const double after = *measureResidency(files).residentFraction;
            QVERIFY2(after <= 0.01, qPrintable(QString::number(after)));
        } catch (const RunError& e) {
            QVERIFY2(std::string(e.what()).find("even as root") != std::string::npos, e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestCacheMeter)
#include "tst_cache_meter.moc"
