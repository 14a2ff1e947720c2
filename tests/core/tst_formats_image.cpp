// jpeg, png and hdf5 datasets: files as DLIO's generators write them, checked with Debian's PIL and
// h5py (tests/tools/check_image_hdf5.py), and the readers' full decode, byte counts and errors.
#include "testsupport.h"

#include "dataset/dataset_generator.h"
#include "format/hdf5_format.h"
#include "format/format_writer.h"
#include "format/image_format.h"
#include "format/sample_reader.h"
#include "preflight/preflight.h"
#include "util/errors.h"

#include <QCoreApplication>
#include <QTemporaryDir>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

using namespace trainio;
namespace fs = std::filesystem;

namespace {

DataFileSpec spec(DataFormat f, std::uint64_t d1, std::uint64_t d2, std::uint64_t n, std::uint64_t seed = 42) {
    DataFileSpec s;
    s.format = f;
    s.d1 = d1;
    s.d2 = d2;
    s.samples = n;
    s.contentSeed = seed;
    return s;
}

void write(const DataFileSpec& s, const std::string& path) {
    auto io = makePosixBackend();
    QCOMPARE(writeDataFile(*io, s, path, WriteControl{}), WriteOutcome::Written);
}

std::string runError(const std::function<void()>& f) {
    try {
        f();
    } catch (const RunError& e) {
        return e.what();
    }
    return "(no RunError)";
}

QStringList words(const QString& s) { return s.trimmed().split(QLatin1Char(' ')); }

// A POSIX backend whose preads fail from an offset on (fault injection reaches the image readers).
class FailingReads final : public IoBackend {
public:
    std::shared_ptr<IoBackend> inner = makePosixBackend();
    std::uint64_t failFrom = 0;
    const char* name() const override { return "failing"; }
    int open(const std::string& path, const OpenOptions& o) override { return inner->open(path, o); }
    ssize_t pread(int h, void* buf, std::size_t len, std::uint64_t off) override {
        if (off + len > failFrom) return -EIO;
        return inner->pread(h, buf, len, off);
    }
    ssize_t pwrite(int h, const void* buf, std::size_t len, std::uint64_t off) override { return inner->pwrite(h, buf, len, off); }
    std::int64_t size(int h) override { return inner->size(h); }
    int fsync(int h) override { return inner->fsync(h); }
    int close(int h) override { return inner->close(h); }
};

void truncateTo(const std::string& path, std::uint64_t size) { fs::resize_file(path, size); }

void flipByte(const std::string& path, std::uint64_t at) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(at));
    char c = 0;
    f.read(&c, 1);
    c = static_cast<char>(c ^ 0x5A);
    f.seekp(static_cast<std::streamoff>(at));
    f.write(&c, 1);
}

} // namespace

