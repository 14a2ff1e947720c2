// Where `trainio-cli capture` finds what it ships: the interposer library and the trainio_capture Python
// module, in a build tree or an installed one.
#pragma once

#include <filesystem>

namespace trainio::trace {

inline constexpr const char* kPreloadLibraryName = "libtrainio_capture_preload.so";

// TRAINIO_CAPTURE_PRELOAD if set; else beside the running executable (the build tree); else
// <exe>/../lib/trainio/ (installed). Throws InputError naming the places looked in.
std::filesystem::path preloadLibrary();
// The folder that holds trainio_capture/ (what goes on PYTHONPATH): <exe>/../share/trainio/python when
// installed, else the source tree's resources/python. Throws InputError when neither holds it.
std::filesystem::path pythonModuleFolder();

} // namespace trainio::trace
