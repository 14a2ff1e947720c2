#include "session/storage_session.h"

#include "dataset/dataset_layout.h"
#include "engine/training_engine.h"
#include "io/s3_backend.h"
#include "io/storage_profile.h"
#include "preflight/memory_budget.h"
#include "store/run_folder.h"
#include "telemetry/client_bound.h"
#include "util/errors.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace trainio {


StorageSession::StorageSession(const WorkloadConfig& cfg, std::shared_ptr<IoBackend> base, std::uint64_t process) : cfg_(cfg) {
    const auto& tr = cfg.trainio;
    // The engine the readers use (trainio.io_engine; io_engines.h). A backend handed in (tests' fault
    // injection) is used as it is.
    if (!base && cfg.storage.isS3()) {
        // Objects of a bucket (docs/s3.md): no engine, no page cache, no block device under the data.
        s3_ = makeS3Backend(cfg, process, &s3Warnings_);
        io_ = s3_;
    } else if (base) {
        io_ = base;
        // A handed-in engine (a test's) still reports the files it read buffered instead.
        engine_ = std::dynamic_pointer_cast<IoEngineBackend>(base);
    } else {
        IoEngineOptions eo;
        eo.ioDepth = static_cast<unsigned>(tr.ioDepth);
        eo.requestBytes = cfg.reader.transferSize > 0 ? cfg.reader.transferSize : 262144;
        engine_ = makeIoBackend(parseIoEngine(tr.ioEngine, "trainio.io_engine"), eo);
        io_ = engine_;
    }
    if (tr.storage.any()) {
        // A handed-in device is the workload's: one device shared by a collocation's workloads.
        emulated_ = std::dynamic_pointer_cast<EmulatedStorageBackend>(base);
        if (!emulated_) {
            emulated_ = std::make_shared<EmulatedStorageBackend>(io_, storageShapeFor(tr.storage), cfg.train.seed, clock_);
            io_ = emulated_;
        }
    }
    cache_ = parseCacheMode(tr.cache, "trainio.cache");
    if (cfg.storage.isS3() && cache_ != CacheMode::Keep)
        throw InputError("trainio.cache = " + tr.cache + ": storage.storage_type s3 reads objects over the network, there is no "
                         "page cache to drop or advise; expected keep");
    if (const auto problem = cacheControlProblem(cache_)) throw InputError("trainio.cache = " + tr.cache + ": " + *problem);
    files_ = DatasetLayout(cfg.dataset).filePaths(Split::Train);
    // A file list's files (a job's own) may be far from data_folder: the device is the first file's.
    const std::filesystem::path where = cfg.dataset.fileList.empty() || files_.empty()
                                            ? datasetRoot(cfg.dataset.dataFolder)
                                            : std::filesystem::path(files_.front()).parent_path();
    if (!cfg.storage.isS3()) meter_ = std::make_unique<PageCacheMeter>(where, files_);
    report_.engine = tr.ioEngine;
    report_.cache = tr.cache;
    report_.storage = nlohmann::json::object();
    if (emulated_) {
        // The device as configured: the profile named (a name or a file, as given; null when the section's
        // own keys alone describe it) and the resulting parameters (docs/cache-honesty.md).
        report_.storage = storageShapeJson(emulated_->shape());
        report_.storage["profile"] = tr.storage.profile.empty() ? nlohmann::json() : nlohmann::json(tr.storage.profile);
    }
}

StorageSession::~StorageSession() {
    if (sampler_) {
        try {
            sampler_->stop();
        } catch (...) {
        }
    }
}

void StorageSession::beforeEpoch(std::uint64_t) {
    if (s3_) {
        s3_->client().takeStats(); // what happened between epochs (pre-flight, the last epoch's tail) is not the epoch's
        cacheSeconds_.push_back(0);
        return;
    }
    const CacheControlResult r = applyCacheControl(cache_, files_);
    cacheSeconds_.push_back(r.seconds);
    meter_->beginEpoch();
}

static nlohmann::json s3EpochJson(const S3RequestStats& st) {
    auto pct = [](const std::vector<double>& v) {
        return nlohmann::json{{"count", v.size()},
                              {"p50", percentileOf(v, 50)},
                              {"p90", percentileOf(v, 90)},
                              {"p99", percentileOf(v, 99)},
                              {"max", v.empty() ? 0.0 : *std::max_element(v.begin(), v.end())}};
    };
    return {{"requests", st.requests},
            {"gets", st.gets},
            {"heads", st.heads},
            {"puts", st.puts},
            {"retries", st.retries},
            {"retries_503_or_429", st.retries503},
            {"failed_requests", st.failures},
            {"wire_bytes_in", st.wireBytesIn},
            {"wire_bytes_out", st.wireBytesOut},
            {"bytes_delivered", st.bytesDelivered},
            {"wire_over_delivered", st.bytesDelivered ? nlohmann::json(static_cast<double>(st.wireBytesIn) / static_cast<double>(st.bytesDelivered))
                                                      : nlohmann::json(nullptr)},
            {"get_first_byte_ms", pct(st.firstByteMs)},
            {"get_request_ms", pct(st.requestMs)}};
}

