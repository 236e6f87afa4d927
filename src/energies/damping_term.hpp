/// @file damping_term.hpp
/// Rayleigh damping as a dissipation potential over one step (dynamics only):
///   D(x) = 1/(2 dt) (x - x_n)^T (alpha M + beta K_0) (x - x_n),
/// so that dD/dx = (alpha M + beta K_0) v_{n+1} is the damping force of the new velocity.
/// K_0 is the elastic stiffness at the rest state, assembled once when the term is built (the
/// classical linear Rayleigh matrix C = alpha M + beta K_0). Why frozen: a K re-evaluated at x_n
/// would make the adjoint need third derivatives of the energy (and of the PSD projection); a
/// frozen C keeps every gradient exact. The price: C does not follow later changes of material
/// parameters, and beta damps large rigid rotations slightly (use alpha for rotating bodies).
/// Parameters: "alpha" [1/s] and "beta" [s].
#pragma once

#include <vector>

#include "../assembly/vector_scatter.hpp"
#include "softgrad/energy.hpp"
#include "softgrad/model.hpp"

namespace softgrad {

class DampingTerm final : public EnergyTerm {
 public:
  /// References the model's bodies and masses, which must outlive the term.
  DampingTerm(const Model& model, double alpha, double beta);

  std::string name() const override { return "damping"; }
  bool in_statics() const override { return false; }
  void declare_sparsity(SparsityBuilder& builder) override;
  void begin_step(const StepContext& ctx) override;
  double value(const Eigen::VectorXd& x) const override;
  void add_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const override;
  void add_hessian(const Eigen::VectorXd& x, bool project, HessianAssembler& H) const override;
  void add_hessian_vector_product(const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                                  Eigen::VectorXd& out) const override;
  void add_hessian_diagonal(const Eigen::VectorXd& x, Eigen::VectorXd& d) const override;

  std::vector<ParameterGroup> parameter_groups() const override;
  void get_parameters(double* p) const override;
  void set_parameters(const double* p) override;
  void add_parameter_mixed_product(const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                                   double* out) const override;
  void add_parameter_jvp(const Eigen::VectorXd& x, const double* dp,
                         Eigen::VectorXd& out) const override;
  bool depends_on_previous_state() const override { return true; }
  void add_previous_state_mixed_product(const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                                        Eigen::VectorXd& x_prev_bar,
                                        Eigen::VectorXd& v_prev_bar) const override;
  void add_previous_state_jvp(const Eigen::VectorXd& x, const Eigen::VectorXd& dx_prev,
                              const Eigen::VectorXd& dv_prev, Eigen::VectorXd& out) const override;

 private:
  /// out += (a M + b K_0) u / dt.
  void apply(double a, double b, const Eigen::VectorXd& u, Eigen::VectorXd& out) const;
  /// Builds K_0 on first use (only when beta > 0 or its derivative is asked for).
  void ensure_stiffness() const;

  struct BodyBlocks {
    const Body* body;
    int stencil_set = -1;
    VectorScatter scatter;
    mutable std::vector<double> K;   ///< per-element rest stiffness K_0
    mutable std::vector<double> Ku;  ///< per-element products (scratch)
  };
  const Model& model_;
  double alpha_;
  double beta_;
  double dt_ = 0.0;
  Eigen::VectorXd x_prev_;
  std::vector<BodyBlocks> blocks_;
  mutable bool have_stiffness_ = false;
  mutable Eigen::VectorXd scratch_;
};

}  // namespace softgrad
