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

bool isSecretKey(const std::string& key) {
    for (const char* s : {"secret_access_key", "session_token", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"})
        if (key.find(s) != std::string::npos) return true;
    return false;
}

std::string redactSecretsInText(std::string text) {
    // Every "<…secret key…>=<value>" (value up to the next blank or quote) becomes "<key>=***".
    for (const char* s : {"secret_access_key=", "session_token=", "AWS_SECRET_ACCESS_KEY=", "AWS_SESSION_TOKEN="}) {
        for (std::size_t at = text.find(s); at != std::string::npos; at = text.find(s, at + 1)) {
            const std::size_t v = at + std::string(s).size();
            std::size_t end = v;
            while (end < text.size() && text[end] != ' ' && text[end] != '\n' && text[end] != '\'' && text[end] != '"') ++end;
            text.replace(v, end - v, "***");
        }
    }
    return text;
}

std::vector<std::string> redactSecretOverrides(const std::vector<std::string>& overrides) {
    std::vector<std::string> out;
    out.reserve(overrides.size());
    for (const auto& o : overrides) {
        const auto eq = o.find('=');
        out.push_back(eq != std::string::npos && isSecretKey(o.substr(0, eq)) ? o.substr(0, eq + 1) + "***" : o);
    }
    return out;
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
