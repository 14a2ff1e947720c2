#include "results/journal.h"

#include "config/config_loader.h"
#include "loader/sample_order.h"
#include "engine/training_engine.h"
#include "results/invocation_files.h"
#include "util/errors.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace trainio::store {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json headerJson(const JournalHeader& h) {
    return json{{"trainio_journal", 1},
                {"trainio_version", TRAINIO_VERSION},
                {"accelerators", h.accelerators},
                {"processes", h.processes},
                {"semantics", semanticsName(h.semantics)},
                {"start", h.start},
                {"host",
                 {{"hostname", h.host.hostname},
                  {"os", h.host.os},
                  {"cpu_count", h.host.cpuCount},
                  {"memory_GiB", h.host.memoryGiB},
                  {"cpu_model", h.host.cpuinfo.is_object() ? h.host.cpuinfo.value("model name", std::string()) : std::string()}}},
                {"command_line", h.commandLine}};
}

json epochJson(std::uint64_t rank, const EpochRecord& e) {
    json blocks = json::array();
    for (const auto& b : e.blocks)
        blocks.push_back({{"block", b.block}, {"start", b.start}, {"end", b.end}, {"load", b.load}, {"compute", b.compute},
                          {"proc", b.proc}});
    return json{{"rank", rank}, {"epoch", e.epoch}, {"start", e.start}, {"end", e.end}, {"complete", e.complete},
                {"blocks", blocks}};
}

json checkpointJson(const checkpoint::CheckpointRecord& c) {
    return json{{"ckpt", c.op == checkpoint::Operation::Write ? "write" : "read"},
                {"rank", c.rank},
                {"index", c.index},
                {"block", c.block},
                {"epoch", c.epoch},
                {"step", c.step},
                {"start", c.start},
                {"end", c.end},
                {"io_seconds", c.ioSeconds},
                {"storage_seconds", c.storageSeconds},
                {"bytes", c.bytes},
                {"complete", c.complete}};
}

void writeAll(int fd, const std::string& text, const fs::path& path) {
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw RunError("write " + path.string() + ": " + errnoText(errno));
        }
        done += static_cast<std::size_t>(n);
    }
}

// Readers of a journal line's fields: a missing or mistyped field throws InputError naming the line.
struct LineReader {
    const json& j;
    const fs::path& file;
    std::size_t line;
    [[noreturn]] void bad(const std::string& what) const {
        throw InputError(file.string() + ":" + std::to_string(line) + ": " + what);
    }
    const json& at(const char* key) const {
        const auto it = j.find(key);
        if (it == j.end()) bad(std::string("no \"") + key + "\"");
        return *it;
    }
    double number(const char* key) const {
        const json& v = at(key);
        if (!v.is_number()) bad(std::string("\"") + key + "\": expected a number");
        return v.get<double>();
    }
    std::uint64_t count(const char* key) const {
        const json& v = at(key);
        if (!v.is_number_unsigned()) bad(std::string("\"") + key + "\": expected a whole number ≥ 0");
        return v.get<std::uint64_t>();
    }
    std::vector<double> numbers(const json& o, const char* key) const {
        const auto it = o.find(key);
        if (it == o.end() || !it->is_array()) bad(std::string("\"") + key + "\": expected a list of numbers");
        std::vector<double> out;
        out.reserve(it->size());
        for (const json& v : *it) {
            if (!v.is_number()) bad(std::string("\"") + key + "\": expected a list of numbers");
            out.push_back(v.get<double>());
        }
        return out;
    }
};

} // namespace

RunJournal::RunJournal(const fs::path& dir, const JournalHeader& header) : path_(dir / kJournalFile) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd_ < 0) throw RunError("create " + path_.string() + ": " + errnoText(errno) + " (nothing was measured)");
    // Held while the run is alive (released by the kernel however the process ends): how a reader tells a
    // folder being written from one whose run died (isInterrupted).
    ::flock(fd_, LOCK_EX | LOCK_NB);
    try {
        writeAll(fd_, headerJson(header).dump() + "\n", path_);
        if (::fdatasync(fd_) != 0) throw RunError("sync " + path_.string() + ": " + errnoText(errno));
    } catch (...) {
        ::close(fd_);
        fd_ = -1;
        throw;
    }
    thread_ = std::thread([this] { loop(); });
}

RunJournal::~RunJournal() { finish(); }

void RunJournal::epoch(std::uint64_t rank, const EpochRecord& e) {
    // A copy of the record only: it is turned into text on the writer thread, not the rank's.
    {
        std::lock_guard lock(mutex_);
        if (finished_) return;
        pending_.push_back({rank, e});
    }
    cv_.notify_one();
}

