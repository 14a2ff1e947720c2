// Shared between the loader, the validator and the writers of core/config; not part of the API.
#pragma once

#include "config/workload_config.h"

#include <optional>
#include <string>
#include <vector>

namespace trainio::config_detail {

// A problem with one value, before it is placed (file, line) and turned into a sentence.
struct Issue {
    std::string key;      // canonical DLIO key (dataset.record_length_bytes, train.computation_time.stdev, …)
    std::string value;    // as text
    std::string expected; // "a whole number >= 1", …
};

// Range and consistency checks; the one place where limits live (the loader's type checks reuse
// expectationFor so that both say the same thing).
std::vector<Issue> checkRanges(const WorkloadConfig& cfg);

// The expectation text for a numeric key: "a whole number >= 1", "a number > 0 and <= 1", …
std::string expectationFor(const std::string& canonicalKey);

// Shortest text that reads back to the same double; integers without a decimal point.
std::string formatNumber(double v);

std::optional<DataFormat> parseFormat(const std::string& s);
std::optional<ShuffleMode> parseShuffle(const std::string& s);
std::optional<ComputeDistribution> parseDistribution(const std::string& s);

// Formats TrainIO can generate and read, in the order the messages list them.
const std::vector<std::string>& formatNames();
// data_loader values DLIO knows.
const std::vector<std::string>& dataLoaderNames();
// numpy dtype names accepted for record_element_type.
const std::vector<std::string>& elementTypeNames();

// trainio.io_engine, trainio.cache and trainio.storage.latency_ms.type values.
const std::vector<std::string>& ioEngineNames();
const std::vector<std::string>& cacheModeNames();
const std::vector<std::string>& latencyTypeNames();

// model.model_datatype / optimizer_datatype (DLIO's get_datatype_size), checkpoint.type
// (CheckpointLocationType), checkpoint.mode (CheckpointModeType), trainio.mlperf_round.
const std::vector<std::string>& datatypeNames();
const std::vector<std::string>& checkpointTypeNames();
const std::vector<std::string>& checkpointModeNames();
const std::vector<std::string>& mlperfRoundNames();

std::string joinNames(const std::vector<std::string>& names, const std::string& lastSep = " or ");

} // namespace trainio::config_detail
