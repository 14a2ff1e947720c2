// Dataset file formats: layout names, CRC-32C, npy/npz/tfrecord/indexed_binary/raw writers and the
// sample readers, cross-checked with numpy and python3-crc32c on real files.
#include "testsupport.h"

#include "dataset/dataset_layout.h"
#include "format/crc32c.h"
#include "format/format_writer.h"
#include "format/npy_format.h"
#include "format/sample_reader.h"
#include "format/tfrecord_format.h"
#include "util/errors.h"

#include <QCoreApplication>
#include <QProcess>

#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <memory>
#include <random>
#include <set>
#include <unistd.h>

using namespace trainio;
namespace fs = std::filesystem;

namespace {

const char* kPython = "/usr/bin/python3"; // Debian's python, where python3-numpy and python3-crc32c live

QString tool(const char* name) { return QStringLiteral(TRAINIO_SOURCE_DIR "/tests/tools/") + QString::fromLatin1(name); }

// Runs a tests/tools script; returns its stdout (trimmed) and the exit code.
std::pair<int, QString> runTool(const char* script, const QStringList& args) {
    QProcess p;
    p.start(QString::fromLatin1(kPython), QStringList{tool(script)} + args);
    if (!p.waitForFinished(120000)) return {-1, QStringLiteral("timeout")};
    return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError()).trimmed()};
}

// A POSIX backend that fails on request, for error-path tests.
class FaultyBackend final : public IoBackend {
public:
    std::shared_ptr<IoBackend> inner = makePosixBackend();
    std::int64_t failPreadFrom = -1; // fail preads touching offsets >= this
    int preadErrno = EIO;
    const char* name() const override { return "faulty"; }
    int open(const std::string& path, const OpenOptions& o) override { return inner->open(path, o); }
    ssize_t pread(int h, void* buf, std::size_t len, std::uint64_t off) override {
        if (failPreadFrom >= 0 && off + len > static_cast<std::uint64_t>(failPreadFrom)) return -preadErrno;
        return inner->pread(h, buf, len, off);
    }
    ssize_t pwrite(int h, const void* buf, std::size_t len, std::uint64_t off) override { return inner->pwrite(h, buf, len, off); }
    std::int64_t size(int h) override { return inner->size(h); }
    int fsync(int h) override { return inner->fsync(h); }
    int close(int h) override { return inner->close(h); }
};

// Records every pread a reader makes: where in the file, how much, and into which memory.
class RecordingBackend final : public IoBackend {
public:
    struct Read {
        std::uint64_t offset;
        std::size_t len;
        const void* to;
    };
    std::shared_ptr<IoBackend> inner = makePosixBackend();
    std::vector<Read> reads;
    const char* name() const override { return "recording"; }
    int open(const std::string& path, const OpenOptions& o) override { return inner->open(path, o); }
    ssize_t pread(int h, void* buf, std::size_t len, std::uint64_t off) override {
        reads.push_back({off, len, buf});
        return inner->pread(h, buf, len, off);
    }
    ssize_t pwrite(int h, const void* buf, std::size_t len, std::uint64_t off) override { return inner->pwrite(h, buf, len, off); }
    std::int64_t size(int h) override { return inner->size(h); }
    int fsync(int h) override { return inner->fsync(h); }
    int close(int h) override { return inner->close(h); }
};

DataFileSpec spec(DataFormat f, std::uint64_t d1, std::uint64_t d2, std::uint64_t n) {
    DataFileSpec s;
    s.format = f;
    s.d1 = d1;
    s.d2 = d2;
    s.samples = n;
    s.sizeFeature = 11;
    s.contentSeed = 42;
    return s;
}

void writeFile(const DataFileSpec& s, const std::string& path) {
    auto io = makePosixBackend();
    QCOMPARE(writeDataFile(*io, s, path, WriteControl{}), WriteOutcome::Written);
    QCOMPARE(fs::file_size(path), expectedFileSize(s));
}

std::string throwsRunError(const std::function<void()>& f) {
    try {
        f();
    } catch (const RunError& e) {
        return e.what();
    }
    return "no RunError";
}

