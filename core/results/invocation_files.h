// An invocation folder as DLIO writes it (SPEC §6): summary.json, <rank>_per_epoch_stats.json,
// <rank>_output.json, configs/config.yaml + configs/overrides.yaml, a log; plus TrainIO's own
// trainio_run.json (status, error, semantics, seeds, bytes read, CPU time, environment). File names and
// the atomic write are store/run_folder.h; the one reader of these files is store/run_files.h.
// Written atomically; a cancelled or failed run still writes everything it measured and says so:
// trainio_run.json has "status": "cancelled"/"failed" and summary.json gains a last key
// "trainio_status" (absent when complete, so complete folders have exactly DLIO's keys).
// With checkpoints (checkpoint-only mode or during training), also trainio_checkpoint.json.
#pragma once

#include "config/workload_config.h"
#include "engine/training_engine.h"
#include "io/io_backend.h"
#include "metrics/dlio_metrics.h"
#include "metrics/step_records.h"
#include "store/run_folder.h"
#include "util/host_info.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace trainio {

struct InvocationContext {
    std::string commandLine;
    std::vector<std::string> logLines; // warnings etc. to put at the head of the log
    IoBackend* io = nullptr;           // writes go through it (fault injection); null = POSIX
    store::WrittenFiles* written = nullptr; // not null: holds every file written (store/written_files.h)
};

// Writes the whole folder (created if needed). Throws RunError naming the file on a write error; the
// folder then has no summary.json (so nothing takes it for a result) and, where the disk still allows,
// a trainio_run.json with "status": "failed" and that error.
void writeInvocationFolder(const std::filesystem::path& dir, const WorkloadConfig& cfg, const RunOutcome& run,
                           const HostInfo& host, const InvocationContext& ctx);

nlohmann::ordered_json summaryJson(const WorkloadConfig& cfg, const RunOutcome& run, const HostInfo& host);
// With checkpoints: DLIO's save_ckpt<b>/load_ckpt<b> entries of this rank (start, end, duration,
// throughput in GiB/s), after the block they ended, or in epoch "1" in checkpoint-only mode.
nlohmann::ordered_json perEpochStatsJson(const RankRecord& rank, const checkpoint::CheckpointResults* checkpoints = nullptr);
// summary.json's checkpoint keys as the DLIO fork writes them (statscounter.py end_run).
nlohmann::ordered_json checkpointMetricJson(const checkpoint::CheckpointResults& r);
// trainio_checkpoint.json: the plan (files, real and written sizes per rank) and every rank's record.
nlohmann::ordered_json checkpointRecordsJson(const checkpoint::CheckpointResults& r);
nlohmann::ordered_json rankOutputJson(const RankRecord& rank, const RunOutcome& run, const HostInfo& host);


} // namespace trainio
