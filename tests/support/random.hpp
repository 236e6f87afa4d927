/// @file random.hpp
/// Fixed-seed random inputs for tests (std::mt19937_64, never Eigen's Random).
#pragma once

#include <Eigen/Dense>
#include <random>

namespace softgrad::test {

inline std::mt19937_64& rng() {
  static std::mt19937_64 g(20261130);
  return g;
}

inline double uniform(double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng());
}

inline Eigen::MatrixXd random_matrix(int rows, int cols, double lo = -1, double hi = 1) {
  Eigen::MatrixXd m(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) m(i, j) = uniform(lo, hi);
  return m;
}

/// A uniformly random rotation (det +1) of dimension d.
inline Eigen::MatrixXd random_rotation(int d) {
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(random_matrix(d, d));
  Eigen::MatrixXd Q = qr.householderQ();
  if (Q.determinant() < 0) Q.col(0) *= -1.0;
  return Q;
}

/// F = U diag(sigma) V^T with singular values in [lo, hi] (det > 0): lo = 0.9, hi = 1.1 is
/// well-shaped; lo = 0.3, hi = 3 is strongly deformed.
inline Eigen::MatrixXd random_deformation(int d, double lo, double hi) {
  Eigen::VectorXd sigma(d);
  for (int i = 0; i < d; ++i) sigma[i] = uniform(lo, hi);
  return random_rotation(d) * sigma.asDiagonal() * random_rotation(d).transpose();
}

}  // namespace softgrad::test
