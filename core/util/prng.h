// TrainIO's specified, cross-platform pseudo-random generators (docs/engine.md, docs/formats.md).
// std::shuffle, std::uniform_int_distribution, std::normal_distribution and mt19937 byte fills are not
// specified bit-for-bit across standard libraries (and mt19937 is too slow to fill gigabytes), so:
//   SplitMix64 (Steele, Lea & Flood, 2014): shuffles, drawn compute times, record sizes, seeding;
//     bounded integers by Lemire's multiply-shift with rejection (unbiased);
//   xoshiro256** (Blackman & Vigna, 2018): bulk random payload bytes, 8 bytes per step.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace trainio {

__extension__ using Uint128 = unsigned __int128; // GCC/Clang extension; silences -pedantic

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
    // Uniform integer in [0, bound), bound > 0. Lemire (2019), "Fast Random Integer Generation in an Interval".
    std::uint64_t below(std::uint64_t bound) {
        Uint128 m = static_cast<Uint128>(next()) * bound;
        auto low = static_cast<std::uint64_t>(m);
        if (low < bound) {
            const std::uint64_t threshold = (0 - bound) % bound;
            while (low < threshold) {
                m = static_cast<Uint128>(next()) * bound;
                low = static_cast<std::uint64_t>(m);
            }
        }
        return static_cast<std::uint64_t>(m >> 64);
    }
    // Uniform double in [0, 1) with 53 random bits.
    double uniform01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    // Standard normal by Box–Muller (both values of a pair are not cached: simpler to reproduce).
    double normal() {
        double u1 = uniform01();
        double u2 = uniform01();
        if (u1 <= 0.0) u1 = 0x1.0p-53;
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586476925 * u2);
    }
    double exponential(double scale) {
        double u = uniform01();
        return -scale * std::log1p(-u);
    }
    // Gamma(shape, scale) by Marsaglia & Tsang (2000); shape < 1 via the boost u^(1/shape).
    double gamma(double shape, double scale) {
        if (shape <= 0.0 || scale <= 0.0) return 0.0;
        if (shape < 1.0) {
            double u = uniform01();
            if (u <= 0.0) u = 0x1.0p-53;
            return gamma(shape + 1.0, scale) * std::pow(u, 1.0 / shape);
        }
        const double d = shape - 1.0 / 3.0;
        const double c = 1.0 / std::sqrt(9.0 * d);
        for (;;) {
            double x = normal();
            double v = 1.0 + c * x;
            if (v <= 0.0) continue;
            v = v * v * v;
            double u = uniform01();
            if (u < 1.0 - 0.0331 * x * x * x * x) return d * v * scale;
            if (u > 0.0 && std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v * scale;
        }
    }

    // Uniform in (0, 1]: 53 random bits, never 0 so that log() is finite.
    double nextOpenUnit() { return (static_cast<double>(next() >> 11) + 1.0) * 0x1.0p-53; }

private:
    std::uint64_t state_;
};

// Derives independent stream seeds from (seed, a, b) — e.g. (train.seed, epoch, rank) — by mixing.
inline std::uint64_t mixSeed(std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0) {
    SplitMix64 g(seed ^ (a * 0xD1B54A32D192ED03ULL) ^ (b * 0x8CB92BA72F3D8DD7ULL));
    g.next();
    return g.next();
}


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
