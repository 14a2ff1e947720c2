#include "trace/file_format.h"

#include "format/crc32c.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <vector>

namespace fs = std::filesystem;

namespace trainio::trace {

std::string sniffFormat(const std::string& path, std::string& basis) {
    std::ifstream in(path, std::ios::binary);
    unsigned char b[512] = {};
    in.read(reinterpret_cast<char*>(b), sizeof b);
    const std::size_t n = static_cast<std::size_t>(in.gcount());
    const std::string ext = fs::path(path).extension().string();
    if (n == 0) {
        basis = path + " could not be read now: the format comes from its extension '" + ext + "'";
        static const std::map<std::string, std::string> byExt = {{".npz", "npz"}, {".npy", "npy"}, {".tfrecord", "tfrecord"},
                                                                 {".h5", "hdf5"}, {".hdf5", "hdf5"}, {".jpg", "jpeg"},
                                                                 {".jpeg", "jpeg"}, {".png", "png"}};
        auto it = byExt.find(ext);
        return it == byExt.end() ? "raw" : it->second;
    }
    if (n >= 30 && std::memcmp(b, "PK\x03\x04", 4) == 0) {
        const std::size_t nameLen = b[26] | (b[27] << 8);
        const std::string name(reinterpret_cast<const char*>(b + 30), std::min<std::size_t>(nameLen, n > 30 ? n - 30 : 0));
        if (name.size() > 4 && name.substr(name.size() - 4) == ".npy") {
            basis = "zip magic PK\\x03\\x04 whose first entry is " + name + " (" + path + ")";
            return "npz";
        }
        basis = "a zip archive without .npy entries (" + path + "): read as raw bytes";
        return "raw";
    }
    if (n >= 6 && std::memcmp(b, "\x93NUMPY", 6) == 0) {
        basis = "magic \\x93NUMPY (" + path + ")";
        return "npy";
    }
    if (n >= 8 && std::memcmp(b, "\x89HDF\r\n\x1a\n", 8) == 0) {
        basis = "magic \\x89HDF (" + path + ")";
        return "hdf5";
    }
    if (n >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF) {
        basis = "JPEG SOI marker FF D8 FF (" + path + ")";
        return "jpeg";
    }
    if (n >= 8 && std::memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0) {
        basis = "PNG signature (" + path + ")";
        return "png";
    }
    if (n >= 12) {
        std::uint32_t crc = 0;
        std::memcpy(&crc, b + 8, 4);
        if (maskCrc(crc32c(b, 8)) == crc) {
            basis = "TFRecord framing: the first record's length has a valid masked CRC-32C (" + path + ")";
            return "tfrecord";
        }
    }
    basis = "no known magic in the first bytes of " + path + ": raw bytes";
    return "raw";
}

// The bytes of a file that are the format's own (headers, labels, the zip directory), not records:
// the file's size less the record array's bytes (npy: the array; npz: its first array, DLIO's x). 0
// for other formats or when the headers cannot be parsed.
std::uint64_t formatOverhead(const std::string& path, const std::string& format, std::string& how) {
    if (format != "npz" && format != "npy") return 0;
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (ec) return 0;
    std::ifstream in(path, std::ios::binary);
    std::vector<unsigned char> b(4096);
    in.read(reinterpret_cast<char*>(b.data()), static_cast<std::streamsize>(b.size()));
    const std::size_t n = static_cast<std::size_t>(in.gcount());
    std::size_t at = 0;
    if (format == "npz") {
        if (n < 30) return 0;
        at = 30 + (b[26] | (b[27] << 8)) + (b[28] | (b[29] << 8));
    }
    if (at + 12 > n || std::memcmp(b.data() + at, "\x93NUMPY", 6) != 0) return 0;
    const bool v1 = b[at + 6] == 1;
    const std::size_t hlen = v1 ? (b[at + 8] | (b[at + 9] << 8)) : (b[at + 8] | (b[at + 9] << 8) | (b[at + 10] << 16));
    const std::size_t hstart = at + (v1 ? 10 : 12);
    if (hstart + hlen > n) return 0;
    const std::string header(reinterpret_cast<const char*>(b.data() + hstart), hlen);
    static const std::regex descrRe(R"('descr':\s*'[<>|=]?[a-zA-Z]([0-9]+)')");
    static const std::regex shapeRe(R"('shape':\s*\(([0-9,\s]*)\))");
    std::smatch dm, sm;
    if (!std::regex_search(header, dm, descrRe) || !std::regex_search(header, sm, shapeRe)) return 0;
    std::uint64_t elements = 1;
    std::istringstream dims(sm[1].str());
    for (std::string tok; std::getline(dims, tok, ',');)
        if (tok.find_first_of("0123456789") != std::string::npos) elements *= std::stoull(tok);
    const std::uint64_t payload = elements * std::stoull(dm[1].str());
    if (payload > size) return 0;
    how = std::to_string(size - payload) + " bytes of " + path + " are headers and labels (" + std::to_string(size) +
          " bytes, its record array " + std::to_string(payload) + ")";
    return size - payload;
}

} // namespace trainio::trace
