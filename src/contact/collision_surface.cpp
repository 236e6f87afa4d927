// The collision surface (softgrad/mesh_contact.hpp): the deformable bodies' facets used by one
// element, the rigid bodies' closed surfaces, and where their points are.
#include <algorithm>
#include <map>

#include "softgrad/errors.hpp"
#include "softgrad/joints.hpp"
#include "softgrad/mesh_contact.hpp"
#include "softgrad/rigid_body.hpp"

namespace softgrad {

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
