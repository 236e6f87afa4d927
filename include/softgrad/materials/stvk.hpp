/// @file stvk.hpp
/// St. Venant-Kirchhoff solid:
///
///     psi(F) = mu ||E||^2 + lambda/2 (tr E)^2,   E = (F^T F - I) / 2  (Green strain),
///
/// in 2D in plane strain (E_33 = 0). Defined for every F (including inverted elements), but it
/// softens under strong compression and does not resist inversion.
#pragma once

#include "softgrad/material.hpp"

namespace softgrad {

struct StVenantKirchhoff : YoungsPoissonParameters {
  static constexpr const char* kName = "stvk";
  static constexpr bool kAllowsInversion = true;

  template <class T, class P, int d>
  SOFTGRAD_HD static T psi(const Mat<T, d, d>& F, const P* p) {
    const P mu = lame_mu(p[0], p[1]);
    const P lambda = lame_lambda(p[0], p[1]);
    Mat<T, d, d> E = 0.5 * (transpose(F) * F - identity<T, d>());
    const T tr_E = trace(E);
    return mu * squared_norm(E) + 0.5 * lambda * tr_E * tr_E;
  }

  /// The same density in the invariants of ad/invariants.hpp (plane strain in 2D), which is what
  /// the library differentiates: ||E||^2 = (II_C - 2 I_C + 3) / 4, tr E = (I_C - 3) / 2.
  template <class T, class P>
  SOFTGRAD_HD static T psi_invariants(const T& I_C, const T& II_C, const T& /*J*/, const P* p) {
    const P mu = lame_mu(p[0], p[1]);
    const P lambda = lame_lambda(p[0], p[1]);
    const T tr_E = 0.5 * (I_C - 3.0);
    return 0.25 * mu * (II_C - 2.0 * I_C + 3.0) + 0.5 * lambda * tr_E * tr_E;
  }
};

}  // namespace softgrad
