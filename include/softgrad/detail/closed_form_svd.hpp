/// @file closed_form_svd.hpp
/// The eigen-decomposition of a symmetric 3x3 matrix and the signed SVD of F, in closed form:
/// no iteration and no branch, for one element (T = double) or several side by side
/// (T = Lanes<L>, lanes.hpp). A few times faster than polar.hpp's Jacobi sweeps, which stay the
/// reference and the fallback for nearly singular F.
///
/// Method (after Eberly, "A Robust Eigensolver for 3 x 3 Symmetric Matrices", 2014). Write
/// C = q I + p B with tr B = 0 and ||B||^2 = 6; B's eigenvalues are then 2 cos(phi + 2 pi k / 3),
/// phi = acos(det B / 2) / 3, and the one farthest from the other two (at least sqrt 3 away) is
/// the largest or the smallest root of B's characteristic cubic, found here by Newton's method.
/// Its eigenvector is the longest cross product of two rows of B - beta I; the other two come
/// from C's 2x2 restriction to the plane orthogonal to it, which is exact even when they are
/// equal. The eigenvalues are Rayleigh quotients, with absolute error O(epsilon ||C||).
#pragma once

#include <cmath>

#include "softgrad/detail/lanes.hpp"
#include "softgrad/detail/small_matrix.hpp"

namespace softgrad {

namespace detail::closed_form {

template <class T>
using Vec = Mat<T, 3, 1>;

template <class T>
SOFTGRAD_HD SOFTGRAD_FORCE_INLINE T dot(const Vec<T>& x, const Vec<T>& y) {
  return x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
}

template <class T>
SOFTGRAD_HD SOFTGRAD_FORCE_INLINE Vec<T> cross(const Vec<T>& x, const Vec<T>& y) {
  return Vec<T>{{x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]}};
}

/// m ? a : b for vectors.
template <class T, class Mask>
SOFTGRAD_HD SOFTGRAD_FORCE_INLINE Vec<T> pick(const Mask& m, const Vec<T>& a, const Vec<T>& b) {
  return Vec<T>{{select(m, a[0], b[0]), select(m, a[1], b[1]), select(m, a[2], b[2])}};
}

template <class T>
SOFTGRAD_HD SOFTGRAD_FORCE_INLINE Vec<T> normalized(const Vec<T>& x) {
  using std::sqrt;
  return (T(1.0) / sqrt(dot(x, x))) * x;
}

/// A null vector of the symmetric M of rank two, not normalised: the longest cross product of
/// two rows.
template <class T>
SOFTGRAD_HD SOFTGRAD_FORCE_INLINE Vec<T> null_vector(const Mat<T, 3, 3>& M) {
  using softgrad::select;
  const Vec<T> r0{{M(0, 0), M(0, 1), M(0, 2)}};
  const Vec<T> r1{{M(1, 0), M(1, 1), M(1, 2)}};
  const Vec<T> r2{{M(2, 0), M(2, 1), M(2, 2)}};
  Vec<T> best = cross(r0, r1);
  T best_norm = dot(best, best);
  const Vec<T> c02 = cross(r0, r2);
  const Vec<T> c12 = cross(r1, r2);
  const T n02 = dot(c02, c02);
  const T n12 = dot(c12, c12);
  const auto use02 = n02 > best_norm;
  best = pick(use02, c02, best);
  best_norm = select(use02, n02, best_norm);
  return pick(n12 > best_norm, c12, best);
}

/// A vector orthogonal to u != 0, not normalised: u rotated in the plane of its two largest
/// entries (so that its length is at least |u| / sqrt 2).
template <class T>
SOFTGRAD_HD SOFTGRAD_FORCE_INLINE Vec<T> orthogonal(const Vec<T>& u) {
  using softgrad::select;
  using std::abs;
  const auto x_larger = abs(u[0]) > abs(u[1]);
  const T zero(0.0);
  return Vec<T>{
      {select(x_larger, -u[2], zero), select(x_larger, zero, u[2]), select(x_larger, u[0], -u[1])}};
}

/// x / |x| for x of length 1 + delta, |delta| < 1e-7, without a square root or a division: one
/// Newton step for 1 / sqrt(|x|^2) from 1 leaves a length 1 - 3 delta^2 / 4 + O(delta^3).
template <class T>
SOFTGRAD_HD SOFTGRAD_FORCE_INLINE Vec<T> nearly_unit_normalized(const Vec<T>& x) {
  return (1.5 - 0.5 * dot(x, x)) * x;
}

/// Eigenvalues hi >= lo of the symmetric [a b; b c], and (cs, sn) the unit eigenvector of hi,
/// without cancellation or branches (polar.hpp's symmetric_eigen_2x2 is this for double).
template <class T>
SOFTGRAD_HD SOFTGRAD_FORCE_INLINE void symmetric_eigen_2x2(const T& a, const T& b, const T& c,
                                                           T& hi, T& lo, T& cs, T& sn) {
  using softgrad::select;
  using std::sqrt;
  const T half_diff = 0.5 * (a - c);
  const T radius = sqrt(half_diff * half_diff + b * b);
  hi = 0.5 * (a + c) + radius;
  lo = 0.5 * (a + c) - radius;
  const auto upper = half_diff >= 0.0;
  const T x = select(upper, half_diff + radius, b);
  const T y = select(upper, b, radius - half_diff);
  const T n = sqrt(x * x + y * y);
  const auto round = n > 0.0;  // radius > 0: not a multiple of I
  const T safe_n = select(round, n, T(1.0));
  cs = select(round, x / safe_n, T(1.0));
  sn = select(round, y / safe_n, T(0.0));
}

}  // namespace detail::closed_form

