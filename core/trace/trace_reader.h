// A captured training job's I/O trace (`trainio-cli capture`, docs/capture.md): its folder's names, the
// filter rule that decides which files are data, the header's writer and the reader of the whole folder.
//
//   TRACE_DIR/trainio_trace.json     header: format and version, command, start/end, exit code, the filter
//                                    rule, whether step marks were possible (written by capture)
//   TRACE_DIR/events.<pid>.jsonl     one per process that touched a data file (the interposer)
//   TRACE_DIR/marks.<pid>.jsonl      step marks of trainio_capture.steps (the Python module)
//
// The reader is bounded (line length, events, files) and names the file and line of anything malformed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace trainio::trace {

inline constexpr const char* kHeaderFile = "trainio_trace.json";
inline constexpr const char* kFormatName = "trainio-trace";
inline constexpr int kFormatVersion = 1;
// Bounds of the reader: a longer line, more events or more files is an error naming the bound.
inline constexpr std::size_t kMaxLineBytes = 64 * 1024;
inline constexpr std::uint64_t kMaxEvents = 50'000'000;
inline constexpr std::size_t kMaxFiles = 4096;

// Which opened files count as the job's data (the interposer applies it at open; docs/capture.md):
// opened read-only, a regular file, whose absolute path starts with none of `prefixes`, contains none
// of `parts`, ends with none of `suffixes`, and is not inside the trace folder.
struct FilterRule {
    std::vector<std::string> prefixes;
    std::vector<std::string> parts;
    std::vector<std::string> suffixes;
    std::string describe() const; // the rule in one sentence, for the header and the report
};
// The rule `capture` applies: the interpreter's and the libraries' trees (and /proc, /sys, /dev, /etc,
// /run), Python packages (site-packages, dist-packages, lib/pythonX.Y, __pycache__), code and
// shared-object files.
FilterRule defaultFilterRule();
// "a:b:c": how the interposer receives each list (TRAINIO_CAPTURE_EXCLUDE_*).
std::string joinColon(const std::vector<std::string>& items);

struct TraceHeader {
    std::string format = kFormatName;
    int version = kFormatVersion;
    std::vector<std::string> command;
    std::string cwd;
    std::string start;      // ISO 8601 local time
    std::uint64_t startNs = 0; // CLOCK_MONOTONIC at the job's start
    std::uint64_t endNs = 0;   // 0 while the job runs
    int exitCode = -1;         // -1 while the job runs
    int jobPid = 0;
    bool pythonMarks = true; // trainio_capture was on PYTHONPATH (false: --no-python)
    FilterRule rule;
};

std::string headerJson(const TraceHeader& h);
// Writes TRACE_DIR/trainio_trace.json (temporary file, then rename).
void writeHeader(const std::filesystem::path& dir, const TraceHeader& h);

enum class Op { Open, Read, Pread, Readv, Preadv, Mmap, Munmap, Close, Fread };
const char* toString(Op op);
// Reads that move file bytes through a call (not mmap).
inline bool isRead(Op op) { return op == Op::Read || op == Op::Pread || op == Op::Readv || op == Op::Preadv || op == Op::Fread; }

struct IoEvent {
    Op op = Op::Read;
    std::uint64_t t = 0;   // CLOCK_MONOTONIC ns at the call's start
    std::uint64_t dur = 0; // ns
    int pid = 0;
    std::uint32_t tid = 0;
    int fd = -1;
    std::uint64_t off = 0;  // offset (read: the descriptor's position before the call)
    std::uint64_t n = 0;    // bytes read or mapped
    std::uint64_t size = 0; // open: the file's size
    std::uint64_t addr = 0; // mmap, munmap
    std::uint64_t cpu = 0;  // open, close: the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID, ns) after it; 0 unknown
    std::uint64_t runWait = 0; // open: 1 + its time runnable but waiting for a core (schedstat, ns); 0 unknown
    std::uint32_t path = UINT32_MAX; // open: index into Trace::paths
};

struct ProcessInfo {
    int pid = 0;
    int ppid = 0;
    std::uint64_t t = 0;
    std::string exe;
};

enum class MarkOp { EpochBegin, Ask, Batch, EpochEnd };
struct Mark {
    MarkOp op = MarkOp::Ask;
    std::uint64_t t = 0;
    int pid = 0;
    std::uint64_t epoch = 0;
    std::uint64_t step = 0;   // ask, batch; epoch_end: the steps of the epoch
    std::int64_t size = -1;   // batch: samples in it when the module could tell, else -1
};

struct Trace {
    std::filesystem::path dir;
    TraceHeader header;
    std::vector<std::string> paths;     // distinct data-file paths
    std::vector<IoEvent> events;        // all processes, by time
    std::vector<ProcessInfo> processes; // those that touched a data file
    std::vector<Mark> marks;            // by time
};

// Reads a trace folder. Throws InputError naming the folder, or the file and line, and what was expected.
Trace readTrace(const std::filesystem::path& dir);

} // namespace trainio::trace
