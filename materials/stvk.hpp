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

struct StVenantKirchhoff {
  static constexpr const char* kName = "stvk";
  static constexpr ParamInfo kParams[] = {kYoungsParam, kPoissonParam};
  static constexpr bool kAllowsInversion = true;

  template <class T, class P, int d>
  SOFTGRAD_HD static T psi(const Mat<T, d, d>& F, const P* p) {
    const P mu = lame_mu(p[0], p[1]);
    const P lambda = lame_lambda(p[0], p[1]);
    Mat<T, d, d> E = 0.5 * (transpose(F) * F - identity<T, d>());
    const T tr_E = trace(E);
    return mu * squared_norm(E) + 0.5 * lambda * tr_E * tr_E;
  }
};

}  // namespace softgrad
