#include "dataset/dataset_generator.h"

#include "dataset/dataset_layout.h"
#include "util/prng.h"
#include "dataset/record_shape.h"
#include "format/format_writer.h"
#include "format/sample_reader.h"
#include "io/s3_backend.h"
#include "util/errors.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;

namespace trainio {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kMarkerVersion = 1;

DataFileSpec specFor(const DatasetSection& ds, std::uint64_t seed, Split split, std::uint64_t i) {
    const RecordShape shape = recordShape(ds, seed, split, i);
    DataFileSpec spec;
    spec.format = ds.format;
    spec.d1 = shape.d1;
    spec.d2 = shape.d2;
    spec.samples = ds.numSamplesPerFile;
    spec.sizeFeature = static_cast<std::int64_t>(meanDimension(ds));
    spec.contentSeed = mix64(fileStreamSeed(seed, split, i) ^ 0xD1B54A32D192ED03ULL);
    return spec;
}

nlohmann::json parametersJson(const DatasetSection& ds, std::uint64_t seed) {
    nlohmann::json j;
    j["format"] = toString(ds.format);
    j["num_files_train"] = ds.numFilesTrain;
    j["num_files_eval"] = ds.numFilesEval;
    j["num_samples_per_file"] = ds.numSamplesPerFile;
    j["record_length"] = ds.recordLength;
    j["record_length_stdev"] = ds.recordLengthStdev;
    j["num_subfolders_train"] = ds.numSubfoldersTrain;
    j["num_subfolders_eval"] = ds.numSubfoldersEval;
    j["file_prefix"] = ds.filePrefix;
    j["record_element_type"] = ds.recordElementType;
    j["seed"] = seed;
    return j;
}

DataFormat formatFromName(const std::string& name, const std::string& where) {
    for (DataFormat f : {DataFormat::Npz, DataFormat::Npy, DataFormat::Tfrecord, DataFormat::Hdf5,
                         DataFormat::IndexedBinary, DataFormat::Raw, DataFormat::Jpeg, DataFormat::Png})
        if (name == toString(f)) return f;
    throw InputError(describeProblem(where, "format", name, "a dataset format"));
}

struct Marker {
    DatasetSection dataset;
    std::uint64_t seed = 0;
    bool createdRoot = false;
    nlohmann::json parameters;
};

// A marker's text (`where`: its file or object, for messages).
Marker parseMarker(const std::string& text, const std::string& where, const std::string& dataFolder) {
    Marker m;
    try {
        nlohmann::json j = nlohmann::json::parse(text);
        m.parameters = j.at("parameters");
        const auto& p = m.parameters;
        m.dataset.dataFolder = dataFolder;
        m.dataset.format = formatFromName(p.at("format").get<std::string>(), where);
        m.dataset.numFilesTrain = p.at("num_files_train").get<std::uint64_t>();
        m.dataset.numFilesEval = p.at("num_files_eval").get<std::uint64_t>();
        m.dataset.numSamplesPerFile = p.at("num_samples_per_file").get<std::uint64_t>();
        m.dataset.recordLength = p.at("record_length").get<double>();
        m.dataset.recordLengthStdev = p.at("record_length_stdev").get<double>();
        m.dataset.numSubfoldersTrain = p.at("num_subfolders_train").get<std::uint64_t>();
        m.dataset.numSubfoldersEval = p.at("num_subfolders_eval").get<std::uint64_t>();
        m.dataset.filePrefix = p.at("file_prefix").get<std::string>();
        m.dataset.recordElementType = p.at("record_element_type").get<std::string>();
        m.seed = p.at("seed").get<std::uint64_t>();
        m.createdRoot = j.value("created_root", false);
    } catch (const nlohmann::json::exception& e) {
        throw InputError(where + ": not a valid TrainIO dataset marker (" + e.what() + ")");
    }
    return m;
}

Marker readMarker(const fs::path& markerPath, const std::string& dataFolder) {
    std::ifstream in(markerPath, std::ios::binary);
    if (!in) throw InputError(markerPath.string() + ": cannot be read");
    std::stringstream text;
    text << in.rdbuf();
    return parseMarker(text.str(), markerPath.string(), dataFolder);
}

// The marker's parameter names and the configuration keys they come from (parametersJson writes them).
struct MarkerKey {
    const char* parameter;
    const char* key;
    bool bytes; // shown with its size in KiB/MiB too
};
constexpr MarkerKey kMarkerKeys[] = {
    {"format", "dataset.format", false},
    {"num_files_train", "dataset.num_files_train", false},
    {"num_files_eval", "dataset.num_files_eval", false},
    {"num_samples_per_file", "dataset.num_samples_per_file", false},
    {"record_length", "dataset.record_length_bytes", true},
    {"record_length_stdev", "dataset.record_length_bytes_stdev", true},
    {"num_subfolders_train", "dataset.num_subfolders_train", false},
    {"num_subfolders_eval", "dataset.num_subfolders_eval", false},
    {"file_prefix", "dataset.file_prefix", false},
    {"record_element_type", "dataset.record_element_type", false},
    {"seed", "train.seed", false},
};

std::string markerValueText(const nlohmann::json& v, bool bytes) {
    if (v.is_null()) return "(not recorded)";
    if (v.is_string()) return v.get<std::string>();
    if (!v.is_number()) return v.dump();
    const double d = v.get<double>();
    char buf[96];
    std::string s;
    if (v.is_number_unsigned()) s = std::to_string(v.get<std::uint64_t>()); // a seed keeps all its digits
    else if (v.is_number_integer()) s = std::to_string(v.get<std::int64_t>());
    else {
        std::snprintf(buf, sizeof buf, d == std::floor(d) && std::fabs(d) < 9.007199254740992e15 ? "%.0f" : "%.17g", d);
        s = buf;
    }
    if (bytes && d >= 1024.0) {
        if (d >= 1048576.0) std::snprintf(buf, sizeof buf, " (%.2f MiB)", d / 1048576.0);
        else std::snprintf(buf, sizeof buf, " (%.2f KiB)", d / 1024.0);
        s += buf;
    }
    return s;
}

// Every parameter of `configured` (parametersJson) that the marker's `recorded` parameters do not hold
// exactly, in kMarkerKeys' order.
std::vector<DatasetParameterMismatch> parameterMismatches(const nlohmann::json& configured, const nlohmann::json& recorded,
                                                          MarkerUse use) {
    std::vector<DatasetParameterMismatch> out;
    const auto stdev = recorded.find("record_length_stdev");
    const bool sizesDrawn = stdev != recorded.end() && stdev->is_number() && stdev->get<double>() > 0;
    auto compare = [&](const std::string& parameter, const std::string& key, bool bytes) {
        if (use == MarkerUse::Read && parameter == "seed" && !sizesDrawn) return;
        const auto want = configured.find(parameter);
        const auto had = recorded.find(parameter);
        const nlohmann::json none;
        const nlohmann::json& a = want == configured.end() ? none : *want;
        const nlohmann::json& b = had == recorded.end() ? none : *had;
        // nlohmann compares numbers by value across types: 2097152 and 2097152.0 are one size.
        if (a != b) out.push_back({key, markerValueText(a, bytes), markerValueText(b, bytes)});
    };
    for (const MarkerKey& k : kMarkerKeys) compare(k.parameter, k.key, k.bytes);
    // A parameter parametersJson gained without a row above is still compared, never skipped.
    for (auto it = configured.begin(); it != configured.end(); ++it) {
        const bool listed = std::any_of(std::begin(kMarkerKeys), std::end(kMarkerKeys),
                                        [&](const MarkerKey& k) { return it.key() == k.parameter; });
        if (!listed) compare(it.key(), "dataset." + it.key(), false);
    }
    return out;
}

// TrainIO's temporaries: ".<name>.tmp-<pid>" where <name> starts with "<prefix>_".
bool isOurTemporary(const std::string& name, const std::string& prefix) {
    if (name.size() < 2 || name[0] != '.') return false;
    const auto t = name.rfind(".tmp-");
    if (t == std::string::npos || t + 5 >= name.size()) return false;
    for (std::size_t k = t + 5; k < name.size(); ++k)
        if (name[k] < '0' || name[k] > '9') return false;
    const std::string base = name.substr(1, t - 1);
    return base.rfind(prefix + "_", 0) == 0 && base.find("_of_") != std::string::npos;
}

std::string temporaryFor(const std::string& path) {
    const fs::path p(path);
    return (p.parent_path() / ("." + p.filename().string() + ".tmp-" + std::to_string(::getpid()))).string();
}

// The directories TrainIO creates for a dataset, parents before children.
std::vector<fs::path> datasetDirectories(const DatasetSection& ds) {
    const DatasetLayout layout(ds);
    std::vector<fs::path> dirs;
    // DLIO's generator always creates train/ and valid/, and its loader lists valid/ even when
    // num_files_eval is 0 (FileNotFoundError without it): create both, subfolders only where files go.
    auto addSplit = [&](Split split, std::uint64_t files, std::uint64_t subs) {
        dirs.push_back(layout.splitFolder(split));
        if (files > 0 && subs > 1) {
            for (std::uint64_t s = 0; s < subs && s < files; ++s) dirs.push_back(fs::path(layout.filePath(split, s)).parent_path());
        }
    };
    addSplit(Split::Train, ds.numFilesTrain, ds.numSubfoldersTrain);
    addSplit(Split::Valid, ds.numFilesEval, ds.numSubfoldersEval);
    if (ds.format == DataFormat::Tfrecord) {
        dirs.push_back(layout.root() / "index");
        if (ds.numFilesTrain > 0) dirs.push_back(layout.root() / "index" / "train");
        if (ds.numFilesEval > 0) dirs.push_back(layout.root() / "index" / "valid");
    }
    return dirs;
}

// Side files that accompany data file i (tfrecord index, indexed_binary offset/size arrays).
std::vector<std::pair<std::string, std::string>> sideFiles(const DatasetLayout& layout, const DataFileSpec& spec,
                                                           const std::string& dataPath, Split split, std::uint64_t i,
                                                           bool withContent) {
    std::vector<std::pair<std::string, std::string>> out;
    if (spec.format == DataFormat::Tfrecord)
        out.emplace_back(layout.indexPath(split, i), withContent ? tfrecordIndexText(spec) : std::string());
    if (spec.format == DataFormat::IndexedBinary) {
        out.emplace_back(dataPath + ".off.idx", withContent ? indexedBinaryOffsets(spec) : std::string());
        out.emplace_back(dataPath + ".sz.idx", withContent ? indexedBinarySizes(spec) : std::string());
    }
    return out;
}

bool regularFileOfSize(const std::string& path, std::uint64_t size) {
    std::error_code ec;
    const auto st = fs::symlink_status(path, ec);
    if (ec || !fs::is_regular_file(st)) return false;
    const auto actual = fs::file_size(path, ec);
    return !ec && actual == size;
}

bool nonEmptyRegularFile(const std::string& path, std::uint64_t& size) {
    std::error_code ec;
    const auto st = fs::symlink_status(path, ec);
    if (ec || !fs::is_regular_file(st)) return false;
    size = fs::file_size(path, ec);
    return !ec && size > 0;
}

// A file list names a job's own files (trainio.file_list, docs/capture.md): TrainIO never writes them, and
// what it generates and verifies are DLIO's names under data_folder.
void refuseFileList(const DatasetSection& ds, const char* what) {
    if (ds.fileList.empty()) return;
    throw InputError("trainio.file_list = '" + ds.fileList + "': " + what + " works on DLIO's names under dataset.data_folder, "
                     "never on listed files (a job's own data); for a dataset of the same shape elsewhere clear the list: "
                     "++workload.trainio.file_list= ++workload.dataset.data_folder=DIR");
}

void checkWritable(const DatasetSection& ds) {
    refuseFileList(ds, "datagen");
    if (!formatWritable(ds.format))
        throw InputError(std::string("format ") + toString(ds.format) + ": not supported by this build");
    if (ds.recordElementType != "uint8")
        throw InputError(describeProblem("dataset", "record_element_type", ds.recordElementType,
                                         "uint8 (other element types are not supported by this build yet)"));
    if (ds.numSamplesPerFile == 0)
        throw InputError(describeProblem("dataset", "num_samples_per_file", "0", "at least 1"));
    if (ds.filePrefix.empty() || ds.filePrefix.find('/') != std::string::npos)
        throw InputError(describeProblem("dataset", "file_prefix", ds.filePrefix, "a non-empty name without '/'"));
}

void makeDirectory(const fs::path& dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw RunError("create directory " + dir.string() + ": " + ec.message());
}

// Opens (creating or re-using) the marker; refuses foreign folders and other parameters.
void prepareRoot(const WorkloadConfig& cfg, IoBackend& io) {
    const fs::path root = datasetRoot(cfg.dataset.dataFolder);
    const fs::path marker = root / kDatasetMarkerName;
    const nlohmann::json params = parametersJson(cfg.dataset, cfg.train.seed);
    std::error_code ec;
    bool createdRoot = false;
    if (!fs::exists(root, ec)) {
        makeDirectory(root);
        createdRoot = true;
    } else if (!fs::is_directory(root, ec)) {
        throw InputError(root.string() + ": exists and is not a directory");
    } else if (fs::exists(fs::symlink_status(marker, ec))) {
        const Marker m = readMarker(marker, cfg.dataset.dataFolder);
        const auto diff = parameterMismatches(params, m.parameters, MarkerUse::Generate);
        if (!diff.empty())
            throw InputError(root.string() + ": holds a TrainIO dataset generated with other parameters (" + diff.front().key +
                             " was " + diff.front().generated + ", now " + diff.front().configured +
                             "); clean it first or choose another data_folder");
        return;
    } else if (!fs::is_empty(root, ec)) {
        throw InputError(root.string() + ": folder is not empty and has no " + kDatasetMarkerName +
                         " marker; refusing to generate a dataset into it (choose an empty or new data_folder)");
    }
    nlohmann::json j;
    j["generator"] = "TrainIO";
    j["trainio_version"] = TRAINIO_VERSION;
    j["marker_version"] = kMarkerVersion;
    j["data_folder"] = cfg.dataset.dataFolder;
    j["created_root"] = createdRoot;
    j["parameters"] = params;
    j["note"] = "Written by TrainIO. File names are recomputed from 'parameters' (DLIO layout); "
                "'trainio clean' removes only those files, their index files and TrainIO temporaries.";
    const std::string tmp = temporaryFor(marker.string());
    writeWholeFile(io, tmp, j.dump(2) + "\n");
    fs::rename(tmp, marker, ec);
    if (ec) {
        fs::remove(tmp, ec);
        throw RunError("rename " + tmp + " to " + marker.string() + ": " + ec.message());
    }
}

struct Job {
    Split split;
    std::uint64_t index;
};

std::vector<Job> allJobs(const DatasetSection& ds) {
    std::vector<Job> jobs;
    jobs.reserve(ds.numFilesTrain + ds.numFilesEval);
    for (std::uint64_t i = 0; i < ds.numFilesTrain; ++i) jobs.push_back({Split::Train, i});
    for (std::uint64_t i = 0; i < ds.numFilesEval; ++i) jobs.push_back({Split::Valid, i});
    return jobs;
}

// ---- S3 (storage.storage_type s3, docs/s3.md) ----
// Objects instead of files: no folders, no temporaries (an object is whole under its final key once its
// PUT succeeded), the marker an object beside train/. An object of the expected size is skipped (exact
// formats), so generation resumes as it does on files.

std::shared_ptr<S3Backend> s3BackendFor(const WorkloadConfig& cfg, const std::shared_ptr<IoBackend>& given, std::uint64_t rank) {
    if (auto s3 = std::dynamic_pointer_cast<S3Backend>(given)) return s3;
    return makeS3Backend(cfg, rank);
}

std::string readObject(S3Client& c, const std::string& key, bool& exists) {
    exists = false;
    const std::int64_t size = c.head(key);
    if (size == -ENOENT) return {};
    if (size < 0) throw RunError("HEAD " + c.url(key) + ": " + c.lastError());
    std::string text(static_cast<std::size_t>(size), '\0');
    const std::int64_t n = c.get(key, text.data(), text.size(), 0, text.size(), 1);
    if (n < 0) throw RunError("GET " + c.url(key) + ": " + c.lastError());
    text.resize(static_cast<std::size_t>(n));
    exists = true;
    return text;
}

void prepareS3(const WorkloadConfig& cfg, S3Backend& s3) {
    checkWritable(cfg.dataset);
    S3Client& c = s3.client();
    const std::string root = datasetRoot(cfg.dataset.dataFolder).string();
    const std::string key = s3ObjectKey(root + "/" + kDatasetMarkerName, c.options().bucket);
    const nlohmann::json params = parametersJson(cfg.dataset, cfg.train.seed);
    bool exists = false;
    const std::string text = readObject(c, key, exists);
    if (exists) {
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(text);
        } catch (const nlohmann::json::exception& e) {
            throw InputError(c.url(key) + ": not a valid TrainIO dataset marker (" + e.what() + ")");
        }
        const auto diff = parameterMismatches(params, j.value("parameters", nlohmann::json::object()), MarkerUse::Generate);
        if (!diff.empty())
            throw InputError(c.url(key) + ": the prefix holds a TrainIO dataset generated with other parameters (" +
                             diff.front().key + " was " + diff.front().generated + ", now " + diff.front().configured +
                             "); clean it first or choose another data_folder");
        return;
    }
    nlohmann::json j;
    j["generator"] = "TrainIO";
    j["trainio_version"] = TRAINIO_VERSION;
    j["marker_version"] = kMarkerVersion;
    j["data_folder"] = cfg.dataset.dataFolder;
    j["storage"] = {{"storage_type", "s3"}, {"bucket", c.options().bucket}, {"endpoint", c.options().endpoint}};
    j["parameters"] = params;
    const std::string body = j.dump(2) + "\n";
    if (c.put(key, body.data(), body.size()) < 0) throw RunError("PUT " + c.url(key) + ": " + c.lastError());
}

