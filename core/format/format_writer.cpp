#include "format/format_writer.h"

#include "util/prng.h"
#include "format/crc32c.h"
#include "format/hdf5_format.h"
#include "format/image_format.h"
#include "format/npy_format.h"
#include "format/tfrecord_format.h"
#include "io/aligned_buffer.h"
#include "util/errors.h"

#include <zip.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <vector>

namespace trainio {
namespace {

constexpr std::size_t kChunk = 4u << 20;
constexpr std::uint64_t kProgressEvery = 4u << 20;
// Fixed entry time (2000-01-01T12:00:00Z) so that identical parameters give identical files.
constexpr std::time_t kZipMtime = 946728000;

[[noreturn]] void throwIo(const char* op, const std::string& path, int err, std::uint64_t offset, bool withOffset) {
    std::string msg = std::string(op) + " " + path;
    if (withOffset) msg += " at offset " + std::to_string(offset);
    msg += ": " + errnoText(err);
    throw RunError(msg);
}

[[noreturn]] void throwUnsupported(DataFormat f) {
    throw InputError(std::string("format ") + toString(f) + ": not supported by this build yet");
}

std::vector<std::uint64_t> npyShape(const DataFileSpec& s) { return {s.d1, s.d2, s.samples}; }

// Sequential buffered output through the IoBackend with the random payload generated in place.
class FileOut {
public:
    FileOut(IoBackend& io, const std::string& path, const WriteControl& control)
        : io_(io), path_(path), control_(control), buf_(kChunk) {
        handle_ = io_.open(path, OpenOptions{true, false});
        if (handle_ < 0) throwIo("create", path, -handle_, 0, false);
    }
    ~FileOut() {
        if (handle_ >= 0) io_.close(handle_);
    }
    bool cancelled() const { return control_.cancel && control_.cancel->load(std::memory_order_relaxed); }
    void append(const void* p, std::size_t n) {
        const auto* c = static_cast<const unsigned char*>(p);
        while (n > 0) {
            const std::size_t take = std::min(n, kChunk - used_);
            std::copy(c, c + take, buf_.data() + used_);
            used_ += take;
            c += take;
            n -= take;
            if (used_ == kChunk) flush();
        }
    }
    // Appends n bytes of an encoded file (image, HDF5 image) that count as payload. False when cancelled.
    bool appendPayload(const unsigned char* p, std::uint64_t n) {
        while (n > 0) {
            if (cancelled()) return false;
            const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(n, kChunk - used_));
            std::copy(p, p + take, buf_.data() + used_);
            used_ += take;
            p += take;
            n -= take;
            payload_ += take;
            if (used_ == kChunk) flush();
        }
        return true;
    }
    // Appends n random bytes; extends *crc over them when crc is given. False when cancelled.
    bool appendRandom(std::uint64_t n, Xoshiro256StarStar& rng, std::uint32_t* crc) {
        while (n > 0) {
            if (cancelled()) return false;
            const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(n, kChunk - used_));
            rng.fill(buf_.data() + used_, take);
            if (crc) *crc = crc32c(buf_.data() + used_, take, *crc);
            used_ += take;
            n -= take;
            payload_ += take;
            if (used_ == kChunk) flush();
        }
        return true;
    }
    void finish() {
        flush();
        const int h = handle_;
        handle_ = -1;
        if (const int rc = io_.close(h); rc < 0) throwIo("close", path_, -rc, 0, false);
        report(true);
    }

private:
    void flush() {
        if (used_ > 0) {
            if (const int rc = writeFully(io_, handle_, buf_.data(), used_, offset_); rc < 0)
                throwIo("write", path_, -rc, offset_, true);
            offset_ += used_;
            used_ = 0;
        }
        report(false);
    }
    void report(bool final) {
        if (control_.onBytes && payload_ > 0 && (final || payload_ >= kProgressEvery)) {
            control_.onBytes(payload_);
            payload_ = 0;
        }
    }
    IoBackend& io_;
    const std::string& path_;
    const WriteControl& control_;
    AlignedBuffer buf_;
    std::size_t used_ = 0;
    std::uint64_t offset_ = 0;
    std::uint64_t payload_ = 0;
    int handle_ = -1;
};

