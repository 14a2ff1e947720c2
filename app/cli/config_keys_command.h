// trainio-cli config-keys: the reference of every configuration key, from core's one table of keys
// (docs/configuration.md's generated part is this command's markdown).
#pragma once

#include <string>
#include <vector>

namespace trainio::cli {

int runConfigKeysCommand(const std::vector<std::string>& args);

} // namespace trainio::cli
