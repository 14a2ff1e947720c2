// The --live-json stream (docs/cli.md, "Progress and live data"): one JSON object per line, written by
// the CLI's progress reporter and read back by whoever follows a run from another process — the GUI
// following `mpirun … trainio-cli`, whose process 0 reports every rank. Writer and reader live here
// together so that a key has one spelling.
#pragma once

#include "engine/engine_observer.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainio::live {

// One line each (no trailing newline). `label` names the benchmark invocation ("warm-up", "run 2/5";
// "" for a single run).
std::string phaseLine(const std::string& label, const std::string& phase);
std::string stepLine(const std::string& label, const StepEvent& e);
std::string epochLine(const std::string& label, const EpochEvent& e);
std::string hostsLine(const std::string& label, const std::vector<std::string>& hostOfRank);
std::string messageLine(const std::string& text);
std::string datagenLine(std::uint64_t filesDone, std::uint64_t filesTotal, std::uint64_t bytesDone,
                        std::uint64_t bytesTotal, double seconds);
// An invocation's folder before its first step, and its end once the folder is written: status
// "complete", "cancelled" or "failed" and its AU mean (%).
std::string invocationStartedLine(const std::string& label, const std::string& dir);
std::string invocationFinishedLine(const std::string& label, const std::string& dir, const std::string& status,
                                   double auPercent);

struct Event {
    enum class Kind { Phase, Step, Epoch, Hosts, Message, InvocationStarted, InvocationFinished };
    Kind kind = Kind::Message;
    std::string label;
    std::string text;                // Phase: the phase; Message: the text; InvocationFinished: the status
    std::string dir;                 // Invocation*: its folder
    double auPercent = 0;            // InvocationFinished
    StepEvent step;                  // Step
    EpochEvent epoch;                // Epoch
    std::vector<std::string> hosts;  // Hosts: the host of rank 0, 1, …
};

// One line of the stream. nullopt for anything else: a line that is not a JSON object, an event this
// reader does not follow (datagen), or one whose fields do not have the types written above — a reader
// following another process's output must never throw on it.
std::optional<Event> parseLine(std::string_view line);

} // namespace trainio::live
