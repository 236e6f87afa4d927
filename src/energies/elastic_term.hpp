/// @file elastic_term.hpp
/// The elastic energy of one body: the sum of its material's element energies, each element a
/// stencil whose kernels are the material's batched element kernels.
#pragma once

#include <vector>

#include "softgrad/model.hpp"
#include "softgrad/stencil_term.hpp"

namespace softgrad {

class ElasticTerm final : public StencilTerm {
 public:
  /// Keeps a reference to the body, which must outlive the term (both live in the Model).
  ElasticTerm(const Body& body, int n_verts, int dim);

  std::string name() const override { return "elastic:" + body_.name; }
  void begin_step(TermData& d) const override;

  /// One PerElement group per material parameter ("youngs", "poisson", ...), group-major:
  /// p[j * n_elems + e] is parameter j of element e.
  std::vector<ParameterGroup> parameter_groups() const override;
  Eigen::VectorXd default_parameters() const override;
  void validate_parameters(const double* p) const override;
  const Body& body() const { return body_; }

 private:
  /// The material kernels read the parameters element-major: a copy per step.
  struct ElasticData : Data {
    std::vector<double> element_params;  ///< n_elems x n_params
    /// The material's stress differentials at differentials_x (empty: none yet this step), for
    /// Hessian-vector products at one x: one density Hessian per element instead of one per
    /// element and product.
    std::vector<double> differentials;
    std::vector<double> differentials_x;
  };
  std::unique_ptr<Data> new_data() const override { return std::make_unique<ElasticData>(); }
  ElementBatch batch(const Data& d) const;
  /// Throws for elements the material could not evaluate (an inverted start, AD failure).
  /// Throws for failed or inverted elements; `first_elem`: the batch's first element in the body.
  void check(const BatchReport& r, const char* what, int first_elem = 0) const;

  double energies(Data& d, const double* x, double* E) const override;
  bool gradients(Data& d, const double* x, double* E, double* G) const override;
  void hessians(Data& d, const double* x, bool project, int first, int count,
                double* H) const override;
  void hessian_products(Data& d, const double* x, const double* u, double* HU) const override;
  void parameter_products(Data& d, const double* x, const double* lambda, double* P,
                          double* X) const override;
  void parameter_jvps(Data& d, const double* x, const double* dP, const double* dX,
                      double* out) const override;
  void scatter_parameter_products(const Data& d, const double* P,
                                  double* parameters_bar) const override;
  void gather_parameter_directions(const Data& d, const double* direction,
                                   double* dP) const override;

  /// Stores d's stress differentials at x (kept if already at x); false if the material has
  /// none.
  bool store_differentials(ElasticData& d, const double* x) const;

  const Body& body_;
  int n_dofs_;
  bool gives_differentials_;  ///< the material has stress_differentials()
};

}  // namespace softgrad
