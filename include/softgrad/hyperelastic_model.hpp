/// @file hyperelastic_model.hpp
/// HyperelasticModel<Material>: turns a material struct (material.hpp) into a MaterialModel by
/// running the shared element kernels (ad/hyperelastic.hpp) over a batch in parallel.
/// Including this header instantiates AD code; keep it to the translation units that define a
/// material (materials/*.cpp, a user's material file), as compile time matters.
#pragma once

#include <algorithm>
#include <climits>
#include <memory>

#include "softgrad/ad/hyperelastic.hpp"
#include "softgrad/material_model.hpp"
#include "softgrad/parallel.hpp"

namespace softgrad {

namespace detail {

/// Element e's positions (or any per-vertex global vector) gathered into v.
template <int d>
inline void gather(const ElementBatch& b, int e, const double* global, double* v) {
  const int* vert = b.elems + e * (d + 1);
  for (int a = 0; a <= d; ++a)
    for (int i = 0; i < d; ++i) v[a * d + i] = global[vert[a] * d + i];
}

template <int d>
inline ad::ElementShape<d> shape_of(const ElementBatch& b, int e) {
  return ad::element_shape<d>(b.Dm_inv + e * d * d, b.volume[e]);
}

/// Runs body(e) -> ElementStatus over all elements in parallel and tallies the outcomes.
template <class Body>
BatchReport for_each_element(int n_elems, const Body& body) {
  struct Tally {
    int n_inverted = 0, n_failed = 0, first_inverted = INT_MAX;
  };
  const Tally t = parallel_reduce(
      n_elems, kParallelMinElements, Tally{},
      [&](int e, Tally& acc) {
        const ad::ElementStatus s = body(e);
        if (s == ad::ElementStatus::Inverted) {
          ++acc.n_inverted;
          acc.first_inverted = e < acc.first_inverted ? e : acc.first_inverted;
        } else if (s == ad::ElementStatus::TapeOverflow) {
          ++acc.n_failed;
        }
      },
      [](Tally& total, const Tally& part) {
        total.n_inverted += part.n_inverted;
        total.n_failed += part.n_failed;
        total.first_inverted = std::min(total.first_inverted, part.first_inverted);
      });
  BatchReport r;
  r.n_inverted = t.n_inverted;
  r.n_failed = t.n_failed;
  r.first_inverted = t.n_inverted > 0 ? t.first_inverted : -1;
  return r;
}

}  // namespace detail

template <class Material>
class HyperelasticModel final : public MaterialModel {
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

  double energy(const ElementBatch& b, const double* x, double* per_elem,
                BatchReport* report) const override {
    return b.dim == 2 ? energy_impl<2>(b, x, per_elem, report)
                      : energy_impl<3>(b, x, per_elem, report);
  }

  BatchReport gradient(const ElementBatch& b, const double* x, double* per_elem,
                       double* elem_grad) const override {
    return b.dim == 2 ? gradient_impl<2>(b, x, per_elem, elem_grad)
                      : gradient_impl<3>(b, x, per_elem, elem_grad);
  }

  BatchReport hessian(const ElementBatch& b, const double* x, bool project, double* per_elem,
                      double* elem_grad, double* elem_hess) const override {
    return b.dim == 2 ? hessian_impl<2>(b, x, project, per_elem, elem_grad, elem_hess)
                      : hessian_impl<3>(b, x, project, per_elem, elem_grad, elem_hess);
  }

  BatchReport hessian_vector_product(const ElementBatch& b, const double* x, const double* u,
                                     double* elem_Hu) const override {
    return b.dim == 2 ? hvp_impl<2>(b, x, u, elem_Hu) : hvp_impl<3>(b, x, u, elem_Hu);
  }

  BatchReport parameter_derivatives(const ElementBatch& b, const double* x, const double* lambda,
                                    double* elem_dE_dp, double* elem_mixed) const override {
    return b.dim == 2 ? param_impl<2>(b, x, lambda, elem_dE_dp, elem_mixed)
                      : param_impl<3>(b, x, lambda, elem_dE_dp, elem_mixed);
  }

  BatchReport parameter_jvp(const ElementBatch& b, const double* x, const double* dp,
                            double* elem_jvp) const override {
    return b.dim == 2 ? param_jvp_impl<2>(b, x, dp, elem_jvp)
                      : param_jvp_impl<3>(b, x, dp, elem_jvp);
  }

  bool density(int dim, const double* F, const double* p, double& psi) const override {
    return dim == 2 ? density_impl<2>(F, p, psi) : density_impl<3>(F, p, psi);
  }
  bool stress(int dim, const double* F, const double* p, double* P) const override {
    return dim == 2 ? stress_impl<2>(F, p, P) : stress_impl<3>(F, p, P);
  }
  bool stress_differential(int dim, const double* F, const double* p,
                           double* dP_dF) const override {
    return dim == 2 ? stress_differential_impl<2>(F, p, dP_dF)
                    : stress_differential_impl<3>(F, p, dP_dF);
  }

