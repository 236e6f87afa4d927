/// @file rigid_body.hpp
/// Rigid bodies as affine bodies (Lan et al. 2022, "Affine Body Dynamics"): a body's 12 dofs
/// are the position p of its centre of mass and a 3x3 matrix A, and its body-frame point X is
/// at x = p + A X. A stiff orthogonality energy
///     W = kappa V |A^T A - I|_F^2
/// keeps A a rotation, so the same backward-Euler Newton, contact, adjoint and controllers
/// serve rigid, articulated and soft bodies without a second engine.
///
/// In the Model, a rigid body is four vertices that follow the deformable bodies' vertices:
/// p, then the columns a1, a2, a3 of A. The body frame has its origin at the centre of mass and
/// its axes along the principal axes of the second moment S = integral rho X X^T dV, so the
/// kinetic energy 1/2 integral rho |p' + A' X|^2 is exactly m/2 |p'|^2 + sum_i S_i/2 |a_i'|^2:
/// the lumped (diagonal) mass of the four vertices is (m, S_1, S_2, S_3), and a1..a3 carry no
/// weight (gravity pulls p alone).
#pragma once

#include <Eigen/Core>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "softgrad/kinematic_group.hpp"
#include "softgrad/shapes.hpp"

namespace softgrad {

struct Model;

/// One rigid body of a Model.
struct RigidBody {
  std::string name;
  std::shared_ptr<const Shape> shape;  ///< in the shape frame
  double density = 1000.0;             ///< [kg/m^3]
  double mass = 0.0;                   ///< [kg]
  double volume = 0.0;                 ///< [m^3]
  /// S_i = integral rho X_i^2 dV along the body frame's axes [kg m^2] (the principal second
  /// moments; the inertia tensor is diag(S_2 + S_3, S_1 + S_3, S_1 + S_2)).
  Eigen::Vector3d second_moments = Eigen::Vector3d::Zero();
  /// The body frame in the shape frame: X_shape = shape_center + shape_axes X_body.
  Eigen::Vector3d shape_center = Eigen::Vector3d::Zero();
  Eigen::Matrix3d shape_axes = Eigen::Matrix3d::Identity();
  double rigidity = 1e8;   ///< kappa [Pa], the orthogonality energy's stiffness
  bool kinematic = false;  ///< its motion is prescribed (a KinematicGroup holds its vertices)
  bool collides = true;    ///< it meets the scene's obstacles (its contact spheres)
  int node = 0;            ///< model vertex of p; a1, a2, a3 are node + 1 .. node + 3
  /// A closed surface for drawing and mesh contact, body frame (vertices x 3, triangles x 3).
  Eigen::MatrixXd surface;
  Eigen::MatrixXi triangles;
  /// Spheres (centres in the body frame, radii) that meet obstacles.
  std::vector<Eigen::Vector3d> contact_centers;
  std::vector<double> contact_radii;

  /// The model dof of local dof k (0..11: p, then a1, a2, a3).
  int dof(int k) const { return 3 * node + k; }
  /// p at positions x.
  Eigen::Vector3d position(const Eigen::VectorXd& x) const;
  /// A = [a1 a2 a3] at positions x.
  Eigen::Matrix3d matrix(const Eigen::VectorXd& x) const;
  /// The world position p + A X of body point X at positions x.
  Eigen::Vector3d point(const Eigen::VectorXd& x, const Eigen::Vector3d& X) const;
  /// The body point at world position `world` when the body is at positions x (A^-1 (y - p)).
  Eigen::Vector3d body_point(const Eigen::VectorXd& x, const Eigen::Vector3d& world) const;
  /// A body direction as a world direction at positions x (A n, not normalised).
  Eigen::Vector3d direction(const Eigen::VectorXd& x, const Eigen::Vector3d& n) const;
  /// The angular velocity omega at positions x and velocities v: the skew part of A' A^T
  /// (exact for a rotation A: A' = [omega]x A) [rad/s].
  Eigen::Vector3d angular_velocity(const Eigen::VectorXd& x, const Eigen::VectorXd& v) const;
};

/// What add_rigid_body needs: the shape, its density and where it is at rest.
struct RigidBodySpec {
  std::string name;
  /// A bounded shape (sphere, box, capsule, cylinder, mesh), placed in the shape frame.
  std::shared_ptr<const Shape> shape;
  double density = 1000.0;  ///< [kg/m^3]
  /// The shape frame's origin [m] and axes (a rotation: columns are the shape's x, y, z) at
  /// rest, in the world.
  Eigen::Vector3d position = Eigen::Vector3d::Zero();
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();
  double rigidity = 1e8;  ///< kappa [Pa]
  bool collides = true;
  /// A kinematic body: its motion (the group's vertices are filled in; Fixed holds it at rest,
  /// Translate moves p, Rotate turns the body about the group's axis through its centre).
  std::optional<KinematicGroup> motion;
  /// Segments around a sphere, capsule or cylinder surface (drawing, and contact with
  /// rigid_surfaces).
  int surface_resolution = 16;
};

/// Appends a rigid body after every vertex of the model, its mass properties from its shape and
/// density (mass_properties), and, if it has a motion, the kinematic group of its four vertices.
/// Returns its index in Model::rigid_bodies.
/// @pre every deformable body is added already, and no energy term yet.
/// @throws InputError naming the body for an invalid shape, density, rotation or rigidity, a
/// 2D model, a name used by another body, or a call after an energy term was added.
int add_rigid_body(Model& model, RigidBodySpec spec);

/// Adds the orthogonality energy W = kappa V |A^T A - I|^2 of every rigid body that is not
/// kinematic, as one term "rigidity" (call after the last add_rigid_body; nothing when there is
/// no such body).
void add_rigidity_term(Model& model);

/// Writes body b's rigid velocity into the velocities v of positions x: its centre of mass
/// moves at `velocity` [m/s] and it turns at `angular_velocity` [rad/s] (p' = velocity,
/// a_i' = omega x a_i).
void set_rigid_velocity(const Model& model, int b, const Eigen::Vector3d& velocity,
                        const Eigen::Vector3d& angular_velocity, const Eigen::VectorXd& x,
                        Eigen::VectorXd& v);

/// A rigid body's pose and velocities at one state, as the program reports them (frames, CSV,
/// summary.json) and softgrad.rigid computes them in Python.
struct RigidBodyPose {
  Eigen::Vector3d position;          ///< p, the centre of mass [m]
  Eigen::Matrix3d rotation;          ///< the shape's orientation: polar(A) shape_axes^T
  Eigen::Vector4d quaternion;        ///< rotation as (w, x, y, z), w >= 0
  Eigen::Vector3d velocity;          ///< p' [m/s]
  Eigen::Vector3d angular_velocity;  ///< omega [rad/s], the skew part of A' A^T
};
/// Body b's pose at positions x and velocities v (polar(A): the rotation nearest A).
RigidBodyPose rigid_body_pose(const RigidBody& b, const Eigen::VectorXd& x,
                              const Eigen::VectorXd& v);

/// The index in Model::rigid_bodies of the body called `name`, or -1.
int find_rigid_body(const Model& model, const std::string& name);

}  // namespace softgrad
