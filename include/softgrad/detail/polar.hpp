/// @file polar.hpp
/// Rotation-variant SVD of 2x2 and 3x3 matrices, polar decomposition of 3x3 matrices, and the
/// differential of the polar rotation, for corotational materials and isotropic projections.
/// Device-compatible: no heap, no exceptions.
///
/// Conventions. F = U diag(sigma) V^T with U, V rotations (det +1) and
/// sigma_1 >= sigma_2 >= |sigma_3|; sigma_3 < 0 exactly when det F < 0 ("rotation-variant"
/// SVD, Irving et al. 2004). The polar decomposition is F = R S with R = U V^T (det R = +1
/// always) and S = V diag(sigma) V^T symmetric, indefinite when F is inverted. R is the rotation
/// maximizing tr(R^T F), so tr(S) = sigma_1 + sigma_2 + sigma_3 has gradient R.
///
/// Method: one-sided (Hestenes) Jacobi rotates the columns of F until orthogonal, B = F V, so
/// b_i = sigma_i u_i; the columns are sorted by norm and orthonormalized (Gram-Schmidt,
/// u_3 = u_1 x u_2), and sigma_i = u_i . b_i. Tiny, zero and repeated singular values need no
/// special case, and small ones keep relative accuracy (which Jacobi on F^T F would lose below
/// sqrt(epsilon) ||F||). F is scaled by its largest entry first, so nothing overflows or
/// underflows. Cost: a few sweeps of 3 rotations; no allocation, no exceptions.
#pragma once

#include <cmath>

#include "softgrad/detail/closed_form_svd.hpp"
#include "softgrad/detail/small_matrix.hpp"

