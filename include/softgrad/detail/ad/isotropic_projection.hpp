/// @file isotropic_projection.hpp
/// The PSD projection of an isotropic density's Hessian A = d^2 psi / dF^2 from its eigensystem
/// in the singular frame (Smith, De Goes, Kim, "Analytic Eigensystems for Isotropic Distortion
/// Energies", ACM TOG 2019), instead of an eigen-solver on the element Hessian.
///
/// For psi(R F Q) = psi(F) (rotations R, Q) and F = U Sigma V^T (signed SVD), write
/// dF = U dF' V^T. The Hessian in that frame, A' = d^2 psi / dF'^2 at F' = Sigma, is block
/// diagonal: one d x d block couples the diagonal entries F'_kk (stretch modes), and one 2 x 2
/// block couples each off-diagonal pair F'_kl, F'_lk (twist and flip modes). The caller evaluates
/// A' at the diagonal matrix Sigma by the material's own derivatives, which stays exact for
/// repeated singular values (no division by sigma_k - sigma_l). The blocks are diagonalised here
/// (Jacobi for 3 x 3, closed form for 2 x 2), and
///
///     A_+ = A - sum_{lambda_m < 0} lambda_m w_m w_m^T,   w_m = vec(U E_m V^T),
///
/// with E_m the block eigenvector placed in F' space: a rank-one update per negative mode.
#pragma once

#include <cmath>

#include "softgrad/detail/ad/invariants.hpp"
#include "softgrad/detail/closed_form_svd.hpp"
#include "softgrad/detail/lanes.hpp"
#include "softgrad/detail/polar.hpp"
#include "softgrad/detail/small_matrix.hpp"

namespace softgrad::ad {

/// Which entries of a projected 9 x 9 density Hessian a caller receives: all of them, or only
/// the blocks A[(i, .), (k, .)] with k >= i that chain_hessian reads (the element kernels),
/// which makes each removed mode about half as expensive. The diagonal blocks then agree with
/// the full projection to round-off, not bit for bit.
enum class ProjectedEntries { All, ChainBlocks };

namespace detail {

/// A += lambda w w^T for the D-vector w, if lambda > 0 (upper triangle only).
template <int D>
SOFTGRAD_HD void add_mode(double lambda, const double* w, double* A) {
  if (!(lambda > 0.0)) return;
  for (int i = 0; i < D; ++i) {
    const double lw = lambda * w[i];
    for (int j = i; j < D; ++j) A[i * D + j] += lw * w[j];
  }
}

/// w = vec(U E V^T) for the stretch mode E = diag(q(., m)): w_ij = sum_k U_ik q_km V_jk.
template <int d>
SOFTGRAD_HD void stretch_mode(const Mat<double, d, d>& U, const Mat<double, d, d>& V,
                              const Mat<double, d, d>& q, int m, double* w) {
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j) {
      double sum = 0.0;
      for (int k = 0; k < d; ++k) sum += U(i, k) * q(k, m) * V(j, k);
      w[i * d + j] = sum;
    }
}

/// w = vec(U E V^T) for the pair mode E = alpha e_k e_l^T + beta e_l e_k^T.
template <int d>
SOFTGRAD_HD void pair_mode(const Mat<double, d, d>& U, const Mat<double, d, d>& V, int k, int l,
                           double alpha, double beta, double* w) {
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j) w[i * d + j] = alpha * U(i, k) * V(j, l) + beta * U(i, l) * V(j, k);
}

/// The stretch modes: eigenvectors (q(0, m), ..., q(d-1, m)) of the diagonal block S.
template <int d>
SOFTGRAD_HD void stretch_eigen(const Mat<double, d, d>& S, Mat<double, d, d>& q, double* lambda) {
  if constexpr (d == 3) {
    softgrad::detail::svd3::symmetric_eigen(S, q, lambda);
  } else {
    double cs = 1.0;
    double sn = 0.0;
    softgrad::detail::symmetric_eigen_2x2(S(0, 0), S(0, 1), S(1, 1), lambda, cs, sn);
    q(0, 0) = cs;
    q(1, 0) = sn;
    q(0, 1) = -sn;
    q(1, 1) = cs;
  }
}

}  // namespace detail

