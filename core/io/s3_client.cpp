#include "io/s3_client.h"

#include "util/errors.h"
#include "util/text.h"

#include <curl/curl.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

namespace trainio {
namespace {

using Clock = std::chrono::steady_clock;

void globalInit() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// Each thread's curl handles: one multi (its connection cache is what keeps connections alive between
// requests) and the easy handles it drives, reused request after request.
struct ThreadCurl {
    CURLM* multi = nullptr;
    std::vector<CURL*> idle;
    ThreadCurl() {
        globalInit();
        multi = curl_multi_init();
        curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 0L);
    }
    ~ThreadCurl() {
        for (CURL* e : idle) curl_easy_cleanup(e);
        if (multi) curl_multi_cleanup(multi);
    }
    CURL* take() {
        if (idle.empty()) return curl_easy_init();
        CURL* e = idle.back();
        idle.pop_back();
        return e;
    }
    void give(CURL* e) { idle.push_back(e); }
};

ThreadCurl& threadCurl() {
    thread_local ThreadCurl t;
    return t;
}

// Key names as S3 wants them in a URL: every byte but the unreserved ones and '/' percent-encoded.
std::string encodeKey(const std::string& key, bool keepSlash = true) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : key) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || (keepSlash && c == '/')) {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

std::string xmlValue(const std::string& xml, const std::string& tag, std::size_t from = 0, std::size_t* end = nullptr) {
    const std::string open = "<" + tag + ">", close = "</" + tag + ">";
    const auto b = xml.find(open, from);
    if (b == std::string::npos) return {};
    const auto e = xml.find(close, b);
    if (e == std::string::npos) return {};
    if (end) *end = e + close.size();
    return xml.substr(b + open.size(), e - b - open.size());
}

// An INI file of the AWS CLI (~/.aws/credentials, ~/.aws/config): the keys of one section.
std::optional<std::pair<std::string, std::string>> iniKeys(const std::string& file, const std::string& section,
                                                           std::string* token) {
    std::ifstream in(file);
    if (!in) return std::nullopt;
    std::string line, current, id, secret;
    while (std::getline(in, line)) {
        line = trim(line);
        if (line.empty() || line[0] == '#' || line[0] == ';') continue;
        if (line.front() == '[' && line.back() == ']') {
            current = trim(line.substr(1, line.size() - 2));
            continue;
        }
        if (current != section) continue;
        const auto eq = line.find('=');
        if (eq == std::string::npos) continue;
        const std::string k = trim(line.substr(0, eq)), v = trim(line.substr(eq + 1));
        if (k == "aws_access_key_id") id = v;
        else if (k == "aws_secret_access_key") secret = v;
        else if (k == "aws_session_token" && token) *token = v;
    }
    if (id.empty() || secret.empty()) return std::nullopt;
    return std::pair{id, secret};
}

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

bool isIpOrLocal(const std::string& host) {
    if (host == "localhost" || host.front() == '[') return true;
    return std::all_of(host.begin(), host.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; });
}

} // namespace

// ---- credentials and options ----