namespace softgrad {
/// Internals of polar.hpp (3x3 SVD helpers), kept apart from other detail code.
namespace detail::svd3 {

using Vec3 = Mat<double, 3, 1>;

/// Two-sided Jacobi stops once the off-diagonal norm is below kJacobiTol times the total norm.
constexpr double kJacobiTol = 1e-16;
/// One-sided Jacobi stops once |b_p . b_q| <= kOneSidedTol |b_p| |b_q| for all pairs; about
/// 2 epsilon, the round-off floor of the dot product (a smaller value makes ~2% of inputs spin
/// to the sweep limit without gaining accuracy).
constexpr double kOneSidedTol = 5e-16;
/// Jacobi sweep limit; convergence is quadratic and 3x3 matrices need 4-6 sweeps.
constexpr int kJacobiMaxSweeps = 12;
/// A Gram-Schmidt remainder shorter than this (relative to sigma_1 = O(1) after scaling) is
/// round-off, and a deterministic orthogonal direction replaces it.
constexpr double kRankTol = 2e-15;
/// The closed-form inverse of tr(S) I - S is used when |det| > kFastPathTol * ||.||_F^3.
constexpr double kFastPathTol = 1e-6;
/// Eigenvalues of tr(S) I - S with |d| <= kPseudoInverseTol * ||.||_F count as zero.
constexpr double kPseudoInverseTol = 1e-12;

SOFTGRAD_HD inline double dot(const Vec3& x, const Vec3& y) {
  return x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
}

SOFTGRAD_HD inline Vec3 cross(const Vec3& x, const Vec3& y) {
  return Vec3{{x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]}};
}

SOFTGRAD_HD inline Vec3 column(const Mat<double, 3, 3>& m, int j) {
  return Vec3{{m(0, j), m(1, j), m(2, j)}};
}

SOFTGRAD_HD inline void set_column(Mat<double, 3, 3>& m, int j, const Vec3& x) {
  for (int i = 0; i < 3; ++i) m(i, j) = x[i];
}

SOFTGRAD_HD inline void swap_columns(Mat<double, 3, 3>& m, int j, int k) {
  for (int i = 0; i < 3; ++i) {
    const double t = m(i, j);
    m(i, j) = m(i, k);
    m(i, k) = t;
  }
}

/// tan of the Jacobi angle zeroing the off-diagonal of the symmetric 2x2 [alpha, gamma; gamma,
/// beta], the smaller root (Numerical Recipes, 11.1). @pre gamma != 0.
SOFTGRAD_HD inline double jacobi_tangent(double alpha, double beta, double gamma) {
  const double theta = (beta - alpha) / (2.0 * gamma);
  // 1 / (2 theta) avoids overflow of theta^2.
  if (!(std::abs(theta) < 1e150)) return 0.5 / theta;
  const double t = 1.0 / (std::abs(theta) + std::sqrt(theta * theta + 1.0));
  return theta < 0.0 ? -t : t;
}

/// Columns p, q of M <- (c m_p - s m_q, s m_p + c m_q), i.e. M <- M J.
SOFTGRAD_HD inline void rotate_columns(Mat<double, 3, 3>& M, int p, int q, double c, double s) {
  for (int i = 0; i < 3; ++i) {
    const double mp = M(i, p);
    const double mq = M(i, q);
    M(i, p) = c * mp - s * mq;
    M(i, q) = s * mp + c * mq;
  }
}

/// One two-sided Jacobi rotation zeroing A(p, q): A <- J^T A J, V <- V J.
SOFTGRAD_HD inline void jacobi_rotate(Mat<double, 3, 3>& A, Mat<double, 3, 3>& V, int p, int q) {
  const double apq = A(p, q);
  if (apq == 0.0) return;
  const double t = jacobi_tangent(A(p, p), A(q, q), apq);
  const double c = 1.0 / std::sqrt(t * t + 1.0);
  const double s = t * c;
  // Update the pivot block, then the remaining row/column, then the eigenvectors.
  A(p, p) -= t * apq;
  A(q, q) += t * apq;
  A(p, q) = A(q, p) = 0.0;
  const int r = 3 - p - q;
  const double arp = A(r, p);
  const double arq = A(r, q);
  A(r, p) = A(p, r) = c * arp - s * arq;
  A(r, q) = A(q, r) = s * arp + c * arq;
  rotate_columns(V, p, q, c, s);
}

/// One-sided (Hestenes) Jacobi: rotates the columns of B (and V alongside) until they are
/// mutually orthogonal to relative precision, |b_p . b_q| <= kOneSidedTol |b_p| |b_q|. Unlike
/// Jacobi on B^T B, this resolves singular values below sqrt(epsilon) ||B|| to relative accuracy.
SOFTGRAD_HD inline void one_sided_jacobi(Mat<double, 3, 3>& B, Mat<double, 3, 3>& V) {
  const int pairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
  for (int sweep = 0; sweep < kJacobiMaxSweeps; ++sweep) {
    bool rotated = false;
    for (const auto& pq : pairs) {
      const int p = pq[0];
      const int q = pq[1];
      const double alpha = squared_norm(column(B, p));
      const double beta = squared_norm(column(B, q));
      const double gamma = dot(column(B, p), column(B, q));
      // Negated test: also skips NaN and exact zeros.
      if (!(gamma * gamma > kOneSidedTol * kOneSidedTol * alpha * beta)) continue;
      // The rotation of jacobi_tangent, t = sign(zeta) 2 gamma / (|zeta| + r), in a form with
      // two square roots and one division on the critical path instead of three divisions
      // (B's entries are at most 1 after scaling, so nothing overflows).
      const double zeta = beta - alpha;
      const double r = std::sqrt(zeta * zeta + 4.0 * gamma * gamma);
      const double den = std::abs(zeta) + r;
      const double inv = 1.0 / std::sqrt(den * den + 4.0 * gamma * gamma);
      const double c = den * inv;
      const double sn = (zeta < 0.0 ? -2.0 : 2.0) * gamma * inv;
      rotate_columns(B, p, q, c, sn);
      rotate_columns(V, p, q, c, sn);
      rotated = true;
    }
    if (!rotated) break;
  }
}

/// Symmetric eigen-decomposition A = V diag(lambda) V^T by cyclic Jacobi; V is a rotation.
/// Eigenvalues are unsorted. @pre A symmetric.
SOFTGRAD_HD inline void symmetric_eigen(Mat<double, 3, 3> A, Mat<double, 3, 3>& V,
                                        double lambda[3]) {
  V = identity<double, 3>();
  for (int sweep = 0; sweep < kJacobiMaxSweeps; ++sweep) {
    const double off = A(0, 1) * A(0, 1) + A(0, 2) * A(0, 2) + A(1, 2) * A(1, 2);
    // Negated test: also stops on NaN.
    if (!(off > kJacobiTol * kJacobiTol * squared_norm(A))) break;
    jacobi_rotate(A, V, 0, 1);
    jacobi_rotate(A, V, 0, 2);
    jacobi_rotate(A, V, 1, 2);
  }
  for (int i = 0; i < 3; ++i) lambda[i] = A(i, i);
}

/// Sorts the columns of B (and the matching columns of V) by decreasing norm, then negates the
/// last column of both if needed so that det V = +1.
SOFTGRAD_HD inline void sort_columns_by_norm(Mat<double, 3, 3>& B, Mat<double, 3, 3>& V) {
  double n[3];
  for (int j = 0; j < 3; ++j) n[j] = squared_norm(column(B, j));
  // A three-element sorting network.
  const int pairs[3][2] = {{0, 1}, {1, 2}, {0, 1}};
  for (const auto& pq : pairs) {
    const int j = pq[0];
    const int k = pq[1];
    if (n[j] < n[k]) {
      const double t = n[j];
      n[j] = n[k];
      n[k] = t;
      swap_columns(B, j, k);
      swap_columns(V, j, k);
    }
  }
  if (det(V) < 0.0) {
    for (int i = 0; i < 3; ++i) {
      V(i, 2) = -V(i, 2);
      B(i, 2) = -B(i, 2);
    }
  }
}

/// A unit vector orthogonal to the unit vector u: e_k minus its projection on u, where e_k is
/// the axis least aligned with u (the remainder then has norm >= sqrt(2/3)).
SOFTGRAD_HD inline Vec3 any_orthogonal(const Vec3& u) {
  int k = 0;
  if (std::abs(u[1]) < std::abs(u[k])) k = 1;
  if (std::abs(u[2]) < std::abs(u[k])) k = 2;
  Vec3 e{{0.0, 0.0, 0.0}};
  e[k] = 1.0;
  const Vec3 r = e - u[k] * u;
  return (1.0 / std::sqrt(dot(r, r))) * r;
}

/// The rotation U whose first two columns are Gram-Schmidt on the first two columns of B, and
/// whose third is u_1 x u_2. @pre the columns of B are sorted by decreasing norm, and
/// |b_1| = O(1) (or B = 0).
SOFTGRAD_HD inline Mat<double, 3, 3> orthonormal_frame(const Mat<double, 3, 3>& B) {
  const Vec3 b1 = column(B, 0);
  const double n1 = std::sqrt(dot(b1, b1));
  const Vec3 u1 = n1 > kRankTol ? (1.0 / n1) * b1 : Vec3{{1.0, 0.0, 0.0}};
  // Two Gram-Schmidt passes keep u_2 orthogonal to u_1 to round-off when b_2 is small.
  Vec3 r = column(B, 1);
  r = r - dot(u1, r) * u1;
  r = r - dot(u1, r) * u1;
  const double n2 = std::sqrt(dot(r, r));
  const Vec3 u2 = n2 > kRankTol ? (1.0 / n2) * r : any_orthogonal(u1);
  Mat<double, 3, 3> U;
  set_column(U, 0, u1);
  set_column(U, 1, u2);
  set_column(U, 2, cross(u1, u2));
  return U;
}

/// Truncated pseudo-inverse of a scalar: 1/d where |d| > tol, else 0. A d below tol is taken
/// as round-off of an exact zero, where 0 gives the minimum-norm least-squares solution; a
/// smooth clamp (d / tol^2, sign(d) / tol) would instead turn round-off into 1e7..1e12.
SOFTGRAD_HD inline double pseudo_inverse(double d, double tol) {
  return std::abs(d) > tol ? 1.0 / d : 0.0;
}

}  // namespace detail::svd3

