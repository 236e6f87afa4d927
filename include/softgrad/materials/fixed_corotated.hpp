/// @file fixed_corotated.hpp
/// Fixed corotated elasticity (Stomakhin et al., "Energetically consistent invertible
/// elasticity", SCA 2012), and ARAP as its special case poisson = 0:
///
///     psi(F) = mu ||F - R||^2 + lambda/2 (J - 1)^2,   F = R S,  J = det F,
///
/// with ||F - R||^2 = ||F||^2 - 2 tr S + d (tr S the signed sum of singular values). With
/// poisson = 0 (lambda = 0) this is the as-rigid-as-possible energy mu ||F - R||^2.
/// In 2D in plane strain. Defined for inverted elements.
#pragma once

#include "softgrad/detail/ad/singular_values.hpp"
#include "softgrad/material.hpp"

namespace softgrad {

struct FixedCorotated : YoungsPoissonParameters {
  static constexpr const char* kName = "fixed_corotated";
  static constexpr bool kAllowsInversion = true;
  static constexpr bool kIsotropic = true;  // psi(R F Q) = psi(F) (material.hpp, item 7)

  template <class T, class P, int d>
  SOFTGRAD_HD static T psi(const Mat<T, d, d>& F, const P* p) {
    const P mu = lame_mu(p[0], p[1]);
    const P lambda = lame_lambda(p[0], p[1]);
    const T J_minus_one = det(F) - 1.0;
    return mu * (squared_norm(F) - 2.0 * sum_of_singular_values(F) + double(d)) +
           0.5 * lambda * J_minus_one * J_minus_one;
  }
};

}  // namespace softgrad
