#include "io/s3_backend.h"

#include "config/workload_config.h"
#include "util/errors.h"

#include <cerrno>
#include <algorithm>
#include <cstring>

namespace trainio {

bool isS3Path(const std::string& path) { return path.rfind("s3:/", 0) == 0; }

std::string s3ObjectKey(const std::string& path, const std::string& bucket) {
    std::string p = path;
    if (isS3Path(p)) {
        p.erase(0, 3);
        while (!p.empty() && p.front() == '/') p.erase(0, 1);
        const auto slash = p.find('/');
        const std::string b = p.substr(0, slash);
        if (!bucket.empty() && b != bucket)
            throw InputError(path + ": names bucket '" + b + "' but storage.storage_root is '" + bucket +
                             "' (expected s3://" + bucket + "/…)");
        return slash == std::string::npos ? std::string() : p.substr(slash + 1);
    }
    while (p.rfind("./", 0) == 0) p.erase(0, 2);
    while (!p.empty() && p.front() == '/') p.erase(0, 1);
    return p;
}

S3Backend::S3Backend(std::shared_ptr<S3Client> client, std::size_t requestBytes, unsigned depth)
    : client_(std::move(client)), requestBytes_(requestBytes ? requestBytes : 262144), depth_(depth ? depth : 1) {}

std::shared_ptr<S3Backend::Handle> S3Backend::find(int h) {
    std::lock_guard lock(mutex_);
    auto it = handles_.find(h);
    return it == handles_.end() ? nullptr : it->second;
}

int S3Backend::open(const std::string& path, const OpenOptions& opts) {
    auto h = std::make_shared<Handle>();
    try {
        h->key = s3ObjectKey(path, client_->options().bucket);
    } catch (const InputError&) {
        return -EINVAL;
    }
    if (h->key.empty()) return -EISDIR;
    h->write = opts.write;
    h->streaming = opts.streaming;
    if (opts.write) {
        h->dirty = true; // an empty object is still written
    } else {
        // The object must exist (as open(2) fails for a missing file): one HEAD, its size kept.
        h->size = client_->head(h->key);
        if (h->size < 0) return static_cast<int>(h->size);
    }
    std::lock_guard lock(mutex_);
    const int id = next_++;
    handles_.emplace(id, std::move(h));
    return id;
}

ssize_t S3Backend::pread(int handle, void* buf, std::size_t len, std::uint64_t offset) {
    auto h = find(handle);
    if (!h) return -EBADF;
    if (h->write) return -EBADF;
    if (h->size >= 0) {
        if (offset >= static_cast<std::uint64_t>(h->size)) return 0;
        len = static_cast<std::size_t>(std::min<std::uint64_t>(len, static_cast<std::uint64_t>(h->size) - offset));
    }
    const std::int64_t n = h->streaming ? client_->get(h->key, buf, len, offset, kStreamPartBytes, kStreamDepth)
                                        : client_->get(h->key, buf, len, offset, requestBytes_, depth_);
    return static_cast<ssize_t>(n);
}

// Uploads the whole parts buffered (all that is buffered when `last`), starting the multipart upload at
// the first; a failure aborts it. 0 or -errno.
int S3Backend::flushParts(Handle& h, bool last) {
    const std::size_t batch = kStreamPartBytes * kStreamDepth;
    if (!last && h.data.size() < batch) return 0;
    if (last && h.uploadId.empty()) {
        // Small enough to have stayed in memory: one PUT.
        h.finished = true;
        h.error = client_->put(h.key, h.data.data(), h.data.size());
        return h.error;
    }
    auto fail = [&](int e) {
        if (!h.uploadId.empty()) client_->abortMultipart(h.key, h.uploadId);
        h.finished = true;
        h.error = e;
        h.data.clear();
        return e;
    };
    if (h.uploadId.empty())
        if (int e = client_->startMultipart(h.key, h.uploadId); e < 0) return fail(e);
    const std::size_t n = last ? h.data.size() : h.data.size() / kStreamPartBytes * kStreamPartBytes;
    if (int e = client_->uploadParts(h.key, h.uploadId, h.data.data(), n, kStreamPartBytes, kStreamDepth, h.etags); e < 0)
        return fail(e);
    h.data.erase(0, n);
    h.flushed += n;
    if (!last) return 0;
    h.finished = true;
    if (int e = client_->completeMultipart(h.key, h.uploadId, h.etags); e < 0) return fail(e);
    return 0;
}

ssize_t S3Backend::pwrite(int handle, const void* buf, std::size_t len, std::uint64_t offset) {
    auto h = find(handle);
    if (!h || !h->write) return -EBADF;
    if (h->streaming) {
        // Parts already sent cannot be rewritten, and a gap would have to be sent as zeros: in order only.
        if (h->finished) return h->error ? h->error : -EBADF;
        if (offset != h->flushed + h->data.size()) return -ESPIPE;
        h->data.append(static_cast<const char*>(buf), len);
        h->dirty = true;
        if (int e = flushParts(*h, false); e < 0) return e;
        return static_cast<ssize_t>(len);
    }
    if (h->data.size() < offset + len) h->data.resize(offset + len);
    std::memcpy(h->data.data() + offset, buf, len);
    h->dirty = true;
    return static_cast<ssize_t>(len);
}

std::int64_t S3Backend::size(int handle) {
    auto h = find(handle);
    if (!h) return -EBADF;
    return h->write ? static_cast<std::int64_t>(h->flushed + h->data.size()) : h->size;
}

int S3Backend::fsync(int handle) {
    auto h = find(handle);
    if (!h) return -EBADF;
    if (h->write && h->streaming && h->error) return h->error;
    if (!h->write || !h->dirty) return 0;
    if (h->streaming) {
        // An object exists only once complete: fsync completes it (later writes are refused).
        const int e = h->finished ? h->error : flushParts(*h, true);
        h->dirty = false;
        return e;
    }
    const int e = client_->put(h->key, h->data.data(), h->data.size());
    if (e == 0) h->dirty = false;
    return e;
}

int S3Backend::close(int handle) {
    const int e = fsync(handle);
    std::lock_guard lock(mutex_);
    if (handles_.erase(handle) == 0) return -EBADF;
    return e;
}

} // namespace trainio

