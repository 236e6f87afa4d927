/// @file energy.hpp
/// The energy-term abstraction. A backward-Euler step minimises
///     Phi(x) = 1/(2 dt^2) (x - xhat)^T M (x - xhat) + sum_terms W_k(x; p_n),
/// and a static solve minimises sum_terms W_k(x). Elasticity, gravity, damping and external
/// forces are terms; contact, muscles and joints plug in the same way without touching the
/// integrator. Terms accumulate into global vectors and into a Hessian with a fixed sparsity
/// pattern declared once (declare_sparsity).
#pragma once

#include <Eigen/Core>
#include <limits>
#include <string>
#include <vector>

namespace softgrad {

class SparsityBuilder;
struct Body;
class HessianAssembler;

/// What a term may depend on within one step besides x: the step size, the time at the end of
/// the step and the state at its start (for lagged or dissipative terms).
struct StepContext {
  double dt = 0.0;                          ///< step [s]; 0 for a static solve
  double t = 0.0;                           ///< time at the end of the step [s]
  const Eigen::VectorXd* x_prev = nullptr;  ///< positions at the start of the step
  const Eigen::VectorXd* v_prev = nullptr;  ///< velocities at the start of the step
  int step = 0;                             ///< index n of the step n -> n+1 (0 in statics)
};

/// A named range of a term's differentiable parameters. A term's parameters are one flat vector
/// (get_parameters); a group is a contiguous slice of it, e.g. "youngs" with one value per
/// element, or "force" with one value per step and dof.
struct ParameterGroup {
  std::string name;  ///< e.g. "youngs", "alpha", "force"
  std::string unit;  ///< SI unit, e.g. "Pa"
  int offset = 0;    ///< first index in the term's parameter vector
  int size = 0;      ///< number of values
  /// Values per element (a field that can also be tied to one value), or per step (controls).
  enum class Layout { Scalar, PerElement, PerStep } layout = Layout::Scalar;
  double lower = -1e300;  ///< valid range (open or closed as the term checks in set_parameters)
  double upper = 1e300;
  /// PerElement: the body whose elements the values belong to (for neighbourhoods).
  const Body* body = nullptr;
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
  /// W(x) (equal to value() up to round-off) and g += dW/dx, in one pass where a term can share
  /// the work: Newton's line-search points usually become the next iterate, whose gradient is
  /// then at hand. +infinity where value() is, with g unspecified.
  virtual double value_and_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const {
    const double w = value(x);
    if (w != std::numeric_limits<double>::infinity()) add_gradient(x, g);
    return w;
  }
  /// H += d^2W/dx^2 (each element block projected to PSD when `project`).
  virtual void add_hessian(const Eigen::VectorXd& x, bool project, HessianAssembler& H) const = 0;
  /// out += (d^2W/dx^2) u, exact (unprojected), without assembling.
  virtual void add_hessian_vector_product(const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                                          Eigen::VectorXd& out) const = 0;
  /// d += diag(d^2W/dx^2), for Jacobi preconditioning of matrix-free solves.
  virtual void add_hessian_diagonal(const Eigen::VectorXd& x, Eigen::VectorXd& d) const = 0;
  /// The largest fraction t in (0, 1] of the step x -> x + dx before this term becomes
  /// infeasible (a vertex reaching a barrier obstacle): the line search starts below it.
  virtual double max_step(const Eigen::VectorXd& x, const Eigen::VectorXd& dx) const { return 1.0; }
  /// Optionally corrects the Newton direction dx at x (g: the whole potential's gradient there)
  /// where this term knows that its quadratic model fails far from the solution (lagged
  /// friction, whose curvature jumps between sticking and sliding). Newton keeps the correction
  /// only if it still descends; a correction must vanish to second order for small steps, so
  /// that quadratic convergence is kept. Returns true if dx changed.
  virtual bool correct_direction(const Eigen::VectorXd& x, const Eigen::VectorXd& g,
                                 Eigen::VectorXd& dx) const {
    return false;
  }

  // ---- Differentiable parameters (the adjoint and forward sensitivities) ----------------------
  // A term with parameters p exposes them as groups of one flat vector and provides two
  // products of its gradient's parameter Jacobian d(dW/dx)/dp. That is all the adjoint needs: a
  // new term gets exact gradients without adjoint code of its own. Per-step parameters
  // (controls) act only in their own step (StepContext::step): the products touch that slice.

  /// The groups of the parameter vector (empty: no parameters).
  virtual std::vector<ParameterGroup> parameter_groups() const { return {}; }
  /// Length of the parameter vector.
  int n_parameters() const;
  /// p = the current parameters (n_parameters() values).
  virtual void get_parameters(double* p) const {}
  /// Sets the parameters. @throws InputError naming the group and value when one is invalid.
  virtual void set_parameters(const double* p) {}
  /// p[offset, offset + count) = values, e.g. one step's slice of a per-step group written by a
  /// controller. The default goes through get_parameters / set_parameters.
  virtual void set_parameter_range(int offset, const double* values, int count) {
    std::vector<double> p(n_parameters());
    get_parameters(p.data());
    for (int i = 0; i < count; ++i) p[offset + i] = values[i];
    set_parameters(p.data());
  }
  /// values = p[offset, offset + count).
  virtual void get_parameter_range(int offset, double* values, int count) const {
    std::vector<double> p(n_parameters());
    get_parameters(p.data());
    for (int i = 0; i < count; ++i) values[i] = p[offset + i];
  }
  /// out += d/dp (lambda . dW/dx) at x: n_parameters() values.
  virtual void add_parameter_mixed_product(const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                                           double* out) const {}
  /// out += (d(dW/dx)/dp) dp at x, for a parameter direction dp (n_parameters() values).
  virtual void add_parameter_jvp(const Eigen::VectorXd& x, const double* dp,
                                 Eigen::VectorXd& out) const {}

  // ---- Dependence on the state at the start of the step (dissipative and lagged terms) --------

  /// True if dW/dx depends on x_prev or v_prev of the StepContext.
  virtual bool depends_on_previous_state() const { return false; }
  /// x_prev_bar += d/dx_prev (lambda . dW/dx), v_prev_bar += d/dv_prev (lambda . dW/dx).
  virtual void add_previous_state_mixed_product(const Eigen::VectorXd& x,
                                                const Eigen::VectorXd& lambda,
                                                Eigen::VectorXd& x_prev_bar,
                                                Eigen::VectorXd& v_prev_bar) const {}
  /// out += d(dW/dx)/dx_prev dx_prev + d(dW/dx)/dv_prev dv_prev.
  virtual void add_previous_state_jvp(const Eigen::VectorXd& x, const Eigen::VectorXd& dx_prev,
                                      const Eigen::VectorXd& dv_prev, Eigen::VectorXd& out) const {}
};

inline int EnergyTerm::n_parameters() const {
  int n = 0;
  for (const ParameterGroup& g : parameter_groups())
    n = g.offset + g.size > n ? g.offset + g.size : n;
  return n;
}

}  // namespace softgrad
