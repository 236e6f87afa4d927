/// @file joints.hpp
/// Joints and motors between rigid bodies (rigid_body.hpp), as energy terms on their affine
/// dofs. A joint joins a parent (a rigid body, or the world) and a child at an anchor; with
/// y_p, y_c the anchor as a point of each body, n_p, n_c the axis and A_p, A_c the bodies'
/// matrices,
///
///   ball:    k/2 |y_c - y_p|^2
///   hinge:   k/2 |y_c - y_p|^2 + k_r/2 |A_c n_c - A_p n_p|^2
///   slider:  k/2 |(I - n n^T)(y_c - y_p)|^2 + k_r/2 |A_c - A_p C|_F^2     (n = A_p n_p)
///   fixed:   k/2 |y_c - y_p|^2 + k_r/2 |A_c - A_p C|_F^2
///
/// (C = A_p^T A_c at rest: the child's orientation relative to the parent), stiff penalties
/// that hold the constraints to F/k. The joint coordinate q is the hinge angle (the child's
/// reference direction in the parent's plane normal to the axis, 0 at rest, in (-pi, pi]) or
/// the slider displacement along the axis (0 at rest); limits add k_l P(upper - q) and
/// k_l P(q - lower), P the smooth one-sided penalty of contact (contact.hpp) with a band of
/// 1e-3 rad or m.
///
/// A motor drives a hinge or a slider towards a per-step target u_n, the controls that training
/// optimises (ParameterGroup "target" of the term "motors"). With q_n the coordinate at the
/// start of the step and h the step, each mode is a spring of stiffness K towards q*:
///
///   position servo  (kp, kd): tau = kp (u - q) - kd q'     K = kp + kd/h, q* = (kp u + kd/h q_n)/K
///   velocity servo  (kv):     tau = kv (u - q')            K = kv/h,      q* = q_n + h u
///   force           :         tau = u                      (W = -u q)
///
/// with q' = (q - q_n)/h, and the servo torque saturates smoothly at the limit tau_max:
/// W = tau_max^2/K log cosh(K (q - q*)/tau_max) (tau = tau_max tanh(K (q* - q)/tau_max)), or
/// K/2 (q - q*)^2 without a limit. A force motor's u is clipped to +-tau_max.
#pragma once

#include <Eigen/Core>
#include <limits>
#include <string>
#include <vector>

namespace softgrad {

struct Model;

enum class JointType { Hinge, Ball, Slider, Fixed };
/// "hinge", "ball", "slider", "fixed".
const char* to_string(JointType type);

/// A joint as the scene places it: everything in the world at rest.
struct JointSpec {
  std::string name;
  JointType type = JointType::Hinge;
  int parent = -1;  ///< index into Model::rigid_bodies; -1: the world
  int child = 0;    ///< index into Model::rigid_bodies
  Eigen::Vector3d anchor = Eigen::Vector3d::Zero();         ///< where the bodies are joined [m]
  Eigen::Vector3d axis = Eigen::Vector3d::UnitZ();          ///< hinge or slider axis (normalised)
  double lower = -std::numeric_limits<double>::infinity();  ///< limit of q [rad or m]
  double upper = std::numeric_limits<double>::infinity();
  // Penalty stiffnesses; 0: not set (with_default_stiffness chooses them).
  double stiffness = 0.0;          ///< k [N/m]
  double angular_stiffness = 0.0;  ///< k_r [N m]
  double limit_stiffness = 0.0;    ///< k_l [N m/rad or N/m]
};

/// The spec with the stiffnesses it leaves at 0 chosen for steps of dt [s]: k = 1e4 m / dt^2,
/// k_r = 1e4 S / dt^2 and k_l = 1e2 S / dt^2 (S / m for a slider's k_l), with m the lighter
/// body's mass and S the smallest of their second moments (the world counts as infinitely
/// heavy). Each is 1e4 (1e2) times the inertia a step's Newton system holds against it, which
/// keeps a joint within g dt^2 / 1e4 of its constraint under its bodies' weight (1e-8 m at
/// dt = 1e-2) and the system well conditioned for a direct solver.
/// @throws InputError for a dt that is not positive, or bodies that are not in the model.
JointSpec with_default_stiffness(const Model& model, JointSpec spec, double dt);

/// A joint in the Model: its frames in each body's frame (the world's for a world parent).
struct Joint {
  std::string name;
  JointType type = JointType::Hinge;
  int parent = -1, child = 0;
  Eigen::Vector3d anchor_parent, anchor_child;  ///< body points [m]
  Eigen::Vector3d axis_parent, axis_child;      ///< unit body directions
  /// Unit body directions normal to the axis that meet at rest: the hinge angle's zero;
  /// normal_parent = axis_parent x reference_parent completes the parent's plane.
  Eigen::Vector3d reference_parent, reference_child, normal_parent;
  Eigen::Matrix3d relative;  ///< C = A_p^T A_c at rest
  double lower, upper;
  double stiffness, angular_stiffness, limit_stiffness;
  bool limited() const { return lower > -1e300 || upper < 1e300; }
  /// True for the joints that have a coordinate (and so limits and motors): hinge, slider.
  bool has_coordinate() const { return type == JointType::Hinge || type == JointType::Slider; }
};

/// Appends a joint to Model::joints, its frames from the bodies' rest positions. Returns its
/// index. @throws InputError naming the joint for bodies that are not in the model, a child that
/// is its parent, a zero axis, limits that are not lower < 0 < upper (the rest state must
/// satisfy them) or on a ball or fixed joint, or stiffnesses that are not positive (unset:
/// see with_default_stiffness).
int add_joint(Model& model, JointSpec spec);

/// Adds the energy term "joints" of every joint in Model::joints (call after the last
/// add_joint; nothing without joints).
void add_joint_term(Model& model);

enum class MotorMode { Position, Velocity, Force };
/// "position", "velocity", "force".
const char* to_string(MotorMode mode);

struct MotorSpec {
  std::string name;
  int joint = 0;  ///< index into Model::joints: a hinge or a slider
  MotorMode mode = MotorMode::Position;
  double gain = 0.0;     ///< kp [N m/rad or N/m] (position), kv [N m s/rad or N s/m] (velocity)
  double damping = 0.0;  ///< kd [N m s/rad or N s/m] (position servo)
  double max_force = std::numeric_limits<double>::infinity();  ///< [N m or N]
  double target = 0.0;  ///< every step's target until a controller or parameters set it
};

/// Adds the term "motors" with a PerStep parameter group "target" (one value per step and
/// motor, `n_steps` steps; after them the last step's values hold). @throws InputError naming the
/// motor for a joint without a coordinate, a gain that is not positive (servos), a negative
/// damping, a limit that is not positive, or a non-finite target.
void add_motors(Model& model, const std::vector<MotorSpec>& motors, int n_steps);

/// The coordinate q of joint j (hinge angle [rad], slider displacement [m]) at positions x.
double joint_coordinate(const Model& model, int joint, const Eigen::VectorXd& x);

}  // namespace softgrad
