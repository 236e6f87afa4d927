/// @file gravity_term.hpp
/// Gravity (and the scene's body accelerations) as a potential, W(x) = -(M a) . x, with a the
/// acceleration of each dof (zero at a rigid body's axis vertices, whose masses are second
/// moments) and M the step's lumped masses (StepContext::mass): the force follows the densities
/// a rollout sets. Linear in x, so its Hessian is zero.
#pragma once

#include "softgrad/energy.hpp"

namespace softgrad {

class GravityTerm final : public EnergyTerm {
 public:
  /// @param acceleration one value per dof [m/s^2]; @param mass the model's masses (the
  /// force where a step context gives none).
  GravityTerm(Eigen::VectorXd acceleration, const Eigen::VectorXd& mass)
      : acceleration_(std::move(acceleration)), model_force_(mass.cwiseProduct(acceleration_)) {}

  std::string name() const override { return "gravity"; }
  bool depends_on_mass(const TermData&) const override { return true; }
  std::unique_ptr<TermData> make_data() const override;
  void begin_step(TermData& d) const override;
  double value(TermData& d, const Eigen::VectorXd& x) const override;
  double value_and_gradient(TermData& d, const Eigen::VectorXd& x,
                            Eigen::VectorXd& g) const override;
  void add_hessian(TermData&, const Eigen::VectorXd&, bool, HessianAssembler&) const override {}
  void add_hessian_vector_product(TermData&, const Eigen::VectorXd&, const Eigen::VectorXd&,
                                  Eigen::VectorXd&) const override {}
  void add_hessian_diagonal(TermData&, const Eigen::VectorXd&, Eigen::VectorXd&) const override {}
  void pull_back(TermData& d, const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                 const StepInputBars& bars) const override;
  void push_forward(TermData& d, const Eigen::VectorXd& x, const StepInputDirections& directions,
                    Eigen::VectorXd& out) const override;

 private:
  /// M a at the step's masses.
  const Eigen::VectorXd& force(TermData& d) const;
  Eigen::VectorXd acceleration_;
  Eigen::VectorXd model_force_;  ///< M a at Model::mass
};

}  // namespace softgrad