/// True if the symmetric D x D matrix A (row-major) is positive definite: an LDL^T without
/// pivoting whose every pivot is positive, ~D^3/6 flops. Most elements pass, and then need no
/// SVD at all.
template <int D>
SOFTGRAD_HD bool positive_definite(const double* A) {
  double L[D * D];  // L[j][k], k < j (unit diagonal)
  double W[D * D];  // L[j][k] d_k
  double inv_pivot[D];
  for (int j = 0; j < D; ++j) {
    double pivot = A[j * D + j];
    for (int k = 0; k < j; ++k) {
      double w = A[j * D + k];
      for (int m = 0; m < k; ++m) w -= L[j * D + m] * W[k * D + m];
      W[j * D + k] = w;
      L[j * D + k] = w * inv_pivot[k];
      pivot -= L[j * D + k] * w;
    }
    if (!(pivot > 0.0)) return false;  // also NaN
    inv_pivot[j] = 1.0 / pivot;
  }
  return true;
}

/// Ap = K^T A K with K = d vec(U dF' V^T) / d vec(dF'), K[(i,j),(p,q)] = U_ip V_jq: the Hessian
/// A = d^2 psi / dF^2 at F = U diag(sigma) V^T in F's singular frame. For an isotropic density
/// this is d^2 psi / dF'^2 at F' = diag(sigma), to round-off, without evaluating the material
/// again. Two passes of 3 x 3 products per row and column (about 2 d^5 flops, ~900 in 3D).
template <int d>
SOFTGRAD_HD void rotate_to_singular_frame(const Mat<double, d, d>& U, const Mat<double, d, d>& V,
                                          const double* A, double* Ap) {
  constexpr int D = d * d;
  const Mat<double, d, d> Ut = transpose(U);
  double T[D * D];  // A K: row r of A, as a d x d matrix M, becomes U^T M V
  for (int r = 0; r < D; ++r) {
    Mat<double, d, d> M;
    for (int k = 0; k < D; ++k) M.a[k] = A[r * D + k];
    const Mat<double, d, d> rotated = Ut * M * V;
    for (int k = 0; k < D; ++k) T[r * D + k] = rotated.a[k];
  }
  for (int c = 0; c < D; ++c) {  // K^T (A K): the same on each column
    Mat<double, d, d> M;
    for (int k = 0; k < D; ++k) M.a[k] = T[k * D + c];
    const Mat<double, d, d> rotated = Ut * M * V;
    for (int k = 0; k < D; ++k) Ap[k * D + c] = rotated.a[k];
  }
}

/// A -= sum of lambda w w^T over the negative modes of the Hessian A = (U (x) V) Ap (U (x) V)^T,
/// where Ap (d^2 x d^2, row-major) is its singular-frame form at F' = diag(sigma) and
/// F = U diag(sigma) V^T: the PSD projection of A. Entries of Ap outside the blocks are zero
/// for an isotropic density and are not read. A stays exactly symmetric.
template <int d>
SOFTGRAD_HD void clamp_negative_modes(const Mat<double, d, d>& U, const Mat<double, d, d>& V,
                                      const double* Ap, double* A) {
  constexpr int D = d * d;
  double w[D];  // the modes update A's upper triangle, mirrored at the end
  // Stretch modes: E = diag(q(., m)).
  Mat<double, d, d> S;
  for (int k = 0; k < d; ++k)
    for (int l = 0; l < d; ++l) S(k, l) = Ap[(k * d + k) * D + l * d + l];
  Mat<double, d, d> q = identity<double, d>();
  double lambda[d];
  // Usually positive definite (stiffness against stretch and volume change): then no
  // eigen-decomposition.
  if (positive_definite<d>(S.a)) {
    for (int m = 0; m < d; ++m) lambda[m] = 1.0;
  } else {
    detail::stretch_eigen<d>(S, q, lambda);
  }
  for (int m = 0; m < d; ++m) {
    if (!(lambda[m] < 0.0)) continue;
    detail::stretch_mode<d>(U, V, q, m, w);
    detail::add_mode<D>(-lambda[m], w, A);
  }
  // Twist and flip modes of each pair k < l: E = alpha e_k e_l^T + beta e_l e_k^T.
  for (int k = 0; k < d; ++k)
    for (int l = k + 1; l < d; ++l) {
      const int kl = k * d + l;
      const int lk = l * d + k;
      double pair_lambda[2];
      double cs = 1.0;
      double sn = 0.0;
      softgrad::detail::symmetric_eigen_2x2(Ap[kl * D + kl], Ap[kl * D + lk], Ap[lk * D + lk],
                                            pair_lambda, cs, sn);
      for (int m = 0; m < 2; ++m) {
        if (!(pair_lambda[m] < 0.0)) continue;
        const double alpha = m == 0 ? cs : -sn;
        const double beta = m == 0 ? sn : cs;
        detail::pair_mode<d>(U, V, k, l, alpha, beta, w);
        detail::add_mode<D>(-pair_lambda[m], w, A);
      }
    }
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < i; ++j) A[i * D + j] = A[j * D + i];
}

