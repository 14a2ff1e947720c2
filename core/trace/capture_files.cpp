#include "trace/capture_files.h"

#include "trainio_source_dir.h"
#include "util/errors.h"

#include <cstdlib>
#include <system_error>

namespace fs = std::filesystem;

namespace trainio::trace {

namespace {

fs::path runningExecutableFolder() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : exe.parent_path();
}

bool isFile(const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec);
}

} // namespace

fs::path preloadLibrary() {
    if (const char* env = std::getenv("TRAINIO_CAPTURE_PRELOAD"); env && *env) {
        if (!isFile(env)) throw InputError(std::string("TRAINIO_CAPTURE_PRELOAD = ") + env + ": no such file: expected the interposer library");
        return fs::absolute(env);
    }
    const fs::path exe = runningExecutableFolder();
    const fs::path beside = exe / kPreloadLibraryName;
    const fs::path installed = exe / ".." / "lib" / "trainio" / kPreloadLibraryName;
    if (isFile(beside)) return beside;
    if (isFile(installed)) return fs::weakly_canonical(installed);
    throw InputError(std::string("the interposer library ") + kPreloadLibraryName + " is neither in " + exe.string() +
                     " nor in " + (exe / ".." / "lib" / "trainio").string() +
                     ": build the target trainio_capture_preload or set TRAINIO_CAPTURE_PRELOAD");
}

fs::path pythonModuleFolder() {
    const fs::path installed = runningExecutableFolder() / ".." / "share" / "trainio" / "python";
    if (isFile(installed / "trainio_capture" / "__init__.py")) return fs::weakly_canonical(installed);
    const fs::path source = fs::path(TRAINIO_SOURCE_DIR) / "resources" / "python";
    if (isFile(source / "trainio_capture" / "__init__.py")) return source;
    throw InputError("the Python module trainio_capture is neither in " + installed.string() + " nor in " + source.string());
}

} // namespace trainio::trace
