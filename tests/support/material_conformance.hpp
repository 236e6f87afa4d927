/// @file material_conformance.hpp
/// Shared helpers for the material conformance suite (STYLE.md §8): parameter samples and
/// density-level evaluation through the run-time MaterialModel interface.
#pragma once

#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <vector>

#include "softgrad/material_model.hpp"
#include "support/random.hpp"

namespace softgrad::test {

using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// A random admissible parameter vector (E in [1e3, 1e6] Pa, nu in [0.05, 0.45]).
inline std::vector<double> sample_params(const MaterialModel& m) {
  return params_from_youngs_poisson(m, std::pow(10.0, uniform(3.0, 6.0)), uniform(0.05, 0.45));
}

/// Flattens a d x d matrix row-major (the layout of F and P in the kernels).
inline Eigen::VectorXd flat(const Eigen::MatrixXd& F) {
  RowMajor r = F;
  return Eigen::Map<const Eigen::VectorXd>(r.data(), r.size());
}
inline Eigen::MatrixXd unflat(const Eigen::VectorXd& f, int d) {
  return Eigen::Map<const RowMajor>(f.data(), d, d);
}

inline double psi(const MaterialModel& m, int d, const Eigen::VectorXd& F,
                  const std::vector<double>& p) {
  double value = 0.0;
  REQUIRE(m.density(d, F.data(), p.data(), value));
  return value;
}
inline Eigen::VectorXd stress(const MaterialModel& m, int d, const Eigen::VectorXd& F,
                              const std::vector<double>& p) {
  Eigen::VectorXd P(d * d);
  REQUIRE(m.stress(d, F.data(), p.data(), P.data()));
  return P;
}
inline RowMajor stress_differential(const MaterialModel& m, int d, const Eigen::VectorXd& F,
                                    const std::vector<double>& p) {
  RowMajor A(d * d, d * d);
  REQUIRE(m.stress_differential(d, F.data(), p.data(), A.data()));
  return A;
}

/// The models defined by a density psi(F) (all but the spring network).
inline std::vector<std::shared_ptr<const MaterialModel>> density_models() {
  std::vector<std::shared_ptr<const MaterialModel>> out;
  for (const auto& m : all_materials())
    if (m->has_density()) out.push_back(m);
  return out;
}

}  // namespace softgrad::test
