// How a run ended. Its own header so that plain data (result records, sweep.json) can name it without
// the engine's.
#pragma once

namespace trainio {

// Interrupted: the process died before the run's end (SIGKILL, OOM, power loss); only a folder read back
// from its journal says so (results/journal.h).
enum class RunStatus { Complete, Cancelled, Failed, Interrupted };
const char* toString(RunStatus s); // "complete", "cancelled", "failed", "interrupted" (training_engine.cpp)

} // namespace trainio
