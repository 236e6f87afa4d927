/// @file hyperelastic.hpp
/// Element kernels for hyperelastic materials on linear simplices, shared by every material.
///
/// For an element with rest-shape matrix Dm (columns X_a - X_0) and rest volume V, the
/// deformation gradient is F = sum_a x_a (x) G_a with shape-function gradients G_{a+1} = row a
/// of Dm^{-1} and G_0 = -sum_a G_a, and the element energy is E = V psi(F; p), whose density
/// derivatives come from density.hpp. The chain rule through the constant dF/dx is applied here
/// once, exploiting its Kronecker structure (O(N^2 d) instead of O(N^2 d^2) for the Hessian).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

#include "softgrad/detail/ad/batched_projection.hpp"
#include "softgrad/detail/ad/density.hpp"
#include "softgrad/detail/ad/isotropic_projection.hpp"
#include "softgrad/detail/ad/psd_projection.hpp"

namespace softgrad::ad {

/// Why an element kernel produced no derivatives.
enum class ElementStatus { Ok = 0, Inverted = 1, TapeOverflow = 2 };

/// Per-element constants in the form the kernels use.
template <int d>
struct ElementShape {
  double G[(d + 1) * d];  ///< shape-function gradients, row a = G_a
  double volume;          ///< rest volume (area in 2D)
};

/// G from Dm^{-1} (row-major d x d) and the rest volume.
template <int d>
SOFTGRAD_HD ElementShape<d> element_shape(const double* Dm_inv, double volume) {
  ElementShape<d> s;
  for (int j = 0; j < d; ++j) {
    double sum = 0.0;
    for (int a = 0; a < d; ++a) {
      s.G[(a + 1) * d + j] = Dm_inv[a * d + j];
      sum += Dm_inv[a * d + j];
    }
    s.G[j] = -sum;
  }
  s.volume = volume;
  return s;
}

/// F_ij = sum_a v_{a,i} G_{a,j} for element vectors v (positions, or a direction for dF).
template <int d>
SOFTGRAD_HD Mat<double, d, d> apply_shape(const ElementShape<d>& s, const double* v) {
  Mat<double, d, d> F = filled<double, d, d>(0.0);
  for (int a = 0; a <= d; ++a)
    for (int i = 0; i < d; ++i)
      for (int j = 0; j < d; ++j) F(i, j) += v[a * d + i] * s.G[a * d + j];
  return F;
}

/// out_{a,i} = scale * sum_j P_ij G_{a,j}: the transpose of apply_shape.
template <int d>
SOFTGRAD_HD void apply_shape_transpose(const ElementShape<d>& s, const double* P, double scale,
                                       double* out) {
  for (int a = 0; a <= d; ++a)
    for (int i = 0; i < d; ++i) {
      double sum = 0.0;
      for (int j = 0; j < d; ++j) sum += P[i * d + j] * s.G[a * d + j];
      out[a * d + i] = scale * sum;
    }
}

/// Element energy V psi(F); +infinity for an inverted element of a material forbidding it.
template <class Material, int d>
SOFTGRAD_HD double element_energy(const ElementShape<d>& s, const double* x, const double* p) {
  const Mat<double, d, d> F = apply_shape(s, x);
  if (!admissible<Material>(F)) return std::numeric_limits<double>::infinity();
  return s.volume * Material::psi(F, p);
}

/// Energy and gradient g (N = (d+1) d entries).
template <class Material, int d>
SOFTGRAD_HD ElementStatus element_gradient(const ElementShape<d>& s, const double* x,
                                           const double* p, double& energy, double* g) {
  const Mat<double, d, d> F = apply_shape(s, x);
  if (!admissible<Material>(F)) return ElementStatus::Inverted;
  double P[d * d];
  double psi = 0.0;
  if (!density_gradient<Material>(F, p, psi, P)) return ElementStatus::TapeOverflow;
  energy = s.volume * psi;
  apply_shape_transpose(s, P, s.volume, g);
  return ElementStatus::Ok;
}

/// H_x = V B^T A B with A = d^2 psi / dF^2 and B = dF/dx, block by block:
///
///     H[(a,i),(b,k)] = V sum_jl G_aj A[(i,j),(k,l)] G_bl = V (G A_ik G^T)_ab,
///
/// with A_ik the d x d block A[(i,.),(k,.)]. Only the blocks k >= i are computed (the others are
/// their transposes), and only with the rows G_1..G_d = Dm^{-1}: since G_0 = -sum_a G_a, vertex
/// 0's rows and columns are negated sums of the others (translation invariance). That is about
/// half the work of the plain Kronecker product. Every entry is written together with its mirror
/// image, so H is exactly symmetric.
template <int d>
SOFTGRAD_HD void chain_hessian(const ElementShape<d>& s, const double* A, double* H) {
  constexpr int D = d * d;
  constexpr int N = (d + 1) * d;
  const double* Dm_inv = s.G + d;  // rows 1..d of G
  for (int i = 0; i < d; ++i)
    for (int k = i; k < d; ++k) {
      // X = A_ik Dm_inv^T, M = V Dm_inv X
      double X[d][d];
      for (int j = 0; j < d; ++j)
        for (int b = 0; b < d; ++b) {
          double sum = 0.0;
          for (int l = 0; l < d; ++l) sum += A[(i * d + j) * D + k * d + l] * Dm_inv[b * d + l];
          X[j][b] = sum;
        }
      double M[d + 1][d + 1];
      for (int a = 0; a < d; ++a)
        for (int b = 0; b < d; ++b) {
          double sum = 0.0;
          for (int j = 0; j < d; ++j) sum += Dm_inv[a * d + j] * X[j][b];
          M[a + 1][b + 1] = s.volume * sum;
        }
      // Vertex 0: negated column sums, then negated row sums (including the corner).
      for (int b = 1; b <= d; ++b) {
        double sum = 0.0;
        for (int a = 1; a <= d; ++a) sum += M[a][b];
        M[0][b] = -sum;
      }
      for (int a = 0; a <= d; ++a) {
        double sum = 0.0;
        for (int b = 1; b <= d; ++b) sum += M[a][b];
        M[a][0] = -sum;
      }
      for (int a = 0; a <= d; ++a)
        for (int b = 0; b <= d; ++b) {
          H[(a * d + i) * N + b * d + k] = M[a][b];
          H[(b * d + k) * N + a * d + i] = M[a][b];
        }
    }
}

/// A <- A_+ for a density in invariant form, whose invariant derivatives dpsi (3) and d2psi
/// (3 x 3) at F are known: the singular-frame Hessian then comes in closed form, without
/// evaluating the material again. A positive definite A is left as it is. In 3D, Entries says
/// which entries are projected (ProjectedEntries); 2D projects all.
template <int d, ProjectedEntries Entries = ProjectedEntries::All>
SOFTGRAD_HD void project_invariant_density_hessian(const InvariantBasis<d>& b, const double* dpsi,
                                                   const double* d2psi, double* A) {
  if constexpr (d == 3) {
    double* const lanes[1] = {A};
    project_invariant_hessian<Entries, double>(b.F, b.C, b.I[2], dpsi, d2psi, lanes);
  } else {
    if (positive_definite<4>(A)) return;
    Mat<double, 2, 2> U;
    Mat<double, 2, 2> V;
    double sigma[2];
    signed_svd(b.F, U, sigma, V);
    double A_rot[16];
    invariant_singular_frame_hessian<2>(sigma, dpsi, d2psi, A_rot);
    clamp_negative_modes<2>(U, V, A_rot, A);
  }
}

/// F = U diag(sigma) V^T, the signed SVD: in 3D in closed form from C = F^T F where that is
/// accurate (closed_form_svd.hpp), else by Jacobi sweeps (polar.hpp).
template <int d>
SOFTGRAD_HD void element_signed_svd(const Mat<double, d, d>& F, Mat<double, d, d>& U, double* sigma,
                                    Mat<double, d, d>& V) {
  if constexpr (d == 3) {
    if (signed_svd_from_normal_matrix(F, transpose(F) * F, det(F), U, sigma, V)) return;
  }
  signed_svd(F, U, sigma, V);
}

/// A <- A_+, the PSD projection of A = d^2 psi / dF^2 at F, for an isotropic material: its
/// negative modes in F's singular frame are removed (isotropic_projection.hpp). A density in
/// invariant form gets the frame's blocks from its invariant derivatives; any other from A
/// itself, rotated into the frame (no second evaluation of the material). False if the tape
/// overflowed.
template <class Material, int d>
SOFTGRAD_HD bool project_isotropic_density_hessian(const Mat<double, d, d>& F, const double* p,
                                                   double* A) {
  if constexpr (HasInvariantForm<Material>) {
    const InvariantBasis<d> b = invariant_basis(F);
    double psi = 0.0;
    double dpsi[3];
    double d2psi[9];
    if (!invariant_hessian<Material>(b.I, p, psi, dpsi, d2psi)) return false;
    project_invariant_density_hessian<d>(b, dpsi, d2psi, A);
  } else {
    constexpr int D = d * d;
    Mat<double, d, d> U;
    Mat<double, d, d> V;
    double sigma[d];
    element_signed_svd(F, U, sigma, V);
    double A_rot[D * D];
    rotate_to_singular_frame<d>(U, V, A, A_rot);
    clamp_negative_modes<d>(U, V, A_rot, A);
  }
  return true;
}

/// How an element Hessian H = V B^T A B is made PSD, given A = d^2 psi / dF^2 at parameters p.
/// H is PSD exactly when A is (B = dF/dx is onto), so a convex density within its parameter
/// ranges, or a positive definite A (the common case near rest), needs nothing; otherwise an
/// isotropic density's A is projected in F's singular frame, and any other H by an
/// eigen-solver.
enum class Projection { None, SingularFrame, EigenSolver };

template <class Material, int d>
SOFTGRAD_HD Projection projection_needed(const double* A, const double* p) {
  if constexpr (IsConvex<Material>) {
    if (parameters_in_range<Material>(p)) return Projection::None;
  }
  if (positive_definite<d * d>(A)) return Projection::None;
  return IsIsotropic<Material> ? Projection::SingularFrame : Projection::EigenSolver;
}

namespace detail {
/// An invariant-form element's energy, gradient g and exact A = d^2 psi / dF^2, keeping the
/// basis and invariant derivatives for the projection (density_hessian's steps).
template <class Material, int d>
SOFTGRAD_HD ElementStatus invariant_element_derivatives(const ElementShape<d>& s, const double* x,
                                                        const double* p, double& energy, double* g,
                                                        double* A, InvariantBasis<d>& b,
                                                        double* dpsi, double* d2psi) {
  const Mat<double, d, d> F = apply_shape(s, x);
  if (!admissible<Material>(F)) return ElementStatus::Inverted;
  b = invariant_basis(F);
  double psi = 0.0;
  if (!invariant_hessian<Material>(b.I, p, psi, dpsi, d2psi)) return ElementStatus::TapeOverflow;
  double P[d * d];
  invariant_stress(b, dpsi, P);
  invariant_stress_differential(b, dpsi, d2psi, A);
  energy = s.volume * psi;
  apply_shape_transpose(s, P, s.volume, g);
  return ElementStatus::Ok;
}
}  // namespace detail

/// Energy, gradient and element Hessian H (N x N row-major), optionally projected to PSD.
template <class Material, int d>
ElementStatus element_hessian(const ElementShape<d>& s, const double* x, const double* p,
                              bool project, double& energy, double* g, double* H) {
  constexpr int D = d * d;
  double A[D * D];
  if constexpr (HasInvariantForm<Material>) {
    InvariantBasis<d> b;
    double dpsi[3];
    double d2psi[9];
    const ElementStatus status =
        detail::invariant_element_derivatives<Material>(s, x, p, energy, g, A, b, dpsi, d2psi);
    if (status != ElementStatus::Ok) return status;
    if (project)
      project_invariant_density_hessian<d, ProjectedEntries::ChainBlocks>(b, dpsi, d2psi, A);
    chain_hessian(s, A, H);
    return ElementStatus::Ok;
  }
  const Mat<double, d, d> F = apply_shape(s, x);
  if (!admissible<Material>(F)) return ElementStatus::Inverted;
  double P[D];
  double psi = 0.0;
  if (!density_hessian<Material>(F, p, psi, P, A)) return ElementStatus::TapeOverflow;
  energy = s.volume * psi;
  apply_shape_transpose(s, P, s.volume, g);
  const Projection how = project ? projection_needed<Material, d>(A, p) : Projection::None;
  if (how == Projection::SingularFrame && !project_isotropic_density_hessian<Material>(F, p, A))
    return ElementStatus::TapeOverflow;
  chain_hessian(s, A, H);
  if (how == Projection::EigenSolver) project_psd<(d + 1) * d>(H);
  return ElementStatus::Ok;
}

/// element_hessian with project = true for up to L <= kProjectionBatch 3D elements of a
/// material in invariant form: each element's derivatives, then their projections in one batch
/// on the CPU's widest vector instructions (batched_projection.hpp), then each one's chain rule.
/// Element k < count has shape s[k], positions x[k], parameters p[k] and outputs energy[k],
/// g[k], H[k], status[k]; each result is bit for bit element_hessian's (no fused multiply-adds
/// in either).
template <class Material, int L>
requires HasInvariantForm<Material>
void projected_element_hessians(const ElementShape<3>* s, const double* const* x,
                                const double* const* p, int count, double* energy, double* const* g,
                                double* const* H, ElementStatus* status) {
  static_assert(L >= 1 && L <= kProjectionBatch, "one batch at most");
  double A[L][81];
  ProjectionBatch batch;
  for (int l = 0; l < kProjectionBatch; ++l) {
    InvariantBasis<3> b;
    double dpsi[3];
    double d2psi[9];
    bool ok = false;
    if (l < count) {
      status[l] = detail::invariant_element_derivatives<Material>(s[l], x[l], p[l], energy[l], g[l],
                                                                  A[l], b, dpsi, d2psi);
      ok = status[l] == ElementStatus::Ok;
    }
    if (!ok) {
      // A harmless stand-in: F = I with a positive definite frame, not projected.
      b = invariant_basis(identity<double, 3>());
      for (int k = 0; k < 3; ++k) dpsi[k] = k == 0 ? 1.0 : 0.0;
      for (int k = 0; k < 9; ++k) d2psi[k] = 0.0;
    }
    for (int k = 0; k < 9; ++k) {
      batch.F[k][l] = b.F.a[k];
      batch.C[k][l] = b.C.a[k];
      batch.d2psi[k][l] = d2psi[k];
    }
    for (int k = 0; k < 3; ++k) batch.dpsi[k][l] = dpsi[k];
    batch.J[l] = b.I[2];
    batch.A[l] = ok ? A[l] : nullptr;
  }
  project_invariant_batch(batch);
  for (int l = 0; l < count; ++l)
    if (status[l] == ElementStatus::Ok) chain_hessian(s[l], A[l], H[l]);
}

/// Hessian-vector product Hu for an element direction u, without forming H.
template <class Material, int d>
SOFTGRAD_HD ElementStatus element_hessian_vector_product(const ElementShape<d>& s, const double* x,
                                                         const double* p, const double* u,
                                                         double* Hu) {
  const Mat<double, d, d> F = apply_shape(s, x);
  if (!admissible<Material>(F)) return ElementStatus::Inverted;
  const Mat<double, d, d> dF = apply_shape(s, u);
  double dP[d * d];
  if (!density_hessian_vector_product<Material>(F, p, dF, dP)) return ElementStatus::TapeOverflow;
  apply_shape_transpose(s, dP, s.volume, Hu);
  return ElementStatus::Ok;
}

/// dE/dp and the mixed product d/dp (lambda . dE/dx) for an element adjoint vector lambda.
/// Either output may be null.
template <class Material, int d>
SOFTGRAD_HD ElementStatus element_parameter_derivatives(const ElementShape<d>& s, const double* x,
                                                        const double* p, const double* lambda,
                                                        double* dE_dp, double* mixed) {
  constexpr int M = kNumParams<Material>;
  const Mat<double, d, d> F = apply_shape(s, x);
  if (!admissible<Material>(F)) return ElementStatus::Inverted;
  Mat<double, d, d> dF = filled<double, d, d>(0.0);
  if (lambda) dF = apply_shape(s, lambda);
  double dpsi_dp[M];
  double mixed_psi[M];
  if (!density_parameter_derivatives<Material>(F, p, dF, dpsi_dp, mixed_psi))
    return ElementStatus::TapeOverflow;
  for (int j = 0; j < M; ++j) {
    if (dE_dp) dE_dp[j] = s.volume * dpsi_dp[j];
    if (mixed) mixed[j] = s.volume * mixed_psi[j];
  }
  return ElementStatus::Ok;
}

/// jvp = (d^2E / dx dp) dp: how the element's gradient moves when its parameters move along dp.
template <class Material, int d>
SOFTGRAD_HD ElementStatus element_parameter_jvp(const ElementShape<d>& s, const double* x,
                                                const double* p, const double* dp, double* jvp) {
  const Mat<double, d, d> F = apply_shape(s, x);
  if (!admissible<Material>(F)) return ElementStatus::Inverted;
  double dP[d * d];
  if (!density_parameter_jvp<Material>(F, p, dp, dP)) return ElementStatus::TapeOverflow;
  apply_shape_transpose(s, dP, s.volume, jvp);
  return ElementStatus::Ok;
}

}  // namespace softgrad::ad