void flipByte(const std::string& path, std::uint64_t offset) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(offset));
    char c = 0;
    f.read(&c, 1);
    c = static_cast<char>(c ^ 0x5A);
    f.seekp(static_cast<std::streamoff>(offset));
    f.write(&c, 1);
}

// Whether the file system of `folder` takes O_DIRECT: a 4 KiB-aligned read of 4 KiB at offset 0, which
// every O_DIRECT-capable Linux file system accepts. Only EINVAL (open or read) means "refused"; any
// other error is a broken test environment and fails the test.
struct OdirectProbe {
    bool refused = false;
    QString message; // why refused, or the unexpected error; empty when O_DIRECT works
};

OdirectProbe probeOdirect(const QString& folder) {
    const std::string path = (folder + QStringLiteral("/odirect-probe")).toStdString();
    testsupport::writeText(path, std::string(8192, 'x'));
    const auto outcome = [&](int err, const char* what) {
        return OdirectProbe{err == EINVAL, folder + QLatin1String(what) + QString::fromStdString(errnoText(err))};
    };
    const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECT);
    if (fd < 0) return outcome(errno, ": open(O_DIRECT): ");
    void* buf = std::aligned_alloc(4096, 4096);
    const ssize_t n = ::pread(fd, buf, 4096, 0);
    const int err = errno;
    std::free(buf);
    ::close(fd);
    fs::remove(path);
    if (n < 0) return outcome(err, ": aligned O_DIRECT pread: ");
    if (n != 4096) return {false, folder + QStringLiteral(": aligned O_DIRECT pread: %1 of 4096 bytes").arg(n)};
    return {};
}

} // namespace

class TestFormat : public QObject {
    Q_OBJECT
private slots:
    void crc32cCheckValue() {
        const char* s = "123456789";
        QCOMPARE(crc32cSoftware(s, 9), 0xE3069283u);
        QCOMPARE(crc32cHardware(s, 9), 0xE3069283u);
        QCOMPARE(crc32c(s, 9), 0xE3069283u);
        // RFC 3720 B.4: 32 bytes of zeros -> 0x8A9136AA.
        const unsigned char zeros[32] = {};
        QCOMPARE(crc32cSoftware(zeros, 32), 0x8A9136AAu);
        qInfo("SSE4.2 crc32 available: %s", crc32cHardwareAvailable() ? "yes" : "no");
    }
    void crc32cPathsAgree() {
        std::mt19937_64 rng(7);
        std::vector<unsigned char> buf(70000);
        for (auto& b : buf) b = static_cast<unsigned char>(rng());
        for (std::size_t start : {0u, 1u, 3u, 7u}) {
            for (std::size_t len : {0u, 1u, 7u, 8u, 9u, 63u, 1000u, 65537u}) {
                const auto sw = crc32cSoftware(buf.data() + start, len);
                QCOMPARE(crc32cHardware(buf.data() + start, len), sw);
                // Extending in two pieces equals one pass.
                const std::size_t half = len / 3;
                QCOMPARE(crc32cSoftware(buf.data() + start + half, len - half, crc32cSoftware(buf.data() + start, half)), sw);
                QCOMPARE(crc32cHardware(buf.data() + start + half, len - half, crc32cHardware(buf.data() + start, half)), sw);
            }
        }
        QCOMPARE(maskCrc(0), 0xa282ead8u);
    }

