// The neural material (softgrad/materials/neural.hpp): its density in the invariants, written
// out by hand with the network's derivatives (icnn.hpp), in ElementModel's batched loops.
#include "softgrad/materials/neural.hpp"

#include <atomic>
#include <cmath>
#include <cstring>

#include "icnn.hpp"
#include "neural_invariants.hpp"
#include "softgrad/detail/ad/hyperelastic.hpp"
#include "softgrad/detail/element_model.hpp"
#include "softgrad/errors.hpp"

namespace softgrad {
namespace {

using detail::Icnn;
constexpr int kFixed = 3;  // youngs, poisson, split before the weights

using detail::Features;
using detail::features;
using detail::Moduli;
using detail::moduli;

std::atomic<long> next_model_id{0};

std::vector<std::string> parameter_keys(const Icnn& net) {
  std::vector<std::string> keys = {"youngs", "poisson", "split"};
  for (int i = 0; i < net.n_weights(); ++i) keys.push_back("weights[" + std::to_string(i) + "]");
  return keys;
}

class NeuralModel final : public ElementModel<NeuralModel, 0> {
 public:
  NeuralModel(const std::vector<int>& hidden, std::span<const double> defaults)
      : net_(hidden), id_(next_model_id++) {
    const int m = kFixed + net_.n_weights();
    std::vector<double> values(defaults.begin(), defaults.end());
    if (values.empty()) {
      values = {1e5, 0.3, 0.0};
      const auto w = net_.initial_weights();
      values.insert(values.end(), w.begin(), w.end());
    }
    if (static_cast<int>(values.size()) != m)
      throw InputError("a neural material with hidden layers " + hidden_text() + " has " +
                       std::to_string(m) + " parameters (youngs, poisson, split and " +
                       std::to_string(net_.n_weights()) + " weights), got " +
                       std::to_string(values.size()));
    keys_ = parameter_keys(net_);
    table_.push_back(kYoungsParam);
    table_.push_back(kPoissonParam);
    table_.push_back({"split", "1", -kInfinity, kInfinity, false, false, 0.0,
                      "share of the rest shear modulus on I_1 (sigmoid of this)"});
    for (int i = 0; i < net_.n_weights(); ++i)
      table_.push_back(
          {"", "1", -kInfinity, kInfinity, false, false, 0.0,
           "a raw network weight (softplus makes it non-negative where convexity needs it)"});
    for (int j = 0; j < m; ++j) {
      table_[j].key = keys_[j].c_str();
      table_[j].default_value = values[j];
    }
  }

  NeuralModel(const NeuralModel&) = delete;  // table_'s keys point into keys_
  NeuralModel& operator=(const NeuralModel&) = delete;

  const Icnn& network() const { return net_; }
  std::string hidden_text() const {
    std::string s = "[";
    for (size_t l = 0; l < net_.hidden().size(); ++l)
      s += (l ? ", " : "") + std::to_string(net_.hidden()[l]);
    return s + "]";
  }

  std::string name() const override { return "neural"; }
  std::span<const ParamInfo> params() const override { return table_; }
  bool allows_inversion() const override { return false; }
  bool isotropic() const override { return true; }
  bool youngs_poisson_parameters(double youngs, double poisson, double* p) const override {
    for (size_t j = 0; j < table_.size(); ++j) p[j] = table_[j].default_value;
    p[0] = youngs;
    p[1] = poisson;
    return true;
  }
  std::vector<ParamBlock> param_blocks() const override {
    std::vector<ParamBlock> blocks = {{"youngs", 0, 1}, {"poisson", 1, 1}, {"split", 2, 1}};
    if (net_.n_weights() > 0) blocks.push_back({"weights", kFixed, net_.n_weights()});
    return blocks;
  }

  // ---- the density in the invariants ----

