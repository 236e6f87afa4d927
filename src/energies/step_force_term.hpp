/// @file step_force_term.hpp
/// Forces that change every step on chosen dofs, W_n(x) = -f_n . x[dofs] during step n -> n+1:
/// the open-loop control input whose gradient the adjoint returns per step. Past the last
/// given step the force is zero.
#pragma once

#include <vector>

#include "softgrad/energy.hpp"

namespace softgrad {

class StepForceTerm final : public EnergyTerm {
 public:
  /// `values` holds n_steps x dofs.size() forces [N], step-major.
  StepForceTerm(std::string name, std::vector<int> dofs, int n_steps, std::vector<double> values);

  std::string name() const override { return name_; }
  void declare_sparsity(SparsityBuilder&) override {}
  void begin_step(const StepContext& ctx) override { step_ = ctx.step; }
  double value(const Eigen::VectorXd& x) const override;
  void add_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const override;
  void add_hessian(const Eigen::VectorXd&, bool, HessianAssembler&) const override {}
  void add_hessian_vector_product(const Eigen::VectorXd&, const Eigen::VectorXd&,
                                  Eigen::VectorXd&) const override {}
  void add_hessian_diagonal(const Eigen::VectorXd&, Eigen::VectorXd&) const override {}

  /// One PerStep group "force" [N]: p[n * dofs.size() + i] acts on dofs[i] in step n.
  std::vector<ParameterGroup> parameter_groups() const override;
  void get_parameters(double* p) const override;
  void set_parameters(const double* p) override;
  void add_parameter_mixed_product(const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                                   double* out) const override;
  void add_parameter_jvp(const Eigen::VectorXd& x, const double* dp,
                         Eigen::VectorXd& out) const override;

 private:
  bool active() const { return step_ >= 0 && step_ < n_steps_; }
  const double* current() const {
    return values_.data() + static_cast<size_t>(step_) * dofs_.size();
  }

  std::string name_;
  std::vector<int> dofs_;
  int n_steps_;
  std::vector<double> values_;
  int step_ = 0;
};

}  // namespace softgrad