// ---- npz through libzip -------------------------------------------------------------------------
// The archive is written through a libzip *function source* backed by the IoBackend, not by
// zip_open(path): zip_open writes its own "<name>.XXXXXX" temporary with stdio and renames it, which
// would bypass the IoBackend (fault injection) and the generator's naming of temporaries. The x.npy
// payload is a function source too, generated as libzip pulls it, so a 150 MB record is never held
// in memory at all. libzip computes the zip CRC-32 and writes ZIP64 fields when an entry needs them.

// libzip 1.7 (Debian 12) fills two function-local statics on the first zip_open_from_source of the process
// without a lock (`needed_support_read`, then `needed_support_write`): a second thread that comes between
// the two reads the write mask as -1, takes our writable source for read-only and fails "Read-only
// archive" (seen on a fresh 2-vCPU Debian: datagen's first npz files, written by parallel threads). The
// first call is made once, alone, on a throwaway in-memory archive, before any generator thread's.
void primeLibzip() {
    static std::once_flag once;
    std::call_once(once, [] {
        zip_error_t err;
        zip_error_init(&err);
        if (zip_source_t* src = zip_source_buffer_create(nullptr, 0, 0, &err)) {
            if (zip_t* za = zip_open_from_source(src, ZIP_CREATE | ZIP_TRUNCATE, &err)) zip_discard(za); // frees src
            else zip_source_free(src);
        }
        zip_error_fini(&err);
    });
}

struct ArchiveSink {
    IoBackend& io;
    const std::string& path;
    zip_error_t error;
    int handle = -1;
    std::uint64_t pos = 0;      // libzip's write position
    std::uint64_t end = 0;      // bytes flushed or buffered so far (file length)
    AlignedBuffer buf{kChunk};
    std::uint64_t bufStart = 0; // file offset of buf[0]
    std::size_t bufUsed = 0;
    int failedErrno = 0;
    const char* failedOp = nullptr;
    std::uint64_t failedOffset = 0;

    bool flush() {
        if (bufUsed == 0) return true;
        if (const int rc = writeFully(io, handle, buf.data(), bufUsed, bufStart); rc < 0) {
            fail("write", -rc, bufStart);
            return false;
        }
        bufUsed = 0;
        return true;
    }
    void fail(const char* op, int err, std::uint64_t offset) {
        if (!failedOp) {
            failedOp = op;
            failedErrno = err;
            failedOffset = offset;
        }
        zip_error_set(&error, ZIP_ER_WRITE, err);
    }
};

