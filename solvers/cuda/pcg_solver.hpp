/// @file pcg_solver.hpp
/// Preconditioned CG on the GPU behind the LinearSolver interface (kind "cuda"): the assembled
/// CSR matrix is uploaded with its pattern once (analyze) and its values per factorize(); the
/// iteration is the cg.hpp template over DeviceVector, with a cuSPARSE SpMV, cuBLAS reductions
/// and a Jacobi or 3x3 block-Jacobi preconditioner built on the device.
#pragma once

#include <memory>
#include <string>

#include "softgrad/solvers/linear_solver.hpp"
#include "solvers/cg.hpp"

namespace softgrad::cuda {

class DeviceCsrMatrix;
class DeviceVector;

/// Preconditioner of CudaPcgSolver.
enum class CudaPreconditioner {
  Jacobi,       ///< M = diag(A) (scene name "jacobi").
  BlockJacobi,  ///< M = the 3x3 diagonal blocks of A (3D meshes).
};

class CudaPcgSolver final : public LinearSolver {
 public:
  /// Creates the CUDA context on device 0.
  /// @throws InputError when there is no CUDA device (the message says so and names the CPU
  ///         solvers to use instead).
  explicit CudaPcgSolver(CudaPreconditioner preconditioner = CudaPreconditioner::Jacobi,
                         const CgOptions& options = {});
  ~CudaPcgSolver() override;

  /// "cuda_pcg(jacobi)" or "cuda_pcg(block_jacobi)".
  std::string name() const override;
  /// Uploads the pattern and values of A. @throws InputError if A is not square and symmetric.
  void analyze(const SparseMatrix& A) override;
  /// Uploads the values (a new pattern is analysed first) and builds the preconditioner.
  /// @return Converged; NotPositiveDefinite for a non-positive diagonal entry or block.
  LinearSolveReport factorize(const SparseMatrix& A) override;
  /// Copies b and the warm start x to the device, runs CG there, copies x back.
  /// @throws InputError before any factorize() or for a wrong b size.
  LinearSolveReport solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) override;
  /// solve() stopping at max(rel_tol, options().rel_tol) (inexact Newton).
  LinearSolveReport solve_inexact(const Eigen::VectorXd& b, Eigen::VectorXd& x,
                                  double rel_tol) override;
  /// The same solve with b and x already on the device (no host copies).
  LinearSolveReport solve(const DeviceVector& b, DeviceVector& x);

  /// The device matrix (pattern from analyze()), whose values device kernels may overwrite
  /// (DeviceElasticBody::add_hessian) before factorize_device().
  DeviceCsrMatrix& device_matrix();
  /// Builds the preconditioner from the values now on the device (no host upload).
  /// @throws InputError before analyze().
  LinearSolveReport factorize_device();

  const CgOptions& options() const { return options_; }
  void set_options(const CgOptions& options) { options_ = options; }

 private:
  LinearSolveReport solve_with(const Eigen::VectorXd& b, Eigen::VectorXd& x,
                               const CgOptions& options);
  LinearSolveReport solve_with(const DeviceVector& b, DeviceVector& x, const CgOptions& options);

  struct Impl;
  std::unique_ptr<Impl> impl_;
  CudaPreconditioner preconditioner_;
  CgOptions options_;
};

}  // namespace softgrad::cuda
