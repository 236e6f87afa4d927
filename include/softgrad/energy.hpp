/// @file energy.hpp
/// The energy-term abstraction. A backward-Euler step minimises
///     Phi(x) = sum_terms W_k(x; p_n),
/// whose first term is inertia, 1/(2 dt^2) (x - xhat)^T M (x - xhat) (dynamics only), and a
/// static solve minimises the sum of the static terms. Inertia, elasticity, gravity, damping,
/// external forces, contact and muscles are terms; new ones plug in without touching the
/// integrator. The lumped masses M are a step input like the start of the step: the inertia
/// term's parameters (the bodies' densities) set them per rollout, and the terms that weigh
/// with them (gravity, damping) read them from the StepContext.
///
/// A term is part of the Model and never changes after loading: every function here is const.
/// What a rollout changes lives in the term's TermData, one per rollout (make_data): the step
/// being evaluated, the rollout's values of the term's parameters, the scratch buffers, and
/// what the term derives from the state at the start of the step. Two rollouts of one Model
/// therefore run side by side, each with its own TermData.
///
/// Most terms are sums over small stencils and derive from StencilTerm (stencil_term.hpp), which
/// writes the loops, the assembly and the adjoint products once.
#pragma once

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

namespace softgrad {

class SparsityBuilder;
class HessianAssembler;
struct Body;

/// What a term may depend on within one step besides x: the step size, the time at the end of
/// the step and the state at its start (for lagged or dissipative terms).
struct StepContext {
  double dt = 0.0;                          ///< step [s]; 0 for a static solve
  double t = 0.0;                           ///< time at the end of the step [s]
  const Eigen::VectorXd* x_prev = nullptr;  ///< positions at the start of the step
  const Eigen::VectorXd* v_prev = nullptr;  ///< velocities at the start of the step
  int step = 0;                             ///< index n of the step n -> n+1 (0 in statics)
  /// State::adaptive at the start of the step (null or empty: the initial values).
  const Eigen::VectorXd* adaptive = nullptr;
  /// The rollout's lumped mass per dof [kg] (Model::mass unless its densities differ); set by
  /// the potential before begin_step. Null (a term evaluated on its own): Model::mass.
  const Eigen::VectorXd* mass = nullptr;
};

/// A named range of a term's differentiable parameters. A term's parameters are one flat vector
/// (their defaults: EnergyTerm::default_parameters); a group is a contiguous slice of it, e.g.
/// "youngs" with one value per element, or "force" with one value per step and dof.
struct ParameterGroup {
  std::string name;  ///< e.g. "youngs", "alpha", "force"
  std::string unit;  ///< SI unit, e.g. "Pa"
  int offset = 0;    ///< first index in the term's parameter vector
  int size = 0;      ///< number of values
  /// Values per element (a field that can also be tied to one value), or per step (controls).
  enum class Layout { Scalar, PerElement, PerStep } layout = Layout::Scalar;
  double lower =
      -1e300;  ///< valid range (open or closed as the term checks in validate_parameters)
  double upper = 1e300;
  /// PerElement: the body whose elements the values belong to (for neighbourhoods).
  const Body* body = nullptr;
  /// PerElement: values per element (a neural material's weights), stored value-major:
  /// value k of element e at offset + k * (size / width) + e. Tied, the group is `width` values.
  int width = 1;
};

/// One term's data in one rollout. A Simulator (or an adjoint sweep) holds one per term and
/// sets `step` and `parameters` before each step; a term's own data type adds its scratch.
class TermData {
 public:
  virtual ~TermData() = default;
  StepContext step;                    ///< the step being evaluated
  const double* parameters = nullptr;  ///< the rollout's values of the term's parameters
  int stencil_set = -1;                ///< the term's stencils in the Hessian pattern
  const double* adaptive = nullptr;    ///< the term's slice of State::adaptive, this step
};

/// Where the adjoint collects lambda^T d(dW/dx)/d(input) of one step's inputs (null: not wanted).
struct StepInputBars {
  double* parameters = nullptr;       ///< n_parameters() values
  Eigen::VectorXd* x_prev = nullptr;  ///< positions at the start of the step (dynamics only)
  Eigen::VectorXd* v_prev = nullptr;  ///< velocities at the start of the step (dynamics only)
  Eigen::VectorXd* mass = nullptr;    ///< the step's lumped masses (StepContext::mass)
};

/// Directions of one step's inputs for forward sensitivities (null: zero).
struct StepInputDirections {
  const double* parameters = nullptr;       ///< n_parameters() values
  const Eigen::VectorXd* x_prev = nullptr;  ///< positions at the start of the step
  const Eigen::VectorXd* v_prev = nullptr;  ///< velocities at the start of the step
  const Eigen::VectorXd* mass = nullptr;    ///< the step's lumped masses
};

class EnergyTerm {
 public:
  virtual ~EnergyTerm() = default;
  /// Short name for reports, e.g. "elastic:beam", "gravity".
  virtual std::string name() const = 0;
  /// False for dissipative terms that only exist in dynamics (damping).
  virtual bool in_statics() const { return true; }
  /// True if dW/dx depends on the positions (or velocities) at the start of the step in this
  /// step (inertia, damping, lagged friction).
  virtual bool depends_on_previous_state(const TermData& d) const { return false; }
  /// True if dW/dx depends on the step's lumped masses (inertia, gravity, mass damping).
  virtual bool depends_on_mass(const TermData& d) const { return false; }

