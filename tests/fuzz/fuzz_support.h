// Shared by the fuzz targets: a tiny multi-file container, so that one fuzz input can be a whole
// result folder. An input is a sequence of sections, each "==> <name> <==\n" followed by the file's
// bytes up to the next header (the layout `head` prints for several files, readable in the corpus).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fuzzsupport {

inline std::vector<std::pair<std::string, std::string>> splitSections(std::string_view in) {
    std::vector<std::pair<std::string, std::string>> out;
    constexpr std::string_view open = "==> ", close = " <==\n";
    std::size_t pos = in.find(open);
    while (pos != std::string_view::npos) {
        const std::size_t nameEnd = in.find(close, pos + open.size());
        if (nameEnd == std::string_view::npos) break;
        const std::size_t body = nameEnd + close.size();
        const std::size_t next = in.find(open, body);
        out.emplace_back(std::string(in.substr(pos + open.size(), nameEnd - pos - open.size())),
                         std::string(in.substr(body, next == std::string_view::npos ? std::string_view::npos : next - body)));
        pos = next;
    }
    return out;
}

} // namespace fuzzsupport
