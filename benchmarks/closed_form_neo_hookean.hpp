/// @file closed_form_neo_hookean.hpp
/// The benchmark's baseline: the compressible Neo-Hookean of materials/neo_hookean.hpp (Bonet &
/// Wood, eq. 6.27) with its density derivatives derived by hand, in 3D:
///
///     psi  = mu/2 (||F||^2 - 3) - mu log J + lambda/2 (log J)^2,
///     P    = mu (F - F^{-T}) + lambda log J F^{-T},
///     dP_ij/dF_kl = mu d_ik d_jl + lambda Finv_lk Finv_ji + (mu - lambda log J) Finv_jk Finv_li.
///
/// Everything except the density derivatives is the library's shared code, as
/// HyperelasticModel<NeoHookean> runs it: the same gather, shape, chain rule (apply_shape,
/// apply_shape_transpose, chain_hessian), parallel loop and output layout, so that timing both
/// isolates AD against closed-form derivatives of psi. The PSD projection is the library's too,
/// but one element at a time (HyperelasticModel projects two side by side).
#pragma once

#include <climits>
#include <cmath>

#include "softgrad/hyperelastic_model.hpp"

namespace softgrad::bench {

/// Closed-form element kernels (tetrahedra), with the signatures of ad::element_*.
struct ClosedFormNeoHookean {
  static constexpr int kParamCount = 2;  // youngs [Pa], poisson [1], as NeoHookean
  static constexpr int kN = 12;          // element dofs
  static constexpr int kD = 9;           // entries of F

  /// What psi and its derivatives share: F, J, log J and the Lame parameters.
  struct Kinematics {
    Mat<double, 3, 3> F;
    double J;
    double log_J;
    double mu;
    double lambda;
  };

  /// False if det F <= 0 (the model forbids inversion, as NeoHookean).
  static bool kinematics(const ad::ElementShape<3>& s, const double* x, const double* p,
                         Kinematics& k) {
    k.F = ad::apply_shape(s, x);
    k.J = det(k.F);
    if (!(k.J > 0.0)) return false;
    k.log_J = std::log(k.J);
    k.mu = lame_mu(p[0], p[1]);
    k.lambda = lame_lambda(p[0], p[1]);
    return true;
  }

  static double psi(const Kinematics& k) {
    return 0.5 * k.mu * (squared_norm(k.F) - 3.0) - k.mu * k.log_J +
           0.5 * k.lambda * k.log_J * k.log_J;
  }

  /// B = F^{-T} = cof(F) / J.
  static Mat<double, 3, 3> inverse_transpose(const Kinematics& k) {
    return (1.0 / k.J) * cofactor(k.F);
  }

  /// P = mu F + (lambda log J - mu) B.
  static void stress(const Kinematics& k, const Mat<double, 3, 3>& B, double* P) {
    const double c = k.lambda * k.log_J - k.mu;
    for (int r = 0; r < kD; ++r) P[r] = k.mu * k.F.a[r] + c * B.a[r];
  }

  /// A[(i,j),(k,l)] = mu d_ik d_jl + lambda B_ij B_kl + (mu - lambda log J) B_il B_kj.
  static void stress_differential(const Kinematics& k, const Mat<double, 3, 3>& B, double* A) {
    const double c = k.mu - k.lambda * k.log_J;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        for (int m = 0; m < 3; ++m)
          for (int l = 0; l < 3; ++l)
            A[(i * 3 + j) * kD + m * 3 + l] = k.lambda * B(i, j) * B(m, l) + c * B(i, l) * B(m, j);
    for (int r = 0; r < kD; ++r) A[r * kD + r] += k.mu;
  }

  static double element_energy(const ad::ElementShape<3>& s, const double* x, const double* p) {
    Kinematics k;
    if (!kinematics(s, x, p, k)) return ad::detail::infinity();
    return s.volume * psi(k);
  }

