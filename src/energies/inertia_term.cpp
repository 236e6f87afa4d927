#include "inertia_term.hpp"

#include <cmath>

#include "softgrad/detail/assembly.hpp"
#include "softgrad/errors.hpp"

namespace softgrad {
namespace {

struct InertiaData : TermData {
  Eigen::VectorXd xhat;  ///< x_n + dt v_n
  Eigen::VectorXd s;     ///< x - xhat (scratch)
  Eigen::VectorXd G;     ///< the term's gradient (scratch)
};

InertiaData& inertia(TermData& d) { return static_cast<InertiaData&>(d); }

// The rigid bodies' dofs: 3 for p, 9 for the axes, from 3 * node on.
constexpr int kRigidDofs = 12;

}  // namespace

const Eigen::VectorXd& InertiaTerm::mass_of(const TermData& d) const {
  SOFTGRAD_CHECK(d.step.dt > 0.0, "inertia needs a dynamic step");
  return d.step.mass ? *d.step.mass : model_.mass;
}

std::unique_ptr<TermData> InertiaTerm::make_data() const { return std::make_unique<InertiaData>(); }

void InertiaTerm::begin_step(TermData& d) const {
  if (d.step.dt > 0.0) inertia(d).xhat = *d.step.x_prev + d.step.dt * *d.step.v_prev;
}

double InertiaTerm::value(TermData& d, const Eigen::VectorXd& x) const {
  InertiaData& s = inertia(d);
  const double dt = d.step.dt;
  s.s = x - s.xhat;
  return 0.5 / (dt * dt) * s.s.dot(mass_of(d).cwiseProduct(s.s));
}

double InertiaTerm::value_and_gradient(TermData& d, const Eigen::VectorXd& x,
                                       Eigen::VectorXd& g) const {
  InertiaData& s = inertia(d);
  const double dt = d.step.dt;
  s.s = x - s.xhat;
  s.G = mass_of(d).cwiseProduct(s.s) / (dt * dt);
  g += s.G;
  return 0.5 * s.s.dot(s.G);
}

void InertiaTerm::add_hessian(TermData& d, const Eigen::VectorXd&, bool,
                              HessianAssembler& H) const {
  H.add_diagonal(mass_of(d) / (d.step.dt * d.step.dt));
}

void InertiaTerm::add_hessian_vector_product(TermData& d, const Eigen::VectorXd&,
                                             const Eigen::VectorXd& u, Eigen::VectorXd& out) const {
  out += mass_of(d).cwiseProduct(u) / (d.step.dt * d.step.dt);
}

void InertiaTerm::add_hessian_diagonal(TermData& d, const Eigen::VectorXd&,
                                       Eigen::VectorXd& diag) const {
  diag += mass_of(d) / (d.step.dt * d.step.dt);
}

// dI/dx = M (x - x_n - dt v_n) / dt^2 is linear in x_n, v_n and M.

void InertiaTerm::pull_back(TermData& d, const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                            const StepInputBars& bars) const {
  const Eigen::VectorXd& M = mass_of(d);
  const double dt = d.step.dt;
  if (bars.x_prev) *bars.x_prev -= M.cwiseProduct(lambda) / (dt * dt);
  if (bars.v_prev) *bars.v_prev -= M.cwiseProduct(lambda) / dt;
  if (bars.mass) {
    InertiaData& s = inertia(d);
    s.s = x - s.xhat;
    *bars.mass += lambda.cwiseProduct(s.s) / (dt * dt);
  }
}

void InertiaTerm::push_forward(TermData& d, const Eigen::VectorXd& x,
                               const StepInputDirections& directions, Eigen::VectorXd& out) const {
  const Eigen::VectorXd& M = mass_of(d);
  const double dt = d.step.dt;
  if (directions.x_prev && directions.v_prev)
    out -= M.cwiseProduct(*directions.x_prev + dt * *directions.v_prev) / (dt * dt);
  else if (directions.x_prev)
    out -= M.cwiseProduct(*directions.x_prev) / (dt * dt);
  else if (directions.v_prev)
    out -= M.cwiseProduct(*directions.v_prev) / dt;
  if (directions.mass) {
    InertiaData& s = inertia(d);
    s.s = x - s.xhat;
    out += directions.mass->cwiseProduct(s.s) / (dt * dt);
  }
}

// ---- the densities ---------------------------------------------------------------------------

std::vector<ParameterGroup> InertiaTerm::parameter_groups() const {
  std::vector<ParameterGroup> groups;
  int offset = 0;
  for (const Body& b : model_.bodies) {
    if (!b.mass_from_density) continue;
    ParameterGroup g{"density:" + b.name,
                     model_.dim == 2 ? "kg/m^2" : "kg/m^3",
                     offset,
                     b.n_elems(),
                     ParameterGroup::Layout::PerElement,
                     0.0,
                     1e300};
    g.body = &b;
    groups.push_back(std::move(g));
    offset += b.n_elems();
  }
  for (const RigidBody& r : model_.rigid_bodies)
    groups.push_back(
        {"density:" + r.name, "kg/m^3", offset++, 1, ParameterGroup::Layout::Scalar, 0.0, 1e300});
  return groups;
}

Eigen::VectorXd InertiaTerm::default_parameters() const {
  std::vector<double> p;
  for (const Body& b : model_.bodies)
    if (b.mass_from_density) p.insert(p.end(), b.n_elems(), b.density);
  for (const RigidBody& r : model_.rigid_bodies) p.push_back(r.density);
  return Eigen::Map<const Eigen::VectorXd>(p.data(), static_cast<Eigen::Index>(p.size()));
}

void InertiaTerm::validate_parameters(const double* p) const {
  for (const ParameterGroup& g : parameter_groups())
    for (int i = 0; i < g.size; ++i) {
      const double rho = p[g.offset + i];
      if (!(rho > 0.0) || !std::isfinite(rho))
        throw InputError(g.name + (g.size > 1 ? "[" + std::to_string(i) + "]" : std::string()) +
                         " = " + std::to_string(rho) + " " + g.unit +
                         ": a density must be positive and finite");
    }
}

namespace {

// Calls f(k, rho_k, dof, dM_dof/drho_k) for every density k and every dof its mass reaches.
template <class F>
void for_each_density(const Model& model, F&& f) {
  const int d = model.dim;
  int k = 0;
  for (const Body& b : model.bodies) {
    if (!b.mass_from_density) continue;
    for (int e = 0; e < b.n_elems(); ++e, ++k) {
      const double w = b.volume[e] / (d + 1);
      for (int a = 0; a <= d; ++a) {
        const int v = b.elems[static_cast<size_t>(e) * (d + 1) + a];
        for (int i = 0; i < d; ++i) f(k, b.density, v * d + i, w);
      }
    }
  }
  for (const RigidBody& r : model.rigid_bodies) {
    for (int i = 0; i < kRigidDofs; ++i)
      f(k, r.density, r.dof(0) + i, model.mass[r.dof(0) + i] / r.density);
    ++k;
  }
}

}  // namespace

void InertiaTerm::masses(const double* p, Eigen::VectorXd& M) const {
  M = model_.mass;
  for_each_density(model_, [&](int k, double rho, int dof, double w) {
    if (p[k] != rho) M[dof] += (p[k] - rho) * w;
  });
}

void InertiaTerm::pull_back_masses(const Eigen::VectorXd& mass_bar, double* p_bar) const {
  for_each_density(model_,
                   [&](int k, double, int dof, double w) { p_bar[k] += mass_bar[dof] * w; });
}

void InertiaTerm::push_forward_masses(const double* dp, Eigen::VectorXd& dM) const {
  dM.setZero(model_.n_dofs());
  for_each_density(model_, [&](int k, double, int dof, double w) { dM[dof] += dp[k] * w; });
}

const InertiaTerm* inertia_term(const Model& model) {
  return model.terms.empty() ? nullptr : dynamic_cast<const InertiaTerm*>(model.terms[0].get());
}

void ensure_inertia_term(Model& model) {
  if (!inertia_term(model))
    model.terms.insert(model.terms.begin(), std::make_unique<InertiaTerm>(model));
}

}  // namespace softgrad
