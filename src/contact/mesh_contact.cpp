// softgrad/mesh_contact.hpp: the collision surface (the deformable bodies' facets used by one
// element, the rigid bodies' closed surfaces, and where their points are), and add_mesh_contact
// (options and the rest state checked, the term added).
#include "softgrad/mesh_contact.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "mesh_contact_term.hpp"
#include "softgrad/errors.hpp"
#include "softgrad/joints.hpp"
#include "softgrad/rigid_body.hpp"

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

namespace {

// The facets of a simplex, each opposite one vertex, ordered so that the facet's normal points
// away from that vertex for a positively oriented element.
constexpr int kTetFaces[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
constexpr int kTriEdges[3][2] = {{1, 2}, {2, 0}, {0, 1}};

template <size_t K>
std::array<int, K> sorted(std::array<int, K> a) {
  std::sort(a.begin(), a.end());
  return a;
}

// Facets used by exactly one element of the body, in the element's orientation.
template <size_t K>
void boundary_facets(const Body& body, const int (*local)[K], int n_facets,
                     std::vector<std::array<int, K>>& out) {
  std::map<std::array<int, K>, std::pair<int, std::array<int, K>>> seen;
  const int arity = body.mesh.dim + 1;
  for (int e = 0; e < body.n_elems(); ++e)
    for (int f = 0; f < n_facets; ++f) {
      std::array<int, K> facet;
      for (size_t k = 0; k < K; ++k) facet[k] = body.elems[e * arity + local[f][k]];
      auto [it, fresh] = seen.try_emplace(sorted(facet), 0, facet);
      ++it->second.first;
    }
  for (const auto& [key, entry] : seen)
    if (entry.first == 1) out.push_back(entry.second);
}

}  // namespace

bool CollisionSurface::may_meet(int a, int b, bool self_contact) const {
  if (a == b) return self_contact && a < n_deformable_bodies;
  const std::array<int, 2> key{std::min(a, b), std::max(a, b)};
  return std::find(excluded.begin(), excluded.end(), key) == excluded.end();
}

void surface_points(const CollisionSurface& surface, const Eigen::VectorXd& x,
                    Eigen::VectorXd& points) {
  const int d = surface.dim;
  const auto n = surface.first_rigid_point + static_cast<Eigen::Index>(surface.rigid_points.size());
  points.resize(n * d);
  points.head(x.size()) = x;
  int nodes[4];
  double w[4];
  for (Eigen::Index v = surface.first_rigid_point; v < n; ++v) {
    const int count = surface.point_nodes(static_cast<int>(v), nodes, w);
    points.segment(v * d, d).setZero();
    for (int j = 0; j < count; ++j) points.segment(v * d, d) += w[j] * x.segment(nodes[j] * d, d);
  }
}

namespace {

// A rigid body's closed surface as collision points, triangles and edges (body id `id`).
void add_rigid_surface(const Model& model, int r, int id, CollisionSurface& s) {
  const RigidBody& body = model.rigid_bodies[r];
  const int first = s.first_rigid_point + static_cast<int>(s.rigid_points.size());
  for (Eigen::Index i = 0; i < body.surface.rows(); ++i) {
    s.rigid_points.push_back(
        {r, body.node, {body.surface(i, 0), body.surface(i, 1), body.surface(i, 2)}});
    s.vertices.push_back(first + static_cast<int>(i));
  }
  std::vector<std::array<int, 2>> edges;
  for (Eigen::Index t = 0; t < body.triangles.rows(); ++t) {
    const std::array<int, 3> f{first + body.triangles(t, 0), first + body.triangles(t, 1),
                               first + body.triangles(t, 2)};
    s.faces.push_back(f);
    s.face_body.push_back(id);
    for (int k = 0; k < 3; ++k) edges.push_back(sorted(std::array<int, 2>{f[k], f[(k + 1) % 3]}));
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  s.edges.insert(s.edges.end(), edges.begin(), edges.end());
  s.edge_body.resize(s.edges.size(), id);
  s.vertex_body.resize(s.vertices.size(), id);
}

}  // namespace

CollisionSurface extract_surface(const Model& model, const std::vector<int>& bodies,
                                 const std::vector<int>& rigid_bodies) {
  CollisionSurface s;
  s.dim = model.dim;
  s.n_deformable_bodies = static_cast<int>(model.bodies.size());
  s.first_rigid_point = model.n_verts;
  std::vector<int> chosen = bodies;
  if (chosen.empty())
    for (size_t b = 0; b < model.bodies.size(); ++b) chosen.push_back(static_cast<int>(b));
  std::vector<std::array<int, 2>> edges;
  for (int b : chosen) {
    SOFTGRAD_CHECK(b >= 0 && b < static_cast<int>(model.bodies.size()), "no body " << b);
    const Body& body = model.bodies[b];
    const size_t edges_before = s.edges.size();
    if (model.dim == 3) {
      const size_t faces_before = s.faces.size();
      boundary_facets<3>(body, kTetFaces, 4, s.faces);
      s.face_body.resize(s.faces.size(), b);
      // A boundary triangle's edges, once each.
      std::vector<std::array<int, 2>> body_edges;
      for (size_t f = faces_before; f < s.faces.size(); ++f)
        for (int k = 0; k < 3; ++k)
          body_edges.push_back(sorted(std::array<int, 2>{s.faces[f][k], s.faces[f][(k + 1) % 3]}));
      std::sort(body_edges.begin(), body_edges.end());
      body_edges.erase(std::unique(body_edges.begin(), body_edges.end()), body_edges.end());
      s.edges.insert(s.edges.end(), body_edges.begin(), body_edges.end());
    } else {
      boundary_facets<2>(body, kTriEdges, 3, s.edges);
    }
    s.edge_body.resize(s.edges.size(), b);
    for (size_t e = edges_before; e < s.edges.size(); ++e)
      for (int v : s.edges[e]) s.vertices.push_back(v);
  }
  std::sort(s.vertices.begin(), s.vertices.end());
  s.vertices.erase(std::unique(s.vertices.begin(), s.vertices.end()), s.vertices.end());
  // Bodies own contiguous vertex ranges.
  s.vertex_body.resize(s.vertices.size());
  for (size_t i = 0; i < s.vertices.size(); ++i)
    for (int b : chosen) {
      const Body& body = model.bodies[b];
      if (s.vertices[i] >= body.vertex_offset &&
          s.vertices[i] < body.vertex_offset + body.mesh.n_verts())
        s.vertex_body[i] = b;
    }
  for (int r : rigid_bodies) {
    SOFTGRAD_CHECK(r >= 0 && r < static_cast<int>(model.rigid_bodies.size()),
                   "no rigid body " << r);
    add_rigid_surface(model, r, s.n_deformable_bodies + r, s);
  }
  for (const Joint& j : model.joints)
    if (j.parent >= 0)
      s.excluded.push_back(sorted(
          std::array<int, 2>{s.n_deformable_bodies + j.parent, s.n_deformable_bodies + j.child}));
  std::sort(s.excluded.begin(), s.excluded.end());
  return s;
}

}  // namespace softgrad