// cleanDataset on a bucket: the objects named by the marker's parameters (never a listing: objects a user
// put under the prefix stay), removed by 8 threads (each one HEAD, so that only what was there is counted,
// and one DELETE); the marker last. A bucket has no folders to remove.
CleanResult cleanS3(const WorkloadConfig& cfg, std::uint64_t shardIndex, std::uint64_t shardCount) {
    const auto s3 = makeS3Backend(cfg, shardIndex);
    S3Client& c = s3->client();
    const std::string bucket = c.options().bucket;
    const std::string markerKey = s3ObjectKey(datasetRoot(cfg.dataset.dataFolder).string() + "/" + kDatasetMarkerName, bucket);
    const std::string where = "s3://" + bucket + "/" + markerKey + " (" + c.options().endpoint + ")";
    bool exists = false;
    const std::string text = readObject(c, markerKey, exists);
    if (!exists)
        throw InputError(cfg.dataset.dataFolder + ": has no " + kDatasetMarkerName + " marker object (" + where +
                         "); TrainIO cleans only datasets it generated");
    const Marker m = parseMarker(text, where, cfg.dataset.dataFolder);
    const DatasetLayout layout(m.dataset);
    std::vector<std::string> keys;
    std::string path;
    for (const Split split : {Split::Train, Split::Valid})
        for (std::uint64_t i = shardIndex; i < layout.fileCount(split); i += shardCount) {
            layout.filePath(split, i, path);
            keys.push_back(s3ObjectKey(path, bucket));
            DataFileSpec spec;
            spec.format = m.dataset.format;
            for (const auto& side : sideFiles(layout, spec, path, split, i, false)) keys.push_back(s3ObjectKey(side.first, bucket));
        }
    std::atomic<std::size_t> next{0};
    std::atomic<std::uint64_t> removed{0};
    std::mutex errorMutex;
    std::string error;
    auto worker = [&] {
        for (std::size_t k = next.fetch_add(1); k < keys.size(); k = next.fetch_add(1)) {
            const std::int64_t size = c.head(keys[k]);
            if (size == -ENOENT) continue;
            if (size < 0 || c.remove(keys[k]) < 0) {
                std::lock_guard lock(errorMutex);
                if (error.empty()) error = "remove s3://" + bucket + "/" + keys[k] + ": " + c.lastError();
                return;
            }
            removed.fetch_add(1);
        }
    };
    std::vector<std::thread> pool;
    for (std::size_t t = 0; t < std::min<std::size_t>(8, keys.size()); ++t) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
    if (!error.empty()) throw RunError(error);
    CleanResult r;
    r.filesRemoved = removed.load();
    if (shardCount > 1) return r; // the marker is the last, unsharded pass's
    // Say what is still there (a sample: the first keys under each split's prefix) rather than report a
    // clean that left the data behind.
    for (const Split split : {Split::Train, Split::Valid}) {
        if (layout.fileCount(split) == 0) continue;
        std::string listError;
        const auto listed = c.list(s3ObjectKey(layout.splitFolder(split).string() + "/", bucket), 1000, &listError);
        if (!listed) throw RunError("list s3://" + bucket + "/" + layout.splitFolder(split).string() + ": " + listError);
        for (const auto& o : *listed)
            if (std::find(keys.begin(), keys.end(), o.key) != keys.end() && r.filesRemaining++ == 0)
                r.firstRemaining = "s3://" + bucket + "/" + o.key;
    }
    if (r.filesRemaining == 0 && c.remove(markerKey) < 0) throw RunError("remove " + where + ": " + c.lastError());
    return r;
}

} // namespace

