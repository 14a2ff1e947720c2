// The format of a captured job's data files, from their first bytes (trainio-cli workload --from-trace,
// docs/capture.md "How the workload is derived"): the magic of npz, npy, hdf5, jpeg, png and TFRecord
// framing, and the bytes of an npz/npy file that are the format's own rather than records.
#pragma once

#include <cstdint>
#include <string>

namespace trainio::trace {

// The format name (npz, npy, hdf5, jpeg, png, tfrecord or raw) of the file at `path`; `basis` says why.
std::string sniffFormat(const std::string& path, std::string& basis);
// The bytes of a file that are the format's own (headers, labels, the zip directory), not records:
// the file's size less the record array's bytes (npy: the array; npz: its first array, DLIO's x). 0
// for other formats or when the headers cannot be parsed; `how` says what was found.
std::uint64_t formatOverhead(const std::string& path, const std::string& format, std::string& how);

} // namespace trainio::trace
