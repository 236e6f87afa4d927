#include "element_fields.hpp"

#include <Eigen/Dense>
#include <limits>
#include <vector>

#include "../energies/elastic_term.hpp"
#include "softgrad/detail/parallel.hpp"
#include "softgrad/material_model.hpp"

namespace softgrad {
namespace {

// The elastic term of `body` and its index in model.terms, or -1.
int elastic_term_of(const Model& model, const Body& body) {
  for (size_t k = 0; k < model.terms.size(); ++k) {
    const auto* term = dynamic_cast<const ElasticTerm*>(model.terms[k].get());
    if (term && &term->body() == &body) return static_cast<int>(k);
  }
  return -1;
}

// J, psi and sigma of one element; psi and sigma NaN when the material refuses F.
template <int D>
void evaluate(const Body& body, const Eigen::VectorXd& x, const double* p, int e, double& J,
              double& psi, double* sigma) {
  using Mat = Eigen::Matrix<double, D, D, Eigen::RowMajor>;
  const int* v = body.elems.data() + static_cast<size_t>(e) * (D + 1);
  Mat Ds;
  for (int c = 0; c < D; ++c)
    for (int r = 0; r < D; ++r)
      Ds(r, c) = x[static_cast<Eigen::Index>(v[c + 1]) * D + r] -
                 x[static_cast<Eigen::Index>(v[0]) * D + r];
  const Mat F = Ds * Eigen::Map<const Mat>(body.Dm_inv.data() + static_cast<size_t>(e) * D * D);
  J = F.determinant();
  Mat P;
  const MaterialModel& m = *body.material;
  if (!m.density(D, F.data(), p, psi) || !m.stress(D, F.data(), p, P.data())) {
    psi = std::numeric_limits<double>::quiet_NaN();
    for (int i = 0; i < 9; ++i) sigma[i] = psi;
    return;
  }
  const Mat s = P * F.transpose() / J;
  for (int i = 0; i < 9; ++i) sigma[i] = 0.0;
  for (int r = 0; r < D; ++r)
    for (int c = 0; c < D; ++c) sigma[3 * r + c] = s(r, c);
}

}  // namespace

std::vector<CellField> element_fields(const Model& model, const Eigen::VectorXd& x,
                                      const TermParameters& parameters) {
  int n_elems = 0;
  for (const Body& b : model.bodies) {
    if (!b.material->has_density()) return {};
    n_elems += b.n_elems();
  }
  CellField J{"J", 1, Eigen::VectorXd(n_elems)};
  CellField psi{"strain_energy_density", 1, Eigen::VectorXd(n_elems)};
  CellField sigma{"cauchy_stress", 9, Eigen::VectorXd(static_cast<Eigen::Index>(n_elems) * 9)};
  int e0 = 0;
  for (const Body& b : model.bodies) {
    // The term's parameters are group-major (parameter j of element e at j * n + e).
    const int k = elastic_term_of(model, b);
    const int m = b.material->n_params();
    const int n = b.n_elems();
    const double* group_major = k >= 0 && parameters.size() == model.terms.size() &&
                                        parameters[k].size() == static_cast<Eigen::Index>(n) * m
                                    ? parameters[k].data()
                                    : nullptr;
    parallel_for(n, kParallelMinElements, [&](int e) {
      thread_local std::vector<double> p;
      p.resize(m);
      for (int j = 0; j < m; ++j)
        p[j] = group_major ? group_major[static_cast<size_t>(j) * n + e]
                           : b.params[static_cast<size_t>(e) * m + j];
      const int out = e0 + e;
      double* s = sigma.values.data() + static_cast<Eigen::Index>(out) * 9;
      if (model.dim == 2) {
        evaluate<2>(b, x, p.data(), e, J.values[out], psi.values[out], s);
      } else {
        evaluate<3>(b, x, p.data(), e, J.values[out], psi.values[out], s);
      }
    });
    e0 += n;
  }
  return {std::move(J), std::move(psi), std::move(sigma)};
}

}  // namespace softgrad
