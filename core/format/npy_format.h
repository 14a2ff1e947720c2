// The .npy array format (numpy/lib/format.py): magic "\x93NUMPY", version (1,0)/(2,0)/(3,0), a
// little-endian header length (uint16 in v1, uint32 in v2/v3), then an ASCII (v3: UTF-8) Python dict
// literal padded with spaces and a newline so that the data starts 64-byte aligned.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace trainio {

// The header exactly as numpy >= 1.23 writes it for a C-order array: the dict
// "{'descr': …, 'fortran_order': False, 'shape': (…), }", 21 - len(repr(shape[0])) spare spaces,
// padding to 64 bytes, v1.0 unless the header needs more than 65535 bytes (then v2.0).
std::string npyHeader(const std::string& descr, const std::vector<std::uint64_t>& shape);
std::uint64_t npyHeaderSize(const std::string& descr, const std::vector<std::uint64_t>& shape);

struct NpyInfo {
    int majorVersion = 0;
    std::uint64_t dataOffset = 0; // bytes from the start of the .npy to the first data byte
    char descr[16] = {};          // e.g. "|u1", "<i8"
    std::uint64_t itemSize = 0;
    bool fortranOrder = false;
    std::uint64_t shape[8] = {};
    int ndim = 0;
    std::uint64_t elementCount() const;
    std::uint64_t dataBytes() const { return elementCount() * itemSize; }
};

// Parses the header in bytes[0, len). Returns an empty string on success, else what is wrong.
// Does not allocate (the reader hot path calls it once per file).
const char* parseNpyHeader(const unsigned char* bytes, std::size_t len, NpyInfo& out);

// The numpy dtype descr of an element type name ("uint8" -> "|u1"); empty when unknown.
std::string npyDescr(const std::string& elementType);

} // namespace trainio