    void layoutNames() {
        DatasetSection ds;
        ds.dataFolder = "/data/unet3d/";
        ds.format = DataFormat::Npz;
        ds.numFilesTrain = 168;
        DatasetLayout flat(ds);
        QCOMPARE(flat.filePath(Split::Train, 7), std::string("/data/unet3d/train/img_007_of_168.npz"));
        QCOMPARE(flat.filePath(Split::Train, 167), std::string("/data/unet3d/train/img_167_of_168.npz"));
        QCOMPARE(flat.fileCount(Split::Train), std::uint64_t(168));

        ds.dataFolder = "/data/x";
        ds.numSubfoldersTrain = 12; // len("12") = 2
        ds.numFilesEval = 10;       // len("10") = 2
        ds.numSubfoldersEval = 3;
        ds.filePrefix = "rec";
        ds.format = DataFormat::Tfrecord;
        DatasetLayout sub(ds);
        QCOMPARE(sub.filePath(Split::Train, 7), std::string("/data/x/train/07/rec_007_of_168.tfrecord"));
        QCOMPARE(sub.filePath(Split::Train, 25), std::string("/data/x/train/01/rec_025_of_168.tfrecord"));
        QCOMPARE(sub.filePath(Split::Valid, 4), std::string("/data/x/valid/1/rec_04_of_10.tfrecord"));
        QCOMPARE(sub.indexPath(Split::Train, 7), std::string("/data/x/index/train/rec_007_of_168.tfrecord.idx"));
        QCOMPARE(sub.indexPath(Split::Valid, 4), std::string("/data/x/index/valid/rec_04_of_10.tfrecord.idx"));
        QCOMPARE(sub.splitFolder(Split::Valid), fs::path("/data/x/valid"));

        ds.numSubfoldersTrain = 1; // S = 1: no subfolders (DLIO: only when S > 1)
        ds.numFilesTrain = 9;
        DatasetLayout one(ds);
        QCOMPARE(one.filePath(Split::Train, 3), std::string("/data/x/train/rec_3_of_9.tfrecord"));
        ds.numFilesTrain = 1000; // len("1000") = 4
        ds.format = DataFormat::IndexedBinary;
        QCOMPARE(DatasetLayout(ds).filePath(Split::Train, 5), std::string("/data/x/train/rec_0005_of_1000.indexed_binary"));
        std::string reused;
        DatasetLayout(ds).filePath(Split::Train, 999, reused);
        QCOMPARE(reused, std::string("/data/x/train/rec_0999_of_1000.indexed_binary"));
    }

    void npyHeaderBytes() {
        // Exactly what numpy 1.24's np.save writes for uint8 (3, 4, 2) (captured from Debian 12's numpy).
        const std::string expected =
            std::string("\x93NUMPY\x01\x00v\x00", 10) +
            "{'descr': '|u1', 'fortran_order': False, 'shape': (3, 4, 2), }" + std::string(55, ' ') + "\n";
        const std::string h = npyHeader("|u1", {3, 4, 2});
        QCOMPARE(h.size(), std::size_t(128));
        QCOMPARE(h, expected);
        for (auto shape : std::vector<std::vector<std::uint64_t>>{{5}, {12107, 12107, 1}, {1, 1, 1251}, {}}) {
            const std::string hh = npyHeader("<i8", shape);
            QCOMPARE(hh.size() % 64, std::size_t(0));
            NpyInfo info;
            QCOMPARE(std::string(parseNpyHeader(reinterpret_cast<const unsigned char*>(hh.data()), hh.size(), info)), std::string());
            QCOMPARE(info.ndim, int(shape.size()));
            QCOMPARE(info.dataOffset, std::uint64_t(hh.size()));
            QCOMPARE(info.itemSize, std::uint64_t(8));
            for (std::size_t k = 0; k < shape.size(); ++k) QCOMPARE(info.shape[k], shape[k]);
        }
        const std::string oneD = "{'descr': '|u1', 'fortran_order': False, 'shape': (5,), }" + std::string(20, ' ');
        QCOMPARE(npyHeader("|u1", {5}).substr(10, oneD.size()), oneD); // 21 - len("5") growth spaces
        // v2.0 when the dict does not fit a uint16 length (25000 dims x "1, " > 65535 bytes).
        const std::string v2 = npyHeader("|u1", std::vector<std::uint64_t>(25000, 1));
        QCOMPARE(int(v2[6]), 2);
        QCOMPARE(v2.size() % 64, std::size_t(0));
        NpyInfo bad;
        QVERIFY(*parseNpyHeader(reinterpret_cast<const unsigned char*>("\x93NUMPX\x01\x00\x00\x00"), 10, bad));
        QVERIFY(*parseNpyHeader(reinterpret_cast<const unsigned char*>(h.data()), 40, bad)); // truncated
    }

    void npyHeaderMatchesNumpy() {
        QTemporaryDir dir;
        const auto [rc, out] = runTool("make_numpy_files.py", {dir.path()});
        QVERIFY2(rc == 0, qPrintable(out));
        const std::string file = testsupport::readText(dir.filePath("arr.npy").toStdString());
        const std::string ours = npyHeader("|u1", {7, 9, 3});
        QCOMPARE(file.substr(0, ours.size()), ours);
        QCOMPARE(file.size(), ours.size() + 7 * 9 * 3);
    }