zip_int64_t archiveCallback(void* ud, void* data, zip_uint64_t len, zip_source_cmd_t cmd) {
    auto& s = *static_cast<ArchiveSink*>(ud);
    switch (cmd) {
    case ZIP_SOURCE_SUPPORTS:
        return zip_source_make_command_bitmap(ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE, ZIP_SOURCE_STAT,
                                              ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE, ZIP_SOURCE_SEEK, ZIP_SOURCE_TELL,
                                              ZIP_SOURCE_SUPPORTS, ZIP_SOURCE_BEGIN_WRITE, ZIP_SOURCE_COMMIT_WRITE,
                                              ZIP_SOURCE_ROLLBACK_WRITE, ZIP_SOURCE_WRITE, ZIP_SOURCE_SEEK_WRITE,
                                              ZIP_SOURCE_TELL_WRITE, ZIP_SOURCE_REMOVE, -1);
    case ZIP_SOURCE_STAT:
        // "Does not exist yet": libzip then creates a new archive without reading.
        zip_error_set(&s.error, ZIP_ER_READ, ENOENT);
        return -1;
    case ZIP_SOURCE_ERROR: return zip_error_to_data(&s.error, data, len);
    case ZIP_SOURCE_OPEN:
    case ZIP_SOURCE_CLOSE:
    case ZIP_SOURCE_FREE: return 0;
    case ZIP_SOURCE_READ:
    case ZIP_SOURCE_SEEK:
    case ZIP_SOURCE_TELL: zip_error_set(&s.error, ZIP_ER_OPNOTSUPP, 0); return -1;
    case ZIP_SOURCE_BEGIN_WRITE: {
        const int h = s.io.open(s.path, OpenOptions{true, false});
        if (h < 0) {
            s.fail("create", -h, 0);
            return -1;
        }
        s.handle = h;
        s.pos = s.end = s.bufStart = 0;
        s.bufUsed = 0;
        return 0;
    }
    case ZIP_SOURCE_WRITE: {
        const auto* p = static_cast<const unsigned char*>(data);
        zip_uint64_t left = len;
        while (left > 0) {
            // Writes are sequential except for libzip's header rewrites after a seek: buffer the
            // sequential run, flush before jumping.
            if (s.pos != s.bufStart + s.bufUsed || s.bufUsed == kChunk) {
                if (!s.flush()) return -1;
                s.bufStart = s.pos;
            }
            const std::size_t take = static_cast<std::size_t>(std::min<zip_uint64_t>(left, kChunk - s.bufUsed));
            std::copy(p, p + take, s.buf.data() + s.bufUsed);
            s.bufUsed += take;
            s.pos += take;
            p += take;
            left -= take;
            s.end = std::max(s.end, s.pos);
        }
        return static_cast<zip_int64_t>(len);
    }
    case ZIP_SOURCE_SEEK_WRITE: {
        auto* args = ZIP_SOURCE_GET_ARGS(zip_source_args_seek_t, data, len, &s.error);
        if (!args) return -1;
        std::int64_t base = args->whence == SEEK_SET ? 0 : args->whence == SEEK_CUR ? static_cast<std::int64_t>(s.pos)
                                                                                    : static_cast<std::int64_t>(s.end);
        const std::int64_t target = base + args->offset;
        if (target < 0) {
            zip_error_set(&s.error, ZIP_ER_INVAL, 0);
            return -1;
        }
        s.pos = static_cast<std::uint64_t>(target);
        return 0;
    }
    case ZIP_SOURCE_TELL_WRITE: return static_cast<zip_int64_t>(s.pos);
    case ZIP_SOURCE_COMMIT_WRITE: {
        if (!s.flush()) return -1;
        const int h = s.handle;
        s.handle = -1;
        if (const int rc = s.io.close(h); rc < 0) {
            s.fail("close", -rc, 0);
            return -1;
        }
        return 0;
    }
    case ZIP_SOURCE_ROLLBACK_WRITE:
        if (s.handle >= 0) s.io.close(s.handle);
        s.handle = -1;
        return 0;
    case ZIP_SOURCE_REMOVE: return 0;
    default: zip_error_set(&s.error, ZIP_ER_OPNOTSUPP, 0); return -1;
    }
}

struct NpyEntrySource {
    std::string header;
    std::uint64_t dataBytes = 0;
    std::uint64_t seed = 0;
    std::uint64_t pos = 0;
    Xoshiro256StarStar rng{0};
    const WriteControl* control = nullptr;
    std::uint64_t unreported = 0;
    bool wasCancelled = false;
    zip_error_t error;
};

