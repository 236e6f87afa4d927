/// @file energy.hpp
/// The energy-term abstraction. A backward-Euler step minimises
///     Phi(x) = 1/(2 dt^2) (x - xhat)^T M (x - xhat) + sum_terms W_k(x; p_n),
/// and a static solve minimises sum_terms W_k(x). Elasticity, gravity, damping and external
/// forces are terms; contact, muscles and joints plug in the same way without touching the
/// integrator. Terms accumulate into global vectors and into a Hessian with a fixed sparsity
/// pattern declared once (declare_sparsity).
#pragma once

#include <Eigen/Core>
#include <string>

namespace softgrad {

class SparsityBuilder;
class HessianAssembler;

/// What a term may depend on within one step besides x: the step size, the time at the end of
/// the step and the state at its start (for lagged or dissipative terms).
struct StepContext {
  double dt = 0.0;                          ///< step [s]; 0 for a static solve
  double t = 0.0;                           ///< time at the end of the step [s]
  const Eigen::VectorXd* x_prev = nullptr;  ///< positions at the start of the step
  const Eigen::VectorXd* v_prev = nullptr;  ///< velocities at the start of the step
};

class EnergyTerm {
 public:
  virtual ~EnergyTerm() = default;
  /// Short name for reports, e.g. "elastic", "gravity".
  virtual std::string name() const = 0;
  /// False for dissipative terms that only exist in dynamics (damping).
  virtual bool in_statics() const { return true; }
  /// Adds the vertex stencils whose dof blocks the Hessian may touch. Called once.
  virtual void declare_sparsity(SparsityBuilder& builder) = 0;
  /// Called at the start of each step (or static solve) before any evaluation.
  virtual void begin_step(const StepContext& ctx) {}

  /// W(x) [J]; +infinity where the term is undefined (an inverted element of a model that
  /// forbids inversion), which the line search treats as infeasible.
  virtual double value(const Eigen::VectorXd& x) const = 0;
  /// g += dW/dx.
  virtual void add_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const = 0;
  /// H += d^2W/dx^2 (each element block projected to PSD when `project`).
  virtual void add_hessian(const Eigen::VectorXd& x, bool project, HessianAssembler& H) const = 0;
  /// out += (d^2W/dx^2) u, exact (unprojected), without assembling.
  virtual void add_hessian_vector_product(const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                                          Eigen::VectorXd& out) const = 0;
  /// d += diag(d^2W/dx^2), for Jacobi preconditioning of matrix-free solves.
  virtual void add_hessian_diagonal(const Eigen::VectorXd& x, Eigen::VectorXd& d) const = 0;
};

}  // namespace softgrad