class TestFormatsImage : public QObject {
    Q_OBJECT
private slots:
    // Generated images open with PIL in DLIO's mode and shape; PNG pixels are exact, JPEG close; the
    // files are the size DLIO's own generator call gives for the same pixels.
    void imagesParseWithPil_data() {
        QTest::addColumn<int>("format");
        QTest::addColumn<int>("d1");
        QTest::addColumn<int>("d2");
        QTest::newRow("jpeg 568x568 (retinanet: int(sqrt(322957)) = 568)") << int(DataFormat::Jpeg) << 568 << 568;
        QTest::newRow("jpeg 37x211") << int(DataFormat::Jpeg) << 37 << 211;
        QTest::newRow("png 300x128") << int(DataFormat::Png) << 300 << 128;
        QTest::newRow("png 1x1") << int(DataFormat::Png) << 1 << 1;
    }
    void imagesParseWithPil() {
        QFETCH(int, format);
        QFETCH(int, d1);
        QFETCH(int, d2);
        const auto f = static_cast<DataFormat>(format);
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("img.") + QString::fromLatin1(toString(f))).toStdString();
        const DataFileSpec s = spec(f, static_cast<std::uint64_t>(d1), static_cast<std::uint64_t>(d2), 1);
        write(s, path);
        std::vector<unsigned char> pixels;
        fillImagePixels(s.contentSeed, pixels, s.sampleBytes());
        const std::string pixelsPath = dir.filePath(QStringLiteral("pixels.raw")).toStdString();
        testsupport::writeText(pixelsPath, std::string(pixels.begin(), pixels.end()));
        const QStringList out = words(testsupport::runPythonTool(
            QStringLiteral("check_image_hdf5.py"), {QStringLiteral("image"), QString::fromStdString(path), QString::number(d1),
                                                    QString::number(d2), QString::fromStdString(pixelsPath)}));
        QCOMPARE(out.value(0), QStringLiteral("ok"));
        QCOMPARE(out.value(1).toULongLong(), static_cast<qulonglong>(d1) * static_cast<qulonglong>(d2)); // L: 1 byte/pixel
        const double dlioSize = out.value(2).toDouble();
        const double ours = static_cast<double>(fs::file_size(path));
        // Same library underneath PIL (Debian's Pillow uses libjpeg-turbo, zlib): JPEG byte-identical in
        // practice; PNG differs by PIL's filter choice, a few bytes per row at most.
        if (f == DataFormat::Jpeg) QCOMPARE(ours, dlioSize);
        else QVERIFY2(std::abs(ours - dlioSize) <= 0.01 * dlioSize + 64, qPrintable(QStringLiteral("ours %1, PIL %2").arg(ours).arg(dlioSize)));
        if (f == DataFormat::Jpeg) QVERIFY2(out.value(3).toDouble() < 40, qPrintable(out.join(' '))); // quality 75 on noise