std::uint64_t expectedDatasetFileSize(const WorkloadConfig& cfg, Split split, std::uint64_t i) {
    return expectedFileSize(specFor(cfg.dataset, cfg.train.seed, split, i));
}

std::optional<std::vector<DatasetParameterMismatch>> datasetMarkerMismatches(const WorkloadConfig& cfg, MarkerUse use) {
    const fs::path marker = datasetRoot(cfg.dataset.dataFolder) / kDatasetMarkerName;
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(marker, ec))) return std::nullopt;
    const Marker m = readMarker(marker, cfg.dataset.dataFolder);
    return parameterMismatches(parametersJson(cfg.dataset, cfg.train.seed), m.parameters, use);
}

void prepareDataset(const WorkloadConfig& cfg, const std::shared_ptr<IoBackend>& given) {
    if (cfg.storage.isS3()) {
        prepareS3(cfg, *s3BackendFor(cfg, given, 0));
        return;
    }
    const DatasetSection& ds = cfg.dataset;
    checkWritable(ds);
    std::shared_ptr<IoBackend> io = given ? given : makePosixBackend();
    prepareRoot(cfg, *io);
    const std::vector<fs::path> dirs = datasetDirectories(ds);
    // A folder of the tree replaced by a symlink would make generation (and the sweep of stale
    // temporaries below) write and delete wherever it points. dirs lists parents before children, so
    // checking each one covers every component below the root (the root itself is the user's choice).
    for (const auto& d : dirs) {
        std::error_code ec;
        if (fs::is_symlink(fs::symlink_status(d, ec)))
            throw InputError(d.string() + ": is a symbolic link inside the dataset folder; refusing to write "
                                          "through it (replace it with a real folder, or clean the dataset)");
    }
    for (const auto& d : dirs) makeDirectory(d);
    // Temporaries of an earlier, interrupted run (any pid) are garbage by construction.
    for (const auto& d : dirs) {
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(d, ec)) {
            if (isOurTemporary(e.path().filename().string(), ds.filePrefix) && e.is_regular_file(ec) && !e.is_symlink(ec))
                fs::remove(e.path(), ec);
        }
    }
}

