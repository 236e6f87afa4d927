/// @file openmp_waiting.hpp
/// How idle OpenMP threads wait. GCC's libgomp spins for about 300,000 iterations before it
/// sleeps; beside another busy process a spinning thread takes the core from the thread it waits
/// for, and element loops get 20-40x slower than on one thread. libgomp reads OMP_WAIT_POLICY
/// once, when it is loaded (before main), so a program can only choose passive waiting by
/// starting again with it in its environment.
#pragma once

namespace softgrad {

/// Unless OMP_WAIT_POLICY or GOMP_SPINCOUNT is set, sets OMP_WAIT_POLICY=PASSIVE and
/// re-executes this program (/proc/self/exe) with the same arguments; call it first in main.
/// Returns only when no restart was needed or the restart failed (the program then goes on with
/// libgomp's default).
void restart_with_passive_openmp_waiting(char** argv);

/// The wait policy this process runs with: "passive", "active" or "default (spin, then sleep)".
const char* openmp_wait_policy();

}  // namespace softgrad
