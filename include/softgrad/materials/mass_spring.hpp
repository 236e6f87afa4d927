/// @file mass_spring.hpp
/// A mass-spring network along the edges of every element, for comparison with the continuum
/// models. It is not a density of F: it is written directly as an element energy E(x_e; p) and
/// differentiated by the same AD (ad/derivatives.hpp), which shows the generic path:
///
///     E_e = youngs * V_e / (2 n_edges) * sum_{edges ab} (l_ab / L_ab - 1)^2,
///
/// l_ab = |x_a - x_b|, L_ab its rest length, V_e the rest volume, n_edges = 3 (2D) or 6 (3D).
/// A uniform dilation by s stores youngs V (s - 1)^2 / 2. Springs cannot represent a given
/// Poisson's ratio; the only parameter is the stiffness `youngs` [Pa]. Defined for inverted
/// elements (springs do not see orientation).
#pragma once

#include <cmath>

#include "softgrad/material.hpp"

namespace softgrad {

/// The spring energy of one element with d + 1 vertices, generic in the scalar types.
template <int d>
struct SpringElementEnergy {
  static constexpr int kEdges = d * (d + 1) / 2;
  double rest_length[kEdges];
  double volume;

  template <class T, class P>
  SOFTGRAD_HD T operator()(const T* x, const P* p) const {
    using std::sqrt;
    T sum = T(0.0);
    int k = 0;
    for (int a = 0; a <= d; ++a)
      for (int b = a + 1; b <= d; ++b, ++k) {
        T l2 = T(0.0);
        for (int i = 0; i < d; ++i) {
          const T diff = x[a * d + i] - x[b * d + i];
          l2 = l2 + diff * diff;
        }
        const T strain = sqrt(l2) / rest_length[k] - 1.0;
        sum = sum + strain * strain;
      }
    return (0.5 * volume / kEdges) * p[0] * sum;
  }
};

struct MassSpring {
  static constexpr const char* kName = "mass_spring";
  static constexpr ParamInfo kParams[] = {
      {"youngs", "Pa", 0.0, kInfinity, false, false, 1e5, "spring stiffness per unit volume"}};
  static constexpr bool kAllowsInversion = true;
  /// Springs take Young's modulus as their stiffness and cannot represent a Poisson's ratio.
  static void from_youngs_poisson(double youngs, double, double* p) { p[0] = youngs; }
  static constexpr bool kUsesPoisson = false;
};

}  // namespace softgrad
