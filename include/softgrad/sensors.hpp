/// @file sensors.hpp
/// Sensors: what a robot's controller observes and what its losses measure, as smooth functions
/// s(x, v) of the state with their reverse mode. With p, A = [a1 a2 a3] a rigid body's affine
/// dofs (rigid_body.hpp) and q(x) a joint's coordinate (joints.hpp):
///
///   JointPosition        q(x)                                   1 value  [rad or m]
///   JointVelocity        q' = grad q(x) . v                     1 value  [rad/s or m/s]
///   BodyPosition         p                                      3 values [m]
///   BodyVelocity         p'                                     3 values [m/s]
///   BodyAxes             a1, a2, a3                             9 values
///   BodyAngularVelocity  omega = skew part of A' A^T
///                              = 1/2 sum_i a_i x a_i'           3 values [rad/s]
///   BodyPoint            p + A X                                3 values [m]
///
/// (X the body-frame point of a world point given at rest.) Their derivatives: q by the element
/// AD, q' through the Hessian-vector product d(grad q . v)/dx = H v, omega in closed form:
/// d(omega . w)/da_i = 1/2 a_i' x w and d(omega . w)/da_i' = 1/2 w x a_i.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "softgrad/joints.hpp"
#include "softgrad/model.hpp"
#include "softgrad/state.hpp"

namespace softgrad {

/// One sensor of a joint or a rigid body.
struct Sensor {
  enum class Kind {
    JointPosition,
    JointVelocity,
    BodyPosition,
    BodyVelocity,
    BodyAxes,
    BodyAngularVelocity,
    BodyPoint
  };
  Kind kind = Kind::BodyPosition;
  int index = 0;  ///< into Model::joints (joint kinds) or Model::rigid_bodies (body kinds)
  /// BodyPoint: a world point at rest [m]. Other kinds: leave it out of a braced initialiser
  /// ({kind, index}); an explicit {} would leave Eigen's vector uninitialised.
  Eigen::Vector3d point = Eigen::Vector3d::Zero();
};

/// The number of values a sensor of this kind gives (1, 1, 3, 3, 9, 3, 3).
int sensor_size(Sensor::Kind kind);

/// A list of sensors read into one flat vector, in order. Holds what it needs of the model
/// (it may outlive it).
class SensorSet {
 public:
  /// @throws InputError naming the sensor for a joint or body that is not in the model, a joint
  /// sensor on a joint without a coordinate (ball, fixed), or a point that is not finite.
  SensorSet(const Model& model, std::vector<Sensor> sensors);
  /// The number of values read (the sum of sensor_size over the sensors).
  int size() const { return size_; }
  /// Writes the readings at state s into out[0 .. size()).
  /// @pre s.x and s.v are sized like the model's dofs.
  void read(const State& s, double* out) const;
  /// Reverse mode of read(): xbar += (d out/dx)^T out_bar and vbar += (d out/dv)^T out_bar.
  /// @pre xbar and vbar are sized like s.x.
  void backprop(const State& s, const double* out_bar, Eigen::VectorXd& xbar,
                Eigen::VectorXd& vbar) const;
  const std::vector<Sensor>& sensors() const { return sensors_; }

 private:
  /// What one sensor needs of the model.
  struct Channel {
    int offset = 0;                               ///< its first value in the readings
    int node = 0;                                 ///< the body's vertex of p (body kinds)
    Eigen::Vector3d X = Eigen::Vector3d::Zero();  ///< body-frame point (BodyPoint)
    Joint joint;                                  ///< (joint kinds)
    std::vector<int> stencil;                     ///< the joint's eight vertices (joint kinds)
  };
  std::vector<Sensor> sensors_;
  std::vector<Channel> channels_;
  int size_ = 0;
};

/// A short name: "q[knee]", "qdot[knee]", "p[torso]", "pdot[torso]", "A[torso]",
/// "omega[torso]", "point[torso](0.1, 0, 0)".
/// @throws InputError for a joint or body that is not in the model.
std::string to_string(const Model& model, const Sensor& sensor);

/// A robot's usual observations: the position of every hinge and slider joint, then their
/// velocities, then the root's (the first rigid body that is neither kinematic nor jointed to
/// the world or a kinematic body) position, axes, velocity and angular velocity. Empty for a
/// model without joints or free rigid bodies.
std::vector<Sensor> default_robot_sensors(const Model& model);

}  // namespace softgrad