  /// The network's prepared weights and N(0), dN/dz(0) for p's weights, per thread, recomputed
  /// only when the weights change (every element of a body usually shares them).
  struct Cache {
    long owner = -1;
    Icnn::Weights w;
    double N0 = 0.0;
    double g0[3] = {0.0, 0.0, 0.0};
  };
  const Cache& cache(const double* p) const {
    thread_local Cache c;
    const int n = net_.n_weights();
    const double* raw = p + kFixed;
    if (c.owner != id_ || static_cast<int>(c.w.raw.size()) != n ||
        (n > 0 && std::memcmp(c.w.raw.data(), raw, sizeof(double) * n) != 0)) {
      net_.prepare({raw, static_cast<size_t>(n)}, c.w);
      const double zero[3] = {0.0, 0.0, 0.0};
      c.N0 = net_.evaluate(c.w, zero, c.g0, nullptr);
      c.owner = id_;
    }
    return c;
  }

  /// psi, dpsi/dI (3; may be null: psi alone) and d2psi/dI2 (3 x 3; may be null) at the
  /// invariants I.
  void invariant_derivatives(const double* I, const double* p, double& psi, double* dpsi,
                             double* d2psi) const {
    const Moduli m = moduli(p);
    const Cache& c = cache(p);
    const Features f = features(I, d2psi != nullptr);
    double gN[3], hN[9];
    const double N = net_.evaluate(c.w, f.z, dpsi ? gN : nullptr, d2psi ? hN : nullptr);
    const double R = N - c.N0 - (c.g0[0] * f.z[0] + c.g0[1] * f.z[1] + c.g0[2] * f.z[2]);
    psi = m.mu * (m.a[0] * f.z[0] + m.a[1] * f.z[1] + R) + m.kappa * f.z[2];
    if (!dpsi) return;
    double gg[3];  // dpsi/dz
    for (int k = 0; k < 3; ++k) gg[k] = m.mu * ((k < 2 ? m.a[k] : 0.0) + gN[k] - c.g0[k]);
    gg[2] += m.kappa;
    for (int i = 0; i < 3; ++i) {
      double sum = 0.0;
      for (int k = 0; k < 3; ++k) sum += gg[k] * f.Jz[k][i];
      dpsi[i] = sum;
    }
    if (!d2psi) return;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        double sum = 0.0;
        for (int k = 0; k < 3; ++k) {
          sum += gg[k] * f.Hz[k][i][j];
          for (int l = 0; l < 3; ++l) sum += f.Jz[k][i] * m.mu * hN[k * 3 + l] * f.Jz[l][j];
        }
        d2psi[i * 3 + j] = sum;
      }
  }

  /// dpsi/dp and d/dp (dpsi/dI . dI) (n_params() each; either may be null).
  void invariant_parameter_derivatives(const double* I, const double* p, const double* dI,
                                       double* dpsi_dp, double* mixed) const {
    const Moduli m = moduli(p);
    const Cache& c = cache(p);
    const Features f = features(I, false);
    double gN[3];
    const double N = net_.evaluate(c.w, f.z, gN, nullptr);
    const double zero[3] = {0.0, 0.0, 0.0};
    const int n = net_.n_weights();
    if (dpsi_dp) {
      const double R = N - c.N0 - (c.g0[0] * f.z[0] + c.g0[1] * f.z[1] + c.g0[2] * f.z[2]);
      const double by_mu = m.a[0] * f.z[0] + m.a[1] * f.z[1] + R;
      for (int j = 0; j < 2; ++j) dpsi_dp[j] = by_mu * m.dmu[j] + f.z[2] * m.dkappa[j];
      dpsi_dp[2] = m.mu * 0.5 * (f.z[0] - f.z[1]) * m.ds;
      double* w = dpsi_dp + kFixed;
      std::fill(w, w + n, 0.0);
      net_.parameter_gradient(c.w, f.z, nullptr, m.mu, 0.0, w);
      net_.parameter_gradient(c.w, zero, f.z, -m.mu, -m.mu, w);
    }
    if (mixed) {
      double dz[3];
      for (int k = 0; k < 3; ++k)
        dz[k] = f.Jz[k][0] * dI[0] + f.Jz[k][1] * dI[1] + f.Jz[k][2] * dI[2];
      double by_mu = m.a[0] * dz[0] + m.a[1] * dz[1];
      for (int k = 0; k < 3; ++k) by_mu += (gN[k] - c.g0[k]) * dz[k];
      for (int j = 0; j < 2; ++j) mixed[j] = by_mu * m.dmu[j] + dz[2] * m.dkappa[j];
      mixed[2] = m.mu * 0.5 * (dz[0] - dz[1]) * m.ds;
      double* w = mixed + kFixed;
      std::fill(w, w + n, 0.0);
      net_.parameter_gradient(c.w, f.z, dz, 0.0, m.mu, w);
      net_.parameter_gradient(c.w, zero, dz, 0.0, -m.mu, w);
    }
  }

