#include "io/fault_injection.h"

#include "util/errors.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <thread>
#include <unistd.h>

namespace trainio {
namespace {

struct NamedErrno {
    const char* name;
    int value;
};
constexpr NamedErrno kErrnos[] = {{"EIO", EIO},       {"ENOSPC", ENOSPC}, {"EACCES", EACCES}, {"ENOENT", ENOENT},
                                  {"EROFS", EROFS},   {"EDQUOT", EDQUOT}, {"EPERM", EPERM},   {"EBADF", EBADF},
                                  {"EINTR", EINTR},   {"EAGAIN", EAGAIN}, {"ESTALE", ESTALE}, {"ETIMEDOUT", ETIMEDOUT}};

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (;;) {
        const std::size_t p = s.find(sep, start);
        out.push_back(s.substr(start, p == std::string::npos ? std::string::npos : p - start));
        if (p == std::string::npos) return out;
        start = p + 1;
    }
}

std::string trimmed(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return {};
    return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

std::uint64_t number(const std::string& rule, const std::string& key, const std::string& value) {
    std::uint64_t v = 0;
    const char* end = value.data() + value.size();
    const auto [p, ec] = std::from_chars(value.data(), end, v);
    if (value.empty() || ec != std::errc() || p != end)
        throw InputError(describeProblem("fault rule '" + rule + "'", key, value, "a whole number >= 0"));
    return v;
}

FaultOp opFromName(const std::string& rule, const std::string& s) {
    if (s == "open") return FaultOp::Open;
    if (s == "read") return FaultOp::Read;
    if (s == "write") return FaultOp::Write;
    if (s == "fsync") return FaultOp::Fsync;
    if (s == "close") return FaultOp::Close;
    if (s == "size") return FaultOp::Size;
    if (s == "any") return FaultOp::Any;
    throw InputError(describeProblem("fault rule '" + rule + "'", "operation", s,
                                     "open, read, write, fsync, close, size or any"));
}

bool matchesOp(FaultOp rule, FaultOp call) { return rule == FaultOp::Any || rule == call; }
bool isData(FaultOp op) { return op == FaultOp::Read || op == FaultOp::Write; }

} // namespace

int errnoFromName(const std::string& name) {
    for (const auto& e : kErrnos)
        if (name == e.name) return e.value;
    return 0;
}

std::vector<FaultRule> parseFaultRules(const std::string& text) {
    std::vector<FaultRule> rules;
    for (const std::string& raw : split(text, ';')) {
        const std::string ruleText = trimmed(raw);
        if (ruleText.empty()) continue;
        const std::vector<std::string> f = split(ruleText, ':');
        if (f.size() < 2)
            throw InputError(describeProblem("fault rule '" + ruleText + "'", "", "",
                                             "op:action[:path][:key=value…], e.g. read:EIO:img_3_of:after=65536"));
        FaultRule r;
        r.op = opFromName(ruleText, f[0]);
        const std::string& action = f[1];
        bool countGiven = false;
        if (const int e = errnoFromName(action)) {
            r.action = FaultAction::Fail;
            r.error = e;
        } else if (action == "short") {
            r.action = FaultAction::ShortIo;
        } else if (action == "delay") {
            r.action = FaultAction::Delay;
            r.delay = std::chrono::milliseconds(100);
        } else if (action == "truncate") {
            r.action = FaultAction::Truncate;
        } else if (action == "unlink") {
            r.action = FaultAction::Unlink;
        } else {
            std::string names;
            for (const auto& e : kErrnos) names += std::string(e.name) + ", ";
            throw InputError(describeProblem("fault rule '" + ruleText + "'", "action", action,
                                             names + "short, delay, truncate or unlink"));
        }
        for (std::size_t i = 2; i < f.size(); ++i) {
            const auto eq = f[i].find('=');
            if (eq == std::string::npos) {
                if (!r.pathContains.empty())
                    throw InputError(describeProblem("fault rule '" + ruleText + "'", "path", f[i],
                                                     "one path substring (options are key=value)"));
                r.pathContains = f[i];
                continue;
            }
            const std::string key = f[i].substr(0, eq), value = f[i].substr(eq + 1);
            if (key == "after") r.afterBytes = number(ruleText, key, value);
            else if (key == "skip") r.skip = number(ruleText, key, value);
            else if (key == "count") {
                r.count = number(ruleText, key, value);
                countGiven = true;
            } else if (key == "ms") r.delay = std::chrono::milliseconds(number(ruleText, key, value));
            else if (key == "max") r.maxBytes = number(ruleText, key, value);
            else if (key == "to") r.truncateTo = number(ruleText, key, value);
            else
                throw InputError(describeProblem("fault rule '" + ruleText + "'", "option", key,
                                                 "after, skip, count, ms, max or to"));
        }
        if ((r.action == FaultAction::ShortIo || r.afterBytes > 0) && !isData(r.op) && r.op != FaultOp::Any)
            throw InputError(describeProblem("fault rule '" + ruleText + "'", "operation", f[0],
                                             "read or write for short I/O and after=BYTES"));
        // Changing the file is a one-off event unless asked otherwise (re-truncating on every call is
        // not what "the file was truncated during the run" means).
        if (!countGiven && (r.action == FaultAction::Truncate || r.action == FaultAction::Unlink)) r.count = 1;
        rules.push_back(std::move(r));
    }
    return rules;
}

FaultInjectingBackend::FaultInjectingBackend(std::shared_ptr<IoBackend> inner, std::vector<FaultRule> rules)
    : inner_(inner ? std::move(inner) : makePosixBackend()), rules_(std::move(rules)), state_(rules_.size()) {}

std::string FaultInjectingBackend::pathOf(int handle) const {
    std::lock_guard lock(pathsMutex_);
    const auto it = paths_.find(handle);
    return it == paths_.end() ? std::string() : it->second;
}

FaultInjectingBackend::Decision FaultInjectingBackend::decide(FaultOp op, const std::string& path,
                                                              std::uint64_t offset, std::size_t len) {
    Decision d;
    d.len = len;
    std::lock_guard lock(decideMutex_);
    for (std::size_t i = 0; i < rules_.size(); ++i) {
        const FaultRule& r = rules_[i];
        if (!matchesOp(r.op, op)) continue;
        if (!r.pathContains.empty() && path.find(r.pathContains) == std::string::npos) continue;
        if (isData(op) && r.afterBytes > 0) {
            if (offset + len <= r.afterBytes) continue;
            if (offset < r.afterBytes) {
                // Let the bytes before the boundary through; the next call (at the boundary) fires.
                d.len = static_cast<std::size_t>(r.afterBytes - offset);
                return d;
            }
        }
        RuleState& s = state_[i];
        if (s.fired.load() >= r.count) continue;
        if (s.seen.fetch_add(1) < r.skip) continue;
        s.fired.fetch_add(1);
        d.rule = &r;
        return d;
    }
    return d;
}

std::uint64_t FaultInjectingBackend::fired(std::size_t rule) const {
    return rule < state_.size() ? state_[rule].fired.load() : 0;
}

std::uint64_t FaultInjectingBackend::firedTotal() const {
    std::uint64_t n = 0;
    for (const auto& s : state_) n += s.fired.load();
    return n;
}

namespace {

// The side effects that precede the real call; returns -errno for Fail, 0 otherwise.
int applyBefore(const FaultRule* r, const std::string& path) {
    if (!r) return 0;
    switch (r->action) {
    case FaultAction::Fail: return -r->error;
    case FaultAction::Delay: std::this_thread::sleep_for(r->delay); return 0;
    case FaultAction::Truncate:
        if (!path.empty()) (void)::truncate(path.c_str(), static_cast<off_t>(r->truncateTo));
        return 0;
    case FaultAction::Unlink:
        if (!path.empty()) (void)::unlink(path.c_str());
        return 0;
    case FaultAction::ShortIo: return 0;
    }
    return 0;
}

std::size_t shortLength(const FaultRule* r, std::size_t len) {
    if (!r || r->action != FaultAction::ShortIo || len <= 1) return len;
    const std::size_t cut = r->maxBytes > 0 ? static_cast<std::size_t>(std::min<std::uint64_t>(r->maxBytes, len)) : len / 2;
    return std::max<std::size_t>(cut, 1);
}

} // namespace

int FaultInjectingBackend::open(const std::string& path, const OpenOptions& opts) {
    const Decision d = decide(FaultOp::Open, path, 0, 0);
    if (const int rc = applyBefore(d.rule, path); rc < 0) return rc;
    const int h = inner_->open(path, opts);
    if (h >= 0) {
        std::lock_guard lock(pathsMutex_);
        paths_[h] = path;
    }
    return h;
}

ssize_t FaultInjectingBackend::pread(int handle, void* buf, std::size_t len, std::uint64_t offset) {
    const std::string path = pathOf(handle);
    const Decision d = decide(FaultOp::Read, path, offset, len);
    if (const int rc = applyBefore(d.rule, path); rc < 0) return rc;
    return inner_->pread(handle, buf, shortLength(d.rule, d.len), offset);
}

ssize_t FaultInjectingBackend::pwrite(int handle, const void* buf, std::size_t len, std::uint64_t offset) {
    const std::string path = pathOf(handle);
    const Decision d = decide(FaultOp::Write, path, offset, len);
    if (const int rc = applyBefore(d.rule, path); rc < 0) return rc;
    return inner_->pwrite(handle, buf, shortLength(d.rule, d.len), offset);
}

std::int64_t FaultInjectingBackend::size(int handle) {
    const std::string path = pathOf(handle);
    const Decision d = decide(FaultOp::Size, path, 0, 0);
    if (const int rc = applyBefore(d.rule, path); rc < 0) return rc;
    return inner_->size(handle);
}

int FaultInjectingBackend::fsync(int handle) {
    const std::string path = pathOf(handle);
    const Decision d = decide(FaultOp::Fsync, path, 0, 0);
    if (const int rc = applyBefore(d.rule, path); rc < 0) return rc;
    return inner_->fsync(handle);
}

int FaultInjectingBackend::close(int handle) {
    std::string path;
    {
        // Forget the handle before the real close: once closed, its number can be reused by another open.
        std::lock_guard lock(pathsMutex_);
        if (const auto it = paths_.find(handle); it != paths_.end()) {
            path = std::move(it->second);
            paths_.erase(it);
        }
    }
    const Decision d = decide(FaultOp::Close, path, 0, 0);
    const int injected = applyBefore(d.rule, path);
    // A failing close still releases the descriptor (POSIX close), so the real one always happens.
    const int rc = inner_->close(handle);
    return injected < 0 ? injected : rc;
}

std::shared_ptr<IoBackend> withFaults(std::shared_ptr<IoBackend> inner, const std::string& spec) {
    std::vector<FaultRule> rules = parseFaultRules(spec);
    if (rules.empty()) return inner;
    return std::make_shared<FaultInjectingBackend>(std::move(inner), std::move(rules));
}

} // namespace trainio
