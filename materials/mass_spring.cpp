// The mass-spring model: a MaterialModel written on the generic element AD, not on psi(F).
#include "softgrad/materials/mass_spring.hpp"

#include "builtin.hpp"
#include "softgrad/ad/derivatives.hpp"
#include "softgrad/ad/psd_projection.hpp"
#include "softgrad/hyperelastic_model.hpp"

namespace softgrad {
namespace {

/// Rest lengths from Dm = (Dm^{-1})^{-1}, whose columns are the rest edges X_a - X_0.
template <int d>
SpringElementEnergy<d> spring_energy(const ElementBatch& b, int e) {
  Mat<double, d, d> Dm_inv;
  for (int k = 0; k < d * d; ++k) Dm_inv.a[k] = b.Dm_inv[e * d * d + k];
  const Mat<double, d, d> Dm = inverse(Dm_inv);
  double X[(d + 1) * d] = {};
  for (int a = 1; a <= d; ++a)
    for (int i = 0; i < d; ++i) X[a * d + i] = Dm(i, a - 1);
  SpringElementEnergy<d> f;
  int k = 0;
  for (int a = 0; a <= d; ++a)
    for (int c = a + 1; c <= d; ++c, ++k) {
      double l2 = 0.0;
      for (int i = 0; i < d; ++i)
        l2 += (X[a * d + i] - X[c * d + i]) * (X[a * d + i] - X[c * d + i]);
      f.rest_length[k] = std::sqrt(l2);
    }
  f.volume = b.volume[e];
  return f;
}

ad::ElementStatus status(bool ok) {
  return ok ? ad::ElementStatus::Ok : ad::ElementStatus::TapeOverflow;
}

class MassSpringModel final : public MaterialModel {
 public:
  std::string name() const override { return MassSpring::kName; }
  std::span<const ParamInfo> params() const override { return {MassSpring::kParams, 1}; }
  bool allows_inversion() const override { return true; }
  bool has_density() const override { return false; }
  bool youngs_poisson_parameters(double youngs, double poisson, double* p) const override {
    MassSpring::from_youngs_poisson(youngs, poisson, p);
    return true;
  }
  bool uses_poisson() const override { return MassSpring::kUsesPoisson; }

  double energy(const ElementBatch& b, const double* x, double* per_elem,
                BatchReport* report) const override {
    if (report) *report = BatchReport{};
    return b.dim == 2 ? energy_impl<2>(b, x, per_elem) : energy_impl<3>(b, x, per_elem);
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
  bool density(int, const double*, const double*, double&) const override { return false; }
  bool stress(int, const double*, const double*, double*) const override { return false; }
  bool stress_differential(int, const double*, const double*, double*) const override {
    return false;
  }

 private:
  template <int d>
  double energy_impl(const ElementBatch& b, const double* x, double* per_elem) const {
    return parallel_reduce(
        b.n_elems, kParallelMinElements, 0.0,
        [&](int e, double& total) {
          double xe[(d + 1) * d];
          detail::gather<d>(b, e, x, xe);
          const double E = ad::value<(d + 1) * d, 1>(spring_energy<d>(b, e), xe, b.params + e);
          if (per_elem) per_elem[e] = E;
          total += E;
        },
        [](double& total, double part) { total += part; });
  }
  template <int d>
  BatchReport gradient_impl(const ElementBatch& b, const double* x, double* per_elem,
                            double* elem_grad) const {
    constexpr int N = (d + 1) * d;
    return detail::for_each_element(b.n_elems, [&](int e) {
      double xe[N];
      detail::gather<d>(b, e, x, xe);
      double E = 0.0;
      const bool ok =
          ad::gradient<N, 1>(spring_energy<d>(b, e), xe, b.params + e, E, elem_grad + e * N);
      if (per_elem) per_elem[e] = E;
      return status(ok);
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
      const bool ok = ad::hessian<N, 1>(spring_energy<d>(b, e), xe, b.params + e, E,
                                        elem_grad + e * N, elem_hess + e * N * N);
      if (ok && project) ad::project_psd<N>(elem_hess + e * N * N);
      if (per_elem) per_elem[e] = E;
      return status(ok);
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
      return status(ad::hessian_vector_product<N, 1>(spring_energy<d>(b, e), xe, b.params + e, ue,
                                                     elem_Hu + e * N));
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
      return status(ad::parameter_derivatives<N, 1>(
          spring_energy<d>(b, e), xe, b.params + e, lambda ? le : nullptr,
          elem_dE_dp ? elem_dE_dp + e : nullptr, elem_mixed ? elem_mixed + e : nullptr));
    });
  }
  template <int d>
  BatchReport param_jvp_impl(const ElementBatch& b, const double* x, const double* dp,
                             double* elem_jvp) const {
    constexpr int N = (d + 1) * d;
    return detail::for_each_element(b.n_elems, [&](int e) {
      double xe[N];
      detail::gather<d>(b, e, x, xe);
      return status(ad::gradient_parameter_jvp<N, 1>(spring_energy<d>(b, e), xe, b.params + e,
                                                     dp + e, nullptr, elem_jvp + e * N));
    });
  }
};

}  // namespace

template <>
std::shared_ptr<const MaterialModel> make_model<MassSpring>() {
  return std::make_shared<const MassSpringModel>();
}

}  // namespace softgrad
