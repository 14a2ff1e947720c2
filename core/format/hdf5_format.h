// HDF5 files as DLIO's HDF5Generator writes them and its HDF5Reader reads them (docs/formats.md):
//   h5py.File(name, 'w', libver='latest')
//   create_dataset('records_0', (num_samples, d1, d2), dtype=uint8, data=random)   contiguous, no filter
//   create_dataset('labels', data=[0] * num_samples)                              int64
// (dlio_benchmark/data_generator/hdf5_generator.py, create_file; num_dset_per_record = 1, no chunks,
// no compression: DLIO's defaults.) Sample k is records_0[k], a d1 × d2 slice.
//
// Both directions go through memory so that the bytes pass through the IoBackend (byte counting,
// emulated storage, fault injection): the writer builds the file with the core driver and writes its
// image (taken when the file is closed: HDF5 1.10's H5Fget_file_image of an open superblock-v3 file,
// which the fork's object-storage path uses, has a wrong superblock checksum and does not open); the
// reader opens the bytes it read as a file image (H5LTopen_file_image, no copy).
#pragma once

#include "format/format_writer.h"
#include "io/aligned_buffer.h"

#include <cstdint>
#include <string>

namespace trainio {

inline constexpr const char* kHdf5RecordsDataset = "records_0";
inline constexpr const char* kHdf5LabelsDataset = "labels";

// The bytes of a closed in-memory HDF5 file (malloc'd by HDF5's core driver through our callbacks).
class Hdf5Bytes {
public:
    Hdf5Bytes() = default;
    ~Hdf5Bytes();
    Hdf5Bytes(const Hdf5Bytes&) = delete;
    Hdf5Bytes& operator=(const Hdf5Bytes&) = delete;
    const unsigned char* data() const { return data_; }
    std::uint64_t size() const { return size_; }
    void adopt(void* data, std::uint64_t size);

private:
    unsigned char* data_ = nullptr;
    std::uint64_t size_ = 0;
};

// Builds the whole file in memory. Returns false if control.cancel was raised while filling it.
// Throws RunError naming path (used in messages only) when HDF5 fails.
bool buildHdf5Image(const DataFileSpec& spec, const std::string& path, const WriteControl& control, Hdf5Bytes& image);

// Exact size of the file buildHdf5Image produces: metadata (measured once per samples count on a
// 1 × 1 record, the layout being independent of d1 and d2) + samples × d1 × d2.
std::uint64_t hdf5FileSize(const DataFileSpec& spec);

// An open file image; read sample k of records_0. Not thread-safe (one per reader thread); HDF5 itself
// serialises calls (Debian's build is thread-safe).
class Hdf5ImageReader {
public:
    Hdf5ImageReader() = default;
    ~Hdf5ImageReader();
    Hdf5ImageReader(const Hdf5ImageReader&) = delete;
    Hdf5ImageReader& operator=(const Hdf5ImageReader&) = delete;
    // Opens the image (which must stay valid until close). Throws RunError "parse <path>: …".
    void open(const std::string& path, const unsigned char* data, std::uint64_t size);
    // Copies records_0[k] out of the image as h5py's dataset slice does; returns its bytes.
    std::uint64_t readSample(std::uint64_t k);
    std::uint64_t samples() const { return samples_; }
    void close();

private:
    std::string path_;
    std::int64_t file_ = -1;    // hid_t
    std::int64_t dataset_ = -1; // hid_t
    std::uint64_t samples_ = 0;
    std::uint64_t sampleElements_ = 0;
    std::uint64_t elementSize_ = 0;
    std::uint64_t rank_ = 0;
    AlignedBuffer sample_;
};

} // namespace trainio