    void npzRoundTripAndNumpyLoadsIt() {
        QTemporaryDir dir;
        for (auto [d1, d2, n] : std::vector<std::tuple<int, int, int>>{{13, 17, 3}, {1, 1, 1}, {300, 251, 2}}) {
            const std::string path = dir.filePath(QStringLiteral("f_%1_%2.npz").arg(d1).arg(d2)).toStdString();
            const auto s = spec(DataFormat::Npz, d1, d2, n);
            writeFile(s, path);
            auto io = makePosixBackend();
            SampleReaderOptions o;
            o.transferSize = 4096;
            auto reader = makeSampleReader(DataFormat::Npz, *io, o);
            const auto first = reader->read(path, 0);
            QCOMPARE(first.sampleBytes, std::uint64_t(d1 * d2));
            QCOMPARE(first.bytesFromStorage, expectedFileSize(s)); // the whole file, like numpy
            for (int k = 1; k < n; ++k) QCOMPARE(reader->read(path, k).bytesFromStorage, std::uint64_t(0)); // from memory
            QVERIFY(throwsRunError([&, count = n] { reader->read(path, count); }).find(path) != std::string::npos);
            const auto [rc, out] = runTool("check_npz.py", {QString::fromStdString(path), QString::number(d1),
                                                              QString::number(d2), QString::number(n)});
            QVERIFY2(rc == 0, qPrintable(out));
            QCOMPARE(out, QStringLiteral("ok"));
        }
    }

    void readsNumpyWrittenFiles() {
        QTemporaryDir dir;
        const auto [rc, out] = runTool("make_numpy_files.py", {dir.path()});
        QVERIFY2(rc == 0, qPrintable(out));
        auto io = makePosixBackend();
        auto npz = makeSampleReader(DataFormat::Npz, *io, SampleReaderOptions{});
        auto path = [&](const char* n) { return dir.filePath(QString::fromLatin1(n)).toStdString(); };
        QCOMPARE(npz->read(path("small.npz"), 1).sampleBytes, std::uint64_t(20));
        const auto big = npz->read(path("big.npz"), 0);
        QCOMPARE(big.sampleBytes, std::uint64_t(90000));
        QCOMPARE(big.bytesFromStorage, std::uint64_t(fs::file_size(path("big.npz"))));
        QCOMPARE(npz->read(path("multi.npz"), 2).sampleBytes, std::uint64_t(64 * 40));
        const std::string err = throwsRunError([&] { npz->read(path("compressed.npz"), 0); });
        QVERIFY2(err.find("compressed") != std::string::npos && err.find(path("compressed.npz")) != std::string::npos,
                 err.c_str());
        auto npy = makeSampleReader(DataFormat::Npy, *io, SampleReaderOptions{});
        QCOMPARE(npy->read(path("arr.npy"), 2).sampleBytes, std::uint64_t(63));
        QCOMPARE(npy->read(path("f32.npy"), 1).sampleBytes, std::uint64_t(6 * 6 * 4));
        // A truncated npz: the shape no longer matches what the file holds.
        fs::copy_file(path("big.npz"), path("cut.npz"));
        fs::resize_file(path("cut.npz"), fs::file_size(path("cut.npz")) - 500);
        QVERIFY(throwsRunError([&] { npz->read(path("cut.npz"), 0); }).find("parse " + path("cut.npz")) == 0);
        // An npy whose header claims more data than the file holds.
        fs::copy_file(path("arr.npy"), path("cut.npy"));
        fs::resize_file(path("cut.npy"), fs::file_size(path("cut.npy")) - 1);
        QVERIFY(throwsRunError([&] { npy->read(path("cut.npy"), 0); }).find("parse " + path("cut.npy")) == 0);
    }