void StorageSession::afterEpoch(std::uint64_t epoch, const std::vector<std::uint64_t>& bytesPerRank) {
    if (s3_) {
        std::uint64_t delivered = 0;
        for (auto b : bytesPerRank) delivered += b;
        const S3RequestStats st = s3_->client().takeStats();
        if (onEpochS3) {
            S3EpochFigures f;
            f.gets = st.gets;
            f.requests = st.requests;
            f.retries = st.retries;
            f.failures = st.failures;
            f.bytesDelivered = st.bytesDelivered;
            f.wireBytesIn = st.wireBytesIn;
            f.firstByteP50Ms = percentileOf(st.firstByteMs, 50);
            f.requestP50Ms = percentileOf(st.requestMs, 50);
            f.requestP99Ms = percentileOf(st.requestMs, 99);
            onEpochS3(epoch, f);
        }
        nlohmann::json e = s3EpochJson(st);
        e["epoch"] = epoch;
        e["bytes_read_by_ranks"] = delivered;
        s3Epochs_.push_back(std::move(e));
        return;
    }
    report_.epochs.push_back(meter_->endEpoch(epoch, bytesPerRank));
    if (onEpochCache) {
        const auto p = percentFromCache(report_.epochs.back());
        onEpochCache(epoch, p ? *p : std::numeric_limits<double>::quiet_NaN());
    }
}

void StorageSession::startTelemetry() {
    telemetry::TelemetryOptions opt;
    opt.intervalS = cfg_.trainio.telemetryIntervalS;
    // An S3 run's data arrives over the network: loopback for an endpoint on this host (measured too), else
    // every interface; the live plot's storage line is that traffic (telemetry_summary.h readColumns).
    std::string s3Interface;
    if (s3_) {
        const std::string& e = s3_->client().options().endpoint;
        const std::string host = e.substr(e.find("://") + 3);
        const bool local = host.rfind("127.", 0) == 0 || host.rfind("localhost", 0) == 0 || host.rfind("[::1]", 0) == 0;
        s3Interface = local ? "net:lo" : "net:*";
        opt.loopback = local;
    }
    if (onTelemetry) {
        // The columns are fixed by start(), after the callback is handed over: the reader is built on the
        // sampler thread at its first row (columns() is safe from any thread; onRow runs on that one only).
        auto reader = std::make_shared<std::unique_ptr<telemetry::PointReader>>();
        const BlockDevice noDevice;
        const BlockDevice& dev = meter_ ? meter_->device() : noDevice;
        std::string name = dev.found ? dev.name : std::string(), parent = dev.found ? dev.parentDisk : std::string();
        if (!s3Interface.empty()) name = s3Interface;
        opt.onRow = [this, reader, name, parent](const std::vector<double>& row) {
            if (!*reader) {
                telemetry::TelemetryTable header;
                header.columns = sampler_->columns();
                *reader = std::make_unique<telemetry::PointReader>(header, name, parent);
            }
            onTelemetry((*reader)->point(row));
        };
    }
    sampler_ = std::make_unique<telemetry::TelemetrySampler>(opt, clock_, clock_.now());
    sampler_->start();
}

void StorageSession::setMemoryBudget(std::uint64_t accelerators) {
    if (!s3_) return;
    const MemoryBudget b = memoryBudget(cfg_, accelerators);
    s3Memory_ = {{"budget_bytes", b.totalBytes()},
                 {"budget", b.text()},
                 {"readers", b.readers},
                 {"per_reader_bytes", b.perReaderBytes},
                 {"loader_tier_bytes", b.tierBytes},
                 {"process_bytes_before_run", b.processBytes}};
}

void StorageSession::collocate(const std::string& with) {
    collocatedWith_ = with;
    if (meter_) meter_->shareProcessWithOtherWorkloads();
    // Only on a shared device: "storage": {} is how the file says "real storage", and the warning below
    // says with whom the process was shared either way.
    if (emulated_) report_.storage["shared_with"] = with;
}

