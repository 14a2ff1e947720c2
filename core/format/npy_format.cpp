#include "format/npy_format.h"

#include <cstring>

namespace trainio {
namespace {

constexpr unsigned char kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr std::size_t kAlign = 64;
constexpr std::size_t kGrowthAxisMaxDigits = 21;

std::string shapeRepr(const std::vector<std::uint64_t>& shape) {
    std::string s = "(";
    for (std::size_t k = 0; k < shape.size(); ++k) {
        if (k) s += ", ";
        s += std::to_string(shape[k]);
    }
    if (shape.size() == 1) s += ",";
    s += ")";
    return s;
}

// Bounded cursor over the header dict text.
struct Cursor {
    const char* p;
    const char* end;
    void skipSpace() {
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) ++p;
    }
    bool eat(char c) {
        skipSpace();
        if (p < end && *p == c) {
            ++p;
            return true;
        }
        return false;
    }
    // A quoted Python string ('…' or "…") copied into out (capacity cap incl. NUL).
    bool quoted(char* out, std::size_t cap) {
        skipSpace();
        if (p >= end || (*p != '\'' && *p != '"')) return false;
        const char q = *p++;
        std::size_t n = 0;
        while (p < end && *p != q) {
            if (n + 1 >= cap) return false;
            out[n++] = *p++;
        }
        if (p >= end) return false;
        ++p;
        out[n] = 0;
        return true;
    }
    bool number(std::uint64_t& v) {
        skipSpace();
        if (p >= end || *p < '0' || *p > '9') return false;
        v = 0;
        while (p < end && *p >= '0' && *p <= '9') {
            const std::uint64_t digit = static_cast<std::uint64_t>(*p - '0');
            if (v > (UINT64_MAX - digit) / 10) return false;
            v = v * 10 + digit;
            ++p;
        }
        // numpy < 1.? wrote "3L" on Python 2.
        if (p < end && *p == 'L') ++p;
        return true;
    }
    bool word(const char* w) {
        skipSpace();
        const std::size_t n = std::strlen(w);
        if (static_cast<std::size_t>(end - p) < n || std::memcmp(p, w, n) != 0) return false;
        p += n;
        return true;
    }
};

std::uint64_t itemSizeOf(const char* descr) {
    // "<u1", "|u1", ">f8", "<i8", "|b1", "<c16": kind letter then byte count.
    const char* d = descr;
    if (*d == '<' || *d == '>' || *d == '|' || *d == '=') ++d;
    if (!*d) return 0;
    const char kind = *d++;
    if (!std::strchr("biufcV", kind)) return 0;
    std::uint64_t n = 0;
    if (!*d) return 0;
    for (; *d; ++d) {
        if (*d < '0' || *d > '9') return 0;
        n = n * 10 + static_cast<std::uint64_t>(*d - '0');
    }
    return n;
}

} // namespace

std::uint64_t NpyInfo::elementCount() const {
    std::uint64_t n = 1;
    for (int k = 0; k < ndim; ++k) n *= shape[k];
    return n;
}

std::string npyHeader(const std::string& descr, const std::vector<std::uint64_t>& shape) {
    std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shapeRepr(shape) + ", }";
    // numpy leaves room to grow the first axis in place (format.py, GROWTH_AXIS_MAX_DIGITS).
    if (!shape.empty()) {
        const std::size_t digits = std::to_string(shape[0]).size();
        if (digits < kGrowthAxisMaxDigits) dict.append(kGrowthAxisMaxDigits - digits, ' ');
    }
    const std::size_t hlen = dict.size() + 1; // + '\n'
    int major = 1;
    std::size_t prefix = 6 + 2 + 2;
    std::size_t pad = kAlign - ((prefix + hlen) % kAlign);
    if (hlen + pad > 0xFFFF) {
        major = 2;
        prefix = 6 + 2 + 4;
        pad = kAlign - ((prefix + hlen) % kAlign);
    }
    std::string out(reinterpret_cast<const char*>(kMagic), 6);
    out.push_back(static_cast<char>(major));
    out.push_back(0);
    const std::uint64_t total = hlen + pad;
    out.push_back(static_cast<char>(total & 0xFF));
    out.push_back(static_cast<char>((total >> 8) & 0xFF));
    if (major >= 2) {
        out.push_back(static_cast<char>((total >> 16) & 0xFF));
        out.push_back(static_cast<char>((total >> 24) & 0xFF));
    }
    out += dict;
    out.append(pad, ' ');
    out.push_back('\n');
    return out;
}

