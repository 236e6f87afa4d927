/// @file parametrisation.hpp
/// Internal: the space system identification fits in, phi = log theta for positive parameters
/// (positivity, and a better-scaled problem) and phi = theta otherwise, with bounds on theta.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "softgrad/sysid.hpp"

namespace softgrad::detail {

/// theta = map(phi): log space for positive parameters, identity otherwise.
struct Parametrisation {
  std::vector<char> log;
  Eigen::VectorXd lower, upper;  ///< bounds on theta

  Eigen::VectorXd theta(const Eigen::VectorXd& phi) const {
    Eigen::VectorXd t = phi;
    for (int i = 0; i < phi.size(); ++i)
      if (log[i]) t[i] = std::exp(phi[i]);
    return t;
  }
  Eigen::VectorXd phi(const Eigen::VectorXd& theta) const {
    Eigen::VectorXd p = theta;
    for (int i = 0; i < theta.size(); ++i)
      if (log[i]) p[i] = std::log(theta[i]);
    return p;
  }
  /// d theta_i / d phi_i.
  Eigen::VectorXd scale(const Eigen::VectorXd& phi) const {
    Eigen::VectorXd s = Eigen::VectorXd::Ones(phi.size());
    for (int i = 0; i < phi.size(); ++i)
      if (log[i]) s[i] = std::exp(phi[i]);
    return s;
  }
};

/// The parametrisation of `params` at theta0 with the options' bounds (and the groups' own).
/// @throws InputError if theta0 lies outside them.
inline Parametrisation parametrise(const ParameterSet& params, const Eigen::VectorXd& theta0,
                                   const SysIdOptions& options) {
  const int P = params.size();
  Parametrisation m;
  m.log.assign(P, 0);
  m.lower = Eigen::VectorXd::Constant(P, -std::numeric_limits<double>::infinity());
  m.upper = Eigen::VectorXd::Constant(P, std::numeric_limits<double>::infinity());
  for (int i = 0; i < P; ++i) {
    const auto& b = params.block_of(i);
    if (b.source == ParameterSet::Source::Term) {
      // Open ranges: keep a relative margin inside so that the terms accept the values.
      const double lo = b.group.lower, hi = b.group.upper;
      if (lo > -1e300) m.lower[i] = lo + 1e-9 * std::max(1.0, std::abs(lo));
      if (hi < 1e300) m.upper[i] = hi - 1e-9 * std::max(1.0, std::abs(hi));
      m.log[i] = options.log_positive && lo >= 0.0 && theta0[i] > 0.0;
    }
    if (options.lower.size() == P) m.lower[i] = std::max(m.lower[i], options.lower[i]);
    if (options.upper.size() == P) m.upper[i] = std::min(m.upper[i], options.upper[i]);
    if (!(theta0[i] >= m.lower[i] && theta0[i] <= m.upper[i]))
      throw InputError("sysid: the initial value of '" + params.label(i) + "' (" +
                       std::to_string(theta0[i]) + ") is outside its bounds");
  }
  return m;
}

}  // namespace softgrad::detail
