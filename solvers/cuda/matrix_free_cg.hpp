/// @file matrix_free_cg.hpp
/// Matrix-free CG on the GPU: the Newton (or adjoint) matrix of elastic bodies,
///
///     H = diag(mass) / dt^2 + sum_b H_b(x),
///
/// applied by element Hessian-vector products on the device (never assembled), with the rows
/// and columns of fixed dofs replaced by the identity, and solved by the cg.hpp template with a
/// Jacobi preconditioner from the (projected) element Hessian diagonals.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "solvers/cg.hpp"
#include "solvers/cuda/elastic_body.hpp"
#include "solvers/cuda/preconditioners.hpp"

namespace softgrad::cuda {

/// The operator u -> H u of the elastic bodies at a point x (Operator concept of cg.hpp).
class DeviceElasticHessian {
 public:
  /// `bodies` must outlive the operator. `mass_over_dt2` is diag(mass) / dt^2 per dof (zeros
  /// for statics); `fixed_dofs` are the kinematic dofs.
  DeviceElasticHessian(const Context& context, std::vector<DeviceElasticBody*> bodies,
                       const Eigen::VectorXd& mass_over_dt2, const std::vector<int>& fixed_dofs);

  /// The point x at which H is applied; x must stay alive and unchanged while it is used.
  void set_point(const DeviceVector& x) { x_ = &x; }
  /// out <- H in. Element failures (inverted elements) are counted in failures().
  void apply(const DeviceVector& in, DeviceVector& out) const;
  /// d <- diag(H) with PSD-projected element Hessians (the Jacobi preconditioner's diagonal).
  void diagonal(DeviceVector& d) const;
  std::ptrdiff_t size() const { return mass_.size(); }
  /// Elements that failed in apply() since the last set_point.
  int failures() const { return failures_; }

 private:
  const Context& context_;
  std::vector<DeviceElasticBody*> bodies_;
  DeviceVector mass_;  // diag(mass) / dt^2
  DeviceVector free_;  // 1 for free dofs, 0 for fixed ones
  DeviceVector ones_;
  mutable DeviceVector masked_;
  const DeviceVector* x_ = nullptr;
  mutable int failures_ = 0;
};

/// CG on a DeviceElasticHessian with a Jacobi preconditioner; scratch kept between solves.
class DeviceMatrixFreeCg {
 public:
  explicit DeviceMatrixFreeCg(const CgOptions& options = {}) : options_(options) {}
  /// Solves H x = b from the warm start x. @return the cg.hpp report; NotPositiveDefinite also
  ///         when the Jacobi diagonal has a non-positive entry.
  LinearSolveReport solve(const DeviceElasticHessian& H, const DeviceVector& b, DeviceVector& x);

 private:
  CgOptions options_;
  CgScratch<DeviceVector> scratch_;
  DeviceVector diagonal_;
  DeviceJacobiPreconditioner jacobi_;
};

}  // namespace softgrad::cuda
