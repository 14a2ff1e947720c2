#include "preflight/preflight.h"

#include "preflight/memory_budget.h"

#include "util/statistics.h"
#include "config/config_loader.h"
#include "dataset/dataset_generator.h"
#include "dataset/dataset_layout.h"
#include "dataset/record_shape.h"
#include "loader/sample_order.h"
#include "format/crc32c.h"
#include "format/format_writer.h"
#include "io/cache_control.h"
#include "io/io_engines.h"
#include "io/s3_backend.h"
#include "io/storage_profile.h"
#include "util/errors.h"

#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <optional>
#include <string_view>
#include <utility>

namespace trainio {
namespace fs = std::filesystem;

namespace {

// The remedies in the command line's words, and the GUI's words for the same (speakGui). Used by the
// checks below, so that the two never drift apart.
constexpr std::string_view kCliGenerateFirst = "run datagen first, or turn on workflow.generate_data";
constexpr std::string_view kGuiGenerateFirst = "generate it on the Data page first, or turn on workflow.generate_data "
                                               "(Workload page, Workflow)";
constexpr std::string_view kCliRegenerate = "trainio-cli clean, then datagen";
constexpr std::string_view kGuiRegenerate = "on the Data page: Clean…, then Generate";
constexpr std::string_view kCliRegenerateIt = "regenerate it with datagen";
constexpr std::string_view kGuiRegenerateIt = "regenerate it on the Data page";
constexpr std::string_view kCliOutput = "--output";
constexpr std::string_view kGuiOutput = "Output folder";

void replaceAll(std::string& text, std::string_view from, std::string_view to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
}

// The same problems in the GUI's words: what to click, not what to type.
void speakGui(PreflightResult& r) {
    const std::pair<std::string_view, std::string_view> words[] = {
        {kCliGenerateFirst, kGuiGenerateFirst}, {kCliRegenerate, kGuiRegenerate}, {kCliRegenerateIt, kGuiRegenerateIt}};
    for (PreflightProblem& p : r.problems) {
        if (p.subject == kCliOutput) p.subject = kGuiOutput;
        for (std::string* text : {&p.found, &p.expected})
            for (const auto& [cli, gui] : words) replaceAll(*text, cli, gui);
    }
    for (std::string& w : r.warnings)
        for (const auto& [cli, gui] : words) replaceAll(w, cli, gui);
}

std::string gib(double bytes) {
    char buf[64];
    if (bytes >= 1073741824.0) std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / 1073741824.0);
    else if (bytes >= 1048576.0) std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / 1048576.0);
    else if (bytes >= 1024.0) std::snprintf(buf, sizeof buf, "%.1f KiB", bytes / 1024.0);
    else std::snprintf(buf, sizeof buf, "%.0f bytes", bytes);
    return buf;
}

// The folder that exists and would hold `p` once created: p itself, or its nearest existing ancestor.
fs::path nearestExisting(const fs::path& p) {
    fs::path cur = fs::absolute(p).lexically_normal();
    std::error_code ec;
    while (!cur.empty() && !fs::exists(fs::symlink_status(cur, ec))) {
        if (cur == cur.parent_path()) break;
        cur = cur.parent_path();
    }
    return cur;
}

// Whether a file can really be created in `dir` (permissions, read-only mounts, ACLs and root alike):
// create a uniquely named temporary and remove it. access(2) would say yes to root on a read-only bind.
std::string probeWritable(const fs::path& dir) {
    const std::string probe = (dir / (".trainio-preflight-" + std::to_string(::getpid()))).string();
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return errnoText(errno);
    ::close(fd);
    ::unlink(probe.c_str());
    return {};
}

std::optional<double> freeBytes(const fs::path& dir) {
    struct statvfs st {};
    if (::statvfs(dir.c_str(), &st) != 0) return std::nullopt;
    return static_cast<double>(st.f_bavail) * static_cast<double>(st.f_frsize);
}