S3Credentials resolveS3Credentials(const StorageSection& st, std::vector<std::string>* warnings) {
    S3Credentials c;
    const std::string home = env("HOME");
    const std::string credFile =
        env("AWS_SHARED_CREDENTIALS_FILE").empty() ? home + "/.aws/credentials" : env("AWS_SHARED_CREDENTIALS_FILE");
    const std::string confFile = env("AWS_CONFIG_FILE").empty() ? home + "/.aws/config" : env("AWS_CONFIG_FILE");
    // A profile's keys: ~/.aws/credentials, then ~/.aws/config (which names its sections "profile NAME",
    // but "default" as is).
    auto fromProfile = [&](const std::string& profile) {
        std::string token;
        if (auto k = iniKeys(credFile, profile, &token)) {
            c.accessKeyId = k->first;
            c.secretAccessKey = k->second;
            c.sessionToken = token;
            c.source = "profile " + profile + " (" + credFile + ")";
            return true;
        }
        if (auto k = iniKeys(confFile, profile == "default" ? profile : "profile " + profile, &token)) {
            c.accessKeyId = k->first;
            c.secretAccessKey = k->second;
            c.sessionToken = token;
            c.source = "profile " + profile + " (" + confFile + ")";
            return true;
        }
        return false;
    };
    // The profile the workload names (the GUI's credentials picker) wins over everything.
    if (!st.profile.empty()) {
        if (fromProfile(st.profile)) return c;
        throw InputError("storage.storage_options.profile = " + st.profile + ": no aws_access_key_id/aws_secret_access_key "
                         "for that profile in " + credFile + " or " + confFile);
    }
    if (!env("AWS_ACCESS_KEY_ID").empty() && !env("AWS_SECRET_ACCESS_KEY").empty()) {
        c.accessKeyId = env("AWS_ACCESS_KEY_ID");
        c.secretAccessKey = env("AWS_SECRET_ACCESS_KEY");
        c.sessionToken = env("AWS_SESSION_TOKEN");
        c.source = "environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)";
        return c;
    }
    const std::string profile = env("AWS_PROFILE").empty() ? std::string("default") : env("AWS_PROFILE");
    // A YAML's own keys win over a default profile, not over one the user named (AWS_PROFILE). A secret
    // read back from a copy TrainIO wrote ("***": it writes none) is no secret.
    const bool yamlKeys = !st.accessKeyId.empty() && !st.secretAccessKey.empty() && st.secretAccessKey != "***";
    if (!yamlKeys || !env("AWS_PROFILE").empty()) {
        if (fromProfile(profile)) return c;
        if (!env("AWS_PROFILE").empty())
            throw InputError("AWS_PROFILE=" + profile + ": no aws_access_key_id/aws_secret_access_key for that profile in " +
                             credFile + " or " + confFile);
    }
    if (yamlKeys) {
        c.accessKeyId = st.accessKeyId;
        c.secretAccessKey = st.secretAccessKey;
        c.source = "the workload's storage.storage_options (access_key_id, secret_access_key)";
        if (warnings)
            warnings->push_back("storage.storage_options.secret_access_key: a secret in a workload file is discouraged "
                                "(use AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or AWS_PROFILE); it is written nowhere (***)");
        return c;
    }
    throw InputError("storage.storage_type = s3: no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
                     "or AWS_PROFILE with a profile in " + credFile + ", or storage.storage_options.access_key_id and "
                     "secret_access_key");
}