        // The estimate (progress, disk space) is near the real size for a full-size image.
        if (d1 * d2 > 10000) {
            const double est = static_cast<double>(estimatedImageFileSize(f, s.d1, s.d2));
            QVERIFY2(std::abs(est - ours) < 0.15 * ours, qPrintable(QStringLiteral("estimate %1, file %2").arg(est).arg(ours)));
        }
    }

    // The reader decodes the whole image and reports DLIO's image_size (nbytes of the decoded array)
    // for images PIL made, in every channel layout; the bytes it read are the whole file, once per file.
    void readerDecodesPilImages_data() {
        QTest::addColumn<QString>("kind");
        QTest::newRow("rgb jpeg") << QStringLiteral("rgb-jpeg");
        QTest::newRow("gray jpeg") << QStringLiteral("gray-jpeg");
        QTest::newRow("rgb png") << QStringLiteral("rgb-png");
        QTest::newRow("rgba png") << QStringLiteral("rgba-png");
        QTest::newRow("palette png") << QStringLiteral("palette-png");
        QTest::newRow("16-bit gray png") << QStringLiteral("gray16-png");
    }
    void readerDecodesPilImages() {
        QFETCH(QString, kind);
        QTemporaryDir dir;
        const bool jpeg = kind.endsWith(QStringLiteral("jpeg"));
        const std::string path = dir.filePath(jpeg ? QStringLiteral("x.jpeg") : QStringLiteral("x.png")).toStdString();
        const qulonglong nbytes = testsupport::runPythonTool(QStringLiteral("check_image_hdf5.py"),
                                                             {QStringLiteral("make"), QString::fromStdString(path), kind,
                                                              QStringLiteral("97"), QStringLiteral("61")})
                                      .trimmed()
                                      .toULongLong();
        QVERIFY(nbytes > 0);
        auto io = makePosixBackend();
        auto r = makeSampleReader(jpeg ? DataFormat::Jpeg : DataFormat::Png, *io, SampleReaderOptions{});
        const auto first = r->read(path, 0);
        QCOMPARE(static_cast<qulonglong>(first.sampleBytes), nbytes);
        QCOMPARE(first.bytesFromStorage, static_cast<std::uint64_t>(fs::file_size(path)));
        const auto again = r->read(path, 0);
        QCOMPARE(again.bytesFromStorage, std::uint64_t(0));
        QCOMPARE(static_cast<qulonglong>(again.sampleBytes), nbytes);
        r->reset();
        QCOMPARE(r->read(path, 0).bytesFromStorage, static_cast<std::uint64_t>(fs::file_size(path)));

        // Without decoding (the v3.0 fork's reader) the sample is the file's bytes.
        SampleReaderOptions raw;
        raw.decodeSamples = false;
        auto counter = makeSampleReader(jpeg ? DataFormat::Jpeg : DataFormat::Png, *io, raw);
        QCOMPARE(counter->read(path, 0).sampleBytes, static_cast<std::uint64_t>(fs::file_size(path)));
    }

    // h5py sees DLIO's layout, and the file has exactly the size h5py gives DLIO's create_file for the
    // same shape (so expectedFileSize, which resumption and verify rely on, is right too).
    void hdf5MatchesH5py_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("d1");
        QTest::addColumn<int>("d2");
        QTest::newRow("1 x 10 x 10 (small-data block)") << 1 << 10 << 10;
        QTest::newRow("4 x 515 x 524") << 4 << 515 << 524;
        QTest::newRow("1 x 1024 x 1100 (over 1 MiB)") << 1 << 1024 << 1100;
        QTest::newRow("3 x 700 x 701") << 3 << 700 << 701;
    }
    void hdf5MatchesH5py() {
        QFETCH(int, n);
        QFETCH(int, d1);
        QFETCH(int, d2);
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("img_0_of_1.hdf5")).toStdString();
        const DataFileSpec s = spec(DataFormat::Hdf5, static_cast<std::uint64_t>(d1), static_cast<std::uint64_t>(d2),
                                    static_cast<std::uint64_t>(n));
        write(s, path);
        const QStringList out = words(testsupport::runPythonTool(
            QStringLiteral("check_image_hdf5.py"), {QStringLiteral("hdf5"), QString::fromStdString(path), QString::number(n),
                                                    QString::number(d1), QString::number(d2)}));
        QCOMPARE(out.value(0), QStringLiteral("ok"));
        QCOMPARE(out.value(1).toULongLong(), static_cast<qulonglong>(d1) * static_cast<qulonglong>(d2));
        QCOMPARE(static_cast<qulonglong>(fs::file_size(path)), out.value(2).toULongLong());
        QCOMPARE(expectedFileSize(s), static_cast<std::uint64_t>(fs::file_size(path)));

        // The reader reads as h5py does: the metadata with the first sample, then each d1 x d2 slice
        // (HDF5 reads slices over its 64 KiB sieve buffer directly, smaller ones through the buffer).
        auto io = makePosixBackend();
        auto r = makeSampleReader(DataFormat::Hdf5, *io, SampleReaderOptions{});
        const std::uint64_t slice = static_cast<std::uint64_t>(d1) * static_cast<std::uint64_t>(d2);
        const std::uint64_t fileSize = fs::file_size(path);
        for (int k = 0; k < n; ++k) {
            const auto got = r->read(path, static_cast<std::uint64_t>(k));
            QCOMPARE(got.sampleBytes, slice);
            if (k == 0) {
                QVERIFY2(got.bytesFromStorage >= slice && got.bytesFromStorage <= fileSize,
                         qPrintable(QString::number(got.bytesFromStorage)));
            } else if (slice > 65536) {
                QCOMPARE(got.bytesFromStorage, slice);
            }
        }
        QCOMPARE(runError([&] { r->read(path, static_cast<std::uint64_t>(n)); }),
                 "read " + path + ": sample " + std::to_string(n) + " out of range (records_0 holds " + std::to_string(n) + ")");
    }

    // Damaged files and failing storage give a RunError that names the file; nothing crashes.
    void corruptFilesNameTheFile() {
        QTemporaryDir dir;
        auto io = makePosixBackend();
        for (DataFormat f : {DataFormat::Jpeg, DataFormat::Png, DataFormat::Hdf5}) {
            const std::string path = dir.filePath(QStringLiteral("bad.") + QString::fromLatin1(toString(f))).toStdString();
            write(spec(f, 200, 150, 1), path);
            const auto size = fs::file_size(path);
            auto reader = makeSampleReader(f, *io, SampleReaderOptions{});
            QCOMPARE(reader->read(path, 0).sampleBytes, std::uint64_t(200 * 150));

            truncateTo(path, size / 2);
            reader->reset();
            const std::string truncated = runError([&] { reader->read(path, 0); });
            QVERIFY2(truncated.rfind("parse " + path + ": ", 0) == 0, truncated.c_str());

            write(spec(f, 200, 150, 1), path);
            flipByte(path, f == DataFormat::Png ? size / 2 : f == DataFormat::Jpeg ? 1 : 0); // PNG: IDAT data (CRC); JPEG: SOI; HDF5: signature
            reader->reset();
            const std::string flipped = runError([&] { reader->read(path, 0); });
            QVERIFY2(flipped.rfind("parse " + path + ": ", 0) == 0, flipped.c_str());

            testsupport::writeText(path, "not an image or an HDF5 file at all");
            reader->reset();
            const std::string garbage = runError([&] { reader->read(path, 0); });
            QVERIFY2(garbage.rfind("parse " + path + ": ", 0) == 0, garbage.c_str());

            write(spec(f, 200, 150, 1), path);
            FailingReads failing;
            failing.failFrom = 1000;
            SampleReaderOptions small;
            small.transferSize = 4096;
            auto r2 = makeSampleReader(f, failing, small);
            // Images fail on their first read; HDF5 reads its small superblock first, then fails further on.
            const std::string io = runError([&] { r2->read(path, 0); });
            const std::string tail = ": " + errnoText(EIO);
            QVERIFY2(io.rfind("read " + path + " at offset ", 0) == 0 && io.size() > tail.size() &&
                         io.compare(io.size() - tail.size(), tail.size(), tail) == 0,
                     io.c_str());
            if (f != DataFormat::Hdf5) QCOMPARE(io, "read " + path + " at offset 0" + tail);
        }
    }

    // A jpeg dataset through the generator: DLIO's names, resumable although JPEG sizes are known only
    // after encoding, verify decodes every file and names a damaged one.
    void jpegDatasetGeneratesResumesAndVerifies() {
        QTemporaryDir tmp;
        WorkloadConfig cfg;
        cfg.dataset.dataFolder = (fs::path(tmp.path().toStdString()) / "retina").string();
        cfg.dataset.format = DataFormat::Jpeg;
        cfg.dataset.numFilesTrain = 6;
        cfg.dataset.numFilesEval = 0;
        cfg.dataset.numSamplesPerFile = 1;
        cfg.dataset.recordLength = 40000; // int(sqrt(40000)) = 200
        cfg.dataset.recordLengthStdev = 0;
        GenerateOptions opts;
        opts.threads = 2;
        const auto first = generateDataset(cfg, opts);
        QCOMPARE(first.filesWritten, std::uint64_t(6));
        std::uint64_t onDisk = 0;
        for (int i = 0; i < 6; ++i) {
            const fs::path p = fs::path(cfg.dataset.dataFolder) / "train" / ("img_" + std::to_string(i) + "_of_6.jpeg");
            QVERIFY2(fs::is_regular_file(p), p.c_str());
            onDisk += fs::file_size(p);
        }
        QCOMPARE(first.bytesWritten, onDisk); // the real sizes, not the estimate
        const auto again = generateDataset(cfg, opts);
        QCOMPARE(again.filesSkipped, std::uint64_t(6));
        QCOMPARE(again.filesWritten, std::uint64_t(0));

        VerifyResult v = verifyDataset(cfg);
        QCOMPARE(v.filesOk, std::uint64_t(6));
        const std::string damaged = (fs::path(cfg.dataset.dataFolder) / "train" / "img_3_of_6.jpeg").string();
        truncateTo(damaged, fs::file_size(damaged) - 100);
        v = verifyDataset(cfg);
        QCOMPARE(v.filesOk, std::uint64_t(5));
        QCOMPARE(v.filesBad, std::uint64_t(1));
        QVERIFY2(v.problems.at(0).find(damaged) != std::string::npos, v.problems.at(0).c_str());
    }

    // Random damage (bytes overwritten anywhere, or the file cut) gives a RunError naming the file or a
    // successful read, never a crash or a hang: 150 damaged copies of each format.
    void damagedFilesNeverCrash() {
        QTemporaryDir dir;
        auto io = makePosixBackend();
        std::mt19937_64 rng(2026);
        for (DataFormat f : {DataFormat::Jpeg, DataFormat::Png, DataFormat::Hdf5}) {
            const std::string good = dir.filePath(QStringLiteral("good.") + QString::fromLatin1(toString(f))).toStdString();
            write(spec(f, 64, 80, f == DataFormat::Hdf5 ? 3 : 1), good);
            std::ifstream in(good, std::ios::binary);
            const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            const std::string bad = dir.filePath(QStringLiteral("bad.") + QString::fromLatin1(toString(f))).toStdString();
            auto reader = makeSampleReader(f, *io, SampleReaderOptions{});
            int errors = 0;
            for (int trial = 0; trial < 150; ++trial) {
                std::string b = bytes;
                if (trial % 5 == 4) {
                    b.resize(rng() % b.size());
                } else {
                    for (int k = 0; k < 1 + trial % 4; ++k) b[rng() % b.size()] = static_cast<char>(rng());
                }
                testsupport::writeText(bad, b);
                reader->reset();
                try {
                    for (std::uint64_t k = 0; k < (f == DataFormat::Hdf5 ? 3u : 1u); ++k) reader->read(bad, k);
                } catch (const RunError& e) {
                    ++errors;
                    const std::string what = e.what();
                    QVERIFY2(what.find(bad) != std::string::npos, what.c_str());
                }
            }
            QVERIFY(errors > 0); // the damage is noticed at least sometimes (cut files always)
        }
        // Every HDF5 handle the writer and the reader opened is closed again, whatever the damage (the asan
        // preset suppresses libhdf5's own leaks on damaged files, so this is what checks ours).
        QCOMPARE(hdf5OpenObjects(), std::int64_t(0));
    }

    // A header announcing a huge image (here a 20000 x 20000 PNG, 4·10^8 pixels) is refused as PIL
    // refuses it (DecompressionBombError over 2 × 89,478,485 pixels) before anything is allocated.
    void hugeImageHeaderIsRefusedLikePil() {
        auto crc32 = [](const std::string& b) { // zlib's CRC-32, bitwise
            std::uint32_t c = 0xFFFFFFFFu;
            for (unsigned char ch : b) {
                c ^= ch;
                for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
            }
            return c ^ 0xFFFFFFFFu;
        };
        auto be32 = [](std::uint32_t v) {
            return std::string{static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
        };
        const std::string ihdr = "IHDR" + be32(20000) + be32(20000) + std::string{8, 0, 0, 0, 0};
        const std::string idat = std::string("IDAT\x78\x9c", 6), iend = "IEND"; // header reading stops at IDAT
        const std::string png = std::string("\x89PNG\r\n\x1a\n", 8) + be32(13) + ihdr + be32(crc32(ihdr)) + be32(2) + idat +
                                be32(crc32(idat)) + be32(0) + iend + be32(crc32(iend));
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("bomb.png")).toStdString();
        testsupport::writeText(path, png);
        auto io = makePosixBackend();
        auto r = makeSampleReader(DataFormat::Png, *io, SampleReaderOptions{});
        const std::string got = runError([&] { r->read(path, 0); });
        QCOMPARE(got,
                 "parse " + path + ": image of 20000 x 20000 pixels exceeds PIL's limit of 178956970 pixels "
                                   "(DecompressionBombError) (a png file)");
    }

    // O_DIRECT: every format's reads stay aligned (HDF5's small metadata reads go through the driver's
    // aligned bounce buffer). A folder on the build's disk (the temporary folder may be tmpfs).
    void odirectReadsEveryFormat() {
        QTemporaryDir dir(QCoreApplication::applicationDirPath() + QStringLiteral("/odirect-XXXXXX"));
        QVERIFY(dir.isValid());
        auto io = makePosixBackend();
        SampleReaderOptions o;
        o.odirect = true;
        o.transferSize = 5000; // not a multiple of 4096: rounded up
        for (DataFormat f : {DataFormat::Jpeg, DataFormat::Png, DataFormat::Hdf5}) {
            const std::string path = dir.filePath(QStringLiteral("od.") + QString::fromLatin1(toString(f))).toStdString();
            write(spec(f, 150, 170, f == DataFormat::Hdf5 ? 3 : 1), path);
            auto r = makeSampleReader(f, *io, o);
            std::uint64_t fromStorage = 0;
            for (std::uint64_t k = 0; k < (f == DataFormat::Hdf5 ? 3u : 1u); ++k) {
                SampleReadResult got;
                try {
                    got = r->read(path, k);
                } catch (const RunError& e) {
                    QFAIL(e.what());
                }
                QCOMPARE(got.sampleBytes, std::uint64_t(150 * 170));
                fromStorage += got.bytesFromStorage;
            }
            // Images: the whole file (the last aligned read stops at the end of the file); hdf5: at least the slices.
            if (f == DataFormat::Hdf5) QVERIFY2(fromStorage >= 3 * 150 * 170, qPrintable(QString::number(fromStorage)));
            else QCOMPARE(fromStorage, static_cast<std::uint64_t>(fs::file_size(path)));
        }
    }

    // Preflight agrees with the generator: a generated jpeg/png/hdf5 dataset passes (JPEG and PNG sizes
    // are estimates, within its factor-of-two size check), and a file of another format is named.
    void preflightAcceptsGeneratedDatasetsAndNamesForeignFiles() {
        for (DataFormat f : {DataFormat::Jpeg, DataFormat::Png, DataFormat::Hdf5}) {
            QTemporaryDir tmp;
            WorkloadConfig cfg;
            cfg.dataset.dataFolder = (fs::path(tmp.path().toStdString()) / "d").string();
            cfg.dataset.format = f;
            cfg.dataset.numFilesTrain = 8;
            cfg.dataset.numFilesEval = 0;
            cfg.dataset.numSamplesPerFile = f == DataFormat::Hdf5 ? 2 : 1;
            cfg.dataset.recordLength = 322957;
            cfg.dataset.recordLengthStdev = 20000;
            cfg.reader.batchSize = 2;
            PreflightRequest req;
            req.action = PreflightAction::Datagen;
            QVERIFY2(preflight(cfg, req).ok(), preflight(cfg, req).text().c_str());
            generateDataset(cfg, GenerateOptions{});
            req.action = PreflightAction::Run;
            const PreflightResult good = preflight(cfg, req);
            QVERIFY2(good.ok(), good.text().c_str());

            // File 0 replaced by a file of another format under the same name.
            const std::string path = (fs::path(cfg.dataset.dataFolder) / "train" / ("img_0_of_8." + std::string(toString(f)))).string();
            write(spec(f == DataFormat::Png ? DataFormat::Jpeg : DataFormat::Png, 568, 568, 1), path);
            const PreflightResult bad = preflight(cfg, req);
            QVERIFY(!bad.ok());
            QVERIFY2(bad.text().find(path) != std::string::npos, bad.text().c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestFormatsImage)
#include "tst_formats_image.moc"