  /// A new TermData of the term's own type, with its scratch sized.
  virtual std::unique_ptr<TermData> make_data() const { return std::make_unique<TermData>(); }
  /// Adds the vertex stencils whose dof blocks the Hessian may touch (d.stencil_set).
  virtual void declare_sparsity(SparsityBuilder& builder, TermData& d) const {}
  /// Called after d.step and d.parameters are set for a step, before any evaluation: the term
  /// derives what it keeps for the step (which vertices start near an obstacle, ...).
  virtual void begin_step(TermData& d) const {}

  /// Values the term adapts along a rollout (kept in State::adaptive, n_adaptive of them): a
  /// rule that changes them only in steps (doubling a stiffness), so that gradients can take
  /// them as constants. Their values at the start of a rollout into a.
  virtual int n_adaptive() const { return 0; }
  virtual void initial_adaptive(double* a) const {}
  /// After the step converged at x: a (this step's values on entry) becomes the next step's.
  virtual void update_adaptive(TermData& d, const Eigen::VectorXd& x, double* a) const {}

  /// W(x) [J]; +infinity where the term is undefined (an inverted element of a model that
  /// forbids inversion, a vertex inside a barrier obstacle): the line search treats that as
  /// infeasible.
  virtual double value(TermData& d, const Eigen::VectorXd& x) const = 0;
  /// W(x) (value() up to round-off) and g += dW/dx in one pass: Newton's line-search points
  /// usually become the next iterate, whose gradient is then at hand. +infinity where value()
  /// is, with g unspecified.
  virtual double value_and_gradient(TermData& d, const Eigen::VectorXd& x,
                                    Eigen::VectorXd& g) const = 0;
  /// H += d^2W/dx^2 (each stencil's block projected to PSD when `project`).
  virtual void add_hessian(TermData& d, const Eigen::VectorXd& x, bool project,
                           HessianAssembler& H) const = 0;
  /// out += (d^2W/dx^2) u, exact (unprojected), without assembling.
  virtual void add_hessian_vector_product(TermData& d, const Eigen::VectorXd& x,
                                          const Eigen::VectorXd& u, Eigen::VectorXd& out) const = 0;
  /// diag += diag(d^2W/dx^2) (PSD-projected blocks), for Jacobi-preconditioned matrix-free CG.
  virtual void add_hessian_diagonal(TermData& d, const Eigen::VectorXd& x,
                                    Eigen::VectorXd& diag) const = 0;

  // ---- Differentiable parameters and inputs (the adjoint and forward sensitivities) ----------
  // A term with parameters p lists them as groups of one flat vector, and provides the two
  // products of its gradient's input Jacobian d(dW/dx)/d(p, x_prev). That is all the adjoint
  // needs: a new term gets exact gradients without adjoint code of its own. Per-step parameters
  // (controls) act only in their own step (StepContext::step): the products touch that slice.

  /// The groups of the parameter vector (empty: no parameters).
  virtual std::vector<ParameterGroup> parameter_groups() const { return {}; }
  /// Length of the parameter vector.
  int n_parameters() const;
  /// The parameter values the term was built with (n_parameters() values).
  virtual Eigen::VectorXd default_parameters() const { return {}; }
  /// @throws InputError naming the group and value when one of p (n_parameters()) is invalid.
  virtual void validate_parameters(const double* p) const {}
  /// @throws InputError when one of the values meant for p[offset, offset + count) is invalid
  /// (a controller's per-step outputs). The default checks them inside the default parameters.
  virtual void validate_parameter_range(int offset, const double* values, int count) const;
  /// bars += lambda^T d(dW/dx)/d(input) at x, for the inputs bars asks for.
  virtual void pull_back(TermData& d, const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                         const StepInputBars& bars) const {}
  /// out += d(dW/dx)/d(input) dinput at x, for the directions given.
  virtual void push_forward(TermData& d, const Eigen::VectorXd& x,
                            const StepInputDirections& directions, Eigen::VectorXd& out) const {}
};

// ---- Optional capabilities: a term has one by also deriving from it -------------------------

/// A term that must not be crossed (barrier contact): Newton's line search starts below the
/// first time of impact.
class StepLimit {
 public:
  virtual ~StepLimit() = default;
  /// The largest fraction t in (0, 1] of the step x -> x + dx before the term becomes
  /// infeasible.
  virtual double max_step(const TermData& d, const Eigen::VectorXd& x,
                          const Eigen::VectorXd& dx) const = 0;
};

/// A term that knows where its quadratic model fails far from the solution (lagged friction,
/// whose curvature jumps between sticking and sliding) and corrects Newton's direction there.
/// Newton keeps a correction only if it still descends; a correction must vanish to second order
/// for small steps, so that quadratic convergence is kept.
class DirectionCorrection {
 public:
  virtual ~DirectionCorrection() = default;
  /// Corrects dx at x (g: the whole potential's gradient there); true if dx changed.
  virtual bool correct_direction(const TermData& d, const Eigen::VectorXd& x,
                                 const Eigen::VectorXd& g, Eigen::VectorXd& dx) const = 0;
};

}  // namespace softgrad
