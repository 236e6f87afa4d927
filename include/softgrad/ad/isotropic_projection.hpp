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

#include "softgrad/polar.hpp"
#include "softgrad/small_matrix.hpp"

namespace softgrad::ad {

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

/// A -= sum of lambda w w^T over the negative modes of the Hessian A = (U (x) V) Ap (U (x) V)^T,
/// where Ap (d^2 x d^2, row-major) is its singular-frame form at F' = diag(sigma) and
/// F = U diag(sigma) V^T: the PSD projection of A. Entries of Ap outside the blocks are zero
/// for an isotropic density and are not read. A stays exactly symmetric.
template <int d>
SOFTGRAD_HD void clamp_negative_modes(const Mat<double, d, d>& U, const Mat<double, d, d>& V,
                                      const double* Ap, double* A) {
  constexpr int D = d * d;
  double w[D];  // the modes update A's upper triangle, mirrored at the end
  // Stretch modes: E = diag(q(., m)), so w_ij = sum_k U_ik q_km V_jk.
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
    for (int i = 0; i < d; ++i)
      for (int j = 0; j < d; ++j) {
        double sum = 0.0;
        for (int k = 0; k < d; ++k) sum += U(i, k) * q(k, m) * V(j, k);
        w[i * d + j] = sum;
      }
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
        for (int i = 0; i < d; ++i)
          for (int j = 0; j < d; ++j)
            w[i * d + j] = alpha * U(i, k) * V(j, l) + beta * U(i, l) * V(j, k);
        detail::add_mode<D>(-pair_lambda[m], w, A);
      }
    }
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < i; ++j) A[i * D + j] = A[j * D + i];
}

}  // namespace softgrad::ad
