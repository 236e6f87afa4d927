// add_mesh_contact (softgrad/mesh_contact.hpp): options and the rest state checked, the term
// added.
#include <cmath>
#include <sstream>

#include "mesh_contact_term.hpp"
#include "softgrad/errors.hpp"

namespace softgrad {

namespace {

void check_options(const Model& model, const MeshContactOptions& o) {
  const auto positive = [](double v) { return v > 0.0 && std::isfinite(v); };
  if (!positive(o.stiffness))
    throw InputError("mesh contact stiffness must be positive and finite, got " +
                     std::to_string(o.stiffness));
  if (!positive(o.activation_distance))
    throw InputError("mesh contact activation_distance must be positive and finite, got " +
                     std::to_string(o.activation_distance));
  if (!(o.friction >= 0.0) || !std::isfinite(o.friction))
    throw InputError("mesh contact friction coefficient must be finite and >= 0, got " +
                     std::to_string(o.friction));
  if (!positive(o.friction_velocity))
    throw InputError("mesh contact friction_velocity must be positive and finite, got " +
                     std::to_string(o.friction_velocity));
  if (!(o.min_gap >= 0.0 && o.min_gap < o.activation_distance))
    throw InputError("mesh contact min_gap must be >= 0 and below activation_distance " +
                     std::to_string(o.activation_distance) + ", got " + std::to_string(o.min_gap));
  if (!(o.max_stiffness_scale >= 1.0) || !std::isfinite(o.max_stiffness_scale))
    throw InputError("mesh contact max_stiffness_scale must be finite and >= 1, got " +
                     std::to_string(o.max_stiffness_scale));
  for (int b : o.bodies)
    if (b < 0 || b >= static_cast<int>(model.bodies.size()))
      throw InputError("mesh contact: no deformable body " + std::to_string(b));
  for (int r : o.rigid_bodies)
    if (r < 0 || r >= static_cast<int>(model.rigid_bodies.size()))
      throw InputError("mesh contact: no rigid body " + std::to_string(r));
  const size_t n_deformable = o.bodies.empty() ? model.bodies.size() : o.bodies.size();
  const size_t n_bodies = n_deformable + o.rigid_bodies.size();
  if (n_bodies == 0) throw InputError("mesh contact needs a body");
  if (n_bodies < 2 && !(o.self_contact && n_deformable == 1))
    throw InputError(
        "mesh contact between bodies needs two bodies, or self_contact and a deformable body");
}

// The body of surface point v (CollisionSurface's ids; -1: none).
int body_of(const Model& model, const CollisionSurface& s, int v) {
  if (v >= s.first_rigid_point)
    return s.n_deformable_bodies + s.rigid_points[v - s.first_rigid_point].body;
  for (size_t b = 0; b < model.bodies.size(); ++b)
    if (v >= model.bodies[b].vertex_offset &&
        v < model.bodies[b].vertex_offset + model.bodies[b].mesh.n_verts())
      return static_cast<int>(b);
  return -1;
}

// Surface point v's body and local index, for messages.
std::string describe_vertex(const Model& model, const CollisionSurface& s, int v) {
  if (v >= s.first_rigid_point) {
    const auto& rp = s.rigid_points[v - s.first_rigid_point];
    int local = 0;  // a body's points are contiguous
    for (int k = v - 1;
         k >= s.first_rigid_point && s.rigid_points[k - s.first_rigid_point].body == rp.body; --k)
      ++local;
    return "surface point " + std::to_string(local) + " of rigid body '" +
           model.rigid_bodies[rp.body].name + "'";
  }
  const int b = body_of(model, s, v);
  if (b < 0) return "vertex " + std::to_string(v);
  const Body& body = model.bodies[b];
  return "vertex " + std::to_string(v - body.vertex_offset) + " of body '" + body.name + "'";
}

// The rest state must be free of contact within a body (its own barrier would load it at rest)
// and of touching between bodies (an infeasible start).
template <int d>
void check_rest_state(const Model& model, const MeshContactTerm<d>& term,
                      const MeshContactOptions& o) {
  auto data = term.make_data();
  const CollisionSurface& s = term.surface();
  for (const auto& p : term.pairs(*data, model.X)) {
    const bool touching = !(p.distance > 0.0);
    if (!touching && body_of(model, s, p.v[0]) != body_of(model, s, p.v.back())) continue;
    std::ostringstream os;
    os << "mesh contact: at rest, " << describe_vertex(model, s, p.v[0]) << " and "
       << describe_vertex(model, s, p.v.back()) << " belong to primitives ";
    if (touching) {
      os << "that touch or overlap: the bodies must start apart";
    } else {
      os << "of one body " << p.distance << " m apart, within activation_distance "
         << o.activation_distance
         << " m: self-contact would push them apart at rest; lower activation_distance below "
            "the surface's smallest gap, or set self_contact false";
    }
    throw InputError(os.str());
  }
}

}  // namespace

void add_mesh_contact(Model& model, MeshContactOptions options) {
  check_options(model, options);
  CollisionSurface surface = extract_surface(model, options.bodies, options.rigid_bodies);
  if (model.dim == 3) {
    auto term = std::make_unique<MeshContactTerm<3>>(model, std::move(surface), options);
    check_rest_state(model, *term, options);
    model.terms.push_back(std::move(term));
  } else {
    auto term = std::make_unique<MeshContactTerm<2>>(model, std::move(surface), options);
    check_rest_state(model, *term, options);
    model.terms.push_back(std::move(term));
  }
}

}  // namespace softgrad
