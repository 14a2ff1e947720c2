// The S3 I/O backend (docs/s3.md): the readers, the generator and the checkpoint writer call
// open(path)/pread/pwrite as for files; the path is mapped to an object of the bucket:
//   "s3://<bucket>/<key>" (DLIO's data_folder: s3://bucket/...; normalised "s3:/<bucket>/<key>") → <key>
//   a relative or absolute path ("data/unet3d/train/img_0_of_8.npz", "./ckpt/x")      → that path without
//                                                                                        "./" or leading "/"
// Reads: size() is one HEAD per open (cached); pread(len) is a ranged GET, split into requests of
// requestBytes with up to depth in flight (curl multi) — the sample reader hands whole samples when
// depth > 1 (loader/sample_source.cpp), as for io_uring. Writes are buffered in memory and PUT when the
// handle is closed or fsync'd (multipart above the client's threshold): an object under its final name is
// always whole, so generation needs no temporary names.
// A handle opened with OpenOptions::streaming (checkpoint files) is never whole in memory: writes, which
// must then come in order, go out as a multipart upload of kStreamPartBytes parts, kStreamDepth at once,
// completed on fsync/close (aborted when that fails); reads are ranged GETs of kStreamPartBytes,
// kStreamDepth in flight, whatever the dataset's transfer_size and io_depth.
#pragma once

#include "io/io_backend.h"
#include "io/s3_client.h"

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace trainio {

// The object key of a path (rules above). Throws InputError when an s3:// path names another bucket.
std::string s3ObjectKey(const std::string& path, const std::string& bucket);
// True for "s3://…" and its normalised form "s3:/…".
bool isS3Path(const std::string& path);

class S3Backend final : public IoBackend {
public:
    static constexpr std::size_t kStreamPartBytes = 8u << 20; // s3torchconnector's default part size
    static constexpr unsigned kStreamDepth = 4;

    S3Backend(std::shared_ptr<S3Client> client, std::size_t requestBytes, unsigned depth);

    const char* name() const override { return "s3"; }
    int open(const std::string& path, const OpenOptions& opts) override;
    ssize_t pread(int handle, void* buf, std::size_t len, std::uint64_t offset) override;
    ssize_t pwrite(int handle, const void* buf, std::size_t len, std::uint64_t offset) override;
    std::int64_t size(int handle) override;
    int fsync(int handle) override;
    int close(int handle) override;

    S3Client& client() { return *client_; }
    std::shared_ptr<S3Client> clientPtr() const { return client_; }
    std::size_t requestBytes() const { return requestBytes_; }
    unsigned depth() const { return depth_; }

private:
    struct Handle {
        std::string key;
        bool write = false;
        bool dirty = false;
        bool streaming = false;
        std::int64_t size = -1; // reads: from HEAD, once
        std::string data;       // writes: the object being built (streaming: the bytes from `flushed` on)
        std::uint64_t flushed = 0;          // streaming: bytes already uploaded as parts
        std::string uploadId;               // streaming: the multipart upload, once started
        std::vector<std::string> etags;     // its parts
        bool finished = false;              // streaming: completed (or failed): no more writes
        int error = 0;                      // streaming: the failure that ended it (-errno)
    };
    std::shared_ptr<Handle> find(int h);
    int flushParts(Handle& h, bool last);

    std::shared_ptr<S3Client> client_;
    std::size_t requestBytes_;
    unsigned depth_;
    std::mutex mutex_;
    std::unordered_map<int, std::shared_ptr<Handle>> handles_;
    int next_ = 3;
};

} // namespace trainio

namespace trainio {
struct WorkloadConfig;
// The backend of a workload with storage.storage_type s3: credentials resolved (warnings appended), the
// endpoint for process `rank`, requests of reader.transfer_size, trainio.io_depth in flight per reader.
// Throws InputError (no credentials, a bad endpoint URL).
std::shared_ptr<S3Backend> makeS3Backend(const WorkloadConfig& cfg, std::uint64_t rank = 0,
                                         std::vector<std::string>* warnings = nullptr);

// "Test connection" (the GUI's workload page): the credentials resolved and one signed request to the
// bucket, as the pre-flight does (a few seconds at most). ok, and the words to show: what answered and
// with which credentials, or why not. Never throws. Blocks: call it off the GUI thread.
struct S3ConnectionCheck {
    bool ok = false;
    std::string text;
};
S3ConnectionCheck checkS3Connection(const WorkloadConfig& cfg);

// Where an S3 workload's dataset is, in words: "s3://<bucket>/<prefix> at <endpoint>" (the data folder as
// given when it cannot be mapped; the pre-flight names that problem). Never throws.
std::string s3DatasetLocation(const WorkloadConfig& cfg);
} // namespace trainio