zip_int64_t npyEntryCallback(void* ud, void* data, zip_uint64_t len, zip_source_cmd_t cmd) {
    auto& s = *static_cast<NpyEntrySource*>(ud);
    switch (cmd) {
    case ZIP_SOURCE_SUPPORTS:
        return zip_source_make_command_bitmap(ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE, ZIP_SOURCE_STAT,
                                              ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE, ZIP_SOURCE_SUPPORTS, -1);
    case ZIP_SOURCE_OPEN:
        s.pos = 0;
        s.rng = Xoshiro256StarStar(s.seed);
        return 0;
    case ZIP_SOURCE_STAT: {
        auto* st = ZIP_SOURCE_GET_ARGS(zip_stat_t, data, len, &s.error);
        if (!st) return -1;
        zip_stat_init(st);
        st->valid = ZIP_STAT_SIZE | ZIP_STAT_MTIME;
        st->size = s.header.size() + s.dataBytes;
        st->mtime = kZipMtime;
        return sizeof(zip_stat_t);
    }
    case ZIP_SOURCE_READ: {
        if (s.control->cancel && s.control->cancel->load(std::memory_order_relaxed)) {
            s.wasCancelled = true;
            zip_error_set(&s.error, ZIP_ER_CANCELLED, 0);
            return -1;
        }
        auto* out = static_cast<unsigned char*>(data);
        const std::uint64_t total = s.header.size() + s.dataBytes;
        const std::uint64_t n = std::min<std::uint64_t>(len, total - s.pos);
        std::uint64_t done = 0;
        while (done < n && s.pos < s.header.size()) out[done++] = static_cast<unsigned char>(s.header[s.pos++]);
        if (done < n) {
            // Payload bytes are random filler: they follow libzip's read sizes and need not be reproducible.
            s.rng.fill(out + done, n - done);
            s.unreported += n - done;
            s.pos += n - done;
        }
        if (s.control->onBytes && (s.unreported >= kProgressEvery || (s.pos == total && s.unreported > 0))) {
            s.control->onBytes(s.unreported);
            s.unreported = 0;
        }
        return static_cast<zip_int64_t>(n);
    }
    case ZIP_SOURCE_CLOSE:
    case ZIP_SOURCE_FREE: return 0;
    case ZIP_SOURCE_ERROR: return zip_error_to_data(&s.error, data, len);
    default: zip_error_set(&s.error, ZIP_ER_OPNOTSUPP, 0); return -1;
    }
}

WriteOutcome writeNpz(IoBackend& io, const DataFileSpec& spec, const std::string& path, const WriteControl& control) {
    ArchiveSink sink{io, path, {}};
    zip_error_init(&sink.error);
    NpyEntrySource x;
    zip_error_init(&x.error);
    x.header = npyHeader("|u1", npyShape(spec));
    x.dataBytes = spec.sampleBytes() * spec.samples;
    x.seed = spec.contentSeed;
    x.control = &control;
    // y: int64 zero labels, small enough for a buffer source.
    std::string y = npyHeader("<i8", {spec.samples});
    y.append(spec.samples * 8, '\0');

    auto fail = [&](const char* what, zip_error_t* err) -> WriteOutcome {
        std::string detail = zip_error_strerror(err);
        zip_error_fini(err); // frees the message zip_error_strerror allocated (LeakSanitizer, ENOSPC tests)
        zip_error_fini(&x.error);
        if (x.wasCancelled) {
            zip_error_fini(&sink.error);
            return WriteOutcome::Cancelled;
        }
        if (sink.failedOp) {
            const std::string op = sink.failedOp;
            const int e = sink.failedErrno;
            const auto off = sink.failedOffset;
            zip_error_fini(&sink.error);
            throwIo(op.c_str(), path, e, off, op == "write");
        }
        zip_error_fini(&sink.error);
        throw RunError(std::string(what) + " " + path + ": " + detail);
    };

    primeLibzip();
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t* archiveSrc = zip_source_function_create(archiveCallback, &sink, &err);
    if (!archiveSrc) return fail("create zip", &err);
    zip_t* za = zip_open_from_source(archiveSrc, ZIP_CREATE | ZIP_TRUNCATE, &err);
    if (!za) {
        zip_source_free(archiveSrc);
        return fail("create zip", &err);
    }
    auto addEntry = [&](const char* name, zip_source_t* src) -> bool {
        if (!src) return false;
        const zip_int64_t idx = zip_file_add(za, name, src, ZIP_FL_ENC_UTF_8);
        if (idx < 0) {
            zip_source_free(src);
            return false;
        }
        return zip_set_file_compression(za, static_cast<zip_uint64_t>(idx), ZIP_CM_STORE, 0) == 0 &&
               zip_file_set_mtime(za, static_cast<zip_uint64_t>(idx), kZipMtime, 0) == 0;
    };
    const bool ok = addEntry("x.npy", zip_source_function(za, npyEntryCallback, &x)) &&
                    addEntry("y.npy", zip_source_buffer(za, y.data(), y.size(), 0));
    if (!ok) {
        zip_error_t e2;
        zip_error_init(&e2);
        zip_error_set(&e2, zip_error_code_zip(zip_get_error(za)), zip_error_code_system(zip_get_error(za)));
        zip_discard(za);
        return fail("add entry to", &e2);
    }
    if (zip_close(za) != 0) {
        zip_error_t e2;
        zip_error_init(&e2);
        zip_error_set(&e2, zip_error_code_zip(zip_get_error(za)), zip_error_code_system(zip_get_error(za)));
        zip_discard(za);
        return fail("write zip", &e2);
    }
    zip_error_fini(&x.error);
    zip_error_fini(&sink.error);
    return WriteOutcome::Written;
}

