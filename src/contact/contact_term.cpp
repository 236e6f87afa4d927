#include "contact_term.hpp"

#include <cmath>
#include <sstream>

#include "contact_parameters.hpp"
#include "softgrad/errors.hpp"

namespace softgrad {

namespace detail {

void VertexEnergy::derivatives(const double* x, const double* q, double& e, double* g,
                               double* H) const {
  const double dhat = o->activation_distance;
  const double k = q[dim], mu = q[dim + 1];
  e = 0.0;
  for (int i = 0; i < dim; ++i) g[i] = 0.0;
  if (H)
    for (int i = 0; i < dim * dim; ++i) H[i] = 0.0;
  for (const auto& ob : o->obstacles) {
    double n[3];
    ob->normal(x, dim, n);  // constant for a half-space
    const double d = ob->distance(x, dim);
    if (d < dhat) {
      // W = k penalty(d); W' = -k penalty_force(d) and W'' along the normal.
      const double w1 = -penalty_force(d, dhat);
      const double w2 = d <= -dhat ? 1.0 : (dhat - d) / (2.0 * dhat);
      e += k * penalty(d, dhat);
      for (int i = 0; i < dim; ++i) g[i] += k * w1 * n[i];
      if (H)
        for (int i = 0; i < dim; ++i)
          for (int j = 0; j < dim; ++j) H[i * dim + j] += k * w2 * n[i] * n[j];
    }
    if (eps <= 0.0) continue;
    const double dn = ob->distance(q, dim);
    if (!(dn < dhat)) continue;
    const double lambda = k * penalty_force(dn, dhat);
    // Friction mu lambda f(s), s = |u|^2, u = the tangential part of x - x^n.
    double u[3], rn = 0.0;
    for (int i = 0; i < dim; ++i) rn += (x[i] - q[i]) * n[i];
    double s = 0.0;
    for (int i = 0; i < dim; ++i) {
      u[i] = x[i] - q[i] - rn * n[i];
      s += u[i] * u[i];
    }
    double f1 = 1.0 / eps, f2 = 0.0;  // df/ds and d2f/ds2 of f = smoothed_norm (s <= 0)
    if (s > 0.0) {
      const double y = std::sqrt(s);
      if (y >= eps) {
        f1 = 0.5 / y, f2 = -0.25 / (s * y);
      } else {
        f1 = -y / (2.0 * eps * eps) + 1.0 / eps, f2 = -0.25 / (eps * eps * y);
      }
    }
    const double c = mu * lambda;
    e += c * smoothed_norm(s, eps);
    for (int i = 0; i < dim; ++i) g[i] += c * f1 * 2.0 * u[i];
    if (H)  // ds/dx = 2u, d2s/dx2 = 2 (I - n n^T)
      for (int i = 0; i < dim; ++i)
        for (int j = 0; j < dim; ++j)
          H[i * dim + j] +=
              c * (4.0 * f2 * u[i] * u[j] + 2.0 * f1 * ((i == j ? 1.0 : 0.0) - n[i] * n[j]));
  }
}

}  // namespace detail

template <int d>
ContactTerm<d>::ContactTerm(int n_verts, std::vector<int> verts, ContactOptions options)
    : Base(d, n_verts, std::move(verts), 1, /*previous_offset=*/0),
      options_(std::move(options)),
      is_barrier_(options_.model == ContactModel::Barrier) {
  closed_form_ = !is_barrier_;
  for (const auto& ob : options_.obstacles)
    if (!dynamic_cast<const HalfSpace*>(ob.get())) closed_form_ = false;
}

template <int d>
bool ContactTerm<d>::friction_active(const TermData& data) const {
  return detail::contact_friction_active(data);
}

template <int d>
bool ContactTerm<d>::depends_on_previous_state(const TermData& data) const {
  return friction_active(data);
}

template <int d>
void ContactTerm<d>::begin_step(TermData& data) const {
  auto& c = static_cast<ContactData&>(data);
  c.energy = {&options_, d, friction_active(data) ? options_.friction_velocity * data.step.dt : 0.0,
              is_barrier_};
  // Which vertices start the step within reach of an obstacle (fixed for the step).
  const std::vector<int>& verts = this->stencil_vertices();
  c.near_at_start.assign(verts.size(), 0);
  if (!data.step.x_prev) return;
  const double reach = options_.activation_distance;
  for (size_t k = 0; k < verts.size(); ++k)
    for (const auto& ob : options_.obstacles)
      if (ob->distance(data.step.x_prev->data() + verts[k] * d, d) < reach) c.near_at_start[k] = 1;
}

template <int d>
void ContactTerm<d>::local_inputs(const Data& data, int s, double* q) const {
  const double* x_prev = data.step.x_prev->data() + this->stencil_vertices()[s] * d;
  for (int i = 0; i < d; ++i) q[i] = x_prev[i];
  q[d] = data.parameters[0];
  q[d + 1] = data.parameters[1];
}

template <int d>
bool ContactTerm<d>::active(const Data& data, int s, const double* xs) const {
  if (friction_active(data) && contact(data).near_at_start[s]) return true;
  for (const auto& ob : options_.obstacles)
    if (ob->distance(xs, d) < options_.activation_distance) return true;
  return false;
}

template <int d>
bool ContactTerm<d>::feasible(const Data&, int, const double* xs) const {
  if (!is_barrier_) return true;
  for (const auto& ob : options_.obstacles)
    if (!(ob->distance(xs, d) > 0.0)) return false;
  return true;
}

template <int d>
bool ContactTerm<d>::closed_form(const Data& data, int, const double* xs, const double* q,
                                 double& e, double* g, double* H) const {
  if (!closed_form_) return false;
  contact(data).energy.derivatives(xs, q, e, g, H);
  return true;
}

template <int d>
void ContactTerm<d>::scatter_parameter_products(const Data&, const double* P,
                                                double* parameters_bar) const {
  detail::scatter_contact_products(this->n_stencils(), P, parameters_bar);
}

template <int d>
void ContactTerm<d>::gather_parameter_directions(const Data&, const double* direction,
                                                 double* dP) const {
  detail::gather_contact_directions(this->n_stencils(), direction, dP);
}

template <int d>
double ContactTerm<d>::max_step(const TermData&, const Eigen::VectorXd& x,
                                const Eigen::VectorXd& dx) const {
  if (!is_barrier_) return 1.0;
  double t = 1.0;
  for (int v : this->stencil_vertices())
    for (const auto& ob : options_.obstacles)
      t = std::min(t, ob->time_of_impact(x.data() + v * d, dx.data() + v * d, d));
  return t;
}

template <int d>
std::vector<ParameterGroup> ContactTerm<d>::parameter_groups() const {
  return detail::contact_parameter_groups();
}

template <int d>
Eigen::VectorXd ContactTerm<d>::default_parameters() const {
  return Eigen::Vector2d(options_.stiffness, options_.friction);
}

template <int d>
void ContactTerm<d>::validate_parameters(const double* p) const {
  detail::validate_contact_parameters(p, "contact");
}

template class ContactTerm<2>;
template class ContactTerm<3>;

void add_contact(Model& model, ContactOptions options) {
  if (!(options.stiffness > 0.0) || !std::isfinite(options.stiffness))
    throw InputError("contact stiffness must be positive and finite");
  if (!(options.activation_distance > 0.0))
    throw InputError("contact activation distance must be positive");
  if (!(options.friction >= 0.0) || !std::isfinite(options.friction))
    throw InputError("friction coefficient must be finite and >= 0");
  if (!(options.friction_velocity > 0.0))
    throw InputError("friction smoothing velocity must be positive");
  if (options.obstacles.empty()) throw InputError("contact needs at least one obstacle");
  for (const auto& o : options.obstacles) {
    SOFTGRAD_CHECK(o != nullptr, "a null obstacle");
    o->validate(model.dim);
    if (!o->has_distance())
      throw InputError(std::string("obstacle '") + o->name() + "': a " + o->type() +
                       " has no signed distance yet; it can be a rigid body's geometry only");
  }
  // The deformable bodies' vertices collide here; rigid bodies through their contact spheres.
  const int n_mesh = model.n_mesh_verts();
  std::vector<int> verts = options.vertices;
  for (int v : verts)
    if (v < 0 || v >= n_mesh)
      throw InputError("contact vertex " + std::to_string(v) +
                       " is not a vertex of the model's deformable bodies");
  if (verts.empty())
    for (int v = 0; v < n_mesh; ++v) verts.push_back(v);
  if (options.model == ContactModel::Barrier) {
    for (int v : verts)
      for (const auto& o : options.obstacles)
        if (!(o->distance(model.X.data() + v * model.dim, model.dim) > 0.0)) {
          std::ostringstream os;
          os << "vertex " << v << " is not outside obstacle '" << o->name()
             << "' at rest: barrier contact needs a penetration-free start";
          throw InputError(os.str());
        }
  }
  if (!verts.empty()) {
    std::unique_ptr<EnergyTerm> term;
    if (model.dim == 2) {
      term = std::make_unique<ContactTerm<2>>(model.n_verts, std::move(verts), options);
    } else {
      term = std::make_unique<ContactTerm<3>>(model.n_verts, std::move(verts), options);
    }
    model.terms.push_back(std::move(term));
  }
  add_rigid_contact(model, std::move(options));
}

}  // namespace softgrad
