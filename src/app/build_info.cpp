#include "app/build_info.hpp"

#include <dlfcn.h>
#include <omp.h>

#include <climits>
#include <cstdlib>
#include <sstream>
#include <thread>

#include "core/distributed.hpp"
#include "softgrad/ad/batched_projection.hpp"
#include "softgrad/config.hpp"
#include "softgrad/openmp_waiting.hpp"
#include "solvers/cpu/amg_preconditioner.hpp"
#include "solvers/cpu/linear_operator.hpp"
#include "solvers/cpu/serial_openmp.hpp"

namespace softgrad::app {
namespace {

/// The shared library that the symbol dgemm_ resolves to in this process (the BLAS the
/// supernodal factorisations run on), with a guess at its family.
std::string blas_in_use() {
  void* dgemm = dlsym(RTLD_DEFAULT, "dgemm_");
  Dl_info info{};
  if (!dgemm || !dladdr(dgemm, &info) || !info.dli_fname) return "unknown (no dgemm_ found)";
  char resolved[PATH_MAX];
  const std::string file = realpath(info.dli_fname, resolved) ? resolved : info.dli_fname;
  std::string family = "reference or other";
  if (file.find("openblas") != std::string::npos) family = "OpenBLAS";
  if (file.find("atlas") != std::string::npos || file.find("f77blas") != std::string::npos)
    family = "ATLAS";
  if (file.find("mkl") != std::string::npos) family = "MKL";
  return family + ", " + file;
}

}  // namespace

std::string build_info() {
  std::ostringstream os;
  os << "softgrad " << SOFTGRAD_VERSION << "\n";
  os << "  CUDA:    "
     << (SOFTGRAD_HAS_CUDA
             ? std::string("built (architectures ") + SOFTGRAD_CUDA_ARCHITECTURES + ")"
             : std::string("not built (-DSOFTGRAD_WITH_CUDA needs nvcc)"))
     << "\n";
  os << "  MPI:     "
     << (SOFTGRAD_HAS_MPI ? "built, " + detail::mpi_description()
                          : std::string("not built (install libopenmpi-dev and rebuild)"))
     << "\n";
  os << "  Python:  "
     << (SOFTGRAD_HAS_PYTHON
             ? std::string("built, package in ") + SOFTGRAD_PYTHON_PATH + " (PYTHONPATH)"
             : std::string("not built (install pybind11-dev and rebuild)"))
     << "\n";
  os << "  AMG:     "
     << (amg_available() ? "built, hypre's BoomerAMG (--solver amg)"
                         : "not built (install libhypre-dev and rebuild)")
     << "\n";
  os << "  BLAS:    " << blas_in_use() << "\n";
  os << "  CHOLMOD: "
     << (inline_cholmod_openmp_regions()
             ? "one-thread OpenMP regions run as plain calls (no libgomp team per supernode)"
             : "OpenMP regions through libgomp (its import could not be redirected)")
     << "\n";
  os << "  SpMV:    " << block_product_kernel()
     << " kernel for the CG solvers' 3 x 3 block products\n";
  os << "  PSD:     " << ad::projection_kernel_name(ad::best_projection_kernel())
     << " kernel for the batched projection of invariant-form element Hessians\n";
  os << "  threads: " << omp_get_max_threads() << " OpenMP threads, "
     << std::thread::hardware_concurrency() << " hardware threads, waiting " << openmp_wait_policy()
     << "\n";
  return os.str();
}

}  // namespace softgrad::app