// What libzip 1.7 lays out for a STORED entry without data descriptor: local header (30 + name) and
// central directory record (46 + name), each with a 20/28-byte ZIP64 extra field only when the entry
// needs it; end of central directory 22 bytes (+ 56 + 20 ZIP64 records when the archive needs them).
// Checked against real files by tst_format (expectedSizeMatchesWrittenFile).
std::uint64_t npzSize(const DataFileSpec& spec) {
    constexpr std::uint64_t k32 = 0xFFFFFFFFull;
    const std::uint64_t xSize = npyHeaderSize("|u1", npyShape(spec)) + spec.sampleBytes() * spec.samples;
    const std::uint64_t ySize = npyHeaderSize("<i8", {spec.samples}) + spec.samples * 8;
    const std::uint64_t name = 5;
    std::uint64_t total = 0;
    std::uint64_t cdir = 0;
    bool zip64Archive = false;
    for (const std::uint64_t size : {xSize, ySize}) {
        const std::uint64_t offset = total;
        const bool big = size >= k32;
        total += 30 + name + (big ? 20 : 0) + size;
        const bool offBig = offset >= k32;
        cdir += 46 + name + ((big || offBig) ? 4 + (big ? 16 : 0) + (offBig ? 8 : 0) : 0);
        zip64Archive = zip64Archive || offBig;
    }
    zip64Archive = zip64Archive || total >= k32;
    total += cdir + 22 + (zip64Archive ? 56 + 20 : 0);
    return total;
}

} // namespace

bool formatWritable(DataFormat f) {
    switch (f) {
    case DataFormat::Npz:
    case DataFormat::Npy:
    case DataFormat::Tfrecord:
    case DataFormat::IndexedBinary:
    case DataFormat::Raw:
    case DataFormat::Hdf5:
    case DataFormat::Jpeg:
    case DataFormat::Png: return true;
    }
    return false;
}

bool fileSizeExact(DataFormat f) { return f != DataFormat::Jpeg && f != DataFormat::Png; }

std::uint64_t expectedFileSize(const DataFileSpec& spec) {
    switch (spec.format) {
    case DataFormat::Npz: return npzSize(spec);
    case DataFormat::Npy: return npyHeaderSize("|u1", npyShape(spec)) + spec.sampleBytes() * spec.samples;
    case DataFormat::Tfrecord: return tfExampleLayout(spec.sampleBytes(), spec.sizeFeature).framedLength() * spec.samples;
    case DataFormat::IndexedBinary:
    case DataFormat::Raw: return spec.sampleBytes() * spec.samples;
    case DataFormat::Hdf5: return hdf5FileSize(spec);
    case DataFormat::Jpeg:
    case DataFormat::Png: return estimatedImageFileSize(spec.format, spec.d1, spec.d2);
    }
    throwUnsupported(spec.format);
}

