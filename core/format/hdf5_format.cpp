#include "format/hdf5_format.h"

#include "util/errors.h"
#include "util/prng.h"

#include <hdf5.h>

#include <algorithm>
#include <limits>
#include <new>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <type_traits>

namespace trainio {
namespace {

static_assert(std::is_same_v<hid_t, std::int64_t>, "hid_t is stored as std::int64_t in hdf5_format.h");

constexpr std::uint64_t kSlabBytes = 4u << 20;

// HDF5 prints its error stack to stderr unless told not to; the setting is per thread in a thread-safe
// build, so every entry point says it again.
void quietErrors() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

herr_t firstError(unsigned n, const H5E_error2_t* e, void* out) {
    if (n == 0 && e && e->desc) *static_cast<std::string*>(out) = e->desc;
    return 0;
}

// The innermost description on the current error stack ("file signature not found", …).
std::string hdf5Message() {
    std::string msg;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, firstError, &msg);
    return msg.empty() ? "HDF5 error" : msg;
}

// Closes HDF5 identifiers on every path out of a function.
class Handles {
public:
    ~Handles() {
        for (auto it = ids_.rbegin(); it != ids_.rend(); ++it) it->second(it->first);
    }
    hid_t add(hid_t id, herr_t (*closer)(hid_t)) {
        if (id >= 0) ids_.emplace_back(id, closer);
        return id;
    }

private:
    std::vector<std::pair<hid_t, herr_t (*)(hid_t)>> ids_;
};

[[noreturn]] void fail(const std::string& path, const char* what) {
    throw RunError("create " + path + ": HDF5 " + what + ": " + hdf5Message());
}

// The core driver allocates, grows and frees the file's memory through these callbacks; the buffer
// it grew for the file is kept at close instead of freed. It is larger than the file (it grows by
// the increment); the superblock says where the file ends.
struct ImageCapture {
    void* buffer = nullptr;
    std::size_t size = 0;
    void* kept = nullptr;
    std::size_t keptSize = 0;
};

void* imageMalloc(size_t size, H5FD_file_image_op_t op, void* udata) {
    auto* c = static_cast<ImageCapture*>(udata);
    void* p = std::malloc(size ? size : 1);
    if (p && op == H5FD_FILE_IMAGE_OP_FILE_RESIZE) {
        c->buffer = p;
        c->size = size;
    }
    return p;
}
void* imageMemcpy(void* dest, const void* src, size_t size, H5FD_file_image_op_t, void*) {
    return std::memcpy(dest, src, size);
}
void* imageRealloc(void* ptr, size_t size, H5FD_file_image_op_t op, void* udata) {
    auto* c = static_cast<ImageCapture*>(udata);
    void* p = std::realloc(ptr, size ? size : 1);
    if (p && op == H5FD_FILE_IMAGE_OP_FILE_RESIZE) {
        c->buffer = p;
        c->size = size;
    }
    return p;
}
herr_t imageFree(void* ptr, H5FD_file_image_op_t op, void* udata) {
    auto* c = static_cast<ImageCapture*>(udata);
    if (op == H5FD_FILE_IMAGE_OP_FILE_CLOSE && ptr == c->buffer && !c->kept) {
        c->kept = ptr;
        c->keptSize = c->size;
        return 0;
    }
    std::free(ptr);
    return 0;
}
void* udataCopy(void* udata) { return udata; } // shared: the capture outlives every copy of the fapl
herr_t udataFree(void*) { return 0; }

bool fillHdf5(const DataFileSpec& spec, const std::string& path, const WriteControl& control, hid_t file) {
    Handles h;
    const hsize_t dims[3] = {spec.samples, spec.d1, spec.d2};
    const hid_t space = h.add(H5Screate_simple(3, dims, nullptr), H5Sclose);
    const hid_t records = h.add(H5Dcreate2(file, kHdf5RecordsDataset, H5T_STD_U8LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                                H5Dclose);
    if (space < 0 || records < 0) fail(path, "records_0 dataset");

    // Random content in slabs of whole rows, so a 150 MB record never sits in a second buffer.
    const std::uint64_t rowsPerSlab = std::max<std::uint64_t>(1, kSlabBytes / std::max<std::uint64_t>(spec.d2, 1));
    std::vector<unsigned char> slab(static_cast<std::size_t>(std::min(rowsPerSlab, spec.d1) * spec.d2));
    Xoshiro256StarStar rng(spec.contentSeed);
    std::uint64_t unreported = 0;
    for (std::uint64_t k = 0; k < spec.samples; ++k) {
        for (std::uint64_t r = 0; r < spec.d1; r += rowsPerSlab) {
            if (control.cancel && control.cancel->load(std::memory_order_relaxed)) return false;
            const std::uint64_t rows = std::min(rowsPerSlab, spec.d1 - r);
            const hsize_t start[3] = {k, r, 0};
            const hsize_t count[3] = {1, rows, spec.d2};
            const hsize_t flat = rows * spec.d2;
            Handles s;
            const hid_t mem = s.add(H5Screate_simple(1, &flat, nullptr), H5Sclose);
            rng.fill(slab.data(), static_cast<std::size_t>(flat));
            if (mem < 0 || H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr) < 0 ||
                H5Dwrite(records, H5T_NATIVE_UCHAR, mem, space, H5P_DEFAULT, slab.data()) < 0)
                fail(path, "records_0 write");
            unreported += flat;
            if (control.onBytes && unreported >= kSlabBytes) {
                control.onBytes(unreported);
                unreported = 0;
            }
        }
    }
    if (control.onBytes && unreported > 0) control.onBytes(unreported);

    // labels: h5py stores the Python list [0] * num_samples as int64.
    const hsize_t n = spec.samples;
    const hid_t lspace = h.add(H5Screate_simple(1, &n, nullptr), H5Sclose);
    const hid_t labels = h.add(H5Dcreate2(file, kHdf5LabelsDataset, H5T_STD_I64LE, lspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                               H5Dclose);
    const std::vector<std::int64_t> zeros(static_cast<std::size_t>(spec.samples), 0);
    if (lspace < 0 || labels < 0 || H5Dwrite(labels, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, zeros.data()) < 0)
        fail(path, "labels dataset");

    return true;
}

} // namespace

Hdf5Bytes::~Hdf5Bytes() { std::free(data_); }

void Hdf5Bytes::adopt(void* data, std::uint64_t size) {
    std::free(data_);
    data_ = static_cast<unsigned char*>(data);
    size_ = size;
}

bool buildHdf5Image(const DataFileSpec& spec, const std::string& path, const WriteControl& control, Hdf5Bytes& image) {
    quietErrors();
    const std::uint64_t recordsBytes = spec.sampleBytes() * spec.samples;
    ImageCapture capture;
    Handles h;
    const hid_t fapl = h.add(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    H5FD_file_image_callbacks_t callbacks = {imageMalloc, imageMemcpy, imageRealloc, imageFree, udataCopy, udataFree, &capture};
    // One allocation of about the final size; no backing store: the image is written through the IoBackend.
    if (fapl < 0 || H5Pset_fapl_core(fapl, static_cast<size_t>(std::max<std::uint64_t>(recordsBytes + 65536, 1u << 20)), 0) < 0 ||
        H5Pset_file_image_callbacks(fapl, &callbacks) < 0 ||
        H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST) < 0) // h5py libver='latest'
        fail(path, "file access properties");
    // The core driver reads an existing file of that name into memory first (even with H5F_ACC_TRUNC
    // and no backing store), so the name is one that cannot exist, and unique: threads build
    // files concurrently.
    static std::atomic<std::uint64_t> serial{0};
    const std::string name = "/proc/self/trainio-hdf5-image-" + std::to_string(serial.fetch_add(1));
    hid_t file = H5Fcreate(name.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (file < 0) fail(path, "file creation");
    try {
        if (!fillHdf5(spec, path, control, file)) {
            H5Fclose(file);
            std::free(capture.kept);
            return false;
        }
    } catch (...) {
        H5Fclose(file);
        std::free(capture.kept);
        throw;
    }
    if (H5Fclose(file) < 0 || !capture.kept) {
        std::free(capture.kept);
        fail(path, "file close");
    }
    // The core driver's buffer may be larger than the file: the file ends at the superblock's
    // "end of file address" (superblock version 2/3, which libver='latest' writes: signature 8,
    // version/sizes/flags 4, base address 8, extension address 8, then the end-of-file address).
    const auto* sb = static_cast<const unsigned char*>(capture.kept);
    std::uint64_t eof = 0;
    if (capture.keptSize >= 48 && std::memcmp(sb, "\x89HDF\r\n\x1a\n", 8) == 0 && sb[8] >= 2)
        for (int b = 7; b >= 0; --b) eof = (eof << 8) | sb[28 + b];
    if (eof == 0 || eof > capture.keptSize) {
        std::free(capture.kept);
        throw RunError("create " + path + ": HDF5 wrote an unexpected superblock (end of file " + std::to_string(eof) +
                       ", image " + std::to_string(capture.keptSize) + " bytes)");
    }
    image.adopt(capture.kept, eof);
    return true;
}

std::uint64_t hdf5FileSize(const DataFileSpec& spec) {
    // HDF5 places raw data under 2 KiB in its small-data block (and metadata in 2 KiB blocks), so small
    // files are built for real; beyond that the metadata does not depend on the record's size.
    constexpr std::uint64_t kDirectBelow = 1u << 20;
    static std::mutex mutex;
    static std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t> smallSizes; // (samples, sample bytes)
    static std::map<std::uint64_t, std::uint64_t> overheadBySamples;
    Hdf5Bytes image;
    const WriteControl none;
    std::lock_guard lock(mutex);
    if (spec.sampleBytes() * spec.samples < kDirectBelow) {
        const auto key = std::make_pair(spec.samples, spec.sampleBytes());
        if (auto s = smallSizes.find(key); s != smallSizes.end()) return s->second;
        buildHdf5Image(spec, "size-probe-" + std::to_string(spec.d1) + "x" + std::to_string(spec.d2) + "x" +
                                 std::to_string(spec.samples),
                       none, image);
        smallSizes.emplace(key, image.size());
        return image.size();
    }
    auto it = overheadBySamples.find(spec.samples);
    if (it == overheadBySamples.end()) {
        DataFileSpec probe = spec;
        probe.d1 = 1;
        probe.d2 = (kDirectBelow + spec.samples - 1) / spec.samples; // at least kDirectBelow bytes of records
        buildHdf5Image(probe, "size-probe-" + std::to_string(spec.samples), none, image);
        it = overheadBySamples.emplace(spec.samples, image.size() - probe.sampleBytes() * probe.samples).first;
    }
    return it->second + spec.sampleBytes() * spec.samples;
}

// ---- reading: a read-only virtual file driver over the IoBackend ----------------------------------
namespace {

struct IoDriverInfo {
    IoBackend* io = nullptr;
    int handle = -1;
    std::uint64_t size = 0;
    std::uint64_t chunk = 262144;
    bool odirect = false;
    std::uint64_t* bytesRead = nullptr;
    int* failedErrno = nullptr;
    std::uint64_t* failedOffset = nullptr;
};

struct IoFile {
    H5FD_t pub; // first: HDF5 treats an IoFile* as an H5FD_t*
    IoDriverInfo info;
    haddr_t eoa = 0;
    AlignedBuffer bounce; // O_DIRECT: aligned reads, then copied out
};

void* infoCopy(const void* p) {
    auto* c = static_cast<IoDriverInfo*>(std::malloc(sizeof(IoDriverInfo)));
    if (c) std::memcpy(static_cast<void*>(c), p, sizeof(IoDriverInfo));
    return c;
}
herr_t infoFree(void* p) {
    std::free(p);
    return 0;
}
void* infoGet(H5FD_t* f) { return infoCopy(&reinterpret_cast<IoFile*>(f)->info); }

H5FD_t* ioOpen(const char*, unsigned flags, hid_t fapl, haddr_t) {
    if (flags & (H5F_ACC_RDWR | H5F_ACC_TRUNC | H5F_ACC_CREAT)) return nullptr; // read-only driver
    const auto* info = static_cast<const IoDriverInfo*>(H5Pget_driver_info(fapl));
    if (!info) return nullptr;
    auto* f = new (std::nothrow) IoFile{};
    if (!f) return nullptr;
    f->info = *info;
    return &f->pub;
}
herr_t ioClose(H5FD_t* f) {
    delete reinterpret_cast<IoFile*>(f); // the handle belongs to the Hdf5Reader
    return 0;
}
int ioCmp(const H5FD_t* a, const H5FD_t* b) {
    const auto& x = reinterpret_cast<const IoFile*>(a)->info;
    const auto& y = reinterpret_cast<const IoFile*>(b)->info;
    if (x.io != y.io) return x.io < y.io ? -1 : 1;
    return x.handle < y.handle ? -1 : x.handle > y.handle ? 1 : 0;
}
herr_t ioQuery(const H5FD_t*, unsigned long* flags) {
    // The sec2 driver's features (H5FDsec2.c, H5FD__sec2_query), so HDF5 issues the reads it would
    // issue to a POSIX file under h5py.
    *flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_ACCUMULATE_METADATA | H5FD_FEAT_DATA_SIEVE |
             H5FD_FEAT_AGGREGATE_SMALLDATA;
    return 0;
}
haddr_t ioGetEoa(const H5FD_t* f, H5FD_mem_t) { return reinterpret_cast<const IoFile*>(f)->eoa; }
herr_t ioSetEoa(H5FD_t* f, H5FD_mem_t, haddr_t addr) {
    reinterpret_cast<IoFile*>(f)->eoa = addr;
    return 0;
}
haddr_t ioGetEof(const H5FD_t* f, H5FD_mem_t) { return reinterpret_cast<const IoFile*>(f)->info.size; }
herr_t ioGetHandle(H5FD_t* f, hid_t, void** handle) {
    *handle = &reinterpret_cast<IoFile*>(f)->info.handle;
    return 0;
}
herr_t ioRead(H5FD_t* file, H5FD_mem_t, hid_t, haddr_t addr, size_t size, void* buffer) {
    auto* f = reinterpret_cast<IoFile*>(file);
    const IoDriverInfo& in = f->info;
    auto* out = static_cast<unsigned char*>(buffer);
    // As sec2: bytes past the end of the file read as zeros.
    const std::uint64_t avail = addr >= in.size ? 0 : std::min<std::uint64_t>(size, in.size - addr);
    std::uint64_t start = addr, span = avail;
    unsigned char* dst = out;
    if (in.odirect && avail > 0) {
        const std::uint64_t a = AlignedBuffer::kAlignment;
        start = addr / a * a;
        span = (addr + avail + a - 1) / a * a - start;
        f->bounce.reserve(static_cast<std::size_t>(span));
        dst = f->bounce.data();
    }
    std::uint64_t done = 0;
    while (done < span) {
        const std::uint64_t want = std::min<std::uint64_t>(in.chunk, span - done);
        const ssize_t n = readFully(*in.io, in.handle, dst + done, static_cast<std::size_t>(want), start + done,
                                    static_cast<std::size_t>(want));
        if (n < 0) {
            *in.failedErrno = static_cast<int>(-n);
            *in.failedOffset = start + done;
            return -1;
        }
        done += static_cast<std::uint64_t>(n);
        if (static_cast<std::uint64_t>(n) < want) break;
    }
    *in.bytesRead += done;
    if (done < addr - start + avail) {
        *in.failedErrno = EIO;
        *in.failedOffset = start + done;
        return -1;
    }
    if (dst != out) std::memcpy(out, dst + (addr - start), static_cast<std::size_t>(avail));
    if (avail < size) std::memset(out + avail, 0, size - static_cast<std::size_t>(avail));
    return 0;
}
herr_t ioWrite(H5FD_t*, H5FD_mem_t, hid_t, haddr_t, size_t, const void*) { return -1; }
herr_t ioFlush(H5FD_t*, hid_t, hbool_t) { return 0; }
herr_t ioTruncate(H5FD_t*, hid_t, hbool_t) { return 0; }

hid_t ioDriver() {
    static hid_t id = [] {
        static H5FD_class_t cls = {
            "trainio_io", static_cast<haddr_t>(std::numeric_limits<std::int64_t>::max()), H5F_CLOSE_WEAK,
            nullptr, nullptr, nullptr, nullptr,                       // terminate, superblock hooks
            sizeof(IoDriverInfo), infoGet, infoCopy, infoFree,      // fapl
            0, nullptr, nullptr,                                    // dxpl
            ioOpen, ioClose, ioCmp, ioQuery, nullptr, nullptr, nullptr, ioGetEoa, ioSetEoa, ioGetEof, ioGetHandle,
            ioRead, ioWrite, ioFlush, ioTruncate, nullptr, nullptr, H5FD_FLMAP_DICHOTOMY};
        return H5FDregister(&cls);
    }();
    return id;
}

} // namespace

Hdf5Reader::Hdf5Reader() = default;
Hdf5Reader::~Hdf5Reader() { close(); }

void Hdf5Reader::close() {
    if (dataset_ >= 0) H5Dclose(dataset_);
    if (file_ >= 0) H5Fclose(file_);
    if (handle_ >= 0) io_->close(handle_);
    dataset_ = file_ = -1;
    handle_ = -1;
    samples_ = 0;
}

std::uint64_t Hdf5Reader::takeBytesRead() {
    const std::uint64_t n = bytesRead_;
    bytesRead_ = 0;
    return n;
}

void Hdf5Reader::fail(const std::string& what) {
    const int e = failedErrno_;
    const std::uint64_t off = failedOffset_;
    failedErrno_ = 0;
    if (e != 0) throw RunError("read " + path_ + " at offset " + std::to_string(off) + ": " + errnoText(e));
    throw RunError("parse " + path_ + ": " + what + " (" + hdf5Message() + ")");
}

void Hdf5Reader::open(IoBackend& io, const std::string& path, std::uint64_t transferSize, bool odirect) {
    close();
    quietErrors();
    io_ = &io;
    path_ = path;
    failedErrno_ = 0;
    const int h = io.open(path, OpenOptions{false, odirect});
    if (h < 0) throw RunError("open " + path + ": " + errnoText(-h));
    handle_ = h;
    const std::int64_t size = io.size(h);
    if (size < 0) throw RunError("stat " + path + ": " + errnoText(static_cast<int>(-size)));
    size_ = static_cast<std::uint64_t>(size);
    IoDriverInfo info;
    info.io = &io;
    info.handle = h;
    info.size = static_cast<std::uint64_t>(size);
    info.chunk = std::max<std::uint64_t>(transferSize, 1);
    if (odirect) // every O_DIRECT pread must stay aligned, as in FileAccess (sample_reader.cpp)
        info.chunk = (info.chunk + AlignedBuffer::kAlignment - 1) / AlignedBuffer::kAlignment * AlignedBuffer::kAlignment;
    info.odirect = odirect;
    info.bytesRead = &bytesRead_;
    info.failedErrno = &failedErrno_;
    info.failedOffset = &failedOffset_;
    Handles hs;
    const hid_t fapl = hs.add(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    if (fapl < 0 || H5Pset_driver(fapl, ioDriver(), &info) < 0) fail("cannot set up the HDF5 file driver");
    file_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl);
    if (file_ < 0) fail("not an HDF5 file");
    dataset_ = H5Dopen2(file_, kHdf5RecordsDataset, H5P_DEFAULT);
    if (dataset_ < 0) fail(std::string("no dataset \"") + kHdf5RecordsDataset + "\" (DLIO's HDF5 reader reads records_0)");
    const hid_t space = hs.add(H5Dget_space(dataset_), H5Sclose);
    const int rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
    const hid_t type = hs.add(H5Dget_type(dataset_), H5Tclose);
    const hid_t native = type >= 0 ? hs.add(H5Tget_native_type(type, H5T_DIR_ASCEND), H5Tclose) : -1;
    if (rank < 1 || rank > 8 || native < 0) fail("records_0 has no readable shape or type");
    hsize_t dims[8] = {};
    H5Sget_simple_extent_dims(space, dims, nullptr);
    rank_ = static_cast<std::uint64_t>(rank);
    samples_ = dims[0];
    sampleElements_ = 1;
    elementSize_ = H5Tget_size(native);
    // A damaged header must not make the reader allocate a made-up size: a contiguous (unfiltered)
    // records_0 lies inside the file; a chunked one may be compressed, but its sample stays bounded.
    constexpr std::uint64_t kMaxSampleBytes = 64ull << 30;
    std::uint64_t total = samples_ * elementSize_;
    bool overflow = elementSize_ == 0 || (samples_ != 0 && total / samples_ != elementSize_);
    for (int d = 1; d < rank && !overflow; ++d) {
        if (dims[d] != 0 && sampleElements_ > kMaxSampleBytes / dims[d]) overflow = true;
        sampleElements_ *= dims[d];
        if (dims[d] != 0 && total > std::numeric_limits<std::uint64_t>::max() / dims[d]) overflow = true;
        total *= dims[d];
    }
    const hid_t dcpl = hs.add(H5Dget_create_plist(dataset_), H5Pclose);
    const bool contiguous = dcpl >= 0 && H5Pget_layout(dcpl) == H5D_CONTIGUOUS;
    if (overflow || sampleElements_ * elementSize_ > kMaxSampleBytes || (contiguous && total > size_))
        fail("records_0's shape (" + std::to_string(samples_) + " samples, element size " + std::to_string(elementSize_) +
             ") does not fit the file (" + std::to_string(size_) + " bytes)");
}

std::uint64_t Hdf5Reader::readSample(std::uint64_t k) {
    if (k >= samples_)
        throw RunError("read " + path_ + ": sample " + std::to_string(k) + " out of range (records_0 holds " +
                       std::to_string(samples_) + ")");
    quietErrors();
    const std::uint64_t bytes = sampleElements_ * elementSize_;
    sample_.reserve(static_cast<std::size_t>(std::max<std::uint64_t>(bytes, 1)));
    Handles h;
    const hid_t space = h.add(H5Dget_space(dataset_), H5Sclose);
    const hid_t type = h.add(H5Dget_type(dataset_), H5Tclose);
    const hid_t native = h.add(H5Tget_native_type(type, H5T_DIR_ASCEND), H5Tclose);
    hsize_t start[8] = {k}, count[8] = {1};
    hsize_t dims[8] = {};
    H5Sget_simple_extent_dims(space, dims, nullptr);
    for (std::uint64_t d = 1; d < rank_; ++d) count[d] = dims[d];
    const hsize_t flat = sampleElements_;
    const hid_t mem = h.add(H5Screate_simple(1, &flat, nullptr), H5Sclose);
    if (mem < 0 || H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr) < 0 ||
        H5Dread(dataset_, native, mem, space, H5P_DEFAULT, sample_.data()) < 0)
        fail("records_0[" + std::to_string(k) + "] cannot be read");
    return bytes;
}

std::int64_t hdf5OpenObjects() {
    // Open files and the objects in them (datasets, groups, committed types, attributes), plus dataspaces,
    // which belong to no file. Transient datatypes and property lists are left out: the library's own
    // predefined ones are counted there too.
    std::int64_t n = static_cast<std::int64_t>(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL));
    hsize_t spaces = 0;
    if (H5Inmembers(H5I_DATASPACE, &spaces) >= 0) n += static_cast<std::int64_t>(spaces);
    return n;
}

} // namespace trainio