/// Rotation-variant SVD: F = U diag(sigma) V^T with U, V rotations (det +1),
/// sigma[0] >= sigma[1] >= |sigma[2]| >= 0 up to round-off, and sigma[2] carrying the sign of
/// det F. Robust for rank-deficient F, repeated singular values and any scale; F = 0 gives
/// U = V = I, sigma = 0. Reconstruction error is O(machine epsilon * ||F||).
/// On failure: a non-finite entry in F makes every output NaN.
SOFTGRAD_HD inline void signed_svd(const Mat<double, 3, 3>& F, Mat<double, 3, 3>& U,
                                   double sigma[3], Mat<double, 3, 3>& V) {
  // Scale F so that its largest entry is 1; x - x != 0 detects NaN and infinity.
  double scale = 0.0;
  bool finite = true;
  for (int k = 0; k < 9; ++k) {
    if (F.a[k] - F.a[k] != 0.0) finite = false;
    if (std::abs(F.a[k]) > scale) scale = std::abs(F.a[k]);
  }
  if (!finite || scale == 0.0) {
    const double fill = finite ? 0.0 : NAN;
    U = finite ? identity<double, 3>() : filled<double, 3, 3>(fill);
    V = U;
    for (int i = 0; i < 3; ++i) sigma[i] = fill;
    return;
  }
  const Mat<double, 3, 3> Fs = (1.0 / scale) * F;
  // Orthogonalize the columns of B = Fs V: then b_i = sigma_i u_i. Sort by decreasing norm,
  // keeping det V = +1.
  Mat<double, 3, 3> B = Fs;
  V = identity<double, 3>();
  detail::svd3::one_sided_jacobi(B, V);
  detail::svd3::sort_columns_by_norm(B, V);
  // U is a rotation by construction, so sigma_3 = u_3 . b_3 takes the sign of det F.
  U = detail::svd3::orthonormal_frame(B);
  for (int i = 0; i < 3; ++i)
    sigma[i] = scale * detail::svd3::dot(detail::svd3::column(U, i), detail::svd3::column(B, i));
}

