// Joints and motors: the Model's joint frames, and the two terms over them.
#include "softgrad/joints.hpp"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>

#include "joint_term.hpp"
#include "softgrad/detail/memory_limit.hpp"
#include "softgrad/errors.hpp"

namespace softgrad {
detail::JointGeometry detail::joint_geometry(const Joint& j) {
  detail::JointGeometry g;
  g.type = j.type;
  g.world = j.parent < 0;
  g.limited = j.limited();
  for (int i = 0; i < 3; ++i) {
    g.ap[i] = j.anchor_parent[i];
    g.ac[i] = j.anchor_child[i];
    g.np[i] = j.axis_parent[i];
    g.nc[i] = j.axis_child[i];
    g.rp[i] = j.reference_parent[i];
    g.rc[i] = j.reference_child[i];
    g.wp[i] = j.normal_parent[i];
    for (int k = 0; k < 3; ++k) g.C[3 * i + k] = j.relative(i, k);
  }
  g.lower = j.lower;
  g.upper = j.upper;
  g.k = j.stiffness;
  g.kr = j.angular_stiffness;
  g.kl = j.limit_stiffness;
  return g;
}

namespace {

// A unit vector normal to n.
Eigen::Vector3d normal_to(const Eigen::Vector3d& n) {
  const Eigen::Vector3d t =
      std::abs(n.x()) < 0.9 ? Eigen::Vector3d::UnitX() : Eigen::Vector3d::UnitY();
  return n.cross(t).normalized();
}

void check_positive(const std::string& where, const char* what, double v) {
  if (!(v > 0.0) || !std::isfinite(v)) {
    std::ostringstream os;
    os << where << ": " << what << " must be positive and finite, got " << v;
    throw InputError(os.str());
  }
}

}  // namespace

const char* to_string(JointType type) {
  switch (type) {
    case JointType::Hinge:
      return "hinge";
    case JointType::Ball:
      return "ball";
    case JointType::Slider:
      return "slider";
    case JointType::Fixed:
      return "fixed";
  }
  return "?";
}

const char* to_string(MotorMode mode) {
  switch (mode) {
    case MotorMode::Position:
      return "position";
    case MotorMode::Velocity:
      return "velocity";
    case MotorMode::Force:
      return "force";
  }
  return "?";
}

JointSpec with_default_stiffness(const Model& model, JointSpec spec, double dt) {
  if (!(dt > 0.0) || !std::isfinite(dt))
    throw InputError("joint '" + spec.name + "': the time step must be positive");
  const int n_bodies = static_cast<int>(model.rigid_bodies.size());
  if (spec.child < 0 || spec.child >= n_bodies || spec.parent < -1 || spec.parent >= n_bodies)
    throw InputError("joint '" + spec.name + "': its bodies are not in the model");
  double m = 1e300, S = 1e300;
  for (int b : {spec.parent, spec.child}) {
    if (b < 0) continue;
    m = std::min(m, model.rigid_bodies[b].mass);
    S = std::min(S, model.rigid_bodies[b].second_moments.minCoeff());
  }
  const double inertia = 1.0 / (dt * dt);
  if (!(spec.stiffness > 0.0)) spec.stiffness = 1e4 * m * inertia;
  if (!(spec.angular_stiffness > 0.0)) spec.angular_stiffness = 1e4 * S * inertia;
  if (!(spec.limit_stiffness > 0.0))
    spec.limit_stiffness = 1e2 * (spec.type == JointType::Slider ? m : S) * inertia;
  return spec;
}

namespace {

// add_joint's checks of the spec (its @throws).
void check_joint_spec(const Model& model, const JointSpec& spec, const std::string& where) {
  const int n_bodies = static_cast<int>(model.rigid_bodies.size());
  if (spec.child < 0 || spec.child >= n_bodies)
    throw InputError(where + ": the child is not a rigid body of the model");
  if (spec.parent < -1 || spec.parent >= n_bodies)
    throw InputError(where + ": the parent is not a rigid body of the model (or the world)");
  if (spec.parent == spec.child) throw InputError(where + ": a body cannot be its own parent");
  if (!spec.anchor.allFinite()) throw InputError(where + ": the anchor is not finite");
  if (!(spec.axis.norm() > 0.0) || !spec.axis.allFinite())
    throw InputError(where + ": the axis must be a non-zero, finite vector");
  check_positive(where, "stiffness", spec.stiffness);
  check_positive(where, "angular_stiffness", spec.angular_stiffness);
  const bool limited = spec.lower > -1e300 || spec.upper < 1e300;
  if (limited) {
    if (spec.type == JointType::Ball || spec.type == JointType::Fixed)
      throw InputError(where + ": a " + to_string(spec.type) + " joint has no coordinate to limit");
    if (!(spec.lower < 0.0) || !(spec.upper > 0.0)) {
      std::ostringstream os;
      os << where << ": the limits [" << spec.lower << ", " << spec.upper
         << "] must hold the rest position 0 strictly inside (lower < 0 < upper)";
      throw InputError(os.str());
    }
    check_positive(where, "limit_stiffness", spec.limit_stiffness);
  }
}

}  // namespace

int add_joint(Model& model, JointSpec spec) {
  check_joint_spec(model, spec, "joint '" + spec.name + "'");
  // Frames: the rest A of each body (identity for the world).
  const auto rest = [&](int b, Eigen::Matrix3d& A, Eigen::Vector3d& p) {
    if (b < 0) {
      A.setIdentity();
      p.setZero();
      return;
    }
    A = model.rigid_bodies[b].matrix(model.X);
    p = model.rigid_bodies[b].position(model.X);
  };
  Eigen::Matrix3d Ap, Ac;
  Eigen::Vector3d pp, pc;
  rest(spec.parent, Ap, pp);
  rest(spec.child, Ac, pc);
  const Eigen::Vector3d n = spec.axis.normalized();
  const Eigen::Vector3d r = normal_to(n);
  Joint j;
  j.name = std::move(spec.name);
  j.type = spec.type;
  j.parent = spec.parent;
  j.child = spec.child;
  j.anchor_parent = Ap.transpose() * (spec.anchor - pp);
  j.anchor_child = Ac.transpose() * (spec.anchor - pc);
  j.axis_parent = Ap.transpose() * n;
  j.axis_child = Ac.transpose() * n;
  j.reference_parent = Ap.transpose() * r;
  j.reference_child = Ac.transpose() * r;
  j.normal_parent = j.axis_parent.cross(j.reference_parent);
  j.relative = Ap.transpose() * Ac;
  j.lower = spec.lower;
  j.upper = spec.upper;
  j.stiffness = spec.stiffness;
  j.angular_stiffness = spec.angular_stiffness;
  j.limit_stiffness = spec.limit_stiffness;
  model.joints.push_back(std::move(j));
  return static_cast<int>(model.joints.size()) - 1;
}

std::vector<int> joint_stencil(const Model& model, const Joint& joint) {
  const int parent = model.rigid_bodies[joint.parent < 0 ? joint.child : joint.parent].node;
  const int child = model.rigid_bodies[joint.child].node;
  return {parent, parent + 1, parent + 2, parent + 3, child, child + 1, child + 2, child + 3};
}

namespace {
std::vector<int> all_joint_stencils(const Model& model) {
  std::vector<int> verts;
  for (const Joint& j : model.joints) {
    const std::vector<int> s = joint_stencil(model, j);
    verts.insert(verts.end(), s.begin(), s.end());
  }
  return verts;
}
}  // namespace

JointTerm::JointTerm(const Model& model)
    : AdStencilTerm(3, model.n_verts, all_joint_stencils(model), 8) {
  for (const Joint& j : model.joints) geometry_.push_back(detail::joint_geometry(j));
}

void add_joint_term(Model& model) {
  if (!model.joints.empty()) model.terms.push_back(std::make_unique<JointTerm>(model));
}

double joint_coordinate(const Model& model, int joint, const Eigen::VectorXd& x) {
  SOFTGRAD_CHECK(joint >= 0 && joint < static_cast<int>(model.joints.size()),
                 "joint " << joint << " is not in the model");
  const Joint& j = model.joints[joint];
  const detail::JointGeometry g = detail::joint_geometry(j);
  double xs[24];
  const std::vector<int> s = joint_stencil(model, j);
  for (int v = 0; v < 8; ++v)
    for (int i = 0; i < 3; ++i) xs[3 * v + i] = x[3 * s[v] + i];
  return detail::joint_coordinate(g, xs);
}

void add_motors(Model& model, const std::vector<MotorSpec>& motors, int n_steps) {
  if (n_steps < 0) throw InputError("motors: the number of steps must not be negative");
  require_table_memory(static_cast<double>(n_steps) * static_cast<double>(motors.size()),
                       "motors: targets for " + std::to_string(n_steps) + " steps of " +
                           std::to_string(motors.size()) +
                           " motors (steps: the scene's duration / dt, or train.episode_steps)");
  if (!motors.empty()) model.terms.push_back(std::make_unique<MotorTerm>(model, motors, n_steps));
}

}  // namespace softgrad
