/// @file linear_elastic.hpp
/// Linear elasticity (small-strain Hooke's law):
///
///     psi(F) = mu ||eps||^2 + lambda/2 (tr eps)^2,   eps = (F + F^T)/2 - I,
///
/// in 2D in plane strain. Quadratic in F, so its Hessian is constant. Not invariant under
/// rotations (documented exception to frame indifference): use it for small deformations only.
#pragma once

#include "softgrad/material.hpp"

namespace softgrad {

struct LinearElastic : YoungsPoissonParameters {
  static constexpr const char* kName = "linear";
  static constexpr bool kAllowsInversion = true;
  /// Linear strain changes under rigid rotations; conformance tests skip frame indifference.
  static constexpr bool kFrameIndifferent = false;
  /// d^2 psi / dF^2 = 2 mu (sym) + lambda (tr)(tr) is PSD where mu >= 0 and lambda + 2 mu / d
  /// >= 0 (the bulk modulus), which every valid (youngs, poisson) gives: no projection.
  static constexpr bool kConvex = true;

  template <class T, class P, int d>
  SOFTGRAD_HD static T psi(const Mat<T, d, d>& F, const P* p) {
    const P mu = lame_mu(p[0], p[1]);
    const P lambda = lame_lambda(p[0], p[1]);
    const Mat<T, d, d> eps = 0.5 * (F + transpose(F)) - identity<T, d>();
    const T tr_eps = trace(eps);
    return mu * squared_norm(eps) + 0.5 * lambda * tr_eps * tr_eps;
  }
};

}  // namespace softgrad
