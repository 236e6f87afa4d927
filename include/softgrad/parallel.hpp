/// @file parallel.hpp
/// When and how loops go parallel. Below these sizes an OpenMP team costs more than it saves,
/// and on a busy machine its spin-waiting threads can make small scenes many times slower.
/// Small loops must not even enter OpenMP: an `omp parallel if (false)` region still builds a
/// one-thread team (a malloc and ~0.3 us), and a 2D creature's Newton iteration has a dozen
/// loops of ~100 items. parallel_for and parallel_reduce run those serially.
#pragma once

#include <cstddef>
#include <vector>

namespace softgrad {

namespace detail {
/// OpenMP's thread count and this thread's index in the current team (src/core/parallel.cpp,
/// so that <omp.h> stays out of the headers).
int max_threads();
int thread_index();
}  // namespace detail

/// Element loops (energy, gradient, Hessian, products) with fewer elements run serially.
inline constexpr int kParallelMinElements = 1024;
/// Loops over matrix entries or vector entries with fewer entries run serially.
inline constexpr int kParallelMinEntries = 65536;

/// body(i) for every i in [0, n): across threads (static schedule) when n >= min_parallel,
/// else serially without entering OpenMP. Iterations must be independent.
template <class Body>
void parallel_for(int n, int min_parallel, const Body& body) {
  if (n >= min_parallel) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i) body(i);
  } else {
    for (int i = 0; i < n; ++i) body(i);
  }
}

/// Reduces over [0, n): body(i, acc) updates an accumulator; each thread has its own, starting
/// from `init`, and merge(total, part) combines them in thread order (deterministic for a given
/// thread count). Parallel when n >= min_parallel, else one serial pass without OpenMP.
template <class Acc, class Body, class Merge>
Acc parallel_reduce(int n, int min_parallel, const Acc& init, const Body& body,
                    const Merge& merge) {
  Acc total = init;
  if (n < min_parallel) {
    for (int i = 0; i < n; ++i) body(i, total);
    return total;
  }
  std::vector<Acc> part(static_cast<size_t>(detail::max_threads()), init);
#pragma omp parallel
  {
    Acc& acc = part[static_cast<size_t>(detail::thread_index())];
#pragma omp for schedule(static)
    for (int i = 0; i < n; ++i) body(i, acc);
  }
  for (const Acc& p : part) merge(total, p);
  return total;
}

}  // namespace softgrad
