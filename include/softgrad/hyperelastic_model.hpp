/// @file hyperelastic_model.hpp
/// HyperelasticModel<Material>: turns a material struct (material.hpp) into a MaterialModel: the
/// shared element kernels of ad/hyperelastic.hpp in ElementModel's batched loops.
/// Including this header instantiates AD code; keep it to the translation units that define a
/// material (materials/*.cpp, a user's material file), as compile time matters.
#pragma once

#include <memory>

#include "softgrad/detail/ad/hyperelastic.hpp"
#include "softgrad/detail/element_model.hpp"

namespace softgrad {

template <class Material>
class HyperelasticModel final
    : public ElementModel<HyperelasticModel<Material>, ad::kNumParams<Material>> {
 public:
  static constexpr int kParamCount = ad::kNumParams<Material>;

  std::string name() const override { return Material::kName; }
  std::span<const ParamInfo> params() const override {
    return {Material::kParams, static_cast<size_t>(kParamCount)};
  }
  bool allows_inversion() const override { return Material::kAllowsInversion; }
  bool youngs_poisson_parameters(double youngs, double poisson, double* p) const override {
    if constexpr (requires { Material::from_youngs_poisson(youngs, poisson, p); }) {
      Material::from_youngs_poisson(youngs, poisson, p);
      return true;
    } else {
      return false;
    }
  }
  bool uses_poisson() const override {
    if constexpr (requires { Material::kUsesPoisson; }) {
      return Material::kUsesPoisson;
    } else {
      return true;
    }
  }
  bool frame_indifferent() const override {
    if constexpr (requires { Material::kFrameIndifferent; }) {
      return Material::kFrameIndifferent;
    } else {
      return true;
    }
  }

  bool isotropic() const override { return ad::IsIsotropic<Material>; }
  bool convex() const override { return ad::IsConvex<Material>; }

  bool density(int dim, const double* F, const double* p, double& psi) const override {
    return dim == 2 ? density_impl<2>(F, p, psi) : density_impl<3>(F, p, psi);
  }
  bool stress(int dim, const double* F, const double* p, double* P) const override {
    return dim == 2 ? stress_impl<2>(F, p, P) : stress_impl<3>(F, p, P);
  }
  bool stress_differentials(const ElementBatch& b, const double* x, double* A,
                            BatchReport& report) const override {
    report = b.dim == 2 ? differentials_impl<2>(b, x, A) : differentials_impl<3>(b, x, A);
    return true;
  }
  bool stress_differential(int dim, const double* F, const double* p,
                           double* dP_dF) const override {
    return dim == 2 ? stress_differential_impl<2>(F, p, dP_dF)
                    : stress_differential_impl<3>(F, p, dP_dF);
  }

 public:
  // One element's quantities for ElementModel's loops: the shared kernels of ad/hyperelastic.hpp.
  template <int d>
  double element_energy(const ElementBatch& b, int e, const double* xe) const {
    return ad::element_energy<Material, d>(detail::shape_of<d>(b, e), xe,
                                           b.params + e * kParamCount);
  }
  template <int d>
  ad::ElementStatus element_gradient(const ElementBatch& b, int e, const double* xe, double& E,
                                     double* g) const {
    return ad::element_gradient<Material, d>(detail::shape_of<d>(b, e), xe,
                                             b.params + e * kParamCount, E, g);
  }
  template <int d>
  ad::ElementStatus element_hessian(const ElementBatch& b, int e, const double* xe, bool project,
                                    double& E, double* g, double* H) const {
    return ad::element_hessian<Material, d>(detail::shape_of<d>(b, e), xe,
                                            b.params + e * kParamCount, project, E, g, H);
  }
  /// 3D densities in invariant form project eight elements' Hessians per call, in one batch on
  /// the CPU's widest vector instructions (ad::projected_element_hessians).
  template <int d>
  static constexpr int kProjectionBatch =
      d == 3 && ad::HasInvariantForm<Material> ? ad::kProjectionBatch : 1;
  /// element_hessian with project = true for elements first .. first + count - 1 (count <=
  /// kProjectionBatch<d>), each with its energy in per_elem (if not null), its gradient and Hessian
  /// at its place in elem_grad and elem_hess, and its outcome in status.
  template <int d>
  void projected_element_hessians(const ElementBatch& b, int first, int count, const double* x,
                                  double* per_elem, double* elem_grad, double* elem_hess,
                                  ad::ElementStatus* status) const {
    constexpr int L = kProjectionBatch<d>;
    constexpr int N = (d + 1) * d;
    static_assert(d == 3 && L > 1);
    ad::ElementShape<3> shape[L] = {};
    double xe[L][N];
    const double* xs[L] = {};
    const double* ps[L] = {};
    double energy[L] = {};
    double* gs[L] = {};
    double* Hs[L] = {};
    for (int k = 0; k < count; ++k) {
      const int e = first + k;
      shape[k] = detail::shape_of<3>(b, e);
      detail::gather<3>(b, e, x, xe[k]);
      xs[k] = xe[k];
      ps[k] = b.params + e * kParamCount;
      gs[k] = elem_grad + static_cast<size_t>(e) * N;
      Hs[k] = elem_hess + static_cast<size_t>(e) * N * N;
    }
    ad::projected_element_hessians<Material, L>(shape, xs, ps, count, energy, gs, Hs, status);
    if (per_elem)
      for (int k = 0; k < count; ++k) per_elem[first + k] = energy[k];
  }
  template <int d>
  ad::ElementStatus element_hessian_product(const ElementBatch& b, int e, const double* xe,
                                            const double* ue, double* Hu) const {
    return ad::element_hessian_vector_product<Material, d>(detail::shape_of<d>(b, e), xe,
                                                           b.params + e * kParamCount, ue, Hu);
  }
  template <int d>
  ad::ElementStatus element_parameter_products(const ElementBatch& b, int e, const double* xe,
                                               const double* le, double* dE_dp,
                                               double* mixed) const {
    return ad::element_parameter_derivatives<Material, d>(
        detail::shape_of<d>(b, e), xe, b.params + e * kParamCount, le, dE_dp, mixed);
  }
  template <int d>
  ad::ElementStatus element_parameter_jvp(const ElementBatch& b, int e, const double* xe,
                                          const double* dp, double* jvp) const {
    return ad::element_parameter_jvp<Material, d>(detail::shape_of<d>(b, e), xe,
                                                  b.params + e * kParamCount, dp, jvp);
  }

 private:
  template <int d>
  BatchReport differentials_impl(const ElementBatch& b, const double* x, double* A) const {
    constexpr int D = d * d;
    return detail::for_each_element(b.n_elems, [&](int e) {
      double xe[(d + 1) * d];
      detail::gather<d>(b, e, x, xe);
      const Mat<double, d, d> F = ad::apply_shape(detail::shape_of<d>(b, e), xe);
      if (!ad::admissible<Material>(F)) return ad::ElementStatus::Inverted;
      double psi = 0.0;
      double P[D];
      if (!ad::density_hessian<Material>(F, b.params + e * kParamCount, psi, P,
                                         A + static_cast<size_t>(e) * D * D))
        return ad::ElementStatus::TapeOverflow;
      return ad::ElementStatus::Ok;
    });
  }

  template <int d>
  static Mat<double, d, d> as_mat(const double* F) {
    Mat<double, d, d> m;
    for (int k = 0; k < d * d; ++k) m.a[k] = F[k];
    return m;
  }

  template <int d>
  bool density_impl(const double* F, const double* p, double& psi) const {
    const auto m = as_mat<d>(F);
    if (!ad::admissible<Material>(m)) return false;
    psi = Material::psi(m, p);
    return true;
  }
  template <int d>
  bool stress_impl(const double* F, const double* p, double* P) const {
    if (!ad::admissible<Material>(as_mat<d>(F))) return false;
    double psi = 0.0;
    return ad::density_gradient<Material>(as_mat<d>(F), p, psi, P);
  }
  template <int d>
  bool stress_differential_impl(const double* F, const double* p, double* dP_dF) const {
    if (!ad::admissible<Material>(as_mat<d>(F))) return false;
    double psi = 0.0;
    double P[d * d];
    return ad::density_hessian<Material>(as_mat<d>(F), p, psi, P, dP_dF);
  }
};

/// Registers a user material under Material::kName, so scenes can name it. Call it once before
/// loading scenes (for example at the start of main()).
template <class Material>
void register_material() {
  register_material_model(std::make_shared<const HyperelasticModel<Material>>());
}

}  // namespace softgrad
