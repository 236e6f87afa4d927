/// @file stable_neo_hookean.hpp
/// Stable Neo-Hookean (Smith, de Goes, Kim, "Stable Neo-Hookean Flesh Simulation", ACM TOG 2018):
///
///     psi(F) = mu'/2 (I_C - 3) + lambda'/2 (J - alpha)^2 - mu'/2 log(I_C + 1),
///     mu' = 4/3 mu,  lambda' = lambda + 5/6 mu,  alpha = 1 + mu / lambda',
///
/// with I_C = tr(F^T F) (+1 in 2D, plane strain) and J = det F. The reparametrisation makes
/// the rest state stress-free and the small-strain limit equal to linear elasticity with the
/// given E and nu; constants make psi(I) = 0. Finite for every F, including inverted (J <= 0)
/// elements.
#pragma once

#include <cmath>

#include "softgrad/material.hpp"

namespace softgrad {

struct StableNeoHookean : YoungsPoissonParameters {
  static constexpr const char* kName = "stable_neo_hookean";
  static constexpr bool kAllowsInversion = true;

  template <class T, class P, int d>
  SOFTGRAD_HD static T psi(const Mat<T, d, d>& F, const P* p) {
    using std::log;
    const P mu = lame_mu(p[0], p[1]);
    const P lambda = lame_lambda(p[0], p[1]);
    const P mu_s = (4.0 / 3.0) * mu;
    const P lambda_s = lambda + (5.0 / 6.0) * mu;
    const P alpha = 1.0 + mu / lambda_s;
    const T I_C = squared_norm(F) + double(3 - d);
    const T J_minus_alpha = det(F) - alpha;
    // The last two constants shift psi(I) to zero; they change no derivative.
    return 0.5 * mu_s * (I_C - 3.0) + 0.5 * lambda_s * J_minus_alpha * J_minus_alpha -
           0.5 * mu_s * log(I_C + 1.0) + 0.5 * mu_s * log(4.0) - 0.5 * mu * mu / lambda_s;
  }

  /// The same density in the invariants of ad/invariants.hpp (I_C, J; plane strain in 2D), which
  /// is what the library differentiates.
  template <class T, class P>
  SOFTGRAD_HD static T psi_invariants(const T& I_C, const T& /*II_C*/, const T& J, const P* p) {
    using std::log;
    const P mu = lame_mu(p[0], p[1]);
    const P lambda = lame_lambda(p[0], p[1]);
    const P mu_s = (4.0 / 3.0) * mu;
    const P lambda_s = lambda + (5.0 / 6.0) * mu;
    const P alpha = 1.0 + mu / lambda_s;
    const T J_minus_alpha = J - alpha;
    return 0.5 * mu_s * (I_C - 3.0) + 0.5 * lambda_s * J_minus_alpha * J_minus_alpha -
           0.5 * mu_s * log(I_C + 1.0) + 0.5 * mu_s * log(4.0) - 0.5 * mu * mu / lambda_s;
  }
};

}  // namespace softgrad
