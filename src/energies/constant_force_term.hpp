/// @file constant_force_term.hpp
/// A constant force field f as a potential, W(x) = -f . x: external point forces (gravity,
/// which follows the masses, is gravity_term.hpp). Linear in x, so its Hessian is zero.
#pragma once

#include "softgrad/energy.hpp"

namespace softgrad {

class ConstantForceTerm final : public EnergyTerm {
 public:
  ConstantForceTerm(std::string name, Eigen::VectorXd force)
      : name_(std::move(name)), force_(std::move(force)) {}

  std::string name() const override { return name_; }
  double value(TermData&, const Eigen::VectorXd& x) const override { return -force_.dot(x); }
  double value_and_gradient(TermData&, const Eigen::VectorXd& x,
                            Eigen::VectorXd& g) const override {
    g -= force_;
    return -force_.dot(x);
  }
  void add_hessian(TermData&, const Eigen::VectorXd&, bool, HessianAssembler&) const override {}
  void add_hessian_vector_product(TermData&, const Eigen::VectorXd&, const Eigen::VectorXd&,
                                  Eigen::VectorXd&) const override {}
  void add_hessian_diagonal(TermData&, const Eigen::VectorXd&, Eigen::VectorXd&) const override {}
  const Eigen::VectorXd& force() const { return force_; }

 private:
  std::string name_;
  Eigen::VectorXd force_;
};

}  // namespace softgrad
