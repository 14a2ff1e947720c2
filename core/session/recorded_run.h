// A recorded run, played back (issue 33: the booth with no hardware, and a live run raced against a recorded
// baseline): the steps a run folder's per-step records hold, turned back into the step and epoch events the
// live run's observer gave, each at its moment since the run's start, with the storage changes made live.
// Nothing of the dataset is read: only the run folder's own files, through the importer (what the run was,
// its figures and changes) and the store's step-record reader (docs/presentation.md, "Replay").
#pragma once

#include "engine/engine_observer.h"
#include "io/emulated_storage.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace trainio::session {

// The live changes of the run's emulated device made at one moment (a profile applied changes several
// limits at once), as trainio_io.json logged them.
struct RecordedChange {
    double at = 0; // seconds since the run's start
    std::vector<StorageChange> changes;
};

struct RecordedEpoch {
    double at = 0; // its end, seconds since the run's start
    EpochEvent event;
};

struct RecordedRun {
    std::filesystem::path folder;  // the run (invocation) folder played
    std::string runName;           // its folder name
    std::string recorded;          // when it ran, "2026-11-28 14:02" (the run's own start)
    std::string itemName;          // the library's name less its storage: "lab-nvme · unet3d_h100 · 2 accelerators"
    std::string storage;           // where its bytes came from, in the library's words ("" when not known)
    std::uint64_t ranks = 0;
    std::uint64_t batchSize = 0;
    double recordLength = 0;        // bytes per sample (0 when the folder does not say)
    double auThresholdPercent = 90; // the run's pass line
    double seconds = 0;             // its length: the last step's, epoch end's or change's moment
    double auMeanPercent = 0;       // the run's own figure, as its summary.json says
    std::vector<StepEvent> steps;   // every rank's steps in the order of their moments (StepEvent::wallTime)
    std::vector<RecordedEpoch> epochs;
    std::vector<RecordedChange> changes;
};

// Reads the run to play from `folder`: a run folder with per-step records (<rank>_output.json, as TrainIO
// and DLIO write them); or a folder holding one benchmark, whose complete run of median AU is played (the
// run the report shows). Throws InputError naming the folder and what it lacks: no run, several benchmarks
// (they are named), a run without per-step records.
RecordedRun loadRecordedRun(const std::filesystem::path& folder);

// "replay of <run>, recorded <date>": what the screen says of a replayed run, so that no one takes it for a
// live measurement.
std::string replayCaption(const RecordedRun& run);

// Plays a recording: each advance hands over the events whose moment the replay's clock has passed.
class ReplayCursor {
public:
    explicit ReplayCursor(const RecordedRun& run, double speed = 1.0);
    struct Due {
        std::vector<StepEvent> steps;
        std::vector<RecordedEpoch> epochs;
        std::vector<RecordedChange> changes;
    };
    // The events up to `seconds` of real time since the replay started (× speed on the run's clock).
    Due until(double seconds);
    double speed() const { return speed_; }
    bool finished() const;

private:
    const RecordedRun* run_;
    double speed_;
    std::size_t step_ = 0, epoch_ = 0, change_ = 0;
};

} // namespace trainio::session