std::vector<std::string> awsProfileNames() {
    const std::string home = env("HOME");
    std::vector<std::string> names;
    for (const auto& [file, configStyle] :
         {std::pair{env("AWS_SHARED_CREDENTIALS_FILE").empty() ? home + "/.aws/credentials" : env("AWS_SHARED_CREDENTIALS_FILE"), false},
          std::pair{env("AWS_CONFIG_FILE").empty() ? home + "/.aws/config" : env("AWS_CONFIG_FILE"), true}}) {
        std::ifstream in(file);
        std::string line;
        while (std::getline(in, line)) {
            line = trim(line);
            if (line.size() < 3 || line.front() != '[' || line.back() != ']') continue;
            std::string section = trim(line.substr(1, line.size() - 2));
            if (configStyle && section.rfind("profile ", 0) == 0) section = trim(section.substr(8));
            std::string token;
            const std::string lookup = configStyle && section != "default" ? "profile " + section : section;
            if (iniKeys(file, lookup, &token)) names.push_back(section);
        }
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
}

std::string s3EndpointFor(const StorageSection& st, std::uint64_t rank) {
    std::vector<std::string> list;
    std::stringstream ss(st.endpointUrl);
    for (std::string e; std::getline(ss, e, ',');)
        if (!trim(e).empty()) list.push_back(trim(e));
    if (list.empty()) return "https://s3." + (st.region.empty() ? std::string("us-east-1") : st.region) + ".amazonaws.com";
    std::string e = list[rank % list.size()];
    if (e.rfind("http://", 0) != 0 && e.rfind("https://", 0) != 0)
        throw InputError("storage.storage_options.endpoint_url = '" + st.endpointUrl + "': expected http:// or https:// URLs (" +
                         e + " is not)");
    while (!e.empty() && e.back() == '/') e.pop_back();
    if (e.find('/', e.find("://") + 3) != std::string::npos)
        throw InputError("storage.storage_options.endpoint_url = '" + e + "': expected scheme://host[:port] without a path");
    return e;
}

S3Options s3OptionsFor(const StorageSection& st, const S3Credentials& credentials, std::uint64_t rank) {
    S3Options o;
    o.endpoint = s3EndpointFor(st, rank);
    o.region = st.region.empty() ? "us-east-1" : st.region;
    o.bucket = st.root;
    o.credentials = credentials;
    o.forcePathStyle = st.forcePathStyle;
    o.maxAttempts = static_cast<unsigned>(std::max<std::uint64_t>(1, st.maxAttempts));
    o.caBundle = st.caBundle;
    o.verifyTls = st.verifyTls;
    return o;
}

double percentileOf(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const double rank = std::ceil(p / 100.0 * static_cast<double>(v.size()));
    const std::size_t i = static_cast<std::size_t>(std::clamp(rank, 1.0, static_cast<double>(v.size()))) - 1;
    return v[i];
}

// ---- requests ----

struct S3Client::Request {
    enum Method { Get, Head, Put, Post, Delete } method = Get;
    std::string url;
    std::string range; // "bytes=a-b" or ""
    // GET: the caller's buffer.
    char* dst = nullptr;
    std::size_t cap = 0, got = 0;
    // PUT/POST body.
    const char* src = nullptr;
    std::size_t srcLen = 0, srcPos = 0;
    std::string body;    // error bodies, XML answers
    std::string etag;    // PUT answers (multipart parts)
    long status = 0;
    CURLcode code = CURLE_OK;
    char errbuf[CURL_ERROR_SIZE] = {};
    curl_off_t contentLength = -1;
    unsigned attempt = 0;
    Clock::time_point readyAt{};
    CURL* easy = nullptr;
    curl_slist* headers = nullptr;
    bool done = false;
    // Figures of the last attempt.
    double firstByteMs = 0, totalMs = 0;
    std::uint64_t wireIn = 0, wireOut = 0;
};

namespace {

std::size_t onWrite(char* p, std::size_t size, std::size_t n, void* user) {
    auto* r = static_cast<S3Client::Request*>(user);
    const std::size_t len = size * n;
    long status = 0;
    curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
    if (status >= 300 || !r->dst) {
        if (r->body.size() < (1u << 20)) r->body.append(p, len);
        return len;
    }
    if (r->got + len > r->cap) return 0; // more than asked: abort (CURLE_WRITE_ERROR)
    std::memcpy(r->dst + r->got, p, len);
    r->got += len;
    return len;
}

std::size_t onRead(char* p, std::size_t size, std::size_t n, void* user) {
    auto* r = static_cast<S3Client::Request*>(user);
    const std::size_t len = std::min(size * n, r->srcLen - r->srcPos);
    std::memcpy(p, r->src + r->srcPos, len);
    r->srcPos += len;
    return len;
}

std::size_t onHeader(char* p, std::size_t size, std::size_t n, void* user) {
    auto* r = static_cast<S3Client::Request*>(user);
    const std::size_t len = size * n;
    std::string line(p, len);
    if (line.size() > 5 && strncasecmp(line.c_str(), "etag:", 5) == 0) r->etag = trim(line.substr(5));
    return len;
}

bool retryable(const S3Client::Request& r) {
    if (r.code != CURLE_OK) {
        switch (r.code) {
        case CURLE_COULDNT_CONNECT:
        case CURLE_OPERATION_TIMEDOUT:
        case CURLE_RECV_ERROR:
        case CURLE_SEND_ERROR:
        case CURLE_GOT_NOTHING:
        case CURLE_PARTIAL_FILE:
        case CURLE_HTTP2_STREAM: return true;
        default: return false;
        }
    }
    return r.status >= 500 || r.status == 429;
}

int errnoFor(const S3Client::Request& r) {
    if (r.code == CURLE_COULDNT_CONNECT || r.code == CURLE_COULDNT_RESOLVE_HOST) return ECONNREFUSED;
    if (r.code == CURLE_OPERATION_TIMEDOUT) return ETIMEDOUT;
    if (r.code != CURLE_OK) return EIO;
    if (r.status == 404) return ENOENT;
    if (r.status == 403 || r.status == 401) return EACCES;
    return EIO;
}

} // namespace

S3Client::S3Client(S3Options options) : opt_(std::move(options)) {
    globalInit();
    const auto schemeEnd = opt_.endpoint.find("://");
    const std::string scheme = opt_.endpoint.substr(0, schemeEnd + 3), hostPort = opt_.endpoint.substr(schemeEnd + 3);
    std::string host = hostPort.substr(0, hostPort.rfind(':') == std::string::npos || hostPort.front() == '[' ? hostPort.size() : hostPort.rfind(':'));
    // Virtual-hosted style (bucket.host) unless asked for path style or impossible (an IP address,
    // localhost, a bucket name with dots over HTTPS).
    pathStyle_ = opt_.forcePathStyle || isIpOrLocal(host) || (scheme == "https://" && opt_.bucket.find('.') != std::string::npos);
    hostBase_ = pathStyle_ ? opt_.endpoint : scheme + opt_.bucket + "." + hostPort;
    sigv4_ = "aws:amz:" + opt_.region + ":s3";
    userpwd_ = opt_.credentials.accessKeyId + ":" + opt_.credentials.secretAccessKey;
}

S3Client::~S3Client() = default;

std::string S3Client::url(const std::string& key) const {
    return hostBase_ + (pathStyle_ ? "/" + opt_.bucket : std::string()) + "/" + encodeKey(key);
}

std::string S3Client::lastError() const {
    std::lock_guard lock(statsMutex_);
    return lastError_;
}

void S3Client::record(const Request& r, bool isGet, std::uint64_t delivered) {
    std::lock_guard lock(statsMutex_);
    stats_.wireBytesIn += r.wireIn;
    stats_.wireBytesOut += r.wireOut;
    stats_.bytesDelivered += delivered;
    if (isGet && r.code == CURLE_OK && r.status < 300) {
        stats_.firstByteMs.push_back(r.firstByteMs);
        stats_.requestMs.push_back(r.totalMs);
    }
}

// Runs the requests, at most depth at once, each retried up to maxAttempts times. Returns 0 when all
// succeeded (2xx, or 404/416 left for the caller to read), else the -errno of the first failure.
int S3Client::perform(std::vector<Request*>& reqs, unsigned depth) {
    ThreadCurl& tc = threadCurl();
    depth = std::max(1u, depth);
    std::size_t next = 0, running = 0;
    std::vector<Request*> waiting; // retries after their backoff
    int failure = 0;
    thread_local std::mt19937 rng{std::random_device{}()};

    auto start = [&](Request* r) {
        if (!r->easy) r->easy = tc.take();
        CURL* e = r->easy;
        curl_easy_reset(e);
        if (r->headers) curl_slist_free_all(r->headers);
        r->headers = nullptr;
        r->headers = curl_slist_append(r->headers, "x-amz-content-sha256: UNSIGNED-PAYLOAD");
        if (!opt_.credentials.sessionToken.empty())
            r->headers = curl_slist_append(r->headers, ("x-amz-security-token: " + opt_.credentials.sessionToken).c_str());
        if (!r->range.empty()) r->headers = curl_slist_append(r->headers, ("Range: " + r->range).c_str());
        r->got = 0;
        r->srcPos = 0;
        r->body.clear();
        r->etag.clear();
        r->status = 0;
        r->errbuf[0] = 0;
        curl_easy_setopt(e, CURLOPT_URL, r->url.c_str());
        curl_easy_setopt(e, CURLOPT_HTTPHEADER, r->headers);
        curl_easy_setopt(e, CURLOPT_AWS_SIGV4, sigv4_.c_str());
        curl_easy_setopt(e, CURLOPT_USERPWD, userpwd_.c_str());
        curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
        // No pause for "100 Continue" before a PUT's body. (Not by removing the Expect header: curl 7.88
        // signs a header it was told to remove, and the server then sees another signature.)
        curl_easy_setopt(e, CURLOPT_EXPECT_100_TIMEOUT_MS, 0L);
        curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, opt_.connectTimeoutMs);
        curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
        curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, opt_.stallTimeoutS);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, opt_.verifyTls ? 1L : 0L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, opt_.verifyTls ? 2L : 0L);
        if (!opt_.caBundle.empty()) curl_easy_setopt(e, CURLOPT_CAINFO, opt_.caBundle.c_str());
        curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, onWrite);
        curl_easy_setopt(e, CURLOPT_WRITEDATA, r);
        curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, onHeader);
        curl_easy_setopt(e, CURLOPT_HEADERDATA, r);
        curl_easy_setopt(e, CURLOPT_ERRORBUFFER, r->errbuf);
        curl_easy_setopt(e, CURLOPT_PRIVATE, r);
        switch (r->method) {
        case Request::Get: break;
        case Request::Head: curl_easy_setopt(e, CURLOPT_NOBODY, 1L); break;
        case Request::Put:
            curl_easy_setopt(e, CURLOPT_UPLOAD, 1L);
            curl_easy_setopt(e, CURLOPT_READFUNCTION, onRead);
            curl_easy_setopt(e, CURLOPT_READDATA, r);
            curl_easy_setopt(e, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(r->srcLen));
            break;
        case Request::Post:
            curl_easy_setopt(e, CURLOPT_POST, 1L);
            curl_easy_setopt(e, CURLOPT_POSTFIELDS, r->src ? r->src : "");
            curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r->srcLen));
            break;
        case Request::Delete: curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, "DELETE"); break;
        }
        curl_multi_add_handle(tc.multi, e);
        ++running;
    };

    while (true) {
        const auto now = Clock::now();
        for (auto it = waiting.begin(); it != waiting.end() && running < depth;) {
            if ((*it)->readyAt <= now) {
                start(*it);
                it = waiting.erase(it);
            } else {
                ++it;
            }
        }
        while (running < depth && next < reqs.size() && failure == 0) start(reqs[next++]);
        if (running == 0 && waiting.empty()) break;
        int still = 0;
        curl_multi_perform(tc.multi, &still);
        int msgs = 0;
        while (CURLMsg* m = curl_multi_info_read(tc.multi, &msgs)) {
            if (m->msg != CURLMSG_DONE) continue;
            Request* r = nullptr;
            curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&r));
            r->code = m->data.result;
            curl_easy_getinfo(m->easy_handle, CURLINFO_RESPONSE_CODE, &r->status);
            curl_off_t startTransfer = 0, total = 0, down = 0, up = 0;
            long headerBytes = 0;
            curl_easy_getinfo(m->easy_handle, CURLINFO_STARTTRANSFER_TIME_T, &startTransfer);
            curl_easy_getinfo(m->easy_handle, CURLINFO_TOTAL_TIME_T, &total);
            curl_easy_getinfo(m->easy_handle, CURLINFO_SIZE_DOWNLOAD_T, &down);
            curl_easy_getinfo(m->easy_handle, CURLINFO_SIZE_UPLOAD_T, &up);
            curl_easy_getinfo(m->easy_handle, CURLINFO_HEADER_SIZE, &headerBytes);
            curl_easy_getinfo(m->easy_handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &r->contentLength);
            r->firstByteMs = static_cast<double>(startTransfer) / 1000.0;
            r->totalMs = static_cast<double>(total) / 1000.0;
            r->wireIn = static_cast<std::uint64_t>(down) + static_cast<std::uint64_t>(headerBytes);
            r->wireOut = static_cast<std::uint64_t>(up) + (r->method == Request::Post ? r->srcLen : 0);
            curl_multi_remove_handle(tc.multi, m->easy_handle);
            --running;
            totalRequests_.fetch_add(1, std::memory_order_relaxed);
            {
                std::lock_guard lock(statsMutex_);
                ++stats_.requests;
                switch (r->method) {
                case Request::Get: ++stats_.gets; break;
                case Request::Head: ++stats_.heads; break;
                case Request::Put: ++stats_.puts; break;
                default: ++stats_.others; break;
                }
            }
            const bool isGet = r->method == Request::Get;
            record(*r, isGet, isGet && r->code == CURLE_OK && r->status < 300 ? r->got : 0);
            if (retryable(*r) && r->attempt + 1 < opt_.maxAttempts) {
                ++r->attempt;
                totalRetries_.fetch_add(1, std::memory_order_relaxed);
                {
                    std::lock_guard lock(statsMutex_);
                    ++stats_.retries;
                    if (r->status == 503 || r->status == 429) ++stats_.retries503;
                }
                const double base = opt_.backoffBaseMs * std::pow(2.0, r->attempt - 1);
                std::uniform_real_distribution<double> jitter(0.5, 1.5);
                const double ms = std::min(5000.0, base * jitter(rng));
                r->readyAt = Clock::now() + std::chrono::microseconds(static_cast<long long>(ms * 1000));
                waiting.push_back(r);
                continue;
            }
            r->done = true;
            const bool ok = r->code == CURLE_OK && (r->status < 300 || r->status == 404 || r->status == 416);
            if (!ok) {
                std::string why;
                if (r->code != CURLE_OK) why = std::string(curl_easy_strerror(r->code)) + (r->errbuf[0] ? std::string(": ") + r->errbuf : "");
                else {
                    why = "HTTP " + std::to_string(r->status);
                    const std::string code = xmlValue(r->body, "Code");
                    if (!code.empty()) why += " " + code;
                }
                {
                    std::lock_guard lock(statsMutex_);
                    ++stats_.failures;
                    lastError_ = why + " (" + r->url + ")";
                }
                if (failure == 0) failure = -errnoFor(*r);
            }
        }
        if (running > 0) {
            int wait = 1000;
            if (!waiting.empty()) {
                const auto soonest = std::min_element(waiting.begin(), waiting.end(), [](auto* a, auto* b) { return a->readyAt < b->readyAt; });
                wait = static_cast<int>(std::clamp<long long>(
                    std::chrono::duration_cast<std::chrono::milliseconds>((*soonest)->readyAt - Clock::now()).count(), 0, 1000));
            }
            curl_multi_poll(tc.multi, nullptr, 0, wait, nullptr);
        } else if (!waiting.empty()) {
            const auto soonest = std::min_element(waiting.begin(), waiting.end(), [](auto* a, auto* b) { return a->readyAt < b->readyAt; });
            std::this_thread::sleep_until((*soonest)->readyAt);
        }
    }
    for (Request* r : reqs) {
        if (r->easy) tc.give(r->easy);
        r->easy = nullptr;
        if (r->headers) curl_slist_free_all(r->headers);
        r->headers = nullptr;
    }
    return failure;
}

