// How the engine's threads ask the Linux scheduler for what they need, unprivileged (docs/engine.md,
// "Emulator efficiency"). A training thread sleeps most of its step and must run the moment it wakes (the
// barrier release, the end of its compute): it asks for a short EEVDF slice, which on Linux >= 6.12 lets
// a waking thread preempt one with a longer slice. Readers copy for hundreds of µs at a time and must
// not take that place: they run SCHED_BATCH with the default slice — explicitly, since a thread
// inherits its creator's slice and the readers are created by a training thread.
#pragma once

namespace trainio {

// The calling thread, if SCHED_OTHER, asks for a 100 µs slice. No-op where the kernel ignores it.
void askShortSlice();
// The calling thread becomes SCHED_BATCH (never preempts on wake-up) with the default slice.
void runAsBatch();
// The calling thread's custom slice in ns as the kernel reports it; 0 when it has none or does not say.
unsigned long long currentSliceNs();

} // namespace trainio