/// C = V diag(lambda) V^T for a symmetric 3x3 C: lambda[0] >= lambda[1] >= lambda[2] (up to
/// round-off), V a rotation (for C = q I, any rotation). A non-finite C gives non-finite
/// output.
template <class T>
SOFTGRAD_HD void symmetric_eigen_closed_form(const Mat<T, 3, 3>& C, Mat<T, 3, 3>& V, T lambda[3]) {
  namespace cf = detail::closed_form;
  using softgrad::select;
  using std::abs;
  using std::fmin;
  using std::sqrt;
  using Vec = cf::Vec<T>;
  const T q = (C(0, 0) + C(1, 1) + C(2, 2)) * (1.0 / 3.0);
  Mat<T, 3, 3> B = C;
  for (int k = 0; k < 3; ++k) B(k, k) = B(k, k) - q;
  const T p2 = (B(0, 0) * B(0, 0) + B(1, 1) * B(1, 1) + B(2, 2) * B(2, 2) +
                2.0 * (B(0, 1) * B(0, 1) + B(0, 2) * B(0, 2) + B(1, 2) * B(1, 2))) *
               (1.0 / 6.0);
  // C = q I leaves B = 0, whose every vector is an eigenvector: the steps below then pick one.
  // B / p with p = sqrt(p2) as sqrt(p2) / p2, whose square root and division run side by side
  // (the chain of dependent square roots and divisions is what this function's time is).
  const T safe_p2 = select(p2 > 0.0, p2, T(1.0));
  B = (sqrt(safe_p2) * (T(1.0) / safe_p2)) * B;
  // B's characteristic polynomial is t^3 - 3 t - 2 r with r = det B / 2 in [-1, 1]. For r >= 0
  // the largest root, in [sqrt 3, 2], is the separated one; for r < 0 the smallest, -t with t
  // the largest root for -r. That root, 2 cos(acos(s) / 3) for s = |r|, is analytic on [0, 1]:
  // a degree-8 fit to it (error below 3.2e-9, evaluated in Estrin's scheme) and one Newton step
  // (slope at least 6 there) reach round-off, without the trigonometric calls of the textbook
  // formula, which took a third of the time.
  const T r = 0.5 * det(B);
  const auto largest_separated = r >= 0.0;
  const T s = fmin(T(1.0), abs(r));
  const T s2 = s * s;
  const T s4 = s2 * s2;
  T t =
      (1.7320508107349335 + 0.33333279927549814 * s) +
      s2 * (-0.09621004381386425 + 0.04921766587133344 * s) +
      s4 * ((-0.030249532087211865 + 0.018840158439813216 * s) +
            s2 * (-0.009945144624909443 + 0.0035819248801194333 * s) + s4 * -0.0006186410346404763);
  t = t - (t * t * t - 3.0 * t - 2.0 * s) / (3.0 * t * t - 3.0);
  const T beta = select(largest_separated, t, -t);
  for (int k = 0; k < 3; ++k) B(k, k) = B(k, k) - beta;
  // Its eigenvector, and an orthonormal basis (a, b) of the plane orthogonal to it; the two
  // normalisations run side by side. Then C restricted to that plane.
  const Vec separated_raw = cf::null_vector(B);
  const Vec a_raw = cf::orthogonal(separated_raw);
  const Vec separated = cf::normalized(separated_raw);
  const Vec a = cf::normalized(a_raw);
  const Vec b = cf::cross(separated, a);
  const Vec Ca = C * a;
  const Vec Cb = C * b;
  T hi, lo, cs, sn;
  cf::symmetric_eigen_2x2(cf::dot(a, Ca), cf::dot(a, Cb), cf::dot(b, Cb), hi, lo, cs, sn);
  const Vec upper = cs * a + sn * b;
  const Vec lower = cs * b - sn * a;
  const T separated_lambda = cf::dot(separated, C * separated);
  // upper x lower = a x b = separated, so both orders below make V a rotation.
  const Vec v0 = cf::pick(largest_separated, separated, upper);
  const Vec v1 = cf::pick(largest_separated, upper, lower);
  const Vec v2 = cf::pick(largest_separated, lower, separated);
  lambda[0] = select(largest_separated, separated_lambda, hi);
  lambda[1] = select(largest_separated, hi, lo);
  lambda[2] = select(largest_separated, lo, separated_lambda);
  for (int i = 0; i < 3; ++i) {
    V(i, 0) = v0[i];
    V(i, 1) = v1[i];
    V(i, 2) = v2[i];
  }
}