GenerationResult generateDataset(const WorkloadConfig& cfg, const GenerateOptions& opts) {
    const auto start = Clock::now();
    const DatasetSection& ds = cfg.dataset;
    if (opts.shardCount == 0 || opts.shardIndex >= opts.shardCount)
        throw InputError("dataset shard " + std::to_string(opts.shardIndex) + " of " + std::to_string(opts.shardCount) +
                         ": expected an index below the count");
    const bool s3 = cfg.storage.isS3();
    // An S3 workload writes objects, never local files, whatever backend the caller meant for files.
    std::shared_ptr<S3Backend> s3io = s3 ? s3BackendFor(cfg, opts.io, opts.shardIndex) : nullptr;
    std::shared_ptr<IoBackend> io = s3io ? s3io : opts.io ? opts.io : makePosixBackend();
    if (opts.shardCount == 1) prepareDataset(cfg, io);
    else checkWritable(ds);

    const DatasetLayout layout(ds);
    std::vector<Job> jobs = allJobs(ds);
    if (opts.shardCount > 1)
        std::erase_if(jobs, [&](const Job& j) { return j.index % opts.shardCount != opts.shardIndex; });
    std::uint64_t bytesTotal = 0;
    for (const Job& j : jobs) bytesTotal += expectedFileSize(specFor(ds, cfg.train.seed, j.split, j.index));

    std::atomic<std::size_t> next{0};
    std::atomic<std::uint64_t> filesWritten{0}, filesSkipped{0}, bytesWritten{0}, bytesDone{0};
    std::atomic<bool> stop{false}, cancelled{false};
    std::atomic<std::int64_t> lastReportNs{0};
    std::mutex errorMutex;
    std::exception_ptr firstError;

    auto snapshot = [&] {
        GenerationProgress p;
        p.filesSkipped = filesSkipped.load();
        p.filesDone = filesWritten.load() + p.filesSkipped;
        p.filesTotal = jobs.size();
        p.bytesDone = bytesDone.load();
        p.bytesTotal = bytesTotal;
        p.seconds = std::chrono::duration<double>(Clock::now() - start).count();
        return p;
    };
    auto maybeReport = [&] {
        if (!opts.onProgress) return;
        const std::int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
        std::int64_t last = lastReportNs.load(std::memory_order_relaxed);
        if (now - last < 100'000'000) return;
        if (!lastReportNs.compare_exchange_strong(last, now)) return; // another thread reports this slot
        opts.onProgress(snapshot());
    };
    auto externalCancel = [&] { return opts.cancel && opts.cancel->load(std::memory_order_relaxed); };

    auto worker = [&] {
        std::string path;
        while (!stop.load()) {
            if (externalCancel()) {
                cancelled = true;
                break;
            }
            const std::size_t k = next.fetch_add(1);
            if (k >= jobs.size()) break;
            const Job job = jobs[k];
            const DataFileSpec spec = specFor(ds, cfg.train.seed, job.split, job.index);
            const std::uint64_t expected = expectedFileSize(spec);
            layout.filePath(job.split, job.index, path);
            const auto sides = sideFiles(layout, spec, path, job.split, job.index, true);
            // JPEG/PNG sizes are known only once encoded: there a file under its final name is whole,
            // since it gets that name by a rename after its last byte was written.
            const bool exact = fileSizeExact(spec.format);
            std::uint64_t present = 0;
            bool complete = false;
            if (s3io) {
                // Side files are PUT before the data object: a data object of the right size is complete.
                const std::int64_t have = s3io->client().head(s3ObjectKey(path, s3io->client().options().bucket));
                complete = have > 0 && (!exact || static_cast<std::uint64_t>(have) == expected);
                present = have > 0 ? static_cast<std::uint64_t>(have) : 0;
            } else {
                complete = exact ? regularFileOfSize(path, expected) : nonEmptyRegularFile(path, present);
                for (const auto& [sidePath, content] : sides) complete = complete && regularFileOfSize(sidePath, content.size());
            }
            if (exact) present = expected;
            if (complete) {
                filesSkipped.fetch_add(1);
                bytesDone.fetch_add(present);
                maybeReport();
                continue;
            }
            // The data file written to `target` (the object itself on S3, a temporary name on a file system),
            // its bytes counted into the progress as they go; `reported` is what it counted.
            std::uint64_t reported = 0;
            const auto writeCounted = [&](const std::string& target) {
                WriteControl control;
                control.cancel = opts.cancel;
                control.onBytes = [&](std::uint64_t n) {
                    reported += n;
                    bytesDone.fetch_add(n);
                    maybeReport();
                };
                return writeDataFile(*io, spec, target, control);
            };
            if (s3io) {
                const std::string key = s3ObjectKey(path, s3io->client().options().bucket);
                try {
                    for (const auto& [sidePath, content] : sides) writeWholeFile(*io, sidePath, content);
                    if (writeCounted(path) == WriteOutcome::Cancelled) {
                        s3io->client().remove(key);
                        cancelled = true;
                        break;
                    }
                    const std::int64_t written = s3io->client().head(key);
                    if (written <= 0) throw RunError("HEAD " + s3io->client().url(key) + " after PUT: " + s3io->client().lastError());
                    if (static_cast<std::uint64_t>(written) > reported) bytesDone.fetch_add(static_cast<std::uint64_t>(written) - reported);
                    filesWritten.fetch_add(1);
                    bytesWritten.fetch_add(static_cast<std::uint64_t>(written));
                    maybeReport();
                } catch (...) {
                    s3io->client().remove(key); // a partial object (a failed write closes its handle)
                    std::lock_guard lock(errorMutex);
                    if (!firstError) firstError = std::current_exception();
                    stop = true;
                    break;
                }
                continue;
            }
            std::vector<std::string> temps;
            try {
                const std::string tmp = temporaryFor(path);
                temps.push_back(tmp);
                if (writeCounted(tmp) == WriteOutcome::Cancelled) {
                    std::error_code ec;
                    fs::remove(tmp, ec);
                    cancelled = true;
                    break;
                }
                for (const auto& [sidePath, content] : sides) {
                    const std::string sideTmp = temporaryFor(sidePath);
                    temps.push_back(sideTmp);
                    writeWholeFile(*io, sideTmp, content);
                    std::error_code ec;
                    fs::rename(sideTmp, sidePath, ec);
                    if (ec) throw RunError("rename " + sideTmp + " to " + sidePath + ": " + ec.message());
                }
                // The data file last: its final name means "complete, side files included".
                std::error_code ec;
                fs::rename(tmp, path, ec);
                if (ec) throw RunError("rename " + tmp + " to " + path + ": " + ec.message());
                std::uint64_t written = expected;
                if (!exact && !nonEmptyRegularFile(path, written)) throw RunError("stat " + path + ": not written");
                if (written > reported) bytesDone.fetch_add(written - reported);
                filesWritten.fetch_add(1);
                bytesWritten.fetch_add(written);
                maybeReport();
            } catch (...) {
                std::error_code ec;
                for (const auto& t : temps) fs::remove(t, ec);
                std::lock_guard lock(errorMutex);
                if (!firstError) firstError = std::current_exception();
                stop = true;
                break;
            }
        }
    };

    unsigned threads = opts.threads ? opts.threads : std::max(1u, std::thread::hardware_concurrency());
    // Objects are written over the network: more uploads in flight than cores.
    if (s3 && !opts.threads) threads = std::max(threads, 8u);
    threads = static_cast<unsigned>(std::min<std::uint64_t>(threads, std::max<std::size_t>(jobs.size(), 1)));
    std::vector<std::thread> pool;
    pool.reserve(threads);
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
    if (firstError) std::rethrow_exception(firstError);

    GenerationResult r;
    r.filesWritten = filesWritten.load();
    r.filesSkipped = filesSkipped.load();
    r.bytesWritten = bytesWritten.load();
    r.cancelled = cancelled.load();
    r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (opts.onProgress) opts.onProgress(snapshot());
    return r;
}

