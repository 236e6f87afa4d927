/// @file dual.hpp
/// Dual numbers with L tangent lanes: d[0] + sum_k d[1 + k] eps_k, eps_k eps_l = 0.
/// They are the "forward" half of softgrad's forward-over-reverse AD: the reverse tape
/// (tape.hpp) is recorded over Dual<L> instead of double, so one reverse sweep returns the
/// gradient in the values and L Hessian-vector products in the tangents. On their own they
/// are first-order forward mode (derivatives.hpp's forward_gradient): with every operation a
/// material may use, so that a density evaluates on them as on the tape's numbers.
#pragma once

#include <cmath>

#include "softgrad/errors.hpp"

/// Forces inlining of the tiny AD operations: GCC's heuristics otherwise leave Dual<9> and
/// Var<Dual<9>> arithmetic as out-of-line calls returning 96-byte structs through memory.
#if defined(__CUDACC__)
#define SOFTGRAD_AD_INLINE __forceinline__
#elif defined(__GNUC__)
#define SOFTGRAD_AD_INLINE __attribute__((always_inline)) inline
#else
#define SOFTGRAD_AD_INLINE inline
#endif

namespace softgrad::ad {

/// d[0] is the value, d[1 + k] tangent lane k. One array, and every operation writes all of it
/// with the same per-lane formula pattern, so that the compiler stores and reloads a Dual with
/// the same vector widths (a value stored apart from its tangents defeats store forwarding).
template <int L>
struct Dual {
  static_assert(L >= 1, "Dual<L> needs at least one tangent lane; use double for none.");
  double d[L + 1];

