#include "damping_term.hpp"

#include <cmath>

#include "softgrad/detail/assembly.hpp"
#include "softgrad/detail/parallel.hpp"
#include "softgrad/errors.hpp"

namespace softgrad {
namespace {

// Every body's elements, in model vertex numbering: the damping stencils.
std::vector<int> all_elements(const Model& model) {
  std::vector<int> verts;
  for (const Body& b : model.bodies) verts.insert(verts.end(), b.elems.begin(), b.elems.end());
  return verts;
}

}  // namespace

DampingTerm::DampingTerm(const Model& model, double alpha, double beta)
    : StencilTerm(model.dim, model.n_verts, all_elements(model), model.dim + 1, 0, false),
      model_(model),
      alpha_(alpha),
      beta_(beta) {
  if (beta_ > 0.0) {
    DampingData d;
    K_ = stiffness(d);
  }
}

const Eigen::VectorXd& DampingTerm::mass_of(const TermData& d) const {
  return d.step.mass ? *d.step.mass : model_.mass;
}

const std::vector<double>& DampingTerm::stiffness(Data& d) const {
  if (!K_.empty()) return K_;
  auto& own = static_cast<DampingData&>(d).K;
  if (!own.empty()) return own;
  const int n = stencil_dofs();
  own.resize(static_cast<size_t>(n_stencils()) * n * n);
  size_t offset = 0;
  for (const Body& b : model_.bodies) {
    std::vector<double> energy(b.n_elems()), grad(static_cast<size_t>(b.n_elems()) * n);
    const BatchReport r = b.material->hessian(b.batch(), model_.X.data(), true, energy.data(),
                                              grad.data(), own.data() + offset);
    SOFTGRAD_CHECK(r.ok(), "damping matrix of body '" << b.name << "' at the rest state: "
                                                      << r.n_inverted << " inverted elements");
    offset += static_cast<size_t>(b.n_elems()) * n * n;
  }
  return own;
}

void DampingTerm::stiffness_products(Data& d, const double* u, double scale, double* out) const {
  const int n = stencil_dofs();
  const double* K = stiffness(d).data();
  parallel_for(n_stencils(), kParallelMinElements, [&](int e) {
    double ue[12];
    gather(u, e, ue);
    const double* Ke = K + static_cast<size_t>(e) * n * n;
    for (int r = 0; r < n; ++r) {
      double s = 0.0;
      for (int c = 0; c < n; ++c) s += Ke[r * n + c] * ue[c];
      out[static_cast<size_t>(e) * n + r] = scale * s;
    }
  });
}

void DampingTerm::apply(Data& d, double a, double b, const Eigen::VectorXd& u,
                        Eigen::VectorXd& out) const {
  const double dt = d.step.dt;
  if (a != 0.0) out += (a / dt) * mass_of(d).cwiseProduct(u);
  if (b == 0.0) return;
  stiffness_products(d, u.data(), 1.0, d.G.data());
  scatter(d.G.data(), out, b / dt);
}

// ---- the stiffness part as stencil kernels: beta/dt K_0,e per element -----------------------

double DampingTerm::energies(Data& d, const double* x, double* E) const {
  gradients(d, x, E, d.G.data());
  double total = 0.0;
  for (int e = 0; e < n_stencils(); ++e) total += E[e];
  return total;
}

bool DampingTerm::gradients(Data& d, const double* x, double* E, double* G) const {
  const int n = stencil_dofs();
  DampingData& s = damping(d);
  s.dx = Eigen::Map<const Eigen::VectorXd>(x, s.step.x_prev->size()) - *s.step.x_prev;
  stiffness_products(d, s.dx.data(), d.parameters[1] / d.step.dt, G);
  for (int e = 0; e < n_stencils(); ++e) {
    double dxe[12], dot = 0.0;
    gather(s.dx.data(), e, dxe);
    for (int r = 0; r < n; ++r) dot += dxe[r] * G[static_cast<size_t>(e) * n + r];
    E[e] = 0.5 * dot;
  }
  return true;
}

void DampingTerm::hessians(Data& d, const double*, bool, int first, int count, double* H) const {
  const std::vector<double>& K = stiffness(d);
  const double scale = d.parameters[1] / d.step.dt;
  const size_t n_local = static_cast<size_t>(stencil_dofs()) * stencil_dofs();
  const double* k_first = K.data() + first * n_local;
  for (size_t k = 0; k < count * n_local; ++k) H[k] = scale * k_first[k];
}

void DampingTerm::hessian_products(Data& d, const double*, const double* u, double* HU) const {
  stiffness_products(d, u, d.parameters[1] / d.step.dt, HU);
}

// ---- the whole term: the mass part beside the stencils ---------------------------------------

double DampingTerm::value(TermData& d, const Eigen::VectorXd& x) const {
  SOFTGRAD_CHECK(d.step.dt > 0.0 && d.step.x_prev, "damping needs a dynamic step");
  DampingData& s = damping(d);
  s.dx = x - *d.step.x_prev;
  s.work.setZero(x.size());
  apply(s, d.parameters[0], d.parameters[1], s.dx, s.work);
  return 0.5 * s.dx.dot(s.work);
}

double DampingTerm::value_and_gradient(TermData& d, const Eigen::VectorXd& x,
                                       Eigen::VectorXd& g) const {
  const double w = value(d, x);
  DampingData& s = damping(d);
  if (d.parameters[0] != 0.0) g += (d.parameters[0] / d.step.dt) * mass_of(d).cwiseProduct(s.dx);
  if (d.parameters[1] != 0.0) {
    gradients(s, x.data(), s.E.data(), s.G.data());
    scatter(s.G.data(), g);
  }
  return w;
}

void DampingTerm::add_hessian(TermData& d, const Eigen::VectorXd& x, bool project,
                              HessianAssembler& H) const {
  H.add_diagonal((d.parameters[0] / d.step.dt) * mass_of(d));
  if (d.parameters[1] != 0.0) StencilTerm::add_hessian(d, x, project, H);
}

void DampingTerm::add_hessian_vector_product(TermData& d, const Eigen::VectorXd&,
                                             const Eigen::VectorXd& u, Eigen::VectorXd& out) const {
  apply(damping(d), d.parameters[0], d.parameters[1], u, out);
}

void DampingTerm::add_hessian_diagonal(TermData& d, const Eigen::VectorXd& x,
                                       Eigen::VectorXd& diag) const {
  diag += (d.parameters[0] / d.step.dt) * mass_of(d);
  if (d.parameters[1] != 0.0) StencilTerm::add_hessian_diagonal(d, x, diag);
}

// dD/dx = (alpha M + beta K_0)(x - x_n) / dt is linear in alpha, beta and x_n.

void DampingTerm::pull_back(TermData& d, const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                            const StepInputBars& bars) const {
  DampingData& s = damping(d);
  if (bars.x_prev) apply(s, -d.parameters[0], -d.parameters[1], lambda, *bars.x_prev);  // C = C^T
  if (!bars.parameters && !bars.mass) return;
  s.dx = x - *d.step.x_prev;
  if (bars.mass) *bars.mass += (d.parameters[0] / d.step.dt) * lambda.cwiseProduct(s.dx);
  if (!bars.parameters) return;
  for (int j = 0; j < 2; ++j) {
    s.work.setZero(x.size());
    apply(s, j == 0 ? 1.0 : 0.0, j == 1 ? 1.0 : 0.0, s.dx, s.work);
    bars.parameters[j] += lambda.dot(s.work);
  }
}

void DampingTerm::push_forward(TermData& d, const Eigen::VectorXd& x,
                               const StepInputDirections& directions, Eigen::VectorXd& out) const {
  DampingData& s = damping(d);
  if (directions.x_prev) apply(s, -d.parameters[0], -d.parameters[1], *directions.x_prev, out);
  if (!directions.parameters && !directions.mass) return;
  s.dx = x - *d.step.x_prev;
  if (directions.mass) out += (d.parameters[0] / d.step.dt) * directions.mass->cwiseProduct(s.dx);
  if (directions.parameters)
    apply(s, directions.parameters[0], directions.parameters[1], s.dx, out);
}

std::vector<ParameterGroup> DampingTerm::parameter_groups() const {
  return {{"alpha", "1/s", 0, 1, ParameterGroup::Layout::Scalar, 0.0, 1e300},
          {"beta", "s", 1, 1, ParameterGroup::Layout::Scalar, 0.0, 1e300}};
}

void DampingTerm::validate_parameters(const double* p) const {
  if (!(p[0] >= 0.0) || !std::isfinite(p[0]))
    throw InputError("damping alpha must be finite and >= 0, got " + std::to_string(p[0]));
  if (!(p[1] >= 0.0) || !std::isfinite(p[1]))
    throw InputError("damping beta must be finite and >= 0, got " + std::to_string(p[1]));
}

void add_damping(Model& model, double alpha, double beta) {
  if (!(alpha >= 0.0) || !(beta >= 0.0)) throw InputError("damping alpha and beta must be >= 0");
  model.terms.push_back(std::make_unique<DampingTerm>(model, alpha, beta));
}

}  // namespace softgrad
