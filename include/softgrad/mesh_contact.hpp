/// @file mesh_contact.hpp
/// Contact between the surfaces of deformable bodies and of a body with itself (IPC, Li et al.
/// 2020), as one energy term "mesh_contact":
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

/// The boundary of deformable bodies: what can touch. Model vertex numbering.
struct CollisionSurface {
  int dim = 3;
  std::vector<int> vertices;              ///< surface vertices, ascending
  std::vector<std::array<int, 2>> edges;  ///< boundary edges (3D: of the boundary triangles)
  std::vector<std::array<int, 3>> faces;  ///< 3D: boundary triangles, outward; 2D: none
  std::vector<int> vertex_body;           ///< per surface vertex: its body (Model::bodies)
  std::vector<int> edge_body;             ///< per edge: its body
  std::vector<int> face_body;             ///< per face: its body
};

/// The boundary of the given bodies (indices into model.bodies; empty: all): triangle faces
/// used by one tetrahedron (oriented outward) and their edges in 3D, segments used by one
/// triangle in 2D.
CollisionSurface extract_surface(const Model& model, const std::vector<int>& bodies = {});

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
};

/// Adds the term "mesh_contact" (parameters "stiffness" and "friction", as contact.hpp's).
/// @throws InputError for invalid options, fewer than two colliding bodies without
/// self-contact, or a rest state with two non-adjacent primitives closer than dhat or touching.
void add_mesh_contact(Model& model, MeshContactOptions options);

}  // namespace softgrad