std::int64_t S3Client::head(const std::string& key) {
    Request r;
    r.method = Request::Head;
    r.url = url(key);
    std::vector<Request*> v{&r};
    if (int e = perform(v, 1); e < 0) return e;
    if (r.status == 404) return -ENOENT;
    return r.contentLength >= 0 ? r.contentLength : -EIO;
}

std::int64_t S3Client::get(const std::string& key, void* buf, std::size_t len, std::uint64_t offset, std::size_t partBytes,
                           unsigned depth) {
    if (len == 0) return 0;
    if (partBytes == 0) partBytes = len;
    const std::size_t parts = (len + partBytes - 1) / partBytes;
    std::vector<Request> rs(parts);
    std::vector<Request*> ptrs;
    ptrs.reserve(parts);
    const std::string u = url(key);
    for (std::size_t i = 0; i < parts; ++i) {
        Request& r = rs[i];
        const std::uint64_t a = offset + i * partBytes;
        const std::size_t n = std::min(partBytes, len - i * partBytes);
        r.url = u;
        r.range = "bytes=" + std::to_string(a) + "-" + std::to_string(a + n - 1);
        r.dst = static_cast<char*>(buf) + i * partBytes;
        r.cap = n;
        ptrs.push_back(&r);
    }
    if (int e = perform(ptrs, depth); e < 0) return e;
    std::int64_t total = 0;
    for (const Request& r : rs) {
        if (r.status == 404) return -ENOENT;
        if (r.status == 416) break; // at or past the end
        total += static_cast<std::int64_t>(r.got);
        if (r.got < r.cap) break;   // the object ends here
    }
    return total;
}

