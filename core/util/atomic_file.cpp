#include "util/atomic_file.h"

#include "util/errors.h"

#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

namespace trainio {

void writeFileAtomic(const std::filesystem::path& path, const std::string& content, IoBackend* io) {
    std::shared_ptr<IoBackend> owned;
    if (!io) {
        owned = makePosixBackend();
        io = owned.get();
    }
    std::error_code ec;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) throw RunError("create folder " + path.parent_path().string() + ": " + ec.message());
    const std::filesystem::path tmp = path.parent_path() / ("." + path.filename().string() + ".tmp-" +
                                                            std::to_string(::getpid()));
    OpenOptions o;
    o.write = true;
    const int h = io->open(tmp.string(), o);
    if (h < 0) throw RunError("create " + tmp.string() + ": " + errnoText(-h));
    int rc = writeFully(*io, h, content.data(), content.size(), 0);
    if (rc == 0) rc = io->fsync(h);
    const int rcClose = io->close(h);
    if (rc == 0) rc = rcClose;
    if (rc != 0) {
        std::filesystem::remove(tmp, ec);
        throw RunError("write " + path.string() + ": " + errnoText(-rc));
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        std::filesystem::remove(tmp, ec);
        throw RunError("rename " + tmp.string() + " to " + path.string() + ": " + errnoText(err));
    }
    // Make the rename itself durable.
    const int dfd = ::open(path.parent_path().empty() ? "." : path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
}

} // namespace trainio
