/// @file mesh_contact.hpp
/// Contact between the surfaces of deformable bodies, of a body with itself, and of rigid bodies
/// with both (IPC, Li et al. 2020), as one energy term "mesh_contact":
///
///   W = kappa sum_k m_k b(d_k),   b(d) = -(d - dhat)^2 log(d / dhat)  for 0 < d < dhat,
///
/// summed over the primitive pairs k closer than dhat: point-triangle and edge-edge in 3D,
/// point-edge in 2D, never two primitives that share a vertex. d_k is their distance; m_k is 1,
/// except IPC's mollifier for nearly parallel edges, which keeps W smooth when an edge-edge
/// distance changes type. Newton's line search never crosses a surface: every step is cut at a
/// conservative time of impact (additive CCD, Li et al. 2021), so a rollout that starts free of
/// intersections stays so. The pairs are found anew at every x (a spatial hash over the surface);
/// within a step the energy is smooth, so the adjoint's gradients are exact.
///
/// Adaptive stiffness (IPC's rule, taken between steps): while the closest pair is nearer than
/// min_gap and closing, kappa doubles at the end of each step, up to max_stiffness_scale times
/// the stiffness parameter. The factor is part of the rollout's state (State::adaptive), so
/// rollouts run side by side and the gradients take it as the constant it is within a step.
///
/// Lagged friction (IPC's smoothed Coulomb) acts on the pairs within dhat at the start of the
/// step, with their normal forces, closest points and tangent planes from there.
#pragma once

#include <array>
#include <vector>

#include "softgrad/model.hpp"

namespace softgrad {

/// The boundary of the bodies that collide: what can touch. Its points are the model vertices
/// on the deformable bodies' boundaries and, numbered from Model::n_verts on, the rigid bodies'
/// surface points, which move with their body (x = p + A X): every point is a linear function
/// of the model's positions, so a step's straight line moves it along a straight line.
struct CollisionSurface {
  int dim = 3;
  std::vector<int> vertices;              ///< surface points, ascending
  std::vector<std::array<int, 2>> edges;  ///< boundary edges (3D: of the boundary triangles)
  std::vector<std::array<int, 3>> faces;  ///< 3D: boundary triangles, outward; 2D: none
  /// Per point, edge and face: its body, a deformable body's index in Model::bodies or a rigid
  /// body's index in Model::rigid_bodies plus n_deformable_bodies.
  std::vector<int> vertex_body, edge_body, face_body;
  int n_deformable_bodies = 0;  ///< Model::bodies.size(): body ids from here on are rigid
  /// Rigid surface point first_rigid_point + k is body rigid_points[k].body's point X, at
  /// p + A X with p the model vertex `node` and a1, a2, a3 the next three.
  struct RigidPoint {
    int body;  ///< index into Model::rigid_bodies
    int node;  ///< RigidBody::node
    std::array<double, 3> X;
  };
  int first_rigid_point = 0;
  std::vector<RigidPoint> rigid_points;
  /// Body pairs (ids as above, a < b) that never meet: rigid bodies joined by a joint.
  std::vector<std::array<int, 2>> excluded;

  /// Whether primitives of bodies a and b may form pairs: never two of one rigid body, of one
  /// deformable body only with self-contact, never an excluded pair.
  bool may_meet(int a, int b, bool self_contact) const;
  /// Point v as a combination of model vertices, y_v = sum w_i x_{nodes_i}: the vertex itself
  /// (weight 1), or a rigid body's p, a1, a2, a3 with weights 1, X1, X2, X3. Returns the count.
  int point_nodes(int v, int* nodes, double* weights) const {
    if (v < first_rigid_point) {
      nodes[0] = v;
      weights[0] = 1.0;
      return 1;
    }
    const RigidPoint& rp = rigid_points[v - first_rigid_point];
    for (int j = 0; j < 4; ++j) {
      nodes[j] = rp.node + j;
      weights[j] = j == 0 ? 1.0 : rp.X[j - 1];
    }
    return 4;
  }
};

/// The boundary of the given deformable bodies (indices into model.bodies; empty: all) and the
/// surfaces of the given rigid bodies (indices into model.rigid_bodies; empty: none): triangle
/// faces used by one tetrahedron (oriented outward) and their edges in 3D, segments used by one
/// triangle in 2D; a rigid body's closed surface (RigidBody::surface) and its edges.
CollisionSurface extract_surface(const Model& model, const std::vector<int>& bodies = {},
                                 const std::vector<int>& rigid_bodies = {});

/// The positions of the surface's points at model positions x (CollisionSurface's numbering):
/// x itself, followed by the rigid points. Linear in x: for a displacement dx it gives the
/// points' displacements.
void surface_points(const CollisionSurface& surface, const Eigen::VectorXd& x,
                    Eigen::VectorXd& points);

struct MeshContactOptions {
  double stiffness = 1e4;             ///< kappa [N/m]
  double activation_distance = 1e-3;  ///< dhat [m]
  double friction = 0.0;              ///< Coulomb coefficient mu
  double friction_velocity = 1e-3;    ///< eps_v [m/s]: below it friction is smoothed
  bool self_contact = true;           ///< also pairs within one body
  bool adaptive_stiffness = true;     ///< double kappa while the closest gap is below min_gap
  double min_gap = 0.0;               ///< [m]; 0: activation_distance / 1000
  double max_stiffness_scale = 1024;  ///< the most kappa grows, as a factor
  std::vector<int> bodies;            ///< the bodies that collide (empty: all deformable ones)
  /// Rigid bodies whose surfaces join (indices into Model::rigid_bodies; empty: none). Rigid
  /// bodies joined by a joint never meet each other.
  std::vector<int> rigid_bodies;
};

/// Adds the term "mesh_contact" (parameters "stiffness" and "friction", as contact.hpp's).
/// @throws InputError for invalid options, fewer than two colliding bodies without
/// self-contact, or a rest state with two non-adjacent primitives closer than dhat or touching.
void add_mesh_contact(Model& model, MeshContactOptions options);

}  // namespace softgrad
