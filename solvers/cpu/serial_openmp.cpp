#include "solvers/cpu/serial_openmp.hpp"

#include <cholmod.h>
#include <dlfcn.h>
#include <omp.h>

#include <atomic>

#include "solvers/cpu/import_redirect.hpp"

// libgomp's entry for `#pragma omp parallel` (GCC 4.9 and later): runs fn(data) on a team of
// num_threads threads (0: the ICVs decide; 1: the if clause was false).
extern "C" void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags);

namespace softgrad {
namespace {

thread_local int serial_depth = 0;  // SerialOpenMP scopes open on this thread
thread_local long inlined = 0;
std::atomic<bool> inline_on{true};

// What CHOLMOD calls instead of GOMP_parallel.
void softgrad_cholmod_parallel(void (*fn)(void*), void* data, unsigned num_threads,
                               unsigned flags) {
  if (serial_depth > 0 && inline_on.load(std::memory_order_relaxed)) {
    ++inlined;
    fn(data);
    return;
  }
  GOMP_parallel(fn, data, num_threads, flags);
}

}  // namespace

SerialOpenMP::SerialOpenMP()
    : threads_(omp_get_max_threads()), levels_(omp_get_max_active_levels()) {
  omp_set_num_threads(1);
  omp_set_max_active_levels(0);
  ++serial_depth;
}

SerialOpenMP::~SerialOpenMP() {
  --serial_depth;
  omp_set_max_active_levels(levels_);
  omp_set_num_threads(threads_);
}

bool inline_cholmod_openmp_regions() {
  static const bool redirected = [] {
    // The CHOLMOD that softgrad calls, by its file (another one in the process is left alone).
    Dl_info info{};
    const char* library = "libcholmod.so";
    if (dladdr(reinterpret_cast<void*>(&cholmod_start), &info) && info.dli_fname)
      library = info.dli_fname;
    return redirect_import(library, "GOMP_parallel",
                           reinterpret_cast<void*>(&softgrad_cholmod_parallel)) != nullptr;
  }();
  return redirected;
}

long inlined_openmp_regions() { return inlined; }

void set_openmp_regions_inline(bool on) { inline_on.store(on, std::memory_order_relaxed); }

}  // namespace softgrad
