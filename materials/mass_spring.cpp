// The mass-spring model: a MaterialModel written on the generic element AD, not on psi(F).
#include "softgrad/materials/mass_spring.hpp"

#include "builtin.hpp"
#include "softgrad/detail/ad/derivatives.hpp"
#include "softgrad/detail/ad/psd_projection.hpp"
#include "softgrad/detail/element_model.hpp"

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

class MassSpringModel final : public ElementModel<MassSpringModel, 1> {
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
  bool density(int, const double*, const double*, double&) const override { return false; }
  bool stress(int, const double*, const double*, double*) const override { return false; }
  bool stress_differential(int, const double*, const double*, double*) const override {
    return false;
  }

  // One element's quantities for ElementModel's loops: the generic AD of the spring energy.
  template <int d>
  double element_energy(const ElementBatch& b, int e, const double* xe) const {
    return ad::value<(d + 1) * d, 1>(spring_energy<d>(b, e), xe, b.params + e);
  }
  template <int d>
  ad::ElementStatus element_gradient(const ElementBatch& b, int e, const double* xe, double& E,
                                     double* g) const {
    return status(ad::gradient<(d + 1) * d, 1>(spring_energy<d>(b, e), xe, b.params + e, E, g));
  }
  template <int d>
  ad::ElementStatus element_hessian(const ElementBatch& b, int e, const double* xe, bool project,
                                    double& E, double* g, double* H) const {
    constexpr int N = (d + 1) * d;
    const bool ok = ad::hessian<N, 1>(spring_energy<d>(b, e), xe, b.params + e, E, g, H);
    if (ok && project) ad::project_psd<N>(H);
    return status(ok);
  }
  template <int d>
  ad::ElementStatus element_hessian_product(const ElementBatch& b, int e, const double* xe,
                                            const double* ue, double* Hu) const {
    return status(ad::hessian_vector_product<(d + 1) * d, 1>(spring_energy<d>(b, e), xe,
                                                             b.params + e, ue, Hu));
  }
  template <int d>
  ad::ElementStatus element_parameter_products(const ElementBatch& b, int e, const double* xe,
                                               const double* le, double* dE_dp,
                                               double* mixed) const {
    return status(ad::parameter_derivatives<(d + 1) * d, 1>(spring_energy<d>(b, e), xe,
                                                            b.params + e, le, dE_dp, mixed));
  }
  template <int d>
  ad::ElementStatus element_parameter_jvp(const ElementBatch& b, int e, const double* xe,
                                          const double* dp, double* jvp) const {
    return status(ad::gradient_parameter_jvp<(d + 1) * d, 1>(spring_energy<d>(b, e), xe,
                                                             b.params + e, dp, nullptr, jvp));
  }
};

}  // namespace

template <>
std::shared_ptr<const MaterialModel> make_model<MassSpring>() {
  return std::make_shared<const MassSpringModel>();
}

}  // namespace softgrad
