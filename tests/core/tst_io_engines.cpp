// The I/O engines (posix, odirect, mmap, io_uring): the same bytes whatever the engine on generated npz
// and tfrecord files and odd sizes (unaligned offsets, lengths and buffers, reads past the end), shared
// by real threads; O_DIRECT really bypasses the page cache (mincore); a refused O_DIRECT is counted; a
// truncated mapping is an I/O error, not a crash; an io_uring forbidden by seccomp is a clear error.
#include "testsupport.h"

#include "config/workload_config.h"
#include "dataset/dataset_generator.h"
#include "format/sample_reader.h"
#include "io/aligned_buffer.h"
#include "io/io_engines.h"
#include "util/errors.h"

#include <QTemporaryDir>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <random>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace trainio;
namespace fs = std::filesystem;

namespace {

struct EngineCase {
    const char* label;
    IoEngine engine;
    IoEngineOptions options;
};

// Every engine, plus io_uring with O_DIRECT and with small requests and a shallow ring, so that one
// pread is split into many requests that need several rounds of submission.
std::vector<EngineCase> engineCases() {
    std::vector<EngineCase> c;
    c.push_back({"posix", IoEngine::Posix, {}});
    c.push_back({"odirect", IoEngine::ODirect, {}});
    c.push_back({"mmap", IoEngine::Mmap, {}});
    c.push_back({"io_uring", IoEngine::IoUring, {}});
    c.push_back({"io_uring-direct", IoEngine::IoUring, IoEngineOptions{32, 262144, true}});
    c.push_back({"io_uring-4k-depth3", IoEngine::IoUring, IoEngineOptions{3, 4096, false}});
    c.push_back({"io_uring-direct-8k-depth2", IoEngine::IoUring, IoEngineOptions{2, 8192, true}});
    return c;
}

std::string randomBytes(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::string s(n, '\0');
    for (auto& ch : s)
        ch = static_cast<char>(rng() & 0xff);
    return s;
}

void writeFile(const fs::path& p, const std::string& bytes) {
    std::ofstream out(p, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    QVERIFY2(out.good(), p.c_str());
}

// The files the comparison reads: generated npz and tfrecord datasets and raw files of awkward sizes.
std::vector<fs::path> sampleFiles(const fs::path& root) {
    std::vector<fs::path> files;
    for (DataFormat f : {DataFormat::Npz, DataFormat::Tfrecord}) {
        WorkloadConfig cfg;
        cfg.dataset.dataFolder = (root / (f == DataFormat::Npz ? "npz" : "tfrecord")).string();
        cfg.dataset.format = f;
        cfg.dataset.numFilesTrain = 3;
        cfg.dataset.numFilesEval = 0;
        cfg.dataset.numSamplesPerFile = 3;
        cfg.dataset.recordLength = 70001; // not a multiple of any block size
        cfg.dataset.recordLengthStdev = 5000;
        cfg.train.seed = 11;
        GenerateOptions o;
        o.threads = 1;
        generateDataset(cfg, o);
        for (const auto& e : fs::recursive_directory_iterator(cfg.dataset.dataFolder))
            if (e.is_regular_file() && e.path().filename().string().front() != '.') files.push_back(e.path());
    }
    const std::size_t sizes[] = {0, 1, 511, 4095, 4096, 4097, 3 * 1048576 + 7};
    unsigned seed = 1;
    for (std::size_t s : sizes) {
        const fs::path p = root / ("odd-" + std::to_string(s) + ".bin");
        writeFile(p, randomBytes(s, seed++));
        files.push_back(p);
    }
    return files;
}

// How much of a file is in the page cache (0..1), by mincore over a mapping of it.
double residentFraction(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    const off_t size = ::lseek(fd, 0, SEEK_END);
    void* p = ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_SHARED, fd, 0);
    ::close(fd);
    if (p == MAP_FAILED) return -1;
    const long page = ::sysconf(_SC_PAGESIZE);
    const std::size_t pages = (static_cast<std::size_t>(size) + page - 1) / page;
    std::vector<unsigned char> vec(pages);
    const int r = ::mincore(p, static_cast<std::size_t>(size), vec.data());
    ::munmap(p, static_cast<std::size_t>(size));
    if (r != 0) return -1;
    std::size_t in = 0;
    for (unsigned char v : vec)
        in += v & 1;
    return static_cast<double>(in) / static_cast<double>(pages);
}

// Whether the file system holding `path` accepts O_DIRECT (EINVAL at open means it refuses it).
bool takesDirect(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECT);
    if (fd < 0) return errno != EINVAL;
    ::close(fd);
    return true;
}

