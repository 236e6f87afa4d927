/// @file joint_term.hpp
/// The terms of softgrad/joints.hpp: "joints" (every joint's constraint and limit energy) and
/// "motors" (servos and force motors with per-step targets), one stencil per joint or motor over
/// its two bodies' eight vertices (a world parent's slots repeat the child's and are unused).
#pragma once

#include <vector>

#include "joint_energy.hpp"
#include "softgrad/ad_stencil_term.hpp"
#include "softgrad/model.hpp"

namespace softgrad {

/// The eight vertices of a joint's stencil: the parent's four (the child's for the world), then
/// the child's.
std::vector<int> joint_stencil(const Model& model, const Joint& joint);

class JointTerm final : public AdStencilTerm<JointTerm, 24, 1, 1024> {
  friend AdStencilTerm<JointTerm, 24, 1, 1024>;

 public:
  explicit JointTerm(const Model& model);
  std::string name() const override { return "joints"; }

 private:
  struct Energy {
    const detail::JointGeometry* g;
    template <class T, class P>
    T operator()(const T* x, const P*) const {
      return detail::joint_energy(*g, x);
    }
  };
  Energy stencil_energy(const Data&, int s) const { return {&geometry_[s]}; }
  void local_inputs(const Data&, int, double* q) const { q[0] = 0.0; }

  std::vector<detail::JointGeometry> geometry_;
};

class MotorTerm final : public AdStencilTerm<MotorTerm, 24, 25, 1024> {
  friend AdStencilTerm<MotorTerm, 24, 25, 1024>;

 public:
  MotorTerm(const Model& model, const std::vector<MotorSpec>& motors, int n_steps);
  std::string name() const override { return "motors"; }
  /// Servos are defined through the step's velocity: dynamics only.
  bool in_statics() const override { return false; }
  bool depends_on_previous_state(const TermData&) const override { return true; }
  /// One PerStep group "target": p[n * n_motors + m] is motor m's target in step n.
  std::vector<ParameterGroup> parameter_groups() const override;
  Eigen::VectorXd default_parameters() const override;
  void validate_parameters(const double* p) const override;
  void validate_parameter_range(int offset, const double* values, int count) const override;

 private:
  /// Motor s's energy at this step's dt.
  detail::MotorEnergy stencil_energy(const Data& d, int s) const;
  void local_inputs(const Data& d, int s, double* q) const;
  void scatter_parameter_products(const Data& d, const double* P,
                                  double* parameters_bar) const override;
  void gather_parameter_directions(const Data& d, const double* direction,
                                   double* dP) const override;
  /// Index of motor s's target in the parameters, -1 after the targets' steps.
  int target_index(const Data& d, int s) const;

  std::vector<MotorSpec> specs_;
  std::vector<detail::JointGeometry> geometry_;
  std::vector<detail::MotorEnergy> energies_;  ///< per motor, dt unset
  int n_steps_;
};

}  // namespace softgrad
