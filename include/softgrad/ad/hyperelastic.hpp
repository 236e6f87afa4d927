/// @file hyperelastic.hpp
/// Element kernels for hyperelastic materials on linear simplices, shared by every material.
///
/// For an element with rest-shape matrix Dm (columns X_a - X_0) and rest volume V, the
/// deformation gradient is F = sum_a x_a (x) G_a with shape-function gradients G_{a+1} = row a
/// of Dm^{-1} and G_0 = -sum_a G_a, and the element energy is E = V psi(F; p). AD differentiates
/// psi with respect to F only (d^2 inputs); the chain rule through the constant dF/dx is applied
/// here once, exploiting its Kronecker structure (O(N^2 d) instead of O(N^2 d^2) for the Hessian).
#pragma once

#include <cmath>
#include <limits>

#include "softgrad/ad/derivatives.hpp"
#include "softgrad/ad/psd_projection.hpp"
#include "softgrad/material.hpp"

namespace softgrad::ad {

/// Why an element kernel produced no derivatives.
enum class ElementStatus { Ok = 0, Inverted = 1, TapeOverflow = 2 };

/// Number of parameters of a material.
template <class Material>
inline constexpr int kNumParams = static_cast<int>(sizeof(Material::kParams) /
                                                   sizeof(Material::kParams[0]));

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

/// psi as a flat function of the d*d entries of F (row-major), for the generic AD drivers.
template <class Material, int d>
struct DensityFunction {
  template <class T, class P>
  SOFTGRAD_HD T operator()(const T* f, const P* p) const {
    Mat<T, d, d> F;
    for (int k = 0; k < d * d; ++k) F.a[k] = f[k];
    return Material::psi(F, p);
  }
};

/// True if psi is defined at F (det F > 0, or the material allows inversion).
template <class Material, int d>
SOFTGRAD_HD bool admissible(const Mat<double, d, d>& F) {
  return Material::kAllowsInversion || det(F) > 0.0;
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
  if (!gradient<d * d, kNumParams<Material>>(DensityFunction<Material, d>{}, F.a, p, psi, P))
    return ElementStatus::TapeOverflow;
  energy = s.volume * psi;
  apply_shape_transpose(s, P, s.volume, g);
  return ElementStatus::Ok;
}

/// H_x = V B^T A B with A = d^2 psi / dF^2 and B = dF/dx, using B's Kronecker structure.
template <int d>
SOFTGRAD_HD void chain_hessian(const ElementShape<d>& s, const double* A, double* H) {
  constexpr int D = d * d;
  constexpr int N = (d + 1) * d;
  // T1[(i,j),(b,k)] = sum_l A[(i,j),(k,l)] G_{b,l}
  double T1[D * N];
  for (int r = 0; r < D; ++r)
    for (int b = 0; b <= d; ++b)
      for (int k = 0; k < d; ++k) {
        double sum = 0.0;
        for (int l = 0; l < d; ++l) sum += A[r * D + k * d + l] * s.G[b * d + l];
        T1[r * N + b * d + k] = sum;
      }
  // H[(a,i),(b,k)] = V sum_j G_{a,j} T1[(i,j),(b,k)], upper triangle, mirrored: exactly
  // symmetric and half the work.
  for (int a = 0; a <= d; ++a)
    for (int i = 0; i < d; ++i) {
      const int row = a * d + i;
      for (int c = row; c < N; ++c) {
        double sum = 0.0;
        for (int j = 0; j < d; ++j) sum += s.G[a * d + j] * T1[(i * d + j) * N + c];
        H[row * N + c] = s.volume * sum;
        H[c * N + row] = s.volume * sum;
      }
    }
}

/// Energy, gradient and element Hessian H (N x N row-major), optionally projected to PSD.
template <class Material, int d>
ElementStatus element_hessian(const ElementShape<d>& s, const double* x, const double* p,
                              bool project, double& energy, double* g, double* H) {
  constexpr int D = d * d;
  const Mat<double, d, d> F = apply_shape(s, x);
  if (!admissible<Material>(F)) return ElementStatus::Inverted;
  double P[D];
  double A[D * D];
  double psi = 0.0;
  if (!hessian<D, kNumParams<Material>>(DensityFunction<Material, d>{}, F.a, p, psi, P, A))
    return ElementStatus::TapeOverflow;
  energy = s.volume * psi;
  apply_shape_transpose(s, P, s.volume, g);
  chain_hessian(s, A, H);
  if (project) project_psd<(d + 1) * d>(H);
  return ElementStatus::Ok;
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
  if (!hessian_vector_product<d * d, kNumParams<Material>>(DensityFunction<Material, d>{}, F.a, p,
                                                           dF.a, dP))
    return ElementStatus::TapeOverflow;
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
  if (!parameter_derivatives<d * d, M>(DensityFunction<Material, d>{}, F.a, p, dF.a, dpsi_dp,
                                       mixed_psi))
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
  constexpr int M = kNumParams<Material>;
  const Mat<double, d, d> F = apply_shape(s, x);
  if (!admissible<Material>(F)) return ElementStatus::Inverted;
  double dP[d * d];
  if (!gradient_parameter_jvp<d * d, M>(DensityFunction<Material, d>{}, F.a, p, dp, nullptr, dP))
    return ElementStatus::TapeOverflow;
  apply_shape_transpose(s, dP, s.volume, jvp);
  return ElementStatus::Ok;
}

}  // namespace softgrad::ad
