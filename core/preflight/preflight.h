// Pre-flight checks: everything that can be known to fail before anything is measured, checked by one
// function that the CLI and the GUI both call before datagen, a run or a benchmark — so that a run never
// measures for minutes and then loses its results to a folder it cannot write, a dataset that does not
// match the config, or a config that forms no step.
#pragma once

#include "config/workload_config.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace trainio {

// One thing that stops the action: what is wrong (naming the key, file or folder and the value found)
// and what was expected.
struct PreflightProblem {
    std::string subject;  // a configuration key (dataset.num_files_train), a file or a folder
    std::string found;    // what is there now
    std::string expected; // what the action needs
    std::string text() const; // "subject: found; expected …"
};

struct PreflightResult {
    std::vector<PreflightProblem> problems; // any problem: the action must not start
    std::vector<std::string> warnings;      // worth showing, does not stop the action
    std::vector<std::string> figures;       // information said before the action (the S3 memory budget): not warnings
    bool ok() const { return problems.empty(); }
    std::string text() const; // one line per problem
    // "pre-flight check failed, nothing was measured:" and a line per problem: what the CLI prints and
    // the GUI's dialog heads its list with.
    std::string failureMessage() const;
};

enum class PreflightAction { Datagen, Run, Benchmark };
// Who reads the problems: the command line ("run datagen first", "--output") or the GUI ("generate it on
// the Data page", "the output folder"). The checks are the same; only the remedies' words differ.
enum class PreflightAudience { Cli, Gui };

struct PreflightRequest {
    PreflightAction action = PreflightAction::Run;
    PreflightAudience audience = PreflightAudience::Cli;
    std::uint64_t accelerators = 1;
    std::filesystem::path output;     // the invocation (Run) or benchmark (Benchmark) folder; empty: not checked
    std::uint64_t invocations = 1;    // Benchmark: warm-ups + runs, for the room the result files need
    // Run/Benchmark with workflow.generate_data on: the dataset is generated first, so check the data
    // folder's free space instead of the dataset itself.
    bool generateFirst = false;
    std::uint64_t headerSampleFiles = 16; // dataset files whose framing/header is read (cheap check)
    // Free space too small for the dataset is a warning, not a problem (validate: the config is checked
    // on a machine that may not be the one that generates the data).
    bool roomIsAdvisory = false;
    // The MPI process (rank) this check runs on: with storage.storage_type s3 it talks to that process's
    // endpoint (entry rank mod N of storage_options.endpoint_url, as the run will).
    std::uint64_t process = 0;
    std::uint64_t processes = 1; // MPI processes sharing `accelerators` (the S3 memory budget is per process)
};

PreflightResult preflight(const WorkloadConfig& cfg, const PreflightRequest& request);

// For front ends that stop on the first failure: throws InputError with every problem, one per line.
void requirePreflight(const WorkloadConfig& cfg, const PreflightRequest& request);

} // namespace trainio