WriteOutcome writeDataFile(IoBackend& io, const DataFileSpec& spec, const std::string& path,
                           const WriteControl& control) {
    if (!formatWritable(spec.format)) throwUnsupported(spec.format);
    if (spec.format == DataFormat::Npz) return writeNpz(io, spec, path, control);
    if (spec.format == DataFormat::Hdf5) {
        // Built in memory first (HDF5 writes metadata out of order), then written through io.
        Hdf5Bytes image;
        if (!buildHdf5Image(spec, path, WriteControl{control.cancel, nullptr}, image)) return WriteOutcome::Cancelled;
        FileOut out(io, path, control);
        if (!out.appendPayload(image.data(), image.size())) return WriteOutcome::Cancelled;
        out.finish();
        return WriteOutcome::Written;
    }
    if (spec.format == DataFormat::Jpeg || spec.format == DataFormat::Png) {
        // One image per file (DLIO's image generators ignore num_samples_per_file).
        std::vector<unsigned char> pixels, encoded;
        fillImagePixels(spec.contentSeed, pixels, spec.sampleBytes());
        encodeImage(spec.format, pixels.data(), spec.d1, spec.d2, encoded);
        FileOut out(io, path, control);
        if (!out.appendPayload(encoded.data(), encoded.size())) return WriteOutcome::Cancelled;
        out.finish();
        return WriteOutcome::Written;
    }

    FileOut out(io, path, control);
    Xoshiro256StarStar rng(spec.contentSeed);
    const std::uint64_t payload = spec.sampleBytes() * spec.samples;
    bool complete = true;
    switch (spec.format) {
    case DataFormat::Npy: {
        const std::string header = npyHeader("|u1", npyShape(spec));
        out.append(header.data(), header.size());
        complete = out.appendRandom(payload, rng, nullptr);
        break;
    }
    case DataFormat::IndexedBinary:
    case DataFormat::Raw: complete = out.appendRandom(payload, rng, nullptr); break;
    case DataFormat::Tfrecord: {
        const TfExampleLayout layout = tfExampleLayout(spec.sampleBytes(), spec.sizeFeature);
        unsigned char header[kTfRecordHeaderBytes];
        encodeTfRecordHeader(layout.dataLength(), header);
        for (std::uint64_t k = 0; k < spec.samples && complete; ++k) {
            out.append(header, sizeof header);
            out.append(layout.prefix.data(), layout.prefix.size());
            std::uint32_t crc = crc32c(layout.prefix.data(), layout.prefix.size());
            complete = out.appendRandom(layout.imageBytes, rng, &crc);
            out.append(layout.suffix.data(), layout.suffix.size());
            crc = maskCrc(crc32c(layout.suffix.data(), layout.suffix.size(), crc));
            const unsigned char footer[4] = {static_cast<unsigned char>(crc), static_cast<unsigned char>(crc >> 8),
                                             static_cast<unsigned char>(crc >> 16),
                                             static_cast<unsigned char>(crc >> 24)};
            out.append(footer, 4);
        }
        break;
    }
    default: throwUnsupported(spec.format);
    }
    if (!complete) return WriteOutcome::Cancelled;
    out.finish();
    return WriteOutcome::Written;
}

std::string tfrecordIndexText(const DataFileSpec& spec) {
    const std::uint64_t framed = tfExampleLayout(spec.sampleBytes(), spec.sizeFeature).framedLength();
    std::string out;
    for (std::uint64_t k = 0; k < spec.samples; ++k) {
        out += std::to_string(k * framed);
        out += ' ';
        out += std::to_string(framed);
        out += '\n';
    }
    return out;
}

namespace {
std::string uint64Array(std::uint64_t count, std::uint64_t first, std::uint64_t step) {
    std::string out;
    out.reserve(count * 8);
    for (std::uint64_t k = 0; k < count; ++k) {
        const std::uint64_t v = first + k * step;
        for (int b = 0; b < 8; ++b) out.push_back(static_cast<char>((v >> (8 * b)) & 0xFF));
    }
    return out;
}
} // namespace

// DLIO restarts offsets at 0 for each generation_buffer_size chunk (a bug when a file exceeds the
// buffer); we write the true byte offsets, which equal DLIO's whenever the file fits one chunk.
std::string indexedBinaryOffsets(const DataFileSpec& spec) { return uint64Array(spec.samples, 0, spec.sampleBytes()); }
std::string indexedBinarySizes(const DataFileSpec& spec) { return uint64Array(spec.samples, spec.sampleBytes(), 0); }

void writeWholeFile(IoBackend& io, const std::string& path, const std::string& bytes) {
    const int h = io.open(path, OpenOptions{true, false});
    if (h < 0) throwIo("create", path, -h, 0, false);
    if (const int rc = writeFully(io, h, bytes.data(), bytes.size(), 0); rc < 0) {
        io.close(h);
        throwIo("write", path, -rc, 0, true);
    }
    if (const int rc = io.close(h); rc < 0) throwIo("close", path, -rc, 0, false);
}

} // namespace trainio
