/// @file single_element.hpp
/// One random, well-shaped simplex wrapped as an ElementBatch, for element-level tests.
#pragma once

#include <Eigen/Dense>
#include <vector>

#include "softgrad/material_model.hpp"
#include "support/random.hpp"

namespace softgrad::test {

struct SingleElement {
  int dim;
  Eigen::VectorXd X;  ///< rest positions, flat
  std::vector<int> elems;
  std::vector<double> Dm_inv;
  std::vector<double> volume;
  std::vector<double> params;

  /// A random positively oriented simplex with edges of length about 1.
  SingleElement(int d, std::vector<double> p) : dim(d), params(std::move(p)) {
    Eigen::MatrixXd Dm;
    do {
      Dm = Eigen::MatrixXd::Identity(d, d) + 0.3 * random_matrix(d, d);
    } while (Dm.determinant() < 0.5);
    X = Eigen::VectorXd::Zero((d + 1) * d);
    for (int a = 1; a <= d; ++a) X.segment(a * d, d) = Dm.col(a - 1);
    X += Eigen::VectorXd::Constant((d + 1) * d, 0.25);  // away from the origin
    for (int a = 0; a <= d; ++a) elems.push_back(a);
    const Eigen::MatrixXd inv = Dm.inverse();
    for (int i = 0; i < d; ++i)
      for (int j = 0; j < d; ++j) Dm_inv.push_back(inv(i, j));
    volume.push_back(Dm.determinant() / (d == 2 ? 2.0 : 6.0));
  }

  ElementBatch batch() const {
    ElementBatch b;
    b.dim = dim;
    b.n_elems = 1;
    b.elems = elems.data();
    b.Dm_inv = Dm_inv.data();
    b.volume = volume.data();
    b.params = params.data();
    return b;
  }

  /// Positions after the deformation F (flattened d x d, row-major) plus a translation.
  Eigen::VectorXd deformed(const Eigen::MatrixXd& F) const {
    Eigen::VectorXd x(X.size());
    for (int a = 0; a <= dim; ++a) x.segment(a * dim, dim) = F * X.segment(a * dim, dim);
    x += Eigen::VectorXd::Constant(x.size(), 0.1);
    return x;
  }
};

}  // namespace softgrad::test