  /// (d/dp dpsi/dI) dp (3 entries).
  void invariant_parameter_jvp(const double* I, const double* p, const double* dp,
                               double* dpsi) const {
    const Moduli m = moduli(p);
    const Cache& c = cache(p);
    const Features f = features(I, false);
    double gN[3];
    net_.evaluate(c.w, f.z, gN, nullptr);
    const double dmu = m.dmu[0] * dp[0] + m.dmu[1] * dp[1];
    const double dkappa = m.dkappa[0] * dp[0] + m.dkappa[1] * dp[1];
    const double ds = m.ds * dp[2];
    const int n = net_.n_weights();
    thread_local std::vector<double> bar;  // per thread, kept: no allocation per element
    bar.resize(n);
    const double zero[3] = {0.0, 0.0, 0.0};
    double dgg[3];
    for (int k = 0; k < 3; ++k) {
      dgg[k] = dmu * ((k < 2 ? m.a[k] : 0.0) + gN[k] - c.g0[k]);
      std::fill(bar.begin(), bar.end(), 0.0);
      double e[3] = {0.0, 0.0, 0.0};
      e[k] = 1.0;
      net_.parameter_gradient(c.w, f.z, e, 0.0, 1.0, bar.data());
      net_.parameter_gradient(c.w, zero, e, 0.0, -1.0, bar.data());
      double sum = 0.0;
      for (int i = 0; i < n; ++i) sum += bar[i] * dp[kFixed + i];
      dgg[k] += m.mu * sum;
    }
    dgg[0] += m.mu * 0.5 * ds;
    dgg[1] -= m.mu * 0.5 * ds;
    dgg[2] += dkappa;
    for (int i = 0; i < 3; ++i)
      dpsi[i] = dgg[0] * f.Jz[0][i] + dgg[1] * f.Jz[1][i] + dgg[2] * f.Jz[2][i];
  }

  // ---- one element, for ElementModel's loops ----

