/// @file yeoh.hpp
/// A material that is not in the library: a compressible Yeoh solid. softgrad differentiates the
/// ten lines of psi. Used by examples/custom_material.cpp (in a program) and by the plugin in
/// this folder (in the softgrad command line).
///
///   psi(F) = C1 (I1b - 3) + C2 (I1b - 3)^2 + C3 (I1b - 3)^3 + kappa/2 (J - 1)^2,
///   I1b = J^{-2/3} tr(F^T F)  (3D; plane strain in 2D with F_33 = 1).
#pragma once

#include <cmath>

#include "softgrad/hyperelastic_model.hpp"

struct Yeoh {
  static constexpr const char* kName = "yeoh";
  static constexpr softgrad::ParamInfo kParams[] = {
      {"c1", "Pa", 0.0, softgrad::kInfinity, false, false, 1e5, "linear term"},
      {"c2", "Pa", 0.0, softgrad::kInfinity, true, false, 1e4, "quadratic term"},
      {"c3", "Pa", 0.0, softgrad::kInfinity, true, false, 1e3, "cubic term"},
      {"kappa", "Pa", 0.0, softgrad::kInfinity, false, false, 1e7, "bulk modulus"}};
  static constexpr bool kAllowsInversion = false;  // J^{-2/3} needs J > 0

  template <class T, class P, int d>
  SOFTGRAD_HD static T psi(const softgrad::Mat<T, d, d>& F, const P* p) {
    using std::pow;
    const T J = det(F);
    const T i1 = pow(J, -2.0 / 3.0) * (squared_norm(F) + double(3 - d)) - 3.0;
    const T dJ = J - 1.0;
    return p[0] * i1 + p[1] * i1 * i1 + p[2] * i1 * i1 * i1 + 0.5 * p[3] * dJ * dJ;
  }
};
