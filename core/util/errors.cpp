#include "util/errors.h"

#include <cstring>

namespace trainio {

std::string describeProblem(const std::string& where, const std::string& key, const std::string& value,
                            const std::string& expected) {
    std::string out = where;
    if (!key.empty()) {
        if (!out.empty()) out += ": ";
        out += key;
        if (!value.empty()) out += " = " + value;
    } else if (!value.empty()) {
        if (!out.empty()) out += ": ";
        out += "'" + value + "'";
    }
    if (!expected.empty()) {
        if (!out.empty()) out += ": ";
        out += "expected " + expected;
    }
    return out;
}

std::string errnoText(int err) {
    char buf[256];
    // GNU strerror_r may return a static string instead of filling buf.
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
    return std::string(strerror_r(err, buf, sizeof buf));
#else
    if (strerror_r(err, buf, sizeof buf) != 0) return "error " + std::to_string(err);
    return std::string(buf);
#endif
}

} // namespace trainio