void RunJournal::checkpoint(const checkpoint::CheckpointRecord& r) {
    {
        std::lock_guard lock(mutex_);
        if (finished_) return;
        pendingCheckpoints_.push_back(r);
    }
    cv_.notify_one();
}

void RunJournal::loop() {
    std::unique_lock lock(mutex_);
    for (;;) {
        cv_.wait(lock, [this] { return stop_ || !pending_.empty() || !pendingCheckpoints_.empty(); });
        std::vector<std::pair<std::uint64_t, EpochRecord>> batch;
        batch.swap(pending_);
        std::vector<checkpoint::CheckpointRecord> checkpoints;
        checkpoints.swap(pendingCheckpoints_);
        const bool last = stop_;
        lock.unlock();
        std::string failure;
        if (!batch.empty() || !checkpoints.empty()) {
            try {
                std::string text;
                for (const auto& [rank, e] : batch)
                    text += epochJson(rank, e).dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
                for (const auto& c : checkpoints) text += checkpointJson(c).dump() + "\n";
                writeAll(fd_, text, path_);
                // Durable at each epoch end: the ranks post their epoch as it ends, so one batch is (at
                // most) an epoch's lines.
                if (::fdatasync(fd_) != 0) throw RunError("sync " + path_.string() + ": " + errnoText(errno));
            } catch (const std::exception& e) {
                failure = e.what();
            }
        }
        lock.lock();
        if (!failure.empty() && error_.empty()) error_ = failure;
        if (last && pending_.empty() && pendingCheckpoints_.empty()) return;
    }
}