int S3Client::put(const std::string& key, const void* data, std::size_t len) {
    if (len <= opt_.multipartThreshold) {
        Request r;
        r.method = Request::Put;
        r.url = url(key);
        r.src = static_cast<const char*>(data);
        r.srcLen = len;
        std::vector<Request*> v{&r};
        return perform(v, 1);
    }
    // Multipart: initiate, the parts (4 in flight), complete.
    std::string uploadId;
    if (int e = startMultipart(key, uploadId); e < 0) return e;
    std::vector<std::string> etags;
    if (int e = uploadParts(key, uploadId, static_cast<const char*>(data), len, opt_.partBytes, 4, etags); e < 0) {
        abortMultipart(key, uploadId);
        return e;
    }
    return completeMultipart(key, uploadId, etags);
}

int S3Client::startMultipart(const std::string& key, std::string& uploadId) {
    Request init;
    init.method = Request::Post;
    init.url = url(key) + "?uploads=";
    std::vector<Request*> v{&init};
    if (int e = perform(v, 1); e < 0) return e;
    uploadId = xmlValue(init.body, "UploadId");
    if (uploadId.empty()) {
        std::lock_guard lock(statsMutex_);
        lastError_ = "multipart upload of " + url(key) + ": no UploadId in the answer";
        return -EIO;
    }
    return 0;
}

