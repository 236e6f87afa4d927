/// @file dual.hpp
/// Dual numbers with L tangent lanes: v + sum_k t[k] eps_k, eps_k eps_l = 0.
/// They are the "forward" half of softgrad's forward-over-reverse AD: the reverse tape
/// (tape.hpp) is recorded over Dual<L> instead of double, so one reverse sweep returns the
/// gradient in the values and L Hessian-vector products in the tangents.
#pragma once

#include <cmath>

#include "softgrad/errors.hpp"

namespace softgrad::ad {

template <int L>
struct Dual {
  static_assert(L >= 1, "Dual<L> needs at least one tangent lane; use double for none.");
  double v;
  double t[L];

  Dual() = default;
  /// A constant: zero tangents.
  SOFTGRAD_HD Dual(double value) : v(value) {  // NOLINT: implicit on purpose
    for (int k = 0; k < L; ++k) t[k] = 0.0;
  }
};

/// The plain value of a double or a dual.
SOFTGRAD_HD inline double primal(double x) { return x; }
template <int L>
SOFTGRAD_HD double primal(const Dual<L>& x) {
  return x.v;
}

template <int L>
SOFTGRAD_HD Dual<L> operator+(const Dual<L>& a, const Dual<L>& b) {
  Dual<L> c;
  c.v = a.v + b.v;
  for (int k = 0; k < L; ++k) c.t[k] = a.t[k] + b.t[k];
  return c;
}
template <int L>
SOFTGRAD_HD Dual<L> operator-(const Dual<L>& a, const Dual<L>& b) {
  Dual<L> c;
  c.v = a.v - b.v;
  for (int k = 0; k < L; ++k) c.t[k] = a.t[k] - b.t[k];
  return c;
}
template <int L>
SOFTGRAD_HD Dual<L> operator-(const Dual<L>& a) {
  Dual<L> c;
  c.v = -a.v;
  for (int k = 0; k < L; ++k) c.t[k] = -a.t[k];
  return c;
}
template <int L>
SOFTGRAD_HD Dual<L> operator*(const Dual<L>& a, const Dual<L>& b) {
  Dual<L> c;
  c.v = a.v * b.v;
  for (int k = 0; k < L; ++k) c.t[k] = a.v * b.t[k] + a.t[k] * b.v;
  return c;
}
template <int L>
SOFTGRAD_HD Dual<L> operator*(double s, const Dual<L>& a) {
  Dual<L> c;
  c.v = s * a.v;
  for (int k = 0; k < L; ++k) c.t[k] = s * a.t[k];
  return c;
}
template <int L>
SOFTGRAD_HD Dual<L> operator*(const Dual<L>& a, double s) {
  return s * a;
}
template <int L>
SOFTGRAD_HD Dual<L> operator/(const Dual<L>& a, const Dual<L>& b) {
  const double inv = 1.0 / b.v;
  const double q = a.v * inv;
  Dual<L> c;
  c.v = q;
  for (int k = 0; k < L; ++k) c.t[k] = (a.t[k] - q * b.t[k]) * inv;
  return c;
}

/// a += s * b, the reverse sweep's accumulation: (a.v + s.v b.v) + eps (s.v b.t + s.t b.v).
template <int L>
SOFTGRAD_HD void accumulate(Dual<L>& a, const Dual<L>& s, const Dual<L>& b) {
  a.v += s.v * b.v;
  for (int k = 0; k < L; ++k) a.t[k] += s.v * b.t[k] + s.t[k] * b.v;
}
SOFTGRAD_HD inline void accumulate(double& a, double s, double b) { a += s * b; }

/// f(a) for a scalar function with value f and derivative df at a.v.
template <int L>
SOFTGRAD_HD Dual<L> chain(const Dual<L>& a, double f, double df) {
  Dual<L> c;
  c.v = f;
  for (int k = 0; k < L; ++k) c.t[k] = df * a.t[k];
  return c;
}

template <int L>
SOFTGRAD_HD Dual<L> log(const Dual<L>& a) {
  return chain(a, std::log(a.v), 1.0 / a.v);
}
template <int L>
SOFTGRAD_HD Dual<L> exp(const Dual<L>& a) {
  const double e = std::exp(a.v);
  return chain(a, e, e);
}
template <int L>
SOFTGRAD_HD Dual<L> sqrt(const Dual<L>& a) {
  const double s = std::sqrt(a.v);
  return chain(a, s, 0.5 / s);
}
template <int L>
SOFTGRAD_HD Dual<L> sin(const Dual<L>& a) {
  return chain(a, std::sin(a.v), std::cos(a.v));
}
template <int L>
SOFTGRAD_HD Dual<L> cos(const Dual<L>& a) {
  return chain(a, std::cos(a.v), -std::sin(a.v));
}
template <int L>
SOFTGRAD_HD Dual<L> pow(const Dual<L>& a, double e) {
  const double p = std::pow(a.v, e - 1.0);
  return chain(a, p * a.v, e * p);
}

}  // namespace softgrad::ad
