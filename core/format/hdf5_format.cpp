#include "format/hdf5_format.h"

#include "util/errors.h"
#include "util/prng.h"

#include <hdf5.h>
#include <hdf5_hl.h>

#include <algorithm>
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

Hdf5ImageReader::~Hdf5ImageReader() { close(); }

void Hdf5ImageReader::close() {
    if (dataset_ >= 0) H5Dclose(dataset_);
    if (file_ >= 0) H5Fclose(file_);
    dataset_ = file_ = -1;
    samples_ = 0;
}

void Hdf5ImageReader::open(const std::string& path, const unsigned char* data, std::uint64_t size) {
    close();
    quietErrors();
    path_ = path;
    // DONT_COPY | DONT_RELEASE: HDF5 reads the caller's bytes in place, read-only.
    file_ = H5LTopen_file_image(const_cast<unsigned char*>(data), static_cast<size_t>(size),
                                H5LT_FILE_IMAGE_DONT_COPY | H5LT_FILE_IMAGE_DONT_RELEASE);
    if (file_ < 0) throw RunError("parse " + path + ": not an HDF5 file (" + hdf5Message() + ")");
    dataset_ = H5Dopen2(file_, kHdf5RecordsDataset, H5P_DEFAULT);
    if (dataset_ < 0) {
        close();
        throw RunError("parse " + path + ": no dataset \"" + kHdf5RecordsDataset + "\" (DLIO's HDF5 reader reads records_0)");
    }
    Handles h;
    const hid_t space = h.add(H5Dget_space(dataset_), H5Sclose);
    const int rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
    const hid_t type = h.add(H5Dget_type(dataset_), H5Tclose);
    const hid_t native = type >= 0 ? h.add(H5Tget_native_type(type, H5T_DIR_ASCEND), H5Tclose) : -1;
    if (rank < 1 || rank > 8 || native < 0) {
        close();
        throw RunError("parse " + path + ": records_0 has no readable shape or type (" + hdf5Message() + ")");
    }
    hsize_t dims[8] = {};
    H5Sget_simple_extent_dims(space, dims, nullptr);
    rank_ = static_cast<std::uint64_t>(rank);
    samples_ = dims[0];
    sampleElements_ = 1;
    for (int d = 1; d < rank; ++d) sampleElements_ *= dims[d];
    elementSize_ = H5Tget_size(native);
}

std::uint64_t Hdf5ImageReader::readSample(std::uint64_t k) {
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
        throw RunError("parse " + path_ + ": records_0[" + std::to_string(k) + "] cannot be read (" + hdf5Message() + ")");
    return bytes;
}

} // namespace trainio