/// Below this ratio |sigma_3| / sigma_1, signed_svd_from_normal_matrix declines: squaring F
/// leaves a small singular value with absolute error ~epsilon sigma_1^2 / sigma_3 (here at most
/// ~1e-13 sigma_1), and elements compressed further are rare enough to take signed_svd.
inline constexpr double kNormalMatrixMinRatio = 1e-3;

/// polar.hpp's signed SVD F = U diag(sigma) V^T (U, V rotations, sigma descending, sigma_3 < 0
/// when det F < 0) from C = F^T F and J = det F, which the caller usually has already
/// (invariants.hpp): V and sigma_k^2 from symmetric_eigen_closed_form, sigma_3 = J / (sigma_1
/// sigma_2), U's first two columns F v_k / sigma_k made orthonormal and u_3 = u_1 x u_2. True
/// where this is accurate; false, with that lane's outputs unspecified, where |sigma_3| <
/// kNormalMatrixMinRatio sigma_1 or F is not finite: signed_svd is then the one to use.
template <class T>
SOFTGRAD_HD auto signed_svd_from_normal_matrix(const Mat<T, 3, 3>& F, const Mat<T, 3, 3>& C,
                                               const T& J, Mat<T, 3, 3>& U, T sigma[3],
                                               Mat<T, 3, 3>& V) {
  namespace cf = detail::closed_form;
  using softgrad::select;
  using std::abs;
  using std::sqrt;
  using Vec = cf::Vec<T>;
  T lambda[3];
  symmetric_eigen_closed_form(C, V, lambda);
  constexpr double kMin = kNormalMatrixMinRatio;
  // Where a lane fails, its inputs to the divisions are made harmless (1).
  const auto finite = lambda[0] > 0.0 && lambda[0] < 1e300;
  const auto ok_lambda = finite && lambda[1] >= (kMin * kMin) * lambda[0];
  sigma[0] = sqrt(select(ok_lambda, lambda[0], T(1.0)));
  sigma[1] = sqrt(select(ok_lambda, lambda[1], T(1.0)));
  const T inv01 = T(1.0) / (sigma[0] * sigma[1]);
  sigma[2] = J * inv01;
  const auto ok = ok_lambda && abs(sigma[2]) >= kMin * sigma[0];
  // u_k = F v_k / sigma_k is a unit vector up to round-off amplified by sigma_0^2 / sigma_k^2
  // (below 1e6 where ok): nearly_unit_normalized finishes it without a square root.
  Vec u0 = (sigma[1] * inv01) * (F * Vec{{V(0, 0), V(1, 0), V(2, 0)}});
  Vec u1 = (sigma[0] * inv01) * (F * Vec{{V(0, 1), V(1, 1), V(2, 1)}});
  u0 = cf::nearly_unit_normalized(cf::pick(ok, u0, Vec{{T(1.0), T(0.0), T(0.0)}}));
  u1 = u1 - cf::dot(u0, u1) * u0;
  u1 = cf::nearly_unit_normalized(cf::pick(ok, u1, Vec{{T(0.0), T(1.0), T(0.0)}}));
  const Vec u2 = cf::cross(u0, u1);
  for (int i = 0; i < 3; ++i) {
    U(i, 0) = u0[i];
    U(i, 1) = u1[i];
    U(i, 2) = u2[i];
  }
  return ok;
}

}  // namespace softgrad
