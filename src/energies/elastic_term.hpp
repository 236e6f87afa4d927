/// @file elastic_term.hpp
/// The elastic energy of one body: the sum of its material's element energies.
#pragma once

#include <vector>

#include "../assembly/vector_scatter.hpp"
#include "softgrad/energy.hpp"
#include "softgrad/model.hpp"

namespace softgrad {

class ElasticTerm final : public EnergyTerm {
 public:
  /// Keeps a reference to the body, which must outlive the term (both live in the Model).
  ElasticTerm(Body& body, int n_verts, int dim);

  std::string name() const override { return "elastic:" + body_.name; }
  void declare_sparsity(SparsityBuilder& builder) override;
  double value(const Eigen::VectorXd& x) const override;
  void add_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const override;
  double value_and_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const override;
  void add_hessian(const Eigen::VectorXd& x, bool project, HessianAssembler& H) const override;
  void add_hessian_vector_product(const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                                  Eigen::VectorXd& out) const override;
  void add_hessian_diagonal(const Eigen::VectorXd& x, Eigen::VectorXd& d) const override;

  /// One PerElement group per material parameter ("youngs", "poisson", ...), group-major:
  /// p[j * n_elems + e] is parameter j of element e.
  std::vector<ParameterGroup> parameter_groups() const override;
  void get_parameters(double* p) const override;
  void set_parameters(const double* p) override;
  void add_parameter_mixed_product(const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                                   double* out) const override;
  void add_parameter_jvp(const Eigen::VectorXd& x, const double* dp,
                         Eigen::VectorXd& out) const override;

  /// Adds scale * (projected) elastic Hessian at x: used by stiffness-proportional damping.
  void add_scaled_hessian(const Eigen::VectorXd& x, double scale, HessianAssembler& H) const;
  const Body& body() const { return body_; }

 private:
  /// Evaluates element Hessians into the buffers; throws on AD failure.
  void compute_hessians(const Eigen::VectorXd& x, bool project) const;
  void check(const BatchReport& r, const char* what) const;

  Body& body_;
  int dim_;
  int n_local_;
  int stencil_set_ = -1;
  VectorScatter scatter_;
  // Preallocated per-element buffers (mutable: evaluation scratch, not state).
  mutable std::vector<double> energy_;
  mutable std::vector<double> grad_;
  mutable std::vector<double> hess_;
  mutable std::vector<double> param_scratch_;  ///< n_elems x n_params
};

}  // namespace softgrad
