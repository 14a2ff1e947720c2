// Dataset generation, resumption, cancellation, clean and verify on real files in a temporary folder.
#include "testsupport.h"

#include "dataset/dataset_generator.h"
#include "dataset/dataset_layout.h"
#include "dataset/record_shape.h"
#include "util/errors.h"
#include "util/prng.h"

#include <cerrno>
#include <cmath>
#include <filesystem>
#include <mutex>
#include <set>

using namespace trainio;
namespace fs = std::filesystem;

namespace {

WorkloadConfig tinyWorkload(const fs::path& folder, DataFormat format = DataFormat::Npz) {
    WorkloadConfig cfg;
    cfg.dataset.dataFolder = folder.string();
    cfg.dataset.format = format;
    cfg.dataset.numFilesTrain = 20;
    cfg.dataset.numFilesEval = 3;
    cfg.dataset.numSamplesPerFile = 2;
    cfg.dataset.recordLength = 4096;
    cfg.dataset.recordLengthStdev = 1024;
    cfg.dataset.numSubfoldersTrain = 4;
    cfg.train.seed = 7;
    return cfg;
}

GenerateOptions threads(unsigned n) {
    GenerateOptions o;
    o.threads = n;
    return o;
}

std::set<std::string> filesUnder(const fs::path& root) {
    std::set<std::string> out;
    if (!fs::exists(root)) return out;
    for (const auto& e : fs::recursive_directory_iterator(root))
        if (!e.is_directory()) out.insert(fs::relative(e.path(), root).string());
    return out;
}

bool anyTemporary(const fs::path& root) {
    for (const auto& f : filesUnder(root))
        if (f.find(".tmp-") != std::string::npos) return true;
    return false;
}

// Counts data writes and raises the cancel flag after the N-th, or fails writes with an errno.
class HookedBackend final : public IoBackend {
public:
    std::shared_ptr<IoBackend> inner = makePosixBackend();
    std::atomic<bool>* cancelAfter = nullptr;
    int writesBeforeCancel = 0;
    int failWritesErrno = 0;   // pwrite returns -this once the file reached failAfterBytes
    std::uint64_t failAfterBytes = 0;
    int failOpenErrno = 0;     // open for writing returns -this
    std::atomic<int> writes{0};
    const char* name() const override { return "hooked"; }
    int open(const std::string& path, const OpenOptions& o) override {
        if (o.write && failOpenErrno && path.find(kDatasetMarkerName) == std::string::npos) return -failOpenErrno;
        return inner->open(path, o);
    }
    ssize_t pread(int h, void* b, std::size_t l, std::uint64_t off) override { return inner->pread(h, b, l, off); }
    ssize_t pwrite(int h, const void* b, std::size_t l, std::uint64_t off) override {
        if (failWritesErrno && off + l > failAfterBytes) return -failWritesErrno;
        if (cancelAfter && ++writes >= writesBeforeCancel) cancelAfter->store(true);
        return inner->pwrite(h, b, l, off);
    }
    std::int64_t size(int h) override { return inner->size(h); }
    int fsync(int h) override { return inner->fsync(h); }
    int close(int h) override { return inner->close(h); }
};

template <class E>
std::string errorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const E& e) {
        return e.what();
    }
    return "no error of the expected type";
}

} // namespace