namespace detail {
/// Eigenvalues lambda[0] >= lambda[1] of the symmetric [a b; b c], and (cs, sn) the unit
/// eigenvector of lambda[0] ((-sn, cs) is that of lambda[1]), without cancellation.
SOFTGRAD_HD inline void symmetric_eigen_2x2(double a, double b, double c, double lambda[2],
                                            double& cs, double& sn) {
  closed_form::symmetric_eigen_2x2(a, b, c, lambda[0], lambda[1], cs, sn);
}

}  // namespace detail

/// The 2x2 rotation-variant SVD, same conventions: F = U diag(sigma) V^T with U, V rotations,
/// sigma[0] >= |sigma[1]| and sigma[1] < 0 exactly when det F < 0. Closed form without
/// trigonometry: R = U V^T is the rotation maximising tr(R^T F), whose (cos, sin) is proportional
/// to (F00 + F11, F10 - F01); then S = R^T F is symmetric and V its eigenbasis.
SOFTGRAD_HD inline void signed_svd(const Mat<double, 2, 2>& F, Mat<double, 2, 2>& U,
                                   double sigma[2], Mat<double, 2, 2>& V) {
  double c = F(0, 0) + F(1, 1);
  double s = F(1, 0) - F(0, 1);
  const double r = std::sqrt(c * c + s * s);
  if (r > 0.0) {
    c /= r;
    s /= r;
  } else {
    c = 1.0;  // F symmetric and traceless: already S
    s = 0.0;
  }
  // S = R^T F with R = [c -s; s c], symmetrised against round-off.
  const double s00 = c * F(0, 0) + s * F(1, 0);
  const double s11 = -s * F(0, 1) + c * F(1, 1);
  const double s01 = 0.5 * ((c * F(0, 1) + s * F(1, 1)) + (-s * F(0, 0) + c * F(1, 0)));
  double lambda[2];
  double x = 1.0;
  double y = 0.0;
  detail::symmetric_eigen_2x2(s00, s01, s11, lambda, x, y);
  sigma[0] = lambda[0];
  sigma[1] = lambda[1];
  V(0, 0) = x;
  V(0, 1) = -y;
  V(1, 0) = y;
  V(1, 1) = x;
  U(0, 0) = c * x - s * y;
  U(0, 1) = -c * y - s * x;
  U(1, 0) = s * x + c * y;
  U(1, 1) = -s * y + c * x;
}