namespace detail {

/// True where the symmetric 3 x 3 S (row-major) is positive definite: its leading principal
/// minors are positive (Sylvester). Branch-free, for lanes.
template <class T>
SOFTGRAD_HD auto leading_minors_positive(const T* S) {
  const T m2 = S[0] * S[4] - S[1] * S[1];
  const T m3 = S[0] * (S[4] * S[8] - S[5] * S[7]) - S[1] * (S[3] * S[8] - S[5] * S[6]) +
               S[2] * (S[3] * S[7] - S[4] * S[6]);
  return S[0] > 0.0 && m2 > 0.0 && m3 > 0.0;
}

/// row[c] -= lw w[c] for c = First .. 8 (a compile-time start, so that the loop vectorises
/// without bookkeeping).
template <int First>
SOFTGRAD_HD SOFTGRAD_FORCE_INLINE void remove_row_piece(double lw, const double* w, double* row) {
  for (int c = First; c < 9; ++c) row[c] -= lw * w[c];
}

/// A -= lambda w w^T for a 9-vector w on the blocks chain_hessian reads: block row i, block
/// column k >= i (rows r, columns c >= 3 floor(r / 3)), 54 of the 81 entries. Contiguous row
/// pieces of 9, 6 and 3 entries vectorise; a mode costs about half of a full update.
SOFTGRAD_HD SOFTGRAD_FORCE_INLINE void remove_mode(double lambda, const double* w, double* A) {
  for (int r = 0; r < 3; ++r) remove_row_piece<0>(lambda * w[r], w, A + r * 9);
  for (int r = 3; r < 6; ++r) remove_row_piece<3>(lambda * w[r], w, A + r * 9);
  for (int r = 6; r < 9; ++r) remove_row_piece<6>(lambda * w[r], w, A + r * 9);
}

/// A's lower triangle from its upper one, which remove_mode keeps: A exactly symmetric.
SOFTGRAD_HD inline void mirror_upper_triangle(double* A) {
  for (int r = 1; r < 9; ++r)
    for (int c = 0; c < r; ++c) A[r * 9 + c] = A[c * 9 + r];
}

/// A -= the negative modes of one element, from its singular frame (U, V) and blocks: every
/// entry (Entries::All) or the blocks chain_hessian reads (Entries::ChainBlocks).
template <ProjectedEntries Entries>
SOFTGRAD_HD void remove_invariant_negative_modes(const Mat<double, 3, 3>& U,
                                                 const Mat<double, 3, 3>& V, const double* stretch,
                                                 const double* c, const double* e, bool stretch_pd,
                                                 double* A) {
  constexpr double kHalfSqrt2 = 0.70710678118654752440;
  double w[9];
  for (int q = 0; q < 3; ++q) {
    const int k = frame_pair_first(q);
    const int l = frame_pair_second(q);
    for (int sign = 1; sign >= -1; sign -= 2) {
      const double lambda = c[q] + sign * e[q];
      if (!(lambda < 0.0)) continue;
      // E = (e_k e_l^T + sign e_l e_k^T) / sqrt 2.
      pair_mode<3>(U, V, k, l, kHalfSqrt2, sign * kHalfSqrt2, w);
      remove_mode(lambda, w, A);
    }
  }
  if (!stretch_pd) {
    Mat<double, 3, 3> S;
    for (int k = 0; k < 9; ++k) S.a[k] = stretch[k];
    Mat<double, 3, 3> q;
    double lambda[3];
    symmetric_eigen_closed_form(S, q, lambda);
    for (int m = 0; m < 3; ++m) {
      if (!(lambda[m] < 0.0)) continue;
      stretch_mode<3>(U, V, q, m, w);
      remove_mode(lambda[m], w, A);
    }
  }
  if constexpr (Entries == ProjectedEntries::All) mirror_upper_triangle(A);
}

}  // namespace detail

