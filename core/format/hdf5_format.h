// HDF5 files as DLIO's HDF5Generator writes them and its HDF5Reader reads them (docs/formats.md):
//   h5py.File(name, 'w', libver='latest')
//   create_dataset('records_0', (num_samples, d1, d2), dtype=uint8, data=random)   contiguous, no filter
//   create_dataset('labels', data=[0] * num_samples)                              int64
// (dlio_benchmark/data_generator/hdf5_generator.py, create_file; num_dset_per_record = 1, no chunks,
// no compression: DLIO's defaults.) Sample k is records_0[k], a d1 × d2 slice.
//
// Both directions pass the bytes through the IoBackend (byte counting, emulated storage, fault
// injection): the writer builds the file in memory with the core driver and writes its
// image (taken when the file is closed: HDF5 1.10's H5Fget_file_image of an open superblock-v3 file,
// which the fork's object-storage path uses, has a wrong superblock checksum and does not open). The
// reader reads through a virtual file driver whose reads are IoBackend preads.
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

// HDF5 objects (files, datasets, dataspaces, types, property lists) this process holds open: 0 once every
// reader and writer is done. The asan preset suppresses leaks inside libhdf5 (tests/sanitizers/lsan.supp),
// so the tests check TrainIO's own handle hygiene with this instead.
std::int64_t hdf5OpenObjects();

// Reads records_0[k] as h5py does, through the IoBackend: an HDF5 virtual file driver whose reads
// are IoBackend preads (transfer_size chunks, aligned when O_DIRECT), with the sec2 driver's features
// (metadata accumulation, data sieving), so HDF5 reads what it would read from a POSIX file: the
// metadata, then the slice. One per reader thread; HDF5 itself serialises calls (Debian's build is
// thread-safe).
class Hdf5Reader {
public:
    Hdf5Reader();
    ~Hdf5Reader();
    Hdf5Reader(const Hdf5Reader&) = delete;
    Hdf5Reader& operator=(const Hdf5Reader&) = delete;
    // Opens path and its records_0. Throws RunError "open/read <path>…" (I/O) or "parse <path>: …".
    void open(IoBackend& io, const std::string& path, std::uint64_t transferSize, bool odirect);
    // Copies records_0[k] out of the file as h5py's dataset slice does; returns its bytes.
    std::uint64_t readSample(std::uint64_t k);
    // Bytes read from storage since the last call.
    std::uint64_t takeBytesRead();
    void close();

private:
    [[noreturn]] void fail(const std::string& what);
    IoBackend* io_ = nullptr;
    std::string path_;
    int handle_ = -1;
    std::uint64_t size_ = 0;
    std::int64_t file_ = -1;    // hid_t
    std::int64_t dataset_ = -1; // hid_t
    std::uint64_t samples_ = 0;
    std::uint64_t sampleElements_ = 0;
    std::uint64_t elementSize_ = 0;
    std::uint64_t rank_ = 0;
    std::uint64_t bytesRead_ = 0;
    int failedErrno_ = 0;
    std::uint64_t failedOffset_ = 0;
    AlignedBuffer sample_;
};

} // namespace trainio