 private:
  template <int d>
  double energy_impl(const ElementBatch& b, const double* x, double* per_elem,
                     BatchReport* report) const {
    struct Sum {
      double total = 0.0;
      int n_inverted = 0, first_inverted = INT_MAX;
    };
    const Sum sum = parallel_reduce(
        b.n_elems, kParallelMinElements, Sum{},
        [&](int e, Sum& acc) {
          double xe[(d + 1) * d];
          detail::gather<d>(b, e, x, xe);
          const double E = ad::element_energy<Material, d>(detail::shape_of<d>(b, e), xe,
                                                           b.params + e * kParamCount);
          if (per_elem) per_elem[e] = E;
          if (E == ad::detail::infinity()) {
            ++acc.n_inverted;
            acc.first_inverted = e < acc.first_inverted ? e : acc.first_inverted;
          }
          acc.total += E;
        },
        [](Sum& total, const Sum& part) {
          total.total += part.total;
          total.n_inverted += part.n_inverted;
          total.first_inverted = std::min(total.first_inverted, part.first_inverted);
        });
    if (report) {
      *report = BatchReport{};
      report->n_inverted = sum.n_inverted;
      report->first_inverted = sum.n_inverted > 0 ? sum.first_inverted : -1;
    }
    return sum.total;
  }

  template <int d>
  BatchReport gradient_impl(const ElementBatch& b, const double* x, double* per_elem,
                            double* elem_grad) const {
    constexpr int N = (d + 1) * d;
    return detail::for_each_element(b.n_elems, [&](int e) {
      double xe[N];
      detail::gather<d>(b, e, x, xe);
      double E = 0.0;
      const auto s = ad::element_gradient<Material, d>(
          detail::shape_of<d>(b, e), xe, b.params + e * kParamCount, E, elem_grad + e * N);
      if (per_elem) per_elem[e] = E;
      return s;
    });
  }

  template <int d>
  BatchReport hessian_impl(const ElementBatch& b, const double* x, bool project, double* per_elem,
                           double* elem_grad, double* elem_hess) const {
    constexpr int N = (d + 1) * d;
    return detail::for_each_element(b.n_elems, [&](int e) {
      double xe[N];
      detail::gather<d>(b, e, x, xe);
      double E = 0.0;
      const auto s = ad::element_hessian<Material, d>(detail::shape_of<d>(b, e), xe,
                                                      b.params + e * kParamCount, project, E,
                                                      elem_grad + e * N, elem_hess + e * N * N);
      if (per_elem) per_elem[e] = E;
      return s;
    });
  }

  template <int d>
  BatchReport hvp_impl(const ElementBatch& b, const double* x, const double* u,
                       double* elem_Hu) const {
    constexpr int N = (d + 1) * d;
    return detail::for_each_element(b.n_elems, [&](int e) {
      double xe[N];
      double ue[N];
      detail::gather<d>(b, e, x, xe);
      detail::gather<d>(b, e, u, ue);
      return ad::element_hessian_vector_product<Material, d>(
          detail::shape_of<d>(b, e), xe, b.params + e * kParamCount, ue, elem_Hu + e * N);
    });
  }

  template <int d>
  BatchReport param_impl(const ElementBatch& b, const double* x, const double* lambda,
                         double* elem_dE_dp, double* elem_mixed) const {
    constexpr int N = (d + 1) * d;
    return detail::for_each_element(b.n_elems, [&](int e) {
      double xe[N];
      double le[N];
      detail::gather<d>(b, e, x, xe);
      if (lambda) detail::gather<d>(b, e, lambda, le);
      return ad::element_parameter_derivatives<Material, d>(
          detail::shape_of<d>(b, e), xe, b.params + e * kParamCount, lambda ? le : nullptr,
          elem_dE_dp ? elem_dE_dp + e * kParamCount : nullptr,
          elem_mixed ? elem_mixed + e * kParamCount : nullptr);
    });
  }

  template <int d>
  BatchReport param_jvp_impl(const ElementBatch& b, const double* x, const double* dp,
                             double* elem_jvp) const {
    constexpr int N = (d + 1) * d;
    return detail::for_each_element(b.n_elems, [&](int e) {
      double xe[N];
      detail::gather<d>(b, e, x, xe);
      return ad::element_parameter_jvp<Material, d>(detail::shape_of<d>(b, e), xe,
                                                    b.params + e * kParamCount,
                                                    dp + e * kParamCount, elem_jvp + e * N);
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