// A folder that will be created (or written into) for the action: it, or its nearest existing ancestor,
// must be a directory we can write, with `needBytes` of room.
void checkFolder(const std::string& subject, const fs::path& folder, double needBytes, const std::string& forWhat,
                 PreflightResult& r, bool roomIsAdvisory = false) {
    std::error_code ec;
    const auto st = fs::status(folder, ec);
    if (fs::exists(st) && !fs::is_directory(st)) {
        r.problems.push_back({subject, folder.string() + " exists and is not a folder", "a folder for " + forWhat});
        return;
    }
    const fs::path base = nearestExisting(folder);
    if (!fs::is_directory(fs::status(base, ec))) {
        r.problems.push_back({subject, base.string() + " is not a folder, so " + folder.string() + " cannot be created",
                              "a path whose existing part is a folder"});
        return;
    }
    if (const std::string why = probeWritable(base); !why.empty()) {
        r.problems.push_back({subject, (base == folder ? folder.string() : base.string() + " (to create " + folder.string() + ")") +
                                           " cannot be written: " + why,
                              "a folder this user can write, for " + forWhat});
        return;
    }
    if (const auto free = freeBytes(base); free && *free < needBytes) {
        PreflightProblem p{subject, base.string() + " has " + gib(*free) + " free", "at least " + gib(needBytes) + " for " + forWhat};
        if (roomIsAdvisory) r.warnings.push_back(p.text());
        else r.problems.push_back(p);
    }
}