std::uint64_t npyHeaderSize(const std::string& descr, const std::vector<std::uint64_t>& shape) {
    return npyHeader(descr, shape).size();
}

const char* parseNpyHeader(const unsigned char* bytes, std::size_t len, NpyInfo& out) {
    out = NpyInfo{};
    if (len < 10 || std::memcmp(bytes, kMagic, 6) != 0) return "not an .npy array (bad magic)";
    out.majorVersion = bytes[6];
    std::uint64_t headerLen = 0;
    std::size_t prefix = 0;
    if (out.majorVersion == 1) {
        headerLen = bytes[8] | (static_cast<std::uint64_t>(bytes[9]) << 8);
        prefix = 10;
    } else if (out.majorVersion == 2 || out.majorVersion == 3) {
        if (len < 12) return "truncated .npy header";
        headerLen = bytes[8] | (static_cast<std::uint64_t>(bytes[9]) << 8) |
                    (static_cast<std::uint64_t>(bytes[10]) << 16) | (static_cast<std::uint64_t>(bytes[11]) << 24);
        prefix = 12;
    } else {
        return "unsupported .npy version";
    }
    if (headerLen > len - prefix) return "truncated .npy header";
    out.dataOffset = prefix + headerLen;
    Cursor c{reinterpret_cast<const char*>(bytes + prefix), reinterpret_cast<const char*>(bytes + prefix + headerLen)};
    if (!c.eat('{')) return ".npy header is not a dict";
    bool haveDescr = false, haveOrder = false, haveShape = false;
    while (!c.eat('}')) {
        char key[32];
        if (!c.quoted(key, sizeof key) || !c.eat(':')) return "malformed .npy header dict";
        if (std::strcmp(key, "descr") == 0) {
            if (!c.quoted(out.descr, sizeof out.descr)) return ".npy descr is not a simple type string";
            out.itemSize = itemSizeOf(out.descr);
            if (out.itemSize == 0) return "unknown .npy descr";
            haveDescr = true;
        } else if (std::strcmp(key, "fortran_order") == 0) {
            if (c.word("False")) out.fortranOrder = false;
            else if (c.word("True")) out.fortranOrder = true;
            else return "malformed .npy fortran_order";
            haveOrder = true;
        } else if (std::strcmp(key, "shape") == 0) {
            if (!c.eat('(')) return "malformed .npy shape";
            while (!c.eat(')')) {
                std::uint64_t v;
                if (out.ndim >= 8 || !c.number(v)) return "malformed .npy shape";
                out.shape[out.ndim++] = v;
                if (!c.eat(',')) {
                    if (!c.eat(')')) return "malformed .npy shape";
                    break;
                }
            }
            haveShape = true;
        } else {
            return "unexpected key in .npy header";
        }
        if (!c.eat(',')) {
            if (!c.eat('}')) return "malformed .npy header dict";
            break;
        }
    }
    if (!haveDescr || !haveOrder || !haveShape) return ".npy header lacks descr, fortran_order or shape";
    // Overflow guard: element count * item size must fit in 64 bits.
    std::uint64_t n = out.itemSize;
    for (int k = 0; k < out.ndim; ++k) {
        if (out.shape[k] != 0 && n > UINT64_MAX / out.shape[k]) return ".npy shape too large";
        n *= out.shape[k];
    }
    return "";
}

std::string npyDescr(const std::string& t) {
    if (t == "uint8") return "|u1";
    if (t == "int8") return "|i1";
    if (t == "uint16") return "<u2";
    if (t == "int16") return "<i2";
    if (t == "uint32") return "<u4";
    if (t == "int32") return "<i4";
    if (t == "uint64") return "<u8";
    if (t == "int64") return "<i8";
    if (t == "float16") return "<f2";
    if (t == "float32") return "<f4";
    if (t == "float64") return "<f8";
    return {};
}

} // namespace trainio