    // issue 19 (emulator efficiency): numpy formats make the same pread requests as a whole-file load —
    // every transfer_size chunk once, in order — but the payload chunks land in one reused buffer, so the
    // copy out of the page cache costs what fio's does at the transfer size. A file whose framing is not at
    // its ends is read whole again (counted) and parsed right.
    void numpyReadersKeepOnlyTheFraming() {
        QTemporaryDir dir;
        const auto [rc, out] = runTool("make_numpy_files.py", {dir.path()});
        QVERIFY2(rc == 0, qPrintable(out));
        auto path = [&](const char* n) { return dir.filePath(QString::fromLatin1(n)).toStdString(); };
        // A CosmoFlow-sized file as TrainIO writes it: 2.8 MB, eleven 256 KiB chunks.
        const std::string cosmo = dir.filePath("img_0_of_1.npz").toStdString();
        writeFile(spec(DataFormat::Npz, 1400, 2020, 1), cosmo);
        const std::uint64_t size = fs::file_size(cosmo);
        const std::uint64_t chunk = 262144;
        QCOMPARE((size + chunk - 1) / chunk, std::uint64_t(11));

        RecordingBackend io;
        auto npz = makeSampleReader(DataFormat::Npz, io, SampleReaderOptions{});
        const auto r = npz->read(cosmo, 0);
        QCOMPARE(r.sampleBytes, std::uint64_t(1400 * 2020));
        QCOMPARE(r.bytesFromStorage, size);
        QCOMPARE(io.reads.size(), std::size_t(11));
        std::set<const void*> destinations;
        for (std::size_t k = 0; k < io.reads.size(); ++k) {
            QCOMPARE(io.reads[k].offset, k * chunk);
            QCOMPARE(io.reads[k].len, std::size_t(std::min(chunk, size - k * chunk)));
            destinations.insert(io.reads[k].to);
        }
        // The first chunk (npy header), the last (zip directory) and one reused buffer for the nine between.
        QCOMPARE(destinations.size(), std::size_t(3));
        QCOMPARE(io.reads[1].to, io.reads[9].to);

        // numpy's own files still parse, and the npy reader keeps only its header.
        io.reads.clear();
        QCOMPARE(npz->read(path("big.npz"), 0).sampleBytes, std::uint64_t(90000));
        QCOMPARE(npz->read(path("multi.npz"), 2).sampleBytes, std::uint64_t(64 * 40));

        // x.npy between two 1 MB members: its header is in neither end. Read whole again, and said so in the
        // bytes: twice the file. Later files of this reader are then read whole at once (one pass).
        const std::uint64_t late = fs::file_size(path("late_x.npz"));
        io.reads.clear();
        const auto l = npz->read(path("late_x.npz"), 1);
        QCOMPARE(l.sampleBytes, std::uint64_t(50 * 60));
        QCOMPARE(l.bytesFromStorage, 2 * late);
        const auto again = npz->read(cosmo, 0);
        QCOMPARE(again.bytesFromStorage, size);
        QCOMPARE(again.sampleBytes, std::uint64_t(1400 * 2020));
    }

