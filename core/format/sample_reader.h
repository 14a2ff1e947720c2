// Reading one sample as the real data loader would: the reader really reads the bytes from storage
// (pread in transfer_size chunks into reused aligned buffers, through the IoBackend) and parses the
// format's framing far enough to find the sample (zip + npy headers, tfrecord length/CRC framing, …).
// One SampleReader per reader thread; not thread-safe; allocates nothing per sample once warm.
#pragma once

#include "config/workload_config.h"
#include "io/io_backend.h"

#include <cstdint>
#include <memory>
#include <string>

namespace trainio {

struct SampleReadResult {
    std::uint64_t bytesFromStorage = 0; // bytes this call read through the IoBackend
    std::uint64_t sampleBytes = 0;      // payload bytes of the sample (e.g. the d1*d2 record)
};

struct SampleReaderOptions {
    std::uint64_t transferSize = 262144;
    std::uint64_t samplesPerFile = 1;
    bool odirect = false;
    bool verifyChecksums = true; // tfrecord: check the masked CRC32C of length and data, as TF does
    // jpeg/png: decode every pixel as upstream DLIO's ImageReader (PIL) does, so the client CPU cost is
    // real; hdf5: open the file and copy the records_0[k] slice as h5py does. false = what the MLPerf
    // Storage v3.0 fork's readers do (dlio_benchmark/reader/image_reader.py and hdf5_reader.py since
    // v3.0.1: "PIL decode is skipped entirely", "h5py decode is skipped"): read the file, count its bytes.
    bool decodeSamples = true;
};

class SampleReader {
public:
    virtual ~SampleReader() = default;
    // Reads sample `indexInFile` of the file at `path`. Whole-file formats (npz, npy, hdf5, jpeg, png)
    // load the whole file like numpy/PIL do and keep it while consecutive samples come from the same
    // file; record formats (tfrecord, indexed_binary, raw) read just the record.
    // Throws RunError naming the file and the operation on an I/O error or a malformed file.
    virtual SampleReadResult read(const std::string& path, std::uint64_t indexInFile) = 0;
    // Forgets any cached open file (called at epoch boundaries).
    virtual void reset() = 0;
};

std::unique_ptr<SampleReader> makeSampleReader(DataFormat format, IoBackend& io,
                                               const SampleReaderOptions& options);

} // namespace trainio
