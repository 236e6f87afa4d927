/// @file invariants.hpp
/// The invariant form of isotropic densities, psi(F) = Psi(I_C, II_C, J), with
///
///     I_C = tr C = ||F||^2,   II_C = tr(C^T C) = ||F^T F||^2,   J = det F,   C = F^T F
///
/// (Kim & Eberle, "Dynamic Deformables", SIGGRAPH 2022 course notes, ch. 5; Smith et al.,
/// "Analytic eigensystems for isotropic distortion energies", ACM TOG 2019). In 2D they are the
/// invariants of the plane-strain gradient diag(F, 1): I_C and II_C include its F_33 = 1 (+1 each),
/// J is unchanged, so one Psi serves both dimensions.
///
/// A material that provides `psi_invariants(I_C, II_C, J, p)` (material.hpp) has AD differentiate
/// that scalar function of three variables only: a tape of a few nodes over Dual<3>. The chain
///
///     P     = dpsi/dF     = sum_k Psi_k g_k,                                 g_k = dI_k/dF,
///     dP/dF = d2psi/dF2   = sum_k Psi_k H_k + sum_kl Psi_kl g_k g_l^T,       H_k = d2I_k/dF2,
///
/// then uses the derivatives of the invariants, which are the same for every material:
///
///     g_I = 2 F,   g_II = 4 F C,   g_J = cof F,
///     H_I [(i,j),(k,l)] = 2 d_ik d_jl,
///     H_II[(i,j),(k,l)] = 4 (d_ik C_jl + F_il F_kj + d_jl (F F^T)_ik),
///     H_J [(i,j),(k,l)] = e_ikm e_jln F_mn (3D),   e_ik e_jl (2D; e the Levi-Civita symbol).
///
/// Terms of II_C are skipped when Psi does not depend on it (all its derivatives are zero).
/// Allocation-free and device-compatible like the rest of ad/.
#pragma once

#include "softgrad/detail/ad/derivatives.hpp"
#include "softgrad/detail/small_matrix.hpp"