namespace trainio {

std::shared_ptr<S3Backend> makeS3Backend(const WorkloadConfig& cfg, std::uint64_t rank, std::vector<std::string>* warnings) {
    const S3Credentials creds = resolveS3Credentials(cfg.storage, warnings);
    auto client = std::make_shared<S3Client>(s3OptionsFor(cfg.storage, creds, rank));
    return std::make_shared<S3Backend>(client, cfg.reader.transferSize, static_cast<unsigned>(std::max<std::uint64_t>(1, cfg.trainio.ioDepth)));
}

std::string s3DatasetLocation(const WorkloadConfig& cfg) {
    try {
        std::string prefix = s3ObjectKey(cfg.dataset.dataFolder, cfg.storage.root);
        while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
        return "s3://" + cfg.storage.root + (prefix.empty() ? "" : "/" + prefix) + " at " + s3EndpointFor(cfg.storage);
    } catch (const std::exception&) {
        return cfg.dataset.dataFolder;
    }
}

S3ConnectionCheck checkS3Connection(const WorkloadConfig& cfg) {
    S3ConnectionCheck r;
    if (!cfg.storage.isS3()) {
        r.text = "storage.storage_type is " + cfg.storage.type + ": the workload reads files, there is no S3 connection to test";
        return r;
    }
    if (cfg.storage.root.empty()) {
        r.text = "storage.storage_root: no bucket named";
        return r;
    }
    try {
        const auto s3 = makeS3Backend(cfg);
        S3Client& c = s3->client();
        const std::string why = c.probe();
        r.ok = why.empty();
        r.text = r.ok ? "S3 endpoint " + c.options().endpoint + ", bucket " + c.options().bucket + ": answers (signed with the keys of " +
                            c.options().credentials.source + ")"
                      : why;
    } catch (const std::exception& e) {
        r.text = e.what();
    }
    return r;
}

} // namespace trainio