int S3Client::uploadParts(const std::string& key, const std::string& uploadId, const char* data, std::size_t len,
                          std::size_t partBytes, unsigned depth, std::vector<std::string>& etags) {
    if (len == 0) return 0;
    if (partBytes == 0) partBytes = len;
    const std::size_t parts = (len + partBytes - 1) / partBytes;
    // S3 numbers parts 1..10000.
    if (etags.size() + parts > 10000) {
        std::lock_guard lock(statsMutex_);
        lastError_ = "multipart upload of " + url(key) + ": more than 10000 parts of " + std::to_string(partBytes) + " bytes";
        return -EFBIG;
    }
    const std::string u = url(key);
    std::vector<Request> rs(parts);
    std::vector<Request*> ptrs;
    ptrs.reserve(parts);
    for (std::size_t i = 0; i < parts; ++i) {
        Request& r = rs[i];
        r.method = Request::Put;
        r.url = u + "?partNumber=" + std::to_string(etags.size() + i + 1) + "&uploadId=" + encodeKey(uploadId, false);
        r.src = data + i * partBytes;
        r.srcLen = std::min(partBytes, len - i * partBytes);
        ptrs.push_back(&r);
    }
    if (int e = perform(ptrs, depth); e < 0) return e;
    for (const Request& r : rs) etags.push_back(r.etag);
    return 0;
}

