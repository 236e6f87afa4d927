/// @file neo_hookean.hpp
/// Compressible Neo-Hookean solid (Bonet & Wood, "Nonlinear Continuum Mechanics", eq. 6.27):
///
///     psi(F) = mu/2 (I_C - 3) - mu log J + lambda/2 (log J)^2,   I_C = tr(F^T F) (+1 in 2D),
///
/// J = det F, mu and lambda from Young's modulus and Poisson's ratio. In 2D the element is in
/// plane strain (F_33 = 1). Undefined for J <= 0: inverted elements are reported, not evaluated.
#pragma once

#include <cmath>

#include "softgrad/material.hpp"

namespace softgrad {

struct NeoHookean : YoungsPoissonParameters {
  static constexpr const char* kName = "neo_hookean";
  static constexpr bool kAllowsInversion = false;

  template <class T, class P, int d>
  SOFTGRAD_HD static T psi(const Mat<T, d, d>& F, const P* p) {
    using std::log;
    const P mu = lame_mu(p[0], p[1]);
    const P lambda = lame_lambda(p[0], p[1]);
    const T log_J = log(det(F));
    // ||F||^2 - d equals I_C - 3 in plane strain too.
    return 0.5 * mu * (squared_norm(F) - double(d)) - mu * log_J + 0.5 * lambda * log_J * log_J;
  }

  /// The same density in the invariants of ad/invariants.hpp (I_C = ||F||^2, J = det F, plane
  /// strain in 2D), which is what the library differentiates.
  template <class T, class P>
  SOFTGRAD_HD static T psi_invariants(const T& I_C, const T& /*II_C*/, const T& J, const P* p) {
    using std::log;
    const P mu = lame_mu(p[0], p[1]);
    const P lambda = lame_lambda(p[0], p[1]);
    const T log_J = log(J);
    return 0.5 * mu * (I_C - 3.0) - mu * log_J + 0.5 * lambda * log_J * log_J;
  }

  /// psi_invariants and its derivatives in (I_C, II_C, J) in closed form, so that the kernels
  /// skip AD (tests check them against the AD of psi_invariants): dpsi[3], d2psi[9] row-major
  /// (may be null).
  SOFTGRAD_HD static void psi_invariant_derivatives(const double* I, const double* p, double& psi,
                                                    double* dpsi, double* d2psi) {
    using std::log;
    const double mu = lame_mu(p[0], p[1]);
    const double lambda = lame_lambda(p[0], p[1]);
    const double J = I[2];
    const double log_J = log(J);
    psi = 0.5 * mu * (I[0] - 3.0) - mu * log_J + 0.5 * lambda * log_J * log_J;
    dpsi[0] = 0.5 * mu;
    dpsi[1] = 0.0;
    dpsi[2] = (lambda * log_J - mu) / J;
    if (d2psi == nullptr) return;
    for (int k = 0; k < 8; ++k) d2psi[k] = 0.0;
    d2psi[8] = (lambda + mu - lambda * log_J) / (J * J);
  }
};

}  // namespace softgrad
