#include "format/sample_reader.h"

#include "format/crc32c.h"
#include "format/hdf5_format.h"
#include "format/image_format.h"
#include "format/npy_format.h"
#include "format/tfrecord_format.h"
#include "io/aligned_buffer.h"
#include "util/errors.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace trainio {
namespace {

std::uint16_t le16(const unsigned char* p) { return static_cast<std::uint16_t>(p[0] | (p[1] << 8)); }
std::uint32_t le32(const unsigned char* p) {
    return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
           (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}
std::uint64_t le64(const unsigned char* p) { return le32(p) | (static_cast<std::uint64_t>(le32(p + 4)) << 32); }

[[noreturn]] void parseError(const std::string& path, const std::string& what) {
    throw RunError("parse " + path + ": " + what);
}

// What of a whole file a format's parser looks at. numpy and the fork's count-only readers look at the
// framing alone (zip directory at the end, npy header at the start); a decoder looks at every byte.
struct Framing {
    bool whole = true;
    std::uint64_t head = 0; // the first `head` bytes
    std::uint64_t tail = 0; // and the last `tail` bytes
};
// Thrown by a parser that needs bytes a framed read did not keep (an unusual layout): the caller reads
// the whole file and parses again.
struct NeedsWholeFile {};

// The bytes of a file as a reader holds them: all of them, or only the kept head and tail windows.
struct HeldBytes {
    const unsigned char* p = nullptr;
    std::uint64_t size = 0;
    std::uint64_t headEnd = 0;  // [0, headEnd) is held
    std::uint64_t tailFrom = 0; // [tailFrom, size) is held
    // Throws NeedsWholeFile unless [offset, offset + len) is held (the range lies inside the file).
    void need(std::uint64_t offset, std::uint64_t len) const {
        if (offset > size || len > size - offset) return; // beyond the file: the parser's own checks say so
        if (offset + len <= headEnd || offset >= tailFrom) return;
        throw NeedsWholeFile{};
    }
};

// Owns the open file of the current path and reads byte ranges of it in transfer_size chunks.
class FileAccess {
public:
    FileAccess(IoBackend& io, const SampleReaderOptions& opts) : io_(io), opts_(opts) {
        chunk_ = std::max<std::uint64_t>(opts.transferSize, 1);
        if (opts.odirect) chunk_ = (chunk_ + AlignedBuffer::kAlignment - 1) / AlignedBuffer::kAlignment * AlignedBuffer::kAlignment;
    }
    ~FileAccess() { close(); }

    const std::string& path() const { return path_; }
    bool isOpen(const std::string& path) const { return handle_ >= 0 && path_ == path; }
    std::uint64_t size() const { return size_; }

    void open(const std::string& path) {
        close();
        path_ = path; // reuses capacity
        const int h = io_.open(path_, OpenOptions{false, opts_.odirect});
        if (h < 0) throw RunError("open " + path_ + ": " + errnoText(-h));
        handle_ = h;
        const std::int64_t s = io_.size(h);
        if (s < 0) throw RunError("stat " + path_ + ": " + errnoText(static_cast<int>(-s)));
        size_ = static_cast<std::uint64_t>(s);
    }
    // Opens another file (an index) just to read it whole into buf. Returns false if it does not exist.
    bool readSideFile(const std::string& path, AlignedBuffer& buf, std::uint64_t& len, std::uint64_t& fromStorage) {
        const int h = io_.open(path, OpenOptions{false, false});
        if (h == -ENOENT) return false;
        if (h < 0) throw RunError("open " + path + ": " + errnoText(-h));
        const std::int64_t s = io_.size(h);
        if (s < 0) {
            io_.close(h);
            throw RunError("stat " + path + ": " + errnoText(static_cast<int>(-s)));
        }
        len = static_cast<std::uint64_t>(s);
        buf.reserve(len + 1);
        try {
            len = readChunks(h, path, 0, len, [&](std::uint64_t done, std::uint64_t) { return buf.data() + done; });
        } catch (...) {
            io_.close(h);
            throw;
        }
        io_.close(h);
        fromStorage += len;
        return true;
    }
    void close() {
        if (handle_ >= 0) io_.close(handle_);
        handle_ = -1;
    }
    void forget() {
        close();
        path_.clear();
    }

    // Reads [offset, offset + len) into buf (transfer_size chunks; aligned when O_DIRECT) and returns
    // a pointer to the first requested byte. Throws naming the path and the failing chunk's offset.
    const unsigned char* read(std::uint64_t offset, std::uint64_t len, AlignedBuffer& buf, std::uint64_t& fromStorage) {
        if (offset > size_ || len > size_ - offset)
            parseError(path_, "range " + std::to_string(offset) + "+" + std::to_string(len) + " beyond the end of the file (" +
                                  std::to_string(size_) + " bytes)");
        std::uint64_t start = offset;
        std::uint64_t span = len;
        if (opts_.odirect) {
            const std::uint64_t a = AlignedBuffer::kAlignment;
            start = offset / a * a;
            span = (offset + len + a - 1) / a * a - start;
        }
        buf.reserve(span);
        const std::uint64_t done =
            readChunks(handle_, path_, start, span, [&](std::uint64_t at, std::uint64_t) { return buf.data() + at; });
        fromStorage += done;
        requireRead(start, done, offset + len - start);
        return buf.data() + (offset - start);
    }

    // Reads the whole open file with exactly the requests read(0, size()) makes (same offsets, same
    // transfer_size chunks), but only the chunks that touch the framing's head or tail land in their place
    // in buf; the others go to one transfer-sized scratch buffer that stays in the CPU's cache. The copy
    // out of the page cache is then the same as fio's at the transfer size instead of streaming a whole
    // sample to memory (issue 19's CPU-per-byte yardstick); the payload is never looked at by these formats.
    HeldBytes readFramed(const Framing& f, AlignedBuffer& buf, AlignedBuffer& scratch, std::uint64_t& fromStorage) {
        std::uint64_t span = size_;
        if (opts_.odirect) span = (size_ + AlignedBuffer::kAlignment - 1) / AlignedBuffer::kAlignment * AlignedBuffer::kAlignment;
        buf.reserve(span);
        const std::uint64_t tailFrom = size_ - std::min(f.tail, size_);
        HeldBytes held{buf.data(), size_, 0, size_};
        // The head's chunks end where the first chunk outside it starts: the framing held is [0, headEnd).
        std::uint64_t headEnd = 0;
        const std::uint64_t done = readChunks(handle_, path_, 0, span, [&](std::uint64_t at, std::uint64_t want) {
            const bool inHead = at < f.head;
            const bool inTail = at + want > tailFrom;
            if (inHead) headEnd = at + want;
            if (inTail && held.tailFrom == size_) held.tailFrom = at;
            if (inHead || inTail) return buf.data() + at;
            scratch.reserve(want); // a chunk (io_uring's is the whole file: never here)
            return scratch.data();
        });
        held.headEnd = std::min(headEnd, done);
        fromStorage += done;
        requireRead(0, done, size_);
        held.headEnd = std::min(held.headEnd, size_);
        if (held.headEnd >= held.tailFrom) held.headEnd = held.tailFrom = size_; // every byte is held
        return held;
    }

private:
    // The one chunk loop of every read: [start, start + span) of handle h in transfer_size chunks, in order,
    // each into to(offset from start, chunk length); stops early at the end of the file. Returns the bytes
    // read. Throws naming the path and the failing chunk's offset.
    template <class To>
    std::uint64_t readChunks(int h, const std::string& path, std::uint64_t start, std::uint64_t span, To to) {
        std::uint64_t done = 0;
        while (done < span) {
            const std::uint64_t want = std::min<std::uint64_t>(chunk_, span - done);
            const ssize_t n = readFully(io_, h, to(done, want), want, start + done, want);
            if (n < 0)
                throw RunError("read " + path + " at offset " + std::to_string(start + done) + ": " + errnoText(static_cast<int>(-n)));
            done += static_cast<std::uint64_t>(n);
            if (static_cast<std::uint64_t>(n) < want) break; // end of file
        }
        return done;
    }
    void requireRead(std::uint64_t start, std::uint64_t done, std::uint64_t need) const {
        if (done < need)
            throw RunError("read " + path_ + " at offset " + std::to_string(start + done) +
                           ": unexpected end of file (file shrank while reading?)");
    }

    IoBackend& io_;
    SampleReaderOptions opts_;
    std::uint64_t chunk_;
    std::string path_;
    int handle_ = -1;
    std::uint64_t size_ = 0;
};

// Formats whose library loads the whole file (numpy, PIL): one load per file,
// kept while consecutive samples come from the same file.
class WholeFileBase : public SampleReader {
public:
    WholeFileBase(IoBackend& io, const SampleReaderOptions& opts) : file_(io, opts) {}

    SampleReadResult read(const std::string& path, std::uint64_t indexInFile) final {
        SampleReadResult r;
        if (loaded_.empty() || loaded_ != path) {
            loaded_.clear();
            unload();
            file_.open(path);
            const Framing f = framing();
            if (f.whole || wholeFiles_) {
                loadWhole(path, r.bytesFromStorage);
            } else {
                const HeldBytes held = file_.readFramed(f, buf_, scratch_, r.bytesFromStorage);
                file_.close();
                try {
                    load(path, held);
                } catch (const NeedsWholeFile&) {
                    // A layout whose framing lies outside the head and tail windows (a foreign file): read
                    // it whole — real I/O, counted — and do so for the rest of this reader's files.
                    wholeFiles_ = true;
                    file_.open(path);
                    loadWhole(path, r.bytesFromStorage);
                }
            }
            loaded_ = path;
        }
        r.sampleBytes = sample(path, indexInFile);
        return r;
    }
    void reset() final {
        loaded_.clear();
        unload();
        file_.forget();
    }

protected:
    // Which bytes load() looks at.
    virtual Framing framing() const = 0;
    // Parses the file's held bytes (valid until the next load); throws RunError naming path, or
    // NeedsWholeFile when it needs a byte that is not held.
    virtual void load(const std::string& path, const HeldBytes& bytes) = 0;
    // The payload bytes of sample k of the loaded file.
    virtual std::uint64_t sample(const std::string& path, std::uint64_t k) = 0;
    virtual void unload() {}

private:
    void loadWhole(const std::string& path, std::uint64_t& fromStorage) {
        const std::uint64_t size = file_.size();
        const unsigned char* p = file_.read(0, size, buf_, fromStorage);
        file_.close();
        load(path, HeldBytes{p, size, size, size});
    }

    FileAccess file_;
    AlignedBuffer buf_, scratch_;
    std::string loaded_;
    bool wholeFiles_ = false;
};

// npz and npy: numpy loads the whole file.
class WholeFileReader final : public WholeFileBase {
public:
    WholeFileReader(DataFormat format, IoBackend& io, const SampleReaderOptions& opts)
        : WholeFileBase(io, opts), format_(format) {}

private:
    // numpy's framing: the npy header at the start (v1 headers are at most 64 KiB; an npz's x.npy follows
    // its 30-byte local header and name), the zip directory at the end (end record, an archive comment of
    // at most 64 KiB, the central directory, ZIP64 records).
    Framing framing() const override {
        constexpr std::uint64_t kWindow = 128 * 1024;
        return Framing{false, kWindow, format_ == DataFormat::Npz ? kWindow : 0};
    }
    void load(const std::string& path, const HeldBytes& b) override {
        if (format_ == DataFormat::Npz) parseNpz(path, b);
        else parseNpy(path, b, 0, b.size);
    }
    std::uint64_t sample(const std::string& path, std::uint64_t indexInFile) override {
        if (indexInFile >= samples_)
            throw RunError("read " + path + ": sample " + std::to_string(indexInFile) + " out of range (the file holds " +
                           std::to_string(samples_) + ")");
        return sampleBytes_;
    }

    void parseNpy(const std::string& path, const HeldBytes& b, std::uint64_t at, std::uint64_t len) {
        const unsigned char* p = b.p;
        const std::uint64_t fileSize = b.size;
        // The header: magic, version and length, then the dict (parseNpyHeader reads no further).
        b.need(at, std::min<std::uint64_t>(len, 12));
        if (len >= 12) {
            const std::uint64_t hl = p[at + 6] == 1 ? 10 + (p[at + 8] | (std::uint64_t(p[at + 9]) << 8))
                                                    : 12 + (p[at + 8] | (std::uint64_t(p[at + 9]) << 8) |
                                                            (std::uint64_t(p[at + 10]) << 16) | (std::uint64_t(p[at + 11]) << 24));
            b.need(at, std::min(len, hl));
        }
        NpyInfo info;
        if (const char* e = parseNpyHeader(p + at, len, info); *e) parseError(path, e);
        const std::uint64_t want = info.dataOffset + info.dataBytes();
        if (want != len)
            parseError(path, "array header says " + std::to_string(want) + " bytes (shape and dtype) but the " +
                                 (format_ == DataFormat::Npz ? "x.npy entry" : "file") + " holds " + std::to_string(len) +
                                 (format_ == DataFormat::Npz ? "" : " (file size " + std::to_string(fileSize) + ")"));
        // DLIO indexes samples on the last axis: x[..., i].
        samples_ = info.ndim > 0 ? info.shape[info.ndim - 1] : 1;
        sampleBytes_ = samples_ > 0 ? info.dataBytes() / samples_ : 0;
    }

    void parseNpz(const std::string& path, const HeldBytes& b) {
        const unsigned char* p = b.p;
        const std::uint64_t size = b.size;
        if (size < 22) parseError(path, "too small for a zip archive");
        // End of central directory: the last 22 bytes unless an archive comment follows.
        std::uint64_t eocd = size - 22;
        const std::uint64_t lowest = size >= 22 + 65535 ? size - 22 - 65535 : 0;
        b.need(lowest, size - lowest);
        while (le32(p + eocd) != 0x06054b50) {
            if (eocd == lowest) parseError(path, "no zip end-of-central-directory record (not an npz?)");
            --eocd;
        }
        std::uint64_t count = le16(p + eocd + 10);
        std::uint64_t cdSize = le32(p + eocd + 12);
        std::uint64_t cdOffset = le32(p + eocd + 16);
        if (count == 0xFFFF || cdSize == 0xFFFFFFFF || cdOffset == 0xFFFFFFFF) {
            if (eocd >= 20) b.need(eocd - 20, 20);
            if (eocd < 20 || le32(p + eocd - 20) != 0x07064b50) parseError(path, "ZIP64 locator missing");
            const std::uint64_t z = le64(p + eocd - 20 + 8);
            b.need(z, 56);
            if (z > size || size - z < 56 || le32(p + z) != 0x06064b50) parseError(path, "bad ZIP64 end-of-central-directory");
            count = le64(p + z + 32);
            cdSize = le64(p + z + 40);
            cdOffset = le64(p + z + 48);
        }
        if (cdOffset > size || cdSize > size - cdOffset) parseError(path, "central directory beyond the end of the file");
        b.need(cdOffset, cdSize);
        std::uint64_t at = cdOffset;
        const std::uint64_t cdEnd = cdOffset + cdSize;
        for (std::uint64_t k = 0; k < count; ++k) {
            if (cdEnd - at < 46 || le32(p + at) != 0x02014b50) parseError(path, "malformed zip central directory");
            const unsigned method = le16(p + at + 10);
            std::uint64_t compSize = le32(p + at + 20);
            std::uint64_t rawSize = le32(p + at + 24);
            const std::uint64_t nameLen = le16(p + at + 28), extraLen = le16(p + at + 30), commentLen = le16(p + at + 32);
            std::uint64_t lh = le32(p + at + 42);
            if (cdEnd - at < 46 + nameLen + extraLen + commentLen) parseError(path, "malformed zip central directory");
            const unsigned char* name = p + at + 46;
            const bool isX = nameLen == 5 && std::memcmp(name, "x.npy", 5) == 0;
            if (isX) {
                // ZIP64 extended information: the 64-bit values of the fields set to 0xFFFFFFFF, in order.
                const unsigned char* e = name + nameLen;
                const unsigned char* eEnd = e + extraLen;
                while (eEnd - e >= 4) {
                    const unsigned id = le16(e), len = le16(e + 2);
                    if (static_cast<std::uint64_t>(eEnd - e - 4) < len) parseError(path, "malformed zip extra field");
                    if (id == 0x0001) {
                        const unsigned char* v = e + 4;
                        const unsigned char* vEnd = v + len;
                        auto take = [&](std::uint64_t& field) {
                            if (field != 0xFFFFFFFF) return;
                            if (vEnd - v < 8) parseError(path, "truncated ZIP64 extra field");
                            field = le64(v);
                            v += 8;
                        };
                        take(rawSize);
                        take(compSize);
                        take(lh);
                    }
                    e += 4 + len;
                }
                if (method != 0)
                    parseError(path, "x.npy is compressed (method " + std::to_string(method) +
                                         "); only stored npz (numpy.savez) is supported");
                if (compSize != rawSize) parseError(path, "stored x.npy has different compressed and raw sizes");
                b.need(lh, 30);
                if (lh > size || size - lh < 30 || le32(p + lh) != 0x04034b50) parseError(path, "bad zip local header for x.npy");
                const std::uint64_t data = lh + 30 + le16(p + lh + 26) + le16(p + lh + 28);
                if (data > size || compSize > size - data)
                    parseError(path, "x.npy (" + std::to_string(compSize) + " bytes at offset " + std::to_string(data) +
                                         ") extends beyond the end of the file (" + std::to_string(size) + " bytes)");
                parseNpy(path, b, data, compSize);
                return;
            }
            at += 46 + nameLen + extraLen + commentLen;
        }
        parseError(path, "no x.npy entry in the archive");
    }

    DataFormat format_;
    std::uint64_t samples_ = 0;
    std::uint64_t sampleBytes_ = 0;
};

class TfRecordReader final : public SampleReader {
public:
    TfRecordReader(IoBackend& io, const SampleReaderOptions& opts) : file_(io, opts), verify_(opts.verifyChecksums) {}

    SampleReadResult read(const std::string& path, std::uint64_t k) override {
        SampleReadResult r;
        if (!file_.isOpen(path)) openFile(path, r.bytesFromStorage);
        std::uint64_t offset, framed;
        if (fromIndex_) {
            if (k >= offsets_.size())
                parseError(path, "record " + std::to_string(k) + " requested but the index lists " +
                                     std::to_string(offsets_.size()));
        } else {
            while (offsets_.size() <= k) walkOne(k, r.bytesFromStorage);
        }
        offset = offsets_[k];
        framed = lengths_[k];
        if (framed < kTfRecordHeaderBytes + kTfRecordFooterBytes) parseError(path, "record " + std::to_string(k) + " too short");
        const unsigned char* p = file_.read(offset, framed, buf_, r.bytesFromStorage);
        const std::uint64_t dataLen = le64(p);
        if (dataLen != framed - kTfRecordHeaderBytes - kTfRecordFooterBytes)
            parseError(path, "record " + std::to_string(k) + " length " + std::to_string(dataLen) +
                                 " does not match the index (" + std::to_string(framed) + " framed bytes)");
        if (verify_) {
            if (maskCrc(crc32c(p, 8)) != le32(p + 8)) parseError(path, "record " + std::to_string(k) + " length CRC mismatch");
            if (maskCrc(crc32c(p + kTfRecordHeaderBytes, dataLen)) != le32(p + kTfRecordHeaderBytes + dataLen))
                parseError(path, "record " + std::to_string(k) + " data CRC mismatch");
        }
        std::uint64_t image = 0;
        if (const char* e = parseTfExampleImage(p + kTfRecordHeaderBytes, dataLen, image); *e)
            parseError(path, "record " + std::to_string(k) + ": " + e);
        r.sampleBytes = image;
        return r;
    }
    void reset() override {
        file_.forget();
        offsets_.clear();
        lengths_.clear();
    }

private:
    void openFile(const std::string& path, std::uint64_t& fromStorage) {
        offsets_.clear();
        lengths_.clear();
        fromIndex_ = false;
        file_.open(path);
        if (indexPathFor(path)) {
            std::uint64_t len = 0;
            if (file_.readSideFile(indexPath_, idxBuf_, len, fromStorage)) {
                parseIndex(len);
                fromIndex_ = true;
            }
        }
    }
    // DLIO: <data_folder>/index/<train|valid>/<file>.idx, the file being <data_folder>/<split>/[<sub>/]<file>.
    bool indexPathFor(const std::string& path) {
        const auto slash = path.rfind('/');
        if (slash == std::string::npos) return false;
        auto dirName = [&](std::size_t end, std::size_t& begin) {
            const auto s = end == 0 ? std::string::npos : path.rfind('/', end - 1);
            begin = s == std::string::npos ? 0 : s + 1;
            return std::string_view(path).substr(begin, end - begin);
        };
        std::size_t b1, b2;
        std::string_view d1 = dirName(slash, b1);
        std::string_view split = d1;
        std::size_t rootEnd = b1;
        if (d1 != "train" && d1 != "valid") {
            if (b1 == 0) return false;
            std::string_view d2 = dirName(b1 - 1, b2);
            if (d2 != "train" && d2 != "valid") return false;
            split = d2;
            rootEnd = b2;
        }
        indexPath_.assign(path, 0, rootEnd);
        indexPath_ += "index/";
        indexPath_ += split;
        indexPath_.append(path, slash, std::string::npos);
        indexPath_ += ".idx";
        return true;
    }
    void parseIndex(std::uint64_t len) {
        const char* s = reinterpret_cast<const char*>(idxBuf_.data());
        const char* end = s + len;
        auto number = [&](std::uint64_t& v) {
            while (s < end && (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')) ++s;
            if (s >= end || *s < '0' || *s > '9') return false;
            v = 0;
            while (s < end && *s >= '0' && *s <= '9') v = v * 10 + static_cast<std::uint64_t>(*s++ - '0');
            return true;
        };
        std::uint64_t off, n;
        while (number(off)) {
            if (!number(n)) parseError(indexPath_, "line " + std::to_string(offsets_.size() + 1) + ": expected \"<offset> <length>\"");
            if (off > file_.size() || n > file_.size() - off)
                parseError(indexPath_, "record " + std::to_string(offsets_.size()) + " (" + std::to_string(off) + "+" +
                                           std::to_string(n) + ") beyond the end of " + file_.path());
            offsets_.push_back(off);
            lengths_.push_back(n);
        }
        while (s < end && (*s == ' ' || *s == '\r' || *s == '\n')) ++s;
        if (s != end) parseError(indexPath_, "unexpected text after record " + std::to_string(offsets_.size()));
    }
    void walkOne(std::uint64_t wanted, std::uint64_t& fromStorage) {
        const std::uint64_t at = offsets_.empty() ? 0 : offsets_.back() + lengths_.back();
        if (at >= file_.size())
            parseError(file_.path(), "record " + std::to_string(wanted) + " requested but the file holds " +
                                         std::to_string(offsets_.size()));
        if (file_.size() - at < kTfRecordHeaderBytes)
            parseError(file_.path(), "truncated record header at offset " + std::to_string(at));
        const unsigned char* p = file_.read(at, kTfRecordHeaderBytes, hdrBuf_, fromStorage);
        if (verify_ && maskCrc(crc32c(p, 8)) != le32(p + 8))
            parseError(file_.path(), "record " + std::to_string(offsets_.size()) + " length CRC mismatch");
        const std::uint64_t dataLen = le64(p);
        const std::uint64_t left = file_.size() - at - kTfRecordHeaderBytes;
        if (left < kTfRecordFooterBytes || dataLen > left - kTfRecordFooterBytes)
            parseError(file_.path(), "record " + std::to_string(offsets_.size()) + " length " + std::to_string(dataLen) +
                                         " runs past the end of the file");
        offsets_.push_back(at);
        lengths_.push_back(dataLen + kTfRecordHeaderBytes + kTfRecordFooterBytes);
    }

    FileAccess file_;
    bool verify_;
    bool fromIndex_ = false;
    std::vector<std::uint64_t> offsets_, lengths_;
    std::string indexPath_;
    AlignedBuffer buf_, hdrBuf_, idxBuf_;
};

// indexed_binary (offsets and sizes from <file>.off.idx / <file>.sz.idx) and raw (equal records).
class RecordReader final : public SampleReader {
public:
    RecordReader(DataFormat format, IoBackend& io, const SampleReaderOptions& opts)
        : format_(format), file_(io, opts), samplesPerFile_(std::max<std::uint64_t>(opts.samplesPerFile, 1)) {}

    SampleReadResult read(const std::string& path, std::uint64_t k) override {
        SampleReadResult r;
        if (!file_.isOpen(path)) openFile(path, r.bytesFromStorage);
        if (k >= offsets_.size())
            throw RunError("read " + path + ": sample " + std::to_string(k) + " out of range (the file holds " +
                           std::to_string(offsets_.size()) + ")");
        file_.read(offsets_[k], sizes_[k], buf_, r.bytesFromStorage);
        r.sampleBytes = sizes_[k];
        return r;
    }
    void reset() override {
        file_.forget();
        offsets_.clear();
        sizes_.clear();
    }

private:
    void openFile(const std::string& path, std::uint64_t& fromStorage) {
        offsets_.clear();
        sizes_.clear();
        file_.open(path);
        const std::uint64_t size = file_.size();
        if (format_ == DataFormat::Raw) {
            if (size % samplesPerFile_ != 0)
                parseError(path, "size " + std::to_string(size) + " is not a multiple of " + std::to_string(samplesPerFile_) +
                                     " samples per file");
            const std::uint64_t each = size / samplesPerFile_;
            for (std::uint64_t k = 0; k < samplesPerFile_; ++k) {
                offsets_.push_back(k * each);
                sizes_.push_back(each);
            }
            return;
        }
        loadArray(path, ".off.idx", offsets_, fromStorage);
        loadArray(path, ".sz.idx", sizes_, fromStorage);
        if (offsets_.size() != sizes_.size()) parseError(path, "offset and size index files differ in length");
        for (std::size_t k = 0; k < offsets_.size(); ++k)
            if (offsets_[k] > size || sizes_[k] > size - offsets_[k])
                parseError(path, "sample " + std::to_string(k) + " (" + std::to_string(offsets_[k]) + "+" +
                                     std::to_string(sizes_[k]) + ") beyond the end of the file");
    }
    void loadArray(const std::string& path, const char* suffix, std::vector<std::uint64_t>& out, std::uint64_t& fromStorage) {
        sidePath_ = path;
        sidePath_ += suffix;
        std::uint64_t len = 0;
        if (!file_.readSideFile(sidePath_, sideBuf_, len, fromStorage))
            throw RunError("open " + sidePath_ + ": " + errnoText(ENOENT) + " (indexed_binary needs its index files)");
        if (len % 8 != 0) parseError(sidePath_, "length " + std::to_string(len) + " is not a multiple of 8");
        for (std::uint64_t k = 0; k < len; k += 8) out.push_back(le64(sideBuf_.data() + k));
    }

    DataFormat format_;
    FileAccess file_;
    std::uint64_t samplesPerFile_;
    std::vector<std::uint64_t> offsets_, sizes_;
    std::string sidePath_;
    AlignedBuffer buf_, sideBuf_;
};

// jpeg and png (and hdf5 without decoding): the whole file is read through the IoBackend, then fully
// decoded, as DLIO's
// ImageReader does (upstream dlio_benchmark/reader/image_reader.py, open():
// np.asarray(Image.open(filename)); get_sample(): image_size = image.nbytes). One decode per file
// open; further samples of the same file reuse it, as DLIO's open_file_map does.
class ImageFileReader final : public WholeFileBase {
public:
    ImageFileReader(DataFormat format, IoBackend& io, const SampleReaderOptions& opts)
        : WholeFileBase(io, opts), format_(format), decode_(opts.decodeSamples) {}

private:
    // The fork's count-only reader looks at no byte; a decoder at every one.
    Framing framing() const override { return decode_ ? Framing{} : Framing{false, 0, 0}; }
    void load(const std::string& path, const HeldBytes& b) override {
        if (!decode_) {
            imageBytes_ = b.size; // the fork's reader (SampleReaderOptions::decodeSamples) counts file bytes
            return;
        }
        DecodedImage image;
        if (!decoder_.decode(format_, b.p, static_cast<std::size_t>(b.size), image, error_))
            parseError(path, error_ + " (a " + toString(format_) + " file)");
        imageBytes_ = image.bytes();
    }
    // DLIO's image reader returns the file's one image for any sample index.
    std::uint64_t sample(const std::string&, std::uint64_t) override { return imageBytes_; }

    DataFormat format_;
    bool decode_;
    ImageDecoder decoder_;
    std::string error_;
    std::uint64_t imageBytes_ = 0;
};

// hdf5: h5py's reads (metadata, then the records_0[k] slice: upstream dlio_benchmark/reader/
// hdf5_reader.py get_sample reads open_file_map[filename]['records_0'][sample_index]) through the
// IoBackend. The file stays open while consecutive samples come from it.
class Hdf5FileReader final : public SampleReader {
public:
    Hdf5FileReader(IoBackend& io, const SampleReaderOptions& opts) : io_(io), opts_(opts) {}

    SampleReadResult read(const std::string& path, std::uint64_t indexInFile) override {
        SampleReadResult r;
        try {
            if (loaded_.empty() || loaded_ != path) {
                loaded_.clear();
                h5_.open(io_, path, opts_.transferSize, opts_.odirect);
                loaded_ = path;
            }
            r.sampleBytes = h5_.readSample(indexInFile);
        } catch (...) {
            h5_.takeBytesRead();
            throw;
        }
        r.bytesFromStorage = h5_.takeBytesRead();
        return r;
    }
    void reset() override {
        loaded_.clear();
        h5_.close();
    }

private:
    IoBackend& io_;
    SampleReaderOptions opts_;
    Hdf5Reader h5_;
    std::string loaded_;
};

} // namespace

std::unique_ptr<SampleReader> makeSampleReader(DataFormat format, IoBackend& io, const SampleReaderOptions& options) {
    switch (format) {
    case DataFormat::Npz:
    case DataFormat::Npy: return std::make_unique<WholeFileReader>(format, io, options);
    case DataFormat::Tfrecord: return std::make_unique<TfRecordReader>(io, options);
    case DataFormat::IndexedBinary:
    case DataFormat::Raw: return std::make_unique<RecordReader>(format, io, options);
    case DataFormat::Jpeg:
    case DataFormat::Png: return std::make_unique<ImageFileReader>(format, io, options);
    case DataFormat::Hdf5:
        // The v3.0 fork's HDF5 reader only counts the file's bytes, like its image reader.
        if (!options.decodeSamples) return std::make_unique<ImageFileReader>(format, io, options);
        return std::make_unique<Hdf5FileReader>(io, options);
    }
    throw InputError(std::string("format ") + toString(format) + ": not supported by this build");
}

} // namespace trainio
