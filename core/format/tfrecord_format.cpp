#include "format/tfrecord_format.h"

#include "format/crc32c.h"

#include <cstring>

namespace trainio {
namespace {

void putVarint(std::string& out, std::uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<char>((v & 0x7F) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}

std::size_t varintSize(std::uint64_t v) {
    std::size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        ++n;
    }
    return n;
}

// Tag of a length-delimited field.
char lenTag(int field) { return static_cast<char>((field << 3) | 2); }

struct Reader {
    const unsigned char* p;
    const unsigned char* end;
    bool varint(std::uint64_t& v) {
        v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (p >= end) return false;
            const unsigned char b = *p++;
            v |= static_cast<std::uint64_t>(b & 0x7F) << shift;
            if (!(b & 0x80)) return true;
        }
        return false;
    }
    // Reads one field header; for length-delimited fields sets [sub, subEnd).
    bool field(int& number, int& wireType, const unsigned char*& sub, const unsigned char*& subEnd) {
        std::uint64_t key;
        if (!varint(key)) return false;
        number = static_cast<int>(key >> 3);
        wireType = static_cast<int>(key & 7);
        sub = subEnd = nullptr;
        switch (wireType) {
        case 0: {
            std::uint64_t ignored;
            return varint(ignored);
        }
        case 1:
            if (end - p < 8) return false;
            p += 8;
            return true;
        case 5:
            if (end - p < 4) return false;
            p += 4;
            return true;
        case 2: {
            std::uint64_t n;
            if (!varint(n) || n > static_cast<std::uint64_t>(end - p)) return false;
            sub = p;
            subEnd = p + n;
            p += n;
            return true;
        }
        default: return false;
        }
    }
};

} // namespace

TfExampleLayout tfExampleLayout(std::uint64_t imageBytes, std::int64_t sizeValue) {
    // Innermost first: BytesList{value: image}, Feature{bytes_list}, MapEntry{key "image", value}.
    const std::uint64_t bytesList = 1 + varintSize(imageBytes) + imageBytes;
    const std::uint64_t imageFeature = 1 + varintSize(bytesList) + bytesList;
    const std::uint64_t imageEntry = (1 + 1 + 5) + 1 + varintSize(imageFeature) + imageFeature;

    std::string packed;
    putVarint(packed, static_cast<std::uint64_t>(sizeValue));
    std::string int64List;
    int64List.push_back(lenTag(1));
    putVarint(int64List, packed.size());
    int64List += packed;
    std::string sizeFeature;
    sizeFeature.push_back(lenTag(3));
    putVarint(sizeFeature, int64List.size());
    sizeFeature += int64List;
    std::string sizeEntry;
    sizeEntry.push_back(lenTag(1));
    putVarint(sizeEntry, 4);
    sizeEntry += "size";
    sizeEntry.push_back(lenTag(2));
    putVarint(sizeEntry, sizeFeature.size());
    sizeEntry += sizeFeature;

    const std::uint64_t features =
        1 + varintSize(imageEntry) + imageEntry + 1 + varintSize(sizeEntry.size()) + sizeEntry.size();

    TfExampleLayout out;
    out.imageBytes = imageBytes;
    std::string& p = out.prefix;
    p.push_back(lenTag(1)); // Example.features
    putVarint(p, features);
    p.push_back(lenTag(1)); // Features.feature (map entry)
    putVarint(p, imageEntry);
    p.push_back(lenTag(1)); // key
    putVarint(p, 5);
    p += "image";
    p.push_back(lenTag(2)); // value: Feature
    putVarint(p, imageFeature);
    p.push_back(lenTag(1)); // Feature.bytes_list
    putVarint(p, bytesList);
    p.push_back(lenTag(1)); // BytesList.value
    putVarint(p, imageBytes);

    out.suffix.push_back(lenTag(1)); // Features.feature (map entry)
    putVarint(out.suffix, sizeEntry.size());
    out.suffix += sizeEntry;
    return out;
}

void encodeTfRecordHeader(std::uint64_t dataLength, unsigned char out[kTfRecordHeaderBytes]) {
    for (int k = 0; k < 8; ++k) out[k] = static_cast<unsigned char>(dataLength >> (8 * k));
    const std::uint32_t crc = maskCrc(crc32c(out, 8));
    for (int k = 0; k < 4; ++k) out[8 + k] = static_cast<unsigned char>(crc >> (8 * k));
}

const char* parseTfExampleImage(const unsigned char* data, std::size_t len, std::uint64_t& imageBytes) {
    Reader example{data, data + len};
    int num, wt;
    const unsigned char *s, *e;
    while (example.p < example.end) {
        if (!example.field(num, wt, s, e)) return "malformed tf.train.Example";
        if (num != 1 || wt != 2) continue;
        Reader features{s, e};
        while (features.p < features.end) {
            if (!features.field(num, wt, s, e)) return "malformed tf.train.Features";
            if (num != 1 || wt != 2) continue;
            Reader entry{s, e};
            bool isImage = false;
            const unsigned char *vs = nullptr, *ve = nullptr;
            while (entry.p < entry.end) {
                if (!entry.field(num, wt, s, e)) return "malformed feature map entry";
                if (num == 1 && wt == 2) isImage = (e - s == 5 && std::memcmp(s, "image", 5) == 0);
                else if (num == 2 && wt == 2) {
                    vs = s;
                    ve = e;
                }
            }
            if (!isImage || !vs) continue;
            Reader feature{vs, ve};
            while (feature.p < feature.end) {
                if (!feature.field(num, wt, s, e)) return "malformed image feature";
                if (num != 1 || wt != 2) continue;
                Reader list{s, e};
                imageBytes = 0;
                while (list.p < list.end) {
                    if (!list.field(num, wt, s, e)) return "malformed image bytes_list";
                    if (num == 1 && wt == 2) imageBytes += static_cast<std::uint64_t>(e - s);
                }
                return "";
            }
            return "image feature is not a bytes_list";
        }
    }
    return "tf.train.Example has no 'image' feature";
}

} // namespace trainio