std::vector<std::string> StorageSession::stop() {
    std::vector<std::string> warnings = s3Warnings_;
    if (!s3Memory_.is_null()) {
        // The process's peak resident memory (getrusage), against the budget told before the run.
        const double peak = static_cast<double>(processPeakResidentBytes());
        s3Memory_["peak_resident_bytes"] = peak;
        s3Memory_["budget_over_peak"] = peak > 0 ? nlohmann::json(s3Memory_["budget_bytes"].get<double>() / peak) : nlohmann::json(nullptr);
    }
    if (s3_ && !cfg_.workflow.train && cfg_.workflow.checkpoint) s3Checkpoints_ = s3EpochJson(s3_->client().takeStats());
    if (s3_ && s3_->client().totalRetries() > 0)
        warnings.push_back(std::to_string(s3_->client().totalRetries()) + " S3 request(s) were retried (5xx, throttling or "
                           "connection errors; trainio_io.json's s3 epochs count them)");
    if (!collocatedWith_.empty())
        warnings.push_back("collocated with " + collocatedWith_ +
                           ": the process's read counters cover every workload, so this run's share of bytes from the page "
                           "cache is not measured (trainio_collocation.json has the collocation's); its CPU seconds are "
                           "the process's");
    if (emulated_) report_.storage["changes"] = storageChangesJson(emulated_->changes());
    if (engine_) {
        const IoEngineStats st = engine_->stats();
        if (st.directFallbackFiles > 0)
            warnings.push_back(std::to_string(st.directFallbackFiles) + " file(s) could not be read with " + cfg_.trainio.ioEngine +
                               " and were read buffered (through the page cache): " + st.fallbackReason);
    }
    // With an emulated device the reads are shaped as that device would serve them, whatever the page
    // cache holds underneath: the cache warning would contradict what the run is for.
    if (const std::string w = cacheWarning(report_); !w.empty() && !emulated_) warnings.push_back(w);
    if (sampler_) {
        telemetry_ = sampler_->stop();
        sampler_.reset();
        if (!telemetry_->rows.empty()) {
            try {
                const auto verdict =
                    telemetry::clientBound(*telemetry_, telemetry_->rows.front()[0], telemetry_->rows.back()[0]);
                if (verdict.clientBound) {
                    // A checkpoint-only run has no AU: what a busy client puts in doubt is its GiB/s.
                    std::string reason = verdict.reason;
                    const std::string au = "AU says little about the storage";
                    if (!cfg_.workflow.train && cfg_.workflow.checkpoint)
                        if (const auto at = reason.find(au); at != std::string::npos)
                            reason.replace(at, au.size(), "the checkpoint GiB/s may describe the client, not the storage");
                    warnings.push_back("client-bound: " + reason);
                }
            } catch (const InputError&) {
                // A table without the CPU columns (unreadable /proc) gives no verdict; the file says why.
            }
        }
    }
    return warnings;
}

void StorageSession::setLoaderReport(const WorkloadConfig& cfg, const RunOutcome& out) {
    using nlohmann::json;
    const auto& ld = cfg.trainio.loader;
    loader::PlacementSummary placed;
    for (const auto& p : out.loaderPlacement) placed += p;
    loader_ = {{"policy", ld.policy},
               {"ram_tier_mib", ld.ramTierMiB},
               {"staging_mib", ld.stagingMiB},
               {"ssd_tier", ld.ssdTier.path.empty() ? json(nullptr)
                                                    : json{{"path", ld.ssdTier.path}, {"capacity_mib", ld.ssdTier.capacityMiB}}},
               {"ranks_counted", out.loaderTallies.size()},
               {"placement",
                {{"ram_samples", placed.ramSamples}, {"ssd_samples", placed.ssdSamples},
                 {"storage_samples", placed.storageSamples}, {"ram_bytes", placed.ramBytes},
                 {"ssd_bytes", placed.ssdBytes}, {"storage_bytes", placed.storageBytes}}}};
    if (out.processes > 1)
        loader_["note"] = "counters of process 0's ranks only (" + std::to_string(out.loaderTallies.size()) + " of " +
                          std::to_string(out.ranks.size()) + " ranks); stall_seconds covers every rank";
    loaderEpochs_ = json::object();
    for (std::uint64_t e = 1; e <= cfg.train.epochs; ++e) {
        loader::EpochTally sum;
        for (const auto& rank : out.loaderTallies)
            if (rank.size() >= e) sum += rank[e - 1];
        // How long the accelerators waited for their batches: each rank's summed load times in the epoch
        // (the per-step "load" of the step records), the mean over the ranks that ran it.
        double stall = 0;
        std::uint64_t ranks = 0;
        for (const auto& r : out.ranks)
            for (const auto& ep : r.epochs) {
                if (ep.epoch != e) continue;
                ++ranks;
                stall += ep.loadSeconds();
            }
        if (sum.accesses == 0 && ranks == 0) continue; // an epoch that never began
        const auto orNull = [](double v) { return std::isnan(v) ? json(nullptr) : json(v); };
        loaderEpochs_[std::to_string(e)] = {
            {"hit_ratio", orNull(loader::hitRatio(sum))},
            {"belady_hit_ratio", orNull(loader::beladyHitRatio(sum))},
            {"stall_seconds", ranks ? json(stall / static_cast<double>(ranks)) : json(nullptr)},
            {"bytes_per_tier", {{"storage", sum.bytesStorage}, {"ram", sum.bytesRam}, {"ssd", sum.bytesSsd}}},
            {"accesses", sum.accesses},
            {"storage_reads", sum.storageReads},
            {"storage_bytes_read", sum.storageBytesRead}};
    }
}