// Reads the file whole through `io` in `chunk`-byte preads into an aligned buffer.
std::string readWhole(IoBackend& io, const std::string& path, std::size_t chunk) {
    const int h = io.open(path, OpenOptions{});
    if (h < 0) return "open failed: " + errnoText(-h);
    const std::int64_t size = io.size(h);
    AlignedBuffer buf(static_cast<std::size_t>(size) + 1);
    const ssize_t n = readFully(io, h, buf.data(), static_cast<std::size_t>(size), 0, chunk);
    io.close(h);
    if (n < 0) return "read failed: " + errnoText(static_cast<int>(-n));
    return std::string(reinterpret_cast<const char*>(buf.data()), static_cast<std::size_t>(n));
}

} // namespace

class TestIoEngines : public QObject {
    Q_OBJECT

  private slots:
    void names() {
        QCOMPARE(std::string(toString(IoEngine::Posix)), std::string("posix"));
        QCOMPARE(std::string(toString(IoEngine::ODirect)), std::string("odirect"));
        QCOMPARE(std::string(toString(IoEngine::Mmap)), std::string("mmap"));
        QCOMPARE(std::string(toString(IoEngine::IoUring)), std::string("io_uring"));
        QVERIFY(parseIoEngine("posix") == IoEngine::Posix);
        QVERIFY(parseIoEngine("odirect") == IoEngine::ODirect);
        QVERIFY(parseIoEngine("mmap") == IoEngine::Mmap);
        QVERIFY(parseIoEngine("io_uring") == IoEngine::IoUring);
        for (const char* bad : {"IO_URING", "uring", "", "posix ", "o_direct"}) {
            try {
                parseIoEngine(bad, "trainio.io_engine");
                QFAIL(qPrintable(QStringLiteral("accepted '%1'").arg(QString::fromLatin1(bad))));
            } catch (const InputError& e) {
                const std::string m = e.what();
                QVERIFY2(m.find("trainio.io_engine") != std::string::npos, m.c_str());
                QVERIFY2(m.find("'" + std::string(bad) + "'") != std::string::npos, m.c_str());
                QVERIFY2(m.find("posix, odirect, mmap, io_uring") != std::string::npos, m.c_str());
            }
        }
    }

    void badOptions() {
        for (unsigned depth : {0u, 4097u}) {
            try {
                makeIoBackend(IoEngine::IoUring, IoEngineOptions{depth, 262144, false});
                QFAIL("accepted io_depth out of range");
            } catch (const InputError& e) {
                const std::string m = e.what();
                QVERIFY2(m.find("io_depth = " + std::to_string(depth)) != std::string::npos, m.c_str());
                QVERIFY2(m.find("1 to 4096") != std::string::npos, m.c_str());
            }
        }
        QVERIFY_THROWS_EXCEPTION(InputError,
                                 makeIoBackend(IoEngine::IoUring, IoEngineOptions{32, 100, false}));
    }

    void engineNames() {
        for (const auto& c : engineCases()) {
            auto io = makeIoBackend(c.engine, c.options);
            QVERIFY(io->engine() == c.engine);
            QCOMPARE(std::string(io->name()), std::string(toString(c.engine)));
        }
    }

