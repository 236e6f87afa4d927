/// @file mooney_rivlin.hpp
/// Compressible Mooney-Rivlin solid with isochoric invariants:
///
///     psi(F) = C10 (J^{-2/3} I_1 - 3) + C01 (J^{-4/3} I_2 - 3) + kappa/2 (J - 1)^2,
///     I_1 = tr C,  I_2 = ((tr C)^2 - tr(C^2)) / 2,  C = F^T F,  J = det F,
///
/// with the 3x3 C of plane strain in 2D (C_33 = 1). Small-strain limit: shear modulus
/// mu = 2 (C10 + C01), bulk modulus kappa. Parameters: C10, C01 [Pa] and kappa [Pa]; scenes may
/// instead give youngs/poisson, which map to C10 = C01 = mu/4 and kappa = E / (3 (1 - 2 nu)).
/// Undefined for J <= 0 (fractional powers): inverted elements are reported.
#pragma once

#include <cmath>

#include "softgrad/material.hpp"

namespace softgrad {

struct MooneyRivlin {
  static constexpr const char* kName = "mooney_rivlin";
  static constexpr ParamInfo kParams[] = {
      {"c10", "Pa", 0.0, kInfinity, true, false, 1e4, "first Mooney-Rivlin constant"},
      {"c01", "Pa", 0.0, kInfinity, true, false, 1e4, "second Mooney-Rivlin constant"},
      {"kappa", "Pa", 0.0, kInfinity, false, false, 1e6, "bulk modulus"}};
  static constexpr bool kAllowsInversion = false;

  /// C10, C01, kappa with the small-strain behaviour of (E, nu), split evenly between C10, C01.
  static void from_youngs_poisson(double youngs, double poisson, double* p) {
    const double mu = youngs / (2.0 * (1.0 + poisson));
    p[0] = 0.25 * mu;
    p[1] = 0.25 * mu;
    p[2] = youngs / (3.0 * (1.0 - 2.0 * poisson));
  }

  template <class T, class P, int d>
  SOFTGRAD_HD static T psi(const Mat<T, d, d>& F, const P* p) {
    using std::pow;
    const Mat<T, d, d> C = transpose(F) * F;
    const double plane = double(3 - d);  // C_33 = 1 in plane strain
    const T I1 = trace(C) + plane;
    const T I2 = 0.5 * (I1 * I1 - (squared_norm(C) + plane));
    const T J = det(F);
    const T J_minus_one = J - 1.0;
    return p[0] * (pow(J, -2.0 / 3.0) * I1 - 3.0) + p[1] * (pow(J, -4.0 / 3.0) * I2 - 3.0) +
           0.5 * p[2] * J_minus_one * J_minus_one;
  }

  /// The same density in the invariants of ad/invariants.hpp (I_1 = I_C, I_2 = (I_C^2 - II_C)/2,
  /// J; plane strain in 2D), which is what the library differentiates.
  template <class T, class P>
  SOFTGRAD_HD static T psi_invariants(const T& I_C, const T& II_C, const T& J, const P* p) {
    using std::pow;
    const T I2 = 0.5 * (I_C * I_C - II_C);
    const T J_minus_one = J - 1.0;
    return p[0] * (pow(J, -2.0 / 3.0) * I_C - 3.0) + p[1] * (pow(J, -4.0 / 3.0) * I2 - 3.0) +
           0.5 * p[2] * J_minus_one * J_minus_one;
  }
};

}  // namespace softgrad
