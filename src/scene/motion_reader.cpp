#include "motion_reader.hpp"

#include <Eigen/Geometry>

namespace softgrad::detail {

namespace {

using enum KeyType;

// The schema of a boundary's motion, beside its reader.
constexpr KeySpec kMotionKeys[] = {
    {"translate", Object, "", {}, "", "", "constant velocity, see motion/translate"},
    {"rotate", Object, "", {}, "", "", "rotation about an axis, see motion/rotate"},
};

constexpr KeySpec kTranslateKeys[] = {
    {"velocity", Vector, "m/s", kAnyNumber, "", nullptr, "velocity of the selected vertices"},
};

constexpr KeySpec kRotateKeys[] = {
    {"center", Vector, "m", kAnyNumber, "", "[0, 0(, 0)]", "a point on the axis"},
    {"axis", Vector, "", kAnyNumber, "", "",
     "axis direction, non-zero (3D only: 2D turns about z)"},
    {"angular_velocity", Number, "rad/s", kAnyNumber, "", nullptr,
     "counter-clockwise about the axis"},
};

}  // namespace

namespace schema {
const Section motion{"/boundary/*/motion", "one of translate, rotate", kMotionKeys};
const Section translate{"motion/translate", "x(t) = X + velocity (t - start)", kTranslateKeys};
const Section rotate{"motion/rotate", "rotation by angular_velocity (t - start) about the axis",
                     kRotateKeys};
}  // namespace schema
namespace {

// Pads a dim-vector to 3 components with zeros.
Eigen::Vector3d to_3d(const Eigen::VectorXd& v) {
  Eigen::Vector3d out = Eigen::Vector3d::Zero();
  out.head(v.size()) = v;
  return out;
}

}  // namespace

void read_motion(const ObjectReader& bc, int dim, KinematicGroup& group) {
  if (!bc.has("motion")) return;
  const Json& j = bc.at("motion");
  if (j.is_string()) {
    if (j.get<std::string>() != "fixed") {
      bc.fail("motion", "unknown motion " + j.dump() +
                            "; use \"fixed\" or an object with 'translate' or 'rotate'");
    }
    return;
  }
  const ObjectReader motion = bc.object("motion", schema::motion);
  if (motion.has("translate") == motion.has("rotate"))
    motion.fail_here("a motion needs exactly one of 'translate' or 'rotate'");
  if (motion.has("translate")) {
    const ObjectReader translate = motion.object("translate", schema::translate);
    group.motion = KinematicGroup::Motion::Translate;
    group.velocity = to_3d(translate.vector("velocity", dim, {}));
    return;
  }
  const ObjectReader rotate = motion.object("rotate", schema::rotate);
  group.motion = KinematicGroup::Motion::Rotate;
  group.center = to_3d(rotate.vector("center", dim, Eigen::VectorXd::Zero(dim)));
  group.angular_velocity = rotate.number("angular_velocity");
  if (dim == 2) {
    if (rotate.has("axis")) rotate.fail("axis", "2D rotations turn about z; remove 'axis'");
    group.axis = Eigen::Vector3d::UnitZ();
    return;
  }
  if (!rotate.has("axis")) rotate.fail("axis", "missing key 'axis', required in 3D");
  const Eigen::Vector3d axis = rotate.vector("axis", 3, {});
  if (!(axis.norm() > 0)) rotate.fail("axis", "the axis must be non-zero");
  group.axis = axis.normalized();
}

}  // namespace softgrad::detail