  static ad::ElementStatus element_gradient(const ad::ElementShape<3>& s, const double* x,
                                            const double* p, double& energy, double* g) {
    Kinematics k;
    if (!kinematics(s, x, p, k)) return ad::ElementStatus::Inverted;
    double P[kD];
    stress(k, inverse_transpose(k), P);
    energy = s.volume * psi(k);
    ad::apply_shape_transpose(s, P, s.volume, g);
    return ad::ElementStatus::Ok;
  }

  static ad::ElementStatus element_hessian(const ad::ElementShape<3>& s, const double* x,
                                           const double* p, bool project, double& energy, double* g,
                                           double* H) {
    Kinematics k;
    if (!kinematics(s, x, p, k)) return ad::ElementStatus::Inverted;
    double P[kD];
    double A[kD * kD];
    const Mat<double, 3, 3> B = inverse_transpose(k);
    stress(k, B, P);
    stress_differential(k, B, A);
    energy = s.volume * psi(k);
    // The library's projection (ad::project_invariant_density_hessian), fed with the invariant
    // derivatives by hand: Psi_I = mu / 2, Psi_J = (lambda log J - mu) / J, Psi_JJ =
    // (lambda + mu - lambda log J) / J^2. It runs one element at a time here, where
    // HyperelasticModel projects two side by side.
    if (project) {
      const double dpsi[3] = {0.5 * k.mu, 0.0, (k.lambda * k.log_J - k.mu) / k.J};
      const double d2psi[9] = {
          0, 0, 0, 0, 0, 0, 0, 0, (k.lambda + k.mu - k.lambda * k.log_J) / (k.J * k.J)};
      ad::project_invariant_density_hessian<3>(ad::invariant_basis(k.F), dpsi, d2psi, A);
    }
    ad::apply_shape_transpose(s, P, s.volume, g);
    ad::chain_hessian(s, A, H);
    return ad::ElementStatus::Ok;
  }

  // Batched versions: the loops of HyperelasticModel<NeoHookean> with the kernels swapped.

  static double energy(const ElementBatch& b, const double* x, double* per_elem,
                       BatchReport* report) {
    double total = 0.0;
    int n_inverted = 0;
    int first_inverted = INT_MAX;
#pragma omp parallel for schedule(static) reduction(+ : total, n_inverted) \
    reduction(min : first_inverted)
    for (int e = 0; e < b.n_elems; ++e) {
      double xe[kN];
      detail::gather<3>(b, e, x, xe);
      const double E = element_energy(detail::shape_of<3>(b, e), xe, b.params + e * kParamCount);
      if (per_elem) per_elem[e] = E;
      if (E == ad::detail::infinity()) {
        ++n_inverted;
        first_inverted = e < first_inverted ? e : first_inverted;
      }
      total += E;
    }
    if (report) {
      *report = BatchReport{};
      report->n_inverted = n_inverted;
      report->first_inverted = n_inverted > 0 ? first_inverted : -1;
    }
    return total;
  }

  static BatchReport gradient(const ElementBatch& b, const double* x, double* per_elem,
                              double* elem_grad) {
    return detail::for_each_element(b.n_elems, [&](int e) {
      double xe[kN];
      detail::gather<3>(b, e, x, xe);
      double E = 0.0;
      const auto st = element_gradient(detail::shape_of<3>(b, e), xe, b.params + e * kParamCount, E,
                                       elem_grad + e * kN);
      if (per_elem) per_elem[e] = E;
      return st;
    });
  }

  static BatchReport hessian(const ElementBatch& b, const double* x, bool project, double* per_elem,
                             double* elem_grad, double* elem_hess) {
    return detail::for_each_element(b.n_elems, [&](int e) {
      double xe[kN];
      detail::gather<3>(b, e, x, xe);
      double E = 0.0;
      const auto st = element_hessian(detail::shape_of<3>(b, e), xe, b.params + e * kParamCount,
                                      project, E, elem_grad + e * kN, elem_hess + e * kN * kN);
      if (per_elem) per_elem[e] = E;
      return st;
    });
  }
};

}  // namespace softgrad::bench
