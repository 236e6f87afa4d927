/// @file finite_difference.hpp
/// Central finite differences and the comparison rule of STYLE.md §8:
/// step 1e-6 * max(1, |x_i|); pass if ||a - b|| <= rtol * max(||a||, ||b||) + atol.
#pragma once

#include <doctest/doctest.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <functional>

namespace softgrad::test {

/// Central-difference gradient of a scalar function of a vector.
inline Eigen::VectorXd fd_gradient(const std::function<double(const Eigen::VectorXd&)>& f,
                                   const Eigen::VectorXd& x, double rel_step = 1e-6) {
  Eigen::VectorXd g(x.size());
  Eigen::VectorXd xp = x;
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const double h = rel_step * std::max(1.0, std::abs(x[i]));
    xp[i] = x[i] + h;
    const double fp = f(xp);
    xp[i] = x[i] - h;
    const double fm = f(xp);
    xp[i] = x[i];
    g[i] = (fp - fm) / (2.0 * h);
  }
  return g;
}

/// Central-difference Jacobian (rows: outputs) of a vector function of a vector.
inline Eigen::MatrixXd fd_jacobian(const std::function<Eigen::VectorXd(const Eigen::VectorXd&)>& f,
                                   const Eigen::VectorXd& x, double rel_step = 1e-6) {
  Eigen::MatrixXd J;
  Eigen::VectorXd xp = x;
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const double h = rel_step * std::max(1.0, std::abs(x[i]));
    xp[i] = x[i] + h;
    const Eigen::VectorXd fp = f(xp);
    xp[i] = x[i] - h;
    const Eigen::VectorXd fm = f(xp);
    xp[i] = x[i];
    if (J.size() == 0) J.resize(fp.size(), x.size());
    J.col(i) = (fp - fm) / (2.0 * h);
  }
  return J;
}

/// True if ||a - b|| <= rtol * max(||a||, ||b||) + atol. Prints both on failure.
template <class A, class B>
bool close(const A& a, const B& b, double rtol, double atol = 0.0) {
  const double diff = (a - b).norm();
  const double scale = std::max(a.norm(), b.norm());
  const bool ok = diff <= rtol * scale + atol;
  if (!ok) {
    MESSAGE("mismatch: |a-b| = " << diff << ", max(|a|,|b|) = " << scale
                                 << "\na = " << a.transpose() << "\nb = " << b.transpose());
  }
  return ok;
}

}  // namespace softgrad::test
