#include "solvers/cuda/preconditioners.hpp"

#include <climits>

#include "softgrad/errors.hpp"
#include "solvers/cpu/preconditioners.hpp"
#include "solvers/cuda/vector_kernels.hpp"

namespace softgrad::cuda {

LinearSolveReport DeviceJacobiPreconditioner::set_matrix(const DeviceCsrMatrix& A) {
  DeviceVector d;
  A.diagonal(d);
  return set_diagonal(d);
}

LinearSolveReport DeviceJacobiPreconditioner::set_diagonal(const DeviceVector& d) {
  // The positivity check and its message are the CPU preconditioner's (one host copy of n).
  Eigen::VectorXd host;
  d.download(host);
  LinearSolveReport report = softgrad::detail::check_positive_diagonal(host);
  inv_diag_.resize(d.context(), d.size());
  if (report.ok()) kernels::reciprocal(d.size(), d.data(), inv_diag_.data());
  return report;
}

void DeviceJacobiPreconditioner::apply(const DeviceVector& in, DeviceVector& out) const {
  SOFTGRAD_ASSERT(in.size() == inv_diag_.size() && out.size() == in.size());
  kernels::multiply(in.size(), inv_diag_.data(), in.data(), out.data());
}

LinearSolveReport DeviceBlockJacobiPreconditioner::set_matrix(const DeviceCsrMatrix& A) {
  if (A.rows() % 3 != 0)
    throw InputError("block-Jacobi preconditioner: the matrix has " + std::to_string(A.rows()) +
                     " rows, not a multiple of 3 (it is for 3D meshes; use 'jacobi')");
  n_blocks_ = A.rows() / 3;
  inv_blocks_.resize(static_cast<std::size_t>(n_blocks_) * 9);
  const int init[2] = {0, INT_MAX};
  DeviceArray<int> bad(2);
  bad.assign(init, 2);
  kernels::block_jacobi_inverse(n_blocks_, A.row_offsets(), A.columns(), A.values(),
                                inv_blocks_.data(), bad.data(), bad.data() + 1);
  int result[2] = {0, 0};
  bad.copy_to(result);
  LinearSolveReport report;
  report.status = LinearSolveReport::Status::Converged;
  if (result[0] > 0) {
    report.status = LinearSolveReport::Status::NotPositiveDefinite;
    report.message = "block-Jacobi: " + std::to_string(result[0]) +
                     " diagonal 3x3 blocks are not positive definite (the first is vertex " +
                     std::to_string(result[1]) + ", rows " + std::to_string(3 * result[1]) + "-" +
                     std::to_string(3 * result[1] + 2) + ")";
  }
  return report;
}

void DeviceBlockJacobiPreconditioner::apply(const DeviceVector& in, DeviceVector& out) const {
  SOFTGRAD_ASSERT(in.size() == 3 * n_blocks_ && out.size() == in.size());
  kernels::block_multiply(n_blocks_, inv_blocks_.data(), in.data(), out.data());
}

}  // namespace softgrad::cuda
