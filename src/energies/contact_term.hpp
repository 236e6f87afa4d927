/// @file contact_term.hpp
/// Contact and lagged friction against analytic obstacles (see softgrad/contact.hpp): a sum of
/// per-vertex energies E_i(x_i; x_i^n, stiffness, mu), each differentiated by the element AD
/// with x_i^n and the two coefficients as its parameters, which gives the previous-state and
/// parameter products of the adjoint with no extra code.
#pragma once

#include <vector>

#include "softgrad/contact.hpp"
#include "softgrad/energy.hpp"

namespace softgrad {

class ContactTerm final : public EnergyTerm {
 public:
  ContactTerm(const Model& model, ContactOptions options);

  std::string name() const override { return "contact"; }
  void declare_sparsity(SparsityBuilder& builder) override;
  void begin_step(const StepContext& ctx) override;
  double value(const Eigen::VectorXd& x) const override;
  void add_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const override;
  double value_and_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const override;
  void add_hessian(const Eigen::VectorXd& x, bool project, HessianAssembler& H) const override;
  void add_hessian_vector_product(const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                                  Eigen::VectorXd& out) const override;
  void add_hessian_diagonal(const Eigen::VectorXd& x, Eigen::VectorXd& d) const override;
  double max_step(const Eigen::VectorXd& x, const Eigen::VectorXd& dx) const override;
  /// Lagged friction's knee. In 2D, each contact vertex's tangential step becomes the exact
  /// minimiser of its friction plus its other forces linearised, with the stiffness that
  /// Newton's own step implies; the smoothed friction's curvature jumps from 2F/eps inside the
  /// sticking band to 0 outside, so Newton's quadratic model overshot slip reversals and crept
  /// towards the band's edge in halving steps. Sliding on, the step is unchanged; near a
  /// solution off the knee the change is of second order. In 3D, a sliding vertex whose step
  /// would reverse its slip across the band lands at zero slip instead.
  bool correct_direction(const Eigen::VectorXd& x, const Eigen::VectorXd& g,
                         Eigen::VectorXd& dx) const override;

  std::vector<ParameterGroup> parameter_groups() const override;
  void get_parameters(double* p) const override;
  void set_parameters(const double* p) override;
  void add_parameter_mixed_product(const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                                   double* out) const override;
  void add_parameter_jvp(const Eigen::VectorXd& x, const double* dp,
                         Eigen::VectorXd& out) const override;
  bool depends_on_previous_state() const override { return friction_active(); }
  void add_previous_state_mixed_product(const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                                        Eigen::VectorXd& x_prev_bar,
                                        Eigen::VectorXd& v_prev_bar) const override;
  void add_previous_state_jvp(const Eigen::VectorXd& x, const Eigen::VectorXd& dx_prev,
                              const Eigen::VectorXd& dv_prev, Eigen::VectorXd& out) const override;

  /// Per-vertex energy E_i(x_i; p), p = (x_i^n, stiffness, mu): the function the AD sees.
  struct VertexEnergy;

 private:
  bool friction_active() const { return dt_ > 0.0 && options_.friction > 0.0; }
  /// p = (x_i^n, stiffness, mu) for vertex slot k.
  void vertex_params(int k, double* p) const;
  /// True if vertex slot k can have energy at x (near an obstacle now or at the step start).
  bool active(int k, const Eigen::VectorXd& x) const;
  /// Sum of per_vertex(k, x_k, p_k) over the active vertex slots; +infinity if a vertex is not
  /// strictly outside a barrier obstacle.
  template <class PerVertex>
  double sum_active(const Eigen::VectorXd& x, const PerVertex& per_vertex) const;

  int dim_;
  ContactOptions options_;
  std::vector<int> verts_;
  int stencil_set_ = -1;
  /// Penalty model against half-spaces only: gradients and Hessians in closed form (hot in 2D
  /// creatures); otherwise, and for every parameter and previous-state product, AD.
  bool closed_form_ = false;
  double dt_ = 0.0;
  Eigen::VectorXd x_prev_;
  std::vector<char> near_at_start_;     ///< per vertex slot: within reach of an obstacle at x_prev_
  mutable std::vector<double> blocks_;  ///< per-vertex dim x dim Hessians (scratch)
};

}  // namespace softgrad
