// How a run ended. Its own header so that plain data (result records, sweep.json) can name it without
// the engine's.
#pragma once

namespace trainio {

enum class RunStatus { Complete, Cancelled, Failed };
const char* toString(RunStatus s); // "complete", "cancelled", "failed" (training_engine.cpp)

} // namespace trainio