class TestDataset : public QObject {
    Q_OBJECT
private slots:
    void recordSizeDistribution() {
        DatasetSection ds;
        ds.recordLength = 146600628; // unet3d
        ds.recordLengthStdev = 68341808;
        const double d = std::floor(std::sqrt(ds.recordLength));
        QCOMPARE(meanDimension(ds), std::uint64_t(d));
        const double sigma = ds.recordLengthStdev / 2.0 / std::sqrt(ds.recordLength);
        const int n = 20000;
        double sum = 0, sum2 = 0;
        for (int i = 0; i < n; ++i) {
            const auto s = recordShape(ds, 123, Split::Train, static_cast<std::uint64_t>(i));
            for (double v : {double(s.d1), double(s.d2)}) {
                sum += v;
                sum2 += v * v;
            }
        }
        const double mean = sum / (2 * n);
        const double stdev = std::sqrt(sum2 / (2 * n) - mean * mean);
        // int() truncation lowers the mean by ~0.5; allow 4 standard errors.
        QVERIFY2(std::abs(mean - (d - 0.5)) < 4 * sigma / std::sqrt(2.0 * n), qPrintable(QString::number(mean)));
        QVERIFY2(std::abs(stdev - sigma) < 0.03 * sigma, qPrintable(QString::number(stdev) + " vs " + QString::number(sigma)));

        // Reproducible per file, independent of other files, different per seed and split.
        const auto a = recordShape(ds, 123, Split::Train, 4711);
        const auto b = recordShape(ds, 123, Split::Train, 4711);
        QCOMPARE(a.d1, b.d1);
        QCOMPARE(a.d2, b.d2);
        QVERIFY(a.d1 != a.d2);
        const auto c = recordShape(ds, 124, Split::Train, 4711);
        const auto v = recordShape(ds, 123, Split::Valid, 4711);
        QVERIFY(c.d1 != a.d1 || c.d2 != a.d2);
        QVERIFY(v.d1 != a.d1 || v.d2 != a.d2);
        // Pinned values: the generator is specified (SplitMix64 + Box-Muller, docs/formats.md), so these
        // never change. They were computed by tests/tools/record_shape_reference.py, written from the
        // documentation alone (not from this code's output).
        const struct {
            Split split;
            std::uint64_t i, d1, d2;
        } pinned[] = {{Split::Train, 0, 12772, 14362}, {Split::Train, 1, 9719, 11930},
                      {Split::Train, 4, 9861, 13113}, {Split::Valid, 0, 15976, 12150}};
        for (const auto& p : pinned) {
            const auto s = recordShape(ds, 123, p.split, p.i);
            QCOMPARE(s.d1, p.d1);
            QCOMPARE(s.d2, p.d2);
        }

        ds.recordLengthStdev = 0;
        const auto fixed = recordShape(ds, 123, Split::Train, 9);
        QCOMPARE(fixed.d1, std::uint64_t(d));
        QCOMPARE(fixed.d2, std::uint64_t(d));
        ds.recordLength = 10;
        ds.recordLengthStdev = 1000; // huge spread: minimum 1
        for (std::uint64_t i = 0; i < 1000; ++i) QVERIFY(recordShape(ds, 1, Split::Train, i).d1 >= 1);
    }

    void splitMix64MatchesPublishedVector() {
        // The first outputs for seed 1234567 published with the reference splitmix64.c (Vigna) and
        // Java's SplittableRandom: the generator every size and shuffle derives from.
        SplitMix64 g(1234567);
        QCOMPARE(g.next(), 6457827717110365317ULL);
        QCOMPARE(g.next(), 3203168211198807973ULL);
        QCOMPARE(g.next(), 9817491932198370423ULL);
    }

    void recordSizesMatchIndependentReference() {
        // Many files of both splits, in a wide and a narrow spread, against the Python reference
        // written from docs/formats.md (a one-ulp libm difference could only move a truncation at an
        // exact integer boundary, which none of these draws hits).
        const struct {
            double length, stdev;
            std::uint64_t seed;
        } cases[] = {{146600628, 68341808, 123}, {4096, 1024, 7}, {10, 1000, 1}};
        for (const auto& c : cases) {
            DatasetSection ds;
            ds.recordLength = c.length;
            ds.recordLengthStdev = c.stdev;
            for (Split split : {Split::Train, Split::Valid}) {
                const QString out = testsupport::runPythonTool(
                    QStringLiteral("record_shape_reference.py"),
                    {QString::number(c.seed), split == Split::Train ? QStringLiteral("train") : QStringLiteral("valid"),
                     QString::number(c.length, 'f', 0), QString::number(c.stdev, 'f', 0), QStringLiteral("0"),
                     QStringLiteral("300")});
                if (QTest::currentTestFailed()) return;
                const QStringList lines = out.trimmed().split('\n');
                QCOMPARE(lines.size(), 300);
                for (const QString& line : lines) {
                    const QStringList f = line.split(' ');
                    QCOMPARE(f.size(), 3);
                    const auto s = recordShape(ds, c.seed, split, f[0].toULongLong());
                    QVERIFY2(s.d1 == f[1].toULongLong() && s.d2 == f[2].toULongLong(),
                             qPrintable(QStringLiteral("file %1: %2 x %3, reference %4 x %5")
                                            .arg(f[0]).arg(s.d1).arg(s.d2).arg(f[1], f[2])));
                }
            }
        }
    }

