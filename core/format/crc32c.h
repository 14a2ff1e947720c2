// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as TFRecord framing uses it.
// Hand-written because Debian 12 ships no C/C++ crc32c library: SSE4.2's crc32 instruction when the
// CPU has it (checked at run time), a slicing-by-8 table otherwise. Both give identical results.
#pragma once

#include <cstddef>
#include <cstdint>

namespace trainio {

// Extends crc (0 for a fresh computation) over len bytes.
std::uint32_t crc32c(const void* data, std::size_t len, std::uint32_t crc = 0);
std::uint32_t crc32cSoftware(const void* data, std::size_t len, std::uint32_t crc = 0);
// Falls back to the software path when the CPU lacks SSE4.2.
std::uint32_t crc32cHardware(const void* data, std::size_t len, std::uint32_t crc = 0);
bool crc32cHardwareAvailable();

// TFRecord's masking: ((c >> 15) | (c << 17)) + 0xa282ead8.
constexpr std::uint32_t maskCrc(std::uint32_t c) {
    return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

} // namespace trainio
