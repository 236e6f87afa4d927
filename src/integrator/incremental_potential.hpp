/// @file incremental_potential.hpp
/// The objective Newton minimises: Phi(x) = 1/(2 dt^2) (x - xhat)^T M (x - xhat) + sum W_k(x)
/// in dynamics, sum of the static terms in statics. Kinematic dofs are eliminated: the gradient
/// is zeroed there and the Hessian has identity rows and columns.
#pragma once

#include <vector>

#include "softgrad/assembly.hpp"
#include "softgrad/model.hpp"
#include "softgrad/solvers/cpu/linear_operator.hpp"

namespace softgrad {

class IncrementalPotential {
 public:
  IncrementalPotential(const Model& model, HessianAssembler& assembler);

  /// Starts a dynamic step (dt > 0, inertia around xhat) or a static solve (dt = 0).
  void begin(const StepContext& ctx, const Eigen::VectorXd& xhat);
  bool dynamic() const { return dt_ > 0.0; }

  double value(const Eigen::VectorXd& x) const;
  /// The smallest EnergyTerm::max_step over the active terms.
  double max_step(const Eigen::VectorXd& x, const Eigen::VectorXd& dx) const;
  /// EnergyTerm::correct_direction of every active term, kinematic dofs kept at zero; true if
  /// any changed dx.
  bool correct_direction(const Eigen::VectorXd& x, const Eigen::VectorXd& g,
                         Eigen::VectorXd& dx) const;
  /// g = dPhi/dx with kinematic dofs zeroed.
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const;
  /// Phi(x) (value() up to round-off) and g = dPhi/dx in one pass over the terms; +infinity,
  /// with g unspecified, at an infeasible point.
  double value_and_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const;
  /// Assembles the (projected) Hessian with identity rows/columns for kinematic dofs.
  void hessian(const Eigen::VectorXd& x, bool project) const;
  const SparseMatrix& matrix() const { return assembler_.matrix(); }
  const std::vector<int>& fixed_dofs() const { return fixed_; }

  /// The exact Hessian as an operator (matrix-free CG), with kinematic dofs eliminated.
  class Operator final : public LinearOperator {
   public:
    Operator(const IncrementalPotential& phi, const Eigen::VectorXd& x) : phi_(phi), x_(x) {}
    int size() const override { return static_cast<int>(x_.size()); }
    void apply(const Eigen::VectorXd& in, Eigen::VectorXd& out) const override;
    void diagonal(Eigen::VectorXd& d) const override;

   private:
    const IncrementalPotential& phi_;
    const Eigen::VectorXd& x_;
  };

 private:
  bool active(const EnergyTerm& t) const { return dynamic() || t.in_statics(); }

  const Model& model_;
  HessianAssembler& assembler_;
  std::vector<int> fixed_;
  std::vector<char> is_fixed_;
  double dt_ = 0.0;
  Eigen::VectorXd xhat_;
  mutable Eigen::VectorXd scratch_;
};

}  // namespace softgrad
