#include "rigid_contact_term.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "../contact/contact_parameters.hpp"
#include "softgrad/errors.hpp"

namespace softgrad {

void rigid_contact_spheres(const Model& model, std::vector<int>& verts,
                           std::vector<double>& centers, std::vector<double>& radii) {
  for (const RigidBody& b : model.rigid_bodies) {
    if (!b.collides || b.kinematic) continue;
    for (size_t k = 0; k < b.contact_centers.size(); ++k) {
      for (int j = 0; j < 4; ++j) verts.push_back(b.node + j);
      for (int i = 0; i < 3; ++i) centers.push_back(b.contact_centers[k][i]);
      radii.push_back(b.contact_radii[k]);
    }
  }
}

namespace {
std::vector<int> sphere_vertices(const Model& model) {
  std::vector<int> verts;
  std::vector<double> centers, radii;
  rigid_contact_spheres(model, verts, centers, radii);
  return verts;
}
}  // namespace

RigidContactTerm::RigidContactTerm(const Model& model, ContactOptions options)
    : Base(3, model.n_verts, sphere_vertices(model), 4, /*previous_offset=*/0),
      options_(std::move(options)),
      is_barrier_(options_.model == ContactModel::Barrier) {
  std::vector<int> verts;
  rigid_contact_spheres(model, verts, centers_, radii_);
}

bool RigidContactTerm::friction_active(const TermData& data) const {
  return detail::contact_friction_active(data);
}

bool RigidContactTerm::depends_on_previous_state(const TermData& data) const {
  return friction_active(data);
}

Eigen::Vector3d RigidContactTerm::center(const double* x, int s) const {
  double b[12], y[3];
  gather(x, s, b);
  detail::body_point(b, &centers_[3 * s], y);
  return {y[0], y[1], y[2]};
}

void RigidContactTerm::begin_step(TermData& data) const {
  auto& c = static_cast<SphereData&>(data);
  c.eps = friction_active(data) ? options_.friction_velocity * data.step.dt : 0.0;
  c.near_at_start.assign(n_stencils(), 0);
  if (!data.step.x_prev) return;
  for (int s = 0; s < n_stencils(); ++s) {
    const Eigen::Vector3d y = center(data.step.x_prev->data(), s);
    for (const auto& ob : options_.obstacles)
      if (ob->distance(y.data(), 3) - radii_[s] < options_.activation_distance)
        c.near_at_start[s] = 1;
  }
}

RigidContactTerm::SphereEnergy RigidContactTerm::stencil_energy(const Data& data, int s) const {
  return {&options_, static_cast<const SphereData&>(data).eps, is_barrier_, &centers_[3 * s],
          radii_[s]};
}

void RigidContactTerm::local_inputs(const Data& data, int s, double* q) const {
  if (data.step.x_prev) {
    gather(data.step.x_prev->data(), s, q);
  } else {
    std::fill(q, q + 12, 0.0);  // statics: no friction, nothing reads them
  }
  q[12] = data.parameters[0];
  q[13] = data.parameters[1];
}

bool RigidContactTerm::active(const Data& data, int s, const double* xs) const {
  if (friction_active(data) && static_cast<const SphereData&>(data).near_at_start[s]) return true;
  double y[3];
  detail::body_point(xs, &centers_[3 * s], y);
  for (const auto& ob : options_.obstacles)
    if (ob->distance(y, 3) - radii_[s] < options_.activation_distance) return true;
  return false;
}

bool RigidContactTerm::feasible(const Data&, int s, const double* xs) const {
  if (!is_barrier_) return true;
  double y[3];
  detail::body_point(xs, &centers_[3 * s], y);
  for (const auto& ob : options_.obstacles)
    if (!(ob->distance(y, 3) - radii_[s] > 0.0)) return false;
  return true;
}

void RigidContactTerm::scatter_parameter_products(const Data&, const double* P,
                                                  double* parameters_bar) const {
  detail::scatter_contact_products(n_stencils(), P, parameters_bar);
}

void RigidContactTerm::gather_parameter_directions(const Data&, const double* direction,
                                                   double* dP) const {
  detail::gather_contact_directions(n_stencils(), direction, dP);
}

double RigidContactTerm::max_step(const TermData&, const Eigen::VectorXd& x,
                                  const Eigen::VectorXd& dx) const {
  if (!is_barrier_) return 1.0;
  // A sphere's centre moves on a straight line, y(t) = y + t dy (x is affine in the dofs).
  // Conservative advancement: an obstacle's distance changes no faster than |dy| per unit t,
  // so the sphere cannot touch it before t + (d(y(t)) - r) / |dy|.
  double t_max = 1.0;
  for (int s = 0; s < n_stencils(); ++s) {
    const Eigen::Vector3d y = center(x.data(), s);
    const Eigen::Vector3d dy = center(dx.data(), s);  // dp + dA X: affine maps are linear
    const double speed = dy.norm();
    if (!(speed > 0.0)) continue;
    for (const auto& ob : options_.obstacles) {
      double t = 0.0;
      for (int it = 0; it < 50 && t < t_max; ++it) {
        const Eigen::Vector3d z = y + t * dy;
        const double gap = ob->distance(z.data(), 3) - radii_[s];
        if (!(gap > 0.0)) break;
        t += gap / speed;
      }
      t_max = std::min(t_max, t);
    }
  }
  return t_max;
}

std::vector<ParameterGroup> RigidContactTerm::parameter_groups() const {
  return detail::contact_parameter_groups();
}

Eigen::VectorXd RigidContactTerm::default_parameters() const {
  return Eigen::Vector2d(options_.stiffness, options_.friction);
}

void RigidContactTerm::validate_parameters(const double* p) const {
  detail::validate_contact_parameters(p, "rigid contact");
}

}  // namespace softgrad

namespace softgrad {

void add_rigid_contact(Model& model, ContactOptions options) {
  std::vector<int> verts;
  std::vector<double> centers, radii;
  rigid_contact_spheres(model, verts, centers, radii);
  if (radii.empty()) return;
  if (options.model == ContactModel::Barrier) {
    for (size_t s = 0; s < radii.size(); ++s) {
      double b[12], y[3];
      for (int j = 0; j < 4; ++j)
        for (int i = 0; i < 3; ++i) b[3 * j + i] = model.X[3 * verts[4 * s + j] + i];
      detail::body_point(b, &centers[3 * s], y);
      for (const auto& o : options.obstacles)
        if (!(o->distance(y, 3) - radii[s] > 0.0)) {
          const RigidBody* body = nullptr;
          for (const RigidBody& r : model.rigid_bodies)
            if (r.node == verts[4 * s]) body = &r;
          std::ostringstream os;
          os << "rigid body '" << body->name << "' is not outside obstacle '" << o->name()
             << "' at rest: barrier contact needs a penetration-free start";
          throw InputError(os.str());
        }
    }
  }
  model.terms.push_back(std::make_unique<RigidContactTerm>(model, std::move(options)));
}

}  // namespace softgrad
