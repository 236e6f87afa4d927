/// @file parallel.hpp
/// When and how loops go parallel. Below these sizes an OpenMP team costs more than it saves,
/// and on a busy machine its spin-waiting threads can make small scenes many times slower.
/// Small loops must not even enter OpenMP: an `omp parallel if (false)` region still builds a
/// one-thread team (a malloc and ~0.3 us), and a 2D creature's Newton iteration has a dozen
/// loops of ~100 items. parallel_for and parallel_reduce run those serially.
#pragma once

#include <cstddef>
#include <vector>

#include "softgrad/detail/parallel_team.hpp"

namespace softgrad {

/// Element loops (energy, gradient, Hessian, products) with fewer elements run serially.
inline constexpr int kParallelMinElements = 1024;
/// Loops over matrix entries or vector entries with fewer entries run serially.
inline constexpr int kParallelMinEntries = 65536;

/// Iterations a thread takes at a time: a sixteenth of the loop's parallel threshold (64
/// elements, 4096 entries), at least 64. Threads take blocks as they become free (a dynamic
/// schedule), so a thread that shares its core with another process delays the end of a loop by
/// at most one block instead of holding half of the loop (static schedule).
constexpr int parallel_block(int min_parallel) {
  return min_parallel / 16 > 64 ? min_parallel / 16 : 64;
}

/// body(i) for every i in [0, n): across parallel_team() threads (blocks of parallel_block)
/// when n >= min_parallel and the team has more than one thread, else serially without
/// entering OpenMP. Iterations must be independent.
template <class Body>
void parallel_for(int n, int min_parallel, const Body& body) {
  const int team = n >= min_parallel ? parallel_team() : 1;
  if (team > 1) {
    const int block = parallel_block(min_parallel);
#pragma omp parallel for schedule(dynamic, block) num_threads(team)
    for (int i = 0; i < n; ++i) body(i);
  } else {
    for (int i = 0; i < n; ++i) body(i);
  }
}

/// Reduces over [0, n): body(i, acc) updates an accumulator; each block of parallel_block
/// iterations has its own, starting from `init`, and merge(total, part) combines them in block
/// order, so the result does not depend on the thread count or on which thread ran which block.
/// Blocked when n >= min_parallel (across parallel_team() threads, or on this thread alone when
/// the team is one thread: the same blocks, the same result), else one serial pass without
/// OpenMP. The per-block
/// accumulators live in a per-thread buffer that is reused (no allocation once it has grown).
template <class Acc, class Body, class Merge>
Acc parallel_reduce(int n, int min_parallel, const Acc& init, const Body& body,
                    const Merge& merge) {
  Acc total = init;
  if (n < min_parallel) {
    for (int i = 0; i < n; ++i) body(i, total);
    return total;
  }
  const int block = parallel_block(min_parallel);
  const int n_blocks = (n + block - 1) / block;
  // A body that itself reduces with the same Acc on this thread gets a buffer of its own.
  static thread_local std::vector<Acc> reused;
  static thread_local bool reused_busy = false;
  std::vector<Acc> own;
  std::vector<Acc>& part = reused_busy ? own : reused;
  const bool took_reused = !reused_busy;
  reused_busy = true;
  part.assign(static_cast<size_t>(n_blocks), init);
  Acc* parts = part.data();
  const int team = parallel_team();
  if (team > 1) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(team)
    for (int k = 0; k < n_blocks; ++k) {
      const int end = k + 1 < n_blocks ? (k + 1) * block : n;
      for (int i = k * block; i < end; ++i) body(i, parts[k]);
    }
  } else {
    for (int k = 0; k < n_blocks; ++k) {
      const int end = k + 1 < n_blocks ? (k + 1) * block : n;
      for (int i = k * block; i < end; ++i) body(i, parts[k]);
    }
  }
  for (int k = 0; k < n_blocks; ++k) merge(total, parts[k]);
  if (took_reused) reused_busy = false;
  return total;
}

}  // namespace softgrad
