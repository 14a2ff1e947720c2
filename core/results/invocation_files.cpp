#include "results/invocation_files.h"

#include "config/config_loader.h"
#include "store/run_folder.h"
#include "util/clock.h"
#include "util/errors.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

namespace trainio {
namespace fs = std::filesystem;

namespace {

// Strings from the config (model name, paths) need not be valid UTF-8, and nlohmann's dump throws on
// invalid UTF-8 by default: that would lose a finished run's results over a label. Replace instead.
std::string dumpJson(const nlohmann::ordered_json& j) {
    return j.dump(4, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string twoDecimals(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    return buf;
}

std::string fourDecimals(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4f", v);
    return buf;
}

double dataSizePerHostGiB(const WorkloadConfig& cfg) {
    // statscounter.py: npernode × samples_per_file × files // size × record_length; all ranks are on
    // this host, so npernode == size.
    return static_cast<double>(cfg.dataset.numSamplesPerFile * cfg.dataset.numFilesTrain) *
           cfg.dataset.recordLength / 1024.0 / 1024.0 / 1024.0;
}

std::string logText(const WorkloadConfig& cfg, const RunOutcome& run, const InvocationContext& ctx) {
    std::ostringstream log;
    auto line = [&](double t, const std::string& text) { log << "[OUTPUT] " << isoTimestamp(t) << " " << text << "\n"; };
    const bool checkpointOnly = !cfg.workflow.train && run.checkpoints.enabled;
    line(run.start, std::string("Running TrainIO " TRAINIO_VERSION " [") + (checkpointOnly ? "Checkpointing" : "Training") +
                        "] with " + std::to_string(run.ranks.size()) + " emulated accelerator(s)");
    if (!ctx.commandLine.empty()) log << "[INFO] command: " << ctx.commandLine << "\n";
    for (const auto& l : ctx.logLines) log << "[WARNING] " << l << "\n";
    if (!checkpointOnly)
        line(run.start, "Max steps per epoch: " + std::to_string(run.stepsPerEpoch) + " = " +
                        std::to_string(cfg.dataset.numSamplesPerFile) + " * " + std::to_string(cfg.dataset.numFilesTrain) +
                        " / " + std::to_string(cfg.reader.batchSize) + " / " + std::to_string(run.ranks.size()) +
                        " (samples per file * num files / batch size / accelerators)");
    if (!run.ranks.empty()) {
        const RankRecord& r0 = run.ranks[0];
        for (const auto& ep : r0.epochs) {
            line(ep.start, "Starting epoch " + std::to_string(ep.epoch) + ": " + std::to_string(run.stepsPerEpoch) +
                               " steps expected");
            for (const auto& b : ep.blocks) {
                const BlockMetrics bm = blockMetrics(b, run.metricOptions);
                line(b.end, "Ending block " + std::to_string(b.block) + " - " + std::to_string(b.steps()) +
                                " steps completed in " + twoDecimals(b.end - b.start) + " s");
                line(b.end, "Epoch " + std::to_string(ep.epoch) + " - Block " + std::to_string(b.block) +
                                " [Training] Accelerator Utilization [AU] (%): " + fourDecimals(bm.auPercent) +
                                " (rank 0)");
            }
            line(ep.end, "Ending epoch " + std::to_string(ep.epoch) + " - " + std::to_string(ep.steps()) +
                             " steps completed in " + twoDecimals(ep.end - ep.start) + " s" +
                             (ep.complete ? "" : " (incomplete)"));
        }
    }
    // Rank 0's checkpoints and DLIO's [METRIC] lines for them (statscounter.py lines 231-237, 383, 400).
    if (run.checkpoints.enabled && !run.checkpoints.perRank.empty())
        for (const auto& rec : run.checkpoints.perRank[0])
            line(rec.end, std::string("Finished ") + (rec.op == checkpoint::Operation::Write ? "saving" : "loading") +
                              " checkpoint " + std::to_string(rec.block) + " for epoch " + std::to_string(rec.epoch) +
                              " in " + fourDecimals(rec.duration()) + " s; Throughput: " +
                              fourDecimals(checkpoint::recordThroughputGiBs(run.checkpoints, rec)) + " GiB/s");
    const InvocationMetrics& m = run.metrics;
    log << "[METRIC] ==========================================================\n";
    log << "[METRIC] Number of Simulated Accelerators: " << run.ranks.size() << "\n";
    if (!checkpointOnly) {
        log << "[METRIC] Training Accelerator Utilization [AU] (%): " << fourDecimals(m.auMean) << " ("
            << fourDecimals(m.auStdev) << ")\n";
        log << "[METRIC] Training Throughput (samples/second): " << fourDecimals(m.throughputMean) << " ("
            << fourDecimals(m.throughputStdev) << ")\n";
        log << "[METRIC] Training I/O Throughput (MiB/second, DLIO's 'MB/second'): " << fourDecimals(m.ioMeanMiB)
            << " (" << fourDecimals(m.ioStdevMiB) << ")\n";
        log << "[METRIC] train_au_meet_expectation: " << (m.pass ? "success" : "fail") << "\n";
    }
    if (run.checkpoints.enabled) {
        for (const auto& [op, what] : {std::pair{checkpoint::Operation::Write, "save"}, std::pair{checkpoint::Operation::Read, "load"}}) {
            const auto c = checkpoint::checkpointMetrics(run.checkpoints, op);
            if (c.count == 0) continue;
            log << "[METRIC] Checkpoint " << what << " duration (seconds): " << fourDecimals(c.durationMean) << " ("
                << fourDecimals(c.durationStdev) << ")\n";
            log << "[METRIC] Checkpoint " << what << " I/O Throughput (GiB/second): " << fourDecimals(c.ioMeanGiBs) << " ("
                << fourDecimals(c.ioStdevGiBs) << ")\n";
        }
    }
    log << "[METRIC] ==========================================================\n";
    line(run.end, std::string("Run ") + toString(run.status) + (run.error.empty() ? "" : ": " + run.error));
    return log.str();
}

} // namespace

nlohmann::ordered_json checkpointMetricJson(const checkpoint::CheckpointResults& r) {
    // The fork's statscounter.py end_run (lines 163-187): the save_/load_ keys only when rank 0 saved
    // (loaded) a checkpoint; sizes in GiB under DLIO's "GB" names.
    using checkpoint::Operation;
    nlohmann::ordered_json m = nlohmann::ordered_json::object();
    for (const auto& [op, prefix] : {std::pair{Operation::Write, "save_checkpoint_"}, std::pair{Operation::Read, "load_checkpoint_"}}) {
        const auto c = checkpointMetrics(r, op);
        if (c.count == 0) continue;
        const std::string p = prefix;
        m[p + "io_mean_GB_per_second"] = c.ioMeanGiBs;
        m[p + "io_stdev_GB_per_second"] = c.ioStdevGiBs;
        m[p + "duration_mean_seconds"] = c.durationMean;
        m[p + "duration_stdev_seconds"] = c.durationStdev;
    }
    m["checkpoint_size_GB"] = r.sizeGiB;
    return m;
}

nlohmann::ordered_json checkpointRecordsJson(const checkpoint::CheckpointResults& r) {
    nlohmann::ordered_json j;
    const auto& plan = r.plan;
    j["folder"] = r.folder;
    j["scale"] = plan.scale;
    j["real_bytes"] = plan.realTotalBytes;
    j["bytes"] = plan.totalBytes;
    j["dlio_checkpoint_size_GiB"] = plan.dlioCheckpointSizeGiB;
    j["checkpoint_size_GB"] = r.sizeGiB;
    j["notes"] = plan.notes;
    nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
    for (const auto& rp : plan.perRank) {
        nlohmann::ordered_json files = nlohmann::ordered_json::array();
        for (const auto& f : rp.files)
            files.push_back({{"name", f.relativePath}, {"real_bytes", f.realBytes}, {"bytes", f.bytes}});
        ranks.push_back({{"rank", rp.rank}, {"files", files}});
    }
    j["plan"] = ranks;
    nlohmann::ordered_json recs = nlohmann::ordered_json::array();
    for (const auto& rank : r.perRank)
        for (const auto& rec : rank)
            recs.push_back({{"operation", checkpoint::operationName(rec.op)},
                            {"index", rec.index},
                            {"rank", rec.rank},
                            {"epoch", rec.epoch},
                            {"step", rec.step},
                            {"block", rec.block},
                            {"start", isoTimestamp(rec.start)},
                            {"end", isoTimestamp(rec.end)},
                            {"duration", rec.duration()},
                            {"io_seconds", rec.ioSeconds},
                            // of io_seconds: inside the storage's calls, and the writer's own (making the
                            // bytes); the larger names what set the pace (mlcommons/storage#689)
                            {"storage_seconds", rec.storageSeconds},
                            {"client_seconds", rec.clientSeconds()},
                            {"bound", checkpoint::boundName(rec.generationBound())},
                            {"bytes", rec.bytes},
                            {"throughput_GiB_per_second", checkpoint::recordThroughputGiBs(r, rec)}});
    j["records"] = recs;
    return j;
}

namespace {

// The client hosts of a run: those the processes of a multi-process run named, else this one.
std::vector<HostSummary> runHosts(const RunOutcome& run, const HostInfo& host) {
    if (!run.hosts.empty()) return run.hosts;
    return {HostSummary{host.hostname, host.cpuCount, host.memoryGiB}};
}

// The ranks on each host (one entry per runHosts() entry).
std::vector<std::uint64_t> ranksPerHost(const RunOutcome& run, std::size_t hosts) {
    std::vector<std::uint64_t> n(hosts, 0);
    if (run.rankHost.empty()) n[0] = run.ranks.size();
    for (auto h : run.rankHost) ++n[h];
    return n;
}

} // namespace

nlohmann::ordered_json summaryJson(const WorkloadConfig& cfg, const RunOutcome& run, const HostInfo& host) {
    nlohmann::ordered_json s;
    const std::vector<HostSummary> hosts = runHosts(run, host);
    const std::vector<std::uint64_t> perHost = ranksPerHost(run, hosts.size());
    s["start"] = isoTimestamp(run.start);
    s["num_accelerators"] = run.ranks.size();
    s["num_hosts"] = hosts.size();
    s["hostname"] = host.hostname;
    if (run.checkpoints.enabled) {
        // DLIO adds the checkpoint keys first, the training keys only when it trained.
        nlohmann::ordered_json m = checkpointMetricJson(run.checkpoints);
        if (cfg.workflow.train) {
            const nlohmann::ordered_json train = metricJson(run.metrics);
            for (const auto& [k, v] : train.items()) m[k] = v;
        }
        s["metric"] = m;
    } else {
        s["metric"] = metricJson(run.metrics);
    }
    s["num_files_train"] = cfg.dataset.numFilesTrain;
    s["num_files_eval"] = cfg.dataset.numFilesEval;
    s["num_samples_per_file"] = cfg.dataset.numSamplesPerFile;
    // One slot per client host, in the order of their first rank (DLIO's arrays are doubled or zero
    // under mpirun: mlcommons/storage#669). A host's data share is its ranks' share of the dataset
    // (statscounter.py: npernode × samples × files // size × record_length); data_size_per_host_GB is
    // rank 0's host's, as DLIO writes it from rank 0.
    const double dataGiB = dataSizePerHostGiB(cfg);
    const double totalRanks = static_cast<double>(std::max<std::size_t>(1, run.ranks.size()));
    auto share = [&](std::size_t h) { return run.hosts.empty() ? dataGiB : dataGiB * static_cast<double>(perHost[h]) / totalRanks; };
    nlohmann::ordered_json cpus = nlohmann::ordered_json::array(), caching = nlohmann::ordered_json::array(),
                           memory = nlohmann::ordered_json::array();
    for (std::size_t h = 0; h < hosts.size(); ++h) {
        cpus.push_back(hosts[h].cpuCount);
        caching.push_back(hosts[h].memoryGiB > share(h) ? 1 : 0);
        memory.push_back(hosts[h].memoryGiB);
    }
    s["host_cpu_count"] = cpus;
    s["host_processor_name"] = host.processorName;
    s["potential_caching"] = caching;
    s["host_cpuinfo"] = host.cpuinfo;
    s["host_meminfo"] = host.meminfo;
    s["host_memory_GB"] = memory;
    s["data_size_per_host_GB"] = share(0);
    s["epochs"] = run.metrics.auPerEpoch.size();
    s["end"] = isoTimestamp(run.end);
    if (run.status != RunStatus::Complete) s["trainio_status"] = toString(run.status);
    return s;
}

nlohmann::ordered_json perEpochStatsJson(const RankRecord& rank, const checkpoint::CheckpointResults* checkpoints) {
    // DLIO's statscounter keeps insertion order: a checkpoint that ended block b (save_ckpt<b>, during
    // training) follows block<b>; checkpoint-only mode has epoch "1" with only save_/load_ckpt entries.
    const std::vector<checkpoint::CheckpointRecord>* recs = nullptr;
    if (checkpoints && rank.rank < checkpoints->perRank.size()) recs = &checkpoints->perRank[rank.rank];
    auto addCheckpoints = [&](nlohmann::ordered_json& e, std::uint64_t epoch, const std::uint64_t* block) {
        if (!recs) return;
        for (const auto& rec : *recs) {
            if (rec.epoch != epoch || (block && rec.block != *block) || !rec.complete) continue;
            nlohmann::ordered_json cj;
            cj["start"] = isoTimestamp(rec.start);
            cj["end"] = isoTimestamp(rec.end);
            cj["duration"] = rec.duration();
            cj["throughput"] = checkpoint::recordThroughputGiBs(*checkpoints, rec);
            e[std::string(rec.op == checkpoint::Operation::Write ? "save_ckpt" : "load_ckpt") + std::to_string(rec.block)] = cj;
        }
    };
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (const auto& ep : rank.epochs) {
        nlohmann::ordered_json e;
        e["start"] = isoTimestamp(ep.start);
        for (const auto& b : ep.blocks) {
            nlohmann::ordered_json bj;
            bj["start"] = isoTimestamp(b.start);
            bj["end"] = isoTimestamp(b.end);
            bj["duration"] = twoDecimals(b.end - b.start);
            e["block" + std::to_string(b.block)] = bj;
            addCheckpoints(e, ep.epoch, &b.block);
        }
        e["end"] = isoTimestamp(ep.end);
        e["duration"] = twoDecimals(ep.end - ep.start);
        j[std::to_string(ep.epoch)] = e;
    }
    if (rank.epochs.empty() && checkpoints && checkpoints->enabled && checkpoints->phaseStart > 0) {
        nlohmann::ordered_json e;
        e["start"] = isoTimestamp(checkpoints->phaseStart);
        addCheckpoints(e, 1, nullptr);
        e["end"] = isoTimestamp(checkpoints->phaseEnd > 0 ? checkpoints->phaseEnd : checkpoints->phaseStart);
        j["1"] = e;
    }
    return j;
}

nlohmann::ordered_json rankOutputJson(const RankRecord& rank, const RunOutcome& run, const HostInfo& host) {
    nlohmann::ordered_json j;
    // The rank's own host in a multi-process run.
    const HostSummary h = rank.rank < run.rankHost.size() && run.rankHost[rank.rank] < run.hosts.size()
                              ? run.hosts[run.rankHost[rank.rank]]
                              : HostSummary{host.hostname, host.cpuCount, host.memoryGiB};
    j["host_memory_GB"] = h.memoryGiB;
    j["host_cpu_count"] = h.cpuCount;
    j["host_processor_name"] = host.processorName;
    j["potential_caching"] = 0;
    for (const auto& ep : rank.epochs) {
        nlohmann::ordered_json e;
        nlohmann::ordered_json load, proc, tp, au, compute;
        for (const auto& b : ep.blocks) {
            const std::string key = "block" + std::to_string(b.block);
            const BlockMetrics bm = blockMetrics(b, run.metricOptions);
            load[key] = b.load;
            proc[key] = b.proc;
            tp[key] = bm.throughput;
            au[key] = bm.auPercent;
            compute[key] = b.compute;
        }
        e["load"] = load;
        e["proc"] = proc;
        e["throughput"] = tp;
        e["au"] = au;
        e["compute"] = compute;
        e["end"] = isoTimestamp(ep.end);
        j[std::to_string(ep.epoch)] = e;
    }
    j["hostname"] = h.hostname;
    return j;
}

void writeInvocationFolder(const fs::path& dir, const WorkloadConfig& cfg, const RunOutcome& run, const HostInfo& host,
                           const InvocationContext& ctx) {
    std::error_code ec;
    fs::create_directories(dir / "configs", ec);
    if (ec) throw RunError("create folder " + (dir / "configs").string() + ": " + ec.message());

    nlohmann::ordered_json meta;
    meta["trainio_version"] = TRAINIO_VERSION;
    meta["status"] = toString(run.status);
    meta["error"] = run.error;
    meta["warnings"] = run.warnings; // e.g. most bytes came from the page cache (trainio_io.json)
    meta["semantics"] = semanticsName(run.metricOptions.semantics);
    meta["exclude_start_steps"] = run.metricOptions.excludeStartSteps;
    meta["exclude_end_steps"] = run.metricOptions.excludeEndSteps;
    meta["steps_per_epoch"] = run.stepsPerEpoch;
    meta["batch_size"] = cfg.reader.batchSize;
    meta["record_length_bytes"] = cfg.dataset.recordLength;
    meta["au_threshold"] = cfg.metric.au;
    meta["shuffle_seed"] = run.runSeed;
    meta["prng"] = "splitmix64 + Fisher-Yates (docs/engine.md)";
    meta["bytes_read"] = run.bytesRead;
    meta["samples_read"] = run.samplesRead;
    meta["cpu_seconds"] = run.cpuSeconds;
    meta["wall_seconds"] = run.end - run.start;
    meta["command_line"] = ctx.commandLine;
    meta["workload"] = mlperfWorkloadLabel(cfg); // as in configs/overrides.yaml
    meta["model"] = cfg.model.name;             // the real name ('_' kept)
    meta["config_source"] = cfg.sourcePath;
    nlohmann::ordered_json env;
    env["hostname"] = host.hostname;
    env["os"] = host.os;
    env["cpu_count"] = host.cpuCount;
    env["memory_GiB"] = host.memoryGiB;
    env["cpu_model"] = host.cpuinfo.value("model name", "");
    meta["environment"] = env;
    // A multi-process run: its processes and client hosts (docs/mpi.md).
    meta["processes"] = run.processes;
    nlohmann::ordered_json hostList = nlohmann::ordered_json::array();
    for (const auto& h : runHosts(run, host)) hostList.push_back(h.hostname);
    meta["hosts"] = hostList;

    try {
        // Step records first, summary last: a folder with a summary.json has everything else.
        for (const auto& r : run.ranks) {
            store::writeFileAtomic(dir / store::rankOutputFile(r.rank), dumpJson(rankOutputJson(r, run, host)), ctx.io, ctx.written);
            store::writeFileAtomic(dir / store::rankEpochStatsFile(r.rank),
                            dumpJson(perEpochStatsJson(r, &run.checkpoints)), ctx.io, ctx.written);
        }
        if (run.checkpoints.enabled)
            store::writeFileAtomic(dir / store::kCheckpointFile, dumpJson(checkpointRecordsJson(run.checkpoints)), ctx.io, ctx.written);
        store::writeFileAtomic(dir / store::configFolders().front() / store::kConfigFile, toYaml(cfg), ctx.io, ctx.written);
        store::writeFileAtomic(dir / store::configFolders().front() / store::kOverridesFile, overridesYaml(cfg), ctx.io, ctx.written);
        store::writeFileAtomic(dir / store::kRunRecordFile, dumpJson(meta), ctx.io, ctx.written);
        store::writeFileAtomic(dir / store::kLogFile, logText(cfg, run, ctx), ctx.io, ctx.written);
        store::writeFileAtomic(dir / store::kSummaryFile, dumpJson(summaryJson(cfg, run, host)), ctx.io, ctx.written);
    } catch (const RunError& e) {
        // Without summary.json the folder is not a result; say why in trainio_run.json, so that a
        // folder whose disk filled up while writing is not mistaken for a complete run without its
        // summary. Best effort: on a full disk this write fails too, and the original error matters.
        meta["status"] = toString(RunStatus::Failed);
        meta["error"] = run.error.empty() ? std::string(e.what()) : run.error + "; then " + e.what();
        try {
            store::writeFileAtomic(dir / store::kRunRecordFile, dumpJson(meta), ctx.io, ctx.written);
        } catch (const RunError&) {
        }
        throw;
    }
}

} // namespace trainio
