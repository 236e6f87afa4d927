#include "app/build_info.hpp"

#include <dlfcn.h>
#include <omp.h>

#include <climits>
#include <cstdlib>
#include <sstream>
#include <thread>

#include "core/distributed.hpp"
#include "softgrad/config.hpp"
#include "softgrad/detail/ad/batched_projection.hpp"
#include "softgrad/io.hpp"
#include "softgrad/openmp_waiting.hpp"
#include "solvers/cpu/amg_preconditioner.hpp"
#include "solvers/cpu/linear_operator.hpp"
#include "solvers/cpu/serial_openmp.hpp"
#include "solvers/cuda_backend.hpp"
#include "solvers/loadable_module.hpp"

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

// The third-party libraries this build links or loads, with their licences.
std::string third_party_text() {
  std::ostringstream os;
  os << "softgrad is MIT licensed (LICENSE). Third-party libraries in this build:\n";
  const auto row = [&os](const char* name, const char* licence) {
    os << "  " << name << ": " << licence << "\n";
  };
  row("Eigen 3.4 (headers)", "MPL-2.0");
  row("CHOLMOD, AMD, COLAMD (SuiteSparse)",
      "LGPL-2.1+; CHOLMOD's Supernodal and MatrixOps modules, which Debian's libcholmod "
      "includes, GPL-2.0+: a distributed binary of libsoftgrad is under GPL-2.0+ terms");
  row("Ceres Solver", "BSD-3-Clause");
  row("OpenBLAS (or the system BLAS/LAPACK)", "BSD-3-Clause");
  row("libgomp (GCC's OpenMP runtime)", "GPL-3.0+ with the GCC Runtime Library Exception");
  row("nlohmann/json (headers)", "MIT");
  row("CLI11 (headers)", "BSD-3-Clause");
  row("zlib", "Zlib");
  if (SOFTGRAD_HAS_MPI) row("Open MPI", "BSD-3-Clause");
  if (amg_available()) row("hypre", "MIT or Apache-2.0");
  if (has_tetgen())
    row("TetGen (module libsoftgrad_tetgen.so, loaded only for surface meshes)",
        "AGPL-3.0: distributing that module, or offering it over a network, is under AGPL terms; "
        "-DSOFTGRAD_WITH_TETGEN=OFF leaves it out");
  if (detail::cuda_backend_built())
    row("CUDA runtime, cuBLAS, cuSPARSE (module libsoftgrad_cuda.so)", "NVIDIA CUDA EULA");
  if (SOFTGRAD_HAS_PYTHON) row("pybind11 (headers, Python module)", "BSD-3-Clause");
  return os.str();
}

}  // namespace

std::string build_info() {
  std::ostringstream os;
  os << "softgrad " << SOFTGRAD_VERSION << "\n";
  os << "  CUDA:    "
     << (detail::cuda_backend_built()
             ? "module " + (detail::module_dir() / detail::kCudaModule).string() +
                   " (loaded only for --solver cuda)"
             : std::string("not built (-DSOFTGRAD_WITH_CUDA=ON, needs nvcc)"))
     << "\n";
  os << "  TetGen:  "
     << (has_tetgen() ? "module " + (detail::module_dir() / "libsoftgrad_tetgen.so").string() +
                            " (loaded only for surface meshes; AGPL-3)"
                      : std::string("not built (surface meshes need libtet1.5-dev)"))
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
  os << third_party_text();
  return os.str();
}

}  // namespace softgrad::app
