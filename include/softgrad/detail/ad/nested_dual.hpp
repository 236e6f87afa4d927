/// @file nested_dual.hpp
/// Second-order forward mode: a NestedDual<K, L> is a Dual<K> whose components are Dual<L>,
///
///     sum_{k=0..K} (a_k + sum_l a_kl t_l) e_k,   e_0 = 1,  e_k e_k' = t_l t_l' = 0 for k, l >= 1.
///
/// Lane 0 is the function with its L first derivatives along t; lane k its derivative along e_k
/// with the K x L second derivatives d/de_k d/dt_l. Every rule below is Dual<K>'s with Dual<L>
/// arithmetic in place of double. Two uses (derivatives.hpp), both without a tape:
///   - NestedDual<M, 1>, the mixed parameter products of the adjoint: e_j the parameters, t the
///     direction lambda; one evaluation gives dE/dp and d/dp (lambda . dE/dx).
///   - NestedDual<N, N>, the Hessian of a function of few inputs (the three invariants of an
///     isotropic density), e and t both the inputs.
/// For a few variables this costs less than a reverse sweep recorded over Dual<L>: no nodes are
/// stored and reread. The work grows with K * L, so the tape stays the choice for many.
#pragma once

#include <cmath>

#include "softgrad/detail/ad/dual.hpp"

namespace softgrad::ad {

template <int K, int L>
struct NestedDual {
  static_assert(K >= 1 && L >= 1, "NestedDual<K, L> needs lanes in both levels.");
  Dual<L> d[K + 1];

