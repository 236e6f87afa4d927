// Deformable-body vertices against rigid bodies' shapes: the term and add_shape_contact.
#include "shape_contact_term.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "../contact/contact_parameters.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/shapes.hpp"

namespace softgrad {
namespace {

std::vector<int> pair_vertices(const Model& model, const ShapeContactOptions& o) {
  std::vector<int> verts;
  for (int b : o.bodies)
    for (int v : o.vertices) {
      verts.push_back(v);
      for (int j = 0; j < 4; ++j) verts.push_back(model.rigid_bodies[b].node + j);
    }
  return verts;
}

bool supported(const Shape& shape) { return shape.has_distance(); }

/// The body's shape in its body frame, as an obstacle.
std::shared_ptr<const Obstacle> shape_obstacle(const RigidBody& b) {
  // The body frame is the shape frame for these shapes: the centre of mass is the shape's
  // centre and the principal axes its own (shape_center = 0, shape_axes = I).
  const double R = b.shape->bounding_radius();
  SOFTGRAD_CHECK(b.shape_center.norm() <= 1e-12 * R &&
                     (b.shape_axes - Eigen::Matrix3d::Identity()).norm() <= 1e-12,
                 "rigid body '" << b.name << "': a " << b.shape->type()
                                << " whose body frame is not its shape frame");
  return b.shape;
}

}  // namespace

ShapeContactTerm::ShapeContactTerm(const Model& model, ShapeContactOptions options)
    : Base(3, model.n_verts, pair_vertices(model, options), 5, /*previous_offset=*/0),
      options_(std::move(options)),
      is_barrier_(options_.model == ContactModel::Barrier),
      n_pair_vertices_(static_cast<int>(options_.vertices.size())) {
  for (int b : options_.bodies) {
    const RigidBody& body = model.rigid_bodies[b];
    ContactOptions o;
    o.model = options_.model;
    o.stiffness = options_.stiffness;
    o.activation_distance = options_.activation_distance;
    o.friction = options_.friction;
    o.friction_velocity = options_.friction_velocity;
    o.obstacles = {shape_obstacle(body)};
    shapes_.push_back(std::move(o));
    bounding_radii_.push_back(body.shape->bounding_radius());
  }
}

bool ShapeContactTerm::friction_active(const TermData& data) const {
  return detail::contact_friction_active(data);
}

bool ShapeContactTerm::depends_on_previous_state(const TermData& data) const {
  return friction_active(data);
}

double ShapeContactTerm::near_distance(const double* y, int s, double reach) const {
  double Y[3];
  body_frame(y, Y);
  const int b = shape_of(s);
  // The shape lies in the ball of its bounding radius: d(Y) >= |Y| - R.
  if (std::sqrt(Y[0] * Y[0] + Y[1] * Y[1] + Y[2] * Y[2]) - bounding_radii_[b] >= reach)
    return std::numeric_limits<double>::infinity();
  return shapes_[b].obstacles[0]->distance(Y, 3);
}

double ShapeContactTerm::pair_distance(const double* x, int s) const {
  double y[15], Y[3];
  gather(x, s, y);
  body_frame(y, Y);
  return shapes_[shape_of(s)].obstacles[0]->distance(Y, 3);
}

void ShapeContactTerm::begin_step(TermData& data) const {
  auto& c = static_cast<PairData&>(data);
  c.eps = friction_active(data) ? options_.friction_velocity * data.step.dt : 0.0;
  c.near_at_start.assign(n_stencils(), 0);
  if (!data.step.x_prev) return;
  const double dhat = options_.activation_distance;
  for (int s = 0; s < n_stencils(); ++s) {
    double y[15];
    gather(data.step.x_prev->data(), s, y);
    c.near_at_start[s] = near_distance(y, s, dhat) < dhat;
  }
}

ShapeContactTerm::PairEnergy ShapeContactTerm::stencil_energy(const Data& data, int s) const {
  return {&shapes_[shape_of(s)], static_cast<const PairData&>(data).eps, is_barrier_};
}

void ShapeContactTerm::local_inputs(const Data& data, int s, double* q) const {
  if (data.step.x_prev) {
    gather(data.step.x_prev->data(), s, q);
  } else {
    std::fill(q, q + 15, 0.0);  // statics: no friction, nothing reads them
  }
  q[15] = data.parameters[0];
  q[16] = data.parameters[1];
}

bool ShapeContactTerm::active(const Data& data, int s, const double* y) const {
  if (friction_active(data) && static_cast<const PairData&>(data).near_at_start[s]) return true;
  const double dhat = options_.activation_distance;
  return near_distance(y, s, dhat) < dhat;
}

bool ShapeContactTerm::feasible(const Data&, int s, const double* y) const {
  return !is_barrier_ || near_distance(y, s, 0.0) > 0.0;
}

void ShapeContactTerm::scatter_parameter_products(const Data&, const double* P,
                                                  double* parameters_bar) const {
  detail::scatter_contact_products(n_stencils(), P, parameters_bar);
}

void ShapeContactTerm::gather_parameter_directions(const Data&, const double* direction,
                                                   double* dP) const {
  detail::gather_contact_directions(n_stencils(), direction, dP);
}

double ShapeContactTerm::pair_step(int s, const double* y, const double* dy, double t_max) const {
  // Y(t) = (A + t dA)^T (w + t dw) = Y0 + t b + t^2 c, with w = x_v - p.
  double Y0[3], b[3], c[3];
  body_frame(y, Y0);
  for (int j = 0; j < 3; ++j) {
    const double *a = y + 6 + 3 * j, *da = dy + 6 + 3 * j;
    b[j] = c[j] = 0.0;
    for (int i = 0; i < 3; ++i) {
      const double w = y[i] - y[3 + i], dw = dy[i] - dy[3 + i];
      b[j] += a[i] * dw + da[i] * w;
      c[j] += da[i] * dw;
    }
  }
  const auto norm = [](const double* v) {
    return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  };
  const double nc = norm(c), R = bounding_radii_[shape_of(s)];
  // |Y(t) - Y0| <= |b| + |c| for t <= 1: a pair that far from the bounding sphere cannot touch.
  if (norm(Y0) - R > norm(b) + nc) return 1.0;
  const Obstacle& shape = *shapes_[shape_of(s)].obstacles[0];
  // Conservative advancement: |Y(t + h) - Y(t)| <= h |b + 2 t c| + h^2 |c|, and d is
  // 1-Lipschitz, so the pair cannot touch before that bound reaches the gap.
  double t = 0.0;
  for (int it = 0; it < 50 && t < t_max; ++it) {
    double Y[3], rate[3];
    for (int j = 0; j < 3; ++j) {
      Y[j] = Y0[j] + t * (b[j] + t * c[j]);
      rate[j] = b[j] + 2.0 * t * c[j];
    }
    const double gap = shape.distance(Y, 3);
    if (!(gap > 0.0)) break;
    const double beta = norm(rate);
    if (!(beta > 0.0) && !(nc > 0.0)) return 1.0;
    t += 2.0 * gap / (beta + std::sqrt(beta * beta + 4.0 * nc * gap));
  }
  return std::min(t, 1.0);
}

double ShapeContactTerm::max_step(const TermData&, const Eigen::VectorXd& x,
                                  const Eigen::VectorXd& dx) const {
  if (!is_barrier_) return 1.0;
  double t_max = 1.0;
  for (int s = 0; s < n_stencils(); ++s) {
    double y[15], dy[15];
    gather(x.data(), s, y);
    gather(dx.data(), s, dy);
    t_max = std::min(t_max, pair_step(s, y, dy, t_max));
  }
  return t_max;
}

std::vector<ParameterGroup> ShapeContactTerm::parameter_groups() const {
  return detail::contact_parameter_groups();
}

Eigen::VectorXd ShapeContactTerm::default_parameters() const {
  return Eigen::Vector2d(options_.stiffness, options_.friction);
}

void ShapeContactTerm::validate_parameters(const double* p) const {
  detail::validate_contact_parameters(p, "shape contact");
}

namespace {

void check_options(const ShapeContactOptions& o) {
  const auto positive = [](double v) { return v > 0.0 && std::isfinite(v); };
  std::ostringstream os;
  if (!positive(o.stiffness))
    os << "the stiffness " << o.stiffness << " N/m must be positive and finite";
  else if (!positive(o.activation_distance))
    os << "the activation distance " << o.activation_distance << " m must be positive and finite";
  else if (!(o.friction >= 0.0) || !std::isfinite(o.friction))
    os << "the friction coefficient " << o.friction << " must be finite and >= 0";
  else if (!positive(o.friction_velocity))
    os << "the friction velocity " << o.friction_velocity << " m/s must be positive and finite";
  if (!os.str().empty()) throw InputError("shape contact: " + os.str());
}

/// Fills in the vertices (every deformable one) and bodies (every box, sphere or capsule) left
/// empty, and checks those given.
void resolve_pairs(const Model& model, ShapeContactOptions& o) {
  const int n_mesh = model.n_mesh_verts(), n_bodies = static_cast<int>(model.rigid_bodies.size());
  for (int v : o.vertices)
    if (v < 0 || v >= n_mesh)
      throw InputError("shape contact: vertex " + std::to_string(v) +
                       " is not a vertex of the model's deformable bodies (0 .. " +
                       std::to_string(n_mesh - 1) + ")");
  for (int b : o.bodies) {
    if (b < 0 || b >= n_bodies)
      throw InputError("shape contact: rigid body " + std::to_string(b) +
                       " is not in the model (it has " + std::to_string(n_bodies) + ")");
    if (!supported(*model.rigid_bodies[b].shape))
      throw InputError("shape contact: rigid body '" + model.rigid_bodies[b].name +
                       "' has a mesh shape, which shape contact does not support (give it a "
                       "box, sphere, capsule or cylinder shape, or leave it out of `bodies`)");
  }
  for (std::vector<int>* list : {&o.vertices, &o.bodies}) {
    std::vector<int> sorted = *list;
    std::sort(sorted.begin(), sorted.end());
    const auto twice = std::adjacent_find(sorted.begin(), sorted.end());
    if (twice != sorted.end())
      throw InputError(std::string("shape contact: ") +
                       (list == &o.vertices ? "vertex " : "rigid body ") + std::to_string(*twice) +
                       " is listed twice");
  }
  if (o.vertices.empty())
    for (int v = 0; v < n_mesh; ++v) o.vertices.push_back(v);
  if (o.bodies.empty())
    for (int b = 0; b < n_bodies; ++b)
      if (supported(*model.rigid_bodies[b].shape)) o.bodies.push_back(b);
}

}  // namespace

void add_shape_contact(Model& model, ShapeContactOptions options) {
  check_options(options);
  resolve_pairs(model, options);
  if (options.vertices.empty() || options.bodies.empty()) return;
  const bool barrier = options.model == ContactModel::Barrier;
  auto term = std::make_unique<ShapeContactTerm>(model, std::move(options));
  // Barrier: every pair starts strictly apart.
  for (int s = 0; barrier && s < term->n_stencils(); ++s)
    if (!(term->pair_distance(model.X.data(), s) > 0.0)) {
      const int v = term->stencil_vertices()[5 * s], node = term->stencil_vertices()[5 * s + 1];
      const auto body = std::find_if(model.rigid_bodies.begin(), model.rigid_bodies.end(),
                                     [&](const RigidBody& b) { return b.node == node; });
      std::ostringstream os;
      os << "shape contact: vertex " << v << " is not outside rigid body '" << body->name
         << "' at rest (signed distance " << term->pair_distance(model.X.data(), s)
         << " m): barrier contact needs a penetration-free start";
      throw InputError(os.str());
    }
  model.terms.push_back(std::move(term));
}

}  // namespace softgrad