// The first bytes each format starts with (what its reader would refuse first); raw and indexed_binary
// have no framing to check.
std::string headerProblem(DataFormat format, const std::string& path, std::uint64_t size) {
    std::array<unsigned char, 12> h{};
    std::ifstream in(path, std::ios::binary);
    if (!in) return "cannot be opened: " + errnoText(errno ? errno : EACCES);
    in.read(reinterpret_cast<char*>(h.data()), static_cast<std::streamsize>(h.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    auto starts = [&](std::initializer_list<unsigned char> magic) {
        if (got < magic.size()) return false;
        return std::equal(magic.begin(), magic.end(), h.begin());
    };
    switch (format) {
    case DataFormat::Npz:
        return starts({'P', 'K', 0x03, 0x04}) ? "" : "does not start like a zip archive (npz)";
    case DataFormat::Npy:
        return starts({0x93, 'N', 'U', 'M', 'P', 'Y'}) ? "" : "does not start with the .npy magic";
    case DataFormat::Hdf5:
        return starts({0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'}) ? "" : "does not start with the HDF5 signature";
    case DataFormat::Jpeg: return starts({0xFF, 0xD8, 0xFF}) ? "" : "does not start with a JPEG marker";
    case DataFormat::Png:
        return starts({0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}) ? "" : "does not start with the PNG signature";
    case DataFormat::Tfrecord: {
        // uint64 length | uint32 masked_crc32c(length): the CRC proves the framing, the length must fit.
        if (got < 12) return "is shorter than one tfrecord header";
        std::uint64_t len = 0;
        std::uint32_t crc = 0;
        std::memcpy(&len, h.data(), 8);
        std::memcpy(&crc, h.data() + 8, 4);
        if (maskCrc(crc32c(h.data(), 8)) != crc) return "does not start with a tfrecord header (length CRC mismatch)";
        if (len + 16 > size) return "its first tfrecord (" + std::to_string(len) + " bytes) runs past the end of the file";
        return "";
    }
    case DataFormat::IndexedBinary:
    case DataFormat::Raw: return "";
    }
    return "";
}

void checkSteps(const WorkloadConfig& cfg, const PreflightRequest& req, PreflightResult& r) {
    try {
        // The engine's own plan, for the first and the last rank (shards differ only at the end).
        const ShardPlan first = planShard(cfg, 0, req.accelerators);
        if (req.accelerators > 1) planShard(cfg, req.accelerators - 1, req.accelerators);
        const std::uint64_t excluded = cfg.metric.excludeStartSteps + cfg.metric.excludeEndSteps;
        if (first.stepsPerEpoch <= excluded)
            r.warnings.push_back("only " + std::to_string(first.stepsPerEpoch) + " step(s) per epoch per accelerator, and " +
                                 std::to_string(excluded) +
                                 " are excluded from the metrics (output.metric.exclude_start/end_steps): AU and "
                                 "throughput will have no steps to measure");
    } catch (const InputError& e) {
        r.problems.push_back({"dataset / reader.batch_size / accelerators",
                              std::to_string(cfg.dataset.numFilesTrain) + " files × " +
                                  std::to_string(cfg.dataset.numSamplesPerFile) + " samples, batch " +
                                  std::to_string(cfg.reader.batchSize) + ", " + std::to_string(req.accelerators) +
                                  " accelerator(s): " + e.what(),
                              "at least one step per accelerator and epoch"});
    }
}

// The files pre-flight opens: `count` spread evenly over the n train files (first and last included).
std::vector<std::uint64_t> sampledFiles(std::uint64_t n, std::uint64_t count) {
    const std::uint64_t sample = std::min<std::uint64_t>(n, std::max<std::uint64_t>(1, count));
    std::vector<std::uint64_t> files;
    for (std::uint64_t k = 0; k < sample; ++k) files.push_back(sample == 1 ? 0 : k * (n - 1) / (sample - 1));
    return files;
}

// A dataset TrainIO generated: its marker records every parameter that shaped the files, compared exactly.
// Returns whether the marker was there (false: a foreign dataset, checked by its sizes instead).
bool checkMarker(const WorkloadConfig& cfg, const fs::path& root, PreflightResult& r, bool& refused,
                 MarkerUse use = MarkerUse::Read) {
    std::optional<std::vector<DatasetParameterMismatch>> mismatches;
    try {
        mismatches = datasetMarkerMismatches(cfg, use);
    } catch (const InputError& e) {
        r.problems.push_back({(root / kDatasetMarkerName).string(), e.what(),
                              "the marker TrainIO wrote when it generated the dataset (regenerate the dataset)"});
        refused = true;
        return true;
    }
    if (!mismatches) return false;
    for (const DatasetParameterMismatch& m : *mismatches)
        r.problems.push_back({m.key,
                              "the config says " + m.configured + ", but the dataset in " + root.string() +
                                  " was generated with " + m.generated + " (its " + kDatasetMarkerName + ")",
                              "the dataset this config describes: set " + m.key + " back to " + m.generated +
                                  ", or regenerate the dataset for this config (" + std::string(kCliRegenerate) + ")"});
    refused = !mismatches->empty();
    return true;
}

// A dataset without TrainIO's marker (DLIO's, a user's): the payload per sample of the sampled files,
// against the configured distribution. Both generators (record_shape.h) draw each file's record as
// d1 × d2 with d = int(sqrt(record_length)) and each side ~ N(d, stdev / 2 / sqrt(record_length)), so a
// file's record has mean ≈ d² and standard deviation ≈ stdev / √2. The framing (zip/npy headers,
// tfrecord framing, HDF5 metadata) is TrainIO's for the same shape, with an allowance for another
// writer's (numpy's zipfile, h5py).
void checkForeignSizes(const WorkloadConfig& cfg, const fs::path& root, const std::vector<std::uint64_t>& files,
                       const std::vector<double>& fileBytes, PreflightResult& r) {
    const DatasetSection& ds = cfg.dataset;
    const double samples = static_cast<double>(std::max<std::uint64_t>(1, ds.numSamplesPerFile));
    std::vector<double> perSample;
    double allowance = 0;
    for (std::size_t k = 0; k < files.size(); ++k) {
        const double shape = static_cast<double>(recordShape(ds, cfg.train.seed, Split::Train, files[k]).bytes());
        const double framing = static_cast<double>(expectedDatasetFileSize(cfg, Split::Train, files[k])) - shape * samples;
        allowance = std::max(allowance, (ds.format == DataFormat::Hdf5 ? framing + 8192.0 : framing / 2.0 + 128.0) / samples);
        perSample.push_back((fileBytes[k] - framing) / samples);
    }
    const double n = static_cast<double>(perSample.size());
    const double mean = aggregate::mean(perSample).value;
    const double sd = perSample.size() > 1 ? aggregate::sampleStdev(perSample).value : 0.0;

    const double d = static_cast<double>(meanDimension(ds));
    const double expectedMean = d * d;
    const double expectedSd = ds.recordLengthStdev / std::sqrt(2.0);
    // d × d lies within 2d of record_length (and int() truncation of the drawn sides moves the mean by ~d):
    // a writer that sizes samples at record_length exactly is still this distribution.
    const double slack = allowance + 2.0 * d + 1.0;
    const double meanTolerance = 4.0 * expectedSd / std::sqrt(n) + slack;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f", ds.recordLength);
    const std::string configured = std::string(buf) + " bytes";
    std::snprintf(buf, sizeof buf, "%.0f", ds.recordLengthStdev);
    const std::string configuredSd = std::string(buf) + " bytes";
    const std::string found = root.string() + " has no " + kDatasetMarkerName + " (not generated by TrainIO); its " +
                              std::to_string(perSample.size()) + " sampled files hold " + gib(mean) +
                              " per sample on average (standard deviation " + gib(sd) + ")";
    // The spread first (with a narrower configured spread, a mean drawn from the wider one is off too),
    // once there are enough files to estimate it: a sample standard deviation of ≥ 4 draws is
    // within a factor 2.5 of the true one but for a chance well under 1 in 1000.
    if (perSample.size() >= 4) {
        const bool tooWide = sd > 2.5 * expectedSd + slack;
        const bool tooNarrow = expectedSd > 0 && sd < expectedSd / 2.5 - slack;
        if (tooWide || tooNarrow) {
            r.problems.push_back({"dataset.record_length_bytes_stdev", found + ", the config says a stdev of " + configuredSd,
                                  "a spread of about " + gib(expectedSd) + " per file (stdev / √2: each side of the d × d record is drawn "
                                  "separately), " + (tooWide ? "at most " + gib(2.5 * expectedSd + slack)
                                                             : "at least " + gib(expectedSd / 2.5 - slack)) +
                                      ": a dataset generated for this config"});
            return;
        }
    }
    if (std::fabs(mean - expectedMean) > meanTolerance) {
        r.problems.push_back({"dataset.record_length_bytes", found + ", the config says " + configured,
                              gib(expectedMean) + " ± " + gib(meanTolerance) + " per sample (record_length_bytes " + configured +
                                  ", stdev " + configuredSd + ", over " + std::to_string(perSample.size()) +
                                  " files): a dataset generated for this config"});
        return;
    }
    if (std::fabs(mean - expectedMean) > 2.5 * expectedSd / std::sqrt(n) + slack)
        r.warnings.push_back(found + ": within tolerance of record_length_bytes " + configured + " (stdev " + configuredSd +
                             "), but further from it than a dataset generated for this config usually is");
}

// A file list (trainio.file_list, a captured job's own files, docs/capture.md): every listed file there
// and of the configured format; no marker (the files are the job's, not generated), no size rule beyond
// the coarse one.
void checkListedFiles(const WorkloadConfig& cfg, const PreflightRequest& req, PreflightResult& r) {
    const DatasetSection& ds = cfg.dataset;
    std::optional<DatasetLayout> layout;
    try {
        layout.emplace(ds);
    } catch (const InputError& e) {
        r.problems.push_back({"trainio.file_list", e.what(), "a list of num_files_train data file paths, one a line"});
        return;
    }
    std::uint64_t missing = 0;
    std::string firstMissing, path;
    std::error_code ec;
    for (std::uint64_t i = 0; i < ds.numFilesTrain; ++i) {
        layout->filePath(Split::Train, i, path);
        if (!fs::is_regular_file(fs::status(path, ec)) && missing++ == 0) firstMissing = path;
    }
    if (missing > 0) {
        r.problems.push_back({"trainio.file_list", std::to_string(missing) + " of " + std::to_string(ds.numFilesTrain) +
                                                       " listed files are missing (first: " + firstMissing + ")",
                              "every listed file present (the job's own files where it read them)"});
        return;
    }
    for (const std::uint64_t i : sampledFiles(ds.numFilesTrain, req.headerSampleFiles)) {
        layout->filePath(Split::Train, i, path);
        const std::string why = headerProblem(ds.format, path, fs::file_size(path, ec));
        if (!why.empty()) {
            r.problems.push_back({path, why, std::string("a ") + toString(ds.format) + " file (dataset.format)"});
            return;
        }
    }
}

void checkDataset(const WorkloadConfig& cfg, const PreflightRequest& req, PreflightResult& r) {
    const DatasetSection& ds = cfg.dataset;
    if (!ds.fileList.empty()) {
        checkListedFiles(cfg, req, r);
        return;
    }
    const DatasetLayout layout(ds);
    const fs::path root = layout.root();
    std::error_code ec;
    if (!fs::is_directory(fs::status(root, ec))) {
        r.problems.push_back({"dataset.data_folder", root.string() + " does not exist",
                              "a generated dataset (" + std::string(kCliGenerateFirst) + ")"});
        return;
    }
    bool refused = false;
    const bool generatedByTrainIO = checkMarker(cfg, root, r, refused);
    if (refused) return; // the files are another workload's: what follows would only repeat it
    // Names and count: every configured file must be there (stat only).
    std::uint64_t missing = 0;
    std::string firstMissing, path;
    double bytesSeen = 0, bytesExpected = 0;
    std::uint64_t filesSeen = 0;
    for (std::uint64_t i = 0; i < ds.numFilesTrain; ++i) {
        layout.filePath(Split::Train, i, path);
        const auto st = fs::status(path, ec);
        if (!fs::is_regular_file(st)) {
            if (missing++ == 0) firstMissing = path;
            continue;
        }
        bytesSeen += static_cast<double>(fs::file_size(path, ec));
        bytesExpected += static_cast<double>(expectedDatasetFileSize(cfg, Split::Train, i));
        ++filesSeen;
    }
    if (missing > 0) {
        // What is there instead, as a hint (another count, prefix or format shows in the names).
        std::string found;
        std::uint64_t others = 0;
        for (const auto& e : fs::recursive_directory_iterator(layout.splitFolder(Split::Train), fs::directory_options::skip_permission_denied, ec)) {
            if (!e.is_regular_file(ec)) continue;
            if (found.empty() || e.path().filename().string() < found) found = e.path().filename().string();
            ++others;
        }
        r.problems.push_back({"dataset.num_files_train / dataset.data_folder",
                              std::to_string(missing) + " of " + std::to_string(ds.numFilesTrain) +
                                  " configured files are missing (first: " + firstMissing + "); the train folder holds " +
                                  std::to_string(others) + " file(s)" + (found.empty() ? "" : ", e.g. " + found),
                              "the dataset this config describes (same num_files_train, file_prefix, format and "
                              "subfolders: " + std::string(kCliRegenerateIt) + ", or fix the config)"});
        return;
    }
    // Sizes of images depend on how their pixels compress: only a coarse check (a 3 MB-sample dataset
    // under a 146 MB-sample config is another workload). A factor of two leaves room for DLIO's encoder.
    if (!generatedByTrainIO && !fileSizeExact(ds.format) && filesSeen > 0 && bytesExpected > 0) {
        const double ratio = bytesSeen / bytesExpected;
        if (ratio < 0.5 || ratio > 2.0)
            r.problems.push_back({"dataset.record_length_bytes",
                                  "the dataset's files average " + gib(bytesSeen / static_cast<double>(filesSeen)),
                                  "about " + gib(bytesExpected / static_cast<double>(filesSeen)) +
                                      " per file (record_length_bytes × num_samples_per_file with the format's framing): "
                                      "the dataset was generated for another workload"});
    }
    // Format: the header of a sample of files spread over the dataset; their sizes for a foreign dataset.
    const std::vector<std::uint64_t> files = sampledFiles(ds.numFilesTrain, req.headerSampleFiles);
    std::vector<double> fileBytes;
    for (const std::uint64_t i : files) {
        layout.filePath(Split::Train, i, path);
        const auto size = fs::file_size(path, ec);
        fileBytes.push_back(static_cast<double>(size));
        const std::string why = headerProblem(ds.format, path, size);
        if (!why.empty()) {
            r.problems.push_back({path, why, std::string("a ") + toString(ds.format) + " file (dataset.format)"});
            return;
        }
    }
    if (!generatedByTrainIO && fileSizeExact(ds.format) && !files.empty()) checkForeignSizes(cfg, root, files, fileBytes, r);
}

double datasetBytes(const WorkloadConfig& cfg) {
    // Sum of the generator's own per-file sizes where cheap; a mean-based estimate for huge datasets.
    const DatasetSection& ds = cfg.dataset;
    const std::uint64_t total = ds.numFilesTrain + ds.numFilesEval;
    if (total <= 100000) {
        double sum = 0;
        for (std::uint64_t i = 0; i < ds.numFilesTrain; ++i) sum += static_cast<double>(expectedDatasetFileSize(cfg, Split::Train, i));
        for (std::uint64_t i = 0; i < ds.numFilesEval; ++i) sum += static_cast<double>(expectedDatasetFileSize(cfg, Split::Valid, i));
        return sum;
    }
    return static_cast<double>(total) * static_cast<double>(ds.numSamplesPerFile) * ds.recordLength * 1.01;
}

void checkDatagen(const WorkloadConfig& cfg, PreflightResult& r, bool roomIsAdvisory) {
    if (!cfg.dataset.fileList.empty()) {
        r.problems.push_back({"trainio.file_list", "'" + cfg.dataset.fileList + "' (the training files are a list: a job's own data)",
                              "no file list to generate data: datagen writes DLIO's names under dataset.data_folder "
                              "(++workload.trainio.file_list= ++workload.dataset.data_folder=DIR)"});
        return;
    }
    if (!formatWritable(cfg.dataset.format)) {
        r.problems.push_back({"dataset.format", toString(cfg.dataset.format),
                              "a format this build can generate (npz, npy, tfrecord, hdf5, indexed_binary, raw, jpeg, png)"});
        return;
    }
    // A folder holding a dataset TrainIO generated with other parameters: generation would refuse to write
    // into it (it never mixes two datasets), so say so now, naming each parameter, before anything starts.
    const DatasetLayout layout(cfg.dataset);
    bool refused = false;
    checkMarker(cfg, layout.root(), r, refused, MarkerUse::Generate); // (no marker: nothing to compare)
    if (refused) return;
    // Files already complete (a resumed generation) need no room.
    double present = 0;
    std::error_code ec;
    if (cfg.dataset.numFilesTrain <= 100000) {
        std::string path;
        for (std::uint64_t i = 0; i < cfg.dataset.numFilesTrain; ++i) {
            layout.filePath(Split::Train, i, path);
            const auto size = fs::file_size(path, ec);
            // JPEG/PNG sizes are estimates: any file under its final name is complete (dataset_generator.h).
            const bool whole = fileSizeExact(cfg.dataset.format) ? size == expectedDatasetFileSize(cfg, Split::Train, i) : size > 0;
            if (!ec && whole) present += static_cast<double>(size);
        }
    }
    const double total = datasetBytes(cfg);
    const double need = std::max(0.0, total - present) + 16.0 * 1048576.0;
    checkFolder("dataset.data_folder", layout.root(), need, "the dataset (" + gib(total) + ")", r, roomIsAdvisory);
}

void checkOutput(const WorkloadConfig& cfg, const PreflightRequest& req, PreflightResult& r) {
    if (req.output.empty()) return;
    std::error_code ec;
    if (req.action == PreflightAction::Run && fs::exists(req.output / "summary.json", ec))
        r.problems.push_back({std::string(kCliOutput), req.output.string() + " already holds a result (summary.json)",
                              "a new or empty folder, so that no earlier result is overwritten"});
    if (req.action == PreflightAction::Benchmark && fs::exists(req.output / "runs", ec))
        r.problems.push_back({std::string(kCliOutput), req.output.string() + " already holds a benchmark (runs/)",
                              "a new or empty folder, so that no earlier result is overwritten"});
    // Room for the result files: per step and rank, three numbers in <rank>_output.json (~24 bytes each
    // as JSON text) plus a per-epoch file and the fixed files, times the invocations, doubled for the
    // temporary of the atomic write.
    std::uint64_t steps = 1;
    try {
        steps = std::max<std::uint64_t>(1, planShard(cfg, 0, req.accelerators).stepsPerEpoch);
    } catch (const InputError&) {
    }
    const double perInvocation =
        static_cast<double>(req.accelerators) * static_cast<double>(steps) * static_cast<double>(cfg.train.epochs) * 80.0 +
        1048576.0;
    const double need = 2.0 * perInvocation * static_cast<double>(std::max<std::uint64_t>(1, req.invocations));
    checkFolder(std::string(kCliOutput), req.output, need, "the result files", r);
}

// The trainio: section's engine, cache control and emulated storage can be set up (drop needs root,
// a profile must load) — the same checks the run makes when it starts, made before anything else.
void checkStorageSide(const WorkloadConfig& cfg, std::uint64_t accelerators, PreflightResult& r) {
    const auto& tr = cfg.trainio;
    try {
        // Creating the engine checks what can fail at its start (io_uring refused by the kernel or seccomp).
        makeIoBackend(parseIoEngine(tr.ioEngine, "trainio.io_engine"));
    } catch (const std::runtime_error& e) { // InputError (a bad name) or RunError (the kernel refuses)
        r.problems.push_back({"trainio.io_engine", tr.ioEngine, e.what()});
    }
    try {
        if (const auto problem = cacheControlProblem(parseCacheMode(tr.cache, "trainio.cache")))
            r.problems.push_back({"trainio.cache", tr.cache, *problem});
    } catch (const InputError& e) {
        r.problems.push_back({"trainio.cache", tr.cache, e.what()});
    }
    // nopfs' SSD tier: an existing local folder this user can write, with room for every accelerator's tier
    // (docs/loader.md); the tier files are made (and removed) by the run itself.
    if (tr.loader.policy == "nopfs" && !tr.loader.ssdTier.path.empty()) {
        const fs::path dir = tr.loader.ssdTier.path;
        std::error_code ec;
        if (!fs::is_directory(dir, ec))
            r.problems.push_back({"trainio.ssd_tier.path", dir.string() + " is not an existing folder", "a local folder for the SSD tier"});
        else
            checkFolder("trainio.ssd_tier.path", dir, tr.loader.ssdTier.capacityMiB * 1048576.0 * static_cast<double>(accelerators),
                        "the SSD tier (capacity_mib per accelerator × " + std::to_string(accelerators) + ")", r);
    }
    if (tr.storage.any()) {
        try {
            storageShapeFor(tr.storage);
        } catch (const InputError& e) {
            r.problems.push_back({"trainio.storage", tr.storage.profile.empty() ? "(settings)" : tr.storage.profile, e.what()});
        }
    }
}

std::uint64_t memAvailableBytes() {
    std::ifstream in("/proc/meminfo");
    std::string name;
    std::uint64_t kib = 0;
    std::string unit;
    while (in >> name >> kib >> unit)
        if (name == "MemAvailable:") return kib * 1024;
    return 0;
}

// storage.storage_type s3 (docs/s3.md): the keys, the endpoint, the bucket and the credentials, with one
// short signed request (no retries, a 3 s connect timeout: an unreachable endpoint is an error, never a
// hang); for a run of an existing dataset, a sample of its objects (a listing of at most 16 keys under
// train/ and a HEAD of up to headerSampleFiles files, sizes compared); the memory budget of the requests
// in flight, refused when the machine does not have it.
// The S3 memory budget is a warning above this share of the available memory (a figure below it).
constexpr double kS3BudgetWarnShare = 0.5;

void checkS3(const WorkloadConfig& cfg, const PreflightRequest& req, bool checkObjects, PreflightResult& r) {
    const StorageSection& st = cfg.storage;
    if (st.root.empty()) {
        r.problems.push_back({"storage.storage_root", "''", "the bucket name with storage.storage_type s3"});
        return;
    }
    std::shared_ptr<S3Backend> s3;
    try {
        s3 = makeS3Backend(cfg, req.process, &r.warnings);
        s3ObjectKey(datasetRoot(cfg.dataset.dataFolder).string() + "/x", st.root);
    } catch (const InputError& e) {
        r.problems.push_back({"storage", "s3", e.what()});
        return;
    }
    {
        if (const std::string why = s3->client().probe(); !why.empty()) {
            r.problems.push_back({"storage.storage_options.endpoint_url", why,
                                  "an S3 endpoint that answers, a bucket that exists and keys that may use it"});
            return;
        }
    }
    // What this process's readers will hold (preflight/memory_budget.h), against what the machine has.
    const std::uint64_t mine = std::max<std::uint64_t>(1, req.accelerators / std::max<std::uint64_t>(1, req.processes));
    const MemoryBudget budget = memoryBudget(cfg, mine);
    const std::uint64_t avail = memAvailableBytes();
    char availText[64];
    std::snprintf(availText, sizeof availText, " (available: %.0f MiB)", static_cast<double>(avail) / 1048576.0);
    const std::string text = budget.text() + availText;
    // A figure, said before the run; a warning only when it takes much of what the machine has (the page
    // cache, other processes and the kernel need the rest), a problem when it does not fit at all.
    const double share = avail > 0 ? budget.totalBytes() / static_cast<double>(avail) : 0.0;
    if (req.action == PreflightAction::Datagen) {
        // Generation puts objects, it does not hold the readers' buffers: the budget is the run's.
    } else if (share > kS3BudgetWarnShare && share <= 1.0) {
        char pct[32];
        std::snprintf(pct, sizeof pct, "%.0f %%", 100.0 * share);
        r.warnings.push_back(text + ": " + pct + " of the available memory (fewer reader.read_threads, trainio.io_depth 1 "
                             "or fewer accelerators per process need less)");
    } else {
        r.figures.push_back(text);
    }
    if (avail > 0 && budget.totalBytes() > static_cast<double>(avail) && req.action != PreflightAction::Datagen)
        r.problems.push_back({"trainio.io_depth", text,
                              "a budget within the machine's available memory (trainio.io_depth 1 reads npz/npy files in "
                              "transfer_size chunks instead of whole; fewer reader.read_threads or accelerators per process)"});
    if (!checkObjects || cfg.dataset.numFilesTrain == 0) return;
    S3Client& c = s3->client();
    const DatasetLayout layout(cfg.dataset);
    const std::string prefix = s3ObjectKey(layout.splitFolder(Split::Train).string() + "/", st.root);
    std::string error;
    const auto listed = c.list(prefix, 16, &error);
    if (!listed) {
        r.problems.push_back({"storage.storage_root", "listing s3://" + st.root + "/" + prefix + " failed: " + error,
                              "a bucket the keys may list"});
        return;
    }
    if (listed->empty()) {
        r.problems.push_back({"dataset.data_folder", "no objects under s3://" + st.root + "/" + prefix + " (" + c.options().endpoint + ")",
                              "the dataset generated first (trainio-cli datagen, or workflow.generate_data: true)"});
        return;
    }
    const std::uint64_t n = std::min<std::uint64_t>(cfg.dataset.numFilesTrain, std::max<std::uint64_t>(1, req.headerSampleFiles));
    const bool exact = fileSizeExact(cfg.dataset.format);
    for (std::uint64_t k = 0; k < n; ++k) {
        // Spread over the split: the first, the last and evenly between.
        const std::uint64_t i = n == 1 ? 0 : k * (cfg.dataset.numFilesTrain - 1) / (n - 1);
        const std::string key = s3ObjectKey(layout.filePath(Split::Train, i), st.root);
        const std::int64_t size = c.head(key);
        if (size < 0) {
            r.problems.push_back({"dataset.data_folder", "s3://" + st.root + "/" + key + ": " + (size == -ENOENT ? std::string("missing") : c.lastError()),
                                  "every file of the dataset (generate it first)"});
            return;
        }
        const std::uint64_t want = expectedDatasetFileSize(cfg, Split::Train, i);
        if (exact && static_cast<std::uint64_t>(size) != want) {
            r.problems.push_back({"dataset.data_folder", "s3://" + st.root + "/" + key + " has " + std::to_string(size) + " bytes",
                                  std::to_string(want) + " bytes as the configuration generates it (regenerate, or fix the keys)"});
            return;
        }
    }
}

} // namespace

std::string PreflightProblem::text() const {
    return subject + ": " + found + "; expected " + expected;
}

std::string PreflightResult::text() const {
    std::string s;
    for (const auto& p : problems) s += p.text() + "\n";
    return s;
}

namespace {

PreflightResult preflightChecks(const WorkloadConfig& cfg, const PreflightRequest& req) {
    PreflightResult r;
    if (req.accelerators == 0) {
        r.problems.push_back({"accelerators", "0", "at least 1"});
        return r;
    }
    if (req.action == PreflightAction::Datagen) {
        if (cfg.storage.isS3()) checkS3(cfg, req, false, r);
        else checkDatagen(cfg, r, req.roomIsAdvisory);
        return r;
    }
    if (!formatWritable(cfg.dataset.format)) {
        // The readers support the same formats as the writers.
        r.problems.push_back({"dataset.format", toString(cfg.dataset.format),
                              "a format this build can read (npz, npy, tfrecord, hdf5, indexed_binary, raw, jpeg, png)"});
        return r;
    }
    checkSteps(cfg, req, r);
    checkStorageSide(cfg, req.accelerators, r);
    if (cfg.storage.isS3()) checkS3(cfg, req, !req.generateFirst, r);
    else if (req.generateFirst) checkDatagen(cfg, r, req.roomIsAdvisory);
    else checkDataset(cfg, req, r);
    checkOutput(cfg, req, r);
    return r;
}

} // namespace

PreflightResult preflight(const WorkloadConfig& cfg, const PreflightRequest& req) {
    PreflightResult r = preflightChecks(cfg, req);
    if (req.audience == PreflightAudience::Gui) speakGui(r);
    return r;
}

void requirePreflight(const WorkloadConfig& cfg, const PreflightRequest& req) {
    const PreflightResult r = preflight(cfg, req);
    if (!r.ok()) throw InputError(r.failureMessage());
}

std::string PreflightResult::failureMessage() const {
    std::string msg = "pre-flight check failed, nothing was measured:";
    for (const auto& p : problems) msg += "\n  " + p.text();
    return msg;
}

} // namespace trainio
