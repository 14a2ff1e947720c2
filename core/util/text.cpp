#include "util/text.h"

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>

namespace trainio {
namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

} // namespace

std::string_view trimView(std::string_view s) {
    while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
    while (!s.empty() && isSpace(s.back())) s.remove_suffix(1);
    return s;
}

std::string trim(std::string_view s) { return std::string(trimView(s)); }

std::string fixedNumber(double v, int precision, bool sign) {
    if (!std::isfinite(v)) return "n/a";
    std::ostringstream os;
    if (sign) os << std::showpos;
    os << std::fixed << std::setprecision(precision) << v;
    return os.str();
}

std::string exactNumber(double v) {
    if (!std::isfinite(v)) return "";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

std::string significantNumber(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    return buf;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

} // namespace trainio