int S3Client::completeMultipart(const std::string& key, const std::string& uploadId, const std::vector<std::string>& etags) {
    std::string xml = "<CompleteMultipartUpload>";
    for (std::size_t i = 0; i < etags.size(); ++i)
        xml += "<Part><PartNumber>" + std::to_string(i + 1) + "</PartNumber><ETag>" + etags[i] + "</ETag></Part>";
    xml += "</CompleteMultipartUpload>";
    Request done;
    done.method = Request::Post;
    done.url = url(key) + "?uploadId=" + encodeKey(uploadId, false);
    done.src = xml.data();
    done.srcLen = xml.size();
    std::vector<Request*> d{&done};
    if (int e = perform(d, 1); e < 0) return e;
    // CompleteMultipartUpload can fail with 200 and an <Error> body.
    if (done.body.find("<Error>") != std::string::npos) {
        std::lock_guard lock(statsMutex_);
        lastError_ = "complete multipart upload of " + url(key) + ": " + xmlValue(done.body, "Code");
        return -EIO;
    }
    return 0;
}

void S3Client::abortMultipart(const std::string& key, const std::string& uploadId) {
    Request r;
    r.method = Request::Delete;
    r.url = url(key) + "?uploadId=" + encodeKey(uploadId, false);
    std::vector<Request*> v{&r};
    perform(v, 1);
}