/// Polar decomposition F = R S with R a rotation (det R = +1 always) and S symmetric.
/// R = U V^T, S = V diag(sigma) V^T from signed_svd: when det F < 0, S has one negative
/// eigenvalue, the signed smallest singular value. F = 0 gives R = I, S = 0. S is exactly
/// symmetric. On failure: a non-finite F gives NaN R and S.
SOFTGRAD_HD inline void polar_decomposition(const Mat<double, 3, 3>& F, Mat<double, 3, 3>& R,
                                            Mat<double, 3, 3>& S) {
  Mat<double, 3, 3> U;
  Mat<double, 3, 3> V;
  double sigma[3];
  signed_svd(F, U, sigma, V);
  R = U * transpose(V);
  // Upper triangle of V diag(sigma) V^T, mirrored.
  for (int i = 0; i < 3; ++i)
    for (int j = i; j < 3; ++j) {
      double s = 0.0;
      for (int k = 0; k < 3; ++k) s += sigma[k] * V(i, k) * V(j, k);
      S(i, j) = S(j, i) = s;
    }
}

/// Directional derivative dR of the polar rotation R(F) along dF, given F = R S.
///
/// Formula: dF = dR S + R dS with dS symmetric and W = R^T dR skew gives
///   W S + S W = R^T dF - dF^T R,
/// and for W = [w]_x this reads (tr(S) I - S) w = axial(R^T dF - dF^T R), where
/// axial([w]_x) = w. Then dR = R [w]_x. The eigenvalues of tr(S) I - S are the pairwise sums
/// sigma_i + sigma_j, so the system is singular only when two signed singular values cancel
/// (an inverted F with sigma_2 = -sigma_3), where R(F) is not differentiable.
///
/// Well-conditioned case: closed-form inverse. Otherwise the solve goes through the
/// eigenvectors of S with a truncated pseudo-inverse: an eigenvalue d with
/// |d| <= 1e-12 ||tr(S) I - S||_F (round-off of an exact zero) gets 0 instead of 1 / d. The
/// result is then the minimum-norm least-squares solution, never a division by zero, and the
/// component of w along that null direction is 0. Just above the threshold, |dR| ~ 1e12 |dF|:
/// the true derivative. F = 0 gives dR = 0.
/// @pre R, S come from polar_decomposition (R a rotation, S symmetric).
SOFTGRAD_HD inline Mat<double, 3, 3> polar_rotation_differential(const Mat<double, 3, 3>& R,
                                                                 const Mat<double, 3, 3>& S,
                                                                 const Mat<double, 3, 3>& dF) {
  using detail::svd3::Vec3;
  // a = axial(G - G^T) with G = R^T dF.
  const Mat<double, 3, 3> G = transpose(R) * dF;
  const Vec3 a{{G(2, 1) - G(1, 2), G(0, 2) - G(2, 0), G(1, 0) - G(0, 1)}};
  const double tr = trace(S);
  const Mat<double, 3, 3> M = tr * identity<double, 3>() - S;
  const double m_norm = std::sqrt(squared_norm(M));
  const double m_det = det(M);
  Vec3 w;
  if (std::abs(m_det) > detail::svd3::kFastPathTol * m_norm * m_norm * m_norm) {
    // All |sigma_i + sigma_j| > 1e-6 ||M||: the adjugate formula is accurate.
    w = (1.0 / m_det) * (transpose(cofactor(M)) * a);
  } else {
    // Near-singular: solve in the eigenbasis of S, dropping the null eigenvalues of M.
    Mat<double, 3, 3> Q;
    double lambda[3];
    detail::svd3::symmetric_eigen(S, Q, lambda);
    Vec3 c = transpose(Q) * a;
    const double tol = detail::svd3::kPseudoInverseTol * m_norm;
    for (int i = 0; i < 3; ++i) c[i] *= detail::svd3::pseudo_inverse(tr - lambda[i], tol);
    w = Q * c;
  }
  Mat<double, 3, 3> W;
  W(0, 0) = W(1, 1) = W(2, 2) = 0.0;
  W(0, 1) = -w[2];
  W(1, 0) = w[2];
  W(0, 2) = w[1];
  W(2, 0) = -w[1];
  W(1, 2) = -w[0];
  W(2, 1) = w[0];
  return R * W;
}

/// Signed sum of singular values sigma_1 + sigma_2 + sigma_3 = tr(S), negative sigma_3 when
/// det F < 0. Its gradient with respect to F is the polar rotation R.
SOFTGRAD_HD inline double sum_of_singular_values(const Mat<double, 3, 3>& F) {
  Mat<double, 3, 3> U;
  Mat<double, 3, 3> V;
  double sigma[3];
  signed_svd(F, U, sigma, V);
  return sigma[0] + sigma[1] + sigma[2];
}

}  // namespace softgrad
