/// @file element_model.hpp
/// ElementModel<Derived>: the batched loops every MaterialModel shares (the 2D/3D dispatch,
/// gathering an element's positions, the parallel loop over elements, tallying inverted and
/// failed elements, and where each element's outputs go). A model supplies one element's
/// energy, gradient, Hessian, Hessian-vector product and parameter products for dimension d:
///
///   template <int d> double element_energy(const ElementBatch&, int e, const double* xe) const;
///   template <int d> ad::ElementStatus element_gradient(b, e, xe, double& E, double* g) const;
///   template <int d> ad::ElementStatus element_hessian(b, e, xe, bool project, double& E,
///                                                      double* g, double* H) const;
///   template <int d> ad::ElementStatus element_hessian_product(b, e, xe, ue, double* Hu) const;
///   template <int d> ad::ElementStatus element_parameter_products(b, e, xe, le, dE_dp,
///                                                                 mixed) const;  // le may be null
///   template <int d> ad::ElementStatus element_parameter_jvp(b, e, xe, dp_e, double* jvp) const;
///
/// with kParamCount parameters per element. HyperelasticModel (hyperelastic_model.hpp) is one,
/// on a density psi(F); the mass-spring network (materials/mass_spring.cpp) another.
#pragma once

#include <algorithm>
#include <climits>

#include "softgrad/detail/ad/hyperelastic.hpp"
#include "softgrad/detail/parallel.hpp"
#include "softgrad/material_model.hpp"

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

/// Runs body(first, count, status) over the elements in groups of L (status: L outcomes, the
/// first count of which are tallied), in parallel, and tallies the outcomes.
template <int L, class Body>
BatchReport for_each_element_group(int n_elems, const Body& body) {
  struct Tally {
    int n_inverted = 0, n_failed = 0, first_inverted = INT_MAX;
  };
  const int n_groups = (n_elems + L - 1) / L;
  const Tally t = parallel_reduce(
      n_groups, kParallelMinElements / L, Tally{},
      [&](int group, Tally& acc) {
        const int first = group * L;
        const int count = std::min(L, n_elems - first);
        ad::ElementStatus status[L];
        body(first, count, status);
        for (int k = 0; k < count; ++k) {
          if (status[k] == ad::ElementStatus::Inverted) {
            ++acc.n_inverted;
            acc.first_inverted = std::min(acc.first_inverted, first + k);
          } else if (status[k] == ad::ElementStatus::TapeOverflow) {
            ++acc.n_failed;
          }
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

/// Runs body(e) -> ElementStatus over all elements in parallel and tallies the outcomes.
template <class Body>
BatchReport for_each_element(int n_elems, const Body& body) {
  return for_each_element_group<1>(
      n_elems, [&](int e, int, ad::ElementStatus* status) { status[0] = body(e); });
}

}  // namespace detail

template <class Derived, int ParamCount>
class ElementModel : public MaterialModel {
 public:
  static constexpr int kParamCount = ParamCount;
  /// How many elements a model projects per call (projected_element_hessians<d>, which a model
  /// declaring more than 1 provides); 1: one at a time through element_hessian.
  template <int d>
  static constexpr int kProjectionBatch = 1;

  double energy(const ElementBatch& b, const double* x, double* per_elem,
                BatchReport* report) const final {
    return b.dim == 2 ? energy_impl<2>(b, x, per_elem, report)
                      : energy_impl<3>(b, x, per_elem, report);
  }
  BatchReport gradient(const ElementBatch& b, const double* x, double* per_elem,
                       double* elem_grad) const final {
    return b.dim == 2 ? gradient_impl<2>(b, x, per_elem, elem_grad)
                      : gradient_impl<3>(b, x, per_elem, elem_grad);
  }
  BatchReport hessian(const ElementBatch& b, const double* x, bool project, double* per_elem,
                      double* elem_grad, double* elem_hess) const final {
    return b.dim == 2 ? hessian_impl<2>(b, x, project, per_elem, elem_grad, elem_hess)
                      : hessian_impl<3>(b, x, project, per_elem, elem_grad, elem_hess);
  }
  BatchReport hessian_vector_product(const ElementBatch& b, const double* x, const double* u,
                                     double* elem_Hu) const final {
    return b.dim == 2 ? hvp_impl<2>(b, x, u, elem_Hu) : hvp_impl<3>(b, x, u, elem_Hu);
  }
  BatchReport parameter_derivatives(const ElementBatch& b, const double* x, const double* lambda,
                                    double* elem_dE_dp, double* elem_mixed) const final {
    return b.dim == 2 ? param_impl<2>(b, x, lambda, elem_dE_dp, elem_mixed)
                      : param_impl<3>(b, x, lambda, elem_dE_dp, elem_mixed);
  }
  BatchReport parameter_jvp(const ElementBatch& b, const double* x, const double* dp,
                            double* elem_jvp) const final {
    return b.dim == 2 ? param_jvp_impl<2>(b, x, dp, elem_jvp)
                      : param_jvp_impl<3>(b, x, dp, elem_jvp);
  }

 private:
  const Derived& self() const { return static_cast<const Derived&>(*this); }

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
          const double E = self().template element_energy<d>(b, e, xe);
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
      const auto s = self().template element_gradient<d>(b, e, xe, E, elem_grad + e * N);
      if (per_elem) per_elem[e] = E;
      return s;
    });
  }

  template <int d>
  BatchReport hessian_impl(const ElementBatch& b, const double* x, bool project, double* per_elem,
                           double* elem_grad, double* elem_hess) const {
    constexpr int N = (d + 1) * d;
    constexpr int L = Derived::template kProjectionBatch<d>;
    if constexpr (L > 1) {
      if (project)
        return detail::for_each_element_group<L>(
            b.n_elems, [&](int first, int count, ad::ElementStatus* status) {
              self().template projected_element_hessians<d>(b, first, count, x, per_elem, elem_grad,
                                                            elem_hess, status);
            });
    }
    return detail::for_each_element(b.n_elems, [&](int e) {
      double xe[N];
      detail::gather<d>(b, e, x, xe);
      double E = 0.0;
      const auto s = self().template element_hessian<d>(b, e, xe, project, E, elem_grad + e * N,
                                                        elem_hess + e * N * N);
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
      return self().template element_hessian_product<d>(b, e, xe, ue, elem_Hu + e * N);
    });
  }

  template <int d>
  BatchReport param_impl(const ElementBatch& b, const double* x, const double* lambda,
                         double* elem_dE_dp, double* elem_mixed) const {
    constexpr int N = (d + 1) * d;
    const int m = this->n_params();
    return detail::for_each_element(b.n_elems, [&](int e) {
      double xe[N];
      double le[N];
      detail::gather<d>(b, e, x, xe);
      if (lambda) detail::gather<d>(b, e, lambda, le);
      return self().template element_parameter_products<d>(
          b, e, xe, lambda ? le : nullptr,
          elem_dE_dp ? elem_dE_dp + static_cast<size_t>(e) * m : nullptr,
          elem_mixed ? elem_mixed + static_cast<size_t>(e) * m : nullptr);
    });
  }

  template <int d>
  BatchReport param_jvp_impl(const ElementBatch& b, const double* x, const double* dp,
                             double* elem_jvp) const {
    constexpr int N = (d + 1) * d;
    const int m = this->n_params();
    return detail::for_each_element(b.n_elems, [&](int e) {
      double xe[N];
      detail::gather<d>(b, e, x, xe);
      return self().template element_parameter_jvp<d>(b, e, xe, dp + static_cast<size_t>(e) * m,
                                                      elem_jvp + e * N);
    });
  }
};

}  // namespace softgrad
