// The OpenMP queries of parallel.hpp.
#include "softgrad/parallel.hpp"

#include <omp.h>

namespace softgrad::detail {

int max_threads() { return omp_get_max_threads(); }
int thread_index() { return omp_get_thread_num(); }

}  // namespace softgrad::detail
