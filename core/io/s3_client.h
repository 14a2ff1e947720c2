// An S3 client on libcurl (Debian 12 has no AWS C++ SDK): requests signed with AWS Signature V4 by curl
// itself (CURLOPT_AWS_SIGV4), connections kept per thread and reused, several ranged GETs in flight
// through one curl multi handle, retries with exponential backoff on 5xx, 429/503 throttling (SlowDown)
// and connection errors — each retry counted. docs/s3.md.
//
// Thread safety: every call is thread-safe. Each calling thread has its own curl multi handle and easy
// handles (thread_local, freed when the thread ends), so reader threads never share a connection and
// never take a lock on the hot path except the one that records a request's latency.
#pragma once

#include "config/workload_config.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace trainio {

struct S3Credentials {
    std::string accessKeyId;
    std::string secretAccessKey;
    std::string sessionToken;
    std::string source; // "environment (AWS_ACCESS_KEY_ID)", "profile default (~/.aws/credentials)", "the YAML …"
};

// Where the keys come from, first that has them: AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN);
// AWS_PROFILE (or "default" when AWS_SHARED_CREDENTIALS_FILE / ~/.aws/credentials has it) from
// ~/.aws/credentials, then ~/.aws/config; the YAML's storage_options (a warning is appended to `warnings`).
// Throws InputError naming the sources tried when none has a key pair.
S3Credentials resolveS3Credentials(const StorageSection& storage, std::vector<std::string>* warnings = nullptr);
// The profiles that hold a key pair in ~/.aws/credentials and ~/.aws/config (AWS_SHARED_CREDENTIALS_FILE,
// AWS_CONFIG_FILE), sorted, each once: what storage.storage_options.profile can name.
std::vector<std::string> awsProfileNames();

struct S3Options {
    std::string endpoint; // scheme://host[:port], no trailing '/'
    std::string region = "us-east-1";
    std::string bucket;
    S3Credentials credentials;
    bool forcePathStyle = false;
    unsigned maxAttempts = 5;
    std::string caBundle;
    bool verifyTls = true;
    long connectTimeoutMs = 5000;
    // A request that moves less than 1 byte/s for this long is aborted (and retried): never a hang.
    long stallTimeoutS = 30;
    std::size_t multipartThreshold = 64ull << 20; // PUT above: multipart upload
    std::size_t partBytes = 16ull << 20;
    unsigned backoffBaseMs = 50; // attempt k waits base × 2^k (±50 % jitter), at most 5 s
};

// The endpoint for process `rank` from DLIO's comma-separated endpoint_url list (entry rank mod N), or
// https://s3.<region>.amazonaws.com when empty. Throws InputError for a URL that is not http(s)://.
std::string s3EndpointFor(const StorageSection& storage, std::uint64_t rank = 0);
S3Options s3OptionsFor(const StorageSection& storage, const S3Credentials& credentials, std::uint64_t rank = 0);

// The request-level figures of an epoch (or a run): what went over the wire, how long requests took.
struct S3RequestStats {
    std::uint64_t requests = 0;      // HTTP requests completed (retries included)
    std::uint64_t gets = 0, heads = 0, puts = 0, others = 0;
    std::uint64_t retries = 0;       // attempts repeated after a retryable failure
    std::uint64_t retries503 = 0;    // of which on 503 (SlowDown) or 429
    std::uint64_t failures = 0;      // requests that failed for good
    std::uint64_t wireBytesIn = 0;   // response headers + bodies received (curl's counters)
    std::uint64_t wireBytesOut = 0;  // request bodies sent
    std::uint64_t bytesDelivered = 0; // bytes handed to the callers' buffers by GETs
    std::vector<double> firstByteMs;  // GETs: from the start of the request to its first response byte
    std::vector<double> requestMs;    // GETs: whole request
};