    void generateWithThreadsAndSubfolders() {
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / "data";
        const WorkloadConfig cfg = tinyWorkload(root);
        std::mutex m;
        std::vector<GenerationProgress> seen;
        GenerateOptions o = threads(3);
        o.onProgress = [&](const GenerationProgress& p) {
            std::lock_guard lock(m);
            seen.push_back(p);
        };
        const auto r = generateDataset(cfg, o);
        QCOMPARE(r.filesWritten, std::uint64_t(23));
        QCOMPARE(r.filesSkipped, std::uint64_t(0));
        QVERIFY(!r.cancelled);
        QVERIFY(!seen.empty());
        QCOMPARE(seen.back().filesDone, std::uint64_t(23));
        QCOMPARE(seen.back().bytesDone, seen.back().bytesTotal);
        QCOMPARE(seen.back().bytesTotal, r.bytesWritten);

        const DatasetLayout layout(cfg.dataset);
        std::uint64_t total = 0;
        std::set<std::uint64_t> sizes;
        for (std::uint64_t i = 0; i < 20; ++i) {
            const std::string p = layout.filePath(Split::Train, i);
            QVERIFY2(fs::exists(p), p.c_str());
            QCOMPARE(fs::path(p).parent_path().filename().string(), std::to_string(i % 4));
            QCOMPARE(fs::file_size(p), expectedDatasetFileSize(cfg, Split::Train, i));
            total += fs::file_size(p);
            sizes.insert(fs::file_size(p));
        }
        for (std::uint64_t i = 0; i < 3; ++i) {
            QVERIFY(fs::exists(layout.filePath(Split::Valid, i)));
            total += fs::file_size(layout.filePath(Split::Valid, i));
        }
        QCOMPARE(total, r.bytesWritten);
        QVERIFY(sizes.size() > 5); // stdev > 0: sizes vary
        QVERIFY(fs::exists(root / kDatasetMarkerName));
        QVERIFY(fs::exists(root / "train" / "3" / "img_07_of_20.npz"));
        QVERIFY(!anyTemporary(root));
        const auto v = verifyDataset(cfg);
        QCOMPARE(v.filesOk, std::uint64_t(23));
        QVERIFY(v.problems.empty());
    }

    void generateTfrecordWritesIndexes() {
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / "tf";
        WorkloadConfig cfg = tinyWorkload(root, DataFormat::Tfrecord);
        cfg.dataset.numSubfoldersTrain = 0;
        QCOMPARE(generateDataset(cfg, threads(2)).filesWritten, std::uint64_t(23));
        const DatasetLayout layout(cfg.dataset);
        for (std::uint64_t i = 0; i < 20; ++i) QVERIFY(fs::exists(layout.indexPath(Split::Train, i)));
        for (std::uint64_t i = 0; i < 3; ++i) QVERIFY(fs::exists(layout.indexPath(Split::Valid, i)));
        QCOMPARE(testsupport::readText(layout.indexPath(Split::Train, 0)).find("0 "), std::size_t(0));
        QCOMPARE(verifyDataset(cfg).filesOk, std::uint64_t(23));
        // A flipped byte inside a record is caught by verify (CRC).
        {
            std::fstream f(layout.filePath(Split::Train, 5), std::ios::in | std::ios::out | std::ios::binary);
            f.seekp(100);
            f.put('\x7f');
            f.seekp(101);
            f.put('\x01');
        }
        const auto v = verifyDataset(cfg);
        QCOMPARE(v.filesBad, std::uint64_t(1));
        QVERIFY(v.problems.at(0).find(layout.filePath(Split::Train, 5)) != std::string::npos);

        WorkloadConfig ib = tinyWorkload(fs::path(tmp.path().toStdString()) / "ib", DataFormat::IndexedBinary);
        QCOMPARE(generateDataset(ib, threads(2)).filesWritten, std::uint64_t(23));
        QVERIFY(fs::exists(DatasetLayout(ib.dataset).filePath(Split::Train, 0) + ".off.idx"));
        QCOMPARE(verifyDataset(ib).filesOk, std::uint64_t(23));
    }