CleanResult cleanDataset(const WorkloadConfig& cfg, std::uint64_t shardIndex, std::uint64_t shardCount) {
    if (shardCount == 0 || shardIndex >= shardCount)
        throw InputError("clean: shard " + std::to_string(shardIndex) + " of " + std::to_string(shardCount) +
                         ": expected an index below the count");
    if (cfg.storage.isS3()) return cleanS3(cfg, shardIndex, shardCount);
    const fs::path root = datasetRoot(cfg.dataset.dataFolder);
    std::error_code ec;
    const auto rootStatus = fs::symlink_status(root, ec);
    if (fs::is_symlink(rootStatus))
        throw InputError(root.string() + ": is a symbolic link; refusing to clean through it (clean its target instead)");
    const fs::path markerPath = root / kDatasetMarkerName;
    if (!fs::is_directory(rootStatus) || !fs::is_regular_file(fs::symlink_status(markerPath, ec)))
        throw InputError(root.string() + ": has no " + kDatasetMarkerName +
                         " marker; TrainIO cleans only folders it generated");
    const Marker m = readMarker(markerPath, cfg.dataset.dataFolder);
    const DatasetSection& ds = m.dataset;
    const DatasetLayout layout(ds);

    // A directory is safe when it and every directory between it and the root are real directories.
    const std::vector<fs::path> dirs = datasetDirectories(ds);
    std::vector<fs::path> safeDirs;
    auto isSafe = [&](const fs::path& d) {
        if (d == root) return true;
        for (const auto& s : safeDirs)
            if (s == d) return true;
        return false;
    };
    for (const auto& d : dirs) {
        const auto st = fs::symlink_status(d, ec);
        if (fs::is_directory(st) && !fs::is_symlink(st) && isSafe(d.parent_path())) safeDirs.push_back(d);
    }

    CleanResult r;
    auto removeFile = [&](const fs::path& p) {
        if (!isSafe(p.parent_path())) return;
        const auto st = fs::symlink_status(p, ec);
        if (!fs::is_regular_file(st)) return; // absent, a symlink or something else: not ours
        if (fs::remove(p, ec)) ++r.filesRemoved;
        else if (ec) throw RunError("remove " + p.string() + ": " + ec.message());
    };
    std::string path;
    for (const Split split : {Split::Train, Split::Valid}) {
        for (std::uint64_t i = shardIndex; i < layout.fileCount(split); i += shardCount) {
            layout.filePath(split, i, path);
            removeFile(path);
            DataFileSpec spec;
            spec.format = ds.format;
            for (const auto& side : sideFiles(layout, spec, path, split, i, false)) removeFile(side.first);
        }
    }
    if (shardCount > 1) return r; // a share: the marker, temporaries and folders are the last, unsharded pass's
    for (const auto& d : safeDirs) {
        for (const auto& e : fs::directory_iterator(d, ec)) {
            if (isOurTemporary(e.path().filename().string(), ds.filePrefix)) removeFile(e.path());
        }
    }
    for (const auto& e : fs::directory_iterator(root, ec)) {
        const std::string name = e.path().filename().string();
        if (name.rfind(std::string(".") + kDatasetMarkerName + ".tmp-", 0) == 0) removeFile(e.path());
    }
    removeFile(markerPath);
    // Children before parents; remove() of a non-empty directory fails and leaves it (user files).
    for (auto it = safeDirs.rbegin(); it != safeDirs.rend(); ++it)
        if (fs::remove(*it, ec)) ++r.dirsRemoved;
    if (m.createdRoot && fs::remove(root, ec)) ++r.dirsRemoved;
    // Say what is still there rather than report a clean that left the data behind.
    for (const Split split : {Split::Train, Split::Valid}) {
        for (std::uint64_t i = 0; i < layout.fileCount(split); ++i) {
            layout.filePath(split, i, path);
            if (fs::exists(fs::symlink_status(path, ec))) {
                if (r.filesRemaining++ == 0) r.firstRemaining = path;
            }
        }
    }
    return r;
}