// An epoch of an S3 run as the Run page shows it (session/storage_session.cpp; trainio_io.json's s3 epochs hold all of it).
struct S3EpochFigures {
    std::uint64_t gets = 0, requests = 0, retries = 0, failures = 0;
    std::uint64_t bytesDelivered = 0, wireBytesIn = 0;
    double firstByteP50Ms = 0, requestP50Ms = 0, requestP99Ms = 0;
};

class S3Client {
public:
    explicit S3Client(S3Options options);
    ~S3Client();
    S3Client(const S3Client&) = delete;
    S3Client& operator=(const S3Client&) = delete;

    const S3Options& options() const { return opt_; }
    // "http://127.0.0.1:7481/bucket/key" (path style) or "http://bucket.host/key".
    std::string url(const std::string& key) const;

    // Object size, or -ENOENT (404), -EACCES (403), -EIO (other), -ETIMEDOUT / -ECONNREFUSED.
    std::int64_t head(const std::string& key);
    // Reads [offset, offset + len) into buf: split into parts of partBytes, at most depth in flight.
    // Returns bytes read (short only at the object's end), or -errno as head().
    std::int64_t get(const std::string& key, void* buf, std::size_t len, std::uint64_t offset, std::size_t partBytes,
                     unsigned depth);
    // Writes the object whole (a multipart upload above multipartThreshold). 0 or -errno.
    int put(const std::string& key, const void* data, std::size_t len);
    // A multipart upload written piece by piece, so that an object (a checkpoint file) is never whole in
    // memory: start, parts in order (each but the last at least 5 MiB; etags collects their ETags and
    // numbers the next ones), complete — or abort, which drops the parts. 0 or -errno (lastError()).
    int startMultipart(const std::string& key, std::string& uploadId);
    int uploadParts(const std::string& key, const std::string& uploadId, const char* data, std::size_t len,
                    std::size_t partBytes, unsigned depth, std::vector<std::string>& etags);
    int completeMultipart(const std::string& key, const std::string& uploadId, const std::vector<std::string>& etags);
    void abortMultipart(const std::string& key, const std::string& uploadId);
    int remove(const std::string& key);

    struct Listed {
        std::string key;
        std::uint64_t size = 0;
    };
    // At most maxKeys objects under prefix (one ListObjectsV2 request: a sample, never the whole bucket).
    // nullopt with *error set on failure.
    std::optional<std::vector<Listed>> list(const std::string& prefix, unsigned maxKeys, std::string* error);

    // One signed request to the bucket (HEAD /bucket, no retries, 3 s to connect, 5 s without a byte): "" when the endpoint
    // answers and the keys may use the bucket, otherwise why not (wrong secret, no such bucket,
    // unreachable endpoint, TLS) in words naming endpoint and bucket.
    // Not thread-safe (it changes the options for its request): call it before the client is shared.
    std::string probe();
    // Creates the bucket (tests). 0 or -errno; an existing bucket of ours is 0.
    int createBucket();
    // Deletes the (empty) bucket (tests). 0 or -errno.
    int deleteBucket();

    // The figures since the last take (and resets them): one per epoch.
    S3RequestStats takeStats();
    // Totals since construction (not reset by takeStats).
    std::uint64_t totalRetries() const { return totalRetries_.load(); }
    std::uint64_t totalRequests() const { return totalRequests_.load(); }

    // The last failure's text (HTTP status and S3 error code, or curl's error), for messages.
    std::string lastError() const;

    struct Request; // internal
private:
    void record(const Request& r, bool isGet, std::uint64_t delivered);
    int perform(std::vector<Request*>& reqs, unsigned depth);

    S3Options opt_;
    std::string hostBase_; // scheme://host[:port] or scheme://bucket.host[:port]
    bool pathStyle_ = true;
    std::string sigv4_;
    std::string userpwd_;
    std::atomic<std::uint64_t> totalRetries_{0}, totalRequests_{0};
    mutable std::mutex statsMutex_;
    S3RequestStats stats_;
    std::string lastError_;
};

// Percentile p (0..100) of values (nearest rank); 0 for none.
double percentileOf(std::vector<double> values, double p);

} // namespace trainio
