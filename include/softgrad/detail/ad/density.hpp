/// @file density.hpp
/// A material's density derivatives at one deformation gradient F, shared by the element
/// kernels (hyperelastic.hpp), the projection and the device code: psi, P = dpsi/dF,
/// dP/dF, its products, and the parameter derivatives. AD differentiates psi with respect to F
/// (d^2 inputs) or, for a material with an invariant form psi_invariants(I_C, II_C, J, p), with
/// respect to the three invariants only (invariants.hpp).
#pragma once

#include <concepts>
#include <utility>

#include "softgrad/detail/ad/derivatives.hpp"
#include "softgrad/detail/ad/invariants.hpp"
#include "softgrad/material.hpp"

namespace softgrad::ad {

/// Number of parameters of a material.
template <class Material>
inline constexpr int kNumParams = static_cast<int>(sizeof(Material::kParams) /
                                                   sizeof(Material::kParams[0]));

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

/// True if the material also gives its density as psi_invariants(I_C, II_C, J, p) (material.hpp).
template <class Material>
concept HasInvariantForm = requires(const double* p) {
  { Material::psi_invariants(1.0, 1.0, 1.0, p) } -> std::convertible_to<double>;
};

/// True if the material also gives psi_invariants' derivatives in closed form (material.hpp):
/// psi, P and dP/dF then come without AD (2D creatures spent a sixth of a step in the AD of
/// Neo-Hookean's three-invariant density). Tests compare the closed form with AD.
template <class Material>
concept HasInvariantDerivatives = HasInvariantForm<Material> &&
    requires(const double* I, const double* p, double& psi, double* dpsi) {
  Material::psi_invariant_derivatives(I, p, psi, dpsi, dpsi);
};

/// True if psi(R F Q) = psi(F) for all rotations R, Q: every invariant-form material, and those
/// declaring `static constexpr bool kIsotropic = true`. Their projected Hessians come from the
/// eigensystem in F's singular frame (isotropic_projection.hpp), not from an eigen-solver.
template <class Material>
concept IsIsotropic = HasInvariantForm<Material> || requires {
  requires Material::kIsotropic;
};

/// True if the material declares psi convex in F within its parameter ranges
/// (`static constexpr bool kConvex = true`, material.hpp item 8).
template <class Material>
concept IsConvex = requires {
  requires Material::kConvex;
};

namespace detail {
template <class Material, int j>
SOFTGRAD_HD bool parameter_in_range(double v) {
  constexpr ParamInfo info = Material::kParams[j];  // a local copy: device code has no table
  return info.in_range(v);
}

template <class Material, int... j>
SOFTGRAD_HD bool parameters_in_range(const double* p, std::integer_sequence<int, j...>) {
  return (... && parameter_in_range<Material, j>(p[j]));
}
}  // namespace detail

/// True if every parameter p[j] is in kParams[j]'s valid range (NaN is not).
template <class Material>
SOFTGRAD_HD bool parameters_in_range(const double* p) {
  return detail::parameters_in_range<Material>(
      p, std::make_integer_sequence<int, kNumParams<Material>>{});
}

/// psi and P = dpsi/dF (row-major) at F. Returns false if the tape overflowed.
template <class Material, int d>
SOFTGRAD_HD bool density_gradient(const Mat<double, d, d>& F, const double* p, double& psi,
                                  double* P) {
  constexpr int M = kNumParams<Material>;
  if constexpr (HasInvariantForm<Material>) {
    const InvariantBasis<d> b = invariant_basis(F);
    double dpsi[3];
    if constexpr (HasInvariantDerivatives<Material>) {
      Material::psi_invariant_derivatives(b.I, p, psi, dpsi, nullptr);
    } else {
      forward_gradient<3, M>(InvariantDensityFunction<Material>{}, b.I, p, psi, dpsi);
    }
    invariant_stress(b, dpsi, P);
    return true;
  } else {
    return gradient<d * d, M>(DensityFunction<Material, d>{}, F.a, p, psi, P);
  }
}

/// Psi and its derivatives in the invariants I = (I_C, II_C, J): dpsi (3) and d2psi (3 x 3).
/// Returns false if the tape overflowed.
template <class Material>
requires HasInvariantForm<Material> SOFTGRAD_HD bool invariant_hessian(const double* I,
                                                                       const double* p, double& psi,
                                                                       double* dpsi,
                                                                       double* d2psi) {
  if constexpr (HasInvariantDerivatives<Material>) {
    Material::psi_invariant_derivatives(I, p, psi, dpsi, d2psi);
    return true;
  } else {
    forward_hessian<3, kNumParams<Material>>(InvariantDensityFunction<Material>{}, I, p, psi, dpsi,
                                             d2psi);
    return true;
  }
}

/// psi, P and A = dP/dF (d^2 x d^2, row-major, symmetric) at F.
template <class Material, int d>
SOFTGRAD_HD bool density_hessian(const Mat<double, d, d>& F, const double* p, double& psi,
                                 double* P, double* A) {
  constexpr int M = kNumParams<Material>;
  if constexpr (HasInvariantForm<Material>) {
    const InvariantBasis<d> b = invariant_basis(F);
    double dpsi[3];
    double d2psi[9];
    if (!invariant_hessian<Material>(b.I, p, psi, dpsi, d2psi)) return false;
    invariant_stress(b, dpsi, P);
    invariant_stress_differential(b, dpsi, d2psi, A);
    return true;
  } else {
    return hessian<d * d, M>(DensityFunction<Material, d>{}, F.a, p, psi, P, A);
  }
}

/// dP = (dP/dF)[dF] at F, without forming dP/dF.
template <class Material, int d>
SOFTGRAD_HD bool density_hessian_vector_product(const Mat<double, d, d>& F, const double* p,
                                                const Mat<double, d, d>& dF, double* dP) {
  constexpr int M = kNumParams<Material>;
  if constexpr (HasInvariantForm<Material>) {
    const InvariantBasis<d> b = invariant_basis(F);
    double dI[3];
    double dpsi[3];
    double dpsi_tangent[3];
    invariant_differentials(b, dF, dI);
    if (!hessian_vector_product<3, M>(InvariantDensityFunction<Material>{}, b.I, p, dI,
                                      dpsi_tangent, dpsi))
      return false;
    invariant_stress_product(b, dpsi, dpsi_tangent, dF, dP);
    return true;
  } else {
    return hessian_vector_product<d * d, M>(DensityFunction<Material, d>{}, F.a, p, dF.a, dP);
  }
}

/// Up to this many parameters the mixed products run in forward mode (MixedDual<M>, no tape).
/// Its work grows with M; every built-in material has at most three. The bound is a safe
/// margin, not a measured crossover: the tape stays for materials with many parameters.
inline constexpr int kMaxForwardParameters = 4;

namespace detail {
template <int N, int M, class Fn>
SOFTGRAD_HD bool density_parameter_derivatives(const Fn& f, const double* x, const double* p,
                                               const double* dx, double* dpsi_dp, double* mixed) {
  if constexpr (M <= kMaxForwardParameters) {
    parameter_derivatives_forward<N, M>(f, x, p, dx, dpsi_dp, mixed);
    return true;
  } else {
    return parameter_derivatives<N, M>(f, x, p, dx, dpsi_dp, mixed);
  }
}
}  // namespace detail

/// dpsi/dp and the mixed product d/dp (P : dF) at F (M entries each; either may be null).
template <class Material, int d>
SOFTGRAD_HD bool density_parameter_derivatives(const Mat<double, d, d>& F, const double* p,
                                               const Mat<double, d, d>& dF, double* dpsi_dp,
                                               double* mixed) {
  constexpr int M = kNumParams<Material>;
  if constexpr (HasInvariantForm<Material>) {
    // P : dF = sum_k Psi_k (g_k : dF): the invariants' tangent carries dF.
    const InvariantBasis<d> b = invariant_basis(F);
    double dI[3];
    invariant_differentials(b, dF, dI);
    return detail::density_parameter_derivatives<3, M>(InvariantDensityFunction<Material>{}, b.I, p,
                                                       dI, dpsi_dp, mixed);
  } else {
    return detail::density_parameter_derivatives<d * d, M>(DensityFunction<Material, d>{}, F.a, p,
                                                           dF.a, dpsi_dp, mixed);
  }
}

/// dP = (d^2 psi / dF dp) dp at F (d^2 entries).
template <class Material, int d>
SOFTGRAD_HD bool density_parameter_jvp(const Mat<double, d, d>& F, const double* p,
                                       const double* dp, double* dP) {
  constexpr int M = kNumParams<Material>;
  if constexpr (HasInvariantForm<Material>) {
    // (dP/dp) dp = sum_k ((dPsi_k/dp) dp) g_k.
    const InvariantBasis<d> b = invariant_basis(F);
    double dpsi_jvp[3];
    if (!gradient_parameter_jvp<3, M>(InvariantDensityFunction<Material>{}, b.I, p, dp, nullptr,
                                      dpsi_jvp))
      return false;
    invariant_stress(b, dpsi_jvp, dP);
    return true;
  } else {
    return gradient_parameter_jvp<d * d, M>(DensityFunction<Material, d>{}, F.a, p, dp, nullptr,
                                            dP);
  }
}

/// True if psi is defined at F (det F > 0, or the material allows inversion).
template <class Material, int d>
SOFTGRAD_HD bool admissible(const Mat<double, d, d>& F) {
  return Material::kAllowsInversion || det(F) > 0.0;
}

}  // namespace softgrad::ad
