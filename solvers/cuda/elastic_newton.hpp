/// @file elastic_newton.hpp
/// DeviceElasticNewton: backward-Euler steps of elastic bodies under constant external forces
/// (gravity) with fixed dofs, entirely on the GPU: the state stays on the device between Newton
/// iterations and steps. Each iteration evaluates the incremental potential
///
///     Phi(x) = 1/(2 dt^2) (x - xhat)^T M (x - xhat) - f^T x + sum_b E_b(x),  xhat = x_n + dt v_n,
///
/// its gradient and PSD-projected Hessian with the device element kernels (written straight into
/// the CSR values), solves H dx = -g by the GPU Jacobi-PCG, and backtracks (Armijo, feasibility)
/// on Phi. It covers the terms of benchmarks/gpu_newton's cantilever; scenes with contact,
/// muscles or damping use the Simulator with kind "cuda" (GPU solves, CPU assembly) instead.
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <memory>
#include <vector>

#include "solvers/cuda/elastic_body.hpp"
#include "solvers/cuda/pcg_solver.hpp"

namespace softgrad::cuda {

/// Settings of DeviceElasticNewton.
struct DeviceNewtonOptions {
  double dt = 0.01;          ///< time step [s]
  double tolerance = 1e-9;   ///< stop when ||dx||_inf / dt <= tolerance * length_scale [m/s]
  double length_scale = 1;   ///< the model's length scale [m]
  int max_iterations = 50;   ///< Newton iterations per step
  int max_line_search = 30;  ///< halvings
  CgOptions cg;              ///< the Jacobi-PCG of each iteration
};

/// What one step did.
struct DeviceNewtonReport {
  bool converged = false;
  int iterations = 0;
  long cg_iterations = 0;
  double step_norm = 0.0;  ///< last ||dx||_inf [m]
};

class DeviceElasticNewton {
 public:
  /// `bodies` must outlive this object. `pattern`: the Hessian pattern over all dofs (full
  /// symmetric storage, containing every element's entries and the diagonal); `mass` and
  /// `force` per dof; `fixed_dofs` held where they are.
  /// @throws InputError if an element entry or a diagonal entry is missing from the pattern.
  DeviceElasticNewton(const Context& context, std::vector<DeviceElasticBody*> bodies,
                      const Eigen::SparseMatrix<double>& pattern, const Eigen::VectorXd& mass,
                      const Eigen::VectorXd& force, const std::vector<int>& fixed_dofs,
                      const DeviceNewtonOptions& options);
  ~DeviceElasticNewton();

  /// One step from (x, v), in place, on the device.
  DeviceNewtonReport step(DeviceVector& x, DeviceVector& v);

 private:
  double potential(const DeviceVector& y);
  void gradient(const DeviceVector& y, DeviceVector& g);
  void hessian(const DeviceVector& y);

  const Context& context_;
  std::vector<DeviceElasticBody*> bodies_;
  DeviceNewtonOptions options_;
  std::unique_ptr<CudaPcgSolver> pcg_;
  DeviceVector mass_, mass_dt2_, force_, free_, xhat_, y_, y_try_, g_, dx_, work_, scaled_;
  DeviceArray<int> diagonal_slots_;
};

}  // namespace softgrad::cuda