  Dual() = default;
  /// A constant: zero tangents.
  SOFTGRAD_HD SOFTGRAD_AD_INLINE Dual(double value) {  // NOLINT: implicit on purpose
    for (int k = 0; k <= L; ++k) d[k] = k == 0 ? value : 0.0;
  }
  SOFTGRAD_HD SOFTGRAD_AD_INLINE double value() const { return d[0]; }
};

/// The plain value of a double or a dual.
SOFTGRAD_HD SOFTGRAD_AD_INLINE double primal(double x) { return x; }
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE double primal(const Dual<L>& x) {
  return x.d[0];
}

template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Dual<L> operator+(const Dual<L>& a, const Dual<L>& b) {
  Dual<L> c;
  for (int k = 0; k <= L; ++k) c.d[k] = a.d[k] + b.d[k];
  return c;
}
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Dual<L> operator-(const Dual<L>& a, const Dual<L>& b) {
  Dual<L> c;
  for (int k = 0; k <= L; ++k) c.d[k] = a.d[k] - b.d[k];
  return c;
}
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Dual<L> operator-(const Dual<L>& a) {
  Dual<L> c;
  for (int k = 0; k <= L; ++k) c.d[k] = -a.d[k];
  return c;
}
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Dual<L> operator*(const Dual<L>& a, const Dual<L>& b) {
  const double a0 = a.d[0], b0 = b.d[0];
  Dual<L> c;
  for (int k = 0; k <= L; ++k) c.d[k] = a0 * b.d[k] + (k == 0 ? 0.0 : a.d[k]) * b0;
  return c;
}
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Dual<L> operator*(double s, const Dual<L>& a) {
  Dual<L> c;
  for (int k = 0; k <= L; ++k) c.d[k] = s * a.d[k];
  return c;
}
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Dual<L> operator*(const Dual<L>& a, double s) {
  return s * a;
}
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Dual<L> operator/(const Dual<L>& a, const Dual<L>& b) {
  const double inv = 1.0 / b.d[0];
  const double q = a.d[0] * inv;
  Dual<L> c;
  for (int k = 0; k <= L; ++k)
    c.d[k] = (k == 0 ? 0.0 : a.d[k] - q * b.d[k]) * inv + (k == 0 ? q : 0.0);
  return c;
}

template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Dual<L> operator+(const Dual<L>& a, double s) {
  Dual<L> c = a;
  c.d[0] += s;
  return c;
}
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Dual<L> operator+(double s, const Dual<L>& a) {
  return a + s;
}
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Dual<L> operator-(const Dual<L>& a, double s) {
  return a + (-s);
}
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Dual<L> operator-(double s, const Dual<L>& a) {
  return -a + s;
}
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Dual<L> operator/(const Dual<L>& a, double s) {
  return (1.0 / s) * a;
}
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Dual<L> operator/(double s, const Dual<L>& b) {
  return Dual<L>(s) / b;
}
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Dual<L>& operator+=(Dual<L>& a, const Dual<L>& b) {
  return a = a + b;
}
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Dual<L>& operator-=(Dual<L>& a, const Dual<L>& b) {
  return a = a - b;
}
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Dual<L>& operator*=(Dual<L>& a, const Dual<L>& b) {
  return a = a * b;
}
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Dual<L>& operator/=(Dual<L>& a, const Dual<L>& b) {
  return a = a / b;
}

/// The plain value, as for the tape's Var (tape.hpp): materials may branch on it.
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE double value_of(const Dual<L>& x) {
  return x.d[0];
}
// Comparisons look at values, as the tape's do.
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE bool operator<(const Dual<L>& a, const Dual<L>& b) {
  return a.d[0] < b.d[0];
}
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE bool operator>(const Dual<L>& a, const Dual<L>& b) {
  return a.d[0] > b.d[0];
}
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE bool operator<=(const Dual<L>& a, const Dual<L>& b) {
  return a.d[0] <= b.d[0];
}
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE bool operator>=(const Dual<L>& a, const Dual<L>& b) {
  return a.d[0] >= b.d[0];
}
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE bool operator<(const Dual<L>& a, double c) {
  return a.d[0] < c;
}
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE bool operator>(const Dual<L>& a, double c) {
  return a.d[0] > c;
}
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE bool operator<=(const Dual<L>& a, double c) {
  return a.d[0] <= c;
}
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE bool operator>=(const Dual<L>& a, double c) {
  return a.d[0] >= c;
}

/// a += s * b, the reverse sweep's accumulation, lane by lane with the product rule.
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE void accumulate(Dual<L>& a, const Dual<L>& s, const Dual<L>& b) {
  const double s0 = s.d[0], b0 = b.d[0];
  for (int k = 0; k <= L; ++k) a.d[k] += s0 * b.d[k] + (k == 0 ? 0.0 : s.d[k]) * b0;
}
SOFTGRAD_HD SOFTGRAD_AD_INLINE void accumulate(double& a, double s, double b) { a += s * b; }

/// f(a) for a scalar function with value f and derivative df at the value of a.
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Dual<L> chain(const Dual<L>& a, double f, double df) {
  Dual<L> c;
  for (int k = 0; k <= L; ++k) c.d[k] = df * (k == 0 ? 0.0 : a.d[k]) + (k == 0 ? f : 0.0);
  return c;
}

template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Dual<L> log(const Dual<L>& a) {
  return chain(a, std::log(a.d[0]), 1.0 / a.d[0]);
}
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Dual<L> exp(const Dual<L>& a) {
  const double e = std::exp(a.d[0]);
  return chain(a, e, e);
}
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Dual<L> sqrt(const Dual<L>& a) {
  const double s = std::sqrt(a.d[0]);
  return chain(a, s, 0.5 / s);
}
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Dual<L> sin(const Dual<L>& a) {
  return chain(a, std::sin(a.d[0]), std::cos(a.d[0]));
}
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Dual<L> cos(const Dual<L>& a) {
  return chain(a, std::cos(a.d[0]), -std::sin(a.d[0]));
}
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Dual<L> pow(const Dual<L>& a, double e) {
  const double p = std::pow(a.d[0], e - 1.0);
  return chain(a, p * a.d[0], e * p);
}
/// The angle of the point (x, y): d atan2 = (x dy - y dx) / (x^2 + y^2).
template <int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE Dual<L> atan2(const Dual<L>& y, const Dual<L>& x) {
  const double y0 = y.d[0], x0 = x.d[0];
  const double inv = 1.0 / (x0 * x0 + y0 * y0);
  Dual<L> c;
  for (int k = 0; k <= L; ++k)
    c.d[k] = k == 0 ? std::atan2(y0, x0) : (x0 * y.d[k] - y0 * x.d[k]) * inv;
  return c;
}

}  // namespace softgrad::ad