/// F's singular frame and the singular-frame Hessian blocks of a 3D density in invariant form,
/// for one element (T = double) or L side by side (T = Lanes<L>): what the projection decides
/// and removes the negative modes from.
template <class T>
struct InvariantFrame {
  using Mask = decltype(T(0.0) > 0.0);
  Mat<T, 3, 3> U;
  Mat<T, 3, 3> V;
  InvariantFrameBlocks<T> blocks;
  Mask stretch_pd;  ///< the stretch block is positive definite
  Mask pd;          ///< every block is: d^2 psi / dF^2 is positive definite
};

/// The frame at F, given C = F^T F, J = det F and the invariant derivatives dpsi (3) and d2psi
/// (3 x 3): the closed-form SVD (signed_svd for nearly singular F), the blocks from
/// invariant_frame_blocks, and positive definiteness decided block by block. Lanes do not mix.
template <class T>
SOFTGRAD_HD InvariantFrame<T> invariant_frame(const Mat<T, 3, 3>& F, const Mat<T, 3, 3>& C,
                                              const T& J, const T* dpsi, const T* d2psi) {
  constexpr int L = kLaneCount<T>;
  InvariantFrame<T> frame;
  T sigma[3];
  const auto ok = signed_svd_from_normal_matrix(F, C, J, frame.U, sigma, frame.V);
  for (int l = 0; l < L; ++l) {
    if (lane(ok, l)) continue;
    Mat<double, 3, 3> Fl, Ul, Vl;
    double sl[3];
    for (int k = 0; k < 9; ++k) Fl.a[k] = lane(F.a[k], l);
    signed_svd(Fl, Ul, sl, Vl);
    for (int k = 0; k < 9; ++k) {
      set_lane(frame.U.a[k], l, Ul.a[k]);
      set_lane(frame.V.a[k], l, Vl.a[k]);
    }
    for (int k = 0; k < 3; ++k) set_lane(sigma[k], l, sl[k]);
  }
  frame.blocks = invariant_frame_blocks(sigma, dpsi, d2psi);
  frame.stretch_pd = detail::leading_minors_positive(frame.blocks.stretch);
  frame.pd = frame.stretch_pd;
  using std::abs;
  for (int q = 0; q < 3; ++q) frame.pd = frame.pd && frame.blocks.c[q] > abs(frame.blocks.e[q]);
  return frame;
}

/// A[l] <- its PSD projection, for each lane l of the frame (A[l] lane l's 9 x 9 d^2 psi / dF^2,
/// row-major; null: nothing to project): a positive definite element is left as it is, bit for
/// bit, and any other has its negative modes removed (in the entries that Entries names).
template <ProjectedEntries Entries, class T>
SOFTGRAD_HD void remove_negative_modes(const InvariantFrame<T>& frame, double* const* A) {
  constexpr int L = kLaneCount<T>;
  for (int l = 0; l < L; ++l) {
    if (!A[l] || lane(frame.pd, l)) continue;
    Mat<double, 3, 3> Ul, Vl;
    double stretch[9], c[3], e[3];
    for (int k = 0; k < 9; ++k) {
      Ul.a[k] = lane(frame.U.a[k], l);
      Vl.a[k] = lane(frame.V.a[k], l);
      stretch[k] = lane(frame.blocks.stretch[k], l);
    }
    for (int q = 0; q < 3; ++q) {
      c[q] = lane(frame.blocks.c[q], l);
      e[q] = lane(frame.blocks.e[q], l);
    }
    detail::remove_invariant_negative_modes<Entries>(Ul, Vl, stretch, c, e,
                                                     lane(frame.stretch_pd, l), A[l]);
  }
}

/// A <- A_+ for a 3D density in invariant form (invariant_frame, then remove_negative_modes): for
/// one element (T = double, A[0]) or L side by side (T = Lanes<L>, A[l] lane l's).
template <ProjectedEntries Entries, class T>
SOFTGRAD_HD void project_invariant_hessian(const Mat<T, 3, 3>& F, const Mat<T, 3, 3>& C, const T& J,
                                           const T* dpsi, const T* d2psi, double* const* A) {
  remove_negative_modes<Entries>(invariant_frame(F, C, J, dpsi, d2psi), A);
}

}  // namespace softgrad::ad