    void resumeWritesOnlyMissingFiles() {
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / "data";
        const WorkloadConfig cfg = tinyWorkload(root);
        generateDataset(cfg, threads(3));
        const DatasetLayout layout(cfg.dataset);
        fs::remove(layout.filePath(Split::Train, 2));
        fs::remove(layout.filePath(Split::Valid, 1));
        // A half-written file from a crashed run (another pid), and a truncated complete-looking one.
        const fs::path stale = root / "train" / "3" / ".img_03_of_20.npz.tmp-99999";
        testsupport::writeText(stale, "partial");
        const auto r = generateDataset(cfg, threads(3));
        QCOMPARE(r.filesWritten, std::uint64_t(2));
        QCOMPARE(r.filesSkipped, std::uint64_t(21));
        QVERIFY(!fs::exists(stale));
        QVERIFY(fs::exists(layout.filePath(Split::Train, 2)));
        fs::resize_file(layout.filePath(Split::Train, 9), 100); // wrong size: not complete
        QCOMPARE(generateDataset(cfg, threads(1)).filesWritten, std::uint64_t(1));
        QCOMPARE(verifyDataset(cfg).filesOk, std::uint64_t(23));
    }

    void cancellationStopsAndLeavesNoTemporaries() {
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / "data";
        WorkloadConfig cfg = tinyWorkload(root, DataFormat::Npy);
        cfg.dataset.recordLength = 4.0 * 1024 * 1024; // 2 samples x 4 MiB per file: several writes each
        cfg.dataset.recordLengthStdev = 0;
        std::atomic<bool> cancel{false};
        auto io = std::make_shared<HookedBackend>();
        io->cancelAfter = &cancel;
        io->writesBeforeCancel = 5; // a few files in, in the middle of one
        GenerateOptions o = threads(2);
        o.cancel = &cancel;
        o.io = io;
        const auto r = generateDataset(cfg, o);
        QVERIFY(r.cancelled);
        QVERIFY(r.filesWritten < 23);
        QVERIFY(!anyTemporary(root));
        const auto v = verifyDataset(cfg);
        QCOMPARE(v.filesBad, std::uint64_t(0)); // whatever has a final name is complete
        QCOMPARE(v.filesOk, r.filesWritten);
        // Cancelled before the start: nothing written.
        const auto r0 = generateDataset(cfg, o);
        QVERIFY(r0.cancelled);
        QCOMPARE(r0.filesWritten, std::uint64_t(0));
        // Resuming completes the dataset.
        cancel = false;
        const auto r2 = generateDataset(cfg, threads(2));
        QCOMPARE(r2.filesWritten + r2.filesSkipped, std::uint64_t(23));
        QCOMPARE(r2.filesSkipped, r.filesWritten);
    }

    void diskFullAndPermissionErrorsNameThePath() {
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / "data";
        WorkloadConfig cfg = tinyWorkload(root, DataFormat::Tfrecord);
        auto io = std::make_shared<HookedBackend>();
        io->failWritesErrno = ENOSPC;
        io->failAfterBytes = 5000;
        GenerateOptions o = threads(2);
        o.io = io;
        const std::string e = errorOf<RunError>([&] { generateDataset(cfg, o); });
        QVERIFY2(e.find("write " + root.string()) == 0 && e.find(errnoText(ENOSPC)) != std::string::npos, e.c_str());
        QVERIFY(!anyTemporary(root));
        QCOMPARE(verifyDataset(cfg).filesBad, std::uint64_t(0)); // no partial file under a final name

        auto denied = std::make_shared<HookedBackend>();
        denied->failOpenErrno = EACCES;
        o.io = denied;
        const std::string e2 = errorOf<RunError>([&] { generateDataset(cfg, o); });
        QVERIFY2(e2.find("create " + root.string()) == 0 && e2.find(errnoText(EACCES)) != std::string::npos, e2.c_str());
    }

