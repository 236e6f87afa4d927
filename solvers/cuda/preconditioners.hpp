/// @file preconditioners.hpp
/// Preconditioners of the GPU CG (Preconditioner concept of cg.hpp over DeviceVector):
/// Jacobi (M = diag A) and 3x3 block-Jacobi (M = the diagonal 3x3 blocks of A, one per vertex
/// in 3D), both built on the device from a DeviceCsrMatrix.
#pragma once

#include "softgrad/detail/solvers/linear_solve_report.hpp"
#include "solvers/cuda/device_csr_matrix.hpp"
#include "solvers/cuda/device_vector.hpp"

namespace softgrad::cuda {

/// M^-1 = diag(A)^-1.
class DeviceJacobiPreconditioner {
 public:
  /// From the diagonal of A. @return Converged, or NotPositiveDefinite naming the first
  /// non-positive diagonal entry (as the CPU Jacobi preconditioner does).
  LinearSolveReport set_matrix(const DeviceCsrMatrix& A);
  /// From a diagonal d on the device (matrix-free CG). Same report as set_matrix.
  LinearSolveReport set_diagonal(const DeviceVector& d);
  void apply(const DeviceVector& in, DeviceVector& out) const;

 private:
  DeviceVector inv_diag_;
};

/// M^-1 = blockdiag(A_11, A_22, ...)^-1 with 3x3 blocks.
class DeviceBlockJacobiPreconditioner {
 public:
  /// Inverts the diagonal 3x3 blocks of A by Cholesky. @return Converged, or
  /// NotPositiveDefinite naming the first block that is not positive definite.
  /// @throws InputError if A's size is not a multiple of 3.
  LinearSolveReport set_matrix(const DeviceCsrMatrix& A);
  void apply(const DeviceVector& in, DeviceVector& out) const;

 private:
  int n_blocks_ = 0;
  DeviceArray<double> inv_blocks_;
};

}  // namespace softgrad::cuda
