// libsoftgrad_cuda.so's entry point (solvers/cuda_backend.hpp), opened by libsoftgrad.
#include "solvers/cuda/pcg_solver.hpp"
#include "solvers/cuda_backend.hpp"

extern "C" __attribute__((visibility("default"))) softgrad::LinearSolver* softgrad_cuda_make_pcg(
    const softgrad::CgOptions* options) {
  return new softgrad::cuda::CudaPcgSolver(softgrad::cuda::CudaPreconditioner::Jacobi, *options);
}