  NestedDual() = default;
  /// A constant: every derivative zero.
  SOFTGRAD_HD SOFTGRAD_AD_INLINE NestedDual(double value) {  // NOLINT: implicit on purpose
    for (int k = 0; k <= K; ++k) d[k] = Dual<L>(k == 0 ? value : 0.0);
  }
};

template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE double primal(const NestedDual<K, L>& x) {
  return x.d[0].d[0];
}
/// The plain value, as for the tape's Var (tape.hpp): materials may branch on it.
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE double value_of(const NestedDual<K, L>& x) {
  return x.d[0].d[0];
}

namespace detail {
/// f(a) for a scalar function with value f(a_0) and derivative df = f'(a_0), both as Dual<L>
/// (df's tangents carry f'' along t).
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE NestedDual<K, L> chain(const NestedDual<K, L>& a, const Dual<L>& f,
                                                      const Dual<L>& df) {
  NestedDual<K, L> c;
  c.d[0] = f;
  for (int k = 1; k <= K; ++k) c.d[k] = df * a.d[k];
  return c;
}
}  // namespace detail

template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE NestedDual<K, L> operator+(const NestedDual<K, L>& a,
                                                          const NestedDual<K, L>& b) {
  NestedDual<K, L> c;
  for (int k = 0; k <= K; ++k) c.d[k] = a.d[k] + b.d[k];
  return c;
}
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE NestedDual<K, L> operator-(const NestedDual<K, L>& a,
                                                          const NestedDual<K, L>& b) {
  NestedDual<K, L> c;
  for (int k = 0; k <= K; ++k) c.d[k] = a.d[k] - b.d[k];
  return c;
}
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE NestedDual<K, L> operator-(const NestedDual<K, L>& a) {
  NestedDual<K, L> c;
  for (int k = 0; k <= K; ++k) c.d[k] = -a.d[k];
  return c;
}
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE NestedDual<K, L> operator*(const NestedDual<K, L>& a,
                                                          const NestedDual<K, L>& b) {
  NestedDual<K, L> c;
  c.d[0] = a.d[0] * b.d[0];
  for (int k = 1; k <= K; ++k) c.d[k] = a.d[0] * b.d[k] + a.d[k] * b.d[0];
  return c;
}
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE NestedDual<K, L> operator/(const NestedDual<K, L>& a,
                                                          const NestedDual<K, L>& b) {
  const Dual<L> inv = Dual<L>(1.0) / b.d[0];
  const Dual<L> q = a.d[0] * inv;
  NestedDual<K, L> c;
  c.d[0] = q;
  for (int k = 1; k <= K; ++k) c.d[k] = (a.d[k] - q * b.d[k]) * inv;
  return c;
}

// Mixed with double: constants touch lane 0's value only.
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE NestedDual<K, L> operator+(const NestedDual<K, L>& a, double s) {
  NestedDual<K, L> c = a;
  c.d[0].d[0] += s;
  return c;
}
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE NestedDual<K, L> operator+(double s, const NestedDual<K, L>& a) {
  return a + s;
}
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE NestedDual<K, L> operator-(const NestedDual<K, L>& a, double s) {
  return a + (-s);
}
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE NestedDual<K, L> operator-(double s, const NestedDual<K, L>& a) {
  return (-a) + s;
}
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE NestedDual<K, L> operator*(double s, const NestedDual<K, L>& a) {
  NestedDual<K, L> c;
  for (int k = 0; k <= K; ++k) c.d[k] = s * a.d[k];
  return c;
}
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE NestedDual<K, L> operator*(const NestedDual<K, L>& a, double s) {
  return s * a;
}
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE NestedDual<K, L> operator/(const NestedDual<K, L>& a, double s) {
  return (1.0 / s) * a;
}
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE NestedDual<K, L> operator/(double s, const NestedDual<K, L>& b) {
  return NestedDual<K, L>(s) / b;
}

template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE NestedDual<K, L>& operator+=(NestedDual<K, L>& a,
                                                            const NestedDual<K, L>& b) {
  return a = a + b;
}
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE NestedDual<K, L>& operator-=(NestedDual<K, L>& a,
                                                            const NestedDual<K, L>& b) {
  return a = a - b;
}
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE NestedDual<K, L>& operator*=(NestedDual<K, L>& a,
                                                            const NestedDual<K, L>& b) {
  return a = a * b;
}
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE NestedDual<K, L>& operator/=(NestedDual<K, L>& a,
                                                            const NestedDual<K, L>& b) {
  return a = a / b;
}

template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE NestedDual<K, L> log(const NestedDual<K, L>& a) {
  return detail::chain(a, log(a.d[0]), Dual<L>(1.0) / a.d[0]);
}
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE NestedDual<K, L> exp(const NestedDual<K, L>& a) {
  const Dual<L> e = exp(a.d[0]);
  return detail::chain(a, e, e);
}
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE NestedDual<K, L> sqrt(const NestedDual<K, L>& a) {
  const Dual<L> s = sqrt(a.d[0]);
  return detail::chain(a, s, 0.5 * (Dual<L>(1.0) / s));
}
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE NestedDual<K, L> sin(const NestedDual<K, L>& a) {
  return detail::chain(a, sin(a.d[0]), cos(a.d[0]));
}
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE NestedDual<K, L> cos(const NestedDual<K, L>& a) {
  return detail::chain(a, cos(a.d[0]), -sin(a.d[0]));
}
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE NestedDual<K, L> pow(const NestedDual<K, L>& a, double e) {
  const Dual<L> p = pow(a.d[0], e - 1.0);
  return detail::chain(a, p * a.d[0], e * p);
}
/// d atan2 = (x dy - y dx) / (x^2 + y^2), with Dual<L> arithmetic for the t-derivatives.
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE NestedDual<K, L> atan2(const NestedDual<K, L>& y,
                                                      const NestedDual<K, L>& x) {
  const Dual<L> y0 = y.d[0], x0 = x.d[0];
  const Dual<L> inv = Dual<L>(1.0) / (x0 * x0 + y0 * y0);
  NestedDual<K, L> c;
  c.d[0] = atan2(y0, x0);
  for (int k = 1; k <= K; ++k) c.d[k] = (x0 * y.d[k] - y0 * x.d[k]) * inv;
  return c;
}

// Comparisons look at values, as the tape's do.
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE bool operator<(const NestedDual<K, L>& a,
                                              const NestedDual<K, L>& b) {
  return primal(a) < primal(b);
}
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE bool operator>(const NestedDual<K, L>& a,
                                              const NestedDual<K, L>& b) {
  return primal(a) > primal(b);
}
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE bool operator<=(const NestedDual<K, L>& a,
                                               const NestedDual<K, L>& b) {
  return primal(a) <= primal(b);
}
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE bool operator>=(const NestedDual<K, L>& a,
                                               const NestedDual<K, L>& b) {
  return primal(a) >= primal(b);
}
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE bool operator<(const NestedDual<K, L>& a, double c) {
  return primal(a) < c;
}
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE bool operator>(const NestedDual<K, L>& a, double c) {
  return primal(a) > c;
}
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE bool operator<=(const NestedDual<K, L>& a, double c) {
  return primal(a) <= c;
}
template <int K, int L>
SOFTGRAD_HD SOFTGRAD_AD_INLINE bool operator>=(const NestedDual<K, L>& a, double c) {
  return primal(a) >= c;
}

}  // namespace softgrad::ad

namespace softgrad::ad {
/// The numbers of the adjoint's mixed parameter products: M parameter lanes, one direction.
template <int M>
using MixedDual = NestedDual<M, 1>;
}  // namespace softgrad::ad
