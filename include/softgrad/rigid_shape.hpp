/// @file rigid_shape.hpp
/// The shapes of rigid (affine) bodies in their own frame and their mass properties: boxes,
/// spheres, capsules and closed triangle meshes of uniform density. A body's frame point X
/// maps to x = p + A X in the world; everything here lives in the body (shape) frame.
/// Box, sphere and capsule have closed forms; a mesh is integrated exactly over its polyhedron
/// by the divergence theorem (Eberly, "Polyhedral Mass Properties (Revisited)", 2002).
#pragma once

#include <Eigen/Core>
#include <vector>

namespace softgrad {

/// The shape of a rigid body in its own frame (the frame a scene places in the world).
struct RigidShape {
  /// Which of the fields below describe the shape.
  enum class Kind { Box, Sphere, Capsule, Mesh };
  Kind kind = Kind::Box;
  Eigen::Vector3d size = Eigen::Vector3d::Ones();  ///< Box: full edge lengths [m], centred at 0
  double radius = 0.5;  ///< Sphere, Capsule [m]; a sphere is centred at the origin
  /// Capsule: distance between its two end-sphere centres [m]; the axis is the local y axis,
  /// centred at the origin.
  double length = 1.0;
  Eigen::MatrixXd V;  ///< Mesh: n x 3 vertices [m]
  /// Mesh: m x 3 triangles, counter-clockwise seen from outside (closed, consistently oriented).
  Eigen::MatrixXi F;
};

/// The scene name of a kind: "box", "sphere", "capsule", "mesh".
const char* to_string(RigidShape::Kind kind);

/// Mass, centre of mass and second moments of a solid of uniform density.
struct MassProperties {
  double volume = 0.0;                               ///< [m^3]
  double mass = 0.0;                                 ///< [kg]
  Eigen::Vector3d center = Eigen::Vector3d::Zero();  ///< centre of mass, shape frame [m]
  /// S = integral of rho (X - c)(X - c)^T dV [kg m^2]: the second moment about the centre of
  /// mass (NOT the inertia tensor; the inertia tensor is trace(S) I - S).
  Eigen::Matrix3d second_moment = Eigen::Matrix3d::Zero();
};

/// Checks a shape's fields for its kind.
/// @throws InputError naming what is wrong: a non-positive or non-finite size, radius or
/// length; for a mesh: no vertices or triangles, not 3 columns, a non-finite vertex, an index
/// out of range, a degenerate triangle (repeated vertex or zero area), an edge not shared by
/// exactly two triangles with opposite orientations (open, non-manifold or inconsistently
/// oriented), or a non-positive enclosed volume (the triangles face inward).
void validate_shape(const RigidShape& shape);

/// The mass properties of the shape filled with `density` [kg/m^3]: exact for box, sphere and
/// capsule (a cylinder and two hemispheres), and for a mesh the exact values of its polyhedron.
/// @throws InputError as validate_shape, and for a density that is not positive and finite.
MassProperties mass_properties(const RigidShape& shape, double density);

/// A closed triangle surface of the shape for drawing, in the shape frame, counter-clockwise
/// seen from outside: a mesh itself; a box's 8 corners and 12 triangles; a sphere or capsule as
/// a UV sphere with `resolution` segments around the y axis (and about resolution / 2 from pole
/// to pole, the capsule's with a cylinder between its hemispheres). The vertices lie on the
/// surface, so a curved shape's polyhedron is slightly inside it.
/// @throws InputError as validate_shape, and for a resolution below 3 (curved shapes only).
void surface_mesh(const RigidShape& shape, int resolution, Eigen::MatrixXd& V, Eigen::MatrixXi& F);

/// The spheres that represent the shape against obstacles, in the shape frame: a sphere: its
/// centre with its radius; a capsule: its two end-sphere centres (0, +-length/2, 0) with its
/// radius; a box: its 8 corners with radius 0; a mesh: every row of V with radius 0.
/// @throws InputError as validate_shape.
void contact_spheres(const RigidShape& shape, std::vector<Eigen::Vector3d>& centers,
                     std::vector<double>& radii);

/// The largest distance of the shape's surface from the origin of its frame [m] (a bounding
/// radius): |size| / 2, radius, length / 2 + radius, or the largest vertex norm of a mesh.
/// @throws InputError as validate_shape.
double bounding_radius(const RigidShape& shape);

}  // namespace softgrad
