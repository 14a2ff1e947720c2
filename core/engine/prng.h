// TrainIO's specified, cross-platform pseudo-random generator.
//
// Every shuffle and every drawn compute time comes from SplitMix64 (Steele, Lea & Flood, 2014):
//   state += 0x9E3779B97F4A7C15; z = state;
//   z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9; z = (z ^ (z >> 27)) * 0x94D049BB133111EB; return z ^ (z >> 31);
// Bounded integers use Lemire's multiply-shift with rejection (unbiased), so a given seed yields the
// same sample order on every platform and compiler — unlike std::uniform_int_distribution, whose
// algorithm the standard leaves to each library. Documented in docs/engine.md.
#pragma once

#include <cmath>
#include <cstdint>

namespace trainio {

__extension__ using Uint128 = unsigned __int128; // GCC/Clang extension; silences -pedantic

class SplitMix64 {
public:
    explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
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

private:
    std::uint64_t state_;
};

// Derives independent stream seeds from (seed, a, b) — e.g. (train.seed, epoch, rank) — by mixing.
inline std::uint64_t mixSeed(std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0) {
    SplitMix64 g(seed ^ (a * 0xD1B54A32D192ED03ULL) ^ (b * 0x8CB92BA72F3D8DD7ULL));
    g.next();
    return g.next();
}

} // namespace trainio
