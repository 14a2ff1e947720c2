#include "format/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <nmmintrin.h>
#define TRAINIO_CRC32C_X86 1
#endif

namespace trainio {
namespace {

constexpr std::uint32_t kPoly = 0x82F63B78u;

using Tables = std::array<std::array<std::uint32_t, 256>, 8>;

constexpr Tables makeTables() {
    Tables t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
        std::uint32_t c = i;
        for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPoly : c >> 1;
        t[0][i] = c;
    }
    for (std::size_t i = 0; i < 256; ++i)
        for (std::size_t s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xFF];
    return t;
}

constexpr Tables kTables = makeTables();

#ifdef TRAINIO_CRC32C_X86
__attribute__((target("sse4.2"))) std::uint32_t crcSse42(const unsigned char* p, std::size_t len,
                                                          std::uint32_t crc) {
    std::uint64_t c = ~crc;
    while (len >= 8) {
        std::uint64_t v;
        std::memcpy(&v, p, 8);
        c = _mm_crc32_u64(c, v);
        p += 8;
        len -= 8;
    }
    auto c32 = static_cast<std::uint32_t>(c);
    while (len-- > 0) c32 = _mm_crc32_u8(c32, *p++);
    return ~c32;
}
#endif

bool detectHardware() {
#ifdef TRAINIO_CRC32C_X86
    return __builtin_cpu_supports("sse4.2");
#else
    return false;
#endif
}

const bool kHardware = detectHardware();

} // namespace

std::uint32_t crc32cSoftware(const void* data, std::size_t len, std::uint32_t crc) {
    const auto* p = static_cast<const unsigned char*>(data);
    std::uint32_t c = ~crc;
    while (len >= 8) {
        std::uint32_t lo, hi;
        std::memcpy(&lo, p, 4);
        std::memcpy(&hi, p + 4, 4);
        lo ^= c; // assumes a little-endian host, as the rest of the format code does
        c = kTables[7][lo & 0xFF] ^ kTables[6][(lo >> 8) & 0xFF] ^ kTables[5][(lo >> 16) & 0xFF] ^
            kTables[4][lo >> 24] ^ kTables[3][hi & 0xFF] ^ kTables[2][(hi >> 8) & 0xFF] ^
            kTables[1][(hi >> 16) & 0xFF] ^ kTables[0][hi >> 24];
        p += 8;
        len -= 8;
    }
    while (len-- > 0) c = (c >> 8) ^ kTables[0][(c ^ *p++) & 0xFF];
    return ~c;
}

std::uint32_t crc32cHardware(const void* data, std::size_t len, std::uint32_t crc) {
#ifdef TRAINIO_CRC32C_X86
    if (kHardware) return crcSse42(static_cast<const unsigned char*>(data), len, crc);
#endif
    return crc32cSoftware(data, len, crc);
}

bool crc32cHardwareAvailable() { return kHardware; }

std::uint32_t crc32c(const void* data, std::size_t len, std::uint32_t crc) {
    return crc32cHardware(data, len, crc);
}

} // namespace trainio
