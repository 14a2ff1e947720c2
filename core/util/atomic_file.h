// Files that matter are written to a temporary name in the same folder, flushed, fsynced and renamed
// over the final name: a crash or a full disk never leaves a half-written file that looks complete.
#pragma once

#include "io/io_backend.h"

#include <filesystem>
#include <string>

namespace trainio {

// Throws RunError naming the path and the failed operation (e.g. "write …/summary.json: No space left on device").
void writeFileAtomic(const std::filesystem::path& path, const std::string& content, IoBackend* io = nullptr);

} // namespace trainio
