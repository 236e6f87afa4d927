/// @file openmp_waiting.hpp
/// How idle OpenMP threads wait. GCC's libgomp spins for about 300,000 iterations before it
/// sleeps; beside another busy process a spinning thread takes the core from the thread it waits
/// for, and element loops get 20-40x slower than on one thread. Passive waiting (sleep at once)
/// never collapses, but every loop then pays a wake-up: CG's sparse products at 10k tets gained
/// 1.04x from a second thread instead of 1.6x. softgrad's programs spin briefly (kSpinCount
/// iterations, about 0.1 ms), then sleep; on a busy machine parallel_team() drops to one thread
/// anyway. libgomp reads its settings once, when it is loaded (before main), so a program linked
/// with it can only choose them by starting again with them in its environment; the softgrad
/// command instead sets them in a launcher before it loads libsoftgrad (src/app/main.cpp).
#pragma once

namespace softgrad {

/// Spins of an idle OpenMP thread before it sleeps (GOMP_SPINCOUNT).
inline constexpr int kSpinCount = 3000;

/// Unless OMP_WAIT_POLICY or GOMP_SPINCOUNT is set, sets GOMP_SPINCOUNT=kSpinCount and
/// re-executes this program (/proc/self/exe) with the same arguments; call it first in main.
/// Returns only when no restart was needed or the restart failed (the program then goes on with
/// libgomp's default).
void restart_with_bounded_openmp_waiting(char** argv);

/// The wait policy this process runs with, in words: "passive", "active", "spin N iterations,
/// then sleep" or "default (spin, then sleep)".
const char* openmp_wait_policy();

}  // namespace softgrad