  template <int d>
  double element_energy(const ElementBatch& b, int e, const double* xe) const {
    const auto s = detail::shape_of<d>(b, e);
    const Mat<double, d, d> F = ad::apply_shape(s, xe);
    if (det(F) <= 0.0) return std::numeric_limits<double>::infinity();
    const ad::InvariantBasis<d> basis = ad::invariant_basis(F);
    double psi = 0.0;
    invariant_derivatives(basis.I, params_of(b, e), psi, nullptr, nullptr);
    return s.volume * psi;
  }
  template <int d>
  ad::ElementStatus element_gradient(const ElementBatch& b, int e, const double* xe, double& E,
                                     double* g) const {
    const auto s = detail::shape_of<d>(b, e);
    const Mat<double, d, d> F = ad::apply_shape(s, xe);
    if (det(F) <= 0.0) return ad::ElementStatus::Inverted;
    const ad::InvariantBasis<d> basis = ad::invariant_basis(F);
    double psi = 0.0, dpsi[3], P[d * d];
    invariant_derivatives(basis.I, params_of(b, e), psi, dpsi, nullptr);
    ad::invariant_stress(basis, dpsi, P);
    E = s.volume * psi;
    ad::apply_shape_transpose(s, P, s.volume, g);
    return ad::ElementStatus::Ok;
  }
  template <int d>
  ad::ElementStatus element_hessian(const ElementBatch& b, int e, const double* xe, bool project,
                                    double& E, double* g, double* H) const {
    const auto s = detail::shape_of<d>(b, e);
    const Mat<double, d, d> F = ad::apply_shape(s, xe);
    if (det(F) <= 0.0) return ad::ElementStatus::Inverted;
    const ad::InvariantBasis<d> basis = ad::invariant_basis(F);
    double psi = 0.0, dpsi[3], d2psi[9], P[d * d], A[d * d * d * d];
    invariant_derivatives(basis.I, params_of(b, e), psi, dpsi, d2psi);
    ad::invariant_stress(basis, dpsi, P);
    ad::invariant_stress_differential(basis, dpsi, d2psi, A);
    if (project)
      ad::project_invariant_density_hessian<d, ad::ProjectedEntries::ChainBlocks>(basis, dpsi,
                                                                                  d2psi, A);
    E = s.volume * psi;
    ad::apply_shape_transpose(s, P, s.volume, g);
    ad::chain_hessian(s, A, H);
    return ad::ElementStatus::Ok;
  }
  template <int d>
  ad::ElementStatus element_hessian_product(const ElementBatch& b, int e, const double* xe,
                                            const double* ue, double* Hu) const {
    const auto s = detail::shape_of<d>(b, e);
    const Mat<double, d, d> F = ad::apply_shape(s, xe);
    if (det(F) <= 0.0) return ad::ElementStatus::Inverted;
    const Mat<double, d, d> dF = ad::apply_shape(s, ue);
    const ad::InvariantBasis<d> basis = ad::invariant_basis(F);
    double psi = 0.0, dpsi[3], d2psi[9], dI[3], tangent[3], dP[d * d];
    invariant_derivatives(basis.I, params_of(b, e), psi, dpsi, d2psi);
    ad::invariant_differentials(basis, dF, dI);
    for (int i = 0; i < 3; ++i)
      tangent[i] = d2psi[i * 3] * dI[0] + d2psi[i * 3 + 1] * dI[1] + d2psi[i * 3 + 2] * dI[2];
    ad::invariant_stress_product(basis, dpsi, tangent, dF, dP);
    ad::apply_shape_transpose(s, dP, s.volume, Hu);
    return ad::ElementStatus::Ok;
  }
  template <int d>
  ad::ElementStatus element_parameter_products(const ElementBatch& b, int e, const double* xe,
                                               const double* le, double* dE_dp,
                                               double* mixed) const {
    const auto s = detail::shape_of<d>(b, e);
    const Mat<double, d, d> F = ad::apply_shape(s, xe);
    if (det(F) <= 0.0) return ad::ElementStatus::Inverted;
    const ad::InvariantBasis<d> basis = ad::invariant_basis(F);
    double dI[3] = {0.0, 0.0, 0.0};
    if (le) ad::invariant_differentials(basis, ad::apply_shape(s, le), dI);
    invariant_parameter_derivatives(basis.I, params_of(b, e), dI, dE_dp, mixed);
    const int m = n_params();
    for (int j = 0; j < m; ++j) {
      if (dE_dp) dE_dp[j] *= s.volume;
      if (mixed) mixed[j] *= s.volume;
    }
    return ad::ElementStatus::Ok;
  }
  template <int d>
  ad::ElementStatus element_parameter_jvp(const ElementBatch& b, int e, const double* xe,
                                          const double* dp, double* jvp) const {
    const auto s = detail::shape_of<d>(b, e);
    const Mat<double, d, d> F = ad::apply_shape(s, xe);
    if (det(F) <= 0.0) return ad::ElementStatus::Inverted;
    const ad::InvariantBasis<d> basis = ad::invariant_basis(F);
    double dpsi[3], dP[d * d];
    invariant_parameter_jvp(basis.I, params_of(b, e), dp, dpsi);
    ad::invariant_stress(basis, dpsi, dP);
    ad::apply_shape_transpose(s, dP, s.volume, jvp);
    return ad::ElementStatus::Ok;
  }