namespace softgrad::ad {

/// F with what its invariants and their derivatives share.
template <int d>
struct InvariantBasis {
  double I[3];            ///< I_C, II_C, J (of the plane-strain 3 x 3 gradient in 2D)
  Mat<double, d, d> F;    ///< the deformation gradient
  Mat<double, d, d> C;    ///< F^T F
  Mat<double, d, d> cof;  ///< cof F = dJ/dF
};

/// The invariants of F.
template <int d>
SOFTGRAD_HD InvariantBasis<d> invariant_basis(const Mat<double, d, d>& F) {
  InvariantBasis<d> b;
  b.F = F;
  // C is symmetric: its upper half, mirrored, gives tr C and ||C||^2 too.
  double trace_C = 0.0, diagonal = 0.0, off_diagonal = 0.0;
  for (int i = 0; i < d; ++i)
    for (int j = i; j < d; ++j) {
      double c = 0.0;
      for (int r = 0; r < d; ++r) c += F(r, i) * F(r, j);
      b.C(i, j) = c;
      b.C(j, i) = c;
      if (i == j) {
        trace_C += c;
        diagonal += c * c;
      } else {
        off_diagonal += c * c;
      }
    }
  b.cof = cofactor(F);
  double J = 0.0;
  for (int j = 0; j < d; ++j) J += F(0, j) * b.cof(0, j);
  const double plane = double(3 - d);  // F_33 = 1 in plane strain
  b.I[0] = trace_C + plane;
  b.I[1] = diagonal + 2.0 * off_diagonal + plane;
  b.I[2] = J;
  return b;
}

/// Psi as a flat function of (I_C, II_C, J), for the generic AD drivers.
template <class Material>
struct InvariantDensityFunction {
  template <class T, class P>
  SOFTGRAD_HD T operator()(const T* I, const P* p) const {
    return Material::psi_invariants(I[0], I[1], I[2], p);
  }
};

namespace detail {

/// True unless Psi provably ignores II_C here (zero first and second derivatives).
SOFTGRAD_HD inline bool uses_second_invariant(const double* dpsi, const double* d2psi) {
  return dpsi[1] != 0.0 || d2psi[1] != 0.0 || d2psi[4] != 0.0 || d2psi[7] != 0.0;
}

/// The Levi-Civita symbol e_ikm for i != k and m the remaining index: +1 if (i, k, m) is a cyclic
/// permutation of (0, 1, 2), else -1.
SOFTGRAD_HD constexpr double levi_civita_sign(int i, int k) {
  return (k - i + 3) % 3 == 1 ? 1.0 : -1.0;
}

/// A += s H_J (d^2 det F / dF^2).
template <int d>
SOFTGRAD_HD void add_determinant_hessian(const Mat<double, d, d>& F, double s, double* A) {
  constexpr int D = d * d;
  if constexpr (d == 2) {
    A[0 * D + 3] += s;
    A[3 * D + 0] += s;
    A[1 * D + 2] -= s;
    A[2 * D + 1] -= s;
  } else {
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 3; ++k) {
        if (k == i) continue;
        const double sik = s * levi_civita_sign(i, k);
        const int m = 3 - i - k;
        for (int j = 0; j < 3; ++j)
          for (int l = 0; l < 3; ++l) {
            if (l == j) continue;
            A[(i * 3 + j) * D + k * 3 + l] += sik * levi_civita_sign(j, l) * F(m, 3 - j - l);
          }
      }
  }
}

/// dP += s H_J[dF], the directional derivative of cof F.
template <int d>
SOFTGRAD_HD void add_determinant_hessian_product(const Mat<double, d, d>& F,
                                                 const Mat<double, d, d>& dF, double s,
                                                 double* dP) {
  if constexpr (d == 2) {
    dP[0] += s * dF(1, 1);
    dP[1] -= s * dF(1, 0);
    dP[2] -= s * dF(0, 1);
    dP[3] += s * dF(0, 0);
  } else {
    // cof F = (f1 x f2, f2 x f0, f0 x f1) by columns; differentiate each cross product.
    for (int j = 0; j < 3; ++j) {
      const int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
      for (int i = 0; i < 3; ++i) {
        const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        const double c = dF(i1, j1) * F(i2, j2) - dF(i2, j1) * F(i1, j2) + F(i1, j1) * dF(i2, j2) -
                         F(i2, j1) * dF(i1, j2);
        dP[i * 3 + j] += s * c;
      }
    }
  }
}

/// A += s H_II.
template <int d>
SOFTGRAD_HD void add_second_invariant_hessian(const InvariantBasis<d>& b, double s, double* A) {
  constexpr int D = d * d;
  const Mat<double, d, d> B = b.F * transpose(b.F);
  const double s4 = 4.0 * s;
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j)
      for (int k = 0; k < d; ++k)
        for (int l = 0; l < d; ++l) {
          double h = b.F(i, l) * b.F(k, j);
          if (i == k) h += b.C(j, l);
          if (j == l) h += B(i, k);
          A[(i * d + j) * D + k * d + l] += s4 * h;
        }
}

}  // namespace detail

/// P = sum_k Psi_k g_k from the first derivatives dpsi = (Psi_I, Psi_II, Psi_J).
template <int d>
SOFTGRAD_HD void invariant_stress(const InvariantBasis<d>& b, const double* dpsi, double* P) {
  for (int r = 0; r < d * d; ++r) P[r] = 2.0 * dpsi[0] * b.F.a[r] + dpsi[2] * b.cof.a[r];
  if (dpsi[1] != 0.0) {
    const Mat<double, d, d> FC = b.F * b.C;
    for (int r = 0; r < d * d; ++r) P[r] += 4.0 * dpsi[1] * FC.a[r];
  }
}

/// A = dP/dF (d^2 x d^2, row-major) from dpsi and the symmetric 3 x 3 d2psi.
template <int d>
SOFTGRAD_HD void invariant_stress_differential(const InvariantBasis<d>& b, const double* dpsi,
                                               const double* d2psi, double* A) {
  constexpr int D = d * d;
  // sum_kl Psi_kl g_k g_l^T = sum_k g_k w_k^T with w_k = sum_l Psi_kl g_l.
  double g0[D], g2[D], w0[D], w2[D];
  for (int r = 0; r < D; ++r) {
    g0[r] = 2.0 * b.F.a[r];
    g2[r] = b.cof.a[r];
  }
  if (detail::uses_second_invariant(dpsi, d2psi)) {
    double g1[D], w1[D];
    const Mat<double, d, d> FC = b.F * b.C;
    for (int r = 0; r < D; ++r) g1[r] = 4.0 * FC.a[r];
    for (int c = 0; c < D; ++c) {
      w0[c] = d2psi[0] * g0[c] + d2psi[1] * g1[c] + d2psi[2] * g2[c];
      w1[c] = d2psi[3] * g0[c] + d2psi[4] * g1[c] + d2psi[5] * g2[c];
      w2[c] = d2psi[6] * g0[c] + d2psi[7] * g1[c] + d2psi[8] * g2[c];
    }
    for (int r = 0; r < D; ++r)
      for (int c = 0; c < D; ++c) A[r * D + c] = g0[r] * w0[c] + g1[r] * w1[c] + g2[r] * w2[c];
    detail::add_second_invariant_hessian(b, dpsi[1], A);
  } else {
    for (int c = 0; c < D; ++c) {
      w0[c] = d2psi[0] * g0[c] + d2psi[2] * g2[c];
      w2[c] = d2psi[6] * g0[c] + d2psi[8] * g2[c];
    }
    for (int r = 0; r < D; ++r)
      for (int c = 0; c < D; ++c) A[r * D + c] = g0[r] * w0[c] + g2[r] * w2[c];
  }
  for (int r = 0; r < D; ++r) A[r * D + r] += 2.0 * dpsi[0];
  detail::add_determinant_hessian(b.F, dpsi[2], A);
}

