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
  /// `values` holds n_steps x dofs.size() forces [N], step-major: the default parameters.
  StepForceTerm(std::string name, std::vector<int> dofs, int n_steps, std::vector<double> values);

  std::string name() const override { return name_; }
  double value(TermData& d, const Eigen::VectorXd& x) const override;
  double value_and_gradient(TermData& d, const Eigen::VectorXd& x,
                            Eigen::VectorXd& g) const override;
  void add_hessian(TermData&, const Eigen::VectorXd&, bool, HessianAssembler&) const override {}
  void add_hessian_vector_product(TermData&, const Eigen::VectorXd&, const Eigen::VectorXd&,
                                  Eigen::VectorXd&) const override {}
  void add_hessian_diagonal(TermData&, const Eigen::VectorXd&, Eigen::VectorXd&) const override {}

  /// One PerStep group "force" [N]: p[n * dofs.size() + i] acts on dofs[i] in step n.
  std::vector<ParameterGroup> parameter_groups() const override;
  Eigen::VectorXd default_parameters() const override;
  void validate_parameters(const double* p) const override;
  void validate_parameter_range(int offset, const double* values, int count) const override;
  void pull_back(TermData& d, const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                 const StepInputBars& bars) const override;
  void push_forward(TermData& d, const Eigen::VectorXd& x, const StepInputDirections& directions,
                    Eigen::VectorXd& out) const override;

 private:
  /// This step's slice of the parameters, or null past the last step.
  const double* current(const TermData& d) const;

  std::string name_;
  std::vector<int> dofs_;
  int n_steps_;
  std::vector<double> values_;
};

}  // namespace softgrad
