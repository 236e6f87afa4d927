/// @file corotated.hpp
/// Corotated linear elasticity: linear elasticity in the element's rotated frame,
///
///     psi(F) = mu ||S - I||^2 + lambda/2 (tr S - d)^2,   F = R S  (polar decomposition),
///
/// where ||S - I||^2 = ||F||^2 - 2 tr S + d and tr S is the (signed) sum of singular values, so
/// the rotation R is differentiated exactly (not lagged). In 2D in plane strain. Defined for
/// inverted elements (signed singular values).
#pragma once

#include "softgrad/detail/ad/singular_values.hpp"
#include "softgrad/material.hpp"

namespace softgrad {

struct CorotatedLinear : YoungsPoissonParameters {
  static constexpr const char* kName = "corotated";
  static constexpr bool kAllowsInversion = true;
  static constexpr bool kIsotropic = true;  // psi(R F Q) = psi(F) (material.hpp, item 7)

  template <class T, class P, int d>
  SOFTGRAD_HD static T psi(const Mat<T, d, d>& F, const P* p) {
    const P mu = lame_mu(p[0], p[1]);
    const P lambda = lame_lambda(p[0], p[1]);
    const T tr_S = sum_of_singular_values(F);
    const T tr_eps = tr_S - double(d);
    return mu * (squared_norm(F) - 2.0 * tr_S + double(d)) + 0.5 * lambda * tr_eps * tr_eps;
  }
};

}  // namespace softgrad
