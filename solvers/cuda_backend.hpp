/// @file cuda_backend.hpp
/// The CUDA backend as a module (libsoftgrad_cuda.so, built with -DSOFTGRAD_WITH_CUDA=ON): the
/// linear solver "cuda" opens it on first use, so a CPU run never maps the CUDA libraries.
#pragma once

#include <memory>

#include "softgrad/solvers/linear_solver.hpp"
#include "solvers/cg.hpp"

namespace softgrad::detail {

/// The file name of the CUDA module.
inline constexpr const char* kCudaModule = "libsoftgrad_cuda.so";

/// Whether the CUDA module was built and installed beside libsoftgrad (it is not opened).
bool cuda_backend_built();

/// The CUDA PCG solver (Jacobi) from the module. @throws InputError "backend 'cuda' needs
/// -DSOFTGRAD_WITH_CUDA=ON" when the module is absent, or naming why it cannot be loaded.
std::unique_ptr<LinearSolver> make_cuda_pcg_solver(const CgOptions& options);

}  // namespace softgrad::detail

/// The module's entry point: a new CUDA PCG solver with Jacobi preconditioning (throws
/// InputError without a device).
extern "C" {
typedef softgrad::LinearSolver* (*SoftgradCudaMakePcg)(const softgrad::CgOptions* options);
}