    void npyRoundTrip() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("a.npy").toStdString();
        writeFile(spec(DataFormat::Npy, 33, 40, 4), path);
        auto io = makePosixBackend();
        auto r = makeSampleReader(DataFormat::Npy, *io, SampleReaderOptions{});
        QCOMPARE(r->read(path, 3).sampleBytes, std::uint64_t(33 * 40));
    }

    void tfrecordRoundTripWithAndWithoutIndex() {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        fs::create_directories(root / "train");
        fs::create_directories(root / "index" / "train");
        const std::string path = (root / "train" / "img_0_of_1.tfrecord").string();
        const auto s = spec(DataFormat::Tfrecord, 100, 120, 4);
        writeFile(s, path);
        const auto [rc, out] = runTool("check_tfrecord.py", {QString::fromStdString(path), QStringLiteral("4")});
        QVERIFY2(rc == 0, qPrintable(out));

        auto io = makePosixBackend();
        SampleReaderOptions o;
        o.samplesPerFile = 4;
        auto walk = makeSampleReader(DataFormat::Tfrecord, *io, o);
        for (int k = 3; k >= 0; --k) QCOMPARE(walk->read(path, k).sampleBytes, std::uint64_t(12000));
        QVERIFY(throwsRunError([&] { walk->read(path, 4); }).find("requested but the file holds 4") != std::string::npos);

        const std::string idx = (root / "index" / "train" / "img_0_of_1.tfrecord.idx").string();
        writeWholeFile(*io, idx, tfrecordIndexText(s));
        const auto [rc2, out2] = runTool("check_tfrecord.py", {QString::fromStdString(path), QStringLiteral("4"),
                                                               QString::fromStdString(idx)});
        QVERIFY2(rc2 == 0, qPrintable(out2));
        auto indexed = makeSampleReader(DataFormat::Tfrecord, *io, o);
        const auto first = indexed->read(path, 2);
        const std::uint64_t framed = tfExampleLayout(12000, 11).framedLength();
        QCOMPARE(first.bytesFromStorage, framed + fs::file_size(idx)); // just the record (+ the index once)
        QCOMPARE(indexed->read(path, 1).bytesFromStorage, framed);

        // A corrupted data byte in record 2, then in the length field of record 0.
        flipByte(path, 2 * framed + 12 + 5000);
        std::string e = throwsRunError([&] { indexed->reset(); indexed->read(path, 2); });
        QCOMPARE(e, "parse " + path + ": record 2 data CRC mismatch");
        QCOMPARE(indexed->read(path, 1).sampleBytes, std::uint64_t(12000)); // others still fine
        o.verifyChecksums = false;
        QCOMPARE(makeSampleReader(DataFormat::Tfrecord, *io, o)->read(path, 2).sampleBytes, std::uint64_t(12000));
        const auto [rc3, out3] = runTool("check_tfrecord.py", {QString::fromStdString(path), QStringLiteral("4")});
        QVERIFY(rc3 != 0 && out3.contains(QStringLiteral("record 2 data CRC")));
        flipByte(path, 9);
        e = throwsRunError([&] { walk->reset(); walk->read(path, 0); });
        QVERIFY2(e.find(path) != std::string::npos && e.find("record 0 length CRC mismatch") != std::string::npos, e.c_str());
    }

    void tfExampleParses() {
        const auto layout = tfExampleLayout(300, 17);
        std::string data = layout.prefix + std::string(300, 'x') + layout.suffix;
        std::uint64_t image = 0;
        QCOMPARE(std::string(parseTfExampleImage(reinterpret_cast<const unsigned char*>(data.data()), data.size(), image)),
                 std::string());
        QCOMPARE(image, std::uint64_t(300));
        QCOMPARE(layout.dataLength(), std::uint64_t(data.size()));
        QVERIFY(*parseTfExampleImage(reinterpret_cast<const unsigned char*>(data.data()), data.size() - 10, image));
    }

    void indexedBinaryAndRaw() {
        QTemporaryDir dir;
        auto io = makePosixBackend();
        const std::string ib = dir.filePath("d.indexed_binary").toStdString();
        const auto s = spec(DataFormat::IndexedBinary, 20, 30, 5);
        writeFile(s, ib);
        SampleReaderOptions o;
        o.samplesPerFile = 5;
        auto r = makeSampleReader(DataFormat::IndexedBinary, *io, o);
        QVERIFY(throwsRunError([&] { r->read(ib, 0); }).find(ib + ".off.idx") != std::string::npos); // index missing
        writeWholeFile(*io, ib + ".off.idx", indexedBinaryOffsets(s));
        writeWholeFile(*io, ib + ".sz.idx", indexedBinarySizes(s));
        r->reset();
        const auto got = r->read(ib, 4);
        QCOMPARE(got.sampleBytes, std::uint64_t(600));
        QVERIFY(got.bytesFromStorage >= 600);

        const std::string raw = dir.filePath("d.raw").toStdString();
        writeFile(spec(DataFormat::Raw, 20, 30, 5), raw);
        auto rr = makeSampleReader(DataFormat::Raw, *io, o);
        QCOMPARE(rr->read(raw, 4).sampleBytes, std::uint64_t(600));
        QCOMPARE(rr->read(raw, 1).bytesFromStorage, std::uint64_t(600));
    }

    void odirectReadsAligned() {
        // O_DIRECT needs a file system that takes it (tmpfs refuses): the temporary folder, else one
        // on the build's disk. Only when both refuse a correctly aligned read is this skipped; then any
        // error, EINVAL included (what a misaligned buffer, offset or length gives), is a failure.
        auto dir = std::make_unique<QTemporaryDir>();
        QVERIFY(dir->isValid());
        const OdirectProbe temp = probeOdirect(dir->path());
        QVERIFY2(temp.refused || temp.message.isEmpty(), qPrintable(temp.message));
        if (temp.refused) {
            dir = std::make_unique<QTemporaryDir>(QCoreApplication::applicationDirPath() + QStringLiteral("/odirect-XXXXXX"));
            QVERIFY(dir->isValid());
            const OdirectProbe build = probeOdirect(dir->path());
            QVERIFY2(build.refused || build.message.isEmpty(), qPrintable(build.message));
            if (build.refused)
                QSKIP(qPrintable(QStringLiteral("no folder here takes O_DIRECT: ") + temp.message + QStringLiteral("; ") +
                                 build.message));
        }
        const std::string path = dir->filePath("od.raw").toStdString();
        writeFile(spec(DataFormat::Raw, 100, 101, 3), path);
        auto io = makePosixBackend();
        SampleReaderOptions o;
        o.samplesPerFile = 3;
        o.odirect = true;
        o.transferSize = 5000; // rounded up to 8192
        auto r = makeSampleReader(DataFormat::Raw, *io, o);
        try {
            // Sample 1 is bytes [10100, 20200) (raw: records concatenated); aligned to 4 KiB that is
            // [8192, 20480): 12288 bytes from storage.
            const auto got = r->read(path, 1);
            QCOMPARE(got.sampleBytes, std::uint64_t(10100));
            QCOMPARE(got.bytesFromStorage, std::uint64_t(12288));
        } catch (const RunError& e) {
            QFAIL(qPrintable(QStringLiteral("O_DIRECT read failed on a folder that takes O_DIRECT (") + dir->path() +
                             QStringLiteral("): ") + QString::fromStdString(e.what())));
        }
    }

    void ioErrorNamesFileAndOffset() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("img_3_of_8.npz").toStdString();
        writeFile(spec(DataFormat::Npz, 700, 700, 1), path);
        FaultyBackend io;
        io.failPreadFrom = 262144 + 10;
        auto r = makeSampleReader(DataFormat::Npz, io, SampleReaderOptions{});
        QCOMPARE(throwsRunError([&] { r->read(path, 0); }),
                 "read " + path + " at offset 262144: " + errnoText(EIO));
        QCOMPARE(throwsRunError([&] { r->read(path + ".missing", 0); }), "open " + path + ".missing: " + errnoText(ENOENT));
    }

    void everyFormatIsWritableAndReadable() {
        // jpeg, png and hdf5 joined the others (tst_formats_image checks their files).
        auto io = makePosixBackend();
        for (DataFormat f : {DataFormat::Npz, DataFormat::Npy, DataFormat::Tfrecord, DataFormat::Hdf5, DataFormat::IndexedBinary,
                             DataFormat::Raw, DataFormat::Jpeg, DataFormat::Png}) {
            QVERIFY(formatWritable(f));
            QVERIFY(makeSampleReader(f, *io, SampleReaderOptions{}) != nullptr);
        }
    }

    void expectedSizesMatchWrittenFiles() {
        QTemporaryDir dir;
        int k = 0;
        for (DataFormat f : {DataFormat::Npz, DataFormat::Npy, DataFormat::Tfrecord, DataFormat::IndexedBinary, DataFormat::Raw})
            for (auto [d1, d2, n] : std::vector<std::tuple<int, int, int>>{{1, 1, 1}, {255, 257, 2}, {64, 64, 7}}) {
                const std::string path = dir.filePath(QStringLiteral("s%1").arg(k++)).toStdString();
                writeFile(spec(f, d1, d2, n), path);
                // raw and indexed_binary hold the records alone (docs/formats.md), whatever
                // expectedFileSize says; the other formats are checked against numpy and the
                // tfrecord reference above.
                if (f == DataFormat::Raw || f == DataFormat::IndexedBinary)
                    QCOMPARE(fs::file_size(path), std::uintmax_t(d1 * d2 * n));
            }
    }
};

QTEST_GUILESS_MAIN(TestFormat)
#include "tst_format.moc"
