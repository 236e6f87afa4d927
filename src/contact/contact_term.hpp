/// @file contact_term.hpp
/// Contact and lagged friction against analytic obstacles (see softgrad/contact.hpp): a sum of
/// per-vertex energies E_i(x_i; x_i^n, stiffness, mu) on the AD stencil base, with x_i^n and
/// the two coefficients as each vertex's local inputs, which gives the previous-state and
/// parameter products of the adjoint with no extra code.
#pragma once

#include <vector>

#include "contact_energy.hpp"
#include "softgrad/ad_stencil_term.hpp"

namespace softgrad {

template <int d>
class ContactTerm final : public AdStencilTerm<ContactTerm<d>, d, d + 2, 1024>,
                          public StepLimit,
                          public DirectionCorrection {
  using Base = AdStencilTerm<ContactTerm<d>, d, d + 2, 1024>;
  using Data = typename Base::Data;
  friend Base;

 public:
  /// @param verts the vertices that collide (model numbering).
  ContactTerm(int n_verts, std::vector<int> verts, ContactOptions options);

  std::string name() const override { return "contact"; }
  bool depends_on_previous_state(const TermData& data) const override;
  void begin_step(TermData& data) const override;
  double max_step(const TermData& data, const Eigen::VectorXd& x,
                  const Eigen::VectorXd& dx) const override;
  /// Lagged friction's knee. In 2D, each contact vertex's tangential step becomes the exact
  /// minimiser of its friction plus its other forces linearised, with the stiffness that
  /// Newton's own step implies; the smoothed friction's curvature jumps from 2F/eps inside the
  /// sticking band to 0 outside, so Newton's quadratic model overshot slip reversals and crept
  /// towards the band's edge in halving steps. Sliding on, the step is unchanged; near a
  /// solution off the knee the change is of second order. In 3D, a sliding vertex whose step
  /// would reverse its slip across the band lands at zero slip instead.
  bool correct_direction(const TermData& data, const Eigen::VectorXd& x, const Eigen::VectorXd& g,
                         Eigen::VectorXd& dx) const override;

  /// "stiffness" [N/m] and "friction" [1], one value each.
  std::vector<ParameterGroup> parameter_groups() const override;
  Eigen::VectorXd default_parameters() const override;
  void validate_parameters(const double* p) const override;

 private:
  struct ContactData : Data {
    detail::VertexEnergy energy;      ///< this step's energy (its friction band)
    std::vector<char> near_at_start;  ///< per vertex: within reach of an obstacle at x^n
  };
  std::unique_ptr<Data> new_data() const override { return std::make_unique<ContactData>(); }
  static const ContactData& contact(const Data& data) {
    return static_cast<const ContactData&>(data);
  }
  bool friction_active(const TermData& data) const;

  // AdStencilTerm's hooks.
  const detail::VertexEnergy& stencil_energy(const Data& data, int) const {
    return contact(data).energy;
  }
  void local_inputs(const Data& data, int s, double* q) const;
  bool active(const Data& data, int s, const double* xs) const;
  bool feasible(const Data& data, int s, const double* xs) const;
  bool closed_form(const Data& data, int s, const double* xs, const double* q, double& e, double* g,
                   double* H) const;
  void scatter_parameter_products(const Data& data, const double* P,
                                  double* parameters_bar) const override;
  void gather_parameter_directions(const Data& data, const double* direction,
                                   double* dP) const override;

  ContactOptions options_;
  bool is_barrier_;
  /// Penalty model against half-spaces only: gradients and Hessians in closed form (hot in 2D
  /// creatures); otherwise, and for every parameter and previous-state product, AD.
  bool closed_form_;
};

}  // namespace softgrad
