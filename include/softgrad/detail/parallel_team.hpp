/// @file parallel_team.hpp
/// parallel_team(): the OpenMP threads a loop uses now, fewer while other processes keep this
/// process's cores busy. Measured from /proc/stat (the CPUs this process may run on) less this
/// process's own CPU time, at most every 0.1 s. Implemented in solvers/parallel_team.cpp, in the
/// lowest archive that runs parallel loops, so that this header (which reaches plugins through
/// ad_stencil_term.hpp) needs no <omp.h> and every library and plugin of a process shares one
/// load monitor (plugins resolve it from libsoftgrad.so).
#pragma once

namespace softgrad {

/// Cores of this process's CPUs that other processes leave idle, from the last two samples of
/// /proc/stat (taken at most every 0.1 s by whichever thread asks); before the second sample,
/// from the threads runnable at the first; a large number where /proc/stat cannot be read.
double idle_cores_estimate();

/// The threads a parallel loop started now uses: OpenMP's thread count for this thread (the
/// --threads setting), less the cores other processes keep busy, at least 1; 1 inside a
/// parallel region. A thread that waits for a core another process holds delays every barrier
/// of its team: beside one busy process a two-thread loop on two cores was slower than one
/// thread (benchmarks/thread_policy.py).
int parallel_team();

}  // namespace softgrad
