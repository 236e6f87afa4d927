/// @file inertia_term.hpp
/// Inertia as the first energy term of a dynamic step:
///     I(x) = 1/(2 dt^2) (x - xhat)^T M (x - xhat),   xhat = x_n + dt v_n,
/// with M the step's lumped masses (StepContext::mass). The term also owns what sets M: its
/// parameters are the bodies' densities, one group "density:BODY" per body. A deformable body's
/// is per element (element e puts rho_e V_e / (d + 1) on each of its vertices); a rigid body's is
/// one value (its mass and second moments scale with it). A body whose vertex masses the scene
/// gave has none. masses() turns the densities into M and pull_back_masses() carries M's bar
/// back onto them, so a gradient in a density takes in every term that weighs with M (inertia,
/// gravity, mass damping) through StepInputBars::mass.
#pragma once

#include "softgrad/model.hpp"

namespace softgrad {

class InertiaTerm final : public EnergyTerm {
 public:
  /// References the model's bodies and masses, which must outlive the term (bodies added later
  /// are included).
  explicit InertiaTerm(const Model& model) : model_(model) {}

  std::string name() const override { return "inertia"; }
  bool in_statics() const override { return false; }
  bool depends_on_previous_state(const TermData&) const override { return true; }
  bool depends_on_mass(const TermData&) const override { return true; }

  std::unique_ptr<TermData> make_data() const override;
  void begin_step(TermData& d) const override;
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
  Eigen::VectorXd default_parameters() const override;
  void validate_parameters(const double* p) const override;

  /// M for the densities p (n_parameters() values): Model::mass, changed only where p differs
  /// from the model's densities (so the defaults give Model::mass bit for bit).
  void masses(const double* p, Eigen::VectorXd& M) const;
  /// p_bar += (dM/dp)^T mass_bar (M is linear in p).
  void pull_back_masses(const Eigen::VectorXd& mass_bar, double* p_bar) const;
  /// dM = (dM/dp) dp.
  void push_forward_masses(const double* dp, Eigen::VectorXd& dM) const;

 private:
  /// The step's masses (Model::mass where the context has none).
  const Eigen::VectorXd& mass_of(const TermData& d) const;
  const Model& model_;
};

/// The model's inertia term (Model::terms.front()), or null if it has none.
const InertiaTerm* inertia_term(const Model& model);

/// Puts the inertia term first in a model's terms unless it is there (add_body and
/// add_rigid_body call it).
void ensure_inertia_term(Model& model);

}  // namespace softgrad