int S3Client::remove(const std::string& key) {
    Request r;
    r.method = Request::Delete;
    r.url = url(key);
    std::vector<Request*> v{&r};
    if (int e = perform(v, 1); e < 0) return e;
    return r.status == 404 ? -ENOENT : 0;
}

std::optional<std::vector<S3Client::Listed>> S3Client::list(const std::string& prefix, unsigned maxKeys, std::string* error) {
    Request r;
    // Query parameters in the order SigV4's canonical request sorts them.
    r.url = hostBase_ + (pathStyle_ ? "/" + opt_.bucket : std::string()) + "/?list-type=2&max-keys=" +
            std::to_string(maxKeys) + "&prefix=" + encodeKey(prefix, false);
    std::vector<Request*> v{&r};
    if (int e = perform(v, 1); e < 0 || r.status >= 300) {
        if (error) *error = lastError();
        return std::nullopt;
    }
    std::vector<Listed> out;
    std::size_t pos = 0;
    while (true) {
        std::size_t end = 0;
        const std::string item = xmlValue(r.body, "Contents", pos, &end);
        if (end == 0) break;
        Listed l;
        l.key = xmlValue(item, "Key");
        l.size = std::strtoull(xmlValue(item, "Size").c_str(), nullptr, 10);
        out.push_back(std::move(l));
        pos = end;
    }
    return out;
}

std::string S3Client::probe() {
    Request r;
    r.method = Request::Head;
    r.url = hostBase_ + (pathStyle_ ? "/" + opt_.bucket : std::string()) + "/";
    // One attempt, a 3 s connect and a 5 s stall limit: an unreachable endpoint is an answer, never a hang.
    const S3Options kept = opt_;
    opt_.maxAttempts = 1;
    opt_.connectTimeoutMs = std::min(opt_.connectTimeoutMs, 3000L);
    opt_.stallTimeoutS = std::min(opt_.stallTimeoutS, 5L);
    std::vector<Request*> v{&r};
    perform(v, 1);
    opt_ = kept;
    const std::string where = "S3 endpoint " + opt_.endpoint + ", bucket " + opt_.bucket;
    if (r.code != CURLE_OK)
        return where + ": unreachable (" + curl_easy_strerror(r.code) + (r.errbuf[0] ? std::string(": ") + r.errbuf : "") + ")";
    if (r.status == 200) return {};
    if (r.status == 404) return where + ": no such bucket (HTTP 404)";
    if (r.status == 403 || r.status == 401)
        return where + ": access denied (HTTP " + std::to_string(r.status) +
               ": a wrong access key or secret, or the key may not use this bucket; credentials from " +
               opt_.credentials.source + ")";
    return where + ": HTTP " + std::to_string(r.status);
}

int S3Client::createBucket() {
    Request r;
    r.method = Request::Put;
    r.url = hostBase_ + (pathStyle_ ? "/" + opt_.bucket : std::string());
    std::vector<Request*> v{&r};
    const int e = perform(v, 1);
    if (e < 0 && r.status == 409) return 0; // BucketAlreadyOwnedByYou
    return e;
}

int S3Client::deleteBucket() {
    Request r;
    r.method = Request::Delete;
    r.url = hostBase_ + (pathStyle_ ? "/" + opt_.bucket : std::string());
    std::vector<Request*> v{&r};
    return perform(v, 1);
}

S3RequestStats S3Client::takeStats() {
    std::lock_guard lock(statsMutex_);
    S3RequestStats s = std::move(stats_);
    stats_ = S3RequestStats{};
    return s;
}

} // namespace trainio
