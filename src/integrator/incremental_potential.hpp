/// @file incremental_potential.hpp
/// The objective Newton minimises: Phi(x) = sum W_k(x) over the model's terms, inertia first
/// (1/(2 dt^2) (x - xhat)^T M (x - xhat), dynamics only), the static terms in statics. It sets
/// each step's masses M from the inertia term's parameters (the densities). Kinematic dofs are
/// eliminated: the gradient is zeroed there and the Hessian has identity rows and columns. It owns
/// one rollout's workspace for the model's terms: their TermData and the assembled Hessian.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "softgrad/detail/assembly.hpp"
#include "softgrad/model.hpp"
#include "solvers/cpu/linear_operator.hpp"

namespace softgrad {

class InertiaTerm;

class IncrementalPotential {
 public:
  /// Makes every term's data and analyses the Hessian's pattern (once).
  /// @throws InputError if the model has dofs but no inertia term.
  explicit IncrementalPotential(const Model& model);

  /// Starts a dynamic step (dt > 0) or a static solve (dt = 0), with the
  /// rollout's parameter values (which must outlive the step's evaluations) and the terms'
  /// adaptive values in ctx.adaptive (copied; none: their initial values).
  /// @throws InputError if ctx.adaptive has the wrong length.
  void begin(const StepContext& ctx, const TermParameters& p);
  /// The step's lumped masses (StepContext::mass of every term), set by begin().
  const Eigen::VectorXd& mass() const { return mass_; }
  /// The model's inertia term (its first), or null for a model without dofs.
  const InertiaTerm* inertia() const { return inertia_; }
  /// The terms' adaptive values for the next step, after this one converged at x.
  void update_adaptive(const Eigen::VectorXd& x, Eigen::VectorXd& adaptive);
  bool dynamic() const { return dt_ > 0.0; }
  /// Whether term k takes part (damping only in dynamics).
  bool active(int k) const { return dynamic() || model_.terms[k]->in_statics(); }

  double value(const Eigen::VectorXd& x);
  /// Why Phi(x) is not finite, in words: the inertia term (dt too small for its 1/dt^2, or x
  /// not finite) or the first term whose energy is infinite (an inverted element, a contact at
  /// zero distance) or NaN (a material evaluated where it is not defined), named.
  std::string infeasibility(const Eigen::VectorXd& x);
  /// The smallest StepLimit::max_step over the active terms that have one.
  double max_step(const Eigen::VectorXd& x, const Eigen::VectorXd& dx) const;
  /// DirectionCorrection::correct_direction of every active term that has one, kinematic dofs
  /// kept at zero; true if any changed dx.
  bool correct_direction(const Eigen::VectorXd& x, const Eigen::VectorXd& g, Eigen::VectorXd& dx);
  /// Phi(x) and g = dPhi/dx (kinematic dofs zeroed) in one pass over the terms; +infinity,
  /// with g unspecified, at an infeasible point.
  double value_and_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g);
  /// Assembles the (projected) Hessian with identity rows/columns for kinematic dofs. When a
  /// term's pairs found at x (contact) fall outside the pattern, the pattern is rebuilt with
  /// the pairs of this assembly (the linear solvers re-analyse a changed pattern).
  void hessian(const Eigen::VectorXd& x, bool project);
  const SparseMatrix& matrix() const { return assembler_->matrix(); }
  HessianAssembler& assembler() { return *assembler_; }
  const std::vector<int>& fixed_dofs() const { return fixed_; }
  /// Term k's data for the current step (the adjoint's products).
  TermData& data(int k) { return *data_[k]; }

  /// The exact Hessian as an operator (matrix-free CG), with kinematic dofs eliminated.
  class Operator final : public LinearOperator {
   public:
    Operator(IncrementalPotential& phi, const Eigen::VectorXd& x) : phi_(phi), x_(x) {}
    int size() const override { return static_cast<int>(x_.size()); }
    void apply(const Eigen::VectorXd& in, Eigen::VectorXd& out) const override;
    void diagonal(Eigen::VectorXd& d) const override;

   private:
    IncrementalPotential& phi_;
    const Eigen::VectorXd& x_;
  };

 private:
  const Model& model_;
  const InertiaTerm* inertia_;
  std::vector<std::unique_ptr<TermData>> data_;
  std::unique_ptr<HessianAssembler> assembler_;
  /// The terms' declared stencils: the pattern grows from them when contact pairs appear.
  std::unique_ptr<SparsityBuilder> builder_;
  std::vector<std::pair<int, int>> extra_pairs_;  ///< the contact pairs in the pattern (sorted)
  /// Terms with the optional capabilities, by index.
  std::vector<std::pair<int, const StepLimit*>> step_limits_;
  std::vector<std::pair<int, const DirectionCorrection*>> corrections_;
  std::vector<int> fixed_;
  double dt_ = 0.0;
  Eigen::VectorXd mass_;              ///< the step's masses
  Eigen::VectorXd adaptive_;          ///< this step's adaptive values (State::adaptive)
  Eigen::VectorXd initial_adaptive_;  ///< Model::initial_adaptive(), once
  std::vector<int> adaptive_offset_;  ///< per term: its first value in adaptive_
  Eigen::VectorXd scratch_;
};

}  // namespace softgrad
