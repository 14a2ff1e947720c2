// Writing one dataset file in a format DLIO's readers load (SPEC Appendix A). The generator decides
// names, temporaries and renames; this layer only produces the bytes, through an IoBackend.
#pragma once

#include "config/workload_config.h"
#include "io/io_backend.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

namespace trainio {

struct DataFileSpec {
    DataFormat format = DataFormat::Npz;
    std::uint64_t d1 = 1;
    std::uint64_t d2 = 1;
    std::uint64_t samples = 1;     // num_samples_per_file
    std::int64_t sizeFeature = 0;  // tfrecord "size" feature: DLIO writes the mean dimension d
    std::uint64_t contentSeed = 0; // seeds the xoshiro256** stream of the random payload
    std::uint64_t sampleBytes() const { return d1 * d2; }
};

struct WriteControl {
    const std::atomic<bool>* cancel = nullptr;
    // Payload bytes produced since the last call (called every few MiB and at the end).
    std::function<void(std::uint64_t)> onBytes;
};

enum class WriteOutcome { Written, Cancelled };

// Formats the generator can write (all of DataFormat; parquet is not one of them). The readers read
// the same formats.
bool formatWritable(DataFormat format);

// Whether expectedFileSize is exact. JPEG and PNG sizes depend on how the random pixels compress:
// for them it is an estimate (progress, disk space), and a file is whole when it has its final name.
bool fileSizeExact(DataFormat format);

// Size of the file writeDataFile produces: exact when fileSizeExact(spec.format) (resumption and
// verify compare it with what is on disk), else an estimate.
std::uint64_t expectedFileSize(const DataFileSpec& spec);

// Writes the whole file at path (created/truncated). On cancellation returns Cancelled and leaves
// the (incomplete) file for the caller to remove. Throws RunError naming the path and the operation.
WriteOutcome writeDataFile(IoBackend& io, const DataFileSpec& spec, const std::string& path,
                           const WriteControl& control);

// DLIO's side files. tfrecord: <data_folder>/index/<split>/<file>.idx, lines "<offset> <framed length>"
// (DALI's tfrecord2idx format). indexed_binary: <file>.off.idx and <file>.sz.idx, uint64 LE arrays.
std::string tfrecordIndexText(const DataFileSpec& spec);
std::string indexedBinaryOffsets(const DataFileSpec& spec);
std::string indexedBinarySizes(const DataFileSpec& spec);

// Writes bytes to path (created/truncated) through io; throws RunError naming the path.
void writeWholeFile(IoBackend& io, const std::string& path, const std::string& bytes);

} // namespace trainio
