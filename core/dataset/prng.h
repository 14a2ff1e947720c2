// Specified pseudo-random generators, so that record sizes and file contents are the same on every
// platform and standard library (std::normal_distribution and std::mt19937-based byte fills are not
// specified bit-for-bit across implementations, and mt19937 is too slow for filling gigabytes).
//   SplitMix64 (Steele, Lea, Flood 2014): seeding and small draws.
//   xoshiro256** (Blackman, Vigna 2018): bulk random bytes, ~8 bytes per step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace trainio {

// The SplitMix64 output function: a bijective 64-bit mixer.
constexpr std::uint64_t mix64(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

class SplitMix64 {
public:
    explicit constexpr SplitMix64(std::uint64_t seed) : state_(seed) {}
    constexpr std::uint64_t next() {
        state_ += 0x9E3779B97F4A7C15ULL;
        return mix64(state_);
    }
    // Uniform in (0, 1]: 53 random bits, never 0 so that log() is finite.
    double nextOpenUnit() { return (static_cast<double>(next() >> 11) + 1.0) * 0x1.0p-53; }

private:
    std::uint64_t state_;
};

class Xoshiro256StarStar {
public:
    explicit Xoshiro256StarStar(std::uint64_t seed) {
        SplitMix64 sm(seed);
        for (auto& w : s_) w = sm.next();
    }
    std::uint64_t next() {
        const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const std::uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }
    // Fills len bytes; the byte stream is the little-endian bytes of consecutive next() values
    // (a trailing partial word consumes one whole value).
    void fill(unsigned char* out, std::size_t len) {
        std::size_t i = 0;
        for (; i + 8 <= len; i += 8) {
            const std::uint64_t v = next();
            std::memcpy(out + i, &v, 8);
        }
        if (i < len) {
            const std::uint64_t v = next();
            std::memcpy(out + i, &v, len - i);
        }
    }

private:
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    std::uint64_t s_[4];
};

} // namespace trainio