    // The same bytes as the file holds (read independently with std::ifstream), for every engine, at
    // aligned and unaligned offsets, lengths and destination buffers, and past the end of the file.
    void sameBytes() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const auto files = sampleFiles(tmp.path().toStdString());
        QCOMPARE(files.size(), std::size_t(3 + 3 + 3 + 7)); // npz, tfrecord and its .idx files, odd sizes
        for (const auto& c : engineCases()) {
            auto io = makeIoBackend(c.engine, c.options);
            for (const auto& f : files) {
                const std::string expected = testsupport::readText(f);
                const std::string where = std::string(c.label) + " " + f.filename().string();
                // Whole file: one pread per file, and odd chunking (the sample reader's transfer size).
                QVERIFY2(readWhole(*io, f, 0) == expected, where.c_str());
                QVERIFY2(readWhole(*io, f, 4096 + 3) == expected, where.c_str());

                const int h = io->open(f, OpenOptions{});
                QVERIFY2(h >= 0, where.c_str());
                QCOMPARE(io->size(h), static_cast<std::int64_t>(expected.size()));
                const std::uint64_t size = expected.size();
                const std::uint64_t offsets[] = {0,     1,        511,
                                                 4095,  4096,     4097,
                                                 70001, size / 2, size - std::min<std::uint64_t>(size, 1),
                                                 size,  size + 10};
                const std::size_t lengths[] = {1, 7, 4095, 4096, 65537, 1048576 + 513};
                AlignedBuffer buf(1048576 + 513 + 8);
                for (std::uint64_t off : offsets) {
                    for (std::size_t len : lengths) {
                        for (std::size_t shift : {std::size_t(0), std::size_t(1), std::size_t(3)}) {
                            const std::string at = where + " offset " + std::to_string(off) + " len " +
                                                   std::to_string(len) + " buffer+" + std::to_string(shift);
                            unsigned char* dst = buf.data() + shift;
                            std::memset(dst, 0xA5, len + 1); // one guard byte after the range
                            const ssize_t n = readFully(*io, h, dst, len, off, 0);
                            const std::uint64_t want =
                                off >= size ? 0 : std::min<std::uint64_t>(len, size - off);
                            QVERIFY2(n == static_cast<ssize_t>(want),
                                     (at + " returned " + std::to_string(n)).c_str());
                            if (want > 0) {
                                QVERIFY2(std::memcmp(dst, expected.data() + off, want) == 0, at.c_str());
                                // A single pread may come back short, but what it returns is right.
                                const ssize_t one = io->pread(h, dst, len, off);
                                QVERIFY2(one > 0 && static_cast<std::uint64_t>(one) <= want, at.c_str());
                                QVERIFY2(std::memcmp(dst, expected.data() + off,
                                                     static_cast<std::size_t>(one)) == 0,
                                         at.c_str());
                            }
                            // Bytes past what was asked stay untouched (no overrun from rounding out).
                            QCOMPARE(dst[len], static_cast<unsigned char>(0xA5));
                        }
                    }
                }
                QCOMPARE(io->close(h), 0);
            }
            // Where the temporary folder refuses O_DIRECT, the engines fall back (tested below on procfs).
            if (takesDirect(files.back())) QCOMPARE(io->stats().directFallbackFiles, std::uint64_t(0));
        }
    }

    // The sample reader (today's engine path) reads every sample of generated files through each engine.
    void sampleReaderThroughEngines() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const auto files = sampleFiles(tmp.path().toStdString());
        for (const auto& c : engineCases()) {
            auto io = makeIoBackend(c.engine, c.options);
            for (bool odirect : {false, true}) {
                SampleReaderOptions o;
                o.transferSize = 65536 + 1;
                o.samplesPerFile = 3;
                o.odirect = odirect;
                for (const auto& f : files) {
                    const std::string ext = f.extension().string();
                    if (ext != ".npz" && ext != ".tfrecord") continue;
                    auto reader =
                        makeSampleReader(ext == ".npz" ? DataFormat::Npz : DataFormat::Tfrecord, *io, o);
                    for (std::uint64_t i = 0; i < 3; ++i) {
                        try {
                            const auto r = reader->read(f.string(), i);
                            QVERIFY(r.sampleBytes > 0);
                        } catch (const std::exception& e) {
                            QFAIL(qPrintable(QStringLiteral("%1 %2: %3")
                                                 .arg(QString::fromLatin1(c.label),
                                                      QString::fromStdString(f.string()),
                                                      QString::fromLocal8Bit(e.what()))));
                        }
                    }
                }
            }
        }
    }

    // One backend shared by reader threads (each io_uring thread has its own ring).
    void sharedByThreads() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const fs::path root = tmp.path().toStdString();
        std::vector<std::string> contents;
        for (unsigned i = 0; i < 4; ++i) {
            contents.push_back(randomBytes(2 * 1048576 + 1000 * i + 5, 100 + i));
            writeFile(root / ("t" + std::to_string(i)), contents.back());
        }
        for (const auto& c : engineCases()) {
            auto io = makeIoBackend(c.engine, c.options);
            std::atomic<int> mismatches{0};
            std::vector<std::thread> threads;
            for (unsigned t = 0; t < 4; ++t) {
                threads.emplace_back([&, t] {
                    for (int round = 0; round < 5; ++round) {
                        const unsigned i = (t + static_cast<unsigned>(round)) % 4;
                        if (readWhole(*io, (root / ("t" + std::to_string(i))).string(),
                                      65536 * (round + 1) + round) != contents[i])
                            ++mismatches;
                    }
                });
            }
            for (auto& th : threads)
                th.join();
            QVERIFY2(mismatches.load() == 0, c.label);
        }
    }

    // odirect (and io_uring with direct) read from the device without filling the page cache; buffered
    // engines fill it. Residency is measured with mincore, independently of the engines.
    void directBypassesPageCache() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const std::string path = (fs::path(tmp.path().toStdString()) / "cold.bin").string();
        const std::string bytes = randomBytes(8 * 1048576, 7);
        writeFile(path, bytes);
        auto evict = [&] {
            const int fd = ::open(path.c_str(), O_RDONLY);
            ::fdatasync(fd);
            ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
            ::close(fd);
            return residentFraction(path);
        };
        if (!takesDirect(path))
            QSKIP("the temporary folder's file system refuses O_DIRECT (EINVAL): nothing to bypass the cache "
                  "with here");
        if (evict() > 0.01)
            QSKIP("this file system keeps the file cached after fdatasync + POSIX_FADV_DONTNEED: residency "
                  "cannot be measured here");
        for (const auto& c : engineCases()) {
            const bool direct = c.engine == IoEngine::ODirect || c.options.direct;
            QCOMPARE(evict(), 0.0);
            auto io = makeIoBackend(c.engine, c.options);
            QVERIFY2(readWhole(*io, path, 262144) == bytes, c.label);
            const double resident = residentFraction(path);
            const std::string msg =
                std::string(c.label) + " left " + std::to_string(resident) + " of the file cached";
            if (direct) {
                QVERIFY2(resident < 0.01, msg.c_str());
                QCOMPARE(io->stats().directFallbackFiles, std::uint64_t(0));
            } else {
                QVERIFY2(resident > 0.99, msg.c_str());
            }
        }
    }

    // procfs refuses O_DIRECT at open (EINVAL): odirect reads such a file buffered and counts it.
    void refusedDirectFallsBackCounted() {
        const char* path = "/proc/self/mountinfo";
        const int probe = ::open(path, O_RDONLY | O_DIRECT);
        const int err = errno;
        if (probe >= 0) ::close(probe);
        if (probe >= 0 || err != EINVAL)
            QSKIP("this kernel does not refuse O_DIRECT on procfs with EINVAL: no file system at hand "
                  "refuses it");
        for (const auto& c : engineCases()) {
            const bool direct = c.engine == IoEngine::ODirect || c.options.direct;
            auto io = makeIoBackend(c.engine, c.options);
            for (int i = 0; i < 2; ++i) {
                const int h = io->open(path, OpenOptions{});
                QVERIFY2(h >= 0, c.label);
                char buf[256];
                const ssize_t n = io->pread(h, buf, sizeof buf, 0);
                QVERIFY2(n > 0, c.label); // mountinfo is never empty and its first line names a mount
                QVERIFY2(std::string(buf, static_cast<std::size_t>(n)).find(' ') != std::string::npos,
                         c.label);
                io->close(h);
            }
            // Another file of the same file system: counted too. A file opened again (above: twice, as every
            // epoch opens it again) is one file.
            const int other = io->open("/proc/self/status", OpenOptions{});
            QVERIFY2(other >= 0, c.label);
            io->close(other);
            const IoEngineStats s = io->stats();
            QCOMPARE(s.directFallbackFiles, std::uint64_t(direct ? 2 : 0));
            if (direct) {
                QVERIFY2(s.fallbackReason.find(path) != std::string::npos, s.fallbackReason.c_str());
                QVERIFY2(s.fallbackReason.find("O_DIRECT refused") != std::string::npos,
                         s.fallbackReason.c_str());
                QVERIFY2(s.fallbackReason.find(errnoText(EINVAL)) != std::string::npos,
                         s.fallbackReason.c_str());
            } else {
                QVERIFY(s.fallbackReason.empty());
            }
        }
    }

    // A file truncated under the mapping: the read fails with EIO instead of killing the process.
    void mmapTruncatedFileIsAnError() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const std::string path = (fs::path(tmp.path().toStdString()) / "shrinks.bin").string();
        writeFile(path, randomBytes(1048576, 3));
        auto io = makeIoBackend(IoEngine::Mmap);
        const int h = io->open(path, OpenOptions{});
        QVERIFY(h >= 0);
        AlignedBuffer buf(65536);
        QCOMPARE(io->pread(h, buf.data(), 65536, 0), ssize_t(65536));
        QCOMPARE(::truncate(path.c_str(), 4096), 0);
        QCOMPARE(io->pread(h, buf.data(), 65536, 512 * 1024), ssize_t(-EIO));
        QCOMPARE(io->pread(h, buf.data(), 4096, 0), ssize_t(4096)); // the part that is left still reads
        QCOMPARE(io->pread(h, buf.data(), 8192, 0), ssize_t(-EIO));
        QCOMPARE(io->close(h), 0);
    }

    void writesGoThroughEveryEngine() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        for (const auto& c : engineCases()) {
            auto io = makeIoBackend(c.engine, c.options);
            const fs::path p = fs::path(tmp.path().toStdString()) / (std::string(c.label) + ".out");
            const std::string bytes = randomBytes(10007, 5);
            const int h = io->open(p.string(), OpenOptions{true, false});
            QVERIFY2(h >= 0, c.label);
            QCOMPARE(writeFully(*io, h, bytes.data(), bytes.size(), 0), 0);
            QCOMPARE(io->fsync(h), 0);
            QCOMPARE(io->close(h), 0);
            QVERIFY2(testsupport::readText(p) == bytes, c.label);
        }
    }

    // io_uring_setup refused (as seccomp does in many containers): the factory says so, with the reason
    // and what to choose instead. Run in a child process so the filter does not outlive the test.
    void ioUringRefusedIsAClearError() {
        int fds[2];
        QCOMPARE(::pipe(fds), 0);
        const pid_t pid = ::fork();
        QVERIFY(pid >= 0);
        if (pid == 0) {
            ::close(fds[0]);
            sock_filter filter[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
            };
            sock_fprog prog{static_cast<unsigned short>(sizeof filter / sizeof filter[0]), filter};
            std::string out;
            if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
                ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
                out = "SETUP " + errnoText(errno);
            } else {
                try {
                    makeIoBackend(IoEngine::IoUring);
                    out = "NO ERROR";
                } catch (const RunError& e) {
                    out = std::string("RunError: ") + e.what();
                } catch (const std::exception& e) {
                    out = std::string("other: ") + e.what();
                }
            }
            [[maybe_unused]] const ssize_t w = ::write(fds[1], out.data(), out.size());
            ::_exit(0);
        }
        ::close(fds[1]);
        std::string msg;
        char buf[512];
        for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
            msg.append(buf, static_cast<std::size_t>(n));
        ::close(fds[0]);
        int status = 0;
        ::waitpid(pid, &status, 0);
        QVERIFY2(WIFEXITED(status) && WEXITSTATUS(status) == 0, msg.c_str());
        QVERIFY2(msg.rfind("SETUP ", 0) != 0, ("cannot install a seccomp filter here: " + msg).c_str());
        QVERIFY2(msg.rfind("RunError: ", 0) == 0, msg.c_str());
        QVERIFY2(msg.find("io_uring_setup failed") != std::string::npos, msg.c_str());
        QVERIFY2(msg.find(errnoText(ENOSYS)) != std::string::npos, msg.c_str());
        QVERIFY2(msg.find("posix, odirect or mmap") != std::string::npos, msg.c_str());
    }
};

QTEST_GUILESS_MAIN(TestIoEngines)
#include "tst_io_engines.moc"
