/// @file rigid_coupling.hpp
/// Soft bodies coupled to rigid (affine) bodies (rigid_body.hpp) in one Newton system:
///
///   attachment ("bone"):  W = k/2 sum_v |x_v - (p + A X_v)|^2
///       binds deformable-body vertices to a body, X_v the vertex's body-frame position at rest
///       (X_v = A_0^-1 (X_rest_v - p_0)): a stiff spring to the material point it sits on.
///   shape contact:        the contact energy of softgrad/contact.hpp between deformable-body
///       vertices and rigid bodies' box, sphere and capsule shapes, with d the shape's signed
///       distance at the vertex's body-frame point X = A^T (x_v - p), and lagged friction on the
///       vertex's slip against the body's material point that coincided with it at the start of
///       the step. Dynamic and kinematic bodies alike; the body feels the reaction.
///
/// Both energies depend on the positions only through x_v - p and A, so their forces on the
/// vertices and on p cancel: they conserve the system's linear momentum.
#pragma once

#include <string>
#include <vector>

#include "softgrad/contact.hpp"
#include "softgrad/model.hpp"

namespace softgrad {

/// Adds the term "attachment:<name>": `vertices` (deformable-body vertices, model numbering)
/// bound to rigid body `rigid_body` (index into Model::rigid_bodies) by springs of stiffness
/// `stiffness` [N/m] to the body points they sit on at rest. Its parameter group "stiffness"
/// (one value) makes k differentiable.
/// @throws InputError naming the attachment for a body index out of range, an empty vertex
/// list, a vertex that is not a deformable-body vertex (negative or >= n_mesh_verts()), a
/// vertex listed twice, a stiffness that is not positive and finite, or a name another
/// attachment has.
void add_attachment(Model& model, std::string name, int rigid_body, std::vector<int> vertices,
                    double stiffness);

/// Contact between deformable-body vertices and rigid bodies' shapes (see add_shape_contact).
struct ShapeContactOptions {
  ContactModel model = ContactModel::Barrier;
  double stiffness = 1e4;             ///< penalty k or barrier kappa [N/m]
  double activation_distance = 1e-3;  ///< dhat [m]: barrier range, penalty smoothing band
  double friction = 0.0;              ///< Coulomb coefficient mu
  double friction_velocity = 1e-3;    ///< eps_v [m/s]: below it friction is smoothed (sticking)
  std::vector<int> vertices;          ///< deformable-body vertices (empty: all of them)
  /// Indices into Model::rigid_bodies (empty: every body with a box, sphere or capsule shape).
  std::vector<int> bodies;
};

/// Adds the term "shape_contact" with parameter groups "stiffness" [N/m] and "friction" [1]
/// (one value each): one stencil per (vertex, body) pair, the vertex against the body's shape.
/// Barrier contact never lets a vertex into a shape (the line search stops at the first time
/// of impact). Nothing is added when there is no pair (no deformable vertex or no such body).
/// @throws InputError for a stiffness, activation distance or friction velocity that is not
/// positive and finite, a friction coefficient that is negative or not finite, a vertex that is
/// not a deformable-body vertex, a body index out of range, a body asked for whose shape is a
/// mesh (unsupported: use its contact spheres against obstacles, or a box, sphere or capsule),
/// a vertex or body listed twice, or (barrier) a vertex not strictly outside a body at rest.
void add_shape_contact(Model& model, ShapeContactOptions options);

}  // namespace softgrad