  // ---- density-level access ----

  bool stress_differentials(const ElementBatch& b, const double* x, double* A,
                            BatchReport& report) const override {
    report = b.dim == 2 ? differentials<2>(b, x, A) : differentials<3>(b, x, A);
    return true;
  }
  bool density(int dim, const double* F, const double* p, double& psi) const override {
    return dim == 2 ? at<2>(F, p, psi, nullptr, nullptr, nullptr, nullptr)
                    : at<3>(F, p, psi, nullptr, nullptr, nullptr, nullptr);
  }
  bool stress(int dim, const double* F, const double* p, double* P) const override {
    double psi = 0.0, dpsi[3];
    return dim == 2 ? at<2>(F, p, psi, dpsi, nullptr, P, nullptr)
                    : at<3>(F, p, psi, dpsi, nullptr, P, nullptr);
  }
  bool stress_differential(int dim, const double* F, const double* p,
                           double* dP_dF) const override {
    double psi = 0.0, dpsi[3], d2psi[9];
    return dim == 2 ? at<2>(F, p, psi, dpsi, d2psi, nullptr, dP_dF)
                    : at<3>(F, p, psi, dpsi, d2psi, nullptr, dP_dF);
  }

 private:
  const double* params_of(const ElementBatch& b, int e) const {
    return b.params + static_cast<size_t>(e) * table_.size();
  }

  template <int d>
  bool at(const double* Fa, const double* p, double& psi, double* dpsi, double* d2psi, double* P,
          double* A) const {
    Mat<double, d, d> F;
    for (int k = 0; k < d * d; ++k) F.a[k] = Fa[k];
    if (det(F) <= 0.0) return false;
    const ad::InvariantBasis<d> basis = ad::invariant_basis(F);
    invariant_derivatives(basis.I, p, psi, dpsi, d2psi);
    if (P) ad::invariant_stress(basis, dpsi, P);
    if (A) ad::invariant_stress_differential(basis, dpsi, d2psi, A);
    return true;
  }

  template <int d>
  BatchReport differentials(const ElementBatch& b, const double* x, double* A) const {
    constexpr int D = d * d;
    return softgrad::detail::for_each_element(b.n_elems, [&](int e) {
      double xe[(d + 1) * d];
      softgrad::detail::gather<d>(b, e, x, xe);
      const Mat<double, d, d> F = ad::apply_shape(softgrad::detail::shape_of<d>(b, e), xe);
      if (det(F) <= 0.0) return ad::ElementStatus::Inverted;
      const ad::InvariantBasis<d> basis = ad::invariant_basis(F);
      double psi = 0.0, dpsi[3], d2psi[9];
      invariant_derivatives(basis.I, params_of(b, e), psi, dpsi, d2psi);
      ad::invariant_stress_differential(basis, dpsi, d2psi, A + static_cast<size_t>(e) * D * D);
      return ad::ElementStatus::Ok;
    });
  }

  Icnn net_;
  long id_;
  std::vector<std::string> keys_;
  std::vector<ParamInfo> table_;
};

const NeuralModel& as_neural(const MaterialModel& model) {
  const auto* neural = dynamic_cast<const NeuralModel*>(&model);
  if (!neural) throw InputError("material '" + model.name() + "' is not a neural material");
  return *neural;
}

}  // namespace

std::shared_ptr<const MaterialModel> make_neural_material(const std::vector<int>& hidden,
                                                          std::span<const double> defaults) {
  return std::make_shared<const NeuralModel>(hidden, defaults);
}

bool is_neural_material(const MaterialModel& model) {
  return dynamic_cast<const NeuralModel*>(&model) != nullptr;
}

std::vector<int> neural_hidden_layers(const MaterialModel& model) {
  return as_neural(model).network().hidden();
}

}  // namespace softgrad
