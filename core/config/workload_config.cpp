#include "config/workload_config.h"

namespace trainio {

double ComputeTime::expectedSeconds() const {
    switch (distribution) {
    case ComputeDistribution::Constant:
    case ComputeDistribution::Normal: return mean;
    case ComputeDistribution::Uniform: return (min + max) / 2.0;
    case ComputeDistribution::Gamma: return shape * scale;
    case ComputeDistribution::Exponential: return scale;
    }
    return mean;
}

const char* toString(DataFormat f) {
    switch (f) {
    case DataFormat::Npz: return "npz";
    case DataFormat::Npy: return "npy";
    case DataFormat::Tfrecord: return "tfrecord";
    case DataFormat::Hdf5: return "hdf5";
    case DataFormat::IndexedBinary: return "indexed_binary";
    case DataFormat::Raw: return "raw";
    case DataFormat::Jpeg: return "jpeg";
    case DataFormat::Png: return "png";
    }
    return "?";
}

const char* toString(ShuffleMode m) {
    switch (m) {
    case ShuffleMode::Off: return "off";
    case ShuffleMode::Seed: return "seed";
    case ShuffleMode::Random: return "random";
    }
    return "?";
}

const char* toString(ComputeDistribution d) {
    switch (d) {
    case ComputeDistribution::Constant: return "constant";
    case ComputeDistribution::Normal: return "normal";
    case ComputeDistribution::Uniform: return "uniform";
    case ComputeDistribution::Gamma: return "gamma";
    case ComputeDistribution::Exponential: return "exponential";
    }
    return "?";
}

const char* fileExtension(DataFormat f) { return toString(f); }

} // namespace trainio
