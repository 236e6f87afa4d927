/// @file serial_openmp.hpp
/// Running CHOLMOD and its BLAS on the calling thread alone, without OpenMP's per-region cost.
#pragma once

namespace softgrad {

/// For the scope's lifetime, OpenMP regions started on this thread get one thread, and those that
/// CHOLMOD starts run as plain calls (see inline_cholmod_openmp_regions()).
///
/// CHOLMOD 3 clears and zeroes every supernode in `omp parallel num_threads(4)` loops (a
/// compile-time team size that OMP_NUM_THREADS does not change: a team of 4 on 2 cores even with
/// --threads 1), and OpenBLAS's OpenMP build runs each supernode's dgemm on omp_get_max_threads()
/// threads: beside a busy process those thousands of small regions made 2-thread cholmod steps of
/// the 50k-tet cantilever 2x slower than 1-thread ones (benchmarks/thread_policy.py). Both ICVs
/// belong to this thread's data environment, so other threads keep theirs.
class SerialOpenMP {
 public:
  SerialOpenMP();
  ~SerialOpenMP();
  SerialOpenMP(const SerialOpenMP&) = delete;
  SerialOpenMP& operator=(const SerialOpenMP&) = delete;

 private:
  int threads_, levels_;
};

/// Points CHOLMOD's calls to the OpenMP runtime's region entry (its import of GOMP_parallel) at
/// softgrad, which runs a region that CHOLMOD starts inside a SerialOpenMP scope as a plain call
/// of its body, and passes every other region on to the runtime.
///
/// Why: CHOLMOD 3 starts up to three regions per supernode. A region that gets one thread still
/// builds a team in libgomp and ends with a futex wake-up system call: 4,000 of them per step of
/// the 10k-tet peer beam, 13-19% of its forward step on a virtual machine where system calls are
/// slow. A one-thread region's body is the same computation run on this thread
/// (omp_get_num_threads() = 1, omp_get_thread_num() = 0), so the results are bit for bit those of
/// the runtime's team of one.
///
/// Once per process (later calls return the first result); thread-safe.
/// @return whether CHOLMOD's import was redirected (false where libcholmod is linked statically,
///         or on platforms other than Linux/ELF: CHOLMOD then runs as it always did).
bool inline_cholmod_openmp_regions();

/// Regions that ran as plain calls on this thread so far (for tests).
long inlined_openmp_regions();

/// Turns the plain calls off (every region goes to the runtime) or back on; for tests comparing
/// the two. On by default.
void set_openmp_regions_inline(bool on);

}  // namespace softgrad