    void refusesForeignFolders() {
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / "mine";
        testsupport::writeText(root / "thesis.tex", "precious");
        const WorkloadConfig cfg = tinyWorkload(root);
        const std::string e = errorOf<InputError>([&] { generateDataset(cfg, threads(1)); });
        QVERIFY2(e.find(root.string()) != std::string::npos && e.find("not empty") != std::string::npos, e.c_str());
        QCOMPARE(filesUnder(root), std::set<std::string>{"thesis.tex"});

        // An empty existing folder is fine; other parameters later are refused.
        const fs::path empty = fs::path(tmp.path().toStdString()) / "empty";
        fs::create_directories(empty);
        WorkloadConfig c2 = tinyWorkload(empty);
        generateDataset(c2, threads(2));
        c2.dataset.numSamplesPerFile = 3;
        const std::string e2 = errorOf<InputError>([&] { generateDataset(c2, threads(1)); });
        QVERIFY2(e2.find("num_samples_per_file") != std::string::npos, e2.c_str());

        c2.dataset.numSamplesPerFile = 1;
        c2.dataset.format = DataFormat::Hdf5; // another format over this dataset: refused like any other parameter
        const std::string e3 = errorOf<InputError>([&] { generateDataset(c2, threads(1)); });
        QVERIFY2(e3.find("format") != std::string::npos, e3.c_str());
    }

    void cleanRemovesOnlyOurFiles() {
        QTemporaryDir tmp;
        const fs::path base = tmp.path().toStdString();
        const fs::path root = base / "data";
        const WorkloadConfig cfg = tinyWorkload(root, DataFormat::Tfrecord);
        generateDataset(cfg, threads(3));
        const DatasetLayout layout(cfg.dataset);
        testsupport::writeText(root / "train" / "notes.txt", "mine");
        testsupport::writeText(root / "train" / "0" / ".hidden-user-file", "mine too");
        // Subfolder 1 replaced by a symlink to a folder outside that holds files with our names.
        const fs::path outside = base / "outside";
        fs::create_directories(outside);
        for (const auto& e : fs::directory_iterator(root / "train" / "1")) fs::copy_file(e.path(), outside / e.path().filename());
        fs::remove_all(root / "train" / "1");
        fs::create_directory_symlink(outside, root / "train" / "1");
        const auto outsideFiles = filesUnder(outside);
        QCOMPARE(outsideFiles.size(), std::size_t(5));
        testsupport::writeText(root / "train" / "2" / ".img_06_of_20.tfrecord.tmp-4242", "stale");

        const auto r = cleanDataset(cfg);
        QCOMPARE(r.filesRemoved, std::uint64_t(15 + 3 + 23 + 1 + 1)); // data (5 behind the link) + idx + temp + marker
        QCOMPARE(filesUnder(outside), outsideFiles);
        QVERIFY(fs::is_symlink(root / "train" / "1"));
        // (filesUnder does not descend into the symlink; its target was checked above.)
        QCOMPARE(filesUnder(root), (std::set<std::string>{"train/notes.txt", "train/0/.hidden-user-file"}));
        QVERIFY(!fs::exists(root / "index"));
        QVERIFY(!fs::exists(root / "valid"));
        QVERIFY(!fs::exists(root / "train" / "2"));
        QVERIFY(fs::exists(root / "train" / "0"));
        // No marker any more: a second clean refuses.
        const std::string e = errorOf<InputError>([&] { cleanDataset(cfg); });
        QVERIFY2(e.find(root.string()) != std::string::npos, e.c_str());
    }

