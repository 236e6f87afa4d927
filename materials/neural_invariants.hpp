/// @file neural_invariants.hpp
/// Internal to the neural material (neural.cpp): the network's inputs as functions of the
/// invariants, and the moduli from youngs, poisson and split, each with the derivatives the
/// element loops need. Inline, so that the element loops still inline them.
#pragma once

#include <cmath>

namespace softgrad::detail {

/// z (the network's inputs) as functions of the invariants I = (I_C, II_C, J), with their first
/// (Jz[k][m] = dz_k/dI_m) and second derivatives (Hz[k][m][n]).
struct Features {
  double z[3];
  double Jz[3][3];
  double Hz[3][3][3];
};

inline Features features(const double* I, bool second) {
  const double I1 = I[0], J = I[2];
  const double I2 = 0.5 * (I1 * I1 - I[1]);
  const double j23 = std::pow(J, -2.0 / 3.0), j43 = j23 * j23;
  Features f{};
  f.z[0] = I1 * j23 - 3.0;
  f.z[1] = I2 * j43 - 3.0;
  f.z[2] = J - 1.0 - std::log(J);
  f.Jz[0][0] = j23;
  f.Jz[0][2] = -2.0 / 3.0 * I1 * j23 / J;
  f.Jz[1][0] = I1 * j43;
  f.Jz[1][1] = -0.5 * j43;
  f.Jz[1][2] = -4.0 / 3.0 * I2 * j43 / J;
  f.Jz[2][2] = 1.0 - 1.0 / J;
  if (second) {
    const auto sym = [&](int k, int m, int n, double v) { f.Hz[k][m][n] = f.Hz[k][n][m] = v; };
    sym(0, 0, 2, -2.0 / 3.0 * j23 / J);
    sym(0, 2, 2, 10.0 / 9.0 * I1 * j23 / (J * J));
    sym(1, 0, 0, j43);
    sym(1, 0, 2, -4.0 / 3.0 * I1 * j43 / J);
    sym(1, 1, 2, 2.0 / 3.0 * j43 / J);
    sym(1, 2, 2, 28.0 / 9.0 * I2 * j43 / (J * J));
    sym(2, 2, 2, 1.0 / (J * J));
  }
  return f;
}

/// The moduli from youngs, poisson, split, with their derivatives.
struct Moduli {
  double mu, kappa, s;
  double dmu[2], dkappa[2], ds;  // d/d(youngs, poisson), d/d(split)
  double a[2];                   // s/2, (1 - s)/2
};

inline Moduli moduli(const double* p) {
  const double E = p[0], nu = p[1];
  Moduli m{};
  m.mu = E / (2.0 * (1.0 + nu));
  m.kappa = E / (3.0 * (1.0 - 2.0 * nu));
  m.dmu[0] = 1.0 / (2.0 * (1.0 + nu));
  m.dmu[1] = -E / (2.0 * (1.0 + nu) * (1.0 + nu));
  m.dkappa[0] = 1.0 / (3.0 * (1.0 - 2.0 * nu));
  m.dkappa[1] = 2.0 * E / (3.0 * (1.0 - 2.0 * nu) * (1.0 - 2.0 * nu));
  m.s = p[2] >= 0.0 ? 1.0 / (1.0 + std::exp(-p[2])) : std::exp(p[2]) / (1.0 + std::exp(p[2]));
  m.ds = m.s * (1.0 - m.s);
  m.a[0] = 0.5 * m.s;
  m.a[1] = 0.5 * (1.0 - m.s);
  return m;
}

}  // namespace softgrad::detail