VerifyResult verifyDataset(const WorkloadConfig& cfg, const std::atomic<bool>* cancel, std::uint64_t shardIndex,
                           std::uint64_t shardCount) {
    const DatasetSection& ds = cfg.dataset;
    refuseFileList(ds, "verify");
    const DatasetLayout layout(ds);
    // Files, or objects of a bucket (storage.storage_type s3, this process's endpoint): the same checks.
    const std::shared_ptr<S3Backend> s3 = cfg.storage.isS3() ? makeS3Backend(cfg, shardIndex) : nullptr;
    std::shared_ptr<IoBackend> io = s3 ? s3 : makePosixBackend();
    // The size of a file or object, -ENOENT when there is none (-errno for another failure; `name` then says
    // which object and why).
    auto sizeOf = [&](const std::string& path, std::string& name) -> std::int64_t {
        name = path;
        if (s3) {
            const std::string key = s3ObjectKey(path, s3->client().options().bucket);
            name = "s3://" + s3->client().options().bucket + "/" + key;
            const std::int64_t n = s3->client().head(key);
            if (n < 0 && n != -ENOENT) name += " (" + s3->client().lastError() + ")";
            return n;
        }
        std::error_code ec;
        if (!fs::is_regular_file(fs::status(path, ec))) return -ENOENT;
        const auto n = fs::file_size(path, ec);
        return ec ? -ec.value() : static_cast<std::int64_t>(n);
    };
    SampleReaderOptions ro;
    ro.transferSize = cfg.reader.transferSize;
    ro.samplesPerFile = ds.numSamplesPerFile;
    auto reader = makeSampleReader(ds.format, *io, ro);
    VerifyResult r;
    std::string path;
    for (const Split split : {Split::Train, Split::Valid}) {
        for (std::uint64_t i = 0; i < layout.fileCount(split); ++i) {
            if (cancel && cancel->load()) return r;
            if (shardCount > 1 && i % shardCount != shardIndex) continue;
            layout.filePath(split, i, path);
            std::string name;
            const std::int64_t actual = sizeOf(path, name);
            if (actual < 0) {
                ++r.filesMissing;
                r.problems.push_back(name + ": " + (actual == -ENOENT ? std::string("missing") : errnoText(static_cast<int>(-actual))));
                continue;
            }
            const std::uint64_t expected = expectedDatasetFileSize(cfg, split, i);
            // JPEG/PNG: no size to compare (it depends on the compression); the full decode below checks them.
            if (fileSizeExact(ds.format) && static_cast<std::uint64_t>(actual) != expected) {
                ++r.filesBad;
                r.problems.push_back(name + ": " + std::to_string(actual) + " bytes, expected " + std::to_string(expected));
                continue;
            }
            try {
                reader->reset();
                for (std::uint64_t k = 0; k < ds.numSamplesPerFile; ++k) reader->read(path, k);
                ++r.filesOk;
            } catch (const std::exception& e) {
                ++r.filesBad;
                r.problems.push_back(e.what());
            }
        }
    }
    return r;
}

} // namespace trainio
