/// @file damping_term.hpp
/// Rayleigh damping as a dissipation potential over one step (dynamics only):
///   D(x) = 1/(2 dt) (x - x_n)^T (alpha M + beta K_0) (x - x_n),
/// so that dD/dx = (alpha M + beta K_0) v_{n+1} is the damping force of the new velocity.
/// K_0 is the elastic stiffness at the rest state, element by element (the stencils; the
/// classical linear Rayleigh matrix C = alpha M + beta K_0), M the step's lumped masses
/// (StepContext::mass: they follow the densities a rollout sets).
/// Why frozen: a K re-evaluated at x_n would make the adjoint need third derivatives of the
/// energy (and of the PSD projection); a frozen C keeps every gradient exact. The price: C does
/// not follow the material parameters a rollout sets, and beta damps large rigid rotations
/// slightly (use alpha for rotating bodies). Parameters: "alpha" [1/s] and "beta" [s].
/// D is linear in alpha, beta and x_n: its input products are global in closed form.
#pragma once

#include <vector>

#include "softgrad/model.hpp"
#include "softgrad/stencil_term.hpp"

namespace softgrad {

class DampingTerm final : public StencilTerm {
 public:
  /// References the model's bodies and masses, which must outlive the term. K_0 is built here
  /// when beta > 0, else by the first rollout that needs it.
  DampingTerm(const Model& model, double alpha, double beta);

  std::string name() const override { return "damping"; }
  bool in_statics() const override { return false; }
  bool depends_on_previous_state(const TermData&) const override { return true; }
  bool depends_on_mass(const TermData&) const override { return true; }

  // The mass part (diagonal) beside the stencils' stiffness part.
  double value(TermData& d, const Eigen::VectorXd& x) const override;
  double value_and_gradient(TermData& d, const Eigen::VectorXd& x,
                            Eigen::VectorXd& g) const override;
  void add_hessian(TermData& d, const Eigen::VectorXd& x, bool project,
                   HessianAssembler& H) const override;
  void add_hessian_vector_product(TermData& d, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                                  Eigen::VectorXd& out) const override;
  void add_hessian_diagonal(TermData& d, const Eigen::VectorXd& x,
                            Eigen::VectorXd& diag) const override;
  void pull_back(TermData& d, const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                 const StepInputBars& bars) const override;
  void push_forward(TermData& d, const Eigen::VectorXd& x, const StepInputDirections& directions,
                    Eigen::VectorXd& out) const override;

  std::vector<ParameterGroup> parameter_groups() const override;
  Eigen::VectorXd default_parameters() const override { return Eigen::Vector2d(alpha_, beta_); }
  void validate_parameters(const double* p) const override;

 private:
  struct DampingData : Data {
    std::vector<double> K;  ///< K_0 per element, when the term was built without it
    Eigen::VectorXd dx;     ///< x - x_n (scratch)
    Eigen::VectorXd work;   ///< scratch
  };
  std::unique_ptr<Data> new_data() const override { return std::make_unique<DampingData>(); }
  static DampingData& damping(TermData& d) { return static_cast<DampingData&>(d); }
  /// The step's masses (Model::mass where the context has none).
  const Eigen::VectorXd& mass_of(const TermData& d) const;
  /// K_0,e for every element (row-major blocks), building the rollout's copy if needed.
  const std::vector<double>& stiffness(Data& d) const;
  /// Per element: scale * K_0,e u_e.
  void stiffness_products(Data& d, const double* u, double scale, double* out) const;
  /// out += (a M + b K_0) u / dt.
  void apply(Data& d, double a, double b, const Eigen::VectorXd& u, Eigen::VectorXd& out) const;

  // The stiffness part beta/dt K_0 as stencil kernels.
  double energies(Data& d, const double* x, double* E) const override;
  bool gradients(Data& d, const double* x, double* E, double* G) const override;
  void hessians(Data& d, const double* x, bool project, int first, int count,
                double* H) const override;
  void hessian_products(Data& d, const double* x, const double* u, double* HU) const override;

  const Model& model_;
  double alpha_;
  double beta_;
  std::vector<double> K_;  ///< K_0 per element (empty when beta = 0 at construction)
};

}  // namespace softgrad