void RunJournal::finish() {
    {
        std::lock_guard lock(mutex_);
        if (finished_) return;
        stop_ = true;
    }
    cv_.notify_one();
    if (thread_.joinable()) thread_.join();
    std::lock_guard lock(mutex_);
    finished_ = true;
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

std::string RunJournal::error() const {
    std::lock_guard lock(mutex_);
    return error_;
}

JournalContents readJournal(const fs::path& dir, std::uintmax_t maxBytes) {
    const fs::path file = dir / kJournalFile;
    std::error_code ec;
    const auto st = fs::symlink_status(file, ec);
    if (ec || !fs::exists(st)) throw InputError(file.string() + ": no such file");
    if (fs::is_symlink(st)) throw InputError(file.string() + ": a symbolic link; a journal is read only as a regular file");
    if (!fs::is_regular_file(st)) throw InputError(file.string() + ": not a regular file");
    const auto size = fs::file_size(file, ec);
    if (ec || size > maxBytes)
        throw InputError(file.string() + ": " + std::to_string(size) + " bytes, more than the " + std::to_string(maxBytes) +
                         " a journal may have");
    // Through the store's one bounded reader (what a ReadLog lists).
    std::string why;
    const std::optional<std::string> read = readBoundedFile(file, maxBytes, why);
    if (!read) throw InputError(file.string() + ": " + why);
    const std::string& text = *read;

    JournalContents out;
    std::size_t pos = 0, lineNo = 0;
    while (pos < text.size()) {
        const std::size_t nl = text.find('\n', pos);
        ++lineNo;
        if (nl == std::string::npos) {
            out.tornTail = true; // written up to a crash or a power loss: never synced, ignored
            break;
        }
        const std::string_view line(text.data() + pos, nl - pos);
        pos = nl + 1;
        const json j = json::parse(line, nullptr, false);
        if (j.is_discarded() || !j.is_object()) {
            if (pos >= text.size()) { // the last line: torn by a crash, the rest is good
                out.tornTail = true;
                break;
            }
            throw InputError(file.string() + ":" + std::to_string(lineNo) + ": not a JSON object");
        }
        const LineReader r{j, file, lineNo};
        if (lineNo == 1) {
            if (!j.contains("trainio_journal")) r.bad("not a TrainIO journal (no \"trainio_journal\" header)");
            if (r.count("trainio_journal") != 1) r.bad("journal format " + j["trainio_journal"].dump() + ": expected 1");
            JournalHeader& h = out.header;
            h.accelerators = r.count("accelerators");
            h.processes = r.count("processes");
            if (h.accelerators == 0 || h.accelerators > 65536) r.bad("\"accelerators\": expected 1 … 65536");
            const json& sem = r.at("semantics");
            const auto s = sem.is_string() ? parseSemantics(sem.get<std::string>()) : std::nullopt;
            if (!s) r.bad("\"semantics\": expected \"v1\", \"v2\" or \"v3\"");
            h.semantics = *s;
            h.start = r.number("start");
            const json& host = r.at("host");
            if (!host.is_object()) r.bad("\"host\": expected an object");
            h.host.hostname = host.value("hostname", std::string());
            h.host.os = host.value("os", std::string());
            h.host.cpuCount = host.value("cpu_count", 0u);
            h.host.memoryGiB = host.value("memory_GiB", 0.0);
            const std::string model = host.value("cpu_model", std::string());
            if (!model.empty()) h.host.cpuinfo["model name"] = model;
            if (const auto c = j.find("command_line"); c != j.end() && c->is_string()) h.commandLine = c->get<std::string>();
            out.ranks.resize(h.accelerators);
            for (std::uint64_t g = 0; g < h.accelerators; ++g) out.ranks[g].rank = g;
            continue;
        }
        const std::uint64_t rank = r.count("rank");
        if (rank >= out.ranks.size()) r.bad("\"rank\" " + std::to_string(rank) + ": the journal's header has " +
                                           std::to_string(out.ranks.size()) + " accelerators");
        if (const auto op = j.find("ckpt"); op != j.end()) {
            if (!op->is_string() || (*op != "write" && *op != "read")) r.bad("\"ckpt\": expected \"write\" or \"read\"");
            checkpoint::CheckpointRecord c;
            c.op = *op == "write" ? checkpoint::Operation::Write : checkpoint::Operation::Read;
            c.rank = rank;
            c.index = r.count("index");
            c.block = r.count("block");
            c.epoch = r.count("epoch");
            c.step = r.count("step");
            c.start = r.number("start");
            c.end = r.number("end");
            c.ioSeconds = r.number("io_seconds");
            c.storageSeconds = r.number("storage_seconds");
            c.bytes = r.count("bytes");
            const json& done = r.at("complete");
            if (!done.is_boolean()) r.bad("\"complete\": expected true or false");
            c.complete = done.get<bool>();
            out.checkpoints.push_back(c);
            continue;
        }
        EpochRecord e;
        e.epoch = r.count("epoch");
        e.start = r.number("start");
        e.end = r.number("end");
        const json& complete = r.at("complete");
        if (!complete.is_boolean()) r.bad("\"complete\": expected true or false");
        e.complete = complete.get<bool>();
        const json& blocks = r.at("blocks");
        if (!blocks.is_array()) r.bad("\"blocks\": expected a list");
        for (const json& bj : blocks) {
            if (!bj.is_object()) r.bad("\"blocks\": expected objects");
            const LineReader br{bj, file, lineNo};
            BlockRecord b;
            b.block = br.count("block");
            b.start = br.number("start");
            b.end = br.number("end");
            b.load = br.numbers(bj, "load");
            b.compute = br.numbers(bj, "compute");
            b.proc = br.numbers(bj, "proc");
            if (b.load.size() != b.proc.size() || b.compute.size() != b.proc.size())
                r.bad("block " + std::to_string(b.block) + ": load, compute and proc differ in length");
            e.blocks.push_back(std::move(b));
        }
        auto& epochs = out.ranks[rank].epochs;
        if (!epochs.empty() && epochs.back().epoch >= e.epoch)
            r.bad("rank " + std::to_string(rank) + " epoch " + std::to_string(e.epoch) + " after epoch " +
                  std::to_string(epochs.back().epoch));
        epochs.push_back(std::move(e));
    }
    if (lineNo == 0 || out.ranks.empty()) throw InputError(file.string() + ": empty (no header)");
    return out;
}

bool isRunning(const fs::path& dir) {
    const int fd = ::open((dir / kJournalFile).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return false;
    const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    ::close(fd); // (releases the shared lock if it was taken)
    return held;
}

bool isInterrupted(const fs::path& dir) {
    std::error_code ec;
    return fs::is_regular_file(fs::symlink_status(dir / kJournalFile, ec)) &&
           !fs::exists(fs::symlink_status(dir / kSummaryFile, ec)) && !isRunning(dir);
}

namespace {

// What every interrupted run read back starts with: its journal's header.
RunOutcome interruptedOutcome(const JournalContents& j) {
    RunOutcome out;
    out.status = RunStatus::Interrupted;
    out.processes = j.header.processes;
    out.start = j.header.start;
    out.end = j.header.start;
    out.metricOptions.semantics = j.header.semantics;
    return out;
}

// ... and ends with: its host, the log's lines and the folder written.
void writeInterrupted(const fs::path& dir, const WorkloadConfig& cfg, RunOutcome& out, const JournalContents& j) {
    out.hosts.push_back(HostSummary{j.header.host.hostname, j.header.host.cpuCount, j.header.host.memoryGiB});
    out.rankHost.assign(j.header.accelerators, 0);
    if (j.tornTail) out.warnings.push_back("the journal's last line was cut off (ignored)");
    InvocationContext ctx;
    ctx.commandLine = j.header.commandLine;
    ctx.logLines = out.warnings;
    writeInvocationFolder(dir, cfg, out, j.header.host, ctx);
}

// A checkpoint-only run read back: every record the journal holds, per rank, with the plan and DLIO's size
// as the run had them (checkpoint/checkpoint_io.h, Checkpointer::results).
RunOutcome completeInterruptedCheckpoints(const fs::path& dir, const WorkloadConfig& cfg, const JournalContents& j) {
    const std::uint64_t R = j.header.accelerators;
    RunOutcome out = interruptedOutcome(j);
    out.ranks.resize(R);
    for (std::uint64_t g = 0; g < R; ++g) out.ranks[g].rank = g;
    checkpoint::CheckpointResults& c = out.checkpoints;
    c.enabled = true;
    c.folder = cfg.checkpoint.folder;
    c.plan = checkpoint::planCheckpoint(cfg, R);
    c.sizeGiB = c.plan.dlioCheckpointSizeGiB * c.plan.scale;
    c.perRank.resize(R);
    std::uint64_t records = 0;
    for (const auto& rec : j.checkpoints) {
        c.perRank[rec.rank].push_back(rec);
        out.end = std::max(out.end, rec.end);
        if (rec.op == checkpoint::Operation::Read) out.bytesRead += rec.bytes;
        ++records;
    }
    c.phaseStart = out.start;
    c.phaseEnd = out.end;
    out.error = "interrupted: the run stopped without ending (killed, out of memory, power lost or crashed) after " +
                std::to_string(records) + " checkpoint records of " + std::to_string(R) +
                " ranks; they were read back from its journal (" + kJournalFile + ")";
    out.warnings.push_back(out.error);
    writeInterrupted(dir, cfg, out, j);
    return out;
}

} // namespace

RunOutcome completeInterrupted(const fs::path& dir) {
    const fs::path config = dir / configFolders().front() / kConfigFile;
    std::error_code ec;
    // The process that died may have been between creating a file's temporary and renaming it (mpirun's
    // teardown SIGKILLs process 0 while it writes what was measured): no live run holds the folder, so
    // none of its temporaries will ever be renamed.
    removeStaleTemporaries(dir);
    if (!fs::is_regular_file(fs::symlink_status(config, ec)))
        throw InputError(config.string() + ": missing; an interrupted run is read back from its configuration and journal");
    const WorkloadConfig cfg = loadWorkloadConfig(config.string()).config;
    JournalContents j = readJournal(dir);
    const std::uint64_t R = j.header.accelerators;
    if (!cfg.workflow.train && cfg.workflow.checkpoint) return completeInterruptedCheckpoints(dir, cfg, j);

    RunOutcome out = interruptedOutcome(j);
    out.metricOptions.excludeStartSteps = cfg.metric.excludeStartSteps;
    out.metricOptions.excludeEndSteps = cfg.metric.excludeEndSteps;
    out.metricOptions.batchSize = cfg.reader.batchSize;
    out.stepsPerEpoch = planShard(cfg, 0, R).stepsPerEpoch;
    out.metricOptions.expectedSteps = out.stepsPerEpoch;
    out.runSeed = cfg.train.seed;
    // Only the epochs every rank completed count (as in any run that stopped early).
    std::uint64_t common = cfg.train.epochs;
    for (const auto& r : j.ranks) {
        std::uint64_t n = 0;
        for (const auto& e : r.epochs)
            if (e.complete && e.epoch == n + 1) ++n;
        common = std::min(common, n);
    }
    std::uint64_t steps = 0;
    for (auto& r : j.ranks) {
        r.epochs.resize(std::min<std::size_t>(r.epochs.size(), common));
        for (const auto& e : r.epochs) {
            out.end = std::max(out.end, e.end);
            steps += e.steps();
        }
    }
    out.samplesRead = steps * cfg.reader.batchSize;
    out.ranks = std::move(j.ranks);
    out.metrics = invocationMetrics(out.ranks, out.metricOptions, cfg.dataset.recordLength, cfg.metric.au);
    out.error = "interrupted: the run stopped without ending (killed, out of memory, power lost or crashed) after " +
                std::to_string(common) + " of " + std::to_string(cfg.train.epochs) +
                " epochs; the completed epochs were read back from its journal (" + kJournalFile + ")";
    out.warnings.push_back(out.error);
    out.warnings.push_back("bytes read and CPU time are not journaled: trainio_run.json's bytes_read and cpu_seconds are 0");
    writeInterrupted(dir, cfg, out, j);
    return out;
}

} // namespace trainio::store