std::vector<std::string> StorageSession::write(const std::filesystem::path& dir, IoBackend* io, store::WrittenFiles* written) const {
    std::vector<std::string> warnings;
    auto one = [&](const char* name, const std::string& text) {
        try {
            store::writeFileAtomic(dir / name, text, io, written);
        } catch (const RunError& e) {
            warnings.push_back(std::string(name) + " was not written: " + e.what());
        }
    };
    nlohmann::json ioJson = ioReportJson(report_);
    // The cache control's own time, spent before each epoch outside its measured window (docs/cache-honesty.md).
    for (std::size_t i = 0; i < ioJson["epochs"].size() && i < cacheSeconds_.size(); ++i)
        ioJson["epochs"][i]["cache_control_seconds"] = cacheSeconds_[i];
    // The loader's figures in each epoch's entry; an epoch the meter did not close (a stopped run) gets
    // an entry of its own, so that what was measured is kept.
    if (!loader_.is_null()) {
        ioJson["loader"] = loader_;
        for (auto& [epoch, fields] : loaderEpochs_.items()) {
            nlohmann::json* entry = nullptr;
            for (auto& ej : ioJson["epochs"])
                if (ej.value("epoch", std::uint64_t{0}) == std::stoull(epoch)) entry = &ej;
            if (!entry) {
                ioJson["epochs"].push_back({{"epoch", std::stoull(epoch)}, {"complete", false}});
                entry = &ioJson["epochs"].back();
            }
            entry->update(fields);
        }
    }
    // The data folder's block device, so that an importer reads the same device's column of telemetry.csv.
    if (s3_) {
        const S3Options& o = s3_->client().options();
        ioJson["data_device"] = {{"name", nullptr}, {"reason", "storage.storage_type s3: the data is objects of a bucket, read over the network"}};
        ioJson["s3"] = {
            {"endpoint", o.endpoint},
            {"bucket", o.bucket},
            {"region", o.region},
            {"credentials_source", o.credentials.source},
            {"tls_verify", o.verifyTls},
            {"request_bytes", s3_->requestBytes()},
            {"requests_in_flight_per_reader", s3_->depth()},
            {"max_attempts", o.maxAttempts},
            {"measured", "No page cache sits between the readers and an object store: instead of the cache share, each epoch "
                         "counts the HTTP requests, the bytes on the wire (curl's counters: response headers and bodies) against "
                         "the bytes delivered to the readers, first-byte and whole-request latency percentiles of the GETs, and "
                         "the retries"},
            {"epochs", s3Epochs_}};
        // Checkpoints written during training are requests of their epoch; a checkpoint-only run has no epoch.
        if (!s3Checkpoints_.is_null()) ioJson["s3"]["checkpoints"] = s3Checkpoints_;
        if (!s3Memory_.is_null()) ioJson["s3"]["memory"] = s3Memory_;
    } else {
        const BlockDevice& dev = meter_->device();
        ioJson["data_device"] = dev.found ? nlohmann::json{{"name", dev.name}, {"parent_disk", dev.parentDisk}}
                                          : nlohmann::json{{"name", nullptr}, {"reason", dev.reason}};
    }
    one(store::kIoFile, ioJson.dump(2) + "\n");
    if (telemetry_) {
        one(store::kTelemetryCsvFile, telemetry::telemetryCsv(*telemetry_));
        one(store::kTelemetryJsonFile, telemetry::telemetryJson(*telemetry_));
    }
    return warnings;
}

} // namespace trainio
