// Advisories: known defects of the tools that measured a result, matched against what the result says
// about how it was made (issue 33). The ledger is data (resources/advisories/ledger.json, each entry citing
// where it comes from); this file only reads it and matches.
//
// A run whose tool version is recorded (TrainIO's trainio_version) is affected when its version is older
// than the fix. A run whose version was not recorded (published MLPerf Storage and DLIO folders carry none)
// is "possibly affected" when it was made between the tool line's first release and the fix's release;
// outside that window nothing is said, for nothing is known.
#pragma once

#include "store/invocation_record.h"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace trainio::aggregate {

struct Advisory {
    std::string tool;          // "mlpstorage", "trainio"
    std::string fixedIn;       // the first version with the fix, "3.0.14"
    std::string fixedReleased; // its release date, YYYY-MM-DD
    std::string appliesTo;     // "training", "checkpointing", "training:<model>", "training:s3", "training:captured"
    std::string effect;        // what it did to the score or verdict, short
    std::string detail;
    std::vector<std::string> refs; // issues and pull requests
};

struct ToolLine {
    std::string line;         // "3.0"
    std::string firstRelease; // YYYY-MM-DD; empty when every run records its version
    std::string source;       // where the ledger's entries for this tool come from
};

struct AdvisoryLedger {
    std::map<std::string, ToolLine> tools;
    std::vector<Advisory> advisories;
};

// Reads a ledger; bad input throws InputError naming the file, the entry and the key.
AdvisoryLedger readAdvisoryLedger(const std::filesystem::path& file);
// TRAINIO_ADVISORY_LEDGER, else <prefix>/share/trainio/advisories/ledger.json beside the installed binary,
// else the source tree's resources/advisories/ledger.json.
std::filesystem::path advisoryLedgerPath();

// How a run was made, as far as its files say.
struct RunProvenance {
    std::string tool;    // "trainio", "mlpstorage" (a *_metadata.json beside it), "dlio" (neither)
    std::string version; // "" when not recorded
    std::string date;    // YYYY-MM-DD of its start, "" when unknown
    BenchmarkType type = BenchmarkType::Training;
    std::string model;   // "unet3d", "retinanet", …
    bool s3 = false;     // read its data from object storage
    bool captured = false; // ran a workload derived from a captured job's trace (trainio.captured_job.*)
};
RunProvenance provenanceOf(const InvocationRecord& r);

struct AdvisoryMatch {
    const Advisory* advisory = nullptr;
    bool certain = false; // the recorded version is affected (else: possibly, by date)
    std::string text;     // one sentence for a badge's tooltip, the report and the JSON
};
std::vector<AdvisoryMatch> matchAdvisories(const AdvisoryLedger& ledger, const RunProvenance& run);
// The advisories of several runs (a benchmark's), each known defect once: the first run's sentence, whether
// any run is certainly affected, and how many of the runs it may touch.
struct RunsAdvisory {
    AdvisoryMatch match;
    std::size_t runs = 0;
};
std::vector<RunsAdvisory> matchAdvisoriesOfRuns(const AdvisoryLedger& ledger, const std::vector<RunProvenance>& runs);
// The ledger at advisoryLedgerPath(), read once; its InputError again on every call when it is unreadable.
const AdvisoryLedger& defaultAdvisoryLedger();

// -1, 0, 1 comparing dotted numeric versions ("3.0.9" < "3.0.14"); a part that is not a number compares as 0.
int compareVersions(const std::string& a, const std::string& b);

} // namespace trainio::aggregate