/// A' = d^2 psi / dF'^2 at F' = diag(sigma), the singular-frame form of the Hessian (D x D,
/// row-major; D = d^2), from the invariant derivatives taken at F: the invariants do not change
/// under F = U diag(sigma) V^T, so neither do dpsi and d2psi. At a diagonal F' the invariants'
/// gradients are diagonal, g_k = diag(dI_k / dsigma), so only the blocks that clamp_negative_modes
/// reads are nonzero:
///
///     stretch (F'_kk, F'_ll):  sum_ab Psi_ab gh_a[k] gh_b[l] + (2 Psi_I + 12 Psi_II sigma_k^2)
///     d_kl
///                              + Psi_J sigma_m (k != l; m the third index, 1 in 2D),
///     pair (F'_kl, F'_lk):     [[c, e], [e, c]],  c = 2 Psi_I + 4 Psi_II (sigma_k^2 + sigma_l^2),
///                              e = 4 Psi_II sigma_k sigma_l - Psi_J sigma_m,
///
/// with gh_I = 2 sigma, gh_II = 4 sigma^3, gh_J[k] = the product of the other sigmas. Writes every
/// entry of Ap (zeros outside the blocks). No AD: a few dozen flops.
template <int d>
SOFTGRAD_HD void invariant_singular_frame_hessian(const double* sigma, const double* dpsi,
                                                  const double* d2psi, double* Ap) {
  constexpr int D = d * d;
  for (int r = 0; r < D * D; ++r) Ap[r] = 0.0;
  double gh[3][d];
  for (int k = 0; k < d; ++k) {
    double others = 1.0;
    for (int m = 0; m < d; ++m)
      if (m != k) others *= sigma[m];
    gh[0][k] = 2.0 * sigma[k];
    gh[1][k] = 4.0 * sigma[k] * sigma[k] * sigma[k];
    gh[2][k] = others;
  }
  // sigma_m for the pair (k, l): the third singular value in 3D, 1 (F_33) in 2D.
  const auto third = [&](int k, int l) { return d == 3 ? sigma[3 - k - l] : 1.0; };
  for (int k = 0; k < d; ++k)
    for (int l = 0; l < d; ++l) {
      double a = 0.0;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) a += d2psi[i * 3 + j] * gh[i][k] * gh[j][l];
      if (k == l) {
        a += 2.0 * dpsi[0] + 12.0 * dpsi[1] * sigma[k] * sigma[k];
      } else {
        a += dpsi[2] * third(k, l);
      }
      Ap[(k * d + k) * D + l * d + l] = a;
    }
  for (int k = 0; k < d; ++k)
    for (int l = k + 1; l < d; ++l) {
      const int kl = k * d + l;
      const int lk = l * d + k;
      const double c = 2.0 * dpsi[0] + 4.0 * dpsi[1] * (sigma[k] * sigma[k] + sigma[l] * sigma[l]);
      const double e = 4.0 * dpsi[1] * sigma[k] * sigma[l] - dpsi[2] * third(k, l);
      Ap[kl * D + kl] = c;
      Ap[lk * D + lk] = c;
      Ap[kl * D + lk] = e;
      Ap[lk * D + kl] = e;
    }
}

