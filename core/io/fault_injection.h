// Fault injection for tests: an IoBackend that wraps another one and makes chosen calls fail, come
// back short, stall, or changes the file under the caller (truncate / unlink) at a chosen moment.
// The callers (engine, generator, result writers) cannot tell it from a misbehaving file system, so
// their error handling is tested on the real code paths, with real files, without #ifdefs.
//
// Rules are matched in order; the first rule that fires decides the call. A rule fires on a call when
// the operation matches, the file's path contains `pathContains`, the call reaches beyond byte
// `afterBytes` of the file (read/write; an I/O that straddles it is cut at it, as a device returns
// what it read before the bad sector), `skip` matching calls have already passed, and it has fired
// fewer than `count` times.
//
// The textual form (parseFaultRules, the CLI's TRAINIO_FAULTS test hook, docs/reliability.md):
//   rules  := rule (';' rule)*
//   rule   := op ':' action [':' path-substring] (':' key '=' value)*
//   op     := open | read | write | fsync | close | size | any
//   action := EIO | ENOSPC | EACCES | ENOENT | EROFS | EDQUOT | EPERM | EBADF | EINTR | EAGAIN
//             | short | delay | truncate | unlink
//   keys   := after=BYTES  skip=CALLS  count=TIMES  ms=MILLISECONDS (delay)  max=BYTES (short)
//             to=BYTES (truncate: new size, default 0)
// e.g. "read:EIO:img_3_of:after=65536;write:ENOSPC:summary.json".
#pragma once

#include "io/io_backend.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace trainio {

enum class FaultOp { Open, Read, Write, Fsync, Close, Size, Any };
enum class FaultAction {
    Fail,     // return -error
    ShortIo,  // read/write at most maxBytes (default: half the request, at least 1 byte)
    Delay,    // sleep `delay`, then do the call
    Truncate, // truncate the file on disk to truncateTo bytes, then do the call
    Unlink,   // delete the file on disk, then do the call
};

struct FaultRule {
    FaultOp op = FaultOp::Any;
    FaultAction action = FaultAction::Fail;
    int error = 5; // EIO
    std::string pathContains;
    std::uint64_t afterBytes = 0;
    std::uint64_t skip = 0;
    std::uint64_t count = UINT64_MAX;
    std::chrono::microseconds delay{0};
    std::uint64_t maxBytes = 0;   // ShortIo; 0 = half the request
    std::uint64_t truncateTo = 0; // Truncate
};

// Parses the textual form above. Throws InputError naming the rule and what was expected.
std::vector<FaultRule> parseFaultRules(const std::string& text);
// The errno value of a name such as "ENOSPC", or 0 when unknown.
int errnoFromName(const std::string& name);

class FaultInjectingBackend final : public IoBackend {
public:
    FaultInjectingBackend(std::shared_ptr<IoBackend> inner, std::vector<FaultRule> rules);

    const char* name() const override { return "fault-injecting"; }
    int open(const std::string& path, const OpenOptions& opts) override;
    ssize_t pread(int handle, void* buf, std::size_t len, std::uint64_t offset) override;
    ssize_t pwrite(int handle, const void* buf, std::size_t len, std::uint64_t offset) override;
    std::int64_t size(int handle) override;
    int fsync(int handle) override;
    int close(int handle) override;

    // How many times rule i fired (tests assert that the fault they set up really happened).
    std::uint64_t fired(std::size_t rule) const;
    std::uint64_t firedTotal() const;

private:
    struct Decision {
        const FaultRule* rule = nullptr;
        std::size_t len = 0; // the (possibly cut) length to pass through
    };
    struct RuleState {
        std::atomic<std::uint64_t> seen{0};
        std::atomic<std::uint64_t> fired{0};
    };
    // Picks the rule that fires for this call (nullptr: none); for read/write also cuts `len` at afterBytes.
    Decision decide(FaultOp op, const std::string& path, std::uint64_t offset, std::size_t len);
    std::string pathOf(int handle) const;

    std::shared_ptr<IoBackend> inner_;
    std::vector<FaultRule> rules_;
    std::deque<RuleState> state_; // deque: atomics are neither copyable nor movable
    std::mutex decideMutex_;      // seen/fired and the choice between rules change together
    mutable std::mutex pathsMutex_;
    std::unordered_map<int, std::string> paths_;
};

// Wraps `inner` in a FaultInjectingBackend when `spec` is non-empty; returns inner unchanged otherwise.
std::shared_ptr<IoBackend> withFaults(std::shared_ptr<IoBackend> inner, const std::string& spec);

} // namespace trainio
