#include "dataset/record_shape.h"

#include "util/prng.h"

#include <cmath>

namespace trainio {

std::uint64_t meanDimension(const DatasetSection& dataset) {
    if (!(dataset.recordLength > 0)) return 1;
    const auto d = static_cast<std::uint64_t>(std::sqrt(dataset.recordLength));
    return d < 1 ? 1 : d;
}

std::uint64_t fileStreamSeed(std::uint64_t seed, Split split, std::uint64_t i) {
    return mix64(mix64(seed) ^ (2 * i + (split == Split::Valid ? 1 : 0)));
}

RecordShape recordShape(const DatasetSection& dataset, std::uint64_t seed, Split split, std::uint64_t i) {
    const std::uint64_t d = meanDimension(dataset);
    RecordShape shape{d, d};
    if (!(dataset.recordLengthStdev > 0) || !(dataset.recordLength > 0)) return shape;
    const double sigma = dataset.recordLengthStdev / 2.0 / std::sqrt(dataset.recordLength);
    // Box-Muller on two 53-bit uniforms from the file's own SplitMix64 stream: z0 for d1, z1 for d2.
    SplitMix64 rng(fileStreamSeed(seed, split, i));
    const double u1 = rng.nextOpenUnit();
    const double u2 = rng.nextOpenUnit();
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double theta = 2.0 * 3.14159265358979323846 * u2;
    auto draw = [&](double z) -> std::uint64_t {
        const double v = static_cast<double>(d) + sigma * z;
        // Python's int() truncates toward zero; then DLIO's max(.., 1).
        return v < 1.0 ? 1 : static_cast<std::uint64_t>(v);
    };
    shape.d1 = draw(r * std::cos(theta));
    shape.d2 = draw(r * std::sin(theta));
    return shape;
}

} // namespace trainio