    void cleanRemovesWholeTreeItCreated() {
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / "fresh" / "data";
        WorkloadConfig cfg = tinyWorkload(root);
        generateDataset(cfg, threads(2));
        // The marker's parameters decide what is removed, even if the config changed since.
        cfg.dataset.numFilesTrain = 5;
        const auto r = cleanDataset(cfg);
        QCOMPARE(r.filesRemoved, std::uint64_t(23 + 1));
        QVERIFY(!fs::exists(root));
        QVERIFY(fs::exists(root.parent_path()));
    }

    // Under mpirun each process removes its share — the files generation's split gave it — and the last,
    // unsharded pass removes the rest, the marker and the folders (docs/mpi.md).
    void cleanSplitIntoShares() {
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / "data";
        const WorkloadConfig cfg = tinyWorkload(root); // 20 train + 3 eval npz files
        generateDataset(cfg, threads(2));
        const DatasetLayout layout(cfg.dataset);
        std::string path;
        const auto r1 = cleanDataset(cfg, 1, 3); // indices 1, 4, 7, …: 7 train + 1 eval (index 1)
        QCOMPARE(r1.filesRemoved, std::uint64_t(7 + 1));
        QCOMPARE(r1.dirsRemoved, std::uint64_t(0));
        for (const Split split : {Split::Train, Split::Valid})
            for (std::uint64_t i = 0; i < layout.fileCount(split); ++i) {
                layout.filePath(split, i, path);
                QVERIFY2(fs::exists(path) == (i % 3 != 1), path.c_str());
            }
        QVERIFY(fs::exists(root / kDatasetMarkerName)); // the marker stays for the other shares
        const auto r0 = cleanDataset(cfg, 0, 3);
        QCOMPARE(r0.filesRemoved, std::uint64_t(7 + 1));
        const auto last = cleanDataset(cfg); // process 0's last pass: share 2's files were never removed here
        QCOMPARE(last.filesRemoved, std::uint64_t(6 + 1 + 1)); // 6 train + 1 eval + the marker
        QCOMPARE(last.filesRemaining, std::uint64_t(0));
        QVERIFY(!fs::exists(root));
        const std::string e = errorOf<InputError>([&] { cleanDataset(cfg, 3, 3); });
        QVERIFY2(e.find("shard 3 of 3") != std::string::npos, e.c_str());
    }

    void cleanRefusesSymlinkedRootAndUnmarkedFolders() {
        QTemporaryDir tmp;
        const fs::path base = tmp.path().toStdString();
        const WorkloadConfig cfg = tinyWorkload(base / "real");
        generateDataset(cfg, threads(2));
        fs::create_directory_symlink(base / "real", base / "link");
        const std::string e = errorOf<InputError>([&] { cleanDataset(tinyWorkload(base / "link")); });
        QVERIFY2(e.find("symbolic link") != std::string::npos, e.c_str());
        QVERIFY(fs::exists(base / "real" / kDatasetMarkerName));
        testsupport::writeText(base / "user" / "a.npz", "x");
        const std::string e2 = errorOf<InputError>([&] { cleanDataset(tinyWorkload(base / "user")); });
        QVERIFY2(e2.find((base / "user").string()) != std::string::npos, e2.c_str());
        QVERIFY(fs::exists(base / "user" / "a.npz"));
    }

    void verifyFindsTruncatedAndMissingFiles() {
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / "data";
        const WorkloadConfig cfg = tinyWorkload(root);
        generateDataset(cfg, threads(2));
        const DatasetLayout layout(cfg.dataset);
        const std::string cut = layout.filePath(Split::Train, 4);
        fs::resize_file(cut, fs::file_size(cut) - 10);
        fs::remove(layout.filePath(Split::Valid, 0));
        const auto v = verifyDataset(cfg);
        QCOMPARE(v.filesOk, std::uint64_t(21));
        QCOMPARE(v.filesBad, std::uint64_t(1));
        QCOMPARE(v.filesMissing, std::uint64_t(1));
        QCOMPARE(v.problems.size(), std::size_t(2));
        QVERIFY(v.problems[0].find(cut) != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestDataset)
#include "tst_dataset.moc"