/// The blocks of invariant_singular_frame_hessian<3> alone, for one element (T = double) or
/// several side by side (T = Lanes<L>, lanes.hpp): the stretch block (3 x 3, row-major) and, for
/// the pairs (k, l) = (0, 1), (0, 2), (1, 2), the [[c, e], [e, c]] block, whose modes are
/// E = (e_k e_l^T + e_l e_k^T) / sqrt 2 (eigenvalue c + e) and E = (e_k e_l^T - e_l e_k^T) /
/// sqrt 2 (eigenvalue c - e) for every material.
template <class T>
struct InvariantFrameBlocks {
  T stretch[9];
  T c[3];
  T e[3];
};

/// Pair q of InvariantFrameBlocks is (k, l) = (frame_pair_first(q), frame_pair_second(q)).
SOFTGRAD_HD constexpr int frame_pair_first(int q) { return q == 2 ? 1 : 0; }
SOFTGRAD_HD constexpr int frame_pair_second(int q) { return q == 0 ? 1 : 2; }

template <class T>
SOFTGRAD_HD InvariantFrameBlocks<T> invariant_frame_blocks(const T* sigma, const T* dpsi,
                                                           const T* d2psi) {
  InvariantFrameBlocks<T> out;
  T gh[3][3];
  for (int k = 0; k < 3; ++k) {
    gh[0][k] = 2.0 * sigma[k];
    gh[1][k] = 4.0 * sigma[k] * sigma[k] * sigma[k];
    gh[2][k] = sigma[(k + 1) % 3] * sigma[(k + 2) % 3];
  }
  // stretch_kl = gh(., k)^T d2psi gh(., l) + the diagonal or Psi_J term; d2psi gh(., l) first.
  T dgh[3][3];
  for (int i = 0; i < 3; ++i)
    for (int l = 0; l < 3; ++l)
      dgh[i][l] =
          d2psi[i * 3] * gh[0][l] + d2psi[i * 3 + 1] * gh[1][l] + d2psi[i * 3 + 2] * gh[2][l];
  for (int k = 0; k < 3; ++k)
    for (int l = k; l < 3; ++l) {
      const T a = (k == l ? 2.0 * dpsi[0] + 12.0 * dpsi[1] * sigma[k] * sigma[k]
                          : dpsi[2] * sigma[3 - k - l]) +
                  (gh[0][k] * dgh[0][l] + gh[1][k] * dgh[1][l] + gh[2][k] * dgh[2][l]);
      out.stretch[k * 3 + l] = a;
      out.stretch[l * 3 + k] = a;
    }
  for (int q = 0; q < 3; ++q) {
    const int k = frame_pair_first(q);
    const int l = frame_pair_second(q);
    const int m = 3 - k - l;
    out.c[q] = 2.0 * dpsi[0] + 4.0 * dpsi[1] * (sigma[k] * sigma[k] + sigma[l] * sigma[l]);
    out.e[q] = 4.0 * dpsi[1] * sigma[k] * sigma[l] - dpsi[2] * sigma[m];
  }
  return out;
}

/// dP = (dP/dF)[dF] from dpsi and the invariant tangent dPsi_k = sum_l Psi_kl (g_l : dF).
template <int d>
SOFTGRAD_HD void invariant_stress_product(const InvariantBasis<d>& b, const double* dpsi,
                                          const double* dpsi_tangent, const Mat<double, d, d>& dF,
                                          double* dP) {
  constexpr int D = d * d;
  double tangent[3] = {dpsi_tangent[0], dpsi_tangent[1], dpsi_tangent[2]};
  invariant_stress(b, tangent, dP);
  for (int r = 0; r < D; ++r) dP[r] += 2.0 * dpsi[0] * dF.a[r];
  detail::add_determinant_hessian_product(b.F, dF, dpsi[2], dP);
  if (dpsi[1] != 0.0) {
    // H_II[dF] = 4 (dF C + F dF^T F + F F^T dF)
    const Mat<double, d, d> Ft = transpose(b.F);
    const Mat<double, d, d> H = dF * b.C + b.F * (transpose(dF) * b.F) + b.F * (Ft * dF);
    for (int r = 0; r < D; ++r) dP[r] += 4.0 * dpsi[1] * H.a[r];
  }
}

/// The invariant differentials g_k : dF, k = I_C, II_C, J.
template <int d>
SOFTGRAD_HD void invariant_differentials(const InvariantBasis<d>& b, const Mat<double, d, d>& dF,
                                         double* dI) {
  const Mat<double, d, d> FC = b.F * b.C;
  dI[0] = 2.0 * ddot(b.F, dF);
  dI[1] = 4.0 * ddot(FC, dF);
  dI[2] = ddot(b.cof, dF);
}

}  // namespace softgrad::ad
