/// @file kinematic_group.hpp
/// Vertices whose motion is prescribed (held, translated or turned) instead of solved for.
#pragma once

#include <Eigen/Core>
#include <array>
#include <string>
#include <vector>

namespace softgrad {

/// Vertices whose positions are prescribed over time instead of solved for.
struct KinematicGroup {
  enum class Motion { Fixed, Translate, Rotate };
  std::string name;
  std::vector<int> verts;  ///< model vertex indices
  Motion motion = Motion::Fixed;
  Eigen::Vector3d velocity = Eigen::Vector3d::Zero();  ///< Translate [m/s]
  Eigen::Vector3d center = Eigen::Vector3d::Zero();    ///< Rotate: a point on the axis
  Eigen::Vector3d axis = Eigen::Vector3d::UnitZ();     ///< Rotate: unit axis (z in 2D)
  double angular_velocity = 0.0;                       ///< Rotate [rad/s]
  double start = 0.0;   ///< motion starts [s] (before: at rest positions)
  double stop = 1e300;  ///< motion stops [s] (after: held)
  /// The components the group prescribes; the others stay free (a roller holds one, a slider
  /// all but one). Only the first dim entries count.
  std::array<bool, 3> axes{true, true, true};
  /// The group is a rigid body's four vertices (p, a1, a2, a3; rigid_body.hpp): only p is a
  /// point; the axes a1..a3 are directions, which turn with Rotate and never translate.
  bool affine = false;
};

}  // namespace softgrad
